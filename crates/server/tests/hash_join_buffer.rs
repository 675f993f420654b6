//! A hash join's build side is bounded by `join_buffer_size`: past it the
//! rows are joined in chunks kept in a temporary file in `tmpdir`. The
//! answers stay MariaDB's (inner, LEFT and RIGHT joins, duplicate and
//! NULL keys, string keys, hash joins nested in an outer join's right
//! side and in a correlated subquery, LIMIT), chunks are counted in
//! `Created_tmp_files`, the session's current value
//! applies to a cached plan, and the server's memory stays flat while a
//! build side far larger than the buffer is joined.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{alone, answer, assert_same, peak_rss_during, Answer, MariaDb, Quire};

/// An outer table `o` (60 rows) and an inner one `i` (600 rows) joined on
/// columns without an index (so by hashing): keys repeat, some are NULL,
/// some match nothing on the other side; `s` is a string key.
fn schema() -> Vec<String> {
    let mut v = vec![
        "CREATE TABLE o (id INT PRIMARY KEY, k INT, s VARCHAR(10))".to_string(),
        "CREATE TABLE i (id INT PRIMARY KEY, k INT, s VARCHAR(10), pad VARCHAR(40))".to_string(),
    ];
    let o: Vec<String> = (1..=60)
        .map(|n| {
            let k = if n % 11 == 0 { "NULL".to_string() } else { (n % 23).to_string() };
            format!("({n}, {k}, 'S{}')", n % 17)
        })
        .collect();
    v.push(format!("INSERT INTO o VALUES {}", o.join(",")));
    let i: Vec<String> = (1..=600)
        .map(|n| {
            let k = if n % 13 == 0 { "NULL".to_string() } else { (n % 31).to_string() };
            let s = if n % 7 == 0 { "NULL".to_string() } else { format!("'s{}'", n % 19) };
            format!("({n}, {k}, {s}, REPEAT('x', {}))", n % 40)
        })
        .collect();
    v.push(format!("INSERT INTO i VALUES {}", i.join(",")));
    v
}

const QUERIES: &[&str] = &[
    "SELECT o.id, i.id FROM o JOIN i ON i.k = o.k ORDER BY o.id, i.id",
    "SELECT o.id, i.id, i.pad FROM o LEFT JOIN i ON i.k = o.k ORDER BY o.id, i.id",
    "SELECT o.id, i.id FROM o LEFT JOIN i ON i.k = o.k AND i.id % 3 = 0 ORDER BY o.id, i.id",
    "SELECT o.id, i.id FROM i RIGHT JOIN o ON i.k = o.k AND i.pad <> '' ORDER BY o.id, i.id",
    "SELECT o.id, i.id FROM o JOIN i ON i.s = o.s ORDER BY o.id, i.id",
    "SELECT o.id, COUNT(i.id) FROM o LEFT JOIN i ON i.s = o.s GROUP BY o.id ORDER BY o.id",
    "SELECT COUNT(*), SUM(i.id), SUM(o.id) FROM o JOIN i ON i.k = o.k",
    "SELECT o.id FROM o LEFT JOIN i ON i.k = o.k WHERE i.id IS NULL ORDER BY o.id",
    // Hash joins inside an outer join's right side, keyed by the left.
    "SELECT o.id, a.id, b.id FROM o LEFT JOIN (i a JOIN i b ON b.k = a.k AND b.id < 60) ON a.k = o.k AND a.id < 90 \
     ORDER BY o.id, a.id, b.id",
    // A hash join in a correlated subquery, run per outer row.
    "SELECT o.id, (SELECT COUNT(*) FROM i a JOIN i b ON b.k = a.k WHERE a.id = o.id + 5) FROM o ORDER BY o.id",
    // LIMIT without ORDER BY: how many rows, not which.
    "SELECT COUNT(*) FROM (SELECT o.id FROM o JOIN i ON i.k = o.k LIMIT 7) d",
    "SELECT COUNT(*) FROM (SELECT o.id FROM o LEFT JOIN i ON i.k = o.k LIMIT 500) d",
];

/// quire with the given session `join_buffer_size` beside MariaDB with
/// its default.
fn same_with_join_buffer(db: &str, join_buffer: u64) {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db(db);
    let mut mc = m.fresh_db(db);
    let schema = schema();
    let schema: Vec<&str> = schema.iter().map(String::as_str).collect();
    assert_same(&mut qc, &mut mc, &schema);
    qc.query_drop(format!("SET SESSION join_buffer_size = {join_buffer}")).unwrap();
    // Sorts in memory: the temporary files counted below are the joins'.
    qc.query_drop("SET SESSION sort_buffer_size = 67108864").unwrap();
    // The joins above are hash joins (no index on the keys).
    let plan: Vec<mysql::Row> = qc.query(format!("EXPLAIN {}", QUERIES[0])).unwrap();
    let extra: Vec<String> =
        plan.iter().map(|r| r.get::<Option<String>, _>("Extra").unwrap().unwrap_or_default()).collect();
    assert!(extra.iter().any(|e| e.contains("hash join")), "not a hash join: {extra:?}");
    let files = |c: &mut Conn| -> u64 {
        let row: (String, String) = c.query_first("SHOW GLOBAL STATUS LIKE 'Created_tmp_files'").unwrap().unwrap();
        row.1.parse().unwrap()
    };
    let before = files(&mut qc);
    assert_same(&mut qc, &mut mc, QUERIES);
    // Chunks, and the outer rows read back per chunk, are files in tmpdir.
    let created = files(&mut qc) - before;
    if join_buffer < 16_384 {
        assert!(created >= 2, "{created} temporary files with a {join_buffer}-byte join buffer");
    } else {
        assert_eq!(created, 0, "the build sides fit in {join_buffer} bytes");
    }
}

#[test]
fn hash_joins_within_the_join_buffer_answer_as_mariadb_does() {
    same_with_join_buffer("hj_whole", 262_144);
}

#[test]
fn hash_joins_in_chunks_of_a_small_join_buffer_answer_as_mariadb_does() {
    same_with_join_buffer("hj_chunks", 1024);
}

#[test]
fn a_one_row_join_buffer_still_answers_as_mariadb_does() {
    // The smallest value (128) holds less than one row: a chunk per row.
    same_with_join_buffer("hj_rows", 128);
}

/// With `tmpdir` gone, a join that needs chunks fails as a sort that
/// needs runs does (error 1) and one that fits, or whose outer side is
/// empty (the table is built at its first row), does not; the value the
/// session holds when the statement runs decides, not the one its cached
/// plan was made under.
#[test]
fn the_session_join_buffer_decides_at_execution_whether_a_join_spills() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone");
    let q = Quire::start(&[("tmpdir", missing.to_str().unwrap())]);
    let mut c = q.fresh_db("hj_tmpdir");
    for s in schema() {
        c.query_drop(s).unwrap();
    }
    let sql = "SELECT COUNT(*) FROM o JOIN i ON i.k = o.k";
    let fits = answer(&mut c, sql);
    assert!(matches!(&fits, Answer::Rows(r) if r.len() == 1), "{fits:?}");
    c.query_drop("SET SESSION join_buffer_size = 1024").unwrap();
    assert_eq!(answer(&mut c, sql), Answer::Err(1), "a chunked join writes its chunks to tmpdir");
    // An empty outer side builds no table, so needs no file.
    let none = answer(&mut c, "SELECT COUNT(*) FROM o JOIN i ON i.k = o.k WHERE o.id < 0");
    assert_eq!(none, Answer::Rows(vec![vec![Some("0".into())]]));
    // A prepared statement's plan follows the variable too.
    let stmt = c.prep("SELECT COUNT(*) FROM o JOIN i ON i.k = o.k AND o.id > ?").unwrap();
    let e = c.exec::<u64, _, _>(&stmt, (0,)).unwrap_err();
    assert_eq!(oracle::err_code(&e), 1, "{e}");
    c.query_drop("SET SESSION join_buffer_size = 262144").unwrap();
    assert_eq!(answer(&mut c, sql), fits);
    let n: Vec<u64> = c.exec(&stmt, (0,)).unwrap();
    assert_eq!(Answer::Rows(vec![vec![Some(n[0].to_string())]]), fits);
    // The server goes on.
    let one: Option<u64> = c.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
}

/// Runs `sql` on `c` while a thread samples this process's memory; the
/// one row's values and the peak growth over the start.
fn peak_during(c: &mut Conn, sql: &str) -> ((u64, u64), u64) {
    peak_rss_during(|| c.query_first(sql).unwrap().unwrap())
}

/// A build side of ~40 MiB joined through the default 256 KiB buffer
/// leaves the server's memory flat; with a buffer larger than it, the
/// same join holds it (the control: the measurement sees a held table).
#[test]
fn a_build_side_far_larger_than_the_join_buffer_keeps_server_memory_flat() {
    if !alone("a_build_side_far_larger_than_the_join_buffer_keeps_server_memory_flat") {
        return;
    }
    const ROWS: u64 = 40_000;
    const PAD: usize = 1000;
    let q = Quire::start(&[("innodb_buffer_pool_size", "16M")]);
    let mut c = q.fresh_db("hj_mem");
    c.query_drop("CREATE TABLE big (id INT PRIMARY KEY, k INT NOT NULL, pad VARCHAR(1000) NOT NULL)").unwrap();
    c.query_drop("CREATE TABLE few (id INT PRIMARY KEY, k INT NOT NULL)").unwrap();
    let mut next = 1;
    while next <= ROWS {
        let end = (next + 499).min(ROWS);
        let values: Vec<String> = (next..=end).map(|n| format!("({n}, {}, REPEAT('p', {PAD}))", n % 100)).collect();
        c.query_drop(format!("INSERT INTO big VALUES {}", values.join(","))).unwrap();
        next = end + 1;
    }
    c.query_drop("INSERT INTO few VALUES (1, 7), (2, 7), (3, 42), (4, 1000)").unwrap();
    let table_bytes = ROWS * PAD as u64;
    let sql = "SELECT COUNT(*), SUM(LENGTH(big.pad)) FROM few JOIN big ON big.k = few.k";
    // Warm-up: the buffer pool and the allocator reach their working size.
    let n: u64 = c.query_first("SELECT COUNT(*) FROM big WHERE pad <> ''").unwrap().unwrap();
    assert_eq!(n, ROWS);
    let want = (1200, 1200 * PAD as u64);
    let (got, grown) = peak_during(&mut c, sql);
    eprintln!("{sql}: {} MiB build side, default join_buffer_size: peak +{} MiB", table_bytes >> 20, grown >> 20);
    assert_eq!(got, want);
    assert!(grown < table_bytes / 8, "memory grew by {} MiB over a {} MiB build side", grown >> 20, table_bytes >> 20);
    c.query_drop("SET SESSION join_buffer_size = 1073741824").unwrap();
    let (got, held) = peak_during(&mut c, sql);
    eprintln!("{sql}: 1 GiB join_buffer_size: peak +{} MiB", held >> 20);
    assert_eq!(got, want);
    assert!(held > table_bytes / 2, "a held build side grew memory by only {} MiB", held >> 20);
}
