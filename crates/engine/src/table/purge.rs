//! Purge workers (`innodb_purge_threads`): they take undo logs of finished
//! transactions that every read view sees from the history list, remove
//! what those logs made obsolete (delete-marked rows, secondary entries no
//! version needs: `undo_apply.rs`), and free the logs.
//!
//! A worker sleeps on the history list's condition variable when nothing
//! is purgeable (woken once a batch of logs has gathered, and every
//! 100 ms for fewer and to notice views that closed).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::trx::TxnSys;
use crate::txn::purge::PURGE_BATCH as BATCH;
use crate::txn::record::UndoRec;
use crate::txn::undo::{UndoLog, UndoLogInfo, STATE_COMMITTED};
use crate::{Error, PageId, Result, SYSTEM_SPACE};

pub(crate) fn purge_loop(sys: Arc<TxnSys>, worker: usize) {
    // Lock owner ids no transaction ever gets (ids fit in 48 bits).
    let purger = u64::MAX - worker as u64;
    while !sys.shutting_down.load(Ordering::Acquire) {
        let limit = sys.trx_sys.oldest_view_limit();
        let batch = sys.history.take(limit, BATCH, Duration::from_millis(100));
        let mut done = Vec::with_capacity(batch.len());
        for log in batch {
            match purge_records(&sys, &log, purger) {
                Ok(()) => done.push(log),
                Err(e) => give_back(&sys, log, e),
            }
        }
        if done.is_empty() {
            continue;
        }
        free_barrier(&sys);
        for log in done {
            match sys.rseg.free(&sys.pool, &log) {
                Ok(()) => sys.history.purged_one(),
                Err(e) => give_back(&sys, log, e),
            }
        }
    }
}

fn give_back(sys: &TxnSys, log: UndoLogInfo, e: Error) {
    if !sys.shutting_down.load(Ordering::Acquire) {
        tracing::error!("purge of the undo log of transaction {} failed: {e}", log.trx);
        std::thread::sleep(Duration::from_secs(1));
    }
    sys.history.give_back(log);
}

/// A barrier, not a critical section: walkers of version chains hold
/// `free_latch` shared and take the purge limit inside it, so once every
/// walker that began before now has finished, none can reach a log purge
/// took before the barrier (its transaction is below every limit taken
/// from now on). One barrier covers a whole batch.
fn free_barrier(sys: &TxnSys) {
    drop(sys.free_latch.write());
}

/// Removes what one log's records made obsolete; the log stays.
fn purge_records(sys: &TxnSys, log: &UndoLogInfo, purger: u64) -> Result<()> {
    let pool = &sys.pool;
    if log.state == STATE_COMMITTED {
        let ul = UndoLog::reopen(pool, log)?;
        for (ptr, bytes) in ul.records_backward(pool)? {
            let rec = UndoRec::decode(&bytes).ok_or_else(|| {
                Error::corruption(PageId::new(SYSTEM_SPACE, (ptr >> 16) as u32), "undecodable undo record")
            })?;
            if let Some(t) = sys.table(rec.space) {
                t.purge_record(sys, log.trx, &rec, purger)?;
            }
            if sys.shutting_down.load(Ordering::Acquire) {
                return Err(Error::Shutdown);
            }
        }
    }
    Ok(())
}
