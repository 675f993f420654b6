//! Events (MySQL's `CREATE EVENT`): statements the server runs on a
//! schedule, their definitions in the catalog and the scheduler thread
//! that runs them.
//!
//! - `schedule`: intervals (`EVERY n unit`) and the arithmetic that finds
//!   an event's next execution.
//! - `parse`: CREATE / ALTER / DROP EVENT and SHOW CREATE EVENT (parsed
//!   here, not by sqlparser).
//! - `ddl`: what those statements do, and what DROP DATABASE does.
//! - `store`: definitions in the catalog (`mysql/quire_event`).
//! - `show`: SHOW CREATE EVENT and information_schema.EVENTS.
//! - `scheduler`: the `event_scheduler` thread and the executions it
//!   starts, each in a session of its own.
//!
//! Invariants:
//! 1. Names are case-insensitive: the registry's key has the name
//!    lowercased; the definition keeps it as written.
//! 2. The registry and the catalog table agree: whoever changes a
//!    definition (DDL, the scheduler after an execution) holds
//!    [`Registry::change`]'s lock from reading the old definition until
//!    both are written, so no change overwrites another.
//! 3. Times of the schedule (`AT`, `STARTS`, `ENDS`) are kept as the
//!    wall-clock time of the event's own `time_zone`, as SHOW shows them;
//!    CREATED, LAST_ALTERED and LAST_EXECUTED are UTC (quire's SYSTEM
//!    zone).

pub mod ddl;
pub mod parse;
pub mod schedule;
pub mod scheduler;
pub mod show;
pub mod store;

use std::collections::BTreeMap;

use parking_lot::{Mutex, MutexGuard, RwLock};

use crate::error::SqlError;
use schedule::Unit;

/// An event's STATUS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Enabled,
    Disabled,
    /// Created by replication (`DISABLE ON SLAVE`): not run here.
    SlavesideDisabled,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Enabled => "ENABLED",
            Status::Disabled => "DISABLED",
            Status::SlavesideDisabled => "SLAVESIDE_DISABLED",
        }
    }

    pub fn from_name(s: &str) -> Option<Status> {
        [Status::Enabled, Status::Disabled, Status::SlavesideDisabled].into_iter().find(|x| x.name() == s)
    }
}

/// When an event runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// `AT ts`: once (`YYYY-MM-DD hh:mm:ss`, invariant 3).
    At(String),
    /// `EVERY value unit [STARTS ts] [ENDS ts]`.
    Every {
        /// As SHOW shows it: `5`, or `'1:30'` for a compound unit.
        value: String,
        unit: Unit,
        starts: String,
        ends: Option<String>,
    },
}

/// What is stored of an event.
#[derive(Clone, Debug, PartialEq)]
pub struct EventDef {
    pub db: String,
    pub name: String,
    /// `user@host`.
    pub definer: String,
    /// The session's `time_zone` at CREATE: the body runs in it.
    pub time_zone: String,
    pub schedule: Schedule,
    /// ON COMPLETION PRESERVE (else the event is dropped once done).
    pub preserve: bool,
    pub status: Status,
    pub comment: String,
    /// The body as written (after DO).
    pub body: String,
    pub sql_mode: String,
    /// `YYYY-MM-DD hh:mm:ss`, UTC.
    pub created: String,
    pub modified: String,
    /// The start of the last execution (UTC), if any.
    pub last_executed: Option<String>,
    /// The `server_id` of the server that created it.
    pub originator: u64,
    pub character_set_client: String,
    pub collation_connection: String,
    pub database_collation: String,
}

type Key = (String, String);

fn key(db: &str, name: &str) -> Key {
    (db.to_string(), name.to_lowercase())
}

/// Every event of the server, by (database, lowercased name).
#[derive(Default)]
pub struct Registry {
    all: RwLock<BTreeMap<Key, EventDef>>,
    /// Held across a read-modify-write of a definition (invariant 2).
    change: Mutex<()>,
}

impl Registry {
    pub fn get(&self, db: &str, name: &str) -> Option<EventDef> {
        self.all.read().get(&key(db, name)).cloned()
    }

    /// Every event, by database and name.
    pub fn all(&self) -> Vec<EventDef> {
        self.all.read().values().cloned().collect()
    }

    /// The lock of invariant 2.
    pub(crate) fn lock_change(&self) -> MutexGuard<'_, ()> {
        self.change.lock()
    }

    pub(crate) fn replace_all(&self, defs: Vec<EventDef>) {
        let mut g = self.all.write();
        g.clear();
        for d in defs {
            g.insert(key(&d.db, &d.name), d);
        }
    }

    pub(crate) fn put(&self, def: EventDef) {
        self.all.write().insert(key(&def.db, &def.name), def);
    }

    pub(crate) fn remove(&self, db: &str, name: &str) {
        self.all.write().remove(&key(db, name));
    }
}

/// 1539 ER_EVENT_DOES_NOT_EXIST.
pub fn unknown_event(name: &str) -> SqlError {
    SqlError::new(1539, "HY000", format!("Unknown event '{name}'"))
}

/// 1537 ER_EVENT_ALREADY_EXISTS.
pub fn already_exists(name: &str) -> SqlError {
    SqlError::new(1537, "HY000", format!("Event '{name}' already exists"))
}
