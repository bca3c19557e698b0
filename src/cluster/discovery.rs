//! A cluster's API discovery, in the one shape the snapshot keeps: aggregated discovery
//! (`apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`, which `/api` and `/apis` answer in one
//! request each since Kubernetes 1.30, `v2beta1` from 1.26) where the server serves it, else
//! built from the legacy documents (`/api` `APIVersions`, `/apis` `APIGroupList`, and an
//! `APIResourceList` per group version), as client-go's discovery client does for older servers
//! (`k8s.io/client-go/discovery/aggregated_discovery.go` converts the one into the other).

use serde_json::{Value, json};

/// What to ask `/api` and `/apis` for: aggregated discovery in either version, else the
/// legacy document (the server picks the first it serves).
pub const ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// What `/api` or `/apis` answered.
pub enum Answer {
    /// Aggregated discovery: every group's versions and resources.
    Aggregated(Value),
    /// A legacy document: the group versions to ask for one by one, the preferred first, as
    /// (group, version).
    Legacy(Vec<(String, String)>),
}

/// Read what `/api` or `/apis` answered.
pub fn read_answer(body: &str) -> Result<Answer, String> {
    let document: Value =
        serde_json::from_str(body).map_err(|e| format!("discovery is not JSON: {e}"))?;
    let text =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    match document.get("kind").and_then(Value::as_str) {
        Some("APIGroupDiscoveryList") => Ok(Answer::Aggregated(document)),
        // `/api`: the core group's versions.
        Some("APIVersions") => Ok(Answer::Legacy(
            list(&document, "versions")
                .filter_map(Value::as_str)
                .map(|version| (String::new(), version.to_string()))
                .collect(),
        )),
        // `/apis`: each group's versions, its preferred one first.
        Some("APIGroupList") => {
            let mut versions = Vec::new();
            for group in list(&document, "groups") {
                let Some(name) = text(group, "name") else {
                    continue;
                };
                let preferred = group
                    .get("preferredVersion")
                    .and_then(|p| text(p, "version"));
                let mut of_group: Vec<String> = list(group, "versions")
                    .filter_map(|v| text(v, "version"))
                    .collect();
                if let Some(preferred) = preferred
                    && let Some(at) = of_group.iter().position(|v| *v == preferred)
                {
                    let preferred = of_group.remove(at);
                    of_group.insert(0, preferred);
                }
                versions.extend(of_group.into_iter().map(|v| (name.clone(), v)));
            }
            Ok(Answer::Legacy(versions))
        }
        Some(kind) => Err(format!("discovery answered a document of kind {kind}")),
        None => Err("discovery answered a document with no kind".to_string()),
    }
}

/// The aggregated discovery of legacy group versions, each with what its `APIResourceList`
/// answered (`None`: it could not be read, so the version is `Stale`, as aggregated discovery
/// marks a group version whose server did not answer). Subresources (`pods/status`) are left
/// out: only resources are listed.
pub fn from_legacy(versions: &[(String, String, Option<String>)]) -> Value {
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for (group, version, body) in versions {
        let resource_list: Option<Value> =
            body.as_deref().and_then(|b| serde_json::from_str(b).ok());
        let entry = match resource_list {
            Some(resource_list) => {
                let resources: Vec<Value> = list(&resource_list, "resources")
                    .filter(|r| r.get("name").and_then(Value::as_str).is_some_and(|n| !n.contains('/')))
                    .map(|r| {
                        json!({
                            "resource": r.get("name").cloned().unwrap_or(Value::Null),
                            "responseKind": {"group": "", "version": "", "kind": r.get("kind").cloned().unwrap_or(Value::Null)},
                            "scope": if r.get("namespaced").and_then(Value::as_bool) == Some(true) { "Namespaced" } else { "Cluster" },
                            "singularResource": r.get("singularName").cloned().unwrap_or(Value::Null),
                            "verbs": r.get("verbs").cloned().unwrap_or_else(|| json!([])),
                            "shortNames": r.get("shortNames").cloned().unwrap_or_else(|| json!([])),
                        })
                    })
                    .collect();
                json!({"version": version, "resources": resources, "freshness": "Current"})
            }
            None => json!({"version": version, "freshness": "Stale"}),
        };
        match groups.iter_mut().find(|(name, _)| name == group) {
            Some((_, of_group)) => of_group.push(entry),
            None => groups.push((group.clone(), vec![entry])),
        }
    }
    let items: Vec<Value> = groups
        .into_iter()
        .map(|(name, versions)| json!({"metadata": {"name": name}, "versions": versions}))
        .collect();
    json!({
        "apiVersion": "apidiscovery.k8s.io/v2",
        "kind": "APIGroupDiscoveryList",
        "metadata": {},
        "items": items,
    })
}

/// The group versions aggregated discovery marks `Stale`: their server (an aggregated API's
/// backend) did not answer, so what they serve is not known.
pub fn stale_versions(document: &Value) -> Vec<String> {
    let mut stale = Vec::new();
    for group in list(document, "items") {
        let name = group
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        for version in list(group, "versions") {
            if version.get("freshness").and_then(Value::as_str) == Some("Stale") {
                let version = version
                    .get("version")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                stale.push(if name.is_empty() {
                    version.to_string()
                } else {
                    format!("{name}/{version}")
                });
            }
        }
    }
    stale
}

/// The groups with at least one version whose discovery answered.
pub fn groups_served(document: &Value) -> Vec<String> {
    list(document, "items")
        .filter(|group| {
            list(group, "versions")
                .any(|v| v.get("freshness").and_then(Value::as_str) != Some("Stale"))
        })
        .filter_map(|group| group.pointer("/metadata/name").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// Whether discovery's name of a group, a version or a resource may be one part of a
/// request's path as it is: lower-case letters, digits, `-` and `.`, beginning and ending with
/// a letter or digit, at most 253 bytes. Kubernetes names every one so (groups are DNS
/// subdomains; versions and resources' plural names DNS labels); what is not is never
/// requested (`pods?watch=true` would be another request than a list of pods).
pub fn is_path_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let end = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !bytes.is_empty()
        && bytes.len() <= 253
        && bytes.first().is_some_and(end)
        && bytes.last().is_some_and(end)
        && bytes.iter().all(|b| end(b) || matches!(b, b'-' | b'.'))
}

/// A group version or a resource that discovery names but that cannot be requested: its name
/// is no name Kubernetes gives (see [`is_path_name`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrequestable {
    /// As discovery names it (for matching the objects it would have served, never shown).
    pub group: String,
    /// The kind of a resource; `None` for a whole group version.
    pub kind: Option<String>,
    /// How it is named in messages, escaped: `"pods?watch=true" (v1)`.
    pub what: String,
}

/// Leave out of an aggregated discovery document (`APIGroupDiscoveryList`) every group,
/// version and resource whose name cannot be one part of a path; returns what was left out.
pub fn drop_unrequestable(document: &mut Value) -> Vec<Unrequestable> {
    let mut dropped = Vec::new();
    let Some(groups) = document.get_mut("items").and_then(Value::as_array_mut) else {
        return dropped;
    };
    groups.retain_mut(|group| {
        let name = group
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        // The core group has no name.
        if !name.is_empty() && !is_path_name(&name) {
            dropped.push(Unrequestable {
                what: format!("the group {:?}", name),
                group: name,
                kind: None,
            });
            return false;
        }
        let Some(versions) = group.get_mut("versions").and_then(Value::as_array_mut) else {
            return true;
        };
        versions.retain_mut(|version| {
            let version_name = version.get("version").and_then(Value::as_str).unwrap_or("");
            if !is_path_name(version_name) {
                dropped.push(Unrequestable {
                    group: name.clone(),
                    kind: None,
                    what: format!("the version {version_name:?} of {}", group_name(&name)),
                });
                return false;
            }
            let group_version = match name.as_str() {
                "" => version_name.to_string(),
                group => format!("{group}/{version_name}"),
            };
            if let Some(resources) = version.get_mut("resources").and_then(Value::as_array_mut) {
                resources.retain(|resource| {
                    let plural = resource
                        .get("resource")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    if is_path_name(plural) {
                        return true;
                    }
                    let kind = resource
                        .pointer("/responseKind/kind")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    dropped.push(Unrequestable {
                        group: name.clone(),
                        kind: Some(kind.to_string()),
                        what: format!("{plural:?} ({group_version})"),
                    });
                    false
                });
            }
            true
        });
        true
    });
    dropped
}

/// A group (whose name was checked) as messages name it: `the core group`, `apps`.
fn group_name(group: &str) -> String {
    match group {
        "" => "the core group".to_string(),
        group => group.to_string(),
    }
}

fn list<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The legacy documents here; the aggregated ones are `testdata/discovery/`.
    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/live/discovery");

    fn read(name: &str) -> String {
        std::fs::read_to_string(format!("{DIR}/{name}")).expect("recorded")
    }

    #[test]
    fn legacy_discovery_gives_what_aggregated_discovery_gives() {
        // The recorded 1.36 server's legacy documents, against its aggregated ones.
        let Ok(Answer::Legacy(groups)) = read_answer(&read("legacy-apis.json")) else {
            panic!("an APIGroupList is legacy discovery");
        };
        // autoscaling serves v2 and v1, and prefers v2.
        let autoscaling: Vec<&str> = groups
            .iter()
            .filter(|(g, _)| g == "autoscaling")
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(autoscaling, ["v2", "v1"]);
        let Ok(Answer::Legacy(core)) = read_answer(&read("legacy-api.json")) else {
            panic!("APIVersions is legacy discovery");
        };
        assert_eq!(core, [(String::new(), "v1".to_string())]);
        let built = from_legacy(&[
            ("".into(), "v1".into(), Some(read("legacy-api-v1.json"))),
            (
                "apps".into(),
                "v1".into(),
                Some(read("legacy-apis-apps-v1.json")),
            ),
            ("metrics.k8s.io".into(), "v1beta1".into(), None),
        ]);
        let Ok(Answer::Aggregated(api)) = read_answer(&read("../../discovery/api.json")) else {
            panic!("aggregated");
        };
        let Ok(Answer::Aggregated(apis)) = read_answer(&read("../../discovery/apis.json")) else {
            panic!("aggregated");
        };
        // Each resource, with its kind, scope and verbs, as aggregated discovery lists it.
        let resources = |group: &Value| -> Vec<(String, String, String, String)> {
            let mut all: Vec<_> = list(&group["versions"][0], "resources")
                .map(|r| {
                    (
                        r["resource"].as_str().unwrap_or("").to_string(),
                        r["responseKind"]["kind"].as_str().unwrap_or("").to_string(),
                        r["scope"].as_str().unwrap_or("").to_string(),
                        r["verbs"].to_string(),
                    )
                })
                .collect();
            all.sort();
            all
        };
        let apps = list(&apis, "items")
            .find(|g| g["metadata"]["name"] == "apps")
            .expect("apps");
        assert_eq!(resources(&built["items"][0]), resources(&api["items"][0]));
        assert_eq!(resources(&built["items"][1]), resources(apps));
        assert_eq!(stale_versions(&built), ["metrics.k8s.io/v1beta1"]);
        assert!(stale_versions(&apis).is_empty());
    }

    #[test]
    fn what_is_not_discovery_is_said() {
        assert!(read_answer("<html>").is_err());
        assert_eq!(
            read_answer(r#"{"kind":"Status","code":404}"#).err(),
            Some("discovery answered a document of kind Status".to_string())
        );
    }

    #[test]
    fn a_name_that_is_not_one_part_of_a_path_is_left_out_of_discovery_and_said_escaped() {
        for name in ["pods", "v1beta1", "apps", "example.com", "x-1"] {
            assert!(is_path_name(name), "{name}");
        }
        for name in [
            "",
            ".",
            "..",
            "pods?watch=true&x=",
            "a/b",
            "Pods",
            "pods\r\nX: y",
            "-a",
            "a%2F",
        ] {
            assert!(!is_path_name(name), "{name:?}");
        }
        let mut document = json!({"kind": "APIGroupDiscoveryList", "items": [
            {"metadata": {}, "versions": [{"version": "v1", "resources": [
                {"resource": "pods", "responseKind": {"kind": "Pod"}},
                {"resource": "pods?watch=true&x=", "responseKind": {"kind": "Pod"}},
                {"resource": "a\r\nb", "responseKind": {"kind": "Odd"}}]}]},
            {"metadata": {"name": "apps"}, "versions": [{"version": "v1?x"}, {"version": "v1"}]},
            {"metadata": {"name": "bad/group"}, "versions": [{"version": "v1"}]}]});
        let dropped = drop_unrequestable(&mut document);
        let what: Vec<&str> = dropped.iter().map(|d| d.what.as_str()).collect();
        assert_eq!(
            what,
            [
                "\"pods?watch=true&x=\" (v1)",
                "\"a\\r\\nb\" (v1)",
                "the version \"v1?x\" of apps",
                "the group \"bad/group\""
            ]
        );
        assert_eq!(dropped[0].kind.as_deref(), Some("Pod"));
        assert_eq!(
            document["items"][0]["versions"][0]["resources"]
                .as_array()
                .map(Vec::len),
            Some(1)
        );
        assert_eq!(document["items"][1]["versions"], json!([{"version": "v1"}]));
        assert_eq!(document["items"].as_array().map(Vec::len), Some(2));
    }
}
