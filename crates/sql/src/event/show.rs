//! What shows events: SHOW CREATE EVENT and the rows of
//! information_schema.EVENTS (SHOW EVENTS is a view of it,
//! `infoschema::show`). The schedule's times are shown as stored, in
//! the event's zone (`event`, invariant 3), as MySQL shows them.

use quire_engine::row::Value;

use super::{EventDef, Schedule, Status};
use crate::error::Result;
use crate::session::Session;
use crate::Output;

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// The statement SHOW CREATE EVENT prints (and a dump replays), laid
/// out as MariaDB lays it out.
pub fn create_statement(d: &EventDef) -> String {
    let (u, h) = d.definer.rsplit_once('@').unwrap_or((&d.definer, "%"));
    let mut s = format!("CREATE DEFINER=`{u}`@`{h}` EVENT `{}` ON SCHEDULE ", d.name.replace('`', "``"));
    match &d.schedule {
        Schedule::At(at) => s.push_str(&format!("AT '{at}'")),
        Schedule::Every { value, unit, starts, ends } => {
            s.push_str(&format!("EVERY {value} {} STARTS '{starts}'", unit.name()));
            if let Some(e) = ends {
                s.push_str(&format!(" ENDS '{e}'"));
            }
        }
    }
    s.push_str(if d.preserve { " ON COMPLETION PRESERVE " } else { " ON COMPLETION NOT PRESERVE " });
    s.push_str(match d.status {
        Status::Enabled => "ENABLE",
        Status::Disabled => "DISABLE",
        Status::SlavesideDisabled => "DISABLE ON SLAVE",
    });
    if !d.comment.is_empty() {
        s.push_str(&format!(" COMMENT {}", quoted(&d.comment)));
    }
    s.push_str(" DO ");
    s.push_str(&d.body);
    s
}

pub fn show_create(s: &Session, db: &str, name: &str) -> Result<Output> {
    crate::admin::check_access(s, db)?;
    let d = s.shared.catalog.events.get(db, name).ok_or_else(|| super::unknown_event(name))?;
    let columns = crate::session::text_columns(&[
        "Event",
        "sql_mode",
        "time_zone",
        "Create Event",
        "character_set_client",
        "collation_connection",
        "Database Collation",
    ]);
    let row = vec![
        Value::Str(d.name.clone()),
        Value::Str(d.sql_mode.clone()),
        Value::Str(d.time_zone.clone()),
        Value::Str(create_statement(&d)),
        Value::Str(d.character_set_client.clone()),
        Value::Str(d.collation_connection.clone()),
        Value::Str(d.database_collation.clone()),
    ];
    Ok(Output::Rows { columns, rows: vec![row] })
}

fn datetime(text: &str) -> Value {
    quire_engine::row::DateTime::parse(text).map_or(Value::Null, Value::DateTime)
}

/// information_schema.EVENTS: the events of the databases the user may
/// use, by schema and name.
pub fn rows(s: &Session) -> Vec<Vec<Value>> {
    let user = s.shared.catalog.user(&s.user);
    let st = |x: &str| Value::Str(x.to_string());
    let mut all: Vec<EventDef> =
        s.shared.catalog.events.all().into_iter().filter(|d| user.as_ref().is_some_and(|u| u.may_use(&d.db))).collect();
    all.sort_by(|a, b| (&a.db, a.name.to_lowercase()).cmp(&(&b.db, b.name.to_lowercase())));
    all.iter()
        .map(|d| {
            let (kind, at, value, field, starts, ends) = match &d.schedule {
                Schedule::At(at) => ("ONE TIME", datetime(at), Value::Null, Value::Null, Value::Null, Value::Null),
                Schedule::Every { value, unit, starts, ends } => (
                    "RECURRING",
                    Value::Null,
                    st(value),
                    st(unit.name()),
                    datetime(starts),
                    ends.as_deref().map_or(Value::Null, datetime),
                ),
            };
            vec![
                st("def"),
                st(&d.db),
                st(&d.name),
                st(&d.definer),
                st(&d.time_zone),
                st("SQL"),
                st(&d.body),
                st(kind),
                at,
                value,
                field,
                st(&d.sql_mode),
                starts,
                ends,
                st(d.status.name()),
                st(if d.preserve { "PRESERVE" } else { "NOT PRESERVE" }),
                datetime(&d.created),
                datetime(&d.modified),
                d.last_executed.as_deref().map_or(Value::Null, datetime),
                st(&d.comment),
                Value::Int(d.originator as i64),
                st(&d.character_set_client),
                st(&d.collation_connection),
                st(&d.database_collation),
            ]
        })
        .collect()
}
