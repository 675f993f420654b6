//! EXPLAIN (and DESCRIBE / DESC before a statement) in MySQL 8.0's
//! traditional format: one row per table read, with the columns id,
//! select_type, table, partitions, type, possible_keys, key, key_len, ref,
//! rows, filtered, Extra.
//!
//! MySQL 8.0 and MariaDB differ: MariaDB leaves out `partitions` and
//! `filtered` unless asked (EXPLAIN PARTITIONS / EXTENDED). quire follows
//! MySQL 8.0, whose shape tools and ORMs parse. `filtered` is sent as
//! DECIMAL(5,2) text (`100.00`, as MySQL prints it; MySQL's column is a
//! FLOAT). `partitions` is always NULL (quire has no partitioning).
//!
//! The plan explained is the one the statement would run: compiled by the
//! same planners, with the same statistics (`rows` from them; a range with
//! constant bounds is estimated by descending its index). Extra notes are
//! those quire's execution earns: `Using where` (terms checked on each
//! row), `Using filesort` (ORDER BY sorted), `Using temporary` (grouping,
//! DISTINCT, set operations), `Using join buffer (hash join)` (a hash
//! table over the table's rows), `No tables used`. quire never reads
//! an index alone, so it never says `Using index`.
//!
//! FORMAT=TREE prints MySQL 8.0's iterator tree instead (`build`,
//! `tree`, `show`): one row, one LONGTEXT column named `EXPLAIN`. EXPLAIN
//! ANALYZE runs the SELECT with counters per operator (`profile`), throws
//! its rows away and prints the tree with what each operator did.
//! FORMAT=JSON is refused (1235); FORMAT=TRADITIONAL is the default.

mod build;
mod line;
pub mod profile;
pub(crate) mod show;
mod tree;
mod walk;

use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::Env;
use crate::plan::{ColMeta, MetaType};
use crate::session::Plan;

pub use line::{key_part_len, Line};

/// A statement to explain, compiled.
pub struct ExplainPlan {
    /// Under ANALYZE, a SELECT compiled by the general engine (whose
    /// operators keep counters), whichever planner would run it alone.
    pub inner: Plan,
    pub format: Format,
    /// EXPLAIN ANALYZE: run the statement, print what it did.
    pub analyze: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Traditional,
    Tree,
}

/// EXPLAIN's options as MySQL 8.0 takes them: TRADITIONAL (the default)
/// and TREE; ANALYZE only with TREE. JSON is not built (1235); a format
/// MySQL does not know is its error 1791.
pub fn check_options(analyze: bool, format: Option<&ast::AnalyzeFormatKind>) -> Result<Format> {
    let f = match format {
        None if analyze => Format::Tree,
        None => Format::Traditional,
        Some(ast::AnalyzeFormatKind::Keyword(f) | ast::AnalyzeFormatKind::Assignment(f)) => match f {
            ast::AnalyzeFormat::TRADITIONAL => Format::Traditional,
            ast::AnalyzeFormat::TREE => Format::Tree,
            ast::AnalyzeFormat::JSON if analyze => {
                return Err(SqlError::unsupported("EXPLAIN ANALYZE with JSON format"))
            }
            ast::AnalyzeFormat::JSON => return Err(SqlError::unsupported("EXPLAIN FORMAT=JSON")),
            other => return Err(SqlError::new(1791, "HY000", format!("Unknown EXPLAIN format name: '{other}'"))),
        },
    };
    if analyze && f == Format::Traditional {
        return Err(SqlError::unsupported("EXPLAIN ANALYZE with TRADITIONAL format"));
    }
    Ok(f)
}

/// The result columns of `p`.
pub fn columns_of(p: &ExplainPlan) -> Vec<ColMeta> {
    match p.format {
        Format::Traditional => columns(),
        // MySQL: one LONGTEXT column named EXPLAIN.
        Format::Tree => vec![ColMeta::expr("EXPLAIN", MetaType::Text)],
    }
}

/// Throws rows away: EXPLAIN ANALYZE's statement runs into it.
pub struct Discard;

impl crate::sink::RowSink for Discard {
    fn columns(&mut self, _: &[ColMeta]) -> Result<()> {
        Ok(())
    }
    fn row(&mut self, _: Vec<quire_engine::row::Value>) -> Result<()> {
        Ok(())
    }
}

/// The tree of `p` as text; with `profile`, what its execution measured.
pub fn tree_text(p: &ExplainPlan, env: &dyn Env, profile: Option<&profile::Profile>) -> Result<String> {
    let numbers = show::Numbers::default();
    let mut b = build::Builder::new(env, profile, &numbers);
    let op = match &p.inner {
        Plan::Select(s) => b.select(s),
        Plan::Query(q) => b.query(&q.plan, &[]),
        Plan::Update(u) => b.write("Update", &u.table, &u.access, u.filter.as_ref()),
        Plan::Delete(d) => b.write("Delete from", &d.table, &d.access, d.filter.as_ref()),
        _ => return Err(SqlError::unsupported("EXPLAIN FORMAT=TREE of this statement")),
    };
    Ok(tree::render(&op, profile.is_some()))
}

/// EXPLAIN's result columns in the traditional format, typed as MySQL
/// 8.0 types them.
pub fn columns() -> Vec<ColMeta> {
    let s = |n: &str, len: u32| ColMeta::expr(n, MetaType::Str { len, fixed: false });
    vec![
        ColMeta::expr("id", MetaType::Int { unsigned: false, width: 8 }),
        s("select_type", 19),
        s("table", 64),
        s("partitions", 8192),
        s("type", 10),
        s("possible_keys", 4096),
        s("key", 64),
        s("key_len", 4096),
        s("ref", 1024),
        ColMeta::expr("rows", MetaType::Int { unsigned: true, width: 8 }),
        ColMeta::expr("filtered", MetaType::Decimal { precision: 5, scale: 2 }),
        s("Extra", 255),
    ]
}

/// The rows of EXPLAIN for a compiled statement.
pub fn rows(p: &ExplainPlan, env: &dyn Env) -> Result<Vec<Vec<quire_engine::row::Value>>> {
    if p.format == Format::Tree {
        return Ok(vec![vec![quire_engine::row::Value::Str(tree_text(p, env, None)?)]]);
    }
    let lines = match &p.inner {
        Plan::Select(s) => walk::select(s, env),
        Plan::Query(q) => walk::query(&q.plan, env),
        Plan::Update(u) => walk::write("UPDATE", &u.table, &u.access, u.filter.as_ref(), env),
        Plan::Delete(d) => walk::write("DELETE", &d.table, &d.access, d.filter.as_ref(), env),
        Plan::Insert(i) => walk::insert(&i.table),
        _ => return Err(SqlError::unsupported("EXPLAIN of this statement")),
    };
    Ok(lines.into_iter().map(Line::values).collect())
}
