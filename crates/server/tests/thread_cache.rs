//! `thread_cache_size` end to end: connection threads that finish wait for
//! the next connection (Threads_cached), so connecting over and over
//! creates no new threads (Threads_created), as in MySQL; the size is
//! autosized from max_connections unless given and can be lowered at run
//! time, which empties the cache.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::Quire;

fn status(c: &mut Conn, name: &str) -> u64 {
    let r: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    r.unwrap_or_else(|| panic!("{name} missing")).1.parse().unwrap()
}

/// Polls until `f` holds (a closed connection's thread enters the cache
/// just after the client sees the socket close).
fn eventually(c: &mut Conn, what: &str, f: impl Fn(&mut Conn) -> bool) {
    for _ in 0..250 {
        if f(c) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("never: {what}");
}

#[test]
fn reconnecting_reuses_cached_threads_instead_of_creating_new_ones() {
    let q = Quire::start(&[("thread_cache_size", "4"), ("thread_handling", "one-thread-per-connection")]);
    let mut admin = q.connect(None);
    // Two connections opened and closed: their threads are cached.
    drop((q.connect(None), q.connect(None)));
    eventually(&mut admin, "two cached threads", |c| status(c, "Threads_cached") == 2);
    let created = status(&mut admin, "Threads_created");
    for _ in 0..50 {
        let mut c = q.connect(None);
        let one: u32 = c.query_first("SELECT 1").unwrap().unwrap();
        assert_eq!(one, 1);
        drop(c);
        eventually(&mut admin, "the thread back in the cache", |c| status(c, "Threads_cached") == 2);
    }
    assert_eq!(status(&mut admin, "Threads_created"), created, "50 connections served by cached threads");
    // Lowered at run time: the idle threads leave.
    admin.query_drop("SET GLOBAL thread_cache_size = 0").unwrap();
    eventually(&mut admin, "an empty cache", |c| status(c, "Threads_cached") == 0);
    drop(q.connect(None));
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_eq!(status(&mut admin, "Threads_cached"), 0, "a size of 0 caches nothing");
    assert_eq!(status(&mut admin, "Threads_created"), created + 1);
}

#[test]
fn thread_cache_size_is_autosized_from_max_connections_as_mysql_does() {
    let size = |q: &Quire| -> u64 { q.connect(None).query_first("SELECT @@thread_cache_size").unwrap().unwrap() };
    assert_eq!(size(&Quire::start(&[("max_connections", "151")])), 9);
    assert_eq!(size(&Quire::start(&[("max_connections", "5000")])), 58);
    assert_eq!(size(&Quire::start(&[("max_connections", "50000")])), 100);
    assert_eq!(size(&Quire::start(&[("thread_cache_size", "3")])), 3);
}
