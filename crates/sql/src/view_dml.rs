//! INSERT, UPDATE and DELETE through a view: the statement is rewritten
//! into one on the view's base table before it is compiled
//! (`Session::compile`), as MySQL's MERGE algorithm does for an updatable
//! view.
//!
//! A view is updatable (MySQL's "Updatable and Insertable Views", and
//! MariaDB's codes) when its query is one SELECT of one base table or
//! updatable view, without aggregates, window functions, DISTINCT, GROUP
//! BY, HAVING, LIMIT, a set operation, WITH, or a subquery. Otherwise
//! UPDATE and DELETE get 1288 and INSERT 1471. Through an updatable view:
//!
//! 1. Names of the view's columns (bare, or qualified by the view's name
//!    or the statement's alias for it) become the view's expressions for
//!    them; another name is 1054, as the view does not show it.
//! 2. `SET c = ...` needs `c` to be a plain column of the view (1348
//!    otherwise); an INSERT's columns likewise, and distinct base columns
//!    (1471 otherwise, as MariaDB).
//! 3. UPDATE and DELETE keep only rows the view shows: its WHERE is ANDed
//!    to the statement's.
//! 4. The base table is opened with the view's definer's privileges (SQL
//!    SECURITY DEFINER) or the session's (INVOKER); the view itself with
//!    the session's. A view over a view is rewritten again, each level
//!    with its own definer.
//!
//! 5. WITH CHECK OPTION of the view the statement names: its condition
//!    (LOCAL), or its condition and those of the views under it
//!    (CASCADED), rewritten down to the base table like the statement, is
//!    checked on each row an INSERT or UPDATE writes
//!    (`dml::check_options`: 1369 naming the view). As MariaDB, the check
//!    options of the views under it are not looked at (MySQL 8.0 also
//!    checks those under a LOCAL or plain view).
//!
//! Not built (refused with 1235): subqueries in a statement that writes
//! through a view.

use std::ops::ControlFlow;

use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::plan::TableRef;
use crate::query::Resolver;
use crate::view::{CheckOption, ViewRef};

/// Views over views deeper than this are taken for a cycle (1462).
const MAX_DEPTH: usize = 32;

/// The statement kind, for the messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Insert,
    Update,
    Delete,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Insert => "INSERT",
            Kind::Update => "UPDATE",
            Kind::Delete => "DELETE",
        }
    }
}

/// An updatable view's query, taken apart.
struct Merged {
    /// The table (or view) it reads, and the alias it reads it by.
    base: ast::ObjectName,
    alias: Option<ast::TableAlias>,
    /// Its columns: name, and the expression over the base.
    cols: Vec<(String, ast::Expr)>,
    filter: Option<ast::Expr>,
    /// Whose privileges the base is opened with.
    rights: Option<String>,
}

impl Merged {
    /// The expression of the view's column `name`.
    fn lookup(&self, name: &str) -> Option<&ast::Expr> {
        self.cols.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, e)| e)
    }
}

/// A resolver that opens tables with a view definer's privileges; with
/// the CHECK OPTION conditions of the views a statement writes through.
pub struct Rights<'r> {
    inner: &'r dyn Resolver,
    user: Option<String>,
    /// Conditions over the base table and the view (`` `db`.`v` ``) each
    /// comes from.
    checks: Vec<(ast::Expr, String)>,
    /// The alias the conditions name the base table by.
    alias: Option<String>,
}

impl Rights<'_> {
    /// The CHECK OPTION conditions compiled over `t`'s rows.
    pub fn checks(&self, t: &TableRef) -> Result<Vec<(crate::expr::Expr, String)>> {
        let colls: Vec<_> = t.schema.columns.iter().map(|c| c.collation).collect();
        self.checks
            .iter()
            .map(|(e, view)| {
                let mut scope = crate::expr::Scope {
                    table: Some((&t.name, self.alias.as_deref())),
                    columns: &t.columns,
                    aggs: None,
                    params: 0,
                    place: "where clause",
                    rel: None,
                };
                let x = crate::expr::compile(e, &mut scope)?;
                Ok((crate::expr::with_collations(x, &colls), view.clone()))
            })
            .collect()
    }
}

impl Resolver for Rights<'_> {
    fn switch(&self) -> crate::optimizer_switch::Switch {
        self.inner.switch()
    }
    fn view_scope(&self, enter: bool) {
        self.inner.view_scope(enter)
    }
    /// The rewritten target is reached through the view (LOCK TABLES
    /// admits it by the view's lock).
    fn resolve(&self, name: &ast::ObjectName, alias: Option<String>) -> Result<TableRef> {
        self.inner.view_scope(true);
        let r = self.inner.resolve_as(name, alias, self.user.as_deref());
        self.inner.view_scope(false);
        r
    }
    fn view_as(&self, name: &ast::ObjectName, user: Option<&str>) -> Result<Option<ViewRef>> {
        self.inner.view_as(name, user)
    }
    fn resolve_as(&self, name: &ast::ObjectName, alias: Option<String>, user: Option<&str>) -> Result<TableRef> {
        self.inner.resolve_as(name, alias, user)
    }
}

/// `stmt` with its target rewritten down to a base table while it names
/// an updatable view, and the resolver to compile it with (`None`: the
/// target is a table; compile as is).
pub fn rewrite<'r>(stmt: &mut ast::Statement, r: &'r dyn Resolver) -> Result<Option<Rights<'r>>> {
    let mut rights: Option<String> = None;
    let mut through_view = false;
    let mut checks: Vec<(ast::Expr, String)> = Vec::new();
    // The view above whose CASCADED CHECK OPTION covers those below.
    let mut cascaded: Option<String> = None;
    let mut alias: Option<String> = None;
    for depth in 0..MAX_DEPTH {
        let Some((kind, name)) = target(stmt) else { return Ok(None) };
        let Some(v) = r.view_as(&name, rights.as_deref())? else {
            return Ok(through_view.then_some(Rights { inner: r, user: rights, checks, alias }));
        };
        if holds_subquery(stmt) {
            return Err(SqlError::unsupported("a subquery in a statement that writes through a view"));
        }
        let m = merge(&v, kind, r, rights.as_deref())?;
        // Conditions of the views above name this view's columns.
        for (c, _) in &mut checks {
            replace_columns(c, &v, alias.as_deref(), &m, "where clause")?;
        }
        let own = if depth == 0 { v.check_option() } else { None };
        let here = format!("`{}`.`{}`", v.db, v.name);
        if own == Some(CheckOption::Cascaded) {
            cascaded = Some(here.clone());
        }
        if let Some(f) = &m.filter {
            if let Some(by) = cascaded.clone().or_else(|| own.map(|_| here.clone())) {
                checks.push((f.clone(), by));
            }
        }
        apply(stmt, kind, &v, &m)?;
        alias = m.alias.as_ref().map(|a| a.name.value.clone());
        rights = m.rights.or(rights);
        through_view = true;
    }
    Err(SqlError::new(1462, "HY000", "a view over views too deeply nested to write through"))
}

/// The table an INSERT / UPDATE / DELETE writes.
fn target(stmt: &ast::Statement) -> Option<(Kind, ast::ObjectName)> {
    let table_of = |t: &ast::TableWithJoins| match &t.relation {
        ast::TableFactor::Table { name, .. } if t.joins.is_empty() => Some(name.clone()),
        _ => None,
    };
    match stmt {
        ast::Statement::Insert(i) => match &i.table {
            ast::TableObject::TableName(n) => Some((Kind::Insert, n.clone())),
            _ => None,
        },
        ast::Statement::Update(u) => table_of(&u.table).map(|n| (Kind::Update, n)),
        ast::Statement::Delete(d) => match &d.from {
            ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) if d.tables.is_empty() => {
                match v.as_slice() {
                    [t] => table_of(t).map(|n| (Kind::Delete, n)),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

fn holds_subquery(stmt: &ast::Statement) -> bool {
    ast::visit_expressions(stmt, |e: &ast::Expr| match e {
        ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

fn not_updatable(v: &ViewRef, kind: Kind) -> SqlError {
    if kind == Kind::Insert {
        return not_insertable(v);
    }
    SqlError::new(1288, "HY000", format!("The target table {} of the {} is not updatable", v.name, kind.name()))
}

fn not_insertable(v: &ViewRef) -> SqlError {
    SqlError::new(1471, "HY000", format!("The target table {} of the INSERT is not insertable-into", v.name))
}

/// The SELECT of a view's query if the view is updatable (module note).
fn updatable_select(q: &ast::Query) -> Option<&ast::Select> {
    if q.with.is_some() || q.limit_clause.is_some() || q.fetch.is_some() || !q.locks.is_empty() {
        return None;
    }
    let ast::SetExpr::Select(sel) = &*q.body else { return None };
    let grouped = match &sel.group_by {
        ast::GroupByExpr::Expressions(e, m) => !e.is_empty() || !m.is_empty(),
        ast::GroupByExpr::All(_) => true,
    };
    let one_table = matches!(sel.from.as_slice(), [f] if f.joins.is_empty()
        && matches!(f.relation, ast::TableFactor::Table { args: None, .. }));
    let plain = !matches!(sel.distinct, Some(ast::Distinct::Distinct | ast::Distinct::On(_)))
        && !grouped
        && sel.having.is_none()
        && sel.named_window.is_empty()
        && !holds_aggregate_or_subquery(sel);
    (one_table && plain).then_some(&**sel)
}

/// Whether a view of this query is updatable (its base aside: a view over
/// a view that is not is found out when written).
pub fn updatable(q: &ast::Query) -> bool {
    updatable_select(q).is_some()
}

/// Takes an updatable view's query apart (1288 / 1471 if it is not one).
fn merge(v: &ViewRef, kind: Kind, r: &dyn Resolver, outer_rights: Option<&str>) -> Result<Merged> {
    let (names, q, rights) = v.parse()?;
    let rights = rights.or_else(|| outer_rights.map(str::to_string));
    let no = || not_updatable(v, kind);
    // ALGORITHM=TEMPTABLE: never written through (MySQL's rule).
    if v.temptable() {
        return Err(no());
    }
    let sel = updatable_select(&q).ok_or_else(no)?;
    let [from] = sel.from.as_slice() else { return Err(no()) };
    let ast::TableFactor::Table { name: base, alias, .. } = &from.relation else { return Err(no()) };
    let mut cols: Vec<(String, ast::Expr)> = Vec::new();
    for item in &sel.projection {
        match item {
            ast::SelectItem::UnnamedExpr(e) => cols.push((crate::query::display_name(e), e.clone())),
            ast::SelectItem::ExprWithAlias { expr, alias } => cols.push((alias.value.clone(), expr.clone())),
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                // The base's columns (a view's through its own query).
                let shown: Vec<String> = match r.view_as(base, rights.as_deref())? {
                    Some(inner) => {
                        let p = crate::rel::compile(
                            inner.parse()?.1,
                            &Rights { inner: r, user: rights.clone(), checks: Vec::new(), alias: None },
                        )?;
                        p.plan.columns().iter().map(|c| c.name.clone()).collect()
                    }
                    None => r.resolve_as(base, None, rights.as_deref())?.columns.clone(),
                };
                for c in shown {
                    cols.push((c.clone(), ast::Expr::Identifier(ast::Ident::new(c))));
                }
            }
            ast::SelectItem::ExprWithAliases { .. } => return Err(no()),
        }
    }
    if !names.is_empty() {
        for ((n, _), given) in cols.iter_mut().zip(names) {
            *n = given;
        }
    }
    Ok(Merged { base: base.clone(), alias: alias.clone(), cols, filter: sel.selection.clone(), rights })
}

fn holds_aggregate_or_subquery(sel: &ast::Select) -> bool {
    const AGGREGATES: &[&str] = &[
        "count",
        "sum",
        "min",
        "max",
        "avg",
        "group_concat",
        "bit_and",
        "bit_or",
        "bit_xor",
        "std",
        "stddev",
        "stddev_pop",
        "stddev_samp",
        "variance",
        "var_pop",
        "var_samp",
        "json_arrayagg",
        "json_objectagg",
    ];
    let found = |e: &ast::Expr| match e {
        ast::Expr::Function(f) => {
            let n = f.name.to_string().to_ascii_lowercase();
            f.over.is_some() || AGGREGATES.contains(&n.as_str())
        }
        ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => true,
        _ => false,
    };
    ast::visit_expressions(
        sel,
        |e: &ast::Expr| if found(e) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) },
    )
    .is_break()
}

/// The base column a view column is, if it is a plain column.
fn plain_column(e: &ast::Expr) -> Option<ast::Ident> {
    match e {
        ast::Expr::Identifier(i) => Some(i.clone()),
        ast::Expr::CompoundIdentifier(parts) => parts.last().cloned(),
        ast::Expr::Nested(x) => plain_column(x),
        _ => None,
    }
}

/// Rewrites `stmt` to write `m.base` in place of the view `v`.
fn apply(stmt: &mut ast::Statement, kind: Kind, v: &ViewRef, m: &Merged) -> Result<()> {
    let view_column = |name: &str, place: &str| -> Result<ast::Ident> {
        let e = m.lookup(name).ok_or_else(|| SqlError::unknown_column(name, place))?;
        plain_column(e).ok_or_else(|| match kind {
            Kind::Insert => not_insertable(v),
            _ => SqlError::new(1348, "HY000", format!("Column '{name}' is not updatable")),
        })
    };
    match stmt {
        ast::Statement::Insert(ins) => {
            if ins.table_alias.is_some() || !ins.assignments.is_empty() {
                return Err(SqlError::unsupported("this INSERT through a view"));
            }
            let names: Vec<String> = if ins.columns.is_empty() {
                m.cols.iter().map(|(n, _)| n.clone()).collect()
            } else {
                ins.columns
                    .iter()
                    .map(|c| c.0.last().and_then(|p| p.as_ident()).map(|i| i.value.clone()).unwrap_or_default())
                    .collect()
            };
            let mut base_cols: Vec<ast::Ident> = Vec::new();
            for n in &names {
                let c = view_column(n, "field list")?;
                if base_cols.iter().any(|b| b.value.eq_ignore_ascii_case(&c.value)) {
                    return Err(not_insertable(v));
                }
                base_cols.push(c);
            }
            ins.columns = base_cols.into_iter().map(|c| ast::ObjectName::from(vec![c])).collect();
            ins.table = ast::TableObject::TableName(m.base.clone());
        }
        ast::Statement::Update(u) => {
            let user_alias = table_alias(&u.table);
            for a in &mut u.assignments {
                let ast::AssignmentTarget::ColumnName(n) = &a.target else {
                    return Err(SqlError::unsupported("this assignment through a view"));
                };
                let parts: Vec<String> =
                    n.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_default()).collect();
                let col = parts.last().cloned().unwrap_or_default();
                if parts.len() > 1 && !names_view(&parts[..parts.len() - 1], v, user_alias.as_deref()) {
                    return Err(SqlError::unknown_column(&parts.join("."), "field list"));
                }
                let c = view_column(&col, "field list")?;
                a.target = ast::AssignmentTarget::ColumnName(ast::ObjectName::from(vec![c]));
                replace_columns(&mut a.value, v, user_alias.as_deref(), m, "field list")?;
            }
            u.selection = filtered(u.selection.take(), v, user_alias.as_deref(), m)?;
            set_relation(&mut u.table, m);
        }
        ast::Statement::Delete(d) => {
            let (ast::FromTable::WithFromKeyword(from) | ast::FromTable::WithoutKeyword(from)) = &mut d.from;
            let Some(t) = from.first_mut() else { return Err(SqlError::internal("DELETE without a table")) };
            let user_alias = table_alias(t);
            d.selection = filtered(d.selection.take(), v, user_alias.as_deref(), m)?;
            set_relation(t, m);
        }
        _ => return Err(SqlError::internal("not a write through a view")),
    }
    Ok(())
}

fn table_alias(t: &ast::TableWithJoins) -> Option<String> {
    match &t.relation {
        ast::TableFactor::Table { alias, .. } => alias.as_ref().map(|a| a.name.value.clone()),
        _ => None,
    }
}

fn set_relation(t: &mut ast::TableWithJoins, m: &Merged) {
    if let ast::TableFactor::Table { name, alias, .. } = &mut t.relation {
        *name = m.base.clone();
        *alias = m.alias.clone();
    }
}

/// Whether a qualifier (`v`, `db.v` or the statement's alias) names the
/// view.
fn names_view(qual: &[String], v: &ViewRef, alias: Option<&str>) -> bool {
    match (qual, alias) {
        ([a], Some(al)) => a.eq_ignore_ascii_case(al),
        ([t], None) => t.eq_ignore_ascii_case(&v.name),
        ([d, t], None) => d.eq_ignore_ascii_case(&v.db) && t.eq_ignore_ascii_case(&v.name),
        _ => false,
    }
}

/// The statement's WHERE over the view's columns, ANDed with the view's.
fn filtered(w: Option<ast::Expr>, v: &ViewRef, alias: Option<&str>, m: &Merged) -> Result<Option<ast::Expr>> {
    let w = match w {
        Some(mut w) => {
            replace_columns(&mut w, v, alias, m, "where clause")?;
            Some(w)
        }
        None => None,
    };
    let nest = |e: ast::Expr| ast::Expr::Nested(Box::new(e));
    Ok(match (w, m.filter.clone()) {
        (Some(a), Some(b)) => Some(ast::Expr::BinaryOp {
            left: Box::new(nest(a)),
            op: ast::BinaryOperator::And,
            right: Box::new(nest(b)),
        }),
        (a, b) => a.or(b),
    })
}

/// Replaces the names of the view's columns in `e` by their expressions.
fn replace_columns(e: &mut ast::Expr, v: &ViewRef, alias: Option<&str>, m: &Merged, place: &str) -> Result<()> {
    let mut err = None;
    let _ = ast::visit_expressions_mut(e, |x: &mut ast::Expr| {
        let name: Option<(Vec<String>, String)> = match x {
            ast::Expr::Identifier(i) => Some((Vec::new(), i.value.clone())),
            ast::Expr::CompoundIdentifier(parts) => {
                let p: Vec<String> = parts.iter().map(|i| i.value.clone()).collect();
                let (col, qual) = p.split_last().map(|(c, q)| (c.clone(), q.to_vec())).unwrap_or_default();
                Some((qual, col))
            }
            _ => None,
        };
        if let Some((qual, col)) = name {
            let shown = (qual.is_empty() || names_view(&qual, v, alias)).then(|| m.lookup(&col)).flatten();
            match shown {
                Some(inner) => *x = ast::Expr::Nested(Box::new(inner.clone())),
                None => {
                    let full = if qual.is_empty() { col } else { format!("{}.{col}", qual.join(".")) };
                    err = Some(SqlError::unknown_column(&full, place));
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    });
    err.map_or(Ok(()), Err)
}
