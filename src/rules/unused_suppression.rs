//! `unused-suppression`: a suppression comment or annotation that suppresses nothing, names a
//! rule that does not exist, or cannot be read. It needs every other rule's findings, so it
//! runs last, over what the suppression stage (`crate::suppress`) found unused.

use crate::finding::{Finding, Label};
use crate::suppress::{Unused, UnusedWhy};

super::declare_rule! {
    id: "unused-suppression",
    severity: Warning,
    summary: "A suppression comment or annotation that suppresses nothing, or names no rule",
    check: super::Check::Suppressions(check),
}

pub fn check(unused: &[Unused], out: &mut Vec<Finding>) {
    let ids = super::all_ids();
    for u in unused {
        let message = match &u.why {
            UnusedWhy::Nothing { rule, place } if ids.contains(&rule.as_str()) => {
                format!("this suppression of `{rule}` suppresses nothing: no {rule} finding {place}")
            }
            UnusedWhy::Nothing { rule, .. } => {
                let hint = super::did_you_mean(rule, &ids)
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                format!("this suppression names `{rule}`, which is not a rule{hint}")
            }
            UnusedWhy::NoRule => "this suppression names no rule".to_string(),
            UnusedWhy::Malformed(message) => message.clone(),
        };
        out.push(
            Finding::new(&META, Label::new(u.source, u.span, "suppresses nothing"), message)
                .help("remove it, or correct the rule id; a suppression that hides nothing would hide the next real finding by surprise"),
        );
    }
}
