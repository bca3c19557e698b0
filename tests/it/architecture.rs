//! The layers of `src/`: a top-level module that uses another (`crate::other::…`) is never
//! reached back by it, directly or through others, so that each module can be read knowing
//! only the modules below it. Test code (`#[cfg(test)]`) may use anything and is left out.
//!
//! The scan reads the source as tokens: comments and string literals are not code (except
//! strings in attributes, where serde names functions), `use crate::{a::{b, c}, d}` uses `a`
//! and `d`, `super::super::x` is followed to the crate root, and a name the crate root
//! re-exports (`crate::Analysis`) counts as a use of the module it comes from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[test]
fn no_top_level_module_reaches_itself_through_its_imports() {
    let graph = module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        graph.edges.len() > 10,
        "the scan found too few modules: {:?}",
        graph.edges.keys()
    );
    let cycles = graph.cycles();
    assert!(
        cycles.is_empty(),
        "top-level modules of src/ import one another in a cycle; move what the lower module \
         needs below both, so that imports point one way:\n{}",
        graph.describe(&cycles)
    );
}

#[test]
fn the_fix_builders_stay_below_the_rules_and_the_fix_rounds() {
    let graph = module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let reached = graph.reachable("edit");
    for above in ["rules", "pipeline", "fix"] {
        assert!(
            !reached.contains(above),
            "`edit` (the byte edits and the fixes built from them) reaches `{above}`, which \
             calls it: {reached:?}"
        );
    }
}

#[test]
fn the_scan_reads_paths_as_the_compiler_does() {
    let text = r##"
//! Mentions crate::in_doc_comment.
use std::fmt;
use crate::{one::{Two, three::Four}, five, self as root};
pub use crate::six::Seven;
pub(crate) use crate::eight;
/* crate::in_block /* nested crate::in_nested */ crate::still_in_block */
#[serde(serialize_with = "crate::nine::write")]
struct S<'a>(&'a str);
fn f() {
    let _ = "crate::in_string \" crate::after_escape";
    let _ = r#"crate::in_raw_string " crate::still_in_raw"#;
    let _ = ('"', '\'', b'x');
    let _ = crate::ten::eleven();
    let _ = super::super::twelve::Thirteen;
    let _ = super::same_module;
    other::crate_thing::crate::not_a_root();
}
macro_rules! m {
    () => { $crate::fourteen::f() };
}
#[cfg(test)]
mod tests {
    use crate::only_in_tests;
}
#[cfg(test)]
fn helper() -> crate::only_in_tests::T { crate::only_in_tests::t() }
mod inline {
    fn g() { super::super::super::fifteen::h(); }
}
"##;
    let module = ["outer".to_string(), "inner".to_string()];
    let scanned = scan(text, &module);
    let names: BTreeSet<&str> = scanned
        .roots
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "eight", "fifteen", "five", "fourteen", "nine", "one", "six", "ten", "twelve"
        ]
        .into(),
        "{:?}",
        scanned.roots
    );
    let line_of = |name: &str| {
        scanned
            .roots
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, l)| *l)
    };
    assert_eq!(line_of("ten"), Some(14));

    let root = scan(
        "pub use analysis::{Analysis, Options as Asked};\n#[cfg(test)]\nmod tests;\n",
        &[],
    );
    let pair = |module: &str, name: &str| (module.to_string(), name.to_string());
    assert_eq!(
        root.reexports,
        [pair("analysis", "Analysis"), pair("analysis", "Asked")]
    );
    assert_eq!(root.test_modules, ["tests"]);
}

#[test]
fn a_cycle_is_named_with_its_edges() {
    let mut graph = Graph::default();
    for (from, to) in [
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("c", "d"),
        ("d", "e"),
        ("e", "d"),
    ] {
        graph.add(from, to, format!("src/{from}.rs:1"));
    }
    graph.add("f", "a", "src/f.rs:1".to_string());
    let cycles = graph.cycles();
    assert_eq!(
        cycles,
        vec![
            vec!["a".to_string(), "b".into(), "c".into()],
            vec!["d".to_string(), "e".into()]
        ]
    );
    let described = graph.describe(&cycles);
    assert!(described.contains("a → b → c → a"), "{described}");
    assert!(described.contains("  c → a (src/c.rs:1)"), "{described}");
    assert!(!described.contains("c → d"), "{described}");
}

/// Which top-level module uses which, with where it first does.
#[derive(Default)]
struct Graph {
    /// `edges[from][to]` is the first `file:line` where `from` uses `to`.
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

impl Graph {
    fn add(&mut self, from: &str, to: &str, at: String) {
        self.edges.entry(to.to_string()).or_default();
        self.edges
            .entry(from.to_string())
            .or_default()
            .entry(to.to_string())
            .or_insert(at);
    }

    fn reachable(&self, from: &str) -> BTreeSet<&str> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(module) = stack.pop() {
            for next in self.edges.get(module).into_iter().flat_map(|e| e.keys()) {
                if seen.insert(next.as_str()) {
                    stack.push(next);
                }
            }
        }
        seen
    }

    /// The groups of modules that reach one another (strongly connected, more than one).
    fn cycles(&self) -> Vec<Vec<String>> {
        let reach: BTreeMap<&str, BTreeSet<&str>> = self
            .edges
            .keys()
            .map(|m| (m.as_str(), self.reachable(m)))
            .collect();
        let mut groups: Vec<Vec<String>> = Vec::new();
        for (module, reached) in &reach {
            if !reached.contains(module) || groups.iter().flatten().any(|m| m == module) {
                continue;
            }
            let group = reached
                .iter()
                .filter(|other| reach[*other].contains(module))
                .map(|m| m.to_string())
                .collect();
            groups.push(group);
        }
        groups
    }

    /// Each cycle: one way round it, then every import between its modules.
    fn describe(&self, cycles: &[Vec<String>]) -> String {
        let mut text = String::new();
        for group in cycles {
            let round = self.shortest_round(&group[0], group);
            text.push_str(&format!("{}\n", round.join(" → ")));
            for from in group {
                for (to, at) in &self.edges[from] {
                    if group.contains(to) {
                        text.push_str(&format!("  {from} → {to} ({at})\n"));
                    }
                }
            }
        }
        text
    }

    /// The shortest way from `start` back to itself through the modules of `group`.
    fn shortest_round(&self, start: &str, group: &[String]) -> Vec<String> {
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(module) = queue.pop_front() {
            for next in self.edges[module].keys().filter(|n| group.contains(n)) {
                if next == start {
                    let mut round = vec![module.to_string()];
                    let mut at = module;
                    while at != start {
                        at = came_from[at];
                        round.push(at.to_string());
                    }
                    round.reverse();
                    round.push(start.to_string());
                    return round;
                }
                if !came_from.contains_key(next.as_str()) {
                    came_from.insert(next, module);
                    queue.push_back(next);
                }
            }
        }
        vec![start.to_string()]
    }
}

/// The graph of the top-level modules of the crate at `src`: `main.rs` and `lib.rs` are its
/// roots, not modules.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut scanned = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(src).unwrap_or(file);
        let mut module: Vec<String> = relative
            .iter()
            .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if module.last().is_some_and(|last| last == "mod") {
            module.pop();
        }
        if module == ["main"] || module == ["lib"] {
            module.clear();
        }
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|err| panic!("cannot read {}: {err}", file.display()));
        let name = Path::new("src").join(relative).display().to_string();
        scanned.push((name, module.clone(), scan(&text, &module)));
    }
    // A module declared `#[cfg(test)] mod name;` is test code, with everything under it.
    let test_only: Vec<Vec<String>> = scanned
        .iter()
        .flat_map(|(_, module, scan)| {
            scan.test_modules.iter().map(move |child| {
                let mut path = module.clone();
                path.push(child.clone());
                path
            })
        })
        .collect();
    scanned.retain(|(_, module, scan)| {
        !scan.test_only && !test_only.iter().any(|t| module.starts_with(t))
    });
    let modules: BTreeSet<String> = scanned
        .iter()
        .filter_map(|(_, module, _)| module.first().cloned())
        .collect();
    // What the crate root re-exports, by the module it comes from.
    let mut reexported = BTreeMap::new();
    for (_, _, scan) in scanned.iter().filter(|(_, module, _)| module.is_empty()) {
        for (module, name) in &scan.reexports {
            if modules.contains(module) {
                reexported.insert(name.clone(), module.clone());
            }
        }
    }
    let mut graph = Graph::default();
    for (name, module, scan) in &scanned {
        let Some(from) = module.first() else {
            continue;
        };
        graph.edges.entry(from.clone()).or_default();
        for (used, line) in &scan.roots {
            let to = match modules.get(used) {
                Some(to) => to,
                None => match reexported.get(used) {
                    Some(to) => to,
                    None => continue,
                },
            };
            if to != from {
                graph.add(from, to, format!("{name}:{line}"));
            }
        }
    }
    graph
}

fn rust_files(folder: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(folder)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", folder.display()));
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// What one file's code (its tests left out) names of the crate root.
#[derive(Debug, Default)]
struct Scanned {
    /// Each name a path from the crate root starts with (`crate::name`, `super::…::name`,
    /// `$crate::name`), with its line.
    roots: Vec<(String, usize)>,
    /// `use module::{Name, …}` at the top of the file: (module, the name it is used as).
    reexports: Vec<(String, String)>,
    /// Child modules declared `#[cfg(test)] mod name;`.
    test_modules: Vec<String>,
    /// The whole file is `#![cfg(test)]`.
    test_only: bool,
}

#[derive(Debug)]
struct Token {
    text: String,
    line: usize,
}

/// Scan the text of the module at `module` (its path from the crate root).
fn scan(text: &str, module: &[String]) -> Scanned {
    let mut scanned = Scanned::default();
    let all = tokens(&strip(text));
    let is = |i: usize, text: &str| all.get(i).is_some_and(|t| t.text == text);
    // Drop every item under `#[cfg(test)]`.
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let inner = is(i + 1, "!");
        let at = if inner { i + 2 } else { i + 1 };
        let cfg_test = is(i, "#")
            && ["[", "cfg", "(", "test", ")", "]"]
                .iter()
                .enumerate()
                .all(|(k, t)| is(at + k, t));
        if !cfg_test {
            tokens.push(&all[i]);
            i += 1;
            continue;
        }
        if inner {
            scanned.test_only = true;
            return scanned;
        }
        i = at + 6;
        let item = i;
        let mut depth = 0usize;
        while i < all.len() {
            match all[i].text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" => depth = depth.saturating_sub(1),
                "}" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                ";" if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        let declared: Vec<&str> = all[item..i].iter().map(|t| t.text.as_str()).collect();
        if let [.., "mod", name] = declared.as_slice()
            && is(i, ";")
        {
            scanned.test_modules.push(name.to_string());
        }
        i += 1;
    }
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    // Inline modules open here: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    for i in 0..tokens.len() {
        match text(i) {
            "{" => {
                depth += 1;
                if i >= 2 && text(i - 2) == "mod" {
                    inline.push((text(i - 1).to_string(), depth));
                }
            }
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "use" if depth == 0 && module.is_empty() => {
                let first = text(i + 1);
                if text(i + 2) == "::" {
                    for name in leaves(&tokens, i + 3) {
                        scanned.reexports.push((first.to_string(), name));
                    }
                }
            }
            _ => {}
        }
        let starts_path = i == 0 || text(i - 1) != "::";
        let root = match text(i) {
            "crate" | "$crate" if starts_path && text(i + 1) == "::" => Some(i + 2),
            "super" if starts_path => {
                let mut at = i;
                let mut up = 0;
                while text(at) == "super" && text(at + 1) == "::" {
                    up += 1;
                    at += 2;
                }
                (up > 0 && up == module.len() + inline.len()).then_some(at)
            }
            _ => None,
        };
        if let Some(at) = root {
            let line = tokens[at.min(tokens.len() - 1)].line;
            for name in first_segments(&tokens, at) {
                scanned.roots.push((name, line));
            }
        }
    }
    scanned
}

/// The first segment of the path at `tokens[at]`, or of each path of the group there
/// (`{a::{b, c}, d}` gives `a` and `d`).
fn first_segments(tokens: &[&Token], at: usize) -> Vec<String> {
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    if text(at) != "{" {
        return is_ident(text(at))
            .then(|| text(at).to_string())
            .into_iter()
            .collect();
    }
    let mut names = Vec::new();
    let mut depth = 0;
    let mut i = at;
    while i < tokens.len() {
        match text(i) {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            name if depth == 1
                && is_ident(name)
                && name != "self"
                && matches!(text(i - 1), "{" | ",") =>
            {
                names.push(name.to_string())
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// The names a use tree at `tokens[at]` brings in (`a::{B, c::D as E}` brings `B` and `E`).
fn leaves(tokens: &[&Token], mut at: usize) -> Vec<String> {
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    let mut names = Vec::new();
    loop {
        match text(at) {
            "{" => {
                let mut depth = 0;
                let mut item = true;
                while at < tokens.len() {
                    match text(at) {
                        "{" => {
                            depth += 1;
                            if depth == 1 {
                                at += 1;
                                continue;
                            }
                        }
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                return names;
                            }
                        }
                        "," if depth == 1 => item = true,
                        _ if depth == 1 && item => {
                            names.extend(leaves(tokens, at));
                            item = false;
                        }
                        _ => {}
                    }
                    at += 1;
                }
                return names;
            }
            name if is_ident(name) => {
                if text(at + 1) == "::" {
                    at += 2;
                    continue;
                }
                if text(at + 1) == "as" {
                    names.push(text(at + 2).to_string());
                } else {
                    names.push(name.to_string());
                }
                return names;
            }
            _ => return names,
        }
    }
}

fn is_ident(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
}

/// The code of `text` as tokens: identifiers, `::`, and single characters.
fn tokens(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_whitespace() {
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let mut word = c.to_string();
            while let Some(&next) = chars.peek() {
                if !(next.is_alphanumeric() || next == '_') {
                    break;
                }
                word.push(next);
                chars.next();
            }
            tokens.push(Token { text: word, line });
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            tokens.push(Token {
                text: "::".into(),
                line,
            });
        } else {
            tokens.push(Token {
                text: c.to_string(),
                line,
            });
        }
    }
    tokens
}

/// `text` with its comments and string and character literals blanked (lines kept), but for
/// the strings of attributes, whose text stays: `#[serde(with = "crate::x")]` names a path.
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut out = String::with_capacity(text.len());
    // Brackets open in the attribute the text is in (0: not in one).
    let mut attribute = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let word_start = i == 0 || !(at(i - 1).is_alphanumeric() || at(i - 1) == '_');
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if word_start
            && (c == '"'
                || (c == 'b' && at(i + 1) == '"')
                || ((c == 'r' || (c == 'b' && at(i + 1) == 'r')) && {
                    let mut j = i + if c == 'b' { 2 } else { 1 };
                    while at(j) == '#' {
                        j += 1;
                    }
                    at(j) == '"'
                }))
        {
            // A string: `"…"`, `b"…"`, or raw, `r#"…"#`, which ends at a quote and as many `#`.
            let raw = c == 'r' || at(i + 1) == 'r';
            while at(i) != '"' {
                out.push(' ');
                i += 1;
            }
            let hashes = chars[..i].iter().rev().take_while(|&&h| h == '#').count();
            out.push(' ');
            i += 1;
            while i < chars.len() {
                let c = chars[i];
                if !raw && c == '\\' {
                    out.push(' ');
                    out.push(blank(at(i + 1)));
                    i += 2;
                    continue;
                }
                if c == '"' && (0..hashes).all(|k| at(i + 1 + k) == '#') {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += 1 + hashes;
                    break;
                }
                out.push(if attribute > 0 { c } else { blank(c) });
                i += 1;
            }
        } else if c == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // A character, `'x'` or `'\''`; `'a` alone is a lifetime or a label.
            out.push(' ');
            i += 1;
            if at(i) == '\\' {
                out.push_str("  ");
                i += 2;
            }
            while i < chars.len() && chars[i] != '\'' {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            let opens_attribute =
                i > 0 && (at(i - 1) == '#' || (i > 1 && at(i - 1) == '!' && at(i - 2) == '#'));
            match c {
                '[' if attribute > 0 || opens_attribute => attribute += 1,
                ']' if attribute > 0 => attribute -= 1,
                _ => {}
            }
            out.push(c);
            i += 1;
        }
    }
    out
}
