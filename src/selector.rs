//! Label selectors and labels, evaluated the way the workload controllers evaluate them:
//! `metav1.LabelSelectorAsSelector` for `spec.selector` of apps/v1 and batch/v1 kinds, and
//! `labels.SelectorFromSet` for the map selector of a ReplicationController.

use std::fmt;

use crate::source::Span;
use crate::yaml::{Node, ScalarType};

/// An object's `metadata.labels`, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    /// From the `labels` key to the end of its value: where findings about the labels point.
    pub span: Span,
    pub pairs: Vec<(String, String)>,
}

impl Labels {
    pub fn from_entry(key: &Node, value: &Node) -> Labels {
        Labels {
            span: entry_span(key, value),
            pairs: string_pairs(value),
        }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        // The last value wins when a key repeats, as Kubernetes' YAML reader keeps it.
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// From a key to the end of its value.
pub fn entry_span(key: &Node, value: &Node) -> Span {
    Span::new(key.span.start, value.span.end.max(key.span.end))
}

/// `k: v` pairs of a mapping whose values are scalars (a number is its text, as Kubernetes
/// would reject it anyway; null is the empty string, as Go decodes it).
fn string_pairs(map: &Node) -> Vec<(String, String)> {
    map.as_map()
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| {
            let key = k.as_scalar()?.text.clone();
            let value = v.as_scalar()?;
            let value = match value.resolve() {
                ScalarType::Null => String::new(),
                _ => value.text.clone(),
            };
            Some((key, value))
        })
        .collect()
}

/// One requirement of a selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// `matchLabels` entries and the ReplicationController's map: `key=value`.
    Equals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    pub fn key(&self) -> &str {
        match self {
            Requirement::Equals(k, _)
            | Requirement::In(k, _)
            | Requirement::NotIn(k, _)
            | Requirement::Exists(k)
            | Requirement::DoesNotExist(k) => k,
        }
    }

    /// `labels.Requirement.Matches`: `NotIn` and `DoesNotExist` hold for a missing label.
    pub fn matches(&self, labels: Option<&Labels>) -> bool {
        let value = labels.and_then(|l| l.get(self.key()));
        match self {
            Requirement::Equals(_, v) => value == Some(v.as_str()),
            Requirement::In(_, vs) => value.is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::NotIn(_, vs) => value.is_none_or(|x| vs.iter().all(|v| v != x)),
            Requirement::Exists(_) => value.is_some(),
            Requirement::DoesNotExist(_) => value.is_none(),
        }
    }
}

impl Requirement {
    /// Why labels fail this requirement, for messages: "app is \"api\"", "app is missing".
    pub fn why_unmet(&self, labels: Option<&Labels>) -> String {
        let key = self.key();
        match (self, labels.and_then(|l| l.get(key))) {
            (Requirement::DoesNotExist(_), Some(v)) => format!("{key} is present (\"{v}\")"),
            (_, Some(v)) => format!("{key} is \"{v}\""),
            (_, None) => format!("{key} is missing"),
        }
    }
}

impl fmt::Display for Requirement {
    /// The text form `kubectl get -l` accepts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Equals(k, v) => write!(f, "{k}={v}"),
            Requirement::In(k, vs) => write!(f, "{k} in ({})", vs.join(",")),
            Requirement::NotIn(k, vs) => write!(f, "{k} notin ({})", vs.join(",")),
            Requirement::Exists(k) => write!(f, "{k}"),
            Requirement::DoesNotExist(k) => write!(f, "!{k}"),
        }
    }
}

/// Where a controller's selector came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectorOrigin {
    /// `spec.selector`, as written.
    Spec,
    /// A ReplicationController without `spec.selector` selects its template's labels (the API
    /// server defaults it so).
    TemplateLabels,
}

/// A usable, non-empty selector. Selectors the API server would reject (an unknown operator,
/// `In` without values, …) and empty ones are not kept: no controller runs with them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    /// From the `selector` (or `labels`) key to the end of its value.
    pub span: Span,
    pub origin: SelectorOrigin,
    pub requirements: Vec<Requirement>,
}

impl Selector {
    /// A `metav1.LabelSelector` (`matchLabels` and `matchExpressions`).
    pub fn from_label_selector(key: &Node, node: &Node) -> Option<Selector> {
        let mut requirements: Vec<Requirement> = node
            .get("matchLabels")
            .map(string_pairs)
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| Requirement::Equals(k, v))
            .collect();
        if let Some(expressions) = node.get("matchExpressions").filter(|n| !n.is_null()) {
            for expression in expressions.as_seq()? {
                requirements.push(requirement(expression)?);
            }
        }
        (!requirements.is_empty()).then(|| Selector {
            span: entry_span(key, node),
            origin: SelectorOrigin::Spec,
            requirements,
        })
    }

    /// A ReplicationController's `spec.selector`, a plain map of labels.
    pub fn from_map(key: &Node, node: &Node, origin: SelectorOrigin) -> Option<Selector> {
        let requirements: Vec<Requirement> = string_pairs(node)
            .into_iter()
            .map(|(k, v)| Requirement::Equals(k, v))
            .collect();
        (!requirements.is_empty()).then(|| Selector {
            span: entry_span(key, node),
            origin,
            requirements,
        })
    }

    /// The first requirement the labels fail, or `None` when they match.
    pub fn first_unmet(&self, labels: Option<&Labels>) -> Option<&Requirement> {
        self.requirements.iter().find(|r| !r.matches(labels))
    }

    pub fn matches(&self, labels: Option<&Labels>) -> bool {
        self.first_unmet(labels).is_none()
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.requirements.iter().map(|r| r.to_string()).collect();
        f.write_str(&parts.join(","))
    }
}

/// One `matchExpressions` entry, validated as `ValidateLabelSelectorRequirement` does.
fn requirement(node: &Node) -> Option<Requirement> {
    let key = node.get("key")?.as_str()?.to_string();
    let operator = node.get("operator")?.as_str()?;
    let values: Vec<String> = match node.get("values").filter(|v| !v.is_null()) {
        None => Vec::new(),
        Some(values) => values
            .as_seq()?
            .iter()
            .map(|v| v.as_scalar().map(|s| s.text.clone()))
            .collect::<Option<_>>()?,
    };
    match operator {
        "In" if !values.is_empty() => Some(Requirement::In(key, values)),
        "NotIn" if !values.is_empty() => Some(Requirement::NotIn(key, values)),
        "Exists" if values.is_empty() => Some(Requirement::Exists(key)),
        "DoesNotExist" if values.is_empty() => Some(Requirement::DoesNotExist(key)),
        _ => None,
    }
}

/// `k=v,k2=v2`, how labels are shown next to a selector.
pub fn display_labels(labels: Option<&Labels>) -> String {
    match labels {
        Some(l) if !l.pairs.is_empty() => l
            .pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","),
        _ => "(none)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        Labels {
            span: Span::new(0, 0),
            pairs: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn requirements_match_as_kubernetes_matches_them() {
        let l = labels(&[("app", "web"), ("tier", "front")]);
        let some = Some(&l);
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(Requirement::Equals("app".into(), "web".into()).matches(some));
        assert!(!Requirement::Equals("app".into(), "api".into()).matches(some));
        assert!(!Requirement::Equals("app".into(), "web".into()).matches(None));
        assert!(Requirement::In("tier".into(), s(&["back", "front"])).matches(some));
        assert!(!Requirement::In("zone".into(), s(&["a"])).matches(some));
        assert!(Requirement::NotIn("tier".into(), s(&["back"])).matches(some));
        assert!(!Requirement::NotIn("tier".into(), s(&["front"])).matches(some));
        // A missing label is not in any set.
        assert!(Requirement::NotIn("zone".into(), s(&["a"])).matches(some));
        assert!(Requirement::NotIn("zone".into(), s(&["a"])).matches(None));
        assert!(Requirement::Exists("app".into()).matches(some));
        assert!(!Requirement::Exists("zone".into()).matches(some));
        assert!(Requirement::DoesNotExist("zone".into()).matches(some));
        assert!(!Requirement::DoesNotExist("app".into()).matches(some));
    }

    #[test]
    fn requirements_print_as_kubectl_reads_them() {
        let r = [
            Requirement::Equals("app".into(), "web".into()),
            Requirement::In("tier".into(), vec!["a".into(), "b".into()]),
            Requirement::NotIn("zone".into(), vec!["x".into()]),
            Requirement::Exists("canary".into()),
            Requirement::DoesNotExist("legacy".into()),
        ];
        let text: Vec<String> = r.iter().map(ToString::to_string).collect();
        assert_eq!(
            text.join(","),
            "app=web,tier in (a,b),zone notin (x),canary,!legacy"
        );
    }
}
