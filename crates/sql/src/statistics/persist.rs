//! Statistics on disk, where MySQL 8.0 keeps them: `mysql.innodb_table_stats`
//! and `mysql.innodb_index_stats`, engine tables with MySQL 8.0's columns
//! (readable, like any table, by SELECT):
//!
//! ```text
//! innodb_table_stats  database_name, table_name, last_update, n_rows,
//!                     clustered_index_size, sum_of_other_index_sizes
//!                     PRIMARY KEY (database_name, table_name)
//! innodb_index_stats  database_name, table_name, index_name, last_update,
//!                     stat_name, stat_value, sample_size, stat_description
//!                     PRIMARY KEY (database_name, table_name, index_name, stat_name)
//! ```
//!
//! Per index the rows are InnoDB's: `n_diff_pfxNN` (distinct values of the
//! first NN columns; description: the column names joined by `,`, sample
//! size: leaf pages read), `n_leaf_pages` and `size` (sample size NULL).
//! A table's rows are replaced in one transaction, so a crash leaves the
//! old statistics or the new ones. Database and table names compare as
//! bytes (MySQL's utf8mb3_bin), index and statistic names without case
//! (as MySQL compares index names). `table_name` is VARCHAR(64), not
//! MySQL's 199 (room for partition suffixes quire does not have): the
//! primary keys must fit a key of the smallest page size (4 KiB).

use std::ops::Bound;

use quire_engine::btree::Direction;
use quire_engine::row::{Collation, Column, ColumnType, TableSchema, Value};
use quire_engine::table::{IndexRef, IndexStats, TableStats};
use quire_engine::txn::Isolation;
use quire_engine::Engine;

use crate::error::Result;

pub const TABLE_STATS: &str = "mysql/innodb_table_stats";
pub const INDEX_STATS: &str = "mysql/innodb_index_stats";

fn name_col(name: &str, len: u32) -> Column {
    Column::new(name, ColumnType::Varchar { len }).not_null().collation(Collation::Utf8mb4Bin)
}

fn ci_col(name: &str, len: u32) -> Column {
    Column::new(name, ColumnType::Varchar { len }).not_null()
}

fn count_col(name: &str) -> Column {
    Column::new(name, ColumnType::BigInt { unsigned: true }).not_null()
}

fn last_update() -> Column {
    Column::new("last_update", ColumnType::Timestamp { fsp: 0 }).not_null()
}

/// Creates both tables if they are missing.
pub fn create_tables(engine: &Engine) -> Result<()> {
    let names = engine.table_names();
    if !names.iter().any(|n| n == TABLE_STATS) {
        let columns = vec![
            name_col("database_name", 64),
            name_col("table_name", 64),
            last_update(),
            count_col("n_rows"),
            count_col("clustered_index_size"),
            count_col("sum_of_other_index_sizes"),
        ];
        engine.create_table(
            TABLE_STATS,
            TableSchema { columns, primary_key: vec![0, 1], indexes: vec![], ..Default::default() },
        )?;
    }
    if !names.iter().any(|n| n == INDEX_STATS) {
        let columns = vec![
            name_col("database_name", 64),
            name_col("table_name", 64),
            ci_col("index_name", 64),
            last_update(),
            ci_col("stat_name", 64),
            count_col("stat_value"),
            Column::new("sample_size", ColumnType::BigInt { unsigned: true }),
            ci_col("stat_description", 1024),
        ];
        engine.create_table(
            INDEX_STATS,
            TableSchema { columns, primary_key: vec![0, 1, 2, 4], indexes: vec![], ..Default::default() },
        )?;
    }
    Ok(())
}

fn s(v: &str) -> Value {
    Value::Str(v.to_string())
}

fn text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => other.to_string(),
    }
}

fn count(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        Value::Int(i) => (*i).max(0) as u64,
        _ => 0,
    }
}

/// Primary keys of `table`'s rows for (db, name).
fn keys_of(engine: &Engine, table: &str, db: &str, name: &str) -> Result<Vec<Vec<Value>>> {
    let t = engine.table(table)?;
    let pk = t.schema().primary_key;
    let prefix = [s(db), s(name)];
    let mut c = t.scan(IndexRef::Primary, Bound::Included(&prefix), Bound::Included(&prefix), Direction::Forward)?;
    let mut out = Vec::new();
    while let Some(r) = c.next()? {
        out.push(pk.iter().map(|&i| r[i].clone()).collect());
    }
    Ok(out)
}

/// Replaces the rows of (db, name) with `st`.
pub fn save(engine: &Engine, db: &str, name: &str, st: &TableStats) -> Result<()> {
    let now = Value::DateTime(crate::func::now());
    let tt = engine.table(TABLE_STATS)?;
    let it = engine.table(INDEX_STATS)?;
    let old_t = keys_of(engine, TABLE_STATS, db, name)?;
    let old_i = keys_of(engine, INDEX_STATS, db, name)?;
    let mut trx = engine.begin(Isolation::RepeatableRead);
    let r = (|| -> Result<()> {
        for k in &old_t {
            tt.delete_tx(&mut trx, k)?;
        }
        for k in &old_i {
            it.delete_tx(&mut trx, k)?;
        }
        tt.insert_tx(
            &mut trx,
            vec![
                s(db),
                s(name),
                now.clone(),
                Value::UInt(st.n_rows),
                Value::UInt(st.clustered_index_size),
                Value::UInt(st.sum_of_other_index_sizes),
            ],
        )?;
        for ix in &st.indexes {
            let mut row = |stat: String, value: u64, sample: Option<u64>, desc: String| {
                it.insert_tx(
                    &mut trx,
                    vec![
                        s(db),
                        s(name),
                        s(&ix.name),
                        now.clone(),
                        Value::Str(stat),
                        Value::UInt(value),
                        sample.map_or(Value::Null, Value::UInt),
                        Value::Str(desc),
                    ],
                )
            };
            for (i, d) in ix.n_diff.iter().enumerate() {
                row(format!("n_diff_pfx{:02}", i + 1), *d, Some(ix.sample_pages), ix.columns[..=i].join(","))?;
            }
            row("n_leaf_pages".into(), ix.leaf_pages, None, "Number of leaf pages in the index".into())?;
            row("size".into(), ix.size_pages, None, "Number of pages in the index".into())?;
        }
        Ok(())
    })();
    match r {
        Ok(()) => Ok(trx.commit()?),
        Err(e) => {
            trx.rollback()?;
            Err(e)
        }
    }
}

/// Deletes the rows of (db, name) (DROP TABLE, TRUNCATE).
pub fn delete(engine: &Engine, db: &str, name: &str) -> Result<()> {
    let tt = engine.table(TABLE_STATS)?;
    let it = engine.table(INDEX_STATS)?;
    let old_t = keys_of(engine, TABLE_STATS, db, name)?;
    let old_i = keys_of(engine, INDEX_STATS, db, name)?;
    if old_t.is_empty() && old_i.is_empty() {
        return Ok(());
    }
    let mut trx = engine.begin(Isolation::RepeatableRead);
    for k in &old_t {
        tt.delete_tx(&mut trx, k)?;
    }
    for k in &old_i {
        it.delete_tx(&mut trx, k)?;
    }
    Ok(trx.commit()?)
}

/// The stored statistics of (db, name), if there are any for the table
/// and for each of its indexes (as `schema` names them).
pub fn load(engine: &Engine, db: &str, name: &str, schema: &TableSchema) -> Result<Option<TableStats>> {
    let prefix = [s(db), s(name)];
    let scan = |table: &str| -> Result<Vec<Vec<Value>>> {
        let t = engine.table(table)?;
        let mut c =
            t.scan(IndexRef::Primary, Bound::Included(&prefix), Bound::Included(&prefix), Direction::Forward)?;
        Ok(c.collect_all()?)
    };
    let Some(t) = scan(TABLE_STATS)?.into_iter().next() else { return Ok(None) };
    let mut indexes = Vec::new();
    let mut names = vec![schema.primary_name().to_string()];
    names.extend(schema.indexes.iter().map(|i| i.name.clone()));
    let rows = scan(INDEX_STATS)?;
    for ix in names {
        let mut st = IndexStats {
            name: ix.clone(),
            columns: Vec::new(),
            n_diff: Vec::new(),
            sample_pages: 0,
            leaf_pages: 0,
            size_pages: 0,
        };
        let mut found = false;
        for r in rows.iter().filter(|r| text(&r[2]) == ix) {
            found = true;
            let stat = text(&r[4]);
            let v = count(&r[5]);
            match stat.as_str() {
                "n_leaf_pages" => st.leaf_pages = v,
                "size" => st.size_pages = v,
                _ => {
                    if let Some(n) = stat.strip_prefix("n_diff_pfx").and_then(|n| n.parse::<usize>().ok()) {
                        // Rows come in key order, so pfx01, pfx02 ... in order.
                        if n == st.n_diff.len() + 1 {
                            st.n_diff.push(v);
                            st.sample_pages = count(&r[6]);
                            st.columns = text(&r[7]).split(',').map(str::to_string).collect();
                        }
                    }
                }
            }
        }
        if !found || st.n_diff.is_empty() {
            return Ok(None);
        }
        indexes.push(st);
    }
    Ok(Some(TableStats {
        n_rows: count(&t[3]),
        clustered_index_size: count(&t[4]),
        sum_of_other_index_sizes: count(&t[5]),
        indexes,
    }))
}
