//! EXPLAIN ANALYZE's counters: per operator of a plan, how often it was
//! opened (`loops`), the rows it produced, and the time to its first and
//! to its last row, summed over its loops (printed averaged per loop, as
//! MySQL does).
//!
//! Operators are named by the address of the plan part they run (a join
//! tree node, a source, a block) and a [`Tag`] (one part may stand for
//! several operators: a table's read and the filter over it). The plan is
//! borrowed, unmoved, for the whole execution and the printing after it,
//! so an address names one part throughout.
//!
//! Execution only counts when it was given a [`Profile`]
//! (`rel::exec::Exec::profiled`): each operator checks for one when it is
//! opened and, without one, runs its plain row loop. With one, a
//! [`Probe`] wraps the operator's row callback.
//!
//! Times exclude the operators above: a probe subtracts the time spent
//! in the callback it hands each row to, so an operator's time is its own
//! and its inputs' (MySQL's "including child iterators, but not parent
//! iterators").

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Which operator of a plan part.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Tag {
    /// A join tree node's output (`rel::Node`).
    Node,
    /// The rows a source read, before its filter.
    Read,
    /// A block's rows that passed its remaining WHERE terms.
    Where,
    /// A block's rows sent on (after LIMIT).
    Out,
    /// Rows its last step offered to LIMIT / OFFSET.
    Offered,
    /// Groups its aggregation made.
    Groups,
    /// Rows after grouping and HAVING.
    Grouped,
    /// A set operation's or recursive CTE's rows.
    Result,
}

/// One operator's measures, summed over its loops.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counter {
    pub loops: u64,
    pub rows: u64,
    pub first: Duration,
    pub last: Duration,
}

impl Counter {
    /// MySQL's `(actual time=FIRST..LAST rows=N loops=L)`: times in ms
    /// and rows averaged per loop.
    pub fn text(&self) -> String {
        if self.loops == 0 {
            return "(never executed)".into();
        }
        let n = self.loops as f64;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0 / n;
        format!(
            "(actual time={:.3}..{:.3} rows={} loops={})",
            ms(self.first),
            ms(self.last),
            (self.rows as f64 / n).round() as u64,
            self.loops
        )
    }
}

/// The counters of one EXPLAIN ANALYZE execution.
#[derive(Default)]
pub struct Profile {
    counters: RefCell<HashMap<(usize, Tag), Counter>>,
}

/// The key of plan part `p`.
pub fn key<T>(p: &T) -> usize {
    p as *const T as usize
}

impl Profile {
    /// The counter of operator (`part`, `tag`), if it ran.
    pub fn get(&self, part: usize, tag: Tag) -> Option<Counter> {
        self.counters.borrow().get(&(part, tag)).copied()
    }

    /// Opens one loop of operator (`part`, `tag`).
    pub fn open(&self, part: usize, tag: Tag) -> Probe<'_> {
        Probe { profile: self, part, tag, start: Instant::now(), above: Duration::ZERO, first: None, rows: 0 }
    }

    /// Adds one loop's measures.
    pub fn record(&self, part: usize, tag: Tag, rows: u64, first: Duration, last: Duration) {
        let mut m = self.counters.borrow_mut();
        let c = m.entry((part, tag)).or_default();
        c.loops += 1;
        c.rows += rows;
        c.first += first;
        c.last += last;
    }
}

/// One loop of an operator being measured.
pub struct Probe<'p> {
    profile: &'p Profile,
    part: usize,
    tag: Tag,
    start: Instant,
    /// Time spent in the operators above, handed the rows.
    above: Duration,
    first: Option<Duration>,
    rows: u64,
}

impl Probe<'_> {
    /// Hands a row on through `f`, counting it.
    pub fn emit<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let t0 = Instant::now();
        self.rows += 1;
        if self.first.is_none() {
            self.first = Some(t0.saturating_duration_since(self.start).saturating_sub(self.above));
        }
        let r = f();
        self.above += t0.elapsed();
        r
    }

    /// The time so far, less the operators above.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed().saturating_sub(self.above)
    }

    /// Time to the first row (the whole time when there was none).
    pub fn first(&self) -> Duration {
        self.first.unwrap_or_else(|| self.elapsed())
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Ends the loop and records it.
    pub fn close(self) {
        let last = self.elapsed();
        self.profile.record(self.part, self.tag, self.rows, self.first.unwrap_or(last), last);
    }
}

/// A row sink measured as operator (`part`, `Tag::Out`).
pub struct TimedSink<'s, 'p> {
    pub inner: &'s mut dyn crate::sink::RowSink,
    pub probe: Probe<'p>,
}

impl crate::sink::RowSink for TimedSink<'_, '_> {
    fn columns(&mut self, columns: &[crate::plan::ColMeta]) -> crate::error::Result<()> {
        self.inner.columns(columns)
    }
    fn row(&mut self, row: Vec<quire_engine::row::Value>) -> crate::error::Result<()> {
        let inner = &mut self.inner;
        self.probe.emit(|| inner.row(row))
    }
}
