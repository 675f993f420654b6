//! Table options of CREATE TABLE and column COMMENTs, into `TableExtras`.
//!
//! - `AUTO_INCREMENT=n`: the counter starts at n (kept in the catalog, so
//!   that an empty table restarts there too, as MySQL 8.0 and MariaDB
//!   10.2+ persist it);
//! - `COMMENT 'x'` on the table and on columns: stored, shown by SHOW CREATE
//!   TABLE and SHOW FULL COLUMNS;
//! - `ENGINE=InnoDB` is what every table is; another engine gives warning
//!   1266 "Using storage engine InnoDB" (MySQL's substitution), the table
//!   is InnoDB;
//! - `DEFAULT CHARSET` / `COLLATE` and InnoDB's storage options are
//!   accepted as before (every table is utf8mb4).

use quire_engine::row::TableExtras;
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::session::Session;

/// The longest table COMMENT (MySQL's TABLE_COMMENT_MAXLEN).
const TABLE_COMMENT_MAX: usize = 2048;
/// The longest column COMMENT (MySQL's COLUMN_COMMENT_MAXLEN).
const COLUMN_COMMENT_MAX: usize = 1024;

fn options(ct: &ast::CreateTable) -> &[ast::SqlOption] {
    match &ct.table_options {
        ast::CreateTableOptions::Plain(o) | ast::CreateTableOptions::With(o) | ast::CreateTableOptions::Options(o) => o,
        _ => &[],
    }
}

/// The extras a CREATE TABLE's options and column definitions declare.
pub fn read(s: &Session, table: &str, ct: &ast::CreateTable) -> Result<TableExtras> {
    let mut x = TableExtras { default_collation: crate::create::charset::table_option(ct)?, ..Default::default() };
    for o in options(ct) {
        match o {
            ast::SqlOption::Comment(ast::CommentDef::WithEq(c) | ast::CommentDef::WithoutEq(c)) => {
                if c.chars().count() > TABLE_COMMENT_MAX {
                    return Err(SqlError::new(
                        1628,
                        "HY000",
                        format!("Comment for table '{table}' is too long (max = {TABLE_COMMENT_MAX})"),
                    ));
                }
                x.comment = c.clone();
            }
            ast::SqlOption::KeyValue { key, value } if key.value.eq_ignore_ascii_case("AUTO_INCREMENT") => {
                let n: u64 = value.to_string().trim_matches('\'').parse().map_err(|_| {
                    SqlError::new(1064, "42000", format!("Incorrect AUTO_INCREMENT value near '{value}'"))
                })?;
                x.auto_increment_start = n.max(1);
            }
            ast::SqlOption::NamedParenthesizedList(l) if l.key.value.eq_ignore_ascii_case("ENGINE") => {
                let name = l.name.as_ref().map(|n| n.value.clone()).unwrap_or_default();
                if !name.eq_ignore_ascii_case("InnoDB") {
                    s.warn(1266, format!("Using storage engine InnoDB for table '{table}'"));
                }
            }
            _ => {}
        }
    }
    if ct.comment.is_some() {
        return Err(SqlError::unsupported("a Hive-style table COMMENT"));
    }
    for cd in &ct.columns {
        for o in &cd.options {
            if let ast::ColumnOption::Comment(c) = &o.option {
                if c.chars().count() > COLUMN_COMMENT_MAX {
                    return Err(SqlError::new(
                        1629,
                        "HY000",
                        format!("Comment for field '{}' is too long (max = {COLUMN_COMMENT_MAX})", cd.name.value),
                    ));
                }
                if !c.is_empty() {
                    x.column_comments.push((cd.name.value.clone(), c.clone()));
                }
            }
        }
    }
    Ok(x)
}

/// A string as SHOW CREATE TABLE quotes it (`'` doubled, `\` escaped).
pub fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// The columns of SHOW FULL COLUMNS.
pub fn full_columns_header() -> Vec<crate::plan::ColMeta> {
    crate::session::text_columns(&[
        "Field",
        "Type",
        "Collation",
        "Null",
        "Key",
        "Default",
        "Extra",
        "Privileges",
        "Comment",
    ])
}

/// SHOW FULL COLUMNS' rows from SHOW COLUMNS' (Field, Type, Null, Key,
/// Default, Extra): the collation of string columns (NULL for others),
/// the privileges MariaDB lists for a user with all of them, the COMMENT.
pub fn full_columns(
    rows: Vec<Vec<quire_engine::row::Value>>,
    schema: &quire_engine::row::TableSchema,
    extras: &TableExtras,
) -> Vec<Vec<quire_engine::row::Value>> {
    use quire_engine::row::Value;
    rows.into_iter()
        .zip(schema.visible_columns())
        .map(|(mut r, c)| {
            let collation = if c.ty.is_string() || c.ty.members().is_some() {
                Value::Str(c.collation.name().into())
            } else {
                Value::Null
            };
            r.insert(2, collation);
            r.push(Value::Str("select,insert,update,references".into()));
            r.push(Value::Str(extras.column_comment(&c.name).to_string()));
            r
        })
        .collect()
}
