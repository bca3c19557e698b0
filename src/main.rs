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
    if matches!(cli.command, Some(ownerlint::cli::Command::Server)) {
        keep_freed_pages();
    }
    std::process::exit(ownerlint::cli::run(cli));
}

/// The language server analyses its folders again at every edit, allocating much of what
/// the last analysis freed: it keeps freed pages for five seconds (jemalloc's default is ten)
/// rather than give them back at once and fault them in again at the next edit, which took
/// about a third of an analysis. Its memory still settles, a few megabytes higher.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
fn keep_freed_pages() {
    use std::ffi::CStr;
    // `ssize_t` milliseconds, as jemalloc's `*.dirty_decay_ms` take them.
    fn set_decay(name: &CStr) {
        let mut decay_ms: isize = 5_000;
        // Sound: the name is NUL-terminated, and the new value points at an `ssize_t` (isize)
        // that lives through the call, with its size; nothing is read back. An arena that
        // does not exist yet is an error, ignored: it takes `arenas.dirty_decay_ms` when made.
        #[allow(unsafe_code)]
        let _ = unsafe {
            tikv_jemalloc_sys::mallctl(
                name.as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                (&raw mut decay_ms).cast(),
                size_of::<isize>(),
            )
        };
    }
    // Arenas made from now on, then those that exist (jemalloc makes at most `arenas.narenas`).
    set_decay(c"arenas.dirty_decay_ms");
    let mut arenas: u32 = 0;
    let mut size = size_of::<u32>();
    // Sound: `arenas.narenas` is an `unsigned` (u32), read into a u32 with its size.
    #[allow(unsafe_code)]
    let read = unsafe {
        tikv_jemalloc_sys::mallctl(
            c"arenas.narenas".as_ptr(),
            (&raw mut arenas).cast(),
            &raw mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if read != 0 {
        return;
    }
    for arena in 0..arenas {
        if let Ok(name) = std::ffi::CString::new(format!("arena.{arena}.dirty_decay_ms")) {
            set_decay(&name);
        }
    }
}

#[cfg(not(all(feature = "jemalloc", not(target_env = "msvc"))))]
fn keep_freed_pages() {}
