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
//!
//! How many logs no read view pins (what `innodb_max_purge_lag` throttles
//! on) is kept exactly by [`super::view::TrxSys`], which knows the views:
//! it adds and subtracts logs here as transactions end and the oldest
//! view moves, and `take` subtracts the ones purge takes.
//!
//! Purge can be paused ([`History::pause`]): workers then take nothing,
//! and `pause` returns once no batch is in flight.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::undo::UndoLogInfo;
use super::TrxId;

/// Logs a purge worker takes at a time; as many gathered wake one.
pub const PURGE_BATCH: usize = 16;

pub struct History {
    logs: crate::wait::Mutex<BTreeMap<TrxId, UndoLogInfo>>,
    /// `logs.len()`, readable without the mutex (every write checks it).
    len: AtomicUsize,
    /// Logs taken by purge workers and not yet freed (or given back).
    in_flight: AtomicUsize,
    /// Finished logs below the oldest open view's `up_limit` (all, with
    /// none), not yet taken: what `innodb_max_purge_lag` throttles on, so
    /// that history a view pins does not slow writers — purge could not
    /// shorten it. Kept by `TrxSys` (invariant 3 of `view.rs`) and `take`.
    purgeable: AtomicUsize,
    /// Set (under `logs`) while purge is paused: `take` takes nothing.
    paused: AtomicBool,
    wake: Condvar,
    /// `pause` waits here for the batches in flight to end.
    drained: Condvar,
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
        self.purged.inc();
        self.freed.fetch_add(1, Ordering::Relaxed);
        self.one_landed();
    }

    /// One log of a batch is freed or given back.
    fn one_landed(&self) {
        if self.in_flight.fetch_sub(1, Ordering::Relaxed) == 1 {
            // The last log in flight (at most once per batch); notified
            // under the mutex `pause` waits with, so it cannot miss it.
            let _g = self.logs.lock();
            self.drained.notify_all();
        }
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

    /// Gives back a log taken by `take` that could not be purged. It is
    /// counted again (it was below the purge limit, which only goes up, so
    /// below every view).
    pub fn give_back(&self, log: UndoLogInfo) {
        self.add_purgeable(1);
        self.push(log);
        self.one_landed();
    }

    /// Adds a finished transaction's log, waking a purge worker once a
    /// batch has gathered. REQUIRES: the log was counted by
    /// [`super::view::TrxSys::end_into_history`].
    ///
    /// Not every log wakes a worker (InnoDB's commit wakes purge only when
    /// it is idle, and purge then runs in batches): a wake per commit cost
    /// the committer a futex call (~4 µs of a ~90 µs durable commit at
    /// one thread) and a worker a context switch, a free barrier and a
    /// round on this list's mutex per log. Fewer than a batch wait for a
    /// worker's timed wait in `take` (100 ms).
    pub fn push(&self, log: UndoLogInfo) {
        let mut logs = self.logs.lock();
        logs.insert(log.trx, log);
        let len = logs.len();
        self.len.store(len, Ordering::Relaxed);
        drop(logs);
        if len >= PURGE_BATCH {
            self.wake.notify_one();
        }
    }

    /// `n` more logs are unpinned (called by `TrxSys`).
    pub(crate) fn add_purgeable(&self, n: usize) {
        self.purgeable.fetch_add(n, Ordering::Relaxed);
    }

    /// `n` logs are pinned by a view just opened (called by `TrxSys`).
    pub(crate) fn sub_purgeable(&self, n: usize) {
        if n == 0 {
            return;
        }
        let before = self.purgeable.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| Some(p.saturating_sub(n)));
        debug_assert!(before.is_ok_and(|p| p >= n), "{n} logs pinned, {before:?} counted purgeable");
        if self.lag_waiters() > 0 {
            let _g = self.lag_mutex.lock();
            self.lag_wake.notify_all();
        }
    }

    /// Stops purge: workers take no more logs, and this returns once the
    /// batches they hold are freed (or given back). The history and the
    /// purgeable count then change only by commits and views; writers
    /// beyond `innodb_max_purge_lag` still wait (up to their delay).
    /// For tests (InnoDB's debug `innodb_purge_stop_now`).
    pub fn pause(&self) {
        let mut logs = self.logs.lock();
        self.paused.store(true, Ordering::Relaxed);
        while self.in_flight.load(Ordering::Relaxed) > 0 {
            self.drained.wait(&mut logs);
        }
    }

    /// Lets purge run again after [`History::pause`]
    /// (`innodb_purge_run_now`).
    pub fn resume(&self) {
        let _g = self.logs.lock();
        self.paused.store(false, Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// Undo logs not yet purged, those being purged included
    /// (`Innodb_history_list_length`).
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed) + self.in_flight.load(Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Logs purge workers hold now (taken, not yet freed or given back).
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// Whether purge is paused ([`History::pause`]).
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// Takes up to `n` logs of transactions below `limit`, oldest first,
    /// waiting up to `wait` for one to become available; none while purge
    /// is paused.
    pub fn take(&self, limit: TrxId, n: usize, wait: Duration) -> Vec<UndoLogInfo> {
        let mut logs = self.logs.lock();
        let paused = || self.paused.load(Ordering::Relaxed);
        if paused() || logs.first_key_value().is_none_or(|(&t, _)| t >= limit) {
            self.wake.wait_for(&mut logs, wait);
        }
        if paused() {
            return Vec::new();
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
        drop(logs);
        if !out.is_empty() {
            // Every log below the limit is counted (`view.rs`, invariant 3).
            let n = out.len();
            let before =
                self.purgeable.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| Some(p.saturating_sub(n)));
            debug_assert!(before.is_ok_and(|p| p >= n), "took {n} logs, {before:?} counted purgeable");
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

    /// Waits until purge has taken and freed every log no read view pins
    /// (a slow shutdown). Gives up, with a warning, when purge is paused
    /// or makes no progress for `stall`.
    pub fn wait_purged(&self, stall: Duration) {
        let mut last = (self.len(), std::time::Instant::now());
        while self.purgeable() > 0 || self.in_flight() > 0 {
            if self.is_paused() {
                tracing::warn!("slow shutdown: purge is paused, {} undo logs left", self.len());
                return;
            }
            let len = self.len();
            if len != last.0 {
                last = (len, std::time::Instant::now());
            } else if last.1.elapsed() > stall {
                tracing::warn!("slow shutdown: purge made no progress for {stall:?}, {len} undo logs left");
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
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
            logs: crate::wait::Mutex::new(crate::wait::Instrument::PurgeSys, BTreeMap::new()),
            len: Default::default(),
            in_flight: Default::default(),
            purgeable: Default::default(),
            paused: Default::default(),
            wake: Default::default(),
            drained: Default::default(),
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::Instant;

    use super::*;

    /// `n` logs, ids from 1, counted purgeable (as `TrxSys` would once no
    /// view or transaction holds them).
    fn history_of(n: u64) -> History {
        let h = History::default();
        for trx in 1..=n {
            h.push(UndoLogInfo { rseg: 0, slot: None, first_page: 0, trx, state: 0 });
        }
        h.add_purgeable(n as usize);
        h
    }

    #[test]
    fn a_writer_held_by_the_lag_goes_when_purge_brings_the_count_down_to_it() {
        const LAG: usize = 40;
        let h = history_of(500);
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let writer = s.spawn(|| {
                h.wait_for_lag(LAG, Instant::now() + Duration::from_secs(600), &stop);
                h.purgeable()
            });
            while h.purgeable() > LAG {
                for _ in h.take(TrxId::MAX, 16, Duration::ZERO) {
                    h.purged_one();
                }
            }
            let seen = writer.join().unwrap();
            assert!(seen <= LAG, "the writer went with {seen} logs purgeable");
        });
    }

    #[test]
    fn paused_purge_takes_nothing_and_pause_waits_for_the_batch_in_flight() {
        let h = history_of(10);
        let batch = h.take(TrxId::MAX, 2, Duration::ZERO);
        assert_eq!(batch.len(), 2);
        std::thread::scope(|s| {
            let pauser = s.spawn(|| {
                h.pause();
                h.in_flight.load(Ordering::Relaxed)
            });
            for _ in batch {
                h.purged_one();
            }
            assert_eq!(pauser.join().unwrap(), 0, "pause returned with a batch in flight");
        });
        assert!(h.take(TrxId::MAX, 16, Duration::ZERO).is_empty(), "nothing taken while paused");
        assert_eq!((h.len(), h.purgeable()), (8, 8));
        h.resume();
        assert_eq!(h.take(TrxId::MAX, 16, Duration::ZERO).len(), 8);
    }
}
