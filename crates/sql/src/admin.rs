//! Statements about the server rather than rows: DDL execution, SHOW,
//! DESCRIBE, and account statements (CREATE / DROP / ALTER USER, GRANT,
//! REVOKE, SET PASSWORD, SHOW GRANTS, SHOW WARNINGS ...), which quire
//! parses itself because sqlparser does not accept MySQL's `'user'@'host'`.

use quire_engine::row::{IndexDef, Value};
use sqlparser::ast;

use crate::ddl;
use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType};
use crate::session::{text_columns, Session};
use crate::Output;

/// A statement quire parses itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdminStmt {
    CreateUser {
        name: String,
        password: String,
        if_not_exists: bool,
    },
    DropUser {
        names: Vec<String>,
        if_exists: bool,
    },
    SetPassword {
        name: Option<String>,
        password: String,
    },
    Grant {
        db: String,
        user: String,
    },
    Revoke {
        db: String,
        user: String,
    },
    /// GRANT / REVOKE of named global privileges (`REPLICATION SLAVE`,
    /// `REPLICATION CLIENT`) ON *.*.
    GrantGlobal {
        privileges: Vec<&'static str>,
        user: String,
        revoke: bool,
    },
    ShowGrants {
        user: Option<String>,
    },
    /// SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] n], SHOW COUNT(*)
    /// WARNINGS / ERRORS: the diagnostics area (`diag.rs`).
    ShowWarnings {
        errors_only: bool,
        count: bool,
        offset: usize,
        limit: Option<usize>,
    },
    /// SHOW PRIVILEGES (`infoschema::server::show_privileges`).
    ShowPrivileges,
    /// SHOW [FULL] PROCESSLIST.
    ShowProcesslist {
        full: bool,
    },
    /// SHOW ENGINE INNODB STATUS (`innodb_status.rs`).
    InnodbStatus,
    /// KILL [CONNECTION | QUERY] id (`kill.rs`).
    Kill {
        query: bool,
        /// The expression naming the connection.
        id: String,
    },
    /// SHUTDOWN: a clean stop of the server.
    Shutdown,
    /// `DO expr, ...`: the expressions evaluated, their values dropped
    /// (held as the `SELECT` of them).
    Do(String),
    /// CHECK TABLE (`check.rs`): (database, table) names.
    CheckTable(crate::check::TableNames),
    /// ANALYZE TABLE (`statistics/analyze.rs`): (database, table) names.
    AnalyzeTable(crate::check::TableNames),
    /// ALTER TABLE ... ENGINE [=] name (`alter/engine.rs`): the statement
    /// without the option, the engine, whether it was the only option.
    AlterEngine {
        rest: String,
        engine: String,
        only: bool,
    },
    /// SHOW BINARY LOGS, FLUSH BINARY LOGS, PURGE ... (`binlog/show.rs`).
    Binlog(crate::binlog::show::BinlogStmt),
    /// CHANGE REPLICATION SOURCE, START / STOP / RESET REPLICA, SHOW
    /// REPLICA STATUS (`replica/stmt.rs`).
    Replica(crate::replica::stmt::ReplicaStmt),
    /// ALTER TABLE [db.]t {DISABLE | ENABLE} KEYS (`alter/keys.rs`).
    AlterKeys {
        db: Option<String>,
        table: String,
    },
    /// OPTIMIZE TABLE / REPAIR TABLE (`optimize.rs`).
    Maintain(crate::optimize::Op, crate::check::TableNames),
    /// START TRANSACTION WITH CONSISTENT SNAPSHOT [, READ ONLY | READ
    /// WRITE] (`snapshot.rs`): its access modes.
    ConsistentSnapshot(Vec<ast::TransactionMode>),
}

impl AdminStmt {
    /// Whether the statement clears the diagnostics area when it starts:
    /// all but the diagnostic statements themselves.
    pub fn uses_tables(&self) -> bool {
        !matches!(self, AdminStmt::ShowWarnings { .. })
    }

    pub fn is_ddl(&self) -> bool {
        matches!(
            self,
            AdminStmt::CreateUser { .. }
                | AdminStmt::DropUser { .. }
                | AdminStmt::SetPassword { .. }
                | AdminStmt::Grant { .. }
                | AdminStmt::Revoke { .. }
                | AdminStmt::GrantGlobal { .. }
                | AdminStmt::AlterEngine { .. }
                | AdminStmt::Maintain(crate::optimize::Op::Optimize, _)
                | AdminStmt::AlterKeys { .. }
        )
    }

    pub fn columns(&self) -> Vec<ColMeta> {
        match self {
            AdminStmt::ShowGrants { .. } => text_columns(&["Grants"]),
            AdminStmt::ShowWarnings { count: true, errors_only, .. } => {
                let name = if *errors_only { "@@session.error_count" } else { "@@session.warning_count" };
                vec![ColMeta::expr(name, MetaType::Int { unsigned: true, width: 8 })]
            }
            AdminStmt::ShowWarnings { .. } => vec![
                ColMeta::expr("Level", MetaType::Str { len: 7, fixed: false }),
                ColMeta::expr("Code", MetaType::Int { unsigned: true, width: 4 }),
                ColMeta::expr("Message", MetaType::Str { len: 512, fixed: false }),
            ],
            AdminStmt::ShowProcesslist { .. } => crate::kill::processlist_columns(),
            AdminStmt::ShowPrivileges => text_columns(&["Privilege", "Context", "Comment"]),
            AdminStmt::InnodbStatus => vec![
                ColMeta::expr("Type", MetaType::Str { len: 10, fixed: false }),
                ColMeta::expr("Name", MetaType::Str { len: 10, fixed: false }),
                ColMeta::expr("Status", MetaType::Str { len: 1 << 20, fixed: false }),
            ],
            AdminStmt::CheckTable(_) | AdminStmt::AnalyzeTable(_) | AdminStmt::Maintain(..) => crate::check::columns(),
            AdminStmt::Replica(crate::replica::stmt::ReplicaStmt::ShowStatus { old_names }) => {
                crate::replica::stmt::status_columns(*old_names)
            }
            _ => vec![],
        }
    }
}

/// The rest of a quoted token whose opening quote `q` was read, into
/// `s`: a doubled quote is one, and a backslash escapes the next
/// character except between backticks.
pub(crate) fn read_quoted(it: &mut std::iter::Peekable<std::str::Chars<'_>>, q: char, s: &mut String) {
    while let Some(ch) = it.next() {
        if ch == q {
            if it.peek() == Some(&q) {
                it.next();
                s.push(q);
                continue;
            }
            break;
        }
        if ch == '\\' && q != '`' {
            if let Some(n) = it.next() {
                s.push(n);
            }
            continue;
        }
        s.push(ch);
    }
}

/// Tokens: words, quoted strings (quotes removed), punctuation.
fn tokens(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = sql.chars().peekable();
    while let Some(&c) = it.peek() {
        if c.is_whitespace() {
            it.next();
        } else if c == '\'' || c == '"' || c == '`' {
            it.next();
            let mut s = String::from("\u{1}");
            read_quoted(&mut it, c, &mut s);
            out.push(s);
        } else if c.is_alphanumeric() || c == '_' || c == '$' || c == '%' || c == '*' {
            let mut s = String::new();
            while let Some(&ch) = it.peek() {
                if ch.is_alphanumeric() || ch == '_' || ch == '$' || ch == '%' || ch == '*' {
                    s.push(ch);
                    it.next();
                } else {
                    break;
                }
            }
            out.push(s);
        } else {
            out.push(c.to_string());
            it.next();
        }
    }
    out
}

fn word(t: Option<&String>, w: &str) -> bool {
    t.is_some_and(|t| !t.starts_with('\u{1}') && t.eq_ignore_ascii_case(w))
}

fn name(t: &str) -> String {
    t.trim_start_matches('\u{1}').to_string()
}

/// `user[@host]` at `i`; returns the user and the next position.
fn user_at(t: &[String], i: usize) -> Result<(String, usize)> {
    let u = t.get(i).ok_or_else(|| SqlError::syntax("a user name was expected"))?;
    let mut j = i + 1;
    if t.get(j).map(String::as_str) == Some("@") {
        j += 2;
    }
    Ok((name(u), j))
}

/// A LIMIT count (a number token).
fn count_at(t: &str) -> Result<usize> {
    t.parse().map_err(|_| SqlError::syntax(format!("near '{t}'")))
}

/// The body of a statement written whole as a versioned comment
/// (`/*!40000 ALTER TABLE t DISABLE KEYS */`, as dumps write it), which
/// MySQL runs when the version is not above its own (quire's is 8.0.36);
/// else `sql` itself. sqlparser reads versioned comments inside a
/// statement; this is for the statements quire parses itself.
fn unversioned(sql: &str) -> &str {
    let t = sql.trim().trim_end_matches(';').trim_end();
    let Some(inner) = t.strip_prefix("/*!").and_then(|r| r.strip_suffix("*/")) else { return sql };
    if inner.contains("*/") {
        return sql;
    }
    let digits = inner.len() - inner.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match inner[..digits].parse::<u32>() {
        Ok(v) if v > 80036 => sql,
        _ => &inner[digits..],
    }
}

/// Parses an account statement; `None` if `sql` is not one.
pub fn parse(sql: &str) -> Result<Option<AdminStmt>> {
    let sql = unversioned(sql);
    let t = tokens(sql.trim().trim_end_matches(';'));
    let w = |i: usize, s: &str| word(t.get(i), s);
    if let Some(tables) = crate::check::parse(&t)? {
        return Ok(Some(AdminStmt::CheckTable(tables)));
    }
    if let Some(tables) = crate::statistics::analyze::parse(&t)? {
        return Ok(Some(AdminStmt::AnalyzeTable(tables)));
    }
    if let Some((db, table)) = crate::alter::keys::parse(&t)? {
        return Ok(Some(AdminStmt::AlterKeys { db, table }));
    }
    if let Some((rest, engine, only)) = crate::alter::engine::split(sql.trim().trim_end_matches(';'), &t) {
        return Ok(Some(AdminStmt::AlterEngine { rest, engine, only }));
    }
    if let Some(b) = crate::binlog::show::parse(&t)? {
        return Ok(Some(AdminStmt::Binlog(b)));
    }
    if let Some(r) = crate::replica::stmt::parse(&t)? {
        return Ok(Some(AdminStmt::Replica(r)));
    }
    if let Some((op, tables)) = crate::optimize::parse(&t)? {
        return Ok(Some(AdminStmt::Maintain(op, tables)));
    }
    if let Some(modes) = crate::snapshot::parse(sql)? {
        return Ok(Some(AdminStmt::ConsistentSnapshot(modes)));
    }
    if w(0, "DO") && t.len() > 1 {
        let text = sql.trim().trim_end_matches(';');
        return Ok(Some(AdminStmt::Do(format!("SELECT {}", text[2..].trim_start()))));
    }
    if w(0, "SHUTDOWN") && t.len() == 1 {
        return Ok(Some(AdminStmt::Shutdown));
    }
    if let Some((query, id)) = crate::kill::parse(sql) {
        return Ok(Some(AdminStmt::Kill { query, id }));
    }
    if w(0, "SHOW") {
        let mut i = 1;
        let full = w(i, "FULL");
        if full {
            i += 1;
        }
        if w(i, "WARNINGS") || w(i, "ERRORS") {
            let errors_only = w(i, "ERRORS");
            let (offset, limit) = match &t[i + 1..] {
                [] => (0, None),
                [l, n] if word(Some(l), "LIMIT") => (0, Some(count_at(n)?)),
                [l, o, comma, n] if word(Some(l), "LIMIT") && comma == "," => (count_at(o)?, Some(count_at(n)?)),
                _ => return Err(SqlError::syntax(format!("near '{}'", t[i + 1..].join(" ")))),
            };
            return Ok(Some(AdminStmt::ShowWarnings { errors_only, count: false, offset, limit }));
        }
        if w(i, "COUNT") {
            let star = t.get(i + 1..i + 4).is_some_and(|p| p.join("") == "(*)");
            let what = t.get(i + 4).filter(|_| star && t.len() == i + 5);
            if let Some(what) = what.filter(|x| word(Some(x), "WARNINGS") || word(Some(x), "ERRORS")) {
                let errors_only = word(Some(what), "ERRORS");
                return Ok(Some(AdminStmt::ShowWarnings { errors_only, count: true, offset: 0, limit: None }));
            }
            return Err(SqlError::syntax(format!("near '{}'", t[i..].join(" "))));
        }
        if !full && w(i, "PRIVILEGES") && t.len() == i + 1 {
            return Ok(Some(AdminStmt::ShowPrivileges));
        }
        if w(i, "PROCESSLIST") && t.len() == i + 1 {
            return Ok(Some(AdminStmt::ShowProcesslist { full }));
        }
        if !full && w(i, "ENGINE") && w(i + 1, "INNODB") && t.len() == i + 3 {
            if w(i + 2, "STATUS") {
                return Ok(Some(AdminStmt::InnodbStatus));
            }
            if w(i + 2, "MUTEX") {
                return Err(SqlError::unsupported("SHOW ENGINE INNODB MUTEX"));
            }
        }
        if w(i, "GRANTS") {
            let user = if w(i + 1, "FOR") { Some(user_at(&t, i + 2)?.0) } else { None };
            return Ok(Some(AdminStmt::ShowGrants { user }));
        }
        return Ok(None);
    }
    if w(0, "CREATE") && w(1, "USER") {
        let mut i = 2;
        let ine = w(i, "IF") && w(i + 1, "NOT") && w(i + 2, "EXISTS");
        if ine {
            i += 3;
        }
        let (user, mut j) = user_at(&t, i)?;
        let mut password = String::new();
        if w(j, "IDENTIFIED") {
            j += 1;
            if w(j, "WITH") {
                j += 2; // the plugin name: both are served
            }
            if w(j, "BY") {
                password = t.get(j + 1).map(|p| name(p)).ok_or_else(|| SqlError::syntax("password expected"))?;
            }
        }
        return Ok(Some(AdminStmt::CreateUser { name: user, password, if_not_exists: ine }));
    }
    if w(0, "DROP") && w(1, "USER") {
        let mut i = 2;
        let ie = w(i, "IF") && w(i + 1, "EXISTS");
        if ie {
            i += 2;
        }
        let mut names = Vec::new();
        while i < t.len() {
            let (u, j) = user_at(&t, i)?;
            names.push(u);
            i = j;
            if t.get(i).map(String::as_str) == Some(",") {
                i += 1;
            }
        }
        return Ok(Some(AdminStmt::DropUser { names, if_exists: ie }));
    }
    if w(0, "ALTER") && w(1, "USER") {
        let mut i = 2;
        if w(i, "IF") && w(i + 1, "EXISTS") {
            i += 2;
        }
        let (user, mut j) = user_at(&t, i)?;
        if w(j, "IDENTIFIED") {
            j += 1;
            if w(j, "WITH") {
                j += 2;
            }
            if w(j, "BY") {
                let pw = t.get(j + 1).map(|p| name(p)).unwrap_or_default();
                return Ok(Some(AdminStmt::SetPassword { name: Some(user), password: pw }));
            }
        }
        return Err(SqlError::unsupported("ALTER USER other than IDENTIFIED BY"));
    }
    if w(0, "SET") && w(1, "PASSWORD") {
        let (user, j) = if w(2, "FOR") { user_at(&t, 3).map(|(u, j)| (Some(u), j))? } else { (None, 2) };
        let mut k = j;
        if t.get(k).map(String::as_str) == Some("=") {
            k += 1;
        }
        if w(k, "PASSWORD") {
            k += 2;
        }
        let pw = t.get(k).map(|p| name(p)).unwrap_or_default();
        return Ok(Some(AdminStmt::SetPassword { name: user, password: pw }));
    }
    if w(0, "GRANT") || w(0, "REVOKE") {
        let on = t.iter().position(|x| word(Some(x), "ON")).ok_or_else(|| SqlError::syntax("ON expected"))?;
        let privs: Vec<String> = t[1..on].iter().map(|x| x.to_ascii_uppercase()).collect();
        if privs.first().is_none_or(|p| p != "ALL") {
            let privileges = named_globals(&privs)?;
            let global = t.get(on + 1..on + 4).is_some_and(|x| x.join("") == "*.*");
            if !global {
                return Err(SqlError::new(1221, "HY000", "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES"));
            }
            let to = t
                .iter()
                .position(|x| word(Some(x), "TO") || word(Some(x), "FROM"))
                .ok_or_else(|| SqlError::syntax("TO expected"))?;
            let (user, _) = user_at(&t, to + 1)?;
            return Ok(Some(AdminStmt::GrantGlobal { privileges, user, revoke: w(0, "REVOKE") }));
        }
        let db = name(t.get(on + 1).ok_or_else(|| SqlError::syntax("database expected"))?);
        if db.starts_with("*.") {
            return Err(SqlError::new(1102, "42000", format!("Incorrect database name '{db}'")));
        }
        if t.get(on + 2).map(String::as_str) == Some(".") && t.get(on + 3).map(String::as_str) != Some("*") {
            return Err(SqlError::unsupported("table-level privileges (GRANT ... ON db.table)"));
        }
        let to = t
            .iter()
            .position(|x| word(Some(x), "TO") || word(Some(x), "FROM"))
            .ok_or_else(|| SqlError::syntax("TO expected"))?;
        let (user, _) = user_at(&t, to + 1)?;
        return Ok(Some(if w(0, "GRANT") { AdminStmt::Grant { db, user } } else { AdminStmt::Revoke { db, user } }));
    }
    Ok(None)
}

/// The privileges of a GRANT that names them (tokens between GRANT and
/// ON): only the named global ones quire keeps apart from ALL
/// (`catalog::NAMED_GLOBAL_PRIVILEGES`: PROCESS, which monitoring users
/// such as mysqld_exporter's are given, and the replication ones; MariaDB's REPLICATION REPLICA
/// and BINLOG MONITOR are their new names); anything else is 1235.
fn named_globals(privs: &[String]) -> Result<Vec<&'static str>> {
    let mut out = Vec::new();
    for p in privs.split(|x| x == ",") {
        let p = p.join(" ");
        let named = match p.as_str() {
            "PROCESS" => "PROCESS",
            "REPLICATION SLAVE" | "REPLICATION REPLICA" => "REPLICATION SLAVE",
            "REPLICATION CLIENT" | "BINLOG MONITOR" => "REPLICATION CLIENT",
            _ => {
                return Err(SqlError::unsupported(
                    "privileges other than ALL [PRIVILEGES], PROCESS, REPLICATION SLAVE and REPLICATION CLIENT",
                ))
            }
        };
        if !out.contains(&named) {
            out.push(named);
        }
    }
    Ok(out)
}

pub fn run(s: &mut Session, a: &AdminStmt) -> Result<Output> {
    let cat = &s.shared.catalog;
    let may_admin = cat.user(&s.user).is_some_and(|u| u.grants.contains("*"));
    let denied = || {
        SqlError::new(
            1227,
            "42000",
            "Access denied; you need (at least one of) the CREATE USER privilege(s) for this operation",
        )
    };
    match a {
        AdminStmt::Do(select) => s.run_do(select).map(|()| Output::ok()),
        AdminStmt::CheckTable(tables) => crate::check::run(s, tables),
        AdminStmt::Binlog(b) => crate::binlog::show::run(s, b),
        AdminStmt::Replica(r) => crate::replica::stmt::run(s, r),
        AdminStmt::AnalyzeTable(tables) => crate::statistics::analyze::run(s, tables),
        AdminStmt::AlterEngine { rest, engine, only } => {
            let r = crate::alter::engine::run(s, rest, engine, *only);
            s.shared.bump_epoch();
            r
        }
        AdminStmt::CreateUser { name, password, if_not_exists } => {
            if !may_admin {
                return Err(denied());
            }
            cat.create_user(name, password, *if_not_exists)?;
            Ok(Output::ok())
        }
        AdminStmt::DropUser { names, if_exists } => {
            if !may_admin {
                return Err(denied());
            }
            for n in names {
                cat.drop_user(n, *if_exists)?;
            }
            Ok(Output::ok())
        }
        AdminStmt::SetPassword { name, password } => {
            let target = name.clone().unwrap_or_else(|| s.user.clone());
            if target != s.user && !may_admin {
                return Err(denied());
            }
            cat.set_password(&target, password)?;
            Ok(Output::ok())
        }
        AdminStmt::Grant { db, user } | AdminStmt::Revoke { db, user } => {
            if !may_admin {
                return Err(denied());
            }
            let db = if db == "*" { "*".to_string() } else { db.clone() };
            if matches!(a, AdminStmt::Grant { .. }) {
                cat.grant(user, &db)?;
            } else {
                cat.revoke(user, &db)?;
            }
            Ok(Output::ok())
        }
        AdminStmt::GrantGlobal { privileges, user, revoke } => {
            if !may_admin {
                return Err(denied());
            }
            let held = cat.user(user).map(|u| u.grants.clone()).unwrap_or_default();
            for p in privileges {
                let entry = crate::catalog::global_grant_entry(p);
                if !*revoke && !held.contains(&entry) {
                    cat.grant(user, &entry)?;
                } else if *revoke && held.contains(&entry) {
                    cat.revoke(user, &entry)?;
                } else if cat.user(user).is_none() {
                    cat.grant(user, &entry)?; // 1133, as GRANT ALL
                }
            }
            Ok(Output::ok())
        }
        AdminStmt::ShowGrants { user } => {
            let u = user.clone().unwrap_or_else(|| s.user.clone());
            if u != s.user && !may_admin {
                return Err(SqlError::new(
                    1044,
                    "42000",
                    format!("Access denied for user '{}'@'%' to database 'mysql'", s.user),
                ));
            }
            let rec = cat.user(&u).ok_or_else(|| {
                SqlError::new(1141, "42000", format!("There is no such grant defined for user '{u}' on host '%'"))
            })?;
            let globals = rec.named_globals();
            let first = if globals.is_empty() { "USAGE".to_string() } else { globals.join(", ") };
            let mut rows = vec![vec![Value::Str(format!("GRANT {first} ON *.* TO `{u}`@`%`"))]];
            for db in rec.grants.iter().filter(|d| !d.starts_with("*.")) {
                let on = if db == "*" { "*.*".to_string() } else { format!("`{db}`.*") };
                rows.push(vec![Value::Str(format!("GRANT ALL PRIVILEGES ON {on} TO `{u}`@`%`"))]);
            }
            Ok(Output::Rows { columns: a.columns(), rows })
        }
        AdminStmt::ShowProcesslist { full } => crate::kill::show_processlist(s, *full),
        AdminStmt::ShowPrivileges => {
            Ok(Output::Rows { columns: a.columns(), rows: crate::infoschema::server::show_privileges() })
        }
        AdminStmt::InnodbStatus => {
            // MySQL asks for PROCESS.
            crate::infoschema::check_process(s)?;
            let text = crate::innodb_status::report(s);
            let row = vec![Value::Str("InnoDB".into()), Value::Str(String::new()), Value::Str(text)];
            Ok(Output::Rows { columns: a.columns(), rows: vec![row] })
        }
        AdminStmt::Kill { query, id } => crate::kill::kill(s, *query, id),
        AdminStmt::ShowWarnings { errors_only, count, offset, limit } => {
            let d = s.diagnostics();
            let rows = if *count {
                vec![vec![Value::UInt(if *errors_only { d.error_count() } else { d.warning_count() })]]
            } else {
                d.list(*errors_only, *offset, *limit)
                    .into_iter()
                    .map(|c| {
                        vec![
                            Value::Str(c.level.name().into()),
                            Value::UInt(c.code.into()),
                            Value::Str(c.message.clone()),
                        ]
                    })
                    .collect()
            };
            Ok(Output::Rows { columns: a.columns(), rows })
        }
        AdminStmt::Shutdown => {
            if !may_admin {
                return Err(SqlError::new(
                    1227,
                    "42000",
                    "Access denied; you need (at least one of) the SHUTDOWN privilege(s) for this operation",
                ));
            }
            s.shared.request_shutdown();
            Ok(Output::ok())
        }
        AdminStmt::ConsistentSnapshot(modes) => s.start_transaction(modes, true),
        AdminStmt::Maintain(op, tables) => crate::optimize::run(s, *op, tables),
        AdminStmt::AlterKeys { db, table } => crate::alter::keys::run(s, db, table),
    }
}

/// DROP TABLE / VIEW of names not there: 1051 naming them all, or with IF
/// EXISTS a note.
pub(crate) fn unknown_tables(s: &Session, missing: &[String], if_exists: bool) -> Result<Output> {
    if !missing.is_empty() {
        let message = format!("Unknown table '{}'", missing.join(","));
        if !if_exists {
            return Err(SqlError::new(1051, "42S02", message));
        }
        s.note(1051, message);
    }
    Ok(Output::ok())
}

pub(crate) fn split_name(s: &Session, n: &ast::ObjectName) -> Result<(String, String)> {
    let parts: Vec<String> = n.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_default()).collect();
    match parts.as_slice() {
        [t] => Ok((s.db.clone().ok_or_else(SqlError::no_database)?, t.clone())),
        [d, t] => Ok((d.clone(), t.clone())),
        _ => Err(SqlError::syntax(format!("bad name {n}"))),
    }
}

/// Why a table could not be opened: 1146 if it does not exist, else the
/// engine's error (1877 for a damaged table, naming its file and page).
pub(crate) fn open_error(e: quire_engine::Error, db: &str, table: &str) -> SqlError {
    match e {
        quire_engine::Error::NoSuchTable(_) => SqlError::no_such_table(db, table),
        other => other.into(),
    }
}

pub(crate) fn check_access(s: &Session, db: &str) -> Result<()> {
    if !s.shared.catalog.user(&s.user).is_some_and(|u| u.may_use(db)) {
        return Err(SqlError::new(
            1044,
            "42000",
            format!("Access denied for user '{}'@'%' to database '{db}'", s.user),
        ));
    }
    if !s.shared.catalog.database_exists(db) {
        return Err(SqlError::unknown_database(db));
    }
    Ok(())
}

pub fn create_table(s: &mut Session, ct: &ast::CreateTable) -> Result<Output> {
    let (db, table) = split_name(s, &ct.name)?;
    check_access(s, &db)?;
    crate::catalog::check_table_name(&table)?;
    let temporary = ct.temporary;
    if temporary && ct.constraints.iter().any(|c| matches!(c, ast::TableConstraint::ForeignKey(_))) {
        return Err(SqlError::unsupported("FOREIGN KEY on a temporary table"));
    }
    if !temporary && ct.query.is_some() && s.temps.get(&db, &table).is_some() {
        // Its INSERT ... SELECT would name the temporary table.
        return Err(SqlError::unsupported("CREATE TABLE ... SELECT of a name a temporary table shadows"));
    }
    let full = if temporary { s.temps.new_engine_name(s.connection_id) } else { format!("{db}/{table}") };
    // A table marked corrupt exists too: its name and file stay its own.
    let exists = if temporary {
        s.temps.get(&db, &table).is_some()
    } else {
        !matches!(s.engine().table(&full), Err(quire_engine::Error::NoSuchTable(_)))
    };
    if exists {
        return if ct.if_not_exists {
            s.note(1050, format!("Table '{table}' already exists"));
            Ok(Output::ok())
        } else {
            Err(SqlError::new(1050, "42S01", format!("Table '{table}' already exists")))
        };
    }
    if let Some(like) = &ct.like {
        let r = crate::create::like::create(s, &full, &table, like);
        if temporary && r.is_ok() {
            s.temps.insert(&db, &table, full);
        }
        return r;
    }
    let ct_query = ct.query.clone();
    let expanded = match &ct.query {
        Some(q) => Some(crate::create::select::expand(s, ct, q)?),
        None => None,
    };
    let ct = expanded.as_ref().unwrap_or(ct);
    let extras = crate::create::options::read(s, &table, ct)?;
    let schema = ddl::schema_of(ct)?;
    // MySQL 8.0's switch (MariaDB has none): no PRIMARY KEY declared is
    // refused, a NOT NULL UNIQUE key that would cluster included.
    if schema.cluster != quire_engine::row::ClusterKey::Primary
        && s.vars.get("sql_require_primary_key").and_then(|v| v.as_bool()) == Some(true)
    {
        return Err(SqlError::new(
            3750,
            "HY000",
            "Unable to create or change a table without a primary key, when the system variable \
             'sql_require_primary_key' is set. Add a primary key to the table or unset this variable to avoid this \
             message. Note that tables without a primary key can cause performance problems in row-based \
             replication, so please consult your DBA before changing this setting.",
        ));
    }
    let mut schema = schema;
    let mut fks = Vec::new();
    let mut new_indexes = Vec::new();
    let fk_checks = s.foreign_key_checks();
    for c in &ct.constraints {
        if let ast::TableConstraint::ForeignKey(f) = c {
            let def = crate::fk::define::read(s.engine(), &db, &table, &schema, f, &fks, &mut new_indexes, fk_checks)?;
            fks.push(def);
        }
    }
    schema.indexes.extend(new_indexes);
    let mut extras = extras;
    extras.checks = crate::create::check::define(&table, ct, &schema)?;
    extras.generated = crate::create::generated::define(ct, &schema)?;
    crate::create::generated::check_foreign_keys(&schema, &extras.generated, &fks)?;
    if fk_checks && !temporary {
        crate::fk::define::check_new_parent(s.engine(), &s.shared.foreign_keys, &db, &table, &schema)?;
    }
    s.engine().create_table_with_extras(&full, schema, fks, extras)?;
    if temporary {
        s.temps.insert(&db, &table, full);
    }
    match &ct_query {
        Some(q) => {
            // The binary log gets the expanded definition, then the rows
            // (a replica must not run the SELECT again).
            if !temporary {
                s.log_ddl(&ct.to_string())?;
            }
            let r = crate::create::select::fill(s, &db, &table, q);
            if r.is_err() && !temporary {
                let _ = s.log_ddl(&format!("DROP TABLE IF EXISTS `{db}`.`{table}`"));
            }
            r
        }
        None => Ok(Output::ok()),
    }
}

pub fn create_index(s: &mut Session, ci: &ast::CreateIndex) -> Result<Output> {
    let (db, table) = split_name(s, &ci.table_name)?;
    check_access(s, &db)?;
    let full = s.table_key(&db, &table);
    let t = s.engine().table(&full).map_err(|e| open_error(e, &db, &table))?;
    let schema = t.schema();
    let (cols, prefix) = crate::create::prefix::key_parts(&ci.columns, schema.visible_columns())?;
    ddl::check_key_types(
        &schema.columns,
        &[],
        std::slice::from_ref(&IndexDef {
            name: String::new(),
            columns: cols.clone(),
            unique: false,
            prefix: prefix.clone(),
        }),
    )?;
    let name = ci
        .name
        .as_ref()
        .map(|n| n.to_string().trim_matches('`').to_string())
        .unwrap_or_else(|| schema.columns[cols[0]].name.clone());
    if schema.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&name)) {
        return if ci.if_not_exists {
            s.note(1061, format!("Duplicate key name '{name}'"));
            Ok(altered(s))
        } else {
            Err(SqlError::new(1061, "42000", format!("Duplicate key name '{name}'")))
        };
    }
    s.engine().create_index(&full, IndexDef { name, columns: cols, unique: ci.unique, prefix })?;
    Ok(altered(s))
}

/// The answer to a finished ALTER TABLE, CREATE INDEX or DROP INDEX: no
/// rows changed, and MySQL's info text.
fn altered(s: &Session) -> Output {
    let info = format!("Records: 0  Duplicates: 0  Warnings: {}", s.statement_warnings());
    Output::Ok { affected: 0, last_insert_id: 0, info }
}

pub fn alter_table(s: &mut Session, at: &ast::AlterTable) -> Result<Output> {
    if crate::alter::extras::handles(at) {
        return crate::alter::extras::run(s, at);
    }
    if crate::alter::handles(at) {
        return crate::alter::run(s, at);
    }
    let (db, table) = split_name(s, &at.name)?;
    check_access(s, &db)?;
    let full = s.table_key(&db, &table);
    if s.temps.get(&db, &table).is_some()
        && at.operations.iter().any(|op| {
            matches!(
                op,
                ast::AlterTableOperation::AddConstraint { constraint: ast::TableConstraint::ForeignKey(_), .. }
            )
        })
    {
        return Err(SqlError::unsupported("FOREIGN KEY on a temporary table"));
    }
    let t = s.engine().table(&full).map_err(|e| open_error(e, &db, &table))?;
    for op in &at.operations {
        match op {
            ast::AlterTableOperation::AddConstraint { constraint: ast::TableConstraint::ForeignKey(f), .. } => {
                add_foreign_key(s, &db, &table, &t, f)?;
            }
            ast::AlterTableOperation::DropForeignKey { name, .. } => {
                let mut fks = t.foreign_keys();
                let before = fks.len();
                fks.retain(|f| !f.name.eq_ignore_ascii_case(&name.value));
                if fks.len() == before {
                    return Err(SqlError::new(
                        1091,
                        "42000",
                        format!("Can't DROP FOREIGN KEY `{}`; check that it exists", name.value),
                    ));
                }
                s.engine().set_foreign_keys(&full, fks)?;
                s.shared.foreign_keys.rebuild(s.engine());
            }
            ast::AlterTableOperation::AddConstraint { constraint, .. } => {
                let schema = t.schema();
                let names: Vec<String> = schema.visible_columns().iter().map(|c| c.name.clone()).collect();
                let (name, cols, unique) = match constraint {
                    ast::TableConstraint::Index(ix) => (ix.name.as_ref().map(|n| n.value.clone()), &ix.columns, false),
                    ast::TableConstraint::Unique(u) => {
                        (u.index_name.as_ref().or(u.name.as_ref()).map(|n| n.value.clone()), &u.columns, true)
                    }
                    other => return Err(SqlError::unsupported(format!("ALTER TABLE ADD {other}"))),
                };
                let (cols, prefix) = crate::create::prefix::key_parts(cols, schema.visible_columns())?;
                let name = name.unwrap_or_else(|| {
                    ddl::generated_key_name(&names[cols[0]], |n| {
                        schema.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n))
                    })
                });
                let def = IndexDef { name, columns: cols, unique, prefix };
                ddl::check_key_types(&schema.columns, &[], std::slice::from_ref(&def))?;
                s.engine().create_index(&full, def)?;
            }
            ast::AlterTableOperation::DropIndex { name, .. } => {
                if !t.schema().indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&name.value)) {
                    return Err(SqlError::new(
                        1091,
                        "42000",
                        format!("Can't DROP INDEX `{}`; check that it exists", name.value),
                    ));
                }
                crate::fk::define::check_index_drop(s.engine(), &s.shared.foreign_keys, &full, &name.value)?;
                s.engine().drop_index(&full, &name.value)?;
            }
            other => return Err(SqlError::unsupported(format!("ALTER TABLE {other}"))),
        }
    }
    Ok(altered(s))
}

/// ALTER TABLE ... ADD FOREIGN KEY: validated, the child index created
/// if none serves, the existing rows checked (unless foreign_key_checks
/// is 0: 1452 for an orphan), then the key stored.
fn add_foreign_key(
    s: &mut Session,
    db: &str,
    table: &str,
    t: &quire_engine::Table,
    f: &ast::ForeignKeyConstraint,
) -> Result<()> {
    let full = format!("{db}/{table}");
    let schema = t.schema();
    let mut fks = t.foreign_keys();
    let mut new_indexes = Vec::new();
    let checks = s.foreign_key_checks();
    let def = crate::fk::define::read(s.engine(), db, table, &schema, f, &fks, &mut new_indexes, checks)?;
    crate::create::generated::check_foreign_keys(&schema, &t.generated(), std::slice::from_ref(&def))?;
    if s.foreign_key_checks() {
        crate::fk::define::check_existing_rows(s.engine(), &full, &schema, &def)?;
    }
    for ix in new_indexes {
        s.engine().create_index(&full, ix)?;
    }
    fks.push(def);
    s.engine().set_foreign_keys(&full, fks)?;
    s.shared.foreign_keys.rebuild(s.engine());
    Ok(())
}

pub fn truncate(s: &mut Session, t: &ast::Truncate) -> Result<Output> {
    for target in &t.table_names {
        let (db, table) = split_name(s, &target.name)?;
        check_access(s, &db)?;
        let full = s.table_key(&db, &table);
        let tab = s.engine().table(&full).map_err(|e| open_error(e, &db, &table))?;
        let schema = tab.schema();
        std::mem::drop(tab);
        if s.foreign_key_checks() {
            if let Some(fk) = s.shared.foreign_keys.referencing(&full).first() {
                // MySQL's and MariaDB's 1701, the parent always qualified.
                let (cdb, cname) = crate::fk::split(&fk.child);
                let cs = s.engine().table(&fk.child).map(|t| t.schema()).unwrap_or_else(|_| schema.clone());
                return Err(SqlError::new(
                    1701,
                    "42000",
                    format!(
                        "Cannot truncate a table referenced in a foreign key constraint (`{cdb}`.`{cname}`, {})",
                        crate::fk::define::constraint_sql(&fk.def, cdb, &cs, true, false)
                    ),
                ));
            }
        }
        // A new empty space swapped in by one catalog write (crash-atomic:
        // `engine/table/engine/rebuild.rs`); AUTO_INCREMENT starts at 1.
        s.engine().truncate_table(&full)?;
        crate::statistics::forget(&s.shared, &db, &table);
    }
    Ok(Output::ok())
}

pub fn drop(
    s: &mut Session,
    kind: ast::ObjectType,
    if_exists: bool,
    names: &[ast::ObjectName],
    table: Option<&ast::ObjectName>,
) -> Result<Output> {
    match kind {
        ast::ObjectType::Table => {
            let mut missing = Vec::new();
            for n in names {
                let (db, t) = split_name(s, n)?;
                check_access(s, &db).or_else(|e| if if_exists && e.code == 1049 { Ok(()) } else { Err(e) })?;
                // DROP TABLE drops the session's temporary table of that
                // name first, as MySQL.
                if let Some(engine_name) = s.temps.remove(&db, &t) {
                    s.engine().drop_table(&engine_name)?;
                    continue;
                }
                let full = format!("{db}/{t}");
                // A parent referenced by another table (not one dropped by
                // this statement) stays, as InnoDB's (MariaDB's short 1451).
                if s.foreign_key_checks()
                    && s.shared.foreign_keys.referencing(&full).iter().any(|f| {
                        !names.iter().any(|n| split_name(s, n).is_ok_and(|(d, x)| format!("{d}/{x}") == f.child))
                    })
                {
                    return Err(SqlError::new(
                        1451,
                        "23000",
                        "Cannot delete or update a parent row: a foreign key constraint fails",
                    ));
                }
                match s.engine().drop_table(&full) {
                    Ok(()) => {
                        crate::statistics::forget(&s.shared, &db, &t);
                        crate::trigger::ddl::table_dropped(s, &db, Some(&t))?;
                    }
                    Err(quire_engine::Error::NoSuchTable(_)) => missing.push(format!("{db}.{t}")),
                    Err(e) => return Err(e.into()),
                }
            }
            unknown_tables(s, &missing, if_exists)
        }
        ast::ObjectType::Database | ast::ObjectType::Schema => {
            let n = names.first().ok_or_else(|| SqlError::syntax("database name expected"))?;
            let db = n.to_string().trim_matches('`').to_string();
            if !s.shared.catalog.user(&s.user).is_some_and(|u| u.grants.contains("*") || u.grants.contains(&db)) {
                return Err(SqlError::new(
                    1044,
                    "42000",
                    format!("Access denied for user '{}'@'%' to database '{db}'", s.user),
                ));
            }
            let dropped = s.shared.catalog.drop_database(&db, if_exists)?;
            if dropped.is_some() {
                crate::trigger::ddl::table_dropped(s, &db, None)?;
                crate::stored::ddl::database_dropped(s, &db)?;
                crate::event::ddl::database_dropped(s, &db)?;
            }
            if dropped.is_none() {
                s.note(1008, format!("Can't drop database '{db}'; database doesn't exist"));
            }
            if dropped.is_some() && s.db.as_deref() == Some(db.as_str()) {
                s.db = None;
            }
            Ok(Output::Ok { affected: dropped.unwrap_or(0) as u64, last_insert_id: 0, info: String::new() })
        }
        ast::ObjectType::Index => {
            let t = table.ok_or_else(|| SqlError::syntax("DROP INDEX needs ON table"))?;
            let (db, tn) = split_name(s, t)?;
            check_access(s, &db)?;
            for n in names {
                let ix = n.to_string().trim_matches('`').to_string();
                let full = s.table_key(&db, &tn);
                crate::fk::define::check_index_drop(s.engine(), &s.shared.foreign_keys, &full, &ix)?;
                match s.engine().drop_index(&full, &ix) {
                    Err(quire_engine::Error::NoSuchIndex(_)) if if_exists => {
                        s.note(1091, format!("Can't DROP INDEX `{ix}`; check that it exists"));
                    }
                    other => other?,
                }
            }
            Ok(altered(s))
        }
        other => Err(SqlError::unsupported(format!("DROP {other}"))),
    }
}

fn like_filter(f: &Option<ast::ShowStatementFilter>) -> Box<dyn Fn(&str) -> bool> {
    match f {
        Some(ast::ShowStatementFilter::Like(p)) => {
            let p = p.clone();
            Box::new(move |s: &str| crate::expr::like(s, &p))
        }
        _ => Box::new(|_| true),
    }
}

/// SHOW [FULL] COLUMNS of view `db`.`v`: its information_schema.COLUMNS
/// rows (the view's columns, typed by its query) in SHOW's columns.
fn view_columns(s: &Session, db: &str, v: &str, full: bool) -> Result<Vec<Vec<Value>>> {
    let hint = crate::infoschema::Hint { schema: Some(vec![db.to_string()]), table: Some(vec![v.to_string()]) };
    let rows = crate::infoschema::rows(s, crate::infoschema::View::Columns, &hint)?;
    // COLUMNS: 3 COLUMN_NAME, 5 COLUMN_DEFAULT, 6 IS_NULLABLE, 14
    // COLLATION_NAME, 15 COLUMN_TYPE, 16 COLUMN_KEY, 17 EXTRA, 18
    // PRIVILEGES, 19 COLUMN_COMMENT (`infoschema/shape.rs`).
    let pick: &[usize] = if full { &[3, 15, 14, 6, 16, 5, 17, 18, 19] } else { &[3, 15, 6, 16, 5, 17] };
    Ok(rows.into_iter().map(|r| pick.iter().map(|&i| r[i].clone()).collect()).collect())
}

/// Result columns of the statements `show` answers (for PREPARE).
pub fn columns_of(stmt: &ast::Statement) -> Vec<ColMeta> {
    use ast::Statement as S;
    match stmt {
        S::ShowVariables { .. } | S::ShowStatus { .. } => text_columns(&["Variable_name", "Value"]),
        S::ShowDatabases { .. } => text_columns(&["Database"]),
        S::ShowCreate { .. } => text_columns(&["Table", "Create Table"]),
        S::ShowColumns { full: true, .. } => crate::create::options::full_columns_header(),
        S::ExplainTable { .. } | S::ShowColumns { .. } => {
            text_columns(&["Field", "Type", "Null", "Key", "Default", "Extra"])
        }
        _ => vec![],
    }
}

/// SHOW [GLOBAL] VARIABLES' rows (and performance_schema's
/// global_variables / session_variables).
pub(crate) fn variable_rows(s: &Session, global: bool) -> Vec<(String, String)> {
    let all = if global { s.shared.sysvars.all() } else { s.shared.sysvars.all_session(&s.vars) };
    let mut v: Vec<(String, String)> = all.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
    for (n, val) in v.iter_mut() {
        if n == "autocommit" && !global {
            *val = if s.autocommit() { "ON".into() } else { "OFF".into() };
        }
    }
    v
}

/// SHOW STATUS's rows (and performance_schema's global_status /
/// session_status).
pub(crate) fn status_rows(s: &Session) -> Vec<(String, String)> {
    use std::sync::atomic::Ordering::Relaxed;
    let st = &s.shared.stats;
    let e = s.engine();
    let txn = e.txn();
    let locks = &txn.locks.stats;
    let uptime = st.started.get().map_or(0, |t| t.elapsed().as_secs());
    let mut v = vec![
        ("Aborted_clients".to_string(), st.aborted_clients.load(Relaxed).to_string()),
        ("Aborted_connects".into(), st.aborted_connects.load(Relaxed).to_string()),
        ("Com_begin".into(), st.com_begin.load(Relaxed).to_string()),
        ("Com_commit".into(), st.com_commit.load(Relaxed).to_string()),
        ("Com_delete".into(), st.com_delete.load(Relaxed).to_string()),
        ("Com_insert".into(), st.com_insert.load(Relaxed).to_string()),
        ("Com_rollback".into(), st.com_rollback.load(Relaxed).to_string()),
        ("Com_select".into(), st.com_select.load(Relaxed).to_string()),
        ("Com_stmt_execute".into(), st.com_stmt_execute.load(Relaxed).to_string()),
        ("Com_stmt_prepare".into(), st.com_stmt_prepare.load(Relaxed).to_string()),
        ("Com_update".into(), st.com_update.load(Relaxed).to_string()),
        ("Connections".into(), st.connections.load(Relaxed).to_string()),
        ("Created_tmp_disk_tables".into(), st.created_tmp_disk_tables.load(Relaxed).to_string()),
        ("Created_tmp_files".into(), st.created_tmp_files.load(Relaxed).to_string()),
        ("Prepared_stmt_count".into(), st.prepared_stmt_count.load(Relaxed).to_string()),
        ("Innodb_history_list_length".into(), txn.history_len().to_string()),
        ("Innodb_purge_lag_waits".into(), txn.purge_lag_delays.get().to_string()),
        ("Innodb_purged_undo_logs".into(), txn.history.purged.get().to_string()),
        ("Innodb_row_lock_current_waits".into(), locks.current.load(Relaxed).to_string()),
        ("Innodb_row_lock_waits".into(), locks.waits.get().to_string()),
        ("Innodb_row_lock_time".into(), (locks.wait_us.get() / 1000).to_string()),
        ("Innodb_row_lock_time_avg".into(), (locks.wait_us.get() / 1000 / locks.waits.get().max(1)).to_string()),
        ("Innodb_row_lock_time_max".into(), (locks.max_wait_us.load(Relaxed) / 1000).to_string()),
        ("Innodb_deadlocks".into(), locks.deadlocks.get().to_string()),
        ("Qcache_hits".into(), "0".into()),
        ("Questions".into(), st.questions.load(Relaxed).to_string()),
        ("Slow_queries".into(), st.slow_queries.load(Relaxed).to_string()),
        ("Slave_retried_transactions".into(), st.replica_retried_transactions.load(Relaxed).to_string()),
        ("Quire_plan_cache_hits".into(), st.plan_cache_hits.load(Relaxed).to_string()),
        ("Sort_merge_passes".into(), st.sort_merge_passes.load(Relaxed).to_string()),
        ("Sort_rows".into(), st.sort_rows.load(Relaxed).to_string()),
        ("Threads_connected".into(), s.shared.processes.len().to_string()),
        ("Uptime".into(), uptime.to_string()),
    ];
    v.extend(crate::status::engine_status(e));
    v.extend(crate::status::table_status(e));
    v.extend(crate::status::session_status(s));
    if let Some(f) = s.shared.server_status.get() {
        v.extend(f());
    }
    v.sort();
    v
}

/// SHOW and DESCRIBE; `SHOW ... WHERE e` keeps the rows of the full
/// answer for which `e`, evaluated over the statement's own columns, is
/// true (as MySQL does; knex asks `SHOW FULL FIELDS FROM t WHERE field =
/// 'c'`).
pub fn show(s: &mut Session, stmt: &ast::Statement) -> Result<Output> {
    use ast::Statement as S;
    let filter = match stmt {
        S::ShowVariables { filter, .. } | S::ShowStatus { filter, .. } => filter.as_ref(),
        S::ShowDatabases { show_options, .. } | S::ShowColumns { show_options, .. } => {
            show_options.filter_position.as_ref().map(|f| match f {
                ast::ShowStatementFilterPosition::Infix(f) | ast::ShowStatementFilterPosition::Suffix(f) => f,
            })
        }
        _ => None,
    };
    let out = show_all(s, stmt)?;
    match (filter, out) {
        (Some(ast::ShowStatementFilter::Where(e)), Output::Rows { columns, rows }) => {
            let rows = where_rows(s, e, &columns, rows)?;
            Ok(Output::Rows { columns, rows })
        }
        (_, out) => Ok(out),
    }
}

/// The rows for which `e` is true, its column names being `columns`'.
fn where_rows(s: &Session, e: &ast::Expr, columns: &[ColMeta], rows: Vec<Vec<Value>>) -> Result<Vec<Vec<Value>>> {
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let mut scope =
        crate::expr::Scope { table: None, columns: &names, aggs: None, params: 0, place: "where clause", rel: None };
    let cond = crate::expr::compile(e, &mut scope)?;
    s.with_env(false, |env| {
        let mut kept = Vec::new();
        for r in rows {
            if crate::expr::truth(&crate::expr::eval(&cond, &r, env)?) == Some(true) {
                kept.push(r);
            }
        }
        Ok(kept)
    })
}

/// SHOW and DESCRIBE with every row (a LIKE applied, a WHERE not yet).
fn show_all(s: &mut Session, stmt: &ast::Statement) -> Result<Output> {
    use ast::Statement as S;
    let cols = columns_of(stmt);
    let pairs = |v: Vec<(String, String)>| -> Vec<Vec<Value>> {
        v.into_iter().map(|(a, b)| vec![Value::Str(a), Value::Str(b)]).collect()
    };
    match stmt {
        S::ShowVariables { filter, global, .. } => {
            let keep = like_filter(filter);
            let v = variable_rows(s, *global).into_iter().filter(|(n, _)| keep(n)).collect();
            Ok(Output::Rows { columns: cols, rows: pairs(v) })
        }
        S::ShowStatus { filter, .. } => {
            let keep = like_filter(filter);
            let v = status_rows(s).into_iter().filter(|(n, _)| keep(n)).collect();
            Ok(Output::Rows { columns: cols, rows: pairs(v) })
        }
        S::ShowDatabases { show_options, .. } => {
            let filter = show_options.filter_position.as_ref().map(|f| match f {
                ast::ShowStatementFilterPosition::Infix(f) | ast::ShowStatementFilterPosition::Suffix(f) => f.clone(),
            });
            let keep = like_filter(&filter);
            let u = s.shared.catalog.user(&s.user);
            let rows = s
                .shared
                .catalog
                .databases()
                .into_iter()
                .filter(|d| u.as_ref().is_some_and(|u| u.may_use(d)) && keep(d))
                .map(|d| vec![Value::Str(d)])
                .collect();
            let columns = match &filter {
                Some(ast::ShowStatementFilter::Like(p)) => text_columns(&[&format!("Database ({p})")]),
                _ => cols,
            };
            Ok(Output::Rows { columns, rows })
        }
        S::ShowCreate { obj_type: ast::ShowCreateObject::Table, obj_name } => {
            let (db, t) = split_name(s, obj_name)?;
            check_access(s, &db)?;
            if crate::catalog::is_dictionary(&db, &t) {
                return Err(crate::catalog::dictionary_denied(&t));
            }
            if s.temps.get(&db, &t).is_none() && s.shared.catalog.view(&db, &t).is_some() {
                // MySQL answers SHOW CREATE TABLE of a view as SHOW CREATE
                // VIEW (its four columns); mariadb-dump relies on it.
                return crate::view::show_create(s, obj_name);
            }
            let tab = s.engine().table(&s.table_key(&db, &t)).map_err(|e| open_error(e, &db, &t))?;
            let schema = tab.schema();
            let extras = tab.extras();
            let fks: Vec<String> = tab
                .foreign_keys()
                .iter()
                .map(|f| crate::fk::define::constraint_sql(f, &db, &schema, false, true))
                .chain(extras.checks.iter().map(crate::create::check::constraint_sql))
                .collect();
            let mut sql = ddl::create_table_sql_full(&t, &schema, tab.next_auto_increment(), &fks, &extras);
            if s.temps.get(&db, &t).is_some() {
                sql = sql.replacen("CREATE TABLE", "CREATE TEMPORARY TABLE", 1);
            }
            Ok(Output::Rows { columns: cols, rows: vec![vec![Value::Str(t), Value::Str(sql)]] })
        }
        S::ExplainTable { table_name, .. }
        | S::ShowColumns {
            show_options:
                ast::ShowStatementOptions {
                    show_in: Some(ast::ShowStatementIn { parent_name: Some(table_name), .. }), ..
                },
            ..
        } => {
            let filter = match stmt {
                S::ShowColumns { show_options, .. } => show_options.filter_position.as_ref().map(|f| match f {
                    ast::ShowStatementFilterPosition::Infix(f) | ast::ShowStatementFilterPosition::Suffix(f) => {
                        f.clone()
                    }
                }),
                _ => None,
            };
            let keep = like_filter(&filter);
            let (db, t) = split_name(s, table_name)?;
            check_access(s, &db)?;
            let full = matches!(stmt, S::ShowColumns { full: true, .. });
            if s.temps.get(&db, &t).is_none() && s.shared.catalog.view(&db, &t).is_some() {
                let rows = view_columns(s, &db, &t, full)?;
                let rows = rows.into_iter().filter(|r| matches!(&r[0], Value::Str(n) if keep(n))).collect();
                let columns = if full { crate::create::options::full_columns_header() } else { cols };
                return Ok(Output::Rows { columns, rows });
            }
            let (schema, extras) = match crate::infoschema::system_table(&db, &t) {
                Some(v) => (
                    quire_engine::row::TableSchema {
                        columns: crate::infoschema::shape::columns(v),
                        ..Default::default()
                    },
                    quire_engine::row::TableExtras::default(),
                ),
                None => {
                    let tab = s.engine().table(&s.table_key(&db, &t)).map_err(|e| open_error(e, &db, &t))?;
                    (tab.schema(), tab.extras())
                }
            };
            let rows = schema
                .visible_columns()
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let key = if schema.primary_key.contains(&i) {
                        "PRI"
                    } else if schema.indexes.iter().any(|x| x.unique && x.columns.first() == Some(&i)) {
                        "UNI"
                    } else if schema.indexes.iter().any(|x| x.columns.first() == Some(&i)) {
                        "MUL"
                    } else {
                        ""
                    };
                    vec![
                        Value::Str(c.name.clone()),
                        Value::Str(c.sql_type()),
                        Value::Str(if c.nullable { "YES" } else { "NO" }.into()),
                        Value::Str(key.into()),
                        if c.default_now {
                            Value::Str(crate::ddl::current_timestamp_sql(c.ty))
                        } else {
                            c.default
                                .as_ref()
                                .map_or(Value::Null, |d| Value::Str(crate::ddl::column_default_text(c, d)))
                        },
                        Value::Str(if let Some(g) = extras.generated_column(&c.name) {
                            crate::create::generated::extra(g).into()
                        } else if c.auto_increment {
                            "auto_increment".into()
                        } else if c.on_update_now {
                            format!("on update {}", crate::ddl::current_timestamp_sql(c.ty))
                        } else {
                            String::new()
                        }),
                    ]
                })
                .collect();
            let named = |r: &Vec<Value>| matches!(&r[0], Value::Str(n) if keep(n));
            if let S::ShowColumns { full: true, .. } = stmt {
                let rows = crate::create::options::full_columns(rows, &schema, &extras);
                let rows = rows.into_iter().filter(named).collect();
                return Ok(Output::Rows { columns: crate::create::options::full_columns_header(), rows });
            }
            Ok(Output::Rows { columns: cols, rows: rows.into_iter().filter(named).collect() })
        }
        other => Err(SqlError::unsupported(format!("{other}"))),
    }
}
