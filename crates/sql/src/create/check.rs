//! CHECK constraints (MySQL 8.0.16+; MariaDB 10.2+).
//!
//! - [`define`]: the column-level and table-level `[CONSTRAINT name] CHECK
//!   (expr) [[NOT] ENFORCED]` clauses of CREATE TABLE, validated as MySQL
//!   8.0 validates them (errors 3813-3822) and named `<table>_chk_<n>`
//!   unless named; stored with the table (`TableExtras::checks`, catalog
//!   version 4) as the expression's text with identifiers backquoted.
//!   `[NOT] ENFORCED` is MySQL's (MariaDB has no such clause).
//! - [`of`]: the compiled constraints a write statement enforces, read
//!   when an INSERT / UPDATE is planned (a table without any pays for one
//!   empty `Vec`, no evaluation).
//! - [`enforce`]: (after the row's generated columns are computed,
//!   `create::generated`) a row whose expression is FALSE fails with MySQL 8.0's
//!   3819 "Check constraint 'name' is violated." (MariaDB's is 4025
//!   "CONSTRAINT `name` failed for `db`.`t`": MySQL's is the one clients
//!   and the issue name); NULL (unknown) passes. INSERT IGNORE makes it a
//!   warning and skips the row (the callers, by the code).

use quire_engine::row::{CheckDef, TableSchema};
use sqlparser::ast::{self, VisitMut, VisitorMut};

use crate::error::{Result, SqlError};
use crate::expr::{self, Env, Expr, Scope};
use crate::plan::TableRef;
use quire_engine::row::Value;

/// MySQL 8.0's error code of a violated CHECK constraint.
pub const VIOLATED: u16 = 3819;

/// The CHECK constraints of a CREATE TABLE, validated against `schema`.
pub fn define(table: &str, ct: &ast::CreateTable, schema: &TableSchema) -> Result<Vec<CheckDef>> {
    let mut clauses: Vec<(Option<String>, &ast::Expr, bool, Option<&str>)> = Vec::new();
    for cd in &ct.columns {
        for o in &cd.options {
            if let ast::ColumnOption::Check(c) = &o.option {
                let name = c.name.as_ref().or(o.name.as_ref()).map(|n| n.value.clone());
                clauses.push((name, &c.expr, c.enforced != Some(false), Some(&cd.name.value)));
            }
        }
    }
    for c in &ct.constraints {
        if let ast::TableConstraint::Check(c) = c {
            clauses.push((c.name.as_ref().map(|n| n.value.clone()), &c.expr, c.enforced != Some(false), None));
        }
    }
    let mut out: Vec<CheckDef> = Vec::new();
    let mut generated = 0;
    for (name, e, enforced, column) in clauses {
        let name = name.unwrap_or_else(|| {
            generated += 1;
            format!("{table}_chk_{generated}")
        });
        crate::catalog::check_identifier(&name)?;
        if out.iter().any(|c| c.name.eq_ignore_ascii_case(&name)) {
            return Err(SqlError::new(3822, "HY000", format!("Duplicate check constraint name '{name}'.")));
        }
        validate(&name, e, schema, column)?;
        out.push(CheckDef { name, expr: text(e), enforced });
    }
    Ok(out)
}

/// One CHECK constraint added by ALTER TABLE to a table holding
/// `existing`: validated as CREATE TABLE validates it, named
/// `<table>_chk_<n>` (n one past the largest generated number) unless named.
pub fn define_added(
    table: &str,
    c: &ast::CheckConstraint,
    schema: &TableSchema,
    existing: &[CheckDef],
) -> Result<CheckDef> {
    let name = match &c.name {
        Some(n) => n.value.clone(),
        None => {
            let prefix = format!("{}_chk_", table.to_lowercase());
            let n = existing
                .iter()
                .filter_map(|c| c.name.to_lowercase().strip_prefix(&prefix).and_then(|n| n.parse::<u64>().ok()))
                .max()
                .unwrap_or(0);
            format!("{table}_chk_{}", n + 1)
        }
    };
    crate::catalog::check_identifier(&name)?;
    if existing.iter().any(|c| c.name.eq_ignore_ascii_case(&name)) {
        return Err(SqlError::new(3822, "HY000", format!("Duplicate check constraint name '{name}'.")));
    }
    validate(&name, &c.expr, schema, None)?;
    Ok(CheckDef { name, expr: text(&c.expr), enforced: c.enforced != Some(false) })
}

/// The expression as stored and shown, as MySQL 8.0 prints it:
/// identifiers backquoted, function names in lower case, every binary
/// operation in parentheses (the user's own parentheses dropped).
pub(crate) fn text(e: &ast::Expr) -> String {
    struct Print;
    impl VisitorMut for Print {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut ast::Expr) -> std::ops::ControlFlow<()> {
            match e {
                ast::Expr::Identifier(i) => i.quote_style = Some('`'),
                ast::Expr::CompoundIdentifier(parts) => {
                    if let Some(last) = parts.last().cloned() {
                        // A column qualified by its own table: the column.
                        *e = ast::Expr::Identifier(ast::Ident { quote_style: Some('`'), ..last });
                    }
                }
                ast::Expr::Nested(inner) => *e = (**inner).clone(),
                ast::Expr::BinaryOp { .. } => *e = ast::Expr::Nested(Box::new(e.clone())),
                ast::Expr::Function(f) => {
                    for part in &mut f.name.0 {
                        if let ast::ObjectNamePart::Identifier(i) = part {
                            i.value = i.value.to_ascii_lowercase();
                        }
                    }
                }
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut e = e.clone();
    let _ = VisitMut::visit(&mut e, &mut Print);
    e.to_string()
}

/// Functions whose value is not a function of the row (MySQL 8.0 refuses
/// them in a CHECK constraint, 3814).
pub(crate) const DISALLOWED: &[&str] = &[
    "rand",
    "uuid",
    "uuid_short",
    "now",
    "current_timestamp",
    "sysdate",
    "curdate",
    "current_date",
    "curtime",
    "current_time",
    "localtime",
    "localtimestamp",
    "unix_timestamp",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "connection_id",
    "current_user",
    "user",
    "session_user",
    "system_user",
    "database",
    "schema",
    "found_rows",
    "row_count",
    "last_insert_id",
    "get_lock",
    "release_lock",
    "is_free_lock",
    "is_used_lock",
    "sleep",
    "benchmark",
    "version",
    "load_file",
    "master_pos_wait",
];

/// The first refusal `judge` finds in `e` or its parts (CHECK constraints
/// and generated columns refuse the same kinds of expression, each with
/// its own codes).
pub(crate) fn first_refusal(e: &ast::Expr, mut judge: impl FnMut(&ast::Expr) -> Option<SqlError>) -> Result<()> {
    match ast::visit_expressions(e, |x| match judge(x) {
        Some(err) => std::ops::ControlFlow::Break(err),
        None => std::ops::ControlFlow::Continue(()),
    }) {
        std::ops::ControlFlow::Break(err) => Err(err),
        std::ops::ControlFlow::Continue(()) => Ok(()),
    }
}

/// A call of a function no CHECK or generated column may use: its name.
pub(crate) fn disallowed(f: &ast::Function) -> Option<String> {
    let fname = f.name.to_string().to_ascii_lowercase();
    DISALLOWED.contains(&fname.as_str()).then_some(fname)
}

/// MySQL 8.0's refusals of a CHECK expression.
fn validate(name: &str, e: &ast::Expr, schema: &TableSchema, column: Option<&str>) -> Result<()> {
    first_refusal(e, |e| match e {
        ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => Some(SqlError::new(
            3815,
            "HY000",
            format!("An expression of a check constraint '{name}' contains disallowed function."),
        )),
        ast::Expr::Function(f) => disallowed(f).map(|fname| {
            SqlError::new(
                3814,
                "HY000",
                format!("An expression of a check constraint '{name}' contains disallowed function: {fname}."),
            )
        }),
        ast::Expr::Identifier(i) if i.value.starts_with('@') => Some(SqlError::new(
            3816,
            "HY000",
            format!("An expression of a check constraint '{name}' cannot refer to a user or system variable."),
        )),
        _ => None,
    })?;
    let columns: Vec<String> = schema.visible_columns().iter().map(|c| c.name.clone()).collect();
    let mut scope = Scope { table: None, columns: &columns, aggs: None, params: 0, place: "check", rel: None };
    let compiled = expr::compile(e, &mut scope).map_err(|err| match err.code {
        1054 => SqlError::new(
            3820,
            "HY000",
            format!("Check constraint '{name}' refers to non-existing column '{}'.", missing_column(&err.message)),
        ),
        1064 => err,
        _ => SqlError::new(
            3814,
            "HY000",
            format!("An expression of a check constraint '{name}' contains disallowed function: {}.", err.message),
        ),
    })?;
    let mut used = vec![false; columns.len()];
    expr::mark_columns(&compiled, &mut used);
    for (c, _) in used.iter().enumerate().filter(|(_, u)| **u) {
        let col = &schema.columns[c];
        if col.auto_increment {
            return Err(SqlError::new(
                3818,
                "HY000",
                format!("Check constraint '{name}' cannot refer to an auto-increment column."),
            ));
        }
        if column.is_some_and(|own| !own.eq_ignore_ascii_case(&col.name)) {
            return Err(SqlError::new(
                3813,
                "HY000",
                format!("Column check constraint '{name}' references other column."),
            ));
        }
    }
    Ok(())
}

/// The column name of a 1054 "Unknown column 'x' in '...'" message.
fn missing_column(message: &str) -> &str {
    message.split('\'').nth(1).unwrap_or(message)
}

/// What every row a write statement makes of `t` goes through before
/// the engine gets it: its generated columns computed
/// (`create::generated`), then its enforced CHECK constraints.
#[derive(Default)]
pub struct Rules {
    /// The generated columns, compiled (empty for most tables).
    pub generated: crate::create::generated::Compiled,
    /// The enforced CHECK constraints: (expression, constraint name).
    pub checks: Vec<(Expr, String)>,
    /// The table's columns (for converting generated values); empty
    /// when there are no generated columns.
    columns: Vec<quire_engine::row::Column>,
}

impl Rules {
    /// The generated columns alone (multi-table UPDATE, which does not
    /// check CHECK constraints yet).
    pub fn without_checks(mut self) -> Rules {
        self.checks.clear();
        self
    }
}

/// The rules of `t`, compiled against its row. Empty (nothing allocated,
/// nothing evaluated) for a table without generated columns or CHECKs.
pub fn of(t: &TableRef) -> Result<Rules> {
    let defs = t.table.checks();
    let mut checks = Vec::with_capacity(defs.len());
    for d in defs.into_iter().filter(|d| d.enforced) {
        let e = parse(&d.expr)?;
        let mut scope = Scope { table: None, columns: &t.columns, aggs: None, params: 0, place: "check", rel: None };
        checks.push((expr::compile(&e, &mut scope)?, d.name));
    }
    let generated = crate::create::generated::compile(t)?;
    let columns = if generated.is_empty() { Vec::new() } else { t.schema.columns.clone() };
    Ok(Rules { generated, checks, columns })
}

/// The first of `checks` whose expression uses column `column` (case
/// insensitive), with MySQL 8.0's refusal of dropping or renaming it:
/// 3959. (MariaDB drops such a column with 1054 and rewrites the
/// expression on a rename; quire follows MySQL, as for 3819.)
pub fn refuse_column_change(checks: &[CheckDef], column: &str) -> Result<()> {
    for c in checks {
        let e = parse(&c.expr)?;
        let uses = ast::visit_expressions(&e, |x| match x {
            ast::Expr::Identifier(i) if i.value.eq_ignore_ascii_case(column) => std::ops::ControlFlow::Break(()),
            _ => std::ops::ControlFlow::Continue(()),
        });
        if uses.is_break() {
            return Err(SqlError::new(
                3959,
                "HY000",
                format!(
                    "Check constraint '{}' uses column '{column}', hence column cannot be dropped or renamed.",
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

/// A stored expression's AST.
fn parse(text: &str) -> Result<ast::Expr> {
    sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| SqlError::syntax(format!("stored CHECK expression {text}: {e}")))
}

/// Completes `row` (its generated columns), then 3819 if it makes one of
/// the CHECK constraints FALSE (NULL passes).
pub fn enforce(rules: &Rules, row: &mut [Value], at: crate::store::Place<'_>, env: &dyn Env) -> Result<()> {
    complete(rules, row, at, env)?;
    enforce_checks(rules, row, env)
}

/// Computes the generated columns of `row`.
pub fn complete(rules: &Rules, row: &mut [Value], at: crate::store::Place<'_>, env: &dyn Env) -> Result<()> {
    if rules.generated.is_empty() {
        return Ok(());
    }
    crate::create::generated::fill(&rules.generated, &rules.columns, row, at, env)
}

/// 3819 if the (completed) `row` makes one of the CHECK constraints
/// FALSE (NULL passes).
pub fn enforce_checks(rules: &Rules, row: &[Value], env: &dyn Env) -> Result<()> {
    for (x, name) in &rules.checks {
        if expr::truth(&expr::eval(x, row, env)?) == Some(false) {
            return Err(SqlError::new(VIOLATED, "HY000", format!("Check constraint '{name}' is violated.")));
        }
    }
    Ok(())
}

/// MySQL's constraint lines of SHOW CREATE TABLE.
pub fn constraint_sql(c: &CheckDef) -> String {
    let not = if c.enforced { "" } else { " /*!80016 NOT ENFORCED */" };
    format!("CONSTRAINT `{}` CHECK ({}){not}", c.name, c.expr)
}

/// INSERT IGNORE: a row that violates a CHECK constraint becomes warning
/// 3819 and is skipped (`None`), as MySQL and MariaDB skip it.
pub fn ignored(ignore: bool, row: Result<Vec<Value>>, env: &dyn Env) -> Result<Option<Vec<Value>>> {
    match row {
        Err(e) if ignore && e.code == VIOLATED => {
            env.warn(crate::diag::Condition::new(crate::diag::Level::Warning, e.code, e.message))?;
            Ok(None)
        }
        r => r.map(Some),
    }
}
