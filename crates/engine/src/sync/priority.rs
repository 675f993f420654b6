//! Scheduling priority for the engine's background threads.
//!
//! With hundreds of client threads runnable on a few cores, the scheduler
//! gives each thread an equal share: the one LRU flusher that every reader
//! waits on for a free frame, the page cleaners, the redo writer and
//! flusher and purge would get a thousandth of a core each, and every
//! client would then wait for them. As MySQL does for its page cleaners
//! (`buf_flush_page_cleaner_set_priority`, nice -20), these threads ask for
//! a higher priority when they start. Without the privilege (CAP_SYS_NICE)
//! the request fails and the thread runs at normal priority; that is
//! logged once.

use std::sync::atomic::{AtomicBool, Ordering};

/// The nice value asked for (lower runs first; 0 is normal).
const BACKGROUND_NICE: i32 = -10;

static WARNED: AtomicBool = AtomicBool::new(false);

/// Raises the calling thread's priority; see the module note.
pub fn raise_background_priority() {
    // SAFETY: plain syscalls on the calling thread's own id.
    let ok = unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, BACKGROUND_NICE) == 0
    };
    if !ok && !WARNED.swap(true, Ordering::Relaxed) {
        tracing::info!(
            "background threads run at normal priority ({}); with CAP_SYS_NICE they would run at nice {BACKGROUND_NICE}",
            std::io::Error::last_os_error()
        );
    }
}
