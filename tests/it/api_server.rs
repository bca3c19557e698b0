//! A Kubernetes API server for the tests of `ownerlint cluster`: HTTPS on 127.0.0.1 (the test
//! certificates of `testdata/live/tls`), answering what a real 1.36.2 API server answered a
//! reader of the whole cluster (`testdata/live/cluster-exchanges.json`), page by page through
//! its continue tokens, whatever page size is asked, and each object it listed alone, as a GET
//! of it answers; a test may answer a request otherwise
//! (403, 410, 429, a failed group, a server that stops answering). It keeps every request it
//! was sent, and accepts a bearer token `test-token`, an OIDC ID token, or a client certificate
//! of the test CA;
//! anything else gets 401, as a real server does.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::Value;

pub(crate) const TOKEN: &str = "test-token";
/// An OIDC ID token (a JWT, unsigned: the server only compares it) that expires in 2100.
pub(crate) const OIDC_ID_TOKEN: &str = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJleHAiOjQxMDI0NDQ4MDAsInN1YiI6Im93bmVybGludC10ZXN0In0.c2lnbmF0dXJl";

pub(crate) fn tls_file(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/live/tls")
        .join(name)
}

/// A request the server was sent.
#[derive(Clone, Debug)]
pub(crate) struct Asked {
    pub(crate) method: String,
    /// With its query, decoded.
    pub(crate) path: String,
    pub(crate) accept: String,
    /// `token`, `oidc`, `client-certificate` or `none`.
    pub(crate) auth: &'static str,
}

impl Asked {
    /// The path without its query.
    pub(crate) fn resource_path(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }

    pub(crate) fn query(&self, key: &str) -> Option<String> {
        let (_, query) = self.path.split_once('?')?;
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == key).then(|| v.to_string())
        })
    }
}

/// How the server answers one request.
#[derive(Clone, Debug)]
pub(crate) enum Reply {
    /// This status and JSON body, with these headers.
    Answer {
        status: u16,
        body: String,
        headers: Vec<(String, String)>,
    },
    /// No answer, ever.
    Hang,
    /// A 200 whose body is `head`, then `chunk` again and again until `length` bytes of it
    /// were sent (`u64::MAX`: without end), as it is made: a page of gigabytes costs the server
    /// one chunk of memory.
    Stream {
        head: String,
        chunk: Bytes,
        length: u64,
    },
    /// This reply, after a wait: a request the server is slow to answer. The server counts
    /// how many it is answering so at once ([`ApiServer::most_delayed_at_once`]).
    Delayed { wait: Duration, reply: Box<Reply> },
}

impl Reply {
    pub(crate) fn json(status: u16, body: &Value) -> Reply {
        Reply::Answer {
            status,
            body: body.to_string(),
            headers: Vec::new(),
        }
    }

    /// A `Status` failure, as the API server sends one.
    pub(crate) fn status(code: u16, reason: &str, message: &str) -> Reply {
        Reply::json(
            code,
            &serde_json::json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": message, "reason": reason, "code": code
            }),
        )
    }
}

/// What the server answers: status and body, by path and continue token (`""` for a first
/// page or anything but a list).
pub(crate) type Answers = HashMap<(String, String), (u16, String)>;

/// What a test answers instead of the recording: `None` leaves a request to it.
pub(crate) type Override = Box<dyn Fn(&Asked, usize) -> Option<Reply> + Send + Sync>;

/// A running server; it stops when dropped.
pub(crate) struct ApiServer {
    pub(crate) port: u16,
    asked: Arc<Mutex<Vec<Asked>>>,
    /// Delayed replies being answered now, and the most at once so far.
    delayed: Arc<(AtomicUsize, AtomicUsize)>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// The recorded answers, by path and continue token (`""` for a first page); a page is found
/// whatever `limit` is asked. Each object a list holds is also served alone, at its own path
/// (`/api/v1/namespaces/shop/pods/web`), as a GET of it answers.
fn recorded() -> Answers {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/live/cluster-exchanges.json"
    );
    let text = std::fs::read_to_string(path).expect("the recording is in testdata");
    let exchanges: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    let mut answers = HashMap::new();
    for exchange in &exchanges {
        let full = exchange["request"]["path"].as_str().expect("a path");
        let asked = Asked {
            method: "GET".into(),
            path: full.to_string(),
            accept: String::new(),
            auth: "none",
        };
        let list_path = asked.resource_path().to_string();
        let status = exchange["response"]["status"].as_u64().expect("a status") as u16;
        let body = &exchange["response"]["body"];
        for (object_path, object) in objects_of(&list_path, body) {
            answers.insert((object_path, String::new()), (200, object.to_string()));
        }
        let key = (list_path, asked.query("continue").unwrap_or_default());
        answers.insert(key, (status, body.to_string()));
    }
    answers
}

/// The objects of a list served at `list_path`, each at its own path and as a GET answers it:
/// with its kind (`PartialObjectMetadata` from a list of metadata).
pub(crate) fn objects_of(list_path: &str, list: &Value) -> Vec<(String, Value)> {
    let Some(kind) = list["kind"].as_str().and_then(|k| k.strip_suffix("List")) else {
        return Vec::new();
    };
    let Some((prefix, resource)) = list_path.rsplit_once('/') else {
        return Vec::new();
    };
    let items = list["items"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    items
        .iter()
        .filter_map(|item| {
            let name = item["metadata"]["name"].as_str()?;
            let path = match item["metadata"]["namespace"].as_str() {
                Some(namespace) => format!("{prefix}/namespaces/{namespace}/{resource}/{name}"),
                None => format!("{prefix}/{resource}/{name}"),
            };
            let mut object = item.clone();
            object["kind"] = Value::from(kind);
            object["apiVersion"] = list["apiVersion"].clone();
            Some((path, object))
        })
        .collect()
}

impl ApiServer {
    /// Serve the recorded cluster, with `answer` first.
    pub(crate) fn start(answer: Override) -> ApiServer {
        ApiServer::serving(recorded(), answer)
    }

    /// Serve `answers` (by path and continue token, as [`recorded`] gives them; an answer
    /// under `PATH#metadata` is what a list of metadata only is answered), with `answer` first.
    pub(crate) fn serving(answers: Answers, answer: Override) -> ApiServer {
        ApiServer::serving_at_cost(answers, answer, None)
    }

    /// [`ApiServer::serving`], each answer sent after the time a server spends on its side
    /// for it, if given: [`ServerCost`].
    pub(crate) fn serving_at_cost(
        answers: Answers,
        answer: Override,
        cost: Option<ServerCost>,
    ) -> ApiServer {
        let cost = Arc::new(cost);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let asked: Arc<Mutex<Vec<Asked>>> = Arc::default();
        let roots = {
            let mut roots = tokio_rustls::rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_file_iter(tls_file("ca.crt")).expect("ca.crt") {
                roots.add(cert.expect("a certificate")).expect("a CA");
            }
            Arc::new(roots)
        };
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let verifier = tokio_rustls::rustls::server::WebPkiClientVerifier::builder_with_provider(
            roots,
            provider.clone(),
        )
        .allow_unauthenticated()
        .build()
        .expect("a client verifier");
        let certs: Vec<CertificateDer> = CertificateDer::pem_file_iter(tls_file("server.crt"))
            .expect("server.crt")
            .map(|c| c.expect("a certificate"))
            .collect();
        let key = PrivateKeyDer::from_pem_file(tls_file("server.key")).expect("server.key");
        let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_client_cert_verifier(verifier)
            .with_single_cert(certs, key)
            .expect("the server's certificate");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let recorded = Arc::new(answers);
        let answer = Arc::new(answer);
        let log = asked.clone();
        let delayed: Arc<(AtomicUsize, AtomicUsize)> = Arc::default();
        let gauge = delayed.clone();
        runtime.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let acceptor = acceptor.clone();
                let (recorded, answer, log) = (recorded.clone(), answer.clone(), log.clone());
                let gauge = gauge.clone();
                let cost = cost.clone();
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(stream).await else {
                        return;
                    };
                    let client_certificate = tls.get_ref().1.peer_certificates().is_some();
                    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let (recorded, answer, log) =
                            (recorded.clone(), answer.clone(), log.clone());
                        let gauge = gauge.clone();
                        let cost = cost.clone();
                        async move {
                            let asked = asked_of(&request, client_certificate);
                            if let Some(cost) = &*cost {
                                tokio::time::sleep(cost.of(&asked)).await;
                            }
                            let count = {
                                let mut log = log.lock().expect("the log");
                                log.push(asked.clone());
                                log.len()
                            };
                            let mut reply = reply(&asked, count, &recorded, &answer);
                            if let Reply::Delayed { wait, reply: then } = reply {
                                let (now, most) = &*gauge;
                                most.fetch_max(
                                    now.fetch_add(1, Ordering::SeqCst) + 1,
                                    Ordering::SeqCst,
                                );
                                tokio::time::sleep(wait).await;
                                now.fetch_sub(1, Ordering::SeqCst);
                                reply = *then;
                            }
                            let (status, body, headers) = match reply {
                                Reply::Delayed { .. } => (
                                    500,
                                    Streamed::whole("a delayed reply is delayed once".into()),
                                    Vec::new(),
                                ),
                                Reply::Hang => {
                                    tokio::time::sleep(Duration::from_secs(3600)).await;
                                    (503, Streamed::whole(String::new()), Vec::new())
                                }
                                Reply::Answer {
                                    status,
                                    body,
                                    headers,
                                } => (status, Streamed::whole(body), headers),
                                Reply::Stream {
                                    head,
                                    chunk,
                                    length,
                                } => (200, Streamed::repeated(head, chunk, length), Vec::new()),
                            };
                            let mut response = Response::builder()
                                .status(status)
                                .header("content-type", content_type(&body.head));
                            for (name, value) in headers {
                                response = response.header(name, value);
                            }
                            response.body(body)
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        ApiServer {
            port,
            asked,
            delayed,
            runtime: Some(runtime),
        }
    }

    /// The most [`Reply::Delayed`] replies the server was answering at once.
    pub(crate) fn most_delayed_at_once(&self) -> usize {
        self.delayed.1.load(Ordering::SeqCst)
    }

    /// Every request sent so far.
    pub(crate) fn asked(&self) -> Vec<Asked> {
        self.asked.lock().expect("the log").clone()
    }

    /// A kubeconfig for this server, authenticating with `user` (a kubeconfig `users[].user`),
    /// written into `dir`; its context is `test`.
    pub(crate) fn kubeconfig(&self, dir: &std::path::Path, user: Value) -> std::path::PathBuf {
        let config = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "test", "cluster": {
                "server": format!("https://127.0.0.1:{}", self.port),
                "certificate-authority": tls_file("ca.crt"),
            }}],
            "users": [{"name": "test", "user": user}],
            "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}],
            "current-context": "test",
        });
        let path = dir.join("kubeconfig");
        std::fs::write(&path, config.to_string()).expect("write the kubeconfig");
        path
    }
}

/// The time a real API server spends on its side of each answer, as a model: a time for each
/// object it serves (`objects` says how many each answer holds, by the key [`Answers`] has it
/// under; an answer not in it holds none). Spent as a wait, not as work on this machine's
/// cores: a real server works on cores of its own, and on several answers at once.
pub(crate) struct ServerCost {
    pub(crate) per_object: Duration,
    pub(crate) objects: HashMap<(String, String), usize>,
}

impl ServerCost {
    fn of(&self, asked: &Asked) -> Duration {
        let token = asked.query("continue").unwrap_or_default();
        let mut path = asked.resource_path().to_string();
        if let Some(selector) = asked.query("fieldSelector") {
            path = format!("{path}?fieldSelector={selector}");
        }
        if asked
            .accept
            .starts_with("application/json;as=PartialObjectMetadata")
            && path != "/api"
            && path != "/apis"
        {
            let metadata = (format!("{path}#metadata"), token.clone());
            if let Some(n) = self.objects.get(&metadata) {
                return self.per_object * u32::try_from(*n).unwrap_or(u32::MAX);
            }
        }
        let n = self.objects.get(&(path, token)).copied().unwrap_or(0);
        self.per_object * u32::try_from(n).unwrap_or(u32::MAX)
    }
}

/// A body as the server sends it: its head, then a chunk repeated for as long as asked.
struct Streamed {
    head: Bytes,
    head_sent: bool,
    chunk: Bytes,
    left: u64,
}

impl Streamed {
    fn whole(body: String) -> Streamed {
        Streamed::repeated(body, Bytes::new(), 0)
    }

    fn repeated(head: String, chunk: Bytes, length: u64) -> Streamed {
        let left = if chunk.is_empty() { 0 } else { length };
        Streamed {
            head: Bytes::from(head),
            head_sent: false,
            chunk,
            left,
        }
    }
}

impl hyper::body::Body for Streamed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if !self.head_sent {
            self.head_sent = true;
            if !self.head.is_empty() {
                return Poll::Ready(Some(Ok(Frame::data(self.head.clone()))));
            }
        }
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let size = self
            .chunk
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        self.left -= size as u64;
        Poll::Ready(Some(Ok(Frame::data(self.chunk.slice(..size)))))
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        // A body of one piece says its length; a streamed one is sent chunked.
        match self.left {
            0 if !self.head_sent => hyper::body::SizeHint::with_exact(self.head.len() as u64),
            _ => hyper::body::SizeHint::default(),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.head_sent && self.left == 0
    }
}

/// The content type the API server sends with a body: aggregated discovery says what it is
/// (client-go reads an answer of `/api` or `/apis` as aggregated discovery only then).
fn content_type(body: &[u8]) -> &'static str {
    let aggregated = br#""kind":"APIGroupDiscoveryList""#;
    if body.windows(aggregated.len()).any(|w| w == aggregated) {
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    } else {
        "application/json"
    }
}

fn asked_of(request: &Request<Incoming>, client_certificate: bool) -> Asked {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    let authorization = header("authorization");
    let auth = if authorization == format!("Bearer {TOKEN}") {
        "token"
    } else if authorization == format!("Bearer {OIDC_ID_TOKEN}") {
        "oidc"
    } else if client_certificate {
        "client-certificate"
    } else {
        "none"
    };
    let uri = request.uri();
    let path = match uri.query() {
        Some(query) => format!("{}?{}", uri.path(), percent_decode(query)),
        None => uri.path().to_string(),
    };
    Asked {
        method: request.method().to_string(),
        path,
        accept: header("accept"),
        auth,
    }
}

fn reply(asked: &Asked, count: usize, recorded: &Answers, answer: &Override) -> Reply {
    if asked.auth == "none" {
        return Reply::status(401, "Unauthorized", "Unauthorized");
    }
    if asked.method != "GET" {
        return Reply::status(405, "MethodNotAllowed", "the test server answers GET only");
    }
    if let Some(reply) = answer(asked, count) {
        return reply;
    }
    let token = asked.query("continue").unwrap_or_default();
    let metadata_only = asked
        .accept
        .starts_with("application/json;as=PartialObjectMetadata");
    if let Some(selector) = asked.query("fieldSelector") {
        // An answer made beforehand (a benchmark's), else made now.
        let mut made = format!("{}?fieldSelector={selector}", asked.resource_path());
        if metadata_only {
            made.push_str("#metadata");
        }
        if let Some((status, body)) = recorded.get(&(made, token)) {
            return Reply::Answer {
                status: *status,
                body: body.clone(),
                headers: Vec::new(),
            };
        }
        let (status, body) = selected(recorded, asked.resource_path(), &selector, metadata_only);
        return Reply::Answer {
            status,
            body,
            headers: Vec::new(),
        };
    }
    let of_metadata = (format!("{}#metadata", asked.resource_path()), token.clone());
    let key = (asked.resource_path().to_string(), token);
    let found = match metadata_only {
        true => recorded.get(&of_metadata).or_else(|| recorded.get(&key)),
        false => recorded.get(&key),
    };
    if let Some((status, body)) = found {
        return Reply::Answer {
            status: *status,
            body: body.clone(),
            headers: Vec::new(),
        };
    }
    match in_namespace(asked, recorded) {
        Some(list) => Reply::json(200, &list),
        None => Reply::status(
            404,
            "NotFound",
            &format!("the page could not be found: {}", asked.path),
        ),
    }
}

/// The fields a list of Pods may be selected by, as the API server's
/// `pkg/registry/core/pod/strategy.go` (`PodToSelectableFields`) gives them, each read from a
/// Pod; every other kind has `metadata.name` and `metadata.namespace` only.
const POD_FIELDS: &[&str] = &[
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
];

/// The value of a selectable field of `item`, as the API server compares it (`""` when unset).
fn field_value(item: &Value, field: &str) -> String {
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    match field {
        "metadata.name" => text(&item["metadata"]["name"]),
        "metadata.namespace" => text(&item["metadata"]["namespace"]),
        "spec.hostNetwork" => item["spec"]["hostNetwork"]
            .as_bool()
            .unwrap_or(false)
            .to_string(),
        "status.podIP" => text(&item["status"]["podIPs"][0]["ip"]),
        _ => {
            let (first, rest) = field.split_once('.').unwrap_or((field, ""));
            text(&item[first][rest])
        }
    }
}

/// The answer to a list of `path` with the field selector `selector` (`status.phase=Failed`,
/// `a!=b,c==d`), as the API server gives it: the items of the list (every page of it, in one
/// page) whose fields match each requirement, as metadata when `metadata_only`; 400
/// `field label not supported` for a field that the kind cannot be selected by.
pub(crate) fn selected(
    answers: &Answers,
    path: &str,
    selector: &str,
    metadata_only: bool,
) -> (u16, String) {
    let (whole, namespace) = match path.split_once("/namespaces/") {
        Some((prefix, rest)) => match rest.split_once('/') {
            Some((namespace, resource)) => (format!("{prefix}/{resource}"), Some(namespace)),
            None => (path.to_string(), None),
        },
        None => (path.to_string(), None),
    };
    let pods = whole.ends_with("/pods");
    let mut requirements = Vec::new();
    for requirement in selector.split(',').filter(|r| !r.is_empty()) {
        let (field, equal, value) = if let Some((f, v)) = requirement.split_once("!=") {
            (f, false, v)
        } else if let Some((f, v)) = requirement.split_once("==") {
            (f, true, v)
        } else if let Some((f, v)) = requirement.split_once('=') {
            (f, true, v)
        } else {
            let body = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "reason": "BadRequest", "code": 400,
                "message": format!("invalid selector: '{selector}'; can't understand '{requirement}'")});
            return (400, body.to_string());
        };
        let supported = matches!(field, "metadata.name" | "metadata.namespace")
            || (pods && POD_FIELDS.contains(&field));
        if !supported {
            let body = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "reason": "BadRequest", "code": 400,
                "message": format!("field label not supported: {field}")});
            return (400, body.to_string());
        }
        requirements.push((field, equal, value));
    }
    let mut token = String::new();
    let mut items = Vec::new();
    let mut list = loop {
        let Some((_, body)) = answers.get(&(whole.clone(), token.clone())) else {
            return (404, String::new());
        };
        let Ok(list) = serde_json::from_str::<Value>(body) else {
            return (500, String::new());
        };
        for item in list["items"].as_array().into_iter().flatten() {
            let here = namespace.is_none_or(|ns| item["metadata"]["namespace"] == ns);
            let matches = requirements
                .iter()
                .all(|(field, equal, value)| (field_value(item, field) == *value) == *equal);
            if here && matches {
                items.push(match metadata_only {
                    true => serde_json::json!({"kind": "PartialObjectMetadata",
                        "apiVersion": "meta.k8s.io/v1", "metadata": item["metadata"]}),
                    false => item.clone(),
                });
            }
        }
        match list["metadata"]["continue"].as_str() {
            Some(next) if !next.is_empty() => token = next.to_string(),
            _ => break list,
        }
    };
    if metadata_only {
        list["kind"] = Value::from("PartialObjectMetadataList");
        list["apiVersion"] = Value::from("meta.k8s.io/v1");
    }
    list["items"] = Value::Array(items);
    list["metadata"] = serde_json::json!({"resourceVersion": "1"});
    (200, list.to_string())
}

/// A list of one namespace (`/api/v1/namespaces/shop/pods`): the items of the recorded list of
/// every namespace, all its pages, that are in it, in one page.
fn in_namespace(asked: &Asked, recorded: &Answers) -> Option<Value> {
    let path = asked.resource_path();
    let (prefix, rest) = path.split_once("/namespaces/")?;
    let (namespace, resource) = rest.split_once('/')?;
    if resource.contains('/') {
        return None;
    }
    let whole = format!("{prefix}/{resource}");
    let mut token = String::new();
    let mut items = Vec::new();
    let mut list: Value = loop {
        let (_, body) = recorded.get(&(whole.clone(), token.clone()))?;
        let list: Value = serde_json::from_str(body).ok()?;
        for item in list["items"].as_array().into_iter().flatten() {
            if item["metadata"]["namespace"] == namespace {
                items.push(item.clone());
            }
        }
        match list["metadata"]["continue"].as_str() {
            Some(next) if !next.is_empty() => token = next.to_string(),
            _ => break list,
        }
    };
    list["items"] = Value::Array(items);
    list["metadata"] = serde_json::json!({"resourceVersion": "1"});
    Some(list)
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
