//! SELECT: compiled once (`SelectPlan`, cached per prepared statement and
//! per query text), executed per call against a transaction.
//!
//! Execution: the access path yields candidate rows (consistent reads, or
//! locking reads for FOR UPDATE / FOR SHARE), the WHERE filter keeps
//! some, then aggregation (GROUP BY, COUNT/SUM/MIN/MAX/AVG), projection,
//! DISTINCT, ORDER BY (skipped when the index already gives the order),
//! OFFSET/LIMIT. Without sorting, grouping or DISTINCT each row goes to
//! the statement's [`RowSink`] as the scan finds it, and the scan stops
//! as soon as LIMIT is reached; otherwise the rows are collected first.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::ops::Bound;

use quire_engine::btree::Direction;
use quire_engine::row::{Collation, Column, ColumnType, DateTime, Decimal, Value};
use quire_engine::table::{IndexRef, Trx};
use quire_engine::txn::lock::LockMode;
use quire_engine::txn::Isolation;
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::{self, compare, eval, to_decimal, truth, Agg, AggFn, Env, Expr, Scope};
use crate::filesort::SortLimits;
use crate::finish::{Finish, Finisher};
use crate::group_check;
use crate::plan::{choose_access, infer, Access, ColMeta, TableRef};
use crate::sink::{RowSink, Window};

/// A compiled SELECT of at most one table.
pub struct SelectPlan {
    pub table: Option<TableRef>,
    pub access: Access,
    pub filter: Option<Expr>,
    pub items: Vec<Expr>,
    pub columns: Vec<ColMeta>,
    pub aggs: Vec<Agg>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    pub distinct: bool,
    pub order: Vec<(Expr, bool)>,
    /// The access path returns rows in ORDER BY order, read this way.
    pub index_order: Option<Direction>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    pub lock: Option<LockMode>,
    /// NOWAIT / SKIP LOCKED of the locking read.
    pub lock_wait: quire_engine::table::LockWait,
    pub params: usize,
    /// Collations of the ORDER BY keys, GROUP BY keys and result columns
    /// (for sorting, grouping and DISTINCT).
    pub order_colls: Vec<Collation>,
    pub group_colls: Vec<Collation>,
    pub item_colls: Vec<Collation>,
    /// Collations of the aggregates' arguments (DISTINCT, MIN, MAX).
    pub agg_colls: Vec<Collation>,
    /// What ONLY_FULL_GROUP_BY refuses in the query (`group_check`).
    pub group_error: Option<SqlError>,
    /// SELECT SQL_CALC_FOUND_ROWS: the rows beyond LIMIT are counted for
    /// FOUND_ROWS() ([`crate::sink::Window`]).
    pub calc_found_rows: bool,
    /// The table's columns some expression of the plan reads; the others
    /// are not decoded (`None`: every column is read).
    pub need: Option<Vec<bool>>,
}

/// Resolves `db.table` names to open tables.
pub trait Resolver {
    fn resolve(&self, name: &ast::ObjectName, alias: Option<String>) -> Result<TableRef>;
    /// The view `name` names, if it names one.
    fn view(&self, name: &ast::ObjectName) -> Result<Option<crate::view::ViewRef>> {
        self.view_as(name, None)
    }
    /// [`Resolver::resolve`] with the privileges of `user` (a view's
    /// definer) instead of the session's.
    fn resolve_as(&self, name: &ast::ObjectName, alias: Option<String>, _user: Option<&str>) -> Result<TableRef> {
        self.resolve(name, alias)
    }
    /// [`Resolver::view`] with the privileges of `user`.
    fn view_as(&self, _name: &ast::ObjectName, _user: Option<&str>) -> Result<Option<crate::view::ViewRef>> {
        Ok(None)
    }
    /// The binder enters (`true`) or leaves a view's definition: names
    /// resolved in between are the view's, not the statement's (LOCK
    /// TABLES admits them through the view: `table_lock::admit`).
    fn view_scope(&self, _enter: bool) {}
    /// The information_schema table `name` names, if it names one (1109
    /// for an unknown name in that database).
    fn system_view(&self, _name: &ast::ObjectName) -> Result<Option<crate::infoschema::View>> {
        Ok(None)
    }
    /// `optimizer_switch`'s flags that choose plans: derived tables, CTE
    /// references and views merged into the block reading them
    /// (`rel::merge`), semi-joins and their strategies, hash joins.
    fn switch(&self) -> crate::optimizer_switch::Switch {
        crate::optimizer_switch::Switch::DEFAULT
    }
}

pub fn ident(i: &ast::Ident) -> String {
    i.value.clone()
}

/// Compiles a SELECT query.
pub fn compile_select(q: &ast::Query, r: &dyn Resolver) -> Result<SelectPlan> {
    if q.with.is_some() {
        return Err(SqlError::unsupported("WITH"));
    }
    let sel = match &*q.body {
        ast::SetExpr::Select(s) => s,
        ast::SetExpr::Query(inner) => return compile_select(inner, r),
        other => return Err(SqlError::unsupported(format!("query {other}"))),
    };
    check_select_clauses(sel)?;
    if !sel.named_window.is_empty() {
        return Err(SqlError::unsupported("WINDOW in the single-table planner"));
    }
    let table = match sel.from.as_slice() {
        [] => None,
        [twj] if twj.joins.is_empty() => match &twj.relation {
            ast::TableFactor::Table { name, alias, .. } => {
                Some(r.resolve(name, alias.as_ref().map(|a| ident(&a.name)))?)
            }
            _ => return Err(SqlError::unsupported("derived tables")),
        },
        _ => return Err(SqlError::unsupported("joins")),
    };
    let names: Vec<String> = table.as_ref().map(|t| t.columns.clone()).unwrap_or_default();
    let tname = table.as_ref().map(|t| (t.name.as_str(), t.alias.as_deref()));
    let mut aggs = Vec::new();
    let mut params = 0;
    // Projection.
    let mut items = Vec::new();
    let mut columns = Vec::new();
    let mut proj_pos: Vec<usize> = Vec::new();
    {
        let mut scope =
            Scope { table: tname, columns: &names, aggs: Some(&mut aggs), params, place: "field list", rel: None };
        for item in &sel.projection {
            // Where this select item's (first) expression lands in `items`.
            proj_pos.push(items.len());
            match item {
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                    if let ast::SelectItem::QualifiedWildcard(ast::SelectItemQualifiedWildcardKind::ObjectName(n), _) =
                        item
                    {
                        let q = n.0.last().and_then(|p| p.as_ident()).map(|i| i.value.clone()).unwrap_or_default();
                        let named = table.as_ref().map(|t| t.alias.as_deref().unwrap_or(&t.name));
                        if !named.is_some_and(|t| t.eq_ignore_ascii_case(&q)) {
                            return Err(SqlError::new(1051, "42S02", format!("Unknown table '{q}'")));
                        }
                    }
                    let t = table.as_ref().ok_or_else(|| SqlError::new(1096, "HY000", "No tables used"))?;
                    for (c, n) in t.columns.iter().enumerate() {
                        items.push(Expr::Col(c));
                        columns.push(ColMeta::column(t, c, n));
                    }
                }
                ast::SelectItem::UnnamedExpr(e) => {
                    let x = expr::compile(e, &mut scope)?;
                    columns.push(meta_for(&x, &display_name(e), table.as_ref()));
                    items.push(x);
                }
                ast::SelectItem::ExprWithAlias { expr: e, alias } => {
                    let x = expr::compile(e, &mut scope)?;
                    columns.push(meta_for(&x, &alias.value, table.as_ref()));
                    items.push(x);
                }
                ast::SelectItem::ExprWithAliases { .. } => return Err(SqlError::unsupported("multiple aliases")),
            }
        }
        params = scope.params;
    }
    // Type the aggregate columns now that every aggregate is known.
    for (c, x) in columns.iter_mut().zip(&items) {
        if matches!(x, Expr::Agg(_)) {
            c.ty = infer(x, table.as_ref().map(|t| t as &dyn crate::plan::ColTypes), &aggs);
        }
    }
    let mut scope = Scope { table: tname, columns: &names, aggs: None, params, place: "where clause", rel: None };
    let filter = sel.selection.as_ref().map(|w| expr::compile(w, &mut scope)).transpose()?;
    params = scope.params;
    let group_by = match &sel.group_by {
        ast::GroupByExpr::Expressions(exprs, modifiers) => {
            no_group_modifiers(modifiers)?;
            let mut scope =
                Scope { table: tname, columns: &names, aggs: None, params, place: "group statement", rel: None };
            let g: Vec<Expr> = exprs
                .iter()
                .map(|e| resolve_alias(e, &sel.projection, &proj_pos, &items, &mut scope))
                .collect::<Result<_>>()?;
            params = scope.params;
            g
        }
        ast::GroupByExpr::All(_) => return Err(SqlError::unsupported("GROUP BY ALL")),
    };
    let having = match &sel.having {
        Some(h) => {
            let mut scope = Scope {
                table: tname,
                columns: &names,
                aggs: Some(&mut aggs),
                params,
                place: "having clause",
                rel: None,
            };
            // Aliases inside a larger HAVING first become their
            // expressions (`having_alias`); a bare one resolve_alias takes.
            let is_column = |n: &str| names.iter().any(|c| c.eq_ignore_ascii_case(n));
            let expanded = crate::having_alias::expand(h, &sel.projection, &is_column, true);
            let x = resolve_alias(expanded.as_ref().unwrap_or(h), &sel.projection, &proj_pos, &items, &mut scope)?;
            params = scope.params;
            Some(x)
        }
        None => None,
    };
    let mut order = Vec::new();
    if let Some(ob) = &q.order_by {
        let ast::OrderByKind::Expressions(list) = &ob.kind else {
            return Err(SqlError::unsupported("ORDER BY ALL"));
        };
        for o in list {
            let mut scope = Scope {
                table: tname,
                columns: &names,
                aggs: Some(&mut aggs),
                params,
                place: "order clause",
                rel: None,
            };
            let x = resolve_alias(&o.expr, &sel.projection, &proj_pos, &items, &mut scope)?;
            params = scope.params;
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            order.push((x, desc));
        }
    }
    let (mut limit, mut offset) = (None, None);
    if let Some(lc) = &q.limit_clause {
        let mut scope = Scope { table: None, columns: &[], aggs: None, params, place: "limit clause", rel: None };
        match lc {
            ast::LimitClause::LimitOffset { limit: l, offset: o, .. } => {
                limit = l.as_ref().map(|e| expr::compile(e, &mut scope)).transpose()?;
                offset = o.as_ref().map(|o| expr::compile(&o.value, &mut scope)).transpose()?;
            }
            ast::LimitClause::OffsetCommaLimit { offset: o, limit: l } => {
                offset = Some(expr::compile(o, &mut scope)?);
                limit = Some(expr::compile(l, &mut scope)?);
            }
        }
        params = scope.params;
    }
    let lock = lock_of(q)?;
    let distinct = match &sel.distinct {
        None | Some(ast::Distinct::All) => false,
        Some(ast::Distinct::Distinct) => true,
        Some(ast::Distinct::On(_)) => return Err(SqlError::unsupported("DISTINCT ON")),
    };
    // Point selects and plain scans are neither grouped nor DISTINCT with
    // ORDER BY: the check costs them nothing.
    let group_error = if !aggs.is_empty() || !group_by.is_empty() || (distinct && !order.is_empty()) {
        let mut fd = group_check::Fd::default();
        if let Some(t) = &table {
            fd.table(t, 0, t.alias.as_deref().unwrap_or(&t.name));
        }
        if let Some(f) = &filter {
            fd.add_cond(f);
        }
        group_check::check(&group_check::Grouped {
            fd: &fd,
            items: &items,
            aggs: &aggs,
            group_by: &group_by,
            rollup: false,
            having: having.as_ref(),
            order: &order,
            distinct,
        })
    } else {
        None
    };
    // Comparisons on columns of another collation than the default.
    // Constants compared with YEAR / ENUM / SET columns, as the column reads them.
    let colls: Vec<Collation> =
        table.as_ref().map(|t| t.schema.columns.iter().map(|c| c.collation).collect()).unwrap_or_default();
    let konst = |x: Expr| match &table {
        Some(t) => crate::compare_const::for_table(x, t, &colls),
        None => x,
    };
    // Derived collations (`coercion`): 1267 here, before any row is read.
    let slots = table.as_ref().map(|t| crate::coercion::table_slots(&t.schema.columns)).unwrap_or_default();
    let bind = |x: Expr| crate::coercion::bind(konst(x), &slots);
    let filter = filter.map(bind).transpose()?;
    let items: Vec<Expr> = items.into_iter().map(bind).collect::<Result<_>>()?;
    let having = having.map(bind).transpose()?;
    let key = |x: &Expr| crate::coercion::key_collation(x, &slots);
    let order_colls: Vec<Collation> = order.iter().map(|(x, _)| key(x)).collect();
    let group_colls: Vec<Collation> = group_by.iter().map(key).collect();
    let item_colls: Vec<Collation> = items.iter().map(key).collect();
    let agg_colls: Vec<Collation> =
        aggs.iter().map(|a| a.arg.as_ref().map_or(Collation::Utf8mb4GeneralCi, key)).collect();
    // GROUP_CONCAT reads number columns as text (`yearbit`).
    if let Some(t) = table.as_ref().filter(|_| !aggs.is_empty()) {
        let types: Vec<_> = t.schema.columns.iter().map(|c| Some(c.ty)).collect();
        let zerofill: Vec<_> = t.schema.columns.iter().map(|c| c.zerofill).collect();
        crate::yearbit::group_concat_as_text(&mut aggs, &types, &zerofill);
    }
    let access = match &table {
        Some(t) => choose_access(t, filter.as_ref()),
        None => Access::Full,
    };
    let aggregated = !aggs.is_empty() || !group_by.is_empty();
    let index_order = match &table {
        Some(t) if !aggregated => crate::plan::order_by_index(t, &access, filter.as_ref(), &order).map(|desc| {
            if desc {
                Direction::Backward
            } else {
                Direction::Forward
            }
        }),
        _ => None,
    };
    let need = table.as_ref().and_then(|t| {
        let mut need = vec![false; t.schema.columns.len()];
        let exprs = filter.iter().chain(&items).chain(&group_by).chain(&having).chain(order.iter().map(|(e, _)| e));
        let agg_args = aggs.iter().flat_map(|a| a.arg.iter().chain(&a.more).chain(a.order.iter().map(|(e, _)| e)));
        for e in exprs.chain(agg_args) {
            crate::expr::mark_columns(e, &mut need);
        }
        need.contains(&false).then_some(need)
    });
    Ok(SelectPlan {
        need,
        table,
        access,
        filter,
        items,
        columns,
        aggs,
        group_by,
        having,
        distinct,
        order,
        index_order,
        limit,
        offset,
        lock,
        lock_wait: lock_wait_of(q),
        params,
        order_colls,
        group_colls,
        item_colls,
        agg_colls,
        group_error,
        calc_found_rows: calc_found_rows(q)?,
    })
}

/// The clauses of a SELECT neither planner carries out, refused rather
/// than ignored: INTO and other dialects' clauses. (SQL_CALC_FOUND_ROWS
/// is checked for the whole statement by [`calc_found_rows`].)
/// (WINDOW, WITH ROLLUP and window functions send a query to `rel`,
/// which binds them.)
/// (HIGH_PRIORITY, SQL_SMALL_RESULT, SQL_NO_CACHE ... are hints; a
/// leading STRAIGHT_JOIN keeps the general engine's join order as
/// written, `rel/select.rs`.)
pub(crate) fn check_select_clauses(sel: &ast::Select) -> Result<()> {
    let refuse = |what: &str| Err(SqlError::unsupported(what));
    if sel.into.is_some() {
        return refuse("SELECT ... INTO");
    }
    if sel.top.is_some()
        || sel.exclude.is_some()
        || !sel.lateral_views.is_empty()
        || sel.prewhere.is_some()
        || !sel.connect_by.is_empty()
        || !sel.cluster_by.is_empty()
        || !sel.distribute_by.is_empty()
        || !sel.sort_by.is_empty()
        || sel.qualify.is_some()
        || sel.value_table_mode.is_some()
    {
        return refuse("this SELECT clause");
    }
    Ok(())
}

/// Whether the statement's query asks for SQL_CALC_FOUND_ROWS: its first
/// SELECT may (`SELECT SQL_CALC_FOUND_ROWS ... UNION ... LIMIT n` counts
/// the whole set operation's rows); anywhere else it is 1234, as MariaDB.
/// (Inside a view's query it is ignored, as MariaDB.)
pub fn calc_found_rows(q: &ast::Query) -> Result<bool> {
    use std::ops::ControlFlow;
    fn calc(s: &ast::Select) -> bool {
        s.select_modifiers.as_ref().is_some_and(|m| m.sql_calc_found_rows)
    }
    /// Selects of a query's own body asking for it (nested queries are
    /// visited on their own).
    fn count(body: &ast::SetExpr) -> usize {
        match body {
            ast::SetExpr::Select(s) => calc(s) as usize,
            ast::SetExpr::SetOperation { left, right, .. } => count(left) + count(right),
            _ => 0,
        }
    }
    fn first(body: &ast::SetExpr) -> bool {
        match body {
            ast::SetExpr::Select(s) => calc(s),
            ast::SetExpr::SetOperation { left, .. } => first(left),
            ast::SetExpr::Query(q) => first(&q.body),
            _ => false,
        }
    }
    struct Count(usize);
    impl ast::Visitor for Count {
        type Break = ();
        fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
            self.0 += count(&q.body);
            ControlFlow::Continue(())
        }
    }
    let mut n = Count(0);
    let _ = ast::Visit::visit(q, &mut n);
    let top = first(&q.body);
    if n.0 > usize::from(top) {
        return Err(SqlError::new(1234, "42000", "Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS'"));
    }
    Ok(top)
}

/// FOR UPDATE / FOR SHARE of a query. NOWAIT, SKIP LOCKED and `OF t` are
/// refused rather than ignored.
pub(crate) fn lock_of(q: &ast::Query) -> Result<Option<LockMode>> {
    let Some(l) = q.locks.first() else { return Ok(None) };
    if l.of.is_some() || q.locks.len() > 1 {
        return Err(SqlError::unsupported("FOR UPDATE OF"));
    }
    Ok(Some(match l.lock_type {
        ast::LockType::Share => LockMode::S,
        ast::LockType::Update => LockMode::X,
    }))
}

/// NOWAIT / SKIP LOCKED of a locking read (what its row-lock requests do
/// when another transaction holds the row: fail with 3572, or skip it).
pub(crate) fn lock_wait_of(q: &ast::Query) -> quire_engine::table::LockWait {
    use quire_engine::table::LockWait;
    match q.locks.first().and_then(|l| l.nonblock.as_ref()) {
        None => LockWait::Wait,
        Some(ast::NonBlock::Nowait) => LockWait::NoWait,
        Some(ast::NonBlock::SkipLocked) => LockWait::SkipLocked,
    }
}

/// GROUP BY modifiers are refused rather than ignored (WITH ROLLUP is
/// carried out by `rel`, where `rel::needs_general` sends it).
pub(crate) fn no_group_modifiers(m: &[ast::GroupByWithModifier]) -> Result<()> {
    match m.first() {
        None => Ok(()),
        Some(m) => Err(SqlError::unsupported(format!("GROUP BY ... {m}"))),
    }
}

/// ORDER BY / GROUP BY / HAVING may name a select alias or a position.
fn resolve_alias(
    e: &ast::Expr,
    proj: &[ast::SelectItem],
    proj_pos: &[usize],
    items: &[Expr],
    scope: &mut Scope<'_>,
) -> Result<Expr> {
    if let ast::Expr::Value(v) = e {
        if let ast::Value::Number(n, _) = &v.value {
            if let Ok(pos) = n.parse::<usize>() {
                return items.get(pos.wrapping_sub(1)).cloned().ok_or_else(|| SqlError::unknown_column(n, scope.place));
            }
        }
    }
    if let ast::Expr::Identifier(i) = e {
        if scope.columns.iter().all(|c| !c.eq_ignore_ascii_case(&i.value)) {
            for (k, p) in proj.iter().enumerate() {
                if let ast::SelectItem::ExprWithAlias { alias, .. } = p {
                    if alias.value.eq_ignore_ascii_case(&i.value) {
                        let at = proj_pos.get(k).copied().unwrap_or(usize::MAX);
                        return items.get(at).cloned().ok_or_else(|| SqlError::internal("alias out of range"));
                    }
                }
            }
        }
    }
    expr::compile(e, scope)
}

pub(crate) fn display_name(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Identifier(i) => i.value.clone(),
        // `(a)` is named `a`, as MySQL names a column however parenthesised.
        ast::Expr::Nested(inner) if matches!(**inner, ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)) => {
            display_name(inner)
        }
        // MySQL names a string literal's column by its text, unquoted.
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        ast::Expr::CompoundIdentifier(parts) => {
            let last = parts.last().map(|p| p.value.clone()).unwrap_or_default();
            if parts.first().is_some_and(|p| p.value.starts_with("@@")) {
                e.to_string()
            } else {
                last
            }
        }
        other => crate::depth::display(other),
    }
}

fn meta_for(x: &Expr, name: &str, t: Option<&TableRef>) -> ColMeta {
    match (x, t) {
        (Expr::Col(c), Some(t)) => ColMeta::column(t, *c, name),
        _ => ColMeta::expr(name, infer(x, t.map(|t| t as &dyn crate::plan::ColTypes), &[])),
    }
}

/// Evaluation environment: parameters, aggregate results, the session.
pub struct Ctx<'a> {
    pub params: &'a [Value],
    pub aggs: Vec<Value>,
    pub session: &'a dyn SessionEnv,
    /// The keys of IN lists with `?` markers, built once for this
    /// execution ([`Env::in_keys`]).
    pub in_keys: crate::inset::Memo,
}

/// What expressions read from the session.
pub trait SessionEnv {
    fn sysvar(&self, name: &str, global: bool) -> Result<Value>;
    fn session_func(&self, name: &str) -> Option<Value>;
    /// [`Env::warn`]: into the session's diagnostics area.
    fn warn(&self, c: crate::diag::Condition) -> Result<()>;
    fn mode(&self) -> crate::diag::Mode;
    /// Counts what an ORDER BY's sort did (`Sort_rows`, `Sort_merge_passes`).
    fn sorted(&self, stats: crate::filesort::SortStats);
    /// Counts temporary files created in `tmpdir` (`Created_tmp_files`).
    fn created_tmp_files(&self, _n: u64) {}

    /// What enforcing FOREIGN KEYs needs; `None` when no table has one or
    /// `foreign_key_checks` is 0 (`fk` module).
    fn fk_checks(&self) -> Option<crate::fk::Checks<'_>> {
        None
    }
    /// `Err` when the running statement must stop (see [`Env::check_interrupt`]).
    /// SELECT SQL_CALC_FOUND_ROWS counted `n` rows without its LIMIT
    /// (what FOUND_ROWS() answers next).
    fn found_rows_counted(&self, _n: u64) {}
    /// The client connected with CLIENT_FOUND_ROWS (affected rows count
    /// rows found, not only rows changed).
    fn client_found_rows(&self) -> bool {
        false
    }
    /// The session's `insert_id` (0: none).
    fn insert_id(&self) -> u64 {
        0
    }
    fn check_interrupt(&self) -> Result<()> {
        Ok(())
    }
    /// The rows of information_schema table `v` (`infoschema::rows`);
    /// only a session has them.
    fn system_rows(&self, _v: crate::infoschema::View, _hint: &crate::infoschema::Hint) -> Result<Vec<Vec<Value>>> {
        Err(SqlError::unsupported("information_schema outside a session"))
    }
    /// The server's user locks (GET_LOCK & co., `user_lock.rs`) and this
    /// connection's id; `None` where there is no server.
    fn user_locks(&self) -> Option<(&crate::user_lock::UserLocks, u32)> {
        None
    }
    /// SLEEP(): waits `d` unless the statement is interrupted; 0, or 1 when
    /// cut short (MySQL's result; the statement then fails unless SLEEP is
    /// all it does).
    fn sleep(&self, d: std::time::Duration) -> Value {
        std::thread::sleep(d);
        Value::Int(0)
    }
    /// The triggers of `db`.`table` (`trigger` module); `None` when it
    /// has none (always outside a session).
    fn triggers(&self, _db: &str, _table: &str) -> Option<crate::trigger::TableTriggers> {
        None
    }
    /// Runs stored function `key` (`stored::func`); only a session has
    /// stored functions.
    fn stored_function(&self, _key: &str, _args: &[Value]) -> Result<Value> {
        Err(SqlError::internal("stored functions outside a session"))
    }
    /// Sets user variable `@name` (`assign`); outside a session there
    /// are none to set.
    fn set_user_var(&self, _name: &str, _value: Value) {}
    /// [`Self::stored_function`] reading and writing through `trx`, the
    /// running statement's transaction.
    fn stored_function_in(&self, _trx: &mut quire_engine::table::Trx, _key: &str, _args: &[Value]) -> Result<Value> {
        Err(SqlError::internal("stored functions outside a session"))
    }
    /// Runs the triggers of one row event (`trigger::fire`); only a
    /// session has triggers.
    fn fire(&self, _trx: &mut quire_engine::table::Trx, _ev: crate::trigger::fire::RowEvent<'_>) -> Result<()> {
        Err(SqlError::internal("triggers outside a session"))
    }
}

/// SLEEP's argument as a duration: NULL, negative or non-numeric is 0 (as
/// MariaDB; MySQL 8.0 would refuse NULL and negatives in strict mode).
fn sleep_duration(args: &[Value]) -> Result<std::time::Duration> {
    let [v] = args else {
        return Err(SqlError::new(1582, "42000", "Incorrect parameter count in the call to native function 'sleep'"));
    };
    let secs = expr::to_decimal(v).map_or(0.0, |d| d.to_f64());
    Ok(std::time::Duration::from_secs_f64(if secs.is_finite() { secs.clamp(0.0, 31_536_000.0) } else { 0.0 }))
}

impl Env for Ctx<'_> {
    fn param(&self, i: usize) -> Result<Value> {
        self.params.get(i).cloned().ok_or_else(|| SqlError::wrong_arguments("mysqld_stmt_execute"))
    }
    fn agg(&self, i: usize) -> Result<Value> {
        self.aggs.get(i).cloned().ok_or_else(|| SqlError::new(1111, "HY000", "Invalid use of group function"))
    }
    fn sysvar(&self, name: &str, global: bool) -> Result<Value> {
        self.session.sysvar(name, global)
    }
    fn func(&self, name: &str, args: &[Value]) -> Result<Value> {
        if name == "sleep" {
            return Ok(self.session.sleep(sleep_duration(args)?));
        }
        if let Some(var) = crate::assign::var_of(name) {
            let v = args.first().cloned().unwrap_or(Value::Null);
            self.session.set_user_var(var, v.clone());
            return Ok(v);
        }
        if crate::stored::func::is_stored(name) {
            return self.session.stored_function(name, args);
        }
        if crate::user_lock::is_lock_func(name) {
            if let Some((locks, me)) = self.session.user_locks() {
                return locks.call(name, args, me, self.session);
            }
        }
        match self.session.session_func(name) {
            Some(v) if args.is_empty() || name == "last_insert_id" => Ok(v),
            _ => crate::func::call(name, args),
        }
    }
    fn warn(&self, c: crate::diag::Condition) -> Result<()> {
        self.session.warn(c)
    }
    fn mode(&self) -> crate::diag::Mode {
        self.session.mode()
    }
    fn check_interrupt(&self) -> Result<()> {
        self.session.check_interrupt()
    }
    fn in_keys(
        &self,
        set: &std::sync::Arc<crate::inset::InSet>,
        build: &dyn Fn() -> Option<crate::inset::Keys>,
    ) -> Option<std::sync::Arc<crate::inset::Keys>> {
        self.in_keys.get(set, build)
    }
}

/// A bound's values, its expressions evaluated on `row` (the slots bound
/// before the table in a join; nothing for a single table).
pub(crate) fn eval_bound(b: &Bound<Vec<Expr>>, row: &[Value], env: &dyn Env) -> Result<Bound<Vec<Value>>> {
    Ok(match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(v.iter().map(|e| eval(e, row, env)).collect::<Result<_>>()?),
        Bound::Excluded(v) => Bound::Excluded(v.iter().map(|e| eval(e, row, env)).collect::<Result<_>>()?),
    })
}

pub(crate) fn as_slice(b: &Bound<Vec<Value>>) -> Bound<&[Value]> {
    match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
    }
}

/// Whether `v` compares with `col` the way the column's index orders it:
/// numbers with numeric columns, strings with string columns, strings or
/// dates with temporal ones. Otherwise MySQL compares by another type
/// (`'1abc' = 1`, `5 = '05'`) and the index cannot be used.
pub(crate) fn key_kind_matches(col: &Column, v: &Value) -> bool {
    let temporal = matches!(col.ty, ColumnType::Date | ColumnType::DateTime { .. } | ColumnType::Timestamp { .. });
    match v {
        Value::Null => true,
        // A number compared with a DOUBLE column compares as a double
        // (MySQL's rule), which is what converting it to the column's type
        // gives. Not so for FLOAT or DOUBLE(M,D): the conversion rounds
        // (0.1 is no FLOAT value), and for exact columns a double compares
        // as a double, which their exact order need not match.
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            col.ty.is_integer()
                || matches!(col.ty, ColumnType::Decimal { .. } | ColumnType::Double { digits: None, .. })
                || numbered_key_matches(col, v)
        }
        Value::Double(_) => matches!(col.ty, ColumnType::Double { digits: None, .. }),
        Value::Str(_) => {
            col.ty.is_string() || temporal || matches!(col.ty, ColumnType::Time { .. }) || binary_key_matches(col, v)
        }
        Value::Date(_) | Value::DateTime(_) => temporal,
        Value::Time(_) => matches!(col.ty, ColumnType::Time { .. }),
        Value::Bytes(_) => binary_key_matches(col, v),
        // JSON compares as JSON, which no index orders by.
        Value::Json(_) => false,
        Value::Choice(c) => col.ty.members().is_some_and(|m| std::ptr::eq(m, c.members)),
    }
}

/// Whether an integer compares with an ENUM / SET / BIT column (keyed by
/// its number) or a YEAR column (keyed by the year) as the index orders
/// them: integers only (a fraction would be cut when converted), and for
/// YEAR not 1..=99, which would be read as two-digit years.
fn numbered_key_matches(col: &Column, v: &Value) -> bool {
    match (col.ty, v) {
        (ColumnType::Enum { .. } | ColumnType::Set { .. } | ColumnType::Bit { .. }, Value::Int(_) | Value::UInt(_)) => {
            true
        }
        (ColumnType::Year, Value::Int(y)) => !(1..=99).contains(y),
        (ColumnType::Year, Value::UInt(y)) => !(1..=99).contains(y),
        _ => false,
    }
}

/// Whether a string compares with a binary column as its index orders
/// it: byte-wise always, but a BINARY(n) key holds padded values, so only
/// a value of exactly n bytes (a shorter one equals no row's value).
fn binary_key_matches(col: &Column, v: &Value) -> bool {
    let len = match v {
        Value::Str(s) => s.len(),
        Value::Bytes(b) => b.len(),
        _ => return false,
    };
    match col.ty {
        ColumnType::Binary { len: n } => len == n as usize,
        ColumnType::VarBinary { .. } => true,
        _ => false,
    }
}

/// A decimal with a fraction compared with an integer column.
fn fractional_for_int(col: &Column, v: &Value) -> Option<Decimal> {
    match v {
        Value::Decimal(d)
            if col.ty.is_integer() && d.rescale(0).is_none_or(|r| r.coef * 10i128.pow(d.scale as u32) != d.coef) =>
        {
            Some(*d)
        }
        _ => None,
    }
}

/// Whether `pk` can be looked up as it is: every value of its column's
/// kind, storable, and no fraction for an integer column.
pub fn point_key_usable(t: &TableRef, pk: &[Value]) -> bool {
    pk.iter().zip(&t.schema.primary_key).all(|(v, &c)| {
        let col = &t.schema.columns[c];
        key_kind_matches(col, v) && fractional_for_int(col, v).is_none() && col.coerce(v.clone()).is_ok()
    })
}

/// A range bound made safe for the index (a superset of what the WHERE
/// clause accepts): a value of another kind, or one the column cannot
/// hold, leaves that side unbounded; a fraction on an integer column
/// becomes the nearest integer inside the range.
pub(crate) fn sanitize_bound(t: &TableRef, index: IndexRef, b: Bound<Vec<Value>>, low: bool) -> Bound<Vec<Value>> {
    let (mut vals, included) = match b {
        Bound::Unbounded => return Bound::Unbounded,
        Bound::Included(v) => (v, true),
        Bound::Excluded(v) => (v, false),
    };
    let cols = t.index_columns(index);
    let n = vals.len();
    let mut included = included;
    for (i, v) in vals.iter_mut().enumerate() {
        let Some(&c) = cols.get(i) else { return Bound::Unbounded };
        let col = &t.schema.columns[c];
        if !key_kind_matches(col, v) {
            return Bound::Unbounded;
        }
        if let Some(d) = fractional_for_int(col, v) {
            if i + 1 != n {
                return Bound::Unbounded;
            }
            let p = 10i128.pow(d.scale as u32);
            let r = if low { -((-d.coef).div_euclid(p)) } else { d.coef.div_euclid(p) };
            *v = match i64::try_from(r) {
                Ok(x) => Value::Int(x),
                Err(_) => return Bound::Unbounded,
            };
            included = true;
        }
        if col.coerce(v.clone()).is_err() {
            return Bound::Unbounded;
        }
    }
    if included {
        Bound::Included(vals)
    } else {
        Bound::Excluded(vals)
    }
}

/// A key value the engine cannot store (wrong type, out of range) matches
/// no row: the access path yields nothing rather than an error.
pub(crate) fn no_match(e: &quire_engine::Error) -> bool {
    matches!(
        e,
        quire_engine::Error::BadValue { .. }
            | quire_engine::Error::OutOfRange { .. }
            | quire_engine::Error::DataTooLong { .. }
            | quire_engine::Error::NullNotAllowed { .. }
    )
}

/// Reads the rows of `t` the access path finds and `filter` accepts,
/// calling `f` on each until it returns false. `lock`: locking reads.
#[allow(clippy::too_many_arguments)]
pub fn for_each_row(
    t: &TableRef,
    access: &Access,
    filter: Option<&Expr>,
    dir: Direction,
    lock: Option<LockMode>,
    trx: &mut Trx,
    env: &dyn Env,
    f: impl FnMut(&mut Vec<Value>) -> Result<bool>,
) -> Result<()> {
    for_each_row_of(t, access, filter, None, dir, lock, trx, env, f)
}

/// [`for_each_row`] decoding only the columns `need` marks (the others
/// read as NULL). Each row is lent to `f` in a buffer the next row reuses
/// (`std::mem::take` it to keep it).
#[allow(clippy::too_many_arguments)]
pub fn for_each_row_of(
    t: &TableRef,
    access: &Access,
    filter: Option<&Expr>,
    need: Option<&[bool]>,
    dir: Direction,
    lock: Option<LockMode>,
    trx: &mut Trx,
    env: &dyn Env,
    mut f: impl FnMut(&mut Vec<Value>) -> Result<bool>,
) -> Result<()> {
    let keep = |row: &[Value]| -> Result<bool> {
        env.check_interrupt()?;
        Ok(match filter {
            Some(w) => truth(&eval(w, row, env)?) == Some(true),
            None => true,
        })
    };
    match access {
        Access::Point(keys) => {
            let pk: Vec<Value> = keys.iter().map(|e| eval(e, &[], env)).collect::<Result<_>>()?;
            if pk.iter().any(Value::is_null) {
                return Ok(());
            }
            if !pk.iter().zip(&t.schema.primary_key).all(|(v, &c)| key_kind_matches(&t.schema.columns[c], v)) {
                return for_each_row_of(t, &Access::Full, filter, need, dir, lock, trx, env, f);
            }
            let got = match lock {
                Some(m) => t.table.get_locking(trx, &pk, m),
                None => t.table.get_tx_columns(trx, &pk, need),
            };
            match got {
                Ok(Some(mut row)) if keep(&row)? => {
                    f(&mut row)?;
                }
                Ok(_) => {}
                Err(e) if no_match(&e) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Access::Points { index, keys } => {
            let mut vals: Vec<Value> = keys.iter().map(|e| eval(e, &[], env)).collect::<Result<_>>()?;
            vals.retain(|v| !v.is_null());
            let col = t.index_columns(*index).first().map(|&c| &t.schema.columns[c]);
            if col.is_some_and(|col| vals.iter().any(|v| !key_kind_matches(col, v))) {
                return for_each_row_of(t, &Access::Full, filter, need, dir, lock, trx, env, f);
            }
            // Equal under the index's collation means the same range.
            let coll = col.map_or(Collation::Utf8mb4GeneralCi, |c| c.collation);
            vals.sort_by(|a, b| compare(a, b, coll).unwrap_or(Ordering::Equal));
            vals.dedup_by(|a, b| compare(a, b, coll) == Some(Ordering::Equal));
            if dir == Direction::Backward {
                vals.reverse();
            }
            for v in vals {
                let k = [v];
                let r = scan(t, *index, Bound::Included(&k), Bound::Included(&k), need, dir, lock, trx, &keep, &mut f);
                match r {
                    Ok(true) => {}
                    Ok(false) => return Ok(()),
                    Err(Scan::Engine(e)) if no_match(&e) => {}
                    Err(Scan::Engine(e)) => return Err(e.into()),
                    Err(Scan::Sql(e)) => return Err(e),
                }
            }
        }
        Access::Range { index, lo, hi } => {
            let (lo, hi) = (eval_bound(lo, &[], env)?, eval_bound(hi, &[], env)?);
            let (lo, hi) = (sanitize_bound(t, *index, lo, true), sanitize_bound(t, *index, hi, false));
            let nullb = |b: &Bound<Vec<Value>>| matches!(b, Bound::Included(v) | Bound::Excluded(v) if v.iter().any(Value::is_null));
            if nullb(&lo) || nullb(&hi) {
                return Ok(());
            }
            match scan(t, *index, as_slice(&lo), as_slice(&hi), need, dir, lock, trx, &keep, &mut f) {
                Ok(_) => {}
                Err(Scan::Engine(e)) if no_match(&e) => {}
                Err(Scan::Engine(e)) => return Err(e.into()),
                Err(Scan::Sql(e)) => return Err(e),
            }
        }
        Access::Full => {
            match scan(t, IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, need, dir, lock, trx, &keep, &mut f) {
                Ok(_) => {}
                Err(Scan::Engine(e)) => return Err(e.into()),
                Err(Scan::Sql(e)) => return Err(e),
            }
        }
    }
    Ok(())
}

enum Scan {
    Engine(quire_engine::Error),
    Sql(SqlError),
}

/// One range: `Ok(false)` once `f` asked to stop.
#[allow(clippy::too_many_arguments)]
fn scan(
    t: &TableRef,
    index: IndexRef,
    lo: Bound<&[Value]>,
    hi: Bound<&[Value]>,
    need: Option<&[bool]>,
    dir: Direction,
    lock: Option<LockMode>,
    trx: &mut Trx,
    keep: &dyn Fn(&[Value]) -> Result<bool>,
    f: &mut dyn FnMut(&mut Vec<Value>) -> Result<bool>,
) -> std::result::Result<bool, Scan> {
    if let (Some(m), Direction::Forward) = (lock, dir) {
        // Each row locked as it is read; the scan (and its locking) stops
        // where the caller stops taking rows.
        let mut failed = None;
        let mut more = true;
        t.table
            .scan_locking_each(trx, index, lo, hi, m, &mut |mut row| {
                match keep(&row).and_then(|k| if k { f(&mut row) } else { Ok(true) }) {
                    Ok(go) => more = go,
                    Err(e) => failed = Some(e),
                }
                more && failed.is_none()
            })
            .map_err(Scan::Engine)?;
        return match failed {
            Some(e) => Err(Scan::Sql(e)),
            None => Ok(more),
        };
    }
    if let Some(m) = lock {
        // Backward: the range is locked whole, then read in reverse.
        let mut rows = t.table.scan_locking(trx, index, lo, hi, m, None).map_err(Scan::Engine)?;
        rows.reverse();
        for mut row in rows {
            if keep(&row).map_err(Scan::Sql)? && !f(&mut row).map_err(Scan::Sql)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    let mut c = t.table.scan_tx(trx, index, lo, hi, dir).map_err(Scan::Engine)?;
    if let Some(need) = need {
        c.only_columns(need);
    }
    let mut row = Vec::new();
    while c.next_into(&mut row).map_err(Scan::Engine)? {
        if keep(&row).map_err(Scan::Sql)? && !f(&mut row).map_err(Scan::Sql)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Running state of one aggregate.
#[derive(Clone)]
pub(crate) struct AggState {
    count: i64,
    /// SUM / AVG of the exact values.
    sum: Option<Decimal>,
    /// SUM / AVG of the doubles, in row order as MySQL adds them; with
    /// any, the result is a double.
    fsum: Option<f64>,
    best: Option<Value>,
    seen: Option<HashSet<Vec<u8>>>,
    /// GROUP_CONCAT: each row's text and ORDER BY keys.
    parts: Vec<(String, Vec<Value>)>,
    /// GROUP_CONCAT: `group_concat_max_len` when the first row came.
    max_len: usize,
    /// JSON_ARRAYAGG / JSON_OBJECTAGG: the document so far.
    json: Option<quire_engine::row::json::Json>,
}

impl AggState {
    pub(crate) fn new(a: &Agg) -> Self {
        Self {
            count: 0,
            sum: None,
            fsum: None,
            best: None,
            seen: a.distinct.then(HashSet::new),
            parts: Vec::new(),
            max_len: 0,
            json: None,
        }
    }

    pub(crate) fn add(&mut self, a: &Agg, coll: Collation, row: &[Value], env: &dyn Env) -> Result<()> {
        let v = match &a.arg {
            Some(x) => eval(x, row, env)?,
            None => Value::Int(1),
        };
        if matches!(a.func, AggFn::JsonArrayAgg | AggFn::JsonObjectAgg) {
            let second = a.more.first().map(|x| eval(x, row, env)).transpose()?;
            return crate::json::aggregate(&mut self.json, a.func, v, second);
        }
        if v.is_null() {
            return Ok(());
        }
        if !a.more.is_empty() || a.func == AggFn::GroupConcat {
            // Every argument counts: a row with a NULL in any is skipped.
            let mut vals = vec![v];
            for x in &a.more {
                let w = eval(x, row, env)?;
                if w.is_null() {
                    return Ok(());
                }
                vals.push(w);
            }
            if let Some(seen) = &mut self.seen {
                let colls = vec![coll; vals.len()];
                if !seen.insert(group_key(&vals, &colls)) {
                    return Ok(());
                }
            }
            self.count += 1;
            if a.func == AggFn::GroupConcat {
                if self.parts.is_empty() {
                    let max = env.sysvar("group_concat_max_len", false).ok().and_then(|v| expr::to_i128(&v));
                    self.max_len = max.map_or(1024, |m| m.clamp(4, usize::MAX as i128) as usize);
                }
                let text: String = vals.iter().map(|v| v.to_string()).collect();
                let keys = a.order.iter().map(|(x, _)| eval(x, row, env)).collect::<Result<Vec<_>>>()?;
                self.parts.push((text, keys));
            }
            return Ok(());
        }
        self.add_value(a, coll, v)
    }

    /// Adds one value of the argument of an aggregate of one argument
    /// (not GROUP_CONCAT); NULL counts for nothing.
    pub(crate) fn add_value(&mut self, a: &Agg, coll: Collation, v: Value) -> Result<()> {
        if v.is_null() {
            return Ok(());
        }
        if let Some(seen) = &mut self.seen {
            if !seen.insert(group_key(std::slice::from_ref(&v), &[coll])) {
                return Ok(());
            }
        }
        self.count += 1;
        match a.func {
            AggFn::Sum | AggFn::Avg if matches!(v, Value::Double(_)) => {
                let f = expr::to_f64(&v).unwrap_or(0.0);
                let s = self.fsum.unwrap_or(0.0) + f;
                if !s.is_finite() {
                    return Err(SqlError::new(1690, "22003", "DOUBLE value is out of range in 'sum'"));
                }
                self.fsum = Some(s);
            }
            AggFn::Sum | AggFn::Avg => {
                let d = to_decimal(&v).unwrap_or(Decimal::ZERO);
                self.sum = Some(match self.sum {
                    Some(s) => s.checked_add(d).ok_or_else(|| SqlError::new(1690, "22003", "SUM is out of range"))?,
                    None => d,
                });
            }
            AggFn::Min | AggFn::Max => {
                let better = match &self.best {
                    None => true,
                    Some(b) => {
                        let o = compare(&v, b, coll);
                        if a.func == AggFn::Min {
                            o == Some(Ordering::Less)
                        } else {
                            o == Some(Ordering::Greater)
                        }
                    }
                };
                if better {
                    self.best = Some(v);
                }
            }
            AggFn::Count | AggFn::CountStar | AggFn::GroupConcat | AggFn::JsonArrayAgg | AggFn::JsonObjectAgg => {}
        }
        Ok(())
    }

    /// Takes back a value [`AggState::add_value`] added (a row leaving a
    /// window frame). REQUIRES: COUNT, SUM or AVG without DISTINCT (MIN
    /// and MAX cannot forget a value: their frames are recomputed).
    pub(crate) fn remove_value(&mut self, a: &Agg, v: &Value) -> Result<()> {
        debug_assert!(Self::removable(a));
        if v.is_null() {
            return Ok(());
        }
        self.count -= 1;
        if let (AggFn::Sum | AggFn::Avg, Value::Double(f)) = (a.func, v) {
            self.fsum = if self.count == 0 { None } else { self.fsum.map(|s| s - f) };
            if self.count == 0 {
                self.sum = None;
            }
        } else if matches!(a.func, AggFn::Sum | AggFn::Avg) {
            if self.count == 0 {
                self.fsum = None;
            }
            let d = to_decimal(v).unwrap_or(Decimal::ZERO);
            self.sum = match self.sum {
                _ if self.count == 0 => None,
                Some(s) => Some(s.checked_sub(d).ok_or_else(|| SqlError::new(1690, "22003", "SUM is out of range"))?),
                None => None,
            };
        }
        Ok(())
    }

    /// Whether [`AggState::remove_value`] can take values back.
    pub(crate) fn removable(a: &Agg) -> bool {
        !a.distinct && matches!(a.func, AggFn::Count | AggFn::CountStar | AggFn::Sum | AggFn::Avg)
    }

    /// GROUP_CONCAT's value, and whether `group_concat_max_len` cut it.
    fn concat(&self, a: &Agg) -> (Value, bool) {
        if self.parts.is_empty() {
            return (Value::Null, false);
        }
        let mut parts: Vec<(Vec<SortKey>, &str)> = self
            .parts
            .iter()
            .map(|(t, k)| (k.iter().map(|v| sort_key(v, Collation::Utf8mb4GeneralCi)).collect(), t.as_str()))
            .collect();
        if !a.order.is_empty() {
            parts.sort_by(|(x, _), (y, _)| {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    let o = if a.order[i].1 { q.cmp(p) } else { p.cmp(q) };
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            });
        }
        let mut s = String::new();
        for (i, (_, t)) in parts.iter().enumerate() {
            if i > 0 {
                s.push_str(&a.separator);
            }
            s.push_str(t);
            if s.len() > self.max_len {
                break;
            }
        }
        let cut = s.len() > self.max_len;
        if cut {
            let mut end = self.max_len;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s.truncate(end);
        }
        (Value::Str(s), cut)
    }

    /// The aggregate's value, and whether `group_concat_max_len` cut it.
    pub(crate) fn result(&self, a: &Agg) -> (Value, bool) {
        let v = match a.func {
            AggFn::GroupConcat => return self.concat(a),
            AggFn::JsonArrayAgg | AggFn::JsonObjectAgg => {
                self.json.clone().map_or(Value::Null, |j| Value::Json(Box::new(j)))
            }
            AggFn::Count | AggFn::CountStar => Value::Int(self.count),
            AggFn::Sum | AggFn::Avg if self.fsum.is_some() => {
                let total = self.fsum.unwrap_or(0.0) + self.sum.map_or(0.0, |d| d.to_f64());
                let v = if a.func == AggFn::Avg { total / self.count.max(1) as f64 } else { total };
                Value::Double(quire_engine::row::float::normalize(v))
            }
            AggFn::Sum => self.sum.map_or(Value::Null, Value::Decimal),
            AggFn::Avg => match self.sum {
                Some(s) if self.count > 0 => {
                    s.checked_div(Decimal::from_i64(self.count), 4).map_or(Value::Null, Value::Decimal)
                }
                _ => Value::Null,
            },
            AggFn::Min | AggFn::Max => self.best.clone().unwrap_or(Value::Null),
        };
        (v, false)
    }
}

pub fn limit_value(e: &Option<Expr>, env: &dyn Env) -> Result<Option<usize>> {
    match e {
        None => Ok(None),
        Some(x) => match expr::to_i128(&eval(x, &[], env)?) {
            Some(n) if n >= 0 => Ok(Some(n.min(usize::MAX as i128) as usize)),
            _ => Err(SqlError::wrong_arguments("LIMIT")),
        },
    }
}

/// Whether the SELECT is only a call of SLEEP() (MySQL answers it with 1,
/// not an error, when interrupted).
pub fn only_sleep(p: &SelectPlan) -> bool {
    p.table.is_none() && matches!(p.items.as_slice(), [Expr::Func(name, _)] if name == "sleep")
}

/// How a SELECT without FOR UPDATE / FOR SHARE reads, InnoDB's rule:
/// under SERIALIZABLE, when autocommit is off or a transaction was begun,
/// as a share-mode locking read (next-key locks: writers of the rows and
/// gaps it read wait for the transaction, and it waits for theirs); an
/// autocommit SELECT, and every other level, reads consistently.
pub fn plain_read_lock(isolation: Isolation, autocommit_statement: bool) -> Option<LockMode> {
    (isolation == Isolation::Serializable && !autocommit_statement).then_some(LockMode::S)
}

/// Runs a SELECT, handing its rows to `sink` (but not its columns);
/// returns how many it sent. `plain_lock`: how reads without FOR UPDATE /
/// FOR SHARE lock ([`plain_read_lock`]).
///
/// Without grouping, sorting or DISTINCT each row the access path finds
/// goes to the sink as it is read, and the scan stops once LIMIT rows are
/// sent; otherwise the rows are collected and [`finish`]ed first.
pub fn run_select(
    p: &SelectPlan,
    trx: Option<&mut Trx>,
    plain_lock: Option<LockMode>,
    ctx: &mut Ctx<'_>,
    sink: &mut dyn RowSink,
) -> Result<u64> {
    let limit = limit_value(&p.limit, ctx)?;
    let offset = limit_value(&p.offset, ctx)?.unwrap_or(0);
    let aggregated = !p.aggs.is_empty() || !p.group_by.is_empty();
    let sort = !p.order.is_empty() && p.index_order.is_none();
    // (A HAVING without grouping filters rows: the finisher applies it.)
    if !aggregated && !sort && !p.distinct && p.having.is_none() {
        let mut window = Window::new(sink, offset, limit).counting(p.calc_found_rows);
        if window.closed() {
            return Ok(0);
        }
        let env: &Ctx<'_> = ctx;
        let project = |row: &[Value]| p.items.iter().map(|x| eval(x, row, env)).collect::<Result<Vec<_>>>();
        match (&p.table, trx) {
            (Some(t), Some(trx)) => {
                let dir = p.index_order.unwrap_or(Direction::Forward);
                for_each_row_of(
                    t,
                    &p.access,
                    p.filter.as_ref(),
                    p.need.as_deref(),
                    dir,
                    p.lock.or(plain_lock),
                    trx,
                    env,
                    |row| window.row(|| project(row)),
                )?;
            }
            (Some(_), None) => return Err(SqlError::internal("a table read without a transaction")),
            (None, _) => {
                let keep = match &p.filter {
                    Some(w) => truth(&eval(w, &[], env)?) == Some(true),
                    None => true,
                };
                if keep {
                    window.row(|| project(&[]))?;
                }
            }
        }
        if p.calc_found_rows {
            env.session.found_rows_counted(window.offered);
        }
        return Ok(window.sent);
    }
    let spec = Finish {
        aggs: &p.aggs,
        agg_colls: &p.agg_colls,
        group_by: &p.group_by,
        group_colls: &p.group_colls,
        rollup: false,
        having: p.having.as_ref(),
        windows: None,
        items: &p.items,
        distinct: p.distinct,
        item_colls: &p.item_colls,
        order: if sort { &p.order } else { &[] },
        order_colls: &p.order_colls,
        width: p.table.as_ref().map_or(0, |t| t.columns.len()),
    };
    // SQL_CALC_FOUND_ROWS: every row is offered to the window (and
    // counted), so the sort keeps them all.
    let mut window = Window::new(sink, offset, limit).counting(p.calc_found_rows);
    let sorting = if sort || aggregated { SortLimits::of(ctx) } else { SortLimits::default() };
    let mut fin = Finisher::new(&spec, offset, if p.calc_found_rows { None } else { limit }, sorting);
    match (&p.table, trx) {
        (Some(t), Some(trx)) => {
            let dir = p.index_order.unwrap_or(Direction::Forward);
            let env: &Ctx<'_> = ctx;
            for_each_row_of(
                t,
                &p.access,
                p.filter.as_ref(),
                p.need.as_deref(),
                dir,
                p.lock.or(plain_lock),
                trx,
                env,
                |row| fin.push(row, env, &mut window),
            )?;
        }
        (Some(_), None) => return Err(SqlError::internal("a table read without a transaction")),
        (None, _) => {
            let keep = match &p.filter {
                Some(w) => truth(&eval(w, &[], ctx)?) == Some(true),
                None => true,
            };
            if keep {
                fin.push(&[], ctx, &mut window)?;
            }
        }
    }
    let sorted = fin.finish(ctx, &mut window)?;
    if sort || sorted.disk_tables > 0 {
        ctx.session.sorted(sorted);
    }
    if p.calc_found_rows {
        ctx.session.found_rows_counted(window.offered);
    }
    Ok(window.sent)
}

/// Compares two rows' sort keys, `desc[i]` reversing key i.
pub(crate) fn cmp_keys(a: &[SortKey], b: &[SortKey], desc: &[bool]) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = x.cmp(y);
        let o = if desc.get(i).copied().unwrap_or(false) { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Sorts (row, keys) pairs by the keys, ORDER BY's `order` giving the
/// directions and `colls` the collations.
pub fn sort_rows(
    out: Vec<(Vec<Value>, Vec<Value>)>,
    order: &[(Expr, bool)],
    colls: &[Collation],
) -> Vec<(Vec<Value>, Vec<Value>)> {
    let desc: Vec<bool> = order.iter().map(|(_, d)| *d).collect();
    let mut keyed: Vec<(Vec<SortKey>, Vec<Value>)> =
        out.into_iter().map(|(v, k)| (k.iter().zip(colls).map(|(x, &c)| sort_key(x, c)).collect(), v)).collect();
    keyed.sort_by(|(a, _), (b, _)| cmp_keys(a, b, &desc));
    keyed.into_iter().map(|(_, v)| (v, Vec::new())).collect()
}

/// A grouping / DISTINCT key: equal under the default collation.
pub fn group_key(vals: &[Value], colls: &[Collation]) -> Vec<u8> {
    // Room for every value's weights (two bytes a character) at once.
    let room: usize = vals.iter().map(|v| if let Value::Str(s) = v { 2 * s.len() + 3 } else { 20 }).sum();
    let mut k = Vec::with_capacity(room);
    for (i, v) in vals.iter().enumerate() {
        push_group_key(v, colls.get(i).copied().unwrap_or(Collation::Utf8mb4GeneralCi), &mut k);
    }
    k
}

/// Appends one value's part of a [`group_key`] (`coll`: its collation)
/// to `k`.
pub fn push_group_key(v: &Value, coll: Collation, k: &mut Vec<u8>) {
    match v {
        Value::Str(s) => {
            k.push(b's');
            quire_engine::row::key::weights(coll, s, k);
        }
        Value::Null => k.push(b'n'),
        Value::Json(j) => {
            k.push(b'j');
            crate::json::group_key(j, k);
        }
        // Length first: the bytes may hold the separator.
        Value::Bytes(b) => {
            k.push(b'b');
            k.extend_from_slice(&(b.len() as u64).to_le_bytes());
            k.extend_from_slice(b);
        }
        other => {
            k.push(b'v');
            match to_decimal(other) {
                Some(d) => {
                    // Normalised (no trailing zeros), so 1.50 and 1.5
                    // meet, and coefficient and scale both count.
                    let (mut coef, mut scale) = (d.coef, d.scale);
                    while scale > 0 && coef % 10 == 0 {
                        coef /= 10;
                        scale -= 1;
                    }
                    k.extend_from_slice(&coef.to_le_bytes());
                    k.push(scale);
                }
                None => k.extend_from_slice(other.to_string().as_bytes()),
            }
        }
    }
    k.extend_from_slice(&[0xff, 0xfe]);
}

/// A sort key computed once per row: compares as the value does. Kinds
/// order Null < numbers < temporals < strings; exact and approximate
/// numbers compare with each other as doubles (MySQL's rule).
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum SortKey {
    Null,
    Num(Decimal),
    /// A double, as its order bits (`float::order_bits`).
    Approx(u64),
    Temporal(DateTime),
    /// Collation weights.
    Str(Vec<u8>),
}

impl SortKey {
    fn rank(&self) -> u8 {
        match self {
            SortKey::Null => 0,
            SortKey::Num(_) | SortKey::Approx(_) => 1,
            SortKey::Temporal(_) => 2,
            SortKey::Str(_) => 3,
        }
    }
}

impl Ord for SortKey {
    fn cmp(&self, o: &Self) -> Ordering {
        use quire_engine::row::float::order_bits;
        match (self, o) {
            (SortKey::Num(a), SortKey::Num(b)) => a.cmp(b),
            (SortKey::Approx(a), SortKey::Approx(b)) => a.cmp(b),
            (SortKey::Num(a), SortKey::Approx(b)) => order_bits(a.to_f64()).cmp(b),
            (SortKey::Approx(a), SortKey::Num(b)) => a.cmp(&order_bits(b.to_f64())),
            (SortKey::Temporal(a), SortKey::Temporal(b)) => a.cmp(b),
            (SortKey::Str(a), SortKey::Str(b)) => a.cmp(b),
            _ => self.rank().cmp(&o.rank()),
        }
    }
}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

pub(crate) fn sort_key(v: &Value, coll: Collation) -> SortKey {
    match v {
        Value::Null => SortKey::Null,
        Value::Str(s) => {
            let mut w = Vec::with_capacity(s.len() * 2);
            quire_engine::row::key::weights(coll, s, &mut w);
            SortKey::Str(w)
        }
        Value::Date(d) => SortKey::Temporal(DateTime { date: *d, hour: 0, minute: 0, second: 0, micros: 0 }),
        Value::DateTime(dt) => SortKey::Temporal(*dt),
        Value::Double(f) => SortKey::Approx(quire_engine::row::float::order_bits(*f)),
        // Byte-wise, unpadded: a binary string's own order.
        Value::Bytes(b) => SortKey::Str(b.clone()),
        // JSON's own order (`json::sort_bytes`).
        Value::Json(j) => SortKey::Str(crate::json::sort_bytes(j)),
        other => SortKey::Num(to_decimal(other).unwrap_or(Decimal::ZERO)),
    }
}

/// Result metadata of a plan.
pub fn columns(p: &SelectPlan) -> Vec<ColMeta> {
    p.columns.clone()
}
