//! Ownership policies: rules a team declares (in `.ownerlint.yaml`, or by selecting a bundled
//! pack from `rules/packs/`) rather than rules of Kubernetes itself: what each policy says, and
//! the bundled packs' text. `config` reads policies, and the `required-owner` and
//! `tracking-label-required` rules apply them.

include!(concat!(env!("OUT_DIR"), "/packs.rs"));

/// The text of a bundled pack.
pub fn pack(name: &str) -> Option<&'static str> {
    PACKS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

pub fn pack_names() -> Vec<&'static str> {
    PACKS.iter().map(|(n, _)| *n).collect()
}

/// One owner a `required-owner` policy accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerKind {
    /// `None` accepts the kind in any group.
    pub group: Option<String>,
    pub kind: String,
    /// `Some(true)`: the reference must be the controller; `Some(false)`: it must not be;
    /// `None`: the policy's `controller`, if any.
    pub controller: Option<bool>,
}

/// `required-owner`: objects of a kind must have an owner reference to one of `owners`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequiredOwner {
    pub group: Option<String>,
    pub kind: String,
    pub owners: Vec<OwnerKind>,
    /// The default of each owner's `controller`: `Some(true)` the reference must be the
    /// controller, `Some(false)` it must not be, `None` either.
    pub controller: Option<bool>,
    /// Where it was declared: `file:line`, or `pack <name>`.
    pub origin: String,
}

/// `tracking-label-required`: cluster-scoped objects of `kinds` must carry `label`, whose value
/// names their namespaced owner (`namespace/name`, or `name` with `namespace-label`), and that
/// owner must exist in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackingLabel {
    pub kinds: Vec<String>,
    pub label: String,
    /// The owner's kind, when the label names one kind of owner.
    pub owner: Option<OwnerKind>,
    /// A second label that holds the owner's namespace.
    pub namespace_label: Option<String>,
    pub origin: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policies {
    pub required_owner: Vec<RequiredOwner>,
    pub tracking_label_required: Vec<TrackingLabel>,
}
