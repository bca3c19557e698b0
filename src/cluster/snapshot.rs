//! What a cluster answered, kept as the files of a snapshot: its aggregated API discovery
//! (`discovery.json`, one `APIGroupDiscoveryList` of every group, in the order read), every
//! cluster-scoped object (`cluster-scoped.json`) and the objects of each namespace
//! (`namespaces/NS.json`), each a `kind: List` — the layout of a support bundle, read back by
//! `ownerlint DIR` like any dump.
//!
//! Discovery decides what is listed: each resource that can be listed, at the first version of
//! its group that serves it (discovery lists a group's versions in the order the server prefers
//! them), once for kinds that two groups serve (`events.k8s.io` Events are the core group's);
//! as metadata only (`PartialObjectMetadataList`) unless a rule reads more of its kind, which
//! the field declarations say (`fields::Kept::reads_beyond_metadata`). Each listed item gets
//! the apiVersion and kind of its resource (a metadata-only item says `PartialObjectMetadata`)
//! and loses `managedFields`, which nothing reads and which are most of a big cluster's bytes.
//! An item of a list of metadata keeps its metadata only, whatever the server answered (some
//! answer whole objects); a Secret never keeps its data, nor the last applied configuration
//! that repeats it.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::discovery::is_path_name;
use crate::catalog::canonical_group;
use crate::fields::{Kept, NOT_READ_GROUP, NOT_READ_KIND, ObjectKind};
use crate::rules::NotRead;

/// A resource to list, as discovery describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    /// Its name in URLs: `replicasets`.
    pub resource: String,
    pub kind: String,
    pub namespaced: bool,
    /// Whole objects are needed: a rule reads more than metadata of this kind.
    pub whole: bool,
    /// Listed as metadata only, though a rule reads its `status.phase` too (Pods: controllers
    /// do not adopt finished ones): the finished objects are read with lists of a field
    /// selector (`status.phase=Succeeded`, `status.phase=Failed`), and of an object answered
    /// whole only its phase is kept.
    pub phase: bool,
}

impl Resource {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The path its list is served at, across all namespaces.
    pub fn list_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}/{}", self.version, self.resource)
        } else {
            format!("/apis/{}/{}/{}", self.group, self.version, self.resource)
        }
    }

    /// The path its list is served at in one namespace (a namespaced resource's).
    pub fn list_path_in(&self, namespace: &str) -> String {
        let prefix = self.group_version_path();
        format!("{prefix}/namespaces/{namespace}/{}", self.resource)
    }

    /// The path of one object of it: `/apis/apps/v1/namespaces/shop/replicasets/web-7d9`,
    /// what `kubectl get --raw` takes.
    pub fn object_path(&self, namespace: Option<&str>, name: &str) -> String {
        let prefix = self.group_version_path();
        match namespace {
            Some(namespace) if self.namespaced => {
                format!("{prefix}/namespaces/{namespace}/{}/{name}", self.resource)
            }
            _ => format!("{prefix}/{}/{name}", self.resource),
        }
    }

    /// `/api/v1`, `/apis/apps/v1`.
    fn group_version_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// Core v1 Secrets, whose data is never kept.
    pub fn is_secret(&self) -> bool {
        self.group.is_empty() && (self.resource == "secrets" || self.kind == "Secret")
    }

    /// How it is named in messages: `replicasets.apps/v1`, `pods/v1`.
    pub fn display(&self) -> String {
        if self.group.is_empty() {
            format!("{}/{}", self.resource, self.version)
        } else {
            format!("{}.{}/{}", self.resource, self.group, self.version)
        }
    }
}

/// What `kubectl apply` keeps of the object it applied, in an annotation.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// A Secret's fields that hold its data: never kept, whatever the server answers.
pub(super) const SECRET_DATA: &[&str] = &["data", "stringData"];

/// What a cluster answered, gathered response by response.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The `APIGroupDiscovery` items of the discovery documents, in the order read.
    discovery: Vec<Value>,
    /// Objects by namespace (`""`: cluster-scoped), in the order listed, each with the
    /// resource it was listed as (an index into `resources`).
    objects: BTreeMap<String, Vec<(usize, Stored)>>,
    /// The resources objects were listed as.
    resources: Vec<Resource>,
    /// The uids taken, so that an object listed twice is kept once.
    uids: HashSet<String>,
}

impl Snapshot {
    /// Take an aggregated discovery document (`/api` or `/apis`, an `APIGroupDiscoveryList`).
    pub fn add_discovery(&mut self, body: &str) -> Result<(), String> {
        let document: Value = serde_json::from_str(body)
            .map_err(|e| format!("the discovery document is not JSON: {e}"))?;
        if document.get("kind").and_then(Value::as_str) != Some("APIGroupDiscoveryList") {
            return Err(format!(
                "expected an APIGroupDiscoveryList, got {}",
                describe_kind(&document)
            ));
        }
        let items = document
            .get("items")
            .and_then(Value::as_array)
            .ok_or("the discovery document has no items")?;
        self.discovery.extend(items.iter().cloned());
        Ok(())
    }

    /// The resources to list, from the discovery taken, with whether each is read whole.
    pub fn resources(&self, kept: &Kept) -> Vec<Resource> {
        let mut listed: Vec<Resource> = Vec::new();
        for group in &self.discovery {
            let name = group
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            for version in group
                .get("versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                // A stale version's server did not answer: listing it is likely to fail.
                if version.get("freshness").and_then(Value::as_str) == Some("Stale") {
                    continue;
                }
                let Some(version_name) = version.get("version").and_then(Value::as_str) else {
                    continue;
                };
                for resource in version
                    .get("resources")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let text = |pointer: &str| resource.pointer(pointer).and_then(Value::as_str);
                    let (Some(plural), Some(kind)) =
                        (text("/resource"), text("/responseKind/kind"))
                    else {
                        continue;
                    };
                    let listable = resource
                        .get("verbs")
                        .and_then(Value::as_array)
                        .is_some_and(|verbs| verbs.iter().any(|v| v.as_str() == Some("list")));
                    // A name that is not one part of a path is never requested (the reader
                    // leaves it out of discovery first, and says so).
                    let requestable = (name.is_empty() || is_path_name(name))
                        && is_path_name(version_name)
                        && is_path_name(plural);
                    // The first version that serves it is the one the server prefers.
                    if !listable
                        || !requestable
                        || listed
                            .iter()
                            .any(|r| r.group == name && r.resource == plural)
                    {
                        continue;
                    }
                    let of = ObjectKind::of(Some(name), kind);
                    let phase = kept.reads_only_phase_beyond_metadata(of);
                    listed.push(Resource {
                        group: name.to_string(),
                        version: version_name.to_string(),
                        resource: plural.to_string(),
                        kind: kind.to_string(),
                        namespaced: text("/scope") == Some("Namespaced"),
                        whole: !phase && kept.reads_beyond_metadata(of),
                        phase,
                    });
                }
            }
        }
        // A kind that two groups serve is one resource: listed once, in the group that is its own.
        let canonical: HashSet<(String, String)> = listed
            .iter()
            .filter(|r| canonical_group(&r.group, &r.kind) == r.group)
            .map(|r| (r.group.clone(), r.kind.clone()))
            .collect();
        listed.retain(|r| {
            let own = canonical_group(&r.group, &r.kind);
            own == r.group || !canonical.contains(&(own.to_string(), r.kind.clone()))
        });
        listed
    }

    /// Take one page of a resource's list; returns the token of the next page, if any.
    pub fn add_page(&mut self, resource: &Resource, body: &str) -> Result<Option<String>, String> {
        let page = Page::decode(resource, body.as_bytes())?;
        let next = page.next.clone();
        self.add(resource, page);
        Ok(next)
    }

    /// Take a page read by [`Page::decode`]: its objects, each once.
    pub fn add(&mut self, resource: &Resource, page: Page) {
        let at = self.resource_index(resource);
        for stored in page.objects {
            if let Some(uid) = &stored.uid
                && !self.uids.insert(uid.to_string())
            {
                continue;
            }
            self.objects
                .entry(stored.namespace.to_string())
                .or_default()
                .push((at, stored));
        }
    }

    /// Take one object as a GET answered it now: it replaces the object of the same resource,
    /// namespace and name taken before, if any. Returns whether anything changed (an object
    /// answered as it was listed leaves the snapshot as it was).
    pub fn put(&mut self, resource: &Resource, item: Map<String, Value>) -> bool {
        let stored = Stored::of(resource, item);
        if self
            .get(resource, &stored.namespace, &stored.name)
            .is_some_and(|taken| taken.json == stored.json)
        {
            return false;
        }
        self.remove(resource, &stored.namespace, &stored.name);
        if let Some(uid) = &stored.uid {
            self.uids.insert(uid.to_string());
        }
        let at = self.resource_index(resource);
        self.objects
            .entry(stored.namespace.to_string())
            .or_default()
            .push((at, stored));
        true
    }

    /// Drop the object of this resource, namespace (`""`: cluster-scoped) and name, which a
    /// GET found gone. Returns whether there was one.
    pub fn remove(&mut self, resource: &Resource, namespace: &str, name: &str) -> bool {
        let Some(at) = self.resources.iter().position(|r| r == resource) else {
            return false;
        };
        let Some(objects) = self.objects.get_mut(namespace) else {
            return false;
        };
        let uids = &mut self.uids;
        let before = objects.len();
        objects.retain(|(of, stored)| {
            let this = *of == at && &*stored.name == name;
            if this && let Some(uid) = &stored.uid {
                uids.remove(&**uid);
            }
            !this
        });
        objects.len() != before
    }

    /// The object of this resource, namespace (`""`: cluster-scoped) and name, if taken.
    pub fn get(&self, resource: &Resource, namespace: &str, name: &str) -> Option<&Stored> {
        let at = self.resources.iter().position(|r| r == resource)?;
        self.objects
            .get(namespace)?
            .iter()
            .find(|(of, stored)| *of == at && &*stored.name == name)
            .map(|(_, stored)| stored)
    }

    /// The objects of one namespace (`""`: the cluster-scoped ones), with their resources.
    pub fn objects_in(&self, namespace: &str) -> impl Iterator<Item = (&Resource, &Stored)> {
        self.objects
            .get(namespace)
            .into_iter()
            .flatten()
            .map(|(at, stored)| (&self.resources[*at], stored))
    }

    /// Every object taken, with the resource it was listed as: cluster-scoped ones first, then
    /// each namespace's.
    pub fn objects(&self) -> impl Iterator<Item = (&Resource, &Stored)> {
        self.objects
            .values()
            .flatten()
            .map(|(at, stored)| (&self.resources[*at], stored))
    }

    /// The object a finding names, among those listed as `listed`'s resources.
    pub fn find<'a>(
        &'a self,
        listed: &'a [Resource],
        object: &crate::finding::ObjectIdentity,
    ) -> Option<(&'a Resource, &'a Stored)> {
        let group = object
            .api_version
            .as_deref()?
            .rsplit_once('/')
            .map_or("", |(group, _)| group);
        let kind = object.kind.as_deref()?;
        let resource = listed.iter().find(|r| r.group == group && r.kind == kind)?;
        let at = self.resources.iter().position(|r| r == resource)?;
        let namespace = object.namespace.as_deref().filter(|_| resource.namespaced);
        let name = object.name.as_deref()?;
        self.objects
            .get(namespace.unwrap_or(""))?
            .iter()
            .find(|(of, stored)| *of == at && &*stored.name == name)
            .map(|(_, stored)| (resource, stored))
    }

    fn resource_index(&mut self, resource: &Resource) -> usize {
        match self.resources.iter().position(|r| r == resource) {
            Some(at) => at,
            None => {
                self.resources.push(resource.clone());
                self.resources.len() - 1
            }
        }
    }

    /// Set the phase of the objects of `resource` that a list of a field selector on the phase
    /// found in it (`finished`: the objects that list answered, each found by namespace, name
    /// and uid: one created since the first list is not taken). Returns how many were set.
    pub fn set_phases(&mut self, resource: &Resource, finished: &[(Stored, &str)]) -> usize {
        let Some(at) = self.resources.iter().position(|r| r == resource) else {
            return 0;
        };
        let phases: HashMap<(&str, &str), (Option<&str>, &str)> = finished
            .iter()
            .map(|(stored, phase)| {
                (
                    (&*stored.namespace, &*stored.name),
                    (stored.uid.as_deref(), *phase),
                )
            })
            .collect();
        let mut set = 0;
        for (namespace, objects) in &mut self.objects {
            for (_, stored) in objects.iter_mut().filter(|(of, _)| *of == at) {
                if let Some((uid, phase)) = phases.get(&(namespace.as_str(), &*stored.name))
                    && *uid == stored.uid.as_deref()
                {
                    stored.with_phase(phase);
                    set += 1;
                }
            }
        }
        set
    }

    /// How many objects were taken.
    pub fn object_count(&self) -> usize {
        self.objects.values().map(Vec::len).sum()
    }

    /// The snapshot's files, as (path relative to the snapshot's folder, JSON text): the
    /// discovery, the cluster-scoped objects, then each namespace's.
    pub fn files(&self) -> Vec<(String, String)> {
        let mut files = Vec::new();
        if let Some(discovery) = self.discovery_file() {
            files.push(("discovery.json".to_string(), discovery));
        }
        for (namespace, objects) in &self.objects {
            let path = if namespace.is_empty() {
                "cluster-scoped.json".to_string()
            } else {
                format!("namespaces/{}.json", file_name(namespace))
            };
            let objects: Vec<Value> = objects.iter().map(|(_, stored)| stored.value()).collect();
            let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
            files.push((path, pretty(&list)));
        }
        files
    }

    /// The discovery taken, as `discovery.json` holds it; `None` before any.
    pub fn discovery_file(&self) -> Option<String> {
        (!self.discovery.is_empty()).then(|| {
            pretty(&json!({
                "apiVersion": "apidiscovery.k8s.io/v2",
                "kind": "APIGroupDiscoveryList",
                "metadata": {},
                "items": self.discovery,
            }))
        })
    }
}

/// The file of a saved snapshot that says what could not be read.
pub const NOT_READ_FILE: &str = "not-read.json";

/// What could not be read, as [`NOT_READ_FILE`] holds it (`None` when everything was read):
/// one record of kind `ownerlint.dev/v1` `NotRead`, each resource (or group, without a kind:
/// every kind of it) with why. `ownerlint DIR` takes it as a live run takes what it could not
/// read: with `--complete`, an owner of those kinds that is not found is not checked.
pub fn not_read_file(not_read: &[NotRead]) -> Option<String> {
    if not_read.is_empty() {
        return None;
    }
    let resources: Vec<Value> = not_read
        .iter()
        .map(|n| {
            let mut resource = Map::new();
            resource.insert("resource".into(), Value::from(n.what.as_str()));
            resource.insert("group".into(), Value::from(n.group.as_str()));
            if let Some(kind) = &n.kind {
                resource.insert("kind".into(), Value::from(kind.as_str()));
            }
            resource.insert("why".into(), Value::from(n.why.as_str()));
            Value::Object(resource)
        })
        .collect();
    Some(pretty(&json!({
        "apiVersion": format!("{NOT_READ_GROUP}/v1"),
        "kind": NOT_READ_KIND,
        "metadata": {"name": "not-read"},
        "resources": resources,
    })))
}

pub use super::page::Page;

/// An object as kept: its JSON text, compact (a tenth of the memory of its parsed form), with
/// what finds it.
#[derive(Debug)]
pub struct Stored {
    /// `""` for a cluster-scoped object.
    pub namespace: Box<str>,
    pub name: Box<str>,
    uid: Option<Box<str>>,
    json: Box<str>,
}

impl Stored {
    /// The object as kept: with its resource's apiVersion and kind, and without
    /// `managedFields`. Of a resource listed as metadata only, only its metadata is kept: some
    /// servers (aggregated APIs among them) answer whole objects where metadata was asked, and
    /// what no rule reads is not held, nor saved. A Secret's data is never kept.
    pub(super) fn of(resource: &Resource, mut item: Map<String, Value>) -> Stored {
        let mut metadata = match item.remove("metadata") {
            Some(Value::Object(metadata)) => metadata,
            _ => Map::new(),
        };
        metadata.remove("managedFields");
        let secret = resource.is_secret();
        // A Secret applied with `kubectl apply` carries its data in this annotation, which no
        // rule reads: it is not kept, nor saved.
        if secret && let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
            annotations.remove(LAST_APPLIED);
            if annotations.is_empty() {
                metadata.remove("annotations");
            }
        }
        let text = |key: &str| metadata.get(key).and_then(Value::as_str).map(Box::from);
        let namespace = text("namespace")
            .filter(|_| resource.namespaced)
            .unwrap_or_default();
        let (name, uid) = (text("name").unwrap_or_default(), text("uid"));
        let mut object = Map::new();
        object.insert("apiVersion".into(), Value::String(resource.api_version()));
        object.insert("kind".into(), Value::String(resource.kind.clone()));
        object.insert("metadata".into(), Value::Object(metadata));
        if resource.whole {
            item.remove("apiVersion");
            item.remove("kind");
            if secret {
                for field in SECRET_DATA {
                    item.remove(*field);
                }
            }
            object.extend(item);
        } else if resource.phase
            && let Some(phase) = item
                .get("status")
                .and_then(|status| status.get("phase"))
                .filter(|phase| phase.is_string())
        {
            object.insert("status".into(), json!({ "phase": phase }));
        }
        Stored {
            namespace,
            name,
            uid,
            json: Value::Object(object).to_string().into_boxed_str(),
        }
    }

    /// The object with `status.phase` set to `phase` (what a list of a field selector on
    /// the phase found of it).
    fn with_phase(&mut self, phase: &str) {
        let mut object = self.value();
        let Some(map) = object.as_object_mut() else {
            return;
        };
        let status = map
            .entry("status")
            .or_insert_with(|| Value::Object(Map::new()));
        if !status.is_object() {
            *status = Value::Object(Map::new());
        }
        status["phase"] = Value::from(phase);
        self.json = object.to_string().into_boxed_str();
    }

    /// Its `metadata.uid`, if it has one.
    pub fn uid(&self) -> Option<&str> {
        self.uid.as_deref()
    }

    /// The object as kept: compact JSON.
    pub fn text(&self) -> &str {
        &self.json
    }

    /// The object, parsed again.
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.json).unwrap_or_default()
    }
}

/// JSON as kubectl prints it (`-o json`): indented, one key a line.
fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// A namespace's name as a file name: a namespace is a DNS label (lower-case letters, digits
/// and `-`), which is one already; anything else, which no API server serves, is spelled out
/// in hexadecimal rather than written as a path.
fn file_name(namespace: &str) -> String {
    let label = !namespace.is_empty()
        && namespace.len() <= 63
        && namespace
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if label {
        namespace.to_string()
    } else {
        let hex: String = namespace.bytes().map(|b| format!("{b:02x}")).collect();
        format!("x-{hex}")
    }
}

fn describe_kind(document: &Value) -> String {
    match document.get("kind").and_then(Value::as_str) {
        Some(kind) => format!("a document of kind {}", kind.escape_debug()),
        None => "a document with no kind".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods() -> Resource {
        Resource {
            group: String::new(),
            version: "v1".into(),
            resource: "pods".into(),
            kind: "Pod".into(),
            namespaced: true,
            whole: false,
            phase: true,
        }
    }

    #[test]
    fn what_is_not_a_list_or_a_discovery_document_is_refused_with_what_it_is() {
        let mut snapshot = Snapshot::default();
        let status = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}"#;
        assert_eq!(
            snapshot.add_page(&pods(), status),
            Err("expected a list, got a document of kind Status".to_string())
        );
        assert_eq!(
            snapshot.add_discovery(r#"{"kind":"APIGroupList","groups":[]}"#),
            Err(
                "expected an APIGroupDiscoveryList, got a document of kind APIGroupList"
                    .to_string()
            )
        );
        assert!(snapshot.add_page(&pods(), "<html>").is_err());
        assert_eq!(snapshot.object_count(), 0);
    }

    #[test]
    fn items_get_their_resources_kind_lose_managed_fields_and_are_kept_once() {
        let mut snapshot = Snapshot::default();
        let page = r#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",
            "metadata":{"continue":"next-page"},
            "items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
              "metadata":{"name":"web-1","namespace":"shop","uid":"u1","managedFields":[{}]}},
              {"metadata":{"name":"web-1","namespace":"shop","uid":"u1"}},
              {"metadata":{"name":"odd","namespace":"../etc","uid":"u2"}}]}"#;
        assert_eq!(
            snapshot.add_page(&pods(), page),
            Ok(Some("next-page".to_string()))
        );
        assert_eq!(snapshot.object_count(), 2);
        let files = snapshot.files();
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            names,
            ["namespaces/x-2e2e2f657463.json", "namespaces/shop.json"]
        );
        let list: Value = serde_json::from_str(&files[1].1).expect("JSON");
        assert_eq!(
            list["items"][0],
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1"}})
        );
        // The last page has no token (or an empty one).
        let last = r#"{"kind":"PodList","metadata":{"continue":""},"items":null}"#;
        assert_eq!(snapshot.add_page(&pods(), last), Ok(None));
    }

    #[test]
    fn a_secrets_last_applied_configuration_which_holds_its_data_is_not_kept() {
        let secrets = Resource {
            resource: "secrets".into(),
            kind: "Secret".into(),
            whole: false,
            phase: false,
            ..pods()
        };
        let mut snapshot = Snapshot::default();
        let page = r#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},
            "items":[
              {"metadata":{"name":"a","namespace":"shop","uid":"u1","annotations":{
                "kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"aHVudGVyMg==\"}}"}}},
              {"metadata":{"name":"b","namespace":"shop","uid":"u2","annotations":{
                "kubectl.kubernetes.io/last-applied-configuration":"{}","ownerlint.dev/ignore":"owner-not-found"}}}]}"#;
        assert_eq!(snapshot.add_page(&secrets, page), Ok(None));
        let files = snapshot.files();
        assert!(!files[0].1.contains("aHVudGVyMg"), "{}", files[0].1);
        let list: Value = serde_json::from_str(&files[0].1).expect("JSON");
        assert_eq!(list["items"][0]["metadata"].get("annotations"), None);
        assert_eq!(
            list["items"][1]["metadata"]["annotations"],
            json!({"ownerlint.dev/ignore": "owner-not-found"})
        );
        // Other kinds keep it, as the cluster has it.
        let mut snapshot = Snapshot::default();
        let page = page.replace("\"name\":\"a\"", "\"name\":\"c\"");
        assert_eq!(snapshot.add_page(&pods(), &page), Ok(None));
        assert!(snapshot.files()[0].1.contains("aHVudGVyMg"));
    }

    #[test]
    fn whole_objects_answered_for_metadata_are_cut_to_it_and_a_secrets_data_is_never_kept() {
        let secrets = Resource {
            resource: "secrets".into(),
            kind: "Secret".into(),
            whole: false,
            phase: false,
            ..pods()
        };
        // No rule reads beyond a Secret's metadata: its list asks for metadata only.
        let kept = crate::rules::kept();
        assert!(!kept.reads_beyond_metadata(ObjectKind::of(Some(""), "Secret")));
        let page = r#"{"kind":"SecretList","apiVersion":"v1","metadata":{},"items":[
            {"metadata":{"name":"a","namespace":"shop","uid":"u1"},"type":"Opaque",
             "data":{"password":"aHVudGVyMg=="},"stringData":{"token":"hunter2"}}]}"#;
        let mut snapshot = Snapshot::default();
        assert_eq!(snapshot.add_page(&secrets, page), Ok(None));
        let list: Value = serde_json::from_str(&snapshot.files()[0].1).expect("JSON");
        assert_eq!(
            list["items"][0],
            json!({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "a", "namespace": "shop", "uid": "u1"}})
        );
        // Were Secrets ever read whole, their data would still not be kept.
        let whole = Resource {
            whole: true,
            ..secrets
        };
        let mut snapshot = Snapshot::default();
        assert_eq!(snapshot.add_page(&whole, page), Ok(None));
        let text = &snapshot.files()[0].1;
        assert!(
            !text.contains("aHVudGVyMg") && !text.contains("hunter2"),
            "{text}"
        );
        assert!(text.contains("Opaque"), "{text}");
        // Any kind listed as metadata keeps its metadata only.
        let configmaps = Resource {
            resource: "configmaps".into(),
            kind: "ConfigMap".into(),
            whole: false,
            phase: false,
            ..pods()
        };
        let page = r#"{"kind":"ConfigMapList","items":[
            {"metadata":{"name":"c","namespace":"shop"},"data":{"k":"hunter2"}}]}"#;
        let mut snapshot = Snapshot::default();
        assert_eq!(snapshot.add_page(&configmaps, page), Ok(None));
        assert!(!snapshot.files()[0].1.contains("hunter2"));
    }

    #[test]
    fn a_pods_phase_is_kept_alone_and_set_from_the_lists_of_finished_pods() {
        let resource = pods();
        assert!(!resource.whole && resource.phase);
        let mut snapshot = Snapshot::default();
        // A server may answer whole Pods where metadata was asked: their phase alone is kept.
        let page = r#"{"kind":"PodList","items":[
            {"metadata":{"name":"a","namespace":"shop","uid":"u1"},"spec":{"nodeName":"n"},
             "status":{"phase":"Running","podIP":"10.0.0.1"}},
            {"metadata":{"name":"b","namespace":"shop","uid":"u2"}},
            {"metadata":{"name":"c","namespace":"shop","uid":"u3"}}]}"#;
        assert_eq!(snapshot.add_page(&resource, page), Ok(None));
        let finished = r#"{"kind":"PartialObjectMetadataList","items":[
            {"metadata":{"name":"b","namespace":"shop","uid":"u2"}},
            {"metadata":{"name":"c","namespace":"shop","uid":"u3-recreated"}},
            {"metadata":{"name":"d","namespace":"shop","uid":"u4"}}]}"#;
        let finished = Page::decode(&resource, finished.as_bytes()).expect("a page");
        let finished: Vec<(Stored, &str)> = finished
            .objects
            .into_iter()
            .map(|stored| (stored, "Succeeded"))
            .collect();
        // `c` was re-created since the first list, and `d` created: neither is set.
        assert_eq!(snapshot.set_phases(&resource, &finished), 1);
        let list: Value = serde_json::from_str(&snapshot.files()[0].1).expect("JSON");
        let phases: Vec<&Value> = list["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|item| &item["status"])
            .collect();
        assert_eq!(
            phases,
            [
                &json!({"phase": "Running"}),
                &json!({"phase": "Succeeded"}),
                &Value::Null
            ]
        );
        assert_eq!(snapshot.object_count(), 3);
    }

    #[test]
    fn a_page_is_read_item_by_item_whatever_the_order_of_its_keys() {
        let page = br#"{"items":[{"metadata":{"name":"a","namespace":"shop"}},7,"x",null],
            "metadata":{"continue":"t1"},"kind":"PodList","other":{"deep":[[[]]]}}"#;
        let read = Page::decode(&pods(), page).expect("a page");
        assert_eq!(read.objects.len(), 1);
        assert_eq!(read.next.as_deref(), Some("t1"));
        for (body, why) in [
            (
                &br#"{"kind":"PodList","items":{"a":1}}"#[..],
                "its page is not a list",
            ),
            (br#"[1]"#, "its page is not a list"),
            (
                br#"{"kind":"PodList","items":[]} x"#,
                "its page is not JSON",
            ),
            (br#"{"kind":"PodList","items":["#, "its page is not JSON"),
            (
                b"{\"kind\":\"Bad\\r\\nKind\",\"items\":[]}",
                "expected a list, got a document of kind Bad\\r\\nKind",
            ),
        ] {
            let said = Page::decode(&pods(), body).err().unwrap_or_default();
            assert!(said.starts_with(why), "{said}");
        }
    }
}
