//! SCHEMATA, TABLES, VIEWS and PARTITIONS: one row per database, per
//! table or view, per view, per (unpartitioned) table.
//!
//! TABLES' sizes are InnoDB's, from the table's persistent statistics
//! (`statistics::ensure`, the same figures ANALYZE TABLE and
//! `mysql.innodb_table_stats` hold): TABLE_ROWS the estimated rows,
//! DATA_LENGTH the clustered index's pages x page size, INDEX_LENGTH the
//! other indexes' pages x page size, AVG_ROW_LENGTH their quotient.
//! CREATE_TIME is the table file's creation time (its inode's birth time
//! where the file system records one, else its last change), shown in the
//! session's time zone. Views have NULL in every column but the names,
//! TABLE_TYPE 'VIEW' and TABLE_COMMENT 'VIEW' (MySQL's and MariaDB's
//! rows); information_schema's tables are 'SYSTEM VIEW' with ENGINE NULL,
//! as MySQL 8.0 lists them (MariaDB says MEMORY / Aria: its tables are
//! temporary tables of those engines, quire's are not).

use quire_engine::row::{tz, Value};
use quire_engine::Table;

use super::{objects, s, u, Hint, Kind, Object, View};
use crate::error::Result;
use crate::session::Session;

pub(super) fn schemata(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    Ok(super::databases(sess, hint)
        .into_iter()
        .map(|db| vec![s("def"), Value::Str(db), s("utf8mb4"), s("utf8mb4_general_ci"), Value::Null, s("NO")])
        .collect())
}

/// Sizes from the statistics: (rows, data bytes, index bytes).
fn sizes(sess: &Session, db: &str, name: &str, t: &Table) -> (u64, u64, u64) {
    crate::statistics::ensure(&sess.shared, db, name, t);
    let page = sess.engine().config().page_size as u64;
    match t.stats() {
        Some(st) => (st.n_rows, st.clustered_index_size * page, st.sum_of_other_index_sizes * page),
        // Tables quire keeps no statistics for (its catalog's): one page
        // per index, as InnoDB's minimum.
        None => (0, page, page * t.schema().indexes.len() as u64),
    }
}

/// When the table's file was made, in the session's time zone.
fn create_time(sess: &Session, t: &Table) -> Value {
    let Some(path) = sess.engine().space_path(t.space_id()) else { return Value::Null };
    let Ok(meta) = std::fs::metadata(path) else { return Value::Null };
    let Some(at) = meta.created().or_else(|_| meta.modified()).ok() else { return Value::Null };
    let Ok(since) = at.duration_since(std::time::UNIX_EPOCH) else { return Value::Null };
    tz::from_unix_seconds(since.as_secs() as i64, 0).map_or(Value::Null, |dt| Value::DateTime(tz::utc_to_local(dt)))
}

pub(super) fn tables(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for Object { db, name, kind } in objects(sess, hint) {
        let head = vec![s("def"), s(&db), s(&name)];
        let tail: Vec<Value> = match &kind {
            Kind::Base(t) => {
                let schema = t.schema();
                let extras = t.extras();
                let (rows, data, index) = sizes(sess, &db, &name, t);
                let auto = schema.columns.iter().any(|c| c.auto_increment).then(|| t.next_auto_increment());
                vec![
                    s("BASE TABLE"),
                    s("InnoDB"),
                    u(10),
                    s("Dynamic"),
                    u(rows),
                    u(data.checked_div(rows).unwrap_or(0)),
                    u(data),
                    u(0),
                    u(index),
                    u(0),
                    auto.map_or(Value::Null, u),
                    create_time(sess, t),
                    Value::Null,
                    Value::Null,
                    s(crate::create::charset::table_collation(&extras).name()),
                    Value::Null,
                    s(""),
                    Value::Str(extras.comment.clone()),
                ]
            }
            Kind::Damaged(message) => {
                let mut v = vec![s("BASE TABLE")];
                v.extend(std::iter::repeat_n(Value::Null, 16));
                v.push(Value::Str(message.clone()));
                v
            }
            Kind::View(_) => {
                let mut v = vec![s("VIEW")];
                v.extend(std::iter::repeat_n(Value::Null, 16));
                v.push(s("VIEW"));
                v
            }
            Kind::System(View::Perf(_)) => {
                // As MySQL 8.0 lists performance_schema's tables.
                let mut v = vec![s("BASE TABLE"), s("PERFORMANCE_SCHEMA")];
                v.extend(std::iter::repeat_n(Value::Null, 12));
                v.push(s("utf8mb4_0900_ai_ci"));
                v.push(Value::Null);
                v.push(s(""));
                v.push(s(""));
                v
            }
            Kind::System(_) => {
                let mut v = vec![s("SYSTEM VIEW")];
                v.extend(std::iter::repeat_n(Value::Null, 13));
                v.push(s("utf8mb4_general_ci"));
                v.push(Value::Null);
                v.push(s(""));
                v.push(s(""));
                v
            }
        };
        let mut row = head;
        row.extend(tail);
        out.push(row);
    }
    Ok(out)
}

/// A view's stored definition taken apart: (query text, check option,
/// definer, security type).
pub(super) struct ViewParts {
    pub query: String,
    pub check: &'static str,
    pub definer: String,
    pub security: &'static str,
}

/// Reads the parts of `CREATE ALGORITHM=.. DEFINER=`u`@`h` SQL SECURITY ..
/// VIEW `v` [(cols)] AS query [WITH .. CHECK OPTION]` (the form
/// `view::create` stores).
pub(super) fn view_parts(definition: &str) -> ViewParts {
    let r = crate::view::ViewRef { db: String::new(), name: String::new(), definition: definition.to_string() };
    let check = match r.check_option() {
        None => "NONE",
        Some(crate::view::CheckOption::Local) => "LOCAL",
        Some(crate::view::CheckOption::Cascaded) => "CASCADED",
    };
    let body = crate::view::strip_check_option(definition).map_or(definition, |(t, _)| t);
    let query = match body.find(" AS ") {
        Some(at) => body[at + 4..].trim().to_string(),
        None => String::new(),
    };
    let head = &body[..body.find(" AS ").unwrap_or(body.len())];
    let definer = head
        .split_whitespace()
        .find_map(|w| w.strip_prefix("DEFINER="))
        .map(|d| d.replace('`', ""))
        .unwrap_or_else(|| "root@%".into());
    let security = if head.contains("SQL SECURITY INVOKER") { "INVOKER" } else { "DEFINER" };
    ViewParts { query, check, definer, security }
}

pub(super) fn views(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for Object { db, name, kind } in objects(sess, hint) {
        let Kind::View(def) = kind else { continue };
        let p = view_parts(&def);
        let r = crate::view::ViewRef { db: db.clone(), name: name.clone(), definition: def };
        let updatable = !r.temptable() && updatable(&r);
        out.push(vec![
            s("def"),
            Value::Str(db),
            Value::Str(name),
            Value::Str(p.query),
            s(p.check),
            s(if updatable { "YES" } else { "NO" }),
            Value::Str(p.definer),
            s(p.security),
            s("utf8mb4"),
            s("utf8mb4_general_ci"),
        ]);
    }
    Ok(out)
}

/// Whether a view could be written through (`view_dml`'s rule).
fn updatable(r: &crate::view::ViewRef) -> bool {
    r.parse().is_ok_and(|(_, q, _)| crate::view_dml::updatable(&q))
}

/// One row per table with PARTITION_NAME NULL (no table is partitioned),
/// its sizes as TABLES has them, as MySQL and MariaDB list an
/// unpartitioned table.
pub(super) fn partitions(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for Object { db, name, kind } in objects(sess, hint) {
        let Kind::Base(t) = kind else { continue };
        let (rows, data, index) = sizes(sess, &db, &name, &t);
        let mut row = vec![s("def"), Value::Str(db), Value::Str(name)];
        row.extend(std::iter::repeat_n(Value::Null, 9));
        row.extend([u(rows), u(data.checked_div(rows).unwrap_or(0)), u(data), Value::Null, u(index), u(0)]);
        row.extend([create_time(sess, &t), Value::Null, Value::Null, Value::Null]);
        row.extend([s(""), s(""), Value::Null]);
        out.push(row);
    }
    Ok(out)
}
