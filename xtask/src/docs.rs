//! `cargo xtask docs`: the documentation site, built with mdBook into `target/docs/`.
//!
//! The hand-written pages are `docs/src/`; the pages that could drift from the tool are made
//! here from its own declarations: a page per rule and their index from `declare_rule!` and
//! `rules/*.md` (through the registry, `ownerlint::rules::RULES`), the command-line reference
//! from clap's definition (`ownerlint::cli::Cli`), the configuration reference from the table
//! of the configuration file's keys (`ownerlint::config::schema`), and the Action's inputs and
//! outputs from `action.yml`. The pages are assembled in `target/docs-src/`, built, and every
//! link between the built pages is checked: a broken one fails the build. The hand-written
//! pages (and README.md and CONTRIBUTING.md) may name only flags, rules and Action outputs that
//! exist ([`check_pages`], also a test).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use ownerlint::config::schema::{self, Key};
use ownerlint::rules::RULES;

mod page_checks;
pub use page_checks::check_pages;

/// Where the marker comments of the hand-written pages are replaced with generated text.
const MARK: &str = "<!-- ownerlint: ";

/// Build the site from the sources under `root` into `out` (`target/docs`), assembling it in
/// `work` (`target/docs-src`). Returns the number of pages built.
pub fn build(root: &Path, work: &Path, out: &Path, repository: &str) -> Result<usize, String> {
    let problems = check_pages(root)?;
    if !problems.is_empty() {
        return Err(format!(
            "the pages name what does not exist:\n  {}",
            problems.join("\n  ")
        ));
    }
    let problems = crate::fences::check(root)?;
    if !problems.is_empty() {
        return Err(format!(
            "the pages' code blocks are broken:\n  {}",
            problems.join("\n  ")
        ));
    }
    if work.exists() {
        fs::remove_dir_all(work).map_err(|e| format!("cannot remove {}: {e}", work.display()))?;
    }
    let src = work.join("src");
    copy_tree(&root.join("docs/src"), &src)?;
    fs::copy(root.join("docs/terminal.css"), work.join("terminal.css"))
        .map_err(|e| format!("cannot copy docs/terminal.css: {e}"))?;
    // The pictures of a terminal are made of ownerlint's runs on the repository's examples.
    std::env::set_current_dir(root).map_err(|e| format!("cannot enter {}: {e}", root.display()))?;
    let action = Action::read(root)?;
    // The generated pages.
    fs::create_dir_all(src.join("rules")).map_err(|e| e.to_string())?;
    write(&src.join("rules/index.md"), &rules_index())?;
    for rule in RULES {
        write(
            &src.join(format!("rules/{}.md", rule.meta.id)),
            &rule_page(rule.meta),
        )?;
    }
    fs::create_dir_all(src.join("reference")).map_err(|e| e.to_string())?;
    write(&src.join("reference/cli.md"), &cli_reference())?;
    write(
        &src.join("reference/configuration.md"),
        &configuration_reference(),
    )?;
    // The markers of the hand-written pages, and links into the repository.
    let generated: BTreeMap<&str, String> = [
        ("action-inputs", action.inputs_table()),
        ("action-outputs", action.outputs_table()),
        ("rule-pages", rule_pages_summary()),
        ("rule-table", rules_table("")),
        ("subcommands", subcommands_table()),
        (
            "pretty-example",
            terminal(&[
                "ownerlint",
                "--color",
                "always",
                "examples/manifests/shop.yaml",
            ])?,
        ),
        (
            "tree-example",
            terminal(&["ownerlint", "tree", "examples/cluster-dump"])?,
        ),
        ("tree-picture", picture(&TREE_PICTURE)?),
        ("delete-preview-picture", picture(&DELETE_PREVIEW_PICTURE)?),
    ]
    .into_iter()
    .collect();
    for page in markdown_files(&src)? {
        let text = fs::read_to_string(&page).map_err(|e| format!("{}: {e}", page.display()))?;
        let text =
            fill_markers(&text, &generated).map_err(|why| format!("{}: {why}", page.display()))?;
        write(&page, &repository_links(&text, repository))?;
    }
    write(&work.join("book.toml"), &book_toml(out, repository))?;
    if out.exists() {
        fs::remove_dir_all(out).map_err(|e| format!("cannot remove {}: {e}", out.display()))?;
    }
    let book = mdbook_driver::MDBook::load(work).map_err(|e| format!("mdBook: {e:#}"))?;
    book.build().map_err(|e| format!("mdBook: {e:#}"))?;
    let broken = check_links(out, &site_url(repository))?;
    if !broken.is_empty() {
        return Err(format!(
            "{} broken links:\n  {}",
            broken.len(),
            broken.join("\n  ")
        ));
    }
    Ok(html_files(out)?.len())
}

/// A picture the site draws from a bundled example: ownerlint's `--format dot` output,
/// rendered by Graphviz.
pub struct Picture {
    /// The command line, as the page shows it (`--format dot` is added to run it).
    pub args: &'static [&'static str],
    /// What the picture shows, for the image's description.
    pub alt: &'static str,
}

pub const TREE_PICTURE: Picture = Picture {
    args: &["ownerlint", "tree", "examples/cluster-dump"],
    alt: "The ownership tree of examples/cluster-dump",
};

pub const DELETE_PREVIEW_PICTURE: Picture = Picture {
    args: &[
        "ownerlint",
        "delete-preview",
        "rs/billing-7c9f8d6b5",
        "-n",
        "payments",
        "--cascade",
        "foreground",
        "examples/cluster-dump",
    ],
    alt: "What a foreground delete of ReplicaSet payments/billing-7c9f8d6b5 takes with it",
};

/// The Debian package that has Graphviz's `dot`.
const GRAPHVIZ: &str = "graphviz";

/// The picture, as HTML for a page: the SVG `dot -Tsvg` draws of ownerlint's `--format dot`
/// output, with the command under it. Without `dot` the page says that the picture was not
/// rendered and why, and a warning is printed; under CI (`CI=true`) that is an error.
fn picture(picture: &Picture) -> Result<String, String> {
    let mut args = picture.args.to_vec();
    args.extend(["--format", "dot"]);
    let graph = run_ownerlint(&args)?;
    let command = escape_html(&picture.args.join(" "));
    let svg = match render_svg(&graph) {
        Ok(svg) => svg,
        Err(why) if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
            return Err(format!("the picture of `{command}` cannot be drawn: {why}"));
        }
        Err(why) => {
            eprintln!(
                "cargo xtask docs: warning: the picture of `{command}` is not drawn: {why} \
                 (install the package {GRAPHVIZ})"
            );
            return Ok(format!(
                "<p class=\"picture-missing\"><strong>This picture was not rendered</strong> when \
                 this site was built: {}. Install Graphviz (the Debian package \
                 <code>{GRAPHVIZ}</code>) and run <code>cargo xtask docs</code> again, or draw \
                 it yourself: <code>{command} --format dot | dot -Tsvg &gt; picture.svg</code>.\
                 </p>\n",
                escape_html(&why)
            ));
        }
    };
    Ok(format!(
        "<figure class=\"picture\" role=\"img\" aria-label=\"{}\">\n{svg}\n\
         <figcaption><code>{command} --format dot | dot -Tsvg</code></figcaption>\n</figure>\n",
        escape_html(picture.alt)
    ))
}

/// `dot -Tsvg` of `graph`: the SVG element alone (no XML declaration or comments), and no blank
/// line, so that Markdown keeps it as one block of HTML.
fn render_svg(graph: &str) -> Result<String, String> {
    use std::io::Write as _;
    let mut child = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("Graphviz's `dot` cannot be run ({e})"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(graph.as_bytes())
            .map_err(|e| format!("cannot write to `dot`: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`dot` failed: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`dot -Tsvg` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let svg = String::from_utf8_lossy(&out.stdout);
    let start = svg
        .find("<svg")
        .ok_or("`dot -Tsvg` printed no <svg> element")?;
    let svg: Vec<&str> = svg[start..]
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with("<!--"))
        .collect();
    Ok(svg.join("\n"))
}

/// What ownerlint prints on standard output for `args` (run from the repository's root, as
/// the library runs it); an error when it fails.
fn run_ownerlint(args: &[&str]) -> Result<String, String> {
    use clap::Parser;
    let cli = ownerlint::cli::Cli::try_parse_from(args).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = {
        let mut streams = ownerlint::run::Streams {
            stdin: Box::new(std::io::empty()),
            stdout: Box::new(&mut out),
            stderr: Box::new(&mut err),
            stdout_is_terminal: false,
            stdin_has_data: false,
        };
        match cli.command {
            Some(ownerlint::cli::Command::Tree(tree)) => {
                ownerlint::run::tree((*tree).into(), &mut streams)
            }
            Some(ownerlint::cli::Command::DeletePreview(preview)) => {
                ownerlint::run::delete_preview((*preview).into(), &mut streams)
            }
            _ => return Err(format!("no picture is made of {args:?}")),
        }
    };
    if code != 0 {
        return Err(format!(
            "{} failed ({code}): {}",
            args.join(" "),
            String::from_utf8_lossy(&err)
        ));
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// What ownerlint prints on a terminal for `args` (run from the repository's root, as the
/// library runs it), as a picture of that terminal: HTML, with its colours.
fn terminal(args: &[&str]) -> Result<String, String> {
    use clap::Parser;
    let cli = ownerlint::cli::Cli::try_parse_from(args).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut err = Vec::new();
    {
        let mut streams = ownerlint::run::Streams {
            stdin: Box::new(std::io::empty()),
            stdout: Box::new(&mut out),
            stderr: Box::new(&mut err),
            stdout_is_terminal: true,
            stdin_has_data: false,
        };
        match cli.command {
            None => ownerlint::run::lint(cli.lint.into(), &mut streams),
            Some(ownerlint::cli::Command::Tree(tree)) => {
                ownerlint::run::tree((*tree).into(), &mut streams)
            }
            Some(_) => return Err(format!("no picture is made of {args:?}")),
        };
    }
    let command: Vec<&str> = args
        .iter()
        .copied()
        .filter(|arg| !["--color", "always"].contains(arg))
        .collect();
    Ok(format!(
        "<pre class=\"terminal\"><span class=\"prompt\">$ {}</span>\n{}{}</pre>\n",
        escape_html(&command.join(" ")),
        ansi_to_html(&String::from_utf8_lossy(&out)),
        ansi_to_html(&String::from_utf8_lossy(&err)),
    ))
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text with ANSI colours (SGR sequences) as HTML spans; any other escape sequence is dropped.
fn ansi_to_html(text: &str) -> String {
    const COLOURS: [&str; 8] = [
        "#4d4d4d", "#e5534b", "#57ab5a", "#c69026", "#539bf5", "#b083f0", "#39c5cf", "#d0d0d0",
    ];
    const BRIGHT: [&str; 8] = [
        "#868e96", "#ff6a69", "#6bc46d", "#daaa3f", "#6cb6ff", "#dcbdfb", "#56d4dd", "#ffffff",
    ];
    let mut html = String::new();
    let mut open = false;
    let mut rest = text;
    while let Some(at) = rest.find('\u{1b}') {
        html.push_str(&escape_html(&rest[..at]));
        let sequence = &rest[at + 1..];
        let Some(body) = sequence.strip_prefix('[') else {
            rest = sequence;
            continue;
        };
        let end = body
            .find(|c: char| c.is_ascii_alphabetic())
            .unwrap_or(body.len());
        let (parameters, after) = body.split_at(end);
        rest = after.get(1..).unwrap_or("");
        if !after.starts_with('m') {
            continue;
        }
        let codes: Vec<u16> = parameters
            .split(';')
            .map(|code| code.parse().unwrap_or(0))
            .collect();
        let mut style = Vec::new();
        let mut codes = codes.iter().copied();
        while let Some(code) = codes.next() {
            match code {
                1 => style.push("font-weight:bold".to_string()),
                2 => style.push("opacity:0.7".to_string()),
                3 => style.push("font-style:italic".to_string()),
                4 => style.push("text-decoration:underline".to_string()),
                30..=37 => style.push(format!("color:{}", COLOURS[usize::from(code - 30)])),
                90..=97 => style.push(format!("color:{}", BRIGHT[usize::from(code - 90)])),
                38 => match codes.next() {
                    Some(5) => {
                        let n = usize::from(codes.next().unwrap_or(7));
                        let colour = match n {
                            0..=7 => COLOURS[n].to_string(),
                            8..=15 => BRIGHT[n - 8].to_string(),
                            _ => "#d0d0d0".to_string(),
                        };
                        style.push(format!("color:{colour}"));
                    }
                    Some(2) => {
                        let (r, g, b) = (
                            codes.next().unwrap_or(0),
                            codes.next().unwrap_or(0),
                            codes.next().unwrap_or(0),
                        );
                        style.push(format!("color:rgb({r},{g},{b})"));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        if open {
            html.push_str("</span>");
            open = false;
        }
        if !style.is_empty() {
            let _ = write!(html, "<span style=\"{}\">", style.join(";"));
            open = true;
        }
    }
    html.push_str(&escape_html(rest));
    if open {
        html.push_str("</span>");
    }
    html
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            fs::copy(&path, &target).map_err(|e| format!("cannot copy {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn files_under(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            files_under(&path, extension, out)?;
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
    out.sort();
    Ok(())
}

fn markdown_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    files_under(dir, "md", &mut files)?;
    Ok(files)
}

fn html_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    files_under(dir, "html", &mut files)?;
    Ok(files)
}

/// `<!-- ownerlint: NAME -->` on a line of its own becomes the generated text `NAME`.
fn fill_markers(text: &str, generated: &BTreeMap<&str, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        match trimmed
            .strip_prefix(MARK)
            .and_then(|rest| rest.strip_suffix("-->"))
        {
            Some(name) => {
                let name = name.trim();
                let text = generated
                    .get(name)
                    .ok_or_else(|| format!("no generated text `{name}`"))?;
                out.push_str(text);
            }
            None => out.push_str(line),
        }
    }
    Ok(out)
}

/// `[text](repo:PATH)`: a file of the repository, linked where it is published.
fn repository_links(text: &str, repository: &str) -> String {
    text.replace("](repo:", &format!("]({repository}/blob/main/"))
}

/// The path the site is published at: GitHub Pages serves a repository's site at
/// `https://OWNER.github.io/REPOSITORY/`.
fn site_url(repository: &str) -> String {
    let name = repository.rsplit('/').next().unwrap_or("ownerlint");
    format!("/{name}/")
}

fn book_toml(out: &Path, repository: &str) -> String {
    let site_url = site_url(repository);
    let path = out
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    format!(
        r#"[book]
title = "ownerlint"
description = "Find broken Kubernetes ownership (metadata.ownerReferences) before it reaches a cluster"
language = "en"
src = "src"

[build]
build-dir = "{path}"
create-missing = false

[output.html]
smart-punctuation = false
site-url = "{site_url}"
git-repository-url = "{repository}"
additional-css = ["terminal.css"]
no-section-label = true

[output.html.search]
enable = false
"#
    )
}

/// The rule table, each id linking to its page (`prefix` is the path to `rules/`).
fn rules_table(prefix: &str) -> String {
    let mut table = String::from("| rule | default | fix | finding |\n|---|---|---|---|\n");
    for rule in RULES {
        let meta = rule.meta;
        let _ = writeln!(
            table,
            "| [`{id}`]({prefix}{id}.md) | {severity} | {fix} | {summary} |",
            id = meta.id,
            severity = meta.default_severity,
            fix = meta.fix.map_or("", |fix| fix.as_str()),
            summary = meta.summary.replace('|', "\\|"),
        );
    }
    table
}

fn rules_index() -> String {
    format!(
        "# Rules\n\n\
         Every rule ownerlint has, in the order of its catalogue, with its default severity, how \
         far its fix is trusted (see [Fixing](../fixing.md)) and what it finds. Each page says \
         what the rule checks, why it matters (what Kubernetes does, and the source or \
         observation it follows), a failing and a passing example (both run by the tests), and \
         how to fix it: the same text as `ownerlint explain RULE`. Set a rule's level in \
         [`.ownerlint.yaml`](../configuration.md) (`rules: {{owner-not-found: error}}`), or \
         [suppress](../suppressing.md) one finding.\n\n{}",
        rules_table("")
    )
}

fn rule_pages_summary() -> String {
    RULES
        .iter()
        .map(|rule| format!("  - [{id}](rules/{id}.md)\n", id = rule.meta.id))
        .collect()
}

fn rule_page(meta: &ownerlint::finding::RuleMeta) -> String {
    let mut page = format!("# {}\n\n", meta.id);
    let _ = writeln!(page, "{}\n", meta.summary);
    let _ = writeln!(page, "| rule | `{}` |\n|---|---|", meta.id);
    let _ = writeln!(page, "| default severity | {} |", meta.default_severity);
    if let Some(complete) = meta.complete_severity {
        let _ = writeln!(page, "| with `--complete` | {complete} |");
    }
    if let Some(varies) = meta.severity_varies {
        let _ = writeln!(page, "| otherwise | {varies} |");
    }
    let _ = writeln!(
        page,
        "| fix | {} |",
        meta.fix.map_or("none".to_string(), |fix| format!(
            "{} (see [Fixing](../fixing.md))",
            fix.as_str()
        ))
    );
    let _ = writeln!(
        page,
        "| configure | `rules: {{{}: off}}` in [`.ownerlint.yaml`](../configuration.md) (`off`, `info`, `warning`, `error`) |",
        meta.id
    );
    let _ = writeln!(
        page,
        "| suppress | `# ownerlint: ignore[{}] reason` ([more](../suppressing.md)) |\n",
        meta.id
    );
    // The document without its own title.
    let body = meta
        .doc
        .trim_start()
        .strip_prefix(&format!("# {}", meta.id))
        .unwrap_or(meta.doc);
    page.push_str(body.trim_start_matches('\n'));
    if !page.ends_with('\n') {
        page.push('\n');
    }
    page
}

/// The whole command line, as `ownerlint --help` and each subcommand's `--help` print it.
fn command() -> clap::Command {
    let mut command = ownerlint::cli::Cli::command()
        .bin_name("ownerlint")
        .term_width(100);
    command.build();
    command
}

fn subcommands(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command
        .get_subcommands()
        .filter(|sub| sub.get_name() != "help" && !sub.is_hide_set())
}

fn cli_reference() -> String {
    let mut command = command();
    let mut page = String::from(
        "# Command line\n\n\
         What `ownerlint --help` and each subcommand's `--help` print, made from the same \
         definition. Options may stand before or after the subcommand. The man page \
         (`ownerlint man`) holds the same, with examples.\n\n",
    );
    let _ = write!(
        page,
        "## ownerlint\n\n```text\n{}```\n\n",
        command.render_long_help()
    );
    let names: Vec<String> = subcommands(&command)
        .map(|sub| sub.get_name().to_string())
        .collect();
    for name in names {
        let Some(sub) = command.find_subcommand_mut(&name) else {
            continue;
        };
        let help = sub.render_long_help().to_string();
        let _ = write!(page, "## ownerlint {name}\n\n```text\n{help}```\n\n");
    }
    page
}

/// Each subcommand with its one line, for the pages that name them all.
fn subcommands_table() -> String {
    let command = command();
    let mut table = String::from("| command | what it does |\n|---|---|\n");
    let _ = writeln!(
        table,
        "| [`ownerlint [PATHS]...`](reference/cli.md#ownerlint) | lint files and folders (default: `.`); `-` reads standard input |"
    );
    for sub in subcommands(&command) {
        let about = sub
            .get_about()
            .map(|a| a.to_string())
            .unwrap_or_default()
            .replace('\n', " ")
            .replace('|', "\\|");
        let _ = writeln!(
            table,
            "| [`ownerlint {name}`](reference/cli.md#ownerlint-{name}) | {about} |",
            name = sub.get_name()
        );
    }
    table
}

fn configuration_reference() -> String {
    let mut page = String::from(
        "# Configuration reference\n\n\
         Every key of `.ownerlint.yaml`, made from the table the configuration reader takes its \
         key names from: a key not listed here is an error. Every key is optional; a flag on \
         the command line overrides the file. See [Configuration](../configuration.md) for how \
         the file is found, an example, and `ownerlint config`.\n\n\
         | key | value | default | meaning |\n|---|---|---|---|\n",
    );
    fn rows(page: &mut String, keys: &[Key], prefix: &str) {
        for key in keys {
            let name = format!("{prefix}{}", key.name);
            let _ = writeln!(
                page,
                "| `{name}` | {} | {} | {} |",
                key.value, key.default, key.meaning
            );
            let inner = if key.value.starts_with("a list") {
                format!("{name}[].")
            } else {
                format!("{name}.")
            };
            // `policies.required-owner` is a list of policies; its items' keys follow.
            rows(page, key.keys, &inner);
        }
    }
    rows(&mut page, schema::SCHEMA, "");
    let ids: Vec<String> = RULES.iter().map(|r| format!("`{}`", r.meta.id)).collect();
    let _ = write!(
        page,
        "\nThe rule ids `rules` takes: {}. The policy packs `packs` takes: {}.\n",
        ids.join(", "),
        ownerlint::policy::pack_names()
            .iter()
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    page
}

/// The inputs and outputs `action.yml` declares.
struct Action {
    inputs: Vec<(String, String, String)>,
    outputs: Vec<(String, String)>,
}

impl Action {
    fn read(root: &Path) -> Result<Action, String> {
        use ownerlint::yaml::{self, Limits, Node};
        let path = root.join("action.yml");
        let text = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let chunk = yaml::split_documents(&text, 0)
            .into_iter()
            .next()
            .ok_or("action.yml is empty")?;
        let root = yaml::parse_document(&text, chunk, Limits::default())
            .map_err(|e| format!("action.yml: {e:?}"))?
            .root
            .ok_or("action.yml is empty")?;
        let text_of = |node: Option<&Node>| {
            node.and_then(Node::as_scalar)
                .map_or(String::new(), |s| s.text.clone())
        };
        let entries = |name: &str| -> Vec<(String, Node)> {
            root.get(name)
                .and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .map(|(k, v)| (text_of(Some(k)), v.clone()))
                .collect()
        };
        let inputs = entries("inputs")
            .into_iter()
            .map(|(name, node)| {
                (
                    name,
                    text_of(node.get("default")),
                    text_of(node.get("description")),
                )
            })
            .collect();
        let outputs = entries("outputs")
            .into_iter()
            .map(|(name, node)| (name, text_of(node.get("description"))))
            .collect();
        Ok(Action { inputs, outputs })
    }

    fn inputs_table(&self) -> String {
        let mut table = String::from("| input | default | meaning |\n|---|---|---|\n");
        for (name, default, description) in &self.inputs {
            let default = if default.is_empty() {
                "(empty)".to_string()
            } else {
                format!("`{default}`")
            };
            let _ = writeln!(table, "| `{name}` | {default} | {} |", cell(description));
        }
        table
    }

    fn outputs_table(&self) -> String {
        let mut table = String::from("| output | value |\n|---|---|\n");
        for (name, description) in &self.outputs {
            let _ = writeln!(table, "| `{name}` | {} |", cell(description));
        }
        table
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// Every link and image of the built pages that leads to another built page (or a part of
/// one) that does not exist, as `page: link`.
fn check_links(site: &Path, site_url: &str) -> Result<Vec<String>, String> {
    let pages = html_files(site)?;
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut texts = Vec::new();
    for page in &pages {
        let text = fs::read_to_string(page).map_err(|e| format!("{}: {e}", page.display()))?;
        let mut found = BTreeSet::new();
        for attribute in ["id", "name"] {
            found.extend(attribute_values(&text, attribute));
        }
        ids.insert(page.clone(), found);
        texts.push((page.clone(), text));
    }
    let mut broken = Vec::new();
    for (page, text) in &texts {
        let dir = page.parent().unwrap_or(site);
        for attribute in ["href", "src"] {
            for link in attribute_values(text, attribute) {
                if link.contains("://")
                    || link.starts_with("mailto:")
                    || link.starts_with("javascript:")
                    || link.starts_with("data:")
                    || link.starts_with("//")
                    || link.contains("{{")
                {
                    continue;
                }
                let link_path = link.split('?').next().unwrap_or("");
                let (path, fragment) = match link_path.split_once('#') {
                    Some((path, fragment)) => (path, Some(fragment)),
                    None => (link_path, None),
                };
                let target = if path.is_empty() {
                    page.clone()
                } else {
                    // A path from the site's root, where it is published (the 404 page's
                    // links are).
                    let (base, path) = match path.strip_prefix(site_url) {
                        Some(path) => (site, path),
                        None => (dir, path),
                    };
                    let mut target = normalize(&base.join(percent_decoded(path)));
                    if target.is_dir() {
                        target = target.join("index.html");
                    }
                    target
                };
                let shown = page.strip_prefix(site).unwrap_or(page).display();
                if !target.starts_with(site) || !target.is_file() {
                    broken.push(format!("{shown}: {link} (no such page)"));
                    continue;
                }
                if let Some(fragment) = fragment.filter(|f| !f.is_empty())
                    && target.extension().is_some_and(|e| e == "html")
                    && !ids
                        .get(&target)
                        .is_some_and(|found| found.contains(&percent_decoded(fragment)))
                {
                    broken.push(format!("{shown}: {link} (no such anchor)"));
                }
            }
        }
    }
    broken.sort();
    broken.dedup();
    Ok(broken)
}

/// The values of `attribute="…"` in an HTML text, entities for `&` decoded.
fn attribute_values(text: &str, attribute: &str) -> Vec<String> {
    let needle = format!(" {attribute}=\"");
    let mut values = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let after = &rest[at + needle.len()..];
        let Some(end) = after.find('"') else { break };
        values.push(after[..end].replace("&amp;", "&"));
        rest = &after[end..];
    }
    values
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = bytes
                .get(i + 1..i + 3)
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `a/./b/../c` as `a/c`, without asking the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        crate::workspace_root()
    }

    #[test]
    fn markers_are_filled_and_an_unknown_one_is_an_error() {
        let generated: BTreeMap<&str, String> = [("a", "A\n".to_string())].into_iter().collect();
        assert_eq!(
            fill_markers("x\n<!-- ownerlint: a -->\ny\n", &generated),
            Ok("x\nA\ny\n".to_string())
        );
        assert!(fill_markers("<!-- ownerlint: b -->\n", &generated).is_err());
    }

    /// The graph page embeds the pictures of the bundled example, drawn by Graphviz, naming
    /// its objects; without `dot` (outside CI) it says that they were not rendered.
    #[test]
    fn the_graph_page_shows_the_pictures_of_the_example() {
        let root = root();
        std::env::set_current_dir(&root).expect("the repository's root");
        let dot_present = std::process::Command::new("dot")
            .arg("-V")
            .output()
            .is_ok_and(|out| out.status.success());
        let page = fs::read_to_string(root.join("docs/src/graph.md")).expect("graph.md");
        let generated: BTreeMap<&str, String> = [
            ("tree-picture", picture(&TREE_PICTURE)),
            ("delete-preview-picture", picture(&DELETE_PREVIEW_PICTURE)),
        ]
        .into_iter()
        .map(|(name, made)| match made {
            Ok(html) => (name, html),
            Err(why) => panic!("{name}: {why}"),
        })
        .chain(
            [
                "action-inputs",
                "action-outputs",
                "rule-pages",
                "rule-table",
                "subcommands",
            ]
            .map(|name| (name, String::new())),
        )
        .collect();
        let filled = fill_markers(&page, &generated).expect("the markers are filled");
        if !dot_present {
            assert!(
                filled.contains("This picture was not rendered"),
                "without dot the page says so:\n{filled}"
            );
            eprintln!("the pictures are not checked: Graphviz's dot is not installed ({GRAPHVIZ})");
            return;
        }
        let figures: Vec<&str> = filled.split("<figure class=\"picture\"").skip(1).collect();
        assert_eq!(figures.len(), 2, "{filled}");
        let objects = [
            // The tree: objects, and placeholders for owners that do not resolve.
            vec![
                "ReplicaSet payments/billing-7c9f8d6b5",
                "Pod payments/billing-7c9f8d6b5-tx2lp",
                "Pod payments/billing-7c9f8d6b5-q8kzn",
                "Pod payments/batch-report-28471230-m4x9z",
                "Pod payments/billing-debug",
                "Deployment payments/billing (not found)",
            ],
            // The delete, with each fate and the legend.
            vec![
                "ReplicaSet payments/billing-7c9f8d6b5",
                "deleted 3",
                "Pod payments/billing-7c9f8d6b5-tx2lp",
                "Pod payments/billing-7c9f8d6b5-w7r2d",
                "deleted 1: blocks owner deletion",
                "Legend",
            ],
        ];
        for (figure, objects) in figures.iter().zip(objects) {
            let svg = figure.split("</svg>").next().unwrap_or("");
            assert!(svg.contains("<svg"), "no SVG in the figure:\n{figure}");
            // Graphviz writes `-` as `&#45;`.
            let text = svg.replace("&#45;", "-");
            for object in objects {
                assert!(
                    text.contains(&format!(">{object}</text>")),
                    "the picture does not name {object}:\n{svg}"
                );
            }
            assert!(
                !svg.lines().any(|line| line.trim().is_empty()),
                "a blank line would end the HTML block"
            );
        }
    }

    /// A link to a page or an anchor that is not there is found; those that are, are not.
    #[test]
    fn broken_links_are_found() {
        let site = std::env::temp_dir().join(format!("xtask-links-{}", std::process::id()));
        let _ = fs::remove_dir_all(&site);
        fs::create_dir_all(site.join("rules")).expect("mkdir");
        fs::write(
            site.join("index.html"),
            r##"<a href="rules/a.html#why">a</a> <a href="rules/b.html">b</a> <a href="#top">top</a> <a href="https://example.com/x">x</a> <h1 id="top"></h1>"##,
        )
        .expect("write");
        fs::write(
            site.join("rules/a.html"),
            r#"<h2 id="what"></h2><a href="../index.html#top">up</a><a href="../index.html#gone">gone</a>"#,
        )
        .expect("write");
        let broken = check_links(&site, "/ownerlint/").expect("checked");
        fs::remove_dir_all(&site).expect("removed");
        assert_eq!(
            broken,
            [
                "index.html: rules/a.html#why (no such anchor)",
                "index.html: rules/b.html (no such page)",
                "rules/a.html: ../index.html#gone (no such anchor)",
            ]
        );
    }
}
