//! Any bytes as a page of a list the API server answered: an error or the page's objects,
//! never a panic; a list of metadata keeps each item's metadata only, and a Secret's data is
//! never kept, whatever the page holds.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ownerlint::cluster::snapshot::{Page, Resource, Snapshot};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let resource = |resource: &str, kind: &str, whole: bool| Resource {
        group: String::new(),
        version: "v1".into(),
        resource: resource.into(),
        kind: kind.into(),
        namespaced: true,
        whole,
        phase: false,
    };
    for (listed, whole) in [
        (resource("secrets", "Secret", false), false),
        (resource("secrets", "Secret", true), true),
        (resource("pods", "Pod", true), true),
        // Pods listed as metadata, with their phase kept.
        (
            Resource {
                phase: true,
                ..resource("pods", "Pod", false)
            },
            false,
        ),
    ] {
        let Ok(page) = Page::decode(&listed, data) else {
            continue;
        };
        assert!(page.next.as_deref() != Some(""));
        let mut snapshot = Snapshot::default();
        snapshot.add(&listed, page);
        for (_, stored) in snapshot.objects() {
            let Value::Object(object) = stored.value() else {
                panic!("an object is kept as an object");
            };
            if !whole {
                // Metadata only; of a Pod read for its phase, `status.phase` besides.
                assert!(object.keys().all(|k| {
                    ["apiVersion", "kind", "metadata"].contains(&k.as_str())
                        || (listed.phase && k == "status")
                }));
                if let Some(Value::Object(status)) = object.get("status") {
                    assert!(status.keys().all(|k| k == "phase"));
                }
            }
            if listed.is_secret() {
                assert!(!object.contains_key("data") && !object.contains_key("stringData"));
            }
        }
        let _ = snapshot.files();
    }
});
