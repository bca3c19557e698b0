//! YAML (and JSON, which YAML 1.2 contains) into our own span tree.
//!
//! Documents are split at column-0 `---` and `...` lines first (such a line cannot be content
//! in YAML 1.2), so a syntax error in one document never hides the others, and each document is
//! then parsed on its own with granit-parser. The tree keeps what a rule can point at: every
//! node's byte span in the source, and for scalars their text and whether they were quoted.
//!
//! `split` cuts the stream into documents, `parser` builds each one's tree, with `tabs` (where
//! libyaml reads a tab otherwise than YAML 1.2) and `merge_keys` (`<<`); `span_tree` is the
//! tree, and `scalar_type` the type a scalar resolves to.

mod merge_keys;
mod parser;
mod scalar_type;
mod span_tree;
mod split;
mod tabs;

pub use parser::{Limits, SyntaxError, parse_at, parse_document, roots};
pub use scalar_type::ScalarType;
pub use span_tree::{Comment, Document, Node, Scalar, Value};
pub use split::{Chunk, content_after_document_end, split_documents, split_text};
