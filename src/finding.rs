//! What every rule produces: a finding with a severity, a message that names both sides of the
//! reference, the exact span it is about, related spans (the other side), and a fix.

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
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A labelled span in a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub source: SourceId,
    pub span: Span,
    pub message: String,
}

impl Label {
    pub fn new(source: SourceId, span: Span, message: impl Into<String>) -> Self {
        Label {
            source,
            span,
            message: message.into(),
        }
    }
}

/// The identity of the object a finding is about, as written in the input.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectIdentity {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

/// What a rule declares about itself, in its file (`rules::declare_rule!`): the one place its
/// id, default severity, summary and document are written. A finding names its rule by this
/// declaration, so a rule id is never a loose string.
pub struct RuleMeta {
    pub id: &'static str,
    pub default_severity: Severity,
    /// One line: `ownerlint rules`, the README's rule table and SARIF's short description.
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
    /// The template a document was rendered from (`# Source:` in `helm template` output).
    pub origin: Option<String>,
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
            origin: None,
        }
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
