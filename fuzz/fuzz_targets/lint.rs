//! Loading and checking any bytes as an input file, then every report format, the tree, a
//! delete preview, and the fixes (safe and unsafe, in rounds): nothing may panic, whatever the
//! input, and a fix never leaves its input unreadable.

#![no_main]

use clap::ValueEnum;
use libfuzzer_sys::fuzz_target;
use ownerlint::report::{self, EmitOptions, Format};

fuzz_target!(|data: &[u8]| {
    let options = ownerlint::Options {
        paths: vec!["-".into()],
        ..ownerlint::Options::default()
    };
    let analysis = ownerlint::analyze(&options, &mut &data[..]);
    for &format in Format::value_variants() {
        let _ = report::emit(
            format,
            &analysis.outcome,
            EmitOptions::default(),
            &mut std::io::sink(),
        );
    }
    let graph = ownerlint::graph::Graph::build(&analysis, false);
    let forest = ownerlint::tree::Forest::new(&analysis, &graph, &Default::default());
    let _ = ownerlint::tree::text(&forest, false);
    let _ = ownerlint::tree::mermaid(&forest);
    if !analysis.objects.is_empty() {
        let target = ownerlint::index::ObjId(0);
        let _ = ownerlint::preview::preview(
            &analysis,
            &graph,
            target,
            ownerlint::preview::Cascade::Foreground,
        );
    }
    if let Ok(text) = std::str::from_utf8(data) {
        // Half the inputs are read as manifests to apply, so that a dump's fixes run too.
        let fix_options = ownerlint::Options {
            mode: match data.len() % 2 {
                0 => ownerlint::load::ModeChoice::Auto,
                _ => ownerlint::load::ModeChoice::Apply,
            },
            ..ownerlint::Options::default()
        };
        let inputs = [("input.yaml".to_string(), text.to_string())];
        let run = ownerlint::fix::run_texts(
            &inputs,
            &fix_options,
            ownerlint::finding::Applicability::Unsafe,
        );
        let unreadable = |outcome: &ownerlint::Outcome| {
            outcome
                .findings
                .iter()
                .filter(|f| f.rule.id == "invalid-yaml")
                .count()
        };
        if !run.changed.is_empty() {
            let before = ownerlint::lint_texts(inputs.to_vec(), &fix_options);
            assert!(unreadable(&run.analysis.outcome) <= unreadable(&before));
        }
    }
});
