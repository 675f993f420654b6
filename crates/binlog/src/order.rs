//! Commit order: the engine commits logged transactions in the order the
//! log holds them (MySQL's ordered commit, `binlog_order_commits`), so
//! that the binary log position the engine records with each commit
//! (`quire-engine`'s rollback segment pages) always names a prefix of the
//! log: every transaction before it is committed in the engine, none
//! after it is.
//!
//! Each transaction appended to the log gets a turn number under the
//! log's mutex (append order = file order). Its committer queues its
//! engine commit (the in-memory part and the mini-transaction that
//! records the position) for that turn *before* the group holding it is
//! written ([`Order::queue`]); whoever writes a group then allows the
//! turns it wrote ([`Order::allow`], `log.rs`). Whoever finds the next
//! turn queued and allowed and nobody running becomes the *runner* and
//! runs queued commits one after the other in turn order (MySQL's commit
//! stage, whose leader commits every member of its group), then makes
//! them durable in the engine at once (`set_after_chain`: one redo
//! flush), then wakes their committers: a follower sleeps once, from its
//! append until it is durable, as MySQL's do. Until session 33 a
//! follower slept twice (for its group's write, then in the order), and
//! until session 32 the turn passed from committer to committer, one
//! wake-up and context switch per transaction on the serial path: at 64
//! threads on 2 cores that alone held logged commits to a third of
//! unlogged ones. A committer whose log write failed still has its
//! commit run (which then only reports the failure), so the turns after
//! it run.
//!
//! Invariants:
//! 1. `next` only grows, by one per commit run, and only the runner moves
//!    it; at most one runner at a time (`running`).
//! 2. A commit is queued and the runner's role is taken or left under
//!    the one mutex: a runner stops only when turn `next` is not queued,
//!    and whoever queues turn `next` afterwards finds `running` false and
//!    runs it, so no queued commit waits for ever.
//! 3. A queued commit is a pointer into its committer's stack frame; the
//!    committer does not leave [`Waiting::wait`] (nor drop its
//!    [`Waiting`]) before its slot's `done` is set, and the runner touches the commit no more after it
//!    ran (the slot itself is shared, `Arc`): `done` is set after the
//!    chain's `after_chain`.
//! 4. A panic in a commit is caught by the runner and raised again in
//!    its own committer; the chain goes on.

use std::any::Any;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;

use parking_lot::Mutex;

pub(crate) struct Order {
    state: Mutex<OrderState>,
    /// Run by a runner after its chain, before it wakes the chain's
    /// committers ([`Order::set_after_chain`]).
    after_chain: OnceLock<Box<dyn Fn() + Send + Sync>>,
}

#[derive(Default)]
struct OrderState {
    /// The turn that may run now (turns start at 1).
    next: u64,
    /// Turns up to this one may run: their bytes are in the log
    /// ([`Order::allow`]).
    allowed: u64,
    /// A runner is running commits (invariant 1).
    running: bool,
    /// Commits queued for their turn.
    queued: BTreeMap<u64, Entry>,
}

/// A committer's commit, erased to `'static` (invariant 3).
struct Job(*mut (dyn FnMut() + 'static));

// SAFETY: the closure behind the pointer is `Send` (`queue`'s bound) and
// is called by one thread at a time: the runner, while its committer
// waits (invariant 3).
unsafe impl Send for Job {}

struct Entry {
    /// `None`: its committer gave up waiting (it is unwinding); the turn
    /// passes without it.
    job: Option<Job>,
    slot: Arc<Slot>,
}

/// Where a committer waits for its commit.
struct Slot {
    done: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    thread: Thread,
}

/// A commit queued for its turn ([`Order::queue`]). [`Waiting::wait`]
/// waits until it ran; dropped without that (a panic on the way), it
/// takes the commit out if it has not started, else waits for it
/// (invariant 3). Never leak it.
pub(crate) struct Waiting<'o, 'c> {
    order: &'o Order,
    turn: u64,
    slot: Arc<Slot>,
    waited: bool,
    _commit: std::marker::PhantomData<&'c mut ()>,
}

impl Order {
    pub(crate) fn new() -> Order {
        Order { state: Mutex::new(OrderState { next: 1, ..OrderState::default() }), after_chain: OnceLock::new() }
    }

    /// Sets what a runner does once after the commits of its chain and
    /// before it wakes their committers (the engine's redo flush up to
    /// them: one flush for the chain, each committer woken once, already
    /// durable). Set once; later calls are ignored.
    pub(crate) fn set_after_chain(&self, f: Box<dyn Fn() + Send + Sync>) {
        let _ = self.after_chain.set(f);
    }

    /// Queues `commit` for turn `turn`; it runs (on this thread or a
    /// runner's) once every earlier turn ran and [`Order::allow`] reached
    /// it.
    pub(crate) fn queue<'o, 'c>(&'o self, turn: u64, commit: &'c mut (dyn FnMut() + Send + 'c)) -> Waiting<'o, 'c> {
        let slot =
            Arc::new(Slot { done: AtomicBool::new(false), panic: Mutex::new(None), thread: std::thread::current() });
        let ptr: *mut (dyn FnMut() + Send + 'c) = commit;
        // SAFETY: only the lifetime is erased; invariant 3 keeps the
        // closure alive while the pointer is used.
        let job =
            Job(unsafe { std::mem::transmute::<*mut (dyn FnMut() + Send + 'c), *mut (dyn FnMut() + 'static)>(ptr) });
        self.state.lock().queued.insert(turn, Entry { job: Some(job), slot: Arc::clone(&slot) });
        Waiting { order: self, turn, slot, waited: false, _commit: std::marker::PhantomData }
    }

    /// Turns up to `upto` may run (their transactions are written); runs
    /// them here if nobody is running.
    pub(crate) fn allow(&self, upto: u64) {
        let mut st = self.state.lock();
        st.allowed = st.allowed.max(upto);
        self.maybe_run(st);
    }

    /// Becomes the runner if the next turn may run and nobody runs
    /// (invariant 2).
    fn maybe_run<'a>(&'a self, mut st: parking_lot::MutexGuard<'a, OrderState>) {
        if !st.running && st.next <= st.allowed && st.queued.contains_key(&st.next) {
            st.running = true;
            self.run_chain(st);
        }
    }

    /// Runs `commit` in turn `turn` with every turn allowed up to it: the
    /// queue and the wait in one (a caller whose turn's bytes are
    /// already in the log).
    #[cfg(test)]
    pub(crate) fn run_in_turn(&self, turn: u64, commit: &mut (dyn FnMut() + Send + '_)) {
        let w = self.queue(turn, commit);
        self.allow(turn);
        w.wait();
    }

    /// The runner: queued commits in turn order while the next turn is
    /// queued and allowed (invariant 2); then `after_chain`, then the
    /// committers are woken.
    fn run_chain<'a>(&'a self, mut st: parking_lot::MutexGuard<'a, OrderState>) {
        let mut ran = Vec::new();
        loop {
            let turn = st.next;
            let e = if turn <= st.allowed { st.queued.remove(&turn) } else { None };
            let Some(e) = e else {
                st.running = false;
                break;
            };
            drop(st);
            if let Some(job) = e.job {
                // SAFETY: invariant 3; the committer waits until `done`.
                let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)() }));
                if let Err(p) = r {
                    *e.slot.panic.lock() = Some(p);
                }
            }
            ran.push(e.slot);
            st = self.state.lock();
            st.next = turn + 1;
        }
        drop(st);
        if let Some(f) = self.after_chain.get() {
            let _ = catch_unwind(AssertUnwindSafe(f));
        }
        for slot in ran {
            slot.done.store(true, Ordering::Release);
            slot.thread.unpark();
        }
    }
}

impl Waiting<'_, '_> {
    /// Waits until the commit ran (running it and the turns after it
    /// here if its turn has come and nobody runs); raises its panic.
    pub(crate) fn wait(mut self) {
        self.waited = true;
        self.order.maybe_run(self.order.state.lock());
        self.park_until_done();
        let panicked = self.slot.panic.lock().take();
        if let Some(p) = panicked {
            resume_unwind(p);
        }
    }

    fn park_until_done(&self) {
        while !self.slot.done.load(Ordering::Acquire) {
            std::thread::park();
        }
    }
}

impl Drop for Waiting<'_, '_> {
    fn drop(&mut self) {
        if self.waited {
            return;
        }
        // Invariant 3 on the way out of a panic: a commit not started is
        // taken out (its turn passes without it); one started is waited for.
        let mut st = self.order.state.lock();
        if let Some(e) = st.queued.get_mut(&self.turn) {
            e.job = None;
            return;
        }
        drop(st);
        self.park_until_done();
    }
}

#[cfg(test)]
mod tests {
    use super::Order;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    #[test]
    fn turns_run_in_number_order_whatever_order_threads_arrive_in() {
        let order = Arc::new(Order::new());
        let ran = Arc::new(Mutex::new(Vec::new()));
        let mut threads = Vec::new();
        for t in (1..=40u64).rev() {
            let (order, ran) = (order.clone(), ran.clone());
            threads.push(std::thread::spawn(move || {
                let mut mine = None;
                order.run_in_turn(t, &mut || {
                    ran.lock().unwrap().push(t);
                    mine = Some(t);
                });
                // The commit ran (maybe on another thread) before the
                // committer went on, and wrote to its frame.
                assert_eq!(mine, Some(t));
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*ran.lock().unwrap(), (1..=40).collect::<Vec<_>>());
    }

    #[test]
    fn many_threads_each_with_many_turns_keep_the_order() {
        let order = Arc::new(Order::new());
        let next_turn = Arc::new(Mutex::new(0u64));
        let ran = Arc::new(Mutex::new(Vec::new()));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (order, next_turn, ran) = (order.clone(), next_turn.clone(), ran.clone());
                std::thread::spawn(move || {
                    for _ in 0..500 {
                        let turn = {
                            let mut n = next_turn.lock().unwrap();
                            *n += 1;
                            *n
                        };
                        order.run_in_turn(turn, &mut || ran.lock().unwrap().push(turn));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*ran.lock().unwrap(), (1..=4000).collect::<Vec<_>>());
    }

    #[test]
    fn a_panicking_commit_panics_its_committer_and_the_turns_after_it_run() {
        let order = Arc::new(Order::new());
        let after = Arc::new(AtomicUsize::new(0));
        let o2 = order.clone();
        let bad = std::thread::spawn(move || o2.run_in_turn(1, &mut || panic!("engine commit failed")));
        assert!(bad.join().is_err(), "the committer of the panicking commit panics");
        let a2 = after.clone();
        order.run_in_turn(2, &mut || {
            a2.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(after.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_queued_commit_waits_for_allow_and_a_dropped_one_passes_its_turn() {
        let order = Arc::new(Order::new());
        let ran = Arc::new(Mutex::new(Vec::new()));
        // Turn 1 queued, then given up (its committer unwinding): its
        // turn passes without it.
        {
            let r = ran.clone();
            let mut c = move || r.lock().unwrap().push(1u64);
            let w = order.queue(1, &mut c);
            drop(w);
        }
        let (o2, r2) = (order.clone(), ran.clone());
        let t = std::thread::spawn(move || {
            let mut c = || r2.lock().unwrap().push(2u64);
            let w = o2.queue(2, &mut c);
            w.wait();
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(ran.lock().unwrap().is_empty(), "nothing runs before its turn is allowed");
        order.allow(2);
        t.join().unwrap();
        assert_eq!(*ran.lock().unwrap(), vec![2]);
    }
}
