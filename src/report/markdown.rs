//! `markdown`: a summary for `$GITHUB_STEP_SUMMARY` or a pull-request comment — the counts by
//! rule and severity, then a table of findings whose locations link to the file and line.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::{EmitOptions, escape, one_line_message, plural, repo_relative};
use crate::analysis::Outcome;
use crate::finding::{Finding, Severity};

pub fn emit(
    outcome: &Outcome,
    findings: &[&Finding],
    options: &EmitOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let root = options.root.as_deref();
    writeln!(out, "## ownerlint\n")?;
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let s = &outcome.stats;
    let mut hidden = Vec::new();
    if s.suppressed > 0 {
        hidden.push(format!("{} suppressed", s.suppressed));
    }
    if s.baselined > 0 {
        hidden.push(format!("{} in the baseline", s.baselined));
    }
    let hidden = if hidden.is_empty() {
        String::new()
    } else {
        format!(" Not shown: {}.", hidden.join(", "))
    };
    let from = match &s.cluster {
        Some(cluster) => format!(
            "read from {}",
            match &cluster.context {
                Some(context) => format!("context `{}` ({})", cell(context), cell(&cluster.server)),
                None => cell(&cluster.server),
            }
        ),
        None => format!("from {}", plural(s.files, "file")),
    };
    writeln!(
        out,
        "**{}, {}, {} info** in {} {from}, with {} and {} checked.{hidden}\n",
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        count(Severity::Info),
        plural(s.objects, "object"),
        plural(s.owner_references, "owner reference"),
        plural(s.finalizers, "finalizer"),
    )?;
    if !outcome.errors.is_empty() {
        writeln!(out, "Inputs that could not be read:\n")?;
        for error in &outcome.errors {
            writeln!(
                out,
                "- `{}`: {}",
                escape::path(&error.path),
                cell(&error.message)
            )?;
        }
        writeln!(out)?;
    }
    if findings.is_empty() {
        writeln!(out, "No ownership problems found.")?;
        return Ok(());
    }
    let mut by_rule: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for f in findings {
        by_rule.entry(f.rule.id).or_default()[2 - f.severity as usize] += 1;
    }
    writeln!(out, "| rule | errors | warnings | info |")?;
    writeln!(out, "|---|---:|---:|---:|")?;
    for (rule, [e, w, i]) in &by_rule {
        writeln!(out, "| `{rule}` | {e} | {w} | {i} |")?;
    }
    writeln!(out, "\n### Findings\n")?;
    writeln!(out, "| severity | location | rule | message |")?;
    writeln!(out, "|---|---|---|---|")?;
    for finding in findings {
        // An object in a cluster: its API path and field, with nothing to link to.
        if let Some(location) = super::live_location(outcome, finding) {
            writeln!(
                out,
                "| {} | `{}` | `{}` | {} |",
                finding.severity,
                cell(&location),
                finding.rule,
                cell(&one_line_message(finding))
            )?;
            continue;
        }
        let source = outcome.source(finding.primary.source);
        let at = source.line_col(finding.primary.span.start);
        let path = escape::text(&repo_relative(&source.name, root)).into_owned();
        let text = format!(
            "{}:{}:{}",
            escape::path(&repo_relative(&source.name, root)),
            at.line,
            at.column
        );
        let location = match &options.link_base {
            Some(base) => format!(
                "[{text}]({}/{}#L{})",
                base.trim_end_matches('/'),
                path,
                at.line
            ),
            None => format!("[{text}]({path}#L{})", at.line),
        };
        writeln!(
            out,
            "| {} | {} | `{}` | {} |",
            finding.severity,
            cell(&location),
            finding.rule,
            cell(&one_line_message(finding))
        )?;
    }
    Ok(())
}

/// Text for a table cell: controls escaped (see [`escape`]), and `|` escaped.
fn cell(text: &str) -> String {
    escape::text(text).replace('|', "\\|")
}
