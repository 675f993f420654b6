//! A stored program's SQL statement run inside the statement that
//! invoked the program: a trigger's body, or a stored function's, reads
//! and writes through the invoking statement's transaction, so what it
//! writes is undone with that statement (statement rollback) and what it
//! reads sees the transaction's own changes.
//!
//! Invariant: `Session::tables_in_use` holds the tables of every
//! statement whose triggers or stored functions are running (a trigger's
//! table; every table of a statement that calls a stored function); a
//! body's statement writing one of them fails with 1442, as MySQL's
//! prelocking refuses it. This also bounds the recursion of triggers by
//! the number of tables.

use quire_engine::row::Value;
use quire_engine::table::Trx;

use crate::error::{Result, SqlError};
use crate::plan::TableRef;
use crate::query::Ctx;
use crate::session::{Compiled, Env, Plan, Session};

/// 1442: a body's statement writes a table the invoking statement uses.
pub(crate) fn in_use(table: &str) -> SqlError {
    SqlError::new(
        1442,
        "HY000",
        format!(
            "Can't update table '{table}' in stored function/trigger because it is already used by statement which invoked this stored function/trigger"
        ),
    )
}

/// Runs `plan` (a SELECT or a row write) in `trx`; `what` names the
/// program in the error for any other statement.
pub(crate) fn in_trx(
    s: &Session,
    trx: &mut Trx,
    plan: &Compiled,
    params: &[Value],
    what: &str,
) -> Result<Vec<Vec<Value>>> {
    let _used = TablesInUse::enter(s, plan);
    let env = Env { s };
    let ctx = || Ctx { params, aggs: vec![], session: &env, in_keys: Default::default() };
    let plain = crate::query::plain_read_lock(trx.isolation(), false);
    let mut sink = crate::sink::Collect::default();
    match &plan.plan {
        Plan::Select(p) => {
            crate::query::run_select(p, Some(&mut *trx), plain, &mut ctx(), &mut sink)?;
        }
        Plan::Query(q) => {
            let ex = crate::rel::exec::Exec::new(params, &env, Some(&mut *trx), plain);
            ex.run_into(&q.plan, &mut sink)?;
        }
        Plan::Insert(p) => {
            check_target(s, &p.table)?;
            s.check_writable()?;
            let r = crate::dml::run_insert(p, trx, params, 1, &env)?;
            if r.first_insert_id != 0 {
                // Seen by the body's next statements; the program's
                // caller gives the old value back (`KeepInsertId`).
                s.last_insert_id.set(r.first_insert_id);
            }
        }
        Plan::Update(p) => {
            check_target(s, &p.table)?;
            s.check_writable()?;
            crate::dml::run_update(p, trx, &ctx())?;
        }
        Plan::Delete(p) => {
            check_target(s, &p.table)?;
            s.check_writable()?;
            crate::dml::run_delete(p, trx, &ctx())?;
        }
        _ => return Err(SqlError::unsupported(format!("this statement in a {what}"))),
    }
    Ok(sink.rows)
}

fn check_target(s: &Session, t: &TableRef) -> Result<()> {
    if s.tables_in_use.borrow().iter().any(|(d, n)| *d == t.db && *n == t.name) {
        return Err(in_use(&t.name));
    }
    Ok(())
}

/// The tables of a statement that calls stored functions, on
/// `Session::tables_in_use` for as long as the guard lives.
pub(crate) struct TablesInUse<'s> {
    s: &'s Session,
    pushed: usize,
}

impl<'s> TablesInUse<'s> {
    pub(crate) fn enter(s: &'s Session, plan: &Compiled) -> Self {
        let mut pushed = 0;
        if plan.calls_functions {
            let mut used = s.tables_in_use.borrow_mut();
            for t in &plan.tables {
                used.push((t.db.clone(), t.table.clone()));
                pushed += 1;
            }
        }
        TablesInUse { s, pushed }
    }

    /// A client's statement (`Session::execute`): its tables are pushed
    /// until [`Self::leave`] is given the length returned.
    pub(crate) fn push(s: &Session, plan: &Compiled) -> usize {
        let mut used = s.tables_in_use.borrow_mut();
        let n = used.len();
        used.extend(plan.tables.iter().map(|t| (t.db.clone(), t.table.clone())));
        n
    }

    pub(crate) fn leave(s: &Session, n: usize) {
        s.tables_in_use.borrow_mut().truncate(n);
    }

    /// One table, while its triggers run.
    pub(crate) fn table(s: &'s Session, db: &str, table: &str) -> Self {
        s.tables_in_use.borrow_mut().push((db.to_string(), table.to_string()));
        TablesInUse { s, pushed: 1 }
    }
}

impl Drop for TablesInUse<'_> {
    fn drop(&mut self) {
        let mut used = self.s.tables_in_use.borrow_mut();
        let n = used.len().saturating_sub(self.pushed);
        used.truncate(n);
    }
}

/// LAST_INSERT_ID() as it was before a trigger or stored function ran,
/// given back when the guard drops: what the program's INSERTs set is
/// seen by its own statements only (MySQL).
pub(crate) struct KeepInsertId<'s> {
    s: &'s Session,
    id: u64,
}

impl<'s> KeepInsertId<'s> {
    pub(crate) fn new(s: &'s Session) -> Self {
        KeepInsertId { s, id: s.last_insert_id.get() }
    }
}

impl Drop for KeepInsertId<'_> {
    fn drop(&mut self) {
        self.s.last_insert_id.set(self.id);
    }
}
