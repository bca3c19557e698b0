//! Fixes as edits of the input's text: [`bytes`] changes one node and leaves every other byte
//! as it was; [`fixes`] builds from those edits the fixes that findings carry. Both sit below
//! the rules, which call them, and below `--fix`, which applies what they make.

pub(crate) mod bytes;
pub(crate) mod fixes;
