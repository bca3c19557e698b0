//! The editor integrations read the `short` format: the GitHub problem matcher in
//! `.github/ownerlint-matcher.json`, and the VS Code task and the Vim `errorformat` the editors' page
//! gives. Each is checked against real `short` output: the examples, and a file whose finding
//! stands after non-ASCII text on its line (columns count characters, not bytes).

use crate::common;

use std::path::{Path, PathBuf};

use ownerlint::report::Format;
use ownerlint::{Options, Outcome};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documentation's editors page, which gives the task and the `errorformat`.
fn readme() -> String {
    std::fs::read_to_string(root().join("docs/src/integrations/editors.md")).expect("editors page")
}

/// The editors page's fenced code block in `lang` that contains `marker`.
fn readme_block(lang: &str, marker: &str) -> String {
    let readme = readme();
    let fence = format!("```{lang}\n");
    readme
        .match_indices(&fence)
        .filter_map(|(at, _)| {
            let body = &readme[at + fence.len()..];
            Some(body[..body.find("\n```")? + 1].to_string())
        })
        .find(|body| body.contains(marker))
        .unwrap_or_else(|| panic!("the editors page has no {lang} block with {marker}"))
}

/// A Pod in flow style, as rendered charts often print it: its owner reference's uid, which
/// is not its owner's, comes after non-ASCII text on the same line.
const NON_ASCII: &str = r#"apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: shop, uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop, annotations: {team: "Zürich café, ünïcode"}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a, controller: true}]}
"#;

/// `short` output over the examples and [`NON_ASCII`] (in the returned folder), and the
/// findings behind it.
fn short_output() -> (String, Outcome, tempfile::TempDir) {
    let tmp = common::temp_dir("editors");
    let flow = tmp.path().join("flow.yaml");
    std::fs::write(&flow, NON_ASCII).expect("write");
    let options = Options {
        paths: vec![PathBuf::from("examples"), flow],
        ..Options::default()
    };
    // cargo runs the tests from the package root, where "examples" is.
    let outcome = ownerlint::lint(&options, &mut std::io::empty());
    let short = common::render(&outcome, Format::Short);
    assert_eq!(short.lines().count(), outcome.findings.len());
    for severity in ["error", "warning", "info"] {
        assert!(
            outcome
                .findings
                .iter()
                .any(|f| f.severity.as_str() == severity),
            "the output has no {severity} line to test"
        );
    }
    (short, outcome, tmp)
}

/// A problem matcher's pattern (GitHub's and VS Code's have the same fields), checked against
/// one `short` line: `None` when it does not match, else whether every field is the finding's.
fn check_pattern(
    pattern: &serde_json::Value,
    line: &str,
    outcome: &Outcome,
    finding: &ownerlint::finding::Finding,
) -> Option<()> {
    let regex = regex::Regex::new(pattern["regexp"].as_str().expect("regexp")).expect("compiles");
    let group = |name: &str| pattern[name].as_u64().expect("group index") as usize;
    let caps = regex.captures(line)?;
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
    Some(())
}

/// GitHub's runner knows the severities error, warning and notice, and drops a matched line of
/// any other: the matcher takes error and warning lines, and leaves info lines alone.
#[test]
fn the_github_problem_matcher_reads_error_and_warning_lines_only() {
    let matcher: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(".github/ownerlint-matcher.json")).expect("matcher"),
    )
    .expect("matcher is JSON");
    let pattern = &matcher["problemMatcher"][0]["pattern"][0];
    let (short, outcome, _tmp) = short_output();
    for (line, finding) in short.lines().zip(&outcome.findings) {
        let matched = check_pattern(pattern, line, &outcome, finding).is_some();
        let expected = finding.severity.as_str() != "info";
        assert_eq!(matched, expected, "matched {matched}: {line}");
    }
}

/// VS Code knows info too: the README's task reads every line.
#[test]
fn the_vs_code_task_reads_every_short_line() {
    let task: serde_json::Value =
        serde_json::from_str(&readme_block("json", "\"problemMatcher\"")).expect("task is JSON");
    let pattern = &task["tasks"][0]["problemMatcher"]["pattern"];
    let (short, outcome, _tmp) = short_output();
    for (line, finding) in short.lines().zip(&outcome.findings) {
        check_pattern(pattern, line, &outcome, finding)
            .unwrap_or_else(|| panic!("no match: {line}"));
    }
}

/// The byte column (from 1) of the character column `column` on line `line` of `path`.
fn byte_column(path: &Path, line: usize, column: usize) -> (usize, bool) {
    let text = std::fs::read_to_string(path).expect("the finding's file");
    let line = text.split('\n').nth(line - 1).expect("the finding's line");
    let byte = line
        .char_indices()
        .nth(column - 1)
        .map_or(line.len(), |(byte, _)| byte);
    (byte + 1, !line[..byte].is_ascii())
}

/// Vim, with the README's `errorformat`, jumps to each finding: the cursor is on the finding's
/// first character, also after non-ASCII text (`%v`, Vim's screen column, is the character
/// column there; `%c` is a byte column).
#[test]
fn the_vim_errorformat_puts_the_cursor_on_each_finding() {
    let vim_block = readme_block("vim", "errorformat");
    let errorformat = vim_block
        .lines()
        .find(|l| l.starts_with("set errorformat="))
        .expect("README sets errorformat");
    let Some(vim) = common::require_tool("vim", "Debian's vim") else {
        return;
    };
    let (short, outcome, tmp) = short_output();
    let errors = tmp.path().join("errors.txt");
    let quickfix = tmp.path().join("quickfix.txt");
    std::fs::write(&errors, &short).expect("write");
    let status = std::process::Command::new(vim)
        .args(["-es", "-N", "-u", "NONE", "-i", "NONE"])
        .args(["-c", "set encoding=utf-8"])
        .args(["-c", errorformat])
        .arg("-c")
        .arg(format!("cgetfile {}", errors.display()))
        .args(["-c", "let entries = []"])
        .args([
            "-c",
            "for i in range(1, len(getqflist())) | execute 'cc' i | let e = getqflist()[i - 1] | call add(entries, bufname('%') . '|' . line('.') . '|' . col('.') . '|' . e.type . '|' . e.text) | endfor",
        ])
        .arg("-c")
        .arg(format!("call writefile(entries, '{}')", quickfix.display()))
        .args(["-c", "qa!"])
        .current_dir(root())
        .status()
        .expect("vim runs");
    assert!(status.success());
    let entries = std::fs::read_to_string(&quickfix).expect("quickfix written");
    let entries: Vec<&str> = entries.lines().collect();
    assert_eq!(entries.len(), outcome.findings.len(), "{entries:#?}");
    let mut after_non_ascii = 0;
    for (entry, finding) in entries.iter().zip(&outcome.findings) {
        let source = outcome.source(finding.primary.source);
        let at = source.line_col(finding.primary.span.start);
        let (byte, non_ascii) = byte_column(Path::new(&source.name), at.line, at.column);
        after_non_ascii += usize::from(non_ascii);
        let kind = &finding.severity.as_str()[..1];
        let expected = format!(
            "{}|{}|{byte}|{kind}|[{}]: {}",
            source.name,
            at.line,
            finding.rule,
            ownerlint::report::message_with_origin(finding)
        );
        assert_eq!(*entry, expected);
    }
    assert!(
        after_non_ascii > 0,
        "no finding stands after non-ASCII text"
    );
}

/// The Helix configuration (`editors/helix/languages.toml`, which the README gives) is TOML
/// that starts `ownerlint server` for the languages Helix gives YAML, JSON and a chart's
/// templates, beside the server Helix has for each (a language's list replaces Helix's).
#[test]
fn the_helix_configuration_serves_yaml_json_and_helm() {
    let Some(python) = common::require_tool("python3", "install Python 3.11 or later") else {
        return;
    };
    let path = root().join("editors/helix/languages.toml");
    // Python's TOML reader (3.11), as JSON.
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
        ])
        .arg(&path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        config["language-server"]["ownerlint"],
        serde_json::json!({"command": "ownerlint", "args": ["server"]})
    );
    let languages: Vec<(&str, Vec<&str>)> = config["language"]
        .as_array()
        .expect("[[language]]")
        .iter()
        .map(|language| {
            let servers = language["language-servers"]
                .as_array()
                .map(|s| s.iter().filter_map(|s| s.as_str()).collect())
                .unwrap_or_default();
            (language["name"].as_str().unwrap_or("?"), servers)
        })
        .collect();
    assert_eq!(
        languages,
        [
            ("yaml", vec!["yaml-language-server", "ownerlint"]),
            ("json", vec!["vscode-json-language-server", "ownerlint"]),
            ("helm", vec!["helm_ls", "ownerlint"]),
        ]
    );
}
