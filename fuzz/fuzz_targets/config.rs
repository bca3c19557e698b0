//! Any text as a configuration file: an error or a configuration, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = ownerlint::config::parse(".ownerlint.yaml", text, std::path::Path::new(""));
    }
});
