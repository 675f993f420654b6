//! CREATE TEMPORARY TABLE: tables private to one session (MySQL 8.0's
//! and MariaDB's semantics), the session's name space for them, and how
//! plans stay bound to the right table.
//!
//! Storage: a temporary table is an ordinary engine table (transactional,
//! redo-logged like any other) under a private engine name
//! `#tmp\/<connection>-<n>`. The "database" part holds a backslash, which
//! no SQL database name may hold (`catalog::check_name`), so no statement
//! can reach it by name and SHOW TABLES (which lists `db/` prefixes) never
//! shows it. The session maps (`db`, `table`) as the user wrote them to
//! that engine name ([`TempTables`]).
//!
//! Lifetime: dropped by DROP [TEMPORARY] TABLE, COM_RESET_CONNECTION and
//! disconnect (`Session::drop`); a crash leaves the catalog entries, so
//! every start drops what is left under `#tmp\` ([`sweep`]) before any
//! session exists. Engine DDL is durable, so the sweep is crash-safe too.
//!
//! Name resolution: every resolver of the session asks [`TempTables`]
//! first (`SessionResolver::resolve_as`, `Session::table_key` for DDL and
//! SHOW), so a temporary table shadows a base table or view of its name.
//!
//! Plans. Invariants:
//! 1. A plan in the shared cache under the scope `user\0db` was compiled
//!    by a session without temporary tables, so it binds base tables only.
//! 2. A session with temporary tables caches under its own scope
//!    (`user\0db\0#<connection>.<generation>`), and `generation` changes
//!    with every CREATE / DROP of one of its temporary tables, so a plan
//!    is reused only while the names it bound mean the same tables.
//! 3. A prepared statement remembers the generation it was compiled
//!    under and is compiled again when the session's differs.
//!
//! The common path (a session without temporary tables) pays one test of
//! an empty map per COM_QUERY (choosing the cache scope) and one integer
//! comparison per COM_STMT_EXECUTE; nothing else changes.
//!
//! RENAME TABLE and ALTER TABLE ... RENAME of a temporary table change
//! only the session's map (the engine table keeps its name).
//!
//! Not built (refused with 1235): FOREIGN KEYs on temporary tables, one
//! RENAME TABLE naming both temporary and base tables.

use std::collections::HashMap;

use quire_engine::Engine;
use sqlparser::ast;

use crate::error::Result;
use crate::session::Session;
use crate::Output;

/// The engine "database" holding every temporary table.
pub const ENGINE_DB: &str = "#tmp\\";

/// A session's temporary tables.
#[derive(Default)]
pub struct TempTables {
    /// (database, table) as the session names them -> engine name.
    tables: HashMap<(String, String), String>,
    /// The next `<n>` of an engine name.
    next: u32,
    /// Changes with every CREATE / DROP (invariants 2, 3).
    generation: u64,
}

impl TempTables {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The engine name of the session's temporary `db`.`table`, if any.
    pub fn get(&self, db: &str, table: &str) -> Option<&str> {
        if self.tables.is_empty() {
            return None;
        }
        self.tables.get(&(db.to_string(), table.to_string())).map(String::as_str)
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The plan cache scope of a session with temporary tables
    /// (invariant 2).
    pub fn cache_scope(&self, user: &str, db: &str, connection: u32) -> String {
        format!("{user}\u{0}{db}\u{0}#{connection}.{}", self.generation)
    }

    /// A fresh engine name for a new temporary table of `connection`.
    pub fn new_engine_name(&mut self, connection: u32) -> String {
        self.next += 1;
        format!("{ENGINE_DB}/{connection}-{}", self.next)
    }

    /// Registers a created temporary table.
    pub fn insert(&mut self, db: &str, table: &str, engine_name: String) {
        self.tables.insert((db.to_string(), table.to_string()), engine_name);
        self.generation += 1;
    }

    /// Forgets a temporary table (the caller drops its engine table).
    pub fn remove(&mut self, db: &str, table: &str) -> Option<String> {
        let r = self.tables.remove(&(db.to_string(), table.to_string()));
        if r.is_some() {
            self.generation += 1;
        }
        r
    }

    /// Renames the session's temporary `from` to `to` (same engine table):
    /// 1050 when `to` names another of its temporary tables. A base table
    /// of that name does not stop it: the temporary one shadows it, as in
    /// MariaDB. `false` when `from` is no temporary table.
    pub fn rename(&mut self, from: (&str, &str), to: (&str, &str)) -> Result<bool> {
        if self.get(to.0, to.1).is_some() {
            return Err(crate::error::SqlError::new(1050, "42S01", format!("Table '{}' already exists", to.1)));
        }
        match self.remove(from.0, from.1) {
            Some(engine_name) => {
                self.insert(to.0, to.1, engine_name);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Drops every temporary table of the session (disconnect, reset).
    pub fn drop_all(&mut self, engine: &Engine) {
        for (_, name) in self.tables.drain() {
            if let Err(e) = engine.drop_table(&name) {
                tracing::warn!("dropping temporary table {name}: {e}");
            }
        }
        self.generation += 1;
    }
}

/// Drops the temporary tables a previous run left (a crash, a kill): run
/// once at start, before any session.
pub fn sweep(engine: &Engine) {
    let prefix = format!("{ENGINE_DB}/");
    for name in engine.table_names().into_iter().filter(|n| n.starts_with(&prefix)) {
        match engine.drop_table(&name) {
            Ok(()) => tracing::info!("dropped temporary table {name} left by the previous run"),
            Err(e) => tracing::warn!("dropping temporary table {name} left by the previous run: {e}"),
        }
    }
}

/// `CREATE TEMPORARY TABLE ...` (every form CREATE TABLE has: columns,
/// LIKE, AS SELECT, IF NOT EXISTS). No implicit commit, as MySQL; the AS
/// SELECT form commits after its rows, as CREATE TABLE ... SELECT does.
/// No DDL epoch bump: no shared plan can name the new table (invariant 1).
pub(crate) fn create(s: &mut Session, ct: &ast::CreateTable) -> Result<Output> {
    crate::admin::create_table(s, ct)
}

/// `DROP TEMPORARY TABLE [IF EXISTS] t, ...`: only temporary tables; a
/// missing one is 1051 (a note with IF EXISTS), the others still dropped.
pub(crate) fn drop_temporary(s: &mut Session, if_exists: bool, names: &[ast::ObjectName]) -> Result<Output> {
    let mut missing = Vec::new();
    for n in names {
        let (db, t) = crate::admin::split_name(s, n)?;
        match s.temps.remove(&db, &t) {
            Some(engine_name) => s.engine().drop_table(&engine_name)?,
            None => missing.push(format!("{db}.{t}")),
        }
    }
    crate::admin::unknown_tables(s, &missing, if_exists)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_moves_the_generation_and_the_cache_scope() {
        let mut t = TempTables::default();
        assert!(t.is_empty());
        let g0 = t.generation();
        let n = t.new_engine_name(7);
        assert_eq!(n, "#tmp\\/7-1");
        t.insert("d", "t", n.clone());
        assert_eq!(t.get("d", "t"), Some(n.as_str()));
        assert_eq!(t.get("d", "T"), None, "names are exact, as lower_case_table_names=0");
        let s1 = t.cache_scope("u", "d", 7);
        assert_ne!(t.generation(), g0);
        assert_eq!(t.remove("d", "t"), Some(n));
        assert_ne!(t.cache_scope("u", "d", 7), s1);
        assert!(t.is_empty());
        assert_eq!(t.remove("d", "t"), None);
    }
}
