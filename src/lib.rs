//! ownerlint finds broken Kubernetes ownership (`metadata.ownerReferences`) in manifests and
//! cluster dumps before it reaches a cluster.
//!
//! The pipeline has one module per stage, which [`pipeline`] wires:
//! `discover` → `read` → [`build`] (the charts and overlays built) → `load` (with `yaml`) →
//! [`catalog`] → [`index`] → [`resolve`] → [`rules`] → `suppress` → [`report`]. [`analysis`]
//! holds what a run is asked and learns. [`run`] is what each command does with them, and
//! [`cli`] parses the command line and calls it.

// `print!` and `eprintln!` panic when the other end of the pipe is gone (`| head`); output goes
// through writers whose errors are handled.
#![warn(clippy::print_stdout, clippy::print_stderr)]
#![forbid(unsafe_code)]
// Input never panics the linter: what comes from input is handled, not unwrapped (tests may).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::dbg_macro,
    clippy::todo
)]

// The API: analyse inputs, and get the objects, their resolved references and the findings
// (what the command line, `tree`, `delete-preview` and an editor need).
pub mod analysis;
pub mod build;
pub mod catalog;
pub mod cli;
pub mod cluster;
pub mod finding;
pub mod fix;
pub mod graph;
pub mod index;
pub mod model;
pub mod pipeline;
pub mod policy;
pub mod preview;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod run;
pub mod selector;
pub mod server;
pub mod source;
pub mod target;
pub mod tree;

// Stages with no use outside a run. Those that are public are so for the tests that hold the
// YAML reader, the fast path, discovery and reading to their references; they are not an API.
mod argv;
mod baseline;
mod completions;
#[doc(hidden)]
pub mod config;
mod controllers;
#[doc(hidden)]
pub mod discover;
mod drawing;
mod edit;
#[doc(hidden)]
pub mod fields;
mod git;
#[doc(hidden)]
pub mod gitops;
#[doc(hidden)]
pub mod load;
mod manpage;
#[doc(hidden)]
pub mod read;
mod suppress;
#[doc(hidden)]
pub mod yaml;

pub use analysis::{Analysis, BIG_FILE, Options, Outcome, Stats};
pub use pipeline::{analyze, analyze_texts, lint, lint_texts};
pub use read::changed_inputs;
