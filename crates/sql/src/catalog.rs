//! The server catalog above the engine's tables: databases, users and
//! their grants. Tables themselves are the engine's (named `db/table`);
//! this module keeps what MySQL keeps in the `mysql` schema, in three
//! engine tables of database `mysql`, so it is crash-safe like any row:
//!
//! - `mysql/quire_db`: `name` — one row per database (`mysql` itself is
//!   always there);
//! - `mysql/quire_user`: `name`, `native` (hex SHA1(SHA1(password)), ''
//!   for no password), `sha2` (hex SHA256(SHA256(password)));
//! - `mysql/quire_grant`: (`user`, `db`) — ALL PRIVILEGES on `db`, `*`
//!   meaning every database (`GRANT ALL ON *.*`);
//! - `mysql/quire_view`: (`db`, `name`, `part`, `text`) — a view's
//!   definition (`CREATE VIEW ... AS ...` as quire prints it) in chunks of
//!   at most [`VIEW_CHUNK`] characters, `part` zero-padded, written in one
//!   transaction;
//! - `mysql/quire_trigger`: triggers, the same way (`trigger::store`);
//! - `mysql/quire_routine`: stored procedures and functions, the same
//!   way (`stored::store`);
//! - `mysql/quire_event`: events, the same way (`event::store`).
//!
//! Users are matched by name; the host part of `'user'@'host'` is accepted
//! and ignored. Privileges are all or nothing per database.
//!
//! Concurrency: the in-memory copies are behind one `RwLock` each; DDL on
//! them is rare and serialised by `ddl`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use quire_engine::{Engine, Table};
use sha1::Digest;

use crate::error::{Result, SqlError};

const DB_TABLE: &str = "mysql/quire_db";
const USER_TABLE: &str = "mysql/quire_user";
const GRANT_TABLE: &str = "mysql/quire_grant";
const VIEW_TABLE: &str = "mysql/quire_view";
/// Characters of a view's definition per row of `quire_view`.
const VIEW_CHUNK: usize = 256;

/// quire's data dictionary: the catalog's own tables in `mysql`, read
/// and written by this module only. As MySQL 8.0's dictionary tables
/// they are not listed (SHOW TABLES, information_schema) and a statement
/// naming one is refused with 3554 ([`dictionary_denied`]), so that no
/// DDL, DML or restored dump can change accounts or views behind the
/// catalog's back.
const DICTIONARY: [&str; 7] =
    ["quire_db", "quire_user", "quire_grant", "quire_view", "quire_trigger", "quire_routine", "quire_event"];

/// Whether `db`.`table` is a data dictionary table.
pub fn is_dictionary(db: &str, table: &str) -> bool {
    db == "mysql" && DICTIONARY.contains(&table)
}

/// Whether `db`.`table` is one of quire's own tables in `mysql` that
/// listings leave out: the dictionary, and the persistent statistics
/// (`statistics::persist`), which statements may still read by name. A
/// dump (mariadb-dump `--all-databases` lists tables with SHOW TABLES)
/// then carries neither: quire's definitions would replace another
/// server's statistics tables (MariaDB then stops using persistent
/// statistics), and the dictionary's rows are quire's own encoding (views
/// are dumped as CREATE VIEW; accounts are not carried by a dump).
pub fn is_unlisted(db: &str, table: &str) -> bool {
    is_dictionary(db, table) || (db == "mysql" && matches!(table, "innodb_table_stats" | "innodb_index_stats"))
}

/// 3554, MySQL 8.0's answer to a statement naming a dictionary table.
pub fn dictionary_denied(table: &str) -> SqlError {
    SqlError::new(3554, "HY000", format!("Access to data dictionary table 'mysql.{table}' is rejected."))
}

/// Schemas the server answers for itself (no engine tables).
pub const VIRTUAL_DATABASES: [&str; 2] = ["information_schema", "performance_schema"];

/// A user's stored password hashes and grants.
#[derive(Clone, Debug, Default)]
pub struct User {
    pub name: String,
    pub native: Option<[u8; 20]>,
    pub sha2: Option<[u8; 32]>,
    /// Databases with ALL PRIVILEGES; `*` for all.
    pub grants: BTreeSet<String>,
}

/// The account the replica applier runs as (MySQL's "system user"): every
/// privilege, and a name no client can log in with (a NUL cannot appear
/// in the handshake's user name) nor create.
pub const SYSTEM_USER: &str = "\0system user";

/// The global privileges quire grants one by one (`GRANT REPLICATION
/// SLAVE ON *.*`); every other privilege is part of ALL. Stored as grant
/// entries `*.<privilege>`; GRANT ALL on a database whose name starts
/// with `*.` is refused (admin.rs), so the two never mix.
pub const NAMED_GLOBAL_PRIVILEGES: [&str; 3] = ["PROCESS", "REPLICATION SLAVE", "REPLICATION CLIENT"];

/// The grant entry of a named global privilege.
pub fn global_grant_entry(privilege: &str) -> String {
    format!("*.{privilege}")
}

impl User {
    /// Whether the user holds global `privilege` (one of
    /// [`NAMED_GLOBAL_PRIVILEGES`], or held through ALL on `*.*`).
    pub fn has_global(&self, privilege: &str) -> bool {
        self.grants.contains("*") || self.grants.contains(&global_grant_entry(privilege))
    }

    /// The named global privileges granted one by one, in MySQL's order.
    pub fn named_globals(&self) -> Vec<&'static str> {
        NAMED_GLOBAL_PRIVILEGES.into_iter().filter(|p| self.grants.contains(&global_grant_entry(p))).collect()
    }

    /// The databases with ALL PRIVILEGES (not `*`, not global entries).
    pub fn schema_grants(&self) -> impl Iterator<Item = &String> {
        self.grants.iter().filter(|d| *d != "*" && !d.starts_with("*."))
    }

    pub fn may_use(&self, db: &str) -> bool {
        self.grants.contains("*")
            || self.grants.contains(db)
            || VIRTUAL_DATABASES.iter().any(|v| v.eq_ignore_ascii_case(db))
    }
}

pub struct Catalog {
    engine: Arc<Engine>,
    dbs: RwLock<BTreeSet<String>>,
    users: RwLock<BTreeMap<String, User>>,
    /// Views by (database, name): their definitions.
    views: RwLock<BTreeMap<(String, String), String>>,
    /// Triggers (`trigger` module; stored in `mysql/quire_trigger`).
    pub triggers: crate::trigger::Registry,
    /// Stored procedures and functions (`stored` module; stored in
    /// `mysql/quire_routine`). Shared with the compiling thread
    /// (`stored::func::CompileScope`).
    pub routines: Arc<crate::stored::Registry>,
    /// Events (`event` module; stored in `mysql/quire_event`).
    pub events: crate::event::Registry,
    ddl: Mutex<()>,
}

/// (SHA1(SHA1(pw)), SHA256(SHA256(pw))), `None` for an empty password.
pub fn password_hashes(password: &str) -> (Option<[u8; 20]>, Option<[u8; 32]>) {
    if password.is_empty() {
        return (None, None);
    }
    let s1: [u8; 20] = sha1::Sha1::digest(password.as_bytes()).into();
    let s2: [u8; 20] = sha1::Sha1::digest(s1).into();
    let h1: [u8; 32] = sha2::Sha256::digest(password.as_bytes()).into();
    let h2: [u8; 32] = sha2::Sha256::digest(h1).into();
    (Some(s2), Some(h2))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

fn varchar(name: &str, len: u32) -> Column {
    Column::new(name, ColumnType::Varchar { len }).not_null()
}

fn text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Catalog {
    /// Opens the catalog, creating it on first start with user `root`
    /// (password `root_password`, or a generated one, returned so that the
    /// caller prints it once).
    pub fn open(engine: Arc<Engine>, root_password: Option<&str>) -> Result<(Catalog, Option<String>)> {
        let mut generated = None;
        let names = engine.table_names();
        if !names.iter().any(|n| n == DB_TABLE) {
            let db = engine.create_table(
                DB_TABLE,
                TableSchema {
                    columns: vec![varchar("name", 64)],
                    primary_key: vec![0],
                    indexes: vec![],
                    ..Default::default()
                },
            )?;
            db.insert(vec![Value::Str("mysql".into())])?;
        }
        if !names.iter().any(|n| n == GRANT_TABLE) {
            engine.create_table(
                GRANT_TABLE,
                TableSchema {
                    columns: vec![varchar("user", 80), varchar("db", 64)],
                    primary_key: vec![0, 1],
                    indexes: vec![],
                    ..Default::default()
                },
            )?;
        }
        if !names.iter().any(|n| n == VIEW_TABLE) {
            engine.create_table(
                VIEW_TABLE,
                TableSchema {
                    columns: vec![
                        varchar("db", 64),
                        varchar("name", 64),
                        varchar("part", 8),
                        varchar("text", VIEW_CHUNK as u32),
                    ],
                    primary_key: vec![0, 1, 2],
                    indexes: vec![],
                    ..Default::default()
                },
            )?;
        }
        if !names.iter().any(|n| n == USER_TABLE) {
            let users = engine.create_table(
                USER_TABLE,
                TableSchema {
                    columns: vec![varchar("name", 80), varchar("native", 40), varchar("sha2", 64)],
                    primary_key: vec![0],
                    indexes: vec![],
                    ..Default::default()
                },
            )?;
            let pw = match root_password {
                Some(p) => p.to_string(),
                None => {
                    use rand::Rng;
                    let mut rng = rand::thread_rng();
                    let p: String = (0..16).map(|_| rng.sample(rand::distributions::Alphanumeric) as char).collect();
                    generated = Some(p.clone());
                    p
                }
            };
            let (n, s) = password_hashes(&pw);
            users.insert(vec![
                Value::Str("root".into()),
                Value::Str(n.map(|h| hex(&h)).unwrap_or_default()),
                Value::Str(s.map(|h| hex(&h)).unwrap_or_default()),
            ])?;
            engine.table(GRANT_TABLE)?.insert(vec![Value::Str("root".into()), Value::Str("*".into())])?;
        }
        let cat = Catalog {
            engine,
            dbs: Default::default(),
            users: Default::default(),
            views: Default::default(),
            triggers: Default::default(),
            routines: Default::default(),
            events: Default::default(),
            ddl: Mutex::new(()),
        };
        cat.reload()?;
        // Triggers of tables that no longer exist (a crash between DROP
        // TABLE and the removal of its triggers) are not loaded.
        let tables = cat.engine.table_names();
        let defs = crate::trigger::store::open(&cat.engine)?;
        let (live, orphans): (Vec<_>, Vec<_>) =
            defs.into_iter().partition(|d| tables.iter().any(|t| *t == format!("{}/{}", d.db, d.table)));
        if !orphans.is_empty() {
            crate::trigger::store::write(&cat.engine, &orphans.iter().collect::<Vec<_>>(), &[])?;
        }
        cat.triggers.replace_all(live);
        cat.routines.replace_all(crate::stored::store::open(&cat.engine)?);
        cat.events.replace_all(crate::event::store::open(&cat.engine)?);
        Ok((cat, generated))
    }

    fn table(&self, name: &str) -> Result<Arc<Table>> {
        Ok(self.engine.table(name)?)
    }

    fn all_rows(&self, name: &str) -> Result<Vec<Vec<Value>>> {
        let t = self.table(name)?;
        let mut c = t.scan(
            quire_engine::table::IndexRef::Primary,
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            quire_engine::btree::Direction::Forward,
        )?;
        Ok(c.collect_all()?)
    }

    fn reload(&self) -> Result<()> {
        let mut dbs: BTreeSet<String> = self.all_rows(DB_TABLE)?.iter().map(|r| text(&r[0])).collect();
        // Databases named by existing tables exist too.
        for t in self.engine.table_names() {
            if let Some((db, _)) = t.split_once('/') {
                dbs.insert(db.to_string());
            }
        }
        let mut users = BTreeMap::new();
        for r in self.all_rows(USER_TABLE)? {
            let name = text(&r[0]);
            let u = User {
                name: name.clone(),
                native: unhex::<20>(&text(&r[1])),
                sha2: unhex::<32>(&text(&r[2])),
                grants: BTreeSet::new(),
            };
            users.insert(name, u);
        }
        for r in self.all_rows(GRANT_TABLE)? {
            if let Some(u) = users.get_mut(&text(&r[0])) {
                u.grants.insert(text(&r[1]));
            }
        }
        let mut views: BTreeMap<(String, String), String> = BTreeMap::new();
        for r in self.all_rows(VIEW_TABLE)? {
            views.entry((text(&r[0]), text(&r[1]))).or_default().push_str(&text(&r[3]));
        }
        *self.dbs.write() = dbs;
        *self.users.write() = users;
        *self.views.write() = views;
        Ok(())
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    pub fn database_exists(&self, db: &str) -> bool {
        self.dbs.read().contains(db) || VIRTUAL_DATABASES.iter().any(|v| v.eq_ignore_ascii_case(db))
    }

    /// Every database, the virtual ones included, sorted.
    pub fn databases(&self) -> Vec<String> {
        let mut v: Vec<String> = self.dbs.read().iter().cloned().collect();
        v.extend(VIRTUAL_DATABASES.iter().map(|s| s.to_string()));
        v.sort();
        v
    }

    /// CREATE DATABASE; `Ok(false)` if it existed and `if_not_exists`.
    pub fn create_database(&self, db: &str, if_not_exists: bool) -> Result<bool> {
        let _g = self.ddl.lock();
        if self.database_exists(db) {
            return if if_not_exists {
                Ok(false)
            } else {
                Err(SqlError::new(1007, "HY000", format!("Can't create database '{db}'; database exists")))
            };
        }
        check_name(db)?;
        self.table(DB_TABLE)?.insert(vec![Value::Str(db.to_string())])?;
        self.dbs.write().insert(db.to_string());
        Ok(true)
    }

    /// DROP DATABASE: its tables, then the database. Returns the number of
    /// tables dropped (`None`: it did not exist and `if_exists`).
    pub fn drop_database(&self, db: &str, if_exists: bool) -> Result<Option<usize>> {
        let _g = self.ddl.lock();
        if !self.dbs.read().contains(db) {
            return if if_exists {
                Ok(None)
            } else {
                Err(SqlError::new(1008, "HY000", format!("Can't drop database '{db}'; database doesn't exist")))
            };
        }
        if db == "mysql" {
            return Err(SqlError::new(1044, "42000", "Access denied: the 'mysql' database holds the catalog"));
        }
        let prefix = format!("{db}/");
        let tables: Vec<String> = self.engine.table_names().into_iter().filter(|t| t.starts_with(&prefix)).collect();
        for t in &tables {
            self.engine.drop_table(t)?;
            if let Some((d, n)) = t.split_once('/') {
                if let Err(e) = crate::statistics::persist::delete(&self.engine, d, n) {
                    tracing::warn!("deleting the statistics of {d}.{n}: {}", e.message);
                }
            }
        }
        let views: Vec<String> = self.views_in(db);
        for v in &views {
            self.remove_view(db, v)?;
        }
        self.table(DB_TABLE)?.delete(&[Value::Str(db.to_string())])?;
        self.dbs.write().remove(db);
        Ok(Some(tables.len()))
    }

    /// A view's definition (`CREATE VIEW ... AS ...`).
    pub fn view(&self, db: &str, name: &str) -> Option<String> {
        self.views.read().get(&(db.to_string(), name.to_string())).cloned()
    }

    /// The views of a database, sorted.
    pub fn views_in(&self, db: &str) -> Vec<String> {
        self.views.read().keys().filter(|(d, _)| d == db).map(|(_, n)| n.clone()).collect()
    }

    /// CREATE [OR REPLACE] VIEW: 1050 when a table, or (without
    /// `or_replace`) a view, has the name.
    pub fn create_view(&self, db: &str, name: &str, definition: &str, or_replace: bool) -> Result<()> {
        let _g = self.ddl.lock();
        let exists = || SqlError::new(1050, "42S01", format!("Table '{name}' already exists"));
        if self.engine.table(&format!("{db}/{name}")).is_ok() {
            return Err(exists());
        }
        if self.view(db, name).is_some() {
            if !or_replace {
                return Err(exists());
            }
            self.remove_view(db, name)?;
        }
        let t = self.table(VIEW_TABLE)?;
        let mut trx = self.engine.begin(quire_engine::txn::Isolation::RepeatableRead);
        let chars: Vec<char> = definition.chars().collect();
        for (i, chunk) in chars.chunks(VIEW_CHUNK).enumerate() {
            let row = vec![
                Value::Str(db.to_string()),
                Value::Str(name.to_string()),
                Value::Str(format!("{i:08}")),
                Value::Str(chunk.iter().collect()),
            ];
            t.insert_tx(&mut trx, row)?;
        }
        trx.commit()?;
        self.views.write().insert((db.to_string(), name.to_string()), definition.to_string());
        Ok(())
    }

    /// DROP VIEW of one view; `Ok(false)` when there is none.
    pub fn drop_view(&self, db: &str, name: &str) -> Result<bool> {
        let _g = self.ddl.lock();
        if self.view(db, name).is_none() {
            return Ok(false);
        }
        self.remove_view(db, name)?;
        Ok(true)
    }

    /// Deletes a view's rows in one transaction (caller holds `ddl`).
    fn remove_view(&self, db: &str, name: &str) -> Result<()> {
        let Some(def) = self.view(db, name) else { return Ok(()) };
        let t = self.table(VIEW_TABLE)?;
        let mut trx = self.engine.begin(quire_engine::txn::Isolation::RepeatableRead);
        for i in 0..def.chars().count().div_ceil(VIEW_CHUNK).max(1) {
            let pk = [Value::Str(db.to_string()), Value::Str(name.to_string()), Value::Str(format!("{i:08}"))];
            t.delete_tx(&mut trx, &pk)?;
        }
        trx.commit()?;
        self.views.write().remove(&(db.to_string(), name.to_string()));
        Ok(())
    }

    pub fn user(&self, name: &str) -> Option<User> {
        if name == SYSTEM_USER {
            return Some(User {
                name: name.to_string(),
                native: None,
                sha2: None,
                grants: std::iter::once("*".to_string()).collect(),
            });
        }
        self.users.read().get(name).cloned()
    }

    pub fn user_names(&self) -> Vec<String> {
        self.users.read().keys().cloned().collect()
    }

    /// CREATE USER; `Ok(false)` if it existed and `if_not_exists`.
    pub fn create_user(&self, name: &str, password: &str, if_not_exists: bool) -> Result<bool> {
        let _g = self.ddl.lock();
        if self.users.read().contains_key(name) {
            return if if_not_exists {
                Ok(false)
            } else {
                Err(SqlError::new(1396, "HY000", format!("Operation CREATE USER failed for '{name}'@'%'")))
            };
        }
        let (n, s) = password_hashes(password);
        self.table(USER_TABLE)?.insert(vec![
            Value::Str(name.to_string()),
            Value::Str(n.map(|h| hex(&h)).unwrap_or_default()),
            Value::Str(s.map(|h| hex(&h)).unwrap_or_default()),
        ])?;
        self.users
            .write()
            .insert(name.to_string(), User { name: name.to_string(), native: n, sha2: s, grants: BTreeSet::new() });
        Ok(true)
    }

    /// ALTER USER ... IDENTIFIED BY / SET PASSWORD.
    pub fn set_password(&self, name: &str, password: &str) -> Result<()> {
        let _g = self.ddl.lock();
        if !self.users.read().contains_key(name) {
            return Err(SqlError::new(1396, "HY000", format!("Operation ALTER USER failed for '{name}'@'%'")));
        }
        let (n, s) = password_hashes(password);
        self.table(USER_TABLE)?.update(
            &[Value::Str(name.to_string())],
            vec![
                Value::Str(name.to_string()),
                Value::Str(n.map(|h| hex(&h)).unwrap_or_default()),
                Value::Str(s.map(|h| hex(&h)).unwrap_or_default()),
            ],
        )?;
        if let Some(u) = self.users.write().get_mut(name) {
            u.native = n;
            u.sha2 = s;
        }
        Ok(())
    }

    /// DROP USER with its grants; `Ok(false)` if absent and `if_exists`.
    pub fn drop_user(&self, name: &str, if_exists: bool) -> Result<bool> {
        let _g = self.ddl.lock();
        let Some(u) = self.users.read().get(name).cloned() else {
            return if if_exists {
                Ok(false)
            } else {
                Err(SqlError::new(1396, "HY000", format!("Operation DROP USER failed for '{name}'@'%'")))
            };
        };
        let grants = self.table(GRANT_TABLE)?;
        for db in &u.grants {
            grants.delete(&[Value::Str(name.to_string()), Value::Str(db.clone())])?;
        }
        self.table(USER_TABLE)?.delete(&[Value::Str(name.to_string())])?;
        self.users.write().remove(name);
        Ok(true)
    }

    /// GRANT ALL ON `db`.* (or `*` for *.*) TO user.
    pub fn grant(&self, name: &str, db: &str) -> Result<()> {
        let _g = self.ddl.lock();
        if !self.users.read().contains_key(name) {
            return Err(SqlError::new(
                1133,
                "28000",
                format!("Can't find any matching row in the user table for '{name}'"),
            ));
        }
        if self.users.read().get(name).is_some_and(|u| u.grants.contains(db)) {
            return Ok(());
        }
        self.table(GRANT_TABLE)?.insert(vec![Value::Str(name.to_string()), Value::Str(db.to_string())])?;
        if let Some(u) = self.users.write().get_mut(name) {
            u.grants.insert(db.to_string());
        }
        Ok(())
    }

    /// REVOKE ALL ON `db`.* (or `*`) FROM user.
    pub fn revoke(&self, name: &str, db: &str) -> Result<()> {
        let _g = self.ddl.lock();
        if !self.users.read().get(name).is_some_and(|u| u.grants.contains(db)) {
            return Err(SqlError::new(
                1141,
                "42000",
                format!("There is no such grant defined for user '{name}' on host '%'"),
            ));
        }
        self.table(GRANT_TABLE)?.delete(&[Value::Str(name.to_string()), Value::Str(db.to_string())])?;
        if let Some(u) = self.users.write().get_mut(name) {
            u.grants.remove(db);
        }
        Ok(())
    }
}

/// Database names: 1..=64 characters, no `/` (the engine's separator) and
/// no NUL; 1102 ER_WRONG_DB_NAME otherwise.
pub fn check_name(name: &str) -> Result<()> {
    if !valid_name(name) {
        return Err(SqlError::new(1102, "42000", format!("Incorrect database name '{name}'")));
    }
    Ok(())
}

/// Table names: as database names, 1103 ER_WRONG_TABLE_NAME otherwise.
pub fn check_table_name(name: &str) -> Result<()> {
    if !valid_name(name) {
        return Err(SqlError::new(1103, "42000", format!("Incorrect table name '{name}'")));
    }
    Ok(())
}

/// Column and index names: at most 64 characters (1059
/// ER_TOO_LONG_IDENT, as MySQL).
pub fn check_identifier(name: &str) -> Result<()> {
    if name.chars().count() > 64 {
        return Err(SqlError::new(1059, "42000", format!("Identifier name '{name}' is too long")));
    }
    Ok(())
}

fn valid_name(name: &str) -> bool {
    !(name.is_empty() || name.chars().count() > 64 || name.contains(['/', '\0', '\\']) || name.ends_with(' '))
}
