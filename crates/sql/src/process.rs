//! The process list: every client connection from accept to close, what
//! it is doing, and the handles `KILL` needs (its [`Interrupt`] and a way
//! to close its socket). `SHOW [FULL] PROCESSLIST` reads it.
//!
//! Who writes what:
//! - the server registers a connection when it accepts it
//!   ([`ProcessList::register`]; user "unauthenticated user", command
//!   "Connect") and removes it when the connection ends;
//! - the connection's session names the user and database once logged in
//!   and marks each statement's start and end ([`Process::begin`],
//!   [`Process::idle`]);
//! - any session may kill another ([`Process::kill`]).
//!
//! Thread safety: the list is one mutex over a map (taken on connect,
//! disconnect, KILL and SHOW PROCESSLIST, never per statement); each
//! process's activity has its own mutex, taken twice per statement by its
//! own thread and by readers of the list.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;
use quire_engine::txn::interrupt::{Interrupt, InterruptReason};

/// Closes a connection's socket from another thread (KILL CONNECTION):
/// its blocked read or write then fails and the connection ends.
pub type Closer = Box<dyn Fn() + Send + Sync>;

/// What a connection is doing.
struct Activity {
    /// `None` before authentication.
    user: Option<String>,
    db: Option<String>,
    /// MySQL's command names: "Connect", "Sleep", "Query", "Execute".
    command: &'static str,
    /// When `command` started (SHOW PROCESSLIST's Time).
    /// When the state began, in [`coarse_now_ms`] time.
    since_ms: u64,
    /// "login", "executing", "User sleep", or "" when idle.
    state: &'static str,
    /// The statement running.
    info: Option<Arc<str>>,
    /// Commands begun so far: FLUSH TABLES WITH READ LOCK tells a
    /// statement still running from a later one by it (`table_lock.rs`).
    commands: u64,
}

/// One connection.
pub struct Process {
    pub id: u32,
    /// As SHOW PROCESSLIST prints it: `ip:port`, or `localhost` for a Unix
    /// socket.
    pub host: String,
    /// Stops the running statement; shared with its transactions.
    pub interrupt: Arc<Interrupt>,
    activity: Mutex<Activity>,
    closer: Option<Closer>,
}

/// A row of SHOW PROCESSLIST.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessRow {
    pub id: u32,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub command: &'static str,
    pub time_secs: u64,
    pub state: &'static str,
    pub info: Option<String>,
}

impl Process {
    /// Logged in as `user` with `db` selected: now idle ("Sleep").
    pub fn logged_in(&self, user: &str, db: Option<&str>) {
        let mut a = self.activity.lock();
        a.user = Some(user.to_string());
        a.db = db.map(str::to_string);
        a.command = "Sleep";
        a.state = "";
        a.since_ms = coarse_now_ms();
    }

    /// A server thread shown as MySQL shows its daemons (the event
    /// scheduler): `user`, command "Daemon", no database.
    pub fn daemon(&self, user: &str) {
        let mut a = self.activity.lock();
        a.user = Some(user.to_string());
        a.db = None;
        a.command = "Daemon";
        a.state = "";
        a.since_ms = coarse_now_ms();
    }

    /// The user, once logged in.
    pub fn user(&self) -> Option<String> {
        self.activity.lock().user.clone()
    }

    pub fn set_db(&self, db: Option<&str>) {
        self.activity.lock().db = db.map(str::to_string);
    }

    /// A command starts (`command` as MySQL names it, `sql` its text).
    pub fn begin(&self, command: &'static str, sql: &str) {
        self.begin_shared(command, Arc::from(sql));
    }

    /// [`Process::begin`] with a text the caller keeps (a prepared
    /// statement's): no copy.
    pub fn begin_shared(&self, command: &'static str, sql: Arc<str>) {
        let mut a = self.activity.lock();
        a.command = command;
        a.state = "executing";
        a.since_ms = coarse_now_ms();
        a.info = Some(sql);
        a.commands = a.commands.wrapping_add(1);
    }

    /// The command running now, if any, as a number that changes with
    /// each command; `None` when idle or waiting for the global read lock
    /// (such a statement has done nothing yet, or is a COMMIT held back,
    /// and waits for the lock's holder: FLUSH TABLES WITH READ LOCK must
    /// not wait for it).
    pub fn running_command(&self) -> Option<u64> {
        use crate::table_lock::{WAITING_FOR_COMMIT_LOCK, WAITING_FOR_GRL};
        let a = self.activity.lock();
        let busy = matches!(a.command, "Query" | "Execute")
            && a.state != WAITING_FOR_GRL
            && a.state != WAITING_FOR_COMMIT_LOCK;
        busy.then_some(a.commands)
    }

    /// The text of the command running, if any.
    pub fn info_text(&self) -> Option<Arc<str>> {
        self.activity.lock().info.clone()
    }

    /// The statement's state changes (e.g. "User sleep").
    pub fn set_state(&self, state: &'static str) {
        self.activity.lock().state = state;
    }

    /// The command ended: idle again.
    pub fn idle(&self) {
        let mut a = self.activity.lock();
        a.command = "Sleep";
        a.state = "";
        a.since_ms = coarse_now_ms();
        a.info = None;
    }

    /// KILL QUERY (`connection: false`) or KILL CONNECTION. A connection
    /// kill also closes the socket unless `close_socket` is false (a
    /// connection killing itself still answers the KILL).
    pub fn kill(&self, connection: bool, close_socket: bool) {
        if connection {
            // The socket first: a statement woken by the raise must find
            // it closed rather than send its answer.
            if close_socket {
                if let Some(c) = &self.closer {
                    c();
                }
            }
            self.interrupt.raise(InterruptReason::KillConnection);
        } else {
            self.interrupt.raise(InterruptReason::KillQuery);
        }
    }

    /// Whether the connection was killed.
    pub fn killed(&self) -> bool {
        self.interrupt.connection_killed()
    }

    /// This process as a SHOW PROCESSLIST row; `full`: the whole
    /// statement, else its first 100 characters (as MySQL).
    pub fn row(&self, full: bool) -> ProcessRow {
        let a = self.activity.lock();
        let info = a.info.as_deref().map(|s| if full { s.to_string() } else { s.chars().take(100).collect() });
        ProcessRow {
            id: self.id,
            user: a.user.clone().unwrap_or_else(|| "unauthenticated user".into()),
            host: self.host.clone(),
            db: a.db.clone(),
            command: a.command,
            time_secs: coarse_now_ms().saturating_sub(a.since_ms) / 1000,
            state: a.state,
            info,
        }
    }
}

/// Every connection, by id.
#[derive(Default)]
pub struct ProcessList {
    procs: Mutex<BTreeMap<u32, Arc<Process>>>,
}

impl ProcessList {
    /// A connection accepted from `host`; `closer` closes its socket.
    /// Replaces an entry of the same id (ids are not reused while a
    /// listener lives; embedded sessions may pick any).
    pub fn register(&self, id: u32, host: &str, closer: Option<Closer>) -> Arc<Process> {
        let p = Arc::new(Process {
            id,
            host: host.to_string(),
            interrupt: Arc::new(Interrupt::new()),
            activity: Mutex::new(Activity {
                user: None,
                db: None,
                command: "Connect",
                since_ms: coarse_now_ms(),
                state: "login",
                info: None,
                commands: 0,
            }),
            closer,
        });
        self.procs.lock().insert(id, p.clone());
        p
    }

    pub fn get(&self, id: u32) -> Option<Arc<Process>> {
        self.procs.lock().get(&id).cloned()
    }

    /// Removes `p` (only that very entry: a newer one of the same id
    /// stays).
    pub fn remove(&self, p: &Arc<Process>) {
        let mut procs = self.procs.lock();
        if procs.get(&p.id).is_some_and(|q| Arc::ptr_eq(q, p)) {
            procs.remove(&p.id);
        }
    }

    /// Connections open (`Threads_connected`): the server's daemons (the
    /// event scheduler) are listed but are no connection.
    pub fn len(&self) -> usize {
        self.procs.lock().values().filter(|p| p.activity.lock().command != "Daemon").count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every process, by id.
    pub fn all(&self) -> Vec<Arc<Process>> {
        self.procs.lock().values().cloned().collect()
    }
}

/// A monotonic clock in milliseconds, read from the kernel's coarse clock
/// (a few nanoseconds, no time-stamp counter read): the process list only
/// shows whole seconds, and every statement marks its start and end.
fn coarse_now_ms() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_process_shows_what_it_does_and_kill_connection_closes_its_socket() {
        let list = ProcessList::default();
        let closed = Arc::new(AtomicBool::new(false));
        let c = closed.clone();
        let p = list.register(7, "127.0.0.1:4000", Some(Box::new(move || c.store(true, Ordering::SeqCst))));
        let r = p.row(true);
        assert_eq!((r.user.as_str(), r.command, r.state), ("unauthenticated user", "Connect", "login"));
        p.logged_in("u", Some("d"));
        p.begin("Query", &format!("SELECT '{}'", "x".repeat(200)));
        assert_eq!(p.row(false).info.map(|i| i.chars().count()), Some(100));
        assert_eq!(p.row(true).info.map(|i| i.len()), Some(209));
        p.kill(false, true);
        assert!(!closed.load(Ordering::SeqCst) && !p.killed(), "KILL QUERY leaves the connection");
        p.kill(true, true);
        assert!(closed.load(Ordering::SeqCst) && p.killed());
        list.remove(&p);
        assert!(list.is_empty());
    }

    #[test]
    fn removing_an_old_entry_keeps_a_newer_one_of_the_same_id() {
        let list = ProcessList::default();
        let old = list.register(1, "localhost", None);
        let new = list.register(1, "localhost", None);
        list.remove(&old);
        assert!(list.get(1).is_some_and(|p| Arc::ptr_eq(&p, &new)));
    }
}
