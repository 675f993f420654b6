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
//! - INSTANT_COLS / TOTAL_ROW_VERSIONS are 0: ALTER TABLE in quire never
//!   adds a column instantly (it rebuilds);
//! - TYPE is DICT_CLUSTERED (1) | DICT_UNIQUE (2): 3 for a clustered key,
//!   1 for the hidden GEN_CLUST_INDEX, 2 / 0 for unique / other secondary
//!   indexes; N_FIELDS the fields of an index record as InnoDB counts them
//!   (the key, then for the clustered index the transaction id, roll
//!   pointer and the other columns, for a secondary one the primary key
//!   columns it lacks); PAGE_NO the root page; MERGE_THRESHOLD the fill
//!   below which quire merges a node (`btree::MERGE_THRESHOLD_PCT`).

use quire_engine::btree::MERGE_THRESHOLD_PCT;
use quire_engine::row::{TableSchema, Value};
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
