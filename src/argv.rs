//! Where the subcommand is in a command line.
//!
//! Linting takes paths where a subcommand would stand, so clap finds a subcommand only as the
//! first word: `ownerlint -n shop tree x/` would lint the paths `tree` and `x/`, and
//! `ownerlint --no-config rules` the folder `rules/`. A user who writes an option first means
//! the subcommand all the same, so the first word that is not an option (or an option's value)
//! is moved to the front when it names a subcommand. A word that names neither a subcommand nor
//! an existing path, but is close to a subcommand (`explian`), is a typo, not a path.

use std::ffi::OsString;
use std::path::Path;

/// The command line as clap should read it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Arranged {
    /// Unchanged, or with the subcommand moved to the front.
    Args { args: Vec<OsString>, moved: bool },
    /// The first word is no path and no subcommand, but close to one.
    Mistyped { word: String, suggestion: String },
}

/// Arrange `args` (program name first) for `command`'s parser.
pub(crate) fn arrange(command: &mut clap::Command, args: Vec<OsString>) -> Arranged {
    command.build();
    let Some(at) = first_word(command, &args) else {
        return Arranged::Args { args, moved: false };
    };
    let word = args[at].to_string_lossy().into_owned();
    if command.find_subcommand(&word).is_some() {
        if at == 1 {
            return Arranged::Args { args, moved: false };
        }
        let mut args = args;
        let subcommand = args.remove(at);
        args.insert(1, subcommand);
        return Arranged::Args { args, moved: true };
    }
    if looks_like_a_subcommand(&word)
        && !Path::new(&args[at]).exists()
        && let Some(suggestion) = closest_subcommand(command, &word)
    {
        return Arranged::Mistyped { word, suggestion };
    }
    Arranged::Args { args, moved: false }
}

/// The index of the first argument that is neither an option nor an option's value; `None`
/// after `--`, which makes every later word a path.
fn first_word(command: &clap::Command, args: &[OsString]) -> Option<usize> {
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].to_string_lossy();
        if arg == "--" {
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if !long.contains('=') && takes_value(command, Name::Long(long)) {
                i += 1;
            }
        } else if let Some(shorts) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-qn shop`: the first short that takes a value takes the rest of the word, or
            // the next word when it ends the cluster.
            let mut chars = shorts.chars();
            while let Some(c) = chars.next() {
                if takes_value(command, Name::Short(c)) {
                    if chars.as_str().is_empty() {
                        i += 1;
                    }
                    break;
                }
            }
        } else {
            return Some(i);
        }
        i += 1;
    }
    None
}

enum Name<'a> {
    Long(&'a str),
    Short(char),
}

fn takes_value(command: &clap::Command, name: Name) -> bool {
    command
        .get_arguments()
        .filter(|arg| !arg.is_positional() && arg.get_action().takes_values())
        .any(|arg| match name {
            Name::Long(long) => arg
                .get_long_and_visible_aliases()
                .is_some_and(|names| names.contains(&long)),
            Name::Short(short) => arg
                .get_short_and_visible_aliases()
                .is_some_and(|names| names.contains(&short)),
        })
}

/// The subcommand `word` is a slip of the keyboard from: one or two letters added, dropped,
/// changed or swapped (a third of the name at most). Stricter than similarity scores, which
/// take `manifests` for `man`.
fn closest_subcommand(command: &clap::Command, word: &str) -> Option<String> {
    command
        .get_subcommands()
        .map(clap::Command::get_name)
        .map(|name| (strsim::damerau_levenshtein(word, name), name))
        .filter(|&(distance, name)| distance <= (name.chars().count() / 3).clamp(1, 2))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, name)| name.to_string())
}

/// A bare lower-case word, as subcommands are: `deploy/` or `x.yaml` are paths.
fn looks_like_a_subcommand(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit())
}

/// The command line of this process.
pub(crate) fn of_process() -> Vec<OsString> {
    std::env::args_os().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn arrange_words(words: &str) -> Arranged {
        let args = std::iter::once("ownerlint")
            .chain(words.split_whitespace())
            .map(OsString::from)
            .collect();
        arrange(&mut crate::cli::Cli::command(), args)
    }

    fn moved(words: &str) -> Arranged {
        Arranged::Args {
            args: std::iter::once("ownerlint")
                .chain(words.split_whitespace())
                .map(OsString::from)
                .collect(),
            moved: true,
        }
    }

    fn unchanged(words: &str) -> Arranged {
        Arranged::Args {
            args: std::iter::once("ownerlint")
                .chain(words.split_whitespace())
                .map(OsString::from)
                .collect(),
            moved: false,
        }
    }

    #[test]
    fn a_subcommand_after_options_moves_to_the_front() {
        assert_eq!(
            arrange_words("-n payments tree x/"),
            moved("tree -n payments x/")
        );
        assert_eq!(
            arrange_words("--namespace=payments --complete delete-preview rs/web"),
            moved("delete-preview --namespace=payments --complete rs/web")
        );
        assert_eq!(
            arrange_words("--no-config rules"),
            moved("rules --no-config")
        );
        // `-qn shop`: `shop` is the value of -n, not a word.
        assert_eq!(arrange_words("-qn tree tree"), moved("tree -qn tree"));
    }

    #[test]
    fn option_values_and_paths_are_left_alone() {
        // `tree` is the value of --config and of -n, not the subcommand.
        assert_eq!(
            arrange_words("--config tree -n tree x/"),
            unchanged("--config tree -n tree x/")
        );
        assert_eq!(arrange_words("tree -n shop"), unchanged("tree -n shop"));
        assert_eq!(arrange_words("deploy/ rules"), unchanged("deploy/ rules"));
        assert_eq!(arrange_words("-- rules"), unchanged("-- rules"));
        assert_eq!(arrange_words("-q - rules"), unchanged("-q - rules"));
        assert_eq!(arrange_words("--quiet"), unchanged("--quiet"));
    }

    #[test]
    fn a_word_close_to_a_subcommand_that_is_no_path_is_a_typo() {
        assert_eq!(
            arrange_words("explian owner-not-found"),
            Arranged::Mistyped {
                word: "explian".into(),
                suggestion: "explain".into()
            }
        );
        assert_eq!(
            arrange_words("-q delete-preveiw rs/x"),
            Arranged::Mistyped {
                word: "delete-preveiw".into(),
                suggestion: "delete-preview".into()
            }
        );
        // Far from every subcommand: a path that does not exist, reported as such later.
        assert_eq!(arrange_words("manifests"), unchanged("manifests"));
        // `src` exists: a path, whatever it looks like.
        assert_eq!(arrange_words("src"), unchanged("src"));
    }
}
