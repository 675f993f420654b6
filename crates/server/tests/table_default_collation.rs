//! A table's DEFAULT CHARSET / COLLATE is stored (catalog section 62) and
//! used as MariaDB uses it, compared with the MariaDB the harness starts:
//! SHOW CREATE TABLE prints it and only the columns that differ from it,
//! a string column ALTER TABLE adds or MODIFYs without a character set
//! takes it, CREATE TABLE ... LIKE copies it, and it survives a restart.

mod oracle;

use oracle::{answer, Answer, MariaDb, Quire};

/// quire prints INT as MySQL 8.0 does (no display width).
fn without_int_width(mut a: Answer) -> Answer {
    if let Answer::Rows(rows) = &mut a {
        for cell in rows.iter_mut().flatten().flatten() {
            *cell = cell.replace("int(11)", "int");
        }
    }
    a
}

const STATEMENTS: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), b VARCHAR(10) CHARACTER SET utf8mb4) \
     DEFAULT CHARSET=latin1 COLLATE=latin1_bin",
    "SHOW CREATE TABLE t",
    "ALTER TABLE t ADD COLUMN c VARCHAR(10)",
    "SHOW CREATE TABLE t",
    "SHOW FULL COLUMNS FROM t",
    "ALTER TABLE t MODIFY b VARCHAR(12)",
    "ALTER TABLE t CHANGE a a2 VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
    "SHOW CREATE TABLE t",
    "CREATE TABLE l LIKE t",
    "SHOW CREATE TABLE l",
    "CREATE TABLE s (x VARCHAR(3)) CHARSET=latin1",
    "SHOW CREATE TABLE s",
    "CREATE TABLE u (x VARCHAR(3)) COLLATE utf8mb4_unicode_ci",
    "ALTER TABLE u ADD COLUMN y VARCHAR(4)",
    "SHOW CREATE TABLE u",
    "CREATE TABLE d (x VARCHAR(3))",
    "SHOW CREATE TABLE d",
];

#[test]
fn the_table_default_collation_is_kept_and_used_as_mariadb_uses_it() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("tdc");
    let mut mc = MariaDb::get().fresh_db("tdc");
    for sql in STATEMENTS {
        let (qa, ma) = (answer(&mut qc, sql), without_int_width(answer(&mut mc, sql)));
        assert_eq!(qa, ma, "quire and MariaDB differ on: {sql}");
    }
    let before: Vec<Answer> = ["SHOW CREATE TABLE t", "SHOW CREATE TABLE u", "SHOW CREATE TABLE d"]
        .iter()
        .map(|s| answer(&mut qc, s))
        .collect();
    drop(qc);
    let q = q.restart();
    let mut qc = q.connect(Some("tdc"));
    let after: Vec<Answer> = ["SHOW CREATE TABLE t", "SHOW CREATE TABLE u", "SHOW CREATE TABLE d"]
        .iter()
        .map(|s| answer(&mut qc, s))
        .collect();
    assert_eq!(before, after, "kept across a restart");
}
