//! ALTER TABLE's copy: each old row becomes a row of the new definition,
//! converted as MariaDB's copy converts it (its messages differ from
//! INSERT's in places, and these are MariaDB's):
//!
//! | what | message (a warning; an error in strict mode) |
//! |---|---|
//! | NULL into a column now NOT NULL | 1265 `Data truncated for column 'c' at row n`, the implicit default |
//! | a string not wholly a number into a number | 1292 `Truncated incorrect INTEGER value: 's'` (DECIMAL for DECIMAL), its numeric prefix |
//! | a string longer than a CHAR / VARCHAR | 1265 `Data truncated ... at row n`, cut |
//! | anything else | as INSERT (`store::assign`): 1264 out of range, 1292 bad dates ... |
//!
//! A new column takes its default (the implicit default when NOT NULL
//! without one: no warning, as MariaDB); an AUTO_INCREMENT column gets
//! numbers for its NULLs and zeros, counting on from the largest value.

use quire_engine::row::{ColumnType, ForeignKeyDef, GeneratedDef, TableExtras, TableSchema, Value};

use super::Draft;
use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::{self, Env};
use crate::session::Session;
use crate::store::{self, Place};

/// Rebuilds `db.table` with `schema`, converting each row and computing
/// its generated columns (`gens`, `create::generated`); `extras`, when
/// given, replace the table's. Returns the rows copied.
#[allow(clippy::too_many_arguments)]
pub fn rebuild(
    s: &Session,
    db: &str,
    table: &str,
    d: &Draft,
    schema: TableSchema,
    fks: Vec<ForeignKeyDef>,
    gens: &[GeneratedDef],
    extras: Option<TableExtras>,
) -> Result<u64> {
    let full = s.table_key(db, table);
    let mut next_auto = 1u64;
    let names: Vec<String> = schema.visible_columns().iter().map(|c| c.name.clone()).collect();
    let compiled = crate::create::generated::compile_defs(gens, &schema, &names)?;
    let columns = schema.columns.clone();
    s.with_env(true, |env| {
        s.engine().rebuild_table_with_extras::<SqlError>(&full, schema, fks, extras, true, &mut |row_no, row| {
            env.check_interrupt()?;
            let at = Place { db, table, row: row_no };
            let mut new =
                d.columns.iter().map(|c| convert(c, &row, at, env, &mut next_auto)).collect::<Result<Vec<_>>>()?;
            if !compiled.is_empty() {
                crate::create::generated::fill(&compiled, &columns, &mut new, at, env)?;
            }
            Ok(new)
        })
    })
}

fn convert(
    c: &super::draft::DraftColumn,
    row: &[Value],
    at: Place<'_>,
    env: &dyn Env,
    next_auto: &mut u64,
) -> Result<Value> {
    let col = &c.col;
    let truncated =
        || Condition::new(Level::Warning, 1265, format!("Data truncated for column '{}' at row {}", col.name, at.row));
    let v = match c.from {
        Some(j) => row[j].clone(),
        None => col.default.clone().unwrap_or(Value::Null),
    };
    if col.auto_increment {
        let n = match &v {
            Value::Int(i) if *i > 0 => Some(*i as u64),
            Value::UInt(u) if *u > 0 => Some(*u),
            Value::Null | Value::Int(0) | Value::UInt(0) => None,
            _ => Some(0),
        };
        match n {
            Some(n) => *next_auto = (*next_auto).max(n.saturating_add(1)),
            None => {
                let id = *next_auto;
                *next_auto += 1;
                return Ok(if col.ty.is_unsigned() { Value::UInt(id) } else { Value::Int(id as i64) });
            }
        }
    }
    if v.is_null() {
        if col.nullable {
            return Ok(Value::Null);
        }
        if c.from.is_some() {
            env.warn(truncated())?;
        }
        return Ok(store::implicit_default(col));
    }
    let v = match (&v, col.ty) {
        (Value::Str(s), t) if t.is_integer() || matches!(t, ColumnType::Decimal { .. }) => {
            let trimmed = s.trim();
            let prefix = &s.trim_start()[..expr::numeric_prefix_len(s.trim_start())];
            if prefix.len() != trimmed.len() || prefix.is_empty() {
                let kind = if t.is_integer() { "INTEGER" } else { "DECIMAL" };
                env.warn(Condition::new(Level::Warning, 1292, format!("Truncated incorrect {kind} value: '{s}'")))?;
                Value::Str(if prefix.is_empty() { "0".into() } else { prefix.to_string() })
            } else {
                v
            }
        }
        (Value::Str(s), ColumnType::Char { len } | ColumnType::Varchar { len })
            if s.trim_end_matches(' ').chars().count() > len as usize =>
        {
            env.warn(truncated())?;
            Value::Str(s.chars().take(len as usize).collect())
        }
        _ => v,
    };
    store::assign(col, v, at, env)
}
