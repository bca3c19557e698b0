//! Baselines: `--write-baseline FILE` records today's findings; `--baseline FILE` hides them in
//! later runs and reports only new ones. A finding is matched by its rule, its file (relative
//! to the repository root), the object it is about, and the field it points at (the label and
//! the field's text), never by line number: edits elsewhere in the file do not bring recorded
//! findings back.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::analysis::Outcome;
use crate::finding::FindingKey;
use crate::report::finding_key;

const VERSION: u32 = 1;

/// A recorded finding: its key (what baselines match by), and its message for people reading
/// the file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Entry {
    #[serde(flatten)]
    pub key: FindingKey,
    /// For people reading the file; not matched.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct File {
    version: u32,
    findings: Vec<Entry>,
}

/// Write the findings of `outcome` as a baseline.
pub(crate) fn write(path: &Path, outcome: &Outcome, root: Option<&Path>) -> Result<usize, String> {
    let findings: Vec<Entry> = outcome
        .findings
        .iter()
        .map(|f| Entry {
            key: finding_key(outcome, f, root),
            message: f.message.clone(),
        })
        .collect();
    let count = findings.len();
    let text = serde_json::to_string_pretty(&File {
        version: VERSION,
        findings,
    })
    .map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(count)
}

/// Read a baseline written by `write`.
pub(crate) fn read(path: &Path) -> Result<Vec<Entry>, String> {
    let text = crate::read::regular_file(path)
        .map_err(|e| format!("cannot read the baseline {}: {e}", path.display()))?;
    let file: File = serde_json::from_str(&text).map_err(|e| {
        // serde_json counts columns from 1, and says 0 for the start of a line it stopped at
        // (the end of a file cut short after a line break).
        let at = format!("{}:{}:{}", path.display(), e.line(), e.column().max(1));
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(message, _)| message);
        let what = match e.classify() {
            serde_json::error::Category::Eof if text.trim().is_empty() => {
                "the baseline is empty".to_string()
            }
            serde_json::error::Category::Eof => {
                "the baseline ends too early (is it cut short?)".to_string()
            }
            serde_json::error::Category::Syntax => {
                format!("the baseline is not valid JSON: {message}")
            }
            _ => format!("not a baseline written by `--write-baseline`: {message}"),
        };
        format!("{at}: {what}; write it again with --write-baseline")
    })?;
    if file.version != VERSION {
        return Err(format!(
            "{}: baseline version {} is not supported (expected {VERSION}); write it again with --write-baseline",
            path.display(),
            file.version
        ));
    }
    Ok(file.findings)
}

/// Remove the findings recorded in the baseline (each entry hides one finding); returns how
/// many were hidden.
pub(crate) fn apply(outcome: &mut Outcome, baseline: &[Entry], root: Option<&Path>) -> usize {
    let mut remaining: HashMap<&FindingKey, usize> = HashMap::new();
    for e in baseline {
        *remaining.entry(&e.key).or_default() += 1;
    }
    let keep: Vec<bool> = outcome
        .findings
        .iter()
        .map(|f| {
            let key = finding_key(outcome, f, root);
            match remaining.get_mut(&key) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            }
        })
        .collect();
    let before = outcome.findings.len();
    let mut keep = keep.into_iter();
    outcome.findings.retain(|_| keep.next().unwrap_or(true));
    before - outcome.findings.len()
}
