//! What every rule produces: a finding with a severity, a message that names both sides of the
//! reference, the exact span it is about, related spans (the other side), and, where the repair
//! is mechanical, a fix: byte-range edits with how far they can be trusted.

use std::fmt;

use crate::source::{SourceId, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub const NAMES: [&str; 3] = ["info", "warning", "error"];

    pub fn as_str(self) -> &'static str {
        Severity::NAMES[self as usize]
    }

    pub fn parse(text: &str) -> Option<Severity> {
        [Severity::Info, Severity::Warning, Severity::Error]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// What a rule is set to: off, or a severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    On(Severity),
}

impl Level {
    /// `off`, or a severity's name.
    pub fn parse(text: &str) -> Option<Level> {
        match text {
            "off" => Some(Level::Off),
            _ => Severity::parse(text).map(Level::On),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Off => f.write_str("off"),
            Level::On(s) => f.write_str(s.as_str()),
        }
    }
}

/// A labelled span in a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub source: SourceId,
    pub span: Span,
    pub message: String,
    /// The span is only near what the label is about: a finding of a build taken back to the
    /// nearest place its source file writes (the enclosing key, the object, the file).
    pub approximate: bool,
}

impl Label {
    pub fn new(source: SourceId, span: Span, message: impl Into<String>) -> Self {
        Label {
            source,
            span,
            message: message.into(),
            approximate: false,
        }
    }
}

/// The identity of the object a finding is about, as written in the input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectIdentity {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl ObjectIdentity {
    /// The object as messages name it: `ReplicaSet shop/web-7d9`, `ClusterRole admin`.
    pub fn display(&self) -> String {
        let kind = self.kind.as_deref().unwrap_or("object");
        let name = self.name.as_deref().unwrap_or("(unnamed)");
        match self.namespace.as_deref() {
            Some(namespace) => format!("{kind} {namespace}/{name}"),
            None => format!("{kind} {name}"),
        }
    }
}

/// The `kubectl patch` command that applies a JSON patch to `object` in its cluster. None when
/// a word of it could be read by kubectl as a flag (a name may start with `-` in some kinds,
/// and a file may say anything): a printed command must do only what it says.
pub fn kubectl_patch(
    object: &ObjectIdentity,
    patch: &serde_json::Value,
    context: Option<&str>,
) -> Option<String> {
    let kind = object.kind.as_deref()?.to_ascii_lowercase();
    let name = object.name.as_deref()?;
    let plain = |word: &str| {
        !word.is_empty()
            && !word.starts_with('-')
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-.".contains(&b))
    };
    if !plain(&kind) || name.is_empty() || name.starts_with('-') {
        return None;
    }
    let group = object
        .api_version
        .as_deref()
        .and_then(|v| v.rsplit_once('/'))
        .map(|(group, _)| group);
    let resource = match group {
        Some(group) if plain(group) => format!("{kind}.{group}"),
        Some(_) => return None,
        None => kind,
    };
    let namespace = match object.namespace.as_deref() {
        Some(ns) if plain(ns) => format!(" -n {ns}"),
        Some(_) => return None,
        None => String::new(),
    };
    // The kubeconfig context it was read from, when it was read live: one word with its flag,
    // so that it cannot be read as another.
    let context = context.map_or(String::new(), |c| {
        format!(" {}", shell_word(&format!("--context={c}")))
    });
    Some(format!(
        "kubectl patch {} {}{namespace} --type=json -p {}{context}",
        shell_word(&resource),
        shell_word(name),
        shell_word(&patch.to_string())
    ))
}

/// A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What identifies a finding apart from where it sits: its rule, its file (relative to the
/// repository root), the object it is about, and the field it points at (the label and the
/// field's text). Lines moving do not change it. Baselines match findings by it, and SARIF's
/// fingerprint is its hash (`report::finding_key` makes it).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FindingKey {
    pub rule: String,
    pub path: String,
    #[serde(default)]
    pub object: Option<ObjectIdentity>,
    /// The label of the field the finding points at.
    pub label: String,
    /// The text of that field in the file.
    pub field: String,
}

impl FindingKey {
    /// A stable hash of the key (FNV-1a, 64 bits: the same on every run and platform, unlike
    /// `std`'s hasher), as 16 hexadecimal digits.
    pub fn fingerprint(&self) -> String {
        let object = self.object.as_ref().map_or(String::new(), |o| {
            format!(
                "{}/{}/{}/{}",
                o.api_version.as_deref().unwrap_or(""),
                o.kind.as_deref().unwrap_or(""),
                o.namespace.as_deref().unwrap_or(""),
                o.name.as_deref().unwrap_or("")
            )
        });
        let key = [&self.rule, &self.path, &object, &self.label, &self.field].map(String::as_str);
        format!("{:016x}", fnv1a(key.join("\0").as_bytes()))
    }
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What a rule declares about itself, in its file (`rules::declare_rule!`): the one place its
/// id, default severity, summary and document are written. A finding names its rule by this
/// declaration, so a rule id is never a loose string.
pub struct RuleMeta {
    pub id: &'static str,
    pub default_severity: Severity,
    /// The severity with `--complete`, when that changes it.
    pub complete_severity: Option<Severity>,
    /// When some findings take another severity than the default, and which: "info in a
    /// snapshot". Shown by `ownerlint config`.
    pub severity_varies: Option<&'static str>,
    /// The fix its findings carry where the repair is mechanical, and how far it is trusted.
    pub fix: Option<Applicability>,
    /// One line: `ownerlint rules`, the documentation's rule index and SARIF's short description.
    pub summary: &'static str,
    /// The fields it reads beyond those every stage reads (`fields::PIPELINE`): the fast path
    /// keeps them.
    pub reads: &'static [crate::fields::Field],
    /// The rule's document, `rules/<id>.md`.
    pub doc: &'static str,
}

impl PartialEq for RuleMeta {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for RuleMeta {}

impl fmt::Debug for RuleMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

impl fmt::Display for RuleMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id)
    }
}

impl serde::Serialize for RuleMeta {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id)
    }
}

/// How far a fix can be trusted, from what it changes in the cluster (as ruff's applicability).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Shown, never applied: the repair needs a choice only the author can make.
    DisplayOnly,
    /// Applied with `--unsafe-fixes`: the cluster then does what the manifest surely meant,
    /// which is not what it does today.
    Unsafe,
    /// Applied with `--fix`: the cluster does the same with the fix as without it, or the
    /// input could not be applied as it was.
    Safe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::DisplayOnly => "display-only",
            Applicability::Unsafe => "unsafe",
            Applicability::Safe => "safe",
        }
    }
}

/// Replace the bytes of `span` in `source` with `replacement` (empty: delete them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub source: SourceId,
    pub span: Span,
    pub replacement: String,
}

/// A mechanical repair: what it does, in a few words, and its edits, applied all or none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub message: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
    /// The same change as a JSON patch (RFC 6902) of an object captured from a cluster, which
    /// is fixed there, not in the file (`kubectl patch --type=json`); each change is guarded by
    /// a `test` of what it changes. None for manifests, and where a change has no plain JSON
    /// form.
    pub patch: Option<serde_json::Value>,
}

impl Fix {
    pub fn new(
        applicability: Applicability,
        message: impl Into<String>,
        edits: impl IntoIterator<Item = Edit>,
    ) -> Fix {
        Fix {
            message: message.into(),
            applicability,
            edits: edits.into_iter().collect(),
            patch: None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: &'static RuleMeta,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    /// The other side: the owner's definition, the first of two controllers, …
    pub related: Vec<Label>,
    pub help: Option<String>,
    /// Facts shown next to each other (a selector and the labels it fails), in a block of
    /// aligned lines.
    pub note: Option<String>,
    pub object: Option<ObjectIdentity>,
    /// The field of the object the finding points at, from the object's root:
    /// `metadata.ownerReferences[1].uid`; a place that needs no file.
    pub field: Option<String>,
    /// The template a document was rendered from (`# Source:` in `helm template` output).
    pub origin: Option<String>,
    pub fix: Option<Fix>,
    /// For a finding in what a chart or an overlay builds, a message that names the build: the
    /// text before and after its name. Taking the finding back to the source files writes it
    /// (`` … in `kustomize build overlays/prod`: … ``); until then the message says "this
    /// build".
    pub in_build: Option<(String, String)>,
    /// For a finding taken back from what a chart or an overlay built, where its primary label
    /// was in the built stream (the source and offset): the annotation of the object as built
    /// suppresses it there.
    pub built_at: Option<(SourceId, usize)>,
    /// For a finding of a `helm template` stream read from standard input, where it is in the
    /// template it was rendered from, below the repository: code review annotates files, and
    /// `<stdin>` is none.
    pub in_template: Option<TemplatePlace>,
}

/// A finding's place in the template a `helm template` stream on standard input was rendered
/// from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplatePlace {
    /// The template's path.
    pub path: String,
    pub start: crate::source::LineCol,
    pub end: crate::source::LineCol,
    /// The stream's line the finding is on, when its line was not found in the template (the
    /// place is then the template's first line).
    pub rendered_line: Option<usize>,
}

impl Finding {
    /// A finding of `rule`, at its default severity.
    pub fn new(rule: &'static RuleMeta, primary: Label, message: impl Into<String>) -> Self {
        Finding {
            rule,
            severity: rule.default_severity,
            message: message.into(),
            primary,
            related: Vec::new(),
            help: None,
            note: None,
            object: None,
            field: None,
            origin: None,
            fix: None,
            in_build: None,
            built_at: None,
            in_template: None,
        }
    }

    /// The message that names the build the finding is in, between `before` and `after`.
    pub fn naming_build(mut self, before: String, after: String) -> Self {
        self.message = format!("{before}this build{after}");
        self.in_build = Some((before, after));
        self
    }

    pub fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// [`Finding::fix`], when there is one: edit helpers give none where an edit would not be
    /// clean.
    pub fn fix_if(mut self, fix: Option<Fix>) -> Self {
        self.fix = fix.or(self.fix);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    pub fn related(mut self, label: Label) -> Self {
        self.related.push(label);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_fnv1a_of_the_key() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let key = FindingKey {
            rule: "a".into(),
            path: String::new(),
            object: None,
            label: String::new(),
            field: String::new(),
        };
        assert_eq!(key.fingerprint(), format!("{:016x}", fnv1a(b"a\0\0\0\0")));
    }
}

#[cfg(test)]
mod kubectl_patch_tests {
    use super::*;

    fn object(kind: &str, namespace: Option<&str>, name: &str) -> ObjectIdentity {
        ObjectIdentity {
            api_version: Some("rbac.authorization.k8s.io/v1".into()),
            kind: Some(kind.into()),
            namespace: namespace.map(str::to_string),
            name: Some(name.into()),
        }
    }

    #[test]
    fn no_word_of_the_command_reads_as_a_flag() {
        let patch = serde_json::json!([{"op": "remove", "path": "/metadata/ownerReferences/0"}]);
        assert_eq!(
            kubectl_patch(&object("ClusterRole", None, "system:it's"), &patch, None).as_deref(),
            Some(
                r#"kubectl patch clusterrole.rbac.authorization.k8s.io 'system:it'\''s' --type=json -p '[{"op":"remove","path":"/metadata/ownerReferences/0"}]'"#
            )
        );
        assert_eq!(
            kubectl_patch(
                &object("ClusterRole", None, "--server=evil:443"),
                &patch,
                None
            ),
            None
        );
        assert_eq!(
            kubectl_patch(&object("Role", Some("--kubeconfig=x"), "r"), &patch, None),
            None
        );
        assert_eq!(
            kubectl_patch(&object("-Role", None, "r"), &patch, None),
            None
        );
        // The context a live cluster was read from is one word with its flag.
        assert_eq!(
            kubectl_patch(
                &object("Role", Some("ns"), "r"),
                &patch,
                Some("arn:aws:eks:x:1:cluster/a b")
            )
            .as_deref(),
            Some(
                r#"kubectl patch role.rbac.authorization.k8s.io r -n ns --type=json -p '[{"op":"remove","path":"/metadata/ownerReferences/0"}]' '--context=arn:aws:eks:x:1:cluster/a b'"#
            )
        );
    }
}
