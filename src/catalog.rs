//! The kind catalogue: which kinds exist, in which group and versions, whether they are
//! namespaced, and which API versions a Kubernetes release no longer serves.
//!
//! Built-in kinds and removed APIs come from `data/scopes.tsv` and `data/removed-apis.tsv`
//! (kube-apiserver 1.34, with their sources), compiled into the binary. CustomResourceDefinitions
//! in the input or in `--crds` add their own kinds. A kind of unknown scope stays unknown.

use std::borrow::Cow;
// Looked up several times for every object and reference of a dump: a fast hash.
use foldhash::{HashMap, HashMapExt, HashSet};
use std::fmt;

/// What a CustomResourceDefinition (or the configuration's `kinds`) declares of a kind.
#[derive(Clone, Debug, Default)]
pub struct CrdInfo {
    pub group: String,
    pub kind: String,
    /// `None` when the scope is missing or is not one Kubernetes knows.
    pub scope: Option<Scope>,
    pub served_versions: Vec<String>,
    /// `spec.names`: what kubectl takes for the kind (`kubectl get widgets`, `wg`).
    pub names: ResourceNames,
}

/// The names kubectl takes for a kind besides the kind itself: its resource (plural), its
/// singular, and short names. Empty when not declared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceNames {
    pub plural: Option<String>,
    pub singular: Option<String>,
    pub short_names: Vec<String>,
}

const SCOPES_TSV: &str = include_str!("../data/scopes.tsv");
const REMOVED_TSV: &str = include_str!("../data/removed-apis.tsv");
const SHORT_NAMES_TSV: &str = include_str!("../data/short-names.tsv");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Scope {
    Namespaced,
    Cluster,
}

impl Scope {
    pub const NAMES: [&str; 2] = ["Namespaced", "Cluster"];

    /// A CRD's `spec.scope` as Kubernetes spells it.
    pub fn parse(text: &str) -> Option<Scope> {
        match text {
            "Namespaced" => Some(Scope::Namespaced),
            "Cluster" => Some(Scope::Cluster),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Scope::NAMES[self as usize]
    }
}

/// A Kubernetes minor release, `1.34`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub major: u32,
    pub minor: u32,
}

impl KubeVersion {
    /// Parse `1.34`, `v1.34` or `1.34.2`.
    pub fn parse(text: &str) -> Option<KubeVersion> {
        let text = text.trim().trim_start_matches("<=").trim_start_matches('v');
        let mut parts = text.split('.');
        let major = parts.next()?.trim().parse().ok()?;
        let minor_text: String = parts
            .next()?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        Some(KubeVersion {
            major,
            minor: minor_text.parse().ok()?,
        })
    }
}

impl KubeVersion {
    /// The newest release ownerlint knows the APIs of (the default of `--kube-version`).
    pub fn newest_known() -> KubeVersion {
        Catalog::builtin().kube_version
    }

    /// Why `self` cannot be checked against: a release newer than the newest known, whose
    /// removed APIs ownerlint cannot know.
    pub fn unknown_because(self) -> Option<String> {
        let newest = KubeVersion::newest_known();
        (self > newest).then(|| {
            format!(
                "{self} is newer than the newest Kubernetes release ownerlint knows, {newest}: the APIs it removes are unknown; give {newest} (or leave it out, which checks against {newest})"
            )
        })
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[derive(Clone, Debug)]
pub struct BuiltinKind {
    pub group: &'static str,
    pub kind: &'static str,
    pub served: Vec<&'static str>,
    pub off_by_default: Vec<&'static str>,
    pub scope: Scope,
    /// False for create-only and computed kinds, which are never stored and so never an owner.
    pub persisted: bool,
    /// kubectl's short names (`rs`), from `data/short-names.tsv`.
    pub short_names: Vec<&'static str>,
}

#[derive(Clone, Debug)]
pub struct RemovedApi {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub removed_in: KubeVersion,
    pub replacement: &'static str,
}

/// Where the catalogue learned about a custom kind.
#[derive(Clone, Debug)]
pub struct CustomKind {
    pub group: String,
    pub kind: String,
    pub scope: Option<Scope>,
    pub served_versions: Vec<String>,
    pub names: ResourceNames,
}

/// What a cluster's API discovery says of one API group: an `APIGroupDiscovery`, as the
/// aggregated discovery document (`apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`, what
/// `/api` and `/apis` answer) lists them. Exact for that cluster, where the built-in tables
/// and CRDs are only what a release or the input declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiscoveredGroup {
    /// `""` for the core group.
    pub group: String,
    pub versions: Vec<DiscoveredVersion>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiscoveredVersion {
    pub version: String,
    /// `freshness: Stale`: the server of the group (an aggregated API) did not answer, and
    /// what is listed may be out of date.
    pub stale: bool,
    pub resources: Vec<DiscoveredResource>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiscoveredResource {
    /// The resource's name in URLs (`replicasets`).
    pub resource: String,
    pub kind: String,
    pub scope: Option<Scope>,
    pub singular: Option<String>,
    pub short_names: Vec<String>,
}

/// Whether a Kubernetes release serves an apiVersion/kind, and if not, why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiStatus {
    Served,
    /// An alpha or beta version that exists but is off unless enabled with `--runtime-config`.
    OffByDefault,
    Removed {
        removed_in: KubeVersion,
        replacement: String,
    },
    /// The kind exists in the group, but not at this version.
    UnknownVersion {
        served: Vec<String>,
    },
    /// The kind exists in the group with other letter case.
    MisCased {
        kind: String,
    },
    /// A built-in group that has no such kind; `elsewhere` lists apiVersions that have it.
    NotInGroup {
        elsewhere: Vec<String>,
    },
    /// A custom group that a cluster's discovery lists without this kind; `kinds` are those
    /// it lists, `elsewhere` apiVersions that have the kind. (CustomResourceDefinitions in the
    /// input do not tell: a group's kinds are often declared by several projects, as
    /// `argoproj.io`'s are by Argo CD, Argo Rollouts and the Argo CD operator.)
    NotInCustomGroup {
        kinds: Vec<String>,
        elsewhere: Vec<String>,
    },
    /// A group the cluster's discovery, which lists every group it serves, does not list;
    /// `elsewhere` lists apiVersions that have the kind.
    GroupNotServed {
        elsewhere: Vec<String>,
    },
    /// Neither built in nor declared by a CRD or configuration.
    UnknownKind,
}

#[derive(Clone, Debug)]
pub struct Catalog {
    pub kube_version: KubeVersion,
    builtin: Vec<BuiltinKind>,
    /// Indexes into `builtin` by kind: looked up for every object and reference.
    builtin_by_kind: HashMap<&'static str, Vec<usize>>,
    builtin_groups: HashSet<&'static str>,
    /// Every group and version the built-in tables name.
    builtin_names: HashSet<&'static str>,
    removed: Vec<RemovedApi>,
    /// Custom kinds by kind, then group.
    custom: HashMap<String, Vec<CustomKind>>,
    /// apiVersion, then kinds, of objects captured from a cluster: that cluster served them.
    captured: HashMap<String, HashSet<String>>,
    /// Group, then kind, then the versions that serve it, as a cluster's discovery lists them
    /// (stale versions left out).
    discovered: HashMap<String, HashMap<String, Vec<String>>>,
    /// Groups with a stale version in a cluster's discovery: what they do not list may still
    /// be served.
    stale_groups: HashSet<String>,
    /// Every group a cluster's discovery lists, stale or not.
    discovered_groups: HashSet<String>,
}

/// Kinds that moved between groups are one resource: an object served as
/// `extensions/v1beta1 ReplicaSet` is the `apps/v1 ReplicaSet` a reference names.
pub fn canonical_group<'a>(group: &'a str, kind: &str) -> &'a str {
    match (group, kind) {
        ("extensions", "Deployment" | "DaemonSet" | "ReplicaSet") => "apps",
        ("extensions", "Ingress" | "NetworkPolicy") => "networking.k8s.io",
        ("extensions", "PodSecurityPolicy") => "policy",
        ("events.k8s.io", "Event") => "",
        _ => group,
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::builtin()
    }
}

impl Catalog {
    /// The built-in catalogue, for the newest release the removed-API table knows.
    pub fn builtin() -> Catalog {
        let builtin: Vec<BuiltinKind> = data_rows(SCOPES_TSV)
            .filter_map(|cols| {
                let [group, served, kind, namespaced, off, persisted, ..] = cols[..] else {
                    return None;
                };
                Some(BuiltinKind {
                    group,
                    kind,
                    served: version_list(served),
                    off_by_default: version_list(off),
                    scope: if namespaced == "true" {
                        Scope::Namespaced
                    } else {
                        Scope::Cluster
                    },
                    persisted: persisted != "false",
                    short_names: data_rows(SHORT_NAMES_TSV)
                        .find(|cols| cols.first() == Some(&group) && cols.get(1) == Some(&kind))
                        .and_then(|cols| cols.get(2).copied())
                        .map(version_list)
                        .unwrap_or_default(),
                })
            })
            .collect();
        let removed: Vec<RemovedApi> = data_rows(REMOVED_TSV)
            .filter_map(|cols| {
                let [
                    group,
                    version,
                    kind,
                    _deprecated,
                    removed_in,
                    replacement,
                    ..,
                ] = cols[..]
                else {
                    return None;
                };
                Some(RemovedApi {
                    group,
                    version,
                    kind,
                    removed_in: KubeVersion::parse(removed_in)?,
                    replacement,
                })
            })
            .collect();
        let mut builtin_groups: HashSet<&'static str> = builtin.iter().map(|k| k.group).collect();
        builtin_groups.extend(removed.iter().map(|r| r.group));
        let mut builtin_names = builtin_groups.clone();
        builtin_names.extend(
            builtin
                .iter()
                .flat_map(|k| k.served.iter().chain(&k.off_by_default))
                .copied(),
        );
        builtin_names.extend(removed.iter().map(|r| r.version));
        let kube_version = Catalog::latest_known_release_of(&removed);
        let mut builtin_by_kind: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for (i, k) in builtin.iter().enumerate() {
            builtin_by_kind.entry(k.kind).or_default().push(i);
        }
        Catalog {
            kube_version,
            builtin,
            builtin_by_kind,
            builtin_groups,
            builtin_names,
            removed,
            custom: HashMap::new(),
            captured: HashMap::new(),
            discovered: HashMap::new(),
            stale_groups: HashSet::default(),
            discovered_groups: HashSet::default(),
        }
    }

    /// A group or version, as the built-in tables' own string when they name it (most do), so
    /// that the hundreds of thousands of objects of a dump do not each hold a copy.
    pub fn shared(&self, name: &str) -> Cow<'static, str> {
        match self.builtin_names.get(name) {
            Some(&name) => Cow::Borrowed(name),
            None => Cow::Owned(name.to_string()),
        }
    }

    fn latest_known_release_of(removed: &[RemovedApi]) -> KubeVersion {
        // The newest release whose served APIs were compared with these tables: a Kubernetes
        // 1.36.2 API server's discovery serves every version the scope table calls served, and
        // none that the removed-API table lists (1.36 removed none of them).
        const CHECKED: KubeVersion = KubeVersion {
            major: 1,
            minor: 36,
        };
        removed
            .iter()
            .map(|r| r.removed_in)
            .max()
            .map_or(CHECKED, |newest| newest.max(CHECKED))
    }

    pub fn builtin_kinds(&self) -> &[BuiltinKind] {
        &self.builtin
    }

    /// Add the kind a CustomResourceDefinition (or the configuration) defines.
    pub fn add_crd(&mut self, crd: &CrdInfo) {
        let scope = crd.scope;
        let same_kind = self.custom.entry(crd.kind.clone()).or_default();
        let at = match same_kind.iter().position(|c| c.group == crd.group) {
            Some(at) => at,
            None => {
                same_kind.push(CustomKind {
                    group: crd.group.clone(),
                    kind: crd.kind.clone(),
                    scope,
                    served_versions: Vec::new(),
                    names: ResourceNames::default(),
                });
                same_kind.len() - 1
            }
        };
        let entry = &mut same_kind[at];
        entry.scope = entry.scope.or(scope);
        if entry.names == ResourceNames::default() {
            entry.names = crd.names.clone();
        }
        for v in &crd.served_versions {
            if !entry.served_versions.contains(v) {
                entry.served_versions.push(v.clone());
            }
        }
    }

    /// Add what a cluster's discovery says of a group: the versions that serve each kind, and,
    /// for a kind that is not built in, its scope and names, as a CRD would declare them. A
    /// group with a stale version (its aggregated API did not answer) is known only in part:
    /// what it lists is served, and no version of its kinds is called unserved.
    pub fn add_discovered(&mut self, group: &DiscoveredGroup) {
        let stale = group.versions.iter().any(|v| v.stale);
        self.discovered_groups.insert(group.group.clone());
        if stale {
            self.stale_groups.insert(group.group.clone());
        }
        for version in &group.versions {
            for resource in version.resources.iter().filter(|r| !r.kind.is_empty()) {
                if !version.stale {
                    let versions = self
                        .discovered
                        .entry(group.group.clone())
                        .or_default()
                        .entry(resource.kind.clone())
                        .or_default();
                    if !versions.contains(&version.version) {
                        versions.push(version.version.clone());
                    }
                }
                if self.builtin_exact(&group.group, &resource.kind).is_none() {
                    self.add_crd(&CrdInfo {
                        group: group.group.clone(),
                        kind: resource.kind.clone(),
                        scope: resource.scope,
                        // None: every version is taken as served.
                        served_versions: if stale {
                            Vec::new()
                        } else {
                            vec![version.version.clone()]
                        },
                        names: ResourceNames {
                            plural: Some(resource.resource.clone()),
                            singular: resource.singular.clone(),
                            short_names: resource.short_names.clone(),
                        },
                    });
                }
            }
        }
    }

    /// The versions a cluster's discovery lists for a kind, if its group was discovered.
    fn discovered_versions(&self, group: &str, kind: &str) -> Option<&Vec<String>> {
        self.discovered.get(group)?.get(kind)
    }

    /// Whether a cluster's discovery lists the kind: what it serves of it is then that
    /// cluster's, not a release's.
    pub fn is_discovered(&self, group: &str, kind: &str) -> bool {
        self.discovered_versions(group, kind).is_some()
    }

    fn builtin_kind(&self, group: &str, kind: &str) -> Option<&BuiltinKind> {
        self.builtin_exact(canonical_group(group, kind), kind)
    }

    /// The built-in kind with exactly this group and kind.
    fn builtin_exact(&self, group: &str, kind: &str) -> Option<&BuiltinKind> {
        self.builtin_by_kind
            .get(kind)?
            .iter()
            .map(|&i| &self.builtin[i])
            .find(|k| k.group == group)
    }

    fn custom_kind(&self, group: &str, kind: &str) -> Option<&CustomKind> {
        self.custom.get(kind)?.iter().find(|c| c.group == group)
    }

    /// Remember that a snapshot holds an object of `api_version` and `kind`: the cluster it was
    /// captured from served them, whatever the release checked against says.
    pub fn add_captured(&mut self, api_version: &str, kind: &str) {
        if !self
            .captured
            .get(api_version)
            .is_some_and(|kinds| kinds.contains(kind))
        {
            self.captured
                .entry(api_version.to_string())
                .or_default()
                .insert(kind.to_string());
        }
    }

    /// Whether a snapshot in the input holds an object of `api_version` and `kind`.
    pub fn was_captured(&self, api_version: &str, kind: &str) -> bool {
        self.captured
            .get(api_version)
            .is_some_and(|kinds| kinds.contains(kind))
    }

    /// Whether the kind is built into Kubernetes (not a custom resource).
    pub fn is_builtin(&self, group: &str, kind: &str) -> bool {
        self.builtin_kind(group, kind).is_some()
    }

    /// The scope of a kind, if the catalogue knows it.
    pub fn scope(&self, group: &str, kind: &str) -> Option<Scope> {
        if let Some(b) = self.builtin_kind(group, kind) {
            return Some(b.scope);
        }
        self.custom_kind(group, kind).and_then(|c| c.scope)
    }

    /// Whether kubectl takes `resource` (lower case: a kind, resource, singular or short name)
    /// for `group`'s `kind`. A kind the catalogue does not know is taken by its own name and
    /// the resource name Kubernetes would guess for it.
    pub fn takes_resource_name(&self, resource: &str, group: &str, kind: &str) -> bool {
        if kind.eq_ignore_ascii_case(resource) {
            return true;
        }
        if let Some(b) = self.builtin_kind(group, kind) {
            return guess_resource(kind) == resource || b.short_names.contains(&resource);
        }
        let names = self.custom_kind(group, kind).map(|c| &c.names);
        let plural = names.and_then(|n| n.plural.clone());
        plural.unwrap_or_else(|| guess_resource(kind)) == resource
            || names.is_some_and(|n| {
                n.singular.as_deref() == Some(resource)
                    || n.short_names.iter().any(|s| s == resource)
            })
    }

    /// The kinds of the catalogue kubectl takes `resource` (lower case) for, as (group, kind).
    pub fn kinds_named(&self, resource: &str) -> Vec<(&str, &str)> {
        let builtin = self.builtin.iter().map(|b| (b.group, b.kind));
        let custom = self
            .custom
            .values()
            .flatten()
            .map(|c| (c.group.as_str(), c.kind.as_str()));
        builtin
            .chain(custom)
            .filter(|&(group, kind)| self.takes_resource_name(resource, group, kind))
            .collect()
    }

    /// Every name kubectl takes for the kinds in the catalogue, for suggestions.
    pub fn resource_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .builtin
            .iter()
            .flat_map(|b| {
                let short = b.short_names.iter().map(|s| s.to_string());
                [b.kind.to_ascii_lowercase(), guess_resource(b.kind)]
                    .into_iter()
                    .chain(short)
            })
            .collect();
        for custom in self.custom.values().flatten() {
            names.push(custom.kind.to_ascii_lowercase());
            names.extend(custom.names.plural.clone());
            names.extend(custom.names.singular.clone());
            names.extend(custom.names.short_names.iter().cloned());
        }
        names.sort();
        names.dedup();
        names
    }

    /// False for kinds that are never stored (Binding, TokenReview, …).
    pub fn is_persisted(&self, group: &str, kind: &str) -> bool {
        self.builtin_kind(group, kind).is_none_or(|k| k.persisted)
    }

    pub fn is_builtin_group(&self, group: &str) -> bool {
        self.builtin_groups.contains(group)
    }

    /// Whether the configured release serves `group/version kind`; where a cluster's discovery
    /// lists the kind, whether that cluster serves it.
    pub fn api_status(&self, group: &str, version: &str, kind: &str) -> ApiStatus {
        let discovered = self.discovered_versions(group, kind);
        if discovered.is_some_and(|versions| versions.iter().any(|v| v == version)) {
            return ApiStatus::Served;
        }
        if let Some(r) = self
            .removed
            .iter()
            .find(|r| r.group == group && r.version == version && r.kind == kind)
        {
            return if r.removed_in <= self.kube_version {
                ApiStatus::Removed {
                    removed_in: r.removed_in,
                    replacement: r.replacement.to_string(),
                }
            } else {
                ApiStatus::Served
            };
        }
        if let Some(versions) = discovered.filter(|_| !self.stale_groups.contains(group)) {
            return ApiStatus::UnknownVersion {
                served: versions.clone(),
            };
        }
        if self.is_builtin_group(group) {
            if let Some(k) = self.builtin_exact(group, kind) {
                return if k.served.contains(&version) {
                    ApiStatus::Served
                } else if k.off_by_default.contains(&version) {
                    ApiStatus::OffByDefault
                } else {
                    ApiStatus::UnknownVersion {
                        served: k.served.iter().map(|v| v.to_string()).collect(),
                    }
                };
            }
            if let Some(k) = self
                .builtin
                .iter()
                .find(|k| k.group == group && k.kind.eq_ignore_ascii_case(kind))
            {
                return ApiStatus::MisCased {
                    kind: k.kind.to_string(),
                };
            }
            if self
                .removed
                .iter()
                .any(|r| r.group == group && r.kind == kind)
            {
                // e.g. extensions/v1beta2 Deployment: the kind was in the group, never at this version.
                return ApiStatus::UnknownVersion { served: Vec::new() };
            }
            return ApiStatus::NotInGroup {
                elsewhere: self.served_elsewhere(kind),
            };
        }
        if let Some(c) = self.custom_kind(group, kind) {
            return if c.served_versions.is_empty() || c.served_versions.iter().any(|v| v == version)
            {
                ApiStatus::Served
            } else {
                ApiStatus::UnknownVersion {
                    served: c.served_versions.clone(),
                }
            };
        }
        if let Some(c) = self
            .custom
            .values()
            .flatten()
            .find(|c| c.group == group && c.kind.eq_ignore_ascii_case(kind))
        {
            return ApiStatus::MisCased {
                kind: c.kind.clone(),
            };
        }
        // What a cluster's discovery lists of a custom group is all it has, and a group it
        // does not list is not served; a group whose discovery is stale is known only in part.
        if self.stale_groups.contains(group) {
            return ApiStatus::UnknownKind;
        }
        if !self.discovered_groups.contains(group) {
            return match self.knows_every_group() {
                true => ApiStatus::GroupNotServed {
                    elsewhere: self.served_elsewhere(kind),
                },
                false => ApiStatus::UnknownKind,
            };
        }
        let mut kinds: Vec<String> = self
            .custom
            .values()
            .flatten()
            .filter(|c| c.group == group)
            .map(|c| c.kind.clone())
            .collect();
        kinds.sort();
        ApiStatus::NotInCustomGroup {
            kinds,
            elsewhere: self.served_elsewhere(kind),
        }
    }

    /// Whether a cluster's discovery of `/apis`, which lists every group the cluster serves,
    /// is among the inputs (a document of the core group alone says nothing of the others).
    pub fn knows_every_group(&self) -> bool {
        self.discovered_groups.iter().any(|g| !g.is_empty())
    }

    /// The apiVersions at which a kind of this name, or of this name in other letter case, is
    /// served: built in, or declared by a CRD.
    fn served_elsewhere(&self, kind: &str) -> Vec<String> {
        let with_group = |group: &str, version: &str, kind: &str| {
            if group.is_empty() {
                format!("{version} {kind}")
            } else {
                format!("{group}/{version} {kind}")
            }
        };
        let builtin = self
            .builtin
            .iter()
            .filter(|k| k.kind.eq_ignore_ascii_case(kind))
            .filter_map(|k| Some(with_group(k.group, k.served.first()?, k.kind)));
        let mut custom: Vec<String> = self
            .custom
            .values()
            .flatten()
            .filter(|c| c.kind.eq_ignore_ascii_case(kind))
            .filter_map(|c| Some(with_group(&c.group, c.served_versions.first()?, &c.kind)))
            .collect();
        custom.sort();
        builtin.chain(custom).collect()
    }
}

/// The resource name of a kind, as k8s.io/apimachinery's `meta.UnsafeGuessKindToResource`
/// guesses it: lower case, plural (`-s`, `-es` after `s`, `-ies` for `-y`), except that
/// `endpoints` is already plural. Every built-in resource is named so.
pub fn guess_resource(kind: &str) -> String {
    let singular = kind.to_ascii_lowercase();
    if singular.is_empty() || singular.ends_with("endpoints") {
        return singular;
    }
    if singular.ends_with('s') {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{singular}s")
    }
}

fn data_rows(tsv: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    tsv.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|cols| cols.first() != Some(&"group"))
}

fn version_list(field: &'static str) -> Vec<&'static str> {
    if field == "-" {
        Vec::new()
    } else {
        field.split(',').map(str::trim).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_is_read() {
        let c = Catalog::builtin();
        assert_eq!(c.scope("apps", "Deployment"), Some(Scope::Namespaced));
        assert_eq!(c.scope("", "Node"), Some(Scope::Cluster));
        assert_eq!(c.scope("extensions", "ReplicaSet"), Some(Scope::Namespaced));
        assert_eq!(c.scope("example.com", "Widget"), None);
        assert!(!c.is_persisted("authentication.k8s.io", "TokenReview"));
        assert!(c.builtin_kinds().len() > 60);
        // 1.36 removed nothing of the tables: the newest release checked against them.
        assert_eq!(
            c.kube_version,
            KubeVersion {
                major: 1,
                minor: 36
            }
        );
    }

    #[test]
    fn api_status_follows_the_release() {
        let mut c = Catalog::builtin();
        assert_eq!(c.api_status("apps", "v1", "ReplicaSet"), ApiStatus::Served);
        assert!(matches!(
            c.api_status("extensions", "v1beta1", "ReplicaSet"),
            ApiStatus::Removed { .. }
        ));
        assert_eq!(
            c.api_status("apps", "v1", "replicaset"),
            ApiStatus::MisCased {
                kind: "ReplicaSet".into()
            }
        );
        assert_eq!(
            c.api_status("", "v1", "Deployment"),
            ApiStatus::NotInGroup {
                elsewhere: vec!["apps/v1 Deployment".into()]
            }
        );
        assert!(matches!(
            c.api_status("apps", "v2", "Deployment"),
            ApiStatus::UnknownVersion { .. }
        ));
        assert_eq!(
            c.api_status("", "apps", "Pod"),
            ApiStatus::UnknownVersion {
                served: vec!["v1".into()]
            }
        );
        assert_eq!(
            c.api_status("resource.k8s.io", "v1beta1", "ResourceClaim"),
            ApiStatus::OffByDefault
        );
        assert_eq!(
            c.api_status("example.com", "v1", "Widget"),
            ApiStatus::UnknownKind
        );
        c.kube_version = KubeVersion {
            major: 1,
            minor: 15,
        };
        assert_eq!(
            c.api_status("extensions", "v1beta1", "ReplicaSet"),
            ApiStatus::Served
        );
    }

    #[test]
    fn resource_names_are_guessed_as_kubernetes_guesses_them() {
        for (kind, resource) in [
            ("Pod", "pods"),
            ("Endpoints", "endpoints"),
            ("Ingress", "ingresses"),
            ("NetworkPolicy", "networkpolicies"),
            ("ComponentStatus", "componentstatuses"),
            ("CSIStorageCapacity", "csistoragecapacities"),
        ] {
            assert_eq!(guess_resource(kind), resource);
        }
    }

    #[test]
    fn every_short_name_belongs_to_a_built_in_kind() {
        let c = Catalog::builtin();
        for cols in data_rows(SHORT_NAMES_TSV) {
            let (group, kind) = (cols[0], cols[1]);
            let builtin = c.builtin_exact(group, kind).expect("a built-in kind");
            assert_eq!(builtin.short_names, version_list(cols[2]), "{kind}");
        }
        assert!(c.takes_resource_name("rs", "apps", "ReplicaSet"));
        assert!(c.takes_resource_name("rs", "extensions", "ReplicaSet"));
        assert!(c.takes_resource_name("replicasets", "apps", "ReplicaSet"));
        assert!(!c.takes_resource_name("rs", "apps", "Deployment"));
        assert_eq!(c.kinds_named("svc"), [("", "Service")]);
    }

    #[test]
    fn crds_add_kinds() {
        let mut c = Catalog::builtin();
        c.add_crd(&CrdInfo {
            group: "example.com".into(),
            kind: "Widget".into(),
            scope: Some(Scope::Cluster),
            served_versions: vec!["v1".into()],
            ..CrdInfo::default()
        });
        assert_eq!(c.scope("example.com", "Widget"), Some(Scope::Cluster));
        assert_eq!(
            c.api_status("example.com", "v1", "Widget"),
            ApiStatus::Served
        );
        assert!(matches!(
            c.api_status("example.com", "v2", "Widget"),
            ApiStatus::UnknownVersion { .. }
        ));
        assert_eq!(
            c.api_status("example.com", "v1", "widget"),
            ApiStatus::MisCased {
                kind: "Widget".into()
            }
        );
    }

    #[test]
    fn discovery_decides_what_a_cluster_serves() {
        let mut c = Catalog::builtin();
        let resource = |resource: &str, kind: &str, scope| DiscoveredResource {
            resource: resource.into(),
            kind: kind.into(),
            scope: Some(scope),
            ..DiscoveredResource::default()
        };
        c.add_discovered(&DiscoveredGroup {
            group: "apps".into(),
            versions: vec![DiscoveredVersion {
                version: "v1".into(),
                stale: false,
                resources: vec![resource("replicasets", "ReplicaSet", Scope::Namespaced)],
            }],
        });
        c.add_discovered(&DiscoveredGroup {
            group: "example.com".into(),
            versions: vec![
                DiscoveredVersion {
                    version: "v1".into(),
                    stale: false,
                    resources: vec![resource("widgets", "Widget", Scope::Cluster)],
                },
                DiscoveredVersion {
                    version: "v2".into(),
                    stale: true,
                    resources: vec![resource("widgets", "Widget", Scope::Cluster)],
                },
            ],
        });
        // A custom kind no CRD in the input declares: its scope and versions are the cluster's.
        assert_eq!(c.scope("example.com", "Widget"), Some(Scope::Cluster));
        assert_eq!(
            c.api_status("example.com", "v1", "Widget"),
            ApiStatus::Served
        );
        // A group with a stale version is known only in part: no version of it is unserved.
        assert_eq!(
            c.api_status("example.com", "v2", "Widget"),
            ApiStatus::Served
        );
        assert_eq!(
            c.api_status("apps", "v2", "ReplicaSet"),
            ApiStatus::UnknownVersion {
                served: vec!["v1".into()]
            }
        );
        // A removed version is still named as removed, with its replacement.
        assert!(matches!(
            c.api_status("apps", "v1beta2", "ReplicaSet"),
            ApiStatus::Removed { .. }
        ));
        assert_eq!(c.api_status("apps", "v1", "ReplicaSet"), ApiStatus::Served);
        // Discovery of `/apis` lists every group the cluster serves, and all a custom one has.
        assert_eq!(
            c.api_status("wrong.example.com", "v1", "ConfigMap"),
            ApiStatus::GroupNotServed {
                elsewhere: vec!["v1 ConfigMap".into()]
            }
        );
        assert_eq!(
            c.api_status("example.com", "v1", "Sprocket"),
            ApiStatus::UnknownKind,
            "a group with a stale version is known only in part"
        );
        c.add_discovered(&DiscoveredGroup {
            group: "example.org".into(),
            versions: vec![DiscoveredVersion {
                version: "v1".into(),
                stale: false,
                resources: vec![resource("gadgets", "Gadget", Scope::Namespaced)],
            }],
        });
        assert_eq!(
            c.api_status("example.org", "v1", "Sprocket"),
            ApiStatus::NotInCustomGroup {
                kinds: vec!["Gadget".into()],
                elsewhere: Vec::new()
            }
        );
    }

    #[test]
    fn without_discovery_a_custom_group_is_unknown() {
        let mut c = Catalog::builtin();
        c.add_crd(&CrdInfo {
            group: "example.com".into(),
            kind: "Widget".into(),
            scope: Some(Scope::Namespaced),
            served_versions: vec!["v1".into()],
            ..CrdInfo::default()
        });
        for (group, kind) in [
            ("example.com", "Sprocket"),
            ("wrong.example.com", "ConfigMap"),
        ] {
            assert_eq!(c.api_status(group, "v1", kind), ApiStatus::UnknownKind);
        }
    }

    #[test]
    fn release_versions_parse() {
        assert_eq!(
            KubeVersion::parse("v1.29.3"),
            Some(KubeVersion {
                major: 1,
                minor: 29
            })
        );
        assert_eq!(
            KubeVersion::parse("<=1.31 (exact release not confirmed)"),
            Some(KubeVersion {
                major: 1,
                minor: 31
            })
        );
        assert_eq!(KubeVersion::parse("latest"), None);
    }
}
