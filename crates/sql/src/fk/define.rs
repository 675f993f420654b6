//! FOREIGN KEY definitions: the clauses of CREATE TABLE and ALTER TABLE
//! ADD / DROP FOREIGN KEY, validated as MariaDB 10.11 validates them, and
//! their text.
//!
//! Rules (InnoDB's): the parent exists and is this database's or another's
//! (`REFERENCES db.p`); the column counts match; each child column has the
//! parent column's type (same integer type and signedness, same DECIMAL,
//! a string type of the same collation); the parent has an index whose
//! leading columns are the referenced ones, in order; `SET NULL` needs
//! nullable child columns. Anything else is 1005 with errno 150 "Foreign
//! key constraint is incorrectly formed"; a constraint name already used
//! in the database is errno 121. `SET DEFAULT` (which MariaDB accepts and
//! then treats as RESTRICT) is refused with 1235. The child gets an index
//! on its columns unless one already leads with them, named as InnoDB
//! names it: the constraint's name, else the FOREIGN KEY's index name,
//! else the first column's.

use quire_engine::row::{ColumnType, FkAction, ForeignKeyDef, IndexDef, TableSchema};
use quire_engine::table::IndexRef;
use quire_engine::Engine;
use sqlparser::ast;

use crate::error::{Result, SqlError};

/// 1005 errno 150, naming the table being created or altered.
pub fn incorrectly_formed(db: &str, table: &str) -> SqlError {
    SqlError::new(
        1005,
        "HY000",
        format!("Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"),
    )
}

fn duplicate_name(db: &str, table: &str) -> SqlError {
    SqlError::new(
        1005,
        "HY000",
        format!("Can't create table `{db}`.`{table}` (errno: 121 \"Duplicate key on write or update\")"),
    )
}

fn action(a: Option<&ast::ReferentialAction>) -> Result<FkAction> {
    Ok(match a {
        None | Some(ast::ReferentialAction::Restrict) => FkAction::Restrict,
        Some(ast::ReferentialAction::NoAction) => FkAction::NoAction,
        Some(ast::ReferentialAction::Cascade) => FkAction::Cascade,
        Some(ast::ReferentialAction::SetNull) => FkAction::SetNull,
        Some(ast::ReferentialAction::SetDefault) => {
            return Err(SqlError::unsupported("foreign key action SET DEFAULT"));
        }
    })
}

fn action_sql(a: FkAction) -> Option<&'static str> {
    match a {
        FkAction::Restrict => None,
        FkAction::NoAction => Some("NO ACTION"),
        FkAction::Cascade => Some("CASCADE"),
        FkAction::SetNull => Some("SET NULL"),
    }
}

/// The constraint as SHOW CREATE TABLE and errors 1451 / 1452 print it:
/// ``CONSTRAINT `n` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE``,
/// the parent qualified when it is in another database (or always, with
/// `qualify`), the actions only with `actions` (1701 prints none).
pub fn constraint_sql(fk: &ForeignKeyDef, child_db: &str, child: &TableSchema, qualify: bool, actions: bool) -> String {
    let q = |v: &mut dyn Iterator<Item = &str>| v.map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    let cols = q(&mut fk.columns.iter().map(|&c| child.columns.get(c).map_or("?", |c| c.name.as_str())));
    let pcols = q(&mut fk.parent_columns.iter().map(String::as_str));
    let (pdb, pname) = super::split(&fk.parent);
    let parent = if qualify || pdb != child_db { format!("`{pdb}`.`{pname}`") } else { format!("`{pname}`") };
    let mut s = format!("CONSTRAINT `{}` FOREIGN KEY ({cols}) REFERENCES {parent} ({pcols})", fk.name);
    if actions {
        if let Some(a) = action_sql(fk.on_delete) {
            s.push_str(&format!(" ON DELETE {a}"));
        }
        if let Some(a) = action_sql(fk.on_update) {
            s.push_str(&format!(" ON UPDATE {a}"));
        }
    }
    s
}

/// The index of `schema` whose leading columns are `cols`, in order.
pub fn index_leading(schema: &TableSchema, cols: &[usize]) -> Option<IndexRef> {
    if schema.primary_key.starts_with(cols) {
        return Some(IndexRef::Primary);
    }
    // A prefix index keys no whole value (`create::prefix`): never one.
    schema.indexes.iter().position(|ix| ix.columns.starts_with(cols) && !ix.has_prefix()).map(IndexRef::Secondary)
}

/// Whether a child column of type `c` may reference a parent column of
/// type `p` (InnoDB's `dict_foreign_find_index` type rule).
fn compatible(c: &quire_engine::row::Column, p: &quire_engine::row::Column) -> bool {
    let string = |t: &ColumnType| matches!(t, ColumnType::Char { .. } | ColumnType::Varchar { .. });
    if string(&c.ty) && string(&p.ty) {
        return c.collation == p.collation;
    }
    c.ty == p.ty
}

/// Auto-names: `<table>_ibfk_<n>`, n one past the largest used.
fn next_auto_number(table: &str, taken: &[ForeignKeyDef]) -> u32 {
    let prefix = format!("{}_ibfk_", table.to_ascii_lowercase());
    taken
        .iter()
        .filter_map(|f| f.name.to_ascii_lowercase().strip_prefix(&prefix).and_then(|n| n.parse::<u32>().ok()))
        .max()
        .unwrap_or(0)
        + 1
}

/// Every constraint name used in database `db` (they are unique per
/// database in InnoDB), except those of `skip`.
fn names_in_db(engine: &Engine, db: &str, skip: &str) -> Vec<String> {
    let prefix = format!("{db}/");
    engine
        .table_names()
        .into_iter()
        .filter(|n| n.starts_with(&prefix) && n != skip)
        .filter_map(|n| engine.table(&n).ok())
        .flat_map(|t| t.foreign_keys().into_iter().map(|f| f.name.to_ascii_lowercase()))
        .collect()
}

/// Reads one FOREIGN KEY clause of table `db`.`table` (schema `schema`,
/// keys already defined `taken`), validates it and, when the child has
/// no index leading with its columns, adds one to `new_indexes`.
/// `self_schema` is the parent's when the key references the table
/// itself (which may not exist yet). With `fk_checks` off (the session's
/// `foreign_key_checks=0`) the parent may not exist yet.
#[allow(clippy::too_many_arguments)]
pub fn read(
    engine: &Engine,
    db: &str,
    table: &str,
    schema: &TableSchema,
    c: &ast::ForeignKeyConstraint,
    taken: &[ForeignKeyDef],
    new_indexes: &mut Vec<IndexDef>,
    fk_checks: bool,
) -> Result<ForeignKeyDef> {
    let bad = || incorrectly_formed(db, table);
    if c.match_kind.is_some() || c.characteristics.is_some() {
        return Err(SqlError::unsupported("FOREIGN KEY ... MATCH or DEFERRABLE"));
    }
    let on_delete = action(c.on_delete.as_ref())?;
    let on_update = action(c.on_update.as_ref())?;
    let columns: Vec<usize> = c
        .columns
        .iter()
        .map(|i| {
            schema
                .column_index(&i.value)
                .ok_or_else(|| SqlError::new(1072, "42000", format!("Key column '{}' doesn't exist in table", i.value)))
        })
        .collect::<Result<_>>()?;
    let parts: Vec<String> = c.foreign_table.0.iter().filter_map(|p| p.as_ident().map(|i| i.value.clone())).collect();
    let (pdb, pname) = match parts.as_slice() {
        [t] => (db.to_string(), t.clone()),
        [d, t] => (d.clone(), t.clone()),
        _ => return Err(bad()),
    };
    let parent = format!("{pdb}/{pname}");
    let self_ref = pdb == db && pname == table;
    if c.referred_columns.len() != columns.len() || columns.is_empty() {
        return Err(bad());
    }
    let owned;
    let pschema: Option<&TableSchema> = if self_ref {
        Some(schema)
    } else {
        match engine.table(&parent) {
            Ok(t) => {
                owned = t.schema();
                Some(&owned)
            }
            // foreign_key_checks=0: a parent that does not exist yet is
            // accepted (InnoDB's rule, which dumps rely on); the key
            // names its columns as written and starts to work once the
            // parent is created (`check_new_parent`).
            Err(quire_engine::Error::NoSuchTable(_)) if !fk_checks => None,
            Err(_) => return Err(bad()),
        }
    };
    let parent_columns = match pschema {
        Some(pschema) => {
            // The parent's index; for a table referencing itself, indexes
            // this statement adds count too.
            let mut with_new = pschema.clone();
            if self_ref {
                with_new.indexes.extend(new_indexes.iter().cloned());
            }
            let referred: Vec<&str> = c.referred_columns.iter().map(|r| r.value.as_str()).collect();
            parent_fits(schema, &columns, &with_new, &referred).ok_or_else(bad)?
        }
        None => c.referred_columns.iter().map(|r| r.value.clone()).collect(),
    };
    let set_null = on_delete == FkAction::SetNull || on_update == FkAction::SetNull;
    if set_null && columns.iter().any(|&c| !schema.columns[c].nullable) {
        return Err(bad());
    }
    let name = match &c.name {
        Some(n) => n.value.clone(),
        None => format!("{table}_ibfk_{}", next_auto_number(table, taken)),
    };
    crate::catalog::check_identifier(&name)?;
    let lname = name.to_ascii_lowercase();
    if taken.iter().any(|f| f.name.eq_ignore_ascii_case(&name))
        || names_in_db(engine, db, &format!("{db}/{table}")).contains(&lname)
    {
        return Err(duplicate_name(db, table));
    }
    let mut child = schema.clone();
    child.indexes.extend(new_indexes.iter().cloned());
    if index_leading(&child, &columns).is_none() {
        let ix_name = c
            .name
            .as_ref()
            .or(c.index_name.as_ref())
            .map(|i| i.value.clone())
            .unwrap_or_else(|| schema.columns[columns[0]].name.clone());
        let mut n = ix_name.clone();
        let mut k = 2;
        while child.indexes.iter().any(|ix| ix.name.eq_ignore_ascii_case(&n)) {
            n = format!("{ix_name}_{k}");
            k += 1;
        }
        new_indexes.push(IndexDef { name: n, columns: columns.clone(), unique: false, prefix: vec![] });
    }
    Ok(ForeignKeyDef { name, columns, parent, parent_columns, on_delete, on_update })
}

/// The parent's column names for a key of child columns `columns` (of
/// `child`) referencing columns `referred` of `parent`, if the parent
/// fits: the columns exist, each has the child column's type, and an
/// index leads with them (InnoDB's rule; errno 150 otherwise).
fn parent_fits(child: &TableSchema, columns: &[usize], parent: &TableSchema, referred: &[&str]) -> Option<Vec<String>> {
    let mut pcols = Vec::with_capacity(referred.len());
    let mut names = Vec::with_capacity(referred.len());
    for (i, r) in referred.iter().enumerate() {
        let p = parent.column_index(r)?;
        if !compatible(&child.columns[columns[i]], &parent.columns[p]) {
            return None;
        }
        pcols.push(p);
        names.push(parent.columns[p].name.clone());
    }
    index_leading(parent, &pcols).map(|_| names)
}

/// CREATE TABLE `db`.`table` (schema `parent`) with foreign_key_checks=1,
/// while keys of other tables, defined with checks off, already reference
/// it: each must fit the new table, else 1005 errno 150 naming it
/// (MariaDB's answer). With checks off the table is created anyway and a
/// key that does not fit finds no parent row (1452).
pub fn check_new_parent(
    engine: &Engine,
    registry: &super::Registry,
    db: &str,
    table: &str,
    parent: &TableSchema,
) -> Result<()> {
    let Some(fks) = registry.of(&format!("{db}/{table}")) else { return Ok(()) };
    for fk in &fks.as_parent {
        let Ok(child) = engine.table(&fk.child) else { continue };
        let referred: Vec<&str> = fk.def.parent_columns.iter().map(String::as_str).collect();
        if parent_fits(&child.schema(), &fk.def.columns, parent, &referred).is_none() {
            return Err(incorrectly_formed(db, table));
        }
    }
    Ok(())
}

/// 1553 if dropping index `name` of `table` would leave one of the keys
/// that touch it without an index.
pub fn check_index_drop(engine: &Engine, registry: &super::Registry, table: &str, name: &str) -> Result<()> {
    let Some(fks) = registry.of(table) else { return Ok(()) };
    let Ok(t) = engine.table(table) else { return Ok(()) };
    let schema = t.schema();
    let mut after = schema.clone();
    after.indexes.retain(|ix| !ix.name.eq_ignore_ascii_case(name));
    if after.indexes.len() == schema.indexes.len() {
        return Ok(());
    }
    let needed = |cols: &[usize]| index_leading(&after, cols).is_none();
    let child_needs = fks.as_child.iter().any(|f| needed(&f.def.columns));
    let parent_needs = fks.as_parent.iter().any(|f| {
        let cols: Option<Vec<usize>> = f.def.parent_columns.iter().map(|c| schema.column_index(c)).collect();
        cols.is_some_and(|c| needed(&c))
    });
    if child_needs || parent_needs {
        return Err(SqlError::new(
            1553,
            "HY000",
            format!("Cannot drop index '{name}': needed in a foreign key constraint"),
        ));
    }
    Ok(())
}

/// ALTER TABLE ADD FOREIGN KEY with foreign_key_checks=1: every existing
/// row of the child with a non-NULL key must find its parent, else 1452
/// (MariaDB names its temporary `#sql-alter-...` table there; quire, which
/// adds the key in place, names the child).
pub fn check_existing_rows(engine: &Engine, child: &str, schema: &TableSchema, def: &ForeignKeyDef) -> Result<()> {
    use quire_engine::btree::Direction;
    use std::ops::Bound;
    let self_schema;
    let parent = engine.table(&def.parent)?;
    let ps = if def.parent == child {
        schema
    } else {
        self_schema = parent.schema();
        &self_schema
    };
    let pcols: Option<Vec<usize>> = def.parent_columns.iter().map(|n| ps.column_index(n)).collect();
    let ix = pcols.and_then(|p| index_leading(ps, &p)).ok_or_else(|| SqlError::internal("no parent index"))?;
    let t = engine.table(child)?;
    let mut rows = t.scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)?;
    while let Some(row) = rows.next()? {
        let key: Vec<_> = def.columns.iter().map(|&c| row[c].clone()).collect();
        if key.iter().any(|v| v.is_null()) {
            continue;
        }
        if parent.scan(ix, Bound::Included(&key), Bound::Included(&key), Direction::Forward)?.next()?.is_none() {
            let (db, name) = super::split(child);
            return Err(SqlError::new(
                1452,
                "23000",
                format!(
                    "Cannot add or update a child row: a foreign key constraint fails (`{db}`.`{name}`, {})",
                    constraint_sql(def, db, schema, false, true)
                ),
            ));
        }
    }
    Ok(())
}
