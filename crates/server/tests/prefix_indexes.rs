//! Prefix indexes (`KEY (a(10))`, `UNIQUE (a(3))`) against the MariaDB the
//! harness starts: lookups and ranges through a prefix index find what a
//! full scan finds (the key holds the prefix only; the WHERE re-checks
//! each row), UNIQUE refuses two rows with the same prefix, long values,
//! ORDER BY on a cut column, and the definition errors (1089, 1391).
//! Then, on quire alone, SHOW CREATE TABLE, a restart keeping the
//! prefixes, and MySQL 8.0's 1170 for a TEXT key without a length.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{answer, assert_same, Answer, MariaDb, Quire};

#[test]
fn prefix_index_lookups_ranges_and_uniqueness_answer_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("prefix_ix");
    let mut mc = MariaDb::get().fresh_db("prefix_ix");
    let long_a = format!("INSERT INTO p VALUES (20, '{}x', 'lng', 'L')", "a".repeat(3000));
    let long_b = format!("INSERT INTO p VALUES (21, '{}y', 'lnh', 'M')", "a".repeat(3000));
    let long_q = format!("SELECT id FROM p WHERE t = '{}y'", "a".repeat(3000));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE p (id INT PRIMARY KEY, t TEXT, v VARCHAR(40), b BLOB, \
             KEY kt (t(4)), UNIQUE KEY uv (v(3)), KEY kb (b(2)), KEY kvt (v(2), t(2)))",
            "INSERT INTO p VALUES (1, 'abcdef', 'xyz1', 'AB1'), (2, 'abcxyz', 'pqr', 'AB2'), \
             (3, 'abzz', 'mno', 'CD'), (4, 'ABCD ', 'klm', 'AB'), (5, NULL, NULL, NULL), (6, '', 'e', '')",
            // The same prefix in a UNIQUE prefix index is a duplicate.
            "INSERT INTO p VALUES (9, 'q', 'xyz2', 'x')",
            "INSERT INTO p VALUES (9, 'q', 'XYZ', 'x')",
            "INSERT INTO p VALUES (9, 'q', 'xy', 'x')",
            "UPDATE p SET v = 'pqrs' WHERE id = 3",
            "INSERT IGNORE INTO p VALUES (10, 'r', 'klmn', 'y'), (11, 's', 'stu', 'z')",
            "SELECT id FROM p WHERE t = 'abcdef'",
            "SELECT id FROM p WHERE t = 'abcd' ORDER BY id",
            "SELECT id FROM p WHERE t > 'abcd' ORDER BY id",
            "SELECT id FROM p WHERE t >= 'abcd' AND t < 'abcz' ORDER BY id",
            "SELECT id FROM p WHERE t BETWEEN 'abc' AND 'abcz' ORDER BY id",
            "SELECT id FROM p WHERE t LIKE 'abc%' ORDER BY id",
            "SELECT id FROM p WHERE t IN ('abcdef', 'abcxyz', 'zz') ORDER BY id",
            "SELECT id, t FROM p WHERE t >= 'ab' ORDER BY t, id",
            "SELECT id, t FROM p WHERE t >= 'ab' ORDER BY t DESC, id",
            "SELECT id FROM p WHERE t IS NULL",
            "SELECT id FROM p WHERE b = 'AB2' ORDER BY id",
            "SELECT id FROM p WHERE b > 'AB' ORDER BY id",
            "SELECT id FROM p WHERE v = 'xyz1' AND t = 'abcdef'",
            "SELECT id FROM p WHERE v = 'xyz1' AND t > 'ab' ORDER BY id",
            "SELECT id FROM p WHERE v LIKE 'x%' ORDER BY id",
            // Long values: only their prefix is keyed.
            &long_a,
            &long_b,
            &long_q,
            "SELECT id, LENGTH(t) FROM p WHERE t > 'aaaa' ORDER BY id",
            "DELETE FROM p WHERE t = 'abcxyz'",
            "SELECT id FROM p WHERE t LIKE 'abc%' ORDER BY id",
            // Indexes added later cut the same way.
            "CREATE INDEX kv2 ON p (v(2))",
            "ALTER TABLE p ADD UNIQUE KEY ub (b(1))",
            "ALTER TABLE p ADD KEY kt10 (t(10))",
            "SELECT id FROM p WHERE v = 'mno'",
            "SELECT id FROM p WHERE t = 'abzz'",
            // Bad definitions.
            "CREATE TABLE e (a INT, KEY (a(2)))",
            "CREATE TABLE e (a VARCHAR(5), KEY (a(6)))",
            "CREATE TABLE e (a BLOB, UNIQUE KEY (a(0)))",
            "CREATE INDEX bad ON p (id(1))",
        ],
    );
}

#[test]
fn show_create_table_prints_prefixes_and_a_restart_keeps_them() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("prefix_restart");
    c.query_drop(
        "CREATE TABLE p (id INT PRIMARY KEY, t TEXT, v VARCHAR(40), w VARCHAR(8), \
         KEY k (t(10)), UNIQUE KEY uv (v(3), w), KEY kw (w(8)))",
    )
    .unwrap();
    let (_, create): (String, String) = c.query_first("SHOW CREATE TABLE p").unwrap().unwrap();
    assert!(create.contains("KEY `k` (`t`(10))"), "{create}");
    assert!(create.contains("UNIQUE KEY `uv` (`v`(3),`w`)"), "{create}");
    // A prefix as long as the column keys it whole, as MySQL shows it.
    assert!(create.contains("KEY `kw` (`w`)"), "{create}");
    c.query_drop("INSERT INTO p VALUES (1, 'hello world', 'abcd', 'x'), (2, 'hello there', 'abce', 'y')").unwrap();
    drop(c);
    let q = q.restart();
    let mut c = q.connect(Some("prefix_restart"));
    let (_, after): (String, String) = c.query_first("SHOW CREATE TABLE p").unwrap().unwrap();
    assert_eq!(after, create);
    assert_eq!(answer(&mut c, "INSERT INTO p VALUES (3, 'z', 'abcz', 'x')"), Answer::Err(1062));
    c.query_drop("INSERT INTO p VALUES (3, 'z', 'abcz', 'z')").unwrap();
    let ids: Vec<i64> = c.query("SELECT id FROM p WHERE t = 'hello there'").unwrap();
    assert_eq!(ids, vec![2]);
    let ids: Vec<i64> = c.query("SELECT id FROM p WHERE t LIKE 'hello%' ORDER BY id").unwrap();
    assert_eq!(ids, vec![1, 2]);
    // A TEXT key without a length is MySQL 8.0's 1170 (MariaDB 10.11 cuts
    // it to 768 characters with warning 1071).
    assert_eq!(answer(&mut c, "CREATE TABLE e (a TEXT, KEY (a))"), Answer::Err(1170));
    // A prefix in a PRIMARY KEY is not built.
    assert_eq!(answer(&mut c, "CREATE TABLE pk (a VARCHAR(20), PRIMARY KEY (a(5)))"), Answer::Err(1235));
}
