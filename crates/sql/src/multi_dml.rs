//! Multi-table UPDATE and DELETE: `UPDATE t1 JOIN t2 ON ... SET t1.a =
//! t2.b, t2.c = ...`, `UPDATE t1, t2 SET ... WHERE ...`, `DELETE t1, t2
//! FROM t1 JOIN t2 ...`, `DELETE FROM t1 USING t1 JOIN t2 ...`.
//!
//! The join is an ordinary query for the general engine (`rel`): its
//! select list is every visible column of each target table, then (UPDATE)
//! the value of each assignment, and it is run to completion as a locking
//! read (X on every row it reads, as `SELECT ... FOR UPDATE`; InnoDB
//! takes S on the rows of tables it only reads, so quire locks more of
//! those, never less). Only then are the target rows changed, each at
//! most once however many join rows it matched (MySQL's rule; the first
//! join row wins), with the values computed from the rows as read: `SET
//! p.v = p.v + 1, c.w = p.v` gives `c.w` the old `p.v`, as MariaDB.
//! FOREIGN KEYs are enforced per row as the single-table paths do.
//!
//! Counting (MariaDB's): UPDATE's affected rows are the rows changed over
//! all targets, `Rows matched` the distinct target rows found; DELETE's
//! the rows deleted.
//!
//! Refused (1235), rather than done differently: a target that is a view
//! or a table without a primary key, a table that is a target twice (by
//! two aliases), an assignment whose value reads a column of its own
//! table that an earlier assignment set (MySQL gives it the new value when
//! it updates that table on the fly, the old one otherwise), `?` markers. ORDER BY / LIMIT on a multi-table
//! UPDATE is MySQL 8.0's 1221 (MariaDB 10.11 accepts them; the brief
//! asks for MySQL's, which MySQL-targeting applications expect); on a
//! multi-table DELETE both servers answer 1064.

use crate::trigger::{Event, Timing};
use std::collections::HashSet;

use quire_engine::row::Value;
use quire_engine::table::{RowUpdate, Trx};
use quire_engine::txn::lock::LockMode;
use sqlparser::ast;
use sqlparser::ast::Visit;

use crate::dml::{fk_of, fk_updated, WriteResult};
use crate::error::{Result, SqlError};
use crate::plan::TableRef;
use crate::query::{Ctx, Resolver, SessionEnv};
use crate::store::{self, Place};

/// A multi-table UPDATE or DELETE, compiled.
pub struct MultiPlan {
    query: crate::rel::Compiled,
    targets: Vec<Target>,
    update: bool,
}

struct Target {
    table: TableRef,
    /// Where the table's visible columns start in the query's rows.
    at: usize,
    /// UPDATE: each assigned column and where its new value is in the row.
    sets: Vec<(usize, usize)>,
    /// UPDATE: the table's generated columns, recomputed in each changed
    /// row (`create::generated`).
    generated: crate::create::check::Rules,
}

/// Whether `stmt` is a multi-table UPDATE / DELETE (this module's).
pub fn is_multi(stmt: &ast::Statement) -> bool {
    match stmt {
        ast::Statement::Update(u) => !u.table.joins.is_empty() || u.from.is_some(),
        ast::Statement::Delete(d) => {
            let from = from_list(d);
            !d.tables.is_empty() || d.using.is_some() || from.len() > 1 || from.iter().any(|t| !t.joins.is_empty())
        }
        _ => false,
    }
}

fn from_list(d: &ast::Delete) -> &[ast::TableWithJoins] {
    match &d.from {
        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
    }
}

/// `UPDATE t1, t2 SET ...` (MySQL's comma join, which sqlparser does not
/// parse) as `UPDATE t1 CROSS JOIN t2 SET ...`; `None` for any other
/// text. Tried only after a syntax error. The comma binds looser than
/// JOIN in MySQL; as CROSS JOIN an ON clause may see more tables, never
/// fewer, so what MySQL runs runs the same.
pub fn comma_update(text: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let tokens = Tokenizer::new(&sqlparser::dialect::MySqlDialect {}, text).tokenize().ok()?;
    let mut words = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_)));
    if !matches!(words.next(), Some(Token::Word(w)) if w.value.eq_ignore_ascii_case("update")) {
        return None;
    }
    let (mut depth, mut changed, mut out) = (0i32, false, String::with_capacity(text.len() + 16));
    let mut before_set = true;
    for t in &tokens {
        match t {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w) if depth == 0 && w.quote_style.is_none() && w.value.eq_ignore_ascii_case("set") => {
                before_set = false
            }
            Token::Comma if depth == 0 && before_set => {
                out.push_str(" CROSS JOIN ");
                changed = true;
                continue;
            }
            _ => {}
        }
        out.push_str(&t.to_string());
    }
    changed.then_some(out)
}

/// The checks that need no table (done when the statement is compiled).
pub fn check(stmt: &ast::Statement) -> Result<()> {
    let mut placeholders = false;
    let _ = stmt.visit(&mut PlaceholderFinder(&mut placeholders));
    if placeholders {
        return Err(SqlError::unsupported("multi-table UPDATE / DELETE with parameters"));
    }
    match stmt {
        ast::Statement::Update(u) => {
            if !u.order_by.is_empty() {
                return Err(wrong_usage("UPDATE", "ORDER BY"));
            }
            if u.limit.is_some() {
                return Err(wrong_usage("UPDATE", "LIMIT"));
            }
            if matches!(u.from, Some(ast::UpdateTableFromKind::BeforeSet(_))) {
                return Err(SqlError::syntax("UPDATE ... FROM before SET"));
            }
            if u.returning.is_some() {
                return Err(SqlError::unsupported("UPDATE ... RETURNING"));
            }
        }
        ast::Statement::Delete(d) => {
            if !d.order_by.is_empty() || d.limit.is_some() {
                return Err(SqlError::syntax("ORDER BY / LIMIT in a multi-table DELETE"));
            }
            if d.tables.is_empty() && d.using.is_none() {
                return Err(SqlError::syntax("DELETE FROM t1, t2 without USING"));
            }
            if d.returning.is_some() {
                return Err(SqlError::unsupported("DELETE ... RETURNING"));
            }
        }
        _ => {}
    }
    Ok(())
}

struct PlaceholderFinder<'a>(&'a mut bool);

impl ast::Visitor for PlaceholderFinder<'_> {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &ast::Expr) -> std::ops::ControlFlow<()> {
        if let ast::Expr::Value(v) = e {
            if matches!(v.value, ast::Value::Placeholder(_)) {
                *self.0 = true;
                return std::ops::ControlFlow::Break(());
            }
        }
        std::ops::ControlFlow::Continue(())
    }
}

/// 1221 ER_WRONG_USAGE.
fn wrong_usage(a: &str, b: &str) -> SqlError {
    SqlError::new(1221, "HY000", format!("Incorrect usage of {a} and {b}"))
}

/// A base table named in the FROM clause: its name parts and alias.
struct Named {
    name: ast::ObjectName,
    alias: Option<String>,
    /// `None` for a view (read by the query, never a target).
    table: Option<TableRef>,
}

impl Named {
    /// The identifiers that qualify its columns in the query.
    fn qualifier(&self) -> Vec<ast::Ident> {
        match &self.alias {
            Some(a) => vec![ast::Ident::new(a)],
            None => self.name.0.iter().filter_map(|p| p.as_ident().cloned()).collect(),
        }
    }

    /// Whether `q` (a column's or a DELETE target's qualifier) names it:
    /// its alias if it has one, else its name (with the database if `q`
    /// gives one).
    fn named_by(&self, q: &[String], db: Option<&str>) -> bool {
        let Some(last) = q.last() else { return false };
        match &self.alias {
            Some(a) => q.len() == 1 && a.eq_ignore_ascii_case(last),
            None => {
                let Some(t) = &self.table else {
                    return self.name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.value == *last);
                };
                let db_ok = match q.len() {
                    1 => db.is_none_or(|d| t.db.eq_ignore_ascii_case(d)),
                    2 => t.db.eq_ignore_ascii_case(&q[0]),
                    _ => false,
                };
                db_ok && t.name.eq_ignore_ascii_case(last)
            }
        }
    }
}

fn collect(from: &[ast::TableWithJoins], out: &mut Vec<(ast::ObjectName, Option<String>)>) {
    fn factor(f: &ast::TableFactor, out: &mut Vec<(ast::ObjectName, Option<String>)>) {
        match f {
            ast::TableFactor::Table { name, alias, .. } => {
                out.push((name.clone(), alias.as_ref().map(|a| a.name.value.clone())));
            }
            ast::TableFactor::NestedJoin { table_with_joins, .. } => {
                collect(std::slice::from_ref(table_with_joins), out)
            }
            _ => {}
        }
    }
    for t in from {
        factor(&t.relation, out);
        for j in &t.joins {
            factor(&j.relation, out);
        }
    }
}

fn resolve_all(from: &[ast::TableWithJoins], r: &dyn Resolver) -> Result<Vec<Named>> {
    let mut names = Vec::new();
    collect(from, &mut names);
    names
        .into_iter()
        .map(|(name, alias)| {
            let table = if r.view(&name)?.is_some() { None } else { Some(r.resolve(&name, alias.clone())?) };
            Ok(Named { name, alias, table })
        })
        .collect()
}

fn parts(n: &ast::ObjectName) -> Vec<String> {
    n.0.iter().filter_map(|p| p.as_ident().map(|i| i.value.clone())).collect()
}

/// Compiles a multi-table UPDATE / DELETE against the tables as they are.
pub fn compile(stmt: &ast::Statement, r: &dyn Resolver) -> Result<MultiPlan> {
    check(stmt)?;
    match stmt {
        ast::Statement::Update(u) => compile_update(u, r),
        ast::Statement::Delete(d) => compile_delete(d, r),
        _ => Err(SqlError::internal("not a multi-table write")),
    }
}

fn compile_update(u: &ast::Update, r: &dyn Resolver) -> Result<MultiPlan> {
    let mut from = vec![u.table.clone()];
    if let Some(ast::UpdateTableFromKind::AfterSet(more)) = &u.from {
        from.extend(more.iter().cloned());
    }
    let named = resolve_all(&from, r)?;
    // Each assignment: (index into `named`, column).
    let mut assigned: Vec<(usize, usize)> = Vec::new();
    for a in &u.assignments {
        let ast::AssignmentTarget::ColumnName(n) = &a.target else {
            return Err(SqlError::unsupported(format!("assignment to {}", a.target)));
        };
        let p = parts(n);
        let (col, qual) = p.split_last().ok_or_else(|| SqlError::syntax("empty column name"))?;
        let mut found = Vec::new();
        for (i, t) in named.iter().enumerate() {
            if !qual.is_empty() && !t.named_by(qual, None) {
                continue;
            }
            let Some(tr) = &t.table else {
                if !qual.is_empty() {
                    return Err(SqlError::unsupported("multi-table UPDATE of a view"));
                }
                continue;
            };
            if let Some(c) = tr.columns.iter().position(|x| x.eq_ignore_ascii_case(col)) {
                found.push((i, c));
            }
        }
        match found.as_slice() {
            [] => return Err(SqlError::unknown_column(&p.join("."), "SET")),
            [one] => {
                let tr = named[one.0].table.as_ref().expect("a base table");
                if crate::create::generated::is_generated(tr, one.1) {
                    if crate::defaults::is_default(&a.value) {
                        return Err(SqlError::unsupported("SET generated_column = DEFAULT in a multi-table UPDATE"));
                    }
                    crate::create::generated::refuse_values(tr, &[one.1])?;
                }
                // A value reading a column an earlier assignment set.
                let reads = reads_columns(&a.value);
                // Only within one table: MariaDB gives a value reading
                // another target the row as read, as quire does.
                for &(ti, c) in assigned.iter().filter(|(ti, _)| *ti == one.0) {
                    let t = &named[ti];
                    let cname = &t.table.as_ref().expect("a base table").columns[c];
                    if reads.iter().any(|(q, x)| x.eq_ignore_ascii_case(cname) && (q.is_empty() || t.named_by(q, None)))
                    {
                        return Err(SqlError::unsupported(
                            "a multi-table UPDATE assignment reading a column an earlier assignment sets",
                        ));
                    }
                }
                assigned.push(*one);
            }
            _ => return Err(SqlError::new(1052, "23000", format!("Column '{}' in SET is ambiguous", p.join(".")))),
        }
    }
    let mut targets: Vec<(usize, Target)> = Vec::new();
    let mut projection = Vec::new();
    for &(ti, _) in &assigned {
        if targets.iter().any(|(i, _)| *i == ti) {
            continue;
        }
        let t = &named[ti];
        let tr = t.table.clone().expect("a base table");
        check_target(&tr, &targets.iter().map(|(_, t)| &t.table).collect::<Vec<_>>())?;
        let at = projection.len();
        push_columns(&mut projection, t, &tr);
        let generated = crate::create::check::of(&tr)?.without_checks();
        targets.push((ti, Target { table: tr, at, sets: Vec::new(), generated }));
    }
    for (a, &(ti, c)) in u.assignments.iter().zip(&assigned) {
        let pos = projection.len();
        projection.push(ast::SelectItem::UnnamedExpr(a.value.clone()));
        let t = targets.iter_mut().find(|(i, _)| *i == ti).expect("a target");
        t.1.sets.push((c, pos));
    }
    let query = join_query(from, projection, u.selection.clone(), r)?;
    Ok(MultiPlan { query, targets: targets.into_iter().map(|(_, t)| t).collect(), update: true })
}

fn compile_delete(d: &ast::Delete, r: &dyn Resolver) -> Result<MultiPlan> {
    // DELETE t1, t2 FROM <source> | DELETE FROM t1, t2 USING <source>.
    let (names, source): (Vec<ast::ObjectName>, Vec<ast::TableWithJoins>) = match &d.using {
        Some(using) => {
            let mut n = Vec::new();
            for t in from_list(d) {
                match &t.relation {
                    ast::TableFactor::Table { name, .. } if t.joins.is_empty() => n.push(name.clone()),
                    _ => return Err(SqlError::syntax("DELETE FROM <tables> USING")),
                }
            }
            (n, using.clone())
        }
        None => (d.tables.clone(), from_list(d).to_vec()),
    };
    let named = resolve_all(&source, r)?;
    let mut targets: Vec<Target> = Vec::new();
    let mut projection = Vec::new();
    for n in &names {
        let p = parts(n);
        // `DELETE t.* FROM`: the `*` is only decoration.
        let p: Vec<String> = p.into_iter().filter(|x| x != "*").collect();
        let Some(t) = named.iter().find(|t| t.named_by(&p, None)) else {
            let shown = p.last().cloned().unwrap_or_default();
            return Err(SqlError::new(1109, "42S02", format!("Unknown table '{shown}' in MULTI DELETE")));
        };
        let Some(tr) = t.table.clone() else { return Err(SqlError::unsupported("multi-table DELETE from a view")) };
        if targets.iter().any(|x| x.table.alias == tr.alias && x.table.name == tr.name && x.table.db == tr.db) {
            continue; // named twice: deleted once
        }
        check_target(&tr, &targets.iter().map(|t| &t.table).collect::<Vec<_>>())?;
        let at = projection.len();
        push_columns(&mut projection, t, &tr);
        targets.push(Target { table: tr, at, sets: Vec::new(), generated: Default::default() });
    }
    let query = join_query(source, projection, d.selection.clone(), r)?;
    Ok(MultiPlan { query, targets, update: false })
}

/// What quire refuses as a target (see the module note).
fn check_target(t: &TableRef, earlier: &[&TableRef]) -> Result<()> {
    if t.schema.columns.len() != t.columns.len() {
        return Err(SqlError::unsupported("multi-table UPDATE / DELETE of a table without a primary key"));
    }
    if earlier.iter().any(|e| e.db == t.db && e.name == t.name) {
        return Err(SqlError::unsupported("multi-table UPDATE / DELETE of one table under two names"));
    }
    Ok(())
}

fn push_columns(projection: &mut Vec<ast::SelectItem>, t: &Named, tr: &TableRef) {
    let q = t.qualifier();
    for c in &tr.columns {
        let mut id = q.clone();
        id.push(ast::Ident::with_quote('`', c));
        projection.push(ast::SelectItem::UnnamedExpr(ast::Expr::CompoundIdentifier(id)));
    }
}

/// `SELECT <projection> FROM <from> WHERE <selection>`, compiled.
fn join_query(
    from: Vec<ast::TableWithJoins>,
    projection: Vec<ast::SelectItem>,
    selection: Option<ast::Expr>,
    r: &dyn Resolver,
) -> Result<crate::rel::Compiled> {
    let mut stmts = crate::session::parse("SELECT 1")?;
    let Some(ast::Statement::Query(mut q)) = stmts.pop() else {
        return Err(SqlError::internal("SELECT 1 did not parse as a query"));
    };
    let ast::SetExpr::Select(sel) = q.body.as_mut() else {
        return Err(SqlError::internal("SELECT 1 is not a SELECT block"));
    };
    sel.from = from;
    sel.projection = projection;
    sel.selection = selection;
    crate::rel::compile(*q, r)
}

/// The (qualifier, column) pairs an expression names.
fn reads_columns(e: &ast::Expr) -> Vec<(Vec<String>, String)> {
    struct Cols(Vec<(Vec<String>, String)>);
    impl ast::Visitor for Cols {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> std::ops::ControlFlow<()> {
            match e {
                ast::Expr::Identifier(i) => self.0.push((Vec::new(), i.value.clone())),
                ast::Expr::CompoundIdentifier(ids) => {
                    let mut v: Vec<String> = ids.iter().map(|i| i.value.clone()).collect();
                    let c = v.pop().unwrap_or_default();
                    self.0.push((v, c));
                }
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut c = Cols(Vec::new());
    let _ = e.visit(&mut c);
    c.0
}

/// Runs the join (a locking read), then changes each target row once.
pub fn run(p: &MultiPlan, trx: &mut Trx, session: &dyn SessionEnv) -> Result<WriteResult> {
    let rows = {
        let ex = crate::rel::exec::Exec::new(&[], session, Some(trx), Some(LockMode::X));
        ex.run(&p.query.plan, &[])?
    };
    let ctx = Ctx { params: &[], aggs: vec![], session, in_keys: Default::default() };
    let mut res = WriteResult::default();
    let mut seen: Vec<HashSet<Vec<u8>>> = vec![HashSet::new(); p.targets.len()];
    for row in &rows {
        for (t, seen) in p.targets.iter().zip(seen.iter_mut()) {
            let schema = &t.table.schema;
            let old = &row[t.at..t.at + t.table.columns.len()];
            let pk: Vec<Value> = schema.primary_key.iter().map(|&c| old[c].clone()).collect();
            if pk.iter().any(Value::is_null) {
                continue; // the outer side of a join found no row here
            }
            let colls: Vec<_> = schema.primary_key.iter().map(|&c| schema.columns[c].collation).collect();
            if !seen.insert(crate::query::group_key(&pk, &colls)) {
                continue;
            }
            if p.update {
                update_one(t, trx, row, old, &pk, &mut res, &ctx)?;
            } else {
                delete_one(t, trx, &pk, &mut res, &ctx)?;
            }
        }
    }
    if !p.update {
        res.matched = res.affected;
    }
    Ok(res)
}

fn update_one(
    t: &Target,
    trx: &mut Trx,
    row: &[Value],
    old: &[Value],
    pk: &[Value],
    res: &mut WriteResult,
    ctx: &Ctx<'_>,
) -> Result<()> {
    let schema = &t.table.schema;
    let at = Place { db: &t.table.db, table: &t.table.name, row: res.matched + 1 };
    let mut new = old.to_vec();
    for &(c, pos) in &t.sets {
        let col = &schema.columns[c];
        new[c] = match row[pos].clone() {
            Value::Null if !col.nullable => store::null_into_not_null(col, true, ctx)?,
            Value::Null => Value::Null,
            v => store::assign(col, v, at, ctx)?,
        };
    }
    let trg = crate::dml::triggers_of(&t.table, ctx.session, Some(Event::Update));
    if let Some(trg) = &trg {
        crate::dml::fire_row(
            ctx.session,
            trx,
            &t.table,
            trg,
            Timing::Before,
            Event::Update,
            Some(old),
            Some(&mut new),
        )?;
    }
    crate::create::check::complete(&t.generated, &mut new, at, ctx)?;
    let fk = fk_of(&t.table, ctx.session);
    match t.table.table.update_tx(trx, pk, |_| Ok(new.clone()))? {
        RowUpdate::Changed => {
            fk_updated(&fk, trx, schema, old, &new)?;
            res.affected += 1;
            res.matched += 1;
        }
        RowUpdate::Unchanged => res.matched += 1,
        RowUpdate::NotFound => return Ok(()),
    }
    if let Some(trg) = &trg {
        crate::dml::fire_row(ctx.session, trx, &t.table, trg, Timing::After, Event::Update, Some(old), Some(&mut new))?;
    }
    Ok(())
}

fn delete_one(t: &Target, trx: &mut Trx, pk: &[Value], res: &mut WriteResult, ctx: &Ctx<'_>) -> Result<()> {
    let trg = crate::dml::triggers_of(&t.table, ctx.session, Some(Event::Delete));
    crate::dml::delete_row(&t.table, trx, pk, res, ctx, trg.as_ref())
}

impl MultiPlan {
    /// The OK packet's (affected rows, info text); `found_rows` is
    /// CLIENT_FOUND_ROWS, `warnings` the statement's count.
    pub fn answer(&self, r: &WriteResult, found_rows: bool, warnings: usize) -> (u64, String) {
        if self.update {
            let affected = if found_rows { r.matched } else { r.affected };
            (affected, format!("Rows matched: {}  Changed: {}  Warnings: {}", r.matched, r.affected, warnings))
        } else {
            (r.affected, String::new())
        }
    }
}
