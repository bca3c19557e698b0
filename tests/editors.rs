//! The editor integrations read the `short` format: the problem matcher in
//! `.github/ownerlint-matcher.json` (VS Code tasks, GitHub runners) and the Vim `errorformat`
//! the README gives. Both are checked against real `short` output.

mod common;

use std::path::PathBuf;

use ownerlint::Options;
use ownerlint::report::Format;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `short` output over the examples, and the findings behind it.
fn short_output() -> (String, ownerlint::Outcome) {
    let options = Options {
        paths: vec![PathBuf::from("examples")],
        ..Options::default()
    };
    std::env::set_current_dir(root()).expect("repository root");
    let outcome = ownerlint::lint(&options, &mut std::io::empty());
    (common::render(&outcome, Format::Short), outcome)
}

#[test]
fn the_problem_matcher_reads_every_short_line() {
    let matcher: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(".github/ownerlint-matcher.json")).expect("matcher"),
    )
    .expect("matcher is JSON");
    let pattern = &matcher["problemMatcher"][0]["pattern"][0];
    let regex = regex::Regex::new(pattern["regexp"].as_str().expect("regexp")).expect("compiles");
    let group = |name: &str| pattern[name].as_u64().expect("group index") as usize;
    // The VS Code task in the README uses the same expression.
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let encoded = serde_json::to_string(&pattern["regexp"]).expect("JSON string");
    assert!(
        readme.contains(&format!("\"regexp\": {encoded}")),
        "README: {encoded}"
    );

    let (short, outcome) = short_output();
    let lines: Vec<&str> = short.lines().collect();
    assert_eq!(lines.len(), outcome.findings.len());
    assert!(lines.len() > 5);
    for (line, finding) in lines.iter().zip(&outcome.findings) {
        let caps = regex
            .captures(line)
            .unwrap_or_else(|| panic!("no match: {line}"));
        let source = outcome.source(finding.primary.source);
        let at = source.line_col(finding.primary.span.start);
        assert_eq!(&caps[group("file")], source.name);
        assert_eq!(caps[group("line")].parse::<usize>().ok(), Some(at.line));
        assert_eq!(caps[group("column")].parse::<usize>().ok(), Some(at.column));
        assert_eq!(&caps[group("severity")], finding.severity.as_str());
        assert_eq!(&caps[group("code")], finding.rule.id);
        assert_eq!(
            &caps[group("message")],
            ownerlint::report::message_with_origin(finding)
        );
    }
}

/// The `errorformat` line from the README, as Vim reads it.
const ERRORFORMAT: &str = r"%f:%l:%c:\ %trror%m,%f:%l:%c:\ %tarning%m,%f:%l:%c:\ %tnfo%m";

#[test]
fn the_vim_errorformat_reads_every_short_line() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    assert!(
        readme.contains(&format!("set errorformat={ERRORFORMAT}")),
        "README shows another errorformat"
    );
    let Some(vim) = common::require_tool("vim", "Debian's vim") else {
        return;
    };
    let (short, outcome) = short_output();
    let tmp = common::temp_dir("vim");
    let dir = tmp.path();
    let errors = dir.join("errors.txt");
    let quickfix = dir.join("quickfix.txt");
    std::fs::write(&errors, &short).expect("write");
    let status = std::process::Command::new(vim)
        .args(["-es", "-N", "-u", "NONE", "-i", "NONE"])
        .arg("-c")
        .arg(format!("set errorformat={ERRORFORMAT}"))
        .arg("-c")
        .arg(format!("cgetfile {}", errors.display()))
        .arg("-c")
        .arg(format!(
            "call writefile(map(getqflist(), {{_, v -> bufname(v.bufnr) . '|' . v.lnum . '|' . v.col . '|' . v.type . '|' . v.text}}), '{}')",
            quickfix.display()
        ))
        .arg("-c")
        .arg("qa!")
        .current_dir(root())
        .status()
        .expect("vim runs");
    assert!(status.success());
    let entries = std::fs::read_to_string(&quickfix).expect("quickfix written");
    let entries: Vec<&str> = entries.lines().collect();
    assert_eq!(entries.len(), outcome.findings.len(), "{entries:#?}");
    for (entry, finding) in entries.iter().zip(&outcome.findings) {
        let source = outcome.source(finding.primary.source);
        let at = source.line_col(finding.primary.span.start);
        let kind = &finding.severity.as_str()[..1];
        let expected = format!(
            "{}|{}|{}|{kind}|[{}]: {}",
            source.name,
            at.line,
            at.column,
            finding.rule,
            ownerlint::report::message_with_origin(finding)
        );
        assert_eq!(*entry, expected);
    }
}
