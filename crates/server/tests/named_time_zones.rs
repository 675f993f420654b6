//! Named time zones beside MariaDB, whose time zone tables the test loads
//! with `mariadb-tzinfo-to-sql` from the same system zoneinfo files quire
//! reads: `SET time_zone = 'Europe/Paris'`, TIMESTAMP columns stored and
//! shown across the spring gap and the autumn overlap, CONVERT_TZ,
//! UNIX_TIMESTAMP and FROM_UNIXTIME around the changes, and unknown names
//! (1298).

mod oracle;

use std::process::Command;

use mysql::prelude::Queryable;
use oracle::{assert_same_diagnostics, MariaDb, Quire};

const ZONES: &[&str] = &["Europe/Paris", "America/New_York", "UTC", "Asia/Kolkata"];

/// Loads `ZONES` into MariaDB's time zone tables (once per binary).
fn maria_with_zones() -> &'static MariaDb {
    static LOADED: std::sync::Once = std::sync::Once::new();
    let m = MariaDb::get();
    LOADED.call_once(|| {
        let mut c = m.connect(Some("mysql"));
        for z in ZONES {
            let out = Command::new("mariadb-tzinfo-to-sql")
                .arg(format!("/usr/share/zoneinfo/{z}"))
                .arg(z)
                .output()
                .expect("run mariadb-tzinfo-to-sql (Debian's mariadb-server)");
            assert!(out.status.success(), "mariadb-tzinfo-to-sql {z} failed");
            c.query_drop(String::from_utf8(out.stdout).expect("SQL text")).expect("load the zone");
        }
    });
    m
}

fn same_diagnosed(db: &str, statements: &[&str]) {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db(db);
    let mut mc = maria_with_zones().fresh_db(db);
    // A statement with a table clears the diagnostics fresh_db left.
    assert_same_diagnostics(&mut qc, &mut mc, &["CREATE TABLE clear_diagnostics (i INT)"]);
    assert_same_diagnostics(&mut qc, &mut mc, statements);
}

#[test]
fn named_zones_are_accepted_and_unknown_ones_refused() {
    same_diagnosed(
        "tzn_values",
        &[
            "SET time_zone = 'Europe/Paris'",
            "SELECT @@time_zone",
            "SET time_zone = 'UTC'",
            "SELECT @@time_zone",
            "SET time_zone = 'Europe/Nowhere'",
            "SELECT @@time_zone",
            "SET time_zone = 'America/New_York'",
            "SELECT @@time_zone",
        ],
    );
}

#[test]
fn timestamps_cross_daylight_saving_changes_as_mariadb() {
    same_diagnosed(
        "tzn_dst",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME NULL, KEY (ts))",
            "SET time_zone = 'Europe/Paris'",
            "INSERT INTO t VALUES (1, '2021-03-28 01:59:59', '2021-03-28 01:59:59'), (2, '2021-03-28 03:00:00', '2021-03-28 03:00:00'), (3, '2021-10-31 02:30:00', '2021-10-31 02:30:00'), (4, '2021-10-31 03:00:00', NULL), (5, '2021-07-14 12:00:00', NULL), (6, '2021-01-01 00:00:00', NULL)",
            "SELECT id, ts, dt, UNIX_TIMESTAMP(ts) FROM t ORDER BY id",
            "SET time_zone = '+00:00'",
            "SELECT id, ts, UNIX_TIMESTAMP(ts) FROM t ORDER BY id",
            "INSERT INTO t VALUES (7, '2021-10-31 00:30:00', NULL), (8, '2021-10-31 01:30:00', NULL)",
            "SET time_zone = 'Europe/Paris'",
            "SELECT id, ts FROM t ORDER BY ts, id",
            "SELECT id FROM t WHERE ts BETWEEN '2021-10-31 02:00:00' AND '2021-10-31 02:59:59' ORDER BY id",
            "SET time_zone = 'America/New_York'",
            "SELECT id, ts FROM t ORDER BY id",
            "SELECT UNIX_TIMESTAMP('2021-03-14 01:59:59'), UNIX_TIMESTAMP('2021-03-14 03:00:00'), UNIX_TIMESTAMP('2021-11-07 01:30:00')",
            "SELECT FROM_UNIXTIME(1615705199), FROM_UNIXTIME(1615705200), FROM_UNIXTIME(1636263000), FROM_UNIXTIME(1636266600)",
            "SET time_zone = 'Asia/Kolkata'",
            "SELECT id, ts FROM t WHERE id < 3 ORDER BY id",
        ],
    );
}

#[test]
fn a_time_in_the_spring_gap_becomes_the_change() {
    same_diagnosed(
        "tzn_gap",
        &[
            "CREATE TABLE g (id INT PRIMARY KEY, ts TIMESTAMP NULL)",
            "SET time_zone = 'Europe/Paris'",
            "SET sql_mode = ''",
            "INSERT INTO g VALUES (1, '2021-03-28 02:30:00')",
            "SELECT id, ts, UNIX_TIMESTAMP(ts) FROM g",
            "SET sql_mode = DEFAULT",
            "INSERT INTO g VALUES (2, '2021-03-28 02:00:00')",
            "SELECT id, ts FROM g ORDER BY id",
            "SELECT UNIX_TIMESTAMP('2021-03-28 02:30:00')",
        ],
    );
}

#[test]
fn convert_tz_reads_names_as_mariadb() {
    same_diagnosed(
        "tzn_convert",
        &[
            "SELECT CONVERT_TZ('2021-03-28 00:59:59', 'UTC', 'Europe/Paris'), CONVERT_TZ('2021-03-28 01:00:00', 'UTC', 'Europe/Paris')",
            "SELECT CONVERT_TZ('2021-10-31 00:59:59', 'UTC', 'Europe/Paris'), CONVERT_TZ('2021-10-31 01:00:00', 'UTC', 'Europe/Paris')",
            "SELECT CONVERT_TZ('2021-03-28 02:30:00', 'Europe/Paris', 'UTC'), CONVERT_TZ('2021-10-31 02:30:00', 'Europe/Paris', 'UTC')",
            "SELECT CONVERT_TZ('2021-07-01 12:00:00', 'Europe/Paris', 'America/New_York'), CONVERT_TZ('2021-07-01 12:00:00', '+02:00', 'Asia/Kolkata')",
            "SELECT CONVERT_TZ('2021-07-01 12:00:00', 'Europe/Paris', 'Nowhere/Zone'), CONVERT_TZ('1960-01-01 00:00:00', 'Europe/Paris', 'UTC'), CONVERT_TZ('2050-01-01 00:00:00', 'UTC', 'Europe/Paris')",
            "SELECT CONVERT_TZ('1970-01-01 00:30:00', 'Europe/Paris', 'UTC'), CONVERT_TZ('2021-07-01 12:00:00.25', 'Europe/Paris', 'UTC')",
        ],
    );
}
