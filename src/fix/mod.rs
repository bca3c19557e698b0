//! `--fix`, `--unsafe-fixes`, `--diff`: apply the fixes findings carry.
//!
//! A round lints, chooses the fixes to apply (trusted enough, none overlapping one chosen
//! before it), and applies them to the texts in memory. Rounds repeat until no fix is left, at
//! most [`MAX_ROUNDS`] times, because one fix can make another finding appear or go. Files are
//! written only at the end, only when their bytes on disk are still those that were read, and
//! each atomically: a temporary file beside it, renamed over it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::analysis::{Analysis, Options};
use crate::edit::bytes::{Window, remove_entry};
use crate::finding::{Applicability, Edit, Finding};
use crate::source::{SourceId, Span};

/// Rounds of lint-and-fix before giving up on fixes that keep making work for each other.
pub const MAX_ROUNDS: usize = 10;

/// A fix that was applied, where its finding was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub rule: &'static str,
    pub message: String,
    /// The round that applied it, from 1: a fix of a later round is for a finding that an
    /// earlier fix brought up, which the lint before fixing did not report.
    pub round: usize,
}

/// An input the fixes changed.
#[derive(Clone, Debug)]
pub struct Changed {
    pub name: String,
    pub before: String,
    pub after: String,
}

/// What the rounds did.
pub struct Run {
    /// The analysis of the fixed texts: what is left to report.
    pub analysis: Analysis,
    pub changed: Vec<Changed>,
    pub applied: Vec<Applied>,
    /// Inputs where a fix would have left a document unreadable: those fixes were undone, and
    /// the input was fixed no further.
    pub refused: Vec<String>,
}

/// Lint and fix in memory, with fixes at least as trusted as `at_least`; `stdin` is the
/// standard input, read once by the caller.
pub fn run(options: &Options, stdin: &[u8], at_least: Applicability) -> Run {
    run_with(at_least, |texts| {
        crate::pipeline::analyze_with(options, &mut &stdin[..], texts)
    })
}

/// [`run`] on texts in memory, named as they should be reported (for tests and tools).
pub fn run_texts(inputs: &[(String, String)], options: &Options, at_least: Applicability) -> Run {
    run_with(at_least, |texts| {
        let inputs = inputs
            .iter()
            .map(|(name, text)| (name.clone(), texts.get(name).unwrap_or(text).clone()))
            .collect();
        crate::pipeline::analyze_texts(inputs, options)
    })
}

/// The rounds, with `analyze` linting the inputs with the texts fixed so far.
fn run_with(
    at_least: Applicability,
    analyze: impl Fn(&HashMap<String, String>) -> Analysis,
) -> Run {
    let mut texts: HashMap<String, String> = HashMap::new();
    let mut before: BTreeMap<String, String> = BTreeMap::new();
    let mut applied = Vec::new();
    // Where each applied fix's finding was, as an offset in the input as it was read: the
    // edits of earlier rounds are undone on it (`history`, each input's edits by round).
    let mut found_at: Vec<usize> = Vec::new();
    let mut history: HashMap<String, Vec<Vec<(Span, usize)>>> = HashMap::new();
    // Inputs a fix made unreadable: put back as they were before it, and fixed no further.
    let mut frozen: HashSet<String> = HashSet::new();
    let mut analysis = analyze(&texts);
    for round_number in 1..=MAX_ROUNDS {
        let outcome = &analysis.outcome;
        let chosen: Vec<&Finding> = choose(&outcome.findings, at_least)
            .into_iter()
            .filter(|f| !frozen.contains(&outcome.source(f.primary.source).name))
            .collect();
        if chosen.is_empty() {
            break;
        }
        let mut edits: BTreeMap<SourceId, Vec<&Edit>> = BTreeMap::new();
        let mut round: Vec<(Applied, usize)> = Vec::new();
        for finding in &chosen {
            let source = outcome.source(finding.primary.source);
            let Some(fix) = finding.fix.as_ref() else {
                continue;
            };
            let rounds = history.get(&source.name).map_or(&[][..], Vec::as_slice);
            let offset = offset_before(finding.primary.span.start, rounds);
            round.push((
                Applied {
                    path: source.name.clone(),
                    line: 0,
                    column: 0,
                    rule: finding.rule.id,
                    message: fix.message.clone(),
                    round: round_number,
                },
                offset,
            ));
            for edit in &fix.edits {
                edits.entry(edit.source).or_default().push(edit);
            }
        }
        let mut previous: HashMap<String, Option<String>> = HashMap::new();
        // Inputs a fix made less readable: put back as they were before this round.
        let mut broken: Vec<String> = Vec::new();
        for (id, edits) in edits {
            let source = outcome.source(id);
            let Ok(text) = source.text.str(0..source.text.len()) else {
                continue;
            };
            let text = text.into_owned();
            let whole = whole_lists(&analysis, id, &text, &edits);
            let edits: Vec<&Edit> = edits
                .into_iter()
                .filter(|e| !whole.iter().any(|w| overlap(w.span, e.span)))
                .chain(&whole)
                .collect();
            let fixed = apply(&text, &edits);
            history.entry(source.name.clone()).or_default().push(
                edits
                    .iter()
                    .map(|e| (e.span, e.replacement.len()))
                    .collect(),
            );
            if unreadable_documents(&fixed) > unreadable_documents(&text) {
                broken.push(source.name.clone());
            }
            before
                .entry(source.name.clone())
                .or_insert_with(|| text.clone());
            previous.insert(
                source.name.clone(),
                texts.insert(source.name.clone(), fixed),
            );
        }
        for name in &broken {
            match previous.remove(name).flatten() {
                Some(text) => texts.insert(name.clone(), text),
                None => texts.remove(name),
            };
            round.retain(|(a, _)| &a.path != name);
            if let Some(rounds) = history.get_mut(name) {
                rounds.pop();
            }
            frozen.insert(name.clone());
        }
        for (a, offset) in round {
            applied.push(a);
            found_at.push(offset);
        }
        analysis = analyze(&texts);
    }
    for (a, &offset) in applied.iter_mut().zip(&found_at) {
        if let Some(text) = before.get(&a.path) {
            (a.line, a.column) = line_col(text, offset);
        }
    }
    applied.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    let changed = before
        .into_iter()
        .filter_map(|(name, before)| {
            let after = texts.remove(&name)?;
            (after != before).then_some(Changed {
                name,
                before,
                after,
            })
        })
        .collect();
    let mut refused: Vec<String> = frozen.into_iter().collect();
    refused.sort();
    Run {
        analysis,
        changed,
        applied,
        refused,
    }
}

/// Edits that remove the `ownerReferences` key (with the comments under it) of each object of
/// `source` whose every reference `edits` remove in this round, rather than leave the key
/// holding nothing. Each covers the removals of that list, which it replaces.
fn whole_lists(analysis: &Analysis, source: SourceId, text: &str, edits: &[&Edit]) -> Vec<Edit> {
    let removes = |span: Span| {
        edits.iter().any(|e| {
            e.replacement.is_empty() && e.span.start <= span.start && span.end <= e.span.end
        })
    };
    let window = Window {
        bytes: text.as_bytes(),
        base: 0,
    };
    analysis
        .objects
        .iter()
        .filter(|o| o.source == source)
        .filter_map(|o| match &o.owner_refs {
            crate::model::OwnerRefs::List { refs, key, value }
                if refs.len() > 1 && refs.iter().all(|r| removes(r.span)) =>
            {
                remove_entry(window, *key, *value)
            }
            _ => None,
        })
        .map(|span| Edit {
            source,
            span,
            replacement: String::new(),
        })
        .collect()
}

/// The offset in an input as it was read of `offset` in its text after the edits of `rounds`
/// (each round's edits, in spans of the text before it): an offset inside an edit is taken
/// to where that edit starts.
fn offset_before(mut offset: usize, rounds: &[Vec<(Span, usize)>]) -> usize {
    for edits in rounds.iter().rev() {
        let mut sorted = edits.clone();
        sorted.sort_by_key(|(span, _)| span.start);
        // How much longer the text after the edits already passed is than before them.
        let mut grown: isize = 0;
        let mut inside = None;
        for (span, replacement) in sorted {
            let start = span.start as isize + grown;
            let end = start + replacement as isize;
            if (offset as isize) < start {
                break;
            }
            if (offset as isize) < end {
                inside = Some(span.start);
                break;
            }
            grown += replacement as isize - span.len() as isize;
        }
        offset = inside.unwrap_or_else(|| (offset as isize - grown).max(0) as usize);
    }
    offset
}

/// The 1-based line and column (in characters) of `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.as_bytes().get(..offset).unwrap_or_default();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = text
        .get(line_start..offset)
        .map_or(offset - line_start, |t| t.chars().count())
        + 1;
    (line, column)
}

/// How many documents of `text` the YAML reader cannot read: a fix must not add one, whatever
/// the rules' levels and suppressions say.
fn unreadable_documents(text: &str) -> usize {
    crate::yaml::split_documents(text, 0)
        .into_iter()
        .filter(|chunk| {
            crate::yaml::parse_document(text, *chunk, crate::yaml::Limits::default()).is_err()
        })
        .count()
}

/// The findings whose fixes a round applies: trusted enough, in the order of the findings, each
/// left out when one of its edits overlaps an edit already chosen (it is tried again next
/// round, on the fixed text).
pub fn choose(findings: &[Finding], at_least: Applicability) -> Vec<&Finding> {
    let at_least = at_least.max(Applicability::Unsafe);
    let mut taken: Vec<(SourceId, Span)> = Vec::new();
    let mut chosen = Vec::new();
    for finding in findings {
        let Some(fix) = &finding.fix else { continue };
        if fix.applicability < at_least || fix.edits.is_empty() {
            continue;
        }
        let overlaps = fix.edits.iter().any(|edit| {
            taken
                .iter()
                .any(|&(source, span)| source == edit.source && overlap(span, edit.span))
        });
        if !overlaps {
            taken.extend(fix.edits.iter().map(|edit| (edit.source, edit.span)));
            chosen.push(finding);
        }
    }
    chosen
}

/// Two edits overlap when their ranges share a byte, or both insert at one place (their order
/// would be a guess).
fn overlap(a: Span, b: Span) -> bool {
    (a.start < b.end && b.start < a.end) || a.start == b.start
}

/// `text` with `edits` applied, in order of place. An edit that overlaps one before it, or
/// whose span is not in the text from a character to a character, is left out.
pub fn apply(text: &str, edits: &[&Edit]) -> String {
    let mut edits = edits.to_vec();
    edits.sort_by_key(|edit| (edit.span.start, edit.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in edits {
        let (Some(kept), Some(_)) = (
            text.get(at..edit.span.start),
            text.get(edit.span.start..edit.span.end),
        ) else {
            continue;
        };
        out.push_str(kept);
        out.push_str(&edit.replacement);
        at = edit.span.end;
    }
    out.push_str(&text[at..]);
    // A text without a final line end keeps none when its last lines go.
    if !text.is_empty() && !text.ends_with('\n') {
        let kept = out
            .strip_suffix("\r\n")
            .or_else(|| out.strip_suffix('\n'))
            .map(str::len);
        if let Some(kept) = kept {
            out.truncate(kept);
        }
    }
    out
}

/// Write each changed file (not standard input) in place. A file is left as it is, with a
/// message, when it changed since it was read, when it has other hard links, or when it is
/// reached through a symbolic link that leads out of every folder given on the command line
/// and of the working directory.
pub fn write(changed: &[Changed], options: &Options) -> Vec<NotWritten> {
    let roots = roots(options);
    let mut errors = Vec::new();
    for file in changed {
        if file.name == crate::discover::STDIN_NAME {
            continue;
        }
        if let Err(why) = write_one(file, &roots) {
            errors.push(NotWritten {
                name: file.name.clone(),
                why,
            });
        }
    }
    errors
}

/// A changed file that was left as it was, and why.
#[derive(Clone, Debug)]
pub struct NotWritten {
    pub name: String,
    pub why: String,
}

/// The folders a fix may write in: the working directory and every folder given, and the
/// folder of every file given, with symbolic links resolved up to (not including) a file given.
fn roots(options: &Options) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .into_iter()
        .collect();
    for path in &options.paths {
        let folder = if path.is_dir() {
            path.as_path()
        } else {
            match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            }
        };
        roots.extend(folder.canonicalize().ok());
    }
    roots
}

fn write_one(file: &Changed, roots: &[PathBuf]) -> Result<(), String> {
    let path = Path::new(&file.name);
    let target = path.canonicalize().map_err(|e| e.to_string())?;
    if !roots.iter().any(|root| target.starts_with(root)) {
        return Err(format!(
            "it is a symbolic link to {}, outside the folders linted",
            target.display()
        ));
    }
    let on_disk = std::fs::read(&target).map_err(|e| e.to_string())?;
    if on_disk != file.before.as_bytes() {
        return Err("it changed since it was read".into());
    }
    let folder = target.parent().ok_or("it has no folder")?;
    let metadata = std::fs::metadata(&target).map_err(|e| e.to_string())?;
    // The new text replaces the file by a rename: another name for the same file would keep
    // the old text, and no longer be the same file.
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::nlink(&metadata) > 1 {
        return Err(
            "it has other hard links, which replacing it would separate from it (apply the `--diff` output with `patch` instead)"
                .into(),
        );
    }
    #[cfg(unix)]
    let keep = ownership(&metadata)?;
    #[cfg(not(unix))]
    if metadata.permissions().readonly() {
        return Err("it is read-only".into());
    }
    remove_stale_temporaries(folder);
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!("{TEMPORARY}{}-", std::process::id()))
        .tempfile_in(folder)
        .map_err(|e| format!("cannot write beside it: {e}"))?;
    temporary
        .write_all(file.after.as_bytes())
        .map_err(|e| format!("cannot write beside it: {e}"))?;
    #[cfg(unix)]
    if let Some((uid, gid)) = keep {
        std::os::unix::fs::fchown(temporary.as_file(), uid, gid)
            .map_err(|e| format!("cannot give the new text its owner and group: {e}"))?;
    }
    // After the owner: a change of owner may clear the set-id bits of the mode.
    std::fs::set_permissions(temporary.path(), metadata.permissions())
        .and_then(|()| temporary.as_file().sync_all())
        .map_err(|e| format!("cannot write beside it: {e}"))?;
    temporary
        .persist(&target)
        .map_err(|e| format!("cannot replace it: {}", e.error))?;
    Ok(())
}

/// How the temporary files `--fix` writes beside a file begin; the process id and a random
/// part follow.
const TEMPORARY: &str = ".ownerlint-fix-";

/// A temporary file this old, of a process that is no longer running, is a leftover of a run
/// that was killed.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// The owner and group to give a new text (each `None` to leave as created), or `None` for
/// nothing to change.
#[cfg(unix)]
type Keep = Option<(Option<u32>, Option<u32>)>;

/// Whether `--fix` may replace the file `metadata` describes, and the owner and group to give
/// the new text. A read-only file, and a file of another user, are left alone; a file root
/// replaces keeps its owner and group (the new text is otherwise the user's own).
#[cfg(unix)]
fn ownership(metadata: &std::fs::Metadata) -> Result<Keep, String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if metadata.permissions().mode() & 0o200 == 0 {
        return Err("it is read-only".into());
    }
    let user = rustix::process::geteuid();
    if user.is_root() {
        return Ok(Some((Some(metadata.uid()), Some(metadata.gid()))));
    }
    if metadata.uid() != user.as_raw() {
        return Err(format!(
            "it belongs to another user (uid {}), whose file a fix would make yours",
            metadata.uid()
        ));
    }
    // The group, when the user may give it (one of the user's groups).
    Ok((metadata.gid() != rustix::process::getegid().as_raw())
        .then_some((None, Some(metadata.gid()))))
}

/// Remove from `folder` the temporary files of fixes that were killed before they renamed
/// them: named by ownerlint, of a process that is not running, older than [`STALE_AFTER`],
/// regular files of this user.
fn remove_stale_temporaries(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(TEMPORARY))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || running(pid) {
            continue;
        }
        let Ok(metadata) = entry.path().symlink_metadata() else {
            continue;
        };
        #[cfg(unix)]
        if std::os::unix::fs::MetadataExt::uid(&metadata) != rustix::process::geteuid().as_raw() {
            continue;
        }
        let old = metadata
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if metadata.is_file() && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` runs (or may: when that cannot be told, it is taken to run).
fn running(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        !matches!(
            rustix::process::test_kill_process(pid),
            Err(rustix::io::Errno::SRCH)
        )
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// A unified diff of each changed input, as `git diff` prints one.
pub fn diff(changed: &[Changed]) -> String {
    let mut out = String::new();
    for file in changed {
        let diff = similar::TextDiff::from_lines(&file.before, &file.after);
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{}", file.name), &format!("b/{}", file.name))
                .to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize, with: &str) -> Edit {
        Edit {
            source: SourceId(0),
            span: Span::new(start, end),
            replacement: with.into(),
        }
    }

    #[test]
    fn edits_apply_in_order_of_place() {
        let text = "kind: replicaset\nname: a\n";
        let edits = [edit(17, 24, "name: b"), edit(6, 16, "ReplicaSet")];
        assert_eq!(
            apply(text, &edits.iter().collect::<Vec<_>>()),
            "kind: ReplicaSet\nname: b\n"
        );
    }

    #[test]
    fn edits_that_do_not_fit_the_text_are_left_out() {
        let text = "kind: é\n";
        let edits = [edit(2, 9, "x"), edit(7, 8, "y"), edit(0, 4, "Kind")];
        // Overlapping the first kept one, inside a character, and past the end: left out.
        assert_eq!(apply(text, &edits.iter().collect::<Vec<_>>()), "Kind: é\n");
    }

    #[test]
    fn a_fix_that_leaves_a_document_unreadable_is_undone_and_its_input_fixed_no_further() {
        let name = "cm.yaml".to_string();
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  deletionTimestamp: \"2024-05-02T10:11:12Z\"\n  finalizers: [orphan]\n";
        let options = Options::default();
        let run = run_with(Applicability::Unsafe, |texts| {
            let text = texts.get(&name).map_or(text, String::as_str);
            let mut analysis =
                crate::pipeline::analyze_texts(vec![(name.clone(), text.into())], &options);
            // Each fix, as a faulty one would, also opens a bracket it never closes.
            for finding in &mut analysis.outcome.findings {
                if let Some(fix) = &mut finding.fix {
                    fix.edits.push(Edit {
                        source: finding.primary.source,
                        span: Span::new(12, 12),
                        replacement: "[".into(),
                    });
                }
            }
            analysis
        });
        assert_eq!(run.refused, std::slice::from_ref(&name));
        assert!(run.changed.is_empty() && run.applied.is_empty());
        // What is left to report is the input as it was.
        assert!(
            run.analysis
                .outcome
                .findings
                .iter()
                .any(|f| f.rule.id == "deletion-timestamp-in-manifest")
        );
    }

    #[test]
    fn positions_after_earlier_rounds_are_told_in_the_text_as_read() {
        let text = "a: 1\nb: 2\nc: 3\n";
        // Round one removed `a: 1` and wrote `bb: 22` over `b: 2`.
        let rounds = vec![vec![(Span::new(0, 5), 0), (Span::new(5, 9), 6)]];
        let after = "bb: 22\nc: 3\n";
        let c = after.find('c').expect("c");
        assert_eq!(offset_before(c, &rounds), text.find('c').expect("c"));
        // Inside a replacement: where it starts.
        assert_eq!(offset_before(3, &rounds), 5);
        assert_eq!(line_col(text, offset_before(c, &rounds)), (3, 1));
        // Two rounds: the second removed `bb: 22`.
        let rounds = vec![rounds[0].clone(), vec![(Span::new(0, 7), 0)]];
        assert_eq!(offset_before(0, &rounds), text.find('c').expect("c"));
    }

    #[test]
    fn overlapping_edits_wait_for_the_next_round() {
        assert!(overlap(Span::new(0, 5), Span::new(4, 6)));
        assert!(!overlap(Span::new(0, 5), Span::new(5, 6)));
        assert!(overlap(Span::new(3, 3), Span::new(3, 3)));
    }
}
