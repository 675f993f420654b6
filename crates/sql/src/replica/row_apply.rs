//! A ROWS event's rows applied through prepared statements: one INSERT /
//! UPDATE / DELETE per table and kind, by primary key (every column when
//! the table has none), bound to each row's image.
//!
//! What the applier knows of a table (its columns, its generated ones, its
//! statements) is kept across transactions in [`Tables`] — a ROWS event
//! used to look the table up, copy its schema and list its generated
//! columns each time — and dropped when the server's DDL epoch moves
//! (any DDL, a client's on this replica included) or the applier runs
//! replicated DDL ([`Tables::clear`]).

use std::collections::HashMap;

use quire_binlog::decode::{RowChange, TableMap};
use quire_engine::row::{Column, ColumnType, TableSchema, Value};

use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::sink::{Outcome, RowSink};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Op {
    Write,
    Update,
    Delete,
}

impl Op {
    pub(super) fn event_name(self) -> &'static str {
        match self {
            Op::Write => "Write_rows",
            Op::Update => "Update_rows",
            Op::Delete => "Delete_rows",
        }
    }
}

/// Discards result rows.
struct Discard;

impl RowSink for Discard {
    fn columns(&mut self, _: &[crate::plan::ColMeta]) -> Result<()> {
        Ok(())
    }

    fn row(&mut self, _: Vec<Value>) -> Result<()> {
        Ok(())
    }
}

/// A prepared statement and how a row image binds it.
struct Prepared {
    id: u32,
    /// Which columns of the image bind the SET / VALUES part, and which
    /// the WHERE part.
    set_cols: Vec<usize>,
    key_cols: Vec<usize>,
}

/// One replicated table.
pub(super) struct TableInfo {
    /// The DDL epoch this was read under.
    epoch: u64,
    schema: TableSchema,
    /// The visible columns: what a row image decodes into.
    pub(super) columns: Vec<Column>,
    /// Generated columns, by name: never set (the SQL layer computes
    /// them from the others, as the source did).
    generated: Vec<String>,
    /// By [`Op`].
    prepared: [Option<Prepared>; 3],
}

/// The tables one applier session has applied rows to, by database and
/// name.
#[derive(Default)]
pub(super) struct Tables(HashMap<String, HashMap<String, TableInfo>>);

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

impl Tables {
    /// The table `map` names, read again if DDL ran since; 1146 if it
    /// does not exist.
    pub(super) fn get(&mut self, s: &mut Session, map: &TableMap) -> Result<&mut TableInfo> {
        let epoch = s.shared.epoch();
        let fresh = self.0.get(&map.db).and_then(|t| t.get(&map.table)).is_some_and(|i| i.epoch == epoch);
        if !fresh {
            let Ok(table) = s.shared.engine.table(&format!("{}/{}", map.db, map.table)) else {
                return Err(SqlError::new(1146, "42S02", format!("Table '{}.{}' doesn't exist", map.db, map.table)));
            };
            let schema = table.schema();
            let info = TableInfo {
                epoch,
                columns: schema.visible_columns().to_vec(),
                generated: table.extras().generated.into_iter().map(|g| g.column).collect(),
                schema,
                prepared: [None, None, None],
            };
            let old = self.0.entry(map.db.clone()).or_default().insert(map.table.clone(), info);
            for p in old.into_iter().flat_map(|o| o.prepared).flatten() {
                s.close_prepared(p.id);
            }
        }
        Ok(self.0.get_mut(&map.db).and_then(|t| t.get_mut(&map.table)).expect("present or inserted above"))
    }

    /// Forgets every table and closes their statements (replicated DDL,
    /// or a worker given a job under a newer DDL count).
    pub(super) fn clear(&mut self, s: &mut Session) {
        for (_, tables) in self.0.drain() {
            for p in tables.into_values().flat_map(|i| i.prepared).flatten() {
                s.close_prepared(p.id);
            }
        }
    }
}

impl TableInfo {
    /// The statement for `op`, prepared at its first use.
    fn prepare(&mut self, s: &mut Session, map: &TableMap, op: Op) -> Result<&Prepared> {
        let slot = op as usize;
        if self.prepared[slot].is_none() {
            let cols = &self.columns;
            let n = map.types.len().min(cols.len());
            let name = format!("{}.{}", quote(&map.db), quote(&map.table));
            let by_pk = !self.schema.has_row_id() && !self.schema.primary_key.is_empty();
            let key_cols: Vec<usize> = if by_pk {
                self.schema.primary_key.clone()
            } else {
                // Without a primary key every column finds the row, but JSON
                // (compared as documents, not text).
                (0..n).filter(|&i| !matches!(cols[i].ty, ColumnType::Json)).collect()
            };
            let cmp = if by_pk { "=" } else { "<=>" };
            let where_ =
                key_cols.iter().map(|&i| format!("{} {cmp} ?", quote(&cols[i].name))).collect::<Vec<_>>().join(" AND ");
            let limit = if by_pk { "" } else { " LIMIT 1" };
            let set_cols: Vec<usize> =
                (0..n).filter(|&i| !self.generated.iter().any(|g| g.eq_ignore_ascii_case(&cols[i].name))).collect();
            let sql = match op {
                Op::Write => format!(
                    "INSERT INTO {name} ({}) VALUES ({})",
                    set_cols.iter().map(|&i| quote(&cols[i].name)).collect::<Vec<_>>().join(", "),
                    vec!["?"; set_cols.len()].join(", ")
                ),
                Op::Update => format!(
                    "UPDATE {name} SET {} WHERE {where_}{limit}",
                    set_cols.iter().map(|&i| format!("{} = ?", quote(&cols[i].name))).collect::<Vec<_>>().join(", ")
                ),
                Op::Delete => format!("DELETE FROM {name} WHERE {where_}{limit}"),
            };
            let (id, _, _) = s.prepare(&sql)?;
            let set_cols = if op == Op::Delete { Vec::new() } else { set_cols };
            let key_cols = if op == Op::Write { Vec::new() } else { key_cols };
            self.prepared[slot] = Some(Prepared { id, set_cols, key_cols });
        }
        Ok(self.prepared[slot].as_ref().expect("prepared above"))
    }

    /// One row of a ROWS event; 1032 when the row to change is missing.
    pub(super) fn apply_row(&mut self, s: &mut Session, map: &TableMap, op: Op, change: &RowChange) -> Result<()> {
        let p = self.prepare(s, map, op)?;
        let param = |img: &Option<Vec<Option<Value>>>, i: usize| -> Result<Value> {
            let v = img.as_ref().and_then(|r| r.get(i).cloned().flatten()).ok_or_else(|| {
                SqlError::new(
                    1032,
                    "HY000",
                    "a row image without a column the applier needs (binlog_row_image=FULL is required)".to_string(),
                )
            })?;
            Ok(match v {
                // ENUM / SET by their text: the replica's members may be
                // numbered alike, and text is what the column coerces.
                Value::Choice(c) => Value::Str(c.text()),
                other => other,
            })
        };
        let mut params = Vec::with_capacity(p.set_cols.len() + p.key_cols.len());
        for &i in &p.set_cols {
            params.push(param(&change.after, i)?);
        }
        for &i in &p.key_cols {
            params.push(param(&change.before, i)?);
        }
        let id = p.id;
        let out = s.execute_prepared(id, &params, &mut Discard)?;
        if op != Op::Write {
            if let Outcome::Ok { affected: 0, .. } = out {
                return Err(SqlError::new(1032, "HY000", format!("Can't find record in '{}'", map.table)));
            }
        }
        Ok(())
    }
}
