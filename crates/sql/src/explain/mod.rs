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
//! FORMAT=TREE / JSON and EXPLAIN ANALYZE are refused (1235); FORMAT=
//! TRADITIONAL is the default.

mod line;
mod walk;

use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::Env;
use crate::plan::{ColMeta, MetaType};
use crate::session::Plan;

pub use line::{key_part_len, Line};

/// A statement to explain, compiled.
pub struct ExplainPlan {
    pub inner: Plan,
}

/// Checks EXPLAIN's options: only the traditional format is built.
pub fn check_options(analyze: bool, format: Option<&ast::AnalyzeFormatKind>) -> Result<()> {
    if analyze {
        return Err(SqlError::unsupported("EXPLAIN ANALYZE"));
    }
    match format {
        None => Ok(()),
        Some(ast::AnalyzeFormatKind::Keyword(f) | ast::AnalyzeFormatKind::Assignment(f)) => match f {
            ast::AnalyzeFormat::TRADITIONAL => Ok(()),
            ast::AnalyzeFormat::TREE => Err(SqlError::unsupported("EXPLAIN FORMAT=TREE")),
            ast::AnalyzeFormat::JSON => Err(SqlError::unsupported("EXPLAIN FORMAT=JSON")),
            other => Err(SqlError::new(
                1235,
                "42000",
                format!("This version of quire doesn't yet support 'EXPLAIN FORMAT={other}'"),
            )),
        },
    }
}

/// EXPLAIN's result columns, typed as MySQL 8.0 types them.
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
