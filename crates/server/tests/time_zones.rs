//! `time_zone` beside MariaDB (both servers run in UTC; this binary's
//! MariaDB has no time zone tables, so names neither server knows stand
//! for unknown zones here; named zones are `named_time_zones.rs`): the
//! values it takes and refuses (1298, 1232), TIMESTAMP
//! columns stored as instants and shown in the session's zone (DATETIME
//! untouched), TIMESTAMP's range checked in UTC (1292 strict, 1264 and the
//! zero date otherwise), index ranges over TIMESTAMP under an offset, and
//! the functions that read the zone: NOW(), UTC_TIMESTAMP(), CURDATE(),
//! UNIX_TIMESTAMP(), FROM_UNIXTIME(), CONVERT_TZ().

mod oracle;

use oracle::{assert_same, assert_same_diagnostics, same_on_both, MariaDb, Quire};

#[test]
fn time_zone_values_are_accepted_and_refused_as_mariadb_does() {
    same_on_both(
        "tz_values",
        &[
            "SELECT @@time_zone, @@session.time_zone, @@system_time_zone",
            "SET time_zone = '+05:30'",
            "SELECT @@time_zone",
            "SET time_zone = '+5:3'",
            "SELECT @@time_zone",
            "SET time_zone = '-00:00'",
            "SELECT @@time_zone",
            "SET time_zone = '+13:00'",
            "SET time_zone = '-12:59'",
            "SELECT @@time_zone",
            "SET time_zone = '+13:01'",
            "SET time_zone = '-13:00'",
            "SET time_zone = '+00:60'",
            "SET time_zone = '05:30'",
            "SET time_zone = ' +05:30'",
            "SET time_zone = 'Nowhere/Nothing'",
            "SET time_zone = '../UTC'",
            "SET time_zone = ''",
            "SET time_zone = 5",
            "SELECT @@time_zone",
            "SET time_zone = 'system'",
            "SELECT @@time_zone",
            "SET time_zone = DEFAULT",
            "SELECT @@time_zone",
        ],
    );
}

#[test]
fn timestamps_are_instants_shown_in_the_session_zone() {
    assert_same_on_both_diagnosed(
        "tz_store",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP(3) NULL, t0 TIMESTAMP NULL, dt DATETIME NULL, KEY (ts))",
            "SET time_zone = '+05:30'",
            "INSERT INTO t VALUES (1, '2020-01-01 00:00:00.5', '2020-01-01 00:00:00', '2020-01-01 00:00:00'), (2, '1970-01-01 05:30:01', '1970-01-01 05:30:01', NULL), (3, '2038-01-19 08:44:07', '2038-01-19 08:44:07', '2038-01-19 08:44:07')",
            "SELECT * FROM t ORDER BY id",
            "SET time_zone = '+00:00'",
            "SELECT * FROM t ORDER BY id",
            "SELECT id FROM t WHERE ts > '2019-12-31 18:30:00' ORDER BY id",
            "SELECT id FROM t WHERE ts BETWEEN '1970-01-01' AND '2020-01-01' ORDER BY id",
            "SELECT id, UNIX_TIMESTAMP(t0) FROM t ORDER BY id",
            "SET time_zone = '-03:00'",
            "SELECT id, ts, t0, dt FROM t ORDER BY ts",
            "SELECT id FROM t WHERE ts = '2019-12-31 15:30:00.5'",
            "SELECT id FROM t WHERE ts < '2000-01-01' ORDER BY id",
            "UPDATE t SET t0 = '2021-06-01 12:00:00' WHERE id = 2",
            "SET time_zone = '+01:00'",
            "SELECT id, t0, CONVERT_TZ(t0, @@time_zone, '+00:00') FROM t WHERE id = 2",
            "SELECT MIN(ts), MAX(ts), COUNT(DISTINCT t0) FROM t",
        ],
    );
}

#[test]
fn timestamp_range_is_checked_in_utc() {
    assert_same_on_both_diagnosed(
        "tz_range",
        &[
            "CREATE TABLE r (id INT PRIMARY KEY, ts TIMESTAMP NULL)",
            "SET time_zone = '+05:30'",
            "INSERT INTO r VALUES (1, '1970-01-01 05:30:00')",
            "INSERT INTO r VALUES (2, '1970-01-01 05:30:01')",
            "INSERT INTO r VALUES (3, '2038-01-19 08:44:08')",
            "INSERT INTO r VALUES (4, '0000-00-00 00:00:00')",
            "UPDATE r SET ts = '1960-01-01' WHERE id = 2",
            "INSERT INTO r VALUES (5, 19690101000000)",
            "SET sql_mode = ''",
            "INSERT INTO r VALUES (6, '1969-01-01 00:00:00'), (7, '2040-01-01 00:00:00')",
            "SET time_zone = '+00:00'",
            "SELECT * FROM r ORDER BY id",
        ],
    );
}

#[test]
fn functions_read_the_session_zone() {
    same_on_both(
        "tz_funcs",
        &[
            "SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()), UNIX_TIMESTAMP('2020-01-01 00:00:00'), FROM_UNIXTIME(0)",
            "SET time_zone = '+05:30'",
            "SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()), TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), CURRENT_TIMESTAMP), TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), LOCALTIMESTAMP())",
            "SELECT UNIX_TIMESTAMP('2020-01-01 00:00:00'), UNIX_TIMESTAMP('1970-01-01 05:30:00'), UNIX_TIMESTAMP('1970-01-01 00:00:00'), UNIX_TIMESTAMP('2038-01-19 08:44:07'), UNIX_TIMESTAMP('2038-01-19 08:44:08')",
            "SELECT FROM_UNIXTIME(0), FROM_UNIXTIME(1700000000), FROM_UNIXTIME(1700000000, '%H:%i'), UNIX_TIMESTAMP(FROM_UNIXTIME(1234567890))",
            "SELECT CURDATE() = DATE(NOW()), UTC_DATE() = DATE(UTC_TIMESTAMP())",
            "SELECT CONVERT_TZ('2020-01-01 00:00:00', '+00:00', '+03:00'), CONVERT_TZ('2020-06-01 10:00:00', @@time_zone, '+00:00'), CONVERT_TZ('2020-06-01 10:00:00', 'SYSTEM', '-01:30')",
            "SELECT CONVERT_TZ('2020-01-01 00:00:00', '+00:00', 'Nowhere/Nothing'), CONVERT_TZ(NULL, '+00:00', '+01:00'), CONVERT_TZ('bad', '+00:00', '+01:00'), CONVERT_TZ('0000-00-00 00:00:00', '+00:00', '+01:00')",
            "SELECT CONVERT_TZ('2020-01-01', '+00:00', '+01:00'), CONVERT_TZ('2020-01-01 00:00:00.123456', '+00:00', '+01:00'), CONVERT_TZ('9999-12-31 23:00:00', '+00:00', '+01:00'), CONVERT_TZ('1960-01-01 00:00:00', '+00:00', '+01:00')",
        ],
    );
}

/// Two sessions in different zones see one stored instant each in their
/// own zone, on both servers.
#[test]
fn sessions_in_different_zones_see_one_instant() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qa, mut ma) = (q.fresh_db("tz_two"), m.fresh_db("tz_two"));
    let (mut qb, mut mb) = (q.connect(Some("tz_two")), m.connect(Some("tz_two")));
    assert_same(
        &mut qa,
        &mut ma,
        &[
            "CREATE TABLE e (id INT PRIMARY KEY, at TIMESTAMP NOT NULL)",
            "SET time_zone = '+09:00'",
            "INSERT INTO e VALUES (1, '2024-03-01 09:00:00')",
        ],
    );
    assert_same(
        &mut qb,
        &mut mb,
        &[
            "SET time_zone = '-05:00'",
            "SELECT at, UNIX_TIMESTAMP(at) FROM e",
            "SELECT id FROM e WHERE at = '2024-02-29 19:00:00'",
        ],
    );
    assert_same(&mut qa, &mut ma, &["SELECT at FROM e"]);
}

fn assert_same_on_both_diagnosed(db: &str, statements: &[&str]) {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db(db), m.fresh_db(db));
    assert_same_diagnostics(&mut qc, &mut mc, statements);
}
