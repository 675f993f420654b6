//! Wait instrumentation: how often, and how long, threads wait on each
//! latch, mutex, condition and file ([`names::ALL`]), always available and
//! cheap enough to leave on (performance_schema's
//! `events_waits_summary_*` tables read it).
//!
//! How it stays cheap:
//! - Each thread adds to its own [`slots::Slot`] (one writer, relaxed
//!   loads and stores, no shared cache line); a reader sums the slots of
//!   live threads plus what exited threads left behind.
//! - A mutex or latch acquisition that does not wait (its `try_lock`
//!   succeeds) is only counted: its time is 0, it reads no clock. One that
//!   waits reads the monotonic clock before and after. Waits for another
//!   thread (a row lock, the log, a free frame) and file I/O are always
//!   timed: they cost microseconds, the two clock reads nanoseconds.
//! - A disabled instrument costs one relaxed load.
//!
//! Times are kept in nanoseconds and shown in picoseconds, as MySQL's
//! TIMER_WAIT columns are.
//!
//! Invariants:
//! 1. A thread's slot is written only by that thread; totals read while
//!    threads run are a consistent-enough snapshot (each counter is read
//!    once; count and sum may be one event apart).
//! 2. Nothing recorded is lost when a thread exits: its slot's values move
//!    to the retired totals under the registry's lock, and readers take
//!    the same lock, so an exiting thread is counted exactly once.
//! 3. The instruments are process-wide, as performance_schema is per
//!    server: two engines in one process (tests) share them.

pub mod mutex;
pub mod names;
mod slots;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub use mutex::{Mutex, RwLock};
pub use names::{Class, Info, Instrument, ALL, COUNT, FILES};
pub use slots::{
    files, global, set_processlist_id, threads, Attached, ConnectionSlot, FileTotals, OpTotals, ThreadWaits, Totals,
};

#[allow(clippy::declare_interior_mutable_const)]
const YES: AtomicBool = AtomicBool::new(true);
static ENABLED: [AtomicBool; COUNT] = [YES; COUNT];
static TIMED: [AtomicBool; COUNT] = [YES; COUNT];
static ON: AtomicBool = AtomicBool::new(true);

/// Turns the whole facility on or off (`performance_schema` at startup).
/// Off, every instrument is disabled and [`set_enabled`] is refused.
pub fn set_on(on: bool) {
    ON.store(on, Ordering::Relaxed);
    if !on {
        for e in &ENABLED {
            e.store(false, Ordering::Relaxed);
        }
    }
}

/// Whether the facility is on.
pub fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Whether `i` records (setup_instruments.ENABLED).
#[inline]
pub fn enabled(i: Instrument) -> bool {
    ENABLED[i as usize].load(Ordering::Relaxed)
}

/// Whether `i`'s waits are timed (setup_instruments.TIMED); an enabled
/// but untimed instrument counts its events with a time of 0.
#[inline]
pub fn timed(i: Instrument) -> bool {
    TIMED[i as usize].load(Ordering::Relaxed)
}

/// Enables or disables `i`; ignored while the facility is off.
pub fn set_enabled(i: Instrument, on: bool) {
    if is_on() {
        ENABLED[i as usize].store(on, Ordering::Relaxed);
    }
}

pub fn set_timed(i: Instrument, on: bool) {
    TIMED[i as usize].store(on, Ordering::Relaxed);
}

/// Applies `performance_schema_instrument` settings at startup: a list of
/// `pattern=value` items (commas or newlines between them, quotes around
/// them allowed, as a my.cnf line may carry them), where a pattern is an
/// instrument name that may use `%` for any run of characters, and the
/// value is ON / TRUE / 1 (enabled and timed), OFF / FALSE / 0 (neither)
/// or COUNTED (enabled, not timed). As MySQL, a more specific pattern
/// (longer, without `%`) wins over a less specific one whatever their
/// order. Returns the items it could not read.
pub fn configure(spec: &str) -> Vec<String> {
    let mut items: Vec<(String, bool, bool)> = Vec::new();
    let mut bad = Vec::new();
    for raw in spec.split([',', '\n']) {
        let item = raw.trim().trim_matches(|c| c == '\'' || c == '"').trim();
        if item.is_empty() {
            continue;
        }
        let Some((pattern, value)) = item.split_once('=') else {
            bad.push(item.to_string());
            continue;
        };
        let (enabled, timed) = match value.trim().to_ascii_uppercase().as_str() {
            "ON" | "TRUE" | "1" => (true, true),
            "OFF" | "FALSE" | "0" => (false, false),
            "COUNTED" => (true, false),
            _ => {
                bad.push(item.to_string());
                continue;
            }
        };
        items.push((pattern.trim().to_string(), enabled, timed));
    }
    // Least specific first, so that the more specific ones apply last.
    items.sort_by_key(|(p, _, _)| (!p.contains('%'), p.replace('%', "").len()));
    for (pattern, enabled, timed) in items {
        for info in ALL.iter().filter(|i| like(&pattern, i.name)) {
            set_enabled(info.instrument, enabled);
            set_timed(info.instrument, timed);
        }
    }
    bad
}

/// SQL LIKE with `%` only, without case.
fn like(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.to_ascii_lowercase(), name.to_ascii_lowercase());
    let parts: Vec<&str> = p.split('%').collect();
    if parts.len() == 1 {
        return p == n;
    }
    let mut rest = n.as_str();
    for (k, part) in parts.iter().enumerate() {
        if k == 0 {
            let Some(r) = rest.strip_prefix(part) else { return false };
            rest = r;
        } else if k == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    true
}

thread_local! {
    /// Rows this thread's statements have read from tables (point reads,
    /// rows returned by scans): performance_schema's ROWS_EXAMINED, as a
    /// statement's difference of two readings.
    static ROWS_READ: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` rows read by this thread.
#[inline]
pub fn note_rows_read(n: u64) {
    ROWS_READ.with(|r| r.set(r.get() + n));
}

/// Rows read by this thread so far (see [`note_rows_read`]).
pub fn rows_read() -> u64 {
    ROWS_READ.with(|r| r.get())
}

/// The time this thread has waited on `i` so far, in nanoseconds (a
/// statement's lock time is the difference of two readings).
pub fn thread_wait_ns(i: Instrument) -> u64 {
    slots::thread_sum(i)
}

/// Counts one event of `i` that did not wait.
#[inline]
pub fn count(i: Instrument) {
    if enabled(i) {
        slots::add(i, 0);
    }
}

/// A wait in progress: [`Wait::end`] records it.
#[must_use]
pub struct Wait {
    i: Instrument,
    start: Option<Instant>,
}

impl Wait {
    /// Starts timing a wait on `i` (reads the clock only when `i` is
    /// enabled and timed).
    #[inline]
    pub fn start(i: Instrument) -> Self {
        let start = (enabled(i) && timed(i)).then(Instant::now);
        Self { i, start }
    }

    /// Records the wait.
    #[inline]
    pub fn end(self) {
        if !enabled(self.i) {
            return;
        }
        let ns = self.start.map_or(0, |s| s.elapsed().as_nanos().min(u64::MAX as u128) as u64);
        slots::add(self.i, ns);
    }
}

/// Runs `f`, a wait on `i`, and records how long it took.
#[inline]
pub fn time<R>(i: Instrument, f: impl FnOnce() -> R) -> R {
    let w = Wait::start(i);
    let r = f();
    w.end();
    r
}

/// The kind of a file operation (file_summary_by_event_name's groups).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOp {
    Read = 0,
    Write = 1,
    /// Syncs, opens, closes, truncations.
    Misc = 2,
}

/// Runs `f`, an operation on a file of instrument `i` moving `bytes`, and
/// records it both as a wait of `i` and by operation kind.
#[inline]
pub fn file_io<R>(i: Instrument, op: FileOp, bytes: usize, f: impl FnOnce() -> R) -> R {
    if !enabled(i) {
        return f();
    }
    let start = timed(i).then(Instant::now);
    let r = f();
    let ns = start.map_or(0, |s| s.elapsed().as_nanos().min(u64::MAX as u128) as u64);
    slots::add(i, ns);
    slots::add_file(i, op, bytes as u64, ns);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(i: Instrument) -> Totals {
        global()[i as usize]
    }

    #[test]
    fn waits_are_summed_across_threads_including_exited_ones() {
        // UserLock is used by no engine code: only this test touches it.
        let i = Instrument::UserLock;
        let before = of(i);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || {
                    for _ in 0..10 {
                        time(i, || std::thread::sleep(std::time::Duration::from_micros(50)));
                    }
                    count(i);
                });
            }
        });
        let after = of(i);
        assert_eq!(after.count - before.count, 44, "every event of every exited thread");
        assert!(after.sum_ns - before.sum_ns >= 40 * 50_000, "40 sleeps of at least 50 us");
        assert_eq!(after.min_ns, 0, "an event that did not wait counts with 0");
        assert!(after.max_ns >= 50_000);
    }

    #[test]
    fn a_disabled_instrument_records_nothing_and_an_untimed_one_only_counts() {
        let i = Instrument::Sleep;
        let before = of(i);
        set_enabled(i, false);
        time(i, || std::thread::sleep(std::time::Duration::from_micros(10)));
        assert_eq!(of(i).count, before.count);
        set_enabled(i, true);
        set_timed(i, false);
        time(i, || std::thread::sleep(std::time::Duration::from_micros(100)));
        let after = of(i);
        set_timed(i, true);
        assert_eq!(after.count, before.count + 1);
        assert_eq!(after.sum_ns, before.sum_ns, "untimed: no time added");
    }

    #[test]
    fn instrument_patterns_match_like_mysql_and_the_more_specific_wins() {
        assert!(like("wait/synch/%", "wait/synch/mutex/innodb/flush_list_mutex"));
        assert!(like("%flush_list%", "wait/synch/mutex/innodb/flush_list_mutex"));
        assert!(!like("wait/io/%", "wait/synch/mutex/innodb/flush_list_mutex"));
        assert!(like("WAIT/LOCK/INNODB/ROW_LOCK", "wait/lock/innodb/row_lock"));
        // Only instruments no other test of this crate touches.
        let bad =
            configure("'wait/io/socket/%=OFF',\n'wait/lock/metadata/sql/mdl=COUNTED','wait/lock/metadata/%=OFF',frob");
        assert_eq!(bad, vec!["frob".to_string()]);
        assert!(!enabled(Instrument::ClientSocket) && !timed(Instrument::ClientSocket));
        assert!(enabled(Instrument::MetadataLock) && !timed(Instrument::MetadataLock), "the specific item wins");
        configure("wait/io/socket/%=ON,wait/lock/metadata/%=ON");
        assert!(enabled(Instrument::ClientSocket) && timed(Instrument::MetadataLock));
    }

    #[test]
    fn file_operations_are_summed_by_kind() {
        let i = Instrument::BinlogFile;
        let k = names::file_index(i).unwrap();
        let before = files()[k];
        file_io(i, FileOp::Write, 4096, || ());
        file_io(i, FileOp::Write, 100, || ());
        file_io(i, FileOp::Misc, 0, || ());
        let after = files()[k];
        let (w, m, r) = (FileOp::Write as usize, FileOp::Misc as usize, FileOp::Read as usize);
        assert_eq!(after.ops[w].waits.count - before.ops[w].waits.count, 2);
        assert_eq!(after.ops[w].bytes - before.ops[w].bytes, 4196);
        assert_eq!(after.ops[m].waits.count - before.ops[m].waits.count, 1);
        assert_eq!(after.ops[r].waits.count, before.ops[r].waits.count);
    }
}
