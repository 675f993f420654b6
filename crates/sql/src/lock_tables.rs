//! The session's side of LOCK TABLES and FLUSH TABLES [WITH READ LOCK]
//! (`table_lock.rs` holds the server-wide locks): the statements,
//! releasing, and admitting each statement by the tables it uses and by
//! whether it writes.
//!
//! Invariants:
//! 1. `Session::table_locks` is empty exactly when the session holds no
//!    entry in `Shared::table_locks`.
//! 2. `Session::global_read_lock` is true exactly when the session is in
//!    the global read lock's holders.

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
        if self.global_read_lock && tables.iter().any(|t| matches!(t.lock_type, ast::LockTableType::Write { .. })) {
            return Err(conflicting_read_lock());
        }
        self.commit()?;
        self.unlock_tables();
        let db = self.db.clone().ok_or_else(SqlError::no_database)?;
        let mut list = Vec::with_capacity(tables.len());
        for t in tables {
            let name = ast::ObjectName::from(vec![t.table.clone()]);
            let write = matches!(t.lock_type, ast::LockTableType::Write { .. });
            let alias = |table: &str| t.alias.as_ref().map_or_else(|| table.to_string(), |a| a.value.clone());
            if let Some(v) = self.resolver().view(&name)? {
                // A view: it and every table and view it reads (MySQL's
                // pre-locking, `table_lock.rs`).
                let inner = self.view_tables(&v.db, &v.name)?;
                let tables = inner.iter().filter(|u| self.shared.catalog.view(&u.db, &u.table).is_none()).count();
                let inner_write = write && tables == 1;
                for u in inner {
                    list.push(Locked { db: u.db, table: u.table.clone(), name: u.table, write: inner_write });
                }
                list.push(Locked { db: v.db, name: alias(&v.name), table: v.name, write });
                continue;
            }
            // 1146 for a missing table, 1142 without the right to use it.
            let r = self.resolver().resolve(&name, None)?;
            if self.temps.get(&db, &r.name).is_some() {
                continue; // the session's own: nothing to lock
            }
            list.push(Locked { db: db.clone(), name: alias(&r.name), table: r.name, write });
        }
        if list.is_empty() {
            return Ok(Output::ok()); // only temporary tables (invariant 1)
        }
        let wait = self.lock_wait_timeout();
        let me = self.connection_id;
        let shared = self.shared.clone();
        shared.table_locks.acquire(me, &list, wait, &|| self.interrupted())?;
        self.table_locks = list;
        Ok(Output::ok())
    }

    /// The tables and views view `db`.`view` reads, through the views it
    /// reads too, as its compiled plan names them (1142 / 1449 as reading
    /// it); each once.
    fn view_tables(&self, db: &str, view: &str) -> Result<Vec<TableUse>> {
        let q = |s: &str| s.replace('`', "``");
        let mut stmts = crate::session::parse(&format!("SELECT * FROM `{}`.`{}`", q(db), q(view)))?;
        let c = self.compile(stmts.remove(0))?;
        let mut inner: Vec<TableUse> = c.tables.into_iter().filter(|u| u.via_view).collect();
        inner.sort_by(|a, b| (&a.db, &a.table).cmp(&(&b.db, &b.table)));
        inner.dedup_by(|a, b| a.db == b.db && a.table == b.table);
        Ok(inner)
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
            Plan::Other(stmt) => {
                let uses = self.ddl_uses(stmt)?;
                let writes = uses.iter().any(|u| u.write) || writes_without_tables(stmt);
                self.admit_uses(&uses, writes)
            }
            Plan::Admin(a) => self.admit_uses(&c.tables, a.is_ddl()),
            _ => self.admit_uses(&c.tables, c.tables.iter().any(|u| u.write)),
        }
    }

    /// `writes`: the statement changes data or definitions (the global
    /// read lock stops it).
    pub(crate) fn admit_uses(&self, uses: &[TableUse], writes: bool) -> Result<()> {
        if writes && self.global_read_lock {
            return Err(conflicting_read_lock());
        }
        let wait = self.lock_wait_timeout();
        let me = self.connection_id;
        let locks = &self.shared.table_locks;
        if writes && locks.global_by_other(me) {
            self.wait_out_global_read_lock(table_lock::WAITING_FOR_GRL)?;
        }
        if !self.table_locks.is_empty() {
            return table_lock::admit(&self.table_locks, uses);
        }
        if uses.is_empty() {
            return Ok(());
        }
        locks.wait_for(me, uses, writes, wait, &|| self.interrupted())
    }

    /// Waits, in process state `state`, until no other session holds the
    /// global read lock (1205 after `lock_wait_timeout`, 1317 on KILL).
    fn wait_out_global_read_lock(&self, state: &'static str) -> Result<()> {
        self.process.set_state(state);
        let r = self
            .shared
            .table_locks
            .wait_for(self.connection_id, &[], true, self.lock_wait_timeout(), &|| self.interrupted());
        self.process.set_state("executing");
        r
    }

    /// Before a transaction with changes commits: another session's
    /// global read lock holds the commit back (MySQL's commit lock, taken
    /// by FLUSH TABLES WITH READ LOCK), so a dump under FTWRL sees no
    /// transaction end. Waiting out `lock_wait_timeout` (1205) or a KILL
    /// (1317) fails the COMMIT and the caller rolls the transaction back,
    /// as MariaDB 10.11 does. A read-only transaction is not held.
    pub(crate) fn wait_for_commit_lock(&self) -> Result<()> {
        if !self.shared.table_locks.active() || !self.shared.table_locks.global_by_other(self.connection_id) {
            return Ok(());
        }
        self.wait_out_global_read_lock(table_lock::WAITING_FOR_COMMIT_LOCK)
    }

    /// `FLUSH TABLES [t, ...] [WITH READ LOCK]`.
    /// Every form commits first (MariaDB's implicit commit).
    /// - `FLUSH TABLES [t, ...]`: quire keeps no cache of open tables to
    ///   close, so nothing else is done (MariaDB does not check the names).
    /// - `FLUSH TABLES WITH READ LOCK`: the global read lock (MySQL's
    ///   FTWRL): waits until no other session holds a WRITE table lock
    ///   and every statement other sessions were running has ended
    ///   (1205 after `lock_wait_timeout`, KILL ends the wait); then other
    ///   sessions' writes and DDL wait until UNLOCK TABLES or disconnect.
    /// - `FLUSH TABLES t, ... WITH READ LOCK`: `LOCK TABLES t READ, ...`.
    pub(crate) fn flush_tables(&mut self, tables: &[ast::ObjectName], read_lock: bool) -> Result<Output> {
        if !self.table_locks.is_empty() && read_lock && tables.is_empty() {
            return Err(SqlError::new(
                1192,
                "HY000",
                "Can't execute the given command because you have active locked tables or an active transaction",
            ));
        }
        // FLUSH commits, as MariaDB and MySQL do.
        self.commit()?;
        if !read_lock {
            return Ok(Output::ok());
        }
        if !tables.is_empty() {
            let mut list = Vec::with_capacity(tables.len());
            for n in tables {
                let [part] = n.0.as_slice() else {
                    return Err(SqlError::unsupported("db.table in FLUSH TABLES ... WITH READ LOCK"));
                };
                let Some(ident) = part.as_ident() else {
                    return Err(SqlError::syntax(format!("bad table name {n}")));
                };
                list.push(ast::LockTable {
                    table: ident.clone(),
                    alias: None,
                    lock_type: ast::LockTableType::Read { local: false },
                });
            }
            return self.lock_tables(&list);
        }
        if self.global_read_lock {
            return Ok(Output::ok());
        }
        let wait = self.lock_wait_timeout();
        let me = self.connection_id;
        let shared = self.shared.clone();
        shared.table_locks.acquire_global(me, wait, &|| self.interrupted())?;
        self.global_read_lock = true;
        // The statements other sessions were running when the lock was
        // taken end first (a later one sees the lock before it writes:
        // its `Process::begin` follows this read of its state).
        let deadline = std::time::Instant::now() + wait;
        let running: Vec<_> = shared
            .processes
            .all()
            .into_iter()
            .filter(|p| p.id != me)
            .filter_map(|p| p.running_command().map(|c| (p, c)))
            .collect();
        for (p, command) in running {
            while p.running_command() == Some(command) {
                let r = self.interrupted().and_then(|()| {
                    if std::time::Instant::now() >= deadline {
                        Err(SqlError::new(1205, "HY000", "Lock wait timeout exceeded; try restarting transaction"))
                    } else {
                        Ok(())
                    }
                });
                if let Err(e) = r {
                    self.release_global_read_lock();
                    return Err(e);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Ok(Output::ok())
    }

    /// Gives back the global read lock (UNLOCK TABLES, reset, disconnect).
    pub(crate) fn release_global_read_lock(&mut self) {
        if self.global_read_lock {
            self.global_read_lock = false;
            self.shared.table_locks.release_global(self.connection_id);
        }
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
            if self.temps.get(&db, &table).is_some() {
                continue; // private: never locked
            }
            uses.push(TableUse { db, name: table.clone(), table, write: true, via_view: false });
        }
        Ok(uses)
    }
}

/// Whether a statement the caller runs from its AST writes though it
/// names no table that `ddl_uses` lists (the global read lock stops it).
fn writes_without_tables(stmt: &ast::Statement) -> bool {
    use ast::Statement as S;
    match stmt {
        S::CreateTable(ct) => !ct.temporary,
        S::Drop { object_type, temporary, .. } => !*temporary && *object_type != ast::ObjectType::Table,
        S::CreateDatabase { .. } | S::CreateSchema { .. } | S::CreateView(_) => true,
        S::Update(_) | S::Delete(_) => true, // multi-table: admitted where compiled
        _ => false,
    }
}

/// 1223: the session holding the global read lock tried to write.
fn conflicting_read_lock() -> SqlError {
    SqlError::new(1223, "HY000", "Can't execute the query because you have a conflicting read lock")
}
