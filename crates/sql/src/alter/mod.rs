//! ALTER TABLE operations that change a table's columns or clustering
//! (ADD / DROP / MODIFY / CHANGE / RENAME COLUMN, ALTER COLUMN SET / DROP
//! DEFAULT, ADD / DROP PRIMARY KEY, and the index operations written in
//! the same statement), RENAME TO, `RENAME TABLE` (`rename.rs`), and
//! ENGINE=InnoDB.
//!
//! The operations are applied in order to a [`Draft`] of the definition;
//! the new engine schema is derived from it, and the engine rebuilds the
//! table (`Engine::rebuild_table`: a copy into a new space, swapped in by
//! one durable catalog write) with each row converted by `convert.rs`
//! (MariaDB's conversion rules and messages for ALTER TABLE's copy). The
//! table is locked exclusively for the copy (ALGORITHM=COPY,
//! LOCK=EXCLUSIVE in MySQL's terms).
//!
//! Affected rows and the info text follow MariaDB: a change MariaDB makes
//! by copying (a column's type changed, the PRIMARY KEY dropped and not
//! replaced, ALGORITHM=COPY) reports the rows copied (`Records: n`), one it
//! makes in place or instantly reports 0. quire copies all but the instant
//! forms (ADD COLUMN at the end, SET / DROP DEFAULT: `instant.rs`), which
//! change only the catalog.

mod convert;
mod draft;
pub mod engine;
pub mod extras;
mod generated;
mod instant;
pub mod keys;
pub mod rename;

use quire_engine::row::{Collation, Column, ColumnType, TableSchema, Value};
use sqlparser::ast;

use crate::admin::{check_access, open_error, split_name};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;
pub use draft::Draft;

/// Whether `admin::alter_table` hands the statement to this module: any
/// operation beyond adding and dropping indexes and foreign keys.
pub fn handles(at: &ast::AlterTable) -> bool {
    use ast::AlterTableOperation as Op;
    at.operations.iter().any(|op| {
        !matches!(
            op,
            Op::AddConstraint {
                constraint: ast::TableConstraint::ForeignKey(_)
                    | ast::TableConstraint::Index(_)
                    | ast::TableConstraint::Unique(_),
                ..
            } | Op::DropForeignKey { .. }
                | Op::DropIndex { .. }
        )
    })
}

/// What the operations asked for besides the new definition.
#[derive(Default)]
struct Plan {
    /// RENAME TO: the new `db/table`.
    rename_to: Option<(String, String)>,
    /// MariaDB would copy the table (see the module note).
    copies: bool,
    /// Whether anything but a rename was asked for.
    rebuild: bool,
    /// Foreign keys dropped by name.
    drop_fks: Vec<String>,
}

/// One column from its SQL text, read as CREATE TABLE reads it: the
/// column, whether it said PRIMARY KEY, whether it said UNIQUE.
/// A column definition's text as a column; a string column without a
/// CHARACTER SET / COLLATE takes `table` (the table's default collation).
fn column_from_sql(text: &str, table: Collation) -> Result<(Column, bool, bool)> {
    let stmts = crate::session::parse(&format!("CREATE TABLE quire_alter_column ({text}) COLLATE={}", table.name()))?;
    let Some(ast::Statement::CreateTable(ct)) = stmts.into_iter().next() else {
        return Err(SqlError::syntax(text));
    };
    let schema = crate::ddl::schema_of(&ct)?;
    let pk = schema.cluster == quire_engine::row::ClusterKey::Primary;
    let unique = !schema.indexes.is_empty() || matches!(schema.cluster, quire_engine::row::ClusterKey::Unique(_));
    Ok((schema.columns[0].clone(), pk, unique))
}

fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A DEFAULT for `col`: a literal of its type, else 1067 (after
/// MariaDB's warning 1366 for a string that is no number).
fn default_for(s: &Session, col: &Column, e: &ast::Expr) -> Result<Value> {
    let invalid = || SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name));
    let mut scope =
        crate::expr::Scope { table: None, columns: &[], aggs: None, params: 0, place: "default", rel: None };
    match crate::expr::compile(e, &mut scope)? {
        crate::expr::Expr::Lit(v) if col.ty == ColumnType::Json && !v.is_null() => {
            Err(crate::ddl::json_default_error(&col.name))
        }
        crate::expr::Expr::Lit(v) => col.coerce(v.clone()).map_err(|_| {
            let kind = match col.ty {
                t if t.is_integer() => Some("integer"),
                ColumnType::Decimal { .. } => Some("decimal"),
                _ => None,
            };
            if let (Value::Str(text), Some(kind)) = (&v, kind) {
                let c = crate::diag::Condition::new(
                    crate::diag::Level::Warning,
                    1366,
                    format!("Incorrect {kind} value: '{text}' for column ``.``.`{}` at row 0", col.name),
                );
                let _ = s.with_env(false, |env| env.warn(c));
            }
            invalid()
        }),
        _ => Err(invalid()),
    }
}

/// Whether MariaDB changes this column in place (no copy): same type, or
/// a VARCHAR made no shorter; nullability and defaults aside.
fn same_storage(old: &Column, new: &Column) -> bool {
    match (old.ty, new.ty) {
        (ColumnType::Varchar { len: a }, ColumnType::Varchar { len: b }) => b >= a && old.collation == new.collation,
        (a, b) => a == b && old.collation == new.collation,
    }
}

pub fn run(s: &mut Session, at: &ast::AlterTable) -> Result<Output> {
    use ast::AlterTableOperation as Op;
    let (db, table) = split_name(s, &at.name)?;
    check_access(s, &db)?;
    let full = s.table_key(&db, &table);
    let temporary = s.temps.get(&db, &table).is_some();
    let t = s.engine().table(&full).map_err(|e| open_error(e, &db, &table))?;
    let old = t.schema();
    let table_coll = crate::create::charset::table_collation(&t.extras());
    let mut fks = t.foreign_keys();
    // CHECK constraints name columns by their text: a column one of them
    // uses must not go or change its name under it (MySQL's 3959).
    let checks = t.checks();
    if !checks.is_empty() {
        for op in &at.operations {
            let gone: Vec<&str> = match op {
                Op::DropColumn { column_names, .. } => column_names.iter().map(|n| n.value.as_str()).collect(),
                Op::RenameColumn { old_column_name, .. } => vec![old_column_name.value.as_str()],
                Op::ChangeColumn { old_name, new_name, .. }
                    if !old_name.value.eq_ignore_ascii_case(&new_name.value) =>
                {
                    vec![old_name.value.as_str()]
                }
                _ => vec![],
            };
            for column in gone {
                crate::create::check::refuse_column_change(&checks, column)?;
            }
        }
    }
    let old_extras = t.extras();
    let mut gens = generated::GenAlter::new(old_extras.generated.clone());
    drop(t);
    let mut d = Draft::of(&table, &old);
    let mut plan = Plan::default();
    let mut algorithm = ast::AlterTableAlgorithm::Default;
    let mut dropped_pk = false;
    let mut added_pk = false;
    for op in &at.operations {
        if !matches!(op, Op::RenameTable { .. }) {
            plan.rebuild = true;
        }
        gens.op(op)?;
        match op {
            Op::AddColumn { column_def, column_position, if_not_exists, .. } => {
                let name = &column_def.name.value;
                if d.position(name).is_some() {
                    if *if_not_exists {
                        s.note(1060, format!("Duplicate column name '{name}'"));
                        continue;
                    }
                    return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{name}'")));
                }
                let (col, pk, unique) = column_from_sql(&column_def.to_string(), table_coll)?;
                let at = d.place(column_position.as_ref())?;
                d.columns.insert(at, draft::DraftColumn { col, from: None });
                if pk {
                    add_primary(&mut d, vec![name.clone()], &mut added_pk)?;
                }
                if unique {
                    d.indexes.push(draft::DraftIndex {
                        name: crate::ddl::generated_key_name(name, |n| {
                            d.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n))
                        }),
                        columns: vec![name.clone()],
                        unique: true,
                        prefix: vec![],
                    });
                }
            }
            Op::DropColumn { column_names, if_exists, .. } => {
                for n in column_names {
                    let Some(i) = d.position(&n.value) else {
                        let text = format!("Can't DROP COLUMN `{}`; check that it exists", n.value);
                        if *if_exists {
                            s.note(1091, text);
                            continue;
                        }
                        return Err(SqlError::new(1091, "42000", text));
                    };
                    let name = d.columns[i].col.name.clone();
                    // MariaDB refuses to narrow a multi-column UNIQUE key.
                    if d.indexes.iter().any(|ix| {
                        ix.unique && ix.columns.len() > 1 && ix.columns.iter().any(|c| c.eq_ignore_ascii_case(&name))
                    }) {
                        return Err(SqlError::new(
                            1072,
                            "42000",
                            format!("Key column '{name}' doesn't exist in table"),
                        ));
                    }
                    if d.primary.as_ref().is_some_and(|p| p.len() == 1 && p[0].eq_ignore_ascii_case(&name)) {
                        dropped_pk = true;
                    }
                    d.drop_column(i);
                }
            }
            Op::ModifyColumn { col_name, data_type, options, column_position } => {
                let at = column_position.as_ref();
                change_column(&mut d, &col_name.value, &col_name.value, data_type, options, at, table_coll)?;
            }
            Op::ChangeColumn { old_name, new_name, data_type, options, column_position } => {
                let at = column_position.as_ref();
                change_column(&mut d, &old_name.value, &new_name.value, data_type, options, at, table_coll)?;
            }
            Op::RenameColumn { old_column_name, new_column_name } => {
                let i = d.require(&old_column_name.value)?;
                let new = &new_column_name.value;
                if d.position(new).is_some_and(|j| j != i) {
                    return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{new}'")));
                }
                crate::catalog::check_identifier(new)?;
                let old_name = std::mem::replace(&mut d.columns[i].col.name, new.clone());
                d.rename_in_keys(&old_name, new);
            }
            Op::AlterColumn { column_name, op } => {
                let i = d.require(&column_name.value)?;
                match op {
                    ast::AlterColumnOperation::SetDefault { value } => {
                        let v = default_for(s, &d.columns[i].col, value)?;
                        d.columns[i].col.default = Some(v);
                    }
                    ast::AlterColumnOperation::DropDefault => d.columns[i].col.default = None,
                    other => return Err(SqlError::unsupported(format!("ALTER TABLE ALTER COLUMN {other}"))),
                }
            }
            Op::DropPrimaryKey { .. } => {
                if d.primary.take().is_none() {
                    return Err(SqlError::new(1091, "42000", "Can't DROP INDEX `PRIMARY`; check that it exists"));
                }
                dropped_pk = true;
            }
            Op::AddConstraint { constraint, .. } => match constraint {
                ast::TableConstraint::PrimaryKey(pk) => {
                    let (cols, prefix) = key_parts(&pk.columns)?;
                    if !prefix.is_empty() {
                        return Err(SqlError::unsupported("a prefix in a PRIMARY KEY"));
                    }
                    add_primary(&mut d, cols, &mut added_pk)?;
                }
                ast::TableConstraint::Index(ix) => {
                    let (cols, prefix) = key_parts(&ix.columns)?;
                    let name = ix.name.as_ref().map(|n| n.value.clone()).unwrap_or_else(|| {
                        crate::ddl::generated_key_name(&cols[0], |n| {
                            d.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n))
                        })
                    });
                    d.indexes.push(draft::DraftIndex { name, columns: cols, unique: false, prefix });
                }
                ast::TableConstraint::Unique(u) => {
                    let (cols, prefix) = key_parts(&u.columns)?;
                    let name =
                        u.index_name.as_ref().or(u.name.as_ref()).map(|n| n.value.clone()).unwrap_or_else(|| {
                            crate::ddl::generated_key_name(&cols[0], |n| {
                                d.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n))
                            })
                        });
                    d.indexes.push(draft::DraftIndex { name, columns: cols, unique: true, prefix });
                }
                other => {
                    return Err(SqlError::unsupported(format!("ALTER TABLE ADD {other} together with column changes")))
                }
            },
            Op::DropIndex { name } => {
                let before = d.indexes.len();
                d.indexes.retain(|ix| !ix.name.eq_ignore_ascii_case(&name.value));
                if d.indexes.len() == before {
                    return Err(SqlError::new(
                        1091,
                        "42000",
                        format!("Can't DROP INDEX `{}`; check that it exists", name.value),
                    ));
                }
            }
            Op::DropForeignKey { name, .. } => plan.drop_fks.push(name.value.clone()),
            Op::RenameTable { table_name } => {
                let n = match table_name {
                    ast::RenameTableNameKind::As(n) | ast::RenameTableNameKind::To(n) => n,
                };
                plan.rename_to = Some(split_name(s, n)?);
            }
            Op::Algorithm { algorithm: a, .. } => match a {
                ast::AlterTableAlgorithm::Copy => {
                    plan.copies = true;
                    algorithm = *a;
                }
                ast::AlterTableAlgorithm::Default | ast::AlterTableAlgorithm::Instant => algorithm = *a,
                other => return Err(SqlError::unsupported(format!("ALTER TABLE ALGORITHM={other}"))),
            },
            Op::Lock { lock, .. } => match lock {
                ast::AlterTableLock::Default | ast::AlterTableLock::Exclusive => {}
                other => return Err(SqlError::unsupported(format!("ALTER TABLE LOCK={other}"))),
            },
            other => return Err(SqlError::unsupported(format!("ALTER TABLE {other}"))),
        }
    }
    if dropped_pk && !added_pk || temporary {
        // MariaDB copies a temporary table for every change (and says so).
        plan.copies = true;
    }
    for fk in &plan.drop_fks {
        let before = fks.len();
        fks.retain(|f| !f.name.eq_ignore_ascii_case(fk));
        if fks.len() == before {
            return Err(SqlError::new(1091, "42000", format!("Can't DROP FOREIGN KEY `{fk}`; check that it exists")));
        }
    }
    let want_instant = algorithm == ast::AlterTableAlgorithm::Instant;
    let may_instant = !temporary && algorithm != ast::AlterTableAlgorithm::Copy && instant::operations_allow(at);
    if want_instant && !may_instant {
        return Err(instant::not_supported());
    }
    let mut copied = 0;
    if plan.rebuild {
        let schema = d.finish()?;
        if may_instant {
            match instant::columns(&old, &schema) {
                Some(columns) => {
                    s.engine().alter_columns_instant(&full, columns)?;
                    let info = format!("Records: 0  Duplicates: 0  Warnings: {}", s.statement_warnings());
                    return Ok(Output::Ok { affected: 0, last_insert_id: 0, info });
                }
                None if want_instant => return Err(instant::not_supported()),
                None => {}
            }
        }
        schema.validate(s.engine().config().page_size).map_err(SqlError::from)?;
        let new_gens = gens.finish(&schema)?;
        let new_extras = gens.extras(&old_extras, &new_gens, &schema);
        plan.copies |= d.columns.iter().any(|c| c.from.is_some_and(|j| !same_storage(&old.columns[j], &c.col)));
        let fks = remap_foreign_keys(s, &full, &old, &d, fks)?;
        crate::create::generated::check_foreign_keys(&schema, &new_gens, &fks)?;
        copied = convert::rebuild(s, &db, &table, &d, schema, fks, &new_gens, new_extras)?;
        crate::statistics::forget(&s.shared, &db, &table);
        s.shared.foreign_keys.rebuild(s.engine());
    }
    if let Some((ndb, ntable)) = &plan.rename_to {
        if temporary {
            s.temps.rename((&db, &table), (ndb, ntable))?;
        } else {
            rename::rename_one(s, (&db, &table), (ndb, ntable))?;
        }
    }
    if !plan.rebuild {
        // A rename alone answers as RENAME TABLE does (no info text).
        return Ok(Output::ok());
    }
    let affected = if plan.copies { copied } else { 0 };
    let info = format!("Records: {affected}  Duplicates: 0  Warnings: {}", s.statement_warnings());
    Ok(Output::Ok { affected, last_insert_id: 0, info })
}

/// Key parts by column name, with their prefix lengths (checked against
/// the columns when the draft is finished).
fn key_parts(parts: &[ast::IndexColumn]) -> Result<(Vec<String>, Vec<u32>)> {
    let mut cols = Vec::with_capacity(parts.len());
    let mut prefix = Vec::with_capacity(parts.len());
    for p in parts {
        let (name, len) = crate::create::prefix::part(&p.column.expr)?;
        if len == Some(0) {
            return Err(SqlError::new(1391, "HY000", format!("Key part '{name}' length cannot be 0")));
        }
        cols.push(name);
        prefix.push(len.unwrap_or(0));
    }
    if prefix.iter().all(|&n| n == 0) {
        prefix.clear();
    }
    Ok((cols, prefix))
}

fn add_primary(d: &mut Draft, cols: Vec<String>, added: &mut bool) -> Result<()> {
    if d.primary.is_some() {
        return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
    }
    for c in &cols {
        if let Some(i) = d.position(c) {
            d.columns[i].col.nullable = false;
        }
    }
    d.primary = Some(cols);
    *added = true;
    Ok(())
}

/// MODIFY / CHANGE: the column takes a new definition (and name), keeps
/// its values, and moves if FIRST / AFTER says so.
fn change_column(
    d: &mut Draft,
    old: &str,
    new: &str,
    data_type: &ast::DataType,
    options: &[ast::ColumnOption],
    position: Option<&ast::MySQLColumnPosition>,
    table_coll: Collation,
) -> Result<()> {
    let i = d.require(old)?;
    if !old.eq_ignore_ascii_case(new) && d.position(new).is_some() {
        return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{new}'")));
    }
    let opts: Vec<String> = options.iter().map(|o| o.to_string()).collect();
    let (col, pk, unique) = column_from_sql(&format!("{} {data_type} {}", quoted(new), opts.join(" ")), table_coll)?;
    let from = d.columns[i].from;
    let old_name = d.columns[i].col.name.clone();
    d.columns.remove(i);
    let at = match position {
        None => i,
        p => d.place(p)?,
    };
    d.columns.insert(at, draft::DraftColumn { col, from });
    d.rename_in_keys(&old_name, new);
    if pk {
        let mut added = false;
        add_primary(d, vec![new.to_string()], &mut added)?;
    }
    if unique {
        d.indexes.push(draft::DraftIndex {
            name: crate::ddl::generated_key_name(new, |n| d.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n))),
            columns: vec![new.to_string()],
            unique: true,
            prefix: vec![],
        });
    }
    Ok(())
}

/// The table's own FOREIGN KEYs over the new columns, and MariaDB's
/// answers for keys a change breaks: 1553 when a key's column goes (its
/// index with it), 1832 / 1833 when a column of a key (this table's, or a
/// child's reference to it) changes type. A column another table's key
/// references cannot be renamed or dropped here (1235): that would
/// change the child's definition too.
fn remap_foreign_keys(
    s: &Session,
    full: &str,
    old: &TableSchema,
    d: &Draft,
    fks: Vec<quire_engine::row::ForeignKeyDef>,
) -> Result<Vec<quire_engine::row::ForeignKeyDef>> {
    let new_of = |j: usize| d.columns.iter().position(|c| c.from == Some(j));
    let mut out = Vec::new();
    for mut fk in fks {
        let mut cols = Vec::new();
        for &j in &fk.columns {
            let Some(i) = new_of(j) else {
                return Err(SqlError::new(
                    1553,
                    "HY000",
                    format!("Cannot drop index '{}': needed in a foreign key constraint", old.columns[j].name),
                ));
            };
            if d.columns[i].col.ty != old.columns[j].ty {
                return Err(SqlError::new(
                    1832,
                    "HY000",
                    format!(
                        "Cannot change column '{}': used in a foreign key constraint '{}'",
                        old.columns[j].name, fk.name
                    ),
                ));
            }
            cols.push(i);
        }
        fk.columns = cols;
        out.push(fk);
    }
    for child in s.shared.foreign_keys.referencing(full) {
        for pc in &child.def.parent_columns {
            let Some(j) = old.column_index(pc) else { continue };
            match new_of(j) {
                Some(i) if d.columns[i].col.name == old.columns[j].name && d.columns[i].col.ty == old.columns[j].ty => {
                }
                Some(i) if d.columns[i].col.ty != old.columns[j].ty => {
                    let (cdb, cname) = crate::fk::split(&child.child);
                    return Err(SqlError::new(
                        1833,
                        "HY000",
                        format!(
                            "Cannot change column '{pc}': used in a foreign key constraint '{}' of table '{cdb}.{cname}'",
                            child.def.name
                        ),
                    ));
                }
                _ => {
                    return Err(SqlError::unsupported(format!(
                        "renaming or dropping column '{pc}', referenced by foreign key '{}'",
                        child.def.name
                    )))
                }
            }
        }
    }
    Ok(out)
}
