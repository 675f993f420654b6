//! Trigger definitions in the catalog: engine table `mysql/quire_trigger`
//! (`catalog_text`), one definition per (db, name) encoded by
//! [`encode`]; every change of a DDL statement (the new trigger
//! and the renumbered orders of its neighbours, or a table's triggers
//! dropped) is written in one engine transaction, so it is as crash-safe
//! as any commit. The table is created when missing: catalogs of older
//! versions open with no triggers.
//!
//! Encoding (version 1): `1|` then each field as `<bytes>:<text>`, in
//! the order db, name, table, timing, event, order, definer, sql_mode,
//! created, body, character_set_client, collation_connection,
//! database_collation.

use quire_engine::Engine;

use super::{Event, Timing, TriggerDef};
use crate::catalog_text::{self, Entry};
use crate::error::{Result, SqlError};

pub const TABLE: &str = "mysql/quire_trigger";

/// Creates the table on a catalog that has none.
pub fn open(engine: &Engine) -> Result<Vec<TriggerDef>> {
    let mut out = Vec::new();
    for ((db, name), t) in catalog_text::open(engine, TABLE, 64)? {
        match decode(&t) {
            Some(d) => out.push(d),
            None => tracing::warn!("trigger {db}.{name}: unreadable definition in {TABLE}, ignored"),
        }
    }
    Ok(out)
}

pub fn encode(d: &TriggerDef) -> String {
    catalog_text::encode(
        1,
        &[
            d.db.as_str(),
            &d.name,
            &d.table,
            d.timing.name(),
            d.event.name(),
            &d.order.to_string(),
            &d.definer,
            &d.sql_mode,
            &d.created,
            &d.body,
            &d.character_set_client,
            &d.collation_connection,
            &d.database_collation,
        ],
    )
}

pub fn decode(s: &str) -> Option<TriggerDef> {
    let f = catalog_text::decode(1, s)?;
    let [db, name, table, timing, event, order, definer, sql_mode, created, body, cs, coll, dbcoll] =
        <[String; 13]>::try_from(f).ok()?;
    let timing = match timing.as_str() {
        "BEFORE" => Timing::Before,
        "AFTER" => Timing::After,
        _ => return None,
    };
    let event = match event.as_str() {
        "INSERT" => Event::Insert,
        "UPDATE" => Event::Update,
        "DELETE" => Event::Delete,
        _ => return None,
    };
    Some(TriggerDef {
        db,
        name,
        table,
        timing,
        event,
        order: order.parse().ok()?,
        definer,
        sql_mode,
        created,
        body,
        character_set_client: cs,
        collation_connection: coll,
        database_collation: dbcoll,
    })
}

/// In one transaction: deletes the rows of `gone` (as stored), writes
/// `put` (replacing what was stored under the same name).
pub fn write(engine: &Engine, gone: &[&TriggerDef], put: &[&TriggerDef]) -> Result<()> {
    fn entry<'a>(d: &&'a TriggerDef) -> Entry<'a> {
        Entry { db: &d.db, name: &d.name, text: encode(d) }
    }
    let gone: Vec<Entry<'_>> = gone.iter().map(entry).collect();
    let put: Vec<Entry<'_>> = put.iter().map(entry).collect();
    catalog_text::write(engine, TABLE, &gone, &put)
}

/// A definition that would not survive a round trip is refused (never
/// the case for text: kept for the test below and as a guard).
pub fn check(d: &TriggerDef) -> Result<()> {
    if decode(&encode(d)).as_ref() != Some(d) {
        return Err(SqlError::internal("trigger definition cannot be stored"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_round_trip_through_the_encoding() {
        let d = TriggerDef {
            db: "d".into(),
            name: "tr:1".into(),
            table: "t|x".into(),
            timing: Timing::After,
            event: Event::Delete,
            order: 3,
            definer: "root@localhost".into(),
            sql_mode: "STRICT_TRANS_TABLES".into(),
            created: "2026-01-01 00:00:00.00".into(),
            body: "BEGIN SET @a = '5:x'; -- é\nEND".into(),
            character_set_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_general_ci".into(),
            database_collation: "utf8mb4_general_ci".into(),
        };
        assert_eq!(decode(&encode(&d)), Some(d));
        assert_eq!(decode("2|x"), None);
        assert_eq!(decode("1|3:ab"), None);
    }
}
