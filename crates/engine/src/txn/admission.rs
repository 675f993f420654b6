//! `innodb_thread_concurrency`: how many threads may work inside the
//! engine at once, and the FIFO queue of those waiting for a seat.
//!
//! InnoDB's semantics (srv0conc.cc, ha_innodb.cc), with the wait made a
//! hand-off instead of InnoDB's sleep-and-retry loop:
//! - A row operation ([`enter`]: a point read, a scan's start, an insert,
//!   update or delete) needs a seat. A thread that has one spends a ticket
//!   per operation, and each row a cursor returns ([`tick`]) is one more;
//!   a thread that takes a seat gets `innodb_concurrency_tickets` of them.
//!   When they run out it gives the seat back and queues again, so a long
//!   scan cannot keep a seat from the others.
//! - The seat is given back at the end of every statement ([`leave`]): an
//!   idle connection, or a transaction between statements, holds none.
//! - A thread that blocks ([`blocking`]: a row-lock wait, a page read, a
//!   wait for the redo log or the binary log, a full buffer pool, a purge
//!   delay, `SLEEP()`, a user or table lock, a client that does not read)
//!   gives its seat to the first in the queue and, when it wakes, takes
//!   one back without queueing (InnoDB's `srv_conc_force_enter_innodb`)
//!   with a single ticket. Without that, seats and row locks could wait
//!   for each other: a seat-holder waiting for a row lock whose owner
//!   queues for a seat. A thread never waits for a seat while it blocks
//!   nor inside the engine: [`enter`] and [`tick`] run between operations,
//!   holding no latch.
//!
//! Invariants:
//! 1. Outside forced entries, at most `limit` threads are inside; a
//!    forced entry may exceed it briefly, and a seat given back while the
//!    count is over the limit is not handed on.
//! 2. A seat given back while threads queue goes to the oldest of them
//!    (the count stays, the waiter is woken already inside): no thread
//!    is overtaken by one that arrived later, nobody polls.
//! 3. `limit` 0 (the default) admits everyone: then a row operation costs
//!    one thread-local read and one relaxed load.
//!
//! The seat lives in a thread-local: a statement runs on one thread from
//! start to end, and the seat never outlives the statement.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::Thread;

use crate::wait::{self, Instrument, Mutex};

/// The default of `innodb_concurrency_tickets` (MySQL 8.0).
pub const DEFAULT_TICKETS: u32 = 5000;

/// The seats of one engine.
pub struct Gate {
    /// `innodb_thread_concurrency` (0: no limit).
    limit: AtomicU32,
    /// `innodb_concurrency_tickets`.
    tickets: AtomicU32,
    state: Mutex<State>,
    /// Seats waited for, and the time spent waiting.
    pub waits: AtomicU64,
    pub wait_us: AtomicU64,
    /// The most threads inside at once, forced entries not counted.
    pub peak: AtomicU32,
}

#[derive(Default)]
struct State {
    inside: u32,
    queue: VecDeque<Arc<Waiter>>,
}

struct Waiter {
    thread: Thread,
    granted: AtomicBool,
}

thread_local! {
    /// The gate of the statement running on this thread (set by [`begin`]
    /// while a limit is on): only statements take seats, never the
    /// engine's own threads (purge, flushers, statistics).
    static GATE: RefCell<Option<Arc<Gate>>> = const { RefCell::new(None) };
    /// Whether this thread holds a seat of `GATE`.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// Tickets left (non-zero only while inside).
    static TICKETS: Cell<u32> = const { Cell::new(0) };
    /// Who hears that this thread blocks (a thread pool's worker: its
    /// group may start another worker meanwhile).
    static OBSERVER: RefCell<Option<Arc<dyn WaitObserver>>> = const { RefCell::new(None) };
    /// Nested [`lend`]s: the observer hears only the outermost.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Told when the thread it was installed on ([`observe_waits`]) starts
/// and ends a wait (MariaDB's `thd_wait_begin` / `thd_wait_end`): a row
/// lock, a page read, the log, a full pool, purge lag, a seat, a user or
/// table lock, `SLEEP()`, a slow client. Nested waits are reported once.
pub trait WaitObserver: Send + Sync {
    /// A wait on `on` begins (the outermost one: nested waits are the
    /// same wait).
    fn wait_begin(&self, on: Instrument);
    fn wait_end(&self);
}

/// Installs (or, with `None`, removes) the calling thread's observer.
pub fn observe_waits(o: Option<Arc<dyn WaitObserver>>) {
    OBSERVER.with(|slot| *slot.borrow_mut() = o);
}

/// Tells the thread's observer, if any, that a wait is over when dropped.
struct Observed(bool);

impl Observed {
    fn begin(on: Instrument) -> Self {
        let depth = DEPTH.get();
        DEPTH.set(depth + 1);
        if depth > 0 {
            return Observed(false);
        }
        let told = OBSERVER.with(|o| match &*o.borrow() {
            Some(o) => {
                o.wait_begin(on);
                true
            }
            None => false,
        });
        Observed(told)
    }
}

impl Drop for Observed {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get() - 1);
        if self.0 {
            OBSERVER.with(|o| {
                if let Some(o) = &*o.borrow() {
                    o.wait_end();
                }
            });
        }
    }
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            limit: AtomicU32::new(0),
            tickets: AtomicU32::new(DEFAULT_TICKETS),
            state: Mutex::new(Instrument::ThreadConcurrency, State::default()),
            waits: AtomicU64::new(0),
            wait_us: AtomicU64::new(0),
            peak: AtomicU32::new(0),
        }
    }
}

impl Gate {
    pub fn limit(&self) -> u32 {
        self.limit.load(Ordering::Relaxed)
    }

    /// Sets `innodb_thread_concurrency`; a raised (or removed) limit
    /// admits the queue's oldest at once.
    pub fn set_limit(&self, n: u32) {
        let mut st = self.state.lock();
        self.limit.store(n, Ordering::Relaxed);
        while !st.queue.is_empty() && (n == 0 || st.inside < n) {
            st.inside += 1;
            let w = st.queue.pop_front().expect("not empty");
            grant(&w);
        }
        if n != 0 {
            self.peak.fetch_max(st.inside.min(n), Ordering::Relaxed);
        }
    }

    /// Sets `innodb_concurrency_tickets` (at least 1).
    pub fn set_tickets(&self, n: u32) {
        self.tickets.store(n.max(1), Ordering::Relaxed);
    }

    /// Threads inside now, and threads queued.
    pub fn occupancy(&self) -> (u32, u32) {
        let st = self.state.lock();
        (st.inside, st.queue.len() as u32)
    }

    /// Takes a seat, queueing behind earlier arrivals if all are taken.
    fn acquire(&self) {
        let w = {
            let mut st = self.state.lock();
            let limit = self.limit();
            if st.queue.is_empty() && (limit == 0 || st.inside < limit) {
                st.inside += 1;
                self.peak.fetch_max(st.inside, Ordering::Relaxed);
                return;
            }
            let w = Arc::new(Waiter { thread: std::thread::current(), granted: AtomicBool::new(false) });
            st.queue.push_back(w.clone());
            w
        };
        let started = std::time::Instant::now();
        let queued = wait::Wait::start(Instrument::ThreadConcurrencyQueue);
        let _observed = Observed::begin(Instrument::ThreadConcurrencyQueue);
        while !w.granted.load(Ordering::Acquire) {
            std::thread::park();
        }
        queued.end();
        self.waits.fetch_add(1, Ordering::Relaxed);
        self.wait_us.fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
    }

    /// Gives a seat back: to the oldest waiter while the count is within
    /// the limit (invariant 2), else it is freed.
    fn release(&self) {
        let mut st = self.state.lock();
        let limit = self.limit();
        if !st.queue.is_empty() && (limit == 0 || st.inside <= limit) {
            let w = st.queue.pop_front().expect("not empty");
            grant(&w);
        } else {
            st.inside = st.inside.saturating_sub(1);
        }
    }

    /// Enters without queueing (after a wait: see the module note).
    fn force_enter(&self) {
        self.state.lock().inside += 1;
    }
}

fn grant(w: &Waiter) {
    w.granted.store(true, Ordering::Release);
    w.thread.unpark();
}

/// A statement starts on this thread: while `gate` has a limit, its row
/// operations will need seats. Paired with [`leave`].
pub fn begin(gate: &Arc<Gate>) {
    if gate.limit() != 0 {
        GATE.with(|g| *g.borrow_mut() = Some(gate.clone()));
    }
}

/// A row operation starts, or a cursor moves to its next row: spend a
/// ticket, or take a seat (queueing if all are taken). Call it holding no
/// latch. Without [`begin`] (or with no limit) this does nothing.
pub fn enter() {
    let t = TICKETS.get();
    if t > 0 {
        TICKETS.set(t - 1);
        return;
    }
    let Some(gate) = GATE.with(|g| g.borrow().clone()) else {
        return;
    };
    if INSIDE.replace(false) {
        gate.release(); // out of tickets: queue again
    }
    if gate.limit() == 0 {
        return;
    }
    gate.acquire();
    INSIDE.set(true);
    TICKETS.set(gate.tickets.load(Ordering::Relaxed).saturating_sub(1));
}

/// The statement ended: the seat (if any) is given back.
pub fn leave() {
    TICKETS.set(0);
    if let Some(gate) = GATE.with(|g| g.borrow_mut().take()) {
        if INSIDE.replace(false) {
            gate.release();
        }
    }
}

/// Runs `f`, a wait, with the thread's seat (if any) lent to the queue;
/// afterwards the thread is inside again with one ticket. The wait is
/// recorded under instrument `i`.
pub fn blocking<R>(i: Instrument, f: impl FnOnce() -> R) -> R {
    // Timed from outside: handing the seat on and a thread pool's relief
    // (which may start a worker) are part of the wait.
    wait::time(i, || lend(i, f))
}

/// [`blocking`] for a wait that records itself (file I/O, whose bytes
/// and kind its instrument also counts).
pub fn lend<R>(on: Instrument, f: impl FnOnce() -> R) -> R {
    let _observed = Observed::begin(on);
    if !INSIDE.get() {
        return f();
    }
    let gate = GATE.with(|g| g.borrow().clone()).expect("inside a gate");
    INSIDE.set(false);
    TICKETS.set(0);
    gate.release();
    let r = f();
    gate.force_enter();
    INSIDE.set(true);
    TICKETS.set(1);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    fn holds_seat() -> bool {
        INSIDE.get()
    }

    /// A statement's first row operation on `g`.
    fn start(g: &Arc<Gate>) {
        begin(g);
        enter();
    }

    fn wait_for_queue(g: &Gate) {
        while g.occupancy().1 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn no_limit_takes_no_seat() {
        let g = Arc::new(Gate::default());
        start(&g);
        assert!(!holds_seat());
        assert_eq!(g.occupancy(), (0, 0));
        leave();
    }

    #[test]
    fn without_a_statement_no_seat_is_taken() {
        let g = Arc::new(Gate::default());
        g.set_limit(1);
        enter(); // an engine thread: no begin
        assert!(!holds_seat());
        assert_eq!(g.occupancy(), (0, 0));
    }

    #[test]
    fn at_most_limit_threads_are_inside_and_the_queue_is_served_in_order() {
        let g = Arc::new(Gate::default());
        g.set_limit(2);
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (g, inside, most) = (g.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        start(&g);
                        let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                        leave();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert_eq!(g.occupancy(), (0, 0));
        assert!(g.peak.load(Ordering::Relaxed) <= 2);
        assert!(g.waits.load(Ordering::Relaxed) > 0);
    }

    #[test]
    fn tickets_run_out_and_the_seat_goes_to_the_waiter() {
        let g = Arc::new(Gate::default());
        g.set_limit(1);
        g.set_tickets(3);
        start(&g); // seat, 2 tickets left
        let g2 = g.clone();
        let waiter = std::thread::spawn(move || {
            start(&g2);
            leave();
        });
        wait_for_queue(&g);
        enter();
        enter();
        assert_eq!(g.occupancy(), (1, 1), "tickets left: still seated");
        // Out of tickets: the seat goes to the waiter, this thread queues
        // behind it and gets it back when the waiter leaves.
        enter();
        waiter.join().unwrap();
        assert!(holds_seat());
        leave();
        assert_eq!(g.occupancy(), (0, 0));
        assert!(g.waits.load(Ordering::Relaxed) >= 2);
    }

    #[test]
    fn a_blocked_thread_lends_its_seat_and_comes_back_without_queueing() {
        let g = Arc::new(Gate::default());
        g.set_limit(1);
        start(&g);
        let g2 = g.clone();
        blocking(Instrument::RowLock, || {
            // The only seat is free while this thread waits.
            std::thread::spawn(move || {
                start(&g2);
                leave();
            })
            .join()
            .unwrap();
        });
        assert!(holds_seat());
        assert_eq!(g.occupancy(), (1, 0));
        leave();
        assert_eq!(g.occupancy(), (0, 0));
    }

    #[test]
    fn raising_the_limit_admits_the_queue() {
        let g = Arc::new(Gate::default());
        g.set_limit(1);
        start(&g);
        let g2 = g.clone();
        let waiter = std::thread::spawn(move || {
            start(&g2);
            leave();
        });
        wait_for_queue(&g);
        g.set_limit(0);
        waiter.join().unwrap();
        leave();
        assert_eq!(g.occupancy(), (0, 0));
    }

    /// Counts what it hears.
    #[derive(Default)]
    struct Ears {
        begun: AtomicUsize,
        ended: AtomicUsize,
    }

    impl WaitObserver for Ears {
        fn wait_begin(&self, _on: Instrument) {
            self.begun.fetch_add(1, Ordering::SeqCst);
        }
        fn wait_end(&self) {
            self.ended.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn an_observer_hears_each_outermost_wait_once_and_only_on_its_thread() {
        let ears = Arc::new(Ears::default());
        observe_waits(Some(ears.clone()));
        let during = blocking(Instrument::Sleep, || {
            // A wait inside a wait (a page read while the statement waits
            // for the client, say) is the same wait.
            lend(Instrument::DataFile, || ());
            (ears.begun.load(Ordering::SeqCst), ears.ended.load(Ordering::SeqCst))
        });
        assert_eq!(during, (1, 0), "begun, not yet ended, while waiting");
        assert_eq!((ears.begun.load(Ordering::SeqCst), ears.ended.load(Ordering::SeqCst)), (1, 1));
        let other = std::thread::spawn(|| blocking(Instrument::Sleep, || 5));
        assert_eq!(other.join().unwrap(), 5);
        assert_eq!(ears.begun.load(Ordering::SeqCst), 1, "another thread's wait is not heard");
        observe_waits(None);
        lend(Instrument::DataFile, || ());
        assert_eq!(ears.begun.load(Ordering::SeqCst), 1, "removed");
    }
}
