//! `ownerlint man`: one page for the whole command line. clap_mangen's own page lists each
//! subcommand as a page of its own (`ownerlint-tree(1)`) that nothing installs; this page
//! describes each subcommand, with its synopsis and the options only it takes, in place.

use std::io::{self, Write};

/// The page of `command` (the whole command line), in roff. The options of `shared`, which
/// most subcommands take, are described once at the top, not again under each subcommand.
pub(crate) fn page(mut command: clap::Command, shared: clap::Command) -> io::Result<Vec<u8>> {
    command.build();
    let main = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    main.render_title(&mut page)?;
    main.render_name_section(&mut page)?;
    main.render_synopsis_section(&mut page)?;
    main.render_description_section(&mut page)?;
    main.render_options_section(&mut page)?;
    writeln!(page, ".SH SUBCOMMANDS")?;
    // The options that say what to read (paths, configuration, namespace, …) are described
    // above, once.
    // An option is that one only where it says the same: `ownerlint cluster`'s `-n` and
    // `--context` are its own.
    let help = |arg: &clap::Arg| arg.get_help().map(|h| h.to_string());
    let shared: Vec<(clap::Id, Option<String>)> = shared
        .get_arguments()
        .map(|arg| (arg.get_id().clone(), help(arg)))
        .collect();
    let is_shared = |arg: &clap::Arg| {
        arg.get_id() == "help"
            || shared
                .iter()
                .any(|(id, said)| id == arg.get_id() && *said == help(arg))
    };
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("ownerlint {}", sub.get_name());
        let mut own = sub.clone().bin_name(name.clone());
        let hidden: Vec<clap::Id> = sub
            .get_arguments()
            .filter(|arg| is_shared(arg))
            .map(|arg| arg.get_id().clone())
            .collect();
        for id in hidden {
            own = own.mut_arg(id, |arg| arg.hide(true));
        }
        let takes_shared = sub
            .get_arguments()
            .any(|arg| arg.get_id() != "help" && is_shared(arg));
        let man = clap_mangen::Man::new(own);
        writeln!(page, ".SS \"{name}\"")?;
        let mut part = Vec::new();
        man.render_description_section(&mut part)?;
        man.render_synopsis_section(&mut part)?;
        man.render_options_section(&mut part)?;
        // Sections of the subcommand become paragraphs of its subsection.
        for line in String::from_utf8_lossy(&part).lines() {
            match line.strip_prefix(".SH ") {
                Some("DESCRIPTION") => {}
                Some(_) => writeln!(page, ".PP")?,
                None => writeln!(page, "{line}")?,
            }
        }
        if takes_shared {
            writeln!(
                page,
                ".PP\nIt also takes the paths and input options of a run: see OPTIONS above."
            )?;
        }
    }
    writeln!(page, ".SH EXAMPLES")?;
    for (what, example) in EXAMPLES {
        writeln!(
            page,
            ".TP\n\\fB{}\\fR\n{}",
            roff_text(example),
            roff_text(what)
        )?;
    }
    writeln!(page, ".SH FILES")?;
    for (file, what) in FILES {
        writeln!(
            page,
            ".TP\n\\fI{}\\fR\n{}",
            roff_text(file),
            roff_text(what)
        )?;
    }
    writeln!(page, ".SH \"EXIT STATUS\"")?;
    for (code, what) in EXIT_STATUS {
        writeln!(page, ".TP\n\\fB{code}\\fR\n{}", roff_text(what))?;
    }
    writeln!(page, ".SH ENVIRONMENT")?;
    for (variable, what) in ENVIRONMENT {
        writeln!(page, ".TP\n\\fB{variable}\\fR\n{}", roff_text(what))?;
    }
    writeln!(page, ".SH \"SEE ALSO\"")?;
    writeln!(
        page,
        "\\fBownerlint rules\\fR lists the rules; \\fBownerlint explain RULE\\fR prints a rule's document."
    )?;
    main.render_version_section(&mut page)?;
    Ok(page)
}

/// What each example does, and the command.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "Lint a folder: every chart and overlay below it is built, every other manifest linted on its own.",
        "ownerlint deploy/",
    ),
    (
        "Lint a rendered chart from standard input; each finding names its template.",
        "helm template my-release ./chart | ownerlint -",
    ),
    (
        "Lint a dump of a cluster as the whole cluster: an owner that is not found does not exist.",
        "kubectl get deploy,rs,pods -A -o yaml | ownerlint --complete -",
    ),
    (
        "Lint the cluster of a kubeconfig context (GET requests only), and keep what was read.",
        "ownerlint cluster --context prod --save evidence/",
    ),
    (
        "Apply the safe fixes, then report what is left; --diff prints them instead.",
        "ownerlint --fix deploy/",
    ),
    (
        "Record the findings there are, then report only new ones.",
        "ownerlint --write-baseline .ownerlint-baseline.json deploy/ && ownerlint --baseline .ownerlint-baseline.json deploy/",
    ),
    (
        "Draw the ownership tree below a Deployment.",
        "ownerlint tree deploy/web -n shop manifests/",
    ),
    (
        "Show what deleting a ReplicaSet would delete with it.",
        "ownerlint delete-preview rs/web-5d8f7 -n shop manifests/",
    ),
    (
        "Write SARIF for code scanning beside the short format, in one run.",
        "ownerlint --format short --report sarif=ownerlint.sarif deploy/",
    ),
    (
        "Print what a rule checks and how to fix it.",
        "ownerlint explain owner-not-found",
    ),
];

/// The files ownerlint reads of its own accord.
const FILES: &[(&str, &str)] = &[
    (
        ".ownerlint.yaml",
        "The configuration: the nearest one from the working directory up to the repository root (the first folder with .git), unless --config names one or --no-config is given. ownerlint config prints the effective configuration and where each value came from.",
    ),
    (
        "~/.kube/config",
        "The kubeconfig that ownerlint cluster, tree --cluster and delete-preview --cluster read when KUBECONFIG is not set and --kubeconfig is not given.",
    ),
    (
        ".gitignore, .ignore, .git/info/exclude",
        "A walk of a folder skips the files they ignore, and hidden folders.",
    ),
];

/// Each exit status and what it means.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "No finding at or above --fail-on (default error)."),
    (
        "1",
        "Findings at or above --fail-on; with --diff, something to fix.",
    ),
    (
        "2",
        "A usage error, a mistake in the configuration or the baseline, or an input that could not be read (after everything readable was linted), empty standard input included; for ownerlint cluster, a cluster that could not be read, or of which no object could be read.",
    ),
];

/// The environment variables ownerlint reads.
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "When set and not empty, --color auto (the default) does not colour a terminal.",
    ),
    (
        "COLUMNS",
        "The width that reports are wrapped to, when a number; else the terminal's, else 100.",
    ),
    (
        "GITHUB_ACTIONS",
        "When true, the default format is github (workflow annotations).",
    ),
    (
        "GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA",
        "Inside a GitHub Actions job, the markdown format links each location to the file and line of that commit.",
    ),
    (
        "PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF",
        "With --git-deletions, the change whose deleted files are read (pre-commit run --from-ref ... --to-ref ... sets them); else the staged deletions.",
    ),
    (
        "KUBECONFIG",
        "The kubeconfig files that the cluster commands read, as kubectl reads it.",
    ),
    (
        "PATH",
        "Where helm, kustomize and kubectl are found to build charts and overlays; the only variable of yours they get (with --allow-remote-bases, also HOME, SSH_AUTH_SOCK, XDG_CONFIG_HOME, SSL_CERT_FILE, SSL_CERT_DIR and the proxy variables, for git).",
    ),
    (
        "GIT_SSH_COMMAND",
        "With --allow-remote-bases, the ssh that git runs to fetch a remote base (else ssh in batch mode).",
    ),
];

/// Plain text as roff: a leading `.` or `'` would be read as a request, and `\` as an escape.
fn roff_text(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.replace('\\', "\\e").replace('-', "\\-");
            if line.starts_with(['.', '\'']) {
                format!("\\&{line}")
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
