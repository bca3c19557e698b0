//! `short`: `path:line:col: severity[rule-id]: message`, the form problem matchers and Vim's
//! `errorformat` read. Columns count characters, from 1. Paths and messages are shown as
//! [`super::escape`] shows them, so that each finding is one line. A finding of `ownerlint
//! cluster` is `api-path#field: severity[rule-id]: message`.

use std::io::{self, Write};

use crate::analysis::Outcome;
use crate::finding::Finding;

pub fn emit(outcome: &Outcome, findings: &[&Finding], out: &mut dyn Write) -> io::Result<()> {
    for finding in findings {
        // An object in a cluster has no file: its API path and field instead of line and column.
        if let Some(location) = super::live_location(outcome, finding) {
            writeln!(
                out,
                "{}: {}[{}]: {}",
                super::escape::path(&location),
                finding.severity,
                finding.rule,
                super::escape::text(&super::one_line_message(finding))
            )?;
            continue;
        }
        let source = outcome.source(finding.primary.source);
        let at = source.line_col(finding.primary.span.start);
        writeln!(
            out,
            "{}:{}:{}: {}[{}]: {}",
            super::escape::path(&source.name),
            at.line,
            at.column,
            finding.severity,
            finding.rule,
            super::escape::text(&super::one_line_message(finding))
        )?;
    }
    Ok(())
}
