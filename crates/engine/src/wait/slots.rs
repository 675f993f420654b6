//! Per-thread wait counters and the registry that sums them.
//!
//! A thread's first recorded event creates its [`Slot`] and lists it in
//! the registry; the thread-local holder's destructor moves the slot's
//! values into the registry's retired totals and unlists it (invariant 2
//! of the module).

use std::cell::{Cell, OnceCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::names::{self, Instrument, COUNT, FILES};
use super::FileOp;

/// One instrument's counters in one thread (times in nanoseconds).
struct Stat {
    count: AtomicU64,
    sum: AtomicU64,
    min: AtomicU64,
    max: AtomicU64,
}

impl Stat {
    const fn new() -> Self {
        Self { count: AtomicU64::new(0), sum: AtomicU64::new(0), min: AtomicU64::new(u64::MAX), max: AtomicU64::new(0) }
    }

    /// Single writer: plain loads and stores, no read-modify-write.
    #[inline]
    fn add(&self, ns: u64) {
        let r = Ordering::Relaxed;
        self.count.store(self.count.load(r) + 1, r);
        if ns == 0 {
            if self.min.load(r) != 0 {
                self.min.store(0, r);
            }
            return;
        }
        self.sum.store(self.sum.load(r).saturating_add(ns), r);
        if ns < self.min.load(r) {
            self.min.store(ns, r);
        }
        if ns > self.max.load(r) {
            self.max.store(ns, r);
        }
    }

    fn read(&self) -> Totals {
        let r = Ordering::Relaxed;
        Totals {
            count: self.count.load(r),
            sum_ns: self.sum.load(r),
            min_ns: self.min.load(r),
            max_ns: self.max.load(r),
        }
    }
}

/// One kind of operation on one file instrument in one thread.
struct OpStat {
    stat: Stat,
    bytes: AtomicU64,
}

impl OpStat {
    const fn new() -> Self {
        Self { stat: Stat::new(), bytes: AtomicU64::new(0) }
    }

    fn read(&self) -> OpTotals {
        OpTotals { waits: self.stat.read(), bytes: self.bytes.load(Ordering::Relaxed) }
    }
}

/// Sums over events of one instrument (`min_ns` is `u64::MAX` when there
/// were none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Totals {
    pub count: u64,
    pub sum_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

impl Default for Totals {
    fn default() -> Self {
        Self { count: 0, sum_ns: 0, min_ns: u64::MAX, max_ns: 0 }
    }
}

impl Totals {
    pub fn merge(&mut self, o: Totals) {
        self.count += o.count;
        self.sum_ns = self.sum_ns.saturating_add(o.sum_ns);
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
    }

    /// The mean wait in nanoseconds (0 without events).
    pub fn avg_ns(&self) -> u64 {
        self.sum_ns.checked_div(self.count).unwrap_or(0)
    }

    /// The shortest wait, 0 without events (as performance_schema shows).
    pub fn min_or_zero(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min_ns
        }
    }
}

/// Sums of one kind of operation on one file instrument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpTotals {
    pub waits: Totals,
    pub bytes: u64,
}

impl OpTotals {
    fn merge(&mut self, o: OpTotals) {
        self.waits.merge(o.waits);
        self.bytes += o.bytes;
    }
}

/// A file instrument's operations by kind ([`FileOp`] order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileTotals {
    pub ops: [OpTotals; 3],
}

/// One thread's counters.
struct Slot {
    thread_id: u64,
    name: String,
    os_id: u64,
    processlist_id: AtomicU64,
    stats: [Stat; COUNT],
    files: [[OpStat; 3]; FILES],
}

/// A live thread's waits, as `threads()` reports them.
#[derive(Clone, Debug)]
pub struct ThreadWaits {
    /// performance_schema's THREAD_ID: 1, 2, ... in order of first event.
    pub thread_id: u64,
    /// The OS thread's name (`std::thread::Builder::name`), if any.
    pub name: String,
    /// The kernel's thread id (THREAD_OS_ID).
    pub os_id: u64,
    /// The connection the thread serves, 0 for a background thread.
    pub processlist_id: u64,
    pub waits: Vec<Totals>,
}

struct Registry {
    next_id: u64,
    live: Vec<Arc<Slot>>,
    retired: Vec<Totals>,
    retired_files: [FileTotals; FILES],
}

const NO_OPS: OpTotals = OpTotals { waits: Totals { count: 0, sum_ns: 0, min_ns: u64::MAX, max_ns: 0 }, bytes: 0 };

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next_id: 1,
    live: Vec::new(),
    retired: Vec::new(),
    retired_files: [FileTotals { ops: [NO_OPS; 3] }; FILES],
});

/// The thread-local owner of a slot; retires it when the thread exits.
struct Holder(Arc<Slot>);

impl Drop for Holder {
    fn drop(&mut self) {
        let mut reg = REGISTRY.lock();
        if reg.retired.is_empty() {
            reg.retired = vec![Totals::default(); COUNT];
        }
        for (n, s) in self.0.stats.iter().enumerate() {
            reg.retired[n].merge(s.read());
        }
        for (k, ops) in self.0.files.iter().enumerate() {
            for (o, op) in ops.iter().enumerate() {
                reg.retired_files[k].ops[o].merge(op.read());
            }
        }
        reg.live.retain(|s| !Arc::ptr_eq(s, &self.0));
    }
}

thread_local! {
    static MINE: OnceCell<Holder> = const { OnceCell::new() };
    /// The slot events go to instead while a thread pool's worker serves
    /// a connection ([`ConnectionSlot::attach`]); null: the thread's own.
    static LENT: Cell<*const Slot> = const { Cell::new(std::ptr::null()) };
}

/// A connection's own slot, for a thread pool: its waits stay its own
/// (and performance_schema shows it as one thread) whichever worker
/// serves it. One worker at a time serves a connection, so the slot keeps
/// a single writer.
pub struct ConnectionSlot(Holder);

impl ConnectionSlot {
    pub fn new(processlist_id: u64) -> Self {
        let h = register("connection".to_string(), 0);
        h.0.processlist_id.store(processlist_id, Ordering::Relaxed);
        ConnectionSlot(h)
    }

    /// The calling thread records into this slot until the guard drops.
    pub fn attach(&self) -> Attached {
        let slot = Arc::clone(&self.0 .0);
        LENT.with(|l| l.set(Arc::as_ptr(&slot)));
        Attached { _slot: slot }
    }
}

/// Keeps an attached slot alive; detaches it when dropped.
pub struct Attached {
    _slot: Arc<Slot>,
}

impl Drop for Attached {
    fn drop(&mut self) {
        LENT.with(|l| l.set(std::ptr::null()));
    }
}

fn os_thread_id() -> u64 {
    // SAFETY: gettid has no preconditions.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::gettid() as u64
    }
    #[cfg(not(target_os = "linux"))]
    0
}

fn new_slot() -> Holder {
    register(std::thread::current().name().unwrap_or("").to_string(), os_thread_id())
}

fn register(name: String, os_id: u64) -> Holder {
    let mut reg = REGISTRY.lock();
    let slot = Arc::new(Slot {
        thread_id: reg.next_id,
        name,
        os_id,
        processlist_id: AtomicU64::new(0),
        stats: [const { Stat::new() }; COUNT],
        files: [const { [const { OpStat::new() }; 3] }; FILES],
    });
    reg.next_id += 1;
    reg.live.push(slot.clone());
    Holder(slot)
}

/// Runs `f` on the slot this thread records into (an attached
/// connection's, else its own); does nothing while the thread exits.
#[inline]
fn with_slot(f: impl FnOnce(&Slot)) {
    let lent = LENT.with(Cell::get);
    if !lent.is_null() {
        // SAFETY: set only by `ConnectionSlot::attach`, whose guard holds
        // the slot's Arc until it clears the pointer on this thread.
        return f(unsafe { &*lent });
    }
    let _ = MINE.try_with(|m| f(&m.get_or_init(new_slot).0));
}

#[inline]
pub(super) fn add(i: Instrument, ns: u64) {
    with_slot(|s| s.stats[i as usize].add(ns));
}

pub(super) fn add_file(i: Instrument, op: FileOp, bytes: u64, ns: u64) {
    let Some(k) = names::file_index(i) else { return };
    with_slot(|s| {
        let o = &s.files[k][op as usize];
        o.stat.add(ns);
        o.bytes.store(o.bytes.load(Ordering::Relaxed) + bytes, Ordering::Relaxed);
    });
}

/// This thread's (or its attached connection's) summed wait time on `i`
/// (0 before its first event).
pub(super) fn thread_sum(i: Instrument) -> u64 {
    let mut sum = 0;
    let lent = LENT.with(Cell::get);
    if !lent.is_null() {
        with_slot(|s| sum = s.stats[i as usize].sum.load(Ordering::Relaxed));
        return sum;
    }
    MINE.try_with(|m| m.get().map_or(0, |h| h.0.stats[i as usize].sum.load(Ordering::Relaxed))).unwrap_or(0)
}

/// Tells the instruments which connection this thread now serves (0: none).
pub fn set_processlist_id(id: u64) {
    with_slot(|s| s.processlist_id.store(id, Ordering::Relaxed));
}

/// Every instrument's totals over all threads, live and exited, in
/// instrument order.
pub fn global() -> Vec<Totals> {
    let reg = REGISTRY.lock();
    let mut out = if reg.retired.is_empty() { vec![Totals::default(); COUNT] } else { reg.retired.clone() };
    for slot in &reg.live {
        for (n, s) in slot.stats.iter().enumerate() {
            out[n].merge(s.read());
        }
    }
    out
}

/// The file instruments' totals by operation kind, over all threads.
pub fn files() -> [FileTotals; FILES] {
    let reg = REGISTRY.lock();
    let mut out = reg.retired_files;
    for slot in &reg.live {
        for (k, ops) in slot.files.iter().enumerate() {
            for (o, op) in ops.iter().enumerate() {
                out[k].ops[o].merge(op.read());
            }
        }
    }
    out
}

/// The live threads that have recorded an event, by THREAD_ID.
pub fn threads() -> Vec<ThreadWaits> {
    let reg = REGISTRY.lock();
    reg.live
        .iter()
        .map(|s| ThreadWaits {
            thread_id: s.thread_id,
            name: s.name.clone(),
            os_id: s.os_id,
            processlist_id: s.processlist_id.load(Ordering::Relaxed),
            waits: s.stats.iter().map(Stat::read).collect(),
        })
        .collect()
}
