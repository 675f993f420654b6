//! Binding JSON_TABLE in FROM: a source whose rows come from a document
//! (`json::table`), the document an expression over the sources before it
//! in FROM (MySQL's implicitly lateral table function).
//!
//! Invariants:
//! 1. The document expression is bound when only the FROM items before
//!    the table function are named, so it reads no slot at or after its
//!    own offset: a later table or the function itself is 1054 ("in 'a
//!    table function argument'", MySQL's place).
//! 2. The join planner places the source after every source whose slots
//!    the document reads (`join.rs`, a unit's `needs`); a RIGHT JOIN that
//!    would put it before them is 3668 (`check_right_join`).
//! 3. It is never read through a hash table (its rows depend on the row
//!    before it), never merged into or pulled out of a block.

use std::collections::HashSet;
use std::sync::Arc;

use quire_engine::row::json::text as json_text;
use quire_engine::row::json::Json;
use quire_engine::row::{Collation, Column, ColumnType, Value};
use sqlparser::ast;

use super::bind::{Binder, NamedCol, SlotCol, Tree};
use super::{Source, SourceKind};
use crate::error::{Result, SqlError};
use crate::expr::Expr;
use crate::json::path::Path;
use crate::json::table::{self as jt, ColumnKind, OnMissing, RowPath};
use crate::plan::{ColMeta, MetaType};

/// A JSON_TABLE source.
#[derive(Debug)]
pub struct TableFunction {
    /// The document, evaluated on the slots bound before the source.
    pub doc: Expr,
    /// The row path, its columns and NESTED PATHs.
    pub rows: RowPath,
    /// Columns of the source's row.
    pub width: usize,
}

impl TableFunction {
    /// The slots of the enclosing block the document reads.
    pub fn reads(&self) -> Vec<usize> {
        let mut out = Vec::new();
        super::slots_of(&self.doc, &mut out);
        out
    }
}

/// 3668: a table function on the preserved side of a RIGHT JOIN reads the
/// other side.
pub(super) fn forbidden_join(alias: &str) -> SqlError {
    SqlError::new(3668, "HY000", format!("INNER or LEFT JOIN must be used for LATERAL references made by '{alias}'"))
}

/// Refuses (3668) a table function among `sources[from..to]` (the side a
/// RIGHT JOIN preserves) that reads a slot in `lo..hi` (the other side).
pub(super) fn check_right_join(sources: &[Source], lo: usize, hi: usize) -> Result<()> {
    for s in sources {
        if let SourceKind::JsonTable(f) = &s.kind {
            if s.offset >= hi && f.reads().iter().any(|&k| k >= lo && k < hi) {
                return Err(forbidden_join(&s.name));
            }
        }
    }
    Ok(())
}

impl Binder<'_> {
    /// `JSON_TABLE(doc, path COLUMNS (...)) [AS] alias`.
    pub(super) fn json_table(
        &mut self,
        json_expr: &ast::Expr,
        json_path: &ast::ValueWithSpan,
        columns: &[ast::JsonTableColumn],
        alias: Option<&ast::TableAlias>,
        sources: &mut Vec<Source>,
        params: &mut usize,
    ) -> Result<(Tree, Vec<NamedCol>)> {
        let Some(alias) = alias else {
            return Err(SqlError::new(3667, "42000", "Every table function must have an alias"));
        };
        if !alias.columns.is_empty() {
            return Err(SqlError::syntax("a column list after a table function's alias"));
        }
        let name = alias.name.value.clone();
        let doc = self.expr(json_expr, params, "a table function argument", None)?;
        let mut cols = Vec::new();
        let rows = row_path(literal(json_path)?, columns, &mut cols)?;
        if rows.nested_count() > jt::MAX_NESTED {
            return Err(jt::too_many_nested(&name));
        }
        let mut seen = HashSet::new();
        for c in &cols {
            if !seen.insert(c.name.to_ascii_lowercase()) {
                return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", c.name)));
            }
        }
        let slot_cols: Vec<SlotCol> = cols
            .into_iter()
            .map(|c| {
                let ty = MetaType::of_column(c.ty);
                let meta = ColMeta {
                    name: c.name.clone(),
                    org_name: c.name.clone(),
                    table: name.clone(),
                    org_table: name.clone(),
                    db: String::new(),
                    ty,
                    not_null: false,
                    primary_key: false,
                    unique_key: false,
                    multiple_key: false,
                    auto_increment: false,
                    zerofill: None,
                };
                SlotCol { meta, ty: Some(c.ty), coll: c.collation, def: None }
            })
            .collect();
        let width = slot_cols.len();
        let f = TableFunction { doc, rows, width };
        let i = self.add_source(sources, SourceKind::JsonTable(Arc::new(f)), &name, slot_cols)?;
        Ok((Tree::Leaf(i), self.star_of(sources, i)))
    }
}

/// A string literal of the syntax (a path or a DEFAULT).
fn literal(v: &ast::ValueWithSpan) -> Result<&str> {
    match &v.value {
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => Ok(s),
        other => Err(SqlError::syntax(format!("a string literal expected in JSON_TABLE, not {other}"))),
    }
}

/// Binds one row path's columns (in `out`, depth first: the source's
/// column order) and its NESTED PATHs.
fn row_path(path: &str, columns: &[ast::JsonTableColumn], out: &mut Vec<Column>) -> Result<RowPath> {
    let path = Path::parse(path)?;
    let mut rp = RowPath { path, columns: Vec::new(), nested: Vec::new() };
    for c in columns {
        match c {
            ast::JsonTableColumn::ForOrdinality(name) => {
                let def = Column::new(&name.value, ColumnType::Int { unsigned: true });
                rp.columns.push(jt::Column { def: def.clone(), kind: ColumnKind::Ordinality, out: out.len() });
                out.push(def);
            }
            ast::JsonTableColumn::Named(n) => {
                let ty = crate::ddl::column_type(&n.r#type, &n.name.value)?;
                let mut def = Column::new(&n.name.value, ty);
                if ty == ColumnType::Json {
                    def.collation = Collation::Utf8mb4Bin;
                }
                let path = Path::parse(literal(&n.path)?)?;
                let kind = if n.exists {
                    if n.on_empty.is_some() || n.on_error.is_some() {
                        return Err(SqlError::syntax("ON EMPTY / ON ERROR on an EXISTS PATH column"));
                    }
                    ColumnKind::Exists { path }
                } else {
                    let on_empty = on_missing(n.on_empty.as_ref(), &def)?;
                    let on_error = on_missing(n.on_error.as_ref(), &def)?;
                    ColumnKind::Path { path, on_empty, on_error }
                };
                rp.columns.push(jt::Column { def: def.clone(), kind, out: out.len() });
                out.push(def);
            }
            ast::JsonTableColumn::Nested(n) => {
                let nested = row_path(literal(&n.path)?, &n.columns, out)?;
                rp.nested.push(nested);
            }
        }
    }
    Ok(rp)
}

/// An ON EMPTY / ON ERROR clause. A DEFAULT is JSON text (MySQL): a
/// scalar converted into the column's type now, an array or object only
/// for a JSON column; text that is not JSON is a string. What does not
/// convert is 1067.
fn on_missing(h: Option<&ast::JsonTableColumnErrorHandling>, def: &Column) -> Result<OnMissing> {
    use ast::JsonTableColumnErrorHandling as H;
    let invalid = || SqlError::new(1067, "42000", format!("Invalid default value for '{}'", def.name));
    Ok(match h {
        None | Some(H::Null) => OnMissing::Null,
        Some(H::Error) => OnMissing::Error,
        Some(H::Default(v)) => {
            let text = literal(v)?;
            let parsed = json_text::parse(text);
            if def.ty == ColumnType::Json {
                return parsed.map(|j| OnMissing::Default(Value::Json(Box::new(j)))).map_err(|_| invalid());
            }
            let value = match parsed {
                Ok(Json::Array(_) | Json::Object(_)) => return Err(invalid()),
                Ok(Json::Null) => return Ok(OnMissing::Null),
                Ok(j) => jt::scalar_of(&j, def.ty),
                Err(_) => Value::Str(text.to_string()),
            };
            let v = jt::convert(def, value, "", 1, &jt::Quiet).map_err(|_| invalid())?;
            OnMissing::Default(v)
        }
    })
}
