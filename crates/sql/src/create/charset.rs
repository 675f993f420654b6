//! Character sets and collations of CREATE TABLE: the table's
//! `[DEFAULT] CHARSET` / `[DEFAULT] COLLATE` and each string column's
//! `CHARACTER SET` / `COLLATE`, checked as MariaDB does: an unknown
//! character set is 1115, an unknown collation 1273, a collation of another
//! character set 1253. A string column without either takes the table's
//! collation; the table's default is utf8mb4_general_ci.
//!
//! The table's default is stored when CREATE TABLE names one
//! (`TableExtras::default_collation`, catalog section 62): SHOW CREATE
//! TABLE prints it and the CHARACTER SET / COLLATE of every column that
//! differs, and a string column ALTER TABLE adds or redefines without
//! either takes it. Tables created before it was stored, or without the
//! option, have utf8mb4_general_ci.

use quire_engine::row::{Collation, Column, TableExtras};
use sqlparser::ast;

use crate::error::{Result, SqlError};

/// The collation named `name`, or 1273.
pub fn collation(name: &str) -> Result<Collation> {
    let name = name.trim_matches(|c| c == '\'' || c == '"' || c == '`');
    Collation::from_name(name).ok_or_else(|| SqlError::new(1273, "HY000", format!("Unknown collation: '{name}'")))
}

/// The default collation of character set `name`, or 1115.
pub fn charset(name: &str) -> Result<Collation> {
    let name = name.trim_matches(|c| c == '\'' || c == '"' || c == '`');
    Collation::default_for_charset(name)
        .ok_or_else(|| SqlError::new(1115, "42000", format!("Unknown character set: '{name}'")))
}

/// `CHARACTER SET cs COLLATE coll`, either part optional: the collation
/// both name (1253 when `coll` is not of `cs`).
pub fn resolve(cs: Option<&str>, coll: Option<&str>) -> Result<Option<Collation>> {
    let by_cs = cs.map(charset).transpose()?;
    let by_coll = coll.map(collation).transpose()?;
    match (by_cs, by_coll) {
        (Some(a), Some(b)) if a.charset() != b.charset() && cs.is_some_and(|c| !c.eq_ignore_ascii_case("binary")) => {
            Err(SqlError::new(
                1253,
                "42000",
                format!("COLLATION '{}' is not valid for CHARACTER SET '{}'", b.name(), cs.unwrap_or_default()),
            ))
        }
        (_, Some(b)) => Ok(Some(b)),
        (a, None) => Ok(a),
    }
}

/// The table's default collation from its options.
pub fn table_default(ct: &ast::CreateTable) -> Result<Collation> {
    Ok(table_option(ct)?.unwrap_or(Collation::Utf8mb4GeneralCi))
}

/// The table's `[DEFAULT] CHARSET` / `COLLATE` options, if it has any.
pub fn table_option(ct: &ast::CreateTable) -> Result<Option<Collation>> {
    let opts: &[ast::SqlOption] = match &ct.table_options {
        ast::CreateTableOptions::Plain(o) | ast::CreateTableOptions::With(o) | ast::CreateTableOptions::Options(o) => o,
        _ => &[],
    };
    let (mut cs, mut coll) = (None, None);
    for o in opts {
        if let ast::SqlOption::KeyValue { key, value } = o {
            let k = key.value.to_ascii_uppercase();
            let v = value.to_string();
            match k.trim_start_matches("DEFAULT ") {
                "CHARSET" | "CHARACTER SET" => cs = Some(v),
                "COLLATE" => coll = Some(v),
                _ => {}
            }
        }
    }
    resolve(cs.as_deref(), coll.as_deref())
}

/// Sets `col`'s collation from its definition's options (a string column
/// without any takes `table`'s).
pub fn apply_column(col: &mut Column, options: &[ast::ColumnOptionDef], table: Collation) -> Result<()> {
    let (mut cs, mut coll, mut binary) = (None, None, false);
    for o in options {
        match &o.option {
            ast::ColumnOption::CharacterSet(n) => cs = Some(n.to_string()),
            ast::ColumnOption::Collation(n) => coll = Some(n.to_string()),
            o if super::binary_collation::is_mark(o) => binary = true,
            _ => {}
        }
    }
    let mut chosen = resolve(cs.as_deref(), coll.as_deref())?;
    if binary && coll.is_none() {
        // The BINARY attribute: the `_bin` collation of the character set.
        let of = chosen.unwrap_or(table);
        chosen = Some(collation(&format!("{}_bin", of.charset()))?);
    }
    if col.ty.is_string() || col.ty.members().is_some() {
        col.collation = chosen.unwrap_or(table);
    }
    Ok(())
}

/// The table's default collation: the stored one, else
/// utf8mb4_general_ci (every column of another collation prints its
/// CHARACTER SET and COLLATE, so SHOW CREATE TABLE's text re-creates the
/// same columns either way).
pub fn table_collation(extras: &TableExtras) -> Collation {
    extras.default_collation.unwrap_or(Collation::Utf8mb4GeneralCi)
}

/// The CHARACTER SET / COLLATE SHOW CREATE TABLE prints for a string
/// column of collation `c` in a table whose default is `table` (as
/// MariaDB 10.11: nothing when equal, else both).
pub fn column_clause(c: Collation, table: Collation) -> String {
    if c == table {
        String::new()
    } else {
        format!(" CHARACTER SET {} COLLATE {}", c.charset(), c.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_and_mismatches_are_refused_with_mysql_codes() {
        assert_eq!(resolve(Some("latin1"), None).unwrap(), Some(Collation::Latin1SwedishCi));
        assert_eq!(resolve(Some("utf8mb4"), Some("utf8mb4_0900_ai_ci")).unwrap(), Some(Collation::Utf8mb40900AiCi));
        assert_eq!(resolve(Some("latin1"), Some("utf8mb4_bin")).unwrap_err().code, 1253);
        assert_eq!(resolve(None, Some("utf8mb4_nonesuch")).unwrap_err().code, 1273);
        assert_eq!(resolve(Some("klingon"), None).unwrap_err().code, 1115);
    }

    #[test]
    fn show_create_prints_what_differs_from_the_table_default() {
        let g = Collation::Utf8mb4GeneralCi;
        assert_eq!(column_clause(g, g), "");
        assert_eq!(column_clause(Collation::Utf8mb4UnicodeCi, g), " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
        assert_eq!(column_clause(Collation::Latin1Bin, g), " CHARACTER SET latin1 COLLATE latin1_bin");
    }
}
