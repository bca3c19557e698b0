//! `invalid-yaml`: a YAML or JSON syntax error, text too large to check, or a file that is not
//! UTF-8. The loader records where it could not read (`load::Unread`); the rest of the file and
//! every other file are still read.

use super::Context;
use crate::finding::{Finding, Label};
use crate::load::Why;

super::declare_rule! {
    id: "invalid-yaml",
    severity: Error,
    summary: "A YAML or JSON syntax error; the rest of the file and every other file are still checked",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for unread in cx.unread {
        let finding = match &unread.why {
            Why::Syntax {
                at,
                message,
                hint,
                what,
                others,
            } => Finding::new(
                &META,
                Label::new(unread.source, *at, message.clone()),
                format!("this {what}: {message}"),
            )
            .help(hint.map_or_else(
                || format!("fix the syntax; the other {others} are still checked"),
                str::to_string,
            )),
            Why::TooLarge {
                at,
                size,
                limit,
                what,
            } => Finding::new(
                &META,
                Label::new(unread.source, *at, "too large"),
                format!(
                    "this {what} is {}, more than the {} limit of --max-document-size, so it was not checked",
                    human_size(*size),
                    human_size(*limit)
                ),
            )
            .help("real manifests stay far below this limit; raise it with --max-document-size (e.g. 1GiB) if this one is meant to be checked"),
            Why::NotUtf8 { at } => Finding::new(
                &META,
                Label::new(unread.source, *at, "not UTF-8"),
                "this file is not valid UTF-8 text, so it was not checked",
            )
            .help("manifests must be UTF-8; convert the file (e.g. `iconv -t UTF-8`) or exclude it"),
            Why::Template { .. }
            | Why::RenderFailed { .. }
            | Why::OutsideRepository { .. }
            | Why::SourceNotInRepository { .. } => {
                continue;
            }
        };
        out.push(Finding {
            origin: unread.origin.clone(),
            ..finding
        });
    }
}

/// `512 bytes`, `1.5 KiB`, `300.0 MiB`, `1.0 GiB`.
fn human_size(bytes: usize) -> String {
    let b = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{:.1} KiB", b / 1024.0),
        1_048_576..1_073_741_824 => format!("{:.1} MiB", b / 1_048_576.0),
        _ => format!("{:.1} GiB", b / 1_073_741_824.0),
    }
}
