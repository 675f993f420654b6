//! The history list: undo logs of finished transactions, waiting for purge.
//!
//! A committed transaction's undo log joins the list at commit; purge may
//! process and free it once every read view sees the transaction (its id is
//! below [`super::view::TrxSys::oldest_view_limit`]). A rolled-back
//! transaction's log joins too, already undone: it is only freed, and only
//! once no view can still be reading a version it held (a reader may have
//! taken a roll pointer into it just before the rollback restored the row).
//!
//! Purge workers (in `table/purge.rs`) take disjoint batches, oldest id
//! first. The list's length is InnoDB's "history list length".

use std::collections::BTreeMap;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::undo::UndoLogInfo;
use super::TrxId;

#[derive(Default)]
pub struct History {
    logs: Mutex<BTreeMap<TrxId, UndoLogInfo>>,
    wake: Condvar,
    /// Logs purged and freed since startup.
    pub purged: crate::sync::Counter,
}

impl History {
    /// Adds a finished transaction's log and wakes purge.
    pub fn push(&self, log: UndoLogInfo) {
        self.logs.lock().insert(log.trx, log);
        self.wake.notify_one();
    }

    /// Undo logs waiting for purge (`Innodb_history_list_length`).
    pub fn len(&self) -> usize {
        self.logs.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes up to `n` logs of transactions below `limit`, oldest first,
    /// waiting up to `wait` for one to become available.
    pub fn take(&self, limit: TrxId, n: usize, wait: Duration) -> Vec<UndoLogInfo> {
        let mut logs = self.logs.lock();
        if logs.first_key_value().is_none_or(|(&t, _)| t >= limit) {
            self.wake.wait_for(&mut logs, wait);
        }
        let mut out = Vec::new();
        while out.len() < n {
            match logs.first_key_value() {
                Some((&t, _)) if t < limit => out.extend(logs.pop_first().map(|(_, l)| l)),
                _ => break,
            }
        }
        out
    }

    /// Wakes every waiting worker (shutdown).
    pub fn wake_all(&self) {
        self.wake.notify_all();
    }
}
