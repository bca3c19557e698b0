//! The rules. Each rule is one file that declares itself (`declare_rule!`: its id, default
//! severity and summary; its document is `rules/<id>.md`) and checks the input. Adding a rule
//! is its file, its document and its line in `rules!` below; the registry, `ownerlint rules`,
//! SARIF's rule list and the README's rule table all come from these declarations.

use crate::catalog::{Catalog, Scope};
use crate::finding::{Applicability, Edit, Finding, Fix, Label, RuleMeta};
use crate::index::{Index, ObjId};
use crate::model::{Object, OwnerRef};
use crate::resolve::RefResolution;
use crate::source::Span;

/// A rule: its declaration and its check.
pub struct Rule {
    pub meta: &'static RuleMeta,
    pub check: Check,
}

/// When a rule runs, and what it reads.
pub enum Check {
    /// Over the loaded input: its objects, their resolved references, and what could not be
    /// read.
    Input(fn(&Context, &mut Vec<Finding>)),
    /// After every other rule, over the suppressions that hid none of their findings.
    Suppressions(fn(&[crate::suppress::Unused], &mut Vec<Finding>)),
}

/// Declare the rules, in catalogue order (DESIGN §4): each one's module and registry entry.
macro_rules! rules {
    ($($name:ident,)*) => {
        $(pub mod $name;)*

        /// Every rule, in catalogue order.
        pub static RULES: &[&Rule] = &[$(&$name::RULE),*];

        /// Calls `$callback! { $args, rule_module, … }` with every rule's module name, in
        /// catalogue order: the tests make one `#[test]` a rule from it.
        #[doc(hidden)]
        #[macro_export]
        macro_rules! for_each_rule {
            ($callback:ident, $args:tt) => {
                $callback! { $args, $($name,)* }
            };
        }
    };
}

rules! {
    invalid_yaml,
    unrendered_template,
    render_failed,
    duplicate_object,
    uid_shared,
    duplicate_key,
    field_type_invalid,
    owner_ref_invalid,
    owner_ref_unknown_field,
    banned_owner,
    multiple_controllers,
    duplicate_owner_ref,
    owner_not_found,
    owner_uid_mismatch,
    owner_created_with_fresh_uid,
    cross_namespace_owner,
    cluster_scoped_dependent,
    owner_api_unserved,
    owner_api_version_stale,
    owner_kind_lowercase,
    owner_kind_unknown,
    owner_uid_conflict,
    ownership_cycle,
    unpersisted_owner,
    controller_selector_mismatch,
    orphan_will_be_adopted,
    finalizer_invalid,
    finalizer_unqualified,
    deletion_finalizer_in_manifest,
    deletion_timestamp_in_manifest,
    system_fields_in_manifest,
    required_owner,
    tracking_label_required,
    unused_suppression,
}

/// Every rule id, for configuration and suppressions.
pub fn all_ids() -> Vec<&'static str> {
    RULES.iter().map(|r| r.meta.id).collect()
}

/// The README's rule table: id, default severity and summary of every rule.
pub fn markdown_table() -> String {
    let mut table = String::from("| rule | default | fix | finding |\n|---|---|---|---|\n");
    for rule in RULES {
        let meta = rule.meta;
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            meta.id,
            meta.default_severity,
            meta.fix.map_or("", |fix| fix.as_str()),
            meta.summary.replace('|', "\\|")
        ));
    }
    table
}

/// What the fast path keeps of each object: the fields every stage reads and those each rule
/// declares.
pub fn kept() -> &'static crate::fields::Kept {
    static KEPT: std::sync::OnceLock<crate::fields::Kept> = std::sync::OnceLock::new();
    KEPT.get_or_init(|| {
        crate::fields::Kept::new(
            crate::fields::PIPELINE
                .iter()
                .chain(RULES.iter().flat_map(|r| r.meta.reads)),
        )
    })
}

pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.meta.id == id)
}

/// Declare a rule: `META`, what its findings name it by, and `RULE`, its registry entry. Its
/// document is `rules/<id>.md`; `reads` names the fields of `crate::fields` it reads beyond
/// those every stage reads (`fields::PIPELINE`); its check is the module's `check` unless it
/// names another.
macro_rules! declare_rule {
    (@check) => {
        $crate::rules::Check::Input(check)
    };
    (@check $check:expr) => {
        $check
    };
    (@some) => {
        None
    };
    (@some $value:expr) => {
        Some($value)
    };
    (
        id: $id:literal,
        severity: $severity:ident,
        $(complete_severity: $complete:ident,)?
        $(severity_varies: $varies:literal,)?
        $(fix: $fix:ident,)?
        summary: $summary:literal
        $(, reads: [$($field:ident),* $(,)?])?
        $(, check: $check:expr)?
        $(,)?
    ) => {
        pub static META: $crate::finding::RuleMeta = $crate::finding::RuleMeta {
            id: $id,
            default_severity: $crate::finding::Severity::$severity,
            complete_severity: $crate::rules::declare_rule!(
                @some $($crate::finding::Severity::$complete)?
            ),
            severity_varies: $crate::rules::declare_rule!(@some $($varies)?),
            fix: $crate::rules::declare_rule!(
                @some $($crate::finding::Applicability::$fix)?
            ),
            summary: $summary,
            reads: &[$($($crate::fields::$field),*)?],
            doc: include_str!(concat!("../../rules/", $id, ".md")),
        };

        pub static RULE: $crate::rules::Rule = $crate::rules::Rule {
            meta: &META,
            check: $crate::rules::declare_rule!(@check $($check)?),
        };
    };
}
pub(crate) use declare_rule;

/// Options that change what the rules conclude.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The input is the whole cluster (or release): an owner that is not found does not exist.
    pub complete: bool,
    /// With `complete`, the input is a `kubectl cluster-info dump`, which holds only these
    /// kinds (group, kind): only an owner of one of them is known not to exist.
    pub partial_dump: Option<&'static [(&'static str, &'static str)]>,
    /// Ownership policies (`required-owner`, `tracking-label-required`).
    pub policies: crate::policy::Policies,
}

/// Everything a rule can read.
pub struct Context<'a> {
    pub sources: &'a [crate::source::Source],
    pub objects: &'a [Object],
    pub index: &'a Index,
    pub catalog: &'a Catalog,
    /// `resolutions[object][reference]`
    pub resolutions: &'a [Vec<RefResolution>],
    /// Who owns whom, from the resolutions.
    pub ownership: &'a crate::resolve::Ownership,
    /// What the loader could not read as objects.
    pub unread: &'a [crate::load::Unread],
    pub options: &'a CheckOptions,
    /// What the git change deletes (`--git-deletions`): gone, so not in the index, and named
    /// when a reference finds no owner.
    pub deleted: &'a Deleted,
}

/// The objects of the files the git change deletes, and what an index of their own worked out
/// of each (group and namespace as for every other object).
#[derive(Default)]
pub struct Deleted {
    pub objects: Vec<Object>,
    pub index: Index,
}

impl Deleted {
    /// The deleted object of this identity, if the change deletes one.
    pub fn find(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Object> {
        self.objects.iter().enumerate().find_map(|(i, object)| {
            let facts = self.index.facts(crate::index::ObjId(i as u32));
            let found = facts.group.as_deref() == Some(group)
                && object.kind_str() == kind
                && object.name.as_ref().is_some_and(|n| n.value == name)
                && facts.namespace.as_deref() == namespace;
            found.then_some(object)
        })
    }
}

impl CheckOptions {
    /// Whether an owner of this group and kind that is not in the input does not exist.
    pub fn complete_for(&self, group: &str, kind: &str) -> bool {
        self.complete
            && self
                .partial_dump
                .is_none_or(|kinds| kinds.iter().any(|&(g, k)| g == group && k == kind))
    }
}

/// What `kubectl cluster-info dump` writes, by group and kind: Nodes, and of each namespace
/// its Events, ReplicationControllers, Services, DaemonSets, Deployments, ReplicaSets and Pods
/// (`dumpClusterInfo` in `k8s.io/kubectl/pkg/cmd/clusterinfo/clusterinfo_dump.go`), and nothing
/// else: no StatefulSets, Jobs, CronJobs, ConfigMaps, Secrets or ControllerRevisions.
pub const CLUSTER_INFO_DUMP: &[(&str, &str)] = &[
    ("", "Node"),
    ("", "Event"),
    ("", "ReplicationController"),
    ("", "Service"),
    ("apps", "DaemonSet"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("", "Pod"),
];

/// Whether `objects` can only be a `kubectl cluster-info dump`: captured from a cluster, and
/// holding no kind that dump leaves out. A cluster always has more (a ServiceAccount and the
/// `kube-root-ca.crt` ConfigMap in every namespace), so such an input is never complete.
pub fn is_cluster_info_dump(objects: &[Object], index: &Index) -> bool {
    !objects.is_empty()
        && objects.iter().enumerate().all(|(i, object)| {
            let group = index.facts(ObjId(i as u32)).group.as_deref();
            object.mode == crate::model::Mode::Snapshot
                && CLUSTER_INFO_DUMP
                    .iter()
                    .any(|&(g, k)| Some(g) == group && k == object.kind_str())
        })
}

impl<'a> Context<'a> {
    pub fn object(&self, id: ObjId) -> &'a Object {
        &self.objects[id.index()]
    }

    /// The objects to lint (context objects only help resolve references).
    pub fn linted(&self) -> impl Iterator<Item = (ObjId, &'a Object)> + 'a {
        self.objects
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.context)
            .map(|(i, o)| (ObjId(i as u32), o))
    }

    /// Each owner reference of each linted object, with its resolution.
    pub fn references(
        &self,
    ) -> impl Iterator<Item = (ObjId, &'a Object, usize, &'a OwnerRef, &'a RefResolution)> + 'a
    {
        let resolutions = self.resolutions;
        self.linted().flat_map(move |(id, object)| {
            object
                .owner_refs()
                .iter()
                .enumerate()
                .map(move |(i, r)| (id, object, i, r, &resolutions[id.index()][i]))
        })
    }

    /// "Deployment shop/api", "ClusterRole reader".
    pub fn describe(&self, id: ObjId) -> String {
        self.object(id)
            .describe(self.index.facts(id).namespace.as_deref())
    }

    /// "deploy/app.yaml:12", where an object's name (or the object) is.
    pub fn location(&self, id: ObjId) -> String {
        let object = self.object(id);
        let source = &self.sources[object.source.0 as usize];
        let span = object.name_span();
        format!("{}:{}", source.name, source.line_col(span.start).line)
    }

    /// The owner a reference names, in the namespace the garbage collector looks in.
    pub fn describe_owner(
        &self,
        dependent: ObjId,
        reference: &OwnerRef,
        resolution: &RefResolution,
    ) -> String {
        let kind = reference.kind_str().unwrap_or("?");
        let name = reference.name_str().unwrap_or("?");
        let namespace = match resolution.owner_scope {
            Some(Scope::Cluster) => None,
            _ => self.index.facts(dependent).namespace.clone(),
        };
        match namespace {
            Some(ns) => format!("{kind} {ns}/{name}"),
            None => format!("{kind} {name}"),
        }
    }

    /// "Pod shop/web-1 → ReplicaSet shop/web", the two sides of a reference.
    pub fn arrow(
        &self,
        dependent: ObjId,
        reference: &OwnerRef,
        resolution: &RefResolution,
    ) -> String {
        format!(
            "{} → {}",
            self.describe(dependent),
            self.describe_owner(dependent, reference, resolution)
        )
    }

    /// A finding about object `id`, at `span` in its source.
    pub fn finding(
        &self,
        meta: &'static RuleMeta,
        id: ObjId,
        span: Span,
        label: impl Into<String>,
        message: impl Into<String>,
    ) -> Finding {
        let object = self.object(id);
        let mut finding = Finding::new(meta, Label::new(object.source, span, label), message);
        finding.object = Some(object.identity());
        finding.origin = object.origin.clone();
        finding
    }

    /// A fix that writes `value` over the scalar at `span` of `id`'s source (keeping its quotes);
    /// `None` when the scalar cannot be rewritten cleanly.
    pub fn replace_fix(
        &self,
        id: ObjId,
        span: Span,
        value: &str,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        self.edit_fix(id, span, applicability, message, |window| {
            crate::edit::replace_scalar(window, span, value)
        })
    }

    /// A fix that removes the node at `span` of `id`'s source (a sequence item or a mapping
    /// entry), with its lines in block style and one comma in flow style.
    pub fn remove_fix(
        &self,
        id: ObjId,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        self.edit_fix(id, span, applicability, message, |window| {
            crate::edit::remove_node(window, span).map(|removed| (removed, String::new()))
        })
    }

    /// A fix that removes the owner reference at `span` of `id`, the whole `ownerReferences`
    /// entry (with the comments under it) when it is the only one, rather than leaving the key
    /// holding nothing. When fixes of one round remove every reference of a list, `--fix`
    /// removes the key instead (`fix::whole_lists`).
    pub fn remove_owner_ref_fix(
        &self,
        id: ObjId,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        match &self.object(id).owner_refs {
            crate::model::OwnerRefs::List { refs, key, value } if refs.len() == 1 => {
                let (key, value) = (*key, *value);
                let entry = Span::new(key.start, value.end.max(key.end));
                self.edit_fix(id, entry, applicability, message, |window| {
                    crate::edit::remove_entry(window, key, value)
                        .map(|removed| (removed, String::new()))
                })
            }
            _ => self.remove_fix(id, span, applicability, message),
        }
    }

    /// A fix that removes the finalizer at `span` of `id`: in block style from its `-`
    /// (`- orphan` goes whole, with its line), in flow style with one comma; the only one goes
    /// with its `finalizers` key.
    pub fn remove_finalizer_fix(
        &self,
        id: ObjId,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        // Rare: the object is read again for where the key is.
        let only_item = self.whole_object(id, |node| {
            let (key, value) = node.get("metadata")?.entry("finalizers")?;
            match value.as_seq()? {
                [item] if item.span.start < span.end && span.start < item.span.end => {
                    Some((key.span, value.span))
                }
                _ => None,
            }
        });
        match only_item.flatten() {
            Some(entry) => self.remove_entries_fix(id, &[vec![entry]], applicability, message),
            None => self.edit_fix(id, span, applicability, message, |window| {
                crate::edit::remove_item(window, span).map(|removed| (removed, String::new()))
            }),
        }
    }

    /// A fix of one edit in `id`'s source, made by `edit` from the text around `span`.
    fn edit_fix(
        &self,
        id: ObjId,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
        edit: impl FnOnce(crate::edit::Window) -> Option<(Span, String)>,
    ) -> Option<Fix> {
        let (span, replacement) = self.with_window(id, span, edit)?;
        if self.repeated_by_alias(id, &[span]) {
            return None;
        }
        let source = self.object(id).source;
        Some(Fix::new(
            applicability,
            message,
            [Edit {
                source,
                span,
                replacement,
            }],
        ))
    }

    /// What `edit` makes of the text of `id`'s document, from its first line to a few lines
    /// after `span`.
    fn with_window<R>(
        &self,
        id: ObjId,
        span: Span,
        edit: impl FnOnce(crate::edit::Window) -> Option<R>,
    ) -> Option<R> {
        const AFTER: usize = 8;
        let object = self.object(id);
        let source = &self.sources[object.source.0 as usize];
        let from = source.line_start(source.line_index(object.span.start.min(span.start)));
        let last = source.line_index(span.end) + AFTER;
        let to = source.line_start(last + 1).min(source.text.len());
        let bytes = source.text.bytes(from..to).ok()?;
        edit(crate::edit::Window {
            bytes: &bytes,
            base: from,
        })
    }

    /// A fix that removes mapping entries of `id` (each given by the spans of its key and its
    /// value), in runs of entries that follow one another in one mapping. Each entry is removed
    /// on its own (its lines in block style); a run whose removals would overlap (flow style,
    /// where neighbours share a comma) is removed as one node. `None` when an entry cannot be
    /// removed cleanly.
    pub fn remove_entries_fix(
        &self,
        id: ObjId,
        runs: &[Vec<(Span, Span)>],
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        use crate::edit::{entry, remove_node};
        let all = runs.iter().flatten();
        let start = all.clone().map(|(key, _)| key.start).min()?;
        let end = all.map(|(key, value)| value.end.max(key.end)).max()?;
        let removed = self.with_window(id, Span::new(start, end), |window| {
            let mut removed = Vec::new();
            for run in runs {
                let entries: Vec<Span> = run
                    .iter()
                    .map(|&(key, value)| entry(window, key, value))
                    .collect::<Option<_>>()?;
                let each: Vec<Span> = entries
                    .iter()
                    .map(|&span| remove_node(window, span))
                    .collect::<Option<_>>()?;
                let overlapping = each
                    .windows(2)
                    .any(|pair| pair[0].end > pair[1].start || pair[0].start == pair[1].start);
                match (overlapping, entries.first(), entries.last()) {
                    (true, Some(first), Some(last)) => {
                        removed.push(remove_node(window, Span::new(first.start, last.end))?);
                    }
                    _ => removed.extend(each),
                }
            }
            Some(removed)
        })?;
        if self.repeated_by_alias(id, &removed) {
            return None;
        }
        let source = self.object(id).source;
        Some(Fix::new(
            applicability,
            message,
            removed.into_iter().map(|span| Edit {
                source,
                span,
                replacement: String::new(),
            }),
        ))
    }

    /// Whether one of `spans` of `id`'s text is in a node that an alias repeats (`&refs` …
    /// `*refs`), where an edit would change every place that repeats it: such a fix is not
    /// offered. Only a document that holds a `&` is read again to tell.
    fn repeated_by_alias(&self, id: ObjId, spans: &[Span]) -> bool {
        let object = self.object(id);
        let text = &self.sources[object.source.0 as usize].text;
        let extent = object.extent;
        // A big extent (a List read whole) is not parsed again for every object in it.
        if extent.len() > REPARSE_LIMIT {
            return true;
        }
        let has_anchor = text.with_bytes(extent.start..extent.end, |bytes| {
            memchr::memchr(b'&', bytes).is_some()
        });
        if has_anchor == Ok(false) {
            return false;
        }
        let Ok(slice) = text.str(extent.start..extent.end) else {
            return true;
        };
        match crate::yaml::parse_at(&slice, extent.start, crate::yaml::Limits::default()) {
            Ok(document) => document.aliased.iter().any(|aliased| {
                spans
                    .iter()
                    .any(|s| s.start < aliased.end && aliased.start < s.end.max(s.start + 1))
            }),
            Err(_) => true,
        }
    }

    /// `f` applied to the whole mapping of object `id`, parsed again from its text: the fast
    /// path keeps only the fields the rules declare, and a rule that fixes an object may need
    /// the others. `None` when the text no longer reads as it did.
    pub fn whole_object<R>(&self, id: ObjId, f: impl FnOnce(&crate::yaml::Node) -> R) -> Option<R> {
        let object = self.object(id);
        let source = &self.sources[object.source.0 as usize];
        let extent = object.extent;
        // A big extent (a List read whole) is not parsed again for every object in it.
        if extent.len() > REPARSE_LIMIT {
            return None;
        }
        let text = source.text.str(extent.start..extent.end).ok()?;
        let document =
            crate::yaml::parse_at(&text, extent.start, crate::yaml::Limits::default()).ok()?;
        find_object(document.root.as_ref()?, object).map(f)
    }

    /// A label on an object's `metadata.uid` (or where it is named: `Object::name_span`).
    pub fn uid_label(&self, id: ObjId, message: impl Into<String>) -> Label {
        let object = self.object(id);
        let span = object.uid.as_ref().map_or(object.name_span(), |s| s.span);
        Label::new(object.source, span, message)
    }

    /// A label on an object's `metadata.name` (or its kind: `Object::name_span`).
    pub fn name_label(&self, id: ObjId, message: impl Into<String>) -> Label {
        let object = self.object(id);
        let span = object.name_span();
        Label::new(object.source, span, message)
    }

    /// The objects whose owner references resolve to `owner`, in input order.
    pub fn dependents(&self, owner: ObjId) -> &'a [ObjId] {
        self.ownership.dependents(owner)
    }

    /// What the garbage collector does with a dependent whose reference is dangling, as a
    /// sentence, counting the dependent's other references as `delete-preview` does: it removes
    /// just this reference when another owner is alive, keeps the dependent while another
    /// reference can never be resolved (the collector retries it), and deletes the dependent
    /// when every other owner is gone. An owner that may exist beyond the input (missing from
    /// a snapshot) is said to decide which.
    pub fn dangling_consequence(&self, dependent: ObjId, reference_index: usize) -> String {
        use crate::resolve::Unresolved;
        let object = self.object(dependent);
        let (mut alive, mut unknown, mut unresolvable) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (reference, resolution)) in object
            .owner_refs()
            .iter()
            .zip(&self.resolutions[dependent.index()])
            .enumerate()
        {
            if i == reference_index {
                continue;
            }
            let Some(reason) = crate::resolve::unresolved(&resolution.resolution) else {
                if let Some(owner) = resolution.owner() {
                    alive.push(self.describe(owner));
                }
                continue;
            };
            let complete_here = self
                .options
                .complete_for(&resolution.group, reference.kind_str().unwrap_or(""));
            let owner = self.describe_owner(dependent, reference, resolution);
            if crate::resolve::is_dangling(reason, object.mode, complete_here) {
                continue;
            } else if reason == Unresolved::NotFound {
                unknown.push(owner);
            } else if reason != Unresolved::Invalid {
                unresolvable.push(owner);
            }
        }
        let described = self.describe(dependent);
        if !alive.is_empty() {
            format!(
                "the garbage collector removes this reference from {described} ({} still owns it)",
                alive.join(", ")
            )
        } else if !unresolvable.is_empty() {
            format!(
                "the garbage collector keeps {described}, because it cannot resolve its reference to {} and retries it (this reference stays)",
                unresolvable.join(", ")
            )
        } else if !unknown.is_empty() {
            let (these, exist) = if unknown.len() == 1 {
                ("it", "exists")
            } else {
                ("one of them", "exist")
            };
            format!(
                "the garbage collector deletes {described} unless {}, which {} not in this snapshot, still {exist} in the cluster; if {these} does, the collector removes just this reference",
                unknown.join(" or "),
                if unknown.len() == 1 { "is" } else { "are" },
            )
        } else {
            format!("the garbage collector deletes {described} (no other owner keeps it)")
        }
    }
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub fn did_you_mean<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates
        .iter()
        .map(|c| {
            (
                strsim::jaro_winkler(&word.to_ascii_lowercase(), &c.to_ascii_lowercase()),
                *c,
            )
        })
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The entries of the mapping `map` whose keys are among `keys`, in runs of entries that follow
/// one another (for [`Context::remove_entries_fix`]): each as the index of its key in `keys`,
/// the span of the key and the span of the value.
pub fn entry_runs(map: &crate::yaml::Node, keys: &[&str]) -> Vec<Vec<(usize, Span, Span)>> {
    let mut runs = Vec::new();
    let mut run = Vec::new();
    for (k, v) in map.as_map().unwrap_or_default() {
        let key = k.as_scalar().map(|s| s.text.as_str());
        match keys.iter().position(|wanted| Some(*wanted) == key) {
            Some(i) => run.push((i, k.span, v.span)),
            None if !run.is_empty() => runs.push(std::mem::take(&mut run)),
            None => {}
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// The largest text read again for one object: a document or List item of one object stays far
/// below it; a List read whole (one with anchors) would be parsed again for each of its objects.
const REPARSE_LIMIT: usize = 256 << 10;

/// The mapping of `object` in a tree parsed again from its text: the one whose `kind` (or
/// `metadata.name`) is where the object's is.
fn find_object<'n>(node: &'n crate::yaml::Node, object: &Object) -> Option<&'n crate::yaml::Node> {
    use crate::yaml::Value;
    let at = |field: Option<&crate::yaml::Node>, span: Option<Span>| {
        field.is_some_and(|f| Some(f.span) == span)
    };
    match &node.value {
        Value::Map(entries) => {
            let name = node.get("metadata").and_then(|m| m.get("name"));
            if at(node.get("kind"), object.kind.as_ref().map(|k| k.span))
                || at(name, object.name.as_ref().map(|n| n.span))
            {
                return Some(node);
            }
            entries.iter().find_map(|(_, v)| find_object(v, object))
        }
        Value::Seq(items) => items.iter().find_map(|item| find_object(item, object)),
        Value::Scalar(_) => None,
    }
}
