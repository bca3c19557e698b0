//! `orphan-will-be-adopted`: an object without a controller reference that a workload
//! controller's selector matches. The controller adopts it: it becomes the object's controller
//! owner (`ClaimObject` in
//! `k8s.io/kubernetes/pkg/controller/controller_ref_manager.go`).

use foldhash::{HashMap, HashMapExt};

use super::Context;
use crate::controllers::{Verdict, is_claimable, workload_controller};
use crate::finding::{Finding, Label};
use crate::index::ObjId;
use crate::selector::{Requirement, Selector, display_labels};

super::declare_rule! {
    id: "orphan-will-be-adopted",
    severity: Info,
    summary: "An object without a controller matches a workload controller's selector and will be adopted",
    reads: [LABELS, SELECTOR, TEMPLATE_LABELS, POD_PHASE, DELETION_TIMESTAMP],
}

/// The controllers that can adopt, by namespace and the group and kind they claim, and within
/// those by one `key=value` their selector requires (or one of the values an `In` allows): a
/// dependent is tested only against the controllers whose selectors its own labels can meet.
/// Of a selector's requirements, the one that the fewest orphans' labels meet is the one
/// indexed (`pod-template-hash=…` rather than the `app=web` of every Pod), so a namespace of
/// tens of thousands of Pods and ReplicaSets costs what its objects do, not their product.
/// The controllers that can adopt, indexed by what a dependent must carry to be selected. The
/// keys borrow the objects' own text: indexing and looking up copy no string.
struct Adopters<'a> {
    by_label: HashMap<(&'a str, &'static str, &'static str, &'a str, &'a str), Vec<ObjId>>,
    others: HashMap<(&'a str, &'static str, &'static str), Vec<ObjId>>,
}

/// The `key=value` requirements of a selector a dependent must meet one value of.
fn indexable(selector: &Selector) -> impl Iterator<Item = (&String, &[String])> {
    selector.requirements.iter().filter_map(|r| match r {
        Requirement::Equals(key, value) => Some((key, std::slice::from_ref(value))),
        Requirement::In(key, values) => Some((key, values.as_slice())),
        _ => None,
    })
}

impl<'a> Adopters<'a> {
    fn of(cx: &Context<'a>, orphans: &[Orphan<'a>]) -> Adopters<'a> {
        let objects: &'a [crate::model::Object] = cx.objects;
        let index: &'a crate::index::Index = cx.index;
        // The controllers that can adopt: a controller being deleted adopts nothing.
        let mut controllers = Vec::new();
        for (i, object) in objects.iter().enumerate() {
            let id = ObjId(i as u32);
            let Some(selector) = object.selector.as_ref().filter(|_| !object.is_being_deleted())
            else {
                continue;
            };
            let facts = index.facts(id);
            let (Some(group), Some(namespace)) = (&facts.group, &facts.namespace) else {
                continue;
            };
            let Some(controller) = workload_controller(group, object.kind_str()) else {
                continue;
            };
            controllers.push((id, namespace.as_str(), controller, &**selector));
        }
        // How many orphans carry each `key=value` that a selector requires (only those are
        // counted: they are what the index chooses between, and only orphans are looked up).
        let mut carried: HashMap<(&str, &str), usize> = HashMap::new();
        for (_, _, _, selector) in &controllers {
            for (key, values) in indexable(selector) {
                for value in values {
                    carried.insert((key.as_str(), value.as_str()), 0);
                }
            }
        }
        if !carried.is_empty() {
            for orphan in orphans {
                let Some(labels) = &orphan.object.labels else {
                    continue;
                };
                for (key, value) in &labels.pairs {
                    if let Some(count) = carried.get_mut(&(key.as_str(), value.as_str())) {
                        *count += 1;
                    }
                }
            }
        }
        let carried = |key: &str, value: &str| carried.get(&(key, value)).copied().unwrap_or(0);
        let mut adopters = Adopters {
            by_label: HashMap::new(),
            others: HashMap::new(),
        };
        for (id, namespace, controller, selector) in controllers {
            // The labels, one of which a dependent must carry to be selected, of the
            // requirement the fewest objects meet.
            let indexed = indexable(selector).min_by_key(|(key, values)| {
                values.iter().map(|v| carried(key, v)).sum::<usize>()
            });
            for claim in controller.claims {
                let (group, kind) = (claim.group, claim.kind);
                match indexed {
                    Some((key, values)) => {
                        let mut values: Vec<&String> = values.iter().collect();
                        values.sort_unstable();
                        values.dedup();
                        for value in values {
                            adopters
                                .by_label
                                .entry((namespace, group, kind, key.as_str(), value.as_str()))
                                .or_default()
                                .push(id);
                        }
                    }
                    None => adopters
                        .others
                        .entry((namespace, group, kind))
                        .or_default()
                        .push(id),
                }
            }
        }
        adopters
    }

    fn candidates(
        &self,
        namespace: &str,
        group: &str,
        kind: &str,
        labels: Option<&crate::selector::Labels>,
    ) -> Vec<ObjId> {
        let Some(claimed) = crate::controllers::claimed_kind(group, kind) else {
            return Vec::new();
        };
        let mut found: Vec<ObjId> = self
            .others
            .get(&(namespace, claimed.0, claimed.1))
            .cloned()
            .unwrap_or_default();
        if let Some(labels) = labels {
            let mut keys: Vec<&str> = labels.pairs.iter().map(|(k, _)| k.as_str()).collect();
            keys.sort_unstable();
            keys.dedup();
            for key in keys {
                let value = labels.get(key).unwrap_or_default();
                let index = (namespace, claimed.0, claimed.1, key, value);
                found.extend(self.by_label.get(&index).into_iter().flatten());
            }
        }
        found.sort_unstable();
        found
    }
}

/// An object that a controller can adopt: claimable, not being deleted, with no controller.
struct Orphan<'a> {
    id: ObjId,
    object: &'a crate::model::Object,
    group: &'a str,
    namespace: &'a str,
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    // The orphans first: a dump's objects nearly all have their controller, and then no
    // controller needs indexing.
    let orphans: Vec<Orphan> = cx
        .linted()
        .filter_map(|(id, dependent)| {
            let facts = cx.index.facts(id);
            let (Some(group), Some(namespace)) = (&facts.group, &facts.namespace) else {
                return None;
            };
            let adoptable = is_claimable(group, dependent.kind_str())
                && !dependent.is_being_deleted()
                && !dependent.owner_refs().iter().any(|r| r.is_controller());
            adoptable.then_some(Orphan {
                id,
                object: dependent,
                group,
                namespace,
            })
        })
        .collect();
    if orphans.is_empty() {
        return;
    }
    let controllers = Adopters::of(cx, &orphans);
    if controllers.by_label.is_empty() && controllers.others.is_empty() {
        return;
    }
    for &Orphan {
        id,
        object: dependent,
        group,
        namespace,
    } in &orphans
    {
        let candidates =
            controllers.candidates(namespace, group, dependent.kind_str(), dependent.labels.as_ref());
        let adopters: Vec<ObjId> = candidates
            .iter()
            .copied()
            .filter(|&c| c != id)
            .filter(|&c| {
                let controller = cx.object(c);
                let Some(claim) = cx.index.facts(c).group.as_deref().and_then(|g| {
                    workload_controller(g, controller.kind_str())?
                        .claim(group, dependent.kind_str())
                }) else {
                    return false;
                };
                let Some(selector) = &controller.selector else {
                    return false;
                };
                claim.considers(dependent)
                    && claim.evaluate(controller, selector, dependent) == Verdict::Matches
            })
            .collect();
        if adopters.is_empty() {
            continue;
        }
        let dependent_text = cx.display_name(id);
        let names: Vec<String> = adopters.iter().map(|&c| cx.display_name(c)).collect();
        let message = match names.as_slice() {
            [one] => {
                let kind = cx.object(adopters[0]).kind_str();
                let replicas = if matches!(kind, "ReplicaSet" | "ReplicationController") {
                    format!(
                        ", and it counts toward the {kind}'s replicas: if that makes more Pods than the {kind} wants, it deletes the surplus, often this Pod"
                    )
                } else {
                    String::new()
                };
                format!(
                    "{dependent_text} has no controller, and its labels match the selector of {one}: the {kind} controller adopts it, making itself its controller owner (`controller: true`, `blockOwnerDeletion: true`), so {dependent_text} will be deleted with {one}{replicas}"
                )
            }
            [init @ .., last] => format!(
                "{dependent_text} has no controller, and its labels match the selectors of {} and {last}: whichever controller syncs first adopts it (a race), and {dependent_text} will be deleted with that one",
                init.join(", ")
            ),
            [] => continue,
        };
        let span = dependent.labels_span();
        let label = format!("labels {}", display_labels(dependent.labels.as_ref()));
        let mut finding = cx.finding(&META, id, span, label, message).help(format!(
            "to keep {dependent_text} on its own, give it labels no controller selects; to have it managed, write the controller's ownerReference so the ownership is explicit"
        ));
        for &c in &adopters {
            if let Some(selector) = &cx.object(c).selector {
                finding = finding.related(Label::new(
                    cx.object(c).source,
                    selector.span,
                    format!("{} selects {selector}", cx.display_name(c)),
                ));
            }
        }
        out.push(finding);
    }
}
