//! The table definition an ALTER TABLE is building: columns in order, each
//! remembering the old column it comes from, and keys by column *name*, so
//! that operations apply one after another as MariaDB applies them and
//! the engine schema is derived once at the end ([`Draft::finish`]).
//!
//! Invariants: column names are unique (case-insensitively); `from`
//! positions index the old schema's visible columns, each at most once.

use quire_engine::row::{ClusterKey, Column, IndexDef, TableSchema};

use crate::error::{Result, SqlError};

/// One column of the new definition.
#[derive(Clone, Debug)]
pub struct DraftColumn {
    pub col: Column,
    /// The old column whose values it takes (None: a new column).
    pub from: Option<usize>,
}

/// One key of the new definition, by column names.
#[derive(Clone, Debug)]
pub struct DraftIndex {
    pub name: String,
    pub columns: Vec<String>,
    pub unique: bool,
    /// Prefix lengths as `IndexDef::prefix` (empty: none), one per column.
    pub prefix: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Draft {
    pub table: String,
    pub columns: Vec<DraftColumn>,
    /// The declared PRIMARY KEY, if any.
    pub primary: Option<Vec<String>>,
    pub indexes: Vec<DraftIndex>,
}

fn eq(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

impl Draft {
    /// The definition of `schema` as it stands.
    pub fn of(table: &str, schema: &TableSchema) -> Draft {
        let visible = schema.visible_columns();
        let names = |cols: &[usize]| cols.iter().map(|&c| schema.columns[c].name.clone()).collect::<Vec<_>>();
        let columns = visible.iter().enumerate().map(|(i, c)| DraftColumn { col: c.clone(), from: Some(i) }).collect();
        let mut indexes = Vec::new();
        let primary = match &schema.cluster {
            ClusterKey::Primary => Some(names(&schema.primary_key)),
            ClusterKey::Unique(n) => {
                indexes.push(DraftIndex {
                    name: n.clone(),
                    columns: names(&schema.primary_key),
                    unique: true,
                    prefix: vec![],
                });
                None
            }
            ClusterKey::RowId => None,
        };
        for ix in &schema.indexes {
            indexes.push(DraftIndex {
                name: ix.name.clone(),
                columns: names(&ix.columns),
                unique: ix.unique,
                prefix: ix.prefix.clone(),
            });
        }
        Draft { table: table.to_string(), columns, primary, indexes }
    }

    pub fn position(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| eq(&c.col.name, name))
    }

    /// 1054, MariaDB's text for ALTER TABLE.
    pub fn unknown_column(&self, name: &str) -> SqlError {
        SqlError::new(1054, "42S22", format!("Unknown column '{name}' in '{}'", self.table))
    }

    pub fn require(&self, name: &str) -> Result<usize> {
        self.position(name).ok_or_else(|| self.unknown_column(name))
    }

    /// Where FIRST / AFTER c puts a column (None: at the end).
    pub fn place(&self, position: Option<&sqlparser::ast::MySQLColumnPosition>) -> Result<usize> {
        use sqlparser::ast::MySQLColumnPosition as P;
        Ok(match position {
            None => self.columns.len(),
            Some(P::First) => 0,
            Some(P::After(c)) => self.require(&c.value)? + 1,
        })
    }

    /// Renames a column in every key that names it.
    pub fn rename_in_keys(&mut self, old: &str, new: &str) {
        let ren = |cols: &mut Vec<String>| {
            for c in cols.iter_mut().filter(|c| eq(c, old)) {
                *c = new.to_string();
            }
        };
        if let Some(p) = &mut self.primary {
            ren(p);
        }
        for ix in &mut self.indexes {
            ren(&mut ix.columns);
        }
    }

    /// Drops a column: secondary keys lose it (and go when empty); the
    /// PRIMARY KEY keeps the name, which `finish` then reports as 1072
    /// (MariaDB's answer) unless the key was dropped too.
    pub fn drop_column(&mut self, i: usize) {
        let c = self.columns.remove(i);
        for ix in &mut self.indexes {
            if let Some(k) = ix.columns.iter().position(|n| eq(n, &c.col.name)) {
                ix.columns.remove(k);
                if !ix.prefix.is_empty() {
                    ix.prefix.remove(k);
                }
            }
        }
        self.indexes.retain(|ix| !ix.columns.is_empty());
        if let Some(p) = &self.primary {
            if p.len() == 1 && eq(&p[0], &c.col.name) {
                self.primary = None;
            }
        }
    }

    /// The engine schema: clustered as InnoDB clusters (the PRIMARY KEY,
    /// else the first NOT NULL UNIQUE key, else a hidden row id).
    pub fn finish(&self) -> Result<TableSchema> {
        if self.columns.is_empty() {
            return Err(SqlError::new(
                1090,
                "42000",
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
            ));
        }
        let mut columns: Vec<Column> = self.columns.iter().map(|c| c.col.clone()).collect();
        let find = |names: &[String]| -> Result<Vec<usize>> {
            names
                .iter()
                .map(|n| {
                    self.position(n)
                        .ok_or_else(|| SqlError::new(1072, "42000", format!("Key column '{n}' doesn't exist in table")))
                })
                .collect()
        };
        let mut indexes = Vec::new();
        for ix in &self.indexes {
            if indexes.iter().any(|i: &IndexDef| eq(&i.name, &ix.name)) || eq(&ix.name, "PRIMARY") {
                return Err(SqlError::new(1061, "42000", format!("Duplicate key name '{}'", ix.name)));
            }
            let cols = find(&ix.columns)?;
            // A prefix must still fit its column (1089), and one the
            // column's new length equals keys it whole.
            let mut prefix = ix.prefix.clone();
            for (k, &c) in cols.iter().enumerate() {
                if let Some(p) = prefix.get_mut(k).filter(|p| **p > 0) {
                    *p = crate::create::prefix::length_for(&columns[c], *p)?;
                }
            }
            if prefix.iter().all(|&p| p == 0) {
                prefix.clear();
            }
            indexes.push(IndexDef { name: ix.name.clone(), columns: cols, unique: ix.unique, prefix });
        }
        let (primary, cluster) = match &self.primary {
            Some(p) => (find(p)?, ClusterKey::Primary),
            None => match indexes
                .iter()
                .position(|ix| ix.unique && !ix.has_prefix() && ix.columns.iter().all(|&c| !columns[c].nullable))
            {
                Some(i) => {
                    let ix = indexes.remove(i);
                    (ix.columns, ClusterKey::Unique(ix.name))
                }
                None => (Vec::new(), ClusterKey::RowId),
            },
        };
        let autos: Vec<usize> = (0..columns.len()).filter(|&c| columns[c].auto_increment).collect();
        let keyed = |c: usize| primary.first() == Some(&c) || indexes.iter().any(|ix| ix.columns.first() == Some(&c));
        if autos.len() > 1 || autos.iter().any(|&c| !keyed(c)) {
            return Err(SqlError::new(
                1075,
                "42000",
                "Incorrect table definition; there can be only one auto column and it must be defined as a key",
            ));
        }
        if cluster == ClusterKey::RowId {
            return Ok(TableSchema::with_row_id(columns, indexes));
        }
        if cluster == ClusterKey::Primary {
            for &c in &primary {
                columns[c].nullable = false;
            }
        }
        Ok(TableSchema { columns, primary_key: primary, indexes, cluster })
    }
}
