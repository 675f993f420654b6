//! COLUMNS: one row per column of every visible table and of
//! information_schema's own tables, in table then column order.
//!
//! Types are described as MySQL 8.0 and MariaDB agree (DATA_TYPE, the
//! lengths, precisions and character sets); COLUMN_TYPE is the type as
//! quire's SHOW CREATE TABLE prints it, without integer display widths
//! (MySQL 8.0; MariaDB prints `int(11)`). Where the two servers differ in
//! values, MySQL 8.0's are given, since quire announces itself as 8.0 and
//! clients (Django's introspection, mysqldump) read them so:
//! COLUMN_DEFAULT is the bare value (`abc`, not MariaDB's `'abc'`), NULL
//! when there is none (MariaDB: the text `NULL`), `CURRENT_TIMESTAMP`;
//! EXTRA says `DEFAULT_GENERATED` for an expression default and `on
//! update CURRENT_TIMESTAMP`; GENERATION_EXPRESSION is '' for an ordinary
//! column; JSON is `json` (MariaDB: longtext).

use quire_engine::row::{Collation, Column, ColumnType, TableExtras, TableSchema, Value};

use super::{objects, s, u, Hint, Kind, Object};
use crate::error::Result;
use crate::session::Session;

pub(super) fn columns(sess: &Session, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for Object { db, name, kind } in objects(sess, hint) {
        match kind {
            Kind::Base(t) => {
                let schema = t.schema();
                let extras = t.extras();
                for (i, c) in schema.visible_columns().iter().enumerate() {
                    out.push(row(&db, &name, i, c, &schema, &extras));
                }
            }
            Kind::System(v) => {
                let schema = TableSchema { columns: super::shape::columns(v), ..Default::default() };
                for (i, c) in schema.columns.iter().enumerate() {
                    let mut r = row(&db, &name, i, c, &schema, &TableExtras::default());
                    // As MySQL 8.0 lists its system views' columns.
                    r[18] = s("select");
                    out.push(r);
                }
            }
            Kind::Damaged(_) => {}
            Kind::View(definition) => {
                for (i, (c, comment)) in view_columns(sess, &db, &name, definition).into_iter().enumerate() {
                    let extras = TableExtras { column_comments: vec![(c.name.clone(), comment)], ..Default::default() };
                    let schema = TableSchema { columns: vec![c.clone()], ..Default::default() };
                    let mut r = row(&db, &name, 0, &c, &schema, &extras);
                    r[4] = u(i as u64 + 1);
                    out.push(r);
                }
            }
        }
    }
    Ok(out)
}

/// A view's columns as table columns with their comments: a column of a
/// table its query selects has that column's definition and comment
/// (nullable if an outer join may make it NULL); a computed one the type
/// its result metadata says. A view that no longer binds (its table
/// dropped) has none listed.
fn view_columns(sess: &Session, db: &str, name: &str, definition: String) -> Vec<(Column, String)> {
    let r = crate::view::ViewRef { db: db.to_string(), name: name.to_string(), definition };
    let Ok((names, query, _)) = r.parse() else { return Vec::new() };
    let Ok(compiled) = crate::rel::compile(query, &sess.resolver()) else { return Vec::new() };
    compiled
        .plan
        .columns()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let table = (!m.org_table.is_empty() && !m.db.is_empty())
                .then(|| sess.engine().table(&format!("{}/{}", m.db, m.org_table)).ok())
                .flatten();
            let base = table.as_ref().and_then(|t| {
                let c = t.schema().columns.iter().find(|c| c.name.eq_ignore_ascii_case(&m.org_name)).cloned()?;
                let comment = t.extras().column_comment(&c.name).to_string();
                Some((c, comment))
            });
            let (mut c, comment) = base.unwrap_or_else(|| (Column::new(&m.name, computed_type(m.ty)), String::new()));
            c.name = names.get(i).cloned().unwrap_or_else(|| m.name.clone());
            c.nullable = !m.not_null;
            c.auto_increment = false;
            (c, comment)
        })
        .collect()
}

/// The column type closest to a computed result's metadata.
fn computed_type(t: crate::plan::MetaType) -> ColumnType {
    use crate::plan::MetaType as M;
    match t {
        M::Int { unsigned, width } if width <= 11 => ColumnType::Int { unsigned },
        M::Int { unsigned, .. } => ColumnType::BigInt { unsigned },
        M::Decimal { precision, scale } => ColumnType::Decimal { precision, scale, unsigned: false },
        M::Double => ColumnType::Double { digits: None, unsigned: false },
        M::Approx { single: true, .. } => ColumnType::Float { digits: None, unsigned: false },
        M::Approx { .. } => ColumnType::Double { digits: None, unsigned: false },
        M::Str { len, fixed: true } => ColumnType::Char { len },
        M::Str { len, .. } => ColumnType::Varchar { len },
        M::Date => ColumnType::Date,
        M::DateTime { fsp } => ColumnType::DateTime { fsp },
        M::Timestamp { fsp } => ColumnType::Timestamp { fsp },
        M::Time { fsp } => ColumnType::Time { fsp },
        M::Binary { len, fixed: true } => ColumnType::Binary { len },
        M::Binary { len, .. } => ColumnType::VarBinary { len },
        M::Null => ColumnType::Binary { len: 0 },
        _ => ColumnType::Text,
    }
}

/// The row of column `i` (`c`) of table `db`.`name`.
fn row(db: &str, name: &str, i: usize, c: &Column, schema: &TableSchema, extras: &TableExtras) -> Vec<Value> {
    let gen = extras.generated_column(&c.name);
    let default = if gen.is_some() || c.auto_increment {
        Value::Null
    } else if c.default_now {
        Value::Str(current_timestamp(c.ty))
    } else {
        c.default
            .as_ref()
            .filter(|d| !d.is_null())
            .map_or(Value::Null, |d| Value::Str(crate::ddl::column_default_text(c, d)))
    };
    let (chars, octets) = lengths(c.ty, c.collation);
    let (precision, scale) = numeric(c.ty);
    let datetime = match c.ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } | ColumnType::Time { fsp } => u(fsp.into()),
        _ => Value::Null,
    };
    let textual = c.ty.is_string() || c.ty.members().is_some();
    let key = if schema.primary_key.contains(&i) {
        "PRI"
    } else if schema.indexes.iter().any(|x| x.unique && x.columns.first() == Some(&i)) {
        "UNI"
    } else if schema.indexes.iter().any(|x| x.columns.first() == Some(&i)) {
        "MUL"
    } else {
        ""
    };
    let extra = if let Some(g) = gen {
        crate::create::generated::extra(g).to_string()
    } else if c.auto_increment {
        "auto_increment".into()
    } else {
        let mut e = Vec::new();
        if c.default_now {
            e.push("DEFAULT_GENERATED".to_string());
        }
        if c.on_update_now {
            e.push(format!("on update {}", current_timestamp(c.ty)));
        }
        e.join(" ")
    };
    vec![
        s("def"),
        s(db),
        s(name),
        Value::Str(c.name.clone()),
        u(i as u64 + 1),
        default,
        s(if c.nullable { "YES" } else { "NO" }),
        s(data_type(c.ty)),
        chars.map_or(Value::Null, u),
        octets.map_or(Value::Null, u),
        precision.map_or(Value::Null, u),
        scale.map_or(Value::Null, u),
        datetime,
        if textual { s(c.collation.charset()) } else { Value::Null },
        if textual { s(c.collation.name()) } else { Value::Null },
        Value::Str(c.sql_type()),
        s(key),
        Value::Str(extra),
        s("select,insert,update,references"),
        s(extras.column_comment(&c.name)),
        Value::Str(gen.map_or(String::new(), |g| g.expr.clone())),
        Value::Null,
    ]
}

/// MySQL 8.0's spelling of a CURRENT_TIMESTAMP default.
fn current_timestamp(ty: ColumnType) -> String {
    match ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } if fsp > 0 => format!("CURRENT_TIMESTAMP({fsp})"),
        _ => "CURRENT_TIMESTAMP".into(),
    }
}

/// DATA_TYPE: the type's name without its parameters.
pub(crate) fn data_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => "tinyint",
        ColumnType::SmallInt { .. } => "smallint",
        ColumnType::MediumInt { .. } => "mediumint",
        ColumnType::Int { .. } => "int",
        ColumnType::BigInt { .. } => "bigint",
        ColumnType::Decimal { .. } => "decimal",
        ColumnType::Float { .. } => "float",
        ColumnType::Double { .. } => "double",
        ColumnType::Char { .. } => "char",
        ColumnType::Varchar { .. } => "varchar",
        ColumnType::Text => "text",
        ColumnType::Date => "date",
        ColumnType::DateTime { .. } => "datetime",
        ColumnType::Timestamp { .. } => "timestamp",
        ColumnType::Time { .. } => "time",
        ColumnType::Binary { .. } => "binary",
        ColumnType::VarBinary { .. } => "varbinary",
        ColumnType::Blob { max_bytes: 255 } => "tinyblob",
        ColumnType::Blob { max_bytes: 65_535 } => "blob",
        ColumnType::Blob { max_bytes: 16_777_215 } => "mediumblob",
        ColumnType::Blob { .. } => "longblob",
        ColumnType::Json => "json",
        ColumnType::Enum { .. } => "enum",
        ColumnType::Set { .. } => "set",
        ColumnType::Year => "year",
        ColumnType::Bit { .. } => "bit",
    }
}

/// CHARACTER_MAXIMUM_LENGTH and CHARACTER_OCTET_LENGTH.
pub(crate) fn lengths(ty: ColumnType, coll: Collation) -> (Option<u64>, Option<u64>) {
    let per_char: u64 = if coll.charset() == "latin1" { 1 } else { 4 };
    match ty {
        ColumnType::Char { len } | ColumnType::Varchar { len } => (Some(len.into()), Some(u64::from(len) * per_char)),
        ColumnType::Text => (Some(65_535), Some(65_535)),
        ColumnType::Binary { len } | ColumnType::VarBinary { len } => (Some(len.into()), Some(len.into())),
        ColumnType::Blob { max_bytes } => (Some(max_bytes.into()), Some(max_bytes.into())),
        ColumnType::Enum { members } => {
            let n = members.names.iter().map(|m| m.chars().count()).max().unwrap_or(0) as u64;
            (Some(n), Some(n * per_char))
        }
        ColumnType::Set { members } => {
            let n = members.names.iter().map(|m| m.chars().count() + 1).sum::<usize>().saturating_sub(1) as u64;
            (Some(n), Some(n * per_char))
        }
        _ => (None, None),
    }
}

/// NUMERIC_PRECISION and NUMERIC_SCALE.
pub(crate) fn numeric(ty: ColumnType) -> (Option<u64>, Option<u64>) {
    match ty {
        ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => (Some(3), Some(0)),
        ColumnType::SmallInt { .. } => (Some(5), Some(0)),
        ColumnType::MediumInt { unsigned } => (Some(if unsigned { 8 } else { 7 }), Some(0)),
        ColumnType::Int { .. } => (Some(10), Some(0)),
        ColumnType::BigInt { unsigned } => (Some(if unsigned { 20 } else { 19 }), Some(0)),
        ColumnType::Decimal { precision, scale, .. } => (Some(precision.into()), Some(scale.into())),
        ColumnType::Float { digits, .. } => match digits {
            Some((m, d)) => (Some(m.into()), Some(d.into())),
            None => (Some(12), None),
        },
        ColumnType::Double { digits, .. } => match digits {
            Some((m, d)) => (Some(m.into()), Some(d.into())),
            None => (Some(22), None),
        },
        ColumnType::Bit { bits } => (Some(bits.into()), None),
        _ => (None, None),
    }
}
