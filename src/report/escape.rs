//! Text from the inputs (file names, YAML values, a tool's messages) as the human formats show
//! it: a character that a terminal or a log viewer would act on rather than show (C0 and C1
//! controls, DEL, bidirectional overrides and isolates, line and paragraph separators) is
//! written as an escape, Rust's and ripgrep's way: `\t`, `\n`, `\r`, `\x1b` for the other
//! ASCII controls, `\u{202e}` for the rest. Everything else is shown as it is.
//!
//! A path is written as git writes one that needs it (`core.quotePath`): in double quotes, with
//! `\"` and `\\` inside, when it holds such a character, a `"`, or a `: ` (which, in a
//! `path:line:col: severity[rule]: message` line, a problem matcher could read as the end of the
//! path). In quotes its `:` are written `\x3a`, so no part of it reads as `:line:col: `.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` is shown as an escape.
fn escaped(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

fn push_escape(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every character a terminal would act on written as an escape.
pub fn text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` escaped line by line: its line breaks kept (text laid out in lines by ownerlint).
pub fn lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && escaped(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.split('\n')
            .map(|line| self::text(line).into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// A path as the human formats show it: as it is, or quoted and escaped (see the module's
/// documentation).
pub fn path(path: &str) -> Cow<'_, str> {
    if !path.chars().any(|c| c == '"' || escaped(c)) && !path.contains(": ") {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 8);
    out.push('"');
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ':' => out.push_str("\\x3a"),
            c if escaped(c) => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// A line of an input as a source snippet shows it: as [`text`] writes it, but for its tabs,
/// which the snippet lays out as the file does.
pub fn source_line(line: &str) -> Cow<'_, str> {
    if !line.chars().any(|c| c != '\t' && escaped(c)) {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        if c != '\t' && escaped(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Where each character of `line` that [`source_line`] escapes lies (the offset just after
/// it), and how much longer its escape is: for mapping offsets into `line` to offsets into its
/// escaped form.
pub fn growth(line: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (at, c) in line.char_indices() {
        if c != '\t' && escaped(c) {
            let mut escape = String::new();
            push_escape(&mut escape, c);
            found.push((at + c.len_utf8(), escape.len() - c.len_utf8()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_visibly() {
        assert_eq!(
            text("a\x1b]0;x\x07b\r\n\t\u{7f}\u{85}\u{202e}c\\d"),
            "a\\x1b]0;x\\x07b\\r\\n\\t\\x7f\\u{85}\\u{202e}c\\d"
        );
        assert_eq!(text("plain ✓ text"), "plain ✓ text");
        assert_eq!(lines("a\x1b\nb"), "a\\x1b\nb");
    }

    #[test]
    fn paths_are_quoted_when_they_need_it() {
        assert_eq!(path("deploy/app.yaml"), "deploy/app.yaml");
        assert_eq!(path("C:\\deploy\\app.yaml"), "C:\\deploy\\app.yaml");
        assert_eq!(path("a\nb.yaml"), "\"a\\nb.yaml\"");
        assert_eq!(
            path("a.yaml:1:1: error[x]: f.yaml"),
            "\"a.yaml\\x3a1\\x3a1\\x3a error[x]\\x3a f.yaml\""
        );
        assert_eq!(path("say \"hi\\\".yaml"), "\"say \\\"hi\\\\\\\".yaml\"");
    }

    #[test]
    fn growth_maps_offsets() {
        assert_eq!(growth("a\x1bb\t\u{202e}"), vec![(2, 3), (7, 5)]);
        assert_eq!(source_line("\ta\x1b"), "\ta\\x1b");
    }
}
