//! The registry: what a rule is, how its file declares it (`declare_rule!`), and what is made
//! of the declarations of every rule (`RULES`, listed by `rules!` in `mod.rs`).

use super::{Context, RULES};
use crate::finding::{Finding, RuleMeta};

/// A rule: its declaration and its check.
pub struct Rule {
    pub meta: &'static RuleMeta,
    pub check: Check,
}

/// When a rule runs, and what it reads.
pub enum Check {
    /// Over the loaded input: its objects, their resolved references, and what could not be
    /// read.
    Input(fn(&Context, &mut Vec<Finding>)),
    /// After every other rule, over the suppressions that hid none of their findings.
    Suppressions(fn(&[crate::suppress::Unused], &mut Vec<Finding>)),
}

/// Declare the rules, in catalogue order (DESIGN §4): each one's module and registry entry.
macro_rules! rules {
    ($($name:ident,)*) => {
        $(pub mod $name;)*

        /// Every rule, in catalogue order.
        pub static RULES: &[&$crate::rules::Rule] = &[$(&$name::RULE),*];

        /// Calls `$callback! { $args, rule_module, … }` with every rule's module name, in
        /// catalogue order: the tests make one `#[test]` a rule from it.
        #[doc(hidden)]
        #[macro_export]
        macro_rules! for_each_rule {
            ($callback:ident, $args:tt) => {
                $callback! { $args, $($name,)* }
            };
        }
    };
}
pub(super) use rules;

/// Every rule id, for configuration and suppressions.
pub fn all_ids() -> Vec<&'static str> {
    RULES.iter().map(|r| r.meta.id).collect()
}

/// What the fast path keeps of each object: the fields every stage reads and those each rule
/// declares.
pub fn kept() -> &'static crate::fields::Kept {
    static KEPT: std::sync::OnceLock<crate::fields::Kept> = std::sync::OnceLock::new();
    KEPT.get_or_init(|| {
        crate::fields::Kept::new(
            crate::fields::PIPELINE
                .iter()
                .chain(RULES.iter().flat_map(|r| r.meta.reads)),
        )
    })
}

pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.meta.id == id)
}

/// Declare a rule: `META`, what its findings name it by, and `RULE`, its registry entry. Its
/// document is `rules/<id>.md`; `reads` names the fields it reads beyond those every stage
/// reads (`fields::PIPELINE`): those of `crate::fields`, which `model::Object` has members for,
/// and those its own file declares (`fields::Field::on`), which it reads with
/// `model::Object::field`; its check is the module's `check` unless it names another.
macro_rules! declare_rule {
    (@check) => {
        $crate::rules::Check::Input(check)
    };
    (@check $check:expr) => {
        $check
    };
    (@some) => {
        None
    };
    (@some $value:expr) => {
        Some($value)
    };
    (
        id: $id:literal,
        severity: $severity:ident,
        $(complete_severity: $complete:ident,)?
        $(severity_varies: $varies:literal,)?
        $(fix: $fix:ident,)?
        summary: $summary:literal
        $(, reads: [$($field:ident),* $(,)?])?
        $(, check: $check:expr)?
        $(,)?
    ) => {
        pub static META: $crate::finding::RuleMeta = $crate::finding::RuleMeta {
            id: $id,
            default_severity: $crate::finding::Severity::$severity,
            complete_severity: $crate::rules::declare_rule!(
                @some $($crate::finding::Severity::$complete)?
            ),
            severity_varies: $crate::rules::declare_rule!(@some $($varies)?),
            fix: $crate::rules::declare_rule!(
                @some $($crate::finding::Applicability::$fix)?
            ),
            summary: $summary,
            // A field of `crate::fields`, or one the rule's own file declares.
            reads: &[$($({
                #[allow(unused_imports)]
                use $crate::fields::*;
                $field
            }),*)?],
            doc: include_str!(concat!("../../rules/", $id, ".md")),
        };

        pub static RULE: $crate::rules::Rule = $crate::rules::Rule {
            meta: &META,
            check: $crate::rules::declare_rule!(@check $($check)?),
        };
    };
}
pub(crate) use declare_rule;
