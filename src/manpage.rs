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
    writeln!(page, ".SH \"EXIT STATUS\"")?;
    if let Some(text) = command.get_after_help() {
        writeln!(page, "{}", roff_text(&text.to_string()))?;
    }
    writeln!(page, ".SH \"SEE ALSO\"")?;
    writeln!(
        page,
        "\\fBownerlint rules\\fR lists the rules; \\fBownerlint explain RULE\\fR prints a rule's document."
    )?;
    main.render_version_section(&mut page)?;
    Ok(page)
}

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
