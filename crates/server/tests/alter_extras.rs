//! ALTER TABLE ... ADD [CONSTRAINT n] CHECK, DROP CONSTRAINT n / DROP
//! CHECK n and AUTO_INCREMENT = n against the MariaDB the harness starts:
//! existing rows checked (quire's 3819 is MariaDB's 4025, mapped before
//! comparing), later writes checked or not, 1091 for a missing
//! constraint, and the AUTO_INCREMENT counter raised, or lowered to the
//! largest value + 1, as both servers set it. Then MySQL 8.0's `DROP
//! CHECK` spelling and generated names, on quire alone.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, Answer, MariaDb, Quire};

fn assert_same_checked(qc: &mut Conn, mc: &mut Conn, statements: &[&str]) {
    for sql in statements {
        let q = answer(qc, sql);
        let m = match answer(mc, sql) {
            Answer::Err(4025) => Answer::Err(3819),
            other => other,
        };
        assert_eq!(q, m, "quire and MariaDB differ on: {sql}");
    }
}

#[test]
fn add_and_drop_check_and_auto_increment_answer_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("alter_extras");
    let mut mc = MariaDb::get().fresh_db("alter_extras");
    assert_same_checked(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT)",
            "INSERT INTO t (a) VALUES (1), (2), (-3)",
            "ALTER TABLE t ADD CONSTRAINT pos CHECK (a > 0)",
            "INSERT INTO t (a) VALUES (-4)",
            "UPDATE t SET a = 3 WHERE a < 0",
            "ALTER TABLE t ADD CONSTRAINT pos CHECK (a > 0)",
            "INSERT INTO t (a) VALUES (-1)",
            "INSERT INTO t (a) VALUES (NULL)",
            "UPDATE t SET a = -a WHERE id = 1",
            // A name in use is 3822 here (MySQL), 1826 in MariaDB: a fresh name.
            "ALTER TABLE t ADD CONSTRAINT pos2 CHECK (a > 1)",
            "ALTER TABLE t DROP CONSTRAINT pos",
            "INSERT INTO t (a) VALUES (-1)",
            "ALTER TABLE t DROP CONSTRAINT pos",
            "ALTER TABLE t DROP CONSTRAINT IF EXISTS pos",
            "SELECT * FROM t ORDER BY id",
            "ALTER TABLE t AUTO_INCREMENT = 100",
            "INSERT INTO t (a) VALUES (7)",
            "INSERT INTO t (a) VALUES (8)",
            "DELETE FROM t WHERE id >= 100",
            "ALTER TABLE t AUTO_INCREMENT = 1",
            "INSERT INTO t (a) VALUES (9)",
            "ALTER TABLE t AUTO_INCREMENT = 50",
            "INSERT INTO t (a) VALUES (10)",
            "SELECT * FROM t ORDER BY id",
            "ALTER TABLE nosuch AUTO_INCREMENT = 5",
        ],
    );
}

#[test]
fn drop_check_and_generated_names_as_mysql() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("alter_extras_mysql");
    c.query_drop("CREATE TABLE t (a INT, CHECK (a < 100))").unwrap();
    c.query_drop("ALTER TABLE t ADD CHECK (a > 0), ADD CONSTRAINT named CHECK (a <> 5) NOT ENFORCED").unwrap();
    let (_, create): (String, String) = c.query_first("SHOW CREATE TABLE t").unwrap().unwrap();
    assert!(create.contains("CONSTRAINT `t_chk_2` CHECK ((`a` > 0))"), "{create}");
    assert!(create.contains("CONSTRAINT `named` CHECK ((`a` <> 5)) /*!80016 NOT ENFORCED */"), "{create}");
    assert!(matches!(answer(&mut c, "INSERT INTO t VALUES (5)"), Answer::Ok { .. }), "not enforced");
    assert_eq!(answer(&mut c, "INSERT INTO t VALUES (0)"), Answer::Err(3819));
    c.query_drop("ALTER TABLE t DROP CHECK t_chk_2").unwrap();
    assert!(matches!(answer(&mut c, "INSERT INTO t VALUES (0)"), Answer::Ok { .. }));
    assert_eq!(answer(&mut c, "ALTER TABLE t DROP CHECK t_chk_2"), Answer::Err(1091));
    assert_eq!(answer(&mut c, "ALTER TABLE t ADD CONSTRAINT named CHECK (a > 0)"), Answer::Err(3822));
    assert_eq!(answer(&mut c, "ALTER TABLE t ADD CHECK (nosuch > 0)"), Answer::Err(3820));
}
