//! `invalid-yaml`: a YAML or JSON syntax error. The loader reports it, at the error's position,
//! and goes on with the next document and file.

use super::Context;
use crate::finding::Finding;

super::declare_rule!("invalid-yaml", Error);

/// Syntax errors are found while loading; there is nothing to check afterwards.
pub fn check(_cx: &Context, _out: &mut Vec<Finding>) {}
