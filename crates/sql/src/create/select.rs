//! `CREATE TABLE t [(defs)] [AS] SELECT ...`: the table's columns are the
//! defined ones the SELECT does not name, then the SELECT's result columns
//! (one also defined keeps its definition), typed as MariaDB types them (checked against MariaDB 10.11,
//! SHOW CREATE TABLE):
//!
//! - a column read from a table keeps its type, collation, NULL-ness,
//!   DEFAULT and COMMENT; an AUTO_INCREMENT one becomes `NOT NULL DEFAULT 0`;
//! - an integer expression is INT up to 9 characters, else BIGINT; COUNT is
//!   BIGINT NOT NULL;
//! - a decimal literal is DECIMAL(digits, scale); `+ -` widen the larger
//!   integer part by one, `*` adds precisions and scales; SUM is
//!   DECIMAL(p + 22, s), AVG DECIMAL(p + 4, s + 4) (p = the argument's
//!   digits: 3 TINYINT, 5 SMALLINT, 8 MEDIUMINT, 10 INT, 19 BIGINT);
//!   another decimal expression is DECIMAL(65, s) (MariaDB's precision may
//!   be smaller there);
//! - a string expression is VARCHAR(n) (TEXT past 16383 characters), n
//!   as MariaDB counts it for literals, columns, CONCAT and the case and
//!   trim functions, else the result metadata's length; dates and times
//!   their type;
//! - a literal, arithmetic on literals, COUNT, NOW() / CURDATE() are NOT
//!   NULL; other expressions are nullable;
//! - a NULL column (MariaDB's BINARY(0)) and a DOUBLE one are refused with
//!   1235: quire has neither column type yet.
//!
//! The rows go in as `INSERT INTO t (cols) SELECT ...` would put them (the
//! same conversions, warnings, duplicate-key errors), in one transaction
//! that commits with the statement. If anything fails the table is dropped
//! again, so the statement leaves no table (MySQL 8.0 and MariaDB alike).
//! A crash between the creation and the commit leaves the table empty:
//! unlike MySQL 8.0's atomic DDL the creation is its own durable step.
//! `CREATE TABLE t IGNORE | REPLACE SELECT` is not parsed (1064).

use quire_engine::row::{ColumnType, TableSchema};
use sqlparser::ast;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType};
use crate::session::Session;
use crate::sink::{Collect, Outcome};
use crate::Output;

/// A copy of `ct` with the SELECT's columns appended and no query: the
/// definition of the table to create.
pub fn expand(s: &Session, ct: &ast::CreateTable, q: &ast::Query) -> Result<ast::CreateTable> {
    let compiled = s.compile(ast::Statement::Query(Box::new(q.clone())))?;
    let metas = compiled.columns();
    let items = projection(q);
    let tables = from_tables(s, q);
    let mut out = ct.clone();
    out.query = None;
    // MariaDB's order: the defined columns the SELECT does not name, then
    // the SELECT's columns (a defined one keeping its definition).
    let named = |c: &ast::ColumnDef| metas.iter().any(|m| m.name.eq_ignore_ascii_case(&c.name.value));
    out.columns = ct.columns.iter().filter(|c| !named(c)).cloned().collect();
    for (i, m) in metas.iter().enumerate() {
        if let Some(c) = ct.columns.iter().find(|c| c.name.value.eq_ignore_ascii_case(&m.name)) {
            if !out.columns.iter().any(|o| o.name.value.eq_ignore_ascii_case(&m.name)) {
                out.columns.push(c.clone());
            }
            continue;
        }
        let item = items.as_ref().and_then(|v| v.get(i).copied());
        let text = column_text(s, &tables, m, item)?;
        // sqlparser reads no ZEROFILL: the column is marked after.
        let (text, zerofill) = match text.split_once(" zerofill") {
            Some((head, tail)) => (format!("{head}{tail}"), true),
            None => (text, false),
        };
        let mut cd = Parser::new(&MySqlDialect {})
            .try_with_sql(&text)
            .and_then(|mut p| p.parse_column_def())
            .map_err(|e| SqlError::syntax(format!("{e} (derived column {text})")))?;
        if zerofill {
            super::zerofill::mark_column(&mut cd);
        }
        out.columns.push(cd);
    }
    Ok(out)
}

/// Fills the new table `db`.`table` from the SELECT; on any error drops it.
pub fn fill(s: &mut Session, db: &str, table: &str, q: &ast::Query) -> Result<Output> {
    let full = s.table_key(db, table);
    let r = (|| {
        let metas = s.compile(ast::Statement::Query(Box::new(q.clone())))?.columns();
        let cols = metas.iter().map(|m| format!("`{}`", m.name.replace('`', "``"))).collect::<Vec<_>>().join(", ");
        let sql = format!("INSERT INTO `{db}`.`{table}` ({cols}) {q}");
        let c = s.compile_one(&sql)?;
        let o = s.execute(&c, &[], &mut Collect::default())?;
        s.commit()?;
        Ok(match o {
            Outcome::Ok { affected, info, .. } => Output::Ok { affected, last_insert_id: 0, info },
            Outcome::Rows(_) => Output::ok(),
        })
    })();
    if r.is_err() {
        let _ = s.rollback();
        s.temps.remove(db, table);
        if let Err(e) = s.engine().drop_table(&full) {
            tracing::warn!("CREATE TABLE ... SELECT: table {full} not dropped after a failure: {e}");
        }
    }
    r
}

/// The SELECT's items by position, when it is one plain SELECT without `*`.
fn projection(q: &ast::Query) -> Option<Vec<&ast::Expr>> {
    let ast::SetExpr::Select(sel) = q.body.as_ref() else { return None };
    sel.projection
        .iter()
        .map(|it| match it {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        })
        .collect()
}

/// The column definition (SQL text) of one result column.
fn column_text(s: &Session, tables: &[TableSchema], m: &ColMeta, item: Option<&ast::Expr>) -> Result<String> {
    let name = format!("`{}`", m.name.replace('`', "``"));
    if let Some(text) = source_column(s, m, &name) {
        return Ok(text);
    }
    let ty = match m.ty {
        MetaType::Int { unsigned, width } => {
            let base = if width <= 4 { "int" } else { "bigint" };
            format!("{base}{}", if unsigned { " unsigned" } else { "" })
        }
        MetaType::Decimal { precision, scale } => {
            let (p, sc) = item.and_then(|e| decimal_of(tables, e)).unwrap_or((precision, scale));
            let p = p.clamp(sc.max(1), 65);
            format!("decimal({p},{sc})")
        }
        MetaType::Str { .. } | MetaType::Text => {
            let meta_len = match m.ty {
                MetaType::Str { len, .. } => len,
                _ => u32::MAX,
            };
            match item.and_then(|e| str_len(tables, e)).unwrap_or(meta_len) {
                n if n <= 16_383 => format!("varchar({n})"),
                _ => "text".into(),
            }
        }
        MetaType::Date => "date".into(),
        MetaType::DateTime { fsp } => ColumnType::DateTime { fsp }.sql(),
        MetaType::Timestamp { fsp } => ColumnType::Timestamp { fsp }.sql(),
        MetaType::Null => {
            return Err(SqlError::unsupported(format!("CREATE TABLE ... SELECT of NULL (column {name})")))
        }
        MetaType::Double | MetaType::Approx { single: false, .. } => "double".into(),
        MetaType::Approx { single: true, .. } => "float".into(),
        MetaType::Time { fsp } => ColumnType::Time { fsp }.sql(),
        MetaType::Binary { len, fixed: true } => ColumnType::Binary { len }.sql(),
        MetaType::Binary { len, fixed: false } if len <= 65_532 => ColumnType::VarBinary { len }.sql(),
        MetaType::Binary { .. } => "blob".into(),
        MetaType::Blob { max_bytes } => ColumnType::Blob { max_bytes }.sql(),
        MetaType::Json => ColumnType::Json.sql(),
        // A computed ENUM / SET value (its members are not known here) is
        // a string.
        MetaType::Choice { len, .. } => format!("varchar({len})"),
        MetaType::Year { .. } => ColumnType::Year.sql(),
        MetaType::Bit { bits } => ColumnType::Bit { bits }.sql(),
    };
    let not_null = m.not_null || item.is_some_and(never_null);
    Ok(format!("{name} {ty}{}", if not_null { " NOT NULL" } else { "" }))
}

/// A result column read straight from a table: that column's definition.
fn source_column(s: &Session, m: &ColMeta, name: &str) -> Option<String> {
    if m.org_table.is_empty() || m.org_name.is_empty() {
        return None;
    }
    let t = s.engine().table(&s.table_key(&m.db, &m.org_table)).ok()?;
    let schema = t.schema();
    let c = schema.visible_columns().iter().find(|c| c.name.eq_ignore_ascii_case(&m.org_name))?.clone();
    let mut text = format!("{name} {}", c.sql_type());
    let collated = c.ty.is_string() || c.ty.members().is_some();
    if collated && c.collation != quire_engine::row::Collation::Utf8mb4GeneralCi {
        text.push_str(&format!(" COLLATE {}", c.collation.name()));
    }
    if !c.nullable {
        text.push_str(" NOT NULL");
    }
    if c.auto_increment {
        text.push_str(" DEFAULT 0");
    } else if let Some(d) = &c.default {
        let d = match c.ty {
            ColumnType::Bit { .. } => crate::ddl::default_sql(c.ty, d),
            _ => super::options::quoted(&crate::expr::as_string(d)),
        };
        text.push_str(&format!(" DEFAULT {d}"));
    }
    let comment = t.extras().column_comment(&c.name).to_string();
    if !comment.is_empty() {
        text.push_str(&format!(" COMMENT {}", super::options::quoted(&comment)));
    }
    Some(text)
}

/// Digits of an integer column type (MariaDB's decimal precision of it).
fn int_digits(t: ColumnType) -> Option<u8> {
    Some(match t {
        ColumnType::TinyInt { .. } => 3,
        ColumnType::SmallInt { .. } => 5,
        ColumnType::MediumInt { .. } => 8,
        ColumnType::Int { .. } => 10,
        ColumnType::BigInt { unsigned: false } => 19,
        ColumnType::BigInt { unsigned: true } => 20,
        _ => return None,
    })
}

/// (precision, scale) of a decimal-valued expression, where MariaDB's
/// rule is known (module note).
fn decimal_of(s: &[TableSchema], e: &ast::Expr) -> Option<(u8, u8)> {
    match e {
        ast::Expr::Nested(x) => decimal_of(s, x),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) if !n.contains(['e', 'E']) => {
                let (int, frac) = n.split_once('.').unwrap_or((n, ""));
                let int = int.trim_start_matches('-').trim_start_matches('0').len().max(1);
                Some(((int + frac.len()) as u8, frac.len() as u8))
            }
            _ => None,
        },
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => match column_type(s, e)? {
            ColumnType::Decimal { precision, scale, .. } => Some((precision, scale)),
            t => int_digits(t).map(|d| (d, 0)),
        },
        ast::Expr::BinaryOp { left, op, right } => {
            let (lp, ls) = decimal_of(s, left)?;
            let (rp, rs) = decimal_of(s, right)?;
            match op {
                ast::BinaryOperator::Plus | ast::BinaryOperator::Minus => {
                    let int = (lp - ls).max(rp - rs) + 1;
                    let sc = ls.max(rs);
                    Some((int + sc, sc))
                }
                ast::BinaryOperator::Multiply => Some((lp + rp, ls + rs)),
                _ => None,
            }
        }
        ast::Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_lowercase();
            let ast::FunctionArguments::List(l) = &f.args else { return None };
            let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(a))] = l.args.as_slice() else { return None };
            let (p, sc) = decimal_of(s, a)?;
            match name.as_str() {
                "sum" => Some(((p + 22).min(65), sc)),
                "avg" => Some(((p + 4).min(65), (sc + 4).min(30))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The length in characters of a string expression, where MariaDB's rule
/// is known: literals, CHAR / VARCHAR columns, CONCAT (the sum), and the
/// case and trim functions (their argument's).
fn str_len(tables: &[TableSchema], e: &ast::Expr) -> Option<u32> {
    match e {
        ast::Expr::Nested(x) => str_len(tables, x),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(t) | ast::Value::DoubleQuotedString(t) => Some(t.chars().count() as u32),
            ast::Value::Number(n, _) => Some(n.len() as u32),
            _ => None,
        },
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => match column_type(tables, e)? {
            ColumnType::Char { len } | ColumnType::Varchar { len } => Some(len),
            _ => None,
        },
        ast::Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_lowercase();
            let ast::FunctionArguments::List(l) = &f.args else { return None };
            let args = l
                .args
                .iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => str_len(tables, x),
                    _ => None,
                })
                .collect::<Option<Vec<u32>>>()?;
            match name.as_str() {
                "concat" => Some(args.iter().sum()),
                "upper" | "lower" | "ucase" | "lcase" | "trim" | "ltrim" | "rtrim" | "reverse" if args.len() == 1 => {
                    Some(args[0])
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The type of the column `e` names, looked up in the FROM clause's
/// tables (`tables`), by its last name part, first match.
fn column_type(tables: &[TableSchema], e: &ast::Expr) -> Option<ColumnType> {
    let name = match e {
        ast::Expr::Identifier(i) => &i.value,
        ast::Expr::CompoundIdentifier(parts) => &parts.last()?.value,
        _ => return None,
    };
    tables.iter().flat_map(|t| t.visible_columns()).find(|c| c.name.eq_ignore_ascii_case(name)).map(|c| c.ty)
}

/// The schemas of the tables a plain SELECT's FROM clause names.
fn from_tables(s: &Session, q: &ast::Query) -> Vec<TableSchema> {
    let ast::SetExpr::Select(sel) = q.body.as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    for twj in &sel.from {
        for f in std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation)) {
            if let ast::TableFactor::Table { name, .. } = f {
                if let Ok((db, t)) = crate::admin::split_name(s, name) {
                    if let Ok(tab) = s.engine().table(&s.table_key(&db, &t)) {
                        out.push(tab.schema());
                    }
                }
            }
        }
    }
    out
}

/// Whether MariaDB types the expression NOT NULL: literals other than
/// NULL, arithmetic (not division) on such, COUNT, NOW() and CURDATE().
fn never_null(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Nested(x) => never_null(x),
        ast::Expr::Value(v) => !matches!(v.value, ast::Value::Null),
        ast::Expr::UnaryOp { op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus, expr } => never_null(expr),
        ast::Expr::BinaryOp { left, op, right } => {
            matches!(op, ast::BinaryOperator::Plus | ast::BinaryOperator::Minus | ast::BinaryOperator::Multiply)
                && never_null(left)
                && never_null(right)
        }
        ast::Expr::Function(f) => matches!(
            f.name.to_string().to_ascii_lowercase().as_str(),
            "count" | "now" | "current_timestamp" | "curdate" | "current_date" | "sysdate"
        ),
        _ => false,
    }
}
