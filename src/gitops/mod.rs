//! GitOps: what the Flux objects of a repository say about how its folders are deployed. A
//! `kustomize.toolkit.fluxcd.io` Kustomization among the inputs whose source is this
//! repository decides how the folder of its `spec.path` is built ([`FluxBuild`]): with its
//! `targetNamespace`, `namePrefix`/`nameSuffix`, `patches`, `images` and `components` written
//! into the kustomization as Flux's generator writes them ([`kustomization`]), and its
//! `postBuild` variables substituted in what kustomize built ([`envsubst`]). The
//! Kustomizations of one cluster (those a root Kustomization applies, and it) are one apply
//! unit: their objects see one another. A Kustomization or a HelmRelease whose source is not in
//! this repository is [`NotChecked`].
//!
//! The Flux semantics followed are those of Flux's own code, cited where they are used:
//! fluxcd/pkg `kustomize/kustomize_generator.go` (what a Kustomization writes into the
//! kustomization it builds), `kustomize/kustomize_varsub.go` (the variables and where they
//! come from) and `envsubst/` (the `${var}` syntax).
//!
//! Argo CD Applications (and the Applications of ApplicationSets' `list` and git `directories`
//! generators) build the folders of their sources that are in this repository ([`argo`]).

pub mod argo;
pub mod envsubst;
mod flux;
pub mod kustomization;

pub use argo::ArgoBuild;
pub use flux::{FluxBuild, FluxHelm, NotChecked, Plan, plan};
