//! What shows routines: SHOW CREATE {PROCEDURE | FUNCTION} and the rows
//! of information_schema.ROUTINES (SHOW {PROCEDURE | FUNCTION} STATUS is
//! a view of it, `infoschema::show`).

use quire_engine::row::Value;

use super::{RoutineDef, RoutineKind};
use crate::error::Result;
use crate::session::Session;
use crate::Output;

/// `user@host` as `` `user`@`host` ``.
fn quoted_definer(d: &str) -> String {
    let (u, h) = d.rsplit_once('@').unwrap_or((d, "%"));
    format!("`{u}`@`{h}`")
}

/// The statement SHOW CREATE prints (and a dump replays), laid out as
/// MariaDB lays it out: the characteristics that differ from the
/// defaults, one a line, then the body as written.
pub fn create_statement(d: &RoutineDef) -> String {
    let mut s = format!(
        "CREATE DEFINER={} {} `{}`({})",
        quoted_definer(&d.definer),
        d.kind.name(),
        d.name.replace('`', "``"),
        d.params
    );
    if d.kind == RoutineKind::Function {
        s.push_str(&format!(" RETURNS {}", d.returns));
    }
    s.push('\n');
    if d.data_access != "CONTAINS SQL" {
        s.push_str(&format!("    {}\n", d.data_access));
    }
    if d.deterministic {
        s.push_str("    DETERMINISTIC\n");
    }
    if !d.security_definer {
        s.push_str("    SQL SECURITY INVOKER\n");
    }
    if !d.comment.is_empty() {
        s.push_str(&format!("    COMMENT '{}'\n", d.comment.replace('\\', "\\\\").replace('\'', "''")));
    }
    s.push_str(&d.body);
    s
}

pub fn show_create(s: &Session, kind: RoutineKind, db: &str, name: &str) -> Result<Output> {
    crate::admin::check_access(s, db)?;
    let r = s.shared.catalog.routines.get(db, kind, name).ok_or_else(|| super::does_not_exist(kind, db, name))?;
    let d = &r.def;
    let (head, create) = match kind {
        RoutineKind::Procedure => ("Procedure", "Create Procedure"),
        RoutineKind::Function => ("Function", "Create Function"),
    };
    let columns = crate::session::text_columns(&[
        head,
        "sql_mode",
        create,
        "character_set_client",
        "collation_connection",
        "Database Collation",
    ]);
    let row = vec![
        Value::Str(d.name.clone()),
        Value::Str(d.sql_mode.clone()),
        Value::Str(create_statement(d)),
        Value::Str(d.character_set_client.clone()),
        Value::Str(d.collation_connection.clone()),
        Value::Str(d.database_collation.clone()),
    ];
    Ok(Output::Rows { columns, rows: vec![row] })
}

/// information_schema.ROUTINES: the routines of the databases the user
/// may use, by schema, name and type. The RETURNS columns describe a
/// function's result type as COLUMNS describes a column's.
pub fn rows(s: &Session) -> Vec<Vec<Value>> {
    let user = s.shared.catalog.user(&s.user);
    let st = |x: &str| Value::Str(x.to_string());
    let mut all: Vec<_> = s
        .shared
        .catalog
        .routines
        .all()
        .into_iter()
        .filter(|r| user.as_ref().is_some_and(|u| u.may_use(&r.def.db)))
        .collect();
    all.sort_by(|a, b| {
        (&a.def.db, a.def.name.to_lowercase(), a.def.kind).cmp(&(&b.def.db, b.def.name.to_lowercase(), b.def.kind))
    });
    all.iter()
        .map(|r| {
            let d = &r.def;
            let ret = match d.kind {
                RoutineKind::Function => super::ddl::column(&d.name, &d.returns).ok(),
                RoutineKind::Procedure => None,
            };
            let [data_type, chars, octets, precision, scale, datetime, charset, collation, dtd] = match &ret {
                Some(c) => described(c),
                None => {
                    let mut v: [Value; 9] = std::array::from_fn(|_| Value::Null);
                    v[0] = st("");
                    v
                }
            };
            vec![
                st(&d.name),
                st("def"),
                st(&d.db),
                st(&d.name),
                st(d.kind.name()),
                data_type,
                chars,
                octets,
                precision,
                scale,
                datetime,
                charset,
                collation,
                dtd,
                st("SQL"),
                st(&d.body),
                Value::Null,
                Value::Null,
                st("SQL"),
                st(if d.deterministic { "YES" } else { "NO" }),
                st(&d.data_access),
                Value::Null,
                st(if d.security_definer { "DEFINER" } else { "INVOKER" }),
                datetime_value(&d.created),
                datetime_value(&d.modified),
                st(&d.sql_mode),
                st(&d.comment),
                st(&d.definer),
                st(&d.character_set_client),
                st(&d.collation_connection),
                st(&d.database_collation),
            ]
        })
        .collect()
}

/// A type as COLUMNS describes a column's: DATA_TYPE, the character
/// lengths, the numeric precision and scale, the datetime precision, the
/// character set and collation, and the full type (DTD_IDENTIFIER).
fn described(c: &quire_engine::row::Column) -> [Value; 9] {
    use quire_engine::row::ColumnType as T;
    let st = |x: &str| Value::Str(x.to_string());
    let u = |n: u64| Value::UInt(n);
    let (ch, oc) = crate::infoschema::columns::lengths(c.ty, c.collation);
    let (p, sc) = crate::infoschema::columns::numeric(c.ty);
    let dt = match c.ty {
        T::DateTime { fsp } | T::Timestamp { fsp } | T::Time { fsp } => u(fsp.into()),
        _ => Value::Null,
    };
    let textual = c.ty.is_string() || c.ty.members().is_some();
    [
        st(crate::infoschema::columns::data_type(c.ty)),
        ch.map_or(Value::Null, u),
        oc.map_or(Value::Null, u),
        p.map_or(Value::Null, u),
        sc.map_or(Value::Null, u),
        dt,
        if textual { st(c.collation.charset()) } else { Value::Null },
        if textual { st(c.collation.name()) } else { Value::Null },
        Value::Str(c.sql_type()),
    ]
}

/// information_schema.PARAMETERS: each routine's parameters in order; a
/// function's result first, as position 0 with no mode and no name.
pub fn parameter_rows(s: &Session) -> Vec<Vec<Value>> {
    let user = s.shared.catalog.user(&s.user);
    let st = |x: &str| Value::Str(x.to_string());
    let mut out = Vec::new();
    for r in s.shared.catalog.routines.all() {
        let d = &r.def;
        if !user.as_ref().is_some_and(|u| u.may_use(&d.db)) {
            continue;
        }
        let mut push = |pos: u64, mode: Value, name: Value, c: &quire_engine::row::Column| {
            let mut row = vec![st("def"), st(&d.db), st(&d.name), Value::UInt(pos), mode, name];
            row.extend(described(c));
            row.push(st(d.kind.name()));
            out.push(row);
        };
        if d.kind == RoutineKind::Function {
            if let Ok(c) = super::ddl::column(&d.name, &d.returns) {
                push(0, Value::Null, Value::Null, &c);
            }
        }
        let Ok(params) = super::ddl::params(&d.params, d.kind) else { continue };
        for (i, p) in params.iter().enumerate() {
            let mode = match d.kind {
                RoutineKind::Procedure => st(p.mode.name()),
                RoutineKind::Function => st("IN"),
            };
            push(i as u64 + 1, mode, st(&p.column.name), &p.column);
        }
    }
    out
}

fn datetime_value(text: &str) -> Value {
    quire_engine::row::DateTime::parse(text).map_or_else(|| Value::Str(text.to_string()), Value::DateTime)
}
