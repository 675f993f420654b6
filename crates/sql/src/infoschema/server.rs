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

/// MySQL 8.0's static privileges as SHOW PRIVILEGES lists them
/// (Privilege, Context, Comment), in its order (sql_show.cc). MariaDB's
/// rows have the same columns; where both have a privilege the context
/// and comment agree, except Super's comment (MariaDB: CHANGE MASTER).
const MYSQL_PRIVILEGES: [(&str, &str, &str); 33] = [
    ("Alter", "Tables", "To alter the table"),
    ("Alter routine", "Functions,Procedures", "To alter or drop stored functions/procedures"),
    ("Create", "Databases,Tables,Indexes", "To create new databases and tables"),
    ("Create routine", "Databases", "To use CREATE FUNCTION/PROCEDURE"),
    ("Create role", "Server Admin", "To create new roles"),
    ("Create temporary tables", "Databases", "To use CREATE TEMPORARY TABLE"),
    ("Create view", "Tables", "To create new views"),
    ("Create user", "Server Admin", "To create new users"),
    ("Delete", "Tables", "To delete existing rows"),
    ("Drop", "Databases,Tables", "To drop databases, tables, and views"),
    ("Drop role", "Server Admin", "To drop roles"),
    ("Event", "Server Admin", "To create, alter, drop and execute events"),
    ("Execute", "Functions,Procedures", "To execute stored routines"),
    ("File", "File access on server", "To read and write files on the server"),
    ("Grant option", "Databases,Tables,Functions,Procedures", "To give to other users those privileges you possess"),
    ("Index", "Tables", "To create or drop indexes"),
    ("Insert", "Tables", "To insert data into tables"),
    ("Lock tables", "Databases", "To use LOCK TABLES (together with SELECT privilege)"),
    ("Process", "Server Admin", "To view the plain text of currently executing queries"),
    ("Proxy", "Server Admin", "To make proxy user possible"),
    ("References", "Databases,Tables", "To have references on tables"),
    ("Reload", "Server Admin", "To reload or refresh tables, logs and privileges"),
    ("Replication client", "Server Admin", "To ask where the slave or master servers are"),
    ("Replication slave", "Server Admin", "To read binary log events from the master"),
    ("Select", "Tables", "To retrieve rows from table"),
    ("Show databases", "Server Admin", "To see all databases with SHOW DATABASES"),
    ("Show view", "Tables", "To see views with SHOW CREATE VIEW"),
    ("Shutdown", "Server Admin", "To shut down the server"),
    ("Super", "Server Admin", "To use KILL thread, SET GLOBAL, CHANGE REPLICATION SOURCE, etc."),
    ("Trigger", "Tables", "To use triggers"),
    ("Create tablespace", "Server Admin", "To create/alter/drop tablespaces"),
    ("Update", "Tables", "To update existing rows"),
    ("Usage", "Server Admin", "No privileges - allow connect only"),
];

/// SHOW PRIVILEGES' rows: MySQL 8.0's rows of the privileges a quire
/// account can hold, which are those ALL PRIVILEGES on `*.*` gives
/// ([`GLOBAL_PRIVILEGES`], as USER_PRIVILEGES lists them), GRANT OPTION
/// (which ALL on `*.*` carries: IS_GRANTABLE YES) and USAGE (an account
/// with no grant). MySQL's Create role, Drop role and Proxy are left
/// out (quire has no roles and no proxy users), and so are its dynamic
/// privileges (none can be granted in quire).
pub fn show_privileges() -> Vec<Vec<Value>> {
    MYSQL_PRIVILEGES
        .iter()
        .filter(|(name, _, _)| {
            let upper = name.to_ascii_uppercase();
            GLOBAL_PRIVILEGES.contains(&upper.as_str()) || upper == "GRANT OPTION" || upper == "USAGE"
        })
        .map(|(name, context, comment)| vec![s(name), s(context), s(comment)])
        .collect()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_privileges_lists_every_privilege_all_gives() {
        let rows = show_privileges();
        for p in GLOBAL_PRIVILEGES {
            assert!(rows.iter().any(|r| matches!(&r[0], Value::Str(n) if n.eq_ignore_ascii_case(p))), "{p}");
        }
        assert_eq!(rows.len(), GLOBAL_PRIVILEGES.len() + 2, "and Grant option, Usage");
    }
}
