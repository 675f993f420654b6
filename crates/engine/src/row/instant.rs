//! Instant ADD COLUMN (InnoDB's `ALGORITHM=INSTANT`, MySQL 8.0.12+): new
//! columns appended to a table by changing only its catalog entry, no row
//! rewritten (docs/FORMAT.md, "Rows" and catalog tag 63).
//!
//! A schema's *instant columns* are those with
//! [`Column::instant_default`] set; its *core columns* are the others.
//!
//! Invariants:
//! 1. Instant columns are a suffix of `TableSchema::columns`: a table
//!    with any has its last column instant, so one look at the last
//!    column tells whether a table has them (no work on the row hot path
//!    of tables without).
//! 2. A table clustered on the hidden row id has none (its last column is
//!    `DB_ROW_ID`, which rows store last).
//! 3. A row of format version 1 holds exactly the core columns' fields
//!    (in a table without instant columns, all of them); a row of format
//!    version 2 names its field count, at least the core count and at
//!    most all columns. Fields a row lacks read as their column's
//!    instant default.
//! 4. Every rebuild (ALTER TABLE's copy, TRUNCATE) writes rows of the full
//!    schema, so it clears the markers ([`clear`]): the table is then in
//!    the plain format again.

use super::{Column, TableSchema};

/// Whether the table has instant columns (invariant 1: O(1)).
#[inline]
pub fn has_instant(schema: &TableSchema) -> bool {
    schema.columns.last().is_some_and(|c| c.instant_default.is_some())
}

/// The number of core columns: the fields of a version 1 row.
pub fn core_fields(schema: &TableSchema) -> usize {
    schema.columns.iter().rposition(|c| c.instant_default.is_none()).map_or(0, |i| i + 1)
}

/// Forgets the instant markers (the rows are about to be written whole).
pub fn clear(schema: &mut TableSchema) {
    for c in &mut schema.columns {
        c.instant_default = None;
    }
}

/// Whether `columns` may replace `old`'s columns by a catalog write
/// alone: `old`'s columns with at most their DEFAULTs changed (a
/// column's instant default never changes), then any appended columns,
/// each with an instant default and not AUTO_INCREMENT, in a table not
/// clustered on a hidden row id (invariant 2). The reason when not.
pub fn check_columns(old: &TableSchema, columns: &[Column]) -> Result<(), String> {
    let n = old.columns.len();
    if columns.len() < n {
        return Err("a column would be dropped".into());
    }
    for (a, b) in old.columns.iter().zip(columns) {
        let mut b = b.clone();
        b.default = a.default.clone();
        if *a != b {
            return Err(format!("column '{}' changes beyond its default", a.name));
        }
    }
    let added = &columns[n..];
    if !added.is_empty() && old.has_row_id() {
        return Err("the table is clustered on a hidden row id".into());
    }
    if added.iter().any(|c| c.instant_default.is_none()) {
        return Err("an added column has no instant default".into());
    }
    if added.iter().any(|c| c.auto_increment) {
        return Err("an AUTO_INCREMENT column".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{ColumnType, Value};

    #[test]
    fn the_core_is_everything_before_the_instant_suffix() {
        let mut s = TableSchema {
            columns: vec![Column::new("a", ColumnType::Int { unsigned: false }).not_null()],
            primary_key: vec![0],
            ..Default::default()
        };
        assert!(!has_instant(&s));
        assert_eq!(core_fields(&s), 1);
        let mut b = Column::new("b", ColumnType::Int { unsigned: false });
        b.instant_default = Some(Value::Int(7));
        s.columns.push(b);
        assert!(has_instant(&s));
        assert_eq!(core_fields(&s), 1);
        clear(&mut s);
        assert!(!has_instant(&s));
        assert_eq!(core_fields(&s), 2);
    }

    fn int(name: &str) -> Column {
        Column::new(name, ColumnType::Int { unsigned: false })
    }

    fn instant(mut c: Column, v: Value) -> Column {
        c.instant_default = Some(v);
        c
    }

    #[test]
    fn rows_written_before_an_instant_add_read_its_defaults() {
        use crate::row::codec::{decode_row, decode_row_into, encode_row};
        let core =
            TableSchema { columns: vec![int("a").not_null(), int("b")], primary_key: vec![0], ..Default::default() };
        let mut old = Vec::new();
        encode_row(&core, &[Value::Int(1), Value::Null], &mut old);
        // One instant column, then a second one.
        let mut one = core.clone();
        one.columns.push(instant(Column::new("c", ColumnType::Varchar { len: 9 }), Value::Str("x".into())));
        let mut mid = Vec::new();
        encode_row(&one, &[Value::Int(2), Value::Int(3), Value::Str("y".into())], &mut mid);
        assert_eq!(mid[0], crate::row::codec::ROW_FORMAT_VERSION_COUNTED);
        let mut two = one.clone();
        two.columns.push(instant(int("d"), Value::Null));
        two.columns[2].default = Some(Value::Str("changed later".into()));
        assert_eq!(
            decode_row(&two, &old).unwrap(),
            vec![Value::Int(1), Value::Null, Value::Str("x".into()), Value::Null]
        );
        assert_eq!(
            decode_row(&two, &mid).unwrap(),
            vec![Value::Int(2), Value::Int(3), Value::Str("y".into()), Value::Null]
        );
        let mut new = Vec::new();
        let full = vec![Value::Int(4), Value::Int(5), Value::Null, Value::Int(6)];
        encode_row(&two, &full, &mut new);
        assert_eq!(decode_row(&two, &new).unwrap(), full);
        // Only some columns: the missing ones not needed read as NULL.
        let mut out = Vec::new();
        assert!(decode_row_into(&two, &old, Some(&[true, false, false, true]), &mut out));
        assert_eq!(out, vec![Value::Int(1), Value::Null, Value::Null, Value::Null]);
        // A count below the core or above the schema is corruption.
        let mut short = mid.clone();
        short[1] = 1;
        assert!(decode_row(&two, &short).is_none());
        let mut long = new.clone();
        long[1] = 5;
        assert!(decode_row(&two, &long).is_none());
        // Without instant columns the table writes version 1, as always.
        let mut plain = two.clone();
        clear(&mut plain);
        let mut b = Vec::new();
        encode_row(&plain, &full, &mut b);
        assert_eq!(b[0], crate::row::codec::ROW_FORMAT_VERSION);
        assert_eq!(decode_row(&plain, &b).unwrap(), full);
    }
}
