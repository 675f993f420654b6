//! INSERT, UPDATE and DELETE of one table, in the session's transaction.
//!
//! UPDATE and DELETE read like InnoDB's: the rows the access path finds
//! are locked (X) and the WHERE clause is evaluated on their latest
//! version, not on the snapshot; SET expressions see the row as updated
//! so far (`SET a = a + 1, b = a` gives b the new a, as MySQL does).

use std::cell::{Cell, RefCell};

use quire_engine::btree::Direction;
use quire_engine::row::Value;
use quire_engine::table::{RowUpdate, Trx};
use quire_engine::txn::lock::LockMode;
use sqlparser::ast;

use crate::diag::{Condition, Mode};
use crate::dml_order::RowOrder;
use crate::error::{Result, SqlError};
use crate::expr::{self, eval, truth, Env, Expr, Scope};
use crate::plan::{choose_access, Access, TableRef};
use crate::query::{for_each_row, ident, Ctx, Resolver};
use crate::rel::bind::has_subquery;
use crate::rel::exec::Exec;
use crate::store::{self, Place};
use crate::trigger::{Event, TableTriggers, Timing};
use quire_engine::txn::Isolation;

pub struct InsertPlan {
    pub table: TableRef,
    /// Positions of the columns the VALUES rows fill, in order.
    pub targets: Vec<usize>,
    pub rows: Vec<Vec<Expr>>,
    pub params: usize,
    /// WITH CHECK OPTION of the views written through (`view_dml`): each
    /// new row must satisfy these, else 1369 naming the view.
    pub checks: Vec<(Expr, String)>,
    /// The target's generated columns and enforced CHECK constraints
    /// (`create::check::Rules`): each new row has the former computed and
    /// must not make one of the latter FALSE, else 3819 naming it.
    pub constraints: crate::create::check::Rules,
    /// INSERT IGNORE: duplicates skipped and conversion errors made
    /// warnings (`upsert.rs`).
    pub ignore: bool,
    /// What a duplicate key does (`upsert.rs`).
    pub action: crate::upsert::Action,
    /// INSERT ... SELECT / TABLE: the source query (then `rows` is empty).
    pub select: Option<Box<crate::rel::Compiled>>,
    /// Per row, its own columns when it used the DEFAULT keyword
    /// (`defaults.rs`); empty when no row did.
    pub row_targets: Vec<Option<Vec<usize>>>,
    /// A plain INSERT ... VALUES giving generated columns values: per
    /// VALUES row, those columns (`create::generated::given_values`);
    /// empty when none is given. The values are replaced by the computed
    /// ones; strict mode refuses them (3105), other modes warn 1906.
    pub generated_given: Vec<Vec<usize>>,
    /// The values call stored functions: each row's are evaluated with
    /// the transaction lent to them ([`row_values`]).
    pub calls_functions: bool,
}

impl InsertPlan {
    /// A plain INSERT ... VALUES: the bulk-insert path, no duplicate
    /// handling.
    pub fn is_plain(&self) -> bool {
        !self.ignore && matches!(self.action, crate::upsert::Action::Fail) && self.select.is_none()
    }

    /// The columns the `j`-th VALUES row fills.
    pub fn targets_of(&self, j: usize, exprs: &[Expr]) -> &[usize] {
        if exprs.is_empty() {
            return &[];
        }
        match self.row_targets.get(j) {
            Some(Some(t)) => t,
            _ => &self.targets,
        }
    }
}

pub struct UpdatePlan {
    pub table: TableRef,
    pub access: Access,
    pub filter: Option<Expr>,
    pub sets: Vec<(usize, Expr)>,
    /// ORDER BY (`dml_order.rs`): rows are changed in its order.
    pub order: Option<RowOrder>,
    pub limit: Option<usize>,
    pub params: usize,
    /// WHERE or SET holds a subquery (run by `run_with_subqueries`).
    pub subqueries: bool,
    /// As [`InsertPlan::checks`].
    pub checks: Vec<(Expr, String)>,
    /// As [`InsertPlan::constraints`].
    pub constraints: crate::create::check::Rules,
}

pub struct DeletePlan {
    pub table: TableRef,
    pub access: Access,
    pub filter: Option<Expr>,
    /// ORDER BY (`dml_order.rs`): rows are deleted in its order.
    pub order: Option<RowOrder>,
    pub limit: Option<usize>,
    pub params: usize,
    /// WHERE holds a subquery (run by `run_with_subqueries`).
    pub subqueries: bool,
}

/// What a write statement reports.
#[derive(Clone, Debug, Default)]
pub struct WriteResult {
    pub affected: u64,
    pub matched: u64,
    /// The first AUTO_INCREMENT value generated (0: none).
    pub first_insert_id: u64,
    /// INSERT: rows the statement tried to insert (its info string's
    /// `Records`), and its `Duplicates` (`upsert.rs` counts them).
    pub records: u64,
    pub duplicates: u64,
    /// ON DUPLICATE KEY UPDATE: rows found but left unchanged (affected
    /// rows count them under CLIENT_FOUND_ROWS).
    pub unchanged: u64,
}

fn object_parts(name: &ast::ObjectName) -> Vec<String> {
    name.0.iter().map(|p| p.as_ident().map(ident).unwrap_or_else(|| p.to_string())).collect()
}

pub fn compile_insert(ins: &ast::Insert, r: &dyn Resolver) -> Result<InsertPlan> {
    let name = match &ins.table {
        ast::TableObject::TableName(n) => n.clone(),
        other => return Err(SqlError::unsupported(format!("INSERT INTO {other}"))),
    };
    let table = r.resolve(&name, None)?;
    if ins.source.is_none() && !ins.assignments.is_empty() {
        return compile_insert_set(ins, table, r);
    }
    let targets: Vec<usize> = if ins.columns.is_empty() {
        (0..table.columns.len()).collect()
    } else {
        ins.columns
            .iter()
            .map(|c| {
                let n = object_parts(c).pop().unwrap_or_default();
                table
                    .columns
                    .iter()
                    .position(|x| x.eq_ignore_ascii_case(&n))
                    .ok_or_else(|| SqlError::unknown_column(&n, "field list"))
            })
            .collect::<Result<_>>()?
    };
    for (i, c) in targets.iter().enumerate() {
        if targets[..i].contains(c) {
            return Err(SqlError::new(1110, "42000", format!("Column '{}' specified twice", table.columns[*c])));
        }
    }
    let source = ins.source.as_ref().ok_or_else(|| SqlError::unsupported("INSERT without VALUES"))?;
    let ast::SetExpr::Values(values) = &*source.body else {
        return crate::upsert::compile_insert_select(ins, table, targets, source, r);
    };
    if source.order_by.is_some() || source.limit_clause.is_some() || source.with.is_some() {
        return Err(SqlError::unsupported("ORDER BY / LIMIT / WITH on INSERT ... VALUES"));
    }
    let mut scope = Scope { table: None, columns: &[], aggs: None, params: 0, place: "field list", rel: None };
    let mut rows = Vec::with_capacity(values.rows.len());
    let mut row_targets: Vec<Option<Vec<usize>>> = Vec::new();
    for (j, row) in values.rows.iter().enumerate() {
        let row: &Vec<ast::Expr> = row;
        if row.is_empty() && (ins.columns.is_empty() || targets.is_empty()) {
            rows.push(Vec::new()); // VALUES (): every column takes its default
            continue;
        }
        if row.len() != targets.len() {
            return Err(SqlError::new(1136, "21S01", "Column count doesn't match value count at row 1"));
        }
        if row.iter().any(crate::defaults::is_default) {
            // This row leaves its DEFAULT columns out (`defaults.rs`).
            row_targets.resize(j + 1, None);
            let own = targets.iter().zip(row).filter(|(_, e)| !crate::defaults::is_default(e));
            row_targets[j] = Some(own.clone().map(|(&c, _)| c).collect());
            let exprs = own.map(|(_, e)| expr::compile(e, &mut scope)).collect::<Result<Vec<_>>>()?;
            // A row of DEFAULTs only is VALUES (): no column listed.
            rows.push(if exprs.is_empty() { Vec::new() } else { exprs });
            continue;
        }
        rows.push(row.iter().map(|e| expr::compile(e, &mut scope)).collect::<Result<Vec<_>>>()?);
    }
    let mut generated_given: Vec<Vec<usize>> = Vec::new();
    if !table.table.generated().is_empty() {
        for (j, r) in rows.iter().enumerate() {
            let own: &[usize] = match row_targets.get(j) {
                _ if r.is_empty() => &[],
                Some(Some(t)) => t.as_slice(),
                _ => &targets,
            };
            let given = own.iter().copied().filter(|&c| crate::create::generated::is_generated(&table, c));
            generated_given.push(given.collect());
        }
        if generated_given.iter().all(Vec::is_empty) {
            generated_given.clear();
        }
    }
    let mut params = scope.params;
    let action = crate::upsert::compile_action(ins, &table, &targets, &mut params, r)?;
    if ins.ignore || !matches!(action, crate::upsert::Action::Fail) {
        // The duplicate-handling forms keep MySQL 8.0's refusal.
        for given in &generated_given {
            crate::create::generated::refuse_values(&table, given)?;
        }
    }
    Ok(InsertPlan {
        constraints: crate::create::check::of(&table)?,
        table,
        targets,
        rows,
        params,
        checks: Vec::new(),
        ignore: ins.ignore,
        action,
        select: None,
        row_targets,
        generated_given,
        calls_functions: false,
    })
}

/// `INSERT [IGNORE] / REPLACE ... SET col = expr, ...`: one row of the
/// named columns.
fn compile_insert_set(ins: &ast::Insert, table: TableRef, r: &dyn Resolver) -> Result<InsertPlan> {
    let mut scope = Scope { table: None, columns: &[], aggs: None, params: 0, place: "field list", rel: None };
    let mut targets = Vec::with_capacity(ins.assignments.len());
    let mut defaulted = Vec::new();
    let mut row = Vec::with_capacity(ins.assignments.len());
    for a in &ins.assignments {
        let n = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => object_parts(n).pop().unwrap_or_default(),
            other => return Err(SqlError::unsupported(format!("assignment to {other}"))),
        };
        let c = table
            .columns
            .iter()
            .position(|x| x.eq_ignore_ascii_case(&n))
            .ok_or_else(|| SqlError::unknown_column(&n, "field list"))?;
        if targets.contains(&c) {
            return Err(SqlError::new(1110, "42000", format!("Column '{}' specified twice", table.columns[c])));
        }
        if crate::defaults::is_default(&a.value) {
            // Left out: the column takes its default (`defaults.rs`).
            defaulted.push(c);
            continue;
        }
        if defaulted.contains(&c) {
            return Err(SqlError::new(1110, "42000", format!("Column '{}' specified twice", table.columns[c])));
        }
        targets.push(c);
        row.push(expr::compile(&a.value, &mut scope)?);
    }
    crate::create::generated::refuse_values(&table, &targets)?;
    let mut params = scope.params;
    let action = crate::upsert::compile_action(ins, &table, &targets, &mut params, r)?;
    Ok(InsertPlan {
        constraints: crate::create::check::of(&table)?,
        table,
        targets,
        rows: vec![row],
        params,
        checks: Vec::new(),
        ignore: ins.ignore,
        action,
        select: None,
        row_targets: Vec::new(),
        generated_given: Vec::new(),
        calls_functions: false,
    })
}

/// One VALUES row's values, evaluated as they are taken, or `early`
/// when [`lent_values`] evaluated them already.
pub(crate) fn row_values<'v>(
    exprs: &'v [Expr],
    early: Option<Vec<Result<Value>>>,
    env: &'v dyn Env,
) -> impl Iterator<Item = Result<Value>> + 'v {
    let mut early = early.map(Vec::into_iter);
    exprs.iter().map(move |e| match early.as_mut() {
        Some(vals) => vals.next().unwrap_or_else(|| Err(SqlError::internal("a row's values"))),
        None => eval(e, &[], env),
    })
}

/// A VALUES row calling stored functions, evaluated before the row is
/// written with `trx` lent to them (`stored::func`): up to the first
/// error, which ends the row.
pub(crate) fn lent_values(exprs: &[Expr], ctx: &Ctx<'_>, trx: &mut Trx) -> Vec<Result<Value>> {
    let ex = Exec::new(ctx.params, ctx.session, Some(trx), None);
    let env = ex.row_env();
    let mut out = Vec::with_capacity(exprs.len());
    for e in exprs {
        let v = eval(e, &[], &env);
        let failed = v.is_err();
        out.push(v);
        if failed {
            break;
        }
    }
    out
}

/// Inserts the plan's VALUES rows, `tuples` times over: the k-th time with
/// the k-th slice of `params` (a bulk INSERT planned as its first tuple,
/// `Session::repeated_insert`; 1 otherwise).
pub fn run_insert(
    p: &InsertPlan,
    trx: &mut Trx,
    params: &[Value],
    tuples: usize,
    session: &dyn crate::query::SessionEnv,
) -> Result<WriteResult> {
    if !p.is_plain() {
        return crate::upsert::run(p, trx, params, tuples, session);
    }
    let trg = triggers_of(&p.table, session, Some(Event::Insert));
    let mut res = WriteResult::default();
    if !p.generated_given.is_empty() {
        crate::create::generated::given_values(&p.table, &p.generated_given, tuples, session)?;
    }
    // NULL into NOT NULL is an error in a single-row INSERT, a warning
    // (in non-strict mode) when there are several rows, as in MySQL.
    let lenient_null = p.rows.len() * tuples > 1;
    let per = if tuples > 1 { p.params } else { params.len() };
    let fk = fk_of(&p.table, session);
    let schema = &p.table.schema;
    // Several rows take their AUTO_INCREMENT values from one interval
    // reserved at the first (InnoDB's "consecutive" mode, MariaDB's
    // default): a statement that fails part-way loses the whole interval,
    // as there. One row takes the engine's next value directly.
    let n = (p.rows.len() * tuples) as u64;
    let mut auto = Some(crate::upsert::AutoInc::new(schema, n).with_insert_id(session))
        .filter(|a| (n > 1 || a.forced()) && a.applies());
    let rows = (0..tuples).flat_map(|k| p.rows.iter().enumerate().map(move |(j, r)| (k, j, r)));
    for (i, (k, j, exprs)) in rows.enumerate() {
        // A fresh context per tuple: IN-list keys built from one tuple's
        // values must not serve the next.
        let ctx = Ctx { params: &params[k * per..(k + 1) * per], aggs: vec![], session, in_keys: Default::default() };
        let env: &dyn Env = &ctx;
        let at = Place { db: &p.table.db, table: &p.table.name, row: i as u64 + 1 };
        let targets = p.targets_of(j, exprs);
        let early = p.calls_functions.then(|| lent_values(exprs, &ctx, trx));
        let values = row_values(exprs, early, env);
        let mut row = match &trg {
            None => new_row(p, targets, values, lenient_null, at, env, None)?,
            Some(trg) => {
                let mut before = |row: &mut Vec<Value>| {
                    fire_row(session, trx, &p.table, trg, Timing::Before, Event::Insert, None, Some(row))
                };
                new_row(p, targets, values, lenient_null, at, env, Some(&mut before))?
            }
        };
        let filled = auto.as_mut().and_then(|a| a.fill(&p.table, &mut row));
        let written = (fk.is_some() || trg.is_some()).then(|| row.clone());
        let id = p.table.table.insert_tx(trx, row)?.or(filled);
        if let Some(id) = id {
            if res.first_insert_id == 0 {
                res.first_insert_id = id;
            }
        }
        if let (Some((c, fks)), Some(row)) = (&fk, &written) {
            crate::fk::enforce::child_written(c, trx, fks, schema, None, row)?;
        }
        if let (Some(trg), Some(mut row)) = (&trg, written) {
            // AFTER INSERT sees the AUTO_INCREMENT value given.
            if let (Some(c), Some(id)) = (schema.columns.iter().position(|c| c.auto_increment), id) {
                if row[c].is_null() {
                    row[c] = Value::UInt(id);
                }
            }
            fire_row(session, trx, &p.table, trg, Timing::After, Event::Insert, None, Some(&mut row))?;
        }
        res.affected += 1;
    }
    Ok(res)
}

/// The triggers of `t` (on `event`, or on any event), if any (`trigger`
/// module). Looked up by the engine's name, so that a temporary table
/// shadowing a base table never takes the base table's triggers.
pub(crate) fn triggers_of(
    t: &TableRef,
    session: &dyn crate::query::SessionEnv,
    event: Option<Event>,
) -> Option<TableTriggers> {
    let (db, name) = t.table.name().split_once('/')?;
    session.triggers(db, name).filter(|x| event.is_none_or(|e| x.on(e)))
}

/// The hook every row writer calls: `t`'s triggers of `timing` and
/// `event` on one row (`trigger::fire`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fire_row(
    session: &dyn crate::query::SessionEnv,
    trx: &mut Trx,
    t: &TableRef,
    triggers: &TableTriggers,
    timing: Timing,
    event: Event,
    old: Option<&[Value]>,
    new: Option<&mut Vec<Value>>,
) -> Result<()> {
    if !triggers.has(timing, event) {
        return Ok(());
    }
    session.fire(trx, crate::trigger::fire::RowEvent { table: t, triggers, timing, event, old, new })
}

/// What [`new_row`] calls before the row's checks (BEFORE INSERT).
pub(crate) type BeforeRow<'a> = &'a mut dyn FnMut(&mut Vec<Value>) -> Result<()>;

/// The new row an INSERT makes of `values` for the columns `targets`
/// (the others take their defaults): the visible columns, converted and
/// checked (WITH CHECK OPTION); the engine adds a hidden row id itself.
/// `lenient_null`: NULL into NOT NULL is a warning (see `run_insert`).
/// `before` (BEFORE INSERT triggers) sees the row once its values are
/// converted and may change it; NOT NULL, generated columns and CHECK
/// constraints are judged after it, as in MySQL. An AUTO_INCREMENT column
/// still to be generated shows 0 to it.
pub(crate) fn new_row(
    p: &InsertPlan,
    targets: &[usize],
    values: impl Iterator<Item = Result<Value>>,
    lenient_null: bool,
    at: Place<'_>,
    env: &dyn Env,
    before: Option<BeforeRow<'_>>,
) -> Result<Vec<Value>> {
    let schema = &p.table.schema;
    let mut row = Vec::with_capacity(schema.columns.len());
    for (c, col) in schema.visible_columns().iter().enumerate() {
        row.push(match &col.default {
            Some(d) => d.clone(),
            None if col.default_now => store::current_timestamp(col),
            None if col.nullable || col.auto_increment || targets.contains(&c) => Value::Null,
            // Computed by `check::enforce` below.
            None if p.constraints.generated.contains(c) => Value::Null,
            None => store::missing_value(col, env)?,
        });
    }
    let deferred = before.is_some();
    for (&c, v) in targets.iter().zip(values) {
        let col = &schema.columns[c];
        row[c] = match v? {
            Value::Null if !col.nullable && !col.auto_increment && !deferred => {
                store::null_into_not_null(col, lenient_null, env)?
            }
            Value::Null => Value::Null,
            v => store::assign(col, v, at, env)?,
        };
    }
    if let Some(before) = before {
        before_insert(p, &mut row, lenient_null, env, before)?;
    }
    crate::create::check::complete(&p.constraints, &mut row, at, env)?;
    check_options(&p.checks, &row, env)?;
    crate::create::check::enforce_checks(&p.constraints, &row, env)?;
    Ok(row)
}

/// BEFORE INSERT (`before`) on a new row whose values are converted: an
/// AUTO_INCREMENT column still to be generated shows 0 to it, and NOT NULL
/// is judged after it (the trigger may fill the column), as in MySQL.
pub(crate) fn before_insert(
    p: &InsertPlan,
    row: &mut Vec<Value>,
    lenient_null: bool,
    env: &dyn Env,
    before: BeforeRow<'_>,
) -> Result<()> {
    let schema = &p.table.schema;
    let auto = schema.visible_columns().iter().position(|c| c.auto_increment);
    if let Some(a) = auto.filter(|&a| row[a].is_null()) {
        row[a] = Value::Int(0);
    }
    before(row)?;
    if let Some(a) = auto.filter(|&a| matches!(row[a], Value::Int(0) | Value::UInt(0))) {
        row[a] = Value::Null; // still generated
    }
    for (c, col) in schema.visible_columns().iter().enumerate() {
        if row[c].is_null() && !col.nullable && !col.auto_increment && !p.constraints.generated.contains(c) {
            row[c] = store::null_into_not_null(col, lenient_null, env)?;
        }
    }
    Ok(())
}

/// The FOREIGN KEYs a statement on `t` must enforce, if any (one atomic
/// load when no table has one: `fk` module, invariant 1).
pub(crate) fn fk_of<'s>(
    t: &TableRef,
    session: &'s dyn crate::query::SessionEnv,
) -> Option<(crate::fk::Checks<'s>, std::sync::Arc<crate::fk::TableFks>)> {
    let c = session.fk_checks()?;
    let fks = c.registry.of(t.table.name())?;
    Some((c, fks))
}

/// The FOREIGN KEY work of one changed row (`old` → `new`): as a child,
/// its new key must find a parent; as a parent, its children follow.
pub(crate) fn fk_updated(
    fk: &Option<(crate::fk::Checks<'_>, std::sync::Arc<crate::fk::TableFks>)>,
    trx: &mut Trx,
    schema: &quire_engine::row::TableSchema,
    old: &[Value],
    new: &[Value],
) -> Result<()> {
    if let Some((c, fks)) = fk {
        crate::fk::enforce::parent_updated(c, trx, fks, schema, old, new, 0)?;
        crate::fk::enforce::child_written(c, trx, fks, schema, Some(old), new)?;
    }
    Ok(())
}

/// WITH CHECK OPTION: 1369 unless the new row satisfies every condition
/// of the views written through (MariaDB's message).
fn check_options(checks: &[(Expr, String)], row: &[Value], env: &dyn Env) -> Result<()> {
    for (x, view) in checks {
        if truth(&eval(x, row, env)?) != Some(true) {
            return Err(SqlError::new(1369, "44000", format!("CHECK OPTION failed {view}")));
        }
    }
    Ok(())
}

fn single_table(t: &ast::TableWithJoins, r: &dyn Resolver) -> Result<TableRef> {
    if !t.joins.is_empty() {
        return Err(SqlError::unsupported("multi-table UPDATE/DELETE"));
    }
    match &t.relation {
        ast::TableFactor::Table { name, alias, .. } => r.resolve(name, alias.as_ref().map(|a| ident(&a.name))),
        other => Err(SqlError::unsupported(format!("UPDATE/DELETE of {other}"))),
    }
}

fn const_limit(e: Option<&ast::Expr>) -> Result<Option<usize>> {
    match e {
        None => Ok(None),
        Some(ast::Expr::Value(v)) => match &v.value {
            ast::Value::Number(n, _) => n.parse().map(Some).map_err(|_| SqlError::wrong_arguments("LIMIT")),
            _ => Err(SqlError::unsupported("LIMIT with a parameter in UPDATE/DELETE")),
        },
        Some(_) => Err(SqlError::unsupported("LIMIT expression in UPDATE/DELETE")),
    }
}

pub fn compile_update(u: &ast::Update, r: &dyn Resolver) -> Result<UpdatePlan> {
    if u.from.is_some() {
        return Err(SqlError::unsupported("UPDATE ... FROM"));
    }
    let table = single_table(&u.table, r)?;
    let names = table.columns.clone();
    let subqueries = u.selection.as_ref().is_some_and(has_subquery)
        || u.assignments.iter().any(|a| has_subquery(&a.value))
        || u.order_by.iter().any(|o| has_subquery(&o.expr));
    let mut c = DmlExprs::new(&table, r, subqueries);
    let mut sets = Vec::new();
    let has_generated = !table.table.generated().is_empty();
    for a in &u.assignments {
        let col = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => object_parts(n).pop().unwrap_or_default(),
            other => return Err(SqlError::unsupported(format!("assignment to {other}"))),
        };
        let i = names
            .iter()
            .position(|x| x.eq_ignore_ascii_case(&col))
            .ok_or_else(|| SqlError::unknown_column(&col, "field list"))?;
        if has_generated && crate::create::generated::is_generated(&table, i) {
            if crate::defaults::is_default(&a.value) {
                continue; // recomputed with the row anyway
            }
            crate::create::generated::refuse_values(&table, &[i])?;
        }
        if crate::defaults::is_default(&a.value) {
            sets.push((i, crate::defaults::update_value(&table.schema.columns[i])?));
            continue;
        }
        sets.push((i, c.compile(&a.value, "field list")?));
    }
    let filter = u.selection.as_ref().map(|w| c.compile(w, "where clause")).transpose()?;
    let colls: Vec<quire_engine::row::Collation> = table.schema.columns.iter().map(|c| c.collation).collect();
    let order = crate::dml_order::compile(&u.order_by, &colls, |e| c.compile(e, "ORDER BY"))?;
    let params = c.params;
    let konst = |x| crate::compare_const::for_table(x, &table, &colls);
    let slots = crate::coercion::table_slots(&table.schema.columns);
    let filter = filter.map(|f| crate::coercion::bind(konst(f), &slots)).transpose()?;
    let sets =
        sets.into_iter().map(|(c, x)| Ok((c, crate::coercion::bind(konst(x), &slots)?))).collect::<Result<_>>()?;
    let access = choose_access(&table, filter.as_ref());
    let limit = const_limit(u.limit.as_ref())?;
    Ok(UpdatePlan {
        constraints: crate::create::check::of(&table)?,
        table,
        access,
        filter,
        sets,
        order,
        limit,
        params,
        subqueries,
        checks: Vec::new(),
    })
}

pub fn compile_delete(d: &ast::Delete, r: &dyn Resolver) -> Result<DeletePlan> {
    if !d.tables.is_empty() || d.using.is_some() {
        return Err(SqlError::unsupported("multi-table DELETE"));
    }
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
    };
    let [t] = from.as_slice() else { return Err(SqlError::unsupported("multi-table DELETE")) };
    let table = single_table(t, r)?;
    let subqueries = d.selection.as_ref().is_some_and(has_subquery) || d.order_by.iter().any(|o| has_subquery(&o.expr));
    let mut c = DmlExprs::new(&table, r, subqueries);
    let filter = d.selection.as_ref().map(|w| c.compile(w, "where clause")).transpose()?;
    let colls: Vec<quire_engine::row::Collation> = table.schema.columns.iter().map(|c| c.collation).collect();
    let order = crate::dml_order::compile(&d.order_by, &colls, |e| c.compile(e, "ORDER BY"))?;
    let params = c.params;
    let slots = crate::coercion::table_slots(&table.schema.columns);
    let filter = filter
        .map(|f| crate::coercion::bind(crate::compare_const::for_table(f, &table, &colls), &slots))
        .transpose()?;
    let access = choose_access(&table, filter.as_ref());
    let limit = const_limit(d.limit.as_ref())?;
    Ok(DeletePlan { table, access, filter, order, limit, params, subqueries })
}

/// Compiles the expressions of a single-table UPDATE / DELETE: through
/// the general binder when they hold subqueries (which may read the
/// table's columns), else by the single-table scope.
struct DmlExprs<'a> {
    table: &'a TableRef,
    names: Option<crate::rel::bind::TableNames<'a>>,
    params: usize,
}

impl<'a> DmlExprs<'a> {
    fn new(table: &'a TableRef, r: &'a dyn Resolver, subqueries: bool) -> Self {
        Self { table, names: subqueries.then(|| crate::rel::bind::TableNames::new(table, r)), params: 0 }
    }

    fn compile(&mut self, e: &ast::Expr, place: &'static str) -> Result<Expr> {
        if let Some(n) = &mut self.names {
            return n.expr(e, &mut self.params, place);
        }
        let t = self.table;
        let tname = (t.name.as_str(), t.alias.as_deref());
        let mut scope =
            Scope { table: Some(tname), columns: &t.columns, aggs: None, params: self.params, place, rel: None };
        let x = expr::compile(e, &mut scope)?;
        self.params = scope.params;
        Ok(x)
    }
}

pub(crate) fn pk_of(t: &TableRef, row: &[Value]) -> Vec<Value> {
    t.schema.primary_key.iter().map(|&c| row[c].clone()).collect()
}

/// Primary keys of the rows `access` finds and `filter` accepts, locked X:
/// the first `limit` of them, in `order` if given (then every row found
/// is read and locked first).
#[allow(clippy::too_many_arguments)]
fn locked_keys(
    t: &TableRef,
    access: &Access,
    filter: Option<&Expr>,
    order: Option<&RowOrder>,
    limit: Option<usize>,
    trx: &mut Trx,
    env: &dyn Env,
) -> Result<Vec<Vec<Value>>> {
    if let Some(order) = order {
        let mut rows = Vec::new();
        for_each_row(t, access, filter, Direction::Forward, Some(LockMode::X), trx, env, |row| {
            rows.push(std::mem::take(row));
            Ok(true)
        })?;
        return Ok(order.sort(rows, limit, env)?.iter().map(|r| pk_of(t, r)).collect());
    }
    let mut keys = Vec::new();
    for_each_row(t, access, filter, Direction::Forward, Some(LockMode::X), trx, env, |row| {
        keys.push(pk_of(t, row));
        Ok(limit.is_none_or(|l| keys.len() < l))
    })?;
    Ok(keys)
}

/// The sentinel an update closure returns to carry a SQL error out.
pub(crate) fn carried() -> quire_engine::Error {
    quire_engine::Error::InvalidSchema("(sql error)".into())
}

/// The environment of one row change: its conditions are kept until the
/// engine has applied the change, because the engine calls the row function
/// again after a lock wait or a page split, and each condition must be
/// reported once. Warnings that end the statement (strict mode) are errors
/// at once.
pub(crate) struct RowEnv<'a> {
    pub inner: &'a dyn Env,
    pub kept: RefCell<Vec<Condition>>,
    /// The WHERE clause was already judged (and its conditions reported)
    /// by the scan that found the row.
    pub mute: Cell<bool>,
}

impl RowEnv<'_> {
    /// After the engine applied (or refused) the change: the kept
    /// conditions are reported once, and an SQL error the row function
    /// carried out (see `carried`) wins over the engine's answer.
    pub(crate) fn settle<T>(
        &self,
        r: quire_engine::Result<T>,
        error: &RefCell<Option<SqlError>>,
    ) -> Result<quire_engine::Result<T>> {
        for c in self.kept.borrow_mut().drain(..) {
            self.inner.warn(c)?;
        }
        match error.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(r),
        }
    }
}

impl Env for RowEnv<'_> {
    fn param(&self, i: usize) -> Result<Value> {
        self.inner.param(i)
    }
    fn agg(&self, i: usize) -> Result<Value> {
        self.inner.agg(i)
    }
    fn sysvar(&self, name: &str, global: bool) -> Result<Value> {
        self.inner.sysvar(name, global)
    }
    fn func(&self, name: &str, args: &[Value]) -> Result<Value> {
        self.inner.func(name, args)
    }
    fn warn(&self, c: Condition) -> Result<()> {
        if c.level == crate::diag::Level::Warning && self.mode().abort_on_warning {
            return Err(c.into_error());
        }
        if !self.mute.get() {
            self.kept.borrow_mut().push(c);
        }
        Ok(())
    }
    fn mode(&self) -> Mode {
        self.inner.mode()
    }
    fn collation(&self) -> quire_engine::row::Collation {
        self.inner.collation()
    }
    fn in_keys(
        &self,
        set: &std::sync::Arc<crate::inset::InSet>,
        build: &dyn Fn() -> Option<crate::inset::Keys>,
    ) -> Option<std::sync::Arc<crate::inset::Keys>> {
        self.inner.in_keys(set, build)
    }
}

pub fn run_update(p: &UpdatePlan, trx: &mut Trx, ctx: &Ctx<'_>) -> Result<WriteResult> {
    if p.limit == Some(0) {
        return Ok(WriteResult::default()); // MariaDB reads nothing either
    }
    if let Some(trg) = triggers_of(&p.table, ctx.session, Some(Event::Update)) {
        return update_with_triggers(p, trx, ctx, &trg);
    }
    if p.subqueries {
        return update_with_subqueries(p, trx, ctx);
    }
    let env: &dyn Env = ctx;
    // Whether the scan evaluated WHERE on each row (a point read does not).
    let mut scanned = true;
    let keys: Vec<Vec<Value>> = match &p.access {
        Access::Point(k) => {
            let pk: Vec<Value> = k.iter().map(|e| eval(e, &[], env)).collect::<Result<_>>()?;
            if pk.iter().any(Value::is_null) {
                vec![]
            } else if crate::query::point_key_usable(&p.table, &pk) {
                scanned = false;
                // update_tx reads the row itself: the one row examined.
                quire_engine::wait::note_rows_read(1);
                vec![pk]
            } else {
                // Not a key this table can hold as it is (another type, out
                // of range): find the rows the way a scan would.
                locked_keys(&p.table, &Access::Full, p.filter.as_ref(), p.order.as_ref(), p.limit, trx, env)?
            }
        }
        other => locked_keys(&p.table, other, p.filter.as_ref(), p.order.as_ref(), p.limit, trx, env)?,
    };
    let mut res = WriteResult::default();
    let error: RefCell<Option<SqlError>> = RefCell::new(None);
    let row_env = RowEnv { inner: env, kept: RefCell::new(Vec::new()), mute: Cell::new(false) };
    let schema = &p.table.schema;
    let fk = fk_of(&p.table, ctx.session);
    // The last (old, new) the row function produced, kept for the keys.
    let change: RefCell<Option<(Vec<Value>, Vec<Value>)>> = RefCell::new(None);
    for pk in keys {
        let matched = Cell::new(false);
        let at = Place { db: &p.table.db, table: &p.table.name, row: res.matched + 1 };
        let f = |old: &[Value]| -> quire_engine::Result<Vec<Value>> {
            let go = || -> Result<Vec<Value>> {
                row_env.kept.borrow_mut().clear();
                if let Some(w) = &p.filter {
                    row_env.mute.set(scanned);
                    let keep = eval(w, old, &row_env);
                    row_env.mute.set(false);
                    if truth(&keep?) != Some(true) {
                        return Ok(old.to_vec());
                    }
                }
                matched.set(true);
                let mut row = old.to_vec();
                for (c, e) in &p.sets {
                    let col = &schema.columns[*c];
                    row[*c] = match eval(e, &row, &row_env)? {
                        Value::Null if !col.nullable => store::null_into_not_null(col, true, &row_env)?,
                        Value::Null => Value::Null,
                        v => store::assign(col, v, at, &row_env)?,
                    };
                }
                store::stamp_on_update(&schema.columns, &|i| p.sets.iter().any(|(c, _)| *c == i), old, &mut row);
                crate::create::check::complete(&p.constraints, &mut row, at, &row_env)?;
                check_options(&p.checks, &row, &row_env)?;
                crate::create::check::enforce_checks(&p.constraints, &row, &row_env)?;
                if fk.is_some() {
                    *change.borrow_mut() = Some((old.to_vec(), row.clone()));
                }
                Ok(row)
            };
            go().map_err(|e| {
                *error.borrow_mut() = Some(e);
                carried()
            })
        };
        match row_env.settle(p.table.table.update_tx(trx, &pk, f), &error)? {
            Ok(RowUpdate::Changed) => {
                if let Some((old, new)) = change.borrow_mut().take() {
                    fk_updated(&fk, trx, schema, &old, &new)?;
                }
                res.affected += 1;
                res.matched += 1;
            }
            Ok(RowUpdate::Unchanged) => res.matched += matched.get() as u64,
            Ok(RowUpdate::NotFound) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(res)
}

pub fn run_delete(p: &DeletePlan, trx: &mut Trx, ctx: &Ctx<'_>) -> Result<WriteResult> {
    if p.limit == Some(0) {
        return Ok(WriteResult::default());
    }
    let (filter, order) = (p.filter.as_ref(), p.order.as_ref());
    let keys = if p.subqueries {
        judged_rows(&p.table, &p.access, filter, order, p.limit, trx, ctx, |_, row, _| Ok(pk_of(&p.table, row)))?
    } else {
        locked_keys(&p.table, &p.access, filter, order, p.limit, trx, ctx)?
    };
    let mut res = WriteResult::default();
    if let Some(trg) = triggers_of(&p.table, ctx.session, Some(Event::Delete)) {
        for pk in keys {
            delete_row(&p.table, trx, &pk, &mut res, ctx, Some(&trg))?;
        }
        res.matched = res.affected;
        return Ok(res);
    }
    let fk = fk_of(&p.table, ctx.session).filter(|(_, f)| !f.as_parent.is_empty());
    for pk in keys {
        if let Some((c, fks)) = &fk {
            // The children follow before the row goes (InnoDB's order).
            if let Some(old) = p.table.table.get_locking(trx, &pk, LockMode::X)? {
                crate::fk::enforce::parent_deleting(c, trx, fks, &p.table.schema, &old, 0)?;
            }
        }
        if p.table.table.delete_tx(trx, &pk)? {
            res.affected += 1;
        }
    }
    res.matched = res.affected;
    Ok(res)
}

/// The rows an UPDATE / DELETE whose WHERE or SET holds subqueries
/// changes, each mapped by `f`: the access path's rows are read and
/// locked first, then judged and mapped with subqueries reading through
/// the transaction (share-locking reads at REPEATABLE READ and above, as
/// InnoDB's), since the engine's row function cannot read other tables.
/// With `order`, the rows are sorted before they are judged.
#[allow(clippy::too_many_arguments)]
fn judged_rows<T>(
    t: &TableRef,
    access: &Access,
    filter: Option<&Expr>,
    order: Option<&RowOrder>,
    limit: Option<usize>,
    trx: &mut Trx,
    ctx: &Ctx<'_>,
    mut f: impl FnMut(usize, &[Value], &dyn Env) -> Result<T>,
) -> Result<Vec<T>> {
    let mut rows = Vec::new();
    for_each_row(t, access, None, Direction::Forward, Some(LockMode::X), trx, ctx, |row| {
        rows.push(std::mem::take(row));
        Ok(true)
    })?;
    let iso = trx.isolation();
    let lock = matches!(iso, Isolation::RepeatableRead | Isolation::Serializable).then_some(LockMode::S);
    let ex = Exec::new(ctx.params, ctx.session, Some(trx), lock);
    let env = ex.row_env();
    if let Some(o) = order {
        rows = o.sort(rows, None, &env)?;
    }
    let mut out = Vec::new();
    for row in rows {
        if limit.is_some_and(|l| out.len() >= l) {
            break;
        }
        if let Some(w) = filter {
            if truth(&eval(w, &row, &env)?) != Some(true) {
                continue;
            }
        }
        out.push(f(out.len(), &row, &env)?);
    }
    Ok(out)
}

/// UPDATE whose WHERE or SET holds subqueries: new rows computed first
/// ([`judged_rows`]), then written.
fn update_with_subqueries(p: &UpdatePlan, trx: &mut Trx, ctx: &Ctx<'_>) -> Result<WriteResult> {
    let schema = &p.table.schema;
    let (filter, order) = (p.filter.as_ref(), p.order.as_ref());
    let changes = judged_rows(&p.table, &p.access, filter, order, p.limit, trx, ctx, |n, old, env| {
        let at = Place { db: &p.table.db, table: &p.table.name, row: n as u64 + 1 };
        let mut row = set_row(p, n, old, env)?;
        crate::create::check::complete(&p.constraints, &mut row, at, env)?;
        check_options(&p.checks, &row, env)?;
        crate::create::check::enforce_checks(&p.constraints, &row, env)?;
        Ok((pk_of(&p.table, old), old.to_vec(), row))
    })?;
    let mut res = WriteResult::default();
    let fk = fk_of(&p.table, ctx.session);
    for (pk, old, new) in changes {
        match p.table.table.update_tx(trx, &pk, |_| Ok(new.clone()))? {
            RowUpdate::Changed => {
                fk_updated(&fk, trx, schema, &old, &new)?;
                res.affected += 1;
                res.matched += 1;
            }
            RowUpdate::Unchanged => res.matched += 1,
            RowUpdate::NotFound => {}
        }
    }
    Ok(res)
}

/// The new values of `old` by UPDATE's SET list (before any trigger).
fn set_row(p: &UpdatePlan, n: usize, old: &[Value], env: &dyn Env) -> Result<Vec<Value>> {
    let schema = &p.table.schema;
    let at = Place { db: &p.table.db, table: &p.table.name, row: n as u64 + 1 };
    let mut row = old.to_vec();
    for (c, e) in &p.sets {
        let col = &schema.columns[*c];
        row[*c] = match eval(e, &row, env)? {
            Value::Null if !col.nullable => store::null_into_not_null(col, true, env)?,
            Value::Null => Value::Null,
            v => store::assign(col, v, at, env)?,
        };
    }
    store::stamp_on_update(&schema.columns, &|i| p.sets.iter().any(|(c, _)| *c == i), old, &mut row);
    Ok(row)
}

/// UPDATE of a table with UPDATE triggers, row by row: the SET list,
/// BEFORE UPDATE (which may change NEW), the row's checks, the write,
/// AFTER UPDATE. Triggers fire for every row matched, changed or not, as
/// in MySQL. With subqueries in WHERE or SET, the new values of all rows
/// are computed first ([`judged_rows`]).
fn update_with_triggers(p: &UpdatePlan, trx: &mut Trx, ctx: &Ctx<'_>, trg: &TableTriggers) -> Result<WriteResult> {
    let env: &dyn Env = ctx;
    let (filter, order) = (p.filter.as_ref(), p.order.as_ref());
    // (old, new) when computed up front, else the keys to read.
    let mut computed: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
    let mut keys: Vec<Vec<Value>> = Vec::new();
    if p.subqueries {
        computed = judged_rows(&p.table, &p.access, filter, order, p.limit, trx, ctx, |n, old, env| {
            Ok((old.to_vec(), set_row(p, n, old, env)?))
        })?;
    } else {
        keys = match &p.access {
            Access::Point(k) => {
                let pk: Vec<Value> = k.iter().map(|e| eval(e, &[], env)).collect::<Result<_>>()?;
                if pk.iter().any(Value::is_null) {
                    vec![]
                } else if crate::query::point_key_usable(&p.table, &pk) {
                    vec![pk]
                } else {
                    locked_keys(&p.table, &Access::Full, filter, order, p.limit, trx, env)?
                }
            }
            other => locked_keys(&p.table, other, filter, order, p.limit, trx, env)?,
        };
    }
    let schema = &p.table.schema;
    let fk = fk_of(&p.table, ctx.session);
    let mut res = WriteResult::default();
    let total = computed.len() + keys.len();
    let mut computed = computed.into_iter();
    let mut keys = keys.into_iter();
    for n in 0..total {
        let (old, mut new) = if p.subqueries {
            let Some(c) = computed.next() else { break };
            c
        } else {
            let Some(pk) = keys.next() else { break };
            let Some(old) = p.table.table.get_locking(trx, &pk, LockMode::X)? else { continue };
            if let Some(w) = filter {
                if truth(&eval(w, &old, env)?) != Some(true) {
                    continue;
                }
            }
            let new = set_row(p, n, &old, env)?;
            (old, new)
        };
        let at = Place { db: &p.table.db, table: &p.table.name, row: res.matched + 1 };
        fire_row(ctx.session, trx, &p.table, trg, Timing::Before, Event::Update, Some(&old), Some(&mut new))?;
        for (c, col) in schema.visible_columns().iter().enumerate() {
            if new[c].is_null() && !col.nullable && !p.constraints.generated.contains(c) {
                new[c] = store::null_into_not_null(col, true, env)?;
            }
        }
        crate::create::check::complete(&p.constraints, &mut new, at, env)?;
        check_options(&p.checks, &new, env)?;
        crate::create::check::enforce_checks(&p.constraints, &new, env)?;
        match p.table.table.update_tx(trx, &pk_of(&p.table, &old), |_| Ok(new.clone()))? {
            RowUpdate::Changed => {
                fk_updated(&fk, trx, schema, &old, &new)?;
                res.affected += 1;
                res.matched += 1;
            }
            RowUpdate::Unchanged => res.matched += 1,
            RowUpdate::NotFound => continue,
        }
        fire_row(ctx.session, trx, &p.table, trg, Timing::After, Event::Update, Some(&old), Some(&mut new))?;
    }
    Ok(res)
}

/// Deletes the row `pk` of `t` (locked), with its FOREIGN KEY work and,
/// given `trg`, its BEFORE and AFTER DELETE triggers.
pub(crate) fn delete_row(
    t: &TableRef,
    trx: &mut Trx,
    pk: &[Value],
    res: &mut WriteResult,
    ctx: &Ctx<'_>,
    trg: Option<&TableTriggers>,
) -> Result<()> {
    let fk = fk_of(t, ctx.session).filter(|(_, f)| !f.as_parent.is_empty());
    if fk.is_none() && trg.is_none() {
        if t.table.delete_tx(trx, pk)? {
            res.affected += 1;
        }
        return Ok(());
    }
    let Some(old) = t.table.get_locking(trx, pk, LockMode::X)? else { return Ok(()) };
    if let Some(trg) = trg {
        fire_row(ctx.session, trx, t, trg, Timing::Before, Event::Delete, Some(&old), None)?;
    }
    if let Some((c, fks)) = &fk {
        // The children follow before the row goes (InnoDB's order).
        crate::fk::enforce::parent_deleting(c, trx, fks, &t.schema, &old, 0)?;
    }
    if t.table.delete_tx(trx, pk)? {
        res.affected += 1;
        if let Some(trg) = trg {
            fire_row(ctx.session, trx, t, trg, Timing::After, Event::Delete, Some(&old), None)?;
        }
    }
    Ok(())
}
