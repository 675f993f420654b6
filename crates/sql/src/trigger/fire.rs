//! Firing: the one hook every row writer calls ([`fire`], through
//! `SessionEnv::fire`), and the interpreter's [`Host`] for a trigger: the
//! session, and the transaction of the statement that fired it, so what
//! the body writes is undone with the statement (statement rollback).
//!
//! Order per row, as MySQL's: BEFORE triggers (they may change NEW), the
//! row's checks (NOT NULL, generated columns, CHECK constraints), the
//! write, then AFTER triggers. Triggers of one timing and event run by
//! ACTION_ORDER.
//!
//! Invariant: while a table's triggers run, it is on the session's
//! tables in use; a statement of a body writing it fails with 1442
//! (`routine::run`, which runs the body's statements).

use std::sync::Arc;

use quire_engine::row::{Column, Value};
use quire_engine::table::Trx;
use sqlparser::ast;

use super::{Event, Timing, Trigger};
use crate::error::Result;
use crate::plan::TableRef;
use crate::query::Ctx;
use crate::routine::exec::{Host, Prepared};
use crate::routine::run::TablesInUse;
use crate::session::{Compiled, Env, Session};

/// The triggers of one table, looked up once per statement.
pub struct TableTriggers {
    list: Vec<Arc<Trigger>>,
}

impl TableTriggers {
    /// The triggers of `db`.`table`; `None` when it has none.
    pub fn of(s: &Session, db: &str, table: &str) -> Option<TableTriggers> {
        let reg = &s.shared.catalog.triggers;
        if !reg.any() {
            return None;
        }
        let list = reg.of_table(db, table);
        (!list.is_empty()).then_some(TableTriggers { list })
    }

    pub fn has(&self, timing: Timing, event: Event) -> bool {
        self.list.iter().any(|t| t.def.timing == timing && t.def.event == event)
    }

    /// Whether any trigger fires on `event`.
    pub fn on(&self, event: Event) -> bool {
        self.list.iter().any(|t| t.def.event == event)
    }
}

/// One row's firing: `table`'s triggers of `timing` and `event`, `old`
/// for UPDATE and DELETE, `new` for INSERT and UPDATE (a BEFORE
/// trigger's changes to NEW are written back into it). Rows may carry
/// the hidden row id after the visible columns; triggers see the visible
/// ones.
pub struct RowEvent<'a> {
    pub table: &'a TableRef,
    pub triggers: &'a TableTriggers,
    pub timing: Timing,
    pub event: Event,
    pub old: Option<&'a [Value]>,
    pub new: Option<&'a mut Vec<Value>>,
}

/// Runs the triggers of one [`RowEvent`].
pub fn fire(s: &Session, trx: &mut Trx, ev: RowEvent<'_>) -> Result<()> {
    let RowEvent { table, triggers: trgs, timing, event, old, mut new } = ev;
    let n = table.columns.len();
    for t in trgs.list.iter().filter(|t| t.def.timing == timing && t.def.event == event) {
        let prepared = prepared(s, t, table)?;
        let mut frame = Vec::with_capacity(2 * n);
        match new.as_deref() {
            Some(r) => frame.extend(r.iter().take(n).cloned()),
            None => frame.resize(n, Value::Null),
        }
        match old {
            Some(r) => frame.extend(r.iter().take(n).cloned()),
            None => frame.resize(2 * n, Value::Null),
        }
        let used = TablesInUse::table(s, &table.db, &table.name);
        let _id = crate::routine::run::KeepInsertId::new(s);
        let mut host = TriggerHost { s, trx: &mut *trx, db: &t.def.db };
        let r = prepared.run(&mut host, frame);
        drop(used);
        let out = r?;
        if timing == Timing::Before {
            if let Some(row) = new.as_deref_mut() {
                for (i, v) in out.into_iter().take(n).enumerate() {
                    row[i] = v;
                }
            }
        }
    }
    Ok(())
}

/// The trigger's program for the current DDL epoch (invariant 3 of the
/// module).
fn prepared(s: &Session, t: &Trigger, table: &TableRef) -> Result<Arc<Prepared>> {
    let epoch = s.shared.epoch();
    let mut g = t.prepared.lock();
    if let Some((e, p)) = g.as_ref() {
        if *e == epoch {
            return Ok(p.clone());
        }
    }
    let program = crate::routine::parse::program(&t.def.body)?;
    let names = super::ddl::names_for(&table.schema, t.def.timing, t.def.event);
    let p = Arc::new(crate::routine::exec::prepare(&program, &names)?);
    *g = Some((epoch, p.clone()));
    Ok(p)
}

/// `value` converted for a stored program's variable of type `col`
/// (MySQL's assignment rules and the session's sql_mode; NULL stays
/// NULL), for a program of database `db`.
pub(crate) fn convert(s: &Session, db: &str, col: &Column, value: Value) -> Result<Value> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let env = Env { s };
    let ctx = Ctx { params: &[], aggs: vec![], session: &env, in_keys: Default::default() };
    let at = crate::store::Place { db, table: "", row: 1 };
    crate::store::assign(col, value, at, &ctx)
}

struct TriggerHost<'a> {
    s: &'a Session,
    trx: &'a mut Trx,
    /// The trigger's database: its statements' names resolve there.
    db: &'a str,
}

impl Host for TriggerHost<'_> {
    fn epoch(&self) -> u64 {
        self.s.shared.epoch()
    }

    fn compile(&self, stmt: &ast::Statement) -> Result<Arc<Compiled>> {
        Ok(Arc::new(self.s.compile_in(stmt.clone(), Some(self.db))?))
    }

    /// Runs one statement of the body. One that fails is not undone by
    /// itself (no statement rollback inside a trigger, as in MariaDB and
    /// MySQL): a handler that takes its error goes on with what it wrote.
    fn run(&mut self, plan: &Compiled, params: &[Value]) -> Result<Vec<Vec<Value>>> {
        crate::routine::run::in_trx(self.s, self.trx, plan, params, "trigger")
    }

    fn convert(&self, col: &Column, value: Value) -> Result<Value> {
        convert(self.s, self.db, col, value)
    }

    fn session(&self) -> &Session {
        self.s
    }
}
