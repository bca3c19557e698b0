//! Compiles the policy packs under `rules/packs/` into the binary: each `<name>.yaml` becomes
//! pack `<name>`. Adding a pack is adding a file.

use std::fmt::Write;

fn main() {
    println!("cargo:rerun-if-changed=rules/packs");
    let dir = std::path::Path::new("rules/packs");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".yaml"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut code = String::from(
        "/// Bundled policy packs: (name, text).\npub static PACKS: &[(&str, &str)] = &[\n",
    );
    // The path is the crate's own at compile time (CARGO_MANIFEST_DIR), not this checkout's:
    // two checkouts that share a target folder (the pre-commit hook's build beside the tests')
    // share this generated file too.
    for name in &names {
        let _ = writeln!(
            code,
            "    ({:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {:?}))),",
            name.trim_end_matches(".yaml"),
            format!("/rules/packs/{name}")
        );
    }
    code.push_str("];\n");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("packs.rs"), code).expect("OUT_DIR is writable");
}
