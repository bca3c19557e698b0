//! Any text, read with and without the fast path (the line filter before parsing), gives the
//! same findings at the same places, and nothing panics.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ownerlint::Options;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lint = |full_parse: bool| {
        let options = Options {
            full_parse,
            ..Options::default()
        };
        let outcome =
            ownerlint::lint_texts(vec![("input.yaml".into(), text.to_string())], &options);
        outcome
            .findings
            .iter()
            .map(|f| {
                let source = outcome.source(f.primary.source);
                let start = source.line_col(f.primary.span.start);
                let end = source.line_col(f.primary.span.end);
                format!("{start:?}-{end:?} {}: {}", f.rule, f.message)
            })
            .collect::<Vec<_>>()
    };
    let fast = lint(false);
    let full = lint(true);
    assert_eq!(fast, full, "the fast path changed the findings of:\n{text}");
});
