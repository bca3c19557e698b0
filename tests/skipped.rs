//! The last lines of `cargo test`: how many tests passed without running their subject here,
//! and why (see `tests/it/skips.rs`). Cargo runs this target after `it`, whose skipped tests
//! wrote the record this reads.

#[allow(dead_code)]
#[path = "it/skips.rs"]
mod skips;

use std::time::{Duration, SystemTime};

fn main() {
    if let Some(summary) = skips::this_run().and_then(|record| skips::take_summary(&record)) {
        println!("{summary}");
    }
    // A run stopped before this target (a failing test, `cargo test --test it`) leaves its
    // record behind: one a day old is not read by any run still going.
    let day_ago = SystemTime::now() - Duration::from_secs(24 * 60 * 60);
    let Ok(records) = std::fs::read_dir(skips::records()) else {
        return;
    };
    for record in records.flatten() {
        let stale = record
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|modified| modified < day_ago);
        if stale {
            let _ = std::fs::remove_file(record.path());
        }
    }
}
