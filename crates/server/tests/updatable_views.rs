//! INSERT, UPDATE and DELETE through views (`sql/view_dml.rs`), statement
//! by statement against the MariaDB the harness starts: rows written,
//! affected counts, and the codes of views that cannot be written (1288,
//! 1471, 1348), WITH [CASCADED | LOCAL] CHECK OPTION (1369, 1368).

mod oracle;

use mysql::prelude::Queryable;
use oracle::{assert_same, MariaDb, Quire};

#[test]
fn writes_through_simple_views_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("upd_views");
    let mut mc = MariaDb::get().fresh_db("upd_views");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE w (id INT PRIMARY KEY, a INT, b INT DEFAULT 5)",
            "INSERT INTO w VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3)",
            "CREATE VIEW v1 AS SELECT id, a AS x, b + 1 AS bb FROM w WHERE a < 3",
            "CREATE VIEW v2 AS SELECT a, COUNT(*) AS c FROM w GROUP BY a",
            "CREATE VIEW v3 AS SELECT id, a FROM w WHERE a > 1",
            "CREATE VIEW v4 AS SELECT DISTINCT a FROM w",
            "CREATE VIEW v5 AS SELECT id, x FROM v1",
            "CREATE VIEW v7 AS SELECT id, a FROM w LIMIT 2",
            "CREATE VIEW v8 AS SELECT id, a, a AS a2 FROM w",
            "CREATE VIEW v9 AS SELECT * FROM w WHERE b >= 2",
            "CREATE VIEW v10 AS SELECT k.id AS kid, k.a FROM w AS k WHERE k.id <> 3",
            // UPDATE: view columns map to the base's; the view's WHERE
            // limits the rows.
            "UPDATE v1 SET x = 10 WHERE id = 1",
            "UPDATE v1 SET x = x + 100 WHERE bb = 3",
            "UPDATE v3 SET a = a * 10",
            "SELECT * FROM w ORDER BY id",
            "UPDATE v1 AS q SET q.x = 50 WHERE q.id = 1",
            "UPDATE v8 SET a2 = 7 WHERE id = 1",
            "UPDATE v10 SET a = 4 WHERE kid = 1",
            "UPDATE v9 SET b = b + 1",
            "SELECT * FROM w ORDER BY id",
            // Through a view of a view.
            "UPDATE v5 SET x = 1 WHERE id = 1",
            "SELECT * FROM w ORDER BY id",
            // INSERT: the columns given, or all of the view's.
            "INSERT INTO v3 VALUES (10, 0)",
            "INSERT INTO v1 (id, x) VALUES (9, 9)",
            "INSERT INTO v8 (id, a) VALUES (30, 1), (31, 2)",
            "INSERT INTO v9 VALUES (40, 4, 4)",
            "INSERT INTO v10 (kid, a) VALUES (41, 1)",
            "SELECT * FROM w ORDER BY id",
            // DELETE: only rows the view shows.
            "DELETE FROM v3 WHERE a = 30",
            "DELETE FROM v1 WHERE x > 5",
            "DELETE FROM v10 WHERE kid = 41",
            "SELECT * FROM w ORDER BY id",
            // Not updatable / not insertable / a computed column.
            "UPDATE v1 SET bb = 10 WHERE id = 1",
            "UPDATE v2 SET a = 1",
            "DELETE FROM v2",
            "INSERT INTO v2 (a) VALUES (1)",
            "DELETE FROM v4",
            "INSERT INTO v4 VALUES (5)",
            "UPDATE v7 SET a = 1",
            "INSERT INTO v1 (id, bb) VALUES (20, 1)",
            "INSERT INTO v1 VALUES (21, 1, 1)",
            "INSERT INTO v8 (id, a, a2) VALUES (32, 1, 1)",
            // A column the view does not show.
            "UPDATE v1 SET x = 0 WHERE b = 1",
            "UPDATE v1 SET b = 0",
            "SELECT * FROM w ORDER BY id",
        ],
    );
}

#[test]
fn check_option_is_enforced_as_mariadb() {
    // The option of the view named is enforced, LOCAL on its own
    // condition, CASCADED on those of the views under it too; as MariaDB,
    // not the options of the views under it (MySQL 8.0 checks those too).
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("upd_views_check");
    let mut mc = MariaDb::get().fresh_db("upd_views_check");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE w (id INT PRIMARY KEY, a INT)",
            "INSERT INTO w VALUES (1, 1), (2, 5), (3, 10)",
            "CREATE VIEW vc AS SELECT id, a FROM w WHERE a > 0 WITH CHECK OPTION",
            "CREATE VIEW vl AS SELECT id, a FROM vc WHERE a < 8 WITH LOCAL CHECK OPTION",
            "CREATE VIEW vcc AS SELECT id, a FROM vc WHERE a < 8 WITH CASCADED CHECK OPTION",
            "CREATE VIEW vn AS SELECT id, a FROM w WHERE a < 8",
            "CREATE VIEW vnc AS SELECT id, a FROM vn WHERE a > 0 WITH CASCADED CHECK OPTION",
            "CREATE VIEW vnl AS SELECT k.id, k.a AS b FROM vn AS k WHERE k.a > 0 WITH LOCAL CHECK OPTION",
            "CREATE VIEW vp AS SELECT id, a FROM vc WHERE a < 8",
            "UPDATE vc SET a = 0 WHERE id = 1",
            "UPDATE vc SET a = 2 WHERE id = 1",
            "INSERT INTO vc VALUES (4, -1)",
            "INSERT INTO vc VALUES (4, 4)",
            "UPDATE vl SET a = 9 WHERE id = 1",
            "UPDATE vcc SET a = -1 WHERE id = 1",
            "UPDATE vcc SET a = 7 WHERE id = 1",
            "UPDATE vl SET a = -1 WHERE id = 1",
            "UPDATE vnl SET b = -9 WHERE id = 2",
            "UPDATE vnl SET b = 9 WHERE id = 2",
            "UPDATE vnc SET a = 9 WHERE id = 4",
            "INSERT INTO vnc VALUES (5, 20)",
            "INSERT INTO vnc VALUES (5, 6)",
            "INSERT INTO vnl VALUES (6, 0)",
            "UPDATE vc SET a = NULL WHERE id = 5",
            "UPDATE vp SET a = -5 WHERE id = 4",
            "CREATE VIEW vg AS SELECT a, COUNT(*) c FROM w GROUP BY a WITH CHECK OPTION",
            "SELECT * FROM w ORDER BY id",
        ],
    );
}

#[test]
fn definer_rights_apply_to_writes_through_views() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("upd_views_rights");
    c.query_drop("CREATE TABLE w (id INT PRIMARY KEY, a INT)").unwrap();
    c.query_drop("INSERT INTO w VALUES (1, 1)").unwrap();
    let code = |c: &mut mysql::Conn, sql: &str| c.query_drop(sql).err().map(|e| oracle::err_code(&e));
    // SHOW CREATE VIEW shows the option as MySQL prints it.
    c.query_drop("CREATE VIEW vc AS SELECT * FROM w WHERE a > 0 WITH LOCAL CHECK OPTION").unwrap();
    let shown: mysql::Row = c.query_first("SHOW CREATE VIEW vc").unwrap().unwrap();
    let text: String = shown.get(1).unwrap();
    assert!(text.ends_with(" WITH LOCAL CHECK OPTION"), "{text}");
    // A user granted the view's database only writes the base table
    // through a SQL SECURITY DEFINER view, not through an INVOKER one.
    c.query_drop("CREATE DATABASE upd_views_pub").unwrap();
    c.query_drop("CREATE VIEW upd_views_pub.vd AS SELECT id, a FROM upd_views_rights.w").unwrap();
    c.query_drop("CREATE SQL SECURITY INVOKER VIEW upd_views_pub.vi AS SELECT id, a FROM upd_views_rights.w").unwrap();
    c.query_drop("CREATE USER 'viewer'@'%' IDENTIFIED BY 'pw'").unwrap();
    c.query_drop("GRANT ALL ON upd_views_pub.* TO 'viewer'@'%'").unwrap();
    let mut u = mysql::Conn::new(q.opts(Some("upd_views_pub")).user(Some("viewer")).pass(Some("pw"))).unwrap();
    assert_eq!(code(&mut u, "UPDATE vd SET a = 2 WHERE id = 1"), None);
    assert_eq!(u.affected_rows(), 1);
    assert_eq!(code(&mut u, "UPDATE vi SET a = 3 WHERE id = 1"), Some(1142));
    assert_eq!(code(&mut u, "UPDATE upd_views_rights.w SET a = 3"), Some(1142));
    let a: Option<i64> = c.query_first("SELECT a FROM w WHERE id = 1").unwrap();
    assert_eq!(a, Some(2));
}
