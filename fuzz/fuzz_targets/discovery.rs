//! Any text as what an API server answers to discovery (`/api`, `/apis`, a group version's
//! `APIResourceList`): an error or the resources to list, never a panic; and no resource to
//! list has a group, version or name that is not one part of a path.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ownerlint::cluster::discovery::{self, Answer, is_path_name};
use ownerlint::cluster::snapshot::Snapshot;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut documents: Vec<Value> = Vec::new();
    match discovery::read_answer(text) {
        Ok(Answer::Aggregated(document)) => documents.push(document),
        // The text again as each group version's `APIResourceList`.
        Ok(Answer::Legacy(versions)) => documents.push(discovery::from_legacy(
            &versions
                .into_iter()
                .map(|(group, version)| (group, version, Some(text.to_string())))
                .collect::<Vec<_>>(),
        )),
        Err(_) => {}
    }
    documents.push(discovery::from_legacy(&[
        (String::new(), "v1".into(), Some(text.to_string())),
        ("apps".into(), "v1".into(), None),
    ]));
    let mut snapshot = Snapshot::default();
    for mut document in documents {
        let _ = discovery::drop_unrequestable(&mut document);
        let _ = discovery::stale_versions(&document);
        let _ = discovery::groups_served(&document);
        let _ = snapshot.add_discovery(&document.to_string());
    }
    for resource in snapshot.resources(ownerlint::rules::kept()) {
        assert!(resource.group.is_empty() || is_path_name(&resource.group));
        assert!(is_path_name(&resource.version) && is_path_name(&resource.resource));
    }
});
