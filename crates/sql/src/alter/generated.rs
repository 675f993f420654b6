//! ALTER TABLE and generated columns (`create::generated`):
//!
//! - `ADD COLUMN c ... AS (expr) [VIRTUAL | STORED]`: validated against
//!   the new definition as CREATE TABLE validates it; the copy computes
//!   it for every existing row (strict mode stops at a row whose value
//!   does not fit, as MySQL's copy does).
//! - `DROP COLUMN` of a generated column; of a column a generated column
//!   reads: 3108 (MySQL's "Column 'a' has a generated column
//!   dependency."), as is renaming such a column.
//! - Every copy recomputes every generated column, so one whose base
//!   column changed type holds what its expression now gives.
//! - Not built (1235): MODIFY / CHANGE of a generated column, or one that
//!   makes a column generated, and renaming a generated column.

use quire_engine::row::{GeneratedDef, TableExtras, TableSchema};
use sqlparser::ast::{self, Visit, Visitor};

use crate::error::{Result, SqlError};

/// The generated columns an ALTER TABLE is building.
pub struct GenAlter {
    /// The table's generated columns that are still there.
    kept: Vec<GeneratedDef>,
    /// Those ADD COLUMN adds: (column, expression, STORED).
    added: Vec<(String, ast::Expr, bool)>,
}

/// The column names an expression reads.
fn reads(e: &ast::Expr) -> Vec<String> {
    struct Names(Vec<String>);
    impl Visitor for Names {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> std::ops::ControlFlow<()> {
            match e {
                ast::Expr::Identifier(i) => self.0.push(i.value.clone()),
                ast::Expr::CompoundIdentifier(p) => self.0.extend(p.last().map(|i| i.value.clone())),
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut n = Names(Vec::new());
    let _ = Visit::visit(e, &mut n);
    n.0
}

fn parse(text: &str) -> Result<ast::Expr> {
    sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| SqlError::syntax(format!("stored generated column expression {text}: {e}")))
}

impl GenAlter {
    pub fn new(old: Vec<GeneratedDef>) -> Self {
        GenAlter { kept: old, added: Vec::new() }
    }

    fn is_generated(&self, name: &str) -> bool {
        self.kept.iter().any(|g| g.column.eq_ignore_ascii_case(name))
            || self.added.iter().any(|(c, _, _)| c.eq_ignore_ascii_case(name))
    }

    /// 3108 if a generated column (other than `name` itself) reads `name`.
    fn no_dependants(&self, name: &str) -> Result<()> {
        let mut exprs: Vec<(String, ast::Expr)> = Vec::new();
        for g in &self.kept {
            exprs.push((g.column.clone(), parse(&g.expr)?));
        }
        exprs.extend(self.added.iter().map(|(c, e, _)| (c.clone(), e.clone())));
        for (col, e) in &exprs {
            if !col.eq_ignore_ascii_case(name) && reads(e).iter().any(|r| r.eq_ignore_ascii_case(name)) {
                return Err(SqlError::new(
                    3108,
                    "HY000",
                    format!("Column '{name}' has a generated column dependency."),
                ));
            }
        }
        Ok(())
    }

    /// Follows one ALTER TABLE operation (before the draft applies it).
    pub fn op(&mut self, op: &ast::AlterTableOperation) -> Result<()> {
        use ast::AlterTableOperation as Op;
        let unsupported = |what: &str| Err(SqlError::unsupported(format!("{what} of a generated column")));
        match op {
            Op::AddColumn { column_def, .. } => {
                if let Some((e, stored)) = crate::create::generated::clause(column_def)? {
                    self.added.push((column_def.name.value.clone(), e.clone(), stored));
                }
            }
            Op::DropColumn { column_names, .. } => {
                for n in column_names {
                    self.no_dependants(&n.value)?;
                    self.kept.retain(|g| !g.column.eq_ignore_ascii_case(&n.value));
                    self.added.retain(|(c, _, _)| !c.eq_ignore_ascii_case(&n.value));
                }
            }
            Op::RenameColumn { old_column_name, .. } => {
                if self.is_generated(&old_column_name.value) {
                    return unsupported("RENAME COLUMN");
                }
                self.no_dependants(&old_column_name.value)?;
            }
            Op::ModifyColumn { col_name: old, options, .. } | Op::ChangeColumn { old_name: old, options, .. } => {
                let makes = options.iter().any(|o| matches!(o, ast::ColumnOption::Generated { .. }));
                if self.is_generated(&old.value) || makes {
                    return unsupported("MODIFY / CHANGE");
                }
                if let Op::ChangeColumn { new_name, .. } = op {
                    if !new_name.value.eq_ignore_ascii_case(&old.value) {
                        self.no_dependants(&old.value)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The generated columns of the new definition `schema`, in column
    /// order, the added ones validated against it.
    pub fn finish(&self, schema: &TableSchema) -> Result<Vec<GeneratedDef>> {
        let names: Vec<&str> =
            self.kept.iter().map(|g| g.column.as_str()).chain(self.added.iter().map(|(c, _, _)| c.as_str())).collect();
        let mut out = self.kept.clone();
        for (c, e, stored) in &self.added {
            crate::create::generated::validate(c, e, schema, &names)?;
            out.push(GeneratedDef { column: c.clone(), expr: crate::create::check::text(e), stored: *stored });
        }
        // Kept ones validated again: a column they read may have moved
        // after them (3107 applies to generated columns only).
        for g in &self.kept {
            crate::create::generated::validate(&g.column, &parse(&g.expr)?, schema, &names)?;
        }
        let pos = |n: &str| schema.column_index(n).unwrap_or(usize::MAX);
        out.sort_by_key(|g| pos(&g.column));
        crate::create::generated::check_keys(schema, &out)?;
        Ok(out)
    }

    /// The extras the rebuilt table takes when the generated columns
    /// changed beyond what dropping columns does (`None`: the engine keeps
    /// the old extras, less what names a dropped column).
    pub fn extras(&self, old: &TableExtras, gens: &[GeneratedDef], schema: &TableSchema) -> Option<TableExtras> {
        if self.added.is_empty() {
            return None;
        }
        let mut x = old.clone();
        let has = |c: &str| schema.columns.iter().any(|k| k.name.eq_ignore_ascii_case(c));
        x.column_comments.retain(|(c, _)| has(c));
        x.generated = gens.to_vec();
        Some(x)
    }
}
