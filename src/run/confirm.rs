//! Confirming what the lists showed dangling, as the garbage collector looks again before it
//! deletes. Lists are not a snapshot: an owner deleted, re-created under a new uid, or a
//! dependent re-pointed between two lists (or between the lists and a GET) shows a reference as
//! dangling that never was at any one moment. So each dependent the lint found dangling is read
//! again with a GET, and so is every owner it names now; what changed replaces what was listed,
//! and the references involved are decided again: a dependent now naming an owner not read yet
//! has that owner read too, and the other dependents of an object that changed are decided with
//! it as it now is (and read themselves if they now dangle). This goes on, round after round,
//! until a round changes nothing. Each object is read at most once, so the rounds are bounded
//! by the objects involved; and by [`MOST_ROUNDS`], for a cluster that never stops changing.
//!
//! The rounds decide each reference from the snapshot directly (is there an object of the
//! owner's resource, namespace and name, with the reference's uid?), not through the rules: the
//! lint runs again once at the end, and only when a GET changed what was listed.

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use crate::analysis::{Analysis, Options};
use crate::cluster::read::{Fatal, LISTS_AT_ONCE, Now, Reader};
use crate::cluster::snapshot::{Resource, Snapshot, Stored};

/// The rules whose findings say an owner is gone (the garbage collector would delete the
/// dependent): each is confirmed by GETs first.
const DANGLING: &[&str] = &[
    "owner-not-found",
    "owner-uid-mismatch",
    "owner-uid-conflict",
    "cross-namespace-owner",
];

/// The most rounds of GETs: a cluster that keeps changing is not followed for ever.
const MOST_ROUNDS: usize = 10;

/// What the confirmation did.
#[derive(Debug, Default)]
pub(super) struct Confirmation {
    /// Objects read again, one GET each.
    pub objects: usize,
    /// Rounds of GETs.
    pub rounds: usize,
    /// A GET answered otherwise than the lists: the snapshot changed, and is analysed again.
    pub changed: bool,
    /// What the run says about it (each a line for standard error, without `ownerlint: `).
    pub warnings: Vec<String>,
}

/// One object to read: its resource, namespace (`None`: cluster-scoped) and name.
#[derive(Clone, Debug)]
struct Target {
    resource: Resource,
    namespace: Option<String>,
    name: String,
}

impl Target {
    /// Its API path, which names it among the others.
    fn path(&self) -> String {
        self.resource
            .object_path(self.namespace.as_deref(), &self.name)
    }

    fn namespace_key(&self) -> &str {
        self.namespace.as_deref().unwrap_or("")
    }

    fn of(resource: &Resource, stored: &Stored) -> Target {
        Target {
            resource: resource.clone(),
            namespace: Some(stored.namespace.to_string()).filter(|ns| !ns.is_empty()),
            name: stored.name.to_string(),
        }
    }
}

/// Confirm the dangling references of `analysis` (the lint of `snapshot`), changing
/// `snapshot` to what the GETs answered.
pub(super) async fn confirm(
    reader: &Reader,
    snapshot: &mut Snapshot,
    listed: &[Resource],
    options: &Options,
    analysis: &Analysis,
) -> Result<Confirmation, Fatal> {
    let mut confirmation = Confirmation::default();
    let mut pending = dangling(analysis, snapshot, listed, options);
    let mut read: HashSet<String> = HashSet::new();
    while !pending.is_empty() {
        if confirmation.rounds == MOST_ROUNDS {
            confirmation.warnings.push(format!(
                "the cluster kept changing while its dangling references were confirmed: {} not read again after {MOST_ROUNDS} rounds of GETs; what was read of them last stands",
                crate::report::plural(pending.len(), "object")
            ));
            break;
        }
        confirmation.rounds += 1;
        confirmation.objects += pending.len();
        read.extend(pending.keys().cloned());
        let answered = get_all(reader, std::mem::take(&mut pending)).await?;
        // What to decide again: what was read, and the dependents of what changed.
        let mut decide: BTreeMap<String, Target> = BTreeMap::new();
        for (path, target, now) in answered {
            let changed = match now {
                Now::Is(object) => snapshot.put(&target.resource, object),
                Now::Gone => {
                    snapshot.remove(&target.resource, target.namespace_key(), &target.name)
                }
                // What was listed stands: said, since it may have changed since.
                Now::Unknown(why) => {
                    confirmation.warnings.push(format!(
                        "could not confirm what was listed of {path}: {why}"
                    ));
                    false
                }
            };
            if changed {
                confirmation.changed = true;
                decide.extend(dependents(snapshot, listed, options, &target));
            }
            decide.insert(path, target);
        }
        for (path, dependent) in decide {
            for owner in dangling_owners(snapshot, listed, options, &dependent) {
                if !read.contains(&path) {
                    pending.insert(path.clone(), dependent.clone());
                }
                let owner_path = owner.path();
                if !read.contains(&owner_path) {
                    pending.insert(owner_path, owner);
                }
            }
        }
    }
    Ok(confirmation)
}

/// GET each target, [`LISTS_AT_ONCE`] at a time (the bound of the lists); the answers in the
/// order of their paths.
async fn get_all(
    reader: &Reader,
    targets: BTreeMap<String, Target>,
) -> Result<Vec<(String, Target, Now)>, Fatal> {
    let mut pending = targets.into_iter();
    let mut running = tokio::task::JoinSet::new();
    let mut answered = Vec::new();
    loop {
        while running.len() < LISTS_AT_ONCE
            && let Some((path, target)) = pending.next()
        {
            let reader = reader.clone();
            running.spawn(async move {
                let now = reader
                    .get_object(&target.resource, target.namespace.as_deref(), &target.name)
                    .await;
                (path, target, now)
            });
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        let (path, target, now) = joined.map_err(|e| Fatal(format!("a confirming GET stopped inside ownerlint ({e}): this is a bug of ownerlint, please report it")))?;
        match now {
            Ok(now) => answered.push((path, target, now)),
            Err(fatal) => {
                running.abort_all();
                return Err(fatal);
            }
        }
    }
    answered.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(answered)
}

/// The owners `dependent` names, as the snapshot now holds it, that the snapshot does not hold
/// (by resource, namespace and name, with the reference's uid): the references that dangle.
/// A reference to a kind discovery does not name, or that could not be listed, is not decided
/// here.
fn dangling_owners(
    snapshot: &Snapshot,
    listed: &[Resource],
    options: &Options,
    dependent: &Target,
) -> Vec<Target> {
    let Some(stored) = snapshot.get(
        &dependent.resource,
        dependent.namespace_key(),
        &dependent.name,
    ) else {
        return Vec::new();
    };
    let object = stored.value();
    let references = object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    references
        .iter()
        .filter_map(|reference| {
            let owner = owner_of(listed, options, &stored.namespace, reference)?;
            let uid = reference.get("uid").and_then(Value::as_str);
            let holds = snapshot
                .get(&owner.resource, owner.namespace_key(), &owner.name)
                .is_some_and(|found| uid.is_none_or(|uid| found.uid() == Some(uid)));
            (!holds).then_some(owner)
        })
        .collect()
}

/// The object a reference of a dependent in `namespace` (`""`: cluster-scoped) names, where the
/// garbage collector looks for it: `None` when its kind is not one discovery names or was not
/// read, or when it is namespaced and the dependent is not.
fn owner_of(
    listed: &[Resource],
    options: &Options,
    namespace: &str,
    reference: &Value,
) -> Option<Target> {
    let text = |key: &str| reference.get(key).and_then(Value::as_str);
    let group = text("apiVersion")?
        .rsplit_once('/')
        .map_or("", |(group, _)| group);
    let (kind, name) = (text("kind")?, text("name")?);
    let resource = owner_resource(listed, group, kind)?;
    if options
        .not_read
        .iter()
        .any(|n| n.covers(group, &resource.kind))
    {
        return None;
    }
    let namespace = match resource.namespaced {
        true if namespace.is_empty() => return None,
        true => Some(namespace.to_string()),
        false => None,
    };
    Some(Target {
        resource: resource.clone(),
        namespace,
        name: name.to_string(),
    })
}

/// The resource of an owner's group and kind, where discovery names it; a kind in lower case
/// resolves as its canonical spelling does.
fn owner_resource<'a>(listed: &'a [Resource], group: &str, kind: &str) -> Option<&'a Resource> {
    listed
        .iter()
        .find(|r| r.group == group && (r.kind == kind || r.kind.to_ascii_lowercase() == kind))
}

/// The objects the snapshot holds with a reference to `owner`, by path: in its namespace, or
/// anywhere for a cluster-scoped owner.
fn dependents(
    snapshot: &Snapshot,
    listed: &[Resource],
    options: &Options,
    owner: &Target,
) -> Vec<(String, Target)> {
    let candidates: Box<dyn Iterator<Item = (&Resource, &Stored)>> = match &owner.namespace {
        Some(namespace) => Box::new(snapshot.objects_in(namespace)),
        None => Box::new(snapshot.objects()),
    };
    // Most objects name no owner of this name: their text says so without parsing it.
    let quoted = Value::String(owner.name.clone()).to_string();
    let owner_path = owner.path();
    let mut found = Vec::new();
    for (resource, stored) in candidates {
        let text = stored.text();
        if !text.contains("\"ownerReferences\"") || !text.contains(&quoted) {
            continue;
        }
        let object = stored.value();
        let names_it = object
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|reference| owner_of(listed, options, &stored.namespace, reference))
            .any(|named| named.path() == owner_path);
        if names_it {
            let dependent = Target::of(resource, stored);
            found.push((dependent.path(), dependent));
        }
    }
    found
}

/// The objects to GET first, by API path: the dependents of the references the dangling rules
/// found, and the owners they name (where discovery knows the owner's kind), each once.
fn dangling(
    analysis: &Analysis,
    snapshot: &Snapshot,
    listed: &[Resource],
    options: &Options,
) -> BTreeMap<String, Target> {
    let mut gets = BTreeMap::new();
    for finding in &analysis.outcome.findings {
        if !DANGLING.contains(&finding.rule.id) {
            continue;
        }
        let Some((resource, stored)) = finding
            .object
            .as_ref()
            .and_then(|object| snapshot.find(listed, object))
        else {
            continue;
        };
        let Some(index) = finding
            .field
            .as_deref()
            .and_then(|f| f.strip_prefix("metadata.ownerReferences["))
            .and_then(|f| f.split(']').next())
            .and_then(|i| i.parse::<usize>().ok())
        else {
            continue;
        };
        let object = stored.value();
        let reference = &object["metadata"]["ownerReferences"][index];
        // An owner of a kind that could not be listed is already reported as not checked.
        let group = reference
            .get("apiVersion")
            .and_then(Value::as_str)
            .and_then(|v| v.rsplit_once('/'))
            .map_or("", |(group, _)| group);
        let kind = reference.get("kind").and_then(Value::as_str).unwrap_or("");
        let kind = owner_resource(listed, group, kind).map_or(kind, |r| r.kind.as_str());
        if options.not_read.iter().any(|n| n.covers(group, kind)) {
            continue;
        }
        let dependent = Target::of(resource, stored);
        gets.insert(dependent.path(), dependent);
        if let Some(owner) = owner_of(listed, options, &stored.namespace, reference) {
            gets.insert(owner.path(), owner);
        }
    }
    gets
}
