//! The keys of `.ownerlint.yaml`, each with its value, default and meaning: the names the
//! reader accepts (and suggests for a misspelled one) and the configuration reference of the
//! documentation are both made from this table.

/// One key of the configuration file, or of a mapping inside it.
#[derive(Debug)]
pub struct Key {
    pub name: &'static str,
    /// What the value is, in words (`a list of globs`).
    pub value: &'static str,
    /// The value when the key is absent.
    pub default: &'static str,
    pub meaning: &'static str,
    /// The keys of the mappings this key holds (of each item, for a list).
    pub keys: &'static [Key],
}

const fn key(
    name: &'static str,
    value: &'static str,
    default: &'static str,
    meaning: &'static str,
) -> Key {
    Key {
        name,
        value,
        default,
        meaning,
        keys: &[],
    }
}

/// The keys of an item of `kinds`.
pub const KIND: &[Key] = &[
    key(
        "group",
        "an API group",
        "the core group",
        "the kind's API group",
    ),
    key(
        "version",
        "a version",
        "none",
        "a version the kind is served at",
    ),
    key(
        "kind",
        "a kind",
        "(required)",
        "the kind, as written in `kind:`",
    ),
    key(
        "scope",
        "`Namespaced` or `Cluster`",
        "(required)",
        "whether its objects live in a namespace",
    ),
];

/// The keys of an owner in a policy (`owners` of `required-owner`, `owner` of
/// `tracking-label-required`).
pub const OWNER: &[Key] = &[
    key(
        "group",
        "an API group",
        "any group",
        "the owner's API group",
    ),
    key("kind", "a kind", "(required)", "the owner's kind"),
    key(
        "controller",
        "`true` or `false`",
        "the policy's `controller`",
        "the reference to this owner must (true) or must not (false) be the controller",
    ),
];

/// The keys of a `required-owner` policy.
pub const REQUIRED_OWNER: &[Key] = &[
    key(
        "group",
        "an API group",
        "any group",
        "the group of the kind the policy is about",
    ),
    key(
        "kind",
        "a kind",
        "(required)",
        "objects of this kind must have an owner",
    ),
    Key {
        name: "owners",
        value: "a list of owners",
        default: "(required, not empty)",
        meaning: "the kinds one of which must own the object",
        keys: OWNER,
    },
    key(
        "controller",
        "`true` or `false`",
        "either",
        "the reference must be the controller (true), or must not be (false)",
    ),
];

/// The keys of a `tracking-label-required` policy.
pub const TRACKING_LABEL: &[Key] = &[
    key(
        "kinds",
        "a list of kinds",
        "(required, not empty)",
        "the cluster-scoped kinds that must carry the label",
    ),
    key(
        "label",
        "a label key",
        "(required)",
        "the label whose value names the namespaced owner",
    ),
    Key {
        name: "owner",
        value: "an owner",
        default: "none",
        meaning: "the owner the label names, which must exist",
        keys: OWNER,
    },
    key(
        "namespace-label",
        "a label key",
        "none",
        "the label whose value names the owner's namespace",
    ),
];

/// The keys of `policies`.
pub const POLICIES: &[Key] = &[
    Key {
        name: "required-owner",
        value: "a list of policies",
        default: "none",
        meaning: "objects of a kind must have an owner of given kinds (rule `required-owner`)",
        keys: REQUIRED_OWNER,
    },
    Key {
        name: "tracking-label-required",
        value: "a list of policies",
        default: "none",
        meaning: "cluster-scoped objects of some kinds carry a label naming their namespaced owner (rule `tracking-label-required`)",
        keys: TRACKING_LABEL,
    },
];

/// The keys of an item of `overrides`.
pub const OVERRIDE: &[Key] = &[
    key(
        "files",
        "a list of globs",
        "(required, not empty)",
        "the files the levels apply to, by where a finding is reported; relative to the file's folder (a glob without `/` matches a file name anywhere)",
    ),
    key(
        "rules",
        "a mapping of rule id to `off`, `info`, `warning` or `error`",
        "(required)",
        "the level of each rule named, in those files (over `rules`; a later override over an earlier one)",
    ),
];

/// The keys of an item of `builds`.
pub const BUILD: &[Key] = &[
    key(
        "path",
        "a path",
        "(required)",
        "the chart's or overlay's folder; relative to the file's folder, inside its repository",
    ),
    key(
        "values",
        "a list of paths",
        "none",
        "values files, in order, as `--values`; relative to the file's folder, inside its repository",
    ),
    key(
        "set",
        "a list of `key=value`",
        "none",
        "values set one by one, as `--set`",
    ),
    key(
        "release-name",
        "a name",
        "`release-name`",
        "the release name, as `--release-name`",
    ),
    key(
        "namespace",
        "a namespace",
        "the run's namespace",
        "the namespace of what it builds that names none (`helm template --namespace`)",
    ),
    key(
        "kube-version",
        "a release, quoted (`\"1.33\"`)",
        "the run's",
        "the release the chart's templates see (`.Capabilities.KubeVersion`)",
    ),
];

/// The keys of the file.
pub const SCHEMA: &[Key] = &[
    key(
        "rules",
        "a mapping of rule id to `off`, `info`, `warning` or `error`",
        "each rule's default severity",
        "the level of each rule named",
    ),
    key(
        "include",
        "a list of globs",
        "every `.yaml`, `.yml` and `.json` file",
        "the files a walk lints, as `--include`; relative to the file's folder",
    ),
    key(
        "exclude",
        "a list of globs",
        "none",
        "the files a walk leaves out, as `--exclude`; relative to the file's folder",
    ),
    key(
        "namespace",
        "a namespace",
        "`default`",
        "the namespace of namespaced objects that name none, as `-n`",
    ),
    key(
        "mode",
        "`auto`, `apply` or `snapshot`",
        "`auto`",
        "whether the input is manifests to apply or objects captured from a cluster, as `--mode`",
    ),
    key(
        "complete",
        "`true` or `false`",
        "`false`",
        "the input is the whole cluster or release, as `--complete`",
    ),
    key(
        "kube-version",
        "a release, quoted (`\"1.33\"`)",
        "the newest release ownerlint knows",
        "the release owner apiVersions are checked against, as `--kube-version`",
    ),
    Key {
        name: "kinds",
        value: "a list of kinds",
        default: "none",
        meaning: "the scopes of kinds that no CRD in the input declares",
        keys: KIND,
    },
    key(
        "crds",
        "a list of paths",
        "none",
        "CustomResourceDefinitions of custom kinds, as `--crds`; relative to the file's folder, inside its repository",
    ),
    key(
        "existing",
        "a list of paths",
        "none",
        "objects that already exist (a dump of the target cluster), as `--existing`; relative to the file's folder, inside its repository",
    ),
    key(
        "packs",
        "a list of pack names",
        "none",
        "bundled policy packs to apply (`cluster-api`)",
    ),
    Key {
        name: "builds",
        value: "a list of builds",
        default: "none",
        meaning: "charts and overlays built with settings of their own (values, release name, namespace); two items of one path are two builds of it",
        keys: BUILD,
    },
    Key {
        name: "overrides",
        value: "a list of overrides",
        default: "none",
        meaning: "rule levels for some files only (generated files, a legacy folder), as ruff's `per-file-ignores`",
        keys: OVERRIDE,
    },
    Key {
        name: "policies",
        value: "a mapping",
        default: "none",
        meaning: "the team's own ownership policies",
        keys: POLICIES,
    },
    key(
        "$schema",
        "a URL",
        "none",
        "ignored: for editors that read a schema",
    ),
];

/// The names of `keys`, for the reader's suggestions.
pub fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|key| key.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of the table is one the reader takes: none is reported as unknown.
    #[test]
    fn the_reader_takes_every_key_of_the_table() {
        let text = "rules: {owner-not-found: error}\ninclude: [a]\nexclude: [b]\nnamespace: shop\n\
            mode: auto\ncomplete: false\nkube-version: \"1.33\"\n\
            kinds: [{group: example.com, version: v1, kind: Widget, scope: Namespaced}]\n\
            packs: [cluster-api]\n\
            overrides: [{files: [\"legacy/**\"], rules: {owner-not-found: off}}]\n\
            policies:\n  required-owner:\n  - {group: g, kind: K, owners: [{group: g, kind: O, controller: true}], controller: true}\n\
            \x20 tracking-label-required:\n  - {kinds: [ClusterRole], label: l, owner: {group: g, kind: O}, namespace-label: ns}\n\
            $schema: https://example.com/schema.json\n";
        let parsed = super::super::parse(".ownerlint.yaml", text, std::path::Path::new(""));
        assert!(parsed.is_ok(), "{parsed:#?}");
        let written: Vec<&str> = text
            .lines()
            .filter(|line| !line.starts_with(' '))
            .filter_map(|line| line.split(':').next())
            .collect();
        // The paths of `crds`, `existing` and `builds` must exist in a repository: tests/it's
        // configuration tests read them.
        for name in names(SCHEMA) {
            assert!(
                written.contains(&name) || ["crds", "existing", "builds"].contains(&name),
                "{name} is not tried"
            );
        }
    }
}
