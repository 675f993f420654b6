//! INNODB_TABLES and INNODB_INDEXES: the engine's data dictionary, every
//! table of every database (as InnoDB lists them to a PROCESS holder,
//! whatever its database grants), in name order.
//!
//! quire's identifiers stand where InnoDB's do: a table is identified by
//! its tablespace id (quire gives each table its own space and keeps no
//! other table id), an index by the index id its pages and locks carry.
//! The other columns say what quire's tables are in InnoDB's terms:
//! - FLAG 33 is InnoDB's DICT_TF for ROW_FORMAT=DYNAMIC (compact, atomic
//!   blobs), the row format information_schema.TABLES reports, with no
//!   compression (ZIP_PAGE_SIZE 0) in a file-per-table space ('Single');
//! - N_COLS counts InnoDB's three system columns with the table's
//!   (DB_ROW_ID, DB_TRX_ID, DB_ROLL_PTR: each record of quire carries a
//!   transaction id and a roll pointer, and a row id when the table has no
//!   key);
//! - INSTANT_COLS is 0, as MySQL 8.0.29+ shows it for tables altered
//!   instantly since then; TOTAL_ROW_VERSIONS is 0 too, which is wrong for
//!   a table with instantly added columns (`row::instant`): quire's row
//!   format does not record how many instant ALTERs made them (a row
//!   shorter than the schema reads the added columns' defaults), so the
//!   count is not known;
//! - TYPE is DICT_CLUSTERED (1) | DICT_UNIQUE (2): 3 for a clustered key,
//!   1 for the hidden GEN_CLUST_INDEX, 2 / 0 for unique / other secondary
//!   indexes; N_FIELDS the fields of an index record as InnoDB counts them
//!   (the key, then for the clustered index the transaction id, roll
//!   pointer and the other columns, for a secondary one the primary key
//!   columns it lacks); PAGE_NO the root page; MERGE_THRESHOLD the fill
//!   below which quire merges a node (`btree::MERGE_THRESHOLD_PCT`).
//!
//! INNODB_COLUMNS lists each table's columns (not the system ones, as
//! InnoDB) with POS their 0-based position and MTYPE / PRTYPE / LEN the
//! type InnoDB's dictionary records for a column of the same SQL type
//! ([`innodb_type`]), so that a DBA's decoding of them holds: the same
//! numbers MariaDB's INNODB_SYS_COLUMNS shows (JSON excepted: MySQL
//! 8.0's, quire's JSON being MySQL's type). HAS_DEFAULT / DEFAULT_VALUE
//! are MySQL 8.0's: 1 and the default's bytes in hex for a column added
//! instantly (`row::instant`: rows written before it read that value),
//! as quire's row format stores the field (`row::codec::encode_field`),
//! NULL for a NULL default; 0 and NULL for every other column.

use quire_engine::btree::MERGE_THRESHOLD_PCT;
use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use quire_engine::Table;

use super::{s, u};
use crate::session::Session;

/// InnoDB's DICT_TF for ROW_FORMAT=DYNAMIC.
const DYNAMIC_FLAG: i64 = 33;
/// DB_ROW_ID, DB_TRX_ID, DB_ROLL_PTR.
const SYSTEM_COLUMNS: usize = 3;

/// Every table, by name (`db/table`), that opens.
fn all_tables(sess: &Session) -> Vec<(String, std::sync::Arc<Table>)> {
    let e = sess.engine();
    let mut names = e.table_names();
    names.sort();
    names
        .into_iter()
        .filter(|n| n.split_once('/').is_some_and(|(db, t)| !crate::catalog::is_unlisted(db, t)))
        .filter_map(|n| e.table(&n).ok().map(|t| (n, t)))
        .collect()
}

pub(super) fn tables(sess: &Session) -> Vec<Vec<Value>> {
    all_tables(sess)
        .into_iter()
        .map(|(name, t)| {
            let schema = t.schema();
            vec![
                u(t.space_id().into()),
                Value::Str(name),
                Value::Int(DYNAMIC_FLAG),
                Value::Int((schema.visible_columns().len() + SYSTEM_COLUMNS) as i64),
                Value::Int(t.space_id().into()),
                s("Dynamic"),
                u(0),
                s("Single"),
                Value::Int(0),
                Value::Int(0),
            ]
        })
        .collect()
}

pub(super) fn indexes(sess: &Session) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (_, t) in all_tables(sess) {
        let schema = t.schema();
        let space = t.space_id();
        for ix in t.index_layout() {
            let (name, kind, fields) = match ix.secondary {
                None => {
                    let kind = if schema.has_row_id() { 1 } else { 3 };
                    (schema.primary_name().to_string(), kind, clustered_fields(&schema))
                }
                Some(i) => match schema.indexes.get(i) {
                    Some(def) => {
                        let pk_missing = schema.primary_key.iter().filter(|c| !def.columns.contains(c)).count();
                        (def.name.clone(), if def.unique { 2 } else { 0 }, def.columns.len() + pk_missing)
                    }
                    None => continue, // changed under us
                },
            };
            out.push(vec![
                u(ix.index_id.into()),
                Value::Str(name),
                u(space.into()),
                Value::Int(kind),
                Value::Int(fields as i64),
                Value::Int(ix.root_page.into()),
                Value::Int(space.into()),
                Value::Int(MERGE_THRESHOLD_PCT.into()),
            ]);
        }
    }
    out
}

/// The clustered index record's fields: the key, the transaction id and
/// roll pointer, then every other column.
fn clustered_fields(schema: &TableSchema) -> usize {
    // `columns` includes the hidden row id (the key) when there is one.
    schema.columns.len() + 2
}

pub(super) fn columns(sess: &Session) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (_, t) in all_tables(sess) {
        let schema = t.schema();
        let space = t.space_id();
        for (pos, c) in schema.visible_columns().iter().enumerate() {
            let (mtype, prtype, len) = innodb_type(c);
            let default = c.instant_default.as_ref().map(|v| match v {
                Value::Null => Value::Null,
                v => {
                    let mut field = Vec::new();
                    quire_engine::row::codec::encode_field(c.ty, v, &mut field);
                    Value::Str(field.iter().map(|b| format!("{b:02x}")).collect())
                }
            });
            out.push(vec![
                u(space.into()),
                Value::Str(c.name.clone()),
                u(pos as u64),
                Value::Int(mtype),
                Value::Int(prtype),
                Value::Int(len),
                Value::Int(default.is_some().into()),
                default.unwrap_or(Value::Null),
            ]);
        }
    }
    out
}

// InnoDB's main types (data0type.h).
const DATA_VARCHAR: i64 = 1;
const DATA_CHAR: i64 = 2;
const DATA_FIXBINARY: i64 = 3;
const DATA_BINARY: i64 = 4;
const DATA_BLOB: i64 = 5;
const DATA_INT: i64 = 6;
const DATA_FLOAT: i64 = 9;
const DATA_DOUBLE: i64 = 10;
const DATA_VARMYSQL: i64 = 12;
const DATA_MYSQL: i64 = 13;
// PRTYPE's flags above the MySQL type code.
const DATA_NOT_NULL: i64 = 256;
const DATA_UNSIGNED: i64 = 512;
const DATA_BINARY_TYPE: i64 = 1024;
const DATA_LONG_TRUE_VARCHAR: i64 = 4096;
// MySQL's field type codes (`enum_field_types`), as `Field::type()`
// reports them (every BLOB / TEXT is MYSQL_TYPE_BLOB, ENUM and SET are
// MYSQL_TYPE_STRING).
const TYPE_TINY: i64 = 1;
const TYPE_SHORT: i64 = 2;
const TYPE_LONG: i64 = 3;
const TYPE_FLOAT: i64 = 4;
const TYPE_DOUBLE: i64 = 5;
const TYPE_TIMESTAMP: i64 = 7;
const TYPE_LONGLONG: i64 = 8;
const TYPE_INT24: i64 = 9;
const TYPE_DATE: i64 = 10;
const TYPE_TIME: i64 = 11;
const TYPE_DATETIME: i64 = 12;
const TYPE_YEAR: i64 = 13;
const TYPE_VARCHAR: i64 = 15;
const TYPE_BIT: i64 = 16;
const TYPE_JSON: i64 = 245;
const TYPE_NEWDECIMAL: i64 = 246;
const TYPE_BLOB: i64 = 252;
const TYPE_STRING: i64 = 254;
/// The `binary` character set's collation id.
const BINARY_COLLATION: i64 = 63;
/// `my_charset_numeric` (latin1), the collation InnoDB records for
/// numbers and times it stores as DATA_FIXBINARY.
const NUMERIC_COLLATION: i64 = 8;

/// (MTYPE, PRTYPE, LEN) as InnoDB's `create_table_def` records a column
/// of `c`'s type: PRTYPE is the collation id << 16 (string-like main
/// types only), NOT NULL / UNSIGNED / binary flags, and the MySQL type
/// code; LEN the bytes of a fixed field or the most a variable one holds.
pub(super) fn innodb_type(c: &Column) -> (i64, i64, i64) {
    use ColumnType as C;
    let bytes_per_char = if c.collation.charset() == "latin1" { 1 } else { 4 };
    // A non-binary string column: DATA_CHAR / DATA_VARCHAR under
    // latin1_swedish_ci, else the DATA_MYSQL / DATA_VARMYSQL types.
    let swedish = c.collation.id() == 8;
    let text_collation = i64::from(c.collation.id()) << 16;
    let binary = (BINARY_COLLATION << 16) | DATA_BINARY_TYPE;
    let numeric = (NUMERIC_COLLATION << 16) | DATA_BINARY_TYPE;
    let int = |code: i64, unsigned: bool, len: i64| {
        (DATA_INT, DATA_BINARY_TYPE | if unsigned { DATA_UNSIGNED } else { 0 } | code, len)
    };
    let frac_bytes = |fsp: u8| (i64::from(fsp) + 1) / 2;
    let (mtype, prtype, len) = match c.ty {
        C::TinyInt { unsigned } | C::TinyInt1 { unsigned } => int(TYPE_TINY, unsigned, 1),
        C::SmallInt { unsigned } => int(TYPE_SHORT, unsigned, 2),
        C::MediumInt { unsigned } => int(TYPE_INT24, unsigned, 3),
        C::Int { unsigned } => int(TYPE_LONG, unsigned, 4),
        C::BigInt { unsigned } => int(TYPE_LONGLONG, unsigned, 8),
        C::Decimal { precision, scale, unsigned } => {
            let unsigned = if unsigned { DATA_UNSIGNED } else { 0 };
            (DATA_FIXBINARY, numeric | unsigned | TYPE_NEWDECIMAL, decimal_bytes(precision, scale))
        }
        C::Float { unsigned, .. } => {
            (DATA_FLOAT, DATA_BINARY_TYPE | if unsigned { DATA_UNSIGNED } else { 0 } | TYPE_FLOAT, 4)
        }
        C::Double { unsigned, .. } => {
            (DATA_DOUBLE, DATA_BINARY_TYPE | if unsigned { DATA_UNSIGNED } else { 0 } | TYPE_DOUBLE, 8)
        }
        C::Char { len } => {
            let mtype = if swedish { DATA_CHAR } else { DATA_MYSQL };
            (mtype, text_collation | TYPE_STRING, i64::from(len) * bytes_per_char)
        }
        C::Varchar { len } => {
            let max = i64::from(len) * bytes_per_char;
            let long = if max > 255 { DATA_LONG_TRUE_VARCHAR } else { 0 };
            let mtype = if swedish { DATA_VARCHAR } else { DATA_VARMYSQL };
            (mtype, text_collation | long | TYPE_VARCHAR, max)
        }
        // TEXT: a 2-byte length and InnoDB's 8 bytes of BLOB reference.
        C::Text => (DATA_BLOB, text_collation | TYPE_BLOB, 10),
        C::Binary { len } => (DATA_FIXBINARY, binary | TYPE_STRING, i64::from(len)),
        C::VarBinary { len } => {
            let long = if len > 255 { DATA_LONG_TRUE_VARCHAR } else { 0 };
            (DATA_BINARY, binary | long | TYPE_VARCHAR, i64::from(len))
        }
        C::Blob { max_bytes } => {
            let length_bytes = match max_bytes {
                0..=255 => 1,
                256..=65_535 => 2,
                65_536..=16_777_215 => 3,
                _ => 4,
            };
            (DATA_BLOB, binary | TYPE_BLOB, length_bytes + 8)
        }
        // MySQL 8.0's JSON (quire's is MySQL's type, MariaDB's a LONGTEXT
        // alias): a binary BLOB of type MYSQL_TYPE_JSON.
        C::Json => (DATA_BLOB, binary | TYPE_JSON, 4 + 8),
        C::Date => (DATA_INT, DATA_BINARY_TYPE | TYPE_DATE, 3),
        C::DateTime { fsp } => (DATA_FIXBINARY, numeric | TYPE_DATETIME, 5 + frac_bytes(fsp)),
        C::Timestamp { fsp } => (DATA_FIXBINARY, numeric | DATA_UNSIGNED | TYPE_TIMESTAMP, 4 + frac_bytes(fsp)),
        C::Time { fsp } => (DATA_FIXBINARY, numeric | TYPE_TIME, 3 + frac_bytes(fsp)),
        C::Year => (DATA_INT, DATA_BINARY_TYPE | DATA_UNSIGNED | TYPE_YEAR, 1),
        C::Enum { members } | C::Set { members } => (DATA_INT, DATA_UNSIGNED | TYPE_STRING, members.width() as i64),
        C::Bit { bits } => {
            (DATA_FIXBINARY, binary | DATA_UNSIGNED | TYPE_BIT, quire_engine::row::bit::width(bits) as i64)
        }
    };
    (mtype, prtype | if c.nullable { 0 } else { DATA_NOT_NULL }, len)
}

/// The bytes of MySQL's binary DECIMAL(precision, scale): 4 per 9 digits
/// on each side of the point, fewer for the rest (`decimal_bin_size`).
fn decimal_bytes(precision: u8, scale: u8) -> i64 {
    const PART: [i64; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let side = |digits: u8| i64::from(digits / 9) * 4 + PART[usize::from(digits % 9)];
    side(precision.saturating_sub(scale)) + side(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_sizes_are_mysqls() {
        assert_eq!(decimal_bytes(10, 2), 5);
        assert_eq!(decimal_bytes(18, 9), 8);
        assert_eq!(decimal_bytes(65, 30), 30);
    }

    #[test]
    fn an_int_primary_key_is_innodbs_1283() {
        let c = Column::new("id", ColumnType::Int { unsigned: false }).not_null();
        assert_eq!(innodb_type(&c), (DATA_INT, 1283, 4));
    }
}
