//! FOREIGN KEYs, enforced as InnoDB enforces them.
//!
//! A foreign key is stored with its child table's definition
//! (`ForeignKeyDef`, engine catalog version 3, docs/FORMAT.md); this
//! module owns everything else:
//!
//! - [`Registry`]: who references whom, rebuilt from the engine's
//!   definitions at start and after every DDL that can change it (the
//!   parent side of a key is found here, as InnoDB's `referenced_list`).
//! - `define`: FOREIGN KEY clauses of CREATE TABLE and ALTER TABLE
//!   ADD / DROP FOREIGN KEY, their validation (1005 errno 150 as MariaDB
//!   10.11), the child index created when none serves, the text SHOW
//!   CREATE TABLE and the error messages print.
//! - `enforce`: the checks and cascades of INSERT / UPDATE / DELETE.
//!
//! Invariants:
//! 1. With no foreign key anywhere, [`Registry::any`] is false and DML
//!    pays one atomic load per statement (`SessionEnv::fk_checks`).
//! 2. Every check and cascade runs in the statement's transaction, before
//!    the statement ends: a failure undoes the whole statement (the
//!    statement savepoint of `Session::in_trx`).
//! 3. A parent row that satisfied a child is S-locked, a child row
//!    changed by a cascade X-locked, until the transaction ends.

pub mod define;
pub mod enforce;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;
use quire_engine::row::ForeignKeyDef;
use quire_engine::Engine;

/// One foreign key and the engine name (`db/table`) of its child.
#[derive(Debug)]
pub struct Fk {
    pub child: String,
    pub def: ForeignKeyDef,
}

/// The foreign keys touching one table.
#[derive(Debug, Default)]
pub struct TableFks {
    /// Keys this table holds (its rows must find a parent).
    pub as_child: Vec<Arc<Fk>>,
    /// Keys of any table (this one included) that reference this one.
    pub as_parent: Vec<Arc<Fk>>,
}

/// Which table references which, by engine table name.
#[derive(Default)]
pub struct Registry {
    any: AtomicBool,
    tables: RwLock<HashMap<String, Arc<TableFks>>>,
}

impl Registry {
    /// Whether any table has a foreign key.
    #[inline]
    pub fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    /// The keys touching `table` (an engine name), if any.
    pub fn of(&self, table: &str) -> Option<Arc<TableFks>> {
        self.tables.read().get(table).cloned()
    }

    /// Every key whose parent is `table`, from children other than itself.
    pub fn referencing(&self, table: &str) -> Vec<Arc<Fk>> {
        self.of(table).map(|t| t.as_parent.iter().filter(|f| f.child != table).cloned().collect()).unwrap_or_default()
    }

    /// Reads every table's keys from the engine again.
    pub fn rebuild(&self, engine: &Engine) {
        let mut map: HashMap<String, TableFks> = HashMap::new();
        for name in engine.table_names() {
            let Ok(t) = engine.table(&name) else { continue };
            for def in t.foreign_keys() {
                let fk = Arc::new(Fk { child: name.clone(), def });
                map.entry(fk.def.parent.clone()).or_default().as_parent.push(fk.clone());
                map.entry(name.clone()).or_default().as_child.push(fk);
            }
        }
        // InnoDB keeps a table's referencing keys in a set ordered by the
        // constraint's id (`db/name`): the first violated one is reported.
        for t in map.values_mut() {
            t.as_parent.sort_by(|a, b| {
                let id = |f: &Fk| format!("{}/{}", split(&f.child).0, f.def.name);
                id(a).cmp(&id(b))
            });
        }
        let any = !map.is_empty();
        *self.tables.write() = map.into_iter().map(|(k, v)| (k, Arc::new(v))).collect();
        self.any.store(any, Ordering::Release);
    }
}

/// What a statement needs to enforce keys: the registry and the engine
/// (`SessionEnv::fk_checks`; `None` when `foreign_key_checks` is 0 or no
/// key exists).
pub struct Checks<'a> {
    pub registry: &'a Registry,
    pub engine: &'a Arc<Engine>,
}

/// `db/table` as (`db`, `table`).
pub fn split(engine_name: &str) -> (&str, &str) {
    engine_name.split_once('/').unwrap_or(("", engine_name))
}
