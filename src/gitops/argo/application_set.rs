//! ApplicationSets: the Applications their `list` and git `directories` generators make from
//! their template (argo-cd `applicationset/generators/list.go` and `git.go`; the template's
//! `{{param}}`, or `{{.param}}` with `goTemplate`, filled as `applicationset/utils` fills it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::text;

/// How many folders an ApplicationSet's git generator may list, and Applications it may make.
const MOST_FOLDERS: usize = 20_000;
pub(super) const MOST_APPLICATIONS: usize = 1_000;

/// The Applications an ApplicationSet's `list` and git `directories` generators make from its
/// template, and what it does not read, said once (with the index of the generator it is
/// about, in `spec.generators`).
pub(super) fn application_set(
    set: &Json,
    folders: &[String],
) -> (Vec<Json>, Option<(String, usize)>) {
    let spec = set.get("spec").unwrap_or(&Json::Null);
    let Some(template) = spec.get("template") else {
        return (Vec::new(), None);
    };
    let go = spec.get("goTemplate") == Some(&Json::Bool(true));
    let mut params: Vec<BTreeMap<String, String>> = Vec::new();
    let mut unread: Vec<String> = Vec::new();
    let mut missing: Vec<(String, usize)> = Vec::new();
    let mut first_unread = None;
    for (index, generator) in spec
        .get("generators")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some((kind, body)) = generator.as_object().and_then(|g| g.iter().next()) else {
            continue;
        };
        match kind.as_str() {
            "list" => {
                for element in body
                    .get("elements")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                {
                    let mut flat = BTreeMap::new();
                    flatten("", element, &mut flat);
                    params.push(flat);
                }
            }
            "git" if body.get("directories").is_some() => {
                let found = git_directories(body, folders);
                if found.is_empty() {
                    let url = text(body, &["repoURL"]).unwrap_or_default();
                    missing.push((format!(
                        "not checked: no folder of this repository matches the directories of its git generator ({url})"
                    ), index));
                }
                params.extend(found);
            }
            "git" => {
                unread.push("git files".to_string());
                first_unread.get_or_insert(index);
            }
            other => {
                unread.push(other.to_string());
                first_unread.get_or_insert(index);
            }
        }
    }
    let apps = params
        .iter()
        .take(MOST_APPLICATIONS)
        .map(|p| fill(template, p, go))
        .map(|mut app| {
            // The template's metadata is the Application's.
            if let Some(object) = app.as_object_mut() {
                object.insert("kind".into(), Json::String("Application".into()));
            }
            app
        })
        .collect();
    let message = match unread.is_empty() {
        true => missing.into_iter().next(),
        false => Some((
            format!(
                "not checked: the Applications of its {} generator{} are not built (ownerlint reads only list and git directories generators)",
                unread.join(", "),
                if unread.len() > 1 { "s" } else { "" },
            ),
            first_unread.unwrap_or_default(),
        )),
    };
    (apps, message)
}

/// `key`, `key.inner` … for each scalar of `value`.
fn flatten(prefix: &str, value: &Json, out: &mut BTreeMap<String, String>) {
    match value {
        Json::Object(map) => {
            for (key, inner) in map {
                let key = match prefix.is_empty() {
                    true => key.clone(),
                    false => format!("{prefix}.{key}"),
                };
                flatten(&key, inner, out);
            }
        }
        Json::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        Json::Number(n) => {
            out.insert(prefix.to_string(), n.to_string());
        }
        Json::Bool(b) => {
            out.insert(prefix.to_string(), b.to_string());
        }
        _ => {}
    }
}

/// The parameters of each folder a git generator's `directories` select (argo-cd
/// `applicationset/generators/git.go`: `path.Match` of each pattern against each folder of the
/// repository; an `exclude: true` pattern takes folders out).
fn git_directories(git: &Json, folders: &[String]) -> Vec<BTreeMap<String, String>> {
    let patterns: Vec<(globset::GlobMatcher, bool)> = git
        .get("directories")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(|d| {
            let path = text(d, &["path"])?;
            let glob = globset::GlobBuilder::new(&path)
                .literal_separator(true)
                .build()
                .ok()?;
            Some((
                glob.compile_matcher(),
                d.get("exclude") == Some(&Json::Bool(true)),
            ))
        })
        .collect();
    folders
        .iter()
        .filter(|f| {
            patterns
                .iter()
                .any(|(g, exclude)| !exclude && g.is_match(f))
                && !patterns
                    .iter()
                    .any(|(g, exclude)| *exclude && g.is_match(f))
        })
        .map(|folder| {
            let base = folder.rsplit('/').next().unwrap_or(folder).to_string();
            let normalized: String = base
                .chars()
                .map(
                    |c| match c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                        true => c.to_ascii_lowercase(),
                        false => '-',
                    },
                )
                .collect();
            let mut p = BTreeMap::new();
            p.insert("path".into(), folder.clone());
            p.insert("path.path".into(), folder.clone());
            p.insert("path.basename".into(), base);
            p.insert("path.basenameNormalized".into(), normalized);
            for (i, segment) in folder.split('/').enumerate() {
                p.insert(format!("path[{i}]"), segment.to_string());
                p.insert(format!("path.segments[{i}]"), segment.to_string());
            }
            p
        })
        .collect()
}

/// `template` with its `{{name}}` (or, with Go templates, `{{.name}}`) replaced from `params`
/// in every string; an expression it does not know is left as written.
fn fill(template: &Json, params: &BTreeMap<String, String>, go: bool) -> Json {
    match template {
        Json::String(s) => Json::String(fill_text(s, params, go)),
        Json::Array(items) => Json::Array(items.iter().map(|i| fill(i, params, go)).collect()),
        Json::Object(map) => Json::Object(
            map.iter()
                .map(|(k, v)| (fill_text(k, params, go), fill(v, params, go)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn fill_text(text: &str, params: &BTreeMap<String, String>, go: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            out.push_str(&rest[open..]);
            return out;
        };
        let expression = after[..close].trim();
        let key = match go {
            true => expression.strip_prefix('.'),
            false => Some(expression),
        };
        // `{{ index .path.segments 1 }}` is `path.segments[1]`.
        let indexed = expression
            .strip_prefix("index .")
            .and_then(|e| e.rsplit_once(' '))
            .map(|(list, i)| format!("{}[{}]", list.trim(), i.trim()));
        match key
            .and_then(|k| params.get(k))
            .or(indexed.and_then(|k| params.get(&k)))
        {
            Some(value) => out.push_str(value),
            None => out.push_str(&rest[open..open + 2 + close + 2]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

/// Every folder below `root` (relative, with `/`), hidden ones left out, at most
/// [`MOST_FOLDERS`].
pub(super) fn repository_folders(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        found.sort();
        for sub in found {
            if out.len() >= MOST_FOLDERS {
                return out;
            }
            if let Ok(inside) = sub.strip_prefix(root) {
                out.push(inside.to_string_lossy().replace('\\', "/"));
            }
            stack.push(sub);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_take_the_generators_parameters() {
        let params = BTreeMap::from([
            ("path".to_string(), "apps/web".to_string()),
            ("path.basename".to_string(), "web".to_string()),
            ("path.path".to_string(), "apps/web".to_string()),
            ("path.segments[1]".to_string(), "web".to_string()),
        ]);
        assert_eq!(
            fill_text("{{path.basename}}-{{ path }}", &params, false),
            "web-apps/web"
        );
        assert_eq!(
            fill_text("{{.path.path}}/{{.other}}", &params, true),
            "apps/web/{{.other}}"
        );
        assert_eq!(
            fill_text("{{ index .path.segments 1 }}", &params, true),
            "web"
        );
        assert_eq!(fill_text("{{open", &params, false), "{{open");
    }
}
