//! One group of the pool: its epoll set, queues, parked connections and
//! workers (see the module note in `mod.rs` for how they cooperate).

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Condvar;
use quire_engine::txn::admission::{self, WaitObserver};
use quire_engine::wait::{Instrument, Mutex};

use super::epoll::{Epoll, WAKE_TOKEN};
use super::{Client, Common, GroupInfo, GroupStats, Priority, QueuedInfo, Served};

/// A connection with what the group knows of it.
struct Item {
    client: Box<dyn Client>,
    /// Its connection id (its group is `id % thread_pool_size`).
    id: u32,
    /// Its socket is in this group's epoll set (armed or not).
    registered: bool,
}

struct Queued {
    item: Item,
    at: Instant,
}

/// A parked connection: waiting in the epoll set for its next command.
struct Parked {
    item: Item,
    /// When its `wait_timeout` runs out.
    deadline: Option<Instant>,
}

#[derive(Default)]
struct Slot {
    generation: u32,
    parked: Option<Parked>,
}

#[derive(Default)]
struct State {
    /// Connections with work, served first / after.
    high: VecDeque<Queued>,
    low: VecDeque<Queued>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Connections of the group (a group never has more workers than
    /// one more than its connections).
    connections: usize,
    /// Workers alive in the group.
    threads: usize,
    /// Workers serving a connection, not blocked (invariant 2).
    active: usize,
    /// Workers serving a connection, blocked in a wait.
    waiting: usize,
    /// Workers asleep on the condition variable.
    idle: usize,
    /// Of those, woken and not yet up.
    woken: usize,
    /// A worker waits in epoll.
    listener: bool,
    /// Connections taken from the queue, and the count the timer saw last.
    dequeued: u64,
    seen_dequeued: u64,
    /// Listener rounds, and the count the timer saw last.
    polled: u64,
    seen_polled: u64,
    /// The queue did not move for a stall limit: one more worker may run.
    stalled: bool,
    /// THREAD_POOL_STATS' counters.
    stats: GroupStats,
    last_created: Option<Instant>,
    stopping: bool,
}

impl State {
    fn queued(&self) -> usize {
        self.high.len() + self.low.len()
    }
}

pub(super) struct Group {
    index: usize,
    common: Arc<Common>,
    epoll: Epoll,
    state: Mutex<State>,
    wake: Condvar,
    me: Weak<Group>,
}

fn token(slot: u32, generation: u32) -> u64 {
    u64::from(slot) << 32 | u64::from(generation)
}

/// MariaDB's throttling of thread creation in a group that has many
/// already: a burst of blocking statements must not start hundreds of
/// threads at once.
fn creation_delay(threads: usize) -> Duration {
    match threads {
        0..=3 => Duration::ZERO,
        4..=7 => Duration::from_millis(50),
        8..=15 => Duration::from_millis(100),
        _ => Duration::from_millis(200),
    }
}

impl Group {
    pub(super) fn new(index: usize, common: Arc<Common>) -> std::io::Result<Group> {
        let epoll = Epoll::new()?;
        // `me` is filled by `Arc::new_cyclic` in `into_arc`.
        Ok(Group {
            index,
            common,
            epoll,
            state: Mutex::new(Instrument::ThreadPoolGroup, State::default()),
            wake: Condvar::new(),
            me: Weak::new(),
        })
    }

    /// A group's first worker, whatever `thread_pool_max_threads` says (a
    /// group without one would never serve its connections).
    pub(super) fn start_first_worker(&self) -> std::io::Result<()> {
        let mut st = self.state.lock();
        if self.spawn_worker_within(&mut st, usize::MAX) {
            Ok(())
        } else {
            Err(std::io::Error::other("could not start a thread pool worker"))
        }
    }

    /// `(threads, idle)`.
    pub(super) fn counts(&self) -> (usize, usize) {
        let st = self.state.lock();
        (st.threads, st.idle + st.waiting + usize::from(st.listener))
    }

    /// The group's row of THREAD_POOL_GROUPS and THREAD_POOL_STATS.
    pub(super) fn info(&self) -> GroupInfo {
        let st = self.state.lock();
        GroupInfo {
            id: self.index,
            connections: st.connections,
            threads: st.threads,
            active: st.active,
            standby: st.idle,
            queue_length: st.queued(),
            has_listener: st.listener,
            is_stalled: st.stalled,
            stats: st.stats,
        }
    }

    /// The group's rows of THREAD_POOL_QUEUES, added to `out`.
    pub(super) fn queued_info(&self, out: &mut Vec<QueuedInfo>) {
        let st = self.state.lock();
        let now = Instant::now();
        let queues = st.high.iter().map(|q| (0, q)).chain(st.low.iter().map(|q| (1, q)));
        for (position, (priority, q)) in queues.enumerate() {
            out.push(QueuedInfo {
                group: self.index,
                position,
                priority,
                connection_id: q.item.id,
                waited: now.saturating_duration_since(q.at),
            });
        }
    }

    /// A new connection: its login is queued.
    pub(super) fn add(&self, id: u32, client: Box<dyn Client>) {
        let mut st = self.state.lock();
        if st.stopping {
            drop(st);
            drop(client);
            return;
        }
        st.connections += 1;
        self.push(&mut st, Item { client, id, registered: false });
        if st.active == 0 {
            self.relieve(&mut st, false);
        }
    }

    fn push(&self, st: &mut State, item: Item) {
        let high = match item.client.priority().unwrap_or_else(|| self.common.settings.priority()) {
            Priority::High => true,
            Priority::Low => false,
            Priority::Auto => item.client.in_transaction(),
        };
        let q = Queued { item, at: Instant::now() };
        if high {
            st.high.push_back(q);
        } else {
            st.low.push_back(q);
        }
    }

    fn pop(&self, st: &mut State) -> Option<Item> {
        let kickup = Duration::from_millis(self.common.settings.kickup_ms.load(Ordering::Relaxed));
        let kicked = st.low.front().is_some_and(|q| q.at.elapsed() >= kickup);
        let q = if kicked { st.low.pop_front() } else { st.high.pop_front().or_else(|| st.low.pop_front()) };
        q.map(|q| q.item)
    }

    /// Enough workers of the group run already.
    fn too_many(&self, st: &State) -> bool {
        st.active > self.common.settings.oversubscribe.load(Ordering::Relaxed) && !st.stalled
    }

    /// The group has no active worker and has work or nobody listening:
    /// wake a sleeping worker, else the listener (it serves the queue
    /// itself), else start a worker. `by_timer`: the timer's look asks.
    fn relieve(&self, st: &mut State, by_timer: bool) {
        if st.idle > st.woken {
            st.woken += 1;
            self.wake.notify_one();
            st.stats.wakes += 1;
            st.stats.wakes_due_to_stall += u64::from(by_timer);
        } else if st.listener && st.queued() > 0 {
            self.epoll.wake();
        } else if (st.queued() > 0 || !st.listener) && self.spawn_worker(st) {
            st.stats.thread_creations_due_to_stall += u64::from(by_timer);
        }
    }

    /// Starts a worker unless `thread_pool_max_threads` are running, the
    /// group has more workers than connections, or (while some worker of
    /// the group is active) it started one too recently
    /// ([`creation_delay`]; the timer tries again). With no active worker
    /// a new one starts at once, as in MariaDB: every worker blocks, and
    /// the statement that would unblock them may be the one queued.
    fn spawn_worker(&self, st: &mut State) -> bool {
        let max = self.common.settings.max_threads.load(Ordering::Relaxed).max(1);
        self.spawn_worker_within(st, max)
    }

    /// [`Group::spawn_worker`] with `max` workers in all.
    fn spawn_worker_within(&self, st: &mut State, max: usize) -> bool {
        if self.common.threads.load(Ordering::Acquire) >= max || st.threads > st.connections {
            return false;
        }
        let now = Instant::now();
        if let Some(last) = st.last_created {
            if st.active > 0 && now.duration_since(last) < creation_delay(st.threads) {
                st.stats.throttles += 1;
                return false;
            }
        }
        let Some(me) = self.me.upgrade() else { return false };
        let spawned = std::thread::Builder::new().name(format!("tp-worker-{}", self.index)).spawn(move || me.work());
        match spawned {
            Ok(_) => {
                st.threads += 1;
                self.common.threads.fetch_add(1, Ordering::AcqRel);
                st.last_created = Some(now);
                st.stats.thread_creations += 1;
                true
            }
            Err(e) => {
                tracing::warn!("thread pool group {}: cannot start a worker: {e}", self.index);
                false
            }
        }
    }

    /// A worker's life.
    fn work(self: Arc<Self>) {
        admission::observe_waits(Some(Arc::clone(&self) as Arc<dyn WaitObserver>));
        let mut tokens = Vec::with_capacity(64);
        // This worker's last step was a round as the listener.
        let mut listened = false;
        let mut st = self.state.lock();
        loop {
            if st.stopping {
                break;
            }
            if !self.too_many(&st) {
                if let Some(item) = self.pop(&mut st) {
                    st.active += 1;
                    st.dequeued += 1;
                    st.stalled = false;
                    match std::mem::take(&mut listened) {
                        true => st.stats.dequeues_by_listener += 1,
                        false => st.stats.dequeues_by_worker += 1,
                    }
                    drop(st);
                    self.run(item);
                    st = self.state.lock();
                    st.active -= 1;
                    continue;
                }
            }
            if !st.listener {
                st.listener = true;
                drop(st);
                tokens.clear();
                if let Err(e) = self.epoll.wait(&mut tokens, -1) {
                    tracing::warn!("thread pool group {}: epoll_wait failed: {e}", self.index);
                    std::thread::sleep(Duration::from_millis(10));
                }
                st = self.state.lock();
                st.listener = false;
                st.polled += 1;
                st.stats.polls_by_listener += 1;
                listened = true;
                for &t in &tokens {
                    if t == WAKE_TOKEN {
                        self.epoll.drain();
                    } else if let Some(item) = Self::unpark(&mut st, t) {
                        self.push(&mut st, item);
                    }
                }
                continue;
            }
            listened = false;
            st.idle += 1;
            let idle_for = Duration::from_secs(self.common.settings.idle_timeout_s.load(Ordering::Relaxed).max(1));
            let timed_out = self.wake.wait_for(&mut st, idle_for).timed_out();
            st.idle -= 1;
            st.woken = st.woken.saturating_sub(1);
            if timed_out && !st.stopping && st.threads > 1 && st.queued() == 0 {
                break;
            }
        }
        st.threads -= 1;
        self.common.threads.fetch_sub(1, Ordering::AcqRel);
        drop(st);
        admission::observe_waits(None);
    }

    /// Serves a connection, then parks or closes it.
    fn run(&self, mut item: Item) {
        let served = catch_unwind(AssertUnwindSafe(|| item.client.serve())).unwrap_or_else(|_| {
            tracing::error!("thread pool group {}: a connection's command panicked; closing it", self.index);
            Served::Close
        });
        let fd = item.client.fd();
        if served == Served::Wait {
            let deadline = item.client.idle_timeout().map(|t| Instant::now() + t);
            // thread_pool_size changed: the connection moves to its group.
            let moved = match self.common.keeps(item.id, self.index) {
                true => None,
                false => self.common.group_of(item.id).filter(|g| g.index != self.index),
            };
            if let Some(to) = moved {
                if item.registered {
                    self.epoll.remove(fd);
                    item.registered = false;
                }
                self.state.lock().connections -= 1;
                to.adopt(item, deadline);
                return;
            }
            let back = {
                let mut st = self.state.lock();
                self.park(&mut st, item, deadline)
            };
            match back {
                None => return,
                Some(b) => item = b,
            }
        }
        self.close(item);
    }

    /// Closes a connection of the group.
    fn close(&self, item: Item) {
        if item.registered {
            self.epoll.remove(item.client.fd());
        }
        drop(item);
        let mut st = self.state.lock();
        st.connections -= 1;
    }

    /// A connection moved here from another group, to be parked.
    fn adopt(&self, item: Item, deadline: Option<Instant>) {
        let back = {
            let mut st = self.state.lock();
            st.connections += 1;
            self.park(&mut st, item, deadline)
        };
        if let Some(item) = back {
            self.close(item);
        }
    }

    /// Parks a connection in the epoll set; gives it back when it cannot
    /// be (the group stops, the socket cannot be watched).
    fn park(&self, st: &mut State, mut item: Item, deadline: Option<Instant>) -> Option<Item> {
        if st.stopping {
            return Some(item);
        }
        let first = !item.registered;
        item.registered = true;
        let slot = match st.free.pop() {
            Some(s) => s,
            None => {
                st.slots.push(Slot::default());
                (st.slots.len() - 1) as u32
            }
        };
        let generation = st.slots[slot as usize].generation;
        // Armed under the mutex: nobody can take the connection (and
        // close its socket) before it is armed.
        match self.epoll.arm(item.client.fd(), token(slot, generation), first) {
            Ok(()) => {
                st.slots[slot as usize].parked = Some(Parked { item, deadline });
                None
            }
            Err(e) => {
                tracing::debug!("thread pool: cannot watch a connection's socket: {e}");
                st.free.push(slot);
                item.registered = !first;
                Some(item)
            }
        }
    }

    /// The parked connection `t` names, taken from its slot (invariant 3).
    fn unpark(st: &mut State, t: u64) -> Option<Item> {
        let (slot, generation) = ((t >> 32) as usize, t as u32);
        let s = st.slots.get_mut(slot).filter(|s| s.generation == generation)?;
        let p = s.parked.take()?;
        s.generation = s.generation.wrapping_add(1);
        st.free.push(slot as u32);
        Some(p.item)
    }

    /// The timer's look: stalls, a group nobody listens for, idle
    /// connections past their `wait_timeout`.
    pub(super) fn check(&self) {
        let mut st = self.state.lock();
        if st.stopping {
            return;
        }
        tracing::trace!(
            "thread pool group {}: threads {} active {} waiting {} idle {} listener {} queued {} stalled {}",
            self.index,
            st.threads,
            st.active,
            st.waiting,
            st.idle,
            st.listener,
            st.queued(),
            st.stalled
        );
        if st.queued() > 0 && st.dequeued == st.seen_dequeued {
            st.stalled = true;
            st.stats.stalls += 1;
            self.relieve(&mut st, true);
        } else if !st.listener && st.polled == st.seen_polled {
            // Nobody listened since the last look (the workers run long
            // statements): wake or start one to listen.
            self.relieve(&mut st, true);
        }
        st.seen_dequeued = st.dequeued;
        st.seen_polled = st.polled;
        let now = Instant::now();
        let mut expired = Vec::new();
        for (i, s) in st.slots.iter_mut().enumerate() {
            if s.parked.as_ref().is_some_and(|p| p.deadline.is_some_and(|d| d <= now)) {
                let mut p = s.parked.take().expect("checked");
                s.generation = s.generation.wrapping_add(1);
                self.epoll.remove(p.item.client.fd());
                p.item.registered = false;
                p.item.client.time_out();
                expired.push((i as u32, p.item));
            }
        }
        for (slot, item) in expired {
            st.free.push(slot);
            self.push(&mut st, item);
        }
        if st.queued() > 0 && st.active == 0 {
            self.relieve(&mut st, true);
        }
    }

    /// The pool stops: every connection here is closed, the workers exit.
    pub(super) fn stop(&self) {
        let (queued, parked) = {
            let mut st = self.state.lock();
            st.stopping = true;
            let st = &mut *st;
            let queued: Vec<Item> = st.high.drain(..).chain(st.low.drain(..)).map(|q| q.item).collect();
            let parked: Vec<Item> = st.slots.iter_mut().filter_map(|s| s.parked.take()).map(|p| p.item).collect();
            (queued, parked)
        };
        self.wake.notify_all();
        self.epoll.wake();
        for item in parked.iter().chain(&queued) {
            if item.registered {
                self.epoll.remove(item.client.fd());
            }
        }
        drop(queued);
        drop(parked);
    }
}

/// A worker's blocking wait (MariaDB's `wait_begin` / `wait_end`).
impl WaitObserver for Group {
    fn wait_begin(&self, on: Instrument) {
        self.common.waits[super::wait_reason(on)].fetch_add(1, Ordering::Relaxed);
        let mut st = self.state.lock();
        st.active = st.active.saturating_sub(1);
        st.waiting += 1;
        if st.active == 0 && !st.stopping && (st.queued() > 0 || !st.listener) {
            self.relieve(&mut st, false);
        }
    }

    fn wait_end(&self) {
        let mut st = self.state.lock();
        st.waiting = st.waiting.saturating_sub(1);
        st.active += 1;
    }
}

/// Builds the group inside its `Arc` (workers hold one).
pub(super) fn into_arc(g: Group) -> Arc<Group> {
    Arc::new_cyclic(|me| Group { me: me.clone(), ..g })
}
