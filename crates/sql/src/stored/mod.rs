//! Stored procedures and stored functions (MySQL's "routines"): their
//! definitions in the catalog and their calls. The body language and its
//! interpreter are the triggers' (`routine`).
//!
//! - `store`: definitions in the catalog (`mysql/quire_routine`).
//! - `ddl`: CREATE / DROP {PROCEDURE | FUNCTION}, SHOW CREATE, CALL
//!   (parsed here, not by sqlparser), and what DROP DATABASE does.
//! - `call`: CALL, the interpreter's host for a procedure (the session
//!   and the client's answers: a SELECT's rows are a result set).
//! - `func`: stored functions in expressions: found when a statement is
//!   compiled, run when the expression is evaluated.
//! - `show`: SHOW CREATE and information_schema.ROUTINES / PARAMETERS.
//!
//! Invariants:
//! 1. Names are case-insensitive: the registry's key has the name
//!    lowercased; the definition keeps it as written.
//! 2. A routine's prepared program is valid for the DDL epoch it was
//!    prepared in only; CREATE and DROP bump the epoch, so plans naming a
//!    stored function are compiled again.

pub mod call;
pub mod ddl;
pub mod func;
pub mod show;
pub mod store;

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use quire_engine::row::Column;

use crate::error::{Result, SqlError};
use crate::routine::exec::Prepared;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RoutineKind {
    Procedure,
    Function,
}

impl RoutineKind {
    pub fn name(self) -> &'static str {
        match self {
            RoutineKind::Procedure => "PROCEDURE",
            RoutineKind::Function => "FUNCTION",
        }
    }
}

/// What is stored of a routine.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutineDef {
    pub db: String,
    pub name: String,
    pub kind: RoutineKind,
    /// The parameter list as written, without its parentheses.
    pub params: String,
    /// The RETURNS type as written (functions; empty for procedures).
    pub returns: String,
    /// The body as written.
    pub body: String,
    pub comment: String,
    pub deterministic: bool,
    /// `CONTAINS SQL`, `NO SQL`, `READS SQL DATA` or `MODIFIES SQL DATA`.
    pub data_access: String,
    /// SQL SECURITY DEFINER (else INVOKER).
    pub security_definer: bool,
    /// `user@host`.
    pub definer: String,
    pub sql_mode: String,
    /// `YYYY-MM-DD hh:mm:ss`, the server's local time.
    pub created: String,
    pub modified: String,
    pub character_set_client: String,
    pub collation_connection: String,
    pub database_collation: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    In,
    Out,
    InOut,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::In => "IN",
            Mode::Out => "OUT",
            Mode::InOut => "INOUT",
        }
    }
}

/// One parameter, read from [`RoutineDef::params`].
#[derive(Clone, Debug)]
pub struct Param {
    pub mode: Mode,
    /// Its name and type.
    pub column: Column,
    /// The type as written.
    pub type_text: String,
}

/// A routine: its definition, and its program and parameters prepared
/// in one DDL epoch (invariant 2).
pub struct Routine {
    pub def: RoutineDef,
    prepared: Mutex<Option<(u64, Arc<Ready>)>>,
}

/// What a call needs.
pub struct Ready {
    pub params: Vec<Param>,
    /// A function's RETURNS type.
    pub returns: Option<Column>,
    pub program: Prepared,
}

impl Routine {
    pub fn new(def: RoutineDef) -> Self {
        Routine { def, prepared: Mutex::new(None) }
    }

    /// The program prepared for DDL epoch `epoch`.
    pub fn ready(&self, epoch: u64) -> Result<Arc<Ready>> {
        let mut g = self.prepared.lock();
        if let Some((e, r)) = g.as_ref() {
            if *e == epoch {
                return Ok(r.clone());
            }
        }
        let r = Arc::new(ddl::prepare(&self.def)?);
        *g = Some((epoch, r.clone()));
        Ok(r)
    }
}

type Key = (String, RoutineKind, String);

/// Every routine of the server, by (database, kind, lowercased name).
#[derive(Default)]
pub struct Registry {
    all: RwLock<BTreeMap<Key, Arc<Routine>>>,
}

fn key(db: &str, kind: RoutineKind, name: &str) -> Key {
    (db.to_string(), kind, name.to_lowercase())
}

impl Registry {
    pub fn get(&self, db: &str, kind: RoutineKind, name: &str) -> Option<Arc<Routine>> {
        self.all.read().get(&key(db, kind, name)).cloned()
    }

    /// Every routine, by database, kind and name.
    pub fn all(&self) -> Vec<Arc<Routine>> {
        self.all.read().values().cloned().collect()
    }

    pub(crate) fn replace_all(&self, defs: Vec<RoutineDef>) {
        let mut g = self.all.write();
        g.clear();
        for d in defs {
            g.insert(key(&d.db, d.kind, &d.name), Arc::new(Routine::new(d)));
        }
    }

    pub(crate) fn put(&self, def: RoutineDef) {
        self.all.write().insert(key(&def.db, def.kind, &def.name), Arc::new(Routine::new(def)));
    }

    pub(crate) fn remove(&self, db: &str, kind: RoutineKind, name: &str) {
        self.all.write().remove(&key(db, kind, name));
    }
}

/// 1305 ER_SP_DOES_NOT_EXIST.
pub fn does_not_exist(kind: RoutineKind, db: &str, name: &str) -> SqlError {
    SqlError::new(1305, "42000", format!("{} {db}.{name} does not exist", kind.name()))
}

/// 1318 ER_SP_WRONG_NO_OF_ARGS.
pub fn wrong_arguments(kind: RoutineKind, db: &str, name: &str, expected: usize, got: usize) -> SqlError {
    SqlError::new(
        1318,
        "42000",
        format!("Incorrect number of arguments for {} {db}.{name}; expected {expected}, got {got}", kind.name()),
    )
}
