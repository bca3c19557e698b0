//! The built-in workload controllers that claim objects by label selector, and what each claims
//! (`ControllerRefManager` in `k8s.io/kubernetes/pkg/controller/controller_ref_manager.go`, and
//! the controllers that use it).

/// An object kind a controller claims, and how.
#[derive(Debug)]
pub(crate) struct Claimed {
    pub group: &'static str,
    pub kind: &'static str,
    /// The controller releases an object it controls once its selector no longer matches
    /// (`ClaimPods`, `ClaimReplicaSets`, `ClaimControllerRevisions`). A StatefulSet lists
    /// only the revisions its selector matches, so it adopts revisions but never releases one.
    pub releases: bool,
    /// ReplicaSets and ReplicationControllers look only at active Pods: not `Succeeded`, not
    /// `Failed`, not being deleted (`controller.FilterActivePods`).
    pub active_pods_only: bool,
    /// A StatefulSet claims only Pods named `<set>-<ordinal>` (`isMemberOf`).
    pub ordinal_name: bool,
}

use crate::selector::{Labels, Requirement, Selector};

/// What a controller looks at in an object it may claim (`model::Object` is one).
pub(crate) trait Claimable {
    fn name(&self) -> &str;
    fn labels(&self) -> Option<&Labels>;
    fn is_being_deleted(&self) -> bool;
    /// A Pod's `status.phase`.
    fn pod_phase(&self) -> Option<&str>;
}

#[derive(Debug)]
pub(crate) struct WorkloadController {
    pub group: &'static str,
    pub kind: &'static str,
    /// The ReplicationController's selector is a plain map of labels.
    pub map_selector: bool,
    pub claims: &'static [Claimed],
}

const fn claimed(group: &'static str, kind: &'static str) -> Claimed {
    Claimed {
        group,
        kind,
        releases: true,
        active_pods_only: false,
        ordinal_name: false,
    }
}

const ACTIVE_PODS: Claimed = Claimed {
    active_pods_only: true,
    ..claimed("", "Pod")
};

pub(crate) static WORKLOAD_CONTROLLERS: &[WorkloadController] = &[
    WorkloadController {
        group: "apps",
        kind: "ReplicaSet",
        map_selector: false,
        claims: &[ACTIVE_PODS],
    },
    WorkloadController {
        group: "",
        kind: "ReplicationController",
        map_selector: true,
        claims: &[ACTIVE_PODS],
    },
    WorkloadController {
        group: "apps",
        kind: "Deployment",
        map_selector: false,
        claims: &[claimed("apps", "ReplicaSet")],
    },
    WorkloadController {
        group: "apps",
        kind: "StatefulSet",
        map_selector: false,
        claims: &[
            Claimed {
                ordinal_name: true,
                ..claimed("", "Pod")
            },
            Claimed {
                releases: false,
                ..claimed("apps", "ControllerRevision")
            },
        ],
    },
    WorkloadController {
        group: "apps",
        kind: "DaemonSet",
        map_selector: false,
        claims: &[claimed("", "Pod"), claimed("apps", "ControllerRevision")],
    },
    WorkloadController {
        group: "batch",
        kind: "Job",
        map_selector: false,
        claims: &[claimed("", "Pod")],
    },
];

/// The workload controller of this (canonical) group and kind.
pub(crate) fn workload_controller(group: &str, kind: &str) -> Option<&'static WorkloadController> {
    WORKLOAD_CONTROLLERS
        .iter()
        .find(|c| c.group == group && c.kind == kind)
}

impl WorkloadController {
    /// How this controller claims objects of `group`/`kind`, if it does.
    pub(crate) fn claim(&self, group: &str, kind: &str) -> Option<&'static Claimed> {
        self.claims
            .iter()
            .find(|c| c.group == group && c.kind == kind)
    }
}

/// The group and kind some workload controller claims, as the controllers' table writes them.
pub(crate) fn claimed_kind(group: &str, kind: &str) -> Option<(&'static str, &'static str)> {
    WORKLOAD_CONTROLLERS
        .iter()
        .flat_map(|c| c.claims)
        .find(|c| c.group == group && c.kind == kind)
        .map(|c| (c.group, c.kind))
}

/// Whether some controller claims objects of this kind.
pub(crate) fn is_claimable(group: &str, kind: &str) -> bool {
    WORKLOAD_CONTROLLERS
        .iter()
        .any(|c| c.claim(group, kind).is_some())
}

impl Claimed {
    /// Whether the controller looks at `dependent` at all: ReplicaSets and
    /// ReplicationControllers skip Pods that finished or are being deleted.
    pub(crate) fn considers(&self, dependent: &impl Claimable) -> bool {
        !self.active_pods_only
            || !(dependent.is_being_deleted()
                || matches!(dependent.pod_phase(), Some("Succeeded" | "Failed")))
    }

    /// How `dependent` fares against the controller's selector and filters.
    pub(crate) fn evaluate<'s>(
        &self,
        controller: &impl Claimable,
        selector: &'s Selector,
        dependent: &impl Claimable,
    ) -> Verdict<'s> {
        if let Some(unmet) = selector.first_unmet(dependent.labels()) {
            return Verdict::Unmet(unmet);
        }
        if self.ordinal_name && !is_ordinal_member(controller.name(), dependent.name()) {
            return Verdict::NotAMember;
        }
        Verdict::Matches
    }
}

/// Whether a controller's claim on an object holds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict<'s> {
    Matches,
    /// The labels fail this requirement of the selector.
    Unmet(&'s Requirement),
    /// The labels match, but the name is not `<set>-<ordinal>`.
    NotAMember,
}

/// `isMemberOf`: a Pod belongs to StatefulSet `set` when its name is `<set>-<ordinal>`
/// (`statefulPodRegex`, `(.*)-([0-9]+)$`).
pub(crate) fn is_ordinal_member(set: &str, pod: &str) -> bool {
    pod.rsplit_once('-').is_some_and(|(parent, ordinal)| {
        parent == set && !ordinal.is_empty() && ordinal.bytes().all(|b| b.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::is_ordinal_member;

    #[test]
    fn statefulset_members_are_named_by_ordinal() {
        assert!(is_ordinal_member("web", "web-0"));
        assert!(is_ordinal_member("web", "web-12"));
        assert!(is_ordinal_member("my-db", "my-db-3"));
        assert!(!is_ordinal_member("web", "web"));
        assert!(!is_ordinal_member("web", "web-"));
        assert!(!is_ordinal_member("web", "web-a"));
        assert!(!is_ordinal_member("web", "api-0"));
        assert!(!is_ordinal_member("web", "web-0-1"));
    }
}
