//! Ownership policies: rules a team declares (in `.ownerlint.yaml`, or by selecting a bundled
//! pack from `rules/packs/`) rather than rules of Kubernetes itself. Packs are data: this module
//! only finds them; `config` reads them, and the `required-owner` and
//! `tracking-label-required` rules apply them.

use crate::config::{self, ConfigError, Policies};

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

/// The policies of a bundled pack.
pub fn pack_policies(name: &str) -> Result<Policies, Vec<ConfigError>> {
    let text = pack(name).ok_or_else(|| {
        vec![ConfigError {
            path: format!("pack {name}"),
            line: 0,
            column: 0,
            message: format!("no pack `{name}` (bundled: {})", pack_names().join(", ")),
        }]
    })?;
    config::parse_pack(name, text)
}
