//! The check of the hand-written pages (and README.md and CONTRIBUTING.md): they may name only
//! flags, rules and Action outputs that exist ([`check_pages`], also a test).

use super::*;

/// What the pages may name: every flag of the command line, every rule, every Action output
/// and input.
struct Names {
    longs: BTreeSet<String>,
    shorts: BTreeSet<char>,
    rules: BTreeSet<&'static str>,
    outputs: BTreeSet<String>,
    inputs: BTreeSet<String>,
}

impl Names {
    fn new(root: &Path) -> Result<Names, String> {
        let command = command();
        let mut longs = BTreeSet::new();
        let mut shorts = BTreeSet::new();
        let mut stack = vec![&command];
        while let Some(command) = stack.pop() {
            for arg in command.get_arguments() {
                if let Some(long) = arg.get_long() {
                    longs.insert(format!("--{long}"));
                }
                for alias in arg.get_all_aliases().unwrap_or_default() {
                    longs.insert(format!("--{alias}"));
                }
                if let Some(short) = arg.get_short() {
                    shorts.insert(short);
                }
            }
            stack.extend(command.get_subcommands());
        }
        let action = Action::read(root)?;
        Ok(Names {
            longs,
            shorts,
            rules: RULES.iter().map(|r| r.meta.id).collect(),
            outputs: action.outputs.into_iter().map(|(name, _)| name).collect(),
            inputs: action.inputs.into_iter().map(|(name, ..)| name).collect(),
        })
    }
}

/// Flags of other programs that the pages name on their own, in backticks: `--locked` is
/// cargo's, `--include-crds` helm's.
const OTHER_PROGRAMS_FLAGS: &[&str] = &[
    "--all-features",
    "--allow-dirty",
    "--cascade",
    "--enable-helm",
    "--from-ref",
    "--include-crds",
    "--install-extension",
    "--kube-version",
    "--locked",
    "--manifest-only",
    "--no-default-features",
    "--no-index",
    "--out",
    "--post-renderer",
    "--profile",
    "--release",
    "--set-string",
    "--skip-vsix",
    "--skip-wheel",
    "--target",
    "--to-ref",
    "--upload-pack",
];

/// Words that look like a rule id but are not one: a file, a key, an output.
fn near_rule(word: &str, rules: &BTreeSet<&str>) -> Option<&'static str> {
    if rules.contains(word) || !word.contains('-') {
        return None;
    }
    RULES
        .iter()
        .map(|r| r.meta.id)
        .find(|id| distance(word, id) <= 2)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = if ca == *cb {
                previous
            } else {
                1 + previous.min(row[j]).min(row[j + 1])
            };
            previous = current;
        }
    }
    row[b.len()]
}

/// The code of a Markdown page: each line of a fenced block, and each inline `span` (which may
/// run over several lines of a paragraph), with its line number.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut code = Vec::new();
    let mut fenced = false;
    // The paragraph being read, its lines joined with spaces, and where each line starts.
    let mut paragraph = String::new();
    let mut starts: Vec<(usize, usize)> = Vec::new();
    let flush = |code: &mut Vec<(usize, String)>,
                 paragraph: &mut String,
                 starts: &mut Vec<(usize, usize)>| {
        let line_at = |offset: usize| {
            starts
                .iter()
                .take_while(|(start, _)| *start <= offset)
                .last()
                .map_or(0, |(_, line)| *line)
        };
        let mut at = 0;
        while let Some(found) = paragraph[at..].find('`') {
            let start = at + found;
            let ticks = paragraph[start..].chars().take_while(|&c| c == '`').count();
            let fence = "`".repeat(ticks);
            let inside = start + ticks;
            let Some(end) = paragraph[inside..].find(&fence) else {
                break;
            };
            code.push((
                line_at(start),
                paragraph[inside..inside + end].trim().to_string(),
            ));
            at = inside + end + ticks;
        }
        paragraph.clear();
        starts.clear();
    };
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            flush(&mut code, &mut paragraph, &mut starts);
            fenced = !fenced;
            continue;
        }
        if fenced {
            code.push((n + 1, line.to_string()));
        } else if line.trim().is_empty() {
            flush(&mut code, &mut paragraph, &mut starts);
        } else {
            starts.push((paragraph.len(), n + 1));
            paragraph.push_str(line);
            paragraph.push(' ');
        }
    }
    flush(&mut code, &mut paragraph, &mut starts);
    code
}

/// The flags an `ownerlint …` command in `code` passes, up to the end of that command.
fn command_flags(code: &str) -> Vec<String> {
    let mut flags = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("ownerlint") {
        let start = at + found;
        let end = start + "ownerlint".len();
        at = end;
        let before = code[..start].chars().next_back();
        let after = code[end..].chars().next();
        // A word of its own, as a command: not `.ownerlint.yaml`, `ownerlint-VERSION`,
        // `ownerlint:` or `OWNER/ownerlint@v0.1.0`.
        if before.is_some_and(|c| c.is_alphanumeric() || "-./_@$'\"".contains(c))
            || !matches!(after, None | Some(' '))
        {
            continue;
        }
        for word in code[end..].split_whitespace() {
            if ["|", "||", "&&", ";", ">", "<", "#", "2>", "&"].contains(&word)
                || word.starts_with('#')
                || word.starts_with('>')
            {
                break;
            }
            let word = word.trim_matches(|c: char| "\"'`,)]".contains(c));
            if word.starts_with("--") && word[2..].starts_with(|c: char| c.is_ascii_lowercase()) {
                flags.push(word.split('=').next().unwrap_or(word).to_string());
            } else if word.len() == 2
                && word.starts_with('-')
                && word[1..].chars().all(|c| c.is_ascii_alphabetic())
            {
                flags.push(word.to_string());
            }
        }
    }
    flags
}

/// The hand-written pages (`docs/src/`, README.md, CONTRIBUTING.md): each flag, rule and
/// Action output they name that does not exist, as `file:line: what`.
pub fn check_pages(root: &Path) -> Result<Vec<String>, String> {
    let names = Names::new(root)?;
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    files.extend(markdown_files(&root.join("docs/src"))?);
    let mut problems = Vec::new();
    for file in files {
        let Ok(text) = fs::read_to_string(&file) else {
            problems.push(format!("{}: cannot be read", file.display()));
            continue;
        };
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        problems.extend(check_page(&name, &text, &names));
        if name == "README.md" {
            // The front door names every subcommand.
            for sub in subcommands(&command()) {
                let said = format!("ownerlint {}", sub.get_name());
                if !text.contains(&said) {
                    problems.push(format!("README.md: names no `{said}`"));
                }
            }
        }
    }
    Ok(problems)
}

fn check_page(name: &str, text: &str, names: &Names) -> Vec<String> {
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut say = |line: usize, what: String| problems.push((line, what));
    for (line, code) in code_of(text) {
        for flag in command_flags(&code) {
            let known = match flag.strip_prefix("--") {
                Some(_) => names.longs.contains(&flag),
                None => flag
                    .chars()
                    .nth(1)
                    .is_some_and(|c| names.shorts.contains(&c)),
            };
            if !known {
                say(
                    line,
                    format!("`{flag}` is not a flag of ownerlint (in `{code}`)"),
                );
            }
        }
        // A span that is a flag alone: ownerlint's, or another program's named as such.
        let first = code.split([' ', '=']).next().unwrap_or("");
        if first.starts_with("--")
            && first[2..].starts_with(|c: char| c.is_ascii_lowercase())
            && first[2..]
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !names.longs.contains(first)
            && !OTHER_PROGRAMS_FLAGS.contains(&first)
        {
            say(
                line,
                format!(
                    "`{first}` is not a flag of ownerlint (another program's? add it to OTHER_PROGRAMS_FLAGS in xtask/src/docs.rs)"
                ),
            );
        }
        // Rule ids where only a rule id can stand.
        for rule in rule_mentions(&code) {
            if !names.rules.contains(rule.as_str()) {
                say(line, format!("`{rule}` is not a rule"));
            }
        }
        // A span that is almost a rule id.
        let word = code.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-');
        if word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            && word.len() > 6
            && let Some(rule) = near_rule(word, &names.rules)
        {
            say(
                line,
                format!("`{word}` is not a rule (did you mean `{rule}`?)"),
            );
        }
        // The Action's outputs read by a step.
        let mut rest = code.as_str();
        while let Some(at) = rest.find(".outputs.") {
            let after = &rest[at + ".outputs.".len()..];
            let output: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            let step = rest[..at].rsplit(['.', ' ', '{']).next().unwrap_or("");
            if step == "ownerlint" && !names.outputs.contains(&output) {
                say(line, format!("`{output}` is not an output of the Action"));
            }
            rest = after;
        }
    }
    // Links to rule pages.
    let mut rest = text;
    while let Some(at) = rest.find("rules/") {
        let after = &rest[at + "rules/".len()..];
        let id: String = after
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if after[id.len()..].starts_with(".md")
            && !names.rules.contains(id.as_str())
            && id != "index"
        {
            let line = text.len() - rest.len() + at;
            let line = text[..line].lines().count().max(1);
            say(line, format!("rules/{id}.md is not a rule's page"));
        }
        rest = after;
    }
    // The Action's inputs given under `with:` in a step that uses ownerlint's Action.
    let mut in_step = false;
    let mut with_indent = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.starts_with("- uses:")
            || trimmed.starts_with("- name:")
            || trimmed.starts_with("```")
        {
            in_step = trimmed.contains("/ownerlint@");
            with_indent = None;
            continue;
        }
        if in_step && trimmed == "with:" {
            with_indent = Some(indent);
            continue;
        }
        if let Some(with) = with_indent {
            if indent <= with {
                with_indent = None;
                continue;
            }
            if indent > with
                && let Some((key, _)) = trimmed.split_once(':')
                && !key.contains(' ')
                && indent == with + 2
                && !names.inputs.contains(key)
            {
                say(n + 1, format!("`{key}` is not an input of the Action"));
            }
        }
    }
    problems.sort();
    problems
        .into_iter()
        .map(|(line, what)| format!("{name}:{line}: {what}"))
        .collect()
}

/// Words that stand for any rule in the pages' examples.
const PLACEHOLDERS: &[&str] = &["rule", "rule-id", "x"];

/// Rule ids written where only rule ids stand: `error[RULE]`, `ignore[RULE, …]`,
/// `ownerlint explain RULE`.
fn rule_mentions(code: &str) -> Vec<String> {
    let mut rules = Vec::new();
    for opener in ["error[", "warning[", "info[", "ignore[", "ignore-document["] {
        let mut rest = code;
        while let Some(at) = rest.find(opener) {
            let after = &rest[at + opener.len()..];
            let Some(end) = after.find(']') else { break };
            for id in after[..end].split(',') {
                let id = id.trim();
                if !id.is_empty()
                    && !PLACEHOLDERS.contains(&id)
                    && id
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                {
                    rules.push(id.to_string());
                }
            }
            rest = &after[end..];
        }
    }
    if let Some(at) = code.find("ownerlint explain ") {
        let id: String = code[at + "ownerlint explain ".len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if !id.is_empty() {
            rules.push(id);
        }
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        crate::workspace_root()
    }

    /// The hand-written pages, the README and CONTRIBUTING.md name only flags, rules and
    /// Action outputs and inputs that exist.
    #[test]
    fn the_pages_name_only_what_exists() {
        let problems = check_pages(&root()).expect("the pages are read");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// The check finds each kind of mistake, where it is.
    #[test]
    fn the_check_finds_a_flag_a_rule_and_an_output_that_do_not_exist() {
        let names = Names::new(&root()).expect("names");
        let page = "Run `ownerlint --fix --fail-of warning -n shop deploy/ | less --raw`.\n\
            ```yaml\n      - uses: OWNER/ownerlint@v0.1.0\n        id: ownerlint\n        with:\n          paths: deploy/\n          fail_on: error\n\
            ```\n\
            Set `--complete`, `--compleat` or `--locked`; see `owner-not-fund` and `owner-not-found`.\n\
            ```text\nx.yaml:1:1: error[owner-not-found]: …\n# ownerlint: ignore[owner-not-found, no-such-rule]\n```\n\
            Read `${{ steps.ownerlint.outputs.errors }}` and `steps.ownerlint.outputs.error-count`.\n\
            See [it](rules/owner-not-fund.md).\n";
        let problems = check_page("page.md", page, &names);
        assert_eq!(
            problems,
            [
                "page.md:1: `--fail-of` is not a flag of ownerlint (in `ownerlint --fix --fail-of warning -n shop deploy/ | less --raw`)",
                "page.md:7: `fail_on` is not an input of the Action",
                "page.md:9: `--compleat` is not a flag of ownerlint (another program's? add it to OTHER_PROGRAMS_FLAGS in xtask/src/docs.rs)",
                "page.md:9: `owner-not-fund` is not a rule (did you mean `owner-not-found`?)",
                "page.md:12: `no-such-rule` is not a rule",
                "page.md:14: `error-count` is not an output of the Action",
                "page.md:15: rules/owner-not-fund.md is not a rule's page",
            ],
            "{problems:#?}"
        );
    }
}
