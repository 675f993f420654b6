//! Tables without a primary key, statement by statement against the
//! MariaDB the harness starts: DML on identical rows (each changed or
//! deleted on its own, `LIMIT 1` taking exactly one), secondary indexes,
//! rollback, joins, CHECK / ANALYZE / TRUNCATE, the NOT NULL UNIQUE key
//! that clusters, and sysbench-tpcc's `history`. Then what only quire can
//! be asked: the hidden row id appears nowhere (SELECT *, SHOW COLUMNS,
//! SHOW CREATE TABLE, INSERT's column count), and prepared statements.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, row_cells, MariaDb, Quire};

#[test]
fn dml_on_identical_rows_matches_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("keyless_dml");
    let mut mc = MariaDb::get().fresh_db("keyless_dml");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE k (a INT, b VARCHAR(10))",
            "INSERT INTO k VALUES (1, 'x'), (1, 'x'), (2, 'y'), (1, 'x')",
            "INSERT INTO k (b) VALUES ('z')",
            "INSERT INTO k VALUES (3, 'w')",
            "SELECT * FROM k ORDER BY a, b",
            "SELECT COUNT(*), SUM(a) FROM k",
            // Exactly one of three identical rows goes, then another.
            "DELETE FROM k WHERE a = 1 LIMIT 1",
            "SELECT a, b, COUNT(*) FROM k GROUP BY a, b ORDER BY a, b",
            "UPDATE k SET b = 'q' WHERE a = 1 LIMIT 1",
            "SELECT a, b, COUNT(*) FROM k GROUP BY a, b ORDER BY a, b",
            "UPDATE k SET a = a + 10",
            "SELECT * FROM k ORDER BY a, b",
            "UPDATE k SET a = a WHERE a = 11",
            "DELETE FROM k WHERE b = 'x'",
            "SELECT * FROM k ORDER BY a, b",
            "DELETE FROM k",
            "SELECT COUNT(*) FROM k",
            "INSERT INTO k VALUES (5, 'again'), (5, 'again')",
            "SELECT * FROM k",
            // Through a secondary index: its entries end in the row id.
            "CREATE TABLE ks (a INT, b INT, KEY ia (a))",
            "INSERT INTO ks VALUES (1, 1), (1, 1), (1, 1), (2, 2), (2, 2), (NULL, 3)",
            "SELECT * FROM ks WHERE a = 1",
            "DELETE FROM ks WHERE a = 1 LIMIT 2",
            "SELECT * FROM ks WHERE a = 1",
            "UPDATE ks SET a = 5 WHERE a = 2 LIMIT 1",
            "SELECT a, b FROM ks ORDER BY a, b",
            "SELECT * FROM ks WHERE a > 1 ORDER BY a",
            "SELECT * FROM ks WHERE a IS NULL",
            "UPDATE ks SET b = b + 1 WHERE a IN (1, 5)",
            "SELECT a, b FROM ks ORDER BY a, b",
            // Rollback of inserts and deletes of identical rows.
            "BEGIN",
            "INSERT INTO ks VALUES (7, 7), (7, 7)",
            "DELETE FROM ks WHERE a = 5",
            "UPDATE ks SET b = 0 WHERE a = 2",
            "SELECT a, b FROM ks ORDER BY a, b",
            "ROLLBACK",
            "SELECT a, b FROM ks ORDER BY a, b",
            // Subqueries in UPDATE / DELETE, derived tables, joins.
            "UPDATE ks SET b = (SELECT MAX(a) FROM k) WHERE a = 2",
            "DELETE FROM ks WHERE a IN (SELECT a - 4 FROM k)",
            "SELECT a, b FROM ks ORDER BY a, b",
            "SELECT * FROM (SELECT a, COUNT(*) AS n FROM ks GROUP BY a) d ORDER BY a",
            "SELECT k.a, ks.b FROM k JOIN ks ON k.a - 3 = ks.a ORDER BY 1, 2",
            "SELECT x.a, y.b FROM ks x JOIN ks y ON x.a = y.a ORDER BY 1, 2",
            "SELECT x.a, y.b FROM ks x LEFT JOIN k y ON x.a = y.a ORDER BY 1, 2",
            "SELECT a, (SELECT COUNT(*) FROM ks y WHERE y.a = ks.a) FROM ks ORDER BY 1, 2",
            "SELECT * FROM ks WHERE a = 2 FOR UPDATE",
            // The hidden column is no column.
            "SELECT DB_ROW_ID FROM ks",
            "SELECT ks.DB_ROW_ID FROM ks JOIN k ON 1",
            "UPDATE ks SET DB_ROW_ID = 1",
            "INSERT INTO ks (a, DB_ROW_ID) VALUES (1, 1)",
            "INSERT INTO ks VALUES (1, 2, 3)",
            "CREATE TABLE bad (a INT, DB_ROW_ID INT)",
            "CREATE TABLE bad (db_row_id INT)",
            "CREATE INDEX ir ON ks (DB_ROW_ID)",
            // A UNIQUE key on NOT NULL columns clusters; a nullable one does not.
            "CREATE TABLE ku (a INT NOT NULL, b INT, UNIQUE KEY ua (a))",
            "INSERT INTO ku VALUES (1, 1), (2, 2)",
            "INSERT INTO ku VALUES (3, 3), (1, 3)",
            "SELECT * FROM ku ORDER BY a",
            "SELECT * FROM ku WHERE a = 2",
            "UPDATE ku SET a = 2 WHERE a = 1",
            "CREATE TABLE kn (a INT, UNIQUE KEY (a))",
            "INSERT INTO kn VALUES (NULL), (NULL), (1)",
            "INSERT INTO kn VALUES (1)",
            "SELECT * FROM kn ORDER BY a",
            "CHECK TABLE k, ks, ku, kn",
            "ANALYZE TABLE ks",
            "TRUNCATE TABLE ks",
            "SELECT COUNT(*) FROM ks",
            "INSERT INTO ks VALUES (1, 1), (1, 1)",
            "SELECT * FROM ks WHERE a = 1",
            "CHECK TABLE ks",
            // AUTO_INCREMENT must lead a key; it makes its column NOT NULL.
            "CREATE TABLE ai1 (id INT AUTO_INCREMENT, a INT)",
            "CREATE TABLE ai2 (id INT AUTO_INCREMENT, a INT, KEY (a, id))",
            "CREATE TABLE ai3 (id INT AUTO_INCREMENT, a INT, KEY (id))",
            "INSERT INTO ai3 (a) VALUES (5), (5)",
            "INSERT INTO ai3 VALUES (NULL, 1)",
            "SELECT * FROM ai3",
            "CREATE TABLE ai5 (id INT AUTO_INCREMENT, a INT, UNIQUE KEY (id))",
            "INSERT INTO ai5 (a) VALUES (7), (7)",
            "INSERT INTO ai5 VALUES (1, 8)",
            "SELECT * FROM ai5",
        ],
    );
}

#[test]
fn statistics_name_the_hidden_index_as_innodb_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("keyless_stats");
    let mut mc = MariaDb::get().fresh_db("keyless_stats");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE ks (a INT, b INT, KEY ia (a))",
            "CREATE TABLE ku (a INT NOT NULL, b INT, UNIQUE KEY ua (a), KEY ib (b))",
            "INSERT INTO ks VALUES (1, 1), (1, 1), (2, 2)",
            "INSERT INTO ku VALUES (1, 1), (2, 1), (3, 2)",
            "ANALYZE TABLE ks, ku",
            "SELECT table_name, index_name, stat_name, stat_value, stat_description FROM mysql.innodb_index_stats \
             WHERE database_name = 'keyless_stats' AND stat_name LIKE 'n_diff%' ORDER BY 1, 2, 3",
        ],
    );
}

/// (type, key, ref) of each EXPLAIN row, on either server.
fn plan(c: &mut Conn, sql: &str, cols: [usize; 3]) -> Vec<Vec<Option<String>>> {
    let rows: Vec<mysql::Row> = c.query(format!("EXPLAIN {sql}")).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(|r| cols.iter().map(|&i| row_cells(r)[i].clone()).collect()).collect()
}

#[test]
fn explain_reads_keyless_tables_by_scan_or_secondary_index_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("keyless_explain");
    let mut mc = MariaDb::get().fresh_db("keyless_explain");
    for c in [&mut qc, &mut mc] {
        c.query_drop("CREATE TABLE ks (a INT, b INT, KEY ia (a))").unwrap();
        c.query_drop("CREATE TABLE ku (a INT NOT NULL, b INT, UNIQUE KEY ua (a))").unwrap();
        let rows: Vec<String> = (0..200).map(|i| format!("({}, {i})", i % 50)).collect();
        c.query_drop(format!("INSERT INTO ks VALUES {}", rows.join(","))).unwrap();
        let rows: Vec<String> = (0..200).map(|i| format!("({i}, {i})")).collect();
        c.query_drop(format!("INSERT INTO ku VALUES {}", rows.join(","))).unwrap();
        c.query_drop("ANALYZE TABLE ks, ku").unwrap();
    }
    for sql in [
        "SELECT * FROM ks WHERE a = 1",
        "SELECT * FROM ks",
        "SELECT * FROM ks WHERE b = 3",
        // The clustering UNIQUE key is named as itself.
        "SELECT * FROM ku WHERE a = 5",
        "SELECT * FROM ku WHERE a > 190",
    ] {
        // quire: type 4, key 6, ref 8 (MySQL 8.0's columns); MariaDB: 3, 5, 7.
        assert_eq!(plan(&mut qc, sql, [4, 6, 8]), plan(&mut mc, sql, [3, 5, 7]), "{sql}");
    }
}

fn text(c: &mut Conn, sql: &str) -> Vec<Vec<Option<String>>> {
    let rows: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(row_cells).collect()
}

#[test]
fn the_hidden_row_id_appears_in_no_listing() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("keyless_hidden");
    c.query_drop("CREATE TABLE k (a INT, b VARCHAR(10), KEY b (b))").unwrap();
    c.query_drop("CREATE TABLE ku (a INT NOT NULL, b INT, UNIQUE KEY ua (a), KEY b (b))").unwrap();
    c.query_drop("INSERT INTO k VALUES (1, 'x'), (1, 'x')").unwrap();
    let create = &text(&mut c, "SHOW CREATE TABLE k")[0][1];
    assert_eq!(
        create.as_deref(),
        Some(
            "CREATE TABLE `k` (\n  `a` int DEFAULT NULL,\n  `b` varchar(10) DEFAULT NULL,\n  KEY `b` (`b`)\n) \
             ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
        )
    );
    // MariaDB and MySQL show the clustering UNIQUE key as one, first.
    let create = &text(&mut c, "SHOW CREATE TABLE ku")[0][1];
    assert_eq!(
        create.as_deref(),
        Some(
            "CREATE TABLE `ku` (\n  `a` int NOT NULL,\n  `b` int DEFAULT NULL,\n  UNIQUE KEY `ua` (`a`),\n  \
             KEY `b` (`b`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
        )
    );
    let names = |rows: Vec<Vec<Option<String>>>| rows.into_iter().map(|r| r[0].clone().unwrap()).collect::<Vec<_>>();
    assert_eq!(names(text(&mut c, "SHOW COLUMNS FROM k")), ["a", "b"]);
    assert_eq!(names(text(&mut c, "DESCRIBE k")), ["a", "b"]);
    let keys: Vec<_> = text(&mut c, "SHOW COLUMNS FROM ku").into_iter().map(|r| r[3].clone().unwrap()).collect();
    assert_eq!(keys, ["PRI", "MUL"], "the clustering UNIQUE key's column is PRI, as in MariaDB");
    let r = c.query_iter("SELECT * FROM k").unwrap();
    let cols: Vec<String> = r.columns().as_ref().iter().map(|c| c.name_str().into_owned()).collect();
    drop(r);
    assert_eq!(cols, ["a", "b"]);
    assert_eq!(text(&mut c, "SELECT * FROM k"), vec![vec![Some("1".into()), Some("x".into())]; 2]);
    // In a join, each side's `*` is its visible columns.
    let r = c.query_iter("SELECT k1.*, k2.* FROM k k1 JOIN k k2 ON k1.b = k2.b").unwrap();
    assert_eq!(r.columns().as_ref().len(), 4);
}

#[test]
fn prepared_statements_insert_update_and_delete_identical_rows() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("keyless_prep");
    let mut mc = MariaDb::get().fresh_db("keyless_prep");
    for c in [&mut qc, &mut mc] {
        c.query_drop("CREATE TABLE k (a INT, b VARCHAR(10), KEY ia (a))").unwrap();
        let ins = c.prep("INSERT INTO k VALUES (?, ?)").unwrap();
        for i in 0..20 {
            c.exec_drop(&ins, (i % 3, "p")).unwrap();
        }
        c.exec_drop("INSERT INTO k VALUES (?, ?), (?, ?)", (9, "q", 9, "q")).unwrap();
        c.exec_drop("DELETE FROM k WHERE a = ? LIMIT 1", (0,)).unwrap();
        c.exec_drop("UPDATE k SET b = ? WHERE a = ? LIMIT 2", ("u", 1)).unwrap();
        c.exec_drop("DELETE FROM k WHERE b = ?", ("q",)).unwrap();
    }
    let sql = "SELECT a, b, COUNT(*) FROM k GROUP BY a, b ORDER BY a, b";
    let got: Vec<(i32, String, i64)> = qc.exec(sql, ()).unwrap();
    assert_eq!(got, mc.exec::<(i32, String, i64), _, _>(sql, ()).unwrap());
    assert_eq!(got, vec![(0, "p".into(), 6), (1, "p".into(), 5), (1, "u".into(), 2), (2, "p".into(), 6)]);
}

#[test]
fn sysbench_tpcc_history_is_created_and_filled() {
    oracle::same_on_both(
        "keyless_tpcc",
        &[
            "CREATE TABLE history (h_c_id int, h_c_d_id tinyint, h_c_w_id smallint, h_d_id tinyint, h_w_id smallint, \
             h_date datetime, h_amount decimal(6,2), h_data varchar(24)) ENGINE=InnoDB",
            "INSERT INTO history VALUES (1, 1, 1, 1, 1, '2024-05-01 10:00:00', 10.00, 'abc'), \
             (1, 1, 1, 1, 1, '2024-05-01 10:00:00', 10.00, 'abc')",
            "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
             VALUES (2, 3, 4, 5, 6, '2024-05-02 11:00:00', 1234.56, 'payment')",
            "SELECT * FROM history ORDER BY h_c_id",
            "SELECT SUM(h_amount), COUNT(*) FROM history",
            "CREATE INDEX idx_h ON history (h_c_w_id, h_c_d_id, h_c_id)",
            "SELECT h_amount FROM history WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1",
        ],
    );
}

#[test]
fn sql_require_primary_key_refuses_a_table_without_one_as_mysql_8() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("keyless_require");
    c.query_drop("SET SESSION sql_require_primary_key = ON").unwrap();
    for sql in ["CREATE TABLE k (a INT)", "CREATE TABLE ku (a INT NOT NULL, UNIQUE KEY (a))"] {
        let e = c.query_drop(sql).unwrap_err();
        assert_eq!(oracle::err_code(&e), 3750, "{sql}");
    }
    c.query_drop("CREATE TABLE p (a INT PRIMARY KEY)").unwrap();
    c.query_drop("SET SESSION sql_require_primary_key = OFF").unwrap();
    c.query_drop("CREATE TABLE k (a INT)").unwrap();
}

/// Runs `sql` on `c`, as `oracle::answer` records it.
fn on(c: &mut Conn, sql: &str) -> oracle::Answer {
    oracle::answer(c, sql)
}

#[test]
fn locking_reads_lock_row_ids_and_gaps_as_mariadb() {
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let mut a = [q.fresh_db("keyless_locks"), m.fresh_db("keyless_locks")];
    let mut b = [q.connect(Some("keyless_locks")), m.connect(Some("keyless_locks"))];
    // Enough other rows that both servers read `a = 1` through the index.
    let filler: Vec<String> = (10..90).map(|i| format!("({i}, {i})")).collect();
    let filler = format!("INSERT INTO k VALUES {}", filler.join(", "));
    let schedule: &[(usize, &str)] = &[
        (0, "CREATE TABLE k (a INT, b INT, KEY ia (a))"),
        (0, "INSERT INTO k VALUES (1, 1), (1, 1), (2, 2), (3, 3)"),
        (0, &filler),
        (0, "ANALYZE TABLE k"),
        (1, "SET SESSION innodb_lock_wait_timeout = 1"),
        (0, "BEGIN"),
        // Through the index: the two identical rows of a = 1 are locked.
        (0, "SELECT * FROM k WHERE a = 1 FOR UPDATE"),
        (1, "UPDATE k SET b = 9 WHERE a = 1 LIMIT 1"),
        (1, "UPDATE k SET b = 9 WHERE a = 3"),
        (1, "SELECT * FROM k WHERE a = 3 FOR UPDATE"),
        (0, "COMMIT"),
        (1, "SELECT * FROM k WHERE a = 1 FOR UPDATE"),
        // A full locking scan locks every row id and the gap after the last:
        // an insert (a new, higher row id) waits.
        (0, "BEGIN"),
        (0, "SELECT COUNT(*) FROM k FOR UPDATE"),
        (1, "INSERT INTO k VALUES (4, 4)"),
        (1, "DELETE FROM k WHERE a = 2"),
        (0, "ROLLBACK"),
        (1, "INSERT INTO k VALUES (4, 4)"),
        (1, "DELETE FROM k WHERE a = 2"),
        (0, "SELECT a, b FROM k WHERE a < 10 ORDER BY a, b"),
    ];
    for &(who, sql) in schedule {
        let conns = if who == 0 { &mut a } else { &mut b };
        let (qc, rest) = conns.split_at_mut(1);
        let got = on(&mut qc[0], sql);
        let want = on(&mut rest[0], sql);
        assert_eq!(got, want, "quire and MariaDB differ on: {sql} (session {who})");
    }
}
