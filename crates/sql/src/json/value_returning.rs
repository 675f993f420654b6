//! JSON_VALUE(doc, path RETURNING type), MySQL 8.0.21's form (MariaDB's
//! JSON_VALUE has two arguments only; the MySQL 8.0 manual is followed).
//!
//! The call is bound as [`NAME`] with the type's spelling as a third,
//! literal argument, read back when the result's metadata is inferred and
//! when the value is made. The scalar at the path is converted into the
//! type as JSON_TABLE converts a column's value (`table::convert`, a
//! strict INSERT's rules): what does not convert, nothing at the path, an
//! array or object (except for JSON), and several values are NULL — the
//! implied NULL ON EMPTY and NULL ON ERROR. The explicit ON EMPTY / ON
//! ERROR clauses do not parse (1064): the parser has no syntax for them.

use quire_engine::row::json::Json;
use quire_engine::row::{Column, ColumnType, Value};
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::Expr;
use crate::plan::MetaType;

/// The internal name of JSON_VALUE with RETURNING.
pub const NAME: &str = "json_value_returning";

/// The column type a RETURNING clause names: CAST's spellings (SIGNED,
/// UNSIGNED, CHAR[(n)]) and column types (DECIMAL(p, s), DOUBLE, FLOAT,
/// DATE, TIME, DATETIME, YEAR, JSON).
pub fn column_type(dt: &ast::DataType) -> Result<ColumnType> {
    let spelled = dt.to_string().to_ascii_uppercase();
    let base = spelled.split(['(', ' ']).next().unwrap_or("");
    Ok(match base {
        "SIGNED" => ColumnType::BigInt { unsigned: false },
        "UNSIGNED" => ColumnType::BigInt { unsigned: true },
        "CHAR" if !spelled.contains('(') => ColumnType::Text,
        "CHAR" => match crate::ddl::column_type(dt, "json_value")? {
            ColumnType::Char { len } => ColumnType::Varchar { len },
            other => other,
        },
        _ => crate::ddl::column_type(dt, "json_value")?,
    })
}

/// The bound call: `args` are the document and the path (1582 for
/// another count).
pub fn bind(args: Vec<Expr>, ty: ColumnType) -> Result<Expr> {
    if args.len() != 2 {
        return Err(SqlError::new(
            1582,
            "42000",
            "Incorrect parameter count in the call to native function 'json_value'",
        ));
    }
    let mut args = args;
    args.push(Expr::Lit(Value::Str(ty.sql())));
    Ok(Expr::Func(NAME.into(), args))
}

/// The type the third argument spells.
fn type_of(spelled: &Value) -> Result<ColumnType> {
    let Value::Str(s) = spelled else { return Err(SqlError::internal("JSON_VALUE's type is not spelled")) };
    let dt = sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(s)
        .and_then(|mut p| p.parse_data_type())
        .map_err(|e| SqlError::internal(format!("JSON_VALUE's type {s}: {e}")))?;
    crate::ddl::column_type(&dt, "json_value")
}

/// The result's metadata: the RETURNING type's.
pub fn infer(args: &[Expr]) -> MetaType {
    match args.get(2) {
        Some(Expr::Lit(v)) => type_of(v).map_or(MetaType::Text, MetaType::of_column),
        _ => MetaType::Text,
    }
}

/// The value (see the module note).
pub fn call(args: &[Value]) -> Result<Value> {
    let ty = type_of(&args[2])?;
    let Some(d) = super::doc(&args[0], 1, "json_value")? else { return Ok(Value::Null) };
    let Some(path) = super::path_arg(&args[1])? else { return Ok(Value::Null) };
    let found = path.find(&d);
    let one = match found.as_slice() {
        [one] => *one,
        _ => return Ok(Value::Null),
    };
    if ty == ColumnType::Json {
        return Ok(Value::Json(Box::new(one.clone())));
    }
    let v = match one {
        Json::Null | Json::Array(_) | Json::Object(_) => return Ok(Value::Null),
        scalar => super::table::scalar_of(scalar, ty),
    };
    let col = Column::new("json_value", ty);
    Ok(super::table::convert(&col, v, "", 1, &super::table::Quiet).unwrap_or(Value::Null))
}
