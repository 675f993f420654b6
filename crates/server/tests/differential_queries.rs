//! quire beside MariaDB on queries over several tables: inner and outer
//! joins, subqueries (scalar, IN, EXISTS, quantified, in UPDATE / DELETE),
//! derived tables and CTEs, set operations, window functions, GROUP BY ...
//! WITH ROLLUP, and the name-resolution errors of joins. Each named test
//! runs a small schema (NULLs, duplicates, rows that match nothing on the
//! other side) and queries whose ORDER BY makes the row order total, so
//! that any join order gives the same answer; the random test compares
//! generated queries' rows as multisets. Every table
//! has a primary key: quire does not create keyless tables yet (1173).
//!
//! Every statement here was run against MariaDB 10.11 first. Cases where
//! MySQL 8.0 and MariaDB answer differently are left out, each noted where
//! it would be:
//! - a derived table without an alias: MySQL says 1248, MariaDB 1064 (a
//!   syntax error);
//! - a derived table's column list, `(SELECT ...) AS d (a, b)`: MySQL 8.0
//!   takes it, MariaDB 10.11 does not parse it;
//! - `x = (SELECT two, columns)`: MySQL says 1241, MariaDB 4078;
//! - a CTE whose column list is longer or shorter than its SELECT (MySQL
//!   1353, MariaDB 4002) and two CTEs of one name (MySQL 1066, MariaDB
//!   4004);
//! - `NULL > ALL (empty subquery)` (true in MariaDB; left out as unsure in
//!   MySQL: only non-NULL left sides meet an empty ALL here).
//!
//! Known MariaDB 10.11 wrong answers the random test may meet with other
//! seeds: with three windows of different orders over a LEFT JOIN
//! (`SUM(t2.id) OVER (ORDER BY t3.d), COUNT(*) OVER (), MIN(t2.c) OVER
//! (PARTITION BY t3.c) FROM t2 JOIN t3 ON t3.c < t2.id LEFT JOIN t1 ON ...`,
//! seed 77, 10 000 queries) MariaDB gives partition minimums that no row
//! of the partition holds; quire's answer is the right one. With an
//! equality join repeated as `<=>` in WHERE (`t2 JOIN t3 ON t3.c =
//! t2.t1_id WHERE t3.c <=> t2.t1_id`, seed 7, 10 000 queries) MariaDB
//! joins the NULL keys with each other (20 rows where 16 match); so with
//! `t3.c IN (SELECT q1.t1_id FROM t2 q1 WHERE q1.t1_id <=> t3.c)` (seed 9,
//! 5 000 queries), where MariaDB keeps the rows of a NULL `t3.c`.
//!
//! The random test: QUIRE_DIFFQ_QUERIES / QUIRE_DIFFQ_SEED override its
//! query count and seed; `QUIRE_DIFFQ_PRINT=/tmp/q.sql cargo test -p
//! quire-server --test differential_queries random` writes its schema and
//! queries (one statement a line) for `mariadb DB < /tmp/q.sql`;
//! QUIRE_DIFFQ_PRINT=1 prints them instead (with `-- --nocapture`).

mod oracle;

use oracle::{answer, assert_same, same_on_both, Answer, MariaDb, Quire};

/// How many random queries the random test runs (QUIRE_DIFFQ_QUERIES).
const RANDOM_QUERIES: usize = 300;
/// The random test's seed (QUIRE_DIFFQ_SEED, decimal or 0x-hex).
const RANDOM_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Runs `schema` then `queries` on a fresh quire and on MariaDB, in a
/// fresh database `db`, and asserts the same answers statement by
/// statement.
fn same_after(db: &str, schema: &[&str], queries: &[&str]) {
    let all: Vec<&str> = schema.iter().chain(queries).copied().collect();
    same_on_both(db, &all);
}

/// Departments, employees (a secondary index on dept_id, a NULL and a
/// dangling dept_id, a self-reference boss_id), projects (an index on
/// budget, a dangling and a NULL dept_id) and assignments (two alike but
/// for their key, a dangling emp_id).
const COMPANY: &[&str] = &[
    "CREATE TABLE dept (id INT PRIMARY KEY, name VARCHAR(20), region VARCHAR(10))",
    "INSERT INTO dept VALUES (1, 'eng', 'north'), (2, 'ops', 'south'), (3, 'sales', 'north'), (4, 'legal', NULL)",
    "CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(20), dept_id INT, boss_id INT, salary INT, KEY (dept_id))",
    "INSERT INTO emp VALUES (1, 'ann', 1, NULL, 100), (2, 'bob', 1, 1, 80), (3, 'cid', 2, 1, 80), (4, 'dee', 2, 3, 60), (5, 'eve', NULL, 1, 70), (6, 'fay', 9, 2, 50), (7, 'gus', 1, 2, NULL)",
    "CREATE TABLE proj (proj_id INT PRIMARY KEY, dept_id INT, title VARCHAR(20), budget INT, INDEX (budget))",
    "INSERT INTO proj VALUES (10, 1, 'core', 500), (11, 1, 'ui', 200), (12, 2, 'infra', 300), (13, 5, 'ghost', 100), (14, NULL, 'misc', NULL)",
    "CREATE TABLE assign (assign_id INT PRIMARY KEY, emp_id INT, proj_id INT, hours INT)",
    "INSERT INTO assign VALUES (1, 1, 10, 5), (2, 2, 10, 3), (3, 2, 11, 3), (4, 3, 12, 8), (5, 3, 12, 8), (6, 7, 10, NULL), (7, 9, 10, 1)",
];

/// Inner joins in every spelling (comma + WHERE, JOIN ... ON, USING,
/// NATURAL, CROSS, STRAIGHT_JOIN), of 2, 3 and 4 tables and self-joins,
/// on a primary key, a secondary index, an unindexed column, an expression
/// and a non-equality, keep exactly the matching rows.
#[test]
fn inner_joins_match_the_rows_mariadb_matches() {
    same_after(
        "diffq_inner",
        COMPANY,
        &[
            "SELECT e.name, d.name FROM emp e, dept d WHERE e.dept_id = d.id ORDER BY e.id",
            "SELECT e.name, d.name, d.region FROM emp AS e JOIN dept AS d ON e.dept_id = d.id ORDER BY e.id",
            "SELECT e.name FROM emp e INNER JOIN dept d ON d.id = e.dept_id WHERE d.region = 'north' AND e.salary >= 80 ORDER BY e.name",
            "SELECT emp.name, dept.name FROM emp JOIN dept ON emp.dept_id = dept.id WHERE dept.id > 1 ORDER BY emp.name",
            // USING and NATURAL: SELECT * shows the joined columns once, first.
            "SELECT * FROM emp JOIN proj USING (dept_id) ORDER BY emp.id, proj.proj_id",
            "SELECT dept_id, emp.name, proj.title FROM emp JOIN proj USING (dept_id) WHERE dept_id = 1 ORDER BY emp.id, proj.proj_id",
            "SELECT * FROM proj NATURAL JOIN assign ORDER BY proj_id, assign_id",
            "SELECT proj_id, title, COUNT(*) FROM proj NATURAL JOIN assign GROUP BY proj_id, title ORDER BY proj_id",
            "SELECT d.name, p.title FROM dept d CROSS JOIN proj p WHERE d.id <= 2 ORDER BY d.id, p.proj_id",
            "SELECT COUNT(*) FROM dept CROSS JOIN emp",
            "SELECT COUNT(*) FROM dept JOIN emp",
            "SELECT e.name, d.name FROM emp e STRAIGHT_JOIN dept d ON e.dept_id = d.id ORDER BY e.id",
            "SELECT STRAIGHT_JOIN d.name, e.name FROM dept d, emp e WHERE e.dept_id = d.id AND e.salary > 60 ORDER BY d.id, e.id",
            "SELECT e.name, p.title, a.hours FROM emp e JOIN assign a ON a.emp_id = e.id JOIN proj p ON p.proj_id = a.proj_id ORDER BY e.id, p.proj_id, a.hours",
            "SELECT e.name, p.title, a.hours FROM emp e, assign a, proj p WHERE a.emp_id = e.id AND p.proj_id = a.proj_id AND a.hours > 3 ORDER BY e.id, p.proj_id",
            "SELECT d.name, e.name, p.title, a.hours FROM dept d JOIN emp e ON e.dept_id = d.id JOIN assign a ON a.emp_id = e.id JOIN proj p ON p.proj_id = a.proj_id AND p.dept_id = d.id ORDER BY d.id, e.id, p.proj_id, a.hours",
            // Self-joins through aliases.
            "SELECT e.name, b.name FROM emp e JOIN emp b ON e.boss_id = b.id ORDER BY e.id",
            "SELECT b.name, COUNT(*) FROM emp e JOIN emp b ON e.boss_id = b.id GROUP BY b.id, b.name ORDER BY b.id",
            "SELECT e.name, b.name, bb.name FROM emp e JOIN emp b ON e.boss_id = b.id JOIN emp bb ON b.boss_id = bb.id ORDER BY e.id",
            // Secondary index, unindexed column, expression, non-equality.
            "SELECT d.name, e.name FROM dept d JOIN emp e ON e.dept_id = d.id ORDER BY d.id, e.id",
            "SELECT e1.name, e2.name FROM emp e1 JOIN emp e2 ON e1.salary = e2.salary AND e1.id < e2.id ORDER BY e1.id, e2.id",
            "SELECT p.title, e.name FROM proj p JOIN emp e ON p.budget = e.salary * 5 ORDER BY p.proj_id, e.id",
            "SELECT e.id, n.id, n.name FROM emp e JOIN emp n ON n.id = e.id + 1 ORDER BY e.id",
            "SELECT e.name, p.title FROM emp e JOIN proj p ON e.salary * 3 < p.budget ORDER BY e.id, p.proj_id",
            "SELECT d1.id, d2.id FROM dept d1 JOIN dept d2 ON d1.id < d2.id ORDER BY d1.id, d2.id",
            "SELECT e.name, p.title FROM emp e JOIN proj p ON p.budget BETWEEN e.salary * 2 AND e.salary * 4 ORDER BY e.id, p.proj_id",
        ],
    );
}

/// Over inner joins: GROUP BY / HAVING with aggregates, DISTINCT,
/// `SELECT *` and `t.*`, ORDER BY columns of both sides, LIMIT / OFFSET.
#[test]
fn grouping_distinct_star_and_limit_over_inner_joins_answer_as_mariadb_does() {
    same_after(
        "diffq_inner_shape",
        COMPANY,
        &[
            "SELECT d.name, COUNT(*), SUM(e.salary), MIN(e.salary), MAX(e.salary) FROM dept d JOIN emp e ON e.dept_id = d.id GROUP BY d.id, d.name ORDER BY d.id",
            "SELECT d.name, COUNT(e.salary) FROM dept d JOIN emp e ON e.dept_id = d.id GROUP BY d.name HAVING COUNT(*) > 2 ORDER BY d.name",
            "SELECT p.title, SUM(a.hours), COUNT(DISTINCT a.emp_id) FROM proj p JOIN assign a ON a.proj_id = p.proj_id GROUP BY p.title HAVING SUM(a.hours) >= 6 ORDER BY p.title",
            "SELECT d.region, COUNT(*) FROM dept d JOIN emp e ON e.dept_id = d.id GROUP BY d.region ORDER BY d.region",
            "SELECT DISTINCT d.region FROM dept d JOIN emp e ON e.dept_id = d.id ORDER BY d.region",
            "SELECT DISTINCT e.name FROM emp e JOIN assign a ON a.emp_id = e.id ORDER BY e.name",
            "SELECT DISTINCT a.emp_id, a.proj_id, a.hours FROM assign a JOIN proj p ON p.proj_id = a.proj_id ORDER BY a.emp_id, a.proj_id",
            "SELECT * FROM dept d JOIN emp e ON e.dept_id = d.id ORDER BY e.id",
            "SELECT e.*, d.name FROM emp e JOIN dept d ON e.dept_id = d.id ORDER BY e.id",
            "SELECT d.*, a.* FROM dept d JOIN emp e ON e.dept_id = d.id JOIN assign a ON a.emp_id = e.id ORDER BY d.id, a.assign_id",
            "SELECT d.name, e.name, e.salary FROM dept d JOIN emp e ON e.dept_id = d.id ORDER BY d.region DESC, e.salary, e.id",
            "SELECT e.name, d.name FROM emp e JOIN dept d ON e.dept_id = d.id ORDER BY d.name DESC, e.name LIMIT 3",
            "SELECT e.name, d.name FROM emp e JOIN dept d ON e.dept_id = d.id ORDER BY e.id LIMIT 2 OFFSET 2",
            "SELECT e.name, p.title FROM emp e JOIN proj p ON p.dept_id = e.dept_id ORDER BY p.budget DESC, e.id LIMIT 4, 3",
        ],
    );
}

/// a -< b -< c by a_id / b_id, with unmatched rows on every side and NULL
/// keys; u shares a's column names (id, x) for USING / NATURAL, with a
/// duplicate id (and a key of its own, uid, last).
const CHAIN: &[&str] = &[
    "CREATE TABLE a (id INT PRIMARY KEY, x INT, tag VARCHAR(10))",
    "INSERT INTO a VALUES (1, 10, 'p'), (2, 20, 'q'), (3, NULL, 'r'), (4, 20, NULL), (5, 50, 'p')",
    "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, y INT, KEY (a_id))",
    "INSERT INTO b VALUES (1, 1, 100), (2, 1, NULL), (3, 2, 300), (4, 9, 400), (5, NULL, 500), (6, 4, 600)",
    "CREATE TABLE c (id INT PRIMARY KEY, b_id INT, z VARCHAR(10))",
    "INSERT INTO c VALUES (1, 1, 'one'), (2, 3, 'three'), (3, 3, 'drei'), (4, 7, 'seven'), (5, NULL, NULL)",
    "CREATE TABLE u (id INT, x INT, note VARCHAR(10), uid INT PRIMARY KEY)",
    "INSERT INTO u VALUES (1, 10, 'u1', 1), (2, 99, 'u2', 2), (2, 20, 'u2b', 3), (7, NULL, 'u7', 4)",
];

/// LEFT / RIGHT joins keep the unmatched rows with NULLs: conditions in ON
/// against the same ones in WHERE (the IS NULL anti-join; ON on the right
/// table only; ON on the left table only, which keeps every left row),
/// chains of outer joins, outer after inner and inner after outer, and
/// parenthesised nested joins.
#[test]
fn outer_joins_keep_unmatched_rows_as_mariadb_does() {
    same_after(
        "diffq_outer",
        CHAIN,
        &[
            "SELECT a.id, b.id, b.y FROM a LEFT JOIN b ON b.a_id = a.id ORDER BY a.id, b.id",
            "SELECT a.id, b.id FROM a LEFT OUTER JOIN b ON b.a_id = a.id ORDER BY a.id, b.id",
            "SELECT a.id, b.id FROM b RIGHT JOIN a ON b.a_id = a.id ORDER BY a.id, b.id",
            "SELECT a.id, a.tag, b.id FROM a RIGHT JOIN b ON b.a_id = a.id ORDER BY b.id",
            "SELECT a.id FROM a LEFT JOIN b ON b.a_id = a.id WHERE b.id IS NULL ORDER BY a.id",
            "SELECT b.id FROM a RIGHT JOIN b ON b.a_id = a.id WHERE a.id IS NULL ORDER BY b.id",
            "SELECT a.id, b.id, b.y FROM a LEFT JOIN b ON b.a_id = a.id AND b.y > 150 ORDER BY a.id, b.id",
            "SELECT a.id, b.id, b.y FROM a LEFT JOIN b ON b.a_id = a.id WHERE b.y > 150 ORDER BY a.id, b.id",
            "SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id AND a.x = 20 ORDER BY a.id, b.id",
            "SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id WHERE a.x = 20 ORDER BY a.id, b.id",
            "SELECT a.id, b.id FROM a LEFT JOIN b ON 1 = 0 ORDER BY a.id",
            "SELECT a.id, b.id, b.y FROM a LEFT JOIN b ON b.a_id = a.id WHERE b.y IS NULL ORDER BY a.id, b.id",
            "SELECT a.id, b.id, c.id, c.z FROM a LEFT JOIN b ON b.a_id = a.id LEFT JOIN c ON c.b_id = b.id ORDER BY a.id, b.id, c.id",
            "SELECT a.id, b.id, c.z FROM a JOIN b ON b.a_id = a.id LEFT JOIN c ON c.b_id = b.id ORDER BY a.id, b.id, c.id",
            "SELECT a.id, b.id, c.z FROM a LEFT JOIN b ON b.a_id = a.id JOIN c ON c.b_id = b.id ORDER BY a.id, b.id, c.id",
            "SELECT a.id, b.id, c.id FROM a LEFT JOIN (b JOIN c ON c.b_id = b.id) ON b.a_id = a.id ORDER BY a.id, b.id, c.id",
            "SELECT a.id, b.id, c.id FROM a LEFT JOIN (b LEFT JOIN c ON c.b_id = b.id) ON b.a_id = a.id AND b.y IS NOT NULL ORDER BY a.id, b.id, c.id",
            "SELECT a.id, b.id, c.id FROM a RIGHT JOIN b ON b.a_id = a.id LEFT JOIN c ON c.b_id = b.id ORDER BY b.id, c.id",
            "SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id ORDER BY a.id DESC, b.id DESC LIMIT 3",
            "SELECT a.id, b.id, c.id FROM a LEFT JOIN b ON b.a_id = a.id RIGHT JOIN c ON c.b_id = b.id ORDER BY c.id",
            "SELECT a.id, x.id, x.y FROM a LEFT JOIN b AS x ON x.a_id = a.id LEFT JOIN b AS y2 ON y2.a_id = a.id AND y2.id > x.id WHERE y2.id IS NULL ORDER BY a.id",
        ],
    );
}

/// Over outer joins: COUNT(col) against COUNT(*) with GROUP BY, USING and
/// NATURAL LEFT JOIN (the merged column once, first, then the left
/// table's, then the right's), COALESCE / IFNULL over unmatched sides.
#[test]
fn counts_using_and_coalesce_over_outer_joins_answer_as_mariadb_does() {
    same_after(
        "diffq_outer_shape",
        CHAIN,
        &[
            "SELECT a.id, COUNT(b.id), COUNT(*), COUNT(b.y), SUM(b.y), MAX(b.y) FROM a LEFT JOIN b ON b.a_id = a.id GROUP BY a.id ORDER BY a.id",
            "SELECT a.tag, COUNT(b.id) FROM a LEFT JOIN b ON b.a_id = a.id GROUP BY a.tag ORDER BY a.tag",
            "SELECT a.id, COUNT(c.id) FROM a LEFT JOIN b ON b.a_id = a.id LEFT JOIN c ON c.b_id = b.id GROUP BY a.id HAVING COUNT(c.id) = 0 ORDER BY a.id",
            "SELECT * FROM a LEFT JOIN u USING (id) ORDER BY id, u.note",
            "SELECT * FROM a LEFT JOIN u USING (id, x) ORDER BY id",
            "SELECT * FROM a NATURAL LEFT JOIN u ORDER BY id",
            "SELECT id, a.x, u.x, u.note FROM a LEFT JOIN u USING (id) WHERE u.note IS NULL ORDER BY id",
            "SELECT a.id, COALESCE(b.y, -1), COALESCE(c.z, 'none'), IFNULL(b.id, 0) FROM a LEFT JOIN b ON b.a_id = a.id LEFT JOIN c ON c.b_id = b.id ORDER BY a.id, b.id, c.id",
            "SELECT COALESCE(a.tag, '?'), COALESCE(b.y, a.x) FROM b RIGHT JOIN a ON a.id = b.a_id ORDER BY a.id, b.id",
            "SELECT a.id, u.note FROM a LEFT JOIN u ON u.x > a.x ORDER BY a.id, u.note",
            "SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id WHERE a.tag = 'p' ORDER BY a.id, b.id",
            "SELECT COUNT(*), COUNT(b.id), COUNT(c.id) FROM a LEFT JOIN b ON b.a_id = a.id LEFT JOIN c ON c.b_id = b.id",
            "SELECT DISTINCT a.tag FROM a LEFT JOIN b ON b.a_id = a.id WHERE b.id IS NOT NULL ORDER BY a.tag",
        ],
    );
}

/// s and r share k (NULLs on both sides, duplicates in r); nn has no NULL;
/// e is empty.
const KEYED: &[&str] = &[
    "CREATE TABLE s (id INT PRIMARY KEY, k INT, v INT, name VARCHAR(10))",
    "INSERT INTO s VALUES (1, 1, 10, 'a'), (2, 1, 20, 'b'), (3, 2, 30, 'c'), (4, 3, NULL, 'd'), (5, NULL, 50, 'e'), (6, 2, 30, 'f')",
    "CREATE TABLE r (id INT PRIMARY KEY, k INT, w INT, KEY (k))",
    "INSERT INTO r VALUES (1, 1, 15), (2, 2, 30), (3, 2, 5), (4, 4, 40), (5, NULL, NULL)",
    "CREATE TABLE nn (id INT PRIMARY KEY, k INT NOT NULL)",
    "INSERT INTO nn VALUES (1, 1), (2, 3), (3, 3)",
    "CREATE TABLE e (id INT PRIMARY KEY, k INT)",
];

/// Scalar subqueries in the select list, WHERE and HAVING, correlated and
/// not: no row gives NULL, two rows are error 1242, two columns error
/// 1241.
#[test]
fn scalar_subqueries_answer_as_mariadb_does() {
    same_after(
        "diffq_scalar",
        KEYED,
        &[
            "SELECT s.id, (SELECT MAX(r.w) FROM r) FROM s ORDER BY s.id",
            "SELECT s.id, (SELECT MAX(r.w) FROM r WHERE r.k = s.k) AS m FROM s ORDER BY s.id",
            "SELECT s.id, (SELECT COUNT(*) FROM r WHERE r.k = s.k), (SELECT SUM(r.w) FROM r WHERE r.k <= s.k) FROM s ORDER BY s.id",
            "SELECT s.id, (SELECT r.w FROM r WHERE r.k = s.k AND r.id = 1) FROM s ORDER BY s.id",
            "SELECT (SELECT w FROM r WHERE id = 99), (SELECT COUNT(*) FROM e), (SELECT MAX(k) FROM e)",
            // More than one row: 1242.
            "SELECT s.id, (SELECT r.w FROM r WHERE r.k = s.k) FROM s ORDER BY s.id",
            "SELECT (SELECT w FROM r)",
            "SELECT s.id FROM s WHERE s.v > (SELECT AVG(r.w) FROM r) ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.v = (SELECT MAX(r.w) FROM r WHERE r.k = s.k) ORDER BY s.id",
            "SELECT s.id FROM s WHERE (SELECT COUNT(*) FROM r WHERE r.k = s.k) = 0 ORDER BY s.id",
            "SELECT s.k, SUM(s.v) FROM s GROUP BY s.k HAVING SUM(s.v) > (SELECT MIN(r.w) FROM r) ORDER BY s.k",
            "SELECT s.k, COUNT(*) FROM s GROUP BY s.k HAVING COUNT(*) >= (SELECT COUNT(*) FROM r WHERE r.k = s.k) ORDER BY s.k",
            // Two columns where one is needed: 1241. (Not `s.k = (SELECT r.k,
            // r.w ...)`: MySQL says 1241 there, MariaDB 4078.)
            "SELECT s.id FROM s WHERE s.k IN (SELECT r.k, r.w FROM r)",
            "SELECT (SELECT id, k FROM r WHERE id = 1) FROM s",
        ],
    );
}

/// IN / NOT IN (SELECT ...) with NULLs on either side (NOT IN over a NULL
/// finds nothing), EXISTS / NOT EXISTS correlated, = ANY, > ALL, < SOME,
/// <> ALL, ALL over an empty subquery, and subqueries two deep reading the
/// outermost row.
#[test]
fn in_exists_and_quantified_subqueries_answer_as_mariadb_does() {
    same_after(
        "diffq_in_exists",
        KEYED,
        &[
            "SELECT s.id FROM s WHERE s.k IN (SELECT r.k FROM r) ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.k IN (SELECT r.k FROM r WHERE r.w > 10) ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.k NOT IN (SELECT r.k FROM r) ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.k NOT IN (SELECT r.k FROM r WHERE r.k IS NOT NULL) ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.k NOT IN (SELECT nn.k FROM nn) ORDER BY s.id",
            "SELECT s.id, s.k IN (SELECT nn.k FROM nn), s.k NOT IN (SELECT nn.k FROM nn), s.k IN (SELECT r.k FROM r) FROM s ORDER BY s.id",
            "SELECT NULL IN (SELECT k FROM e), NULL NOT IN (SELECT k FROM e), 1 IN (SELECT k FROM e), NULL IN (SELECT k FROM nn)",
            "SELECT s.id FROM s WHERE s.v IN (SELECT r.w FROM r WHERE r.k = s.k) ORDER BY s.id",
            "SELECT s.id FROM s WHERE (s.k, s.v) IN (SELECT r.k, r.w FROM r) ORDER BY s.id",
            "SELECT s.id FROM s WHERE EXISTS (SELECT 1 FROM r WHERE r.k = s.k) ORDER BY s.id",
            "SELECT s.id FROM s WHERE NOT EXISTS (SELECT * FROM r WHERE r.k = s.k) ORDER BY s.id",
            "SELECT s.id, EXISTS (SELECT * FROM r WHERE r.w > s.v), NOT EXISTS (SELECT 1 FROM e) FROM s ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.v = ANY (SELECT r.w FROM r) ORDER BY s.id",
            "SELECT s.id, s.v > ALL (SELECT r.w FROM r), s.v > ALL (SELECT r.w FROM r WHERE r.w IS NOT NULL) FROM s ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.v > ALL (SELECT r.w FROM r WHERE r.w IS NOT NULL) ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.v < SOME (SELECT r.w FROM r) ORDER BY s.id",
            "SELECT s.id FROM s WHERE s.k <> ALL (SELECT nn.k FROM nn) ORDER BY s.id",
            "SELECT s.id, s.v >= ANY (SELECT r.w FROM r WHERE r.k = s.k) FROM s ORDER BY s.id",
            // ALL over an empty subquery is true (for a non-NULL left side).
            "SELECT s.id FROM s WHERE s.v IS NOT NULL AND s.v > ALL (SELECT e.k FROM e) ORDER BY s.id",
            // Two deep, the innermost reading s.
            "SELECT s.id FROM s WHERE EXISTS (SELECT 1 FROM r WHERE r.k = s.k AND r.w < (SELECT MAX(nn.k) * 10 FROM nn WHERE nn.k <= s.k)) ORDER BY s.id",
            "SELECT s.id, (SELECT COUNT(*) FROM r WHERE r.k IN (SELECT nn.k FROM nn WHERE nn.k >= s.k)) FROM s ORDER BY s.id",
        ],
    );
}

/// A subquery in UPDATE's SET and in the WHERE of UPDATE and DELETE (over
/// another table): the affected rows, the info text and the rows after.
#[test]
fn update_and_delete_with_subqueries_change_what_mariadb_changes() {
    same_after(
        "diffq_dml_sub",
        KEYED,
        &[
            "UPDATE s SET v = (SELECT MAX(r.w) FROM r WHERE r.k = s.k)",
            "SELECT id, k, v FROM s ORDER BY id",
            "UPDATE s SET name = 'z' WHERE k IN (SELECT nn.k FROM nn)",
            "SELECT id, name FROM s ORDER BY id",
            "DELETE FROM s WHERE id IN (SELECT r.id FROM r WHERE r.w > 10)",
            "SELECT id, k, v, name FROM s ORDER BY id",
            "DELETE FROM r WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.k = r.k)",
            "SELECT id, k, w FROM r ORDER BY id",
        ],
    );
}

/// Derived tables (alone, joined, LEFT JOINed, with aggregates, DISTINCT,
/// LIMIT inside, nested) and CTEs (one, two where the second reads the
/// first, one read twice, with a column list, inside a subquery).
/// Left out: a derived table without an alias (MySQL 1248, MariaDB 1064),
/// `AS d (a, b)` (MariaDB 10.11 does not parse it), a CTE column list of
/// the wrong length (MySQL 1353, MariaDB 4002), a repeated CTE name (MySQL
/// 1066, MariaDB 4004).
#[test]
fn derived_tables_and_ctes_answer_as_mariadb_does() {
    same_after(
        "diffq_derived",
        &[
            "CREATE TABLE s (id INT PRIMARY KEY, k INT, v INT, name VARCHAR(10))",
            "INSERT INTO s VALUES (1, 1, 10, 'a'), (2, 1, 20, 'b'), (3, 2, 30, 'c'), (4, 3, NULL, 'd'), (5, NULL, 50, 'e'), (6, 2, 30, 'f'), (7, 4, 5, 'g')",
            "CREATE TABLE r (id INT PRIMARY KEY, k INT, w INT)",
            "INSERT INTO r VALUES (1, 1, 15), (2, 2, 30), (3, 2, 5), (4, 5, 40), (5, NULL, NULL)",
        ],
        &[
            "SELECT d.k, d.total, d.n FROM (SELECT k, SUM(v) AS total, COUNT(*) AS n FROM s GROUP BY k) AS d ORDER BY d.k",
            "SELECT * FROM (SELECT id, v FROM s WHERE v > 5) AS d WHERE d.v < 50 ORDER BY d.id",
            "SELECT s.id, d.total FROM s JOIN (SELECT k, SUM(v) AS total FROM s GROUP BY k) d ON d.k = s.k ORDER BY s.id",
            "SELECT r.id, d.mx FROM r LEFT JOIN (SELECT k, MAX(v) AS mx FROM s GROUP BY k) AS d ON d.k = r.k ORDER BY r.id",
            "SELECT * FROM (SELECT id FROM s ORDER BY id DESC LIMIT 2) d ORDER BY id",
            "SELECT COUNT(*), SUM(k) FROM (SELECT DISTINCT k FROM s) AS d",
            "SELECT dd.k FROM (SELECT d.k FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k) AS d WHERE d.n > 1) AS dd ORDER BY dd.k",
            "SELECT d.k, d.n, r.w FROM (SELECT k, COUNT(*) AS n FROM s WHERE k IS NOT NULL GROUP BY k) d JOIN r ON r.k = d.k ORDER BY d.k, r.w",
            "SELECT MAX(d.total) FROM (SELECT k, SUM(v) AS total FROM s GROUP BY k) AS d",
            // Two columns of one name in a derived table: 1060.
            "SELECT * FROM (SELECT 1 AS x, 2 AS x) AS d",
            "WITH c AS (SELECT k, COUNT(*) AS n FROM s GROUP BY k) SELECT * FROM c ORDER BY k",
            "WITH c AS (SELECT id, v FROM s WHERE v >= 20) SELECT s.name, c.v FROM s JOIN c ON c.id = s.id ORDER BY s.id",
            "WITH c1 AS (SELECT k, v FROM s WHERE v IS NOT NULL), c2 AS (SELECT k, MAX(v) AS m, MIN(v) AS lo FROM c1 GROUP BY k) SELECT k, m, lo FROM c2 ORDER BY k",
            "WITH t AS (SELECT k, SUM(v) AS total FROM s GROUP BY k) SELECT x.k, y.k FROM t x JOIN t y ON x.total < y.total ORDER BY x.k, y.k",
            "WITH t AS (SELECT k, SUM(v) AS total FROM s GROUP BY k) SELECT k, total FROM t WHERE total = (SELECT MAX(total) FROM t)",
            "WITH c (kk, n) AS (SELECT k, COUNT(*) FROM s GROUP BY k) SELECT kk, n FROM c ORDER BY kk",
            "WITH c (kk, n) AS (SELECT k, COUNT(*) FROM s GROUP BY k) SELECT c.kk, r.w FROM c LEFT JOIN r ON r.k = c.kk ORDER BY c.kk, r.w",
            "WITH c AS (SELECT k FROM r WHERE w > 10) SELECT id FROM s WHERE k IN (SELECT k FROM c) ORDER BY id",
            "SELECT id FROM s WHERE k IN (WITH c AS (SELECT k FROM r WHERE w > 10) SELECT k FROM c) ORDER BY id",
            "WITH c AS (SELECT k, v FROM s) SELECT * FROM (SELECT k, MAX(v) AS m FROM c GROUP BY k) AS d WHERE d.m > 10 ORDER BY d.k",
            "WITH c (a, b) AS (SELECT 1, 2) SELECT a + b FROM c",
        ],
    );
}

/// p and q share n and s, with NULLs and duplicates on both sides.
const TWO_BAGS: &[&str] = &[
    "CREATE TABLE p (id INT PRIMARY KEY, n INT, s VARCHAR(10), d DECIMAL(5,2))",
    "INSERT INTO p VALUES (1, 1, 'a', 1.50), (2, 2, 'b', 2.00), (3, 2, 'b', NULL), (4, 3, NULL, 3.25), (5, NULL, 'c', 1.50)",
    "CREATE TABLE q (id INT PRIMARY KEY, n INT, s VARCHAR(10))",
    "INSERT INTO q VALUES (1, 2, 'b'), (2, 2, 'x'), (3, 4, 'd'), (4, NULL, 'c'), (5, NULL, NULL), (6, 4, 'd')",
];

/// UNION / UNION ALL / UNION DISTINCT, EXCEPT, INTERSECT and their ALL
/// forms (NULLs equal to each other, duplicates counted), INTERSECT binding
/// tighter than UNION and EXCEPT, parentheses, and a DISTINCT union
/// swallowing an ALL to its left.
/// Recursive common table expressions: counting, UNION DISTINCT reaching
/// a fixpoint, walking a tree by a join with the working table, two
/// columns (Fibonacci), a recursive CTE read by a join and an aggregate.
#[test]
fn recursive_ctes_answer_as_mariadb_does() {
    same_after(
        "diffq_recursive",
        COMPANY,
        &[
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10) SELECT * FROM c ORDER BY n",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) SELECT COUNT(*), SUM(n) FROM c",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT n % 3 + 1 FROM c) SELECT * FROM c ORDER BY n",
            "WITH RECURSIVE fib(a, b) AS (SELECT 0, 1 UNION ALL SELECT b, a + b FROM fib WHERE b < 100) SELECT a FROM fib ORDER BY a",
            "WITH RECURSIVE chain(id, name, depth) AS (SELECT id, name, 0 FROM emp WHERE boss_id IS NULL \
             UNION ALL SELECT e.id, e.name, chain.depth + 1 FROM emp e JOIN chain ON e.boss_id = chain.id) \
             SELECT id, name, depth FROM chain ORDER BY id",
            "WITH RECURSIVE up(id, boss_id) AS (SELECT id, boss_id FROM emp WHERE id = 4 \
             UNION ALL SELECT emp.id, emp.boss_id FROM up, emp WHERE emp.id = up.boss_id) SELECT id FROM up ORDER BY id",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) \
             SELECT c.n, COUNT(e.id) FROM c LEFT JOIN emp e ON e.dept_id = c.n GROUP BY c.n ORDER BY c.n",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3), \
             d AS (SELECT n * 10 AS m FROM c) SELECT * FROM d ORDER BY m",
        ],
    );
}

/// MySQL's limits on recursion, which MariaDB spells differently:
/// `cte_max_recursion_depth` (3636), and a recursive reference inside a
/// subquery (3577; MariaDB 4008).
#[test]
fn recursive_cte_limits_answer_as_mysql_does() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("diffq_recursion_limits");
    let runaway =
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1001) SELECT COUNT(*) FROM c";
    assert_eq!(answer(&mut c, runaway), Answer::Err(3636));
    assert_eq!(
        answer(&mut c, "SET SESSION cte_max_recursion_depth = 2000"),
        Answer::Ok { affected: 0, warnings: 0, info: String::new() }
    );
    assert_eq!(answer(&mut c, runaway), Answer::Rows(vec![vec![Some("1001".into())]]));
    let in_subquery = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < (SELECT COUNT(*) FROM c)) SELECT * FROM c";
    assert_eq!(answer(&mut c, in_subquery), Answer::Err(3577));
}

/// Views: read like tables (alone, joined, with their own column names,
/// grouped, views of views), replaced, dropped, and the errors of
/// creating over a name in use (1050), dropping what is not there (1051)
/// and reading a dropped view (1146).
#[test]
fn views_answer_as_mariadb_does() {
    same_after(
        "diffq_views",
        COMPANY,
        &[
            "CREATE VIEW rich AS SELECT id, name, salary, dept_id FROM emp WHERE salary >= 70",
            "SELECT * FROM rich ORDER BY id",
            "SELECT r.name, d.name FROM rich r JOIN dept d ON d.id = r.dept_id ORDER BY r.id",
            "CREATE VIEW per_dept (dept, heads, pay) AS SELECT dept_id, COUNT(*), SUM(salary) FROM emp GROUP BY dept_id",
            "SELECT * FROM per_dept ORDER BY dept",
            "SELECT d.name, p.heads FROM dept d LEFT JOIN per_dept p ON p.dept = d.id ORDER BY d.id",
            "CREATE VIEW rich_north AS SELECT rich.name FROM rich JOIN dept ON dept.id = rich.dept_id WHERE dept.region = 'north'",
            "SELECT * FROM rich_north ORDER BY name",
            "SELECT COUNT(*) FROM rich WHERE id IN (SELECT id FROM rich_north JOIN emp USING (name))",
            "CREATE VIEW rich AS SELECT 1",
            "CREATE VIEW emp AS SELECT 1",
            "CREATE OR REPLACE VIEW rich AS SELECT id, name, salary, dept_id FROM emp WHERE salary >= 80",
            "SELECT * FROM rich_north ORDER BY name",
            "SHOW TABLES",
            "DROP VIEW rich_north, per_dept",
            // DROP VIEW of a missing view: MySQL 8.0 says 1051, MariaDB
            // 4092 (ER_UNKNOWN_VIEW); e2e_sql.rs checks quire's 1051.
            "DROP VIEW IF EXISTS per_dept",
            "SELECT * FROM per_dept",
            "SELECT name FROM rich ORDER BY name",
        ],
    );
}

/// GROUP_CONCAT (DISTINCT, ORDER BY, SEPARATOR, several arguments, NULLs
/// skipped, over a join, cut at group_concat_max_len) and COUNT(DISTINCT
/// a, b).
#[test]
fn group_concat_and_multi_column_count_distinct_answer_as_mariadb_does() {
    same_after(
        "diffq_group_concat",
        COMPANY,
        &[
            "SELECT dept_id, GROUP_CONCAT(name ORDER BY name) FROM emp GROUP BY dept_id ORDER BY dept_id",
            "SELECT GROUP_CONCAT(DISTINCT salary ORDER BY salary DESC SEPARATOR '|') FROM emp",
            "SELECT GROUP_CONCAT(name, ':', salary ORDER BY id SEPARATOR '; ') FROM emp",
            "SELECT GROUP_CONCAT(boss_id ORDER BY id) FROM emp WHERE id > 100",
            "SELECT d.name, GROUP_CONCAT(e.name ORDER BY e.id) FROM dept d LEFT JOIN emp e ON e.dept_id = d.id GROUP BY d.id, d.name ORDER BY d.id",
            "SELECT COUNT(DISTINCT dept_id, salary), COUNT(DISTINCT salary), COUNT(DISTINCT dept_id) FROM emp",
            "SELECT dept_id, COUNT(DISTINCT boss_id, salary) FROM emp GROUP BY dept_id ORDER BY dept_id",
            "SET SESSION group_concat_max_len = 10",
            "SELECT GROUP_CONCAT(name ORDER BY id) FROM emp",
        ],
    );
}

/// Long IN lists (probed by binary search past 8 items, their literals
/// turned into markers by the plan cache): numbers against a string list
/// and strings against a number list (MySQL's conversions), NULL in the
/// list, NOT IN, case and trailing spaces under the default collation.
#[test]
fn long_in_lists_answer_as_mariadb_does() {
    let ints: Vec<String> = (0..60).map(|i| (i * 7 % 50).to_string()).collect();
    let strs: Vec<String> =
        ["ANN", "bob ", "cid", "x", "y", "z", "q", "w", "e", "r", "t"].iter().map(|s| format!("'{s}'")).collect();
    let mixed: Vec<String> =
        (0..20).map(|i| format!("'{i}'")).chain(["'1abc'".to_string(), "NULL".to_string()]).collect();
    let q = [
        format!("SELECT id FROM emp WHERE salary IN ({}) ORDER BY id", ints.join(", ")),
        format!("SELECT id FROM emp WHERE salary NOT IN ({}) ORDER BY id", ints.join(", ")),
        format!("SELECT id FROM emp WHERE name IN ({}) ORDER BY id", strs.join(", ")),
        format!("SELECT id FROM emp WHERE name NOT IN ({}) ORDER BY id", strs.join(", ")),
        format!("SELECT id, id IN ({}) FROM emp ORDER BY id", mixed.join(", ")),
        format!("SELECT id, dept_id NOT IN ({}) FROM emp ORDER BY id", mixed.join(", ")),
        format!(
            "SELECT e.id FROM emp e JOIN dept d ON d.id = e.dept_id WHERE e.boss_id IN ({}) ORDER BY e.id",
            ints.join(", ")
        ),
    ];
    let queries: Vec<&str> = q.iter().map(String::as_str).collect();
    same_after("diffq_in_lists", COMPANY, &queries);
}

#[test]
fn set_operations_answer_as_mariadb_does() {
    same_after(
        "diffq_setops",
        TWO_BAGS,
        &[
            "SELECT n FROM p UNION SELECT n FROM q ORDER BY n",
            "SELECT n FROM p UNION ALL SELECT n FROM q ORDER BY n",
            "SELECT n, s FROM p UNION DISTINCT SELECT n, s FROM q ORDER BY n, s",
            "SELECT n, s FROM p UNION ALL SELECT n, s FROM q ORDER BY n, s",
            "SELECT n FROM p EXCEPT SELECT n FROM q ORDER BY n",
            "SELECT n, s FROM q EXCEPT SELECT n, s FROM p ORDER BY n, s",
            "SELECT n FROM p INTERSECT SELECT n FROM q ORDER BY n",
            "SELECT n, s FROM p INTERSECT SELECT n, s FROM q ORDER BY n, s",
            "SELECT n FROM p EXCEPT ALL SELECT n FROM q ORDER BY n",
            "SELECT n FROM q EXCEPT ALL SELECT n FROM p ORDER BY n",
            "SELECT n FROM p INTERSECT ALL SELECT n FROM q ORDER BY n",
            "SELECT n FROM q INTERSECT DISTINCT SELECT n FROM p ORDER BY n",
            "SELECT n FROM p UNION SELECT n FROM q INTERSECT SELECT 4 ORDER BY n",
            "(SELECT n FROM p UNION SELECT n FROM q) INTERSECT SELECT 4 ORDER BY n",
            "SELECT 4 INTERSECT SELECT n FROM q UNION SELECT n FROM p ORDER BY 1",
            "SELECT n FROM p EXCEPT SELECT n FROM q UNION SELECT 9 ORDER BY n",
            "SELECT n FROM p EXCEPT (SELECT n FROM q UNION SELECT 1) ORDER BY n",
            "SELECT n FROM p UNION ALL SELECT n FROM q UNION SELECT 7 ORDER BY n",
            "SELECT n FROM p UNION SELECT n FROM q UNION ALL SELECT 2 ORDER BY n",
        ],
    );
}

/// Over set operations: ORDER BY / LIMIT of the whole (by the first
/// SELECT's name or alias, by position), parenthesised operands with their
/// own ORDER BY / LIMIT, column types merged (INT with DECIMAL, INT with
/// VARCHAR), different column counts (1222), and set operations inside a
/// derived table, IN (...), EXISTS and a CTE.
#[test]
fn ordering_types_and_nesting_of_set_operations_answer_as_mariadb_does() {
    same_after(
        "diffq_setops_shape",
        TWO_BAGS,
        &[
            "(SELECT n FROM p) UNION (SELECT n FROM q) ORDER BY n DESC",
            "(SELECT n FROM p ORDER BY n LIMIT 2) UNION ALL (SELECT n FROM q ORDER BY n DESC LIMIT 2) ORDER BY n",
            "SELECT id, n FROM p UNION ALL SELECT id, n FROM q ORDER BY id DESC, n LIMIT 4",
            "SELECT id, n FROM p UNION ALL SELECT id, n FROM q ORDER BY 2 DESC, 1 LIMIT 3 OFFSET 2",
            "SELECT n AS num FROM p UNION SELECT id FROM q ORDER BY num DESC",
            "SELECT id, s FROM p WHERE n > 1 UNION SELECT id, s FROM q WHERE n < 4 ORDER BY s DESC, id",
            "SELECT 'p', id FROM p UNION ALL SELECT 'q', id FROM q ORDER BY 1, 2",
            "SELECT n FROM p UNION SELECT d FROM p ORDER BY 1",
            "SELECT d FROM p UNION ALL SELECT n FROM q ORDER BY 1",
            "SELECT n FROM p UNION SELECT s FROM q ORDER BY 1",
            "SELECT s FROM p UNION SELECT n FROM q ORDER BY 1",
            "SELECT n, s FROM p UNION SELECT n FROM q",
            "SELECT n FROM p INTERSECT SELECT n, s FROM q",
            "SELECT n FROM p EXCEPT SELECT id, n, s FROM q",
            "SELECT COUNT(*), SUM(n) FROM (SELECT n FROM p UNION SELECT n FROM q) AS un",
            "SELECT un.n, COUNT(*) FROM (SELECT n FROM p UNION ALL SELECT n FROM q) AS un GROUP BY un.n ORDER BY un.n",
            "SELECT * FROM (SELECT n FROM p INTERSECT SELECT n FROM q) AS i ORDER BY n",
            "SELECT id FROM p WHERE n IN (SELECT n FROM q UNION SELECT 1) ORDER BY id",
            "SELECT id FROM p WHERE n NOT IN (SELECT n FROM q WHERE n IS NOT NULL UNION ALL SELECT 3) ORDER BY id",
            "SELECT id FROM p WHERE EXISTS (SELECT n FROM q WHERE q.n = p.n EXCEPT SELECT 4) ORDER BY id",
            "WITH c AS (SELECT n FROM p UNION SELECT n FROM q) SELECT MAX(n), MIN(n), COUNT(n) FROM c",
        ],
    );
}

/// Name resolution over joins: an ambiguous column anywhere (1052), an
/// unknown column or qualifier (1054), `t.*` of an unknown table (1051), a
/// table or alias used twice (1066), an unknown table (1146), ORDER BY a
/// position past the select list (1054).
#[test]
fn join_name_errors_answer_as_mariadb_does() {
    same_after(
        "diffq_errors",
        &[
            "CREATE TABLE a (id INT PRIMARY KEY, x INT)",
            "INSERT INTO a VALUES (1, 10), (2, 20)",
            "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, x INT)",
            "INSERT INTO b VALUES (1, 1, 5), (2, 2, 6)",
        ],
        &[
            // Ambiguous in SELECT, ON, WHERE, ORDER BY, GROUP BY, a subquery, beside USING: 1052.
            "SELECT id FROM a JOIN b ON a.id = b.a_id",
            "SELECT a.id FROM a JOIN b ON x = b.a_id",
            "SELECT a.id FROM a, b WHERE x > 1",
            "SELECT a.id FROM a JOIN b ON a.id = b.a_id ORDER BY x",
            "SELECT a.id FROM a JOIN b ON a.id = b.a_id GROUP BY x",
            "SELECT COUNT(*) FROM a JOIN b ON a.id = b.a_id WHERE a.id IN (SELECT id FROM a JOIN b ON a.id = b.a_id)",
            "SELECT x FROM a JOIN b USING (id)",
            // The USING column itself is not ambiguous.
            "SELECT id, a.x FROM a JOIN b USING (id) ORDER BY id",
            // An unknown column or qualifier: 1054; `t.*` of an unknown table: 1051.
            "SELECT a.nope FROM a",
            "SELECT zz.id FROM a",
            "SELECT b.id FROM a",
            "SELECT a.id FROM a JOIN b ON b.nope = a.id",
            "SELECT a.id FROM a JOIN b ON c.id = a.id",
            "SELECT a.id FROM a WHERE a.x IN (SELECT nope FROM b)",
            "SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.nope)",
            "SELECT * FROM a JOIN b USING (nope)",
            "SELECT * FROM a JOIN b USING (a_id)",
            "SELECT a.id FROM a AS t",
            "SELECT t.* FROM a",
            // A table or alias twice: 1066 (a table's name may be another's alias).
            "SELECT 1 FROM a JOIN a",
            "SELECT 1 FROM a, a",
            "SELECT 1 FROM a AS x JOIN b AS x ON 1 = 1",
            "SELECT 1 FROM a JOIN b AS a ON 1 = 1",
            "SELECT 1 FROM a x, b y, a x",
            "SELECT 1 FROM a LEFT JOIN a ON a.id = a.id",
            "SELECT COUNT(*) FROM a JOIN b AS a2 ON a2.a_id = a.id JOIN a AS b ON b.id = a2.id",
            // An unknown table: 1146; ORDER BY past the select list: 1054.
            "SELECT * FROM nosuch JOIN a ON 1 = 1",
            "SELECT * FROM a JOIN b ON a.id = b.a_id ORDER BY 3",
            "SELECT a.id FROM a JOIN b ON a.id = b.a_id ORDER BY 3",
        ],
    );
}

/// COMPANY and p: numbers with NULLs and duplicates (n), strings differing
/// only in case (s), decimals with ties (d), for windows' partitions, peers
/// and RANGE frames.
fn windowed() -> Vec<&'static str> {
    let mut schema = COMPANY.to_vec();
    schema.extend([
        "CREATE TABLE p (id INT PRIMARY KEY, n INT, s VARCHAR(10), d DECIMAL(5,2))",
        "INSERT INTO p VALUES (1, 1, 'a', 1.50), (2, 2, 'b', 2.00), (3, 2, 'b', NULL), (4, 3, NULL, 3.25), (5, NULL, 'c', 1.50), (6, 5, 'B', 0.75), (7, 2, 'a', 2.50)",
    ]);
    schema
}

/// ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST and NTILE over
/// the whole table and per partition (a NULL partition key is a partition
/// of its own), ascending and descending, ties (peers share a rank), a
/// string order under the case-insensitive collation, more buckets than
/// rows, and no rows at all. PERCENT_RANK and CUME_DIST are compared
/// scaled and rounded: MariaDB prints a DOUBLE of ten decimals
/// (`0.5000000000`), MySQL 8.0 and quire its shortest digits (`0.5`).
#[test]
fn ranking_window_functions_answer_as_mariadb_does() {
    same_after(
        "diffq_win_rank",
        &windowed(),
        &[
            "SELECT id, dept_id, salary, ROW_NUMBER() OVER (ORDER BY salary, id), RANK() OVER (ORDER BY salary), DENSE_RANK() OVER (ORDER BY salary DESC) FROM emp ORDER BY id",
            "SELECT id, ROW_NUMBER() OVER (PARTITION BY dept_id ORDER BY id), RANK() OVER (PARTITION BY dept_id ORDER BY salary), DENSE_RANK() OVER (PARTITION BY dept_id ORDER BY salary) FROM emp ORDER BY id",
            "SELECT id, ROUND(PERCENT_RANK() OVER (ORDER BY salary) * 1000), ROUND(CUME_DIST() OVER (ORDER BY salary) * 1000), ROUND(CUME_DIST() OVER (PARTITION BY dept_id ORDER BY salary DESC) * 1000) FROM emp ORDER BY id",
            "SELECT id, NTILE(1) OVER (ORDER BY id), NTILE(2) OVER (ORDER BY id), NTILE(3) OVER (ORDER BY id), NTILE(4) OVER (ORDER BY salary DESC, id), NTILE(10) OVER (ORDER BY id) FROM emp ORDER BY id",
            "SELECT id, NTILE(2) OVER (PARTITION BY dept_id ORDER BY id) FROM emp ORDER BY id",
            "SELECT name, RANK() OVER (ORDER BY name) FROM emp ORDER BY name",
            "SELECT s, id, RANK() OVER (ORDER BY s), DENSE_RANK() OVER (PARTITION BY s ORDER BY n) FROM p ORDER BY id",
            "SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC) FROM emp WHERE salary > 60 ORDER BY id",
            "SELECT id, RANK() OVER (ORDER BY salary) FROM emp WHERE id > 100",
        ],
    );
}

/// COUNT / SUM / AVG / MIN / MAX over a window: the whole table, a
/// partition, MySQL's default frame with ORDER BY (RANGE up to the
/// current row's last peer), ROWS frames of every kind of bound (empty
/// ones give NULL, or 0 for COUNT), RANGE frames with numeric and decimal
/// offsets, ascending and descending, with NULL order keys (a NULL row's
/// frame is its peers), and named windows, refined by another or by a
/// frame. Left out: a ROWS frame whose start is past its end near the end
/// of the partition (`3 FOLLOWING AND 1 FOLLOWING`), where MariaDB 10.11
/// sums rows that are not in the frame.
#[test]
fn aggregate_window_functions_and_frames_answer_as_mariadb_does() {
    same_after(
        "diffq_win_frames",
        &windowed(),
        &[
            "SELECT id, dept_id, salary, SUM(salary) OVER (), COUNT(*) OVER (), COUNT(salary) OVER (), AVG(salary) OVER (), MIN(salary) OVER (), MAX(salary) OVER () FROM emp ORDER BY id",
            "SELECT id, SUM(salary) OVER (PARTITION BY dept_id), COUNT(*) OVER (PARTITION BY dept_id), AVG(salary) OVER (PARTITION BY dept_id), MIN(name) OVER (PARTITION BY dept_id), MAX(name) OVER (PARTITION BY dept_id) FROM emp ORDER BY id",
            "SELECT id, salary, SUM(salary) OVER (ORDER BY salary), COUNT(*) OVER (ORDER BY salary), AVG(salary) OVER (ORDER BY salary DESC), MAX(id) OVER (ORDER BY salary) FROM emp ORDER BY id",
            "SELECT id, SUM(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), SUM(salary) OVER (ORDER BY id ROWS 2 PRECEDING), COUNT(salary) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), AVG(salary) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM emp ORDER BY id",
            "SELECT id, MIN(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), MAX(salary) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING), MIN(name) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING), COUNT(*) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) FROM emp ORDER BY id",
            "SELECT id, dept_id, SUM(salary) OVER (PARTITION BY dept_id ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), MAX(salary) OVER (PARTITION BY dept_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) FROM emp ORDER BY id",
            "SELECT id, n, SUM(d) OVER (ORDER BY n RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), COUNT(*) OVER (ORDER BY n RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING), COUNT(*) OVER (ORDER BY n DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), COUNT(*) OVER (ORDER BY n RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), COUNT(*) OVER (ORDER BY n RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) FROM p ORDER BY id",
            "SELECT id, d, SUM(n) OVER (ORDER BY d RANGE BETWEEN 0.75 PRECEDING AND 0.5 FOLLOWING), COUNT(*) OVER (ORDER BY d DESC RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING), MIN(id) OVER (ORDER BY d RANGE 1 PRECEDING) FROM p ORDER BY id",
            "SELECT id, AVG(d) OVER (PARTITION BY s ORDER BY n), SUM(d) OVER (PARTITION BY s), COUNT(d) OVER (PARTITION BY n ORDER BY d RANGE BETWEEN CURRENT ROW AND CURRENT ROW) FROM p ORDER BY id",
            "SELECT id, COUNT(*) OVER w, SUM(salary) OVER w FROM emp WINDOW w AS (PARTITION BY dept_id ORDER BY salary) ORDER BY id",
            "SELECT id, SUM(salary) OVER w, SUM(salary) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), ROW_NUMBER() OVER (w2 ORDER BY id) FROM emp WINDOW w AS (ORDER BY id), w2 AS (PARTITION BY dept_id) ORDER BY id",
        ],
    );
}

/// LAG and LEAD (offsets 0 to 3, past the partition's ends), FIRST_VALUE,
/// LAST_VALUE and NTH_VALUE over the default frame, whole partitions,
/// ROWS frames that do not hold the current row, and RANGE frames with
/// peers. (LAG / LEAD's third argument, the default, is MySQL's only:
/// MariaDB 10.11 does not parse it; see the MySQL-only test below.)
#[test]
fn value_window_functions_answer_as_mariadb_does() {
    same_after(
        "diffq_win_values",
        &windowed(),
        &[
            "SELECT id, LAG(salary) OVER (ORDER BY id), LAG(salary, 2) OVER (ORDER BY id), LEAD(name) OVER (ORDER BY id), LEAD(name, 3) OVER (ORDER BY id), LAG(id, 0) OVER (ORDER BY id) FROM emp ORDER BY id",
            "SELECT id, dept_id, LAG(name) OVER (PARTITION BY dept_id ORDER BY id), LEAD(salary) OVER (PARTITION BY dept_id ORDER BY salary DESC, id) FROM emp ORDER BY id",
            "SELECT id, FIRST_VALUE(name) OVER (ORDER BY id), LAST_VALUE(name) OVER (ORDER BY id), NTH_VALUE(name, 2) OVER (ORDER BY id), NTH_VALUE(name, 4) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM emp ORDER BY id",
            "SELECT id, FIRST_VALUE(salary) OVER (PARTITION BY dept_id ORDER BY id), LAST_VALUE(salary) OVER (PARTITION BY dept_id ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), FIRST_VALUE(name) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING), LAST_VALUE(name) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) FROM emp ORDER BY id",
            "SELECT id, FIRST_VALUE(id) OVER (ORDER BY salary), LAST_VALUE(salary) OVER (ORDER BY salary), NTH_VALUE(salary, 2) OVER (ORDER BY salary RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM emp ORDER BY id",
            "SELECT id, LAG(d) OVER (ORDER BY d, id), LEAD(s) OVER (PARTITION BY n ORDER BY id), FIRST_VALUE(d) OVER (PARTITION BY s ORDER BY id DESC) FROM p ORDER BY id",
        ],
    );
}

/// Windows over what a block's FROM, WHERE, GROUP BY and HAVING leave:
/// inner and outer joins (a NULL-extended row in a partition of its own),
/// three tables, aggregates in window arguments and keys (`SUM(SUM(x))
/// OVER ()`, `RANK() OVER (ORDER BY SUM(x))`), windows in derived tables,
/// CTEs and subqueries (top-n per group), then DISTINCT, ORDER BY a window
/// function or its alias, LIMIT / OFFSET, expressions over window
/// functions, no rows, no FROM, and both sides of a UNION.
#[test]
fn windows_over_joins_groups_and_subqueries_answer_as_mariadb_does() {
    same_after(
        "diffq_win_shapes",
        &windowed(),
        &[
            "SELECT d.name, e.name, ROW_NUMBER() OVER (PARTITION BY d.id ORDER BY e.id), SUM(e.salary) OVER (PARTITION BY d.region) FROM dept d JOIN emp e ON e.dept_id = d.id ORDER BY e.id",
            "SELECT d.name, e.name, COUNT(e.id) OVER (PARTITION BY d.id), RANK() OVER (ORDER BY e.salary DESC) FROM dept d LEFT JOIN emp e ON e.dept_id = d.id ORDER BY d.id, e.id",
            "SELECT e.name, p.title, SUM(a.hours) OVER (PARTITION BY a.emp_id), ROW_NUMBER() OVER (PARTITION BY p.proj_id ORDER BY a.assign_id) FROM assign a JOIN emp e ON e.id = a.emp_id JOIN proj p ON p.proj_id = a.proj_id ORDER BY a.assign_id",
            "SELECT dept_id, COUNT(*), SUM(salary), RANK() OVER (ORDER BY SUM(salary) DESC), SUM(SUM(salary)) OVER (), SUM(COUNT(*)) OVER (ORDER BY dept_id), ROUND(AVG(MAX(salary)) OVER ()) FROM emp GROUP BY dept_id ORDER BY dept_id",
            "SELECT d.region, COUNT(*) AS n, ROW_NUMBER() OVER (ORDER BY COUNT(*) DESC, d.region) FROM dept d JOIN emp e ON e.dept_id = d.id GROUP BY d.region HAVING COUNT(*) > 0 ORDER BY d.region",
            "SELECT dept_id, MAX(salary), LAG(MAX(salary)) OVER (ORDER BY dept_id) FROM emp WHERE dept_id IS NOT NULL GROUP BY dept_id ORDER BY dept_id",
            "SELECT * FROM (SELECT id, dept_id, salary, ROW_NUMBER() OVER (PARTITION BY dept_id ORDER BY salary DESC, id) AS rn FROM emp) AS ranked WHERE rn = 1 ORDER BY id",
            "WITH r AS (SELECT id, RANK() OVER (ORDER BY salary DESC) AS rk FROM emp) SELECT e.name, r.rk FROM r JOIN emp e ON e.id = r.id WHERE r.rk <= 3 ORDER BY r.rk, e.id",
            "SELECT id, (SELECT MAX(rn) FROM (SELECT ROW_NUMBER() OVER (ORDER BY a.assign_id) AS rn FROM assign a) x) FROM emp e ORDER BY id",
            "SELECT e.id FROM emp e WHERE e.salary > (SELECT AVG(x.total) FROM (SELECT SUM(salary) OVER (PARTITION BY dept_id) AS total FROM emp) x) ORDER BY e.id",
            "SELECT DISTINCT dept_id, COUNT(*) OVER (PARTITION BY dept_id) FROM emp ORDER BY dept_id",
            "SELECT id, salary FROM emp ORDER BY ROW_NUMBER() OVER (ORDER BY salary DESC, id) LIMIT 3",
            "SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM emp ORDER BY rn DESC LIMIT 2, 3",
            "SELECT id, SUM(salary) OVER (ORDER BY id) - salary, COALESCE(LAG(name) OVER (ORDER BY id), '-') FROM emp ORDER BY id",
            "SELECT COUNT(*) OVER (), SUM(salary) OVER () FROM emp WHERE id > 100",
            "SELECT COUNT(*), ROW_NUMBER() OVER () FROM emp WHERE id > 100",
            "SELECT ROW_NUMBER() OVER (), COUNT(*) OVER ()",
            "SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM emp UNION ALL SELECT proj_id, RANK() OVER (ORDER BY budget) FROM proj ORDER BY 1, 2",
        ],
    );
}

/// GROUP BY ... WITH ROLLUP of one, two and three columns (over a join of
/// three tables, with NULLs in the grouping columns that are not
/// super-aggregate NULLs): rows come out sorted by the grouping values,
/// each subtotal after the rows it sums; HAVING sees the rolled-up NULLs;
/// a grouping expression, and expressions over a grouped column, are NULL
/// in super-aggregate rows; LIMIT / OFFSET, DISTINCT, GROUP_CONCAT and
/// COUNT(DISTINCT), no rows, a ROLLUP in a derived table, and window
/// functions over the rolled-up rows. (ORDER BY with ROLLUP is MySQL
/// 8.0's, which MariaDB refuses, 1221; see the MySQL-only test below.)
#[test]
fn group_by_with_rollup_answers_as_mariadb_does() {
    same_after(
        "diffq_rollup",
        &windowed(),
        &[
            "SELECT dept_id, COUNT(*), SUM(salary) FROM emp GROUP BY dept_id WITH ROLLUP",
            "SELECT dept_id, boss_id, COUNT(*), MAX(salary) FROM emp GROUP BY dept_id, boss_id WITH ROLLUP",
            "SELECT p.dept_id, e.dept_id, a.proj_id, SUM(a.hours), COUNT(*) FROM assign a JOIN emp e ON e.id = a.emp_id JOIN proj p ON p.proj_id = a.proj_id GROUP BY p.dept_id, e.dept_id, a.proj_id WITH ROLLUP",
            "SELECT n, s, d, COUNT(*) FROM p GROUP BY n, s, d WITH ROLLUP",
            "SELECT d.region, d.name, COUNT(e.id), SUM(e.salary), AVG(e.salary) FROM dept d LEFT JOIN emp e ON e.dept_id = d.id GROUP BY d.region, d.name WITH ROLLUP",
            "SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP HAVING COUNT(*) > 1",
            "SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP HAVING dept_id IS NULL",
            "SELECT dept_id + 1, COUNT(*) FROM emp GROUP BY dept_id + 1 WITH ROLLUP",
            "SELECT dept_id, dept_id * 10, COALESCE(dept_id, -1), COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP",
            "SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP LIMIT 2",
            "SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP LIMIT 2, 10",
            "SELECT DISTINCT COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP",
            "SELECT COUNT(*), SUM(salary) FROM emp GROUP BY dept_id WITH ROLLUP",
            "SELECT dept_id, COUNT(*) FROM emp WHERE id > 100 GROUP BY dept_id WITH ROLLUP",
            "SELECT dept_id, GROUP_CONCAT(name ORDER BY name), COUNT(DISTINCT salary) FROM emp GROUP BY dept_id WITH ROLLUP",
            "SELECT * FROM (SELECT dept_id, SUM(salary) AS s, RANK() OVER (ORDER BY dept_id) AS r, SUM(SUM(salary)) OVER () AS t FROM emp GROUP BY dept_id WITH ROLLUP) AS x ORDER BY dept_id, s",
            "SELECT * FROM (SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id WITH ROLLUP) AS r ORDER BY n, dept_id",
            "SELECT dept_id, boss_id, SUM(salary) FROM emp WHERE salary > 55 GROUP BY dept_id, boss_id WITH ROLLUP HAVING SUM(salary) > 70",
        ],
    );
}

/// What MySQL 8.0 does and MariaDB does differently or not at all, on
/// quire alone: the error codes of window functions out of place (3593;
/// MariaDB 4015 / 4074), nested in a window's specification (3595;
/// MariaDB 4016), an unknown or twice-defined window (3579, 3591), a
/// position in a window's ORDER BY (3592), bad references between
/// windows (3581 - 3583), bad frames (3584 - 3587), a window function's
/// alias in GROUP BY (3594), bad NTILE / NTH_VALUE / LAG constants (1210),
/// GROUPING() without ROLLUP or outside a grouping column (1111, 3602);
/// LAG's default; GROUPING(); ORDER BY with ROLLUP; a DOUBLE printed with
/// its shortest digits. Not built, refused (1235): GROUPS frames, DISTINCT
/// in a window aggregate.
#[test]
fn window_and_rollup_forms_answer_as_mysql_does() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("diffq_win_mysql");
    for sql in windowed() {
        assert!(matches!(answer(&mut c, sql), Answer::Ok { .. }), "{sql}");
    }
    let errors: &[(&str, u16)] = &[
        ("SELECT id FROM emp WHERE ROW_NUMBER() OVER () > 1", 3593),
        ("SELECT dept_id FROM emp GROUP BY dept_id HAVING RANK() OVER (ORDER BY dept_id) > 1", 3593),
        ("SELECT SUM(ROW_NUMBER() OVER (ORDER BY id)) FROM emp", 3593),
        ("SELECT SUM(ROW_NUMBER() OVER (ORDER BY id)) OVER () FROM emp", 3593),
        ("UPDATE emp SET salary = ROW_NUMBER() OVER ()", 3593),
        ("SELECT ROW_NUMBER() OVER (ORDER BY SUM(salary) OVER ()) FROM emp", 3595),
        ("SELECT ROW_NUMBER() OVER w FROM emp", 3579),
        ("SELECT ROW_NUMBER() OVER w FROM emp WINDOW w AS (ORDER BY id), w AS (ORDER BY salary)", 3591),
        ("SELECT ROW_NUMBER() OVER (ORDER BY 1) FROM emp", 3592),
        ("SELECT RANK() OVER (w PARTITION BY salary) FROM emp WINDOW w AS (ORDER BY id)", 3581),
        ("SELECT SUM(salary) OVER (w ROWS 1 PRECEDING) FROM emp WINDOW w AS (ORDER BY id ROWS 2 PRECEDING)", 3582),
        ("SELECT RANK() OVER (w ORDER BY salary) FROM emp WINDOW w AS (ORDER BY id)", 3583),
        ("SELECT SUM(salary) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM emp", 3584),
        ("SELECT SUM(salary) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM emp", 3585),
        ("SELECT SUM(salary) OVER (ORDER BY id ROWS 1.5 PRECEDING) FROM emp", 3586),
        ("SELECT SUM(salary) OVER (ORDER BY name RANGE 1 PRECEDING) FROM emp", 3587),
        ("SELECT SUM(salary) OVER (ORDER BY id, salary RANGE 1 PRECEDING) FROM emp", 3587),
        ("SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM emp GROUP BY rn", 3594),
        ("SELECT NTILE(0) OVER (ORDER BY id) FROM emp", 1210),
        ("SELECT NTH_VALUE(salary, 0) OVER (ORDER BY id) FROM emp", 1210),
        ("SELECT LAG(salary, dept_id) OVER (ORDER BY id) FROM emp", 1210),
        ("SELECT GROUPING(dept_id) FROM emp GROUP BY dept_id", 1111),
        ("SELECT dept_id FROM emp WHERE GROUPING(dept_id) = 0 GROUP BY dept_id WITH ROLLUP", 1111),
        ("SELECT dept_id, GROUPING(salary) FROM emp GROUP BY dept_id WITH ROLLUP", 3602),
        ("SELECT SUM(salary) OVER (ORDER BY id GROUPS 1 PRECEDING) FROM emp", 1235),
        ("SELECT COUNT(DISTINCT salary) OVER () FROM emp", 1235),
    ];
    for &(sql, code) in errors {
        assert_eq!(answer(&mut c, sql), Answer::Err(code), "{sql}");
    }
    let rows = |r: &[&[Option<&str>]]| {
        Answer::Rows(r.iter().map(|row| row.iter().map(|v| v.map(str::to_string)).collect()).collect())
    };
    assert_eq!(
        answer(&mut c, "SELECT id, LAG(salary, 1, -1) OVER (ORDER BY id), LEAD(name, 2, '?') OVER (ORDER BY id) FROM emp WHERE id <= 4 ORDER BY id"),
        rows(&[
            &[Some("1"), Some("-1"), Some("cid")],
            &[Some("2"), Some("100"), Some("dee")],
            &[Some("3"), Some("80"), Some("?")],
            &[Some("4"), Some("80"), Some("?")],
        ])
    );
    assert_eq!(
        answer(&mut c, "SELECT dept_id, GROUPING(dept_id), COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP"),
        rows(&[
            &[None, Some("0"), Some("1")],
            &[Some("1"), Some("0"), Some("3")],
            &[Some("2"), Some("0"), Some("2")],
            &[Some("9"), Some("0"), Some("1")],
            &[None, Some("1"), Some("7")],
        ])
    );
    assert_eq!(
        answer(&mut c, "SELECT n, s, GROUPING(n, s), GROUPING(s) FROM p WHERE n <= 2 GROUP BY n, s WITH ROLLUP HAVING GROUPING(s) = 1"),
        rows(&[
            &[Some("1"), None, Some("1"), Some("1")],
            &[Some("2"), None, Some("1"), Some("1")],
            &[None, None, Some("3"), Some("1")],
        ])
    );
    assert_eq!(
        answer(&mut c, "SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id WITH ROLLUP ORDER BY GROUPING(dept_id) DESC, dept_id DESC"),
        rows(&[
            &[None, Some("7")],
            &[Some("9"), Some("1")],
            &[Some("2"), Some("2")],
            &[Some("1"), Some("3")],
            &[None, Some("1")],
        ])
    );
    assert_eq!(
        answer(&mut c, "SELECT CUME_DIST() OVER (ORDER BY id), PERCENT_RANK() OVER (ORDER BY id) FROM emp WHERE id <= 3 ORDER BY id"),
        rows(&[
            &[Some("0.3333333333333333"), Some("0")],
            &[Some("0.6666666666666666"), Some("0.5")],
            &[Some("1"), Some("1")],
        ])
    );
}

// ---------------------------------------------------------------------------
// The randomized comparison.
// ---------------------------------------------------------------------------

/// The random test's schema and rows: small value ranges and NULLs, so
/// that joins on equality match several rows and NOT IN meets NULLs.
const RANDOM_SCHEMA: &[&str] = &[
    "CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b VARCHAR(10), KEY (a))",
    "INSERT INTO t1 VALUES (1, 0, 'x'), (2, 1, 'y'), (3, 1, 'x'), (4, 2, NULL), (5, NULL, 'z'), (6, 3, 'y'), \
     (7, 2, 'x'), (8, NULL, NULL), (9, 4, 'w'), (10, 1, 'z'), (11, 5, 'x'), (12, 3, NULL), (13, 0, 'y'), (14, 2, 'w')",
    "CREATE TABLE t2 (id INT PRIMARY KEY, t1_id INT, c INT, KEY (t1_id))",
    "INSERT INTO t2 VALUES (1, 1, 3), (2, 1, NULL), (3, 2, 1), (4, 3, 3), (5, 3, 0), (6, 5, 2), (7, 7, 5), \
     (8, 20, 1), (9, NULL, 4), (10, 9, 2), (11, 9, 2), (12, 12, NULL), (13, 4, 6), (14, 2, 1), (15, 14, 0), \
     (16, NULL, NULL)",
    "CREATE TABLE t3 (id INT PRIMARY KEY, c INT, d VARCHAR(10))",
    "INSERT INTO t3 VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 2, NULL), (4, NULL, 'x'), (5, 3, 'w'), (6, 5, 'z'), \
     (7, 0, 'y'), (8, 1, 'x'), (9, 7, NULL), (10, NULL, NULL), (11, 3, 'v'), (12, 2, 'w')",
];

/// A column's kind: the generator compares only like with like, so that
/// no string-to-number conversion (and its warnings) is involved.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    Str,
}

struct Table {
    name: &'static str,
    cols: &'static [(&'static str, Kind)],
}

const TABLES: &[Table] = &[
    Table { name: "t1", cols: &[("id", Kind::Int), ("a", Kind::Int), ("b", Kind::Str)] },
    Table { name: "t2", cols: &[("id", Kind::Int), ("t1_id", Kind::Int), ("c", Kind::Int)] },
    Table { name: "t3", cols: &[("id", Kind::Int), ("c", Kind::Int), ("d", Kind::Str)] },
];

/// A qualified column in scope (`alias.name`).
#[derive(Clone, Debug)]
struct Col {
    expr: String,
    kind: Kind,
}

fn table_cols(t: &Table, alias: &str) -> Vec<Col> {
    t.cols.iter().map(|(c, k)| Col { expr: format!("{alias}.{c}"), kind: *k }).collect()
}

/// xorshift64*: tiny, deterministic, good enough to pick SQL shapes.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n
    }

    /// True with probability `pct` percent.
    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const CMP_OPS: &[&str] = &["=", "<>", "<", "<=", ">", ">=", "<=>"];
const STR_LITS: &[&str] = &["'x'", "'y'", "'z'", "'w'"];

/// Generates SELECT statements valid in both MySQL 8.0 and MariaDB:
/// every column qualified, like kinds compared, grouped queries selecting
/// only grouping columns and aggregates (ONLY_FULL_GROUP_BY), scalar
/// subqueries always aggregates without GROUP BY (exactly one row), no
/// LIMIT anywhere, no division.
struct Gen {
    rng: Rng,
    next_alias: usize,
}

impl Gen {
    fn int_lit(&mut self) -> String {
        self.rng.below(7).to_string()
    }

    fn lit(&mut self, kind: Kind) -> String {
        match kind {
            Kind::Int => self.int_lit(),
            Kind::Str => self.rng.pick(STR_LITS).to_string(),
        }
    }

    fn col_of(&mut self, cols: &[Col], kind: Kind) -> Option<Col> {
        let fit: Vec<&Col> = cols.iter().filter(|c| c.kind == kind).collect();
        if fit.is_empty() {
            None
        } else {
            Some((*self.rng.pick(&fit)).clone())
        }
    }

    fn fresh_alias(&mut self) -> String {
        self.next_alias += 1;
        format!("q{}", self.next_alias)
    }

    /// A full query: one SELECT, or two joined by a set operation.
    fn query(&mut self) -> String {
        let (first, width) = self.select(None);
        if self.rng.chance(22) {
            let op =
                *self.rng.pick(&["UNION", "UNION", "UNION ALL", "UNION ALL", "UNION DISTINCT", "EXCEPT", "INTERSECT"]);
            let (second, _) = self.select(Some(width));
            format!("{first} {op} {second}")
        } else {
            first
        }
    }

    /// One SELECT with `width` output columns if given; returns it and its
    /// width.
    fn select(&mut self, width: Option<usize>) -> (String, usize) {
        let (from, scope) = self.gen_from_clause();
        let where_clause =
            if self.rng.chance(70) { format!(" WHERE {}", self.predicate(&scope, &[], 0, 2)) } else { String::new() };
        let grouped = self.rng.chance(30);
        let width = width.unwrap_or_else(|| 1 + self.rng.below(3));
        let distinct = if self.rng.chance(20) { "DISTINCT " } else { "" };
        if grouped {
            // Up to two grouping columns, the rest aggregates (at least one).
            let ngroup = self.rng.below(width.min(3));
            let mut groups: Vec<String> = Vec::new();
            while groups.len() < ngroup {
                let c = self.rng.pick(&scope).expr.clone();
                if !groups.contains(&c) {
                    groups.push(c);
                }
            }
            // MariaDB 10.11 adds up the COUNT(DISTINCT ...) of the rows a
            // ROLLUP subtotal sums instead of counting anew: not generated.
            let rollup = !groups.is_empty() && self.rng.chance(20);
            let mut items = groups.clone();
            while items.len() < width {
                items.push(self.aggregate(&scope, !rollup));
            }
            let mut sql = format!("SELECT {distinct}{} FROM {from}{where_clause}", items.join(", "));
            if !groups.is_empty() {
                sql.push_str(&format!(" GROUP BY {}", groups.join(", ")));
                if rollup {
                    sql.push_str(" WITH ROLLUP");
                }
                if self.rng.chance(35) {
                    let h = match self.rng.below(3) {
                        0 => format!("COUNT(*) > {}", self.rng.below(3)),
                        1 => {
                            let c = self.col_of(&scope, Kind::Int).expect("an INT column");
                            format!("SUM({}) >= {}", c.expr, self.int_lit())
                        }
                        _ => {
                            let c = self.rng.pick(&scope).clone();
                            format!("MAX({}) IS NOT NULL", c.expr)
                        }
                    };
                    sql.push_str(&format!(" HAVING {h}"));
                }
            }
            (sql, width)
        } else {
            // MariaDB 10.11 drops rows of a DISTINCT select with a window
            // function and a subquery: no window functions under DISTINCT.
            let windows = distinct.is_empty();
            let items: Vec<String> = (0..width).map(|_| self.select_item(&scope, windows)).collect();
            (format!("SELECT {distinct}{} FROM {from}{where_clause}", items.join(", ")), width)
        }
    }

    /// 1-3 of the tables, each once, joined INNER / LEFT / RIGHT on an
    /// equality or an inequality, sometimes with an extra condition.
    fn gen_from_clause(&mut self) -> (String, Vec<Col>) {
        let n = match self.rng.below(100) {
            0..=24 => 1,
            25..=69 => 2,
            _ => 3,
        };
        let mut order: Vec<usize> = vec![0, 1, 2];
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        let first = &TABLES[order[0]];
        let mut sql = first.name.to_string();
        let mut scope = table_cols(first, first.name);
        for &ti in &order[1..n] {
            let t = &TABLES[ti];
            let new_cols = table_cols(t, t.name);
            let join =
                *self.rng.pick(&["JOIN", "JOIN", "INNER JOIN", "LEFT JOIN", "LEFT JOIN", "RIGHT JOIN", "CROSS JOIN"]);
            if join == "CROSS JOIN" {
                sql.push_str(&format!(" CROSS JOIN {}", t.name));
            } else {
                let kind = if self.rng.chance(15) { Kind::Str } else { Kind::Int };
                let (l, r) = match (self.col_of(&new_cols, kind), self.col_of(&scope, kind)) {
                    (Some(l), Some(r)) => (l, r),
                    _ => (
                        self.col_of(&new_cols, Kind::Int).expect("INT column"),
                        self.col_of(&scope, Kind::Int).expect("INT column"),
                    ),
                };
                let op = if self.rng.chance(70) { "=" } else { *self.rng.pick(&["<", "<=", ">", "<>"]) };
                let mut on = format!("{} {op} {}", l.expr, r.expr);
                if self.rng.chance(25) {
                    let side = if self.rng.chance(70) { &new_cols } else { &scope };
                    let c = self.rng.pick(side).clone();
                    let extra = self.comparison_with_literal(&c);
                    on.push_str(&format!(" AND {extra}"));
                }
                sql.push_str(&format!(" {join} {} ON {on}", t.name));
            }
            scope.extend(new_cols);
        }
        (sql, scope)
    }

    fn comparison_with_literal(&mut self, c: &Col) -> String {
        match c.kind {
            Kind::Int => format!("{} {} {}", c.expr, self.rng.pick(CMP_OPS), self.int_lit()),
            Kind::Str => format!("{} {} {}", c.expr, self.rng.pick(&["=", "<>", "<", ">="]), self.lit(Kind::Str)),
        }
    }

    /// AND / OR of up to `budget` + 1 atoms.
    fn predicate(&mut self, scope: &[Col], outer: &[Col], depth: usize, budget: usize) -> String {
        let first = self.atom(scope, outer, depth);
        if budget > 0 && self.rng.chance(45) {
            let op = if self.rng.chance(60) { "AND" } else { "OR" };
            let rest = self.predicate(scope, outer, depth, budget - 1);
            if self.rng.chance(30) {
                format!("({first} {op} {rest})")
            } else {
                format!("{first} {op} {rest}")
            }
        } else {
            first
        }
    }

    fn atom(&mut self, scope: &[Col], outer: &[Col], depth: usize) -> String {
        // Subqueries nest at most two deep.
        let choices = if depth < 2 { 13 } else { 7 };
        match self.rng.below(choices) {
            0 | 1 => {
                let c = self.rng.pick(scope).clone();
                self.comparison_with_literal(&c)
            }
            2 => {
                let c = self.rng.pick(scope).clone();
                let not = if self.rng.chance(40) { "NOT " } else { "" };
                format!("{} IS {not}NULL", c.expr)
            }
            3 => {
                let c = self.col_of(scope, Kind::Int).expect("INT column");
                let n = 1 + self.rng.below(3);
                let mut lits: Vec<String> = (0..n).map(|_| self.int_lit()).collect();
                if self.rng.chance(20) {
                    lits.push("NULL".into());
                }
                let not = if self.rng.chance(35) { "NOT " } else { "" };
                format!("{} {not}IN ({})", c.expr, lits.join(", "))
            }
            4 => {
                // Column against column: in a subquery, often a correlation.
                let c = self.rng.pick(scope).clone();
                let others: Vec<Col> = if !outer.is_empty() && self.rng.chance(60) {
                    outer.to_vec()
                } else {
                    scope.iter().filter(|o| o.expr != c.expr).cloned().collect()
                };
                match self.col_of(&others, c.kind) {
                    Some(o) => format!("{} {} {}", c.expr, self.rng.pick(CMP_OPS), o.expr),
                    None => self.comparison_with_literal(&c),
                }
            }
            5 => {
                let c = self.col_of(scope, Kind::Int).expect("INT column");
                let lo = self.rng.below(4);
                let not = if self.rng.chance(25) { "NOT " } else { "" };
                format!("{} {not}BETWEEN {lo} AND {}", c.expr, lo + self.rng.below(4))
            }
            6 => {
                let inner = self.atom(scope, outer, depth);
                // MariaDB 10.11 answers NOT over a quantified comparison
                // wrongly (`NOT (NOT (x >= ANY (...)))` is not `x >= ANY
                // (...)` there, with or without NULLs): not generated.
                if ["ANY (", "SOME (", "ALL ("].iter().any(|q| inner.contains(q)) {
                    format!("({inner})")
                } else {
                    format!("NOT ({inner})")
                }
            }
            7 | 8 => {
                // [NOT] IN (SELECT ...), the subquery's column of the same kind.
                let kind = if self.rng.chance(20) { Kind::Str } else { Kind::Int };
                let c = self.col_of(scope, kind).or_else(|| self.col_of(scope, Kind::Int)).expect("column");
                let not = if self.rng.chance(40) { "NOT " } else { "" };
                let sub = self.subquery(scope, outer, depth, SubKind::Column(c.kind));
                format!("{} {not}IN ({sub})", c.expr)
            }
            9 | 10 => {
                let not = if self.rng.chance(40) { "NOT " } else { "" };
                let sub = self.subquery(scope, outer, depth, SubKind::Exists);
                format!("{not}EXISTS ({sub})")
            }
            11 => {
                // A comparison with a scalar aggregate subquery.
                let c = self.rng.pick(scope).clone();
                let sub = self.subquery(scope, outer, depth, SubKind::Scalar(c.kind));
                format!("{} {} ({sub})", c.expr, self.rng.pick(CMP_OPS))
            }
            _ => {
                // Quantified comparison.
                let c = self.col_of(scope, Kind::Int).expect("INT column");
                let q = *self.rng.pick(&["ANY", "SOME", "ALL"]);
                let op = *self.rng.pick(&["=", "<>", "<", ">="]);
                let sub = self.subquery(scope, outer, depth, SubKind::Column(Kind::Int));
                format!("{} {op} {q} ({sub})", c.expr)
            }
        }
    }

    /// A subquery over one table, usually correlated with the enclosing
    /// scopes.
    fn subquery(&mut self, scope: &[Col], outer: &[Col], depth: usize, what: SubKind) -> String {
        let t = match what {
            SubKind::Column(Kind::Str) | SubKind::Scalar(Kind::Str) => {
                if self.rng.chance(50) {
                    &TABLES[0]
                } else {
                    &TABLES[2]
                }
            }
            _ => self.rng.pick(TABLES),
        };
        let alias = self.fresh_alias();
        let inner = table_cols(t, &alias);
        let mut visible: Vec<Col> = scope.to_vec();
        visible.extend(outer.iter().cloned());
        let mut grouped = false;
        let select = match what {
            SubKind::Exists => (*self.rng.pick(&["1", "*", "NULL"])).to_string(),
            SubKind::Column(kind) => {
                let c = self.col_of(&inner, kind).expect("column of kind");
                if self.rng.chance(15) {
                    // One value per group: MAX of the column, grouped by another.
                    grouped = true;
                    format!("MAX({})", c.expr)
                } else {
                    let distinct = if self.rng.chance(20) { "DISTINCT " } else { "" };
                    format!("{distinct}{}", c.expr)
                }
            }
            SubKind::Scalar(kind) => match kind {
                Kind::Int => match self.rng.below(4) {
                    0 => "COUNT(*)".to_string(),
                    1 => format!("COUNT({})", self.rng.pick(&inner).expr),
                    2 => format!("SUM({})", self.col_of(&inner, Kind::Int).expect("INT").expr),
                    _ => format!(
                        "{}({})",
                        self.rng.pick(&["MIN", "MAX"]),
                        self.col_of(&inner, Kind::Int).expect("INT").expr
                    ),
                },
                Kind::Str => {
                    format!("{}({})", self.rng.pick(&["MIN", "MAX"]), self.col_of(&inner, Kind::Str).expect("STR").expr)
                }
            },
        };
        let mut sql = format!("SELECT {select} FROM {} AS {alias}", t.name);
        let mut conds: Vec<String> = Vec::new();
        if self.rng.chance(70) {
            // The correlation: an inner column against an outer one.
            let c = self.rng.pick(&inner).clone();
            if let Some(o) = self.col_of(&visible, c.kind) {
                let op = if self.rng.chance(70) { "=" } else { *self.rng.pick(&["<", ">", "<>"]) };
                conds.push(format!("{} {op} {}", c.expr, o.expr));
            }
        }
        if self.rng.chance(45) {
            conds.push(self.predicate(&inner, &visible, depth + 1, 1));
        }
        if !conds.is_empty() {
            sql.push_str(&format!(" WHERE {}", conds.join(" AND ")));
        }
        if grouped {
            sql.push_str(&format!(" GROUP BY {}", self.rng.pick(&inner).expr));
        }
        sql
    }

    fn aggregate(&mut self, scope: &[Col], count_distinct: bool) -> String {
        match self.rng.below(6) {
            0 => "COUNT(*)".to_string(),
            1 => format!("COUNT({})", self.rng.pick(scope).expr),
            2 if count_distinct => format!("COUNT(DISTINCT {})", self.rng.pick(scope).expr),
            2 => format!("COUNT({})", self.rng.pick(scope).expr),
            3 => format!("SUM({})", self.col_of(scope, Kind::Int).expect("INT").expr),
            4 => format!("MIN({})", self.rng.pick(scope).expr),
            _ => format!("MAX({})", self.rng.pick(scope).expr),
        }
    }

    /// A window function whose value no order among peers changes:
    /// whole-partition aggregates, RANK / DENSE_RANK, and aggregates over
    /// RANGE frames (the default one, or one with offsets).
    fn window_item(&mut self, scope: &[Col]) -> String {
        let over =
            if self.rng.chance(60) { format!("PARTITION BY {} ", self.rng.pick(scope).expr) } else { String::new() };
        let key = self.rng.pick(scope).expr.clone();
        let int = self.col_of(scope, Kind::Int).expect("INT");
        match self.rng.below(6) {
            0 => format!("COUNT(*) OVER ({over})"),
            1 => format!("SUM({}) OVER ({over}ORDER BY {key})", int.expr),
            2 => format!("{}({}) OVER ({over})", self.rng.pick(&["MIN", "MAX"]), self.rng.pick(scope).expr),
            3 => format!("RANK() OVER ({over}ORDER BY {key})"),
            4 => format!("DENSE_RANK() OVER ({over}ORDER BY {key} DESC)"),
            _ => {
                let c = self.rng.pick(scope).expr.clone();
                format!("COUNT({c}) OVER ({over}ORDER BY {} RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING)", int.expr)
            }
        }
    }

    fn select_item(&mut self, scope: &[Col], windows: bool) -> String {
        match self.rng.below(22) {
            20 | 21 if windows => self.window_item(scope),
            20 | 21 => self.rng.pick(scope).expr.clone(),
            0..=12 => self.rng.pick(scope).expr.clone(),
            13 => {
                let c = self.col_of(scope, Kind::Int).expect("INT");
                format!("{} + {}", c.expr, self.int_lit())
            }
            14 => {
                let c = self.rng.pick(scope).clone();
                format!("COALESCE({}, {})", c.expr, self.lit(c.kind))
            }
            _ => {
                let kind = if self.rng.chance(20) { Kind::Str } else { Kind::Int };
                format!("({})", self.subquery(scope, &[], 0, SubKind::Scalar(kind)))
            }
        }
    }
}

#[derive(Clone, Copy)]
enum SubKind {
    /// EXISTS (SELECT ...).
    Exists,
    /// IN / ANY / ALL (SELECT one column of this kind).
    Column(Kind),
    /// A scalar aggregate of this kind (exactly one row).
    Scalar(Kind),
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name}={v}: not a number")),
        Err(_) => default,
    }
}

fn seed_from_env() -> u64 {
    match std::env::var("QUIRE_DIFFQ_SEED") {
        Ok(v) => match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).expect("QUIRE_DIFFQ_SEED: hex number"),
            None => v.parse().expect("QUIRE_DIFFQ_SEED: number"),
        },
        Err(_) => RANDOM_SEED,
    }
}

/// The random queries for `seed`, `count` of them.
fn random_queries(seed: u64, count: usize) -> Vec<String> {
    let mut g = Gen { rng: Rng::new(seed), next_alias: 0 };
    (0..count)
        .map(|_| {
            g.next_alias = 0;
            g.query()
        })
        .collect()
}

/// Rows sorted, so that two servers' answers compare as multisets.
fn sorted(a: Answer) -> Answer {
    match a {
        Answer::Rows(mut rows) => {
            rows.sort();
            Answer::Rows(rows)
        }
        other => other,
    }
}

/// An answer for a failure message, cut short past 1,500 characters.
fn shown(a: &Answer) -> String {
    let text = format!("{a:?}");
    match (text.char_indices().nth(1500), a) {
        (None, _) => text,
        (Some((cut, _)), Answer::Rows(rows)) => format!("{}... ({} rows)", &text[..cut], rows.len()),
        (Some((cut, _)), _) => format!("{}...", &text[..cut]),
    }
}

/// Random SELECTs over three small tables (1-3 tables with INNER / LEFT /
/// RIGHT / CROSS joins on equalities and inequalities, AND / OR of
/// comparisons, IS NULL, IN lists, IN / NOT IN / EXISTS / ANY / ALL
/// subqueries correlated or not, scalar aggregate subqueries, GROUP BY
/// [WITH ROLLUP] with COUNT / SUM / MIN / MAX and HAVING, window functions
/// that no order among peers changes, DISTINCT, UNION [ALL] / EXCEPT /
/// INTERSECT of two such selects) give the same rows as a multiset, or the
/// same error code, on quire and on MariaDB.
///
/// QUIRE_DIFFQ_QUERIES and QUIRE_DIFFQ_SEED (decimal or 0x-hex) override
/// the count and the seed; QUIRE_DIFFQ_PRINT=1 prints the schema and the
/// queries, one statement a line ending in `;`, and returns without
/// starting a server (any other value of it is a file to write them to).
#[test]
fn random_join_and_subquery_queries_answer_as_mariadb_does() {
    let join_buffer = std::env::var("QUIRE_DIFFQ_JOIN_BUFFER").ok().map(|v| v.parse().expect("a number of bytes"));
    random_queries_answer_as_mariadb_does(join_buffer);
}

/// The random queries with quire's `join_buffer_size` at 1 KiB, so that
/// hash joins of the random tables run in chunks (`rel/spill.rs`).
#[test]
fn random_queries_with_hash_joins_in_chunks_answer_as_mariadb_does() {
    if std::env::var_os("QUIRE_DIFFQ_PRINT").is_none() {
        random_queries_answer_as_mariadb_does(Some(1024));
    }
}

/// The random test (above); `join_buffer` sets quire's session
/// `join_buffer_size` (QUIRE_DIFFQ_JOIN_BUFFER by hand).
fn random_queries_answer_as_mariadb_does(join_buffer: Option<u64>) {
    let seed = seed_from_env();
    let count = env_or("QUIRE_DIFFQ_QUERIES", RANDOM_QUERIES);
    let queries = random_queries(seed, count);
    if let Ok(target) = std::env::var("QUIRE_DIFFQ_PRINT") {
        let mut text = String::new();
        for sql in RANDOM_SCHEMA.iter().copied().chain(queries.iter().map(String::as_str)) {
            text.push_str(sql);
            text.push_str(";\n");
        }
        if target == "1" {
            print!("{text}");
        } else {
            std::fs::write(&target, text).unwrap_or_else(|e| panic!("write {target}: {e}"));
        }
        return;
    }
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    // Each variant its own database: the tests share one MariaDB.
    let db = if join_buffer.is_some() { "diffq_random_chunks" } else { "diffq_random" };
    let mut qc = q.fresh_db(db);
    let mut mc = m.fresh_db(db);
    assert_same(&mut qc, &mut mc, RANDOM_SCHEMA);
    if let Some(bytes) = join_buffer {
        let set = answer(&mut qc, &format!("SET SESSION join_buffer_size = {bytes}"));
        assert!(matches!(set, Answer::Ok { .. }), "{set:?}");
    }
    let mut mismatches = Vec::new();
    for (i, sql) in queries.iter().enumerate() {
        let quire = sorted(answer(&mut qc, sql));
        let maria = sorted(answer(&mut mc, sql));
        if quire != maria {
            mismatches.push(format!("query #{i}: {sql}\n  quire:   {}\n  MariaDB: {}", shown(&quire), shown(&maria)));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {count} random queries (seed {seed:#x}) differ between quire and MariaDB (rows compared as sorted \
         multisets); the first ones:\n{}",
        mismatches.len(),
        mismatches.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}
