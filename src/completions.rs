//! `ownerlint completions SHELL`: clap_complete's script for the command line, with what its
//! static scripts cannot say. Rule ids are possible values of `explain` (every shell offers
//! them); paths carry value hints (zsh and fish complete files from them). Bash's script offers
//! a positional argument's literal words only (subcommands, rule ids) and files only when there
//! are none, so `ownerlint de<TAB>` would never reach `deploy/`: a wrapper adds the files that
//! match wherever paths are taken.

use std::fmt::Write;

/// The completion script of `command` (the whole command line) for `shell`.
pub(crate) fn script(mut command: clap::Command, shell: clap_complete::Shell) -> Vec<u8> {
    // Into memory first: `generate` panics when its writer fails.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "ownerlint", &mut script);
    if shell != clap_complete::Shell::Bash {
        return script;
    }
    let script = String::from_utf8_lossy(&script).into_owned();
    let register = "\nif [[ \"${BASH_VERSINFO[0]}\" -eq 4";
    let Some(at) = script.find(register) else {
        return script.into_bytes();
    };
    let wrapper = bash_paths(&command);
    let (function, registration) = script.split_at(at);
    format!(
        "{function}\n{wrapper}{}",
        registration.replace("complete -F _ownerlint ", "complete -F _ownerlint_paths ")
    )
    .into_bytes()
}

/// A bash function that runs clap's and adds the files matching the word, unless the word is
/// an option, an option's value, or a word of a subcommand that takes no path.
fn bash_paths(command: &clap::Command) -> String {
    // Every option that takes a value, in every subcommand: the word after one is its value.
    let mut valued: Vec<String> = Vec::new();
    let mut stack = vec![command];
    while let Some(command) = stack.pop() {
        for arg in command.get_arguments() {
            if arg.is_positional() || !arg.get_action().takes_values() {
                continue;
            }
            valued.extend(arg.get_long().map(|l| format!("--{l}")));
            valued.extend(arg.get_short().map(|s| format!("-{s}")));
        }
        stack.extend(command.get_subcommands());
    }
    valued.sort();
    valued.dedup();
    // Subcommands whose positional arguments are paths (delete-preview's after its target).
    let with_paths = |name: &str| {
        command
            .find_subcommand(name)
            .is_some_and(|c| c.get_positionals().any(|p| p.get_id() == "paths"))
    };
    let mut subcommands: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    if !subcommands.contains(&"help") {
        subcommands.push("help");
    }
    let (paths, none): (Vec<&str>, Vec<&str>) = subcommands
        .into_iter()
        .filter(|&name| name != "delete-preview")
        .partition(|name| with_paths(name));
    let mut out = String::new();
    let _ = write!(
        out,
        r#"_ownerlint_paths() {{
    _ownerlint "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}" word skip="" sub="" count=0
    [[ ${{cur}} == -* ]] && return 0
    # The words before this one: options, their values, and positional words.
    for word in "${{COMP_WORDS[@]:1:COMP_CWORD-1}}"; do
        if [[ -n ${{skip}} ]]; then
            skip=""
            continue
        fi
        case "${{word}}" in
            {valued})
                skip=1
                ;;
            -*)
                ;;
            *)
                [[ -z ${{sub}} ]] && sub="${{word}}"
                count=$((count + 1))
                ;;
        esac
    done
    # The word being completed is an option's value: clap's script has completed it.
    [[ -n ${{skip}} ]] && return 0
    case "${{sub}}" in
        {none})
            return 0
            ;;
        delete-preview)
            # Its first word is the object to delete, then paths.
            [[ ${{count}} -lt 2 ]] && return 0
            ;;
        {paths})
            ;;
    esac
    local IFS=$'\n'
    COMPREPLY+=($(compgen -f -- "${{cur}}"))
    compopt -o filenames 2>/dev/null
    return 0
}}
"#,
        valued = valued.join("|"),
        none = none.join("|"),
        paths = paths.join("|"),
    );
    out
}
