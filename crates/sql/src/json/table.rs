//! JSON_TABLE's rows: a document's values at the row path become rows,
//! each column read from its own path relative to the row's value, and
//! NESTED PATH columns joined to their parent row as MySQL 8.0 does.
//!
//! The plan ([`RowPath`], its [`Column`]s) is bound by
//! `rel::table_function`; a block reads it as a source whose document
//! expression is evaluated on the slots bound before it (a lateral source,
//! `exec.rs`), and [`RowPath::each`] hands the rows of one document to the
//! join loop one at a time.
//!
//! Rows (MySQL 8.0, WL#8867):
//! 1. The top path's matches, in document order, give the rows; FOR
//!    ORDINALITY counts them from 1 (per document). A NULL document gives
//!    no rows; text that is not JSON is 3141.
//! 2. A NESTED PATH is joined to its parent row like a LEFT JOIN: one row
//!    per match, or one row with its columns NULL when it matches nothing.
//!    Sibling NESTED PATHs take turns: the rows of the first sibling (the
//!    others' columns NULL), then the second's, and so on; the parent's
//!    row with every sibling NULL comes only when none matches.
//! 3. A PATH column: nothing at the path is "empty" (ON EMPTY, NULL by
//!    default); a value that cannot be stored in the column's type — an
//!    array or object in a scalar column, several matches, text that is
//!    not a number, a number out of range, a string too long — is an
//!    "error" (ON ERROR, NULL by default). A JSON column takes the value
//!    itself (several matches: an array of them). ERROR ON EMPTY is 3665,
//!    ERROR ON ERROR 3666 for an array or object, 3669 out of range, else
//!    the conversion's own error. Conversion notes (a decimal rounded,
//!    trailing spaces cut) stay notes, as in MySQL.
//! 4. An EXISTS PATH column is 1 when the path names something, else 0.
//!
//! Where MariaDB 10.11 differs (docs/SQL.md, "JSON"): it stores what a
//! conversion leaves with a warning (`'x'` into INT: 0 and 1366) where
//! MySQL applies ON ERROR, and it numbers its errors 4037-4178.

use std::borrow::Cow;

use quire_engine::row::json::Json;
use quire_engine::row::{Collation, Column as SqlColumn, ColumnType, Value};

use super::path::Path;
use crate::diag::{Condition, Level, Mode};
use crate::error::{Result, SqlError};
use crate::expr::{Env, SubExpr};
use crate::store::Place;

/// What ON EMPTY / ON ERROR does.
#[derive(Clone, Debug, PartialEq)]
pub enum OnMissing {
    Null,
    Error,
    /// DEFAULT: the value, already of the column's type.
    Default(Value),
}

/// How one column gets its value.
#[derive(Clone, Debug)]
pub enum ColumnKind {
    /// FOR ORDINALITY: the row's number among its path's matches, from 1.
    Ordinality,
    /// `type PATH path [.. ON EMPTY] [.. ON ERROR]`.
    Path { path: Path, on_empty: OnMissing, on_error: OnMissing },
    /// `type EXISTS PATH path`.
    Exists { path: Path },
}

/// A column of the table function.
#[derive(Clone, Debug)]
pub struct Column {
    /// Its name, type and collation (ordinality: INT UNSIGNED).
    pub def: SqlColumn,
    pub kind: ColumnKind,
    /// Its index in the source's row.
    pub out: usize,
}

/// A row path with its columns and its NESTED PATHs (the top one is the
/// table function's second argument).
#[derive(Clone, Debug)]
pub struct RowPath {
    pub path: Path,
    pub columns: Vec<Column>,
    pub nested: Vec<RowPath>,
}

/// MySQL's limit on NESTED PATH clauses in one JSON_TABLE (3670 beyond).
pub const MAX_NESTED: usize = 16;

/// 3670.
pub fn too_many_nested(alias: &str) -> SqlError {
    SqlError::new(
        3670,
        "42000",
        format!("More than supported {MAX_NESTED} NESTED PATHs were found in JSON_TABLE '{alias}'"),
    )
}

/// The running count of rows a document produced, for messages.
struct Emit<'f> {
    /// The source's table alias, for messages.
    alias: &'f str,
    row: u64,
    f: &'f mut dyn FnMut(&[Value]) -> Result<bool>,
}

impl RowPath {
    /// Every column of this path and its nested ones, depth first.
    pub fn all_columns(&self) -> Vec<&Column> {
        let mut out: Vec<&Column> = self.columns.iter().collect();
        for n in &self.nested {
            out.extend(n.all_columns());
        }
        out
    }

    /// Number of NESTED PATH clauses under this path.
    pub fn nested_count(&self) -> usize {
        self.nested.iter().map(|n| 1 + n.nested_count()).sum()
    }

    /// Calls `f` on each row of `doc` (`width` values); `Ok(false)` once
    /// `f` asked to stop.
    pub fn each(
        &self,
        doc: &Value,
        width: usize,
        alias: &str,
        env: &dyn Env,
        f: &mut dyn FnMut(&[Value]) -> Result<bool>,
    ) -> Result<bool> {
        let Some(doc) = super::doc(doc, 1, "json_table")? else { return Ok(true) };
        let doc: Cow<'_, Json> = doc;
        let mut row = vec![Value::Null; width];
        let mut emit = Emit { alias, row: 0, f };
        for (k, item) in self.path.find(&doc).into_iter().enumerate() {
            env.check_interrupt()?;
            if !self.rows(item, k as u64 + 1, &mut row, env, &mut emit)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The rows of this path at one of its matches (`ordinal`-th).
    fn rows(&self, item: &Json, ordinal: u64, row: &mut [Value], env: &dyn Env, emit: &mut Emit<'_>) -> Result<bool> {
        for c in &self.columns {
            row[c.out] = c.value(item, ordinal, emit.row + 1, emit.alias, env)?;
        }
        if self.nested.is_empty() {
            emit.row += 1;
            return (emit.f)(row);
        }
        let mut any = false;
        for (i, n) in self.nested.iter().enumerate() {
            let matches = n.path.find(item);
            if matches.is_empty() {
                continue;
            }
            any = true;
            for (j, other) in self.nested.iter().enumerate() {
                if j != i {
                    other.clear(row);
                }
            }
            for (k, m) in matches.into_iter().enumerate() {
                if !n.rows(m, k as u64 + 1, row, env, emit)? {
                    return Ok(false);
                }
            }
        }
        if any {
            return Ok(true);
        }
        for n in &self.nested {
            n.clear(row);
        }
        emit.row += 1;
        (emit.f)(row)
    }

    /// Sets this path's columns and its nested ones' to NULL.
    fn clear(&self, row: &mut [Value]) {
        for c in self.all_columns() {
            row[c.out] = Value::Null;
        }
    }
}

impl Column {
    /// The column's value at `item` (`row`: the row number, for messages).
    fn value(&self, item: &Json, ordinal: u64, row: u64, alias: &str, env: &dyn Env) -> Result<Value> {
        match &self.kind {
            ColumnKind::Ordinality => Ok(Value::UInt(ordinal)),
            ColumnKind::Exists { path } => {
                let found = Value::Int(i64::from(!path.find(item).is_empty()));
                convert(&self.def, found, alias, row, env).map_err(|e| e.error)
            }
            ColumnKind::Path { path, on_empty, on_error } => {
                let found = path.find(item);
                if found.is_empty() {
                    return match on_empty {
                        OnMissing::Null => Ok(Value::Null),
                        OnMissing::Default(v) => Ok(v.clone()),
                        OnMissing::Error => Err(SqlError::new(
                            3665,
                            "22035",
                            format!("Missing value for JSON_TABLE column '{}'", self.def.name),
                        )),
                    };
                }
                match self.stored(&found, alias, row, env) {
                    Ok(v) => Ok(v),
                    Err(failure) => match on_error {
                        OnMissing::Null => Ok(Value::Null),
                        OnMissing::Default(v) => Ok(v.clone()),
                        OnMissing::Error => Err(failure.error),
                    },
                }
            }
        }
    }

    /// The value `found` stores as in this column, or why it cannot.
    fn stored(&self, found: &[&Json], alias: &str, row: u64, env: &dyn Env) -> std::result::Result<Value, Failure> {
        if self.def.ty == ColumnType::Json {
            let j = match found {
                [one] => (*one).clone(),
                many => Json::Array(many.iter().map(|j| (*j).clone()).collect()),
            };
            return Ok(Value::Json(Box::new(j)));
        }
        let [one] = found else { return Err(self.not_scalar()) };
        let v = match one {
            Json::Null => return Ok(Value::Null),
            Json::Array(_) | Json::Object(_) => return Err(self.not_scalar()),
            other => scalar_of(other, self.def.ty),
        };
        convert(&self.def, v, alias, row, env)
    }

    /// 3666.
    fn not_scalar(&self) -> Failure {
        Failure {
            error: SqlError::new(
                3666,
                "2203F",
                format!("Can't store an array or an object in the scalar JSON_TABLE column '{}'", self.def.name),
            ),
        }
    }
}

/// The SQL value a JSON scalar is before it is stored in a column of type
/// `ty`: a string its text, a number its number (its JSON text for a
/// string column, as MySQL prints it), true / false 1 / 0 (their names
/// for a string column), a date or time itself.
pub fn scalar_of(j: &Json, ty: ColumnType) -> Value {
    let text_column =
        matches!(ty, ColumnType::Char { .. } | ColumnType::Varchar { .. } | ColumnType::Text | ColumnType::Enum { .. })
            || matches!(ty, ColumnType::Set { .. });
    match j {
        Json::Str(s) => Value::Str(s.clone()),
        other if text_column => Value::Str(other.to_string()),
        Json::Bool(b) => Value::Int(i64::from(*b)),
        other => json_number(other),
    }
}

/// A JSON number, date or time as the SQL value of the same kind.
fn json_number(j: &Json) -> Value {
    match j {
        Json::Int(i) => Value::Int(*i),
        Json::UInt(u) => Value::UInt(*u),
        Json::Double(f) => Value::Double(*f),
        Json::Decimal(d) => Value::Decimal(*d),
        Json::Date(d) => Value::Date(*d),
        Json::DateTime(dt) => Value::DateTime(*dt),
        Json::Time(us) => Value::Time(*us),
        other => Value::Str(other.to_string()),
    }
}

/// Why a value could not be stored: the error ERROR ON ERROR raises.
#[derive(Debug)]
pub struct Failure {
    pub error: SqlError,
}

/// Converts `v` into `def`'s type as a strict INSERT would (`store.rs`):
/// what would be a warning there is a [`Failure`] here (1264 becomes
/// MySQL's 3669); notes go to the statement's diagnostics.
pub fn convert(def: &SqlColumn, v: Value, alias: &str, row: u64, env: &dyn Env) -> std::result::Result<Value, Failure> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let strict = Strict { inner: env };
    let at = Place { db: "", table: alias, row };
    crate::store::assign(def, v, at, &strict).map_err(|e| {
        let error = if e.code == 1264 {
            SqlError::new(3669, "22003", format!("Value is out of range for JSON_TABLE's column '{}'", def.name))
        } else {
            e
        };
        Failure { error }
    })
}

/// An [`Env`] in which every warning is an error (strict INSERT's
/// abort-on-warning); notes reach the statement's diagnostics.
struct Strict<'e> {
    inner: &'e dyn Env,
}

impl Env for Strict<'_> {
    fn param(&self, i: usize) -> Result<Value> {
        self.inner.param(i)
    }
    fn agg(&self, i: usize) -> Result<Value> {
        self.inner.agg(i)
    }
    fn sysvar(&self, name: &str, global: bool) -> Result<Value> {
        self.inner.sysvar(name, global)
    }
    fn func(&self, name: &str, args: &[Value]) -> Result<Value> {
        self.inner.func(name, args)
    }
    fn warn(&self, c: Condition) -> Result<()> {
        match c.level {
            Level::Note => self.inner.warn(c),
            _ => Err(c.into_error()),
        }
    }
    fn mode(&self) -> Mode {
        Mode { strict: true, abort_on_warning: true, ..self.inner.mode() }
    }
    fn collation(&self) -> Collation {
        self.inner.collation()
    }
    fn subquery(&self, s: &SubExpr, row: &[Value]) -> Result<Value> {
        self.inner.subquery(s, row)
    }
}

/// The [`Env`] a value is converted in outside a statement's rows (a
/// JSON_TABLE DEFAULT when bound, JSON_VALUE ... RETURNING): nothing to
/// read, notes dropped.
pub struct Quiet;

impl Env for Quiet {
    fn param(&self, _i: usize) -> Result<Value> {
        Err(SqlError::internal("no parameters in a JSON conversion"))
    }
    fn agg(&self, _i: usize) -> Result<Value> {
        Err(SqlError::internal("no aggregates in a JSON conversion"))
    }
    fn sysvar(&self, name: &str, _global: bool) -> Result<Value> {
        Err(SqlError::internal(format!("no variable {name} in a JSON conversion")))
    }
    fn func(&self, name: &str, _args: &[Value]) -> Result<Value> {
        Err(SqlError::internal(format!("no function {name} in a JSON conversion")))
    }
    fn warn(&self, _c: Condition) -> Result<()> {
        Ok(())
    }
    fn mode(&self) -> Mode {
        Mode::default()
    }
}

#[cfg(test)]
mod tests;
