//! The protocol against hostile and unusual clients: random bytes as the
//! handshake response and as commands never panic and always end in an
//! error or a close; truncated, out-of-order and oversized packets close
//! the connection; the listener keeps serving afterwards. Also the
//! commands the `mysql` crate does not exercise, driven packet by packet:
//! remembered parameter types, long data, COM_SET_OPTION, the auth switch.

mod proto_support;

use std::io::{self, Cursor, Read, Write};
use std::net::Shutdown;

use proto_support::*;
use quire_server::proto::auth::scramble_native;
use quire_server::proto::codec::Cursor as PayloadCursor;
use quire_server::proto::{column_type, serve_connection, ConnOptions, STATUS_MORE_RESULTS};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const MB: usize = 1 << 20;

/// A connection whose client side is prerecorded.
struct Scripted {
    input: Cursor<Vec<u8>>,
    output: Vec<u8>,
}

impl Read for Scripted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.input.read(buf)
    }
}

impl Write for Scripted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.output.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn frame(out: &mut Vec<u8>, seq: u8, payload: &[u8]) {
    let len = (payload.len() as u32).to_le_bytes();
    out.extend_from_slice(&[len[0], len[1], len[2], seq]);
    out.extend_from_slice(payload);
}

fn random_bytes(rng: &mut SmallRng, max: usize) -> Vec<u8> {
    let n = rng.gen_range(0..=max);
    (0..n).map(|_| rng.gen()).collect()
}

/// Runs a whole connection over `input`; it must end without panicking.
fn run_scripted(toy: &Toy, input: Vec<u8>) -> Vec<u8> {
    let mut s = Scripted { input: Cursor::new(input), output: Vec::new() };
    let _ = serve_connection(toy, &mut s, 1, "fuzz");
    s.output
}

const COMMANDS: [u8; 16] =
    [0x01, 0x02, 0x03, 0x04, 0x09, 0x0e, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f, 0x00, 0xff];

#[test]
fn random_handshake_responses_end_in_an_error_or_a_close_never_a_panic() {
    let toy = Toy::new(MB);
    let mut rng = SmallRng::seed_from_u64(0x5eed_0001);
    let valid = handshake_response("root", &[7u8; 20], Some("db"));
    for case in 0..4000 {
        let mut input = Vec::new();
        match case % 3 {
            // Random payload, correct framing.
            0 => frame(&mut input, 1, &random_bytes(&mut rng, 200)),
            // A valid response with bytes flipped or cut.
            1 => {
                let mut p = valid.clone();
                for _ in 0..rng.gen_range(1..6) {
                    let i = rng.gen_range(0..p.len());
                    p[i] = rng.gen();
                }
                p.truncate(rng.gen_range(0..=p.len()));
                frame(&mut input, 1, &p);
            }
            // Random bytes, framing included.
            _ => input = random_bytes(&mut rng, 300),
        }
        let out = run_scripted(&toy, input);
        assert!(out.len() > 4 && out[4] == 10, "case {case}: the handshake always goes out first");
    }
}

#[test]
fn random_commands_after_login_end_in_errors_or_a_close_never_a_panic() {
    let toy = Toy::new(4096);
    let mut rng = SmallRng::seed_from_u64(0x5eed_0002);
    for case in 0..4000 {
        let mut input = Vec::new();
        frame(&mut input, 1, &handshake_response("nopw", &[], None));
        if case % 2 == 0 {
            // A statement for the random executes to aim at (id 1).
            frame(&mut input, 0, b"\x16select ?, ?, ?");
        }
        for _ in 0..rng.gen_range(1..6) {
            let mut p = vec![COMMANDS[rng.gen_range(0..COMMANDS.len())]];
            if p[0] == 0x17 || p[0] == 0x18 || p[0] == 0x1a {
                p.extend_from_slice(&1u32.to_le_bytes());
            }
            p.extend_from_slice(&random_bytes(&mut rng, 60));
            let seq = if rng.gen_ratio(1, 20) { rng.gen() } else { 0 };
            frame(&mut input, seq, &p);
        }
        if case % 7 == 0 {
            input.extend_from_slice(&random_bytes(&mut rng, 20));
        }
        let out = run_scripted(&toy, input);
        assert!(!out.is_empty(), "case {case}");
    }
}

#[test]
fn listener_keeps_serving_after_garbage_clients() {
    let h = start(4096, 100, ConnOptions::default());
    let addr = h.local_addr().unwrap();
    let mut rng = SmallRng::seed_from_u64(0x5eed_0003);
    for i in 0..60 {
        let mut r = if i % 2 == 0 { Raw::connect(addr) } else { Raw::login(addr) };
        let junk = random_bytes(&mut rng, 5000);
        let _ = r.stream.write_all(&junk);
        let _ = r.stream.shutdown(Shutdown::Write);
        // Drain whatever the server says until it closes.
        let mut sink = Vec::new();
        let _ = r.stream.read_to_end(&mut sink);
    }
    wait_open(&h, 0);
    let mut r = Raw::login(addr);
    r.command(0x0e, &[]);
    assert_eq!(r.read().unwrap()[0], 0x00);
}

#[test]
fn truncated_packet_closes_the_connection() {
    let h = start(MB, 10, ConnOptions::default());
    let mut r = Raw::login(h.local_addr().unwrap());
    r.stream.write_all(&[100, 0, 0, 0, 0x03, b'S', b'E']).unwrap();
    r.stream.shutdown(Shutdown::Write).unwrap();
    assert!(r.closed());
    wait_open(&h, 0);
}

#[test]
fn out_of_order_packet_gets_1156_and_a_close() {
    let h = start(MB, 10, ConnOptions::default());
    let mut r = Raw::login(h.local_addr().unwrap());
    r.seq = 5;
    r.send(&[0x0e]);
    r.seq = 0;
    assert_eq!(err_code(&r.read().unwrap()), 1156);
    assert!(r.closed());
}

#[test]
fn max_allowed_packet_is_inclusive_and_one_byte_more_gets_1153() {
    let max = 64 * 1024;
    let h = start(max, 10, ConnOptions::default());
    let mut r = Raw::login(h.local_addr().unwrap());
    let mut q = b"\x03SELECT 1".to_vec();
    q.resize(max, b' ');
    r.command(q[0], &q[1..]);
    assert_eq!(r.read().unwrap(), vec![1], "a result set with one column");
    while r.read().unwrap()[0] != 0xfe {}
    assert_ne!(r.read().unwrap()[0], 0xfe, "a row");
    assert_eq!(r.read().unwrap()[0], 0xfe);
    q.push(b' ');
    r.command(q[0], &q[1..]);
    assert_eq!(err_code(&r.read().unwrap()), 1153);
    assert!(r.closed());
}

/// Reads a PREPARE_OK and its definitions; returns (id, columns, params).
fn read_prepare_ok(r: &mut Raw) -> (u32, u16, u16) {
    let p = r.read().unwrap();
    assert_eq!(p[0], 0x00, "{p:?}");
    let mut c = PayloadCursor::new(&p[1..]);
    let (id, cols, params) = (c.u32().unwrap(), c.u16().unwrap(), c.u16().unwrap());
    for n in [params, cols] {
        if n > 0 {
            for _ in 0..n {
                assert_ne!(r.read().unwrap()[0], 0xfe);
            }
            assert_eq!(r.read().unwrap()[0], 0xfe);
        }
    }
    (id, cols, params)
}

/// Reads a binary result set of one row; returns the row's payload.
fn read_binary_row(r: &mut Raw) -> Vec<u8> {
    let n = r.read().unwrap()[0];
    for _ in 0..n {
        r.read().unwrap();
    }
    assert_eq!(r.read().unwrap()[0], 0xfe);
    let row = r.read().unwrap();
    assert_eq!(row[0], 0x00);
    assert_eq!(r.read().unwrap()[0], 0xfe);
    row
}

#[test]
fn parameter_types_are_remembered_when_the_client_does_not_resend_them() {
    let h = start(MB, 10, ConnOptions::default());
    let mut r = Raw::login(h.local_addr().unwrap());
    r.command(0x16, b"select ?, ?");
    let (id, cols, params) = read_prepare_ok(&mut r);
    assert_eq!((cols, params), (2, 2));

    let execute = |bound: bool, a: i64, b: &[u8]| {
        let mut p = id.to_le_bytes().to_vec();
        p.push(0);
        p.extend_from_slice(&1u32.to_le_bytes());
        p.push(0); // NULL bitmap
        p.push(u8::from(bound));
        if bound {
            p.extend_from_slice(&[column_type::LONGLONG, 0, column_type::VAR_STRING, 0]);
        }
        p.extend_from_slice(&a.to_le_bytes());
        p.push(b.len() as u8);
        p.extend_from_slice(b);
        p
    };
    r.command(0x17, &execute(true, 5, b"five"));
    let row = read_binary_row(&mut r);
    assert_eq!(&row[2..10], &5i64.to_le_bytes());
    assert_eq!(&row[10..], b"\x04five");

    r.command(0x17, &execute(false, -6, b"six"));
    let row = read_binary_row(&mut r);
    assert_eq!(&row[2..10], &(-6i64).to_le_bytes());
    assert_eq!(&row[10..], b"\x03six");

    // Long data stands in for the second parameter, once.
    let mut ld = id.to_le_bytes().to_vec();
    ld.extend_from_slice(&1u16.to_le_bytes());
    ld.extend_from_slice(b"long ");
    r.command(0x18, &ld);
    ld.truncate(6);
    ld.extend_from_slice(b"data");
    r.command(0x18, &ld);
    let mut p = execute(false, 1, b"");
    p.truncate(p.len() - 1); // no value for a long-data parameter
    r.command(0x17, &p);
    let row = read_binary_row(&mut r);
    assert_eq!(&row[10..], b"\x09long data");

    // After COM_STMT_CLOSE the statement is unknown.
    r.command(0x19, &id.to_le_bytes());
    r.command(0x17, &execute(false, 1, b"x"));
    assert_eq!(err_code(&r.read().unwrap()), 1243);
    r.command(0x0e, &[]);
    assert_eq!(r.read().unwrap()[0], 0x00);
}

/// Reads a text result set; returns (rows, status of the final EOF).
fn read_text_result(r: &mut Raw) -> (Vec<Vec<u8>>, u16) {
    let n = r.read().unwrap()[0];
    for _ in 0..n {
        r.read().unwrap();
    }
    assert_eq!(r.read().unwrap()[0], 0xfe);
    let mut rows = Vec::new();
    loop {
        let p = r.read().unwrap();
        if p[0] == 0xfe && p.len() < 9 {
            return (rows, u16::from_le_bytes([p[3], p[4]]));
        }
        rows.push(p);
    }
}

#[test]
fn set_option_toggles_multi_statements_and_more_results_flags_the_earlier_sets() {
    let h = start(MB, 10, ConnOptions::default());
    let mut r = Raw::login(h.local_addr().unwrap());
    r.command(0x03, b"SELECT 1; SELECT 2");
    let (rows, status) = read_text_result(&mut r);
    assert_eq!(rows, vec![b"\x011".to_vec()]);
    assert_ne!(status & STATUS_MORE_RESULTS, 0);
    let (rows, status) = read_text_result(&mut r);
    assert_eq!(rows, vec![b"\x012".to_vec()]);
    assert_eq!(status & STATUS_MORE_RESULTS, 0);

    r.command(0x1b, &[1, 0]);
    assert_eq!(r.read().unwrap()[0], 0xfe, "COM_SET_OPTION answers EOF");
    r.command(0x03, b"SELECT 1; SELECT 2");
    assert_eq!(err_code(&r.read().unwrap()), 1064);
    r.command(0x1b, &[0, 0]);
    assert_eq!(r.read().unwrap()[0], 0xfe);
    r.command(0x03, b"SELECT 1; SELECT 2");
    read_text_result(&mut r);
    read_text_result(&mut r);
}

#[test]
fn odd_commands_get_their_replies_and_unknown_ones_1047() {
    let h = start(MB, 10, ConnOptions::default());
    let mut r = Raw::login(h.local_addr().unwrap());
    r.command(0x09, &[]);
    assert!(r.read().unwrap().starts_with(b"Uptime: "));
    r.command(0x04, b"t\0");
    assert_eq!(r.read().unwrap()[0], 0xfe);
    r.command(0x42, b"whatever");
    assert_eq!(err_code(&r.read().unwrap()), 1047);
    r.command(0x1c, &[1, 0, 0, 0, 1, 0, 0, 0]);
    assert_eq!(err_code(&r.read().unwrap()), 1421);
    r.command(0x03, &[0xff, 0xfe]);
    assert_eq!(err_code(&r.read().unwrap()), 1300);
    r.command(0x0e, &[]);
    assert_eq!(r.read().unwrap()[0], 0x00);
    r.command(0x01, &[]);
    assert!(r.closed());
}

#[test]
fn unknown_client_plugin_is_switched_to_native_password() {
    let h = start(MB, 10, ConnOptions::default());
    for (pass, ok) in [("pw", true), ("bad", false)] {
        let mut r = Raw::connect(h.local_addr().unwrap());
        r.read().unwrap();
        let mut resp = handshake_response("root", &[1, 2, 3], None);
        let plugin = b"mysql_native_password\0";
        resp.truncate(resp.len() - plugin.len());
        resp.extend_from_slice(b"sha256_password\0");
        r.send(&resp);
        let switch = r.read().unwrap();
        assert_eq!(switch[0], 0xfe);
        let mut c = PayloadCursor::new(&switch[1..]);
        assert_eq!(c.nul_bytes().unwrap(), b"mysql_native_password");
        let scramble = c.nul_bytes().unwrap().to_vec();
        assert_eq!(scramble.len(), 20);
        r.send(&scramble_native(&scramble, pass));
        let reply = r.read().unwrap();
        if ok {
            assert_eq!(reply[0], 0x00);
        } else {
            assert_eq!(err_code(&reply), 1045);
            assert!(String::from_utf8_lossy(&reply).contains("Access denied for user 'root'@'127.0.0.1'"));
        }
    }
}
