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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::undo::UndoLogInfo;
use super::TrxId;

/// `History::purgeable` counts up to this many.
const PURGEABLE_CAP: usize = 1 << 20;

pub struct History {
    logs: Mutex<BTreeMap<TrxId, UndoLogInfo>>,
    /// `logs.len()`, readable without the mutex (every write checks it).
    len: AtomicUsize,
    /// Logs taken by purge workers and not yet freed (or given back).
    in_flight: AtomicUsize,
    /// Logs purge could take now (below the purge limit), as counted at
    /// the last `take` (up to `PURGEABLE_CAP`): what `innodb_max_purge_lag`
    /// throttles on, so that history an open view pins (purge could not
    /// shorten it anyway) does not slow writers.
    purgeable: AtomicUsize,
    wake: Condvar,
    /// Writers held by `innodb_max_purge_lag` wait here; `take` wakes
    /// them when it brings `purgeable` down.
    lag_mutex: Mutex<()>,
    lag_wake: Condvar,
    /// Logs freed since startup (what `purge_rate` measures).
    freed: std::sync::atomic::AtomicU64,
    /// `purge_rate`'s last sample: when, `freed` then, the rate.
    rate: Mutex<(std::time::Instant, u64, f64)>,
    /// Writers waiting in `wait_for_lag`.
    lag_waiters: AtomicUsize,
    /// Logs purged and freed since startup.
    pub purged: crate::sync::Counter,
}

impl History {
    /// A log taken by `take` is freed.
    pub fn purged_one(&self) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.purged.inc();
        self.freed.fetch_add(1, Ordering::Relaxed);
    }

    /// Logs freed per second, measured over the last 100 ms or more (an
    /// estimate refreshed by whoever asks).
    pub fn purge_rate(&self) -> f64 {
        let now = std::time::Instant::now();
        let freed = self.freed.load(Ordering::Relaxed);
        let mut r = self.rate.lock();
        let (at, then, rate) = *r;
        let dt = now.duration_since(at).as_secs_f64();
        if dt >= 0.1 {
            let fresh = (freed - then) as f64 / dt;
            // The first sample, or half the old and half the new.
            let rate = if then == 0 && rate == 0.0 { fresh } else { (rate + fresh) / 2.0 };
            *r = (now, freed, rate);
            return rate;
        }
        rate
    }

    /// Gives back a log taken by `take` that could not be purged.
    pub fn give_back(&self, log: UndoLogInfo) {
        self.push(log);
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }

    /// Adds a finished transaction's log and wakes purge.
    pub fn push(&self, log: UndoLogInfo) {
        let mut logs = self.logs.lock();
        logs.insert(log.trx, log);
        self.len.store(logs.len(), Ordering::Relaxed);
        drop(logs);
        // Counted as purgeable until the next `take` counts again: a
        // writer held by the lag must see the history grow even while
        // every purge worker is busy.
        self.purgeable.fetch_add(1, Ordering::Relaxed);
        self.wake.notify_one();
    }

    /// Undo logs not yet purged, those being purged included
    /// (`Innodb_history_list_length`).
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed) + self.in_flight.load(Ordering::Relaxed)
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
        self.in_flight.fetch_add(out.len(), Ordering::Relaxed);
        self.len.store(logs.len(), Ordering::Relaxed);
        let purgeable = count_below(&logs, limit);
        drop(logs);
        let before = self.purgeable.swap(purgeable, Ordering::Relaxed);
        if purgeable < before {
            let _g = self.lag_mutex.lock();
            self.lag_wake.notify_all();
        }
        out
    }

    /// Waits while more than `lag` logs are purgeable, until `deadline`
    /// or `stop` (writers held by `innodb_max_purge_lag`).
    pub fn wait_for_lag(&self, lag: usize, deadline: std::time::Instant, stop: &std::sync::atomic::AtomicBool) {
        self.lag_waiters.fetch_add(1, Ordering::Relaxed);
        let _count = LagWaiter(&self.lag_waiters);
        let mut g = self.lag_mutex.lock();
        while self.purgeable() > lag && !stop.load(Ordering::Relaxed) {
            if self.lag_wake.wait_until(&mut g, deadline).timed_out() {
                return;
            }
        }
    }

    /// Logs purge could take now (see the field).
    pub fn purgeable(&self) -> usize {
        self.purgeable.load(Ordering::Relaxed)
    }

    /// Writers waiting for the purge lag now.
    pub fn lag_waiters(&self) -> usize {
        self.lag_waiters.load(Ordering::Relaxed)
    }

    /// Wakes every waiting worker and writer (shutdown).
    pub fn wake_all(&self) {
        self.wake.notify_all();
        let _g = self.lag_mutex.lock();
        self.lag_wake.notify_all();
    }
}

impl Default for History {
    fn default() -> Self {
        Self {
            logs: Default::default(),
            len: Default::default(),
            in_flight: Default::default(),
            purgeable: Default::default(),
            wake: Default::default(),
            lag_mutex: Default::default(),
            lag_wake: Default::default(),
            freed: Default::default(),
            rate: Mutex::new((std::time::Instant::now(), 0, 0.0)),
            lag_waiters: Default::default(),
            purged: Default::default(),
        }
    }
}

/// Counts a writer out of `lag_waiters` however its wait ends.
struct LagWaiter<'a>(&'a AtomicUsize);

impl Drop for LagWaiter<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The number of logs below `limit`, up to `PURGEABLE_CAP`, at the cost of
/// the smaller side: the logs at or above the limit (transactions a view
/// still pins) are usually few, the ones below few when a view pins
/// almost everything.
fn count_below(logs: &BTreeMap<TrxId, UndoLogInfo>, limit: TrxId) -> usize {
    let mut below = logs.range(..limit);
    let mut above = logs.range(limit..);
    let mut n = 0;
    loop {
        if below.next().is_none() {
            return n.min(PURGEABLE_CAP);
        }
        n += 1;
        if above.next().is_none() {
            return (logs.len() - logs.range(limit..).count()).min(PURGEABLE_CAP);
        }
    }
}
