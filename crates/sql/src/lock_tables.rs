//! The session's side of LOCK TABLES (`table_lock.rs` holds the
//! server-wide locks): the statements, releasing, and admitting each
//! statement by the tables it uses.
//!
//! Invariant: `Session::table_locks` is empty exactly when the session
//! holds no entry in `Shared::table_locks`.

use std::time::Duration;

use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::query::Resolver;
use crate::session::{Compiled, Plan, Session};
use crate::table_lock::{self, Locked, TableUse};
use crate::Output;

impl Session {
    /// `LOCK TABLES t [AS a] READ [LOCAL] | [LOW_PRIORITY] WRITE, ...`:
    /// commits, gives back the locks held, then takes all of these at once.
    pub(crate) fn lock_tables(&mut self, tables: &[ast::LockTable]) -> Result<Output> {
        self.commit()?;
        self.unlock_tables();
        let db = self.db.clone().ok_or_else(SqlError::no_database)?;
        let mut list = Vec::with_capacity(tables.len());
        for t in tables {
            let name = ast::ObjectName::from(vec![t.table.clone()]);
            if self.resolver().view(&name)?.is_some() {
                return Err(SqlError::unsupported("LOCK TABLES of a view"));
            }
            // 1146 for a missing table, 1142 without the right to use it.
            let r = self.resolver().resolve(&name, None)?;
            let write = matches!(t.lock_type, ast::LockTableType::Write { .. });
            let alias = t.alias.as_ref().map_or_else(|| r.name.clone(), |a| a.value.clone());
            list.push(Locked { db: db.clone(), table: r.name, name: alias, write });
        }
        let wait = self.lock_wait_timeout();
        let me = self.connection_id;
        let shared = self.shared.clone();
        shared.table_locks.acquire(me, &list, wait, &|| self.interrupted())?;
        self.table_locks = list;
        Ok(Output::ok())
    }

    /// UNLOCK TABLES (and the implicit unlocks): gives back every lock.
    pub(crate) fn unlock_tables(&mut self) {
        if !self.table_locks.is_empty() {
            let list = std::mem::take(&mut self.table_locks);
            self.shared.table_locks.release(self.connection_id, &list);
        }
    }

    /// `lock_wait_timeout` (seconds): how long a table lock is waited for.
    fn lock_wait_timeout(&self) -> Duration {
        let secs = self.vars.get("lock_wait_timeout").and_then(|v| v.as_u64()).unwrap_or(31_536_000);
        Duration::from_secs(secs)
    }

    /// Whether the statement may run now, with some session holding table
    /// locks (the caller tested `TableLocks::active`): the holder's own
    /// statements are checked against its list, others wait.
    pub(crate) fn admit_tables(&self, c: &Compiled) -> Result<()> {
        match &c.plan {
            Plan::Other(stmt) => self.admit_uses(&self.ddl_uses(stmt)?),
            _ => self.admit_uses(&c.tables),
        }
    }

    pub(crate) fn admit_uses(&self, uses: &[TableUse]) -> Result<()> {
        if !self.table_locks.is_empty() {
            return table_lock::admit(&self.table_locks, uses);
        }
        if uses.is_empty() {
            return Ok(());
        }
        let wait = self.lock_wait_timeout();
        self.shared.table_locks.wait_for(self.connection_id, uses, wait, &|| self.interrupted())
    }

    /// The tables a DDL statement changes (each a write). Multi-table
    /// UPDATE / DELETE are admitted where they are compiled (`run_other`).
    fn ddl_uses(&self, stmt: &ast::Statement) -> Result<Vec<TableUse>> {
        use ast::Statement as S;
        let names: Vec<&ast::ObjectName> = match stmt {
            S::AlterTable(at) => vec![&at.name],
            S::Drop { object_type: ast::ObjectType::Table, names, .. } => names.iter().collect(),
            S::Drop { object_type: ast::ObjectType::Index, table: Some(t), .. } => vec![t],
            S::Truncate(t) => t.table_names.iter().map(|t| &t.name).collect(),
            S::CreateIndex(ci) => vec![&ci.table_name],
            S::RenameTable(pairs) => pairs.iter().flat_map(|p| [&p.old_name, &p.new_name]).collect(),
            _ => vec![],
        };
        let mut uses = Vec::with_capacity(names.len());
        for n in names {
            let parts: Vec<String> =
                n.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_default()).collect();
            let (db, table) = match parts.as_slice() {
                [t] => match &self.db {
                    Some(d) => (d.clone(), t.clone()),
                    None => continue, // the statement reports 1046 itself
                },
                [d, t] => (d.clone(), t.clone()),
                _ => continue,
            };
            uses.push(TableUse { db, name: table.clone(), table, write: true });
        }
        Ok(uses)
    }
}
