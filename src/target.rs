//! The object a command line names (`delete-preview TARGET`, `tree --root`), as kubectl takes
//! it: `TYPE/NAME`, where TYPE is a kind in any case (`ReplicaSet`), its resource
//! (`replicasets`), singular or short name (`rs`), optionally qualified by its group
//! (`rs.apps`) or version and group (`replicasets.v1.apps`). NAME is looked up in the
//! namespace of `-n` unless its kind is cluster-scoped.

use crate::analysis::Analysis;
use crate::index::ObjId;
use crate::model::parse_api_version;

/// A resource type as written: the name in lower case and what qualifies it.
struct ResourceType<'a> {
    name: String,
    qualifier: Option<&'a str>,
}

impl<'a> ResourceType<'a> {
    fn parse(text: &'a str) -> ResourceType<'a> {
        let (name, qualifier) = match text.split_once('.') {
            Some((name, qualifier)) => (name, Some(qualifier)),
            None => (text, None),
        };
        ResourceType {
            name: name.to_ascii_lowercase(),
            qualifier,
        }
    }

    /// Whether this type names objects of `kind`, served as `group`/`version` (as written)
    /// and known as `canonical` group.
    fn takes(
        &self,
        analysis: &Analysis,
        written: (&str, &str),
        canonical: &str,
        kind: &str,
    ) -> bool {
        let (group, version) = written;
        let qualified = self.qualifier.is_none_or(|q| {
            [group, canonical].iter().any(|g| {
                q == *g
                    || q.strip_prefix(version)
                        .and_then(|rest| rest.strip_prefix('.'))
                        == Some(g)
            }) || (group.is_empty() && q == version)
        });
        qualified
            && analysis
                .catalog
                .takes_resource_name(&self.name, canonical, kind)
    }
}

/// The object `spec` names, or a message that says why there is none.
pub fn find(analysis: &Analysis, spec: &str, namespace: &str) -> Result<ObjId, String> {
    let (type_text, name) = spec
        .split_once('/')
        .filter(|(t, n)| !t.is_empty() && !n.is_empty())
        .ok_or_else(|| {
            format!("expected TYPE/NAME, e.g. deploy/api or replicasets.apps/web, got `{spec}`")
        })?;
    let resource = ResourceType::parse(type_text);
    let of_type: Vec<ObjId> = (0..analysis.objects.len())
        .map(|i| ObjId(i as u32))
        .filter(|&id| {
            let object = &analysis.objects[id.index()];
            let facts = analysis.index.facts(id);
            let written = object
                .api_version
                .as_ref()
                .and_then(|v| parse_api_version(&v.value))
                .unwrap_or_default();
            let canonical = facts.group.as_deref().unwrap_or(written.0);
            resource.takes(analysis, written, canonical, object.kind_str())
        })
        .collect();
    let kind = match of_type.first() {
        Some(&id) => analysis.objects[id.index()].kind_str().to_string(),
        None => match analysis.catalog.kinds_named(&resource.name).first() {
            Some((_, kind)) => kind.to_string(),
            None => return Err(unknown_type(analysis, type_text, &resource.name)),
        },
    };
    let named: Vec<ObjId> = of_type
        .into_iter()
        .filter(|&id| {
            analysis.objects[id.index()]
                .name
                .as_ref()
                .is_some_and(|n| n.value == name)
        })
        .collect();
    let (here, elsewhere): (Vec<ObjId>, Vec<ObjId>) = named.iter().partition(|&&id| {
        analysis
            .index
            .facts(id)
            .namespace
            .as_deref()
            .is_none_or(|ns| ns == namespace)
    });
    match here.as_slice() {
        [one] => Ok(*one),
        [] => {
            let mut message =
                format!("no {kind} named {name} in namespace {namespace} in the input");
            if let Some(&other) = elsewhere.first() {
                let ns = analysis
                    .index
                    .facts(other)
                    .namespace
                    .clone()
                    .unwrap_or_default();
                message += &format!(
                    "; there is {} (add `-n {ns}`)",
                    analysis.display_name(other)
                );
            }
            Err(message)
        }
        many => Err(format!(
            "{spec} names {} objects: {}; qualify the type with its group, e.g. `{}.GROUP/{name}`",
            many.len(),
            many.iter()
                .map(|&id| analysis.display_name(id))
                .collect::<Vec<_>>()
                .join(", "),
            resource.name
        )),
    }
}

/// "no resource type `rss` (did you mean `rs`?)", from the names the catalogue and the
/// input's kinds take.
fn unknown_type(analysis: &Analysis, written: &str, name: &str) -> String {
    let mut names = analysis.catalog.resource_names();
    names.extend(
        analysis
            .objects
            .iter()
            .map(|o| o.kind_str().to_ascii_lowercase()),
    );
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let hint = crate::rules::did_you_mean(name, &names)
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    format!(
        "no resource type `{written}`{hint}: use a kind, resource or short name, as kubectl \
         takes them (`deploy`, `deployments`, `Deployment.apps`)"
    )
}
