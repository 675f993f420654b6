//! ORDER BY beyond `sort_buffer_size`: the sort spills sorted runs to a
//! temporary file in `tmpdir` and merges them (counted in
//! `Sort_merge_passes`), and answers exactly as MariaDB does — ascending
//! and descending, NULLs, several keys, collations, expressions, OFFSET /
//! LIMIT (top-N), DISTINCT, over one table and over a join.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, MariaDb, Quire};

fn status(c: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    row.map_or(0, |(_, v)| v.parse().unwrap())
}

/// A table of `n` rows with many equal keys, NULLs and mixed-case text.
fn schema(n: usize) -> Vec<String> {
    let mut v =
        vec!["CREATE TABLE s (id INT PRIMARY KEY, k INT, name VARCHAR(40), d DATE, amount DECIMAL(10,2))".to_string()];
    let rows: Vec<String> = (0..n)
        .map(|i| {
            let k = if i % 13 == 0 { "NULL".to_string() } else { ((i * 7919) % 37).to_string() };
            let name = match i % 4 {
                0 => format!("'Name{}'", i % 50),
                1 => format!("'name{}'", i % 50),
                2 => "NULL".to_string(),
                _ => format!("'  x{}'", i % 9),
            };
            let d = format!("'20{:02}-{:02}-{:02}'", i % 30, 1 + i % 12, 1 + i % 28);
            format!("({i}, {k}, {name}, {d}, {}.{:02})", (i * 31) % 1000, i % 100)
        })
        .collect();
    for chunk in rows.chunks(500) {
        v.push(format!("INSERT INTO s VALUES {}", chunk.join(",")));
    }
    v
}

const QUERIES: &[&str] = &[
    "SELECT id, k FROM s ORDER BY k, id",
    "SELECT id, k, name FROM s ORDER BY k DESC, name, id DESC",
    "SELECT name, id FROM s ORDER BY name, id",
    "SELECT id, d, amount FROM s ORDER BY d DESC, amount, id",
    "SELECT id, k * 3 - id AS e FROM s ORDER BY e, id",
    "SELECT id, name FROM s ORDER BY name DESC, id LIMIT 100, 20",
    "SELECT id FROM s ORDER BY amount DESC, id LIMIT 7",
    "SELECT DISTINCT k, name FROM s ORDER BY k, name",
    "SELECT a.id, b.k FROM s a JOIN s b ON b.id = a.id + 1 ORDER BY b.k, a.name, a.id",
    "SELECT k, COUNT(*), MAX(name) FROM s GROUP BY k ORDER BY COUNT(*) DESC, k",
];

#[test]
fn sorts_beyond_sort_buffer_size_spill_and_answer_as_mariadb_does() {
    let q = Quire::start(&[]);
    let maria = MariaDb::get();
    let mut qc = q.fresh_db("sorts");
    let mut mc = maria.fresh_db("sorts");
    let setup = schema(6_000);
    let setup: Vec<&str> = setup.iter().map(String::as_str).collect();
    assert_same(&mut qc, &mut mc, &setup);
    // The smallest buffer both take: each sort of the whole table makes
    // dozens of runs.
    assert_same(&mut qc, &mut mc, &["SET SESSION sort_buffer_size = 32768"]);
    for sql in QUERIES {
        let before = status(&mut qc, "Sort_merge_passes");
        assert_same(&mut qc, &mut mc, &[sql]);
        let passes = status(&mut qc, "Sort_merge_passes") - before;
        if !sql.contains("LIMIT 7") && !sql.contains("GROUP BY") {
            assert!(passes > 0, "{sql}: the sort did not spill");
        }
    }
    // With a buffer that holds the rows nothing spills, and the answers
    // are the same.
    assert_same(&mut qc, &mut mc, &["SET SESSION sort_buffer_size = 67108864"]);
    for sql in QUERIES {
        let before = status(&mut qc, "Sort_merge_passes");
        assert_same(&mut qc, &mut mc, &[sql]);
        assert_eq!(status(&mut qc, "Sort_merge_passes"), before, "{sql}");
    }
    let rows = status(&mut qc, "Sort_rows");
    assert!(rows >= 6_000, "Sort_rows {rows}");
}

#[test]
fn a_sort_that_cannot_write_its_runs_fails_with_an_error_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone");
    let q = Quire::start(&[("tmpdir", missing.to_str().unwrap())]);
    let mut c = q.fresh_db("nosort");
    let setup = schema(3_000);
    for s in &setup {
        c.query_drop(s).unwrap();
    }
    c.query_drop("SET SESSION sort_buffer_size = 32768").unwrap();
    let e = c.query::<(i64, Option<i64>), _>("SELECT id, k FROM s ORDER BY k, id").unwrap_err();
    // EE_CANTCREATEFILE, as MySQL and MariaDB name a temporary file they
    // cannot create (a failing write would be EE_WRITE, 3).
    assert_eq!(oracle::err_code(&e), 1, "{e}");
    // A sort that fits its buffer needs no file.
    c.query_drop("SET SESSION sort_buffer_size = 67108864").unwrap();
    let rows: Vec<(i64, Option<i64>)> = c.query("SELECT id, k FROM s ORDER BY k, id").unwrap();
    assert_eq!(rows.len(), 3_000);
}
