//! Results stream to the client as they are produced: a result much
//! larger than the server's buffers passes with flat memory while the
//! client reads it slowly; LIMIT stops the scans below it; an error (or a
//! KILL, or the statement's time limit) after rows were sent reaches the
//! client as an error after those rows, as MariaDB does; the binary
//! protocol and multi-statement texts stream the same rows; a client that
//! stops reading is cut off after `net_write_timeout`.

mod oracle;

use std::thread;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, Row};
use oracle::{alone, peak_rss_during, rss_bytes, MariaDb, Quire};

/// A server error's code; 0 for a client-side error.
fn code(e: &mysql::Error) -> u16 {
    oracle::err_code(e)
}

fn status(c: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    row.map_or(0, |(_, v)| v.parse().unwrap())
}

/// Fills `t (id INT PRIMARY KEY, pad VARCHAR(1000))` with ids 1..=rows
/// and `pad_bytes` of padding each.
fn fill(c: &mut Conn, rows: u64, pad_bytes: usize) {
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, pad VARCHAR(1000) NOT NULL)").unwrap();
    let per = 500;
    let mut next = 1;
    while next <= rows {
        let end = (next + per - 1).min(rows);
        let values: Vec<String> = (next..=end).map(|i| format!("({i}, REPEAT('p', {pad_bytes}))")).collect();
        c.query_drop(format!("INSERT INTO t VALUES {}", values.join(","))).unwrap();
        next = end + 1;
    }
}

/// What a result gave before it ended: its rows (as text), and its error
/// code if it ended with one.
fn read_all(result: impl Iterator<Item = mysql::Result<Row>>) -> (Vec<Vec<Option<String>>>, Option<u16>) {
    let mut rows = Vec::new();
    for r in result {
        match r {
            Ok(row) => rows.push(
                row.unwrap()
                    .into_iter()
                    .map(|v| match v {
                        mysql::Value::NULL => None,
                        mysql::Value::Bytes(b) => Some(String::from_utf8(b).unwrap()),
                        mysql::Value::Int(i) => Some(i.to_string()),
                        mysql::Value::UInt(u) => Some(u.to_string()),
                        other => Some(format!("{other:?}")),
                    })
                    .collect(),
            ),
            Err(e) => return (rows, Some(code(&e))),
        }
    }
    (rows, None)
}

#[test]
fn a_result_far_larger_than_the_buffers_streams_with_flat_server_memory() {
    if !alone("a_result_far_larger_than_the_buffers_streams_with_flat_server_memory") {
        return;
    }
    const ROWS: u64 = 200_000;
    const PAD: usize = 1000;
    let q = Quire::start(&[("innodb_buffer_pool_size", "16M"), ("innodb_page_size", "16384")]);
    let mut c = q.fresh_db("big");
    let loading = Instant::now();
    fill(&mut c, ROWS, PAD);
    eprintln!("loaded {ROWS} rows in {:?}", loading.elapsed());
    let result_bytes = ROWS * PAD as u64;
    // A warm-up pass (itself streamed) brings the buffer pool and the
    // allocator to their working size.
    let ids: Vec<u64> = c.query("SELECT id FROM t").unwrap();
    assert_eq!(ids.len() as u64, ROWS);
    drop(ids);
    let mut reader = q.connect(Some("big"));
    // Reads `sql` slowly (the server's writes block on a full socket),
    // checking each row; the peak growth of this process's memory (the
    // server runs in it) over the start.
    let mut read_slowly = |sql: &str, prepared: bool| -> u64 {
        let before = rss_bytes();
        let mut peak = before;
        let mut seen = 0u64;
        let mut check = |row: mysql::Result<Row>| {
            let (id, pad): (u64, String) = mysql::from_row(row.unwrap());
            seen += 1;
            assert_eq!((id, pad.len()), (seen, PAD), "{sql}: rows in key order");
            if seen.is_multiple_of(10_000) {
                thread::sleep(Duration::from_millis(50));
                peak = peak.max(rss_bytes());
            }
        };
        if prepared {
            let stmt = reader.prep(sql).unwrap();
            reader.exec_iter(&stmt, (0,)).unwrap().for_each(&mut check);
        } else {
            reader.query_iter(sql).unwrap().for_each(&mut check);
        }
        assert_eq!(seen, ROWS, "{sql}");
        let grown = peak.saturating_sub(before);
        eprintln!("{sql}: {} MiB result, memory {} MiB, peak +{} MiB", result_bytes >> 20, before >> 20, grown >> 20);
        grown
    };
    let text = read_slowly("SELECT * FROM t", false);
    let binary = read_slowly("SELECT id, pad FROM t WHERE id > ?", true);
    // Sorting on a column without an index spills runs of
    // sort_buffer_size to disk and merges them as the rows are sent.
    let sorted = read_slowly("SELECT * FROM t ORDER BY pad, id", false);
    // The same measurement sees a result that is held whole: a derived
    // table is materialised first.
    let held = read_slowly("SELECT * FROM (SELECT * FROM t LIMIT 1000000) d", false);
    assert!(held > result_bytes / 2, "a materialised result grew memory by only {} MiB", held >> 20);
    for (what, grown) in [("text", text), ("binary", binary), ("sorted", sorted)] {
        assert!(
            grown < result_bytes / 8,
            "{what} protocol: memory grew by {} MiB while sending a {} MiB result",
            grown >> 20,
            result_bytes >> 20
        );
    }
}

/// Runs `sql` on `c` while a thread samples this process's memory; the
/// rows and the peak growth over the start.
fn peak_during(c: &mut Conn, sql: &str) -> (Vec<Row>, u64) {
    peak_rss_during(|| c.query(sql).unwrap())
}

#[test]
fn aggregates_distinct_and_top_n_over_a_large_table_keep_server_memory_flat() {
    if !alone("aggregates_distinct_and_top_n_over_a_large_table_keep_server_memory_flat") {
        return;
    }
    const ROWS: u64 = 150_000;
    const PAD: usize = 1000;
    let q = Quire::start(&[("innodb_buffer_pool_size", "16M")]);
    let mut c = q.fresh_db("agg");
    fill(&mut c, ROWS, PAD);
    let table_bytes = ROWS * PAD as u64;
    // Warm-up: the buffer pool and the allocator reach their working size.
    let n: u64 = c.query_first("SELECT COUNT(*) FROM t WHERE pad <> ''").unwrap().unwrap();
    assert_eq!(n, ROWS);
    let cases: [(&str, usize); 7] = [
        // The single-table planner: aggregates, groups, top-N, DISTINCT.
        ("SELECT COUNT(*), MAX(pad), SUM(id) FROM t WHERE pad <> ''", 1),
        ("SELECT id % 7, COUNT(*), MIN(pad) FROM t GROUP BY id % 7", 7),
        ("SELECT id, pad FROM t ORDER BY pad DESC, id DESC LIMIT 3", 3),
        ("SELECT DISTINCT LENGTH(pad) FROM t", 1),
        // The general engine: a join aggregated, grouped and cut to a top-N.
        ("SELECT COUNT(*), MAX(b.pad) FROM t a JOIN t b ON b.id = a.id", 1),
        ("SELECT a.id % 5, COUNT(DISTINCT a.id % 10) FROM t a JOIN t b ON b.id = a.id GROUP BY a.id % 5", 5),
        ("SELECT a.id, b.pad FROM t a JOIN t b ON b.id = a.id ORDER BY b.pad, a.id DESC LIMIT 2", 2),
    ];
    for (sql, n) in cases {
        let (rows, grown) = peak_during(&mut c, sql);
        eprintln!("{sql}: {} MiB read, peak +{} MiB", table_bytes >> 20, grown >> 20);
        assert_eq!(rows.len(), n, "{sql}");
        assert!(
            grown < table_bytes / 8,
            "{sql}: memory grew by {} MiB over a {} MiB table",
            grown >> 20,
            table_bytes >> 20
        );
    }
    // The same measurement sees rows the server holds: a derived table
    // is materialised whole.
    let (rows, held) = peak_during(&mut c, "SELECT COUNT(*) FROM (SELECT id, pad FROM t ORDER BY pad LIMIT 1000000) d");
    assert_eq!(rows.len(), 1);
    assert!(held > table_bytes / 2, "a materialised table grew memory by only {} MiB", held >> 20);
    // The top-N rows are the right ones.
    let top: Vec<u64> = c.query("SELECT id FROM t ORDER BY pad DESC, id DESC LIMIT 3").unwrap();
    assert_eq!(top, vec![ROWS, ROWS - 1, ROWS - 2]);
    let top: Vec<u64> =
        c.query("SELECT a.id FROM t a JOIN t b ON b.id = a.id ORDER BY b.pad, a.id DESC LIMIT 2").unwrap();
    assert_eq!(top, vec![ROWS, ROWS - 1]);
}

#[test]
fn limit_stops_the_scans_below_it() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("lim");
    fill(&mut c, 20_000, 200);
    // The statistics thread's sampling would count among the requests.
    c.query_drop("SET GLOBAL innodb_stats_auto_recalc = OFF").unwrap();
    let requests = |c: &mut Conn| status(c, "Innodb_buffer_pool_read_requests");
    // Reading everything touches every leaf page.
    let r0 = requests(&mut c);
    let all: Vec<u64> = c.query("SELECT id FROM t").unwrap();
    let full = requests(&mut c) - r0;
    assert_eq!(all.len(), 20_000);
    assert!(full > 1_000, "a full scan made only {full} page requests");
    let cases = [
        // The single-table planner.
        ("SELECT id FROM t LIMIT 5", 5),
        ("SELECT id FROM t WHERE pad LIKE 'p%' LIMIT 2, 3", 3),
        // The general engine: a join, and a subquery in the select list.
        ("SELECT a.id FROM t a JOIN t b ON b.id = a.id LIMIT 5", 5),
        ("SELECT id, (SELECT 1) FROM t LIMIT 5", 5),
        // DISTINCT lets a row out as soon as it is new.
        ("SELECT DISTINCT id FROM t LIMIT 5", 5),
        ("SELECT DISTINCT a.id FROM t a JOIN t b ON b.id = a.id LIMIT 5", 5),
    ];
    for (sql, n) in cases {
        let r0 = requests(&mut c);
        let rows: Vec<Row> = c.query(sql).unwrap();
        let used = requests(&mut c) - r0;
        assert_eq!(rows.len(), n, "{sql}");
        assert!(used * 20 < full, "{sql}: {used} page requests, a full scan makes {full}");
    }
}

#[test]
fn an_error_after_rows_reaches_the_client_after_them_as_mariadb_sends_it() {
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let statements = [
        // BIGINT overflow from the 8th row on (1690).
        "SELECT id, 9223372036854775800 + id FROM t",
        "SELECT a.id, 9223372036854775800 + a.id FROM t a JOIN t b ON b.id = a.id",
        // A scalar subquery with two rows for id 9 (1242).
        "SELECT id, (SELECT id FROM t u WHERE u.id IN (t.id, 9) AND t.id >= 9) FROM t",
    ];
    let mut got = Vec::new();
    for server in 0..2 {
        let mut c = if server == 0 { q.fresh_db("mid") } else { m.fresh_db("mid") };
        c.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
        c.query_drop("INSERT INTO t VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)").unwrap();
        let mut answers = Vec::new();
        for sql in statements {
            answers.push(read_all(c.query_iter(sql).unwrap()));
            let stmt = c.prep(sql).unwrap();
            answers.push(read_all(c.exec_iter(&stmt, ()).unwrap()));
            // The connection carries on.
            let one: Option<u64> = c.query_first("SELECT 1").unwrap();
            assert_eq!(one, Some(1));
        }
        got.push(answers);
    }
    for (i, a) in got[0].iter().enumerate() {
        assert!(a.1.is_some(), "statement {i} failed: {a:?}");
        assert!(!a.0.is_empty(), "statement {i} sent rows before its error: {a:?}");
    }
    assert_eq!(got[0], got[1], "as MariaDB");
}

#[test]
fn kill_query_and_the_time_limit_stop_a_long_result_the_client_reads_slowly() {
    let q = Quire::start(&[]);
    let mut admin = q.fresh_db("stop");
    fill(&mut admin, 20_000, 1000);
    // KILL QUERY while the server waits for the client to read.
    let mut victim = q.connect(Some("stop"));
    let id = victim.connection_id();
    let reader = thread::spawn(move || {
        let mut result = victim.query_iter("SELECT * FROM t").unwrap();
        let mut seen = 0;
        let err = loop {
            match result.next() {
                Some(Ok(_)) => {
                    seen += 1;
                    if seen == 100 {
                        thread::sleep(Duration::from_millis(1500));
                    }
                }
                Some(Err(e)) => break Some(code(&e)),
                None => break None,
            }
        };
        drop(result);
        let one: Option<u64> = victim.query_first("SELECT 1").unwrap();
        (seen, err, one)
    });
    thread::sleep(Duration::from_millis(500));
    admin.query_drop(format!("KILL QUERY {id}")).unwrap();
    let (seen, err, one) = reader.join().unwrap();
    assert_eq!(err, Some(1317), "after {seen} rows");
    assert!((100..20_000).contains(&seen), "{seen} rows came before the error");
    assert_eq!(one, Some(1), "the connection carries on");
    // max_execution_time passing while the client reads slowly.
    let mut slow = q.connect(Some("stop"));
    slow.query_drop("SET SESSION max_execution_time = 300").unwrap();
    let mut seen = 0;
    let mut err = None;
    for r in slow.query_iter("SELECT * FROM t").unwrap() {
        match r {
            Ok(_) => {
                seen += 1;
                if seen == 100 {
                    thread::sleep(Duration::from_millis(800));
                }
            }
            Err(e) => {
                err = Some(code(&e));
                break;
            }
        }
    }
    assert_eq!(err, Some(3024), "after {seen} rows");
    assert!((100..20_000).contains(&seen), "{seen} rows came before the error");
}

#[test]
fn multi_statement_results_stream_with_their_flags_and_warnings() {
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let mut got = Vec::new();
    for server in 0..2 {
        let mut c = if server == 0 { q.fresh_db("multi") } else { m.fresh_db("multi") };
        fill(&mut c, 3_000, 100);
        let mut sets = Vec::new();
        let mut r = c
            .query_iter(
                "SELECT id FROM t WHERE id <= 2000; SELECT COUNT(*) FROM t; \
                 SELECT id, 1 / (id - 3) FROM t WHERE id < 5; SELECT id, 9223372036854775800 + id FROM t",
            )
            .unwrap();
        while let Some(set) = r.iter() {
            let (rows, err) = read_all(set);
            sets.push((rows.len(), rows.last().cloned(), err));
        }
        drop(r);
        got.push(sets);
        // The division by zero's warning is counted in the EOF after the
        // rows.
        let rows: Vec<Row> = c.query("SELECT id, 1 / (id - 3) FROM t WHERE id < 5").unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(c.warnings(), 1, "server {server}");
    }
    assert_eq!(got[0].len(), 4, "{:?}", got[0]);
    assert_eq!(got[0][3].2, Some(1690));
    assert_eq!(got[0], got[1], "as MariaDB");
}

#[test]
fn binary_protocol_rows_stream_with_every_type() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("bin");
    c.query_drop(
        "CREATE TABLE t (id INT PRIMARY KEY, b BIGINT UNSIGNED, d DECIMAL(10,2), s VARCHAR(20), \
         dt DATETIME(3), day DATE, n INT)",
    )
    .unwrap();
    let mut values = Vec::new();
    for i in 1..=5_000u64 {
        let n = if i % 7 == 0 { "NULL".to_string() } else { (i as i64 - 2500).to_string() };
        values.push(format!(
            "({i}, {}, {}.{:02}, 's{i}', '2024-02-{:02} 10:{:02}:{:02}.{:03}', '2023-12-{:02}', {n})",
            u64::MAX - i,
            i,
            i % 100,
            i % 28 + 1,
            i % 60,
            (i * 7) % 60,
            i % 1000,
            i % 31 + 1
        ));
        if values.len() == 500 {
            c.query_drop(format!("INSERT INTO t VALUES {}", values.join(","))).unwrap();
            values.clear();
        }
    }
    let text: Vec<Row> = c.query("SELECT * FROM t WHERE id > 0").unwrap();
    let stmt = c.prep("SELECT * FROM t WHERE id > ?").unwrap();
    let binary: Vec<Row> = c.exec(&stmt, (0,)).unwrap();
    assert_eq!(text.len(), 5_000);
    assert_eq!(binary.len(), 5_000);
    type Typed = (u32, u64, String, String, mysql::Value, mysql::Value, Option<i64>);
    for (t, b) in text.into_iter().zip(binary) {
        let t: Typed = mysql::from_row(t);
        let b: Typed = mysql::from_row(b);
        assert_eq!((t.0, t.1, &t.2, &t.3, t.6), (b.0, b.1, &b.2, &b.3, b.6));
        // Temporal values: text in one protocol, structures in the other.
        assert_eq!(temporal_text(t.4), temporal_text(b.4));
        assert_eq!(temporal_text(t.5), temporal_text(b.5));
    }
}

/// A DATE / DATETIME(3) value as the text protocol prints it.
fn temporal_text(v: mysql::Value) -> String {
    match v {
        mysql::Value::Bytes(b) => String::from_utf8(b).unwrap(),
        mysql::Value::Date(y, m, d, 0, 0, 0, 0) => format!("{y:04}-{m:02}-{d:02}"),
        mysql::Value::Date(y, m, d, h, mi, s, us) => {
            format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}.{:03}", us / 1000)
        }
        other => panic!("not a temporal value: {other:?}"),
    }
}

#[test]
fn a_client_that_stops_reading_is_cut_off_after_net_write_timeout() {
    let q = Quire::start(&[]);
    let mut admin = q.fresh_db("stall");
    // 20 MB: more than the sockets' buffers hold.
    fill(&mut admin, 20_000, 1000);
    let aborted = status(&mut admin, "Aborted_clients");
    let mut c = q.connect(Some("stall"));
    c.query_drop("SET SESSION net_write_timeout = 1").unwrap();
    let mut result = c.query_iter("SELECT * FROM t").unwrap();
    // The client stops reading; the server's write blocks, times out, and
    // the server closes the connection.
    thread::sleep(Duration::from_secs(4));
    let (rows, err) = read_all(result.by_ref());
    assert!(rows.len() < 20_000 && err.is_some(), "{} rows, then {err:?}", rows.len());
    drop(result);
    assert_eq!(status(&mut admin, "Aborted_clients"), aborted + 1);
    // The statement's cursor is gone: the table can be dropped (a DROP
    // waits for open cursors).
    admin.query_drop("DROP TABLE t").unwrap();
}
