//! The event scheduler: one thread that sleeps until the next event is
//! due, then starts each due event in a thread and session of its own
//! (MySQL's event worker threads), so a slow event delays no other.
//!
//! States of the thread (`event_scheduler`, [`State`]):
//!
//! | from     | to       | by                                          |
//! |----------|----------|---------------------------------------------|
//! | (none)   | OFF / ON | [`start`], from the startup value           |
//! | OFF      | ON       | SET GLOBAL event_scheduler = ON (a hook)    |
//! | ON       | OFF      | SET GLOBAL event_scheduler = OFF (returns once the thread left the process list) |
//! | any      | stopped  | [`Scheduler::stop`] (server shutdown)       |
//!
//! With `DISABLED` at startup no thread starts and SET GLOBAL is refused
//! (1290, in the session's SET).
//!
//! Invariants:
//! 1. The thread waits on the condition variable only after checking, under
//!    the state mutex, that `generation` has not moved since it last
//!    read the events: a DDL or SET that [`kick`]s in between makes it
//!    look again, so no wake-up is lost. It never polls: it sleeps until
//!    the next activation, or without a deadline when nothing is due.
//! 2. Before an execution starts, its event's new state (LAST_EXECUTED;
//!    for an AT event or an EVERY past its ENDS, dropped or DISABLED) is
//!    written to the catalog, so an event is never started twice for one
//!    activation, even across a crash.
//! 3. An execution's error is written to the server log; it stops
//!    neither the scheduler nor the server.

use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use quire_engine::row::DateTime;

use super::{schedule, store, EventDef, Schedule, Status};
use crate::session::{Session, Shared};
use crate::sysvars::VarValue;

/// The scheduler's connection id in the process list.
const SCHEDULER_CONNECTION_ID: u32 = u32::MAX - 2;
/// Executions take connection ids from here up (far from the
/// listener's, which count from 1).
const FIRST_WORKER_ID: u32 = 0xF000_0000;

#[derive(Default)]
struct State {
    /// `event_scheduler` is ON.
    on: bool,
    /// The server is shutting down.
    stopping: bool,
    /// Bumped by every [`kick`] (invariant 1).
    generation: u64,
    /// The thread is in the process list (while ON).
    listed: bool,
}

/// What the thread waits on; shared with it, so that it holds no
/// reference to the server while it sleeps (a server dropped without
/// shutdown is freed, and [`Scheduler`]'s drop ends the thread).
#[derive(Default)]
struct Core {
    state: Mutex<State>,
    wake: Condvar,
}

/// The scheduler of one server.
#[derive(Default)]
pub struct Scheduler {
    core: Arc<Core>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Executions started and not yet joined, by connection id.
    workers: Mutex<Vec<(u32, JoinHandle<()>)>>,
    next_worker: std::sync::atomic::AtomicU32,
}

/// `event_scheduler` is ON.
pub fn is_on(shared: &Shared) -> bool {
    shared.events.core.state.lock().on
}

/// The events changed: the thread looks at them again.
pub fn kick(shared: &Shared) {
    let core = &shared.events.core;
    let mut st = core.state.lock();
    st.generation += 1;
    core.wake.notify_all();
}

/// Starts the thread unless `event_scheduler` is DISABLED, and follows
/// SET GLOBAL event_scheduler.
pub fn start(shared: &Arc<Shared>) {
    let value = shared.sysvars.global("event_scheduler").map(|v| v.display()).unwrap_or_default();
    if value.eq_ignore_ascii_case("DISABLED") {
        return;
    }
    shared.events.core.state.lock().on = value.eq_ignore_ascii_case("ON");
    let weak = Arc::downgrade(shared);
    let hook = weak.clone();
    let _ = shared.sysvars.on_change(
        "event_scheduler",
        Box::new(move |v: &VarValue| {
            if let Some(sh) = hook.upgrade() {
                let on = v.display().eq_ignore_ascii_case("ON");
                sh.events.core.state.lock().on = on;
                kick(&sh);
                if !on {
                    sh.events.core.wait_unlisted();
                }
            }
        }),
    );
    let core = shared.events.core.clone();
    let t = std::thread::Builder::new().name("event_scheduler".into()).spawn(move || run(weak, core));
    match t {
        Ok(h) => *shared.events.thread.lock() = Some(h),
        Err(e) => tracing::error!("Event Scheduler: cannot start its thread: {e}"),
    }
}

impl Scheduler {
    /// Stops the thread and the executions running (their statements
    /// are killed), and waits for them.
    pub fn stop(&self, shared: &Shared) {
        self.core.stop();
        if let Some(h) = self.thread.lock().take() {
            let _ = h.join();
        }
        let workers = std::mem::take(&mut *self.workers.lock());
        for (id, _) in &workers {
            if let Some(p) = shared.processes.get(*id) {
                p.kill(true, false);
            }
        }
        for (_, h) in workers {
            let _ = h.join();
        }
    }
}

impl Core {
    /// SET GLOBAL event_scheduler = OFF returns once the thread left the
    /// process list, as MySQL's waits for its scheduler to stop (a client
    /// that lists the processes right after sees no scheduler). Bounded:
    /// a SET never hangs on a stuck thread.
    fn wait_unlisted(&self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut st = self.state.lock();
        while st.listed && !st.on && !st.stopping {
            if self.wake.wait_until(&mut st, deadline).timed_out() {
                tracing::warn!("Event Scheduler: still running 5 s after event_scheduler was set OFF");
                return;
            }
        }
    }

    fn stop(&self) {
        let mut st = self.state.lock();
        st.stopping = true;
        self.wake.notify_all();
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.core.stop();
    }
}

/// The clock, UTC seconds and microseconds.
fn clock_us() -> i64 {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    d.as_micros() as i64
}

/// The thread: invariant 1's loop.
fn run(weak: Weak<Shared>, core: Arc<Core>) {
    let mut daemon: Option<Arc<crate::process::Process>> = None;
    loop {
        let (on, generation) = {
            let st = core.state.lock();
            if st.stopping {
                break;
            }
            (st.on, st.generation)
        };
        if !on {
            // OFF: no scheduler in the process list (as MySQL).
            if let (Some(p), Some(shared)) = (daemon.take(), weak.upgrade()) {
                shared.processes.remove(&p);
            }
            let mut st = core.state.lock();
            if st.listed {
                st.listed = false;
                core.wake.notify_all();
            }
            while !st.on && !st.stopping {
                core.wake.wait(&mut st);
            }
            continue;
        }
        let Some(shared) = weak.upgrade() else { break };
        if daemon.is_none() {
            // Before it is listed: a SET OFF from now on waits for the
            // removal above.
            core.state.lock().listed = true;
        }
        let p = daemon
            .get_or_insert_with(|| {
                let p = shared.processes.register(SCHEDULER_CONNECTION_ID, "localhost", None);
                p.daemon("event_scheduler");
                p
            })
            .clone();
        let next = scan(&shared);
        drop(shared);
        let mut st = core.state.lock();
        if st.stopping {
            break;
        }
        if st.generation != generation || !st.on {
            continue;
        }
        match next {
            Some(Due::Now) => continue,
            Some(Due::At(t)) => {
                p.set_state("Waiting for next activation");
                let wait_us = (t * 1_000_000 - clock_us()).max(0) as u64;
                let _ = core.wake.wait_until(&mut st, Instant::now() + Duration::from_micros(wait_us));
            }
            None => {
                p.set_state("Waiting on empty queue");
                core.wake.wait(&mut st);
            }
        }
    }
    if let (Some(p), Some(shared)) = (daemon, weak.upgrade()) {
        shared.processes.remove(&p);
    }
}

/// When an event is next due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Due {
    Now,
    /// At this UTC second.
    At(i64),
}

/// What an enabled event does next, at UTC second `now`: run at a time,
/// or nothing more (`None`: its schedule is over).
fn next_run(d: &EventDef, now: i64) -> Option<i64> {
    match &d.schedule {
        Schedule::At(at) => {
            if d.last_executed.is_some() {
                return None;
            }
            Some(schedule::utc_secs(&DateTime::parse(at)?, &d.time_zone))
        }
        Schedule::Every { value, unit, starts, ends } => {
            let step = schedule::step(value, *unit)?;
            let starts = DateTime::parse(starts)?;
            let after = d.last_executed.as_deref().and_then(DateTime::parse).map(|t| schedule::utc_secs(&t, "+00:00"));
            let next = schedule::next_occurrence(&starts, step, &d.time_zone, now, after)?;
            let end = ends.as_deref().and_then(DateTime::parse).map(|e| schedule::utc_secs(&e, &d.time_zone));
            if end.is_some_and(|e| next > e) {
                return None;
            }
            Some(next)
        }
    }
}

/// Starts every due event; when the next one is due (`Now`: something
/// ran or changed, look again at once).
fn scan(shared: &Arc<Shared>) -> Option<Due> {
    let now = clock_us().div_euclid(1_000_000);
    let mut next: Option<Due> = None;
    for d in shared.catalog.events.all() {
        if d.status != Status::Enabled {
            continue;
        }
        match next_run(&d, now) {
            Some(t) if t > now => {
                if !matches!(next, Some(Due::Now)) {
                    next = Some(Due::At(next.map_or(t, |n| if let Due::At(x) = n { x.min(t) } else { t })));
                }
            }
            run_now => {
                let go = run_now.is_some();
                match advance(shared, &d, now, go) {
                    Ok(true) if go => start_execution(shared, d),
                    Ok(_) => {}
                    Err(e) => {
                        tracing::error!("Event Scheduler: [{}].[{}.{}] {}", d.definer, d.db, d.name, e.message);
                        // Tried again in a second, not in a loop.
                        next = Some(Due::At(now + 1));
                        continue;
                    }
                }
                next = Some(Due::Now);
            }
        }
    }
    next
}

/// Writes the event's state after an activation at `now` (`ran`) or
/// the end of its schedule (invariant 2): LAST_EXECUTED, and once done,
/// dropped or DISABLED. `false` if the event changed meanwhile (a DDL
/// won the race: nothing is done).
fn advance(shared: &Shared, d: &EventDef, now: i64, ran: bool) -> crate::error::Result<bool> {
    let reg = &shared.catalog.events;
    let _g = reg.lock_change();
    if reg.get(&d.db, &d.name).as_ref() != Some(d) {
        return Ok(false);
    }
    let mut new = d.clone();
    if ran {
        new.last_executed = Some(super::ddl::utc_text(now));
    }
    let done = !ran || next_run(&new, now + 1).is_none();
    if done && !d.preserve {
        store::write(&shared.engine, &[d], &[])?;
        reg.remove(&d.db, &d.name);
        return Ok(true);
    }
    if done {
        new.status = Status::Disabled;
    }
    store::write(&shared.engine, &[d], &[&new])?;
    reg.put(new);
    Ok(true)
}

/// Starts one execution of `d` on a thread of its own.
fn start_execution(shared: &Arc<Shared>, d: EventDef) {
    let sched = &shared.events;
    let id = FIRST_WORKER_ID.wrapping_add(sched.next_worker.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let sh = shared.clone();
    let name = format!("event_worker {}.{}", d.db, d.name);
    match std::thread::Builder::new().name(name).spawn(move || execute(&sh, &d, id)) {
        Ok(h) => {
            let mut w = sched.workers.lock();
            w.retain(|(_, h)| !h.is_finished());
            w.push((id, h));
        }
        Err(e) => tracing::error!("Event Scheduler: cannot start an execution thread: {e}"),
    }
}

/// One execution: a session as the definer, in the event's database,
/// with its sql_mode and time_zone, running the body (invariant 3).
fn execute(shared: &Arc<Shared>, d: &EventDef, id: u32) {
    let fail = |code: u16, msg: &str| {
        tracing::error!("Event Scheduler: [{}][{}.{}] {msg} (error {code})", d.definer, d.db, d.name);
        tracing::info!("Event Scheduler: [{}].[{}.{}] event execution failed.", d.definer, d.db, d.name);
    };
    let user = d.definer.rsplit_once('@').map_or(d.definer.as_str(), |(u, _)| u);
    if shared.catalog.user(user).is_none() {
        let (u, h) = d.definer.rsplit_once('@').unwrap_or((user, "%"));
        return fail(1449, &format!("The user specified as a definer ('{u}'@'{h}') does not exist"));
    }
    let mut s = match Session::new(shared.clone(), user, Some(&d.db), id) {
        Ok(s) => s,
        Err(e) => return fail(e.code, &e.message),
    };
    let _ = s.vars.set_by_name("sql_mode", &VarValue::Str(d.sql_mode.clone()));
    let _ = s.vars.set_by_name("time_zone", &VarValue::Str(d.time_zone.clone()));
    s.process.begin("Connect", &d.body);
    if let Err(e) = s.run_event_body(&d.body) {
        fail(e.code, &e.message);
    }
}

/// SET GLOBAL event_scheduler: refused while the scheduler is DISABLED
/// (1290, as MySQL); DISABLED is a startup value only (1231, as MariaDB).
pub fn check_set(shared: &Shared, v: &VarValue) -> crate::error::Result<()> {
    let now = shared.sysvars.global("event_scheduler").map(|v| v.display()).unwrap_or_default();
    if now.eq_ignore_ascii_case("DISABLED") {
        return Err(crate::read_only::refused("--event-scheduler=DISABLED or --skip-grant-tables"));
    }
    let shown = v.display();
    if shown.eq_ignore_ascii_case("DISABLED") || shown == "2" {
        return Err(crate::error::SqlError::new(
            1231,
            "42000",
            format!("Variable 'event_scheduler' can't be set to the value of '{shown}'"),
        ));
    }
    Ok(())
}
