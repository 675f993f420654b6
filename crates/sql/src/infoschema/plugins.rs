//! PLUGINS (and SHOW PLUGINS, its view): what quire has built in, named
//! and described as MySQL 8.0 names the plugin that does the same job,
//! in MySQL 8.0's order of registration. Nothing is loadable (no INSTALL
//! PLUGIN, no library): every row is ACTIVE, built in (PLUGIN_LIBRARY
//! NULL), GPL.
//!
//! The list is what quire really does, and nothing else:
//! - `binlog`: the binary log (`crate::binlog`), listed whether
//!   `log_bin` is on or not, as MySQL lists its pseudo engine;
//! - the authentication methods the handshake verifies
//!   (`crate::password`: `mysql_native_password`, `caching_sha2_password`);
//! - `InnoDB`, the engine every table is in (ENGINES' one row);
//! - the InnoDB information_schema tables quire answers (MySQL's
//!   INFORMATION SCHEMA plugins): those of `infoschema::ALL` that need
//!   PROCESS, each described as MySQL describes it;
//! - `PERFORMANCE_SCHEMA` (`crate::perfschema`), MySQL's pseudo engine
//!   for that database.
//!
//! MySQL's other built-ins (sha256_password, CSV, MEMORY, MyISAM,
//! TempTable, ngram, mysqlx ...) are absent: quire has none of them.

use quire_engine::row::Value;

use super::{s, View};

/// MySQL's interface versions: a storage engine's and an
/// information_schema table's are the server version (8.0.36:
/// `MYSQL_VERSION_ID << 8` printed as `80036.0`), an authentication
/// plugin's `MYSQL_AUTHENTICATION_INTERFACE_VERSION` 0x0201.
const SERVER_INTERFACE: &str = "80036.0";
const AUTH_INTERFACE: &str = "2.1";
/// InnoDB's plugin version in MySQL 8.0 (major.minor of the server).
const INNODB_VERSION: &str = "8.0";
const ORACLE: &str = "Oracle Corporation";

/// One plugin: (name, version, type, type version, author, description,
/// load option).
type Plugin = (&'static str, &'static str, &'static str, &'static str, &'static str, &'static str, &'static str);

const ENGINE: &str = "STORAGE ENGINE";

/// The built-ins before InnoDB's tables, in MySQL's order.
const FIRST: [Plugin; 4] = [
    (
        "binlog",
        "1.0",
        ENGINE,
        SERVER_INTERFACE,
        ORACLE,
        "This is a pseudo storage engine to represent the binlog in a transaction",
        "FORCE",
    ),
    ("mysql_native_password", "1.1", "AUTHENTICATION", AUTH_INTERFACE, ORACLE, "Native MySQL authentication", "FORCE"),
    ("caching_sha2_password", "1.0", "AUTHENTICATION", AUTH_INTERFACE, ORACLE, "Caching sha2 authentication", "FORCE"),
    (
        "InnoDB",
        INNODB_VERSION,
        ENGINE,
        SERVER_INTERFACE,
        ORACLE,
        "Supports transactions, row-level locking, and foreign keys",
        "FORCE",
    ),
];

/// The built-ins after InnoDB's tables.
const LAST: [Plugin; 1] =
    [("PERFORMANCE_SCHEMA", "0.1", ENGINE, SERVER_INTERFACE, "Marc Alff, Oracle", "Performance Schema", "FORCE")];

/// MySQL 8.0's registration order of the InnoDB information_schema
/// plugins quire has, with their descriptions (storage/innobase/handler/
/// i_s.cc). A table missing here would be left out of PLUGINS: the unit
/// test below keeps the two lists equal.
const INNODB_TABLES: [(View, &str); 8] = [
    (View::InnodbTrx, "InnoDB transactions"),
    (View::InnodbCmp, "Statistics for the InnoDB compression"),
    (View::InnodbCmpmem, "Statistics for the InnoDB compressed buffer pool"),
    (View::InnodbBufferPoolStats, "InnoDB Buffer Pool Statistics Information "),
    (View::InnodbMetrics, "InnoDB Metrics Info"),
    (View::InnodbTables, "InnoDB INNODB_TABLES"),
    (View::InnodbIndexes, "InnoDB INNODB_INDEXES"),
    (View::InnodbColumns, "InnoDB INNODB_COLUMNS"),
];

fn row(p: &Plugin) -> Vec<Value> {
    let (name, version, kind, kind_version, author, description, load) = *p;
    vec![
        s(name),
        s(version),
        s("ACTIVE"),
        s(kind),
        s(kind_version),
        Value::Null,
        Value::Null,
        s(author),
        s(description),
        s("GPL"),
        s(load),
    ]
}

pub(super) fn rows() -> Vec<Vec<Value>> {
    let innodb = INNODB_TABLES.iter().map(|&(v, description)| {
        (v.name(), INNODB_VERSION, "INFORMATION SCHEMA", SERVER_INTERFACE, ORACLE, description, "ON")
    });
    FIRST.iter().copied().chain(innodb).chain(LAST.iter().copied()).map(|p| row(&p)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::ALL;
    use super::*;

    #[test]
    fn every_innodb_table_quire_answers_is_a_plugin() {
        let answered: Vec<View> = ALL.iter().map(|(v, _)| *v).filter(|v| v.needs_process()).collect();
        let listed: Vec<View> = INNODB_TABLES.iter().map(|(v, _)| *v).collect();
        assert_eq!(answered.len(), listed.len(), "{answered:?} / {listed:?}");
        assert!(answered.iter().all(|v| listed.contains(v)), "{answered:?} / {listed:?}");
    }

    #[test]
    fn rows_have_the_eleven_columns() {
        let rows = rows();
        assert!(rows.iter().all(|r| r.len() == super::super::shape::columns(View::Plugins).len()));
        assert_eq!(rows.len(), FIRST.len() + INNODB_TABLES.len() + LAST.len());
    }
}
