//! What shows triggers: SHOW CREATE TRIGGER and the rows of
//! information_schema.TRIGGERS (SHOW TRIGGERS is a view of it,
//! `infoschema::show`).

use quire_engine::row::Value;

use super::{Trigger, TriggerDef};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// `user@host` as DEFINER=`user`@`host`.
fn quoted_definer(d: &str) -> String {
    let (u, h) = d.rsplit_once('@').unwrap_or((d, "%"));
    format!("`{u}`@`{h}`")
}

/// A name as the statement wrote it when it needs no quotes, else quoted.
fn ident(n: &str) -> String {
    let plain = !n.is_empty()
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !n.chars().all(|c| c.is_ascii_digit());
    if plain {
        n.to_string()
    } else {
        format!("`{}`", n.replace('`', "``"))
    }
}

/// The statement SHOW CREATE TRIGGER prints (and a dump replays).
pub fn original_statement(d: &TriggerDef) -> String {
    format!(
        "CREATE DEFINER={} TRIGGER {} {} {} ON {} FOR EACH ROW {}",
        quoted_definer(&d.definer),
        ident(&d.name),
        d.timing.name(),
        d.event.name(),
        ident(&d.table),
        d.body
    )
}

/// CREATED with two fractional digits, as MySQL and MariaDB print it.
fn created(d: &TriggerDef) -> Value {
    Value::Str(d.created.clone())
}

pub fn show_create(s: &Session, db: &str, name: &str) -> Result<Output> {
    crate::admin::check_access(s, db)?;
    let t = s
        .shared
        .catalog
        .triggers
        .get(db, name)
        .ok_or_else(|| SqlError::new(1360, "HY000", "Trigger does not exist"))?;
    let d = &t.def;
    let columns = crate::session::text_columns(&[
        "Trigger",
        "sql_mode",
        "SQL Original Statement",
        "character_set_client",
        "collation_connection",
        "Database Collation",
        "Created",
    ]);
    let row = vec![
        Value::Str(d.name.clone()),
        Value::Str(d.sql_mode.clone()),
        Value::Str(original_statement(d)),
        Value::Str(d.character_set_client.clone()),
        Value::Str(d.collation_connection.clone()),
        Value::Str(d.database_collation.clone()),
        Value::Str(d.created.clone()),
    ];
    Ok(Output::Rows { columns, rows: vec![row] })
}

/// information_schema.TRIGGERS: the triggers of the databases the user
/// may use, by schema, table, event, timing and order.
pub fn rows(s: &Session) -> Vec<Vec<Value>> {
    let user = s.shared.catalog.user(&s.user);
    let mut all: Vec<std::sync::Arc<Trigger>> = s
        .shared
        .catalog
        .triggers
        .all()
        .into_iter()
        .filter(|t| user.as_ref().is_some_and(|u| u.may_use(&t.def.db)))
        .collect();
    all.sort_by(|a, b| {
        let k = |t: &Trigger| (t.def.db.clone(), t.def.table.clone(), t.def.event, t.def.timing, t.def.order);
        k(a).cmp(&k(b))
    });
    let st = |x: &str| Value::Str(x.to_string());
    all.iter()
        .map(|t| {
            let d = &t.def;
            vec![
                st("def"),
                st(&d.db),
                st(&d.name),
                st(d.event.name()),
                st("def"),
                st(&d.db),
                st(&d.table),
                Value::Int(d.order as i64),
                Value::Null,
                st(&d.body),
                st("ROW"),
                st(d.timing.name()),
                Value::Null,
                Value::Null,
                st("OLD"),
                st("NEW"),
                created(d),
                st(&d.sql_mode),
                st(&d.definer),
                st(&d.character_set_client),
                st(&d.collation_connection),
                st(&d.database_collation),
            ]
        })
        .collect()
}
