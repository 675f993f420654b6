//! The slow query log (`slow_query_log`, `slow_query_log_file`,
//! `long_query_time`, with `log_output` as the general log's): a client
//! command (a COM_QUERY's text, a prepared statement's execution) that
//! ran longer than the session's `long_query_time` is counted in
//! `Slow_queries` whether the log is on or not (as MySQL counts it) and,
//! with the log on, written as MySQL 8.0 writes its file:
//!
//! ```text
//! # Time: 2024-05-01T10:00:02.000147Z
//! # User@Host: root[root] @ localhost []  Id:    12
//! # Query_time: 2.000147  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 0
//! use db;
//! SET timestamp=1714557600;
//! SELECT SLEEP(2);
//! ```
//!
//! `use db;` when the command's database is not the one this connection
//! last logged; `SET timestamp` is when the command started. Lock_time is
//! the time the command waited for row and metadata locks, Rows_examined
//! the rows the engine read for it, Rows_sent the rows of its result sets.
//! A multi-statement COM_QUERY is one entry (MySQL writes one per
//! statement); statements inside stored programs are their CALL's.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What a command did, measured from its start (`Clock::start`).
pub struct Figures {
    pub ns: u64,
    pub lock_ns: u64,
    pub examined: u64,
}

/// A command's clock and the thread's counters when it started (read
/// per command: an `Instant` and two thread-locals; the wall clock only
/// when an entry is written).
pub struct Clock {
    started: Instant,
    rows_read: u64,
    lock_ns: u64,
}

impl Clock {
    pub fn start() -> Self {
        Clock { started: Instant::now(), rows_read: quire_engine::wait::rows_read(), lock_ns: lock_ns() }
    }

    /// When the command started, in seconds since the epoch.
    fn wall_secs(&self) -> u64 {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        now.saturating_sub(self.started.elapsed()).as_secs()
    }

    /// The figures from the start to now.
    pub fn figures(&self) -> Figures {
        Figures {
            ns: self.started.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64,
            lock_ns: lock_ns().saturating_sub(self.lock_ns),
            examined: quire_engine::wait::rows_read().saturating_sub(self.rows_read),
        }
    }
}

/// Time this thread has waited for row and metadata locks.
pub fn lock_ns() -> u64 {
    use quire_engine::wait::{thread_wait_ns, Instrument};
    thread_wait_ns(Instrument::RowLock) + thread_wait_ns(Instrument::MetadataLock)
}

/// Whether a command of `ns` is slow under `long_query_time` (seconds):
/// strictly longer, as MySQL's test.
pub fn is_slow(ns: u64, long_query_time: f64) -> bool {
    ns as f64 > long_query_time * 1e9
}

/// The command that ran.
pub struct Entry<'a> {
    pub user: &'a str,
    pub connection_id: u32,
    /// `Some(db)` when the file needs a `use db;` first.
    pub use_db: Option<&'a str>,
    pub sent: u64,
    pub text: &'a str,
}

/// One entry of the file (see the module note).
pub fn entry(clock: &Clock, f: &Figures, e: &Entry<'_>) -> String {
    let secs = |ns: u64| format!("{}.{:06}", ns / 1_000_000_000, ns / 1000 % 1_000_000);
    let mut out = format!(
        "# Time: {}\n# User@Host: {user}[{user}] @ localhost []  Id: {:5}\n\
         # Query_time: {}  Lock_time: {} Rows_sent: {}  Rows_examined: {}\n",
        crate::general_log::utc_now(),
        e.connection_id,
        secs(f.ns),
        secs(f.lock_ns),
        e.sent,
        f.examined,
        user = e.user,
    );
    if let Some(db) = e.use_db {
        out.push_str(&format!("use {db};\n"));
    }
    out.push_str(&format!("SET timestamp={};\n", clock.wall_secs()));
    let text = e.text.trim_end();
    out.push_str(text);
    if !text.ends_with(';') {
        out.push(';');
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_laid_out_as_mysqls_file() {
        let clock = Clock::start();
        let f = Figures { ns: 2_000_147_000, lock_ns: 12_000, examined: 7 };
        let e = Entry { user: "root", connection_id: 12, use_db: Some("shop"), sent: 1, text: "SELECT SLEEP(2)" };
        let text = entry(&clock, &f, &e);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("# Time: 20") && lines[0].ends_with('Z'), "{text}");
        assert_eq!(lines[1], "# User@Host: root[root] @ localhost []  Id:    12");
        assert_eq!(lines[2], "# Query_time: 2.000147  Lock_time: 0.000012 Rows_sent: 1  Rows_examined: 7");
        assert_eq!(lines[3], "use shop;");
        let ts: u64 =
            lines[4].strip_prefix("SET timestamp=").and_then(|t| t.strip_suffix(';')).unwrap().parse().unwrap();
        assert!(ts > 1_700_000_000, "{text}");
        assert_eq!(lines[5], "SELECT SLEEP(2);");
        assert!(is_slow(2_000_000_001, 2.0) && !is_slow(2_000_000_000, 2.0) && is_slow(1, 0.0));
    }
}
