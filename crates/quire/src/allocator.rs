//! The process's memory allocator: mimalloc, with settings chosen by
//! measurement for a server that holds one thread per connection
//! (docs/BENCHMARKS.md, "Memory per connection").
//!
//! mimalloc v3 (libmimalloc-sys 0.1.49 builds v3.3) on Linux by default
//! commits its 1 GiB arenas eagerly and purges freed pages only after a
//! delay: every connection thread's pages stay resident, also after the
//! thread has exited. Two options change that:
//! - `arena_eager_commit = 0`: arena memory is committed as pages are
//!   handed out and decommitted (`madvise`) when they are purged;
//! - `purge_delay`: how long freed pages wait before being returned.
//!
//! They are set in a constructor that runs after mimalloc's own (priority
//! 101) and before `main`, so the first arena is reserved with them. A
//! `MIMALLOC_<NAME>` environment variable still wins, so a benchmark can
//! run the library's defaults with the same binary.
//!
//! Build with `--features system-allocator` to use the C library's malloc,
//! or `--features jemalloc-allocator` for jemalloc, instead (for the
//! comparison in BENCHMARKS.md, "Memory per connection").

#[cfg(not(any(feature = "system-allocator", feature = "jemalloc-allocator")))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(all(feature = "jemalloc-allocator", not(feature = "system-allocator")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[cfg(not(any(feature = "system-allocator", feature = "jemalloc-allocator")))]
pub(crate) mod tuning {
    use std::ffi::{c_char, c_int, c_long, CStr};
    use std::sync::atomic::{AtomicI64, Ordering};

    /// Indexes into mimalloc v3.3's `mi_option_t` (include/mimalloc.h);
    /// `library_defaults_sit_at_these_indexes` pins them.
    pub(crate) const ARENA_EAGER_COMMIT: c_int = 4;
    pub(crate) const PURGE_DELAY: c_int = 15;

    /// (option, environment variable that overrides it, value).
    pub(crate) const TUNED: [(c_int, &CStr, c_long); 2] = [
        (ARENA_EAGER_COMMIT, c"MIMALLOC_ARENA_EAGER_COMMIT", 0),
        (PURGE_DELAY, c"MIMALLOC_PURGE_DELAY", PURGE_DELAY_MS),
    ];

    /// Freed pages are returned after this many milliseconds. 0 returned
    /// the same memory to an idle server but made a bulk load ~25% more
    /// CPU (every large statement's buffers were given back and faulted in
    /// again); 100 returned a third on an idle server (BENCHMARKS.md).
    pub(crate) const PURGE_DELAY_MS: c_long = 10;

    unsafe extern "C" {
        pub(crate) fn mi_option_set(option: c_int, value: c_long);
        pub(crate) fn mi_option_get(option: c_int) -> c_long;
    }

    /// The values the library had before `apply` (its defaults unless the
    /// environment set them), kept for the test that pins the indexes.
    pub(crate) static BEFORE: [AtomicI64; 2] = [AtomicI64::new(-1), AtomicI64::new(-1)];

    extern "C" fn apply() {
        for (i, (option, env, value)) in TUNED.into_iter().enumerate() {
            // SAFETY: reading an option index that exists (pinned by a test).
            BEFORE[i].store(unsafe { mi_option_get(option) } as i64, Ordering::Relaxed);
            // SAFETY: `getenv` reads the environment with a NUL-terminated
            // name and allocates nothing (no Rust allocation may happen
            // before the options are set); `mi_option_set` takes any
            // value for an option index that exists (pinned by a test).
            unsafe {
                if libc::getenv(env.as_ptr() as *const c_char).is_null() {
                    mi_option_set(option, value);
                }
            }
        }
    }

    #[used]
    #[unsafe(link_section = ".init_array")]
    static APPLY: extern "C" fn() = apply;
}

#[cfg(all(test, not(any(feature = "system-allocator", feature = "jemalloc-allocator"))))]
mod tests {
    use super::tuning::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn tuned_options_are_mimallocs_eager_commit_and_purge_delay() {
        // mimalloc v3's defaults for these two options are 2 and 1000 ms;
        // had the enum moved in a new mimalloc, other values would sit at
        // these indexes. (Skipped when the environment sets them.)
        for (i, (option, env, value)) in TUNED.into_iter().enumerate() {
            let from_env = std::env::var_os(env.to_str().unwrap()).is_some();
            if !from_env {
                let default = [2, 1000][i];
                assert_eq!(BEFORE[i].load(Ordering::Relaxed), default, "{env:?}");
                // SAFETY: reading an option index that exists.
                assert_eq!(unsafe { mi_option_get(option) }, value, "{env:?}");
            }
        }
        assert_eq!(TUNED[0].0, ARENA_EAGER_COMMIT);
        assert_eq!(TUNED[1].0, PURGE_DELAY);
    }
}
