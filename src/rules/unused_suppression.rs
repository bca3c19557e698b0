//! `unused-suppression`: a suppression comment or annotation that suppresses nothing, names a
//! rule that does not exist, or cannot be read. It needs every other rule's findings, so the
//! suppression pass (`crate::suppress`) reports it after all rules have run.

use super::Context;
use crate::finding::Finding;

super::declare_rule!("unused-suppression", Warning);

/// Nothing to do here: see `crate::suppress::apply`.
pub fn check(_cx: &Context, _out: &mut Vec<Finding>) {}
