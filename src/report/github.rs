//! `github`: GitHub Actions workflow commands, which GitHub shows as annotations on the pull
//! request's changed lines: `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`.
//! A finding of `ownerlint cluster` has no file: it is an annotation of the run
//! (`::error title=…::api-path#field: message`), which GitHub shows in the run's summary.

use std::io::{self, Write};

use super::{EmitOptions, escape, one_line_message, repo_relative};
use crate::analysis::Outcome;
use crate::finding::{Finding, Severity};

pub fn emit(
    outcome: &Outcome,
    findings: &[&Finding],
    options: &EmitOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let root = options.root.as_deref();
    for finding in findings {
        // A `helm template` stream's finding is annotated on its template.
        let place = super::place(outcome, finding);
        let (start, end) = (place.start, place.end);
        let command = match finding.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        // Escaped for the log the runner prints (a terminal's escapes are no annotation), then
        // for the workflow command.
        let mut message = escape::text(&one_line_message(finding)).into_owned();
        if let Some(line) = place.rendered_line {
            message.push_str(&format!(" (line {line} of the rendered stream)"));
        }
        if let Some(help) = &finding.help {
            message.push_str("\nhelp: ");
            message.push_str(&escape::text(help));
        }
        // An object in a cluster is in no file of the pull request: an annotation of the run,
        // which names the object and its field.
        if let Some(location) = super::live_location(outcome, finding) {
            writeln!(
                out,
                "::{command} title={}::{}",
                escape_property(&format!("ownerlint {}", finding.rule)),
                escape_data(&format!("{}: {message}", escape::text(&location)))
            )?;
            continue;
        }
        writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape_property(&escape::text(&repo_relative(&place.path, root))),
            start.line,
            start.column,
            end.line,
            end.column,
            escape_property(&format!("ownerlint {}", finding.rule)),
            escape_data(&message)
        )?;
    }
    for error in &outcome.errors {
        writeln!(
            out,
            "::error file={},title={}::{}",
            escape_property(&escape::text(&repo_relative(&error.path, root))),
            escape_property("ownerlint: unreadable input"),
            escape_data(&escape::text(&error.message))
        )?;
    }
    Ok(())
}

/// A workflow command's message: `%`, CR and LF are escaped.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as data, and `:` and `,` too.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_runner_reads() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
