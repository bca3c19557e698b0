//! `unrendered-template`: a document that still holds template text (`{{ … }}`). The loader
//! reports it once per document instead of a cascade of syntax errors.

use super::Context;
use crate::finding::Finding;

super::declare_rule!("unrendered-template", Warning);

/// Templates are found while loading; there is nothing to check afterwards.
pub fn check(_cx: &Context, _out: &mut Vec<Finding>) {}
