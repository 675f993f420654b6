//! Event definitions in the catalog: engine table `mysql/quire_event`
//! (`catalog_text`), keyed by (db, name lowercased). Each CREATE, ALTER
//! or DROP, and each change the scheduler makes (LAST_EXECUTED, an event
//! done), is one engine transaction, as crash-safe as any commit;
//! catalogs of older versions open with no events.
//!
//! Encoding (version 1, `catalog_text::encode`): db, name, definer,
//! time_zone, schedule kind (`AT` / `EVERY`), execute_at or interval
//! value, interval unit (empty for AT), starts, ends (empty: none),
//! preserve (`1` / `0`), status (`ENABLED` / `DISABLED` /
//! `SLAVESIDE_DISABLED`), comment, body, sql_mode, created, modified,
//! last_executed (empty: never), originator, character_set_client,
//! collation_connection, database_collation.

use quire_engine::Engine;

use super::schedule::Unit;
use super::{EventDef, Schedule, Status};
use crate::catalog_text::{self, Entry};
use crate::error::{Result, SqlError};

pub const TABLE: &str = "mysql/quire_event";

/// Creates the table on a catalog that has none.
pub fn open(engine: &Engine) -> Result<Vec<EventDef>> {
    let mut out = Vec::new();
    for ((db, name), t) in catalog_text::open(engine, TABLE, 64)? {
        match decode(&t) {
            Some(d) => out.push(d),
            None => tracing::warn!("event {db}.{name}: unreadable definition in {TABLE}, ignored"),
        }
    }
    Ok(out)
}

pub fn encode(d: &EventDef) -> String {
    let (kind, at_or_value, unit, starts, ends) = match &d.schedule {
        Schedule::At(at) => ("AT", at.as_str(), "", "", ""),
        Schedule::Every { value, unit, starts, ends } => {
            ("EVERY", value.as_str(), unit.name(), starts.as_str(), ends.as_deref().unwrap_or(""))
        }
    };
    let originator = d.originator.to_string();
    catalog_text::encode(
        1,
        &[
            d.db.as_str(),
            &d.name,
            &d.definer,
            &d.time_zone,
            kind,
            at_or_value,
            unit,
            starts,
            ends,
            if d.preserve { "1" } else { "0" },
            d.status.name(),
            &d.comment,
            &d.body,
            &d.sql_mode,
            &d.created,
            &d.modified,
            d.last_executed.as_deref().unwrap_or(""),
            &originator,
            &d.character_set_client,
            &d.collation_connection,
            &d.database_collation,
        ],
    )
}

pub fn decode(s: &str) -> Option<EventDef> {
    let f = catalog_text::decode(1, s)?;
    let [db, name, definer, time_zone, kind, at_or_value, unit, starts, ends, preserve, status, comment, body, sql_mode, created, modified, last, originator, cs, coll, dbcoll] =
        <[String; 21]>::try_from(f).ok()?;
    let schedule = match kind.as_str() {
        "AT" => Schedule::At(at_or_value),
        "EVERY" => Schedule::Every {
            value: at_or_value,
            unit: Unit::from_name(&unit)?,
            starts,
            ends: (!ends.is_empty()).then_some(ends),
        },
        _ => return None,
    };
    Some(EventDef {
        db,
        name,
        definer,
        time_zone,
        schedule,
        preserve: preserve == "1",
        status: Status::from_name(&status)?,
        comment,
        body,
        sql_mode,
        created,
        modified,
        last_executed: (!last.is_empty()).then_some(last),
        originator: originator.parse().ok()?,
        character_set_client: cs,
        collation_connection: coll,
        database_collation: dbcoll,
    })
}

fn key_name(d: &EventDef) -> String {
    d.name.to_lowercase()
}

/// In one transaction: deletes `gone` (as stored), writes `put`.
pub fn write(engine: &Engine, gone: &[&EventDef], put: &[&EventDef]) -> Result<()> {
    let names: Vec<String> = gone.iter().chain(put).map(|d| key_name(d)).collect();
    let entries: Vec<Entry<'_>> =
        gone.iter().chain(put).zip(&names).map(|(d, n)| Entry { db: &d.db, name: n, text: encode(d) }).collect();
    let (g, p) = entries.split_at(gone.len());
    catalog_text::write(engine, TABLE, g, p)
}

/// A definition that would not survive a round trip is refused.
pub fn check(d: &EventDef) -> Result<()> {
    if decode(&encode(d)).as_ref() != Some(d) {
        return Err(SqlError::internal("event definition cannot be stored"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_definitions_round_trip_through_the_encoding() {
        let mut d = EventDef {
            db: "d".into(),
            name: "E:1".into(),
            definer: "root@localhost".into(),
            time_zone: "+02:00".into(),
            schedule: Schedule::Every {
                value: "'1:30'".into(),
                unit: Unit::HourMinute,
                starts: "2030-01-01 00:00:00".into(),
                ends: None,
            },
            preserve: true,
            status: Status::SlavesideDisabled,
            comment: "c|1".into(),
            body: "BEGIN INSERT INTO t VALUES ('5:x'); -- é\nEND".into(),
            sql_mode: "STRICT_TRANS_TABLES".into(),
            created: "2026-01-01 00:00:00".into(),
            modified: "2026-01-01 00:00:01".into(),
            last_executed: Some("2026-01-02 00:00:00".into()),
            originator: 7,
            character_set_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_general_ci".into(),
            database_collation: "utf8mb4_general_ci".into(),
        };
        assert_eq!(decode(&encode(&d)), Some(d.clone()));
        d.schedule = Schedule::At("2030-01-01 00:00:00".into());
        d.last_executed = None;
        assert_eq!(decode(&encode(&d)), Some(d.clone()));
        assert!(check(&d).is_ok());
        assert_eq!(decode("2|x"), None);
    }
}
