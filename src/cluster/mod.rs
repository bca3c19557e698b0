//! Reading a live cluster: what it answers (discovery, then the lists discovery names) is kept
//! as the files of a snapshot ([`snapshot`]), which are linted like any dump and can be saved.

#[cfg(feature = "cluster")]
pub mod connect;
pub mod discovery;
#[cfg(feature = "cluster")]
pub mod read;
pub mod render;
pub mod snapshot;
