//! What the API server answered, in the user's words: a failed answer's status and message, a
//! page for people where JSON was due, and why a connection failed.

use http::StatusCode;
use serde_json::Value;

use super::read::Answered;
use super::redact::redact;

/// How a page for people is named.
pub(super) const HTML_PAGE: &str = "an HTML page";
/// What a page for people where the API server should be most likely is.
pub(super) const PROXY: &str = "(a login page, or a proxy in front of the API server?)";

/// A failed answer in words: its status and the `Status` object's message.
pub(super) fn failed(answered: &Answered) -> String {
    let status = status_line(answered.status);
    match status_message(&answered.body) {
        _ if is_html(&answered.body) => format!("{status}, with {HTML_PAGE} {PROXY}"),
        message if message.is_empty() => status,
        message => format!("{status}: {message}"),
    }
}

/// `403 Forbidden`.
pub(super) fn status_line(code: StatusCode) -> String {
    match code.canonical_reason() {
        Some(reason) => format!("{} {reason}", code.as_u16()),
        None => code.as_u16().to_string(),
    }
}

/// Whether an answer is a page for people (HTML), not what an API server answers (JSON).
pub(super) fn is_html(body: &str) -> bool {
    body.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('<')
}

/// Why a connection failed, in words, from what the client said (`said`): the causes a
/// user can act on named, what to check said; else what the client said.
pub(super) fn connection_failure(err: &kube::Error, said: &str) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(err);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    return "connection refused: is the cluster running, and the kubeconfig's server address right?".to_string();
                }
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted => {
                    return "the connection was reset before an answer: is the kubeconfig's server address an API server's?".to_string();
                }
                std::io::ErrorKind::HostUnreachable | std::io::ErrorKind::NetworkUnreachable => {
                    return format!(
                        "{io}: is the network up, and the kubeconfig's server address right?"
                    );
                }
                _ => {}
            }
        }
        source = cause.source();
    }
    // The client's layers (`ServiceError: client error (Connect): `) say nothing to a user.
    let said = said.strip_prefix("ServiceError: ").unwrap_or(said);
    let said = said
        .strip_prefix("client error (")
        .and_then(|rest| rest.split_once("): "))
        .map_or(said, |(_, cause)| cause);
    let lower = said.to_ascii_lowercase();
    if lower.contains("connection refused") {
        return "connection refused: is the cluster running, and the kubeconfig's server address right?".to_string();
    }
    let tls = |what: &str| {
        format!(
            "{what} ({}): check the certificate-authority (or certificate-authority-data) of the kubeconfig's cluster, and that its server address is the API server's",
            after(said, "invalid peer certificate: ")
        )
    };
    if lower.contains("dns error") || lower.contains("failed to lookup address") {
        return format!(
            "its host name does not resolve ({}): is the kubeconfig's server address right, and the network (VPN) up?",
            after(said, "dns error: ")
        );
    }
    if lower.contains("unknownissuer") {
        return tls(
            "the server's TLS certificate is not signed by the certificate authority the kubeconfig trusts",
        );
    }
    if lower.contains("notvalidforname") {
        return tls("the server's TLS certificate is not for this host name");
    }
    if lower.contains("expired") && lower.contains("certificate") {
        return tls("the server's TLS certificate has expired (or the clock is wrong)");
    }
    if lower.contains("invalidcontenttype") || lower.contains("corrupt message") {
        return "what answers there does not speak HTTPS: is the kubeconfig's server address an API server's (https, its port)?".to_string();
    }
    if lower.contains("certificate") || lower.contains("handshake") || lower.contains("alert") {
        return tls("the TLS handshake failed");
    }
    if lower.contains("connection closed before message completed")
        || lower.contains("error reading a body")
    {
        return format!(
            "the server closed the connection before it had answered ({said}): is the kubeconfig's server address an API server's (https, its port)?"
        );
    }
    format!("{said}: is the cluster running, and the kubeconfig's server address right?")
}

/// What `said` says after `marker`, or all of it: the cause without the client's layers
/// (`ServiceError: client error (Connect): …`).
pub(super) fn after<'s>(said: &'s str, marker: &str) -> &'s str {
    said.rfind(marker)
        .map_or(said, |at| &said[at + marker.len()..])
}

/// The `message` of a `Status` answer, or nothing; without the credentials a server (or a
/// proxy before it) may echo.
pub(super) fn status_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|status| status.get("message")?.as_str().map(redact))
        .unwrap_or_default()
}
