//! The real `mysql` client crate against the protocol and a toy backend:
//! logins (native and caching_sha2, right and wrong), queries, errors with
//! their SQLSTATE, OK packet fields, multi-statement results, prepared
//! statements in the binary protocol with every parameter type, COM_PING,
//! COM_INIT_DB, COM_RESET_CONNECTION, the Unix socket, and the framing of
//! a result set that fails after some rows.

mod proto_support;

use mysql::prelude::Queryable;
use mysql::{Conn, Error, Row, Value};
use proto_support::*;
use quire_server::proto::{AuthPlugin, ConnOptions, Listener, ListenerOptions};

const MB: usize = 1 << 20;

fn server_error(e: Error) -> (u16, String) {
    match e {
        Error::MySqlError(e) => (e.code, e.state),
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[test]
fn native_password_login_runs_queries_and_reports_errors_with_sqlstate() {
    let h = start(MB, 10, ConnOptions::default());
    let mut c = Conn::new(opts(h.local_addr().unwrap(), "root", "pw")).unwrap();
    assert_eq!(c.query_first::<i64, _>("SELECT 7").unwrap(), Some(7));
    assert_eq!(server_error(c.query_drop("bad").unwrap_err()), (1064, "42000".to_string()));
    assert_eq!(server_error(c.query_drop("dup").unwrap_err()), (1062, "23000".to_string()));
    // The connection survives errors.
    assert_eq!(c.query_first::<i64, _>("SELECT -3").unwrap(), Some(-3));
}

#[test]
fn wrong_password_and_unknown_user_get_1045() {
    let h = start(MB, 10, ConnOptions::default());
    let addr = h.local_addr().unwrap();
    for (user, pass) in [("root", "nope"), ("ghost", "pw"), ("root", ""), ("nopw", "something")] {
        let (code, state) = server_error(Conn::new(opts(addr, user, pass)).map(|_| ()).unwrap_err());
        assert_eq!((code, state.as_str()), (1045, "28000"), "{user}/{pass}");
    }
    wait_open(&h, 0);
}

#[test]
fn empty_password_user_logs_in() {
    let h = start(MB, 10, ConnOptions::default());
    let mut c = Conn::new(opts(h.local_addr().unwrap(), "nopw", "")).unwrap();
    assert_eq!(c.query_first::<i64, _>("SELECT 1").unwrap(), Some(1));
}

#[test]
fn ok_packet_carries_affected_rows_and_last_insert_id() {
    let h = start(MB, 10, ConnOptions::default());
    let mut c = Conn::new(opts(h.local_addr().unwrap(), "root", "pw")).unwrap();
    c.query_drop("insert").unwrap();
    assert_eq!(c.affected_rows(), 3);
    assert_eq!(c.last_insert_id(), 42);
}

#[test]
fn multi_statement_query_returns_every_result_set_and_stops_at_an_error() {
    let h = start(MB, 10, ConnOptions::default());
    let mut c = Conn::new(opts(h.local_addr().unwrap(), "root", "pw")).unwrap();
    let mut seen = Vec::new();
    let mut result = c.query_iter("SELECT 1; insert; SELECT 2").unwrap();
    while let Some(set) = result.iter() {
        let rows: Vec<i64> = set.map(|r| mysql::from_row::<i64>(r.unwrap())).collect();
        seen.push(rows);
    }
    drop(result);
    assert_eq!(seen, vec![vec![1], vec![], vec![2]]);

    let mut result = c.query_iter("SELECT 1; bad; SELECT 2").unwrap();
    let first = result.iter().unwrap().map(|r| mysql::from_row::<i64>(r.unwrap())).collect::<Vec<_>>();
    assert_eq!(first, vec![1]);
    let second: Result<Vec<Row>, Error> = match result.iter() {
        Some(set) => set.collect(),
        None => Ok(Vec::new()),
    };
    assert_eq!(server_error(second.unwrap_err()).0, 1064);
    drop(result);
    assert_eq!(c.query_first::<i64, _>("SELECT 5").unwrap(), Some(5));
}

#[test]
fn prepared_statements_round_trip_every_parameter_type_in_the_binary_protocol() {
    let h = start(MB, 10, ConnOptions::default());
    let mut c = Conn::new(opts(h.local_addr().unwrap(), "root", "pw")).unwrap();
    let stmt = c.prep("select ?, ?, ?, ?, ?, ?, ?, ?, ?").unwrap();
    assert_eq!(stmt.num_params(), 9);
    assert_eq!(stmt.num_columns(), 9);
    let params = vec![
        Value::Int(-42),
        Value::UInt(u64::MAX),
        Value::Double(2.25),
        Value::Float(0.5),
        Value::Bytes(b"str\0bin".to_vec()),
        Value::NULL,
        Value::Date(2024, 2, 29, 0, 0, 0, 0),
        Value::Date(1999, 12, 31, 23, 59, 58, 123456),
        Value::Time(true, 2, 3, 4, 5, 6),
    ];
    for _ in 0..2 {
        let row: Row = c.exec_first(&stmt, params.clone()).unwrap().unwrap();
        let got: Vec<Value> = row.unwrap();
        assert_eq!(
            got,
            vec![
                Value::Int(-42),
                Value::UInt(u64::MAX),
                Value::Double(2.25),
                Value::Double(0.5),
                Value::Bytes(b"str\0bin".to_vec()),
                Value::NULL,
                // The client binds dates as DATETIME; the toy echoes them so.
                Value::Date(2024, 2, 29, 0, 0, 0, 0),
                Value::Date(1999, 12, 31, 23, 59, 58, 123456),
                Value::Time(true, 2, 3, 4, 5, 6),
            ]
        );
    }
    // A statement without a result set answers OK with its counts.
    c.exec_drop("insert ?", (1,)).unwrap();
    assert_eq!((c.affected_rows(), c.last_insert_id()), (1, 7));
    // A failed prepare is an ordinary error.
    assert_eq!(server_error(c.prep("bad ?").map(|_| ()).unwrap_err()).0, 1064);
    c.close(stmt).unwrap();
    assert_eq!(c.query_first::<i64, _>("SELECT 9").unwrap(), Some(9));
}

#[test]
fn text_result_sets_carry_every_cell_type() {
    let h = start(MB, 10, ConnOptions::default());
    let mut c = Conn::new(opts(h.local_addr().unwrap(), "root", "pw")).unwrap();
    let row: Row = c.query_first("types").unwrap().unwrap();
    let got: Vec<Value> = row.unwrap();
    let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
    assert_eq!(
        got,
        vec![
            text("-5"),
            text("18446744073709551615"),
            text("1.5"),
            text("hello"),
            Value::NULL,
            text("2024-02-29"),
            text("2024-02-29 13:05:09.123456"),
            text("-26:03:04"),
        ]
    );
}

#[test]
fn ping_init_db_and_reset_connection() {
    let h = start(MB, 10, ConnOptions::default());
    let mut o = opts(h.local_addr().unwrap(), "root", "pw");
    o = o.db_name(Some("test"));
    let mut c = Conn::new(o).unwrap();
    c.ping().unwrap();
    c.select_db("other").unwrap();
    assert_eq!(server_error(c.select_db("nodb").unwrap_err()).0, 1049);
    c.reset().unwrap();
    c.reset().unwrap();
    assert_eq!(c.query_first::<i64, _>("resets").unwrap(), Some(2));
    c.ping().unwrap();
}

#[test]
fn unknown_database_at_login_is_refused() {
    let h = start(MB, 10, ConnOptions::default());
    let o = opts(h.local_addr().unwrap(), "root", "pw").db_name(Some("nodb"));
    assert_eq!(server_error(Conn::new(o).map(|_| ()).unwrap_err()).0, 1049);
}

#[test]
fn caching_sha2_client_logs_in_by_the_fast_path() {
    let h = start(MB, 10, ConnOptions { auth_plugin: AuthPlugin::CachingSha2Password });
    let addr = h.local_addr().unwrap();
    let mut c = Conn::new(opts(addr, "root", "pw")).unwrap();
    assert_eq!(c.query_first::<i64, _>("SELECT 11").unwrap(), Some(11));
    let mut c = Conn::new(opts(addr, "nopw", "")).unwrap();
    assert_eq!(c.query_first::<i64, _>("SELECT 12").unwrap(), Some(12));
    assert_eq!(server_error(Conn::new(opts(addr, "root", "wrong")).map(|_| ()).unwrap_err()).0, 1045);
    // Without a stored sha2 hash the server switches the client to native.
    let mut c = Conn::new(opts(addr, "oldie", "old")).unwrap();
    assert_eq!(c.query_first::<i64, _>("SELECT 13").unwrap(), Some(13));
    assert_eq!(server_error(Conn::new(opts(addr, "oldie", "new")).map(|_| ()).unwrap_err()).0, 1045);
}

#[test]
fn packet_over_max_allowed_packet_gets_1153_and_the_connection_closes() {
    let h = start(MB, 10, ConnOptions::default());
    // The client must not refuse to send it itself.
    let o = opts(h.local_addr().unwrap(), "root", "pw").max_allowed_packet(Some(64 * MB));
    let mut c = Conn::new(o).unwrap();
    let big = format!("SELECT '{}'", "x".repeat(2 * MB));
    assert_eq!(server_error(c.query_drop(big).unwrap_err()).0, 1153);
    assert!(c.ping().is_err());
    wait_open(&h, 0);
}

#[test]
fn connections_beyond_max_connections_get_1040() {
    let h = start(MB, 2, ConnOptions::default());
    let addr = h.local_addr().unwrap();
    let a = Conn::new(opts(addr, "root", "pw")).unwrap();
    let b = Conn::new(opts(addr, "root", "pw")).unwrap();
    // Sent before the client's capabilities are known, the ERR has no
    // SQLSTATE (MySQL does the same); the client reports its default.
    let (code, _) = server_error(Conn::new(opts(addr, "root", "pw")).map(|_| ()).unwrap_err());
    assert_eq!(code, 1040);
    drop(a);
    wait_open(&h, 1);
    let mut c = Conn::new(opts(addr, "root", "pw")).unwrap();
    c.ping().unwrap();
    drop(b);
}

#[test]
fn unix_socket_serves_and_a_stale_socket_file_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quire.sock");
    // A socket file nobody listens on any more.
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(path.exists());
    let l = Listener::bind(None, Some(&path)).unwrap();
    let h = l.spawn(std::sync::Arc::new(Toy::new(MB)), ListenerOptions::default()).unwrap();
    // A second server on the same live socket is refused.
    assert!(Listener::bind(None, Some(&path)).is_err());
    let o = mysql::OptsBuilder::new()
        .socket(Some(path.to_str().unwrap()))
        .prefer_socket(false)
        .user(Some("root"))
        .pass(Some("pw"));
    let mut c = Conn::new(o).unwrap();
    assert_eq!(c.query_first::<i64, _>("SELECT 3").unwrap(), Some(3));
    drop(c);
    h.stop();
    assert!(!path.exists(), "stopping removes the socket file");
}

#[test]
fn an_error_after_rows_replaces_the_eof_and_one_before_any_row_is_a_plain_err() {
    use quire_server::proto::conn::command;
    let h = start(MB, 10, ConnOptions::default());
    let mut r = Raw::login(h.local_addr().unwrap());
    // (packet kind, status flags of an EOF) of one command's answer.
    let answer = |r: &mut Raw| {
        let mut got = Vec::new();
        let mut in_rows = false;
        loop {
            let p = r.read().expect("a packet");
            match p[0] {
                0xff => {
                    got.push(format!("ERR {}", err_code(&p)));
                    return got;
                }
                0xfe if p.len() < 9 => {
                    let status = u16::from_le_bytes([p[3], p[4]]);
                    got.push(format!("EOF {status:#x}"));
                    if in_rows && status & 0x0008 == 0 {
                        return got;
                    }
                    in_rows = !in_rows;
                }
                _ if in_rows => got.push(format!("row {:?}", &p[1..])),
                _ => got.push("meta".to_string()),
            }
        }
    };
    r.command(command::QUERY, b"fail after 2");
    assert_eq!(answer(&mut r), ["meta", "meta", "EOF 0x2", "row [49]", "row [50]", "ERR 1317"]);
    // Nothing was sent before the error: no result set at all.
    r.command(command::QUERY, b"fail after 0");
    assert_eq!(answer(&mut r), ["ERR 1317"]);
    // In a multi-statement text: SERVER_MORE_RESULTS_EXISTS on the first
    // result's EOFs, then the second result's rows and its error.
    r.command(command::QUERY, b"select 5; fail after 1");
    assert_eq!(
        answer(&mut r),
        ["meta", "meta", "EOF 0xa", "row [53]", "EOF 0xa", "meta", "meta", "EOF 0x2", "row [49]", "ERR 1317"]
    );
    // The connection carries on.
    r.command(command::QUERY, b"select 7");
    assert_eq!(answer(&mut r), ["meta", "meta", "EOF 0x2", "row [55]", "EOF 0x2"]);
}
