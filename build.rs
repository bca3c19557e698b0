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
    for name in &names {
        let path = std::fs::canonicalize(dir.join(name)).expect("a pack file that was just listed");
        let _ = writeln!(
            code,
            "    ({:?}, include_str!({:?})),",
            name.trim_end_matches(".yaml"),
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("packs.rs"), code).expect("OUT_DIR is writable");
}
