//! TABLE_MAP and ROWS v2 events: a transaction's row changes as MySQL 8.0
//! logs them with `binlog_format=ROW`.
//!
//! Changes are cut into runs: consecutive changes of one table and one
//! kind (write, update, delete). Each run is logged as one "statement": a
//! TABLE_MAP, then ROWS events of at most [`MAX_ROWS_EVENT_BYTES`] of row
//! data, the last one flagged STMT_END_F (readers drop their table maps
//! there). `mariadb-binlog` turns each such statement into one `BINLOG`
//! statement, so runs also bound what a replay sends at once.
//!
//! Every ROWS event carries NO_FOREIGN_KEY_CHECKS_F: quire logs the rows a
//! FOREIGN KEY cascade changed as rows of their own (its cascades run in
//! the SQL layer), so an applier must not cascade them a second time nor
//! re-check constraints the source already enforced.
//!
//! The hidden row id of a table without a primary key is not logged (as
//! InnoDB's DB_ROW_ID is not).

use quire_engine::row::{Column, TableSchema, Value};

use crate::column;
use crate::event::{kind, put_packed, Events, Frame};

/// MySQL's `binlog_row_event_max_size` default.
pub const MAX_ROWS_EVENT_BYTES: usize = 8192;

const STMT_END_F: u16 = 0x0001;
const NO_FOREIGN_KEY_CHECKS_F: u16 = 0x0002;

/// `binlog_row_metadata`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowMetadata {
    Minimal,
    Full,
}

/// A table as the log names it.
#[derive(Clone, Debug)]
pub struct LoggedTable {
    /// The TABLE_MAP table id (unique among the tables open in the server).
    pub table_id: u64,
    pub db: String,
    pub name: String,
    pub schema: TableSchema,
}

impl LoggedTable {
    /// The columns the log shows (the hidden row id left out).
    pub fn columns(&self) -> &[Column] {
        self.schema.visible_columns()
    }
}

/// Optional metadata field types (MySQL `Optional_metadata_field_type`).
mod tlv {
    pub const SIGNEDNESS: u8 = 1;
    pub const COLUMN_CHARSET: u8 = 3;
    pub const COLUMN_NAME: u8 = 4;
    pub const SET_STR_VALUE: u8 = 5;
    pub const ENUM_STR_VALUE: u8 = 6;
    pub const SIMPLE_PRIMARY_KEY: u8 = 8;
    pub const ENUM_AND_SET_COLUMN_CHARSET: u8 = 11;
}

fn put_tlv(out: &mut Vec<u8>, ty: u8, v: &[u8]) {
    out.push(ty);
    put_packed(out, v.len() as u64);
    out.extend_from_slice(v);
}

fn bitmap(bits: impl Iterator<Item = bool>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, b) in bits.enumerate() {
        if i % 8 == 0 {
            out.push(0);
        }
        if b {
            *out.last_mut().expect("pushed") |= 0x80 >> (i % 8);
        }
    }
    out
}

/// TABLE_MAP (19).
pub fn table_map(ev: &mut Events, f: &Frame, t: &LoggedTable, meta: RowMetadata) {
    let s = ev.begin(f, kind::TABLE_MAP, 0);
    let b = &mut ev.bytes;
    b.extend_from_slice(&t.table_id.to_le_bytes()[..6]);
    b.extend_from_slice(&1u16.to_le_bytes()); // TM_BIT_LEN_EXACT_F
    for name in [&t.db, &t.name] {
        let n = &name.as_bytes()[..name.len().min(255)];
        b.push(n.len() as u8);
        b.extend_from_slice(n);
        b.push(0);
    }
    let cols = t.columns();
    put_packed(b, cols.len() as u64);
    b.extend(cols.iter().map(column::type_code));
    let mut m = Vec::with_capacity(cols.len() * 2);
    for c in cols {
        column::put_metadata(c, &mut m);
    }
    put_packed(b, m.len() as u64);
    b.extend_from_slice(&m);
    // The null bitmap is LSB first (unlike the optional metadata's).
    let mut nulls = vec![0u8; cols.len().div_ceil(8)];
    for (i, c) in cols.iter().enumerate() {
        if c.nullable {
            nulls[i / 8] |= 1 << (i % 8);
        }
    }
    b.extend_from_slice(&nulls);
    // Optional metadata, in ascending type order.
    let numeric: Vec<&Column> = cols.iter().filter(|c| column::is_numeric(c)).collect();
    if !numeric.is_empty() {
        put_tlv(b, tlv::SIGNEDNESS, &bitmap(numeric.iter().map(|c| column::is_unsigned(c))));
    }
    let mut cs = Vec::new();
    for c in cols {
        if let Some(id) = column::character_collation(c) {
            put_packed(&mut cs, u64::from(id));
        }
    }
    if !cs.is_empty() {
        put_tlv(b, tlv::COLUMN_CHARSET, &cs);
    }
    if meta == RowMetadata::Full {
        let mut names = Vec::new();
        for c in cols {
            put_packed(&mut names, c.name.len() as u64);
            names.extend_from_slice(c.name.as_bytes());
        }
        put_tlv(b, tlv::COLUMN_NAME, &names);
        for set in [true, false] {
            let mut v = Vec::new();
            for c in cols {
                let m = match c.ty {
                    quire_engine::row::ColumnType::Set { members } if set => members,
                    quire_engine::row::ColumnType::Enum { members } if !set => members,
                    _ => continue,
                };
                put_packed(&mut v, m.names.len() as u64);
                for n in &m.names {
                    put_packed(&mut v, n.len() as u64);
                    v.extend_from_slice(n.as_bytes());
                }
            }
            if !v.is_empty() {
                put_tlv(b, if set { tlv::SET_STR_VALUE } else { tlv::ENUM_STR_VALUE }, &v);
            }
        }
        if !t.schema.has_row_id() && !t.schema.primary_key.is_empty() {
            let mut pk = Vec::new();
            for &i in &t.schema.primary_key {
                put_packed(&mut pk, i as u64);
            }
            put_tlv(b, tlv::SIMPLE_PRIMARY_KEY, &pk);
        }
    }
    let mut es = Vec::new();
    for c in cols {
        if matches!(c.ty, quire_engine::row::ColumnType::Enum { .. } | quire_engine::row::ColumnType::Set { .. }) {
            put_packed(&mut es, u64::from(c.collation.id() as u16));
        }
    }
    if !es.is_empty() {
        put_tlv(b, tlv::ENUM_AND_SET_COLUMN_CHARSET, &es);
    }
    ev.finish(f, s, false);
}

/// The kind of a run of row changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowsKind {
    Write,
    Update,
    Delete,
}

impl RowsKind {
    fn code(self) -> u8 {
        match self {
            RowsKind::Write => kind::WRITE_ROWS,
            RowsKind::Update => kind::UPDATE_ROWS,
            RowsKind::Delete => kind::DELETE_ROWS,
        }
    }
}

/// Appends one row image over the `cols` present.
fn put_image(out: &mut Vec<u8>, t: &LoggedTable, cols: &[bool], row: &[Value]) {
    let columns = t.columns();
    let nulls = {
        let mut nb = vec![0u8; cols.iter().filter(|&&p| p).count().div_ceil(8)];
        let mut k = 0;
        for (i, &p) in cols.iter().enumerate() {
            if p {
                if row.get(i).is_none_or(Value::is_null) {
                    nb[k / 8] |= 1 << (k % 8);
                }
                k += 1;
            }
        }
        nb
    };
    out.extend_from_slice(&nulls);
    for (i, &p) in cols.iter().enumerate() {
        if p {
            if let Some(v) = row.get(i).filter(|v| !v.is_null()) {
                column::put_value(&columns[i], v, out);
            }
        }
    }
}

fn present_bitmap(cols: &[bool]) -> Vec<u8> {
    let mut nb = vec![0u8; cols.len().div_ceil(8)];
    for (i, &p) in cols.iter().enumerate() {
        if p {
            nb[i / 8] |= 1 << (i % 8);
        }
    }
    nb
}

/// One row change with decoded images (visible columns only).
pub struct RowPair<'a> {
    pub before: Option<&'a [Value]>,
    pub after: Option<&'a [Value]>,
}

/// Logs a run of changes of one kind to one table: TABLE_MAP, then ROWS
/// events cut at [`MAX_ROWS_EVENT_BYTES`], the last with STMT_END_F.
pub fn log_run(ev: &mut Events, f: &Frame, t: &LoggedTable, kind: RowsKind, rows: &[RowPair<'_>], meta: RowMetadata) {
    table_map(ev, f, t, meta);
    // binlog_row_image=FULL: both images carry every column.
    let before_cols = vec![true; t.columns().len()];
    let after_cols = before_cols.clone();
    let mut body = Vec::with_capacity(MAX_ROWS_EVENT_BYTES);
    let n = rows.len();
    for (i, r) in rows.iter().enumerate() {
        match kind {
            RowsKind::Write => put_image(&mut body, t, &after_cols, r.after.unwrap_or(&[])),
            RowsKind::Delete => put_image(&mut body, t, &before_cols, r.before.unwrap_or(&[])),
            RowsKind::Update => {
                put_image(&mut body, t, &before_cols, r.before.unwrap_or(&[]));
                put_image(&mut body, t, &after_cols, r.after.unwrap_or(&[]));
            }
        }
        if body.len() >= MAX_ROWS_EVENT_BYTES || i + 1 == n {
            rows_event(ev, f, t, kind, &before_cols, &after_cols, &body, i + 1 == n);
            body.clear();
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn rows_event(
    ev: &mut Events,
    f: &Frame,
    t: &LoggedTable,
    kind: RowsKind,
    before_cols: &[bool],
    after_cols: &[bool],
    body: &[u8],
    last: bool,
) {
    let s = ev.begin(f, kind.code(), 0);
    let b = &mut ev.bytes;
    b.extend_from_slice(&t.table_id.to_le_bytes()[..6]);
    let flags = NO_FOREIGN_KEY_CHECKS_F | if last { STMT_END_F } else { 0 };
    b.extend_from_slice(&flags.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes()); // no extra row info
    put_packed(b, t.columns().len() as u64);
    match kind {
        RowsKind::Write => b.extend_from_slice(&present_bitmap(after_cols)),
        RowsKind::Delete => b.extend_from_slice(&present_bitmap(before_cols)),
        RowsKind::Update => {
            b.extend_from_slice(&present_bitmap(before_cols));
            b.extend_from_slice(&present_bitmap(after_cols));
        }
    }
    b.extend_from_slice(body);
    ev.finish(f, s, false);
}
