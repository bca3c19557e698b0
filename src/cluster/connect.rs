//! Which cluster to read, and the client that reads it: kube-rs's, which reads kubeconfig as
//! kubectl does (`KUBECONFIG`, `~/.kube/config`, `--kubeconfig`, `--context`; else the
//! in-cluster service account) and authenticates with tokens, client certificates, exec
//! credential plugins and OIDC. Nothing here sends a request.

use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

pub use super::Connection;

/// How long one request may take unless `--request-timeout` says otherwise: a server that
/// stops answering ends the run instead of hanging it.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// A client for the cluster, and how to name it to the user.
pub struct Connected {
    pub client: kube::Client,
    /// The kubeconfig context (`None` in a Pod, with its service account).
    pub context: Option<String>,
    /// The API server's address.
    pub server: String,
    /// `None`: no limit.
    pub request_timeout: Option<Duration>,
    /// The context's namespace (`default` where it names none), as kubectl takes it for `-n`.
    pub default_namespace: String,
}

/// The client of the context the flags name. Errors are one line, naming the kubeconfig or
/// context and what to do.
pub async fn connect(connection: &Connection) -> Result<Connected, String> {
    let options = KubeConfigOptions {
        context: connection.context.clone(),
        cluster: None,
        user: None,
    };
    // `--kubeconfig FILE` must be read; without it, no kubeconfig means the Pod's service
    // account, else what to set.
    let kubeconfig = match &connection.kubeconfig {
        Some(path) => Kubeconfig::read_from(path)
            .map(|kubeconfig| (kubeconfig, path.display().to_string()))
            .map_err(|e| {
                format!(
                    "cannot read the kubeconfig {}: {}",
                    path.display(),
                    sentence(&e)
                )
            })?,
        None => match Kubeconfig::read() {
            Ok(kubeconfig) => (kubeconfig, "the kubeconfig".to_string()),
            Err(err) if connection.context.is_some() => {
                return Err(format!(
                    "cannot read a kubeconfig ({}), so there is no context {}: set KUBECONFIG or pass --kubeconfig",
                    sentence(&err),
                    show(&connection.context)
                ));
            }
            Err(err) => {
                let config = kube::Config::incluster().map_err(|_| {
                    format!(
                        "no kubeconfig ({}) and not running in a Pod: set KUBECONFIG or pass --kubeconfig FILE",
                        sentence(&err)
                    )
                })?;
                return client(config, None, connection);
            }
        },
    };
    let (kubeconfig, file) = kubeconfig;
    let context = connection
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone());
    check_context(&kubeconfig, context.as_deref(), &file)?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| format!("cannot use context {}: {}", show(&context), sentence(&e)))?;
    client(config, context, connection)
}

/// The client of `config`, with the request timeout and retries of `connection`.
fn client(
    mut config: kube::Config,
    context: Option<String>,
    connection: &Connection,
) -> Result<Connected, String> {
    let request_timeout = match connection.request_timeout {
        None => Some(DEFAULT_REQUEST_TIMEOUT),
        Some(Duration::ZERO) => None,
        Some(timeout) => Some(timeout),
    };
    config.connect_timeout = request_timeout;
    config.read_timeout = request_timeout;
    config.write_timeout = request_timeout;
    // The reader retries 429 and 5xx itself, a few times, as it says (`read.rs`); kube's own
    // retries (fifteen, with waits growing to minutes) would hide a group that is down.
    config.default_retry = false;
    let server = config
        .cluster_url
        .to_string()
        .trim_end_matches('/')
        .to_string();
    let default_namespace = config.default_namespace.clone();
    let client = kube::Client::try_from(config).map_err(|e| {
        format!(
            "cannot make a client for context {} ({server}): {}",
            show(&context),
            sentence(&e)
        )
    })?;
    Ok(Connected {
        client,
        context,
        server,
        request_timeout,
        default_namespace,
    })
}

/// A context that the kubeconfig does not define, said with the ones it does.
fn check_context(kubeconfig: &Kubeconfig, context: Option<&str>, file: &str) -> Result<(), String> {
    let names: Vec<&str> = kubeconfig
        .contexts
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    match context {
        _ if names.is_empty() => Err(format!(
            "{file} has no context: add one with `kubectl config set-context NAME --cluster … --user …`"
        )),
        None => Err(format!(
            "{file} sets no current context: pass --context NAME (it has {})",
            or_none(&names)
        )),
        Some(context) if !names.contains(&context) => Err(format!(
            "{file} has no context `{context}` (it has {}): pass --context NAME or run `kubectl config get-contexts`",
            or_none(&names)
        )),
        Some(_) => Ok(()),
    }
}

fn or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn show(context: &Option<String>) -> String {
    context.as_deref().unwrap_or("(none)").to_string()
}

/// An error and its causes, as one clause.
pub fn sentence(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}
