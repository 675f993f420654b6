//! Routine definitions in the catalog: engine table `mysql/quire_routine`
//! (`catalog_text`), keyed by (db, `P:name` or `F:name`, name lowercased:
//! procedures and functions have their own namespaces). Each CREATE or
//! DROP is one engine transaction, as crash-safe as any commit; catalogs
//! of older versions open with no routines.
//!
//! Encoding (version 1, `catalog_text::encode`): db, name, kind
//! (`PROCEDURE` / `FUNCTION`), params, returns, body, comment,
//! deterministic (`1` / `0`), data_access, security (`DEFINER` /
//! `INVOKER`), definer, sql_mode, created, modified,
//! character_set_client, collation_connection, database_collation.

use quire_engine::Engine;

use super::{RoutineDef, RoutineKind};
use crate::catalog_text::{self, Entry};
use crate::error::{Result, SqlError};

pub const TABLE: &str = "mysql/quire_routine";

/// The stored key's name part.
fn key_name(d: &RoutineDef) -> String {
    let k = match d.kind {
        RoutineKind::Procedure => 'P',
        RoutineKind::Function => 'F',
    };
    format!("{k}:{}", d.name.to_lowercase())
}

/// Creates the table on a catalog that has none.
pub fn open(engine: &Engine) -> Result<Vec<RoutineDef>> {
    let mut out = Vec::new();
    for ((db, name), t) in catalog_text::open(engine, TABLE, 80)? {
        match decode(&t) {
            Some(d) => out.push(d),
            None => tracing::warn!("routine {db}.{name}: unreadable definition in {TABLE}, ignored"),
        }
    }
    Ok(out)
}

pub fn encode(d: &RoutineDef) -> String {
    catalog_text::encode(
        1,
        &[
            d.db.as_str(),
            &d.name,
            d.kind.name(),
            &d.params,
            &d.returns,
            &d.body,
            &d.comment,
            if d.deterministic { "1" } else { "0" },
            &d.data_access,
            if d.security_definer { "DEFINER" } else { "INVOKER" },
            &d.definer,
            &d.sql_mode,
            &d.created,
            &d.modified,
            &d.character_set_client,
            &d.collation_connection,
            &d.database_collation,
        ],
    )
}

pub fn decode(s: &str) -> Option<RoutineDef> {
    let f = catalog_text::decode(1, s)?;
    let [db, name, kind, params, returns, body, comment, det, data_access, security, definer, sql_mode, created, modified, cs, coll, dbcoll] =
        <[String; 17]>::try_from(f).ok()?;
    let kind = match kind.as_str() {
        "PROCEDURE" => RoutineKind::Procedure,
        "FUNCTION" => RoutineKind::Function,
        _ => return None,
    };
    Some(RoutineDef {
        db,
        name,
        kind,
        params,
        returns,
        body,
        comment,
        deterministic: det == "1",
        data_access,
        security_definer: security == "DEFINER",
        definer,
        sql_mode,
        created,
        modified,
        character_set_client: cs,
        collation_connection: coll,
        database_collation: dbcoll,
    })
}

/// In one transaction: deletes `gone` (as stored), writes `put`.
pub fn write(engine: &Engine, gone: &[&RoutineDef], put: &[&RoutineDef]) -> Result<()> {
    let names: Vec<String> = gone.iter().chain(put).map(|d| key_name(d)).collect();
    let entries: Vec<Entry<'_>> =
        gone.iter().chain(put).zip(&names).map(|(d, n)| Entry { db: &d.db, name: n, text: encode(d) }).collect();
    let (g, p) = entries.split_at(gone.len());
    catalog_text::write(engine, TABLE, g, p)
}

/// A definition that would not survive a round trip is refused.
pub fn check(d: &RoutineDef) -> Result<()> {
    if decode(&encode(d)).as_ref() != Some(d) {
        return Err(SqlError::internal("routine definition cannot be stored"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routine_definitions_round_trip_through_the_encoding() {
        let d = RoutineDef {
            db: "d".into(),
            name: "P:1".into(),
            kind: RoutineKind::Function,
            params: "a INT, b VARCHAR(3)".into(),
            returns: "INT".into(),
            body: "BEGIN RETURN '5:x'; -- é\nEND".into(),
            comment: "c|1".into(),
            deterministic: true,
            data_access: "NO SQL".into(),
            security_definer: false,
            definer: "root@localhost".into(),
            sql_mode: "STRICT_TRANS_TABLES".into(),
            created: "2026-01-01 00:00:00".into(),
            modified: "2026-01-01 00:00:01".into(),
            character_set_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_general_ci".into(),
            database_collation: "utf8mb4_general_ci".into(),
        };
        assert_eq!(decode(&encode(&d)), Some(d.clone()));
        assert!(check(&d).is_ok());
        assert_eq!(decode("2|x"), None);
    }
}
