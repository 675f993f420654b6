//! JSON in expressions: the JSON functions, `->` / `->>`, CAST(.. AS
//! JSON), and how JSON values meet SQL values (conversion, comparison,
//! result types). The JSON value itself, its text and its storage are
//! the engine's (`quire_engine::row::json`).
//!
//! MySQL 8.0 is followed, not MariaDB (whose JSON is LONGTEXT and whose
//! functions return text): applications written for MySQL read JSON
//! columns and function results as MySQL normalises them, and a JSON value
//! stays a JSON value through expressions. Invariants:
//! 1. A value is JSON ([`Value::Json`]) exactly when MySQL's is of type
//!    JSON: a JSON column, JSON_EXTRACT / `->`, JSON_OBJECT, JSON_ARRAY,
//!    JSON_SET ..., CAST(.. AS JSON). Where a function takes a document
//!    (`json_doc`), a string is parsed (3141 when it is not JSON) and
//!    anything but a string or JSON is 3146; where it takes a value
//!    (`val`), a string is a JSON string, a number a number, a JSON value
//!    itself, and a boolean expression (`1 = 1`, TRUE) `true` / `false`
//!    (marked when compiled: [`mark_booleans`]).
//! 2. NULL in a document or path argument makes the result NULL; a path
//!    that names nothing makes JSON_EXTRACT NULL.
//! 3. Documents these functions build nest at most `MAX_DEPTH` deep
//!    (3157 beyond).
//!
//! Where MariaDB differs (its answers are the oracle where the two
//! agree; the tests compare those): MariaDB returns documents as text as
//! written (`[1,2]`), MySQL and quire normalised (`[1, 2]`, keys sorted
//! by length); MariaDB warns and returns NULL for invalid JSON arguments
//! (4038), MySQL and quire fail with 3141; MariaDB has no `->` / `->>`.

pub mod merge;
pub mod modify;
pub mod path;
pub mod pretty;
pub mod search;
pub mod search_text;
pub mod storage;
pub mod table;
pub mod value_returning;

use std::borrow::Cow;
use std::cmp::Ordering;

use quire_engine::row::json::text::{self as json_text, ParseError};
use quire_engine::row::json::{order, Json, Object};
use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::expr::Expr;
use crate::plan::MetaType;
use path::Path;

/// The JSON functions, with their argument counts (checked when
/// compiled, 1582 otherwise).
pub const FUNCS: &[(&str, usize, usize)] = &[
    ("json_extract", 2, usize::MAX),
    ("json_unquote", 1, 1),
    ("json_quote", 1, 1),
    ("json_object", 0, usize::MAX),
    ("json_array", 0, usize::MAX),
    ("json_contains", 2, 3),
    ("json_contains_path", 3, usize::MAX),
    ("json_set", 3, usize::MAX),
    ("json_insert", 3, usize::MAX),
    ("json_replace", 3, usize::MAX),
    ("json_remove", 2, usize::MAX),
    ("json_array_append", 3, usize::MAX),
    ("json_type", 1, 1),
    ("json_valid", 1, 1),
    ("json_length", 1, 2),
    ("json_depth", 1, 1),
    ("json_keys", 1, 2),
    ("json_array_insert", 3, usize::MAX),
    ("json_merge_preserve", 2, usize::MAX),
    ("json_merge", 2, usize::MAX),
    ("json_merge_patch", 2, usize::MAX),
    ("json_search", 3, usize::MAX),
    ("json_value", 2, 2),
    ("json_pretty", 1, 1),
    ("json_storage_size", 1, 1),
    ("json_storage_free", 1, 1),
    ("json_overlaps", 2, 2),
    (MEMBER_OF, 2, 2),
];

/// MySQL 8.0's JSON functions quire has not built: 1235, not 1305.
const NOT_BUILT: &[&str] = &["json_table", "json_schema_valid", "json_schema_validation_report"];

/// The internal name of CAST(.. AS JSON).
pub const CAST: &str = "cast_json";
/// Marks a boolean expression given as a JSON value (invariant 1).
const BOOL: &str = "json_bool";
/// The internal name of `value MEMBER OF (json_array)`.
pub const MEMBER_OF: &str = "json_member_of";

/// Whether `name` is one of this module's functions.
pub fn is_func(name: &str) -> bool {
    name == CAST || name == BOOL || name == value_returning::NAME || FUNCS.iter().any(|(n, ..)| *n == name)
}

/// 1235 for a JSON function MySQL has and quire has not built.
pub fn not_built(name: &str) -> Option<SqlError> {
    NOT_BUILT.contains(&name).then(|| SqlError::unsupported(format!("the JSON function {}()", name.to_uppercase())))
}

fn param_count(name: &str) -> SqlError {
    SqlError::new(1582, "42000", format!("Incorrect parameter count in the call to native function '{name}'"))
}

/// 3141: a document argument that is not JSON text.
fn invalid_text(e: ParseError, arg: usize, func: &str) -> SqlError {
    match e {
        ParseError::Syntax { message, position } => SqlError::new(
            3141,
            "22032",
            format!("Invalid JSON text in argument {arg} to function {func}: \"{message}\" at position {position}."),
        ),
        ParseError::TooDeep => too_deep(),
    }
}

/// 3140: a value stored into a JSON column that is not JSON text.
pub fn invalid_column_text(e: ParseError, table: &str, column: &str) -> SqlError {
    match e {
        ParseError::Syntax { message, position } => column_error(message, position, table, column),
        ParseError::TooDeep => too_deep(),
    }
}

fn column_error(message: &str, position: usize, table: &str, column: &str) -> SqlError {
    SqlError::new(
        3140,
        "22032",
        format!("Invalid JSON text: \"{message}\" at position {position} in value for column '{table}.{column}'."),
    )
}

/// 3157.
pub fn too_deep() -> SqlError {
    SqlError::new(3157, "22032", "The JSON document exceeds the maximum depth.")
}

/// 3144: bytes of the binary character set are not JSON text.
fn binary_charset() -> SqlError {
    SqlError::new(3144, "22032", "Cannot create a JSON value from a string with CHARACTER SET 'binary'.")
}

/// 3146: an argument that must be a document is neither text nor JSON.
fn wrong_type(arg: usize, func: &str) -> SqlError {
    SqlError::new(
        3146,
        "22032",
        format!("Invalid data type for JSON data in argument {arg} to function {func}; a JSON string or JSON type is required."),
    )
}

/// A value stored into a JSON column (`store::assign`): JSON as it is,
/// text parsed (3140 with MySQL's message when it is not JSON); numbers
/// and dates are not JSON text (MySQL: "not a JSON text, may need
/// CAST"), bytes are 3144.
pub fn for_column(v: Value, table: &str, column: &str) -> Result<Value> {
    match v {
        Value::Json(j) => Ok(Value::Json(j)),
        Value::Str(s) => match json_text::parse(&s) {
            Ok(j) => Ok(Value::Json(Box::new(j))),
            Err(e) => Err(invalid_column_text(e, table, column)),
        },
        Value::Bytes(_) => Err(binary_charset()),
        _ => Err(column_error("not a JSON text, may need CAST", 0, table, column)),
    }
}

/// A `json_doc` argument (argument `arg` of `func`, from 1): `None` for
/// NULL (invariant 1).
pub fn doc<'a>(v: &'a Value, arg: usize, func: &str) -> Result<Option<Cow<'a, Json>>> {
    match v {
        Value::Null => Ok(None),
        Value::Json(j) => Ok(Some(Cow::Borrowed(j))),
        Value::Str(s) => json_text::parse(s).map(|j| Some(Cow::Owned(j))).map_err(|e| invalid_text(e, arg, func)),
        Value::Bytes(_) => Err(binary_charset()),
        _ => Err(wrong_type(arg, func)),
    }
}

/// A `val` argument: the JSON value an SQL value becomes (invariant 1).
pub fn value(v: &Value) -> Result<Json> {
    Ok(match v {
        Value::Null => Json::Null,
        Value::Int(i) => Json::Int(*i),
        Value::UInt(u) if *u <= i64::MAX as u64 => Json::Int(*u as i64),
        Value::UInt(u) => Json::UInt(*u),
        Value::Decimal(d) => Json::Decimal(*d),
        Value::Double(f) => Json::Double(*f),
        Value::Str(s) => Json::Str(s.clone()),
        Value::Date(d) => Json::Date(*d),
        Value::DateTime(dt) => Json::DateTime(*dt),
        Value::Time(us) => Json::Time(*us),
        Value::Json(j) => (**j).clone(),
        // An ENUM / SET value is its text, as MySQL makes it.
        Value::Choice(c) => Json::Str(c.text()),
        // MySQL makes an "opaque" JSON value of binary strings
        // (`"base64:type15:..."`), which quire does not have.
        Value::Bytes(_) => return Err(SqlError::unsupported("binary strings as JSON values")),
    })
}

/// A path argument: `None` for NULL.
fn path_arg(v: &Value) -> Result<Option<Path>> {
    match v {
        Value::Null => Ok(None),
        other => Path::parse(&crate::expr::as_string(other)).map(Some),
    }
}

fn json(j: Json) -> Result<Value> {
    if j.too_deep() {
        return Err(too_deep());
    }
    Ok(Value::Json(Box::new(j)))
}

/// JSON_UNQUOTE of a value: a JSON string's text; other JSON as its text;
/// text that looks like a JSON string (`"..."`) unquoted (3141 if it does
/// not parse); other text as it is.
fn unquote(v: &Value) -> Result<Value> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Json(j) => match &**j {
            Json::Str(s) => Value::Str(s.clone()),
            other => Value::Str(other.to_string()),
        },
        other => {
            let s = crate::expr::as_string(other);
            if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                match json_text::parse(&s) {
                    Ok(Json::Str(t)) => Value::Str(t),
                    Ok(_) => Value::Str(s),
                    Err(e) => return Err(invalid_text(e, 1, "json_unquote")),
                }
            } else {
                Value::Str(s)
            }
        }
    })
}

/// JSON_VALUE(doc, path) with MySQL's defaults (NULL ON EMPTY, NULL ON
/// ERROR): the scalar the path names as text (a string unquoted), NULL
/// when it names nothing, JSON null, an array or object, or more than one
/// value. (RETURNING: `value_returning.rs`; the ON clauses do not parse.)
fn scalar_value(args: &[Value]) -> Result<Value> {
    let Some(d) = doc(&args[0], 1, "json_value")? else { return Ok(Value::Null) };
    let Some(p) = path_arg(&args[1])? else { return Ok(Value::Null) };
    let found = p.find(&d);
    Ok(match found.as_slice() {
        [Json::Str(s)] => Value::Str(s.clone()),
        [Json::Null] => Value::Null,
        [one] if one.is_scalar() => Value::Str(one.to_string()),
        _ => Value::Null,
    })
}

/// Calls a function of this module; `None` when `name` is not one.
pub fn call(name: &str, args: &[Value]) -> Result<Option<Value>> {
    if !name.starts_with("json_") && name != CAST {
        return Ok(None);
    }
    let any_null = |from: usize| args.iter().skip(from).any(Value::is_null);
    Ok(Some(match name {
        value_returning::NAME => value_returning::call(args)?,
        CAST => match args.first() {
            None | Some(Value::Null) => Value::Null,
            Some(Value::Str(s)) => json(json_text::parse(s).map_err(|e| invalid_text(e, 1, "cast_as_json"))?)?,
            Some(Value::Bytes(_)) => return Err(binary_charset()),
            Some(v) => json(value(v)?)?,
        },
        BOOL => match args.first() {
            None | Some(Value::Null) => Value::Null,
            Some(v) => Value::Json(Box::new(Json::Bool(crate::expr::truth(v) == Some(true)))),
        },
        "json_extract" => {
            let Some(d) = doc(&args[0], 1, name)? else { return Ok(Some(Value::Null)) };
            if any_null(1) {
                return Ok(Some(Value::Null));
            }
            let paths = args[1..].iter().map(path_arg).collect::<Result<Vec<_>>>()?;
            let paths: Vec<Path> = paths.into_iter().flatten().collect();
            let wrap = paths.len() > 1 || paths.iter().any(Path::has_wildcard);
            let mut found: Vec<Json> = Vec::new();
            for p in &paths {
                found.extend(p.find(&d).into_iter().cloned());
            }
            match (wrap, found.len()) {
                (_, 0) => Value::Null,
                (false, _) => json(found.swap_remove(0))?,
                (true, _) => json(Json::Array(found))?,
            }
        }
        "json_unquote" => unquote(&args[0])?,
        "json_quote" => match &args[0] {
            Value::Null => Value::Null,
            // A JSON value is quoted as its text (its type is a string's).
            v @ (Value::Str(_) | Value::Json(_)) => {
                let mut out = String::new();
                json_text::write_string(&crate::expr::as_string(v), &mut out);
                Value::Str(out)
            }
            _ => return Err(wrong_type(1, name)),
        },
        "json_object" => {
            if !args.len().is_multiple_of(2) {
                return Err(param_count(name));
            }
            let mut o = Object::new();
            for kv in args.chunks(2) {
                if kv[0].is_null() {
                    return Err(SqlError::new(3158, "22032", "JSON documents may not contain NULL member names."));
                }
                o.insert(crate::expr::as_string(&kv[0]), value(&kv[1])?);
            }
            json(Json::Object(o))?
        }
        "json_array" => json(Json::Array(args.iter().map(value).collect::<Result<_>>()?))?,
        "json_type" => match doc(&args[0], 1, name)? {
            None => Value::Null,
            Some(d) => Value::Str(d.type_name().to_string()),
        },
        "json_valid" => match &args[0] {
            Value::Null => Value::Null,
            Value::Json(_) => Value::Int(1),
            Value::Str(s) => Value::Int(json_text::parse(s).is_ok() as i64),
            _ => Value::Int(0),
        },
        "json_depth" => match doc(&args[0], 1, name)? {
            None => Value::Null,
            Some(d) => Value::Int(d.depth() as i64),
        },
        "json_length" | "json_keys" => {
            let Some(d) = doc(&args[0], 1, name)? else { return Ok(Some(Value::Null)) };
            let target = match args.get(1) {
                None => Some(&*d),
                Some(Value::Null) => return Ok(Some(Value::Null)),
                Some(p) => {
                    let p = path_arg(p)?.ok_or_else(|| SqlError::internal("path"))?;
                    if p.has_wildcard() {
                        return Err(path::wildcard_error());
                    }
                    p.find(&d).into_iter().next()
                }
            };
            match (name, target) {
                (_, None) => Value::Null,
                ("json_length", Some(Json::Array(a))) => Value::Int(a.len() as i64),
                ("json_length", Some(Json::Object(o))) => Value::Int(o.len() as i64),
                ("json_length", Some(_)) => Value::Int(1),
                (_, Some(Json::Object(o))) => json(Json::Array(o.iter().map(|(k, _)| Json::Str(k.clone())).collect()))?,
                (_, Some(_)) => Value::Null,
            }
        }
        "json_contains" => search::contains(args)?,
        "json_overlaps" => search::json_overlaps(args)?,
        MEMBER_OF => search::member_of(args)?,
        "json_merge_preserve" | "json_merge" | "json_merge_patch" => match merge::call(name, args)? {
            Some(j) => json(j)?,
            None => Value::Null,
        },
        "json_search" => match search_text::call(args)? {
            Some(j) => json(j)?,
            None => Value::Null,
        },
        "json_value" => scalar_value(args)?,
        "json_pretty" => match doc(&args[0], 1, name)? {
            None => Value::Null,
            Some(d) => Value::Str(pretty::pretty(&d)),
        },
        "json_storage_size" | "json_storage_free" => match doc(&args[0], 1, name)? {
            None => Value::Null,
            Some(d) if name == "json_storage_size" => Value::Int(storage::size(&d) as i64),
            Some(_) => Value::Int(0),
        },
        "json_contains_path" => search::contains_path(args)?,
        "json_set" | "json_insert" | "json_replace" | "json_remove" | "json_array_append" | "json_array_insert" => {
            match modify::call(name, args)? {
                Some(j) => json(j)?,
                None => Value::Null,
            }
        }
        other => return Err(SqlError::new(1305, "42000", format!("FUNCTION {other} does not exist"))),
    }))
}

/// The `val` arguments of a JSON function call, by position: booleans
/// among them become JSON `true` / `false` (invariant 1).
fn value_positions(name: &str, n: usize) -> Vec<usize> {
    match name {
        "json_array" | CAST => (0..n).collect(),
        "json_object" => (1..n).step_by(2).collect(),
        "json_set" | "json_insert" | "json_replace" | "json_array_append" | "json_array_insert" => {
            (2..n).step_by(2).collect()
        }
        MEMBER_OF => vec![0],
        _ => Vec::new(),
    }
}

/// Whether an expression is of MySQL's boolean type (a comparison, a
/// logical operator, TRUE / FALSE ...).
fn is_boolean(e: &sqlparser::ast::Expr) -> bool {
    use sqlparser::ast::{BinaryOperator as B, Expr as E, UnaryOperator as U, Value as V};
    match e {
        E::Value(v) => matches!(v.value, V::Boolean(_)),
        E::Nested(x) => is_boolean(x),
        E::BinaryOp { op, .. } => {
            matches!(op, B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship | B::And | B::Or | B::Xor)
        }
        E::UnaryOp { op: U::Not, .. } => true,
        E::IsNull(_)
        | E::IsNotNull(_)
        | E::IsTrue(_)
        | E::IsFalse(_)
        | E::IsNotTrue(_)
        | E::IsNotFalse(_)
        | E::Between { .. }
        | E::InList { .. }
        | E::InSubquery { .. }
        | E::Exists { .. }
        | E::Like { .. } => true,
        _ => false,
    }
}

/// Wraps the boolean `val` arguments of a JSON function call so that they
/// become JSON booleans (invariant 1).
pub fn mark_booleans(name: &str, ast_args: &[sqlparser::ast::Expr], args: Vec<Expr>) -> Vec<Expr> {
    let at = value_positions(name, args.len());
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            if at.contains(&i) && ast_args.get(i).is_some_and(is_boolean) {
                Expr::Func(BOOL.into(), vec![a])
            } else {
                a
            }
        })
        .collect()
}

/// Argument rules of JSON_ARRAYAGG (one value) and JSON_OBJECTAGG (a key
/// and a value); neither takes DISTINCT (MySQL's grammar: 1064).
pub fn check_aggregate(func: crate::expr::AggFn, n: usize, distinct: bool) -> Option<SqlError> {
    use crate::expr::AggFn;
    let (name, want) = match func {
        AggFn::JsonArrayAgg => ("json_arrayagg", 1),
        AggFn::JsonObjectAgg => ("json_objectagg", 2),
        _ => return None,
    };
    if distinct {
        return Some(SqlError::syntax(format!("DISTINCT in {name}()")));
    }
    (n != want).then(|| param_count(name))
}

/// The boolean value arguments of JSON_ARRAYAGG / JSON_OBJECTAGG become
/// JSON booleans, as JSON_ARRAY's and JSON_OBJECT's do.
pub fn mark_aggregate_booleans(
    func: crate::expr::AggFn,
    ast_args: &[sqlparser::ast::Expr],
    args: Vec<Expr>,
) -> Vec<Expr> {
    match func {
        crate::expr::AggFn::JsonArrayAgg => mark_booleans("json_array", ast_args, args),
        crate::expr::AggFn::JsonObjectAgg => mark_booleans("json_object", ast_args, args),
        _ => args,
    }
}

/// Adds a row to a JSON_ARRAYAGG (`value`) or JSON_OBJECTAGG (`value` the
/// key, `second` the value) document: NULL values are JSON nulls, a NULL
/// key is 3158, a key seen before takes the later value.
pub fn aggregate(acc: &mut Option<Json>, func: crate::expr::AggFn, value_: Value, second: Option<Value>) -> Result<()> {
    let object = func == crate::expr::AggFn::JsonObjectAgg;
    let v = value(if object { second.as_ref().unwrap_or(&Value::Null) } else { &value_ })?;
    if v.depth() >= quire_engine::row::json::MAX_DEPTH {
        return Err(too_deep());
    }
    if object {
        if value_.is_null() {
            return Err(SqlError::new(3158, "22032", "JSON documents may not contain NULL member names."));
        }
        if let Json::Object(o) = acc.get_or_insert_with(|| Json::Object(Object::new())) {
            o.insert(crate::expr::as_string(&value_), v);
        }
    } else if let Json::Array(a) = acc.get_or_insert_with(|| Json::Array(Vec::new())) {
        a.push(v);
    }
    Ok(())
}

/// `doc -> 'path'` (JSON_EXTRACT) and `doc ->> 'path'`
/// (JSON_UNQUOTE(JSON_EXTRACT())).
pub fn arrow(doc: Expr, path: Expr, unquote: bool) -> Expr {
    let extract = Expr::Func("json_extract".into(), vec![doc, path]);
    if unquote {
        Expr::Func("json_unquote".into(), vec![extract])
    } else {
        extract
    }
}

/// Compares two values of which at least one is JSON, as MySQL does: the
/// other becomes a JSON value (a string a JSON string, not parsed) and
/// the two compare by JSON's order (`quire_engine::row::json::order`).
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    let side = |v: &Value| -> Option<Json> {
        match v {
            Value::Bytes(b) => Some(Json::Str(String::from_utf8_lossy(b).into_owned())),
            other => value(other).ok(),
        }
    };
    Some(order::compare(&side(a)?, &side(b)?))
}

/// A JSON value as a number (arithmetic, WHERE j, CAST AS SIGNED): numbers
/// as they are, booleans 1 / 0, a string by its numeric prefix, anything
/// else 0 (MySQL warns 3156 there; quire does not).
pub fn to_decimal(j: &Json) -> quire_engine::row::Decimal {
    use quire_engine::row::Decimal;
    match j {
        Json::Int(i) => Decimal::from_i64(*i),
        Json::UInt(u) => Decimal::new(*u as i128, 0),
        Json::Decimal(d) => *d,
        Json::Double(f) => Decimal::parse(&format!("{f:e}")).unwrap_or(Decimal::ZERO),
        Json::Bool(b) => Decimal::from_i64(*b as i64),
        Json::Str(s) => crate::expr::str_to_decimal(s).unwrap_or(Decimal::ZERO),
        _ => Decimal::ZERO,
    }
}

/// Bytes for GROUP BY / DISTINCT keys: equal for equal documents.
pub fn group_key(j: &Json, out: &mut Vec<u8>) {
    let mut doc = Vec::new();
    quire_engine::row::json::binary::encode(j, &mut doc);
    out.extend_from_slice(&(doc.len() as u64).to_le_bytes());
    out.extend_from_slice(&doc);
}

/// ORDER BY's key: bytes in JSON's order.
pub fn sort_bytes(j: &Json) -> Vec<u8> {
    let mut k = Vec::new();
    order::sort_key(j, &mut k);
    k
}

/// Result metadata of this module's functions.
pub fn infer(name: &str, args: &[Expr]) -> MetaType {
    match name {
        value_returning::NAME => value_returning::infer(args),
        "json_unquote" | "json_quote" | "json_pretty" => MetaType::Text,
        "json_type" => MetaType::Str { len: 16, fixed: false },
        // JSON_VALUE without RETURNING: VARCHAR(512) (MySQL's default).
        "json_value" => MetaType::Str { len: 512, fixed: false },
        "json_valid" | "json_contains" | "json_contains_path" | "json_length" | "json_depth" | "json_overlaps"
        | MEMBER_OF => MetaType::Int { unsigned: false, width: 4 },
        "json_storage_size" | "json_storage_free" => MetaType::Int { unsigned: false, width: 11 },
        _ => MetaType::Json,
    }
}

/// Checks the argument count rules beyond the counts of [`FUNCS`] that
/// MySQL checks when a statement is prepared (1582).
pub fn check_arity(name: &str, n: usize) -> Result<()> {
    let ok = match name {
        "json_object" => n.is_multiple_of(2),
        "json_set" | "json_insert" | "json_replace" | "json_array_append" | "json_array_insert" => !n.is_multiple_of(2),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(param_count(name))
    }
}
