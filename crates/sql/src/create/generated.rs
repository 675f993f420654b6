//! Generated columns: `c INT [GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED]`
//! (MySQL 5.7+, MariaDB 10.2+).
//!
//! - [`define`]: the columns of a CREATE TABLE (or one ALTER TABLE ADD)
//!   that are generated, validated as MySQL 8.0 validates them, and kept
//!   with the table (`TableExtras::generated`, catalog section 60) as the
//!   expression's text with identifiers backquoted, re-parsed when a
//!   write statement is planned (as CHECK constraints are).
//! - [`compile`] / [`fill`]: the expressions a write statement evaluates.
//!   Every row an INSERT, UPDATE, REPLACE, upsert or LOAD DATA writes has
//!   its generated columns computed, in column order, from the row's other
//!   values just before its CHECK constraints are checked
//!   (`check::enforce`), and converted as an assignment would convert
//!   them (`store::assign`: 1264, 1406, 1048 ... as MySQL raises them).
//! - [`refuse_values`]: a statement giving a generated column a value
//!   other than `DEFAULT` fails with MySQL 8.0's 3105 (MariaDB warns 1906
//!   and ignores the value outside strict mode; MySQL's answer is the one
//!   that never drops what the client sent). The exception is a plain
//!   INSERT ... VALUES outside strict mode ([`given_values`]): it warns
//!   1906 per row and column and computes the value, as MariaDB, because
//!   mariadb-dump writes every column's value, generated ones included,
//!   and restores under `sql_mode='NO_AUTO_VALUE_ON_ZERO'`; in strict
//!   mode it is still 3105.
//!
//! **VIRTUAL columns are stored too.** InnoDB computes a VIRTUAL column
//! when the row is read and stores it only in secondary indexes; quire
//! stores its value in the clustered row like a STORED one. The results
//! are the same: expressions are deterministic (non-deterministic
//! functions, variables and subqueries are refused, 3102 / 3763) and are
//! computed from the row on every write of it, so the stored value is
//! always the one a read would compute. It keeps every read path (point
//! selects, index lookups, scans) free of per-row evaluation, and makes
//! an index on a VIRTUAL column an ordinary index (its key maintained
//! from the stored value). What differs is space: the value takes room in
//! the row. ALTER TABLE copies recompute every generated column.
//!
//! Invariant: a row handed to the engine has every generated column equal
//! to its expression over the row's other columns (writes all go through
//! [`fill`]; FOREIGN KEY cascades that could change a generated column's
//! base columns are refused at definition, `check_foreign_keys`).

use quire_engine::row::{Collation, Column, FkAction, ForeignKeyDef, GeneratedDef, TableSchema, Value};
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::{self, Env, Expr, Scope};
use crate::plan::TableRef;
use crate::store::{self, Place};

/// The generation clause of a column definition: (expression, STORED).
pub fn clause(cd: &ast::ColumnDef) -> Result<Option<(&ast::Expr, bool)>> {
    for o in &cd.options {
        if let ast::ColumnOption::Generated { generation_expr, generation_expr_mode, .. } = &o.option {
            let Some(e) = generation_expr else {
                return Err(SqlError::unsupported("GENERATED ... AS IDENTITY"));
            };
            return Ok(Some((e, matches!(generation_expr_mode, Some(ast::GeneratedExpressionMode::Stored)))));
        }
    }
    Ok(None)
}

/// MySQL 8.0's refusals of a generated column's own attributes, checked
/// once the column is read (`ddl::schema_of`): a DEFAULT, ON UPDATE or
/// AUTO_INCREMENT on it.
pub fn check_attributes(col: &Column) -> Result<()> {
    let what = if col.auto_increment {
        "AUTO_INCREMENT"
    } else if col.default.is_some() || col.default_now {
        "DEFAULT"
    } else if col.on_update_now {
        "ON UPDATE"
    } else {
        return Ok(());
    };
    Err(SqlError::new(1221, "HY000", format!("Incorrect usage of {what} and generated column")))
}

/// The generated columns of a CREATE TABLE, validated against `schema`.
pub fn define(ct: &ast::CreateTable, schema: &TableSchema) -> Result<Vec<GeneratedDef>> {
    let mut out = Vec::new();
    let mut clauses = Vec::new();
    for cd in &ct.columns {
        if let Some((e, stored)) = clause(cd)? {
            clauses.push((cd.name.value.clone(), e, stored));
        }
    }
    let generated: Vec<&str> = clauses.iter().map(|(n, _, _)| n.as_str()).collect();
    for (name, e, stored) in &clauses {
        validate(name, e, schema, &generated)?;
        out.push(GeneratedDef { column: name.clone(), expr: crate::create::check::text(e), stored: *stored });
    }
    check_keys(schema, &out)?;
    Ok(out)
}

/// MySQL's refusals of a generated column's expression: disallowed
/// functions 3763, subqueries and variables 3102, unknown columns 1054, a
/// generated column defined later (or itself) 3107, an AUTO_INCREMENT
/// column 3109. `generated`: the names of all generated columns.
pub fn validate(name: &str, e: &ast::Expr, schema: &TableSchema, generated: &[&str]) -> Result<()> {
    let plain = || {
        SqlError::new(3102, "HY000", format!("Expression of generated column '{name}' contains a disallowed function."))
    };
    crate::create::check::first_refusal(e, |e| match e {
        ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => Some(plain()),
        ast::Expr::Identifier(i) if i.value.starts_with('@') => Some(plain()),
        ast::Expr::Function(f) => crate::create::check::disallowed(f).map(|fname| {
            SqlError::new(
                3763,
                "HY000",
                format!("Expression of generated column '{name}' contains a disallowed function: {fname}."),
            )
        }),
        _ => None,
    })?;
    let columns: Vec<String> = schema.visible_columns().iter().map(|c| c.name.clone()).collect();
    let mut scope =
        Scope { table: None, columns: &columns, aggs: None, params: 0, place: "generated column function", rel: None };
    // Unknown columns (1054) and functions (1305) answer as MySQL's do.
    let compiled = expr::compile(e, &mut scope)?;
    if scope.params > 0 {
        return Err(SqlError::new(
            3102,
            "HY000",
            format!("Expression of generated column '{name}' contains a disallowed function."),
        ));
    }
    let own = schema.column_index(name).ok_or_else(|| SqlError::internal(format!("no column {name}")))?;
    let mut used = vec![false; columns.len()];
    expr::mark_columns(&compiled, &mut used);
    for (c, _) in used.iter().enumerate().filter(|(_, u)| **u) {
        let col = &schema.columns[c];
        if col.auto_increment {
            return Err(SqlError::new(
                3109,
                "HY000",
                format!("Generated column '{name}' cannot refer to auto-increment column."),
            ));
        }
        if c >= own && generated.iter().any(|g| g.eq_ignore_ascii_case(&col.name)) {
            return Err(SqlError::new(
                3107,
                "HY000",
                "Generated column can refer only to generated columns defined prior to it.",
            ));
        }
    }
    Ok(())
}

/// A VIRTUAL generated column in the PRIMARY KEY: 3106, as MySQL 8.0
/// (InnoDB cannot cluster on a value it does not store; quire follows).
pub fn check_keys(schema: &TableSchema, gens: &[GeneratedDef]) -> Result<()> {
    if schema.cluster != quire_engine::row::ClusterKey::Primary {
        return Ok(());
    }
    for &c in &schema.primary_key {
        let name = &schema.columns[c].name;
        if gens.iter().any(|g| !g.stored && g.column.eq_ignore_ascii_case(name)) {
            return Err(SqlError::new(
                3106,
                "HY000",
                "'Defining a virtual generated column as primary key' is not supported for generated columns.",
            ));
        }
    }
    Ok(())
}

/// FOREIGN KEYs of a table with generated columns: a key on a generated
/// column cannot SET NULL or CASCADE into it (MySQL's 3104); a cascade
/// into a base column of a generated column would have to recompute it,
/// which quire's cascades do not do: 1235.
pub fn check_foreign_keys(schema: &TableSchema, gens: &[GeneratedDef], fks: &[ForeignKeyDef]) -> Result<()> {
    if gens.is_empty() {
        return Ok(());
    }
    let columns: Vec<String> = schema.visible_columns().iter().map(|c| c.name.clone()).collect();
    let mut bases = vec![false; columns.len()];
    for g in gens {
        let e = parse(&g.expr)?;
        let mut scope = Scope { table: None, columns: &columns, aggs: None, params: 0, place: "generated", rel: None };
        expr::mark_columns(&expr::compile(&e, &mut scope)?, &mut bases);
    }
    for fk in fks {
        // The actions that write the child's columns: SET NULL, and
        // CASCADE on update (ON DELETE CASCADE deletes the row whole).
        let writes = [(fk.on_update, "ON UPDATE"), (fk.on_delete, "ON DELETE")]
            .into_iter()
            .filter(|(a, clause)| *a == FkAction::SetNull || (*a == FkAction::Cascade && *clause == "ON UPDATE"));
        for (action, clause) in writes {
            let what = if action == FkAction::SetNull { "SET NULL" } else { "CASCADE" };
            for &c in &fk.columns {
                let name = &schema.columns[c].name;
                if gens.iter().any(|g| g.column.eq_ignore_ascii_case(name)) {
                    return Err(SqlError::new(
                        3104,
                        "HY000",
                        format!("Cannot define foreign key with {clause} {what} clause on a generated column."),
                    ));
                }
                if bases[c] {
                    return Err(SqlError::unsupported(format!(
                        "a FOREIGN KEY with {clause} {what} on column '{name}', which a generated column reads"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// A stored expression's AST.
fn parse(text: &str) -> Result<ast::Expr> {
    sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| SqlError::syntax(format!("stored generated column expression {text}: {e}")))
}

/// The generated columns of a table, compiled against its row:
/// (position, expression), in column order. Empty (unallocated) for a
/// table without any.
#[derive(Default)]
pub struct Compiled(Vec<(usize, Expr)>);

impl Compiled {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether column `c` is generated.
    pub fn contains(&self, c: usize) -> bool {
        self.0.iter().any(|(p, _)| *p == c)
    }
}

/// Compiles `defs` against the visible columns of `schema` (named
/// `columns`).
pub fn compile_defs(defs: &[GeneratedDef], schema: &TableSchema, columns: &[String]) -> Result<Compiled> {
    let colls: Vec<Collation> = schema.columns.iter().map(|c| c.collation).collect();
    let mut out = Vec::with_capacity(defs.len());
    for d in defs {
        let Some(pos) = columns.iter().position(|c| c.eq_ignore_ascii_case(&d.column)) else {
            return Err(SqlError::internal(format!("generated column {} is not in the table", d.column)));
        };
        let e = parse(&d.expr)?;
        let mut scope = Scope { table: None, columns, aggs: None, params: 0, place: "generated", rel: None };
        out.push((pos, expr::with_collations(expr::compile(&e, &mut scope)?, &colls)));
    }
    out.sort_by_key(|(p, _)| *p);
    Ok(Compiled(out))
}

/// The generated columns of `t`, compiled.
pub fn compile(t: &TableRef) -> Result<Compiled> {
    let defs = t.table.generated();
    if defs.is_empty() {
        return Ok(Compiled::default());
    }
    compile_defs(&defs, &t.schema, &t.columns)
}

/// Computes every generated column of `row` (in column order, so one may
/// read an earlier one) and converts it into its column.
pub fn fill(g: &Compiled, columns: &[Column], row: &mut [Value], at: Place<'_>, env: &dyn Env) -> Result<()> {
    for (c, x) in &g.0 {
        let col = &columns[*c];
        row[*c] = match expr::eval(x, row, env)? {
            Value::Null if !col.nullable => store::null_into_not_null(col, false, env)?,
            Value::Null => Value::Null,
            v => store::assign(col, v, at, env)?,
        };
    }
    Ok(())
}

/// 3105 when any of `cols` is a generated column of `t`.
pub fn refuse_values(t: &TableRef, cols: &[usize]) -> Result<()> {
    let defs = t.table.generated();
    if defs.is_empty() {
        return Ok(());
    }
    for &c in cols {
        if defs.iter().any(|d| d.column.eq_ignore_ascii_case(&t.columns[c])) {
            return Err(SqlError::new(
                3105,
                "HY000",
                format!(
                    "The value specified for generated column '{}' in table '{}' is not allowed.",
                    t.columns[c], t.name
                ),
            ));
        }
    }
    Ok(())
}

/// A plain INSERT ... VALUES giving generated columns values (per
/// VALUES row, the columns given; `tuples` executions of the rows): 3105
/// in strict mode, else warning 1906 for each row and column (MariaDB's
/// answer; the value is then replaced by the computed one).
pub fn given_values(
    t: &TableRef,
    given: &[Vec<usize>],
    tuples: usize,
    session: &dyn crate::query::SessionEnv,
) -> Result<()> {
    if session.mode().strict {
        return given.iter().try_for_each(|g| refuse_values(t, g));
    }
    for _ in 0..tuples {
        for &c in given.iter().flatten() {
            let (col, table) = (&t.columns[c], &t.name);
            let message =
                format!("The value specified for generated column '{col}' in table '{table}' has been ignored");
            session.warn(crate::diag::Condition::new(crate::diag::Level::Warning, 1906, message))?;
        }
    }
    Ok(())
}

/// Whether column `c` of `t` is generated.
pub fn is_generated(t: &TableRef, c: usize) -> bool {
    t.table.generated().iter().any(|d| d.column.eq_ignore_ascii_case(&t.columns[c]))
}

/// SHOW CREATE TABLE's clause for a generated column, as MySQL 8.0
/// prints it (`GENERATED ALWAYS AS ((`a` + `b`)) VIRTUAL`).
pub fn column_sql(g: &GeneratedDef) -> String {
    format!(" GENERATED ALWAYS AS ({}) {}", g.expr, if g.stored { "STORED" } else { "VIRTUAL" })
}

/// SHOW COLUMNS' Extra for a generated column.
pub fn extra(g: &GeneratedDef) -> &'static str {
    if g.stored {
        "STORED GENERATED"
    } else {
        "VIRTUAL GENERATED"
    }
}
