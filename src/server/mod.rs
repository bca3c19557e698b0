//! `ownerlint server`: a Language Server Protocol server over standard input and output.
//!
//! The main loop owns the session (the open documents, the workspace folders, what was last
//! published) and answers each message in turn. Analyses run on a worker thread: the loop
//! hands it a job (every folder's options and the open texts) and goes on; the worker hands
//! back a read-only [`snapshot::Snapshot`], which requests then read. Edits that arrive while
//! an analysis runs are taken together by the next one.
//!
//! Charts and overlays are built in the background, each on its own: an analysis takes the
//! builds that ended and does not wait for one that takes long. What it finds is shown at
//! once, except in the files such a build reads, which keep what was shown for them until
//! it ends (the job is then analysed again); a build that may define kinds (CRDs), which
//! every file is checked against, holds every file. A newer text of a file a build reads stops that
//! build (its tool's process group is ended) and starts another; other edits leave it
//! running. Builds are stopped after `renderTimeout` seconds ([`EDITOR_RENDER_TIMEOUT`]
//! unless the client's initialization options say otherwise), and end with the server.
//!
//! Diagnostics are pulled by clients that can pull them and be told to pull again
//! (`workspace/diagnostic/refresh`), and pushed to the others; never both.

mod features;
mod position;
mod snapshot;
mod transport;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    ClientCapabilities, CodeActionKind, CodeActionOptions, CodeActionProviderCapability,
    Diagnostic, DiagnosticOptions, DiagnosticServerCapabilities, DocumentDiagnosticReport,
    DocumentDiagnosticReportResult, FullDocumentDiagnosticReport, HoverProviderCapability,
    InitializeParams, OneOf, PositionEncodingKind, RelatedFullDocumentDiagnosticReport,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, Uri, WorkspaceDiagnosticReport, WorkspaceDiagnosticReportResult,
    WorkspaceDocumentDiagnosticReport, WorkspaceFolder, WorkspaceFoldersServerCapabilities,
    WorkspaceFullDocumentDiagnosticReport, WorkspaceServerCapabilities,
};

use features::Client;
use position::{Encoding, path_of};
use snapshot::{Job, Snapshot};

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `exit` after `shutdown` (or the input ended after it): the exit status is 0.
    Shutdown,
    /// `exit` without `shutdown`, or the input ended without either: the exit status is 1, as
    /// the Language Server Protocol has it.
    NoShutdown,
}

impl Ending {
    pub fn status(self) -> i32 {
        match self {
            Ending::Shutdown => 0,
            Ending::NoShutdown => 1,
        }
    }
}

/// Serve on standard input and output until the client says `exit` or the input ends.
pub fn run() -> Result<Ending, String> {
    let (connection, writer) = transport::stdio();
    let ending = serve(&connection);
    // The builds under way end with the server, and leave no temporary copy behind: the
    // process exits without waiting for them (nor running their destructors).
    crate::build::end_every_build();
    // Every answer out before the process ends; the reader is not waited for (it may be
    // waiting for input that never comes).
    drop(connection);
    match writer.join() {
        Ok(Ok(())) | Ok(Err(_)) => {}
        Err(_) => return Err("the writer failed".into()),
    }
    ending
}

/// Serve on `connection` (standard input and output, or a connection in memory for tests).
pub fn serve(connection: &Connection) -> Result<Ending, String> {
    let Some((id, raw)) = initialize_start(connection) else {
        return Ok(Ending::NoShutdown);
    };
    let params: InitializeParams = match serde_json::from_value(raw.clone()) {
        Ok(params) => params,
        Err(e) => {
            let message = format!("ownerlint server: bad initialize parameters: {e}");
            let response = Response::new_err(id, ErrorCode::InvalidParams as i32, message.clone());
            let _ = connection.sender.send(response.into());
            return Err(message);
        }
    };
    let mut session = Session::new(&params, &raw);
    let result = serde_json::json!({
        "capabilities": session.capabilities(),
        "serverInfo": ServerInfo {
            name: "ownerlint".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    // The `initialized` notification that follows is the main loop's: it registers the file
    // watchers.
    connection
        .sender
        .send(Response::new_ok(id, result).into())
        .map_err(|e| e.to_string())?;
    if let Err(problem) = render_timeout(&raw) {
        log(connection, lsp_types::MessageType::WARNING, &problem);
    }
    let (jobs, worker_jobs) = crossbeam_channel::unbounded::<(u64, Job)>();
    let (worker_results, results) = crossbeam_channel::unbounded::<(u64, Snapshot)>();
    std::thread::Builder::new()
        .name("ownerlint-analysis".into())
        .spawn(move || work(&worker_jobs, &worker_results))
        .map_err(|e| e.to_string())?;
    session.dirty = true;
    // The worker is not waited for: an analysis under way does not hold up `exit`. It ends
    // with the job it runs, its jobs closed, and its builds stop.
    main_loop(connection, &mut session, jobs, results)
}

/// Wait for `initialize`: requests before it are answered that the server is not initialized,
/// notifications are dropped; `None` when the client says `exit` or the input ends first.
fn initialize_start(connection: &Connection) -> Option<(RequestId, serde_json::Value)> {
    for message in &connection.receiver {
        match message {
            Message::Request(request)
                if request.method == lsp_types::request::Initialize::METHOD =>
            {
                return Some((request.id, request.params));
            }
            Message::Request(request) => {
                let response = Response::new_err(
                    request.id,
                    ErrorCode::ServerNotInitialized as i32,
                    format!("{} before initialize", request.method),
                );
                let _ = connection.sender.send(response.into());
            }
            Message::Notification(n) if n.method == lsp_types::notification::Exit::METHOD => {
                return None;
            }
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    None
}

/// The worker: each job's analysis, one at a time. A job that panics gives an empty snapshot
/// rather than stopping the server. Builds run in the background: an analysis that leaves
/// some running is sent as it is (the files those builds read held), and the job is analysed
/// again each time one of them ends, until none is left or a newer job comes.
fn work(jobs: &Receiver<(u64, Job)>, results: &Sender<(u64, Snapshot)>) {
    let (ended, build_ended) = crossbeam_channel::unbounded::<()>();
    let mut caches = snapshot::Caches::new();
    let mut next: Option<(u64, Job)> = None;
    loop {
        let Some((mut generation, mut job)) = next.take().or_else(|| jobs.recv().ok()) else {
            return;
        };
        // Only the newest job is worth analysing.
        while let Ok(newer) = jobs.try_recv() {
            (generation, job) = newer;
        }
        while build_ended.try_recv().is_ok() {}
        let snapshot = std::panic::catch_unwind(AssertUnwindSafe(|| job.run(&mut caches, &ended)))
            .unwrap_or_else(|_| {
                // What a failed analysis left in the caches is not to be trusted (dropped,
                // they stop their builds).
                caches.clear();
                Snapshot {
                    texts: job.open.clone(),
                    ..Snapshot::empty()
                }
            });
        let building = snapshot.building();
        if results.send((generation, snapshot)).is_err() {
            return;
        }
        if building {
            // A build ends (the job is analysed again, taking it), or a newer job comes.
            select! {
                recv(jobs) -> newer => match newer {
                    Ok(newer) => next = Some(newer),
                    // Shut down: the caches are dropped, which stops their builds.
                    Err(_) => return,
                },
                recv(build_ended) -> _ => next = Some((generation, job)),
            }
            continue;
        }
        // While no analysis waits: the copies of what was loaded that the next one takes.
        if jobs.is_empty() {
            for cache in caches.values_mut() {
                cache.make_spares();
            }
        }
    }
}

fn main_loop(
    connection: &Connection,
    session: &mut Session,
    jobs: Sender<(u64, Job)>,
    mut results: Receiver<(u64, Snapshot)>,
) -> Result<Ending, String> {
    // Dropped at shutdown: the worker then ends, and the builds it left running stop.
    let mut jobs = Some(jobs);
    let mut shut_down = false;
    let ending = |shut_down: bool| {
        if shut_down {
            Ending::Shutdown
        } else {
            Ending::NoShutdown
        }
    };
    loop {
        if let Some(jobs) = &jobs
            && session.dirty
            && !session.running
        {
            session.dirty = false;
            session.running = true;
            session.generation += 1;
            session.began_next = Some(Instant::now());
            jobs.send((session.generation, session.job()))
                .map_err(|e| e.to_string())?;
        }
        select! {
            recv(connection.receiver) -> message => {
                let Ok(message) = message else { return Ok(ending(shut_down)) };
                match message {
                    Message::Request(request) if shut_down => {
                        let response = Response::new_err(
                            request.id,
                            ErrorCode::InvalidRequest as i32,
                            format!("{} after shutdown", request.method),
                        );
                        let _ = connection.sender.send(response.into());
                    }
                    Message::Request(request)
                        if request.method == lsp_types::request::Shutdown::METHOD =>
                    {
                        shut_down = true;
                        jobs = None;
                        // Pull requests that waited for an analysis get what is known.
                        for (waiting, _) in std::mem::take(&mut session.waiting) {
                            session.answer(connection, waiting);
                        }
                        let response = Response::new_ok(request.id, ());
                        let _ = connection.sender.send(response.into());
                    }
                    Message::Request(request) => session.request(connection, request),
                    Message::Notification(notification) => {
                        if notification.method == lsp_types::notification::Exit::METHOD {
                            return Ok(ending(shut_down));
                        }
                        if !shut_down {
                            session.notification(connection, notification);
                        }
                    }
                    // Answers to the server's own requests (refresh, registration).
                    Message::Response(_) => {}
                }
            }
            recv(results) -> result => {
                let Ok((generation, snapshot)) = result else {
                    if shut_down {
                        // The worker ended, as it does at shutdown.
                        results = crossbeam_channel::never();
                        continue;
                    }
                    return Err("the analysis stopped".into());
                };
                // The worker takes the next job (an analysis of an older one, whose builds
                // ended meanwhile, is shown all the same).
                if generation == session.generation {
                    session.running = false;
                    session.began = session.began_next;
                }
                let snapshot = Arc::new(snapshot);
                // The analysis it replaces is let go once what changed is out.
                let replaced = std::mem::replace(&mut session.snapshot, Arc::clone(&snapshot));
                if !snapshot.building() {
                    session.complete = snapshot;
                }
                if !shut_down {
                    session.analysed(connection);
                }
                drop(replaced);
            }
        }
    }
}

/// A document the editor has open.
struct Document {
    version: i32,
    text: String,
}

struct Session {
    client: Client,
    /// Diagnostics are pulled by the client (else pushed).
    pull: bool,
    /// The client registers file watchers when asked.
    watch: bool,
    folders: Vec<PathBuf>,
    documents: HashMap<PathBuf, Document>,
    snapshot: Arc<Snapshot>,
    /// The last analysis that no build was under way for: the diagnostics of the files that
    /// the builds under way read are pulled from it.
    complete: Arc<Snapshot>,
    /// Something changed since the last analysis began.
    dirty: bool,
    /// The worker analyses the last job sent (it may then wait for builds, which is not
    /// running: a newer job is sent to it at once).
    running: bool,
    /// How long one build may take (`renderTimeout` in the initialization options).
    render_timeout: Duration,
    /// When the analysis taken last, and the one under way, began.
    began: Option<Instant>,
    began_next: Option<Instant>,
    generation: u64,
    /// What was last pushed for each file.
    published: HashMap<String, Vec<Diagnostic>>,
    /// Pull requests that wait for the analysis under way, each with when it came.
    waiting: Vec<(Request, Instant)>,
    next_id: i32,
}

impl Session {
    /// `raw` is the initialize parameters as sent: lsp-types reads the client's
    /// `workspace.diagnostics` capability under the name `diagnostic`, so it is read here too.
    fn new(params: &InitializeParams, raw: &serde_json::Value) -> Session {
        let capabilities: &ClientCapabilities = &params.capabilities;
        let general = capabilities.general.as_ref();
        let text = capabilities.text_document.as_ref();
        let workspace = capabilities.workspace.as_ref();
        let encoding = Encoding::negotiate(
            general
                .and_then(|g| g.position_encodings.as_deref())
                .map(|e| e as &[PositionEncodingKind]),
        );
        let refresh = ["diagnostics", "diagnostic"].iter().any(|key| {
            raw["capabilities"]["workspace"][key]["refreshSupport"] == serde_json::Value::Bool(true)
        });
        let pull = text.and_then(|t| t.diagnostic.as_ref()).is_some() && refresh;
        let related_information = text
            .and_then(|t| t.publish_diagnostics.as_ref())
            .and_then(|p| p.related_information)
            .unwrap_or(pull);
        let markdown = text
            .and_then(|t| t.hover.as_ref())
            .and_then(|h| h.content_format.as_ref())
            .is_none_or(|formats| formats.contains(&lsp_types::MarkupKind::Markdown));
        let watch = workspace
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        let mut folders: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| path_of(&f.uri))
            .collect();
        #[allow(deprecated)]
        if folders.is_empty()
            && let Some(root) = params.root_uri.as_ref().and_then(path_of)
        {
            folders.push(root);
        }
        Session {
            client: Client {
                encoding,
                related_information,
                markdown,
            },
            pull,
            watch,
            folders,
            documents: HashMap::new(),
            snapshot: Arc::new(Snapshot::empty()),
            complete: Arc::new(Snapshot::empty()),
            dirty: false,
            running: false,
            render_timeout: render_timeout(raw).unwrap_or(EDITOR_RENDER_TIMEOUT),
            began: None,
            began_next: None,
            generation: 0,
            published: HashMap::new(),
            waiting: Vec::new(),
            next_id: 0,
        }
    }

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            position_encoding: Some(self.client.encoding.kind()),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(lsp_types::TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            definition_provider: Some(OneOf::Left(true)),
            references_provider: Some(OneOf::Left(true)),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                ..Default::default()
            })),
            diagnostic_provider: self.pull.then(|| {
                DiagnosticServerCapabilities::Options(DiagnosticOptions {
                    identifier: Some("ownerlint".into()),
                    inter_file_dependencies: true,
                    workspace_diagnostics: true,
                    ..Default::default()
                })
            }),
            workspace: Some(WorkspaceServerCapabilities {
                workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                    supported: Some(true),
                    change_notifications: Some(OneOf::Left(true)),
                }),
                file_operations: None,
            }),
            ..Default::default()
        }
    }

    /// What to analyse now: each folder with the options its configuration gives, and the
    /// open files that are in no folder.
    fn job(&self) -> Job {
        let open: HashMap<PathBuf, String> = self
            .documents
            .iter()
            .map(|(path, d)| (path.clone(), d.text.clone()))
            .collect();
        let mut config_errors = Vec::new();
        let folders = self
            .folders
            .iter()
            .map(|folder| options_for(folder, vec![folder.clone()], &open, &mut config_errors))
            .map(|options| self.with_render_timeout(options))
            .collect();
        let mut loose: Vec<PathBuf> = self
            .documents
            .keys()
            .filter(|path| !self.folders.iter().any(|f| path.starts_with(f)))
            .cloned()
            .collect();
        loose.sort();
        let loose = loose
            .first()
            .and_then(|first| first.parent())
            .map(Path::to_path_buf)
            .map(|dir| options_for(&dir, loose.clone(), &open, &mut config_errors))
            .map(|options| self.with_render_timeout(options));
        Job {
            folders,
            loose,
            open,
            versions: self
                .documents
                .iter()
                .map(|(path, d)| (path.clone(), d.version))
                .collect(),
            config_errors,
        }
    }

    /// `options`, with the editor's build timeout.
    fn with_render_timeout(
        &self,
        mut options: crate::analysis::Options,
    ) -> crate::analysis::Options {
        if let Some(build) = &mut options.build {
            build.timeout = self.render_timeout;
        }
        options
    }

    /// An analysis finished: push what changed, or have the client pull again, and answer the
    /// pull requests that waited for it. Edits may have come since it began: what it found is
    /// shown all the same (pushed with the versions it analysed), so that diagnostics keep
    /// coming while the user types; the next analysis follows.
    fn analysed(&mut self, connection: &Connection) {
        // A pull request waits for an analysis that began after it came (and so holds every
        // edit made before it), not for edits that keep coming after it.
        let waiting = std::mem::take(&mut self.waiting);
        for (request, since) in waiting {
            if self.dirty && self.began.is_none_or(|began| began < since) {
                self.waiting.push((request, since));
            } else {
                self.answer(connection, request);
            }
        }
        if self.pull {
            self.next_id += 1;
            let request = Request::new(
                RequestId::from(format!("ownerlint-refresh-{}", self.next_id)),
                lsp_types::request::WorkspaceDiagnosticRefresh::METHOD.into(),
                serde_json::Value::Null,
            );
            let _ = connection.sender.send(request.into());
            return;
        }
        // What builds under way read keeps what was shown for it until they end.
        let held = |uri: &Uri| is_held(&self.snapshot, uri);
        let mut now: Vec<(Uri, Vec<Diagnostic>)> =
            features::all_diagnostics(&self.snapshot, self.client)
                .into_iter()
                .filter(|(uri, _)| !held(uri))
                .collect();
        // Files published before that no analysis lints now (closed loose files, deleted files).
        let linted: std::collections::HashSet<String> = now
            .iter()
            .map(|(uri, _)| uri.as_str().to_string())
            .collect();
        for uri in self.published.keys().filter(|u| !linted.contains(*u)) {
            if let Ok(uri) = uri.parse::<Uri>()
                && !held(&uri)
            {
                now.push((uri, Vec::new()));
            }
        }
        for (uri, diagnostics) in now {
            let key = uri.as_str().to_string();
            let before = self.published.get(&key);
            // Nothing new: nor a file without findings that had none before.
            if before == Some(&diagnostics) || (before.is_none() && diagnostics.is_empty()) {
                continue;
            }
            let version = path_of(&uri).and_then(|p| self.snapshot.versions.get(&p).copied());
            let params = lsp_types::PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics: diagnostics.clone(),
                version,
            };
            let notification = Notification::new(
                lsp_types::notification::PublishDiagnostics::METHOD.into(),
                params,
            );
            let _ = connection.sender.send(notification.into());
            if diagnostics.is_empty() {
                self.published.remove(&key);
            } else {
                self.published.insert(key, diagnostics);
            }
        }
    }

    fn request(&mut self, connection: &Connection, request: Request) {
        use lsp_types::request::{DocumentDiagnosticRequest, WorkspaceDiagnosticRequest};
        let is_pull = request.method == DocumentDiagnosticRequest::METHOD
            || request.method == WorkspaceDiagnosticRequest::METHOD;
        if is_pull && (self.dirty || self.running) {
            self.waiting.push((request, Instant::now()));
            return;
        }
        self.answer(connection, request);
    }

    /// Answer `request` from the last analysis.
    fn answer(&mut self, connection: &Connection, request: Request) {
        use lsp_types::request::{
            CodeActionRequest, DocumentDiagnosticRequest, GotoDefinition, HoverRequest, References,
            WorkspaceDiagnosticRequest,
        };
        let id = request.id.clone();
        let snapshot = Arc::clone(&self.snapshot);
        let complete = Arc::clone(&self.complete);
        let client = self.client;
        let documents = &self.documents;
        let answer = std::panic::catch_unwind(AssertUnwindSafe(|| -> Answer {
            match request.method.as_str() {
                HoverRequest::METHOD => {
                    let p: lsp_types::HoverParams = parse(&request)?;
                    let d = p.text_document_position_params;
                    to_json(features::hover(
                        &snapshot,
                        &d.text_document.uri,
                        d.position,
                        client,
                    ))
                }
                GotoDefinition::METHOD => {
                    let p: lsp_types::GotoDefinitionParams = parse(&request)?;
                    let d = p.text_document_position_params;
                    to_json(
                        features::definition(&snapshot, &d.text_document.uri, d.position, client)
                            .map(lsp_types::GotoDefinitionResponse::Scalar),
                    )
                }
                References::METHOD => {
                    let p: lsp_types::ReferenceParams = parse(&request)?;
                    let d = p.text_document_position;
                    to_json(features::references(
                        &snapshot,
                        &d.text_document.uri,
                        d.position,
                        p.context.include_declaration,
                        client,
                    ))
                }
                CodeActionRequest::METHOD => {
                    let p: lsp_types::CodeActionParams = parse(&request)?;
                    let current = path_of(&p.text_document.uri)
                        .and_then(|path| documents.get(&path))
                        .map(|d| d.text.as_str());
                    to_json(features::code_actions(
                        &snapshot,
                        &p.text_document.uri,
                        p.range,
                        current,
                        client,
                    ))
                }
                DocumentDiagnosticRequest::METHOD => {
                    let p: lsp_types::DocumentDiagnosticParams = parse(&request)?;
                    let uri = &p.text_document.uri;
                    let items = match is_held(&snapshot, uri) {
                        true => features::diagnostics(&complete, uri, client),
                        false => features::diagnostics(&snapshot, uri, client),
                    };
                    to_json(DocumentDiagnosticReportResult::Report(
                        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                            related_documents: None,
                            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                                result_id: None,
                                items,
                            },
                        }),
                    ))
                }
                WorkspaceDiagnosticRequest::METHOD => {
                    let _: lsp_types::WorkspaceDiagnosticParams = parse(&request)?;
                    let mut items: Vec<WorkspaceDocumentDiagnosticReport> =
                        (features::all_diagnostics(&snapshot, client).into_iter())
                            .filter(|(uri, _)| !is_held(&snapshot, uri))
                            .chain(
                                (features::all_diagnostics(&complete, client).into_iter())
                                    .filter(|(uri, _)| is_held(&snapshot, uri)),
                            )
                            .map(|(uri, items)| {
                                let version = path_of(&uri)
                                    .and_then(|p| snapshot.versions.get(&p))
                                    .map(|&v| i64::from(v));
                                WorkspaceDocumentDiagnosticReport::Full(
                                    WorkspaceFullDocumentDiagnosticReport {
                                        uri,
                                        version,
                                        full_document_diagnostic_report:
                                            FullDocumentDiagnosticReport {
                                                result_id: None,
                                                items,
                                            },
                                    },
                                )
                            })
                            .collect();
                    items.sort_by(|a, b| report_uri(a).cmp(report_uri(b)));
                    to_json(WorkspaceDiagnosticReportResult::Report(
                        WorkspaceDiagnosticReport { items },
                    ))
                }
                _ => Err((
                    ErrorCode::MethodNotFound,
                    format!("ownerlint does not answer {}", request.method),
                )),
            }
        }));
        let response = match answer {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "ownerlint failed to answer this request".into(),
            ),
        };
        let _ = connection.sender.send(response.into());
    }

    fn notification(&mut self, connection: &Connection, notification: Notification) {
        use lsp_types::notification::{
            DidChangeTextDocument, DidChangeWatchedFiles, DidChangeWorkspaceFolders,
            DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Initialized,
        };
        let method = notification.method.clone();
        let handled = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
            match method.as_str() {
                Initialized::METHOD => self.register_watchers(connection),
                DidOpenTextDocument::METHOD => {
                    let p: lsp_types::DidOpenTextDocumentParams = params(notification)?;
                    if let Some(path) = path_of(&p.text_document.uri) {
                        self.documents.insert(
                            path,
                            Document {
                                version: p.text_document.version,
                                text: p.text_document.text,
                            },
                        );
                        self.dirty = true;
                    }
                }
                DidChangeTextDocument::METHOD => {
                    let p: lsp_types::DidChangeTextDocumentParams = params(notification)?;
                    let Some(document) = path_of(&p.text_document.uri)
                        .and_then(|path| self.documents.get_mut(&path))
                    else {
                        return Ok(());
                    };
                    for change in p.content_changes {
                        match change.range {
                            Some(range) => {
                                let encoding = self.client.encoding;
                                let start =
                                    position::offset_in(&document.text, range.start, encoding);
                                let end = position::offset_in(&document.text, range.end, encoding)
                                    .max(start);
                                document.text.replace_range(start..end, &change.text);
                            }
                            None => document.text = change.text,
                        }
                    }
                    document.version = p.text_document.version;
                    self.dirty = true;
                }
                DidCloseTextDocument::METHOD => {
                    let p: lsp_types::DidCloseTextDocumentParams = params(notification)?;
                    if let Some(path) = path_of(&p.text_document.uri) {
                        self.documents.remove(&path);
                        self.dirty = true;
                    }
                }
                // Saved text is the text the editor held; files changed on disk, or folders
                // added or removed, change what the next analysis reads.
                DidSaveTextDocument::METHOD | DidChangeWatchedFiles::METHOD => self.dirty = true,
                DidChangeWorkspaceFolders::METHOD => {
                    let p: lsp_types::DidChangeWorkspaceFoldersParams = params(notification)?;
                    let paths = |folders: Vec<WorkspaceFolder>| -> Vec<PathBuf> {
                        folders.iter().filter_map(|f| path_of(&f.uri)).collect()
                    };
                    let removed = paths(p.event.removed);
                    self.folders.retain(|f| !removed.contains(f));
                    for added in paths(p.event.added) {
                        if !self.folders.contains(&added) {
                            self.folders.push(added);
                        }
                    }
                    self.dirty = true;
                }
                _ => {}
            }
            Ok(())
        }));
        let problem = match handled {
            Ok(Ok(())) => return,
            Ok(Err(problem)) => problem,
            Err(_) => format!("ownerlint failed on a {method} notification"),
        };
        log(connection, lsp_types::MessageType::WARNING, &problem);
    }

    /// Ask the client to tell of YAML, JSON and configuration files created, changed or
    /// deleted on disk, when it can be asked.
    fn register_watchers(&mut self, connection: &Connection) {
        if !self.watch {
            return;
        }
        let watchers: Vec<lsp_types::FileSystemWatcher> =
            ["**/*.yaml", "**/*.yml", "**/*.json", "**/.ownerlint.yaml"]
                .into_iter()
                .map(|glob| lsp_types::FileSystemWatcher {
                    glob_pattern: lsp_types::GlobPattern::String(glob.into()),
                    kind: None,
                })
                .collect();
        let registration = lsp_types::Registration {
            id: "ownerlint-watch".into(),
            method: lsp_types::notification::DidChangeWatchedFiles::METHOD.into(),
            register_options: serde_json::to_value(
                lsp_types::DidChangeWatchedFilesRegistrationOptions { watchers },
            )
            .ok(),
        };
        self.next_id += 1;
        let request = Request::new(
            RequestId::from(format!("ownerlint-register-{}", self.next_id)),
            lsp_types::request::RegisterCapability::METHOD.into(),
            lsp_types::RegistrationParams {
                registrations: vec![registration],
            },
        );
        let _ = connection.sender.send(request.into());
    }
}

/// The options of an analysis of `paths`, with the configuration discovered from `dir` (its
/// unsaved text, when the editor has it open), as the command line with no flag would discover
/// it there. A configuration with mistakes gives the default options, and its mistakes in
/// `errors` (shown on the file).
fn options_for(
    dir: &Path,
    paths: Vec<PathBuf>,
    open: &HashMap<PathBuf, String>,
    errors: &mut Vec<crate::config::ConfigError>,
) -> crate::analysis::Options {
    let flags = crate::config::Flags {
        paths,
        ..crate::config::Flags::default()
    };
    crate::config::options(&flags, Some(dir), open).unwrap_or_else(|found| {
        errors.extend(found);
        let defaults = crate::config::Flags {
            no_config: true,
            ..flags
        };
        // Without a configuration file there is nothing to be mistaken.
        crate::config::options(&defaults, None, open).unwrap_or_default()
    })
}

/// Whether the file at `uri` is read by a build still under way when `snapshot` was taken:
/// what it finds there is not known yet.
fn is_held(snapshot: &Snapshot, uri: &Uri) -> bool {
    snapshot.holds_all
        || (!snapshot.held.is_empty()
            && path_of(uri)
                .is_some_and(|path| snapshot.held.contains(&crate::read::lexical(&path))))
}

/// How long the editor lets one build (`helm template`, `kustomize build`) take: the client's
/// `renderTimeout` initialization option, in seconds, else [`EDITOR_RENDER_TIMEOUT`]; `Err`
/// says what is wrong with an option that is not a number of seconds.
fn render_timeout(raw: &serde_json::Value) -> Result<Duration, String> {
    match &raw["initializationOptions"]["renderTimeout"] {
        serde_json::Value::Null => Ok(EDITOR_RENDER_TIMEOUT),
        value => match value.as_u64() {
            Some(seconds) if seconds > 0 => Ok(Duration::from_secs(seconds)),
            _ => Err(format!(
                "ownerlint: the initialization option renderTimeout is {value}, not a number of seconds above 0, so builds stop after {} seconds; set it to a whole number such as 120",
                EDITOR_RENDER_TIMEOUT.as_secs()
            )),
        },
    }
}

/// The editor's build timeout: shorter than the command line's, since the diagnostics of the
/// files a build reads wait for it.
pub const EDITOR_RENDER_TIMEOUT: Duration = Duration::from_secs(30);

type Answer = Result<serde_json::Value, (ErrorCode, String)>;

fn parse<P: serde::de::DeserializeOwned>(request: &Request) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(request.params.clone()).map_err(|e| {
        (
            ErrorCode::InvalidParams,
            format!("bad parameters for {}: {e}", request.method),
        )
    })
}

fn params<P: serde::de::DeserializeOwned>(notification: Notification) -> Result<P, String> {
    let method = notification.method.clone();
    serde_json::from_value(notification.params)
        .map_err(|e| format!("ownerlint: bad parameters for {method}: {e}"))
}

fn to_json(value: impl serde::Serialize) -> Answer {
    serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

fn report_uri(report: &WorkspaceDocumentDiagnosticReport) -> &str {
    match report {
        WorkspaceDocumentDiagnosticReport::Full(r) => r.uri.as_str(),
        WorkspaceDocumentDiagnosticReport::Unchanged(r) => r.uri.as_str(),
    }
}

fn log(connection: &Connection, typ: lsp_types::MessageType, message: &str) {
    let notification = Notification::new(
        lsp_types::notification::LogMessage::METHOD.into(),
        lsp_types::LogMessageParams {
            typ,
            message: message.into(),
        },
    );
    let _ = connection.sender.send(notification.into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_build_timeout_is_30_seconds_unless_the_client_says_otherwise() {
        let options = |value: serde_json::Value| {
            render_timeout(&serde_json::json!({"initializationOptions": value}))
        };
        assert_eq!(
            render_timeout(&serde_json::json!({})),
            Ok(Duration::from_secs(30))
        );
        assert_eq!(options(serde_json::json!({})), Ok(Duration::from_secs(30)));
        assert_eq!(
            options(serde_json::json!({"renderTimeout": 120})),
            Ok(Duration::from_secs(120))
        );
        for wrong in [
            serde_json::json!(0),
            serde_json::json!(-1),
            serde_json::json!("2m"),
        ] {
            let problem = options(serde_json::json!({ "renderTimeout": wrong }));
            assert!(
                problem
                    .as_ref()
                    .is_err_and(|p| p.contains("renderTimeout") && p.contains("30 seconds")),
                "{problem:?}"
            );
        }
    }
}
