//! What a table definition carries beyond its columns and keys, for the
//! SQL layer only (the engine stores it and never interprets it, except
//! `auto_increment_start`): CHECK constraints, COMMENTs, the
//! `AUTO_INCREMENT=n` table option, the expressions of generated columns
//! and the table's default collation. Stored in catalog version 4
//! (docs/FORMAT.md, "Catalog"), and only when not
//! [`TableExtras::is_empty`], so that every older definition stays byte
//! for byte what it was; generated columns and the default collation in
//! tagged sections (tags 60 and 62) after the rest, present only when set.

use super::Collation;

/// One CHECK constraint (MySQL 8.0.16+): its expression as the SQL layer
/// prints it, evaluated there on every row an INSERT or UPDATE writes.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckDef {
    /// The constraint's name (`t_chk_N` unless given), unique per database.
    pub name: String,
    /// The expression's text, re-parsed when the table is used.
    pub expr: String,
    /// `NOT ENFORCED` constraints are kept and shown, never evaluated.
    pub enforced: bool,
}

/// A generated column (`c INT AS (expr) [VIRTUAL | STORED]`): its value
/// is computed by the SQL layer from the other columns of the row on
/// every write, and stored in the row like any column's (a VIRTUAL one
/// too: see `sql/create/generated.rs` for why).
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedDef {
    /// The column's name (kept by name, as COMMENTs are, so that a column
    /// moved by ALTER TABLE keeps its expression).
    pub column: String,
    /// The expression's text with identifiers backquoted, re-parsed when
    /// the table is used (as CHECK constraints are).
    pub expr: String,
    /// `STORED` (else `VIRTUAL`, the default): how SHOW CREATE TABLE and
    /// SHOW COLUMNS name it.
    pub stored: bool,
}

/// The extras of one table definition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableExtras {
    /// The AUTO_INCREMENT counter never starts below this (`AUTO_INCREMENT=n`
    /// of CREATE / ALTER TABLE; 0 = not given): at open the counter is
    /// max(largest stored value + 1, this).
    pub auto_increment_start: u64,
    /// The table's COMMENT ('' = none).
    pub comment: String,
    /// (column name, COMMENT) of each column that has one, by name so that
    /// a column moved or dropped by ALTER TABLE takes its comment along.
    pub column_comments: Vec<(String, String)>,
    /// CHECK constraints in definition order.
    pub checks: Vec<CheckDef>,
    /// Generated columns, in column order.
    pub generated: Vec<GeneratedDef>,
    /// The table's `DEFAULT CHARSET` / `COLLATE`, when CREATE TABLE gave
    /// one (`None`: utf8mb4_general_ci, the server's default).
    pub default_collation: Option<Collation>,
}

impl TableExtras {
    /// No extras at all: the definition is written in an older version.
    pub fn is_empty(&self) -> bool {
        *self == TableExtras::default()
    }

    /// The COMMENT of column `name` ('' if none).
    pub fn column_comment(&self, name: &str) -> &str {
        self.column_comments.iter().find(|(c, _)| c.eq_ignore_ascii_case(name)).map_or("", |(_, t)| t)
    }

    /// The generation of column `name`, if it is a generated column.
    pub fn generated_column(&self, name: &str) -> Option<&GeneratedDef> {
        self.generated.iter().find(|g| g.column.eq_ignore_ascii_case(name))
    }
}
