//! Shared by the protocol tests: a toy [`Backend`] that answers a few
//! fixed statements, a listener started on an ephemeral port, and a raw
//! client that speaks packets by hand.
//!
//! The toy's statements (case-insensitive, split on `;` when multi):
//! `SELECT <n>` one row; `SELECT @@max_allowed_packet`; `bad` → 1064;
//! `dup` → 1062; `insert` → OK with 3 affected rows, last insert id 42;
//! `begin` / `commit` toggle IN_TRANS; `resets` → rows with the number of
//! COM_RESET_CONNECTIONs; `types` → one row of every cell type;
//! `fail after <n>` → a result set that ends with error 1317 after `n`
//! rows.
//! Prepared statements: `select ?, ...` echoes its parameters as a row
//! (column types from the parameters), `insert ?` answers OK (1 row, id 7),
//! `bad` fails to prepare with 1064.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use quire_server::proto::{
    column_flag, column_type, credentials_for_password, Backend, Cell, ColumnDef, ConnOptions, Credentials, ErrPacket,
    Listener, ListenerHandle, ListenerOptions, Param, Prepared, Replies, Reply, Session, STATUS_AUTOCOMMIT,
    STATUS_IN_TRANS, STATUS_MORE_RESULTS,
};

pub struct Toy {
    pub max_allowed_packet: usize,
    users: HashMap<String, Credentials>,
}

impl Toy {
    pub fn new(max_allowed_packet: usize) -> Self {
        let mut users = HashMap::new();
        users.insert("root".to_string(), credentials_for_password("pw"));
        users.insert("nopw".to_string(), credentials_for_password(""));
        // A user whose stored hashes lack the sha2 one: caching_sha2
        // clients are switched to mysql_native_password.
        users.insert("oldie".to_string(), Credentials { sha2: None, ..credentials_for_password("old") });
        Self { max_allowed_packet, users }
    }
}

pub struct ToySession {
    db: Option<String>,
    in_trans: bool,
    resets: u64,
    next_stmt: u32,
    stmts: HashMap<u32, String>,
    max_allowed_packet: usize,
}

fn err(code: u16, state: &str, msg: &str) -> ErrPacket {
    ErrPacket::new(code, state, msg)
}

fn one_row(name: &str, t: u8, cell: Cell) -> Reply {
    Reply::Rows { columns: vec![ColumnDef::expr(name, t)], rows: vec![vec![cell]], warnings: 0 }
}

impl ToySession {
    fn statement(&mut self, sql: &str) -> Reply {
        let s = sql.trim().to_ascii_lowercase();
        if s == "select @@max_allowed_packet" {
            return one_row("@@max_allowed_packet", column_type::LONGLONG, Cell::Int(self.max_allowed_packet as i64));
        }
        if let Some(n) = s.strip_prefix("select ").and_then(|n| n.trim().parse::<i64>().ok()) {
            return one_row(&n.to_string(), column_type::LONGLONG, Cell::Int(n));
        }
        match s.as_str() {
            "bad" => Reply::Err(err(1064, "42000", "You have an error in your SQL syntax")),
            "dup" => Reply::Err(err(1062, "23000", "Duplicate entry '1' for key 'PRIMARY'")),
            "insert" => Reply::Ok { affected_rows: 3, last_insert_id: 42, warnings: 0, info: String::new() },
            "begin" => {
                self.in_trans = true;
                Reply::ok()
            }
            "commit" => {
                self.in_trans = false;
                Reply::ok()
            }
            "resets" => one_row("resets", column_type::LONGLONG, Cell::Int(self.resets as i64)),
            "types" => {
                let cells = every_cell();
                let columns = cells.iter().map(column_for).collect();
                Reply::Rows { columns, rows: vec![cells], warnings: 0 }
            }
            _ => Reply::Err(err(1064, "42000", "You have an error in your SQL syntax")),
        }
    }
}

/// One cell of every variant.
pub fn every_cell() -> Vec<Cell> {
    vec![
        Cell::Int(-5),
        Cell::UInt(u64::MAX),
        Cell::Double(1.5),
        Cell::Bytes(b"hello".to_vec()),
        Cell::Null,
        Cell::Date { year: 2024, month: 2, day: 29 },
        Cell::DateTime { year: 2024, month: 2, day: 29, hour: 13, minute: 5, second: 9, micros: 123456 },
        Cell::Time { negative: true, days: 1, hours: 2, minutes: 3, seconds: 4, micros: 0 },
    ]
}

/// The column a cell of this variant belongs to.
pub fn column_for(c: &Cell) -> ColumnDef {
    let (t, flags) = match c {
        Cell::Null => (column_type::NULL, 0),
        Cell::Int(_) => (column_type::LONGLONG, 0),
        Cell::UInt(_) => (column_type::LONGLONG, column_flag::UNSIGNED),
        Cell::Double(_) => (column_type::DOUBLE, 0),
        Cell::Float(_) => (column_type::FLOAT, 0),
        Cell::Bytes(_) => (column_type::VAR_STRING, 0),
        Cell::Date { .. } => (column_type::DATE, 0),
        Cell::DateTime { .. } => (column_type::DATETIME, 0),
        Cell::Time { .. } => (column_type::TIME, 0),
    };
    // Doubles with NOT_FIXED_DEC (31): as many decimals as they need.
    let decimals = if matches!(c, Cell::Double(_) | Cell::Float(_)) { 31 } else { 0 };
    ColumnDef { flags, decimals, ..ColumnDef::expr("c", t) }
}

impl Session for ToySession {
    fn query(&mut self, sql: &str, multi: bool, out: &mut dyn Replies) -> std::io::Result<()> {
        let parts: Vec<&str> = sql.split(';').filter(|p| !p.trim().is_empty()).collect();
        if parts.len() > 1 && !multi {
            return out.error(&err(1064, "42000", "You have an error in your SQL syntax near ';'"));
        }
        for (i, p) in parts.iter().enumerate() {
            let more = if i + 1 < parts.len() { STATUS_MORE_RESULTS } else { 0 };
            if let Some(n) = p.trim().strip_prefix("fail after ").and_then(|n| n.parse::<i64>().ok()) {
                // A result set that fails after `n` rows, as a statement
                // interrupted mid-result does.
                out.columns(vec![ColumnDef::expr("n", column_type::LONGLONG)], self.status_flags() | more)?;
                for v in 1..=n {
                    out.row(&[Cell::Int(v)])?;
                }
                return out.error(&err(1317, "70100", "Query execution was interrupted"));
            }
            let r = self.statement(p);
            let stop = matches!(r, Reply::Err(_));
            r.write_to(out, self.status_flags() | more)?;
            if stop {
                break;
            }
        }
        Ok(())
    }

    fn init_db(&mut self, db: &str) -> Result<(), ErrPacket> {
        if db == "nodb" {
            return Err(err(1049, "42000", "Unknown database 'nodb'"));
        }
        self.db = Some(db.to_string());
        Ok(())
    }

    fn prepare(&mut self, sql: &str) -> Result<Prepared, ErrPacket> {
        let s = sql.trim().to_ascii_lowercase();
        let params = s.matches('?').count() as u16;
        let columns = if s.starts_with("select") {
            (0..params).map(|i| ColumnDef::expr(&format!("p{i}"), column_type::VAR_STRING)).collect()
        } else if s.starts_with("insert") {
            Vec::new()
        } else {
            return Err(err(1064, "42000", "You have an error in your SQL syntax"));
        };
        self.next_stmt += 1;
        self.stmts.insert(self.next_stmt, s);
        Ok(Prepared { id: self.next_stmt, params, columns })
    }

    fn execute(&mut self, id: u32, params: &[Param], out: &mut dyn Replies) -> std::io::Result<()> {
        let reply = match self.stmts.get(&id) {
            None => Reply::Err(err(1243, "HY000", "Unknown prepared statement handler")),
            Some(sql) if sql.starts_with("insert") => {
                Reply::Ok { affected_rows: 1, last_insert_id: 7, warnings: 0, info: String::new() }
            }
            Some(_) => Reply::Rows {
                columns: params.iter().map(column_for).collect(),
                rows: vec![params.to_vec()],
                warnings: 0,
            },
        };
        reply.write_to(out, self.status_flags())
    }

    fn close_statement(&mut self, id: u32) {
        self.stmts.remove(&id);
    }

    fn reset_statement(&mut self, id: u32) -> Result<(), ErrPacket> {
        if self.stmts.contains_key(&id) {
            Ok(())
        } else {
            Err(err(1243, "HY000", "Unknown prepared statement handler"))
        }
    }

    fn reset_connection(&mut self) {
        self.resets += 1;
        self.in_trans = false;
        self.stmts.clear();
    }

    fn status_flags(&self) -> u16 {
        if self.in_trans {
            STATUS_IN_TRANS
        } else {
            STATUS_AUTOCOMMIT
        }
    }

    fn database(&self) -> Option<String> {
        self.db.clone()
    }
}

impl Backend for Toy {
    type Session = ToySession;

    fn credentials(&self, user: &str) -> Option<Credentials> {
        self.users.get(user).cloned()
    }

    fn open_session(&self, _user: &str, db: Option<&str>, _connection_id: u32) -> Result<ToySession, ErrPacket> {
        if db == Some("nodb") {
            return Err(err(1049, "42000", "Unknown database 'nodb'"));
        }
        Ok(ToySession {
            db: db.map(str::to_string),
            in_trans: false,
            resets: 0,
            next_stmt: 0,
            stmts: HashMap::new(),
            max_allowed_packet: self.max_allowed_packet,
        })
    }

    fn server_version(&self) -> String {
        "8.0.36-quire".to_string()
    }

    fn max_allowed_packet(&self) -> usize {
        self.max_allowed_packet
    }
}

/// A toy server on 127.0.0.1, ephemeral port.
pub fn start(max_allowed_packet: usize, max_connections: usize, conn: ConnOptions) -> ListenerHandle {
    let l = Listener::bind(Some("127.0.0.1:0"), None).expect("bind");
    l.spawn(Arc::new(Toy::new(max_allowed_packet)), ListenerOptions { max_connections, conn, ..Default::default() })
        .expect("spawn")
}

/// Waits (bounded) until the server has `n` connections open.
pub fn wait_open(h: &ListenerHandle, n: usize) {
    for _ in 0..500 {
        if h.open_connections() == n {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("open connections stayed {} (wanted {n})", h.open_connections());
}

pub fn opts(addr: SocketAddr, user: &str, pass: &str) -> mysql::OptsBuilder {
    mysql::OptsBuilder::new()
        .ip_or_hostname(Some(addr.ip().to_string()))
        .tcp_port(addr.port())
        .user(Some(user))
        .pass(Some(pass))
        .prefer_socket(false)
}

/// A client speaking packets by hand.
pub struct Raw {
    pub stream: TcpStream,
    pub seq: u8,
}

impl Raw {
    pub fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        Self { stream, seq: 0 }
    }

    /// Connects and logs in as `nopw` (empty password).
    pub fn login(addr: SocketAddr) -> Self {
        let mut r = Self::connect(addr);
        let hs = r.read().expect("handshake");
        assert_eq!(hs[0], 10, "handshake v10");
        r.send(&handshake_response("nopw", &[], None));
        let ok = r.read().expect("auth reply");
        assert_eq!(ok[0], 0x00, "login OK: {ok:?}");
        r
    }

    pub fn send(&mut self, payload: &[u8]) {
        let len = (payload.len() as u32).to_le_bytes();
        let mut p = vec![len[0], len[1], len[2], self.seq];
        p.extend_from_slice(payload);
        self.seq = self.seq.wrapping_add(1);
        self.stream.write_all(&p).expect("write");
    }

    /// Starts a command (sequence 0) and sends it.
    pub fn command(&mut self, cmd: u8, body: &[u8]) {
        self.seq = 0;
        let mut p = vec![cmd];
        p.extend_from_slice(body);
        self.send(&p);
    }

    /// One packet's payload; `None` at end of stream.
    pub fn read(&mut self) -> Option<Vec<u8>> {
        let mut h = [0u8; 4];
        if self.stream.read_exact(&mut h).is_err() {
            return None;
        }
        let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
        assert_eq!(h[3], self.seq, "server sequence id");
        self.seq = h[3].wrapping_add(1);
        let mut p = vec![0u8; len];
        self.stream.read_exact(&mut p).ok()?;
        Some(p)
    }

    /// True once the server has closed the connection.
    pub fn closed(&mut self) -> bool {
        let mut b = [0u8; 1];
        matches!(self.stream.read(&mut b), Ok(0) | Err(_))
    }
}

/// Error code of an ERR payload.
pub fn err_code(p: &[u8]) -> u16 {
    assert_eq!(p[0], 0xff, "expected ERR, got {p:?}");
    u16::from_le_bytes([p[1], p[2]])
}

/// HandshakeResponse41 with PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH
/// (| CONNECT_WITH_DB).
pub fn handshake_response(user: &str, auth: &[u8], db: Option<&str>) -> Vec<u8> {
    let mut caps: u32 = (1 << 9) | (1 << 15) | (1 << 19) | (1 << 16) | (1 << 17);
    if db.is_some() {
        caps |= 1 << 3;
    }
    let mut b = caps.to_le_bytes().to_vec();
    b.extend_from_slice(&(16u32 << 20).to_le_bytes());
    b.push(45);
    b.extend_from_slice(&[0u8; 23]);
    b.extend_from_slice(user.as_bytes());
    b.push(0);
    b.push(auth.len() as u8);
    b.extend_from_slice(auth);
    if let Some(db) = db {
        b.extend_from_slice(db.as_bytes());
        b.push(0);
    }
    b.extend_from_slice(b"mysql_native_password\0");
    b
}
