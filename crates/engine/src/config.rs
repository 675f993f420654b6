//! Engine settings, named after InnoDB's where the concept is the same.

use std::path::PathBuf;

use crate::dblwr::{DoublewriteConfig, DoublewriteMode};
use crate::log::{FlushAtCommit, LogConfig};
use crate::{Error, Result};

/// `innodb_flush_method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushMethod {
    /// Data files bypass the page cache; writes are followed by fdatasync.
    ODirect,
    /// Buffered I/O with fsync/fdatasync.
    Fsync,
}

impl FlushMethod {
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "O_DIRECT" | "O_DIRECT_NO_FSYNC" => Ok(FlushMethod::ODirect),
            "FSYNC" | "O_DSYNC" | "LITTLESYNC" | "NOSYNC" => Ok(FlushMethod::Fsync),
            _ => Err(Error::Config(format!("unknown innodb_flush_method '{s}'"))),
        }
    }
}

#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Where the data files live (`datadir`).
    pub datadir: PathBuf,
    /// `innodb_page_size`: 4096 ..= 65536, a power of two.
    pub page_size: usize,
    /// `innodb_buffer_pool_size` in bytes.
    pub buffer_pool_size: usize,
    /// `innodb_buffer_pool_instances`.
    pub buffer_pool_instances: usize,
    /// `innodb_old_blocks_pct`.
    pub old_blocks_pct: u32,
    /// `innodb_old_blocks_time` (ms).
    pub old_blocks_time_ms: u32,
    /// `innodb_flush_method`.
    pub flush_method: FlushMethod,
    /// `innodb_log_file_size`, `innodb_log_buffer_size`,
    /// `innodb_flush_log_at_trx_commit`.
    pub log: LogConfig,
    /// `innodb_doublewrite`, `innodb_doublewrite_dir`,
    /// `innodb_doublewrite_files`, `innodb_doublewrite_pages`.
    pub doublewrite: DoublewriteConfig,
    /// `innodb_lock_wait_timeout`.
    pub lock_wait_timeout: std::time::Duration,
    /// `innodb_deadlock_detect`.
    pub deadlock_detect: bool,
    /// `innodb_purge_threads`.
    pub purge_threads: usize,
    /// `innodb_max_purge_lag`: the number of purgeable undo logs above
    /// which a transaction's first write waits for purge to catch up
    /// (0 = never). InnoDB's default is 0; quire's is not, so that the
    /// history stays bounded under any write load (docs/ARCHITECTURE.md,
    /// "Purge").
    pub max_purge_lag: u64,
    /// `innodb_max_purge_lag_delay`: the longest such wait, in
    /// microseconds (0 = up to `innodb_lock_wait_timeout`).
    pub max_purge_lag_delay_us: u64,
    /// Rollback segments a new data directory gets (an existing one keeps
    /// what it was created with): commits and purge latch one segment's
    /// page each, so more segments spread them.
    pub rollback_segments: usize,
    /// Page cleaners and their pacing (`innodb_page_cleaners`,
    /// `innodb_io_capacity[_max]`, `innodb_max_dirty_pages_pct[_lwm]`,
    /// `innodb_adaptive_flushing[_lwm]`).
    pub flushing: crate::buffer::page_cleaner::FlushTuningConfig,
    /// `innodb_force_recovery` (0..=6): 0 is normal; 1 opens damaged
    /// tables read-only and lets scans skip damaged pages; 2 also runs no
    /// purge; 3 and above also leave transactions a crash left active
    /// un-rolled-back and make every table read-only (docs/ARCHITECTURE.md,
    /// "Damaged tables").
    pub force_recovery: u8,
    /// `innodb_read_io_threads`: threads that read ahead.
    pub read_io_threads: usize,
    /// `innodb_write_io_threads`: threads that write a flush batch's pages
    /// in place, in parallel (`space/write_io.rs`).
    pub write_io_threads: usize,
    /// `innodb_read_ahead_threshold` (0-64; 0: no linear read-ahead).
    pub read_ahead_threshold: u32,
    /// `innodb_random_read_ahead`.
    pub random_read_ahead: bool,
    /// `innodb_adaptive_hash_index` at startup (`btree/ahi.rs`).
    pub adaptive_hash_index: bool,
    /// `innodb_adaptive_hash_index_parts` (1-512).
    pub adaptive_hash_index_parts: usize,
    /// `innodb_change_buffering` at startup (`ibuf/mod.rs`).
    pub change_buffering: crate::ibuf::Mode,
    /// `innodb_change_buffer_max_size`: percent of the buffer pool (0-50).
    pub change_buffer_max_size: u32,
    /// `innodb_fast_shutdown` at startup: what [`crate::Engine::shutdown`]
    /// does (see [`crate::ShutdownMode`]).
    pub fast_shutdown: crate::ShutdownMode,
}

impl EngineConfig {
    pub fn new(datadir: impl Into<PathBuf>) -> Self {
        Self {
            datadir: datadir.into(),
            page_size: crate::page::DEFAULT_PAGE_SIZE,
            buffer_pool_size: 128 << 20,
            buffer_pool_instances: 1,
            old_blocks_pct: 37,
            old_blocks_time_ms: 1000,
            flush_method: FlushMethod::ODirect,
            log: LogConfig::default(),
            doublewrite: DoublewriteConfig::default(),
            lock_wait_timeout: std::time::Duration::from_secs(50),
            deadlock_detect: true,
            purge_threads: 4,
            max_purge_lag: 4096,
            max_purge_lag_delay_us: 1_000_000,
            rollback_segments: crate::txn::rsegs::DEFAULT_SEGMENTS,
            flushing: Default::default(),
            force_recovery: 0,
            read_io_threads: 4,
            write_io_threads: 4,
            read_ahead_threshold: 56,
            random_read_ahead: false,
            adaptive_hash_index: false,
            adaptive_hash_index_parts: 8,
            change_buffering: crate::ibuf::Mode::All,
            change_buffer_max_size: 25,
            fast_shutdown: crate::ShutdownMode::Fast,
        }
    }

    pub fn force_recovery(mut self, level: u8) -> Self {
        self.force_recovery = level;
        self
    }

    pub fn lock_wait_timeout(mut self, t: std::time::Duration) -> Self {
        self.lock_wait_timeout = t;
        self
    }

    pub fn max_purge_lag(mut self, n: u64) -> Self {
        self.max_purge_lag = n;
        self
    }

    pub fn purge_threads(mut self, n: usize) -> Self {
        self.purge_threads = n;
        self
    }

    pub fn doublewrite(mut self, mode: DoublewriteMode) -> Self {
        self.doublewrite.mode = mode;
        self
    }

    pub fn log_file_size(mut self, n: u64) -> Self {
        self.log.file_size = n;
        self
    }

    pub fn flush_log_at_trx_commit(mut self, v: FlushAtCommit) -> Self {
        self.log.flush_at_commit = v;
        self
    }

    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n;
        self
    }

    pub fn change_buffering(mut self, mode: crate::ibuf::Mode) -> Self {
        self.change_buffering = mode;
        self
    }

    pub fn fast_shutdown(mut self, mode: crate::ShutdownMode) -> Self {
        self.fast_shutdown = mode;
        self
    }

    pub fn buffer_pool_size(mut self, n: usize) -> Self {
        self.buffer_pool_size = n;
        self
    }

    pub fn buffer_pool_instances(mut self, n: usize) -> Self {
        self.buffer_pool_instances = n;
        self
    }

    pub fn flush_method(mut self, m: FlushMethod) -> Self {
        self.flush_method = m;
        self
    }
}

/// Parses sizes as my.cnf writes them: `134217728`, `128M`, `1G`, `16k`.
pub fn parse_size(s: &str) -> Result<u64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1u64 << 10),
        Some('m' | 'M') => (&s[..s.len() - 1], 1 << 20),
        Some('g' | 'G') => (&s[..s.len() - 1], 1 << 30),
        Some('t' | 'T') => (&s[..s.len() - 1], 1 << 40),
        _ => (s, 1),
    };
    num.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| Error::Config(format!("'{s}' is not a size")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_like_my_cnf() {
        assert_eq!(parse_size("16k").unwrap(), 16384);
        assert_eq!(parse_size("128M").unwrap(), 128 << 20);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
    }
}

/// `innodb_fast_shutdown`: how much work a clean shutdown does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ShutdownMode {
    /// 0: a slow shutdown. Purge first removes everything no read view
    /// still needs and the change buffer is merged into its leaves, then
    /// as `Fast`.
    Slow = 0,
    /// 1 (the default): every dirty page is written and a checkpoint
    /// taken, so the next open replays nothing.
    Fast = 1,
    /// 2: only the redo log is written and synced; pages are left as they
    /// are, and the next open recovers as after a crash (nothing committed
    /// is lost).
    Cold = 2,
}

impl ShutdownMode {
    pub fn from_u64(v: u64) -> Option<Self> {
        match v {
            0 => Some(Self::Slow),
            1 => Some(Self::Fast),
            2 => Some(Self::Cold),
            _ => None,
        }
    }
}
