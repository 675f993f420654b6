//! Page cleaners (`innodb_page_cleaners`): background threads that write
//! the oldest dirty pages of the flush lists at a pace set by the redo
//! log's age and the share of dirty pages (InnoDB's adaptive flushing), so
//! that checkpoints can advance without anyone waiting for a flush.
//!
//! Each cleaner owns the instances `i` with `i % cleaners == its number`
//! and paces each independently: there is no barrier across instances in
//! a round (the MySQL 5.7 coordinator's flaw, seed 000). A round, once a
//! second (or at once when woken):
//! 1. `pct_dirty`: 0 below `innodb_max_dirty_pages_pct_lwm`, else
//!    dirty% * 100 / (`innodb_max_dirty_pages_pct` + 1); with the low-water
//!    mark 0 (the default, as MariaDB's), 0 below
//!    `innodb_max_dirty_pages_pct` and 100 above it;
//! 2. `pct_lsn`: 0 below `innodb_adaptive_flushing_lwm` % of the redo
//!    capacity (or if `innodb_adaptive_flushing` is off), else
//!    (io_capacity_max / io_capacity) * age% * sqrt(age%) / 7.5;
//! 3. pages = (io_capacity * max(pct) / 100 + the measured page rate) / 2,
//!    at most `innodb_io_capacity_max`; with no redo written since the last
//!    round (idle), `innodb_io_capacity` pages;
//! 4. the oldest pages of each owned instance's flush list, its share of
//!    `pages`, go through the flush-list doublewrite shards without waiting
//!    for latches.
//!
//!
//! Sync flush: when the redo log fills faster than the pacing writes (the
//! checkpoint age passes half the capacity), the checkpointer asks the
//! cleaners for every page below an LSN ([`BufferPool::sync_flush`]); they
//! drop the pacing and write those at full speed, each its own instances,
//! still in parallel and without a barrier, while the checkpointer waits
//! for the oldest modification to pass the LSN (InnoDB's
//! `buf_flush_sync_lsn`). Only with no cleaner running does the caller
//! write the pages itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::BufferPool;
use crate::dblwr::FlushType;
use crate::{Error, Result};

/// Startup values (the engine's config).
#[derive(Clone, Debug)]
pub struct FlushTuningConfig {
    pub page_cleaners: usize,
    pub io_capacity: u64,
    pub io_capacity_max: u64,
    pub max_dirty_pages_pct: f64,
    pub max_dirty_pages_pct_lwm: f64,
    pub adaptive_flushing: bool,
    pub adaptive_flushing_lwm: u64,
}

impl Default for FlushTuningConfig {
    fn default() -> Self {
        Self {
            page_cleaners: 1,
            io_capacity: 200,
            io_capacity_max: 2000,
            max_dirty_pages_pct: 90.0,
            max_dirty_pages_pct_lwm: 0.0,
            adaptive_flushing: true,
            adaptive_flushing_lwm: 10,
        }
    }
}

/// The live values (settable with SET GLOBAL).
#[derive(Debug, Default)]
pub struct FlushTuning {
    pub io_capacity: AtomicU64,
    pub io_capacity_max: AtomicU64,
    /// f64 bits.
    max_dirty_pct_bits: AtomicU64,
    lwm_pct_bits: AtomicU64,
    pub adaptive_flushing: AtomicBool,
    pub adaptive_flushing_lwm: AtomicU64,
}

impl FlushTuning {
    pub fn set(&self, c: &FlushTuningConfig) {
        self.io_capacity.store(c.io_capacity.max(1), Ordering::Relaxed);
        self.io_capacity_max.store(c.io_capacity_max.max(c.io_capacity).max(1), Ordering::Relaxed);
        self.set_max_dirty_pages_pct(c.max_dirty_pages_pct);
        self.set_max_dirty_pages_pct_lwm(c.max_dirty_pages_pct_lwm);
        self.adaptive_flushing.store(c.adaptive_flushing, Ordering::Relaxed);
        self.adaptive_flushing_lwm.store(c.adaptive_flushing_lwm, Ordering::Relaxed);
    }

    pub fn set_max_dirty_pages_pct(&self, v: f64) {
        self.max_dirty_pct_bits.store(v.to_bits(), Ordering::Relaxed);
    }

    pub fn set_max_dirty_pages_pct_lwm(&self, v: f64) {
        self.lwm_pct_bits.store(v.to_bits(), Ordering::Relaxed);
    }

    fn max_dirty_pct(&self) -> f64 {
        f64::from_bits(self.max_dirty_pct_bits.load(Ordering::Relaxed))
    }

    fn lwm_pct(&self) -> f64 {
        f64::from_bits(self.lwm_pct_bits.load(Ordering::Relaxed))
    }

    /// Pages to write this round (steps 1-3 of the module note).
    pub fn pages_to_flush(&self, dirty_pct: f64, age_pct: f64, avg_rate: f64, idle: bool) -> u64 {
        let io = self.io_capacity.load(Ordering::Relaxed) as f64;
        let io_max = self.io_capacity_max.load(Ordering::Relaxed) as f64;
        if idle {
            return io as u64;
        }
        let (max, lwm) = (self.max_dirty_pct(), self.lwm_pct());
        let pct_dirty = if lwm == 0.0 {
            if dirty_pct >= max {
                100.0
            } else {
                0.0
            }
        } else if dirty_pct >= lwm {
            dirty_pct * 100.0 / (max + 1.0)
        } else {
            0.0
        };
        let adaptive = self.adaptive_flushing.load(Ordering::Relaxed);
        let lsn_lwm = self.adaptive_flushing_lwm.load(Ordering::Relaxed) as f64;
        let pct_lsn = if !adaptive || age_pct < lsn_lwm { 0.0 } else { (io_max / io) * age_pct * age_pct.sqrt() / 7.5 };
        let pct = pct_dirty.max(pct_lsn);
        ((io * pct / 100.0 + avg_rate) / 2.0).min(io_max).max(0.0) as u64
    }
}

impl BufferPool {
    /// Starts `n` page cleaners (the engine calls this once the redo log is
    /// attached).
    pub fn start_page_cleaners(self: &Arc<Self>, n: usize) -> Result<()> {
        let n = n.clamp(1, self.instances.len());
        let mut threads = self.page_cleaners.lock();
        if !threads.is_empty() {
            return Ok(());
        }
        for c in 0..n {
            let pool = Arc::clone(self);
            let t = std::thread::Builder::new()
                .name(format!("page_cleaner-{c}"))
                .spawn(move || {
                    crate::sync::priority::raise_background_priority();
                    pool.page_cleaner_loop(c, n)
                })
                .map_err(|e| Error::io("starting a page cleaner", e))?;
            threads.push(t);
        }
        Ok(())
    }

    /// Stops the page cleaners (shutdown).
    pub fn stop_page_cleaners(&self) {
        self.cleaners_stopping.store(true, Ordering::Release);
        {
            let _g = self.cleaner_wake.0.lock();
            self.cleaner_wake.1.notify_all();
        }
        let threads: Vec<_> = self.page_cleaners.lock().drain(..).collect();
        for t in threads {
            let _ = t.join();
        }
    }

    /// Has every page whose oldest change is below `lsn` written by the
    /// cleaners at full speed, and waits for it (see the module note), up
    /// to `timeout`; after that, or with no cleaner running, the caller
    /// writes what is left itself.
    pub fn sync_flush(&self, lsn: crate::Lsn, timeout: Duration) -> Result<()> {
        let below = |pool: &Self| pool.oldest_modification().is_some_and(|o| o < lsn);
        if lsn == 0 || !below(self) {
            return Ok(());
        }
        self.stats.sync_flushes.inc();
        let running = !self.page_cleaners.lock().is_empty() && !self.cleaners_stopping.load(Ordering::Acquire);
        if running {
            self.sync_flush_lsn.fetch_max(lsn, Ordering::AcqRel);
            self.wake_page_cleaners();
            let deadline = std::time::Instant::now() + timeout;
            while below(self) && std::time::Instant::now() < deadline && !self.cleaners_stopping.load(Ordering::Acquire)
            {
                let mut g = self.sync_flush_done.0.lock();
                self.sync_flush_done.1.wait_for(&mut g, Duration::from_millis(10));
            }
            let _ = self.sync_flush_lsn.compare_exchange(lsn, 0, Ordering::AcqRel, Ordering::Acquire);
            if below(self) && std::time::Instant::now() >= deadline {
                self.stats.sync_flush_timeouts.inc();
            }
        }
        let n = self.flush_older_than(lsn)?;
        self.stats.flushed_by_checkpointer.add(n as u64);
        Ok(())
    }

    /// One cleaner's part of a sync flush: the pages of its instances below
    /// the asked LSN, batch after batch.
    fn sync_flush_round(&self, me: usize, mine: &[usize], lsn: crate::Lsn) {
        let batch = self.dblwr().map_or(64, |d| d.batch_pages());
        for &i in mine {
            loop {
                let victims: Vec<u32> = self.instances[i]
                    .flush_list
                    .lock()
                    .by_lsn
                    .iter()
                    .take_while(|&&(o, _)| o < lsn)
                    .take(batch)
                    .map(|&(_, f)| f)
                    .collect();
                if victims.is_empty() || self.cleaners_stopping.load(Ordering::Acquire) {
                    break;
                }
                match self.flush_batch(i, &victims, FlushType::FlushList, false) {
                    Ok(0) => break, // latched or being written by another: next round
                    Ok(n) => {
                        // Counted per batch, so the counters follow the
                        // writes while a long round runs.
                        self.stats.flushed_sync.add(n as u64);
                        self.stats.flushed_by_cleaners.add(n as u64);
                    }
                    Err(e) => {
                        tracing::warn!("page cleaner {me}: {e}");
                        break;
                    }
                }
            }
        }
        let _g = self.sync_flush_done.0.lock();
        self.sync_flush_done.1.notify_all();
    }

    /// Wakes the page cleaners for a round now.
    pub fn wake_page_cleaners(&self) {
        let _g = self.cleaner_wake.0.lock();
        self.cleaner_wake.1.notify_all();
    }

    fn page_cleaner_loop(self: Arc<Self>, me: usize, cleaners: usize) {
        let mine: Vec<usize> = (0..self.instances.len()).filter(|i| i % cleaners == me).collect();
        let mut last_lsn = self.log().map_or(0, |l| l.current_lsn());
        let mut avg_rate = 0.0f64;
        loop {
            {
                let mut g = self.cleaner_wake.0.lock();
                let sync = self.sync_flush_lsn.load(Ordering::Acquire) != 0;
                if !self.cleaners_stopping.load(Ordering::Acquire) {
                    // During a sync flush, look again soon for pages that
                    // were latched or newly dirtied below the LSN.
                    let wait = if sync { Duration::from_millis(5) } else { Duration::from_secs(1) };
                    self.cleaner_wake.1.wait_for(&mut g, wait);
                }
            }
            if self.cleaners_stopping.load(Ordering::Acquire) {
                return;
            }
            let sync_lsn = self.sync_flush_lsn.load(Ordering::Acquire);
            if sync_lsn != 0 {
                self.sync_flush_round(me, &mine, sync_lsn);
                continue;
            }
            let Some(log) = self.log().cloned() else { continue };
            let dirty = self.dirty_pages();
            if dirty == 0 {
                continue;
            }
            let dirty_pct = dirty as f64 * 100.0 / self.frames_total().max(1) as f64;
            let age_pct = log.checkpoint_age() as f64 * 100.0 / log.capacity().max(1) as f64;
            let lsn = log.current_lsn();
            let idle = lsn == last_lsn;
            last_lsn = lsn;
            let pages = self.tuning.pages_to_flush(dirty_pct, age_pct, avg_rate, idle);
            let share = (pages as usize).div_ceil(self.instances.len()).max(1);
            let batch = self.dblwr().map_or(64, |d| d.batch_pages());
            let mut written = 0usize;
            for &i in &mine {
                let oldest: Vec<u32> =
                    self.instances[i].flush_list.lock().by_lsn.iter().take(share).map(|&(_, f)| f).collect();
                for chunk in oldest.chunks(batch) {
                    match self.flush_batch(i, chunk, FlushType::FlushList, false) {
                        Ok(n) => {
                            self.stats.flushed_by_cleaners.add(n as u64);
                            written += n;
                        }
                        Err(e) => {
                            tracing::warn!("page cleaner {me}: {e}");
                            break;
                        }
                    }
                    if self.cleaners_stopping.load(Ordering::Acquire) {
                        return;
                    }
                }
            }
            avg_rate = (avg_rate + written as f64 * cleaners as f64) / 2.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacing_follows_dirty_pages_and_redo_age() {
        let t = FlushTuning::default();
        t.set(&FlushTuningConfig::default());
        assert_eq!(t.pages_to_flush(50.0, 0.0, 0.0, true), 200, "idle: io_capacity");
        assert_eq!(t.pages_to_flush(50.0, 5.0, 0.0, false), 0, "the default low-water mark 0: no pre-flushing");
        assert_eq!(t.pages_to_flush(95.0, 5.0, 0.0, false), 100, "above innodb_max_dirty_pages_pct");
        // MySQL 8.0's default low-water mark.
        t.set(&FlushTuningConfig { max_dirty_pages_pct_lwm: 10.0, ..FlushTuningConfig::default() });
        assert_eq!(t.pages_to_flush(5.0, 5.0, 0.0, false), 0, "below both low-water marks");
        let dirty = t.pages_to_flush(50.0, 0.0, 0.0, false);
        assert!(dirty > 0 && dirty < 200, "{dirty}");
        let old_redo = t.pages_to_flush(5.0, 70.0, 0.0, false);
        assert!(old_redo > 3 * 200, "an old redo log flushes well beyond io_capacity: {old_redo}");
        assert_eq!(t.pages_to_flush(5.0, 90.0, 4000.0, false), 2000, "never beyond io_capacity_max");
    }
}
