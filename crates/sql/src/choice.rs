//! ENUM and SET columns in the SQL layer: declaring them (the member
//! checks MariaDB makes), storing values into them with MariaDB's warnings
//! and errors, and their implicit defaults. The values themselves are
//! `Value::Choice` (`quire_engine::row::choice`): they show as text,
//! compare with strings as text and with numbers as their number, and
//! sort by the number (`expr::compare`, `query::sort_key`).
//!
//! Storing (MariaDB 10.11's `Field_enum::store` / `Field_set::store`):
//!
//! | input | ENUM | SET |
//! |---|---|---|
//! | text naming a member (trailing spaces and case as the collation says) | that member | those members, in any order, duplicates folded |
//! | text naming none, all digits | that index (0 allowed) | that bitmap |
//! | anything else | 1265, `''` (index 0) | 1265, the members named (or none) |
//! | a number | 1..=count, else 1265 and `''` | the bitmap; bits beyond the members: 1265 and they are dropped |
//!
//! 1265 is a warning outside strict mode and the error in it (through
//! `Env::warn`). A fraction is cut toward zero, as MariaDB's
//! `store(double)` does.

use quire_engine::row::choice::{MAX_ENUM_MEMBERS, MAX_SET_MEMBERS};
use quire_engine::row::{Choice, Column, ColumnType, Members, Value};
use sqlparser::ast;

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::Env;
use crate::store::Place;

/// The ENUM / SET type a parser type spells, if it is one. Trailing spaces
/// are removed from member names (as MySQL does); a SET member may not
/// contain a comma (1367); too many members is 1097. Duplicates depend
/// on the collation: see [`check_members`].
pub fn declared(dt: &ast::DataType, name: &str) -> Option<Result<ColumnType>> {
    let (set, names): (bool, Vec<String>) = match dt {
        ast::DataType::Enum(members, None) => {
            let mut names = Vec::with_capacity(members.len());
            for m in members {
                match m {
                    ast::EnumMember::Name(n) => names.push(n.clone()),
                    ast::EnumMember::NamedValue(..) => {
                        return Some(Err(SqlError::syntax(format!("ENUM member with a value for column '{name}'"))))
                    }
                }
            }
            (false, names)
        }
        ast::DataType::Set(names) => (true, names.clone()),
        _ => return None,
    };
    Some(members_type(set, names, name))
}

fn members_type(set: bool, names: Vec<String>, column: &str) -> Result<ColumnType> {
    let names: Vec<String> = names.into_iter().map(|n| n.trim_end_matches(' ').to_string()).collect();
    if set && names.len() > MAX_SET_MEMBERS {
        return Err(SqlError::new(1097, "HY000", format!("Too many strings for column {column} and SET")));
    }
    if !set && names.len() > MAX_ENUM_MEMBERS {
        return Err(SqlError::new(1097, "HY000", format!("Too many enumeration values for column {column}.")));
    }
    if set {
        if let Some(bad) = names.iter().find(|n| n.contains(',')) {
            return Err(SqlError::new(1367, "22007", format!("Illegal set '{bad}' value found during parsing")));
        }
    }
    let members = Members::intern(set, names);
    Ok(if set { ColumnType::Set { members } } else { ColumnType::Enum { members } })
}

/// 1291 when two members of `col` are equal under its collation (MariaDB
/// names the first of them).
pub fn check_members(col: &Column) -> Result<()> {
    let Some(m) = col.ty.members() else { return Ok(()) };
    for (i, a) in m.names.iter().enumerate() {
        let same = |b: &&String| quire_engine::row::collation::compare(col.collation, a, b).is_eq();
        if let Some(first) = m.names[..i].iter().find(same) {
            let kind = if m.set { "SET" } else { "ENUM" };
            return Err(SqlError::new(
                1291,
                "HY000",
                format!("Column '{}' has duplicated value '{first}' in {kind}", col.name),
            ));
        }
    }
    Ok(())
}

/// A DEFAULT for an ENUM / SET column: text naming its members (a number
/// is 1067, as MariaDB has it), already a value of the column.
pub fn default_value(col: &Column, v: Value) -> Option<Value> {
    let members = col.ty.members()?;
    match v {
        Value::Str(_) | Value::Bytes(_) => quire_engine::row::coerce_choice(members, col.collation, v),
        _ => None,
    }
}

/// The value a NOT NULL column takes when it gets none usable: an ENUM's
/// first member, a SET's empty set (MariaDB's).
pub fn implicit_default(members: &'static Members) -> Value {
    Value::Choice(Choice { n: u64::from(!members.set), members })
}

/// Converts non-NULL `v` for ENUM / SET column `col` (see the table above).
pub fn assign(col: &Column, members: &'static Members, v: Value, at: Place<'_>, env: &dyn Env) -> Result<Value> {
    let truncated = || {
        env.warn(Condition::new(
            Level::Warning,
            1265,
            format!("Data truncated for column '{}' at row {}", col.name, at.row),
        ))
    };
    let choice = |n: u64| Value::Choice(Choice { n, members });
    let number = match &v {
        Value::Choice(c) if std::ptr::eq(c.members, members) => return Ok(v),
        Value::Int(i) => Some(*i as u64),
        Value::UInt(u) => Some(*u),
        Value::Decimal(d) => Some(d.truncate_to(0).coef as i64 as u64),
        Value::Double(f) => Some(f.trunc() as i64 as u64),
        _ => None,
    };
    if let Some(n) = number {
        if members.set {
            if !members.holds(n) {
                truncated()?;
            }
            return Ok(choice(n & members.mask()));
        }
        if n == 0 || n > members.len() as u64 {
            truncated()?;
            return Ok(choice(0));
        }
        return Ok(choice(n));
    }
    let text = crate::expr::as_string(&v);
    let digits = |s: &str, max_len: usize| {
        (!s.is_empty() && s.len() < max_len && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    if members.set {
        let (bits, all) = members.parse_set(col.collation, &text);
        if bits == 0 && !text.is_empty() {
            return match digits(&text, 22).filter(|&n| members.holds(n)) {
                Some(n) => Ok(choice(n)),
                None => truncated().map(|_| choice(0)),
            };
        }
        if !all {
            truncated()?;
        }
        return Ok(choice(bits));
    }
    if let Some(i) = members.find(col.collation, &text) {
        return Ok(choice(i));
    }
    match digits(text.trim_end_matches(' '), 6).filter(|&n| n <= members.len() as u64) {
        Some(n) => Ok(choice(n)),
        None => truncated().map(|_| choice(0)),
    }
}
