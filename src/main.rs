// Loading a big dump allocates millions of small strings and tree nodes from every thread
// at once; jemalloc does that faster than the system allocator, in less memory.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read before `main`: give freed pages back at once rather than after
/// ten seconds. A load frees each batch's parse trees as it goes, so peak memory then
/// follows the objects kept, not every tree ever built.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[allow(non_upper_case_globals)]
// Sound: jemalloc reads this symbol once, as a NUL-terminated C string; the bytes are static,
// immutable and end with NUL.
#[allow(unsafe_code)]
#[unsafe(export_name = "_rjem_malloc_conf")]
static malloc_conf: &[u8; 34] = b"dirty_decay_ms:0,muzzy_decay_ms:0\0";

fn main() {
    let cli = ownerlint::cli::parse();
    std::process::exit(ownerlint::cli::run(cli));
}
