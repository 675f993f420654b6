//! How fast an instance's old LRU part turns over: the bound on how long a
//! page read waits before an access can make it young.
//!
//! InnoDB makes a page in the old part young when it is accessed at least
//! `innodb_old_blocks_time` ms (1 s) after its first access. When misses
//! evict the whole old part faster than that, no page read ever stays long
//! enough: nothing is made young, the young part keeps whatever it held
//! (after a bulk load, the pages the load created, which nobody reads),
//! and the pages in use cycle through the old part, read again and again.
//! Measured (docs/BENCHMARKS.md, "The old part's turnover"): after
//! sysbench's load, oltp_point_select with a pool of a quarter of the data
//! read 0.18 pages per query where a cold start read 0.06; its old part
//! turned over in ~0.25 s.
//!
//! So the wait is at most half the old part's last turnover time (never
//! under `FLOOR_MS`): a page accessed again that late while still in the
//! pool is in use at intervals the old part cannot hold. A scan still
//! leaves its pages old: its accesses to one page fall within a
//! millisecond or so of each other. While nothing is evicted the lap under
//! way only lengthens, and the wait returns to `innodb_old_blocks_time`.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The shortest wait the turnover can impose (below the setting).
pub(super) const FLOOR_MS: u32 = 20;

#[derive(Default)]
pub(super) struct Turnover {
    /// Evictions in the lap under way.
    evicted: AtomicU32,
    /// When the lap under way began.
    mark_ms: AtomicU32,
    /// How long the last complete lap took; 0 before the first.
    last_ms: AtomicU32,
}

impl Turnover {
    /// One page evicted at `now_ms`; a lap is complete once as many pages
    /// as the old part holds (`old_len`) have been evicted. REQUIRES: the
    /// instance mutex (one counter of each lap).
    pub(super) fn on_eviction(&self, now_ms: u32, old_len: u32) {
        let n = self.evicted.load(Relaxed) + 1;
        if n < old_len.max(8) {
            self.evicted.store(n, Relaxed);
            return;
        }
        let mark = self.mark_ms.load(Relaxed);
        self.last_ms.store(now_ms.wrapping_sub(mark).max(1), Relaxed);
        self.mark_ms.store(now_ms, Relaxed);
        self.evicted.store(0, Relaxed);
    }

    /// How long after its first access an access makes an old page young:
    /// `setting` (`innodb_old_blocks_time`), or less when the old part
    /// turns over faster (module comment).
    pub(super) fn wait_ms(&self, now_ms: u32, setting: u32) -> u32 {
        let last = self.last_ms.load(Relaxed);
        if last == 0 {
            return setting;
        }
        let lap = last.max(now_ms.wrapping_sub(self.mark_ms.load(Relaxed)));
        setting.min((lap / 2).max(FLOOR_MS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_half_the_last_lap_and_never_above_the_setting() {
        let t = Turnover::default();
        assert_eq!(t.wait_ms(5, 1000), 1000, "no lap measured yet");
        // 100 evictions from an old part of 100 pages in the first 300 ms.
        for i in 1..=100 {
            t.on_eviction(3 * i, 100);
        }
        assert_eq!(t.wait_ms(300, 1000), 150);
        assert_eq!(t.wait_ms(300, 0), 0, "innodb_old_blocks_time=0 stays 0");
        assert_eq!(t.wait_ms(300, 100), 100);
        // Nothing evicted since: the lap under way lengthens the wait.
        assert_eq!(t.wait_ms(1300, 1000), 500);
        assert_eq!(t.wait_ms(5000, 1000), 1000);
    }

    #[test]
    fn a_very_fast_lap_still_waits_the_floor() {
        let t = Turnover::default();
        for _ in 0..20 {
            t.on_eviction(7, 10);
        }
        assert_eq!(t.wait_ms(7, 1000), FLOOR_MS);
    }
}
