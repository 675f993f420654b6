//! GROUP BY beyond `tmp_table_size` / `max_heap_table_size`: once the
//! groups in memory hold that much, the rows of further groups go to
//! disk sorted by their grouping key and are aggregated one group at a
//! time (`finish::Groups`), counted in `Created_tmp_disk_tables`. The
//! answers are MariaDB's, with the limits small (every query below spills)
//! and large (none does).

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, MariaDb, Quire};

fn status(c: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    row.map_or(0, |(_, v)| v.parse().unwrap())
}

/// `n` rows over about n / 3 groups of `k`, with NULLs and mixed case.
fn schema(n: usize) -> Vec<String> {
    let mut v = vec![
        "CREATE TABLE g (id INT PRIMARY KEY, k INT, s VARCHAR(30), amount DECIMAL(10,2))".to_string(),
        "CREATE TABLE h (k INT PRIMARY KEY, label VARCHAR(10))".to_string(),
    ];
    let rows: Vec<String> = (0..n)
        .map(|i| {
            let k = if i % 17 == 0 { "NULL".to_string() } else { ((i * 7919) % (n / 3)).to_string() };
            let s = match i % 3 {
                0 => format!("'Key{}'", i % 900),
                1 => format!("'key{}'", i % 900),
                _ => "NULL".to_string(),
            };
            format!("({i}, {k}, {s}, {}.{:02})", (i * 31) % 1000, i % 100)
        })
        .collect();
    for chunk in rows.chunks(500) {
        v.push(format!("INSERT INTO g VALUES {}", chunk.join(",")));
    }
    let labels: Vec<String> = (0..n / 3).step_by(2).map(|k| format!("({k}, 'l{}')", k % 7)).collect();
    v.push(format!("INSERT INTO h VALUES {}", labels.join(",")));
    v
}

const QUERIES: &[&str] = &[
    "SELECT k, COUNT(*), SUM(amount), MIN(s), MAX(id) FROM g GROUP BY k ORDER BY k",
    "SELECT s, COUNT(*), COUNT(DISTINCT k) FROM g GROUP BY s ORDER BY s",
    "SELECT k, GROUP_CONCAT(id ORDER BY id) FROM g WHERE id < 3000 GROUP BY k ORDER BY k",
    "SELECT k, AVG(amount) FROM g GROUP BY k HAVING COUNT(*) > 3 ORDER BY k",
    "SELECT k, COUNT(*) AS c FROM g GROUP BY k ORDER BY c DESC, k LIMIT 15",
    "SELECT k % 100, s, COUNT(*) FROM g GROUP BY k % 100, s ORDER BY 1, 2",
    "SELECT h.label, g.k, COUNT(*) FROM g JOIN h ON h.k = g.k GROUP BY h.label, g.k ORDER BY 1, 2",
    "SELECT COUNT(*) FROM (SELECT k FROM g GROUP BY k) AS d",
];

#[test]
fn group_by_beyond_tmp_table_size_goes_to_disk_and_answers_as_mariadb_does() {
    let q = Quire::start(&[]);
    let maria = MariaDb::get();
    let mut qc = q.fresh_db("gspill");
    let mut mc = maria.fresh_db("gspill");
    let setup = schema(12_000);
    let setup: Vec<&str> = setup.iter().map(String::as_str).collect();
    assert_same(&mut qc, &mut mc, &setup);
    // The smallest limits: a few hundred groups fit.
    assert_same(&mut qc, &mut mc, &["SET SESSION tmp_table_size = 16384", "SET SESSION max_heap_table_size = 16384"]);
    for sql in QUERIES {
        let before = status(&mut qc, "Created_tmp_disk_tables");
        assert_same(&mut qc, &mut mc, &[sql]);
        assert!(status(&mut qc, "Created_tmp_disk_tables") > before, "{sql}: the grouping did not go to disk");
    }
    // Without ORDER BY the groups come in no defined order: the same set.
    let mut a: Vec<(Option<i64>, i64)> = qc.query("SELECT k, COUNT(*) FROM g GROUP BY k").unwrap();
    let mut b: Vec<(Option<i64>, i64)> = mc.query("SELECT k, COUNT(*) FROM g GROUP BY k").unwrap();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // Either limit alone bounds the groups (the smaller one counts).
    assert_same(&mut qc, &mut mc, &["SET SESSION tmp_table_size = 67108864"]);
    let before = status(&mut qc, "Created_tmp_disk_tables");
    assert_same(&mut qc, &mut mc, &[QUERIES[0]]);
    assert!(status(&mut qc, "Created_tmp_disk_tables") > before, "max_heap_table_size alone");
    // Large limits: nothing goes to disk, same answers.
    assert_same(&mut qc, &mut mc, &["SET SESSION max_heap_table_size = 67108864"]);
    for sql in QUERIES {
        let before = status(&mut qc, "Created_tmp_disk_tables");
        assert_same(&mut qc, &mut mc, &[sql]);
        assert_eq!(status(&mut qc, "Created_tmp_disk_tables"), before, "{sql}");
    }
}
