//! Loading and checking any bytes as an input file, then every report format, the tree and a
//! delete preview: nothing may panic, whatever the input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ownerlint::report::{self, Format, RenderOptions};

fuzz_target!(|data: &[u8]| {
    let options = ownerlint::Options {
        paths: vec!["-".into()],
        ..ownerlint::Options::default()
    };
    let analysis = ownerlint::analyze(&options, &mut &data[..]);
    for format in [
        Format::Pretty,
        Format::Short,
        Format::Json,
        Format::Sarif,
        Format::Github,
        Format::Markdown,
    ] {
        let _ = report::render(
            format,
            &analysis.outcome,
            RenderOptions::default(),
            &mut std::io::sink(),
        );
    }
    let graph = ownerlint::graph::Graph::build(&analysis, false);
    let forest = ownerlint::tree::Forest::new(&analysis, &graph, &Default::default());
    let _ = ownerlint::tree::text(&forest, false);
    let _ = ownerlint::tree::mermaid(&forest);
    if !analysis.objects.is_empty() {
        let target = ownerlint::index::ObjId(0);
        let _ = ownerlint::preview::preview(&graph, target, ownerlint::preview::Cascade::Foreground);
    }
});
