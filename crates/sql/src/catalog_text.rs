//! Definitions kept as text in the catalog (triggers, stored routines):
//! an engine table (`db`, `name`, `part`, `text`), one definition per
//! (db, name) cut into chunks of at most [`CHUNK`] characters, `part`
//! zero-padded. A change (definitions deleted and written) is one engine
//! transaction, so it is as crash-safe as any commit. The table is
//! created when missing: catalogs of older versions open empty.
//!
//! A definition's fields are encoded by [`encode`]: `<version>|` then
//! each field as `<bytes>:<text>`.

use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use quire_engine::Engine;

use crate::error::Result;

/// Characters of an encoded definition per row.
const CHUNK: usize = 256;

/// One stored definition: its key and its encoded text.
pub struct Entry<'a> {
    pub db: &'a str,
    pub name: &'a str,
    pub text: String,
}

fn varchar(name: &str, len: u32) -> Column {
    Column::new(name, ColumnType::Varchar { len }).not_null()
}

/// The definitions of `table` (created when missing, with names of at
/// most `name_len` characters), by (db, name).
pub fn open(
    engine: &Engine,
    table: &str,
    name_len: u32,
) -> Result<std::collections::BTreeMap<(String, String), String>> {
    if !engine.table_names().iter().any(|n| n == table) {
        engine.create_table(
            table,
            TableSchema {
                columns: vec![
                    varchar("db", 64),
                    varchar("name", name_len),
                    varchar("part", 8),
                    varchar("text", CHUNK as u32),
                ],
                primary_key: vec![0, 1, 2],
                indexes: vec![],
                ..Default::default()
            },
        )?;
    }
    let t = engine.table(table)?;
    let mut c = t.scan(
        quire_engine::table::IndexRef::Primary,
        std::ops::Bound::Unbounded,
        std::ops::Bound::Unbounded,
        quire_engine::btree::Direction::Forward,
    )?;
    let mut texts: std::collections::BTreeMap<(String, String), String> = Default::default();
    for r in c.collect_all()? {
        let key = (text(&r[0]), text(&r[1]));
        texts.entry(key).or_default().push_str(&text(&r[3]));
    }
    Ok(texts)
}

fn text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => other.to_string(),
    }
}

/// In one transaction: deletes the rows of `gone` (each with the text it
/// was stored with), writes `put` (replacing what was stored under the
/// same key).
pub fn write(engine: &Engine, table: &str, gone: &[Entry<'_>], put: &[Entry<'_>]) -> Result<()> {
    let t = engine.table(table)?;
    let mut trx = engine.begin(quire_engine::txn::Isolation::RepeatableRead);
    let r = (|| -> Result<()> {
        for d in gone {
            let n = d.text.chars().count().div_ceil(CHUNK).max(1);
            for i in 0..n {
                let pk = [Value::Str(d.db.to_string()), Value::Str(d.name.to_string()), Value::Str(format!("{i:08}"))];
                t.delete_tx(&mut trx, &pk)?;
            }
        }
        for d in put {
            let chars: Vec<char> = d.text.chars().collect();
            for (i, chunk) in chars.chunks(CHUNK).enumerate() {
                let row = vec![
                    Value::Str(d.db.to_string()),
                    Value::Str(d.name.to_string()),
                    Value::Str(format!("{i:08}")),
                    Value::Str(chunk.iter().collect()),
                ];
                t.insert_tx(&mut trx, row)?;
            }
        }
        Ok(())
    })();
    match r {
        Ok(()) => Ok(trx.commit()?),
        Err(e) => {
            let _ = trx.rollback();
            Err(e)
        }
    }
}

/// `version|` then each field as `<bytes>:<text>`.
pub fn encode(version: u32, fields: &[&str]) -> String {
    let mut s = format!("{version}|");
    for f in fields {
        s.push_str(&format!("{}:{f}", f.len()));
    }
    s
}

/// The fields [`encode`] wrote under `version`; `None` for another
/// version or a damaged text.
pub fn decode(version: u32, s: &str) -> Option<Vec<String>> {
    let mut rest = s.strip_prefix(&format!("{version}|"))?;
    let mut f = Vec::new();
    while !rest.is_empty() {
        let (n, r) = rest.split_once(':')?;
        let n: usize = n.parse().ok()?;
        f.push(r.get(..n)?.to_string());
        rest = &r[n..];
    }
    Some(f)
}
