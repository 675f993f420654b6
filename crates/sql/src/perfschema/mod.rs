//! `performance_schema`: the tables through which quire's wait
//! instruments (`quire_engine::wait`), its threads, status and variables
//! are read, as MySQL 8.0 names and shapes them, so that the queries DBAs
//! and tools run (`sys.waits_global_by_latency`'s, mysqld_exporter's,
//! seed 000's top-5 waits) work unchanged.
//!
//! The tables are read like information_schema's: the binder turns a
//! name in this database into a system source (`infoschema::View::Perf`),
//! whose rows [`rows`] makes when a statement reads it. Only
//! `setup_instruments` can be written ([`setup::update`]); every other
//! write is refused with 1044 as for information_schema.
//!
//! Invariants:
//! 1. Every row has `shape::defs(t).len()` values, in that order.
//! 2. With `performance_schema=OFF` (at startup) every table exists and
//!    is empty, as in MySQL.
//! 3. Times are picoseconds (the instruments keep nanoseconds).

pub mod digest;
mod locks;
pub mod setup;
mod shape;
mod tables;

use quire_engine::row::Value;

use crate::error::Result;
use crate::session::Session;

pub(crate) use shape::defs;

/// The database's name.
pub const DB: &str = "performance_schema";

/// A performance_schema table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    WaitsGlobal,
    WaitsByThread,
    FileSummary,
    SetupInstruments,
    Threads,
    StatementsByDigest,
    DataLocks,
    DataLockWaits,
    GlobalStatus,
    SessionStatus,
    GlobalVariables,
    SessionVariables,
}

/// Every table with its name, in name order.
pub const ALL: [(Table, &str); 12] = [
    (Table::DataLockWaits, "data_lock_waits"),
    (Table::DataLocks, "data_locks"),
    (Table::StatementsByDigest, "events_statements_summary_by_digest"),
    (Table::WaitsByThread, "events_waits_summary_by_thread_by_event_name"),
    (Table::WaitsGlobal, "events_waits_summary_global_by_event_name"),
    (Table::FileSummary, "file_summary_by_event_name"),
    (Table::GlobalStatus, "global_status"),
    (Table::GlobalVariables, "global_variables"),
    (Table::SessionStatus, "session_status"),
    (Table::SessionVariables, "session_variables"),
    (Table::SetupInstruments, "setup_instruments"),
    (Table::Threads, "threads"),
];

impl Table {
    pub fn name(self) -> &'static str {
        ALL.iter().find(|(t, _)| *t == self).map_or("?", |(_, n)| n)
    }
}

/// Whether `db` names performance_schema (any case).
pub fn is_db(db: &str) -> bool {
    db.eq_ignore_ascii_case(DB)
}

/// The table `name` of performance_schema (any case: MySQL's names are
/// lower case, and on a case-insensitive lookup they match either way).
pub fn lookup(name: &str) -> Option<Table> {
    ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)).map(|(t, _)| *t)
}

/// The rows of `t` for session `s`.
pub fn rows(s: &Session, t: Table) -> Result<Vec<Vec<Value>>> {
    if !quire_engine::wait::is_on() {
        return Ok(Vec::new()); // invariant 2
    }
    let rows = match t {
        Table::WaitsGlobal => tables::waits_global(),
        Table::WaitsByThread => tables::waits_by_thread(),
        Table::FileSummary => tables::file_summary(),
        Table::SetupInstruments => tables::setup_instruments(),
        Table::Threads => tables::threads(s),
        Table::StatementsByDigest => tables::statements_by_digest(s),
        Table::DataLocks => locks::data_locks(s),
        Table::DataLockWaits => locks::data_lock_waits(s),
        Table::GlobalStatus | Table::SessionStatus => tables::pairs(crate::admin::status_rows(s)),
        Table::GlobalVariables => tables::pairs(crate::admin::variable_rows(s, true)),
        Table::SessionVariables => tables::pairs(crate::admin::variable_rows(s, false)),
    };
    debug_assert!(rows.iter().all(|r| r.len() == defs(t).len()), "{t:?}: invariant 1");
    Ok(rows)
}
