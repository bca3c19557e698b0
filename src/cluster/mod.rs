//! Reading a live cluster: what it answers (discovery, then the lists discovery names) is kept
//! as the files of a snapshot ([`snapshot`]), which are linted like any dump and can be saved.

pub mod snapshot;
