//! Sessions: one per client connection. A session owns its transaction,
//! its prepared statements and its variables, and runs statements:
//! parse (cached), plan (cached with the parse), execute.
//!
//! Transactions, as MySQL runs them:
//! - `autocommit=1` and no BEGIN: every statement is its own transaction,
//!   committed when it succeeds, rolled back when it fails;
//! - BEGIN / START TRANSACTION, or `autocommit=0`: statements run in one
//!   transaction until COMMIT / ROLLBACK (or an implicit commit: DDL,
//!   BEGIN, `SET autocommit=1`); a failing statement is undone alone
//!   (savepoint), except a deadlock (1213), which rolls back the whole
//!   transaction and ends it.
//!
//! Plans hold open tables, so every DDL bumps `Shared::ddl_epoch` and a
//! cached plan from an older epoch is compiled again.
//!
//! Interrupts: each command resets the connection's [`Process`]
//! interrupt; a SELECT gets a deadline from `/*+ MAX_EXECUTION_TIME(n) */`
//! or `max_execution_time`. Row loops, row-lock waits and SLEEP stop when
//! it is raised (KILL) or the deadline passes, and the statement fails
//! with 1317 (3024 for the deadline) and is undone like any failed
//! statement.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use quire_engine::row::Value;
use quire_engine::table::{LockWait, Trx};
use quire_engine::txn::interrupt::InterruptReason;
use quire_engine::txn::lock::LockMode;
use quire_engine::txn::Isolation;
use quire_engine::Engine;
use sqlparser::ast;

use crate::catalog::{self, Catalog};
use crate::diag::{Condition, Diagnostics, Level, Mode};
use crate::dml::{self, DeletePlan, InsertPlan, UpdatePlan};
use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType, TableRef};
use crate::process::{Process, ProcessList};
use crate::query::{self, Ctx, Resolver, SelectPlan, SessionEnv};
use crate::sink::{deliver, Answers, Capped, Collect, Outcome, RowSink};
use crate::sysvars::{SessionVars, SysVars, VarValue};
use crate::{admin, set_transaction, Output};

/// Server-wide state every session shares.
pub struct Shared {
    pub engine: Arc<Engine>,
    pub catalog: Catalog,
    pub sysvars: Arc<SysVars>,
    /// The general query log (`general_log`).
    pub general_log: Arc<crate::general_log::GeneralLog>,
    /// The slow query log (`slow_query_log`, `slow_log.rs`).
    pub slow_log: Arc<crate::general_log::TextLog>,
    /// Bumped by every DDL: plans of older epochs are stale.
    pub ddl_epoch: AtomicU64,
    /// Plans of COM_QUERY texts, by (database, text).
    /// Read on every COM_QUERY, written only on a miss: a reader-writer
    /// lock, so that lookups from many sessions do not serialise.
    plans: parking_lot::RwLock<HashMap<(String, String), Arc<Compiled>>>,
    pub stats: Stats,
    /// Every connection (KILL, SHOW PROCESSLIST, `Threads_connected`).
    pub processes: ProcessList,
    /// A SHUTDOWN statement asked the server to stop.
    shutdown: std::sync::atomic::AtomicBool,
    /// Status counters kept by the server around the SQL layer (the
    /// listener's `Threads_created`, `Threads_cached`), set once at start.
    pub server_status: std::sync::OnceLock<ServerStatus>,
    /// The thread pool's rows of information_schema's THREAD_POOL_*
    /// tables, set by a server that runs the pool (none without it).
    pub thread_pool_rows: std::sync::OnceLock<ThreadPoolRows>,
    /// Which table references which (FOREIGN KEYs).
    pub foreign_keys: crate::fk::Registry,
    /// GET_LOCK's named locks (`user_lock.rs`).
    pub user_locks: crate::user_lock::UserLocks,
    /// LOCK TABLES' table locks (`table_lock.rs`).
    pub table_locks: crate::table_lock::TableLocks,
    /// `read_only` / `super_read_only` (`read_only.rs`).
    pub read_only: Arc<crate::read_only::ReadOnly>,
    /// quire as a replica: its configuration, threads and status
    /// (`replica/`).
    pub replica: crate::replica::Replication,
    /// The binary log, when `log_bin` is on (`binlog/`); set once at start.
    pub binlog: std::sync::OnceLock<Arc<crate::binlog::Binlog>>,
    /// Registered replicas and running dump threads (`binlog/source.rs`).
    pub replicas: crate::binlog::source::Replicas,
    /// The counters of the last SHOW ENGINE INNODB STATUS (its rates).
    pub monitor: parking_lot::Mutex<Option<crate::innodb_status::Snapshot>>,
    /// What information_schema's InnoDB tables keep between reads.
    pub innodb_views: crate::infoschema::InnodbViews,
    /// Statement digests (`perfschema/digest.rs`).
    pub digests: crate::perfschema::digest::Digests,
    /// The event scheduler (`event/scheduler.rs`); started by the server.
    pub events: crate::event::scheduler::Scheduler,
}

/// A source of SHOW STATUS rows outside this crate.
pub type ServerStatus = Box<dyn Fn() -> Vec<(String, String)> + Send + Sync>;

/// A source of the THREAD_POOL_* tables' rows outside this crate (in
/// `infoschema::shape`'s column order).
pub type ThreadPoolRows = Box<dyn Fn(crate::infoschema::PoolTable) -> Vec<Vec<quire_engine::row::Value>> + Send + Sync>;

/// Counters for SHOW STATUS.
#[derive(Default)]
pub struct Stats {
    /// Prepared statements open in all sessions (`Prepared_stmt_count`;
    /// `max_prepared_stmt_count` bounds it, server-wide as in MySQL).
    pub prepared_stmt_count: AtomicU64,
    pub questions: AtomicU64,
    /// Commands longer than `long_query_time` (`Slow_queries`).
    pub slow_queries: AtomicU64,
    pub com_select: AtomicU64,
    pub com_insert: AtomicU64,
    pub com_update: AtomicU64,
    pub com_delete: AtomicU64,
    pub com_begin: AtomicU64,
    pub com_commit: AtomicU64,
    pub com_rollback: AtomicU64,
    pub com_stmt_prepare: AtomicU64,
    pub com_stmt_execute: AtomicU64,
    pub plan_cache_hits: AtomicU64,
    /// Transactions the replica applier rolled back and applied again
    /// after a lock wait timeout or a deadlock (MariaDB's
    /// `Slave_retried_transactions`).
    pub replica_retried_transactions: AtomicU64,
    /// Rows sorted by ORDER BY, and merge passes of sorts that spilled.
    pub sort_rows: AtomicU64,
    pub sort_merge_passes: AtomicU64,
    /// Groupings that went to disk beyond `tmp_table_size`.
    pub created_tmp_disk_tables: AtomicU64,
    /// Temporary files created in `tmpdir` (sort runs, hash join chunks).
    pub created_tmp_files: AtomicU64,
    pub connections: AtomicU64,
    /// Connections that ended before logging in (bad password, handshake
    /// timeout, broken handshake).
    pub aborted_connects: AtomicU64,
    /// Logged-in connections that ended without COM_QUIT (timeout, killed,
    /// the client vanished).
    pub aborted_clients: AtomicU64,
    pub started: std::sync::OnceLock<std::time::Instant>,
}

const PLAN_CACHE_MAX: usize = 4096;
/// The longest statement text whose plan is cached under the whole text.
const WHOLE_TEXT_MAX: usize = 16 << 10;

impl Shared {
    pub fn new(engine: Arc<Engine>, catalog: Catalog, sysvars: Arc<SysVars>) -> Arc<Self> {
        let read_only = crate::read_only::ReadOnly::follow(&sysvars);
        let general_log = crate::general_log::GeneralLog::follow(&sysvars, engine.config().datadir.clone());
        let slow_log = crate::general_log::TextLog::following(
            &sysvars,
            engine.config().datadir.clone(),
            ["slow_query_log", "slow_query_log_file"],
        );
        let s = Arc::new(Self {
            engine,
            catalog,
            sysvars,
            general_log,
            slow_log,
            ddl_epoch: AtomicU64::new(1),
            plans: parking_lot::RwLock::new(HashMap::new()),
            stats: Stats::default(),
            processes: ProcessList::default(),
            shutdown: Default::default(),
            server_status: std::sync::OnceLock::new(),
            thread_pool_rows: std::sync::OnceLock::new(),
            foreign_keys: Default::default(),
            user_locks: Default::default(),
            table_locks: Default::default(),
            read_only,
            replica: Default::default(),
            binlog: Default::default(),
            replicas: Default::default(),
            monitor: Default::default(),
            innodb_views: Default::default(),
            digests: Default::default(),
            events: Default::default(),
        });
        // Temporary tables a previous run left go before any session.
        crate::temp_table::sweep(&s.engine);
        s.foreign_keys.rebuild(&s.engine);
        let _ = s.stats.started.set(std::time::Instant::now());
        if let Err(e) = crate::statistics::persist::create_tables(&s.engine) {
            tracing::warn!("creating the statistics tables: {}", e.message);
        }
        if let Err(e) = crate::log_tables::create_tables(&s.engine) {
            tracing::warn!("creating mysql.general_log and mysql.slow_log: {}", e.message);
        }
        crate::statistics::spawn_auto_recalc(&s);
        s
    }

    pub fn epoch(&self) -> u64 {
        self.ddl_epoch.load(Ordering::Acquire)
    }

    pub fn request_shutdown(&self) {
        self.shutdown.store(true, Ordering::Release);
    }

    pub fn shutdown_requested(&self) -> bool {
        self.shutdown.load(Ordering::Acquire)
    }

    /// Caches a plan (the cache is emptied when full: plans are cheap to
    /// make again, and a bounded map needs no eviction order).
    fn cache_plan(&self, key: (String, String), c: Arc<Compiled>) {
        let mut plans = self.plans.write();
        if plans.len() >= PLAN_CACHE_MAX {
            plans.clear();
        }
        plans.insert(key, c);
    }

    pub fn bump_epoch(&self) {
        self.ddl_epoch.fetch_add(1, Ordering::AcqRel);
        self.plans.write().clear();
        // Tables came, went or changed: who references whom is read again.
        self.foreign_keys.rebuild(&self.engine);
    }
}

/// Whether a statement is skipped in a transaction whose `gtid_next` was
/// already executed: row changes and logged DDL.
fn gtid_skippable(plan: &Plan) -> bool {
    use ast::Statement as S;
    match plan {
        Plan::Insert(_) | Plan::Update(_) | Plan::Delete(_) => true,
        Plan::Other(s) => {
            crate::binlog::capture::is_logged_ddl(s) || matches!(**s, S::Insert(_) | S::Update(_) | S::Delete(_))
        }
        _ => false,
    }
}

/// A compiled statement.
#[allow(clippy::large_enum_variant)]
pub enum Plan {
    Select(SelectPlan),
    /// Joins, subqueries, derived tables, set operations (`rel`).
    Query(crate::rel::Compiled),
    Insert(InsertPlan),
    Update(UpdatePlan),
    Delete(DeletePlan),
    /// Run from the AST each time (DDL, SET, SHOW, transaction control).
    Other(Box<ast::Statement>),
    /// Statements quire parses itself (users, grants, SHOW WARNINGS ...).
    Admin(admin::AdminStmt),
    /// EXPLAIN of a compiled statement (`explain/`).
    Explain(Box<crate::explain::ExplainPlan>),
}

pub struct Compiled {
    pub plan: Plan,
    pub params: usize,
    pub epoch: u64,
    pub db: Option<String>,
    /// The tables it uses (LOCK TABLES admits or delays it by them).
    pub tables: Vec<crate::table_lock::TableUse>,
    /// Where its executions are summed (performance_schema's
    /// events_statements_summary_by_digest); `None` while it is off.
    pub digest: Option<Arc<crate::perfschema::digest::DigestStats>>,
    /// A query without a LIMIT of its own: `sql_select_limit` caps it.
    pub capped: bool,
    /// It calls stored functions: its tables are in use while they run
    /// (`routine::run`, 1442).
    pub calls_functions: bool,
}

impl Compiled {
    /// Whether the statement uses tables, and so clears the diagnostics
    /// area when it starts (`diag.rs`, rule 1).
    fn uses_tables(&self) -> bool {
        use ast::Statement as S;
        match &self.plan {
            Plan::Select(p) => p.table.is_some(),
            Plan::Query(q) => q.reads_tables,
            Plan::Insert(_) | Plan::Update(_) | Plan::Delete(_) => true,
            Plan::Other(s) => !matches!(
                **s,
                S::StartTransaction { .. }
                    | S::Commit { .. }
                    | S::Rollback { .. }
                    | S::Savepoint { .. }
                    | S::ReleaseSavepoint { .. }
                    | S::Set(_)
                    | S::Use(_)
            ),
            Plan::Admin(a) => a.uses_tables(),
            Plan::Explain(_) => true,
        }
    }

    pub fn columns(&self) -> Vec<ColMeta> {
        match &self.plan {
            Plan::Select(p) => query::columns(p),
            Plan::Query(q) => q.plan.columns().to_vec(),
            Plan::Other(s) => admin::columns_of(s),
            Plan::Admin(a) => a.columns(),
            Plan::Explain(e) => crate::explain::columns_of(e),
            _ => vec![],
        }
    }
}

/// A prepared statement.
pub struct Prepared {
    /// Shared with the process list while it runs (no copy per execute).
    pub sql: Arc<str>,
    /// Its `/*+ MAX_EXECUTION_TIME(n) */` hint, read once.
    time_limit_hint_ms: Option<u64>,
    pub compiled: Arc<Compiled>,
    /// The session's temporary-table generation it was compiled under
    /// (`temp_table.rs`, invariant 3).
    temp_generation: u64,
}

/// One client's session.
pub struct Session {
    pub shared: Arc<Shared>,
    pub user: String,
    pub db: Option<String>,
    pub connection_id: u32,
    pub vars: SessionVars,
    pub(crate) trx: Option<Trx>,
    /// In a transaction (BEGIN, or a statement under autocommit=0).
    pub(crate) in_txn: bool,
    /// SAVEPOINTs of the open transaction (`savepoint.rs`).
    pub(crate) savepoints: crate::savepoint::Savepoints,
    /// Isolation for the next transaction only (SET TRANSACTION ...).
    next_isolation: Option<Isolation>,
    /// READ ONLY / READ WRITE for the next transaction only (SET
    /// TRANSACTION without a scope, START TRANSACTION READ ONLY).
    next_read_only: Option<bool>,
    /// The open transaction is READ ONLY: its writes get 1792.
    trx_read_only: bool,
    pub last_insert_id: Cell<u64>,
    /// The first AUTO_INCREMENT value of the last statement that generated
    /// one, until a SELECT under `sql_auto_is_null` takes it
    /// (`auto_is_null`); 0: none.
    pub(crate) auto_is_null_id: Cell<u64>,
    /// ROW_COUNT(): rows the last statement changed (-1 after a SELECT).
    pub(crate) row_count: i64,
    /// FOUND_ROWS(): rows the last SELECT returned.
    found_rows: u64,
    /// Rows sent by the running command's result sets (the slow log's
    /// Rows_sent).
    command_rows_sent: u64,
    /// The database this connection's last slow log entry was in.
    slow_logged_db: Option<String>,
    /// What the running SELECT SQL_CALC_FOUND_ROWS counted (FOUND_ROWS()
    /// once it succeeds).
    calc_found: Cell<Option<u64>>,
    pub prepared: HashMap<u32, Prepared>,
    /// SQL-level prepared statements: lowercased name to their id in
    /// `prepared` (`dynamic_sql.rs`, invariant 1).
    pub(crate) prepared_names: HashMap<String, u32>,
    next_stmt_id: u32,
    /// User variables (`@name`); in a cell because triggers set them
    /// through the shared session.
    pub user_vars: RefCell<HashMap<String, Value>>,
    /// Tables of the statements whose triggers or stored functions are
    /// running (`routine::run`, 1442).
    pub(crate) tables_in_use: RefCell<Vec<(String, String)>>,
    /// Stored functions running (db, lowercased name): 1424 for a
    /// recursive call (`stored::func`).
    pub(crate) function_stack: RefCell<Vec<(String, String)>>,
    /// Conditions of the last statements (`diag.rs`). In a cell because
    /// expressions raise them through the shared [`SessionEnv`].
    pub(crate) diag: RefCell<Diagnostics>,
    /// `sql_mode` flags of the running statement.
    mode: Cell<Mode>,
    /// The client connected with CLIENT_FOUND_ROWS: UPDATE reports the
    /// rows it matched as affected (and ROW_COUNT() follows), not only
    /// the rows whose values changed.
    pub client_found_rows: bool,
    /// This connection in the process list: its interrupt, what it runs.
    pub process: Arc<Process>,
    /// The session registered `process` itself (no server connection
    /// did) and removes it when dropped.
    owns_process: bool,
    /// `/*+ MAX_EXECUTION_TIME(n) */` of the statement being run.
    time_limit_hint_ms: Option<u64>,
    /// The tables this session holds with LOCK TABLES (`lock_tables.rs`).
    pub(crate) table_locks: Vec<crate::table_lock::Locked>,
    /// The session holds the global read lock (FLUSH TABLES WITH READ
    /// LOCK: `table_lock.rs`).
    pub(crate) global_read_lock: bool,
    /// The session's temporary tables (`temp_table.rs`).
    pub(crate) temps: crate::temp_table::TempTables,
    /// The replica applier's session: exempt from read_only.
    pub(crate) replica_applier: bool,
    /// A SHOW's rewritten SELECT is being compiled: information_schema's
    /// hidden tables resolve (`infoschema::lookup_hidden`).
    compiling_show: Cell<bool>,
    /// The open transaction ran a statement that writes base tables
    /// (read_only's COMMIT check, `read_only.rs`).
    pub(crate) wrote_persistent: Cell<bool>,
    /// `gtid_next` = `uuid:N` was used by a COMMIT or ROLLBACK
    /// (`binlog/gtid.rs`: MySQL's UNDEFINED state).
    pub(crate) gtid_next_used: Cell<bool>,
    /// Run once the commit under way is done in memory, before it is
    /// waited for to be durable ([`Session::commit_then`]).
    after_commit: Cell<Option<Box<dyn FnOnce() + Send>>>,
}

/// Replaces what sqlparser does not accept with what it does.
fn preprocess(sql: &str) -> String {
    let trimmed = sql.trim().trim_end_matches(';').trim_end();
    let upper = trimmed.to_ascii_uppercase();
    // EXPLAIN FORMAT=TRADITIONAL is EXPLAIN (sqlparser knows no such format).
    if let Some(rest) = explain_traditional(&upper) {
        return preprocess(&format!("EXPLAIN {}", &trimmed[trimmed.len() - rest..]));
    }
    let outside_quotes = |i: usize| {
        let before = &trimmed.as_bytes()[..i];
        before.iter().filter(|&&b| b == b'\'').count() % 2 == 0
            && before.iter().filter(|&&b| b == b'"').count() % 2 == 0
    };
    if let Some(i) = upper.rfind("LOCK IN SHARE MODE").filter(|&i| outside_quotes(i)) {
        return format!("{}FOR SHARE{}", &trimmed[..i], &trimmed[i + "LOCK IN SHARE MODE".len()..]);
    }
    trimmed.to_string()
}

/// For `EXPLAIN|DESCRIBE|DESC FORMAT = TRADITIONAL stmt` (upper-cased):
/// the length of `stmt`.
fn explain_traditional(upper: &str) -> Option<usize> {
    let end = upper.find(char::is_whitespace)?;
    if !matches!(&upper[..end], "EXPLAIN" | "DESCRIBE" | "DESC") {
        return None;
    }
    let rest = upper[end..].trim_start().strip_prefix("FORMAT")?.trim_start().strip_prefix('=')?;
    let rest = rest.trim_start().strip_prefix("TRADITIONAL")?;
    rest.starts_with(char::is_whitespace).then(|| rest.trim_start().len())
}

/// The text after a SET's keyword and the byte offsets in it of the
/// characters outside quotes and parentheses; `None` when it is no SET.
fn set_top_level(sql: &str) -> Option<(&str, Vec<usize>)> {
    let rest = sql.trim_start();
    if !rest.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("set ")) {
        return None;
    }
    let body = rest.get(4..)?;
    let (mut at, mut quote, mut depth) = (Vec::new(), None::<char>, 0);
    for (i, ch) in body.char_indices() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(ch),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, _) if depth == 0 => at.push(i),
            _ => {}
        }
    }
    Some((body, at))
}

/// Splits `SET a=1, NAMES x` (which sqlparser refuses) into single SETs.
fn split_set(sql: &str) -> Option<Vec<String>> {
    let (body, at) = set_top_level(sql)?;
    let commas: Vec<usize> = at.into_iter().filter(|&i| body.as_bytes()[i] == b',').collect();
    if commas.is_empty() {
        return None;
    }
    let mut start = 0;
    let mut parts = Vec::with_capacity(commas.len() + 1);
    for end in commas.into_iter().chain([body.len()]) {
        parts.push(format!("SET {}", body[start..end].trim()));
        start = end + 1;
    }
    Some(parts)
}

/// `SET @a := 1, b := 2` with `=` for each assignment's `:=` (those
/// outside quotes and parentheses; one inside a value is the operator);
/// `None` when it is no SET or has none.
fn set_colon_equals(sql: &str) -> Option<String> {
    let (body, at) = set_top_level(sql)?;
    let colons: Vec<usize> = at.into_iter().filter(|&i| body[i..].starts_with(":=")).collect();
    if colons.is_empty() {
        return None;
    }
    let (mut out, mut start) = (String::from("SET "), 0);
    for c in colons {
        out.push_str(&body[start..c]);
        out.push('=');
        start = c + 2;
    }
    out.push_str(&body[start..]);
    Some(out)
}

pub fn parse(sql: &str) -> Result<Vec<ast::Statement>> {
    let text = preprocess(sql);
    // depth::parse_sql bounds how deep the AST may be (1436 beyond).
    let parse_one = |text: &str| -> Result<Vec<ast::Statement>> {
        let mut stmts = crate::depth::parse_sql(text)?;
        set_transaction::apply_scopes(text, &mut stmts)?;
        crate::item_names::name_items(text, &mut stmts);
        Ok(stmts)
    };
    match parse_one(&text) {
        Ok(v) => Ok(v),
        Err(e) => {
            // CREATE VIEW ... WITH [CASCADED | LOCAL] CHECK OPTION, which
            // sqlparser does not parse: parsed without it, the option
            // carried to `view::create` (see `view::CHECK_OPTION_MARK`).
            if let Some((rest, kind)) = crate::view::strip_check_option(&text).filter(|_| e.code == 1064) {
                let mut stmts = parse_one(rest)?;
                return match stmts.last_mut() {
                    Some(ast::Statement::CreateView(cv)) => {
                        let k = if kind == crate::view::CheckOption::Local { "LOCAL" } else { "CASCADED" };
                        cv.comment = Some(format!("{}{k}", crate::view::CHECK_OPTION_MARK));
                        Ok(stmts)
                    }
                    _ => Err(e),
                };
            }
            // SET @a := 1: the assignment operator where SET takes `=`.
            if let Some(t) = set_colon_equals(&text).filter(|_| e.code == 1064) {
                return parse(&t);
            }
            if let Some(parts) = split_set(&text).filter(|_| e.code == 1064) {
                let mut out = Vec::new();
                for p in parts {
                    out.extend(parse_one(&p)?);
                }
                return Ok(out);
            }
            // ALTER TABLE ... DROP CHECK n (MySQL 8.0.19): DROP CONSTRAINT n.
            if let Some(t) = crate::alter::extras::drop_check(&text).filter(|_| e.code == 1064) {
                return parse_one(&t);
            }
            // CHAR(n) BINARY: parsed without the attribute (and with the
            // other retries), the columns marked after.
            if let Some((t, names)) = crate::create::binary_collation::strip(&text).filter(|_| e.code == 1064) {
                let mut stmts = parse(&t)?;
                crate::create::binary_collation::mark(&mut stmts, &names);
                return Ok(stmts);
            }
            // ZEROFILL: parsed as UNSIGNED, the columns marked after.
            if let Some((t, names)) = crate::create::zerofill::strip(&text).filter(|_| e.code == 1064) {
                let t = crate::create::numeric::as_decimal(&t).unwrap_or(t);
                let mut stmts = parse_one(&t)?;
                crate::create::zerofill::mark(&mut stmts, &names);
                return Ok(stmts);
            }
            // NUMERIC(p) UNSIGNED: DECIMAL's synonym, which sqlparser reads.
            if let Some(t) = crate::create::numeric::as_decimal(&text).filter(|_| e.code == 1064) {
                return parse_one(&t);
            }
            // UPDATE t1, t2 SET ...: sqlparser takes one table before SET.
            if let Some(t) = crate::multi_dml::comma_update(&text).filter(|_| e.code == 1064) {
                return parse_one(&t);
            }
            Err(e)
        }
    }
}

/// Name resolution for the session's current database.
pub(crate) struct SessionResolver<'a> {
    shared: &'a Shared,
    db: Option<&'a str>,
    user: &'a str,
    /// The session's temporary tables, consulted first.
    temps: &'a crate::temp_table::TempTables,
    /// Every table resolved, under the name it was used by (LOCK TABLES
    /// checks a plan against them: `table_lock.rs`).
    used: RefCell<Vec<crate::table_lock::TableUse>>,
    /// How many views' definitions are being bound around the current
    /// name (`Resolver::view_scope`): tables resolved inside one are
    /// marked `via_view`.
    view_depth: std::cell::Cell<u32>,
    /// `optimizer_switch`'s flags that choose plans.
    switch: crate::optimizer_switch::Switch,
    /// information_schema's hidden tables resolve (a SHOW's SELECT).
    hidden_tables: bool,
}

impl Resolver for SessionResolver<'_> {
    fn switch(&self) -> crate::optimizer_switch::Switch {
        self.switch
    }

    fn resolve(&self, name: &ast::ObjectName, alias: Option<String>) -> Result<TableRef> {
        self.resolve_as(name, alias, None)
    }

    fn view(&self, name: &ast::ObjectName) -> Result<Option<crate::view::ViewRef>> {
        self.view_as(name, None)
    }

    fn resolve_as(&self, name: &ast::ObjectName, alias: Option<String>, user: Option<&str>) -> Result<TableRef> {
        let parts: Vec<String> =
            name.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_default()).collect();
        let (db, table) = match parts.as_slice() {
            [t] => (self.db.ok_or_else(SqlError::no_database)?.to_string(), t.clone()),
            [d, t] => (d.clone(), t.clone()),
            _ => return Err(SqlError::syntax(format!("bad table name {name}"))),
        };
        catalog::check_table_name(&table)?;
        if catalog::is_dictionary(&db, &table) {
            return Err(catalog::dictionary_denied(&table));
        }
        self.check_use(user, &db, &table)?;
        if let Some(engine_name) = self.temps.get(&db, &table) {
            // A temporary table: private, so never locked by LOCK TABLES
            // or FLUSH TABLES WITH READ LOCK and not in `used`.
            let t = self.shared.engine.table(engine_name).map_err(|e| admin::open_error(e, &db, &table))?;
            return Ok(TableRef::new(&db, &table, alias, t));
        }
        if !self.shared.catalog.database_exists(&db) {
            return Err(SqlError::no_such_table(&db, &table));
        }
        let t = match self.shared.engine.table(&format!("{db}/{table}")) {
            Ok(t) => t,
            // Reads of information_schema are bound by `system_view`; what
            // reaches here would write it.
            Err(quire_engine::Error::NoSuchTable(_)) if crate::infoschema::is_db(&db) => {
                return Err(crate::infoschema::write_denied(user.unwrap_or(self.user)));
            }
            // performance_schema's tables other than setup_instruments
            // (`perfschema::setup`) are read-only.
            Err(quire_engine::Error::NoSuchTable(_)) if crate::infoschema::system_table(&db, &table).is_some() => {
                return Err(crate::infoschema::write_denied_in(user.unwrap_or(self.user), crate::perfschema::DB));
            }
            Err(quire_engine::Error::NoSuchTable(_)) if self.shared.catalog.view(&db, &table).is_some() => {
                return Err(SqlError::unsupported("writing through a view"));
            }
            Err(e) => return Err(admin::open_error(e, &db, &table)),
        };
        crate::statistics::ensure(self.shared, &db, &table, &t);
        let name = alias.clone().unwrap_or_else(|| table.clone());
        self.used.borrow_mut().push(crate::table_lock::TableUse {
            db: db.clone(),
            table: table.clone(),
            name,
            write: false,
            via_view: self.view_depth.get() > 0,
        });
        Ok(TableRef::new(&db, &table, alias, t))
    }

    fn view_scope(&self, enter: bool) {
        let d = self.view_depth.get();
        self.view_depth.set(if enter { d + 1 } else { d.saturating_sub(1) });
    }

    fn system_view(&self, name: &ast::ObjectName) -> Result<Option<crate::infoschema::View>> {
        let perf = |d: &str| crate::perfschema::is_db(d);
        let perf_table = match name.0.as_slice() {
            [t] if self.db.is_some_and(perf) => Some(t),
            [d, t] if d.as_ident().is_some_and(|d| perf(&d.value)) => Some(t),
            _ => None,
        };
        if let Some(t) = perf_table {
            let t = t.as_ident().map(|i| i.value.as_str()).unwrap_or_default();
            return match crate::perfschema::lookup(t) {
                Some(p) => Ok(Some(crate::infoschema::View::Perf(p))),
                None => {
                    Err(SqlError::new(1146, "42S02", format!("Table '{}.{t}' doesn't exist", crate::perfschema::DB)))
                }
            };
        }
        let table = match name.0.as_slice() {
            [t] if self.db.is_some_and(crate::infoschema::is_db) => t,
            [d, t] if d.as_ident().is_some_and(|d| crate::infoschema::is_db(&d.value)) => t,
            _ => return Ok(None),
        };
        let table = table.as_ident().map(|i| i.value.as_str()).unwrap_or_default();
        let found =
            if self.hidden_tables { crate::infoschema::lookup_hidden(table) } else { crate::infoschema::lookup(table) };
        match found {
            Some(v) => Ok(Some(v)),
            None => Err(SqlError::new(1109, "42S02", format!("Unknown table '{table}' in information_schema"))),
        }
    }

    fn view_as(&self, name: &ast::ObjectName, user: Option<&str>) -> Result<Option<crate::view::ViewRef>> {
        let parts: Vec<String> =
            name.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_default()).collect();
        let (db, view) = match parts.as_slice() {
            [t] => match self.db {
                Some(d) => (d.to_string(), t.clone()),
                None => return Ok(None),
            },
            [d, t] => (d.clone(), t.clone()),
            _ => return Ok(None),
        };
        if self.temps.get(&db, &view).is_some() {
            return Ok(None); // a temporary table shadows a view
        }
        let Some(definition) = self.shared.catalog.view(&db, &view) else { return Ok(None) };
        self.check_use(user, &db, &view)?;
        // A view is used under its name (LOCK TABLES must have locked it);
        // one inside another view's definition is admitted through it.
        self.used.borrow_mut().push(crate::table_lock::TableUse {
            db: db.clone(),
            table: view.clone(),
            name: view.clone(),
            write: false,
            via_view: self.view_depth.get() > 0,
        });
        Ok(Some(crate::view::ViewRef { db, name: view, definition }))
    }
}

impl SessionResolver<'_> {
    /// The tables resolved so far, the one `plan` writes marked so.
    fn uses(&self, plan: &Plan) -> Vec<crate::table_lock::TableUse> {
        let mut uses = self.used.take();
        let target = match plan {
            Plan::Insert(p) => Some(&p.table),
            Plan::Update(p) => Some(&p.table),
            Plan::Delete(p) => Some(&p.table),
            _ => None,
        };
        if let Some(t) = target.filter(|t| self.temps.get(&t.db, &t.name).is_none()) {
            let name = t.alias.clone().unwrap_or_else(|| t.name.clone());
            match uses.iter_mut().find(|u| u.db == t.db && u.table == t.name && u.name == name) {
                Some(u) => u.write = true,
                None => uses.push(crate::table_lock::TableUse {
                    db: t.db.clone(),
                    table: t.name.clone(),
                    name,
                    write: true,
                    via_view: false,
                }),
            }
        }
        uses.sort_by(|a, b| {
            (&a.db, &a.table, &a.name, a.via_view)
                .cmp(&(&b.db, &b.table, &b.name, b.via_view))
                .then(b.write.cmp(&a.write))
        });
        uses.dedup_by(|a, b| a.db == b.db && a.table == b.table && a.name == b.name && a.via_view == b.via_view);
        uses
    }

    /// 1142 unless `user` (a view's definer; the session's user when
    /// `None`) may use `db`; 1449 when that definer no longer exists.
    fn check_use(&self, user: Option<&str>, db: &str, table: &str) -> Result<()> {
        let who = user.unwrap_or(self.user);
        match self.shared.catalog.user(who) {
            Some(u) if u.may_use(db) => Ok(()),
            None if user.is_some() => Err(SqlError::new(
                1449,
                "HY000",
                format!("The user specified as a definer ('{who}'@'%') does not exist"),
            )),
            _ => Err(SqlError::new(1142, "42000", format!("command denied to user '{who}'@'%' for table '{table}'"))),
        }
    }
}

/// Whether an INSERT / UPDATE / DELETE writes a view (`view_dml`): one
/// lookup in the catalog's views when the statement is compiled (plans
/// are cached, so not per execution).
fn writes_view(stmt: &ast::Statement, r: &SessionResolver<'_>) -> bool {
    let name = match stmt {
        ast::Statement::Insert(i) => match &i.table {
            ast::TableObject::TableName(n) => n,
            _ => return false,
        },
        ast::Statement::Update(u) => match &u.table.relation {
            ast::TableFactor::Table { name, .. } => name,
            _ => return false,
        },
        ast::Statement::Delete(d) => match &d.from {
            ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => {
                match v.first().map(|t| &t.relation) {
                    Some(ast::TableFactor::Table { name, .. }) => name,
                    _ => return false,
                }
            }
        },
        _ => return false,
    };
    matches!(r.view(name), Ok(Some(_)))
}

/// Whether a query names a view (bound by the general engine).
fn reads_view(q: &ast::Query, r: &SessionResolver<'_>) -> bool {
    use std::ops::ControlFlow;
    ast::visit_relations(q, |n: &ast::ObjectName| {
        // information_schema tables too (`infoschema`).
        if !matches!(r.system_view(n), Ok(None)) {
            return ControlFlow::Break(());
        }
        match r.view(n) {
            Ok(Some(_)) | Err(_) => ControlFlow::Break(()),
            Ok(None) => ControlFlow::Continue(()),
        }
    })
    .is_break()
}

/// Reads of session state for expressions.
pub(crate) struct Env<'a> {
    pub(crate) s: &'a Session,
}

impl SessionEnv for Env<'_> {
    fn triggers(&self, db: &str, table: &str) -> Option<crate::trigger::TableTriggers> {
        crate::trigger::TableTriggers::of(self.s, db, table)
    }

    fn fire(&self, trx: &mut Trx, row: crate::trigger::fire::RowEvent<'_>) -> Result<()> {
        crate::trigger::fire(self.s, trx, row)
    }

    fn stored_function(&self, key: &str, args: &[Value]) -> Result<Value> {
        crate::stored::func::call(self.s, None, key, args)
    }

    fn set_user_var(&self, name: &str, value: Value) {
        self.s.user_vars.borrow_mut().insert(name.to_string(), value);
    }

    fn stored_function_in(&self, trx: &mut Trx, key: &str, args: &[Value]) -> Result<Value> {
        crate::stored::func::call(self.s, Some(trx), key, args)
    }

    fn system_rows(&self, v: crate::infoschema::View, hint: &crate::infoschema::Hint) -> Result<Vec<Vec<Value>>> {
        crate::infoschema::rows(self.s, v, hint)
    }

    fn client_found_rows(&self) -> bool {
        self.s.client_found_rows
    }

    fn insert_id(&self) -> u64 {
        self.s.vars.insert_id()
    }

    fn user_locks(&self) -> Option<(&crate::user_lock::UserLocks, u32)> {
        Some((&self.s.shared.user_locks, self.s.connection_id))
    }

    fn fk_checks(&self) -> Option<crate::fk::Checks<'_>> {
        let shared = &self.s.shared;
        (shared.foreign_keys.any() && self.s.foreign_key_checks())
            .then(|| crate::fk::Checks { registry: &shared.foreign_keys, engine: &shared.engine })
    }
    fn sysvar(&self, name: &str, global: bool) -> Result<Value> {
        // `@name`: a user variable (NULL when never set).
        if let Some(user) = name.strip_prefix('@') {
            return Ok(self.s.user_vars.borrow().get(user).cloned().unwrap_or(Value::Null));
        }
        let v = if global {
            self.s
                .shared
                .sysvars
                .global(name)
                .ok_or_else(|| SqlError::new(1193, "HY000", format!("Unknown system variable '{name}'")))?
        } else {
            match name {
                "autocommit" => VarValue::Bool(self.s.autocommit()),
                "warning_count" => VarValue::UInt(self.s.diag.borrow().warning_count()),
                "error_count" => VarValue::UInt(self.s.diag.borrow().error_count()),
                "last_insert_id" | "identity" => VarValue::UInt(self.s.last_insert_id.get()),
                "pseudo_thread_id" => VarValue::UInt(u64::from(self.s.pseudo_thread_id())),
                // The statement's time while SET TIMESTAMP is 0 (DEFAULT).
                "timestamp" => VarValue::Float(crate::timezone::statement_us() as f64 / 1e6),
                _ => self
                    .s
                    .shared
                    .sysvars
                    .value(&self.s.vars, name)
                    .map_err(|e| SqlError::new(e.code, e.state, e.message))?,
            }
        };
        Ok(var_to_value(&v))
    }

    fn sorted(&self, stats: crate::filesort::SortStats) {
        let st = &self.s.shared.stats;
        st.sort_rows.fetch_add(stats.rows, Ordering::Relaxed);
        st.sort_merge_passes.fetch_add(stats.merge_passes, Ordering::Relaxed);
        if stats.disk_tables > 0 {
            st.created_tmp_disk_tables.fetch_add(stats.disk_tables, Ordering::Relaxed);
        }
        st.created_tmp_files.fetch_add(stats.files, Ordering::Relaxed);
    }

    fn created_tmp_files(&self, n: u64) {
        self.s.shared.stats.created_tmp_files.fetch_add(n, Ordering::Relaxed);
    }

    fn session_func(&self, name: &str) -> Option<Value> {
        Some(match name {
            "database" | "schema" => self.s.db.clone().map_or(Value::Null, Value::Str),
            "user" | "session_user" | "system_user" => Value::Str(format!("{}@localhost", self.s.user)),
            "current_user" => Value::Str(format!("{}@%", self.s.user)),
            // MySQL's CONNECTION_ID() is `pseudo_thread_id` (mysqlbinlog
            // output sets it).
            "connection_id" => Value::Int(i64::from(self.s.pseudo_thread_id())),
            "last_insert_id" => Value::UInt(self.s.last_insert_id.get()),
            "row_count" => Value::Int(self.s.row_count),
            // Signed in MySQL: FOUND_ROWS() - 5 may be negative.
            "found_rows" => Value::Int(self.s.found_rows as i64),
            _ => return None,
        })
    }

    fn warn(&self, c: Condition) -> Result<()> {
        if c.level == Level::Warning && self.s.mode.get().abort_on_warning {
            return Err(c.into_error());
        }
        self.s.diag.borrow_mut().push(c);
        Ok(())
    }

    fn mode(&self) -> Mode {
        self.s.mode.get()
    }

    fn found_rows_counted(&self, n: u64) {
        self.s.calc_found.set(Some(n));
    }

    fn check_interrupt(&self) -> Result<()> {
        match self.s.process.interrupt.check() {
            None => Ok(()),
            Some(r) => Err(interrupt_error(r)),
        }
    }

    fn sleep(&self, d: std::time::Duration) -> Value {
        self.s.process.set_state("User sleep");
        let cut = quire_engine::txn::admission::blocking(quire_engine::wait::Instrument::Sleep, || {
            self.s.process.interrupt.sleep(d)
        });
        self.s.process.set_state("executing");
        Value::Int(i64::from(cut.is_some()))
    }
}

/// The error a statement stopped for `r` gets.
fn interrupt_error(r: InterruptReason) -> SqlError {
    match r {
        InterruptReason::Timeout => SqlError::execution_time_exceeded(),
        InterruptReason::KillQuery | InterruptReason::KillConnection => SqlError::interrupted(),
    }
}

pub fn var_to_value(v: &VarValue) -> Value {
    match v {
        VarValue::Int(i) => Value::Int(*i),
        VarValue::UInt(u) => Value::UInt(*u),
        VarValue::Bool(b) => Value::Int(*b as i64),
        other => Value::Str(other.display()),
    }
}

pub fn value_to_var(v: &Value) -> VarValue {
    match v {
        Value::Int(i) => VarValue::Int(*i),
        Value::UInt(u) => VarValue::UInt(*u),
        Value::Null => VarValue::Str(String::new()),
        other => VarValue::Str(crate::expr::as_string(other)),
    }
}

impl Session {
    pub fn new(shared: Arc<Shared>, user: &str, db: Option<&str>, connection_id: u32) -> Result<Self> {
        if let Some(d) = db {
            if !shared.catalog.database_exists(d) {
                return Err(SqlError::unknown_database(d));
            }
            if !shared.catalog.user(user).is_some_and(|u| u.may_use(d)) {
                return Err(SqlError::new(
                    1044,
                    "42000",
                    format!("Access denied for user '{user}'@'%' to database '{d}'"),
                ));
            }
        }
        let vars = shared.sysvars.session_defaults();
        // A server connection registered itself when accepted; a session
        // made without one (embedded use) registers itself.
        let (process, owns_process) = match shared.processes.get(connection_id) {
            Some(p) => (p, false),
            None => (shared.processes.register(connection_id, "localhost", None), true),
        };
        process.logged_in(user, db);
        Ok(Self {
            shared,
            user: user.to_string(),
            db: db.map(str::to_string),
            connection_id,
            vars,
            trx: None,
            in_txn: false,
            savepoints: Default::default(),
            next_isolation: None,
            next_read_only: None,
            trx_read_only: false,
            last_insert_id: Cell::new(0),
            auto_is_null_id: Cell::new(0),
            row_count: -1,
            found_rows: 0,
            command_rows_sent: 0,
            slow_logged_db: None,
            calc_found: Cell::new(None),
            prepared: HashMap::new(),
            prepared_names: HashMap::new(),
            next_stmt_id: 1,
            user_vars: RefCell::new(HashMap::new()),
            tables_in_use: RefCell::new(Vec::new()),
            function_stack: RefCell::new(Vec::new()),
            diag: RefCell::new(Diagnostics::default()),
            mode: Cell::new(Mode::default()),
            client_found_rows: false,
            process,
            owns_process,
            time_limit_hint_ms: None,
            table_locks: Vec::new(),
            global_read_lock: false,
            temps: Default::default(),
            replica_applier: false,
            compiling_show: Cell::new(false),
            wrote_persistent: Cell::new(false),
            gtid_next_used: Cell::new(false),
            after_commit: Cell::new(None),
        })
    }

    /// Runs `f` with warnings raised as errors under a strict `sql_mode`:
    /// what a stored routine's variables and result take is checked as a
    /// column's value is (MariaDB's rule), whatever statement runs it.
    pub(crate) fn strictly<T>(&self, f: impl FnOnce() -> T) -> T {
        let saved = self.mode.get();
        let mut mode = saved;
        mode.abort_on_warning = mode.strict;
        self.mode.set(mode);
        let r = f();
        self.mode.set(saved);
        r
    }

    /// A statement starts: its `sql_mode` flags and `time_zone` are read and the
    /// diagnostics area is cleared if it uses tables (`diag.rs`).
    pub(crate) fn begin_statement(&self, uses_tables: bool, writes: bool) {
        let mut mode = self.vars.mode();
        mode.abort_on_warning = mode.strict && writes;
        self.mode.set(mode);
        // TIMESTAMP columns and NOW() read the session's zone on this
        // thread (`timezone.rs`).
        crate::timezone::enter(self.vars.time_zone_offset(), || {
            self.vars.get("time_zone").and_then(|v| v.as_str().map(str::to_string))
        });
        crate::timezone::start_statement(self.vars.fixed_time_us());
        self.diag.borrow_mut().begin_statement(uses_tables, self.vars.max_error_count(), self.vars.sql_notes());
    }

    /// A statement that failed before it could run (parse errors, unknown
    /// statement ids): its error alone is the diagnostics area.
    pub(crate) fn fail<T>(&self, e: SqlError) -> Result<T> {
        self.begin_statement(false, false);
        self.diag.borrow_mut().push_error(&e);
        Err(e)
    }

    /// Conditions the last statement raised: the count its OK / EOF packet
    /// carries.
    pub fn statement_warnings(&self) -> u16 {
        u16::try_from(self.diag.borrow().statement_count()).unwrap_or(u16::MAX)
    }

    /// Raises a note (`IF [NOT] EXISTS` finding what it allows for).
    pub fn note(&self, code: u16, message: String) {
        self.diag.borrow_mut().push(Condition::new(Level::Note, code, message));
    }

    pub fn warn(&self, code: u16, message: String) {
        self.diag.borrow_mut().push(Condition::new(Level::Warning, code, message));
    }

    /// The diagnostics area, for SHOW WARNINGS / SHOW ERRORS.
    pub fn diagnostics(&self) -> std::cell::Ref<'_, Diagnostics> {
        self.diag.borrow()
    }

    /// COM_STATISTICS' line (`mariadb-admin status`), server-wide as
    /// MySQL's: uptime, connected threads and questions since start, the
    /// tables opened since start and open now (`Opened_tables`,
    /// `Open_tables`), the questions' average. quire counts no slow
    /// queries nor FLUSH TABLES: those are 0.
    pub fn statistics(&self) -> String {
        let st = &self.shared.stats;
        let uptime = st.started.get().map_or(0, |t| t.elapsed().as_secs());
        let questions = st.questions.load(Ordering::Relaxed);
        let qps = questions as f64 / uptime.max(1) as f64;
        let threads = self.shared.processes.len();
        let (open, opened) = crate::status::table_counts(self.engine());
        format!(
            "Uptime: {uptime}  Threads: {threads}  Questions: {questions}  Slow queries: 0  Opens: {opened}  \
             Flush tables: 0  Open tables: {open}  Queries per second avg: {qps:.3}"
        )
    }

    pub fn autocommit(&self) -> bool {
        self.vars.autocommit()
    }

    pub fn in_transaction(&self) -> bool {
        self.in_txn
    }

    fn isolation(&mut self) -> Isolation {
        self.next_isolation.take().unwrap_or_else(|| self.vars.isolation())
    }

    fn begin(&mut self) -> Trx {
        let iso = self.isolation();
        self.trx_read_only = self.next_read_only.take().unwrap_or_else(|| self.vars.transaction_read_only());
        let mut t = self.shared.engine.begin(iso);
        t.set_lock_wait_timeout(std::time::Duration::from_secs(self.vars.innodb_lock_wait_timeout_secs()));
        t.set_interrupt(self.process.interrupt.clone());
        t.set_owner(self.connection_id);
        t.set_isolation(iso);
        t.set_read_only(self.trx_read_only);
        if self.binlog().is_some() {
            t.keep_row_log(true);
        }
        t
    }

    /// Commits the open transaction, if any.
    pub fn commit(&mut self) -> Result<()> {
        self.in_txn = false;
        self.savepoints.clear();
        if let Some(mut t) = self.trx.take() {
            if t.is_rw() {
                if let Err(e) = self.wait_for_commit_lock().and_then(|()| self.check_commit_read_only()) {
                    t.rollback()?;
                    return Err(e);
                }
            }
            self.commit_trx(&mut t)?;
        }
        self.wrote_persistent.set(false);
        Ok(())
    }

    /// COMMIT with `after` run once the transaction is committed in memory
    /// (visible, its locks released, its commit record ordered in the redo
    /// log and the binary log) and before it is waited for to be durable:
    /// the parallel applier's commit order, which lets the next
    /// transaction commit while this one's sync is under way. `after`
    /// also runs when there was nothing to commit; not when the commit
    /// failed.
    pub(crate) fn commit_then(&mut self, after: Box<dyn FnOnce() + Send>) -> Result<()> {
        self.after_commit.set(Some(after));
        let r = self.commit();
        if let Some(after) = self.after_commit.take() {
            if r.is_ok() {
                after();
            }
        }
        r
    }

    /// The hook of [`Session::commit_then`], once the commit is in memory.
    pub(crate) fn committed_in_memory(&self) {
        if let Some(after) = self.after_commit.take() {
            after();
        }
    }

    /// Rolls back the open transaction, if any.
    pub fn rollback(&mut self) -> Result<()> {
        self.in_txn = false;
        self.savepoints.clear();
        self.wrote_persistent.set(false);
        if let Some(mut t) = self.trx.take() {
            t.rollback()?;
        }
        Ok(())
    }

    /// COM_RESET_CONNECTION.
    pub fn reset(&mut self) {
        let _ = self.rollback();
        self.shared.user_locks.release_all(self.connection_id);
        self.unlock_tables();
        self.release_global_read_lock();
        self.close_all_prepared();
        self.temps.drop_all(&self.shared.engine); // as MySQL's reset
        self.vars = self.shared.sysvars.session_defaults();
        self.user_vars.get_mut().clear();
        self.last_insert_id.set(0);
        self.next_isolation = None;
        self.next_read_only = None;
        self.gtid_next_used.set(false);
        *self.diag.borrow_mut() = Diagnostics::default();
    }

    pub(crate) fn resolver(&self) -> SessionResolver<'_> {
        SessionResolver {
            shared: &self.shared,
            db: self.db.as_deref(),
            user: &self.user,
            temps: &self.temps,
            used: Default::default(),
            view_depth: Default::default(),
            switch: self.vars.switch(),
            hidden_tables: self.compiling_show.get(),
        }
    }

    /// The engine name of `db`.`table` for this session: its temporary
    /// table of that name, else the base table (`temp_table.rs`).
    pub(crate) fn table_key(&self, db: &str, table: &str) -> String {
        match self.temps.get(db, table) {
            Some(n) => n.to_string(),
            None => format!("{db}/{table}"),
        }
    }

    /// `pseudo_thread_id`: the connection's id until SET changes it.
    pub(crate) fn pseudo_thread_id(&self) -> u32 {
        match self.vars.get("pseudo_thread_id").and_then(|v| v.as_u64()) {
            Some(n) if n != 0 => u32::try_from(n).unwrap_or(u32::MAX),
            _ => self.connection_id,
        }
    }

    /// Compiles one parsed statement.
    pub fn compile(&self, stmt: ast::Statement) -> Result<Compiled> {
        self.compile_in(stmt, self.db.as_deref())
    }

    /// [`Self::compile`] with `db` as the current database (a trigger's
    /// statements resolve names in the trigger's database).
    pub fn compile_in(&self, stmt: ast::Statement, db: Option<&str>) -> Result<Compiled> {
        let digest = self.shared.digests.of_statement(db, &stmt);
        let capped = matches!(&stmt, ast::Statement::Query(q) if q.limit_clause.is_none() && q.fetch.is_none());
        let mut r = self.resolver();
        r.db = db;
        let mut stmt = stmt;
        if let ast::Statement::Query(q) = &mut stmt {
            let id = self.auto_is_null_id.get();
            if id != 0 && self.vars.sql_auto_is_null() && crate::auto_is_null::rewrite(q, &r, id) {
                self.auto_is_null_id.set(0);
            }
        }
        let epoch = self.shared.epoch();
        let routines = crate::stored::func::CompileScope::enter(&self.shared.catalog.routines, db);
        let (mut plan, params) = match stmt {
            ast::Statement::Query(q) if crate::rel::needs_general(&q) || reads_view(&q, &r) => {
                let c = crate::rel::compile(*q, &r)?;
                let n = c.params;
                (Plan::Query(c), n)
            }
            ast::Statement::Query(q) => {
                let p = query::compile_select(&q, &r)?;
                if routines.resolved() {
                    // Stored functions read through the statement's
                    // transaction, which only the general engine lends them.
                    let c = crate::rel::compile(*q, &r)?;
                    let n = c.params;
                    (Plan::Query(c), n)
                } else {
                    let n = p.params;
                    (Plan::Select(p), n)
                }
            }
            ast::Statement::Update(u) if crate::perfschema::setup::targets(&u, db) => {
                (Plan::Other(Box::new(ast::Statement::Update(u))), 0)
            }
            stmt @ (ast::Statement::Update(_) | ast::Statement::Delete(_)) if crate::multi_dml::is_multi(&stmt) => {
                // Compiled against the tables each time it runs.
                crate::multi_dml::check(&stmt)?;
                (Plan::Other(Box::new(stmt)), 0)
            }
            mut stmt @ (ast::Statement::Insert(_) | ast::Statement::Update(_) | ast::Statement::Delete(_))
                if writes_view(&stmt, &r) =>
            {
                let Some(rights) = crate::view_dml::rewrite(&mut stmt, &r)? else {
                    return Err(SqlError::internal("a write through a view without a view"));
                };
                let (plan, params) = match &stmt {
                    ast::Statement::Insert(ins) => {
                        let mut p = dml::compile_insert(ins, &rights)?;
                        if !p.is_plain() {
                            // The duplicate handling and source query are
                            // not mapped through the view's columns yet.
                            return Err(SqlError::unsupported(
                                "INSERT IGNORE / REPLACE / ON DUPLICATE KEY UPDATE / INSERT ... SELECT through a view",
                            ));
                        }
                        p.checks = rights.checks(&p.table)?;
                        let n = p.params;
                        (Plan::Insert(p), n)
                    }
                    ast::Statement::Update(u) => {
                        let mut p = dml::compile_update(u, &rights)?;
                        p.checks = rights.checks(&p.table)?;
                        let n = p.params;
                        (Plan::Update(p), n)
                    }
                    ast::Statement::Delete(d) => {
                        let p = dml::compile_delete(d, &rights)?;
                        let n = p.params;
                        (Plan::Delete(p), n)
                    }
                    _ => return Err(SqlError::internal("not a write")),
                };
                (plan, params)
            }
            ast::Statement::Insert(ins) => {
                let p = dml::compile_insert(&ins, &r)?;
                let n = p.params;
                (Plan::Insert(p), n)
            }
            ast::Statement::Update(u) => {
                let p = dml::compile_update(&u, &r)?;
                let n = p.params;
                (Plan::Update(p), n)
            }
            ast::Statement::Delete(d) => {
                let p = dml::compile_delete(&d, &r)?;
                let n = p.params;
                (Plan::Delete(p), n)
            }
            ast::Statement::Explain { analyze, format, statement, .. } => {
                let format = crate::explain::check_options(analyze, format.as_ref())?;
                if analyze {
                    // Run through the general engine, whose operators
                    // count (MySQL 8.0 analyses SELECT and multi-table
                    // UPDATE / DELETE, which quire does not have).
                    let ast::Statement::Query(q) = *statement else {
                        return Err(SqlError::unsupported("EXPLAIN ANALYZE of this statement"));
                    };
                    let c = crate::rel::compile(*q, &r)?;
                    let n = c.params;
                    let inner = Plan::Query(c);
                    (Plan::Explain(Box::new(crate::explain::ExplainPlan { inner, format, analyze })), n)
                } else {
                    let inner = self.compile(*statement)?;
                    match inner.plan {
                        p
                        @ (Plan::Select(_) | Plan::Query(_) | Plan::Insert(_) | Plan::Update(_) | Plan::Delete(_)) => {
                            let e = crate::explain::ExplainPlan { inner: p, format, analyze };
                            (Plan::Explain(Box::new(e)), inner.params)
                        }
                        _ => return Err(SqlError::unsupported("EXPLAIN of this statement")),
                    }
                }
            }
            other => (Plan::Other(Box::new(other)), 0),
        };
        let calls_functions = routines.resolved();
        if calls_functions {
            crate::stored::func::lend_transaction(&mut plan);
        }
        let tables = r.uses(&plan);
        Ok(Compiled { plan, params, epoch, db: db.map(str::to_string), tables, digest, capped, calls_functions })
    }

    /// Compiles the SELECT a SHOW statement was rewritten to
    /// (`infoschema::show`); its WHERE text may not end it early.
    fn compile_show(&self, select: &str) -> Result<Compiled> {
        let mut v = parse(select)?;
        if v.len() != 1 {
            return Err(SqlError::syntax("SHOW ... WHERE holds one condition"));
        }
        self.compiling_show.set(true);
        let c = self.compile(v.remove(0));
        self.compiling_show.set(false);
        c
    }

    /// Parses and compiles `sql` as one statement (COM_STMT_PREPARE).
    pub fn compile_one(&self, sql: &str) -> Result<Compiled> {
        if let Some(select) = crate::infoschema::show::rewrite(self, sql)? {
            return self.compile_show(&select);
        }
        if let Some(a) = admin::parse(sql)? {
            let epoch = self.shared.epoch();
            let digest = self.shared.digests.of_raw(self.db.as_deref(), sql);
            return Ok(Compiled {
                plan: Plan::Admin(a),
                params: 0,
                epoch,
                db: self.db.clone(),
                tables: vec![],
                digest,
                capped: false,
                calls_functions: false,
            });
        }
        let mut stmts = parse(sql)?;
        if stmts.len() != 1 {
            return Err(SqlError::syntax("expected exactly one statement"));
        }
        self.compile(stmts.remove(0))
    }

    /// COM_QUERY with its answers collected: every statement of `sql`,
    /// with the number of conditions it raised (the warning count of its
    /// OK / EOF packet); stops at the first error. The server streams
    /// instead ([`Session::query_each`]).
    pub fn query(&mut self, sql: &str, multi: bool) -> Vec<(Result<Output>, u16)> {
        struct Collected {
            rows: Collect,
            out: Vec<(Result<Output>, u16)>,
        }
        impl Answers for Collected {
            fn rows(&mut self) -> &mut dyn RowSink {
                &mut self.rows
            }
            fn begin(&mut self, _: &Session, _: bool) {
                self.rows = Collect::default();
            }
            fn end(&mut self, s: &Session, r: Result<Outcome>) {
                let rows = std::mem::take(&mut self.rows);
                self.out.push((r.map(|o| rows.into_output(o)), s.statement_warnings()));
            }
        }
        let mut c = Collected { rows: Collect::default(), out: Vec::new() };
        self.query_each(sql, multi, &mut c);
        c.out
    }

    /// COM_QUERY: runs every statement of `sql` (one unless `multi`),
    /// each announced to `out`, its rows written to `out` as they are
    /// produced, and its end told; stops at the first error.
    pub fn query_each(&mut self, sql: &str, multi: bool, out: &mut dyn Answers) {
        self.shared.general_log.write(self.connection_id, "Query", sql);
        let clock = self.command_started();
        self.process.begin("Query", sql);
        self.process.interrupt.reset();
        self.time_limit_hint_ms = crate::hints::max_execution_time(sql);
        self.query_inner(sql, multi, out);
        self.command_ended(&clock, sql);
        self.statement_done();
    }

    /// 1203 when the session's user has more connections than
    /// `max_user_connections` (0: no limit) allows, this one included.
    pub fn check_user_connections(&self) -> Result<()> {
        let limit = self.shared.sysvars.global("max_user_connections").and_then(|v| v.as_u64()).unwrap_or(0);
        if limit == 0 {
            return Ok(());
        }
        let mine = self.shared.processes.all().iter().filter(|p| p.user().as_deref() == Some(&*self.user)).count();
        if mine as u64 > limit {
            return Err(SqlError::new(
                1203,
                "42000",
                format!("User {} already has more than 'max_user_connections' active connections", self.user),
            ));
        }
        Ok(())
    }

    /// A client command starts (`slow_log.rs`).
    fn command_started(&mut self) -> crate::slow_log::Clock {
        self.command_rows_sent = 0;
        crate::slow_log::Clock::start()
    }

    /// A client command ended: counted in `Slow_queries` and written to
    /// the slow query log when it took longer than `long_query_time`.
    fn command_ended(&mut self, clock: &crate::slow_log::Clock, text: &str) {
        let f = clock.figures();
        if !crate::slow_log::is_slow(f.ns, self.vars.long_query_time()) {
            return;
        }
        self.shared.stats.slow_queries.fetch_add(1, Ordering::Relaxed);
        if !self.shared.slow_log.enabled() {
            return;
        }
        let use_db = self.db.as_deref().filter(|d| self.slow_logged_db.as_deref() != Some(*d));
        let e = crate::slow_log::Entry {
            user: &self.user,
            connection_id: self.connection_id,
            use_db,
            sent: self.command_rows_sent,
            text,
        };
        self.shared.slow_log.append(&crate::slow_log::entry(clock, &f, &e));
        if use_db.is_some() {
            self.slow_logged_db = self.db.clone();
        }
    }

    /// The command ended: idle in the process list, no deadline left.
    fn statement_done(&mut self) {
        self.time_limit_hint_ms = None;
        self.process.interrupt.set_deadline(None);
        self.process.idle();
    }

    /// Runs one compiled statement of a command as an answer to `out`.
    fn answer(&mut self, out: &mut dyn Answers, more: bool, c: &Compiled, params: &[Value]) -> bool {
        out.begin(self, more);
        let r = self.execute(c, params, out.rows());
        let ok = r.is_ok();
        out.end(self, r);
        ok
    }

    /// A statement that failed before it could run, as the command's
    /// last answer.
    fn answer_failure(&mut self, out: &mut dyn Answers, e: SqlError) {
        out.begin(self, false);
        let r = self.fail(e);
        out.end(self, r);
    }

    fn query_inner(&mut self, sql: &str, multi: bool, out: &mut dyn Answers) {
        self.shared.stats.questions.fetch_add(1, Ordering::Relaxed);
        // A cached plan for the whole text.
        // Plans are checked against the user's privileges when compiled, so
        // the cache is per user (and account changes clear it).
        // Long texts (bulk loads) are not kept whole: copying and hashing
        // them would cost more than a plan, and they would fill the cache.
        // A SELECT that `sql_auto_is_null` may rewrite is planned afresh
        // and not cached (`auto_is_null`'s REQUIRES).
        let bypass = self.auto_is_null_id.get() != 0 && self.vars.sql_auto_is_null();
        let whole = sql.len() <= WHOLE_TEXT_MAX && !bypass;
        // A session with temporary tables caches in its own scope
        // (`temp_table.rs`, invariants 1 and 2): one test of an empty map.
        let mut scope = if self.temps.is_empty() {
            format!("{}\u{0}{}", self.user, self.db.as_deref().unwrap_or(""))
        } else {
            self.temps.cache_scope(&self.user, self.db.as_deref().unwrap_or(""), self.connection_id)
        };
        // Plans made under other `optimizer_switch` flags are their own.
        scope.push_str(&self.vars.switch().cache_tag());
        let key = (scope, if whole { sql.to_string() } else { String::new() });
        let cached = if whole { self.shared.plans.read().get(&key).cloned() } else { None };
        if let Some(c) = cached {
            if c.epoch == self.shared.epoch() {
                self.shared.stats.plan_cache_hits.fetch_add(1, Ordering::Relaxed);
                self.answer(out, false, &c, &[]);
                return;
            }
        }
        // The same statement with other literals: one plan (parameters).
        if let Some((norm, vals)) = crate::normalize::normalize(sql).filter(|_| !bypass) {
            if let Some((c, tuples)) = self.repeated_insert(&key.0, &norm, &vals) {
                out.begin(self, false);
                let r = self.execute_tuples(&c, &vals, tuples, out.rows());
                out.end(self, r);
                return;
            }
            let nkey = (key.0.clone(), norm);
            let cached = self.shared.plans.read().get(&nkey).cloned();
            let c = match cached {
                Some(c) if c.epoch == self.shared.epoch() => {
                    self.shared.stats.plan_cache_hits.fetch_add(1, Ordering::Relaxed);
                    Some(c)
                }
                _ => match parse(&nkey.1) {
                    Ok(mut stmts) if stmts.len() == 1 => match self.compile(stmts.remove(0)) {
                        Ok(c) if c.params == vals.len() => {
                            let c = Arc::new(c);
                            if vals.len() <= 64 {
                                self.shared.cache_plan(nkey, c.clone());
                            }
                            Some(c)
                        }
                        _ => None,
                    },
                    _ => None,
                },
            };
            if let Some(c) = c {
                self.answer(out, false, &c, &vals);
                return;
            }
        }
        if crate::load::parse::is_load(sql) {
            return self.load_data(sql, out); // `load/`
        }
        if let Some(split) = crate::select_into::split(sql) {
            return self.select_into(split, out); // `select_into/`
        }
        // SHOW statements that are views of information_schema run as the
        // SELECT they are (`infoschema::show`).
        match crate::infoschema::show::rewrite(self, sql) {
            Ok(Some(select)) => {
                match self.compile_show(&select) {
                    Ok(c) => {
                        self.answer(out, false, &c, &[]);
                    }
                    Err(e) => self.answer_failure(out, e),
                }
                return;
            }
            Ok(None) => {}
            Err(e) => return self.answer_failure(out, e),
        }
        match crate::event::parse::parse(sql) {
            Ok(Some(t)) => {
                // Event DDL clears the diagnostics area only when it
                // carries a body (whose statements name tables, as
                // MariaDB counts them); otherwise it is left alone unless
                // the statement raises a condition.
                return self.answer_program_ddl(out, t.has_body(), |s| s.run_event_statement(sql, &t));
            }
            Ok(None) => {}
            Err(e) => return self.answer_failure(out, e),
        }
        match crate::trigger::ddl::parse(sql) {
            Ok(Some(t)) => return self.answer_program_ddl(out, true, |s| s.run_trigger_statement(sql, &t)),
            Ok(None) => {}
            Err(e) => return self.answer_failure(out, e),
        }
        match crate::stored::ddl::parse(sql) {
            Ok(Some(t)) => return self.run_routine_statement(sql, &t, out),
            Ok(None) => {}
            Err(e) => return self.answer_failure(out, e),
        }
        match crate::dynamic_sql::parse(sql) {
            Ok(Some(d)) => {
                out.begin(self, false);
                let r = self.run_dynamic_statement(&d, out.rows());
                return out.end(self, r);
            }
            Ok(None) => {}
            Err(e) => return self.answer_failure(out, e),
        }
        match crate::routine::client::parse(sql) {
            // It leaves the diagnostics area as it is (it reads it).
            Ok(Some(p)) => {
                out.begin(self, false);
                self.begin_statement(false, false);
                self.diag.borrow_mut().adopt();
                let r = crate::stored::call::run_program(self, &p).map(|()| Output::ok());
                // ROW_COUNT() stays what it was, unless the statement fails.
                let r = self.finish(r).and_then(|o| deliver(o, out.rows()));
                if r.is_err() {
                    self.row_count = -1;
                }
                out.end(self, r);
                return;
            }
            Ok(None) => {}
            Err(e) => return self.answer_failure(out, e),
        }
        match admin::parse(sql) {
            Ok(Some(a)) => {
                out.begin(self, false);
                self.begin_statement(a.uses_tables(), false);
                let digest = self.shared.digests.of_raw(self.db.as_deref(), sql);
                let measured = digest.as_ref().map(|_| Measure::start());
                let r = self.run_admin(&a);
                let r = self.finish(r).and_then(|o| deliver(o, out.rows()));
                if let (Some(d), Some(m)) = (digest, measured) {
                    let (e, end) = m.end(&r, self.statement_warnings());
                    d.record(&e, end);
                }
                // ROW_COUNT() after SET is 0, after SHOW (a result set) -1.
                self.row_count = match &r {
                    Ok(Outcome::Ok { affected, .. }) => *affected as i64,
                    _ => -1,
                };
                out.end(self, r);
                return;
            }
            Ok(None) => {}
            Err(e) => return self.answer_failure(out, e),
        }
        let stmts = match parse(sql) {
            Ok(s) => s,
            // sqlparser does not know MySQL's INTO OUTFILE / DUMPFILE.
            Err(_) if crate::load::parse::into_file(sql) => {
                let e = SqlError::unsupported("SELECT ... INTO OUTFILE / DUMPFILE");
                return self.answer_failure(out, e);
            }
            Err(e) => return self.answer_failure(out, e),
        };
        if stmts.is_empty() {
            return self.answer_failure(out, SqlError::new(1065, "42000", "Query was empty"));
        }
        if stmts.len() > 1 && !multi {
            return self.answer_failure(out, SqlError::syntax("multiple statements need CLIENT_MULTI_STATEMENTS"));
        }
        let single = stmts.len() == 1;
        let last = stmts.len() - 1;
        for (i, stmt) in stmts.into_iter().enumerate() {
            let more = i < last;
            let ok = match self.compile(stmt).map(Arc::new) {
                Ok(c) => {
                    let cacheable = single
                        && matches!(
                            c.plan,
                            Plan::Select(_) | Plan::Query(_) | Plan::Insert(_) | Plan::Update(_) | Plan::Delete(_)
                        );
                    if cacheable && whole && c.params == 0 {
                        self.shared.cache_plan(key.clone(), c.clone());
                    }
                    self.answer(out, more, &c, &[])
                }
                Err(e) => {
                    out.begin(self, more);
                    let r = self.fail(e);
                    out.end(self, r);
                    false
                }
            };
            if !ok {
                return;
            }
        }
    }

    /// Records a failed statement's error as the last condition (rule 3).
    pub(crate) fn finish<T>(&self, r: Result<T>) -> Result<T> {
        if let Err(e) = &r {
            self.diag.borrow_mut().push_error(e);
        }
        r
    }

    /// COM_STMT_PREPARE: (id, parameters, result columns).
    pub fn prepare(&mut self, sql: &str) -> Result<(u32, usize, Vec<ColMeta>)> {
        self.shared.stats.com_stmt_prepare.fetch_add(1, Ordering::Relaxed);
        if crate::dynamic_sql::parse(sql)?.is_some() {
            return Err(crate::dynamic_sql::not_preparable());
        }
        let c = self.compile_one(sql)?;
        let max = self.shared.sysvars.global("max_prepared_stmt_count").and_then(|v| v.as_u64()).unwrap_or(16382);
        let open = &self.shared.stats.prepared_stmt_count;
        if open.fetch_add(1, Ordering::AcqRel) >= max {
            open.fetch_sub(1, Ordering::AcqRel);
            return Err(SqlError::new(
                1461,
                "42000",
                format!("Can't create more than max_prepared_stmt_count statements (current value: {max})"),
            ));
        }
        let id = self.next_stmt_id;
        self.next_stmt_id = self.next_stmt_id.wrapping_add(1).max(1);
        let (params, cols) = (c.params, c.columns());
        let time_limit_hint_ms = crate::hints::max_execution_time(sql);
        let temp_generation = self.temps.generation();
        let p = Prepared { sql: Arc::from(sql), time_limit_hint_ms, compiled: Arc::new(c), temp_generation };
        self.prepared.insert(id, p);
        Ok((id, params, cols))
    }

    /// COM_STMT_EXECUTE: its rows go to `sink` as they are produced.
    pub fn execute_prepared(&mut self, id: u32, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome> {
        let (sql, hint) =
            self.prepared.get(&id).map_or_else(|| (Arc::from(""), None), |p| (p.sql.clone(), p.time_limit_hint_ms));
        let clock = self.command_started();
        self.process.begin_shared("Execute", sql.clone());
        self.process.interrupt.reset();
        self.time_limit_hint_ms = hint;
        let r = self.execute_prepared_inner(id, params, sink);
        self.command_ended(&clock, &sql);
        self.statement_done();
        r
    }

    fn execute_prepared_inner(&mut self, id: u32, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome> {
        self.shared.stats.com_stmt_execute.fetch_add(1, Ordering::Relaxed);
        self.shared.stats.questions.fetch_add(1, Ordering::Relaxed);
        self.run_prepared(id, params, sink, "mysqld_stmt_execute")
    }

    /// Executes prepared statement `id` (compiled again if what it was
    /// compiled against changed); `what` names the command in errors.
    pub(crate) fn run_prepared(
        &mut self,
        id: u32,
        params: &[Value],
        sink: &mut dyn RowSink,
        what: &str,
    ) -> Result<Outcome> {
        let Some(p) = self.prepared.get(&id) else {
            return self.fail(SqlError::new(
                1243,
                "HY000",
                format!("Unknown prepared statement handler ({id}) given to {what}"),
            ));
        };
        let mut c = p.compiled.clone();
        let generation = self.temps.generation();
        if c.epoch != self.shared.epoch() || c.db != self.db || p.temp_generation != generation {
            let sql = p.sql.clone();
            c = match self.compile_one(&sql) {
                Ok(c) => Arc::new(c),
                Err(e) => return self.fail(e),
            };
            if let Some(p) = self.prepared.get_mut(&id) {
                p.compiled = c.clone();
                p.temp_generation = generation;
            }
        }
        if params.len() != c.params {
            return self.fail(SqlError::wrong_arguments(what));
        }
        self.execute(&c, params, sink)
    }

    pub fn close_prepared(&mut self, id: u32) {
        if self.prepared.remove(&id).is_some() {
            // A client may close a named statement by its id (`dynamic_sql.rs`, invariant 1).
            self.prepared_names.retain(|_, v| *v != id);
            self.shared.stats.prepared_stmt_count.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Closes every prepared statement of the session.
    fn close_all_prepared(&mut self) {
        let n = self.prepared.len() as u64;
        self.prepared.clear();
        self.prepared_names.clear();
        self.shared.stats.prepared_stmt_count.fetch_sub(n, Ordering::AcqRel);
    }

    /// `foreign_key_checks` (session): whether FOREIGN KEYs are enforced.
    pub fn foreign_key_checks(&self) -> bool {
        self.vars.get("foreign_key_checks").and_then(|v| v.as_bool()) != Some(false)
    }

    /// Runs a data statement in the session's transaction (or its own).
    pub(crate) fn in_trx<T>(&mut self, f: impl FnOnce(&mut Trx, &Session) -> Result<T>) -> Result<T> {
        let (mut trx, own) = match self.trx.take() {
            Some(t) => (t, false),
            None => {
                let own = self.autocommit() && !self.in_txn;
                let mut t = self.begin();
                // A transaction that outlives the statement (autocommit
                // off) is listed by INNODB_TRX once it reads.
                t.set_listed(!own);
                (t, own)
            }
        };
        let sp = trx.savepoint();
        trx.start_statement();
        trx.set_foreign_key_checks(self.vars.foreign_key_checks());
        // A statement interrupted after its last check (a SLEEP in WHERE,
        // a kill during its final row) fails rather than commits.
        let r = f(&mut trx, self).and_then(|v| self.interrupted().map(|()| v));
        let r = r.and_then(|v| self.check_binlog_cache(&trx).map(|()| v));
        match r {
            Ok(v) => {
                if own {
                    // A statement's own transaction: checked before it ran.
                    self.wrote_persistent.set(false);
                    self.commit_trx(&mut trx)?;
                } else {
                    self.trx = Some(trx);
                    self.in_txn = true;
                }
                Ok(v)
            }
            Err(e) => {
                // A deadlock: the engine chose this transaction as victim.
                // A lock wait timeout under innodb_rollback_on_timeout:
                // the whole transaction goes too, as in InnoDB.
                let whole = e.code == 1213
                    || (e.code == 1205
                        && self.shared.sysvars.global("innodb_rollback_on_timeout").and_then(|v| v.as_bool())
                            == Some(true));
                if whole {
                    let _ = trx.rollback();
                    self.in_txn = false;
                    self.savepoints.clear();
                } else if own {
                    let _ = trx.rollback();
                } else {
                    if let Err(re) = trx.rollback_to(sp) {
                        let _ = trx.rollback();
                        self.in_txn = false;
                        self.savepoints.clear();
                        return Err(re.into());
                    }
                    self.trx = Some(trx);
                    self.in_txn = true;
                }
                Err(e)
            }
        }
    }

    /// `sql_safe_updates`: a single-table UPDATE or DELETE must find its
    /// rows through a key (its WHERE bounds an index) or have a LIMIT;
    /// otherwise 1175, as MySQL and MariaDB.
    fn check_safe_update(&self, access: &crate::plan::Access, limit: Option<usize>) -> Result<()> {
        use crate::plan::Access;
        let keyed = match access {
            Access::Full => false,
            Access::Range { lo, hi, .. } => {
                !matches!((lo, hi), (std::ops::Bound::Unbounded, std::ops::Bound::Unbounded))
            }
            Access::Point(_) | Access::Points { .. } => true,
        };
        if self.vars.safe_updates() && !keyed && limit.is_none() {
            return Err(SqlError::safe_update());
        }
        Ok(())
    }

    /// `Err` if the running statement was interrupted.
    pub(crate) fn interrupted(&self) -> Result<()> {
        match self.process.interrupt.check() {
            None => Ok(()),
            Some(r) => Err(interrupt_error(r)),
        }
    }

    /// A SELECT's time limit: the hint, else `max_execution_time` (ms; 0
    /// is none), as MySQL 8.0 (other statements have none).
    fn select_deadline(&self) -> Option<std::time::Instant> {
        let ms = self.time_limit_hint_ms.unwrap_or_else(|| self.vars.max_execution_time_ms());
        (ms > 0).then(|| std::time::Instant::now() + std::time::Duration::from_millis(ms))
    }

    /// A multi-row INSERT whose tuples all read alike once normalised
    /// (`normalize::repeated_tuples`): its plan, compiled and cached as its
    /// first tuple alone, and the number of tuples; run with that tuple
    /// repeated over the values, so a bulk load's statements skip the
    /// parser. `None` when the statement is not of that form (the general
    /// path takes it, errors included).
    fn repeated_insert(&mut self, user_db: &str, norm: &str, vals: &[Value]) -> Option<(Arc<Compiled>, usize)> {
        let (end, tuples) = crate::normalize::repeated_tuples(norm).filter(|&(_, n)| n > 1)?;
        if !vals.len().is_multiple_of(tuples) {
            return None;
        }
        let key = (user_db.to_string(), norm[..end].to_string());
        let cached = self.shared.plans.read().get(&key).cloned();
        let c = match cached {
            Some(c) if c.epoch == self.shared.epoch() => {
                self.shared.stats.plan_cache_hits.fetch_add(1, Ordering::Relaxed);
                c
            }
            _ => {
                let mut stmts = parse(&key.1).ok()?;
                if stmts.len() != 1 {
                    return None;
                }
                let c = Arc::new(self.compile(stmts.remove(0)).ok()?);
                if c.params <= 64 {
                    self.shared.cache_plan(key, c.clone());
                }
                c
            }
        };
        match &c.plan {
            Plan::Insert(p) if p.rows.len() == 1 && p.params * tuples == vals.len() => Some((c, tuples)),
            _ => None,
        }
    }

    /// Executes a compiled statement with `params`; a result set's
    /// columns and rows go to `sink` as they are produced.
    pub fn execute(&mut self, c: &Compiled, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome> {
        self.execute_tuples(c, params, 1, sink)
    }

    /// [`Self::execute`]; an INSERT's VALUES rows are taken `tuples` times,
    /// the k-th time with the k-th slice of `params` (`repeated_insert`).
    fn execute_tuples(
        &mut self,
        c: &Compiled,
        params: &[Value],
        tuples: usize,
        sink: &mut dyn RowSink,
    ) -> Result<Outcome> {
        // INSERT IGNORE: what strict mode makes errors stays warnings.
        let writes = match &c.plan {
            Plan::Insert(p) => !p.ignore,
            Plan::Update(_) => true,
            Plan::Other(s) => matches!(**s, ast::Statement::Update(_)), // multi-table
            _ => false,
        };
        self.begin_statement(c.uses_tables(), writes);
        let timed = match &c.plan {
            Plan::Select(_) | Plan::Query(_) => true,
            Plan::Explain(e) => e.analyze, // runs the SELECT: its deadline too
            _ => false,
        };
        if timed {
            self.process.interrupt.set_deadline(self.select_deadline());
        }
        // `innodb_thread_concurrency`: the statement's row operations take
        // a seat; it is given back when the statement ends.
        quire_engine::txn::admission::begin(&self.shared.engine.txn().admission);
        let measured = c.digest.as_ref().map(|_| Measure::start());
        let in_use = c.calls_functions.then(|| crate::routine::run::TablesInUse::push(self, c));
        let limit = self.vars.select_limit();
        let mut r = if c.capped && limit != u64::MAX && timed {
            let count_all = match &c.plan {
                Plan::Query(q) => q.calc_found_rows,
                Plan::Select(p) => p.calc_found_rows,
                _ => false,
            };
            let mut capped = Capped::new(sink, limit, count_all);
            let r = self.execute_inner(c, params, tuples, &mut capped);
            capped.finish(r, limit)
        } else {
            self.execute_inner(c, params, tuples, sink)
        };
        quire_engine::txn::admission::leave();
        if let Some(n) = in_use {
            crate::routine::run::TablesInUse::leave(self, n);
        }
        if timed {
            self.process.interrupt.set_deadline(None);
        }
        if let Err(e) = &mut r {
            // The engine reports any interrupt as 1317; a deadline is 3024.
            if e.code == 1317 && self.process.interrupt.raised().is_none() {
                *e = SqlError::execution_time_exceeded();
            }
        }
        let r = self.finish(r);
        if let (Some(d), Some(m)) = (&c.digest, measured) {
            let (e, end) = m.end(&r, self.statement_warnings());
            d.record(&e, end);
        }
        let counted = self.calc_found.take();
        match &r {
            Ok(Outcome::Ok { affected, .. }) => self.row_count = *affected as i64,
            Ok(Outcome::Rows(n)) => {
                self.row_count = -1;
                self.found_rows = counted.unwrap_or(*n);
                self.command_rows_sent += *n;
            }
            Err(_) => self.row_count = -1,
        }
        r
    }

    fn execute_inner(
        &mut self,
        c: &Compiled,
        params: &[Value],
        tuples: usize,
        sink: &mut dyn RowSink,
    ) -> Result<Outcome> {
        // LOCK TABLES: nothing to check while no session holds any.
        if self.shared.table_locks.active() {
            self.admit_tables(c)?;
        }
        self.refuse_if_read_only(&c.plan)?;
        if self.shared.binlog.get().is_some() && gtid_skippable(&c.plan) && self.gtid_skips_statement()? {
            // `gtid_next` names an executed GTID: the transaction was
            // applied already, its statements do nothing (MySQL).
            if !self.in_txn && self.autocommit() {
                self.gtid_next_used.set(true);
            }
            return Ok(Outcome::Ok { affected: 0, last_insert_id: 0, info: String::new() });
        }
        match &c.plan {
            Plan::Select(p) => {
                self.shared.stats.com_select.fetch_add(1, Ordering::Relaxed);
                if let Some(e) = p.group_error.as_ref().filter(|_| self.vars.mode().only_full_group_by) {
                    return Err(e.clone());
                }
                sink.columns(&p.columns)?;
                let n = if p.table.is_some() {
                    if p.lock == Some(LockMode::X) {
                        self.check_writable()?; // FOR UPDATE, as MariaDB
                    }
                    self.in_trx(|trx, s| {
                        let mut ctx = Ctx { params, aggs: vec![], session: &Env { s }, in_keys: Default::default() };
                        let plain = query::plain_read_lock(trx.isolation(), s.autocommit() && !s.in_txn);
                        if p.lock_wait != LockWait::Wait {
                            trx.set_lock_wait(p.lock_wait); // this statement only
                            let r = query::run_select(p, Some(trx), plain, &mut ctx, sink);
                            trx.set_lock_wait(LockWait::Wait);
                            return Capped::through(r);
                        }
                        Capped::through(query::run_select(p, Some(trx), plain, &mut ctx, sink))
                    })?
                } else {
                    let mut ctx = Ctx { params, aggs: vec![], session: &Env { s: self }, in_keys: Default::default() };
                    let n = Capped::through(query::run_select(p, None, None, &mut ctx, sink))?;
                    // MySQL: a query that is only SLEEP() answers 1 when
                    // interrupted, without an error; otherwise it fails.
                    if !query::only_sleep(p) {
                        self.interrupted()?;
                    }
                    n
                };
                Ok(Outcome::Rows(n))
            }
            Plan::Query(q) => {
                self.shared.stats.com_select.fetch_add(1, Ordering::Relaxed);
                if let Some(e) = q.group_error.as_ref().filter(|_| self.vars.mode().only_full_group_by) {
                    return Err(e.clone());
                }
                sink.columns(q.plan.columns())?;
                let n = if q.reads_tables {
                    if q.plan.lock() == Some(LockMode::X) {
                        self.check_writable()?; // FOR UPDATE, as MariaDB
                    }
                    let lock_wait = q.plan.lock_wait();
                    self.in_trx(|trx, s| {
                        let env = Env { s };
                        let plain = query::plain_read_lock(trx.isolation(), s.autocommit() && !s.in_txn);
                        trx.set_lock_wait(lock_wait); // this statement only
                        let ex = crate::rel::exec::Exec::new(params, &env, Some(&mut *trx), plain);
                        let r =
                            if q.calc_found_rows { ex.run_counted(&q.plan, sink) } else { ex.run_into(&q.plan, sink) };
                        drop(ex);
                        trx.set_lock_wait(LockWait::Wait);
                        Capped::through(r)
                    })?
                } else {
                    let env = Env { s: self };
                    let ex = crate::rel::exec::Exec::new(params, &env, None, None);
                    let n = Capped::through(if q.calc_found_rows {
                        ex.run_counted(&q.plan, sink)
                    } else {
                        ex.run_into(&q.plan, sink)
                    })?;
                    self.interrupted()?;
                    n
                };
                Ok(Outcome::Rows(n))
            }
            Plan::Insert(p) => {
                self.shared.stats.com_insert.fetch_add(1, Ordering::Relaxed);
                self.check_writable()?;
                let r = self.in_trx(|trx, s| dml::run_insert(p, trx, params, tuples, &Env { s }))?;
                if r.first_insert_id != 0 {
                    self.last_insert_id.set(r.first_insert_id);
                    self.auto_is_null_id.set(r.first_insert_id);
                    // A generated value used up SET insert_id (see `upsert::AutoInc`).
                    if self.vars.insert_id() != 0 {
                        self.vars
                            .set_by_name("insert_id", &VarValue::UInt(0))
                            .map_err(|e| SqlError::new(e.code, e.state, e.message))?;
                    }
                }
                let info = if p.is_plain() && p.rows.len() * tuples > 1 {
                    format!("Records: {}  Duplicates: 0  Warnings: {}", r.affected, self.statement_warnings())
                } else if p.select.is_some() || p.rows.len() * tuples > 1 {
                    let w = self.statement_warnings();
                    format!("Records: {}  Duplicates: {}  Warnings: {}", r.records, r.duplicates, w)
                } else {
                    String::new()
                };
                Ok(Outcome::Ok { affected: r.affected, last_insert_id: r.first_insert_id, info })
            }
            Plan::Update(p) => {
                self.shared.stats.com_update.fetch_add(1, Ordering::Relaxed);
                self.check_writable()?;
                self.check_safe_update(&p.access, p.limit)?;
                let r = self.in_trx(|trx, s| {
                    dml::run_update(
                        p,
                        trx,
                        &Ctx { params, aggs: vec![], session: &Env { s }, in_keys: Default::default() },
                    )
                })?;
                // The info text always tells both counts; the affected
                // count is the changed rows unless the client asked for
                // the matched ones (CLIENT_FOUND_ROWS).
                let affected = if self.client_found_rows { r.matched } else { r.affected };
                // LIMIT 0 answers a bare OK, as MariaDB (it reads nothing).
                let info = if p.limit == Some(0) {
                    String::new()
                } else {
                    let w = self.statement_warnings();
                    format!("Rows matched: {}  Changed: {}  Warnings: {}", r.matched, r.affected, w)
                };
                Ok(Outcome::Ok { affected, last_insert_id: 0, info })
            }
            Plan::Delete(p) => {
                self.shared.stats.com_delete.fetch_add(1, Ordering::Relaxed);
                self.check_writable()?;
                self.check_safe_update(&p.access, p.limit)?;
                let r = self.in_trx(|trx, s| {
                    dml::run_delete(
                        p,
                        trx,
                        &Ctx { params, aggs: vec![], session: &Env { s }, in_keys: Default::default() },
                    )
                })?;
                Ok(Outcome::Ok { affected: r.affected, last_insert_id: 0, info: String::new() })
            }
            Plan::Other(stmt) => {
                let o = self.run_other(stmt, params)?;
                if self.shared.binlog.get().is_some() && crate::binlog::capture::is_logged_ddl(stmt) {
                    self.log_ddl(&self.ddl_text(stmt))?;
                }
                deliver(o, sink)
            }
            Plan::Admin(a) => {
                let o = self.run_admin(a)?;
                deliver(o, sink)
            }
            Plan::Explain(e) if e.analyze => {
                let text = self.explain_analyze(e, params)?;
                let rows = vec![vec![Value::Str(text)]];
                deliver(Output::Rows { columns: crate::explain::columns_of(e), rows }, sink)
            }
            Plan::Explain(e) => {
                let ctx = Ctx { params, aggs: vec![], session: &Env { s: self }, in_keys: Default::default() };
                let rows = crate::explain::rows(e, &ctx)?;
                deliver(Output::Rows { columns: crate::explain::columns_of(e), rows }, sink)
            }
        }
    }

    /// EXPLAIN ANALYZE: runs the query as a SELECT runs (its transaction,
    /// locks, read view, interrupts), its rows thrown away, counting per
    /// operator; then the tree with the counts.
    fn explain_analyze(&mut self, e: &crate::explain::ExplainPlan, params: &[Value]) -> Result<String> {
        use crate::explain::profile::Profile;
        let Plan::Query(q) = &e.inner else { return Err(SqlError::internal("EXPLAIN ANALYZE of a non-query")) };
        self.shared.stats.com_select.fetch_add(1, Ordering::Relaxed);
        if let Some(err) = q.group_error.as_ref().filter(|_| self.vars.mode().only_full_group_by) {
            return Err(err.clone());
        }
        let profile = Profile::default();
        let mut discard = crate::explain::Discard;
        let ran = if q.reads_tables {
            if q.plan.lock() == Some(LockMode::X) {
                self.check_writable()?;
            }
            self.in_trx(|trx, s| {
                let env = Env { s };
                let plain = query::plain_read_lock(trx.isolation(), s.autocommit() && !s.in_txn);
                let ex = crate::rel::exec::Exec::new(params, &env, Some(trx), plain).profiled(&profile);
                ex.run_into(&q.plan, &mut discard)
            })
        } else {
            let env = Env { s: self };
            let ex = crate::rel::exec::Exec::new(params, &env, None, None).profiled(&profile);
            ex.run_into(&q.plan, &mut discard).and_then(|n| self.interrupted().map(|_| n))
        };
        ran?;
        let ctx = Ctx { params, aggs: vec![], session: &Env { s: self }, in_keys: Default::default() };
        crate::explain::tree_text(e, &ctx, Some(&profile))
    }

    fn run_admin(&mut self, a: &admin::AdminStmt) -> Result<Output> {
        if a.is_ddl() {
            self.commit()?;
        }
        let r = admin::run(self, a);
        if a.is_ddl() {
            // Grants changed: plans compiled under the old ones go.
            self.shared.bump_epoch();
        }
        r
    }

    /// START TRANSACTION / BEGIN: commits the open transaction, gives
    /// back LOCK TABLES (MySQL's implicit UNLOCK TABLES) and begins a new
    /// one; `consistent_snapshot` (WITH CONSISTENT SNAPSHOT) opens its read
    /// view now rather than at its first read (`snapshot.rs`).
    pub(crate) fn start_transaction(
        &mut self,
        modes: &[ast::TransactionMode],
        consistent_snapshot: bool,
    ) -> Result<Output> {
        self.shared.stats.com_begin.fetch_add(1, Ordering::Relaxed);
        self.commit()?;
        self.unlock_tables();
        self.take_characteristics(modes)?;
        let mut t = self.begin();
        t.set_listed(true);
        if consistent_snapshot {
            t.open_read_view_now();
        }
        self.trx = Some(t);
        self.in_txn = true;
        Ok(Output::ok())
    }

    /// DDL commits the open transaction first, as MySQL does.
    /// CREATE / DROP / SHOW CREATE TRIGGER (`trigger::ddl`); the DDL is
    /// written to the binary log as a statement.
    fn run_trigger_statement(&mut self, sql: &str, t: &crate::trigger::ddl::TriggerStmt) -> Result<Output> {
        use crate::trigger::ddl::TriggerStmt;
        if !matches!(t, TriggerStmt::ShowCreate { .. }) {
            self.check_writable()?;
        }
        let o = crate::trigger::ddl::run(self, t)?;
        if !matches!(t, TriggerStmt::ShowCreate { .. }) && self.shared.binlog.get().is_some() {
            self.log_ddl(sql)?;
        }
        Ok(o)
    }

    /// CREATE / ALTER / DROP / SHOW CREATE EVENT (`event::ddl`); the DDL is
    /// written to the binary log as a statement.
    fn run_event_statement(&mut self, sql: &str, t: &crate::event::parse::EventStmt) -> Result<Output> {
        use crate::event::parse::EventStmt;
        let ddl = !matches!(t, EventStmt::ShowCreate { .. });
        if ddl {
            self.check_writable()?;
        }
        let o = crate::event::ddl::run(self, t)?;
        if ddl && self.shared.binlog.get().is_some() {
            self.log_ddl(sql)?;
        }
        Ok(o)
    }

    /// An event's execution (`event/scheduler.rs`): its body run as a
    /// procedure's, each statement a statement of this session.
    pub(crate) fn run_event_body(&mut self, body: &str) -> Result<()> {
        use crate::routine::ast::Kind;
        let program = crate::routine::parse::program_of(body, Kind::Procedure)?;
        let names = crate::routine::exec::Names::routine(Kind::Procedure, vec![]);
        let program = crate::routine::exec::prepare(&program, &names)?;
        self.begin_statement(true, false);
        let r = crate::stored::call::run_program(self, &program);
        self.finish(r)
    }

    /// CREATE / DROP / SHOW CREATE {PROCEDURE | FUNCTION} and CALL
    /// (`stored`); the DDL is written to the binary log as a statement.
    /// Answers a stored program's DDL statement run by `run`; `clears`:
    /// whether it clears the diagnostics area first.
    fn answer_program_ddl(
        &mut self,
        out: &mut dyn Answers,
        clears: bool,
        run: impl FnOnce(&mut Self) -> Result<Output>,
    ) {
        out.begin(self, false);
        self.begin_statement(clears, false);
        let r = run(self);
        let r = self.finish(r).and_then(|o| deliver(o, out.rows()));
        self.row_count = match &r {
            Ok(Outcome::Ok { affected, .. }) => *affected as i64,
            _ => -1,
        };
        out.end(self, r);
    }

    fn run_routine_statement(&mut self, sql: &str, t: &crate::stored::ddl::RoutineStmt, out: &mut dyn Answers) {
        use crate::stored::ddl::RoutineStmt;
        self.begin_statement(true, false);
        let r = match t {
            RoutineStmt::Call(call) => {
                let r = crate::stored::call::call(self, call, out);
                // Its OK counts what its statements left in the area.
                self.diag.borrow_mut().report_all();
                r
            }
            RoutineStmt::ShowCreate { .. } => {
                out.begin(self, false);
                crate::stored::ddl::run(self, t).and_then(|o| deliver(o, out.rows()))
            }
            _ => (|| {
                self.check_writable()?;
                let o = crate::stored::ddl::run(self, t)?;
                if self.shared.binlog.get().is_some() {
                    self.log_ddl(sql)?;
                }
                Ok(o)
            })()
            .and_then(|o| deliver(o, out.rows())),
        };
        let r = self.finish(r);
        self.row_count = match &r {
            Ok(Outcome::Ok { affected, .. }) => *affected as i64,
            _ => -1,
        };
        if !matches!(t, RoutineStmt::ShowCreate { .. }) {
            out.begin(self, false);
        }
        out.end(self, r);
    }

    /// A variable's value as an expression reads it (`@@name`).
    pub(crate) fn sysvar_value(&self, name: &str) -> Result<Value> {
        Env { s: self }.sysvar(name, false)
    }

    fn implicit_commit(&mut self) -> Result<()> {
        self.commit()
    }

    fn run_other(&mut self, stmt: &ast::Statement, params: &[Value]) -> Result<Output> {
        use ast::Statement as S;
        crate::infoschema::refuse_ddl(stmt, self.db.as_deref(), &self.user)?;
        match stmt {
            S::StartTransaction { modes, .. } => self.start_transaction(modes, false),
            S::Commit { .. } => {
                self.shared.stats.com_commit.fetch_add(1, Ordering::Relaxed);
                self.reset_one_shot_characteristics();
                let explicit = self.in_txn;
                self.commit()?;
                if explicit {
                    self.gtid_after_transaction(true)?;
                }
                Ok(Output::ok())
            }
            S::Rollback { savepoint: None, .. } => {
                self.shared.stats.com_rollback.fetch_add(1, Ordering::Relaxed);
                self.reset_one_shot_characteristics();
                let explicit = self.in_txn;
                self.rollback()?;
                if explicit {
                    self.gtid_after_transaction(false)?;
                }
                Ok(Output::ok())
            }
            S::Savepoint { name } => {
                self.set_savepoint(&name.value);
                Ok(Output::ok())
            }
            S::Rollback { savepoint: Some(name), .. } => {
                self.rollback_to_savepoint(&name.value)?;
                Ok(Output::ok())
            }
            S::ReleaseSavepoint { name } => {
                self.release_savepoint(&name.value)?;
                Ok(Output::ok())
            }
            S::Update(u) if crate::perfschema::setup::targets(u, self.db.as_deref()) => {
                self.shared.stats.com_update.fetch_add(1, Ordering::Relaxed);
                crate::perfschema::setup::update(self, u)
            }
            S::Update(_) | S::Delete(_) => {
                // Multi-table (`multi_dml.rs`); single-table ones are planned.
                let update = matches!(stmt, S::Update(_));
                let counter = if update { &self.shared.stats.com_update } else { &self.shared.stats.com_delete };
                counter.fetch_add(1, Ordering::Relaxed);
                self.check_writable()?;
                // sql_safe_updates: a join without any WHERE is refused
                // (MySQL also refuses one whose WHERE leaves some table
                // scanned in full; quire lets that through).
                let has_where = match stmt {
                    S::Update(u) => u.selection.is_some(),
                    S::Delete(d) => d.selection.is_some(),
                    _ => true,
                };
                if self.vars.safe_updates() && !has_where {
                    return Err(SqlError::safe_update());
                }
                let r = self.resolver();
                let p = crate::multi_dml::compile(stmt, &r)?;
                if self.shared.table_locks.active() {
                    // Every table counts as written (a read-only one of
                    // the join then needs a WRITE lock: stricter than MySQL).
                    let mut uses = r.used.take();
                    uses.iter_mut().for_each(|u| u.write = true);
                    self.admit_uses(&uses, true)?;
                }
                drop(r);
                let r = self.in_trx(|trx, s| crate::multi_dml::run(&p, trx, &Env { s }))?;
                let (affected, info) = p.answer(&r, self.client_found_rows, self.statement_warnings().into());
                Ok(Output::Ok { affected, last_insert_id: 0, info })
            }
            S::LockTables { tables } => self.lock_tables(tables),
            S::UnlockTables => {
                // MySQL: UNLOCK TABLES commits only when tables were locked
                // (not for the global read lock).
                if !self.table_locks.is_empty() {
                    self.commit()?;
                    self.unlock_tables();
                }
                self.release_global_read_lock();
                Ok(Output::ok())
            }
            S::Flush {
                object_type: ast::FlushType::Tables, read_lock, tables, export: false, channel: None, ..
            } => self.flush_tables(tables, *read_lock),
            S::Set(set) => self.run_set(set, params),
            S::Use(u) => {
                let name = match u {
                    ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => n.to_string(),
                    other => other.to_string(),
                };
                let name = name.trim_matches('`').to_string();
                self.use_database(&name)?;
                Ok(Output::ok())
            }
            S::CreateDatabase { db_name, if_not_exists, .. }
            | S::CreateSchema { schema_name: ast::SchemaName::Simple(db_name), if_not_exists, .. } => {
                self.implicit_commit()?;
                let name = db_name.to_string().trim_matches('`').to_string();
                catalog::check_name(&name)?;
                if !self
                    .shared
                    .catalog
                    .user(&self.user)
                    .is_some_and(|u| u.grants.contains("*") || u.grants.contains(&name))
                    || catalog::VIRTUAL_DATABASES.iter().any(|v| v.eq_ignore_ascii_case(&name))
                {
                    return Err(SqlError::new(
                        1044,
                        "42000",
                        format!("Access denied for user '{}'@'%' to database '{name}'", self.user),
                    ));
                }
                let created = self.shared.catalog.create_database(&name, *if_not_exists)?;
                if !created {
                    self.note(1007, format!("Can't create database '{name}'; database exists"));
                }
                Ok(Output::Ok { affected: created as u64, last_insert_id: 0, info: String::new() })
            }
            S::Drop { object_type: ast::ObjectType::Table, if_exists, names, temporary: true, .. } => {
                // No implicit commit, as MySQL: the open transaction goes
                // on. Its undo of the dropped table's rows is skipped by a
                // rollback (the engine finds no table of that space, and
                // space ids are never reused).
                crate::temp_table::drop_temporary(self, *if_exists, names)
            }
            S::Drop { object_type, if_exists, names, table, .. } => {
                self.implicit_commit()?;
                let r = if *object_type == ast::ObjectType::View {
                    crate::view::drop(self, *if_exists, names)
                } else {
                    admin::drop(self, *object_type, *if_exists, names, table.as_ref())
                };
                self.shared.bump_epoch();
                r
            }
            S::CreateView(cv) => {
                self.implicit_commit()?;
                let r = crate::view::create(self, cv);
                self.shared.bump_epoch();
                r
            }
            S::ShowCreate { obj_type: ast::ShowCreateObject::View, obj_name } => {
                crate::view::show_create(self, obj_name)
            }
            S::CreateTable(ct) if ct.temporary => crate::temp_table::create(self, ct),
            S::CreateTable(ct) => {
                self.implicit_commit()?;
                let r = admin::create_table(self, ct);
                self.shared.bump_epoch();
                r
            }
            S::CreateIndex(ci) => {
                self.implicit_commit()?;
                let r = admin::create_index(self, ci);
                self.shared.bump_epoch();
                r
            }
            S::Truncate(t) => {
                self.implicit_commit()?;
                let r = admin::truncate(self, t);
                self.shared.bump_epoch();
                r
            }
            S::RenameTable(pairs) => {
                self.implicit_commit()?;
                let r = crate::alter::rename::rename_tables(self, pairs);
                self.shared.bump_epoch();
                r
            }
            S::AlterTable(at) => {
                self.implicit_commit()?;
                let r = admin::alter_table(self, at);
                self.shared.bump_epoch();
                r
            }
            other => admin::show(self, other),
        }
    }

    pub fn use_database(&mut self, name: &str) -> Result<()> {
        catalog::check_name(name)?;
        if !self.shared.catalog.database_exists(name) {
            return Err(SqlError::unknown_database(name));
        }
        if !self.shared.catalog.user(&self.user).is_some_and(|u| u.may_use(name)) {
            return Err(SqlError::new(
                1044,
                "42000",
                format!("Access denied for user '{}'@'%' to database '{name}'", self.user),
            ));
        }
        self.db = Some(name.to_string());
        self.process.set_db(Some(name));
        Ok(())
    }

    fn set_var(&mut self, name: &str, global: bool, v: Value) -> Result<()> {
        let lname = name.to_ascii_lowercase();
        let lname = lname.trim_start_matches("@@").to_string();
        let (lname, global) = if let Some(n) = lname.strip_prefix("global.") {
            (n.to_string(), true)
        } else if let Some(n) = lname.strip_prefix("session.").or_else(|| lname.strip_prefix("local.")) {
            (n.to_string(), global)
        } else {
            (lname, global)
        };
        let mut val = value_to_var(&v);
        if let VarValue::Str(s) = &val {
            if let Some(canonical) = crate::names::check_var(&lname, s)? {
                val = VarValue::Str(canonical);
            }
        }
        if matches!(lname.as_str(), "transaction_isolation" | "tx_isolation") {
            if let VarValue::Str(s) = &val {
                val = VarValue::Str(s.to_ascii_uppercase().replace(' ', "-"));
            }
        }
        if global {
            if !self.shared.catalog.user(&self.user).is_some_and(|u| u.grants.contains("*")) {
                return Err(SqlError::new(
                    1227,
                    "42000",
                    "Access denied; you need (at least one of) the SUPER or SYSTEM_VARIABLES_ADMIN privilege(s) for this operation",
                ));
            }
            // MySQL's fix_read_only: not while this session holds table
            // locks or an open transaction (1192).
            if matches!(lname.as_str(), "read_only" | "super_read_only")
                && val.as_bool() == Some(true)
                && (self.in_txn || !self.table_locks.is_empty())
            {
                return Err(SqlError::new(
                    1192,
                    "HY000",
                    "Can't execute the given command because you have active locked tables or an active transaction",
                ));
            }
            if self.set_global_gtid_var(&lname, &val)? {
                return Ok(());
            }
            if lname == "event_scheduler" {
                crate::event::scheduler::check_set(&self.shared, &val)?;
            }
            if lname == "thread_pool_size" {
                // MariaDB: beyond the pool's group array, truncated.
                let cap = self.shared.sysvars.thread_pool_size_cap.load(Ordering::Relaxed);
                if val.as_u64().is_some_and(|n| n > cap) {
                    self.warn(1292, format!("Truncated incorrect thread_pool_size value: '{}'", val.display()));
                    val = VarValue::UInt(cap);
                }
            }
            return self.shared.sysvars.set_global(&lname, &val).map_err(|e| SqlError::new(e.code, e.state, e.message));
        }
        if lname == "gtid_next" {
            val = self.check_gtid_next(&val)?;
        }
        let was = self.autocommit();
        self.vars.set_by_name(&lname, &val).map_err(|e| SqlError::new(e.code, e.state, e.message))?;
        if matches!(lname.as_str(), "last_insert_id" | "identity") {
            // SET LAST_INSERT_ID = n is what LAST_INSERT_ID() then returns.
            self.last_insert_id.set(self.vars.get(&lname).and_then(|v| v.as_u64()).unwrap_or(0));
        }
        if lname == "autocommit" && self.autocommit() && !was {
            self.commit()?; // SET autocommit=1 commits
        }
        Ok(())
    }

    /// `SET [GLOBAL | SESSION] name = DEFAULT`: the global value takes the
    /// compiled-in default; the session value takes the global one (the
    /// default for a session-only variable), as MySQL has it.
    fn set_var_default(&mut self, name: &str, global: bool) -> Result<()> {
        let lname = name.to_ascii_lowercase();
        let lname = lname.trim_start_matches("@@");
        let (lname, global) = if let Some(n) = lname.strip_prefix("global.") {
            (n, true)
        } else {
            (lname.strip_prefix("session.").or_else(|| lname.strip_prefix("local.")).unwrap_or(lname), global)
        };
        let def = crate::sysvars::lookup(lname)
            .ok_or_else(|| SqlError::new(1193, "HY000", format!("Unknown system variable '{lname}'")))?;
        let value = if global || def.scope == crate::sysvars::Scope::Session {
            def.default_value()
        } else {
            self.shared.sysvars.global(def.name).unwrap_or_else(|| def.default_value())
        };
        self.set_var(def.name, global, var_to_value(&value))
    }

    /// A SET's value; `None`: the keyword DEFAULT.
    fn set_value(&mut self, e: &ast::Expr, params: &[Value]) -> Result<Option<Value>> {
        // Bare words (SET autocommit=ON, isolation names) are strings.
        if let ast::Expr::Identifier(i) = e {
            if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT") {
                return Ok(None);
            }
            // `@@x` and `@x` are variables (`SET character_set_client
            // = @saved_cs_client`, as dumps restore it).
            if !i.value.starts_with('@') {
                return Ok(Some(Value::Str(i.value.clone())));
            }
        }
        if crate::rel::bind::has_subquery(e) {
            return self.query_value(e, params).map(Some);
        }
        let x = {
            let routines = crate::stored::func::CompileScope::enter(&self.shared.catalog.routines, self.db.as_deref());
            let mut scope =
                crate::expr::Scope { table: None, columns: &[], aggs: None, params: 0, place: "field list", rel: None };
            let x = crate::expr::compile(e, &mut scope)?;
            if routines.resolved() {
                return self.query_value(e, params).map(Some);
            }
            x
        };
        let env = Env { s: self };
        crate::expr::eval(&x, &[], &Ctx { params, aggs: vec![], session: &env, in_keys: Default::default() }).map(Some)
    }

    /// A value that reads tables (a subquery, a stored function): `SELECT
    /// e` run by the general engine in the session's transaction.
    fn query_value(&mut self, e: &ast::Expr, params: &[Value]) -> Result<Value> {
        let rows = self.query_rows(&format!("SELECT {e}"), params)?;
        Ok(rows.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
    }

    /// `DO expr, ...` (held as `select`, the SELECT of its expressions).
    pub(crate) fn run_do(&mut self, select: &str) -> Result<()> {
        self.query_rows(select, &[]).map(drop)
    }

    /// The rows of the query `select` run by the general engine in the
    /// session's transaction (which stored functions it calls use too).
    fn query_rows(&mut self, select: &str, params: &[Value]) -> Result<Vec<Vec<Value>>> {
        let mut stmts = parse(select)?;
        let (Some(ast::Statement::Query(q)), true) = (stmts.pop(), stmts.is_empty()) else {
            return Err(SqlError::syntax(format!("near '{select}'")));
        };
        let q = {
            let db = self.db.clone();
            let _routines = crate::stored::func::CompileScope::enter(&self.shared.catalog.routines, db.as_deref());
            let mut r = self.resolver();
            r.db = db.as_deref();
            crate::rel::compile(*q, &r)?
        };
        self.in_trx(|trx, s| {
            let env = Env { s };
            let plain = query::plain_read_lock(trx.isolation(), s.autocommit() && !s.in_txn);
            crate::rel::exec::Exec::new(params, &env, Some(trx), plain).run(&q.plan, &[])
        })
    }

    fn run_set(&mut self, set: &ast::Set, params: &[Value]) -> Result<Output> {
        let mut assignments: Vec<(String, bool, Option<Value>)> = Vec::new();
        match set {
            ast::Set::SingleAssignment { scope, variable, values, .. } => {
                let v = match values.first() {
                    Some(e) => self.set_value(e, params)?,
                    None => Some(Value::Null),
                };
                assignments.push((variable.to_string(), matches!(scope, Some(ast::ContextModifier::Global)), v));
            }
            ast::Set::MultipleAssignments { assignments: list } => {
                for a in list {
                    let v = self.set_value(&a.value, params)?;
                    assignments.push((a.name.to_string(), matches!(a.scope, Some(ast::ContextModifier::Global)), v));
                }
            }
            ast::Set::SetNames { charset_name, collation_name } => {
                for (name, v) in crate::names::set_names(&charset_name.value, collation_name.as_deref())? {
                    self.set_var(name, false, Value::Str(v))?;
                }
                return Ok(Output::ok());
            }
            ast::Set::SetNamesDefault {} => return Ok(Output::ok()),
            // The next transaction only: `parse` turned the SESSION and
            // GLOBAL forms into variable assignments (set_transaction.rs).
            ast::Set::SetTransaction { modes, .. } => {
                if self.in_txn {
                    return Err(SqlError::new(
                        1568,
                        "25001",
                        "Transaction characteristics can't be changed while a transaction is in progress",
                    ));
                }
                self.take_characteristics(modes)?;
                return Ok(Output::ok());
            }
            other => return Err(SqlError::unsupported(format!("{other}"))),
        }
        for (name, global, v) in assignments {
            if let Some(u) = name.strip_prefix('@').filter(|n| !n.starts_with('@')) {
                let v = v.ok_or_else(|| SqlError::syntax("DEFAULT is no value for a user variable"))?;
                self.user_vars.get_mut().insert(u.to_ascii_lowercase(), v);
                continue;
            }
            if name.eq_ignore_ascii_case("names") || name.eq_ignore_ascii_case("character set") {
                continue;
            }
            match v {
                Some(v) => self.set_var(&name, global, v)?,
                None => self.set_var_default(&name, global)?,
            }
        }
        Ok(Output::ok())
    }

    /// COMMIT and ROLLBACK forget a pending `SET TRANSACTION` (MariaDB's
    /// `trans_reset_one_shot_chistics`), even with no transaction open.
    fn reset_one_shot_characteristics(&mut self) {
        self.next_isolation = None;
        self.next_read_only = None;
    }

    /// Isolation level and access mode for the next transaction.
    fn take_characteristics(&mut self, modes: &[ast::TransactionMode]) -> Result<()> {
        for m in modes {
            match m {
                ast::TransactionMode::IsolationLevel(l) => {
                    self.next_isolation = Some(set_transaction::isolation_level(l)?);
                }
                ast::TransactionMode::AccessMode(a) => {
                    self.next_read_only = Some(matches!(a, ast::TransactionAccessMode::ReadOnly));
                }
            }
        }
        Ok(())
    }

    /// 1792 when the transaction a write would run in is READ ONLY: the
    /// open one, else the one the write would begin. Checked before the
    /// transaction begins, so a refused write leaves a pending `SET
    /// TRANSACTION READ ONLY` pending (as MariaDB: it checks at table open).
    pub(crate) fn check_writable(&self) -> Result<()> {
        let read_only = if self.trx.is_some() {
            self.trx_read_only
        } else {
            self.next_read_only.unwrap_or_else(|| self.vars.transaction_read_only())
        };
        if read_only {
            return Err(SqlError::new(1792, "25006", "Cannot execute statement in a READ ONLY transaction"));
        }
        Ok(())
    }

    /// Runs `sql`, a query reading only system tables (information_schema,
    /// performance_schema), inside the running statement; its rows.
    pub(crate) fn system_query(&self, sql: &str) -> Result<Vec<Vec<Value>>> {
        let mut stmts = crate::depth::parse_sql(sql)?;
        let q = match stmts.pop() {
            Some(ast::Statement::Query(q)) if stmts.is_empty() => q,
            _ => return Err(SqlError::syntax(sql)),
        };
        let r = self.resolver();
        let c = crate::rel::compile(*q, &r)?;
        drop(r);
        let env = Env { s: self };
        let ex = crate::rel::exec::Exec::new(&[], &env, None, None);
        let mut sink = crate::sink::Collect::default();
        ex.run_into(&c.plan, &mut sink)?;
        Ok(sink.rows)
    }

    /// The value of a constant expression given as text (KILL's id).
    pub fn eval_constant(&self, text: &str) -> Result<Value> {
        // Parsed as a SELECT's one item, so depth.rs bounds it as any
        // statement (a deep expression is 1436, not a stack overflow).
        let mut stmts = crate::depth::parse_sql(&format!("SELECT {text}"))?;
        let e = match stmts.pop() {
            Some(ast::Statement::Query(q)) if stmts.is_empty() => match *q.body {
                ast::SetExpr::Select(sel) if sel.projection.len() == 1 && sel.from.is_empty() => {
                    match sel.projection.into_iter().next() {
                        Some(ast::SelectItem::UnnamedExpr(e)) => e,
                        _ => return Err(SqlError::syntax(text)),
                    }
                }
                _ => return Err(SqlError::syntax(text)),
            },
            _ => return Err(SqlError::syntax(text)),
        };
        let mut scope =
            crate::expr::Scope { table: None, columns: &[], aggs: None, params: 0, place: "field list", rel: None };
        let x = crate::expr::compile(&e, &mut scope)?;
        crate::expr::eval(
            &x,
            &[],
            &Ctx { params: &[], aggs: vec![], session: &Env { s: self }, in_keys: Default::default() },
        )
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.shared.engine
    }

    /// Runs `f` with the session as the expression environment; with
    /// `writes`, strict `sql_mode` makes warnings errors for its duration
    /// (ALTER TABLE's copy converts values as an INSERT would).
    pub(crate) fn with_env<T>(&self, writes: bool, f: impl FnOnce(&dyn crate::expr::Env) -> T) -> T {
        let saved = self.mode.get();
        let mut mode = saved;
        mode.abort_on_warning = mode.strict && writes;
        self.mode.set(mode);
        let r = f(&Ctx { params: &[], aggs: vec![], session: &Env { s: self }, in_keys: Default::default() });
        self.mode.set(saved);
        r
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.rollback();
        self.shared.user_locks.release_all(self.connection_id);
        self.unlock_tables();
        self.release_global_read_lock();
        self.close_all_prepared();
        self.temps.drop_all(&self.shared.engine);
        if self.owns_process {
            self.shared.processes.remove(&self.process);
        }
    }
}

/// Columns of a statement the server answers itself, by its shape.
pub fn text_columns(names: &[&str]) -> Vec<ColMeta> {
    names.iter().map(|n| ColMeta::expr(n, MetaType::Str { len: 255, fixed: false })).collect()
}

/// One statement's measurement for its digest: the slow log's clock
/// (the instant, the rows this thread had read and the time it had
/// waited for locks when it started).
struct Measure(crate::slow_log::Clock);

impl Measure {
    fn start() -> Self {
        Measure(crate::slow_log::Clock::start())
    }

    fn end(self, r: &Result<Outcome>, warnings: u16) -> (crate::perfschema::digest::Execution, std::time::Instant) {
        let (affected, sent) = match r {
            Ok(Outcome::Ok { affected, .. }) => (*affected, 0),
            Ok(Outcome::Rows(n)) => (0, *n),
            Err(_) => (0, 0),
        };
        let f = self.0.figures();
        let end = std::time::Instant::now();
        let e = crate::perfschema::digest::Execution {
            ns: f.ns,
            lock_ns: f.lock_ns,
            error: r.is_err(),
            warnings: u64::from(warnings),
            affected,
            sent,
            examined: f.examined,
        };
        (e, end)
    }
}
