//! innodb_adaptive_hash_index and _parts take effect: ON from my.cnf, the
//! table has the configured number of parts (SHOW ENGINE INNODB STATUS
//! prints one "Hash table size" line per part), point selects are then
//! answered through the hash (INNODB_METRICS adaptive_hash_searches), and
//! SET GLOBAL turns it off (the counter stops) and on again at runtime,
//! with the same rows returned throughout.

mod oracle;

use mysql::prelude::Queryable;
use oracle::Quire;

fn metric(c: &mut mysql::Conn, name: &str) -> i64 {
    c.query_first(format!("SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME = '{name}'"))
        .unwrap()
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// 200 rows read `rounds` times each.
fn point_selects(c: &mut mysql::Conn, rounds: usize) {
    for _ in 0..rounds {
        for id in 1..=200 {
            let v: String = c.exec_first("SELECT v FROM t WHERE id = ?", (id,)).unwrap().unwrap();
            assert_eq!(v, format!("row {id}"));
        }
    }
}

#[test]
fn the_hash_answers_point_selects_when_on_and_set_global_switches_it() {
    let q = Quire::start(&[("innodb_adaptive_hash_index", "ON"), ("innodb_adaptive_hash_index_parts", "3")]);
    let mut c = q.fresh_db("ahi");
    let on: (i64, i64) =
        c.query_first("SELECT @@innodb_adaptive_hash_index, @@innodb_adaptive_hash_index_parts").unwrap().unwrap();
    assert_eq!(on, (1, 3));
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))").unwrap();
    let rows: Vec<String> = (1..=200).map(|i| format!("({i}, 'row {i}')")).collect();
    c.query_drop(format!("INSERT INTO t VALUES {}", rows.join(","))).unwrap();
    let before = metric(&mut c, "adaptive_hash_searches");
    // A key gets its entry at one descent in four: ~60% of 2000 lookups.
    point_selects(&mut c, 10);
    let after = metric(&mut c, "adaptive_hash_searches");
    assert!(after - before >= 800, "{} of 2000 point selects went through the hash", after - before);
    assert!(metric(&mut c, "adaptive_hash_searches_btree") > 0);

    let (_, _, status): (String, String, String) = c.query_first("SHOW ENGINE INNODB STATUS").unwrap().unwrap();
    let sizes: Vec<&str> = status.lines().filter(|l| l.starts_with("Hash table size ")).collect();
    assert_eq!(sizes.len(), 3, "one line per part:\n{status}");
    assert!(!sizes[0].starts_with("Hash table size 0,"), "{status}");
    assert!(status.contains(" hash searches/s, "), "{status}");

    c.query_drop("SET GLOBAL innodb_adaptive_hash_index = OFF").unwrap();
    let (off, btree) = (metric(&mut c, "adaptive_hash_searches"), metric(&mut c, "adaptive_hash_searches_btree"));
    point_selects(&mut c, 5);
    assert_eq!(metric(&mut c, "adaptive_hash_searches"), off, "OFF: no lookup uses the hash");
    assert_eq!(metric(&mut c, "adaptive_hash_searches_btree"), btree, "OFF: nothing is counted");

    c.query_drop("SET GLOBAL innodb_adaptive_hash_index = ON").unwrap();
    c.query_drop("UPDATE t SET v = CONCAT('row ', id)").unwrap();
    point_selects(&mut c, 5);
    assert!(metric(&mut c, "adaptive_hash_searches") > off, "ON again: the hash is used again");
}
