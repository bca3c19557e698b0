//! Which cluster to read, and the client that reads it: kube-rs's, which reads kubeconfig as
//! kubectl does (`KUBECONFIG`, `~/.kube/config`, `--kubeconfig`, `--context`; else the
//! in-cluster service account) and authenticates with tokens, client certificates, exec
//! credential plugins and OIDC. Nothing here sends a request.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::Value;

pub use super::Connection;
use super::exec;
use super::redact::{redact, without_userinfo};

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
    /// An exec plugin's token that expires, which the reader sends itself.
    pub refreshing: Option<Arc<Refreshing>>,
}

/// How long before its expiry a plugin's token is had again, as client-go and kube do.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);
/// How long a token file's token is kept before the file is read again, as client-go and kube
/// do (a projected service account token is replaced in its file before it expires).
const TOKEN_FILE_KEPT: Duration = Duration::from_secs(60);

/// A token that is had again while the cluster is read, so that a long read outlasts it: an
/// exec plugin's token that expires (from the plugin, under the request timeout, when less
/// than [`EXPIRY_MARGIN`] of it is left) and a token file's (read again each minute), as
/// kubectl does. kube is not given it: the reader sets the `Authorization` header itself.
pub struct Refreshing {
    source: TokenSource,
    /// The header, and when it is to be had again (`None`: never).
    current: tokio::sync::Mutex<(http::HeaderValue, Option<SystemTime>)>,
}

enum TokenSource {
    Plugin {
        exec: Box<kube::config::ExecConfig>,
        user: String,
        cluster: Option<Value>,
        timeout: Option<Duration>,
    },
    File {
        path: String,
    },
}

impl Refreshing {
    /// The `Authorization` header to send now.
    pub async fn header(&self) -> Result<http::HeaderValue, String> {
        let mut current = self.current.lock().await;
        let now = SystemTime::now();
        let due = current.1.is_some_and(|expires| match &self.source {
            TokenSource::Plugin { .. } => now
                .checked_add(EXPIRY_MARGIN)
                .is_none_or(|soon| soon >= expires),
            TokenSource::File { .. } => now >= expires,
        });
        if due {
            match &self.source {
                TokenSource::Plugin {
                    exec,
                    user,
                    cluster,
                    timeout,
                } => {
                    let ran = run_plugin(exec, user, cluster.clone(), *timeout).await?;
                    *current = token_of_plugin(ran, &exec::name(exec), user)?;
                }
                // A file that cannot be read again, or holds no token, leaves the last token
                // in use: a file made available at the start and then removed is so meant.
                TokenSource::File { path } => {
                    if let Some(header) = token_file(path).ok().and_then(|t| bearer(&t).ok()) {
                        current.0 = header;
                    }
                    current.1 = now.checked_add(TOKEN_FILE_KEPT);
                }
            }
        }
        Ok(current.0.clone())
    }
}

/// The token of a token file, as client-go reads it: its spaces and line ends trimmed (a file
/// written with `echo` ends with one). `Err`: why it cannot be used, as the end of a sentence.
fn token_file(path: &str) -> Result<String, String> {
    let token = small_file(std::path::Path::new(path))?.trim().to_string();
    if token.is_empty() {
        return Err("it is empty: write the token into it".to_string());
    }
    header_value(&token)?;
    Ok(token)
}

/// The `Authorization` header of a token that [`header_value`] accepted.
fn bearer(token: &str) -> Result<http::HeaderValue, String> {
    let mut header = http::HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| "is not a valid HTTP header value".to_string())?;
    header.set_sensitive(true);
    Ok(header)
}

/// The client of the context the flags name. Errors are one line, naming the kubeconfig or
/// context and what to do; none quotes a kubeconfig or a credential.
pub async fn connect(connection: &Connection) -> Result<Connected, String> {
    let request_timeout = match connection.request_timeout {
        None => Some(DEFAULT_REQUEST_TIMEOUT),
        Some(Duration::ZERO) => None,
        Some(timeout) => Some(timeout),
    };
    let options = KubeConfigOptions {
        context: connection.context.clone(),
        cluster: None,
        user: None,
    };
    // `--kubeconfig FILE` must be read; without it, no kubeconfig means the Pod's service
    // account, else what to set.
    let files = match kubeconfig_files(connection) {
        Ok(files) => files,
        Err(none) if connection.context.is_some() => {
            return Err(format!(
                "cannot read a kubeconfig ({none}), so there is no context {}: set KUBECONFIG or pass --kubeconfig",
                show(&connection.context)
            ));
        }
        Err(none) => {
            let config = kube::Config::incluster().map_err(|_| {
                format!(
                    "no kubeconfig ({none}) and not running in a Pod: set KUBECONFIG or pass --kubeconfig FILE"
                )
            })?;
            return client(config, None, request_timeout);
        }
    };
    let file = match &files[..] {
        [one] => one.display().to_string(),
        _ => "the kubeconfig (KUBECONFIG)".to_string(),
    };
    let mut kubeconfig = load(&files)?;
    let context = connection
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone());
    check_context(&kubeconfig, context.as_deref(), &file)?;
    let refreshing = match &context {
        Some(context) => credentials(&mut kubeconfig, context, &file, request_timeout).await?,
        None => None,
    };
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| {
            format!(
                "cannot use context {} of {file}: {}",
                show(&context),
                redact(&sentence(&e))
            )
        })?;
    let mut connected = client(config, context, request_timeout)?;
    connected.refreshing = refreshing.map(Arc::new);
    Ok(connected)
}

/// The kubeconfig files to read, as kubectl finds them: `--kubeconfig`, else those of
/// `KUBECONFIG` that exist, else `~/.kube/config`. `Err`: there is none (why, for a message).
fn kubeconfig_files(connection: &Connection) -> Result<Vec<PathBuf>, String> {
    if let Some(path) = &connection.kubeconfig {
        return Ok(vec![path.clone()]);
    }
    if let Some(value) = std::env::var_os("KUBECONFIG") {
        let named: Vec<PathBuf> = std::env::split_paths(&value)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        if !named.is_empty() {
            // As kubectl does, a file that does not exist is passed over.
            let found: Vec<PathBuf> = named
                .into_iter()
                .filter(|p| std::fs::symlink_metadata(p).is_ok())
                .collect();
            return match found.is_empty() {
                true => Err("no file that KUBECONFIG names exists".to_string()),
                false => Ok(found),
            };
        }
    }
    let default = std::env::home_dir()
        .map(|home| home.join(".kube").join("config"))
        .ok_or_else(|| "no home folder, so no ~/.kube/config".to_string())?;
    match std::fs::symlink_metadata(&default) {
        Ok(_) => Ok(vec![default]),
        Err(_) => Err(format!("{} does not exist", default.display())),
    }
}

/// The kubeconfig files, each read as kubectl reads it and merged (the first to name a
/// context, cluster or user wins). Each must be a regular file of at most 16 MiB: a named pipe
/// would block the run, a device never end.
fn load(files: &[PathBuf]) -> Result<Kubeconfig, String> {
    let mut merged = Kubeconfig::default();
    for path in files {
        let text = small_file(path)
            .map_err(|why| format!("cannot read the kubeconfig {}: {why}", path.display()))?;
        let mut kubeconfig = Kubeconfig::from_yaml(&text).map_err(|e| yaml_error(path, &e))?;
        if let Some(dir) = path.parent() {
            relative_to(&mut kubeconfig, dir);
        }
        merged = merged
            .merge(kubeconfig)
            .map_err(|e| format!("cannot merge the kubeconfig {}: {e}", path.display()))?;
    }
    Ok(merged)
}

/// A kubeconfig that is not YAML, or not a kubeconfig: its file, line and column and what is
/// wrong, never its text (which holds tokens and keys).
fn yaml_error(path: &std::path::Path, error: &kube::config::KubeconfigError) -> String {
    let kube::config::KubeconfigError::Parse(parse) = error else {
        return format!(
            "cannot read the kubeconfig {}: {}",
            path.display(),
            redact(&error.to_string())
        );
    };
    let said = parse.without_snippet().to_string();
    let location = parse.location().map(|l| (l.line(), l.column()));
    // The parser says `error: line L column C: what`: only `what` is kept.
    let what = said
        .rsplit_once(": ")
        .filter(|_| location.is_some())
        .map_or(said.as_str(), |(_, what)| what);
    // … and it says the place again at its end.
    let what = what
        .rfind(" at line ")
        .filter(|_| location.is_some())
        .map_or(what, |at| &what[..at]);
    let what = without_quoted(what.trim());
    match location {
        Some((line, column)) => format!(
            "the kubeconfig {} is not a valid kubeconfig: line {line} column {column}: {what} (its text is not shown, since it may hold credentials)",
            path.display()
        ),
        None => format!(
            "the kubeconfig {} is not a valid kubeconfig: {what} (its text is not shown, since it may hold credentials)",
            path.display()
        ),
    }
}

/// A parser's message without what it quotes of the text: a value (`invalid type: string
/// "…"`) may be a token. A quoted name of a field or a single character stays.
fn without_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`', '\'']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        let after = &rest[open + 1..];
        let Some(close) = after.find(quote) else {
            break;
        };
        let quoted = &after[..close];
        let name_like = quoted.len() <= 40
            && quoted
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && quote != '"';
        let single = quoted.chars().count() == 1 && !quoted.chars().all(char::is_alphanumeric);
        out.push_str(&rest[..=open]);
        out.push_str(if name_like || single { quoted } else { "…" });
        out.push(quote);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    redact(&out)
}

/// The paths a kubeconfig names, relative to its folder, as kubectl takes them: CA, client
/// certificate and key, token file, and an exec plugin's command where it holds a separator.
fn relative_to(kubeconfig: &mut Kubeconfig, dir: &std::path::Path) {
    let absolute = |path: &mut Option<String>| {
        if let Some(relative) = path
            .as_deref()
            .filter(|p| !p.is_empty() && std::path::Path::new(p).is_relative())
        {
            *path = Some(dir.join(relative).display().to_string());
        }
    };
    for cluster in kubeconfig
        .clusters
        .iter_mut()
        .filter_map(|c| c.cluster.as_mut())
    {
        absolute(&mut cluster.certificate_authority);
    }
    for user in kubeconfig
        .auth_infos
        .iter_mut()
        .filter_map(|u| u.auth_info.as_mut())
    {
        absolute(&mut user.client_certificate);
        absolute(&mut user.client_key);
        absolute(&mut user.token_file);
        if let Some(exec) = &mut user.exec
            && exec
                .command
                .as_deref()
                .is_some_and(|c| c.contains(std::path::MAIN_SEPARATOR))
        {
            absolute(&mut exec.command);
        }
    }
}

/// Make the credentials of `context` ones kube uses without reading a file or running a
/// command: each file read here (a regular file, at most 16 MiB), the exec plugin run here
/// (under the request timeout), and a token that no HTTP header can carry refused. kube takes
/// them in this order: an auth provider, a user and password, a token, a token file, an exec
/// plugin; so are they here.
async fn credentials(
    kubeconfig: &mut Kubeconfig,
    context: &str,
    file: &str,
    timeout: Option<Duration>,
) -> Result<Option<Refreshing>, String> {
    let Some(context) = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.clone())
    else {
        return Ok(None);
    };
    let cluster = kubeconfig
        .clusters
        .iter_mut()
        .find(|c| c.name == context.cluster);
    let mut cluster_info = None;
    if let Some(named) = cluster {
        let name = named.name.clone();
        if let Some(cluster) = &mut named.cluster {
            if let Some(path) = cluster.certificate_authority.take() {
                let field = format!("clusters[{name}].cluster.certificate-authority");
                let pem = credential_file(&path, &field, file)?;
                cluster.certificate_authority_data = Some(base64(pem.as_bytes()));
            }
            cluster_info = Some(exec_cluster(cluster));
        }
    }
    let Some(user_name) = context.user.clone() else {
        return Ok(None);
    };
    let Some(user) = kubeconfig
        .auth_infos
        .iter_mut()
        .find(|u| u.name == user_name)
        .and_then(|u| u.auth_info.as_mut())
    else {
        return Ok(None);
    };
    let field = |key: &str| format!("users[{user_name}].user.{key}");
    let mut changes = serde_json::Map::new();
    let mut refreshing = None;
    for (path, key) in [
        (user.client_certificate.clone(), "client-certificate"),
        (user.client_key.clone(), "client-key"),
    ] {
        if let Some(path) = path {
            let pem = credential_file(&path, &field(key), file)?;
            changes.insert(key.to_string(), Value::Null);
            changes.insert(format!("{key}-data"), Value::from(base64(pem.as_bytes())));
        }
    }
    if let Some(provider) = &user.auth_provider {
        if provider.name == "gcp" {
            return Err(format!(
                "{file}: {} `gcp` is not supported, as kubectl no longer supports it: use the exec plugin gke-gcloud-auth-plugin (`gcloud components install gke-gcloud-auth-plugin`)",
                field("auth-provider")
            ));
        }
    } else if user.username.is_some() && user.password.is_some() {
        // A user and password: kube encodes them, which any value survives.
    } else if user.token.is_some() {
        header_value(token_of(user).as_str().unwrap_or(""))
            .map_err(|problem| format!("{file}: {} {problem}", field("token")))?;
    } else if let Some(path) = user.token_file.clone() {
        let token = token_file(&path).map_err(|why| {
            format!(
                "{file}: cannot use {path}, the {}: {why}",
                field("tokenFile")
            )
        })?;
        let header = bearer(&token).map_err(|why| format!("{file}: the token in {path} {why}"))?;
        changes.insert("tokenFile".into(), Value::Null);
        refreshing = Some(Refreshing {
            source: TokenSource::File { path },
            current: tokio::sync::Mutex::new((
                header,
                SystemTime::now().checked_add(TOKEN_FILE_KEPT),
            )),
        });
    } else if let Some(exec) = user.exec.clone() {
        let cluster = exec.provide_cluster_info.then_some(cluster_info).flatten();
        let ran = run_plugin(&exec, &user_name, cluster.clone(), timeout).await?;
        changes.insert("exec".into(), Value::Null);
        match ran {
            exec::Credential::Token { .. } => {
                let current = token_of_plugin(ran, &exec::name(&exec), &user_name)?;
                refreshing = Some(Refreshing {
                    source: TokenSource::Plugin {
                        exec: Box::new(exec),
                        user: user_name.clone(),
                        cluster,
                        timeout,
                    },
                    current: tokio::sync::Mutex::new(current),
                });
            }
            exec::Credential::Certificate { certificate, key } => {
                changes.insert("client-certificate".into(), Value::Null);
                changes.insert("client-key".into(), Value::Null);
                changes.insert(
                    "client-certificate-data".into(),
                    Value::from(base64(certificate.as_bytes())),
                );
                changes.insert(
                    "client-key-data".into(),
                    Value::from(base64(key.as_bytes())),
                );
            }
        }
    }
    if !changes.is_empty() {
        // The user is rewritten through its JSON form: kube keeps a token and a key as
        // secrets, made only so.
        let mut json = serde_json::to_value(&*user).unwrap_or_default();
        if let Value::Object(fields) = &mut json {
            for (key, value) in changes {
                match value {
                    Value::Null => fields.remove(&key),
                    value => fields.insert(key, value),
                };
            }
        }
        *user = serde_json::from_value(json).map_err(|e| {
            format!(
                "cannot use {}: {}: this is a bug of ownerlint, please report it",
                field(""),
                redact(&e.to_string())
            )
        })?;
    }
    Ok(refreshing)
}

/// Run an exec plugin once, off the runtime's threads (it waits for the plugin).
async fn run_plugin(
    exec: &kube::config::ExecConfig,
    user: &str,
    cluster: Option<Value>,
    timeout: Option<Duration>,
) -> Result<exec::Credential, String> {
    let (exec, user) = (exec.clone(), user.to_string());
    let name = exec::name(&exec);
    tokio::task::spawn_blocking(move || exec::run(&exec, &user, cluster, timeout))
        .await
        .map_err(|e| {
            format!(
                "exec plugin `{name}` stopped inside ownerlint ({e}): this is a bug of ownerlint, please report it"
            )
        })?
}

/// The `Authorization` header of a plugin's token, and when the token expires.
fn token_of_plugin(
    credential: exec::Credential,
    name: &str,
    user: &str,
) -> Result<(http::HeaderValue, Option<SystemTime>), String> {
    let exec::Credential::Token { token, expires } = credential else {
        return Err(format!(
            "exec plugin `{name}` of user `{user}` gave a client certificate where it had given a token: run again"
        ));
    };
    let header = header_value(&token)
        .and_then(|()| bearer(&token))
        .map_err(|problem| {
            format!("exec plugin `{name}` of user `{user}` printed a token that {problem}")
        })?;
    Ok((header, expires))
}

/// A user's inline token, as text.
fn token_of(user: &kube::config::AuthInfo) -> Value {
    serde_json::to_value(user)
        .ok()
        .and_then(|u| u.get("token").cloned())
        .unwrap_or_default()
}

/// What kube puts into the `Authorization` header must be a header's value: kube (through
/// tower-http) would stop the run on one that is not. `Err`: why not, as the end of a
/// sentence.
fn header_value(token: &str) -> Result<(), String> {
    if token.contains(['\n', '\r']) {
        return Err("contains a line break, which no HTTP header can carry: write the token on one line (a `|` block keeps the line's end: use `token: VALUE`)".to_string());
    }
    if token.chars().any(|c| c.is_control() && c != '\t') {
        return Err("contains a control character, which no HTTP header can carry: write the token as it was issued".to_string());
    }
    http::HeaderValue::from_str(&format!("Bearer {token}"))
        .map(|_| ())
        .map_err(|_| {
            "is not a valid HTTP header value: write the token as it was issued".to_string()
        })
}

/// A file a kubeconfig names for a credential (`field`), read here: a regular file of at most
/// 16 MiB, as text.
fn credential_file(path: &str, field: &str, file: &str) -> Result<String, String> {
    small_file(std::path::Path::new(path))
        .map_err(|why| format!("{file}: cannot read {path}, the {field}: {why}"))
}

/// What an exec plugin with `provideClusterInfo` is given of the cluster.
fn exec_cluster(cluster: &kube::config::Cluster) -> Value {
    let mut info = serde_json::Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            info.insert(key.to_string(), value);
        }
    };
    put("server", cluster.server.clone().map(Value::from));
    put(
        "insecure-skip-tls-verify",
        cluster.insecure_skip_tls_verify.map(Value::from),
    );
    put(
        "certificate-authority-data",
        cluster.certificate_authority_data.clone().map(Value::from),
    );
    put("proxy-url", cluster.proxy_url.clone().map(Value::from));
    put(
        "tls-server-name",
        cluster.tls_server_name.clone().map(Value::from),
    );
    put(
        "config",
        cluster.extensions.iter().flatten().find_map(|e| {
            (e.name == "client.authentication.k8s.io/exec").then(|| e.extension.clone())
        }),
    );
    Value::Object(info)
}

/// The most of a kubeconfig, or of a file it names, that is read: far more than any real one
/// holds.
const FILE_LIMIT: u64 = 16 << 20;

/// A kubeconfig, or a file it names, as text: only a regular file (asked before it is opened:
/// a named pipe would wait for a writer, a device never end), and at most [`FILE_LIMIT`]
/// bytes. `Err`: why not, as the end of a sentence.
fn small_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).map_err(|e| io_words(&e))?;
    if !metadata.is_file() {
        return Err(format!(
            "not a regular file ({}), so it was not read",
            file_type(&metadata.file_type())
        ));
    }
    let too_large = || format!("larger than {} MiB, so it was not read", FILE_LIMIT >> 20);
    if metadata.len() > FILE_LIMIT {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(|e| io_words(&e))?;
    let mut bytes = Vec::new();
    file.take(FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > FILE_LIMIT {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

/// Why a file could not be read, in words: what the user can act on named.
fn io_words(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "it does not exist".to_string(),
        std::io::ErrorKind::PermissionDenied => {
            "permission denied: this user may not read it".to_string()
        }
        _ => error.to_string(),
    }
}

fn file_type(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Standard base64, as a kubeconfig's `…-data` fields hold it.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The client of `config`, with the request timeout; kube's retries off.
fn client(
    mut config: kube::Config,
    context: Option<String>,
    request_timeout: Option<Duration>,
) -> Result<Connected, String> {
    config.connect_timeout = request_timeout;
    config.read_timeout = request_timeout;
    config.write_timeout = request_timeout;
    // The reader retries 429 and 5xx itself, a few times, as it says (`read.rs`); kube's own
    // retries (fifteen, with waits growing to minutes) would hide a group that is down.
    config.default_retry = false;
    // The address as shown: without a user and password it may hold.
    let server = without_userinfo(config.cluster_url.to_string().trim_end_matches('/'));
    let default_namespace = config.default_namespace.clone();
    let client = kube::Client::try_from(config).map_err(|e| {
        format!(
            "cannot make a client for context {} ({server}): {}",
            show(&context),
            redact(&sentence(&e))
        )
    })?;
    Ok(Connected {
        client,
        context,
        server,
        request_timeout,
        default_namespace,
        refreshing: None,
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

/// An error and its causes, as one clause; a path kube quotes twice (`'"…"'`) quoted once.
pub fn sentence(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string().replace("'\"", "'").replace("\"'", "'");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_one() {
        for (bytes, text) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(bytes.as_bytes()), text);
        }
    }

    #[test]
    fn a_parser_message_loses_the_values_it_quotes() {
        assert_eq!(
            without_quoted(r#"invalid type: string "s3cret", expected a sequence"#),
            r#"invalid type: string "…", expected a sequence"#
        );
        assert_eq!(
            without_quoted("missing field `cluster`"),
            "missing field `cluster`"
        );
        assert_eq!(
            without_quoted("unclosed bracket '['"),
            "unclosed bracket '['"
        );
        assert_eq!(
            without_quoted("unknown variant `hunter 2!`, expected `Never`"),
            "unknown variant `…`, expected `Never`"
        );
    }

    #[test]
    fn a_token_must_be_a_header_value() {
        assert!(header_value("abc.def-ghi_jkl").is_ok());
        assert!(header_value("abc\n").unwrap_err().contains("line break"));
        assert!(
            header_value("a\u{0}b")
                .unwrap_err()
                .contains("control character")
        );
    }
}
