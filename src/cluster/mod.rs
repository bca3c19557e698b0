//! Reading a live cluster: what it answers (discovery, then the lists discovery names) is kept
//! as the files of a snapshot ([`snapshot`]), which are linted like any dump and can be saved.

#[cfg(feature = "cluster")]
mod answers;
#[cfg(feature = "cluster")]
pub mod connect;
pub mod discovery;
#[cfg(feature = "cluster")]
pub mod exec;
mod page;
#[cfg(feature = "cluster")]
pub mod read;
pub mod redact;
pub mod render;
pub mod snapshot;

/// Which cluster to read: the connection flags, as kubectl takes them. (Plain data, so that
/// the command line takes them in a build without the cluster reader too.)
#[derive(Clone, Debug, Default)]
pub struct Connection {
    /// `--kubeconfig`: this file instead of `KUBECONFIG` or `~/.kube/config`.
    pub kubeconfig: Option<std::path::PathBuf>,
    /// `--context`: this kubeconfig context instead of the current one.
    pub context: Option<String>,
    /// `--request-timeout`: how long one request may take (`None`: the default; zero: no
    /// limit, as kubectl's `0`).
    pub request_timeout: Option<std::time::Duration>,
}
