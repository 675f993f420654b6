//! DDL: CREATE / DROP TABLE, CREATE / DROP INDEX, TRUNCATE, and the
//! schema text SHOW CREATE TABLE prints. Column types are read from the
//! parser's type spelling, so every MySQL synonym it accepts (INTEGER,
//! INT(11), BIGINT UNSIGNED, CHARACTER VARYING ...) maps the same way.

use quire_engine::row::{
    ClusterKey, Column, ColumnType, IndexDef, TableExtras, TableSchema, Value, BLOB_SIZES, ROW_ID_COLUMN,
};
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::{self, Scope};

/// A column type from its SQL spelling (`name` is the column's, for
/// messages).
pub fn column_type(dt: &ast::DataType, name: &str) -> Result<ColumnType> {
    if let Some(t) = crate::choice::declared(dt, name) {
        return t;
    }
    let s = dt.to_string().to_ascii_uppercase();
    let unsigned = s.contains("UNSIGNED");
    let base = s.split(['(', ' ']).next().unwrap_or("").to_string();
    let args: Vec<u32> = s
        .find('(')
        .and_then(|i| s[i + 1..].split(')').next())
        .map(|a| a.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_default();
    let arg = |i: usize, d: u32| args.get(i).copied().unwrap_or(d);
    Ok(match base.as_str() {
        "BOOL" | "BOOLEAN" => ColumnType::TinyInt1 { unsigned },
        "TINYINT" if args.first() == Some(&1) => ColumnType::TinyInt1 { unsigned },
        "TINYINT" => ColumnType::TinyInt { unsigned },
        "SMALLINT" => ColumnType::SmallInt { unsigned },
        "MEDIUMINT" => ColumnType::MediumInt { unsigned },
        "INT" | "INTEGER" | "INT4" => ColumnType::Int { unsigned },
        "BIGINT" | "INT8" => ColumnType::BigInt { unsigned },
        "DECIMAL" | "DEC" | "NUMERIC" => {
            let p = arg(0, 10).min(65) as u8;
            let sc = arg(1, 0).min(30) as u8;
            if sc > p {
                return Err(SqlError::new(
                    1427,
                    "42000",
                    "For float(M,D), double(M,D) or decimal(M,D), M must be >= D",
                ));
            }
            ColumnType::Decimal { precision: p, scale: sc, unsigned }
        }
        "CHAR" | "CHARACTER" if !s.contains("VARYING") => ColumnType::Char { len: arg(0, 1) },
        "VARCHAR" | "CHARACTER" | "NVARCHAR" => ColumnType::Varchar { len: arg(0, 255) },
        "TEXT" | "TINYTEXT" | "MEDIUMTEXT" | "LONGTEXT" => ColumnType::Text,
        // MySQL 8.0's JSON type (MariaDB's is LONGTEXT with a check).
        "JSON" => ColumnType::Json,
        // UNSIGNED FLOAT / DOUBLE / DECIMAL (deprecated in MySQL 8.0, still
        // accepted by it and by MariaDB): negative values store as 0.
        "FLOAT" | "DOUBLE" | "REAL" | "FLOAT4" | "FLOAT8" => approx_type(&base, &args, name, unsigned)?,
        "DATE" => ColumnType::Date,
        "DATETIME" => ColumnType::DateTime { fsp: arg(0, 0).min(6) as u8 },
        "TIMESTAMP" => ColumnType::Timestamp { fsp: arg(0, 0).min(6) as u8 },
        "TIME" => ColumnType::Time { fsp: arg(0, 0).min(6) as u8 },
        "BINARY" => ColumnType::Binary { len: binary_len(arg(0, 1), 255, name)? },
        "VARBINARY" => match args.first() {
            Some(&n) => ColumnType::VarBinary { len: binary_len(n, 65_532, name)? },
            // MySQL's grammar needs the length (1064).
            None => return Err(SqlError::syntax(format!("VARBINARY needs a length (column '{name}')"))),
        },
        "TINYBLOB" => ColumnType::Blob { max_bytes: BLOB_SIZES[0] },
        "MEDIUMBLOB" => ColumnType::Blob { max_bytes: BLOB_SIZES[2] },
        "LONGBLOB" => ColumnType::Blob { max_bytes: BLOB_SIZES[3] },
        // BLOB(n): the smallest BLOB type that holds n bytes.
        "BLOB" => ColumnType::Blob {
            max_bytes: match args.first() {
                None => BLOB_SIZES[1],
                Some(&n) => BLOB_SIZES.iter().copied().find(|&m| n <= m).unwrap_or(BLOB_SIZES[3]),
            },
        },
        // YEAR(4) is YEAR (MariaDB prints `year(4)`). Any other width is
        // MySQL 8.0's 1818 (it removed the two-digit YEAR(2) that MariaDB
        // 10.11 still creates): applications written for MySQL 8.0 never
        // declare it, and a two-digit column would read back differently
        // from every other YEAR.
        "YEAR" => match args.first() {
            None | Some(4) => ColumnType::Year,
            Some(_) => return Err(SqlError::new(1818, "HY000", "Supports only YEAR or YEAR(4) column.")),
        },
        // BIT is BIT(1), and so is BIT(0) (as MariaDB makes it).
        "BIT" if !s.contains("VARYING") => match arg(0, 1) {
            n @ 0..=64 => ColumnType::Bit { bits: n.max(1) as u8 },
            _ => {
                return Err(SqlError::new(1439, "42000", format!("Display width out of range for '{name}' (max = 64)")))
            }
        },
        _ => return Err(SqlError::unsupported(format!("column type {s}"))),
    })
}

/// A BINARY / VARBINARY length: at most `max` (1074 beyond, as MySQL
/// says for a column too long to be that type).
fn binary_len(n: u32, max: u32, name: &str) -> Result<u32> {
    if n > max {
        return Err(SqlError::new(
            1074,
            "42000",
            format!("Column length too big for column '{name}' (max = {max}); use BLOB or TEXT instead"),
        ));
    }
    Ok(n)
}

/// A CHAR / VARCHAR / TEXT type declared `CHARACTER SET binary`: the
/// binary type it is (as MySQL and MariaDB make it).
fn binary_charset_type(ty: ColumnType, spelled: &str) -> ColumnType {
    match ty {
        ColumnType::Char { len } => ColumnType::Binary { len },
        ColumnType::Varchar { len } => ColumnType::VarBinary { len },
        ColumnType::Text => {
            let s = spelled.to_ascii_uppercase();
            let i = if s.starts_with("TINYTEXT") {
                0
            } else if s.starts_with("MEDIUMTEXT") {
                2
            } else if s.starts_with("LONGTEXT") {
                3
            } else {
                1
            };
            ColumnType::Blob { max_bytes: BLOB_SIZES[i] }
        }
        other => other,
    }
}

/// FLOAT / FLOAT(p) / FLOAT(M,D) / DOUBLE [PRECISION] / DOUBLE(M,D) /
/// REAL, as MySQL maps them: FLOAT(p) is a single for p <= 24, a double
/// for p <= 53, error 1063 beyond; `(M, D)` needs D <= M (1427), M <= 255
/// (1439) and D <= 30 (1425).
fn approx_type(base: &str, args: &[u32], name: &str, unsigned: bool) -> Result<ColumnType> {
    let single = matches!(base, "FLOAT" | "FLOAT4");
    let digits = match *args {
        [] => None,
        [p] if single => {
            return match p {
                0..=24 => Ok(ColumnType::Float { digits: None, unsigned }),
                25..=53 => Ok(ColumnType::Double { digits: None, unsigned }),
                _ => Err(SqlError::new(1063, "42000", format!("Incorrect column specifier for column '{name}'"))),
            }
        }
        [m, d] => {
            if d > m {
                return Err(SqlError::new(
                    1427,
                    "42000",
                    format!("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{name}')"),
                ));
            }
            if m > 255 {
                return Err(SqlError::new(
                    1439,
                    "42000",
                    format!("Display width out of range for '{name}' (max = 255)"),
                ));
            }
            if d > 30 {
                return Err(SqlError::new(
                    1425,
                    "42000",
                    format!("Too big scale {d} specified for '{name}'. Maximum is 30"),
                ));
            }
            Some((m as u8, d as u8))
        }
        _ => return Err(SqlError::syntax(format!("bad {base} type for column '{name}'"))),
    };
    Ok(if single { ColumnType::Float { digits, unsigned } } else { ColumnType::Double { digits, unsigned } })
}

/// A column's DEFAULT: a literal, or CURRENT_TIMESTAMP (and its
/// synonyms) for a DATETIME or TIMESTAMP column, whose fsp it takes (as
/// MariaDB, which also accepts other expressions: quire has no expression
/// defaults yet, so those are 1067 as MySQL 8.0 says for them).
fn set_default(col: &mut Column, e: &ast::Expr) -> Result<()> {
    let invalid = || SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name));
    let mut scope = Scope { table: None, columns: &[], aggs: None, params: 0, place: "default", rel: None };
    let compiled = expr::compile(e, &mut scope)?;
    // MySQL 8.0 refuses a literal default on a JSON column (1101);
    // MariaDB's JSON is a LONGTEXT and takes one.
    if col.ty == ColumnType::Json && !matches!(compiled, expr::Expr::Lit(Value::Null)) {
        return Err(json_default_error(&col.name));
    }
    match compiled {
        // A binary default is stored as the column holds it (BINARY(n)
        // padded), as SHOW CREATE TABLE prints it.
        expr::Expr::Lit(v) if col.ty.is_binary() && !v.is_null() => {
            col.default = Some(col.coerce(v).map_err(|_| invalid())?);
            col.default_now = false;
            Ok(())
        }
        // ENUM / SET / YEAR / BIT defaults are kept as the column's values
        // (an ENUM's takes its members), checked strictly.
        expr::Expr::Lit(v) if !v.is_null() && col.ty.members().is_some() => {
            col.default = Some(crate::choice::default_value(col, v).ok_or_else(invalid)?);
            col.default_now = false;
            Ok(())
        }
        // A DECIMAL's default takes the column's scale (`DEFAULT 0` on
        // DECIMAL(7,2) is 0.00, as MariaDB shows it); out of range is 1067.
        expr::Expr::Lit(v)
            if !v.is_null()
                && matches!(col.ty, ColumnType::Year | ColumnType::Bit { .. } | ColumnType::Decimal { .. }) =>
        {
            col.default = Some(col.coerce(v).map_err(|_| invalid())?);
            col.default_now = false;
            Ok(())
        }
        expr::Expr::Lit(v) => {
            col.default = Some(v);
            col.default_now = false;
            Ok(())
        }
        expr::Expr::Func(f, _) if is_now(&f) && is_datetime(col.ty) => {
            col.default = None;
            col.default_now = true;
            Ok(())
        }
        _ => Err(invalid()),
    }
}

/// `ON UPDATE CURRENT_TIMESTAMP[(n)]` (1294 on other columns or with
/// another expression, as MariaDB).
fn set_on_update(col: &mut Column, e: &ast::Expr) -> Result<()> {
    let mut scope = Scope { table: None, columns: &[], aggs: None, params: 0, place: "default", rel: None };
    match expr::compile(e, &mut scope) {
        Ok(expr::Expr::Func(f, _)) if is_now(&f) && is_datetime(col.ty) => {
            col.on_update_now = true;
            Ok(())
        }
        _ => Err(SqlError::new(1294, "HY000", format!("Invalid ON UPDATE clause for '{}' column", col.name))),
    }
}

fn is_now(f: &str) -> bool {
    matches!(f, "now" | "current_timestamp" | "localtime" | "localtimestamp")
}

fn is_datetime(t: ColumnType) -> bool {
    matches!(t, ColumnType::DateTime { .. } | ColumnType::Timestamp { .. })
}

/// The engine schema of a CREATE TABLE.
/// The name MySQL gives a key the statement does not name: its first
/// column's name, with `_2`, `_3`, ... after it while a key of the table
/// (`taken`) has that name or it is PRIMARY (`make_unique_key_name`).
pub fn generated_key_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) && !base.eq_ignore_ascii_case("PRIMARY") {
        return base.to_string();
    }
    (2..).map(|n| format!("{base}_{n}")).find(|n| !taken(n)).unwrap_or_default()
}

pub fn schema_of(ct: &ast::CreateTable) -> Result<TableSchema> {
    let mut columns = Vec::new();
    let mut primary: Vec<usize> = Vec::new();
    let mut indexes: Vec<IndexDef> = Vec::new();
    let names: Vec<String> = ct.columns.iter().map(|c| c.name.value.clone()).collect();
    let table_collation = crate::create::charset::table_default(ct)?;
    for (pos, cd) in ct.columns.iter().enumerate() {
        crate::catalog::check_identifier(&cd.name.value)?;
        if cd.name.value.eq_ignore_ascii_case(ROW_ID_COLUMN) {
            // InnoDB's hidden system column (and MariaDB's answer).
            return Err(SqlError::new(1166, "42000", format!("Incorrect column name '{}'", cd.name.value)));
        }
        if names[..pos].iter().any(|n| n.eq_ignore_ascii_case(&cd.name.value)) {
            return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", cd.name.value)));
        }
        let mut col = Column::new(&cd.name.value, column_type(&cd.data_type, &cd.name.value)?);
        crate::create::charset::apply_column(&mut col, &cd.options, table_collation)?;
        crate::choice::check_members(&col)?;
        for o in &cd.options {
            match &o.option {
                ast::ColumnOption::NotNull => col.nullable = false,
                ast::ColumnOption::Null => col.nullable = true,
                ast::ColumnOption::Default(e) => set_default(&mut col, e)?,
                ast::ColumnOption::OnUpdate(e) => set_on_update(&mut col, e)?,
                ast::ColumnOption::CharacterSet(cs) if cs.to_string().eq_ignore_ascii_case("binary") => {
                    col.ty = binary_charset_type(col.ty, &cd.data_type.to_string());
                }
                // COMMENTs and CHECKs are read by `create::options` /
                // `create::check`, CHARACTER SET and COLLATE by `create::charset`.
                ast::ColumnOption::Comment(_)
                | ast::ColumnOption::CharacterSet(_)
                | ast::ColumnOption::Collation(_)
                | ast::ColumnOption::Check(_) => {}
                // Read by `create::generated::define`.
                ast::ColumnOption::Generated { .. } => {}
                o if crate::create::zerofill::is_mark(o) => crate::create::zerofill::apply(&mut col, &cd.data_type)?,
                // Read by `create::charset::apply_column`.
                o if crate::create::binary_collation::is_mark(o) => {}
                other => {
                    let text = other.to_string().to_ascii_uppercase();
                    if text.contains("AUTO_INCREMENT") {
                        col.auto_increment = true;
                    } else if text.starts_with("PRIMARY KEY") {
                        primary = vec![pos];
                        col.nullable = false;
                    } else if text.starts_with("UNIQUE") {
                        indexes.push(IndexDef {
                            name: generated_key_name(&cd.name.value, |n| {
                                indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n))
                            }),
                            columns: vec![pos],
                            unique: true,
                            prefix: vec![],
                        });
                    } else {
                        return Err(SqlError::unsupported(format!("column option {other}")));
                    }
                }
            }
        }
        if crate::create::generated::clause(cd)?.is_some() {
            crate::create::generated::check_attributes(&col)?;
        }
        if col.auto_increment {
            col.nullable = false; // as MariaDB and MySQL make it
        }
        columns.push(col);
    }
    for c in &ct.constraints {
        match c {
            ast::TableConstraint::PrimaryKey(pk) => {
                primary = crate::create::prefix::primary_parts(&pk.columns, &columns)?;
            }
            ast::TableConstraint::Unique(u) => {
                let (cols, prefix) = crate::create::prefix::key_parts(&u.columns, &columns)?;
                let name = u.index_name.as_ref().or(u.name.as_ref()).map(|i| i.value.clone()).unwrap_or_else(|| {
                    generated_key_name(&names[cols[0]], |n| indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n)))
                });
                crate::catalog::check_identifier(&name)?;
                indexes.push(IndexDef { name, columns: cols, unique: true, prefix });
            }
            ast::TableConstraint::Index(ix) => {
                let (cols, prefix) = crate::create::prefix::key_parts(&ix.columns, &columns)?;
                let name = ix.name.as_ref().map(|i| i.value.clone()).unwrap_or_else(|| {
                    generated_key_name(&names[cols[0]], |n| indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n)))
                });
                crate::catalog::check_identifier(&name)?;
                indexes.push(IndexDef { name, columns: cols, unique: false, prefix });
            }
            // Read by `fk::define` once the schema is known.
            ast::TableConstraint::ForeignKey(_) => {}
            // Read by `create::check::define`.
            ast::TableConstraint::Check(_) => {}
            other => return Err(SqlError::unsupported(format!("constraint {other}"))),
        }
    }
    let mut cluster = ClusterKey::Primary;
    if primary.is_empty() {
        // InnoDB clusters on the first UNIQUE key whose columns are all
        // NOT NULL (shown as a UNIQUE KEY still), else on a hidden row id.
        // (A key on prefixes identifies no row by its columns: never.)
        if let Some(i) = indexes
            .iter()
            .position(|ix| ix.unique && !ix.has_prefix() && ix.columns.iter().all(|&c| !columns[c].nullable))
        {
            let ix = indexes.remove(i);
            primary = ix.columns;
            cluster = ClusterKey::Unique(ix.name);
        } else {
            check_duplicate_keys(&indexes)?;
            check_auto_increment(&columns, &primary, &indexes)?;
            check_key_types(&columns, &primary, &indexes)?;
            return Ok(TableSchema::with_row_id(columns, indexes));
        }
    }
    check_duplicate_keys(&indexes)?;
    if let ClusterKey::Unique(n) = &cluster {
        if indexes.iter().any(|ix| ix.name.eq_ignore_ascii_case(n)) {
            return Err(SqlError::new(1061, "42000", format!("Duplicate key name '{n}'")));
        }
    }
    check_auto_increment(&columns, &primary, &indexes)?;
    check_key_types(&columns, &primary, &indexes)?;
    for &c in &primary {
        columns[c].nullable = false;
    }
    Ok(TableSchema { columns, primary_key: primary, indexes, cluster })
}

/// A TEXT or BLOB column in a key needs a prefix length (`create::prefix`):
/// 1170, as MySQL says.
pub fn check_key_types(columns: &[Column], primary: &[usize], indexes: &[IndexDef]) -> Result<()> {
    let whole = |ix: &IndexDef| {
        ix.columns.iter().enumerate().filter(|(i, _)| ix.prefix_of(*i).is_none()).map(|(_, c)| *c).collect::<Vec<_>>()
    };
    let keyed: Vec<usize> = primary.iter().copied().chain(indexes.iter().flat_map(whole)).collect();
    for c in keyed {
        if columns[c].ty == ColumnType::Json {
            return Err(json_key_error(&columns[c].name));
        }
        if matches!(columns[c].ty, ColumnType::Text | ColumnType::Blob { .. }) {
            return Err(SqlError::new(
                1170,
                "42000",
                format!("BLOB/TEXT column '{}' used in key specification without a key length", columns[c].name),
            ));
        }
    }
    Ok(())
}

/// 1101: a JSON column takes no default but NULL (MySQL 8.0).
pub fn json_default_error(column: &str) -> SqlError {
    SqlError::new(1101, "42000", format!("BLOB, TEXT, GEOMETRY or JSON column '{column}' can't have a default value"))
}

/// 3152: a JSON column cannot be indexed (MySQL indexes a path of it
/// through a generated column).
pub fn json_key_error(column: &str) -> SqlError {
    SqlError::new(
        3152,
        "42000",
        format!("JSON column '{column}' supports indexing only via generated columns on a specified JSON path."),
    )
}

fn check_duplicate_keys(indexes: &[IndexDef]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for ix in indexes {
        if !seen.insert(ix.name.to_ascii_lowercase()) || ix.name.eq_ignore_ascii_case("PRIMARY") {
            return Err(SqlError::new(1061, "42000", format!("Duplicate key name '{}'", ix.name)));
        }
    }
    Ok(())
}

/// One AUTO_INCREMENT column at most, and it must lead some key (the
/// clustering one or an index), as InnoDB requires: 1075 otherwise.
fn check_auto_increment(columns: &[Column], primary: &[usize], indexes: &[IndexDef]) -> Result<()> {
    let autos: Vec<usize> = (0..columns.len()).filter(|&c| columns[c].auto_increment).collect();
    let keyed = |c: usize| primary.first() == Some(&c) || indexes.iter().any(|ix| ix.columns.first() == Some(&c));
    if autos.len() > 1 || autos.iter().any(|&c| !keyed(c)) {
        return Err(SqlError::new(
            1075,
            "42000",
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        ));
    }
    Ok(())
}

/// A DEFAULT as SHOW COLUMNS shows it: its text (a YEAR's four digits, a
/// BIT's `b'..'`, as MariaDB).
pub fn default_text(ty: ColumnType, v: &Value) -> String {
    match (ty, v) {
        (ColumnType::Year | ColumnType::Bit { .. }, _) => default_sql(ty, v),
        _ => crate::expr::as_string(v),
    }
}

/// Column `c`'s DEFAULT as SHOW COLUMNS and information_schema show it:
/// [`default_text`], padded on a ZEROFILL column (MariaDB's `0007`).
pub fn column_default_text(c: &Column, v: &Value) -> String {
    match c.zerofill {
        Some(_) if !v.is_null() => crate::create::zerofill::padded(c.zerofill, default_text(c.ty, v)),
        _ => default_text(c.ty, v),
    }
}

/// A DEFAULT as SHOW CREATE TABLE prints it: quoted, but a YEAR's bare
/// and a BIT's as `b'..'` (MariaDB's forms).
pub fn default_sql(ty: ColumnType, v: &Value) -> String {
    match (ty, v) {
        (ColumnType::Year, Value::Int(y)) => format!("{y:04}"),
        (ColumnType::Bit { .. }, Value::UInt(n)) => crate::yearbit::bit_literal(*n),
        (_, Value::Choice(c)) => quote(&Value::Str(c.text())),
        _ => quote(v),
    }
}

fn quote(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")),
        Value::Bytes(b) => crate::binary::default_sql(b),
        other => format!("'{other}'"),
    }
}

/// SHOW CREATE TABLE's text.
pub fn create_table_sql(name: &str, s: &TableSchema, next_auto_increment: u64) -> String {
    create_table_sql_with(name, s, next_auto_increment, &[])
}

/// `current_timestamp()` / `current_timestamp(3)` for a column of type
/// `ty`, as MariaDB prints it in SHOW CREATE TABLE and SHOW COLUMNS.
pub fn current_timestamp_sql(ty: ColumnType) -> String {
    match ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } if fsp > 0 => format!("current_timestamp({fsp})"),
        _ => "current_timestamp()".into(),
    }
}

/// SHOW CREATE TABLE's text, `constraints` (FOREIGN KEYs) last.
pub fn create_table_sql_with(name: &str, s: &TableSchema, next_auto_increment: u64, constraints: &[String]) -> String {
    create_table_sql_full(name, s, next_auto_increment, constraints, &TableExtras::default())
}

/// SHOW CREATE TABLE's text with the table's COMMENTs (`extras`).
pub fn create_table_sql_full(
    name: &str,
    s: &TableSchema,
    next_auto_increment: u64,
    constraints: &[String],
    extras: &TableExtras,
) -> String {
    let mut lines = Vec::new();
    let table_collation = crate::create::charset::table_collation(extras);
    for c in s.visible_columns() {
        let mut l = format!("  `{}` {}", c.name, c.sql_type());
        if c.ty.is_string() || c.ty.members().is_some() {
            l.push_str(&crate::create::charset::column_clause(c.collation, table_collation));
        }
        if let Some(g) = extras.generated_column(&c.name) {
            // MySQL 8.0's form: no DEFAULT, NOT NULL after the clause.
            l.push_str(&crate::create::generated::column_sql(g));
            if !c.nullable {
                l.push_str(" NOT NULL");
            }
            let comment = extras.column_comment(&c.name);
            if !comment.is_empty() {
                l.push_str(&format!(" COMMENT {}", crate::create::options::quoted(comment)));
            }
            lines.push(l);
            continue;
        }
        if !c.nullable {
            l.push_str(" NOT NULL");
        } else if matches!(c.ty, ColumnType::Timestamp { .. }) {
            // As MariaDB and MySQL print a nullable TIMESTAMP.
            l.push_str(" NULL");
        }
        if c.auto_increment {
            l.push_str(" AUTO_INCREMENT");
        } else if c.default_now {
            l.push_str(&format!(" DEFAULT {}", current_timestamp_sql(c.ty)));
        } else if let (Some(d @ (Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_))), Some(_)) =
            (&c.default, c.zerofill)
        {
            // Padded and quoted, as MySQL 8.0 prints it (MariaDB leaves
            // the quotes out, `DEFAULT 0007`, of every number).
            l.push_str(&format!(" DEFAULT '{}'", column_default_text(c, d)));
        } else if let Some(d) = &c.default {
            l.push_str(&format!(" DEFAULT {}", default_sql(c.ty, d)));
        } else if c.nullable && !matches!(c.ty, ColumnType::Text) {
            l.push_str(" DEFAULT NULL");
        }
        if c.on_update_now {
            l.push_str(&format!(" ON UPDATE {}", current_timestamp_sql(c.ty)));
        }
        let comment = extras.column_comment(&c.name);
        if !comment.is_empty() {
            l.push_str(&format!(" COMMENT {}", crate::create::options::quoted(comment)));
        }
        lines.push(l);
    }
    let cols = |v: &[usize]| v.iter().map(|&c| format!("`{}`", s.columns[c].name)).collect::<Vec<_>>().join(",");
    match &s.cluster {
        ClusterKey::Primary => lines.push(format!("  PRIMARY KEY ({})", cols(&s.primary_key))),
        ClusterKey::Unique(name) => lines.push(format!("  UNIQUE KEY `{name}` ({})", cols(&s.primary_key))),
        ClusterKey::RowId => {}
    }
    for ix in &s.indexes {
        let kind = if ix.unique { "UNIQUE KEY" } else { "KEY" };
        let parts = crate::create::prefix::parts_sql(ix, &|c| s.columns[c].name.clone());
        lines.push(format!("  {kind} `{}` ({parts})", ix.name));
    }
    lines.extend(constraints.iter().map(|c| format!("  {c}")));
    let auto = if s.columns.iter().any(|c| c.auto_increment) && next_auto_increment > 1 {
        format!(" AUTO_INCREMENT={next_auto_increment}")
    } else {
        String::new()
    };
    let comment = if extras.comment.is_empty() {
        String::new()
    } else {
        format!(" COMMENT={}", crate::create::options::quoted(&extras.comment))
    };
    format!(
        "CREATE TABLE `{name}` (\n{}\n) ENGINE=InnoDB{auto} DEFAULT CHARSET={} COLLATE={}{comment}",
        lines.join(",\n"),
        table_collation.charset(),
        table_collation.name()
    )
}
