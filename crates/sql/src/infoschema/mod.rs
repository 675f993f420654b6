//! `information_schema`: read-only tables whose rows are made, when a
//! query reads them, from the live catalog (databases, users and grants,
//! views), the engine's table definitions and statistics, the process
//! list and the collations quire has.
//!
//! How a query reads one: the general engine's binder (`rel/bind.rs`)
//! asks its resolver whether a FROM name is a system table
//! ([`crate::query::Resolver::system_view`]); one becomes a
//! `SourceKind::System` source with this module's columns
//! ([`shape::columns`]). At execution `rel/exec.rs` asks the session for
//! its rows ([`crate::query::SessionEnv::system_rows`] → [`rows`]) once
//! per statement and per [`Hint`], then treats them as a materialised
//! derived table's: every WHERE / ON term is still evaluated on them, so
//! joins, subqueries, GROUP BY, ORDER BY and `*` work as on any table.
//! Statements reading information_schema always go to the general engine
//! (`session::reads_view`), so the single-table planner's hot path is
//! untouched.
//!
//! Invariants:
//! 1. A row has `shape::columns(v).len()` values in that order.
//! 2. A user sees the objects of the databases it may use
//!    (`catalog::User::may_use`: quire's grants are per database), and
//!    information_schema itself; nothing else is produced.
//! 3. [`Hint`] only narrows: a producer given one may still return rows
//!    outside it (the terms are evaluated again), never drop a row the
//!    hint allows. Hint values match names exactly (case-sensitively),
//!    as MariaDB's and MySQL's lookups by a constant schema or table name
//!    do on a case-sensitive file system (`lower_case_table_names=0`):
//!    `TABLE_SCHEMA = 'TEST'` does not find `test`, while LIKE and
//!    comparisons with other columns compare without case.
//! 4. Writes are refused with 1044 ([`write_denied`]), as MySQL refuses
//!    them.

pub(crate) mod columns;
pub mod hint;
mod innodb_dict;
pub mod innodb_metrics;
pub mod innodb_pool;
mod innodb_trx;
mod keys;
mod open_tables;
mod plugins;
pub mod server;
pub mod shape;
pub mod show;
mod tables;

use std::sync::Arc;

use quire_engine::row::Value;
use quire_engine::Table;

use crate::error::{Result, SqlError};
use crate::session::Session;

/// What the InnoDB tables keep between reads: the previous counters of
/// INNODB_BUFFER_POOL_STATS' rates, and the extremes of INNODB_METRICS'
/// values.
#[derive(Default)]
pub struct InnodbViews {
    pub(crate) pool: parking_lot::Mutex<Option<innodb_pool::Previous>>,
    pub(crate) metrics: parking_lot::Mutex<innodb_metrics::Extremes>,
}

/// The database's name as MySQL spells it.
pub const DB: &str = "information_schema";

/// An information_schema table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    Schemata,
    Tables,
    Columns,
    Statistics,
    KeyColumnUsage,
    TableConstraints,
    ReferentialConstraints,
    CheckConstraints,
    Views,
    Engines,
    CharacterSets,
    Collations,
    CollationCharacterSetApplicability,
    Processlist,
    Routines,
    Parameters,
    Triggers,
    Events,
    Partitions,
    Files,
    ColumnStatistics,
    UserPrivileges,
    SchemaPrivileges,
    TablePrivileges,
    ColumnPrivileges,
    InnodbTrx,
    InnodbBufferPoolStats,
    InnodbMetrics,
    InnodbCmp,
    InnodbCmpmem,
    InnodbTables,
    InnodbIndexes,
    InnodbColumns,
    Plugins,
    /// MariaDB's thread pool tables (empty without the pool).
    ThreadPool(PoolTable),
    /// SHOW OPEN TABLES' rows: hidden, as MySQL's and MariaDB's
    /// OPEN_TABLES (not in [`ALL`], so not listed and 1109 to a SELECT);
    /// only the SELECT a SHOW OPEN TABLES is rewritten to reads it
    /// ([`lookup_hidden`]).
    OpenTables,
    /// A table of performance_schema (`perfschema`), read the same way.
    Perf(crate::perfschema::Table),
}

/// One of MariaDB's THREAD_POOL_* tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolTable {
    /// A group's state now.
    Groups,
    /// The connections waiting in the groups' queues.
    Queues,
    /// A group's counters.
    Stats,
    /// Workers' blocking waits by reason.
    Waits,
}

/// Every table with its name, in name order (SHOW TABLES' order).
pub const ALL: [(View, &str); 38] = [
    (View::CharacterSets, "CHARACTER_SETS"),
    (View::CheckConstraints, "CHECK_CONSTRAINTS"),
    (View::Collations, "COLLATIONS"),
    (View::CollationCharacterSetApplicability, "COLLATION_CHARACTER_SET_APPLICABILITY"),
    (View::Columns, "COLUMNS"),
    (View::ColumnPrivileges, "COLUMN_PRIVILEGES"),
    (View::ColumnStatistics, "COLUMN_STATISTICS"),
    (View::Engines, "ENGINES"),
    (View::Events, "EVENTS"),
    (View::Files, "FILES"),
    (View::InnodbBufferPoolStats, "INNODB_BUFFER_POOL_STATS"),
    (View::InnodbCmp, "INNODB_CMP"),
    (View::InnodbCmpmem, "INNODB_CMPMEM"),
    (View::InnodbColumns, "INNODB_COLUMNS"),
    (View::InnodbIndexes, "INNODB_INDEXES"),
    (View::InnodbMetrics, "INNODB_METRICS"),
    (View::InnodbTables, "INNODB_TABLES"),
    (View::InnodbTrx, "INNODB_TRX"),
    (View::KeyColumnUsage, "KEY_COLUMN_USAGE"),
    (View::Parameters, "PARAMETERS"),
    (View::Partitions, "PARTITIONS"),
    (View::Plugins, "PLUGINS"),
    (View::Processlist, "PROCESSLIST"),
    (View::ReferentialConstraints, "REFERENTIAL_CONSTRAINTS"),
    (View::Routines, "ROUTINES"),
    (View::Schemata, "SCHEMATA"),
    (View::SchemaPrivileges, "SCHEMA_PRIVILEGES"),
    (View::Statistics, "STATISTICS"),
    (View::Tables, "TABLES"),
    (View::TableConstraints, "TABLE_CONSTRAINTS"),
    (View::TablePrivileges, "TABLE_PRIVILEGES"),
    (View::ThreadPool(PoolTable::Groups), "THREAD_POOL_GROUPS"),
    (View::ThreadPool(PoolTable::Queues), "THREAD_POOL_QUEUES"),
    (View::ThreadPool(PoolTable::Stats), "THREAD_POOL_STATS"),
    (View::ThreadPool(PoolTable::Waits), "THREAD_POOL_WAITS"),
    (View::Triggers, "TRIGGERS"),
    (View::UserPrivileges, "USER_PRIVILEGES"),
    (View::Views, "VIEWS"),
];

impl View {
    /// The table's name (upper case, as MySQL 8.0 and MariaDB list it).
    pub fn name(self) -> &'static str {
        if let View::Perf(t) = self {
            return t.name();
        }
        if self == View::OpenTables {
            return OPEN_TABLES;
        }
        ALL.iter().find(|(v, _)| *v == self).map_or("?", |(_, n)| n)
    }

    /// The columns a [`Hint`] is taken from: (schema, table).
    pub fn key_columns(self) -> (Option<usize>, Option<usize>) {
        let at = |n| shape::position(self, n);
        match self {
            View::Schemata => (at("SCHEMA_NAME"), None),
            View::Tables
            | View::Columns
            | View::Statistics
            | View::Views
            | View::Partitions
            | View::KeyColumnUsage
            | View::TableConstraints => (at("TABLE_SCHEMA"), at("TABLE_NAME")),
            View::ReferentialConstraints => (at("CONSTRAINT_SCHEMA"), at("TABLE_NAME")),
            View::CheckConstraints => (at("CONSTRAINT_SCHEMA"), None),
            View::OpenTables => (at("Database"), at("Table")),
            _ => (None, None),
        }
    }

    /// Whether reading it needs the PROCESS privilege (InnoDB's tables:
    /// MySQL's `check_global_access(thd, PROCESS_ACL)` in i_s.cc).
    pub fn needs_process(self) -> bool {
        matches!(
            self,
            View::InnodbTrx
                | View::InnodbBufferPoolStats
                | View::InnodbMetrics
                | View::InnodbCmp
                | View::InnodbCmpmem
                | View::InnodbTables
                | View::InnodbIndexes
                | View::InnodbColumns
        )
    }
}

/// Whether `db` names information_schema (any case, as MySQL).
pub fn is_db(db: &str) -> bool {
    db.eq_ignore_ascii_case(DB)
}

/// The table `name` of information_schema (any case).
pub fn lookup(name: &str) -> Option<View> {
    ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)).map(|(v, _)| *v)
}

/// The hidden table SHOW OPEN TABLES reads.
const OPEN_TABLES: &str = "OPEN_TABLES";

/// A hidden table of information_schema by name (any case): what
/// [`lookup`] finds, and the tables only a rewritten SHOW may read.
pub fn lookup_hidden(name: &str) -> Option<View> {
    lookup(name).or_else(|| OPEN_TABLES.eq_ignore_ascii_case(name).then_some(View::OpenTables))
}

/// The system table `db`.`name` (information_schema's or
/// performance_schema's), if it is one.
pub fn system_table(db: &str, name: &str) -> Option<View> {
    if is_db(db) {
        lookup(name)
    } else if crate::perfschema::is_db(db) {
        crate::perfschema::lookup(name).map(View::Perf)
    } else {
        None
    }
}

/// What a query's constant terms say about the schema and table names it
/// wants (`None`: anything). See invariant 3.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hint {
    pub schema: Option<Vec<String>>,
    pub table: Option<Vec<String>>,
}

impl Hint {
    pub fn schema_ok(&self, db: &str) -> bool {
        self.schema.as_ref().is_none_or(|v| v.iter().any(|s| s == db))
    }

    pub fn table_ok(&self, name: &str) -> bool {
        self.table.as_ref().is_none_or(|v| v.iter().any(|s| s == name))
    }
}

/// 1044 for a statement that would change information_schema.
pub fn write_denied(user: &str) -> SqlError {
    write_denied_in(user, DB)
}

/// 1044 for a statement that would change system database `db`.
pub fn write_denied_in(user: &str, db: &str) -> SqlError {
    SqlError::new(1044, "42000", format!("Access denied for user '{user}'@'%' to database '{db}'"))
}

/// 1044 for DDL naming a table of information_schema (CREATE / DROP /
/// ALTER / TRUNCATE / RENAME TABLE, CREATE VIEW, CREATE / DROP INDEX), as
/// MySQL refuses it; `db` is the current database.
pub fn refuse_ddl(stmt: &sqlparser::ast::Statement, db: Option<&str>, user: &str) -> Result<()> {
    use sqlparser::ast::{ObjectName, ObjectType, Statement as S};
    let names: Vec<&ObjectName> = match stmt {
        S::Drop { object_type: ObjectType::Schema | ObjectType::Database, names, .. } => {
            for n in names {
                let n = n.to_string();
                let n = n.trim_matches('`');
                if is_db(n) || crate::perfschema::is_db(n) {
                    return Err(write_denied_in(user, &n.to_ascii_lowercase()));
                }
            }
            return Ok(());
        }
        S::CreateTable(ct) => vec![&ct.name],
        S::CreateView(cv) => vec![&cv.name],
        S::CreateIndex(ci) => vec![&ci.table_name],
        S::AlterTable(at) => vec![&at.name],
        S::Drop { names, .. } => names.iter().collect(),
        S::Truncate(t) => t.table_names.iter().map(|n| &n.name).collect(),
        S::RenameTable(pairs) => pairs.iter().flat_map(|p| [&p.old_name, &p.new_name]).collect(),
        _ => return Ok(()),
    };
    let schema_of = |n: &&ObjectName| match n.0.as_slice() {
        [_] => db.map(str::to_string),
        [d, _] => d.as_ident().map(|d| d.value.clone()),
        _ => None,
    };
    for n in &names {
        match schema_of(n) {
            Some(d) if is_db(&d) => return Err(write_denied(user)),
            Some(d) if crate::perfschema::is_db(&d) => return Err(write_denied_in(user, crate::perfschema::DB)),
            _ => {}
        }
    }
    // quire's data dictionary (`catalog::is_dictionary`): 3554.
    for n in &names {
        let (d, t) = match n.0.as_slice() {
            [t] => (db.unwrap_or(""), t),
            [d, t] => (d.as_ident().map_or("", |i| i.value.as_str()), t),
            _ => continue,
        };
        let t = t.as_ident().map_or("", |i| i.value.as_str());
        if crate::catalog::is_dictionary(d, t) {
            return Err(crate::catalog::dictionary_denied(t));
        }
    }
    Ok(())
}

/// 1227 unless `s`'s user holds PROCESS (quire grants it with ALL on
/// `*.*` or by name: `catalog::User::has_global`).
pub fn check_process(s: &Session) -> Result<()> {
    if s.shared.catalog.user(&s.user).is_some_and(|u| u.has_global("PROCESS")) {
        return Ok(());
    }
    Err(SqlError::new(
        1227,
        "42000",
        "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation",
    ))
}

/// The rows of `v` for session `s`.
pub fn rows(s: &Session, v: View, hint: &Hint) -> Result<Vec<Vec<Value>>> {
    if v.needs_process() {
        check_process(s)?;
    }
    let rows = match v {
        View::Schemata => tables::schemata(s, hint),
        View::Tables => tables::tables(s, hint),
        View::Views => tables::views(s, hint),
        View::Partitions => tables::partitions(s, hint),
        View::Columns => columns::columns(s, hint),
        View::Statistics => keys::statistics(s, hint),
        View::KeyColumnUsage => keys::key_column_usage(s, hint),
        View::TableConstraints => keys::table_constraints(s, hint),
        View::ReferentialConstraints => keys::referential_constraints(s, hint),
        View::CheckConstraints => keys::check_constraints(s, hint),
        View::Engines => Ok(server::engines()),
        View::CharacterSets => Ok(server::character_sets()),
        View::Collations => Ok(server::collations()),
        View::CollationCharacterSetApplicability => Ok(server::applicability()),
        View::Processlist => Ok(server::processlist(s)),
        View::UserPrivileges => Ok(server::user_privileges(s)),
        View::SchemaPrivileges => Ok(server::schema_privileges(s)),
        // quire's grants are per database (or global): no table or
        // column grant exists to list.
        View::TablePrivileges | View::ColumnPrivileges => Ok(Vec::new()),
        // quire has no events, tablespaces
        // other than a table's own file (MariaDB's FILES is empty for
        // InnoDB too) nor histograms.
        View::Triggers => Ok(crate::trigger::show::rows(s)),
        View::Routines => Ok(crate::stored::show::rows(s)),
        View::Parameters => Ok(crate::stored::show::parameter_rows(s)),
        View::Events => Ok(crate::event::show::rows(s)),
        View::Files | View::ColumnStatistics => Ok(Vec::new()),
        View::InnodbTrx => Ok(innodb_trx::rows(s)),
        View::InnodbBufferPoolStats => Ok(innodb_pool::buffer_pool_stats(s)),
        View::InnodbMetrics => Ok(innodb_metrics::rows(s)),
        View::InnodbCmp => Ok(innodb_pool::cmp()),
        View::InnodbCmpmem => Ok(innodb_pool::cmpmem(s)),
        View::InnodbTables => Ok(innodb_dict::tables(s)),
        View::InnodbIndexes => Ok(innodb_dict::indexes(s)),
        View::InnodbColumns => Ok(innodb_dict::columns(s)),
        View::Plugins => Ok(plugins::rows()),
        View::ThreadPool(t) => Ok(s.shared.thread_pool_rows.get().map(|f| f(t)).unwrap_or_default()),
        View::OpenTables => Ok(open_tables::rows(s, hint)),
        View::Perf(t) => crate::perfschema::rows(s, t),
    }?;
    debug_assert!(rows.iter().all(|r| r.len() == shape::columns(v).len()), "{v:?}: invariant 1");
    Ok(rows)
}

/// What a visible name is.
pub(crate) enum Kind {
    Base(Arc<Table>),
    /// A table that cannot be opened (a damaged file): listed by TABLES
    /// with the error as its comment, as MariaDB lists one, and nowhere
    /// else.
    Damaged(String),
    /// A view: its stored definition.
    View(String),
    System(View),
}

/// A table, view or system table a user may see.
pub(crate) struct Object {
    pub db: String,
    pub name: String,
    pub kind: Kind,
}

/// The databases `s`'s user may see that `hint` allows, sorted.
pub(crate) fn databases(s: &Session, hint: &Hint) -> Vec<String> {
    let user = s.shared.catalog.user(&s.user);
    s.shared
        .catalog
        .databases()
        .into_iter()
        .filter(|d| hint.schema_ok(d) && user.as_ref().is_some_and(|u| u.may_use(d)))
        .collect()
}

/// The tables, views and system tables `s`'s user may see that `hint`
/// allows, by database then name. A table dropped meanwhile is left out.
pub(crate) fn objects(s: &Session, hint: &Hint) -> Vec<Object> {
    let engine = s.engine();
    let names = engine.table_names();
    let mut out = Vec::new();
    for db in databases(s, hint) {
        if is_db(&db) {
            for (v, n) in ALL.iter() {
                if hint.table_ok(n) {
                    out.push(Object { db: db.clone(), name: n.to_string(), kind: Kind::System(*v) });
                }
            }
            continue;
        }
        if crate::perfschema::is_db(&db) {
            for (t, n) in crate::perfschema::ALL.iter() {
                if hint.table_ok(n) {
                    out.push(Object { db: db.clone(), name: n.to_string(), kind: Kind::System(View::Perf(*t)) });
                }
            }
            continue;
        }
        let prefix = format!("{db}/");
        let mut here: Vec<Object> = names
            .iter()
            .filter_map(|t| t.strip_prefix(&prefix))
            .filter(|n| hint.table_ok(n) && !crate::catalog::is_unlisted(&db, n))
            .filter_map(|n| {
                let kind = match engine.table(&format!("{db}/{n}")) {
                    Ok(t) => Kind::Base(t),
                    Err(quire_engine::Error::NoSuchTable(_)) => return None,
                    Err(e) => Kind::Damaged(SqlError::from(e).message),
                };
                Some(Object { db: db.clone(), name: n.to_string(), kind })
            })
            .collect();
        for v in s.shared.catalog.views_in(&db).into_iter().filter(|n| hint.table_ok(n)) {
            if let Some(def) = s.shared.catalog.view(&db, &v) {
                here.push(Object { db: db.clone(), name: v, kind: Kind::View(def) });
            }
        }
        here.sort_by(|a, b| a.name.cmp(&b.name));
        out.extend(here);
    }
    out
}

fn s(v: &str) -> Value {
    Value::Str(v.to_string())
}

fn u(n: u64) -> Value {
    Value::UInt(n)
}
