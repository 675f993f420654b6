//! Syncs of an engine's files: how many were made and how many are under
//! way now (`Innodb_data_fsyncs`, `Innodb_data_pending_fsyncs`: InnoDB
//! counts every fsync of its files there, redo log and doublewrite
//! included). Each kind of file keeps its own [`Fsyncs`];
//! [`crate::Engine::fsyncs`] sums them.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Default, Debug)]
pub struct Fsyncs {
    done: AtomicU64,
    pending: AtomicU64,
}

impl Fsyncs {
    /// Runs `sync`, counted as pending while it runs and as made once it
    /// returns (failed or not: the call was made).
    #[inline]
    pub fn run<R>(&self, sync: impl FnOnce() -> R) -> R {
        self.pending.fetch_add(1, Relaxed);
        let r = sync();
        self.pending.fetch_sub(1, Relaxed);
        self.done.fetch_add(1, Relaxed);
        r
    }

    /// Syncs `file`'s data: timed as a wait on `instrument` and counted
    /// here. Every sync of an engine file goes through this.
    pub fn sync_data(&self, instrument: crate::wait::Instrument, file: &quire_io::FileRef) -> std::io::Result<()> {
        self.run(|| crate::wait::file_io(instrument, crate::wait::FileOp::Misc, 0, || file.sync_data()))
    }

    /// Syncs made.
    pub fn done(&self) -> u64 {
        self.done.load(Relaxed)
    }

    /// Syncs under way now.
    pub fn pending(&self) -> u64 {
        self.pending.load(Relaxed)
    }
}

/// Sums of an engine's [`Fsyncs`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsyncTotals {
    pub done: u64,
    pub pending: u64,
    /// Of `pending`, the redo log's.
    pub log_pending: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_is_pending_while_it_runs_and_counted_once_it_returns() {
        let f = Fsyncs::default();
        let seen = f.run(|| f.pending());
        assert_eq!((seen, f.pending(), f.done()), (1, 0, 1));
        let _: Result<(), ()> = f.run(|| Err(()));
        assert_eq!((f.pending(), f.done()), (0, 2), "a failed sync was still made");
    }
}
