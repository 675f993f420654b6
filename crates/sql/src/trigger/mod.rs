//! Triggers: `CREATE TRIGGER ... FOR EACH ROW body` on a base table,
//! fired by the rows its statements write.
//!
//! - `store`: definitions in the catalog (`mysql/quire_trigger`).
//! - `ddl`: CREATE TRIGGER / DROP TRIGGER, and what DROP / RENAME TABLE
//!   do to a table's triggers.
//! - `fire`: the hook the row writers call ([`fire`]) and the
//!   interpreter's host (the session and the statement's transaction).
//! - `show`: SHOW CREATE TRIGGER and information_schema.TRIGGERS.
//!
//! Invariants:
//! 1. [`Registry::any`] is false iff no trigger exists: a statement on a
//!    table without triggers pays one atomic load.
//! 2. Within one (table, timing, event) the `order`s of the triggers are
//!    1..=n without gaps (ACTION_ORDER), kept so by every CREATE / DROP.
//! 3. A trigger's prepared program is valid for the DDL epoch it was
//!    prepared in only (the table's columns may have changed since).

pub mod ddl;
pub mod fire;
pub mod show;
pub mod store;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

pub use fire::{fire, TableTriggers};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timing {
    Before,
    After,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    Insert,
    Update,
    Delete,
}

impl Timing {
    pub fn name(self) -> &'static str {
        match self {
            Timing::Before => "BEFORE",
            Timing::After => "AFTER",
        }
    }
}

impl Event {
    pub fn name(self) -> &'static str {
        match self {
            Event::Insert => "INSERT",
            Event::Update => "UPDATE",
            Event::Delete => "DELETE",
        }
    }
}

/// What is stored of a trigger.
#[derive(Clone, Debug, PartialEq)]
pub struct TriggerDef {
    pub db: String,
    pub name: String,
    pub table: String,
    pub timing: Timing,
    pub event: Event,
    /// ACTION_ORDER: 1-based among the table's triggers of the same
    /// timing and event (invariant 2).
    pub order: u32,
    /// `user@host`, as SHOW TRIGGERS prints it.
    pub definer: String,
    pub sql_mode: String,
    /// `YYYY-MM-DD hh:mm:ss.ff`, the server's local time at CREATE.
    pub created: String,
    /// The body as written (ACTION_STATEMENT).
    pub body: String,
    pub character_set_client: String,
    pub collation_connection: String,
    pub database_collation: String,
}

/// A trigger: its definition and its program prepared for the table's
/// columns of one DDL epoch (invariant 3).
pub struct Trigger {
    pub def: TriggerDef,
    pub(crate) prepared: Mutex<Option<(u64, Arc<crate::routine::exec::Prepared>)>>,
}

impl Trigger {
    pub fn new(def: TriggerDef) -> Self {
        Trigger { def, prepared: Mutex::new(None) }
    }
}

/// Every trigger of the server, by (database, name).
#[derive(Default)]
pub struct Registry {
    all: RwLock<BTreeMap<(String, String), Arc<Trigger>>>,
    /// Invariant 1.
    any: AtomicBool,
}

impl Registry {
    pub fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    pub fn get(&self, db: &str, name: &str) -> Option<Arc<Trigger>> {
        self.all.read().get(&(db.to_string(), name.to_string())).cloned()
    }

    /// The triggers of `db`.`table`, by timing, event and order.
    pub fn of_table(&self, db: &str, table: &str) -> Vec<Arc<Trigger>> {
        let mut v: Vec<Arc<Trigger>> =
            self.all.read().values().filter(|t| t.def.db == db && t.def.table == table).cloned().collect();
        v.sort_by_key(|t| (t.def.timing, t.def.event, t.def.order));
        v
    }

    /// Every trigger, by database and name.
    pub fn all(&self) -> Vec<Arc<Trigger>> {
        self.all.read().values().cloned().collect()
    }

    pub(crate) fn replace_all(&self, defs: Vec<TriggerDef>) {
        let mut g = self.all.write();
        g.clear();
        for d in defs {
            g.insert((d.db.clone(), d.name.clone()), Arc::new(Trigger::new(d)));
        }
        self.any.store(!g.is_empty(), Ordering::Release);
    }

    pub(crate) fn put(&self, def: TriggerDef) {
        let mut g = self.all.write();
        g.insert((def.db.clone(), def.name.clone()), Arc::new(Trigger::new(def)));
        self.any.store(true, Ordering::Release);
    }

    pub(crate) fn remove(&self, db: &str, name: &str) {
        let mut g = self.all.write();
        g.remove(&(db.to_string(), name.to_string()));
        self.any.store(!g.is_empty(), Ordering::Release);
    }
}
