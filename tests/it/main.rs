//! The integration tests, one module a subject, in one test binary: `cargo test` links it once.
//! `cargo test NAME` runs the tests whose path holds NAME (e.g. `cargo test server::`).

#[macro_use]
mod common;

mod action;
mod action_install;
#[cfg(feature = "cluster")]
mod api_server;
mod architecture;
mod argo;
mod assertion_files;
mod baseline;
mod broken_pipe;
mod chart_dependencies;
mod cli;
#[cfg(feature = "cluster")]
mod cluster_churn;
mod cluster_dump;
#[cfg(feature = "cluster")]
mod cluster_hostile;
#[cfg(feature = "cluster")]
mod cluster_live;
#[cfg(feature = "cluster")]
mod cluster_nothing;
#[cfg(feature = "cluster")]
mod cluster_pods;
#[cfg(all(feature = "cluster", unix))]
mod cluster_secrets;
mod cluster_snapshot;
#[cfg(feature = "cluster")]
mod cluster_views;
mod config;
mod consequences;
mod controllers;
mod corpus;
mod differential;
mod discovery;
#[cfg(target_os = "linux")]
mod dist;
mod duplicates;
mod editors;
mod empty_lists;
mod false_positives;
mod fast_path;
mod fast_path_generated;
mod finalizers;
mod fix_generated;
mod fixes;
mod formats;
mod gitops;
mod graph;
mod hostile;
mod json_stream;
#[cfg(unix)]
mod kubectl_plugin;
mod kubectl_reads;
mod mapped;
mod neovim;
mod outside;
mod pre_commit;
mod pretty;
mod preview_finalizers;
mod properties;
mod remote_bases;
mod render;
mod render_failures;
mod render_inputs;
mod rule_docs;
mod scanner;
mod server;
#[cfg(target_os = "linux")]
mod server_builds;
mod server_charts;
mod server_process;
mod shapes;
mod skip_count;
mod skips;
mod suppress;
mod unmappable;
mod vscode;
