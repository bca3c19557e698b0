//! The `pretty` format as a terminal shows it: wrapped to the width asked for, at spaces only,
//! so that uids, names, paths and the backtick spans that fit on a line stay whole.

use crate::common;

use std::path::PathBuf;

use ownerlint::report::{self, EmitOptions, Format};
use ownerlint::{Options, Outcome};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled examples, and a Pod whose ReplicaSet (of a long, hyphenated name) is in another
/// file with another uid.
fn inputs() -> Vec<Outcome> {
    let examples = ownerlint::lint(
        &Options {
            paths: vec![root().join("examples")],
            ..Options::default()
        },
        &mut std::io::empty(),
    );
    let two_files = ownerlint::lint_texts(
        vec![
            ("manifests/owner.yaml".to_string(), OWNER.to_string()),
            ("manifests/pod.yaml".to_string(), POD.to_string()),
        ],
        &Options::default(),
    );
    assert!(!two_files.findings.is_empty());
    let adjacent = common::lint("adjacent.yaml", ADJACENT, &Options::default());
    assert!(!adjacent.findings.is_empty());
    vec![examples, two_files, adjacent]
}

/// Two controllers on consecutive lines: the finding is on the second, the first is labelled
/// in the same snippet.
const ADJACENT: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-a, uid: 1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9, controller: true}
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-b, uid: 2a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9, controller: true}
";

const OWNER: &str = "\
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: storefront-checkout-api-5d8f7c9b6
  namespace: storefront-production
  uid: 2f4e6a8c-1b3d-4f5a-8c7e-9d0b1a2c3e4f
spec:
  selector:
    matchLabels:
      app: storefront-checkout-api
";

const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: storefront-checkout-api-5d8f7c9b6-abcde
  namespace: storefront-production
  labels:
    app: storefront-checkout-api
  ownerReferences:
  - apiVersion: apps/v1
    kind: ReplicaSet
    name: storefront-checkout-api-5d8f7c9b6
    uid: 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a
    controller: true
";

fn render(outcome: &Outcome, width: usize) -> String {
    let options = EmitOptions {
        width,
        ..EmitOptions::default()
    };
    let mut out = Vec::new();
    report::emit(Format::Pretty, outcome, options, &mut out).expect("rendering to memory");
    String::from_utf8(out).expect("UTF-8")
}

/// The messages and helps of a rendering, each as the lines it was wrapped into (without the
/// gutter), with the column its text starts at.
fn texts(rendered: &str) -> Vec<(usize, Vec<&str>)> {
    let mut blocks: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut open = false;
    for line in rendered.lines() {
        let glyph = ["  × ", "  ⚠ ", "  ☞ "]
            .iter()
            .find(|g| line.starts_with(**g));
        if let Some(glyph) = glyph {
            blocks.push((4, vec![&line[glyph.len()..]]));
            open = true;
        } else if let Some(text) = line.strip_prefix("  help: ") {
            blocks.push((8, vec![text]));
            open = true;
        } else if let (true, Some(text)) = (open, line.strip_prefix("  │ ")) {
            blocks.last_mut().expect("open").1.push(text);
        } else if let (true, Some(text)) = (open, line.strip_prefix("        ")) {
            blocks.last_mut().expect("open").1.push(text);
        } else {
            open = false;
        }
    }
    blocks
}

fn words(lines: &[&str]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace())
        .map(str::to_string)
        .collect()
}

/// The backtick spans of a text, with the punctuation stuck to them, as `(`this`),`.
fn spans(text: &str) -> Vec<String> {
    let ticks: Vec<usize> = text.match_indices('`').map(|(i, _)| i).collect();
    ticks
        .chunks_exact(2)
        .map(|pair| {
            let start = text[..pair[0]].rfind(' ').map_or(0, |i| i + 1);
            let end = text[pair[1]..]
                .find(' ')
                .map_or(text.len(), |i| pair[1] + i);
            text[start..end].to_string()
        })
        .collect()
}

#[test]
fn narrow_widths_break_lines_at_spaces_only() {
    for outcome in inputs() {
        let unwrapped = render(&outcome, 10_000);
        let unwrapped = texts(&unwrapped);
        for width in [40, 60] {
            let rendered = render(&outcome, width);
            let wrapped = texts(&rendered);
            assert_eq!(wrapped.len(), unwrapped.len(), "{rendered}");
            for ((indent, lines), (_, whole)) in wrapped.iter().zip(&unwrapped) {
                // The same words, only the breaks between them moved.
                assert_eq!(words(lines), words(whole), "{width} columns:\n{rendered}");
                let room = width - 2 - indent;
                for line in lines {
                    let columns = line.chars().count();
                    assert!(
                        columns <= room || !line.contains(' '),
                        "{width} columns: {line:?} is {columns} columns wide, {room} fit:\n{rendered}"
                    );
                }
                // A backtick span that fits on a line is on one.
                for span in whole.iter().flat_map(|l| spans(l)) {
                    if span.chars().count() <= room {
                        assert!(
                            lines.iter().any(|l| l.contains(&span)),
                            "{width} columns: {span} is broken:\n{rendered}"
                        );
                    }
                }
            }
            // Nor is a label broken inside a word: no line ends in a word cut after a hyphen
            // or a slash.
            for line in rendered.lines() {
                let cut = line
                    .strip_suffix(['-', '/'])
                    .and_then(|l| l.chars().last())
                    .is_some_and(char::is_alphanumeric);
                assert!(
                    !cut,
                    "{width} columns: {line:?} ends inside a word:\n{rendered}"
                );
            }
        }
    }
}

#[test]
fn uids_names_and_commands_stay_whole() {
    let outcome = &inputs()[1];
    let lines = |width| -> Vec<String> {
        texts(&render(outcome, width))
            .into_iter()
            .flat_map(|(_, lines)| lines)
            .map(str::to_string)
            .collect()
    };
    let (narrow, wide) = (lines(40), lines(60));
    for (lines, token) in [
        (&narrow, "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"),
        (&narrow, "2f4e6a8c-1b3d-4f5a-8c7e-9d0b1a2c3e4f"),
        // Wider than 40 columns: it overflows the line.
        (
            &narrow,
            "storefront-production/storefront-checkout-api-5d8f7c9b6-abcde",
        ),
        (&wide, "(`ownerlint explain owner-uid-mismatch`"),
    ] {
        assert!(
            lines.iter().any(|l| l.contains(token)),
            "{token} is not whole on a line:\n{}",
            lines.join("\n")
        );
    }
}

#[test]
fn a_label_after_a_line_too_long_for_the_width_runs_past_it_whole() {
    let outcome = common::lint("adjacent.yaml", ADJACENT, &Options::default());
    let rendered = render(&outcome, 100);
    for label in [
        "╰── ReplicaSet/web-a is the controller",
        "╰── ReplicaSet/web-b is a second controller",
    ] {
        assert!(
            rendered.lines().any(|l| l.ends_with(label)),
            "{label}:\n{rendered}"
        );
    }
    // With room enough, a label is wrapped to it.
    assert!(
        rendered
            .lines()
            .any(|l| l.ends_with("╰─┤ ReplicaSet shop/web-a not")),
        "{rendered}"
    );
}

#[test]
fn each_report_leads_with_the_findings_own_place() {
    let mut others = 0;
    for outcome in inputs() {
        // Where each finding is, in the order they are reported: `path:line:column` as the
        // `short` format prints it.
        let places: Vec<String> = common::render(&outcome, Format::Short)
            .lines()
            .map(|line| {
                let (path, rest) = line.split_once(".yaml:").expect("a path");
                let position: String = rest.chars().take_while(|c| *c != ' ').collect();
                format!("{path}.yaml:{}", position.trim_end_matches(':'))
            })
            .collect();
        let rendered = common::render(&outcome, Format::Pretty);
        // The places each report shows, in order.
        let mut shown: Vec<Vec<&str>> = Vec::new();
        for line in rendered.lines() {
            if ["  × ", "  ⚠ ", "  ☞ "].iter().any(|g| line.starts_with(g)) {
                shown.push(Vec::new());
            } else if let Some((_, place)) = line.split_once("╭─[") {
                let place = place.strip_suffix(']').expect("a place");
                shown.last_mut().expect("a report").push(place);
            }
        }
        assert_eq!(shown.len(), places.len(), "{rendered}");
        for (place, shown) in places.iter().zip(&shown) {
            assert_eq!(shown.first(), Some(&place.as_str()), "{rendered}");
            others += shown.len() - 1;
        }
    }
    assert!(others >= 5, "the owners' places follow");
}

#[test]
fn each_report_starts_with_its_severity_in_words_and_its_rule() {
    for outcome in inputs() {
        // `error[owner-uid-mismatch]`, as `short` prints it, in the order of the reports.
        let expected: Vec<String> = common::render(&outcome, Format::Short)
            .lines()
            .map(|line| {
                let (_, rest) = line.split_once(": ").expect("a place");
                rest.split(": ").next().expect("a rule").to_string()
            })
            .collect();
        assert!(expected.iter().any(|e| e.starts_with("error[")));
        let rendered = common::render(&outcome, Format::Pretty);
        let firsts: Vec<&str> = rendered
            .lines()
            .filter(|l| ["  × ", "  ⚠ ", "  ☞ "].iter().any(|g| l.starts_with(g)))
            .collect();
        assert_eq!(firsts.len(), expected.len(), "{rendered}");
        for (first, expected) in firsts.iter().zip(&expected) {
            let glyph = match expected.split('[').next() {
                Some("error") => "×",
                Some("warning") => "⚠",
                _ => "☞",
            };
            assert!(
                first.starts_with(&format!("  {glyph} {expected}: ")),
                "{first:?} is not {expected}:\n{rendered}"
            );
        }
    }
    // In colour, the severity and the rule are in the severity's colour, in bold.
    let outcome = common::lint("adjacent.yaml", ADJACENT, &Options::default());
    let mut out = Vec::new();
    let options = EmitOptions {
        color: true,
        ..EmitOptions::default()
    };
    report::emit(Format::Pretty, &outcome, options, &mut out).expect("rendering");
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains("\u{1b}[31;1merror[multiple-controllers]\u{1b}[0m: Pod shop/web-1"),
        "{text:?}"
    );
}

/// What `ownerlint --no-config <args>` prints in a pseudo-terminal of `columns` columns made by
/// util-linux `script`, run from the repository root with `COLUMNS` not exported, as an
/// interactive shell runs it; `shell_tail` follows the command (as `| cat`). Escape codes and
/// carriage returns removed. None when `script` is missing (see `common::require_tool`).
fn in_terminal(columns: usize, env: &str, args: &str, shell_tail: &str) -> Option<String> {
    let script = common::require_tool("script", "util-linux: apt-get install bsdutils")?;
    let binary = env!("CARGO_BIN_EXE_ownerlint");
    assert!(!binary.contains('\''), "{binary}");
    let command = format!(
        "stty cols {columns} rows 40; env -u COLUMNS {env} '{binary}' --no-config {args} {shell_tail}"
    );
    let out = std::process::Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root())
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_ACTIONS")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let escape = regex::Regex::new("\u{1b}\\[[0-9;]*m").expect("regex");
    Some(escape.replace_all(&text, "").replace('\r', ""))
}

/// The lines of `text` wider than `columns` (counted in characters: the output holds no wide
/// ones).
fn wider_than(text: &str, columns: usize) -> Vec<&str> {
    text.lines()
        .filter(|l| l.chars().count() > columns)
        .collect()
}

#[test]
fn the_terminals_width_is_read_without_columns() {
    let Some(narrow) = in_terminal(80, "", "examples", "") else {
        return;
    };
    assert!(narrow.contains("error"), "{narrow}");
    assert_eq!(wider_than(&narrow, 80), Vec::<&str>::new(), "{narrow}");
    // A uid in a message, and a command in backticks, each whole on its line.
    assert!(
        narrow
            .lines()
            .any(|l| l.starts_with("  │ ") && l.contains("8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b")),
        "{narrow}"
    );
    assert!(
        narrow
            .lines()
            .any(|l| l.contains("(`kubectl get <kind> <name> -o jsonpath='{.metadata.uid}'`)")),
        "{narrow}"
    );

    // Wider than the default of 100, and used.
    let wide = in_terminal(120, "", "examples", "").expect("script is there");
    assert_eq!(wider_than(&wide, 120), Vec::<&str>::new(), "{wide}");
    assert!(!wider_than(&wide, 100).is_empty(), "{wide}");
}

/// The widest line of the messages and helps of `text`, in columns.
fn widest_text(text: &str) -> usize {
    let widest = texts(text)
        .iter()
        .flat_map(|(indent, block)| block.iter().map(move |l| indent + l.chars().count()))
        .max();
    widest.unwrap_or_else(|| panic!("no message:\n{text}"))
}

#[test]
fn columns_wins_and_standard_error_gives_the_width_of_a_pipe() {
    // COLUMNS, when a script or the user sets it, wins over the terminal.
    let Some(asked) = in_terminal(120, "COLUMNS=60", "examples", "") else {
        return;
    };
    assert!((50..=60).contains(&widest_text(&asked)), "{asked}");
    // Standard output into a pipe (a pager), standard error still the terminal.
    let piped = in_terminal(70, "", "--format pretty examples", "| cat").expect("script");
    assert!((60..=70).contains(&widest_text(&piped)), "{piped}");
}

#[test]
fn a_pretty_report_file_takes_neither_the_terminals_width_nor_its_colour() {
    let dir = common::temp_dir("pretty-report");
    let file = dir.path().join("report.txt");
    let file_arg = file.to_string_lossy().into_owned();
    assert!(!file_arg.contains(['\'', ' ']), "{file_arg}");
    let Some(shown) = in_terminal(60, "", &format!("--report pretty={file_arg} examples"), "")
    else {
        return;
    };
    assert!((50..=60).contains(&widest_text(&shown)), "{shown}");
    let written = std::fs::read_to_string(&file).expect("the report");
    assert!(!written.contains('\u{1b}'), "{written}");
    assert!((90..=100).contains(&widest_text(&written)), "{written}");
}

#[test]
fn on_a_terminal_only_ownerlints_own_colours_reach_it() {
    // A file name and values holding an OSC title sequence, a bell, a screen clear and a
    // right-to-left override: on a terminal, with colour, they are shown escaped.
    let dir = common::temp_dir("terminal-controls");
    let name = "t\u{1b}]0;owned\u{7}.yaml";
    std::fs::write(
        dir.path().join(name),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: \"r\\e[2J\\u202Eb\"\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: api, uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b}]\n",
    )
    .expect("write");
    let path = dir.path().display().to_string();
    assert!(!path.contains('\''), "{path}");
    // The colours are ownerlint's own: `in_terminal` takes them out, and nothing else that a
    // terminal acts on may be left.
    let Some(text) = in_terminal(100, "", &format!("'{path}'"), "") else {
        return;
    };
    let acted_on: Vec<char> = text
        .chars()
        .filter(|&c| (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}'))
        .collect();
    assert_eq!(acted_on, Vec::<char>::new(), "{text:?}");
    assert!(
        text.contains(
            r"error[cluster-scoped-dependent]: ClusterRole r\x1b[2J\u{202e}b → Deployment"
        ),
        "{text}"
    );
    assert!(text.contains(r#"t\x1b]0;owned\x07.yaml":5:21]"#), "{text}");
}

/// The finding the README shows is what `ownerlint` prints for it, at 80 columns, word for word
/// and line for line: the picture cannot drift from the tool.
#[test]
fn the_readmes_finding_is_what_ownerlint_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let command = "$ ownerlint examples/manifests/shop.yaml\n…\n";
    let start = readme.find(command).expect("the README's finding") + command.len();
    let end = start + readme[start..].find("…\n```").expect("its end");
    let shown = &readme[start..end];
    assert!(shown.contains("error["), "{shown}");
    let run = common::ownerlint()
        .current_dir(root())
        .env("COLUMNS", "80")
        .args([
            "--format",
            "pretty",
            "--color",
            "never",
            "examples/manifests/shop.yaml",
        ])
        .run();
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stdout.contains(shown),
        "the README shows:\n{shown}\nownerlint prints:\n{}",
        run.stdout
    );
}
