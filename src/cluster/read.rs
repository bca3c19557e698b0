//! Reading a cluster: its release and discovery, then every resource discovery names, listed in pages,
//! several at once, into a [`Snapshot`]. Only GET requests are sent.
//!
//! What the API server may answer, and what is done (client-go's own reflectors and pagers do
//! the same: `k8s.io/client-go/tools/pager/pager.go`, `rest/request.go`):
//! - 410 `Expired` in the middle of a list (the continue token is older than the server keeps
//!   its history): the list starts again, without a token.
//! - 429 `TooManyRequests` (API Priority and Fairness) and 500/502/503/504: the request is sent
//!   again after the `Retry-After` the server gives (else 1, 2, 4 … seconds), a few times.
//! - 403 `Forbidden`, or a failure that outlasts the retries: the resource is not read, which
//!   the run says, and references to its kind are reported as not checked.
//! - 401 `Unauthorized`, a server that cannot be reached or that stops answering: the run ends.
//! - 200 with a page for people (HTML: the login page of a proxy in front of the API server)
//!   or anything else that is not a Kubernetes list: the resource is not read, as after a 403;
//!   discovery so answered ends the run.
//! - No object read, and a list that failed (or no list to try): the run ends (exit 2), since
//!   it checked nothing ([`ClusterRead::nothing_read`]). Every list read and empty (a namespace
//!   that holds nothing) is no failure, and is said as such.
//!
//! And what a server may answer to do harm (client-go trusts its server in each):
//! - A page larger than [`MOST_ANSWER_BYTES`], or without end: its list is not read, as after
//!   a 403. A page is read as it comes, and its items are kept one at a time as they are
//!   parsed; the page is never held parsed whole.
//! - A continue token answered before in the same list (A, B, A, B …), or longer than any
//!   server's: the list is not read.
//! - A group, version or resource name in discovery that is not one part of a path
//!   (`pods?watch=true`, a line break): it is never requested, and it is named escaped.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http::{Request, StatusCode, header};
use hyper::body::Body as _;
use kube::client::Body;
use serde_json::Value;

use super::answers::{HTML_PAGE, PROXY, connection_failure, failed, is_html, status_line};
use super::connect::{Connected, Refreshing, sentence};
use super::discovery::{self, Answer, Unrequestable, is_path_name};
use super::redact::redact;
use super::snapshot::{Page, Resource, Snapshot, Stored};
use crate::catalog::KubeVersion;
use crate::fields::Kept;
use crate::rules::NotRead;

/// A list of metadata only, for the resources whose other fields no rule reads.
const METADATA_LIST: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/// One object's metadata only.
const METADATA_ONE: &str =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
const WHOLE: &str = "application/json";
/// Items per page: client-go's pager's default.
pub const PAGE_SIZE: usize = 500;
/// How often a progress line is told of objects read while no list ends.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// Lists read at once.
pub const LISTS_AT_ONCE: usize = 8;
/// Times a request is sent when the server answers 429 or 5xx.
const ATTEMPTS: u32 = 5;
/// Times a legacy discovery document is asked for when the server answers 429 or 5xx.
const DISCOVERY_ATTEMPTS: u32 = 2;
/// The most pages one list is followed for: 50 million objects.
const MOST_PAGES: usize = 100_000;
/// Times a list starts again after 410 Expired.
const RESTARTS: u32 = 3;
/// The longest `Retry-After` waited for.
const LONGEST_WAIT: Duration = Duration::from_secs(30);
/// The most bytes of one answer read: a page of [`PAGE_SIZE`] objects of a MiB each on
/// average (etcd refuses objects of more than 1.5 MiB, and most are a few KiB). A page larger
/// than this ends its list, which is not read; the bytes are counted as they come, never held
/// beyond it.
pub const MOST_ANSWER_BYTES: usize = 512 << 20;
/// The longest continue token followed: the API server's are base64 of a resource version and
/// a key, well under a KiB.
const LONGEST_TOKEN: usize = 64 << 10;

/// What ends the run: the cluster could not be read at all (exit 2).
#[derive(Debug, PartialEq, Eq)]
pub struct Fatal(pub String);

/// Which namespaces to read.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// `-n`: only this namespace's objects (and no cluster-scoped ones); `None`: every one.
    pub namespace: Option<String>,
}

/// What a read of the cluster gave.
pub struct ClusterRead {
    pub snapshot: Snapshot,
    /// The server's Kubernetes release, if it said.
    pub version: Option<KubeVersion>,
    /// The resources whose lists were read to their end.
    pub resources_read: usize,
    /// The resources (and groups) that were not.
    pub not_read: Vec<NotRead>,
    /// The lists tried: one a resource.
    pub lists_tried: usize,
    /// The lists tried that could not be read (each is in `not_read` too).
    pub lists_failed: Vec<FailedList>,
    /// What the run says of how it read (a resource listed otherwise than it asks first).
    pub notes: Vec<String>,
}

impl ClusterRead {
    /// Why this read checked nothing, in words that follow "no object was read: ": it read
    /// no object, and that may be for what it could not read (a list that failed, or no list
    /// to try). `None` when it read objects, or read every list it tried to its end and they
    /// were empty (a namespace that holds nothing, said as such).
    pub fn nothing_read(&self, scope: &Scope) -> Option<String> {
        if self.snapshot.object_count() > 0 {
            return None;
        }
        if self.lists_tried == 0 {
            let mut why = "discovery named no resource that can be listed".to_string();
            if let Some(first) = self.not_read.first() {
                why.push_str(&format!(" ({} was not read: {})", first.what, first.why));
            }
            return Some(why);
        }
        if self.lists_failed.is_empty() {
            return None;
        }
        // The lists that failed alike, counted, each said once with its first resource.
        let mut alike: Vec<(&str, usize, &FailedList)> = Vec::new();
        for failed in &self.lists_failed {
            match alike.iter_mut().find(|(short, ..)| *short == failed.short) {
                Some((_, count, _)) => *count += 1,
                None => alike.push((&failed.short, 1, failed)),
            }
        }
        let reasons: Vec<String> = alike
            .iter()
            .map(|(short, count, first)| match count {
                1 => format!("{}: {}", first.what, first.why),
                _ => format!(
                    "{}: {}, and {} more alike ({short})",
                    first.what,
                    first.why,
                    count - 1
                ),
            })
            .collect();
        let failed = self.lists_failed.len();
        let mut why = match self.lists_tried - failed {
            0 if failed == 1 => format!("its one list could not be read: {}", reasons.join("; ")),
            0 => format!(
                "none of its {failed} lists could be read: {}",
                reasons.join("; ")
            ),
            empty => format!(
                "the {} it read {} empty, and {failed} could not be read: {}",
                plural(empty, "list"),
                if empty == 1 { "was" } else { "were" },
                reasons.join("; ")
            ),
        };
        // A user bound to a role in one namespace may list nothing across the cluster.
        let forbidden = self
            .lists_failed
            .iter()
            .all(|f| f.short == status_line(StatusCode::FORBIDDEN));
        match &scope.namespace {
            None if forbidden => why.push_str(
                ": a user who may read one namespace only passes -n NAMESPACE (`kubectl auth can-i list pods -n NAMESPACE` tells)",
            ),
            Some(namespace) if forbidden => why.push_str(&format!(
                ": `kubectl auth can-i --list -n {namespace}` shows what the kubeconfig's user may read there"
            )),
            _ => {}
        }
        Some(why)
    }
}

fn plural(count: usize, what: &str) -> String {
    match count {
        1 => format!("1 {what}"),
        _ => format!("{count} {what}s"),
    }
}

/// How far a read is, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub resources_done: usize,
    pub resources: usize,
    pub objects: usize,
}

/// Sends GET requests and reads their answers, with the retries above.
#[derive(Clone)]
pub struct Reader {
    client: kube::Client,
    /// An exec plugin's token, which the reader sends itself (it may be had again).
    refreshing: Option<Arc<Refreshing>>,
    /// `None`: no limit.
    timeout: Option<Duration>,
    server: String,
    /// The kubeconfig context, to name where a connection failed (`None` in a Pod).
    context: Option<String>,
    requests: Arc<AtomicUsize>,
    objects: Arc<AtomicUsize>,
}

/// One answer, read whole.
pub struct Answered {
    pub status: StatusCode,
    pub body: String,
    /// The body was larger than [`MOST_ANSWER_BYTES`]: it was not read (`body` is empty).
    pub too_large: bool,
}

impl Reader {
    pub fn new(connected: &Connected) -> Self {
        Reader {
            client: connected.client.clone(),
            refreshing: connected.refreshing.clone(),
            timeout: connected.request_timeout,
            server: connected.server.clone(),
            context: connected.context.clone(),
            requests: Arc::default(),
            objects: Arc::default(),
        }
    }

    /// Requests sent so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    /// Send one GET, and read the answer whole; no retry.
    async fn get_once(
        &self,
        path: &str,
        accept: &str,
    ) -> Result<(Answered, Option<Duration>), Failure> {
        let mut request = Request::get(path).header(header::ACCEPT, accept);
        if let Some(refreshing) = &self.refreshing {
            let authorization = refreshing.header().await.map_err(Failure::Fatal)?;
            request = request.header(header::AUTHORIZATION, authorization);
        }
        let request = request
            .body(Body::empty())
            .map_err(|e| Failure::Fatal(format!("cannot make a request for {path}: {e}")))?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        let exchange = async {
            let response = self.client.send(request).await?;
            let status = response.status();
            let retry_after = response
                .headers()
                .get(header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let body = read_body(response.into_body()).await?;
            Ok::<_, kube::Error>((status, retry_after, body))
        };
        let answered = match self.timeout {
            Some(timeout) => tokio::time::timeout(timeout, exchange).await,
            None => Ok(exchange.await),
        };
        match answered {
            Err(_) => Err(Failure::TimedOut),
            Ok(Err(err)) => Err(self.transport_failure(&err)),
            Ok(Ok((status, retry_after, body))) => {
                let too_large = body.is_none();
                let body = String::from_utf8(body.unwrap_or_default())
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                let answered = Answered {
                    status,
                    body,
                    too_large,
                };
                Ok((answered, retry_after))
            }
        }
    }

    /// A request that did not get an answer: the server cannot be reached, or the credentials
    /// could not be had (an exec plugin failed, a token file is missing).
    fn transport_failure(&self, err: &kube::Error) -> Failure {
        // A client error's text may hold what the server answered.
        let said = redact(&sentence(err));
        if let kube::Error::Auth(_) = err {
            return Failure::Fatal(format!(
                "cannot get credentials for {}: {said}",
                self.server
            ));
        }
        if said.contains("timed out") || said.contains("deadline") {
            return Failure::TimedOut;
        }
        let context = match &self.context {
            Some(context) => format!(" (context {context})"),
            None => String::new(),
        };
        Failure::Fatal(format!(
            "cannot connect to {}{context}: {}",
            self.server,
            connection_failure(err, &said)
        ))
    }

    /// Send a GET; on 429 and 5xx, again after the wait the server asks for, a few times;
    /// a request that times out is sent once more before the run ends. 401 ends the run.
    pub async fn get(&self, path: &str, accept: &str) -> Result<Answered, Fatal> {
        self.get_trying(path, accept, ATTEMPTS).await
    }

    /// [`Reader::get`], sent at most `attempts` times when the server answers 429 or 5xx.
    async fn get_trying(&self, path: &str, accept: &str, attempts: u32) -> Result<Answered, Fatal> {
        let mut attempt = 0;
        let mut timeouts = 0;
        loop {
            attempt += 1;
            let (answered, retry_after) = match self.get_once(path, accept).await {
                Ok(answered) => answered,
                Err(Failure::Fatal(message)) => return Err(Fatal(message)),
                Err(Failure::TimedOut) => {
                    timeouts += 1;
                    if timeouts < 2 {
                        continue;
                    }
                    return Err(Fatal(format!(
                        "the API server at {} stopped answering: no answer to GET {path} within {} s (--request-timeout)",
                        self.server,
                        self.timeout.unwrap_or_default().as_secs_f64()
                    )));
                }
            };
            let status = answered.status;
            if status == StatusCode::UNAUTHORIZED {
                return Err(Fatal(format!(
                    "the API server at {} did not accept the credentials ({}): log in again or refresh the kubeconfig's token",
                    self.server,
                    failed(&answered)
                )));
            }
            let retried = status == StatusCode::TOO_MANY_REQUESTS
                || matches!(status.as_u16(), 500 | 502 | 503 | 504);
            if !retried || attempt >= attempts {
                return Ok(answered);
            }
            let wait = retry_after
                .unwrap_or(Duration::from_secs(1 << (attempt - 1)))
                .min(LONGEST_WAIT);
            tokio::time::sleep(wait).await;
        }
    }

    /// A resource's list, every page, in `namespace` or across all; its pages as read.
    async fn list(&self, resource: &Resource, namespace: Option<&str>, how: How) -> Listed {
        let base = match namespace {
            Some(namespace) => resource.list_path_in(&percent_encode(namespace)),
            None => resource.list_path(),
        };
        let accept = if resource.whole || matches!(how, How::Whole) {
            WHOLE
        } else {
            METADATA_LIST
        };
        let selector = match how {
            How::Selected(selector) => format!("&fieldSelector={}", percent_encode(selector)),
            _ => String::new(),
        };
        let mut restarts = 0;
        'list: loop {
            let mut pages = Vec::new();
            let mut token: Option<String> = None;
            // The tokens of this list so far, hashed (a server may send big ones): a token seen
            // before goes round in a circle (A, B, A, B …), which is not followed.
            let mut tokens_seen = HashSet::new();
            let hasher = RandomState::new();
            let mut listed = 0;
            loop {
                // A server that never ends a list (pages without end) is not followed for ever.
                if pages.len() >= MOST_PAGES {
                    return Listed::not_read(format!(
                        "its list had not ended after {MOST_PAGES} pages of {PAGE_SIZE}"
                    ));
                }
                let path = match &token {
                    None => format!("{base}?limit={PAGE_SIZE}{selector}"),
                    Some(token) => {
                        format!(
                            "{base}?limit={PAGE_SIZE}{selector}&continue={}",
                            percent_encode(token)
                        )
                    }
                };
                let answered = match self.get(&path, accept).await {
                    Ok(answered) => answered,
                    Err(fatal) => return Listed::Fatal(fatal),
                };
                if answered.status == StatusCode::GONE && token.is_some() && restarts < RESTARTS {
                    // The token expired: start the list again (its objects are counted again).
                    restarts += 1;
                    self.objects.fetch_sub(listed, Ordering::Relaxed);
                    continue 'list;
                }
                if !answered.status.is_success() {
                    return Listed::NotRead {
                        why: failed(&answered),
                        short: status_line(answered.status),
                    };
                }
                if answered.too_large {
                    return Listed::not_read(format!(
                        "a page of its list was larger than {} MiB, the most ownerlint reads of one answer",
                        MOST_ANSWER_BYTES >> 20
                    ));
                }
                // A proxy in front of the API server (an auth proxy's login page) answers 200
                // with a page for people.
                if is_html(&answered.body) {
                    return Listed::NotRead {
                        why: format!("answered with {HTML_PAGE}, not a Kubernetes list {PROXY}"),
                        short: format!("answered with {HTML_PAGE}"),
                    };
                }
                // Each page is kept compact as soon as it is read.
                let page = match Page::decode(resource, answered.body.as_bytes()) {
                    Ok(page) => page,
                    Err(why) => {
                        return Listed::NotRead {
                            why: format!(
                                "answered with what is not a Kubernetes list: {}",
                                redact(&why)
                            ),
                            short: "answered with what is not a Kubernetes list".to_string(),
                        };
                    }
                };
                drop(answered);
                // The objects of a list of a field selector were counted in the first list.
                if !matches!(how, How::Selected(_)) {
                    self.objects
                        .fetch_add(page.objects.len(), Ordering::Relaxed);
                    listed += page.objects.len();
                }
                if let Some(next) = &page.next {
                    if next.len() > LONGEST_TOKEN {
                        return Listed::not_read(format!(
                            "the server answered a continue token of {} bytes, longer than any API server's",
                            next.len()
                        ));
                    }
                    if !tokens_seen.insert(hasher.hash_one(next)) {
                        return Listed::not_read(
                            "the server answered a continue token it had answered before in the same list, which would go round for ever"
                                .to_string(),
                        );
                    }
                }
                token = page.next.clone();
                pages.push(page);
                if token.is_none() {
                    return Listed::Pages(pages, Vec::new(), None);
                }
            }
        }
    }

    /// A resource's list, as [`Reader::list`] reads it; of a resource whose phase a rule reads
    /// (`Resource::phase`: Pods, listed as metadata only), the finished objects too, each with
    /// its phase, read beside it with a list of metadata only for each finished phase
    /// (`status.phase=Succeeded`, `status.phase=Failed`: every API server serves these field
    /// selectors for Pods). A server that refuses the field selector (an older or odd one
    /// answers 400) has the resource listed again whole, and the run says so.
    async fn list_read(&self, resource: &Resource, namespace: Option<&str>) -> Listed {
        if !resource.phase {
            return self.list(resource, namespace, How::AsRead).await;
        }
        // The finished objects are listed beside the first list.
        let finished = tokio::spawn({
            let (reader, resource) = (self.clone(), resource.clone());
            let namespace = namespace.map(str::to_string);
            async move { reader.finished(&resource, namespace.as_deref()).await }
        });
        let listed = self.list(resource, namespace, How::AsRead).await;
        let finished = match finished.await {
            Ok(finished) => finished,
            Err(e) => Err(Err(Fatal(format!(
                "a list stopped inside ownerlint ({e}): this is a bug of ownerlint, please report it"
            )))),
        };
        let Listed::Pages(pages, ..) = listed else {
            return listed;
        };
        match finished {
            Ok(finished) => Listed::Pages(pages, finished, None),
            Err(Err(fatal)) => Listed::Fatal(fatal),
            Err(Ok((selector, why))) => {
                let note = format!(
                    "{} were listed again whole, for their phase: the server did not answer their list with the field selector {selector} ({why})",
                    resource.display()
                );
                // The objects of the first list are counted again by the second.
                let counted: usize = pages.iter().map(|page| page.objects.len()).sum();
                drop(pages);
                self.objects.fetch_sub(counted, Ordering::Relaxed);
                match self.list(resource, namespace, How::Whole).await {
                    Listed::Pages(pages, ..) => Listed::Pages(pages, Vec::new(), Some(note)),
                    other => other,
                }
            }
        }
    }

    /// The objects of `resource` in each finished phase, read with a list of a field selector
    /// each; else the selector whose list was not read, and why (or what ends the run).
    async fn finished(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
    ) -> Result<Vec<(Stored, &'static str)>, Result<(&'static str, String), Fatal>> {
        let mut finished = Vec::new();
        for (phase, selector) in FINISHED_PHASES {
            match self
                .list(resource, namespace, How::Selected(selector))
                .await
            {
                Listed::Pages(selected, ..) => finished.extend(
                    selected
                        .into_iter()
                        .flat_map(|page| page.objects)
                        .map(|stored| (stored, phase)),
                ),
                Listed::NotRead { why, .. } => return Err(Ok((selector, why))),
                Listed::Fatal(fatal) => return Err(Err(fatal)),
            }
        }
        Ok(finished)
    }

    /// The server's Kubernetes release (`/version`), which every user may read; `None` when it
    /// does not say.
    pub async fn version(&self) -> Result<Option<KubeVersion>, Fatal> {
        let answered = self.get("/version", WHOLE).await?;
        if !answered.status.is_success() {
            return Ok(None);
        }
        let version: Value = serde_json::from_str(&answered.body).unwrap_or_default();
        let part = |key: &str| version.get(key).and_then(Value::as_str).unwrap_or("");
        // A managed cluster's minor may be `28+`.
        Ok(KubeVersion::parse(&format!(
            "{}.{}",
            part("major"),
            part("minor")
        )))
    }

    /// Discovery: aggregated where served, else the legacy documents one group version at a
    /// time. Returns the aggregated documents (the core group's, then the others'), and the
    /// legacy group versions not asked for, whose names cannot be part of a path.
    pub async fn discover(&self) -> Result<(Vec<Value>, Vec<Unrequestable>), Fatal> {
        let mut documents = Vec::new();
        let mut unrequestable = Vec::new();
        for path in ["/api", "/apis"] {
            let answered = self.get(path, discovery::ACCEPT).await?;
            if answered.too_large {
                return Err(Fatal(format!(
                    "the API server at {} answered GET {path} with more than {} MiB, which no discovery document is",
                    self.server,
                    MOST_ANSWER_BYTES >> 20
                )));
            }
            if !answered.status.is_success() {
                return Err(Fatal(format!(
                    "the API server at {} did not answer discovery (GET {path}: {})",
                    self.server,
                    failed(&answered)
                )));
            }
            if is_html(&answered.body) {
                return Err(Fatal(format!(
                    "the API server at {} answered GET {path} with {HTML_PAGE}, not Kubernetes API discovery {PROXY}: check the kubeconfig's server address, and that what is there lets the kubeconfig's credentials through to an API server",
                    self.server
                )));
            }
            match discovery::read_answer(&answered.body) {
                Ok(Answer::Aggregated(document)) => documents.push(document),
                Ok(Answer::Legacy(versions)) => {
                    let mut read = Vec::new();
                    for (group, version) in versions {
                        if !(group.is_empty() || is_path_name(&group)) || !is_path_name(&version) {
                            unrequestable.push(Unrequestable {
                                what: format!(
                                    "the group version {:?}",
                                    format!("{group}/{version}")
                                ),
                                group,
                                kind: None,
                            });
                            continue;
                        }
                        let path = if group.is_empty() {
                            format!("/api/{version}")
                        } else {
                            format!("/apis/{group}/{version}")
                        };
                        // A group version whose aggregated API is down answers 503 for as
                        // long as it is down: tried twice, not for half a minute.
                        let answered = self.get_trying(&path, WHOLE, DISCOVERY_ATTEMPTS).await?;
                        let body = (answered.status.is_success() && !answered.too_large)
                            .then_some(answered.body);
                        read.push((group, version, body));
                    }
                    documents.push(discovery::from_legacy(&read));
                }
                Err(message) => {
                    return Err(Fatal(format!(
                        "the API server at {} answered GET {path} with what is not discovery: {}",
                        self.server,
                        redact(&message)
                    )));
                }
            }
        }
        Ok((documents, unrequestable))
    }

    /// One object's current state, for confirming what a list showed: `Gone` when the server
    /// answers 404, `Unknown` when it answers otherwise (403, 5xx after the retries).
    pub async fn get_object(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Now, Fatal> {
        // A name comes from an owner reference, which may hold anything: each part of the path
        // escaped, and no name that a path would read as a step.
        if matches!(name, "" | "." | "..")
            || namespace.is_some_and(|ns| matches!(ns, "" | "." | ".."))
        {
            return Ok(Now::Unknown(format!("no object can be named `{name}`")));
        }
        let namespace = namespace.map(percent_encode);
        let path = resource.object_path(namespace.as_deref(), &percent_encode(name));
        // A Pod whose phase is read is got whole: its phase alone is kept.
        let accept = if resource.whole || resource.phase {
            WHOLE
        } else {
            METADATA_ONE
        };
        let answered = self.get(&path, accept).await?;
        Ok(match answered.status {
            _ if answered.too_large => Now::Unknown(format!(
                "GET {path} answered more than {} MiB",
                MOST_ANSWER_BYTES >> 20
            )),
            StatusCode::NOT_FOUND => Now::Gone,
            status if status.is_success() => match serde_json::from_str(&answered.body) {
                Ok(Value::Object(object)) => Now::Is(object),
                _ => Now::Unknown(format!("GET {path} answered what is not a JSON object")),
            },
            _ => Now::Unknown(format!("GET {path}: {}", failed(&answered))),
        })
    }
}

/// What a GET of one object found.
pub enum Now {
    /// It exists, as answered.
    Is(serde_json::Map<String, Value>),
    /// It does not (404).
    Gone,
    /// The server did not say: why.
    Unknown(String),
}

enum Failure {
    Fatal(String),
    TimedOut,
}

/// How a resource is listed.
#[derive(Clone, Copy)]
enum How {
    /// As its resource says: whole or metadata only.
    AsRead,
    /// Whole, whatever its resource says.
    Whole,
    /// As its resource says, with this field selector.
    Selected(&'static str),
}

/// The phases of a finished Pod (controllers do not adopt it), each with the field selector
/// that lists the Pods in it.
const FINISHED_PHASES: [(&str, &str); 2] = [
    ("Succeeded", "status.phase=Succeeded"),
    ("Failed", "status.phase=Failed"),
];

enum Listed {
    /// Its pages; the finished objects that lists of a field selector found, with their phase
    /// (see [`Reader::with_phases`]); what the run says of how it was read.
    Pages(Vec<Page>, Vec<(Stored, &'static str)>, Option<String>),
    /// Why, and the same in short, to count the lists that failed alike (`403 Forbidden`).
    NotRead {
        why: String,
        short: String,
    },
    Fatal(Fatal),
}

impl Listed {
    /// Not read, for a reason the same for every list.
    fn not_read(why: String) -> Listed {
        Listed::NotRead {
            short: why.clone(),
            why,
        }
    }
}

/// A list that was tried and could not be read.
#[derive(Clone, Debug)]
pub struct FailedList {
    /// The resource: `pods/v1`.
    pub what: String,
    /// In words that follow "… was not read: ".
    pub why: String,
    /// The same in short, alike for the lists that failed alike: `403 Forbidden`.
    pub short: String,
}

/// Read the cluster: discovery, then every listable resource of `scope`, [`LISTS_AT_ONCE`] at
/// a time. `progress` is told of each resource done.
pub async fn read(
    reader: &Reader,
    scope: &Scope,
    kept: &Kept,
    progress: &mut dyn FnMut(Progress),
) -> Result<ClusterRead, Fatal> {
    let mut snapshot = Snapshot::default();
    let mut not_read = Vec::new();
    let version = reader.version().await?;
    let (documents, mut unrequestable) = reader.discover().await?;
    for mut document in documents {
        unrequestable.extend(discovery::drop_unrequestable(&mut document));
        let served = discovery::groups_served(&document);
        for stale in discovery::stale_versions(&document) {
            let group = stale.rsplit_once('/').map_or("", |(g, _)| g).to_string();
            // A group that another version of serves is checked by that version's kinds: none
            // of its kinds is taken as not read (`Some("")` names no kind).
            let kind = served.contains(&group).then(String::new);
            not_read.push(NotRead {
                group,
                kind,
                what: stale,
                why: "its discovery failed (its API server did not say what it serves)".into(),
            });
        }
        snapshot
            .add_discovery(&document.to_string())
            .map_err(Fatal)?;
    }
    let mut resources = snapshot.resources(kept);
    for skipped in unrequestable {
        // What another resource (or version) of its group serves is read there: references
        // to it are checked (`Some("")` names no kind).
        let served_elsewhere = resources.iter().any(|r| {
            r.group == skipped.group && skipped.kind.as_ref().is_none_or(|kind| r.kind == *kind)
        });
        not_read.push(NotRead {
            kind: if served_elsewhere {
                Some(String::new())
            } else {
                skipped.kind
            },
            group: skipped.group,
            what: skipped.what,
            why: "named in discovery with what is not a Kubernetes name (lower-case letters, digits, `-` and `.`), so never requested".into(),
        });
    }
    if let Some(namespace) = &scope.namespace {
        // A namespace that does not exist lists nothing, as an empty one does: said instead.
        // (Who may not read namespaces gets 403, and the lists are tried.)
        let path = format!("/api/v1/namespaces/{}", percent_encode(namespace));
        if reader.get(&path, METADATA_ONE).await?.status == StatusCode::NOT_FOUND {
            return Err(Fatal(format!(
                "the API server at {} has no namespace `{namespace}` (-n): `kubectl get namespaces` lists them",
                reader.server
            )));
        }
        // Cluster-scoped objects are not in a namespace: a reference to one is not checked.
        for resource in resources.iter().filter(|r| !r.namespaced) {
            not_read.push(NotRead {
                group: resource.group.clone(),
                kind: Some(resource.kind.clone()),
                what: resource.display(),
                why: format!("cluster-scoped, and -n {namespace} reads one namespace"),
            });
        }
        resources.retain(|r| r.namespaced);
    }
    let total = resources.len();
    let mut lists_failed = Vec::new();
    let mut notes = Vec::new();
    let mut pending = resources.into_iter();
    let mut running = tokio::task::JoinSet::new();
    let mut done = 0;
    let mut resources_read = 0;
    loop {
        while running.len() < LISTS_AT_ONCE
            && let Some(resource) = pending.next()
        {
            let reader = reader.clone();
            let namespace = scope.namespace.clone();
            running.spawn(async move {
                let listed = reader.list_read(&resource, namespace.as_deref()).await;
                (resource, listed)
            });
        }
        // A long list tells its progress too, page by page (`join_next` may be cancelled: it
        // loses nothing).
        let joined = match tokio::time::timeout(PROGRESS_EVERY, running.join_next()).await {
            Err(_) => {
                progress(Progress {
                    resources_done: done,
                    resources: total,
                    objects: reader.objects.load(Ordering::Relaxed),
                });
                continue;
            }
            Ok(joined) => joined,
        };
        let Some(joined) = joined else {
            break;
        };
        let (resource, listed) = joined.map_err(|e| Fatal(format!("a list stopped inside ownerlint ({e}): this is a bug of ownerlint, please report it")))?;
        done += 1;
        match listed {
            Listed::Pages(pages, finished, note) => {
                resources_read += 1;
                for page in pages {
                    snapshot.add(&resource, page);
                }
                snapshot.set_phases(&resource, &finished);
                notes.extend(note);
            }
            Listed::NotRead { why, short } => {
                lists_failed.push(FailedList {
                    what: resource.display(),
                    why: why.clone(),
                    short,
                });
                not_read.push(NotRead {
                    group: resource.group.clone(),
                    kind: Some(resource.kind.clone()),
                    what: resource.display(),
                    why,
                });
            }
            Listed::Fatal(fatal) => {
                running.abort_all();
                return Err(fatal);
            }
        }
        progress(Progress {
            resources_done: done,
            resources: total,
            objects: reader.objects.load(Ordering::Relaxed),
        });
    }
    Ok(ClusterRead {
        snapshot,
        version,
        resources_read,
        not_read,
        lists_tried: total,
        lists_failed,
        notes,
    })
}

/// An answer's body, read as it comes, up to [`MOST_ANSWER_BYTES`]: `None` when it is longer
/// (what was read of it is dropped at once), whatever size the server said or did not say.
async fn read_body(mut body: Body) -> Result<Option<Vec<u8>>, kube::Error> {
    let mut chunks = Vec::new();
    let mut total = 0;
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        total += data.len();
        if total > MOST_ANSWER_BYTES {
            return Ok(None);
        }
        chunks.push(data);
    }
    let mut bytes = Vec::with_capacity(total);
    for chunk in chunks {
        bytes.extend_from_slice(&chunk);
    }
    Ok(Some(bytes))
}

/// A part of a path, or a continue token in a query (base64, whose `+`, `/` and `=` are
/// escaped): every byte but letters, digits and `-._~` as `%XX`.
fn percent_encode(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    for byte in token.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
