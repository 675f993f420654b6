//! INSERT's duplicate-key forms and INSERT ... SELECT: INSERT IGNORE,
//! REPLACE, INSERT ... ON DUPLICATE KEY UPDATE, each with VALUES rows or a
//! source query, as MariaDB runs them (`write_record` in its
//! `sql_insert.cc`). The plain INSERT ... VALUES stays in `dml.rs` (the
//! bulk-load path); everything else comes here.
//!
//! Each new row is offered to the engine with
//! [`Table::insert_or_duplicate_tx`]: a duplicate comes back with the
//! conflicting row, locked, and then
//! - IGNORE (no ON DUPLICATE KEY UPDATE): the row is skipped with warning
//!   1062;
//! - REPLACE: the conflicting row is deleted and the insert retried (each
//!   retry deletes one row, so several rows conflicting on different
//!   unique keys all go);
//! - ON DUPLICATE KEY UPDATE: the assignments run on the conflicting row,
//!   seeing its columns by name and the new row's through `VALUES(col)`
//!   or the MySQL 8.0.19 row alias (`AS new [(a, b)]`, `new.col`), which
//!   MariaDB 10.11 refuses as a syntax error: we follow MySQL there.
//!
//! Counts, as MariaDB's (`info.records / copied / deleted / updated`):
//! affected = inserted + deleted (REPLACE) + 2 per changed row (ODKU),
//! plus 1 per unchanged row under CLIENT_FOUND_ROWS; the info string's
//! `Duplicates` is deleted + changed rows, or for IGNORE the rows not
//! inserted.
//!
//! AUTO_INCREMENT: values are taken from intervals the statement reserves
//! as MariaDB's `handler::update_auto_increment` and InnoDB's
//! `get_auto_increment` do (first the VALUES row count, or 1 for a query;
//! then 2, 4, ... values; after an explicit value jumped past an interval,
//! as many values as the statement has rows left), and a value whose row
//! turned out a duplicate is given back to the next row. Values left in
//! the last interval are lost, as in InnoDB (gaps).
//!
//! INSERT ... SELECT reads its source completely before writing (MySQL's
//! temporary table when a table is read and written), with S locks under
//! REPEATABLE READ and SERIALIZABLE (InnoDB's locking read of the source),
//! and no locks under READ COMMITTED and below.

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;

use quire_engine::row::{TableSchema, Value};
use quire_engine::table::{Inserted, RowUpdate, Trx};
use quire_engine::txn::lock::LockMode;
use quire_engine::txn::Isolation;
use sqlparser::ast;

use crate::diag::{Condition, Level};
use crate::dml::{carried, new_row, pk_of, BeforeRow, InsertPlan, RowEnv, WriteResult};
use crate::error::{Result, SqlError};
use crate::expr::{self, eval, Env, Expr, Names, Scope};
use crate::plan::TableRef;
use crate::query::{ident, Ctx, Resolver, SessionEnv};
use crate::store::{self, Place};
use crate::trigger::{Event, TableTriggers, Timing};

/// What a duplicate key does.
#[derive(Debug)]
pub enum Action {
    /// An error (1062), or a warning and the row skipped under IGNORE.
    Fail,
    /// REPLACE: the conflicting rows are deleted.
    Replace,
    /// ON DUPLICATE KEY UPDATE: (column, value) on the conflicting row,
    /// whose expressions read a row of the table's visible columns
    /// followed by the new row's.
    Update(Vec<(usize, Expr)>),
}

/// The qualifier `VALUES(col)` is rewritten to (not a name SQL can write).
const VALUES_OF: &str = "\u{1}values";

/// Compiles REPLACE / ON DUPLICATE KEY UPDATE; `params` counts the `?`
/// markers before the assignments.
pub fn compile_action(
    ins: &ast::Insert,
    table: &TableRef,
    targets: &[usize],
    params: &mut usize,
    _r: &dyn Resolver,
) -> Result<Action> {
    if ins.replace_into {
        return Ok(Action::Replace);
    }
    let sets = match &ins.on {
        None => return Ok(Action::Fail),
        Some(ast::OnInsert::DuplicateKeyUpdate(sets)) => sets,
        Some(other) => return Err(SqlError::unsupported(format!("INSERT ... {other}"))),
    };
    // The row alias and its column names (MySQL 8.0.19).
    let alias = ins.insert_alias.as_ref().map(|a| {
        let name = a.row_alias.0.last().and_then(|p| p.as_ident()).map(ident).unwrap_or_default();
        let cols: Option<Vec<String>> =
            a.col_aliases.as_ref().filter(|c| !c.is_empty()).map(|c| c.iter().map(ident).collect());
        (name, cols)
    });
    if let Some((_, Some(cols))) = &alias {
        if cols.len() != targets.len() {
            return Err(SqlError::new(1136, "21S01", "Column count doesn't match value count at row 1"));
        }
    }
    let n = table.columns.len();
    let colls: Vec<_> =
        table.schema.columns[..n].iter().chain(&table.schema.columns[..n]).map(|c| c.collation).collect();
    let mut names = OdkuNames { table, alias, targets };
    let mut out = Vec::with_capacity(sets.len());
    let has_generated = !table.table.generated().is_empty();
    for a in sets {
        let col = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => {
                n.0.last().and_then(|p| p.as_ident()).map(ident).unwrap_or_default()
            }
            other => return Err(SqlError::unsupported(format!("assignment to {other}"))),
        };
        let c = table
            .columns
            .iter()
            .position(|x| x.eq_ignore_ascii_case(&col))
            .ok_or_else(|| SqlError::unknown_column(&col, "field list"))?;
        if has_generated && crate::create::generated::is_generated(table, c) {
            if crate::defaults::is_default(&a.value) {
                continue; // recomputed with the row anyway
            }
            crate::create::generated::refuse_values(table, &[c])?;
        }
        let mut value = a.value.clone();
        rewrite_values_calls(&mut value);
        let mut scope = Scope {
            table: None,
            columns: &[],
            aggs: None,
            params: *params,
            place: "field list",
            rel: Some(&mut names),
        };
        let x = expr::compile(&value, &mut scope)?;
        *params = scope.params;
        out.push((c, expr::with_collations(x, &colls)));
    }
    Ok(Action::Update(out))
}

/// `VALUES(col)` becomes a column reference qualified by [`VALUES_OF`].
fn rewrite_values_calls(e: &mut ast::Expr) {
    let _ = ast::visit_expressions_mut(e, |x| {
        if let ast::Expr::Function(f) = x {
            if f.name.to_string().eq_ignore_ascii_case("values") {
                if let ast::FunctionArguments::List(l) = &f.args {
                    if let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(arg))] = l.args.as_slice() {
                        let col = match arg {
                            ast::Expr::Identifier(i) => Some(i.clone()),
                            ast::Expr::CompoundIdentifier(p) => p.last().cloned(),
                            _ => None,
                        };
                        if let Some(col) = col {
                            *x = ast::Expr::CompoundIdentifier(vec![ast::Ident::new(VALUES_OF), col]);
                        }
                    }
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Names in ON DUPLICATE KEY UPDATE: the table's columns (the conflicting
/// row, slots `0..n`), the new row's (slots `n..2n`) by `VALUES(col)` or
/// the row alias.
struct OdkuNames<'a> {
    table: &'a TableRef,
    alias: Option<(String, Option<Vec<String>>)>,
    targets: &'a [usize],
}

impl Names for OdkuNames<'_> {
    fn column(&mut self, qualifier: Option<&str>, name: &str, place: &'static str) -> Result<Expr> {
        let t = self.table;
        let n = t.columns.len();
        let by_name = |name: &str| t.columns.iter().position(|c| c.eq_ignore_ascii_case(name));
        let unknown = || {
            let full = qualifier.map_or(name.to_string(), |q| format!("{q}.{name}"));
            SqlError::unknown_column(&full, place)
        };
        if qualifier == Some(VALUES_OF) {
            return by_name(name).map(|i| Expr::Col(n + i)).ok_or_else(unknown);
        }
        if let (Some(q), Some((alias, cols))) = (qualifier, &self.alias) {
            if q.eq_ignore_ascii_case(alias) {
                let i = match cols {
                    Some(cols) => cols.iter().position(|c| c.eq_ignore_ascii_case(name)).map(|k| self.targets[k]),
                    None => by_name(name),
                };
                return i.map(|i| Expr::Col(n + i)).ok_or_else(unknown);
            }
        }
        if let Some(q) = qualifier {
            let ok = q.eq_ignore_ascii_case(&t.name) || t.alias.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(q));
            if !ok {
                return Err(unknown());
            }
        }
        if let Some(i) = by_name(name) {
            return Ok(Expr::Col(i));
        }
        // MySQL: an unqualified name that is no column of the table may
        // name a column alias of the row alias (`AS new (m, n)`, `m + n`).
        match (qualifier, &self.alias) {
            (None, Some((_, Some(cols)))) => cols
                .iter()
                .position(|c| c.eq_ignore_ascii_case(name))
                .map(|k| Expr::Col(n + self.targets[k]))
                .ok_or_else(unknown),
            _ => Err(unknown()),
        }
    }

    fn subquery(&mut self, _q: &ast::Query, _params: &mut usize) -> Result<std::sync::Arc<crate::rel::Subquery>> {
        Err(SqlError::unsupported("a subquery in ON DUPLICATE KEY UPDATE"))
    }
}

/// INSERT ... SELECT / TABLE / (SELECT ...) UNION ...: the source through
/// the general query engine.
pub fn compile_insert_select(
    ins: &ast::Insert,
    table: TableRef,
    targets: Vec<usize>,
    source: &ast::Query,
    r: &dyn Resolver,
) -> Result<InsertPlan> {
    let q = crate::rel::compile(source.clone(), r)?;
    if q.plan.columns().len() != targets.len() {
        return Err(SqlError::new(1136, "21S01", "Column count doesn't match value count at row 1"));
    }
    crate::create::generated::refuse_values(&table, &targets)?;
    let mut params = q.params;
    let action = compile_action(ins, &table, &targets, &mut params, r)?;
    Ok(InsertPlan {
        constraints: crate::create::check::of(&table)?,
        table,
        targets,
        rows: Vec::new(),
        params,
        checks: Vec::new(),
        ignore: ins.ignore,
        action,
        select: Some(Box::new(q)),
        row_targets: Vec::new(),
        generated_given: Vec::new(),
        calls_functions: false,
    })
}

/// The statement's AUTO_INCREMENT interval (see the module note); also
/// the plain multi-row INSERT's (`dml::run_insert`).
pub(crate) struct AutoInc {
    /// The AUTO_INCREMENT column, if the table has one.
    col: Option<usize>,
    next: u64,
    end: u64,
    /// Intervals reserved so far.
    intervals: u32,
    /// Rows the statement expects (VALUES), 0 for a query.
    estimate: u64,
    /// InnoDB's `trx->n_autoinc_rows`: set to the first interval's size,
    /// less one per row offered since (explicit values too). A row that
    /// needs a new interval while it is not zero (an explicit value jumped
    /// past the interval) reserves that many values; at zero the next
    /// interval is the handler's next size.
    remaining: u64,
    /// `SET insert_id = n`: the first value the statement generates.
    forced: Option<u64>,
}

impl AutoInc {
    /// For a statement on `schema` expecting `estimate` rows (0 when not
    /// known: a query).
    pub(crate) fn new(schema: &TableSchema, estimate: u64) -> Self {
        let col = schema.columns.iter().position(|c| c.auto_increment);
        AutoInc { col, next: 0, end: 0, intervals: 0, estimate, remaining: 0, forced: None }
    }

    /// Takes the session's `insert_id` (SET insert_id = n, as `mysqlbinlog`
    /// output replays a statement's AUTO_INCREMENT value): the first value
    /// the statement generates is n, later rows go on from the table's
    /// counter, which n, like an explicit value, moves past. The session
    /// clears `insert_id` once a statement has generated a value.
    pub(crate) fn with_insert_id(mut self, session: &dyn SessionEnv) -> Self {
        self.forced = Some(session.insert_id()).filter(|n| *n > 0);
        self
    }

    /// Whether `insert_id` will give the first generated value.
    pub(crate) fn forced(&self) -> bool {
        self.forced.is_some()
    }

    /// Whether the table has an AUTO_INCREMENT column.
    pub(crate) fn applies(&self) -> bool {
        self.col.is_some()
    }

    /// Fills the AUTO_INCREMENT column of `row` if it asks for a value
    /// (NULL or 0); returns the value generated.
    pub(crate) fn fill(&mut self, t: &TableRef, row: &mut [Value]) -> Option<u64> {
        let c = self.col?;
        let generated = match row[c] {
            Value::Null | Value::Int(0) | Value::UInt(0) if self.forced.is_some() => {
                let id = self.forced.take().unwrap_or_default();
                row[c] = if t.schema.columns[c].ty.is_unsigned() { Value::UInt(id) } else { Value::Int(id as i64) };
                self.explicit(id);
                if self.intervals == 0 {
                    // The forced value stands for the first interval, as
                    // the handler's forced interval does: the rest of
                    // the statement's rows reserve only what they need.
                    self.intervals = 1;
                    self.remaining = self.estimate;
                }
                Some(id)
            }
            Value::Null | Value::Int(0) | Value::UInt(0) => {
                if self.next >= self.end {
                    let n = if self.remaining > 0 {
                        self.remaining
                    } else if self.intervals == 0 && self.estimate > 0 {
                        self.estimate
                    } else {
                        1u64 << self.intervals.min(16)
                    };
                    self.intervals += 1;
                    self.remaining = n;
                    self.next = t.table.reserve_auto_increment(n);
                    self.end = self.next + n;
                }
                let id = self.next;
                self.next += 1;
                row[c] = if t.schema.columns[c].ty.is_unsigned() { Value::UInt(id) } else { Value::Int(id as i64) };
                Some(id)
            }
            Value::Int(v) if v > 0 => {
                self.explicit(v as u64);
                None
            }
            Value::UInt(v) => {
                self.explicit(v);
                None
            }
            _ => None,
        };
        self.remaining = self.remaining.saturating_sub(1);
        generated
    }

    /// An explicit value: the interval continues past it.
    fn explicit(&mut self, v: u64) {
        if v >= self.next {
            self.next = v.saturating_add(1);
            self.end = self.end.max(self.next);
        }
    }

    /// The row that took `id` was not inserted: the next row takes it.
    fn give_back(&mut self, id: Option<u64>) {
        if let Some(id) = id {
            if id + 1 == self.next {
                self.next = id;
            }
        }
    }
}

/// Runs an INSERT that is not plain (see [`InsertPlan::is_plain`]).
pub fn run(
    p: &InsertPlan,
    trx: &mut Trx,
    params: &[Value],
    tuples: usize,
    session: &dyn SessionEnv,
) -> Result<WriteResult> {
    let per = if tuples > 1 { p.params } else { params.len() };
    let mut w = Writer::new(p, session, (p.rows.len() * tuples) as u64)?;
    if let Some(q) = &p.select {
        let lock =
            matches!(trx.isolation(), Isolation::RepeatableRead | Isolation::Serializable).then_some(LockMode::S);
        // The whole source first (MySQL's temporary table): the target may
        // be among the tables it reads.
        let rows = {
            let ex = crate::rel::exec::Exec::new(&params[..q.params.min(params.len())], session, Some(trx), lock);
            ex.run(&q.plan, &[])?
        };
        // ON DUPLICATE KEY UPDATE's markers are numbered after the query's.
        let ctx = Ctx { params, aggs: vec![], session, in_keys: Default::default() };
        for (i, vals) in rows.into_iter().enumerate() {
            let at = Place { db: &p.table.db, table: &p.table.name, row: i as u64 + 1 };
            let row = {
                let mut before = |row: &mut Vec<Value>| w.fire(trx, Timing::Before, Event::Insert, None, Some(row));
                let before = w.trg.is_some().then_some(&mut before as BeforeRow<'_>);
                new_row(p, &p.targets, vals.into_iter().map(Ok), true, at, &ctx, before)
            };
            let Some(row) = crate::create::check::ignored(p.ignore, row, &ctx)? else { continue };
            w.put(trx, row, &ctx)?;
        }
    } else {
        let lenient_null = p.ignore || p.rows.len() * tuples > 1;
        let rows = (0..tuples).flat_map(|k| p.rows.iter().enumerate().map(move |(j, r)| (k, j, r)));
        for (i, (k, j, exprs)) in rows.enumerate() {
            let ctx =
                Ctx { params: &params[k * per..(k + 1) * per], aggs: vec![], session, in_keys: Default::default() };
            let at = Place { db: &p.table.db, table: &p.table.name, row: i as u64 + 1 };
            let targets = p.targets_of(j, exprs);
            let early = p.calls_functions.then(|| crate::dml::lent_values(exprs, &ctx, trx));
            let values = crate::dml::row_values(exprs, early, &ctx);
            let row = {
                let mut before = |row: &mut Vec<Value>| w.fire(trx, Timing::Before, Event::Insert, None, Some(row));
                let before = w.trg.is_some().then_some(&mut before as BeforeRow<'_>);
                new_row(p, targets, values, lenient_null, at, &ctx, before)
            };
            let Some(row) = crate::create::check::ignored(p.ignore, row, &ctx)? else { continue };
            w.put(trx, row, &ctx)?;
        }
    }
    let mut res = w.res;
    if p.ignore {
        res.duplicates = res.records - res.matched;
    }
    Ok(res)
}

/// Writes the rows of one statement, counting as MariaDB does (`matched`
/// holds MariaDB's `copied`: rows inserted or updated).
struct Writer<'a> {
    p: &'a InsertPlan,
    res: WriteResult,
    auto: AutoInc,
    found_rows: bool,
    /// The FOREIGN KEYs the target takes part in (`fk` module): a new row
    /// needs its parents, a REPLACE's deleted row and an update's changed
    /// key carry their children along, as in `dml.rs`.
    fk: Option<(crate::fk::Checks<'a>, std::sync::Arc<crate::fk::TableFks>)>,
    /// The target's triggers, if it has any, fired as MariaDB's
    /// `write_record` fires them: BEFORE INSERT as each row is built,
    /// AFTER INSERT once it is written (a REPLACE's row too, an ODKU's
    /// updated row not); a REPLACE's deleted row fires the DELETE
    /// triggers, and a table with DELETE triggers never takes REPLACE's
    /// in-place update; an ODKU's row fires BEFORE and AFTER UPDATE,
    /// changed or not.
    trg: Option<TableTriggers>,
    session: &'a dyn SessionEnv,
}

impl<'a> Writer<'a> {
    /// A writer for `p`'s rows; `estimate` rows are expected (the size of
    /// the first AUTO_INCREMENT interval; 0 when unknown).
    fn new(p: &'a InsertPlan, session: &'a dyn SessionEnv, estimate: u64) -> Result<Self> {
        let fk = crate::dml::fk_of(&p.table, session);
        if p.ignore && !matches!(p.action, Action::Fail) && fk.as_ref().is_some_and(|(_, f)| !f.as_child.is_empty()) {
            // An IGNORE upsert's changed key would need the same undo of
            // one row as `put`'s new rows have: not built.
            return Err(SqlError::unsupported(
                "INSERT IGNORE ... ON DUPLICATE KEY UPDATE into a table with FOREIGN KEYs",
            ));
        }
        Ok(Writer {
            p,
            res: WriteResult::default(),
            auto: AutoInc::new(&p.table.schema, estimate).with_insert_id(session),
            found_rows: session.client_found_rows(),
            fk,
            trg: crate::dml::triggers_of(&p.table, session, None),
            session,
        })
    }

    /// The target's `timing` `event` triggers on one row, if it has any.
    fn fire(
        &self,
        trx: &mut Trx,
        timing: Timing,
        event: Event,
        old: Option<&[Value]>,
        new: Option<&mut Vec<Value>>,
    ) -> Result<()> {
        match &self.trg {
            Some(trg) => crate::dml::fire_row(self.session, trx, &self.p.table, trg, timing, event, old, new),
            None => Ok(()),
        }
    }

    fn deletes_fire(&self) -> bool {
        self.trg.as_ref().is_some_and(|t| t.on(Event::Delete))
    }

    fn put(&mut self, trx: &mut Trx, mut row: Vec<Value>, env: &dyn Env) -> Result<()> {
        let p = self.p;
        let t = &p.table;
        self.res.records += 1;
        let generated = self.auto.fill(t, &mut row);
        // The row a duplicate finds is changed next by REPLACE and ODKU:
        // X at once (InnoDB's), so two upserts of one key wait, not deadlock.
        let dup_lock = if matches!(p.action, Action::Fail) { LockMode::S } else { LockMode::X };
        loop {
            let written = (self.fk.is_some() || self.trg.is_some()).then(|| row.clone());
            // The parents are checked once the row is written (a row may
            // be its own parent); IGNORE undoes a row that has none.
            let before = trx.savepoint();
            let d = match t.table.insert_or_duplicate_tx(trx, row, dup_lock)? {
                Inserted::Row(_) => {
                    if let (Some((c, fks)), Some(new)) = (&self.fk, &written) {
                        match crate::fk::enforce::child_written(c, trx, fks, &t.schema, None, new) {
                            Err(e) if p.ignore && e.code == crate::fk::enforce::NO_PARENT => {
                                trx.rollback_to(before)?;
                                self.auto.give_back(generated);
                                return env.warn(Condition::new(Level::Warning, e.code, e.message));
                            }
                            r => r?,
                        }
                    }
                    if let Some(id) = generated.filter(|_| self.res.first_insert_id == 0) {
                        self.res.first_insert_id = id;
                    }
                    self.res.affected += 1;
                    self.res.matched += 1;
                    if let Some(mut new) = written.filter(|_| self.trg.is_some()) {
                        self.fire(trx, Timing::After, Event::Insert, None, Some(&mut new))?;
                    }
                    return Ok(());
                }
                Inserted::Duplicate(d) => d,
            };
            match &p.action {
                Action::Fail if p.ignore => {
                    self.auto.give_back(generated);
                    let e = SqlError::from(d.to_error());
                    return env.warn(Condition::new(Level::Warning, e.code, e.message));
                }
                Action::Fail => return Err(d.to_error().into()),
                Action::Replace if self.same_row_kept(&d) => {
                    // MariaDB updates the row in place here, and an update
                    // to the same values changes nothing: counted as one
                    // row written, none deleted (`write_record`,
                    // HA_ERR_RECORD_IS_THE_SAME).
                    self.res.affected += 1;
                    self.res.matched += 1;
                    let mut new = d.row;
                    return self.fire(trx, Timing::After, Event::Insert, None, Some(&mut new));
                }
                Action::Replace => {
                    // Delete the holder of the key, then try again with the
                    // same values (its AUTO_INCREMENT value kept). Its
                    // children follow first, as a DELETE's.
                    self.fire(trx, Timing::Before, Event::Delete, Some(&d.existing), None)?;
                    if let Some((c, fks)) = self.fk.as_ref().filter(|(_, f)| !f.as_parent.is_empty()) {
                        crate::fk::enforce::parent_deleting(c, trx, fks, &t.schema, &d.existing, 0)?;
                    }
                    if t.table.delete_tx(trx, &pk_of(t, &d.existing))? {
                        self.res.affected += 1;
                        self.res.duplicates += 1;
                        self.fire(trx, Timing::After, Event::Delete, Some(&d.existing), None)?;
                    }
                    row = d.row;
                }
                // Stored functions in the assignments read through the
                // transaction: the new row is computed before the write.
                Action::Update(sets) if self.trg.is_some() || p.calls_functions => {
                    self.auto.give_back(generated);
                    return self.update_firing(trx, sets, &d.existing, &d.row, env);
                }
                Action::Update(sets) => {
                    self.auto.give_back(generated);
                    return self.update(trx, sets, &d.existing, &d.row, env);
                }
            }
        }
    }

    /// REPLACE found a row equal to the new one on the last unique key of
    /// a table no FOREIGN KEY references: MariaDB's in-place update, which
    /// changes nothing (`last_uniq_key` in `sql_insert.cc`).
    fn same_row_kept(&self, d: &quire_engine::table::Duplicate) -> bool {
        let t = &self.p.table;
        let n = t.columns.len();
        let referenced = self.fk.as_ref().is_some_and(|(_, f)| !f.as_parent.is_empty()) || self.deletes_fire();
        let later_unique = |from: usize| t.schema.indexes.iter().skip(from).any(|i| i.unique);
        let last = match d.index {
            None => !later_unique(0),
            Some(i) => !later_unique(i + 1),
        };
        last && !referenced && d.existing.len() >= n && d.row.len() >= n && d.existing[..n] == d.row[..n]
    }

    /// ON DUPLICATE KEY UPDATE of the row `existing`, `new` being the row
    /// that was not inserted.
    fn update(
        &mut self,
        trx: &mut Trx,
        sets: &[(usize, Expr)],
        existing: &[Value],
        new: &[Value],
        env: &dyn Env,
    ) -> Result<()> {
        let t = &self.p.table;
        let error: RefCell<Option<SqlError>> = RefCell::new(None);
        let row_env = RowEnv { inner: env, kept: RefCell::new(Vec::new()), mute: Cell::new(false) };
        let at = Place { db: &t.db, table: &t.name, row: self.res.records };
        // (old, new) of the change, for the foreign keys.
        let change: RefCell<Option<(Vec<Value>, Vec<Value>)>> = RefCell::new(None);
        let f = |old: &[Value]| -> quire_engine::Result<Vec<Value>> {
            let go = || -> Result<Vec<Value>> {
                row_env.kept.borrow_mut().clear();
                let mut cur = self.assigned(sets, old, new, at, &row_env)?;
                crate::create::check::enforce(&self.p.constraints, &mut cur, at, &row_env)?;
                if self.fk.is_some() {
                    *change.borrow_mut() = Some((old.to_vec(), cur.clone()));
                }
                Ok(cur)
            };
            go().map_err(|e| {
                *error.borrow_mut() = Some(e);
                carried()
            })
        };
        match row_env.settle(t.table.update_tx(trx, &pk_of(t, existing), f), &error)? {
            Ok(RowUpdate::Changed) => {
                if let Some((old, new)) = change.borrow_mut().take() {
                    crate::dml::fk_updated(&self.fk, trx, &t.schema, &old, &new)?;
                }
                self.count_update(true);
            }
            Ok(RowUpdate::Unchanged | RowUpdate::NotFound) => self.count_update(false),
            Err(e @ quire_engine::Error::DuplicateKey { .. }) if self.p.ignore => {
                let e = SqlError::from(e);
                env.warn(Condition::new(Level::Warning, e.code, e.message))?;
            }
            Err(e) => return Err(e.into()),
        }
        Ok(())
    }
}

impl Writer<'_> {
    /// Counts an ON DUPLICATE KEY UPDATE's row as MariaDB does: 2 affected
    /// when it changed; when not, 1 under CLIENT_FOUND_ROWS, else none.
    fn count_update(&mut self, changed: bool) {
        if !changed {
            self.res.unchanged += 1;
        }
        if changed || self.found_rows {
            self.res.affected += 1 + changed as u64;
            self.res.matched += 1;
            self.res.duplicates += 1;
        }
    }

    /// The row `old` with ON DUPLICATE KEY UPDATE's assignments made, each
    /// seeing the row as updated so far (as UPDATE's) followed by the new
    /// row `new`, and ON UPDATE timestamps stamped.
    fn assigned(
        &self,
        sets: &[(usize, Expr)],
        old: &[Value],
        new: &[Value],
        at: Place<'_>,
        env: &dyn Env,
    ) -> Result<Vec<Value>> {
        let t = &self.p.table;
        let n = t.columns.len();
        let mut cur: Vec<Value> = old[..n].iter().chain(&new[..n]).cloned().collect();
        for (c, e) in sets {
            let col = &t.schema.columns[*c];
            cur[*c] = match eval(e, &cur, env)? {
                Value::Null if !col.nullable => store::null_into_not_null(col, true, env)?,
                Value::Null => Value::Null,
                v => store::assign(col, v, at, env)?,
            };
        }
        cur.truncate(n);
        let columns = &t.schema.columns[..n];
        store::stamp_on_update(columns, &|i| sets.iter().any(|(c, _)| *c == i), &old[..n], &mut cur);
        Ok(cur)
    }

    /// ON DUPLICATE KEY UPDATE of `existing` (X-locked by the duplicate
    /// check) on a table with triggers: the new values computed first,
    /// then BEFORE UPDATE (which may change them), the row's checks, the
    /// write, AFTER UPDATE, as `dml::update_with_triggers` does for an
    /// UPDATE's row.
    fn update_firing(
        &mut self,
        trx: &mut Trx,
        sets: &[(usize, Expr)],
        existing: &[Value],
        new: &[Value],
        env: &dyn Env,
    ) -> Result<()> {
        let t = &self.p.table;
        let n = t.columns.len();
        let at = Place { db: &t.db, table: &t.name, row: self.res.records };
        let mut cur = if self.p.calls_functions {
            let lent = crate::stored::func::Lent { inner: env, session: self.session, trx: RefCell::new(&mut *trx) };
            self.assigned(sets, existing, new, at, &lent)?
        } else {
            self.assigned(sets, existing, new, at, env)?
        };
        let columns = &t.schema.columns[..n];
        self.fire(trx, Timing::Before, Event::Update, Some(existing), Some(&mut cur))?;
        for (c, col) in columns.iter().enumerate() {
            if cur[c].is_null() && !col.nullable && !self.p.constraints.generated.contains(c) {
                cur[c] = store::null_into_not_null(col, true, env)?;
            }
        }
        crate::create::check::enforce(&self.p.constraints, &mut cur, at, env)?;
        match t.table.update_tx(trx, &pk_of(t, existing), |_| Ok(cur.clone())) {
            Ok(RowUpdate::Changed) => {
                crate::dml::fk_updated(&self.fk, trx, &t.schema, existing, &cur)?;
                self.count_update(true);
            }
            Ok(RowUpdate::Unchanged | RowUpdate::NotFound) => self.count_update(false),
            Err(e @ quire_engine::Error::DuplicateKey { .. }) if self.p.ignore => {
                let e = SqlError::from(e);
                return env.warn(Condition::new(Level::Warning, e.code, e.message));
            }
            Err(e) => return Err(e.into()),
        }
        self.fire(trx, Timing::After, Event::Update, Some(existing), Some(&mut cur))
    }
}

/// Rows written one at a time through an INSERT plan's duplicate handling,
/// AUTO_INCREMENT and foreign keys, as [`run`] writes them: LOAD DATA
/// (`load/`) builds each row from its file and hands it here.
pub struct RowWriter<'a>(Writer<'a>);

impl<'a> RowWriter<'a> {
    pub fn new(p: &'a InsertPlan, session: &'a dyn SessionEnv) -> Result<Self> {
        Ok(Self(Writer::new(p, session, 0)?))
    }

    /// BEFORE INSERT triggers of the target on `row`, built but not yet
    /// checked (see `dml::before_insert`), if it has any.
    pub fn before(&self, trx: &mut Trx, row: &mut Vec<Value>, env: &dyn Env) -> Result<()> {
        if self.0.trg.is_none() {
            return Ok(());
        }
        let mut fire = |r: &mut Vec<Value>| self.0.fire(trx, Timing::Before, Event::Insert, None, Some(r));
        crate::dml::before_insert(self.0.p, row, true, env, &mut fire)
    }

    /// Whether the target has BEFORE INSERT triggers.
    pub fn fires_before(&self) -> bool {
        self.0.trg.as_ref().is_some_and(|t| t.has(Timing::Before, Event::Insert))
    }

    /// Writes one converted, checked row (see [`Writer::put`]).
    pub fn put(&mut self, trx: &mut Trx, row: Vec<Value>, env: &dyn Env) -> Result<()> {
        self.0.put(trx, row, env)
    }

    /// The counts so far: `matched` rows were inserted, `duplicates` rows
    /// deleted by REPLACE.
    pub fn result(&self) -> &WriteResult {
        &self.0.res
    }
}
