//! The server's fixed facts and live state: ENGINES, CHARACTER_SETS,
//! COLLATIONS, COLLATION_CHARACTER_SET_APPLICABILITY (what quire really
//! has: InnoDB, and the collations of `engine::row::collation`),
//! PROCESSLIST (the process list SHOW PROCESSLIST reads) and
//! USER_PRIVILEGES / SCHEMA_PRIVILEGES (the catalog's grants, which are
//! ALL PRIVILEGES on a database or on `*.*`). SHOW ENGINES, SHOW CHARACTER
//! SET and SHOW COLLATION answer from the same functions.

use quire_engine::row::collation::ALL as COLLATIONS;
use quire_engine::row::Value;

use super::s;
use crate::session::Session;

/// (Engine, Support, Comment, Transactions, XA, Savepoints)
pub const ENGINE_ROW: [&str; 6] =
    ["InnoDB", "DEFAULT", "quire's transactional engine (InnoDB-compatible)", "YES", "NO", "YES"];

pub fn engines() -> Vec<Vec<Value>> {
    vec![ENGINE_ROW.iter().map(|x| s(x)).collect()]
}

/// (name, description, default collation, bytes per character).
const CHARSETS: [(&str, &str, &str, i64); 2] =
    [("latin1", "cp1252 West European", "latin1_swedish_ci", 1), ("utf8mb4", "UTF-8 Unicode", "utf8mb4_general_ci", 4)];

/// CHARACTER_SETS' rows (name, default collation, description, maxlen).
pub fn character_sets() -> Vec<Vec<Value>> {
    CHARSETS.iter().map(|(cs, desc, coll, len)| vec![s(cs), s(coll), s(desc), Value::Int(*len)]).collect()
}

/// SHOW CHARACTER SET's rows (Charset, Description, Default collation, Maxlen).
pub fn show_character_sets() -> Vec<Vec<Value>> {
    CHARSETS.iter().map(|(cs, desc, coll, len)| vec![s(cs), s(desc), s(coll), Value::Int(*len)]).collect()
}

/// Sortlen as MariaDB reports it: 8 for the UCA collations, else 1.
fn sortlen(name: &str) -> i64 {
    if name.contains("unicode") || name.contains("0900") {
        8
    } else {
        1
    }
}

/// COLLATIONS' rows.
pub fn collations() -> Vec<Vec<Value>> {
    COLLATIONS
        .iter()
        .map(|c| {
            vec![
                s(c.name()),
                s(c.charset()),
                Value::Int(c.id().into()),
                s(if c.is_default() { "Yes" } else { "" }),
                s("Yes"),
                Value::Int(sortlen(c.name())),
                s(if c.name().contains("0900") { "NO PAD" } else { "PAD SPACE" }),
            ]
        })
        .collect()
}

/// SHOW COLLATION's rows (COLLATIONS' without PAD_ATTRIBUTE).
pub fn show_collations() -> Vec<Vec<Value>> {
    collations()
        .into_iter()
        .map(|mut r| {
            r.truncate(6);
            r
        })
        .collect()
}

pub fn applicability() -> Vec<Vec<Value>> {
    COLLATIONS.iter().map(|c| vec![s(c.name()), s(c.charset())]).collect()
}

pub fn processlist(sess: &Session) -> Vec<Vec<Value>> {
    crate::kill::processlist_rows(sess, true)
}

/// What ALL PRIVILEGES on `*.*` is, in MySQL's order.
const GLOBAL_PRIVILEGES: [&str; 28] = [
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "REPLICATION CLIENT",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
];

/// What ALL PRIVILEGES on `db`.* is.
const SCHEMA_PRIVILEGES: [&str; 18] = [
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "EVENT",
    "TRIGGER",
];

/// The users whose grants `sess`'s user may see: all for an
/// administrator (ALL on `*.*`), else itself.
fn visible_users(sess: &Session) -> Vec<crate::catalog::User> {
    let cat = &sess.shared.catalog;
    let admin = cat.user(&sess.user).is_some_and(|u| u.grants.contains("*"));
    cat.user_names().into_iter().filter(|n| admin || *n == sess.user).filter_map(|n| cat.user(&n)).collect()
}

fn grantee(user: &str) -> Value {
    Value::Str(format!("'{user}'@'%'"))
}

pub fn user_privileges(sess: &Session) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for u in visible_users(sess) {
        if u.grants.contains("*") {
            for p in GLOBAL_PRIVILEGES {
                out.push(vec![grantee(&u.name), s("def"), s(p), s("YES")]);
            }
        } else if u.named_globals().is_empty() {
            out.push(vec![grantee(&u.name), s("def"), s("USAGE"), s("NO")]);
        } else {
            for p in u.named_globals() {
                out.push(vec![grantee(&u.name), s("def"), s(p), s("NO")]);
            }
        }
    }
    out
}

pub fn schema_privileges(sess: &Session) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for u in visible_users(sess) {
        for db in u.schema_grants() {
            for p in SCHEMA_PRIVILEGES {
                out.push(vec![grantee(&u.name), s("def"), s(db), s(p), s("NO")]);
            }
        }
    }
    out
}
