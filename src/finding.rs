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

#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: &'static str,
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
    pub fn new(
        rule: &'static str,
        severity: Severity,
        primary: Label,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            rule,
            severity,
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
