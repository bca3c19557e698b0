//! The rules. Each rule is one file that declares itself (`declare_rule!`: its id, default
//! severity and summary; its document is `rules/<id>.md`) and checks the input. Adding a rule
//! is its file, its document and its line in `rules!` below; the registry, `ownerlint rules`,
//! SARIF's rule list and the documentation's rule pages all come from these declarations.
//!
//! [`registry`] holds the declarations' machinery, [`context`] what a rule reads; the fixes
//! rules offer are built by `crate::edit::fixes`.

pub mod context;
pub mod registry;

pub use context::{
    CLUSTER_INFO_DUMP, CheckOptions, Context, Deleted, NotRead, Site, did_you_mean,
    is_cluster_info_dump,
};
pub(crate) use registry::declare_rule;
pub use registry::{Check, Rule, all_ids, find, kept};

registry::rules! {
    invalid_yaml,
    unrendered_template,
    render_failed,
    link_outside_repository,
    source_not_in_repository,
    duplicate_object,
    uid_shared,
    duplicate_key,
    field_type_invalid,
    owner_ref_invalid,
    owner_ref_unknown_field,
    banned_owner,
    multiple_controllers,
    duplicate_owner_ref,
    owner_not_found,
    owner_uid_mismatch,
    owner_created_with_fresh_uid,
    cross_namespace_owner,
    cluster_scoped_dependent,
    owner_api_unserved,
    owner_api_version_stale,
    owner_kind_lowercase,
    owner_kind_unknown,
    owner_uid_conflict,
    ownership_cycle,
    unpersisted_owner,
    controller_selector_mismatch,
    orphan_will_be_adopted,
    finalizer_invalid,
    finalizer_unqualified,
    deletion_finalizer_in_manifest,
    deletion_timestamp_in_manifest,
    system_fields_in_manifest,
    required_owner,
    tracking_label_required,
    unused_suppression,
}
