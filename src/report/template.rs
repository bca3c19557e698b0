//! Where a finding in a `helm template` stream read from standard input lands in the chart:
//! code review tools annotate files of the repository, and `<stdin>` is none of them. The
//! stream's `# Source:` comment names the template relative to the chart's parent
//! (`shop/templates/deployment.yaml`); the file is looked for below the repository root, and
//! the finding's line is looked for in it by its text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::analysis::Outcome;
use crate::finding::{Finding, Label};
use crate::source::LineCol;

/// A finding's place in a file of the repository.
pub struct Place {
    /// The file, as the source's name or the template's path.
    pub path: String,
    pub start: LineCol,
    pub end: LineCol,
    /// The stream's line the finding is on, when it was not found in the template.
    pub rendered_line: Option<usize>,
}

/// Where `label` of `finding` is: in its source, or, for a `helm template` stream on standard
/// input, in the template it was rendered from.
pub fn place(outcome: &Outcome, finding: &Finding, label: &Label, root: Option<&Path>) -> Place {
    let source = outcome.source(label.source);
    let start = source.line_col(label.span.start);
    let end = source.line_col(label.span.end.max(label.span.start));
    let (Some(origin), true) = (&finding.origin, source.name == crate::discover::STDIN_NAME) else {
        return Place {
            path: source.name.clone(),
            start,
            end,
            rendered_line: None,
        };
    };
    let Some(file) = find_template(origin, root) else {
        return Place {
            path: origin.clone(),
            start: LineCol { line: 1, column: 1 },
            end: LineCol { line: 1, column: 1 },
            rendered_line: Some(start.line),
        };
    };
    let path = file.to_string_lossy().into_owned();
    let rendered = source.line_text(start.line - 1);
    match crate::read::small_file(&file)
        .ok()
        .and_then(|template| line_in_template(&template, &rendered))
    {
        Some((line, shift)) => {
            let column = |c: usize| (c as isize + shift).max(1) as usize;
            Place {
                path,
                start: LineCol {
                    line,
                    column: column(start.column),
                },
                end: if end.line == start.line {
                    LineCol {
                        line,
                        column: column(end.column),
                    }
                } else {
                    LineCol {
                        line,
                        column: column(start.column) + 1,
                    }
                },
                rendered_line: None,
            }
        }
        None => Place {
            path,
            start: LineCol { line: 1, column: 1 },
            end: LineCol { line: 1, column: 1 },
            rendered_line: Some(start.line),
        },
    }
}

/// The one line of `template` that reads as `rendered` (indentation aside), and how far its
/// text stands to the right of the rendered line's (in characters).
fn line_in_template(template: &str, rendered: &str) -> Option<(usize, isize)> {
    let text = rendered.trim();
    if text.is_empty() {
        return None;
    }
    let mut found = template
        .lines()
        .enumerate()
        .filter(|(_, line)| line.trim() == text);
    let (index, line) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let indent = |l: &str| l.chars().take_while(|c| c.is_whitespace()).count() as isize;
    Some((index + 1, indent(line) - indent(rendered)))
}

/// The file below the repository root (or the working directory) whose path ends with
/// `origin`; the shortest when several do. Each template is looked for once.
fn find_template(origin: &str, root: Option<&Path>) -> Option<PathBuf> {
    static FOUND: OnceLock<Mutex<HashMap<String, Option<PathBuf>>>> = OnceLock::new();
    let cache = FOUND.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(found) = cache.lock().ok()?.get(origin) {
        return found.clone();
    }
    let base = root
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let wanted = Path::new(origin);
    let mut files = Vec::new();
    // An ignore file that is not a small regular file is left unread, as in the walk of the
    // inputs (which said so already).
    crate::discover::walk_entries(
        &base,
        false,
        &mut |entry| {
            if let Ok(entry) = entry
                && entry.file_type().is_some_and(|t| t.is_file())
                && entry.path().ends_with(wanted)
            {
                files.push(entry.into_path());
            }
        },
        &mut Vec::new(),
    );
    let found = files
        .into_iter()
        .min_by_key(|path| path.components().count())
        .map(|path| {
            path.strip_prefix("./")
                .map(Path::to_path_buf)
                .unwrap_or(path)
        });
    if let Ok(mut cache) = cache.lock() {
        cache.insert(origin.to_string(), found.clone());
    }
    found
}
