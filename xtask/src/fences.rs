//! The code blocks of the hand-written Markdown (README.md, CONTRIBUTING.md, `rules/*.md`,
//! `docs/src/`), read as CommonMark reads them (pulldown-cmark, as mdBook does): a fence opened
//! or closed twice turns the rest of a page into one code block, and a snippet that starts with
//! a fence line does not paste. Each fenced block must be closed, hold no fence line of its own
//! kind and not be empty; the `yaml` blocks (but the rules' failing examples) must parse as
//! YAML, as ownerlint reads it.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

/// The Markdown files a reader sees, relative to the repository's root.
pub fn pages(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    for dir in [root.join("rules"), root.join("docs/src")] {
        markdown_under(&dir, &mut files)?;
    }
    Ok(files)
}

fn markdown_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            markdown_under(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    Ok(())
}

/// Every broken code block of the pages under `root`, as `file:line: what`.
pub fn check(root: &Path) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    for file in pages(root)? {
        let text = fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        // A rule's failing examples may be broken YAML on purpose.
        let yaml = !name.starts_with("rules");
        problems.extend(check_page(&name, &text, yaml));
    }
    Ok(problems)
}

/// The problems of one page; with `yaml`, its `yaml` blocks are parsed too.
pub fn check_page(name: &str, text: &str, yaml: bool) -> Vec<String> {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut problems = Vec::new();
    for (range, info) in fenced_blocks(text) {
        let block = &text[range.clone()];
        let mut lines = block.lines();
        let opening = lines.next().unwrap_or("").trim_start();
        let Some(fence) = opening.chars().next() else {
            continue;
        };
        let width = opening.chars().take_while(|&c| c == fence).count();
        let is_fence = |line: &str| {
            let line = line.trim_start();
            line.chars().take_while(|&c| c == fence).count() >= width
        };
        let mut body: Vec<&str> = lines.collect();
        let closed = body.last().is_some_and(|last| {
            let last = last.trim();
            is_fence(last) && last.chars().all(|c| c == fence)
        });
        let at = line_of(range.start);
        if closed {
            body.pop();
        } else {
            problems.push(format!(
                "{name}:{at}: the code block opened here is never closed (the rest of the page is code)"
            ));
        }
        if body.iter().all(|l| l.trim().is_empty()) {
            problems.push(format!(
                "{name}:{at}: an empty code block (a fence written twice?)"
            ));
        }
        for (n, line) in body.iter().enumerate() {
            if is_fence(line) {
                problems.push(format!(
                    "{name}:{}: a fence inside the code block opened at line {at} (opened or closed twice?)",
                    at + n + 1
                ));
            }
        }
        if yaml && closed && matches!(info.as_str(), "yaml" | "yml") {
            let content = body.join("\n") + "\n";
            for chunk in ownerlint::yaml::split_documents(&content, 0) {
                if let Err(error) = ownerlint::yaml::parse_document(
                    &content,
                    chunk,
                    ownerlint::yaml::Limits::default(),
                ) {
                    let line = at
                        + content[..error.offset.min(content.len())]
                            .matches('\n')
                            .count()
                        + 1;
                    problems.push(format!(
                        "{name}:{line}: the yaml block is not YAML: {}",
                        error.message
                    ));
                }
            }
        }
    }
    problems
}

/// Each fenced code block: its source (from the opening fence to the closing one, or to where
/// CommonMark ends it) and the first word of its info string.
fn fenced_blocks(text: &str) -> Vec<(Range<usize>, String)> {
    Parser::new(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => Some((
                range,
                info.split_whitespace().next().unwrap_or("").to_string(),
            )),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// README.md, CONTRIBUTING.md, the rules' documents and the site's pages: every code block
    /// is closed, none is opened or closed twice, and the YAML but the rules' parses.
    #[test]
    fn the_pages_code_blocks_are_whole() {
        let root = &crate::workspace_root();
        let problems = check(root).expect("the pages are read");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn a_fence_opened_and_closed_twice_is_found() {
        let page = "Intro.\n\n```yaml\n```yaml\na: 1\n```\n```\n\nText.\n\n```sh\nls\n```\n";
        assert_eq!(
            check_page("p.md", page, true),
            [
                "p.md:4: a fence inside the code block opened at line 3 (opened or closed twice?)",
                "p.md:4: the yaml block is not YAML: unexpected character: ``'",
                "p.md:11: a fence inside the code block opened at line 7 (opened or closed twice?)",
            ]
        );
        assert_eq!(
            check_page("p.md", "```yaml\na: 1\n```\n```\n\nText.\n", true),
            ["p.md:4: the code block opened here is never closed (the rest of the page is code)"]
        );
    }

    #[test]
    fn a_block_never_closed_an_empty_one_and_bad_yaml_are_found() {
        assert_eq!(
            check_page(
                "p.md",
                "```sh\n```\n\n```yaml\na: [1\n```\n\n```text\nx\n",
                true
            ),
            [
                "p.md:1: an empty code block (a fence written twice?)",
                "p.md:5: the yaml block is not YAML: unclosed bracket '['",
                "p.md:8: the code block opened here is never closed (the rest of the page is code)",
            ]
        );
    }

    #[test]
    fn whole_blocks_and_a_fence_shown_inside_a_longer_one_pass() {
        let page = "- a list:\n\n  ```yaml\n  a: 1\n  ```\n\n````markdown\n```sh\nls\n```\n````\n\n~~~\n```\n~~~\n";
        assert_eq!(check_page("p.md", page, true), Vec::<String>::new());
    }
}
