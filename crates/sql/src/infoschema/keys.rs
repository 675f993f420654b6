//! STATISTICS, KEY_COLUMN_USAGE, TABLE_CONSTRAINTS,
//! REFERENTIAL_CONSTRAINTS and CHECK_CONSTRAINTS: a table's keys and
//! constraints, from its definition (`TableSchema`, its foreign keys and
//! `TableExtras::checks`).
//!
//! Keys are listed clustered key first (`PRIMARY`, or the UNIQUE key
//! InnoDB clusters a table without one on; a table clustered on its
//! hidden row id has no such key), then the secondary indexes in
//! definition order. CARDINALITY is the index's statistics' distinct
//! count for the key's first SEQ_IN_INDEX columns (InnoDB's figure),
//! NULL when the table has no statistics.

use quire_engine::row::{FkAction, IndexDef, TableSchema, Value};
use quire_engine::Table;

use super::{objects, s, u, Hint, Kind, Object};
use crate::error::Result;
use crate::session::Session;

/// A key of a table: (name, unique, columns, prefix lengths, primary).
struct Key {
    name: String,
    unique: bool,
    columns: Vec<usize>,
    prefix: Vec<u32>,
    primary: bool,
}

fn keys(schema: &TableSchema) -> Vec<Key> {
    use quire_engine::row::ClusterKey;
    let mut out = Vec::new();
    match &schema.cluster {
        ClusterKey::RowId => {}
        c => out.push(Key {
            name: schema.primary_name().to_string(),
            unique: true,
            columns: schema.primary_key.clone(),
            prefix: Vec::new(),
            primary: matches!(c, ClusterKey::Primary),
        }),
    }
    out.extend(schema.indexes.iter().map(|ix: &IndexDef| Key {
        name: ix.name.clone(),
        unique: ix.unique,
        columns: ix.columns.clone(),
        prefix: ix.prefix.clone(),
        primary: false,
    }));
    out
}

/// The base tables `hint` allows.
fn base_tables(sess: &Session, hint: &Hint) -> Vec<(String, String, std::sync::Arc<Table>)> {
    objects(sess, hint)
        .into_iter()
        .filter_map(|Object { db, name, kind }| match kind {
            Kind::Base(t) => Some((db, name, t)),
            _ => None,
        })
        .collect()
}

pub(super) fn statistics(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (db, name, t) in base_tables(sess, hint) {
        crate::statistics::ensure(&sess.shared, &db, &name, &t);
        let stats = t.stats();
        let schema = t.schema();
        for k in keys(&schema) {
            let n_diff = stats.as_ref().and_then(|st| st.index(&k.name)).map(|ix| ix.n_diff.clone());
            for (i, &c) in k.columns.iter().enumerate() {
                let col = &schema.columns[c];
                let card = n_diff.as_ref().and_then(|d| d.get(i)).map_or(Value::Null, |&n| Value::Int(n as i64));
                let sub = k.prefix.get(i).copied().filter(|&p| p > 0).map_or(Value::Null, |p| Value::Int(p.into()));
                out.push(vec![
                    s("def"),
                    s(&db),
                    s(&name),
                    Value::Int(i64::from(!k.unique)),
                    s(&db),
                    s(&k.name),
                    u(i as u64 + 1),
                    Value::Str(col.name.clone()),
                    s("A"),
                    card,
                    sub,
                    Value::Null,
                    s(if col.nullable { "YES" } else { "" }),
                    s("BTREE"),
                    s(""),
                    s(""),
                    s("YES"),
                    Value::Null,
                ]);
            }
        }
    }
    Ok(out)
}

pub(super) fn key_column_usage(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (db, name, t) in base_tables(sess, hint) {
        let schema = t.schema();
        let head = |constraint: &str| vec![s("def"), s(&db), s(constraint), s("def"), s(&db), s(&name)];
        for k in keys(&schema).into_iter().filter(|k| k.unique) {
            for (i, &c) in k.columns.iter().enumerate() {
                let mut r = head(&k.name);
                r.extend([
                    Value::Str(schema.columns[c].name.clone()),
                    Value::Int(i as i64 + 1),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]);
                out.push(r);
            }
        }
        for fk in t.foreign_keys() {
            let (pdb, pname) = crate::fk::split(&fk.parent);
            for (i, (&c, pc)) in fk.columns.iter().zip(&fk.parent_columns).enumerate() {
                let mut r = head(&fk.name);
                r.extend([
                    Value::Str(schema.columns[c].name.clone()),
                    Value::Int(i as i64 + 1),
                    Value::Int(i as i64 + 1),
                    s(pdb),
                    s(pname),
                    Value::Str(pc.clone()),
                ]);
                out.push(r);
            }
        }
    }
    Ok(out)
}

pub(super) fn table_constraints(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (db, name, t) in base_tables(sess, hint) {
        let schema = t.schema();
        let row = |constraint: &str, kind: &str, enforced: bool| {
            vec![s("def"), s(&db), s(constraint), s(&db), s(&name), s(kind), s(if enforced { "YES" } else { "NO" })]
        };
        for k in keys(&schema).into_iter().filter(|k| k.unique) {
            out.push(row(&k.name, if k.primary { "PRIMARY KEY" } else { "UNIQUE" }, true));
        }
        for fk in t.foreign_keys() {
            out.push(row(&fk.name, "FOREIGN KEY", true));
        }
        for c in t.checks() {
            out.push(row(&c.name, "CHECK", c.enforced));
        }
    }
    Ok(out)
}

fn rule(a: FkAction) -> &'static str {
    match a {
        FkAction::Restrict => "RESTRICT",
        FkAction::NoAction => "NO ACTION",
        FkAction::Cascade => "CASCADE",
        FkAction::SetNull => "SET NULL",
    }
}

pub(super) fn referential_constraints(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (db, name, t) in base_tables(sess, hint) {
        for fk in t.foreign_keys() {
            let (pdb, pname) = crate::fk::split(&fk.parent);
            // The parent's key the reference is checked through.
            let unique = sess.engine().table(&fk.parent).ok().and_then(|p| {
                let ps = p.schema();
                let cols: Option<Vec<usize>> = fk.parent_columns.iter().map(|c| ps.column_index(c)).collect();
                let cols = cols?;
                keys(&ps).into_iter().find(|k| k.columns.starts_with(&cols)).map(|k| k.name)
            });
            out.push(vec![
                s("def"),
                s(&db),
                Value::Str(fk.name.clone()),
                s("def"),
                s(pdb),
                unique.map_or(Value::Null, Value::Str),
                s("NONE"),
                s(rule(fk.on_update)),
                s(rule(fk.on_delete)),
                s(&name),
                s(pname),
            ]);
        }
    }
    Ok(out)
}

pub(super) fn check_constraints(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (db, _, t) in base_tables(sess, hint) {
        for c in t.checks() {
            out.push(vec![s("def"), s(&db), Value::Str(c.name.clone()), Value::Str(c.expr.clone())]);
        }
    }
    Ok(out)
}
