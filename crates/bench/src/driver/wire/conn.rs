//! One connection used in blocking mode: connect and log in, prepare
//! statements, run a command and wait for its reply. The driver sets its
//! connections up this way, then hands each socket to a worker's event
//! loop ([`Conn::into_parts`]); tests use it to drive a server directly.
//!
//! Invariants:
//! 1. Between calls no reply is outstanding: every method that sends a
//!    command reads its whole reply before it returns.
//! 2. `inbuf[..filled]` holds bytes received and not yet consumed.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::auth::{self, caps};
use super::command::{put_execute, put_text, Param, COM_QUERY, COM_STMT_PREPARE};
use super::packet::{self, parse_err, protocol, Reader, WireError};
use super::reply::{Outcome, Reply};

/// How to reach and log in to a server.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub database: Option<String>,
    /// Ask for CLIENT_DEPRECATE_EOF when the server offers it.
    pub deprecate_eof: bool,
    pub connect_timeout: Duration,
}

/// A prepared statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prepared {
    pub id: u32,
    pub params: u16,
}

/// A logged-in connection.
pub struct Conn {
    stream: TcpStream,
    deprecate_eof: bool,
    server_version: String,
    inbuf: Vec<u8>,
    filled: usize,
    out: Vec<u8>,
}

impl Conn {
    /// Connects, logs in and selects the database.
    pub fn connect(o: &ConnectOptions) -> Result<Conn, WireError> {
        let mut last = None;
        let mut stream = None;
        for addr in (o.host.as_str(), o.port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, o.connect_timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let stream = match (stream, last) {
            (Some(s), _) => s,
            (None, Some(e)) => return Err(e.into()),
            (None, None) => return Err(protocol(format!("{} resolves to no address", o.host))),
        };
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(o.connect_timeout))?;
        let mut c = Conn {
            stream,
            deprecate_eof: false,
            server_version: String::new(),
            inbuf: vec![0; 16 << 10],
            filled: 0,
            out: Vec::with_capacity(256),
        };
        c.login(o)?;
        c.stream.set_read_timeout(None)?;
        Ok(c)
    }

    fn login(&mut self, o: &ConnectOptions) -> Result<(), WireError> {
        let (_, greeting) = self.read_packet()?;
        let g = auth::parse_greeting(&greeting)?;
        if g.capabilities & caps::PROTOCOL_41 == 0 {
            return Err(protocol("the server does not speak protocol 4.1"));
        }
        self.server_version = g.server_version.clone();
        let used = auth::client_capabilities(g.capabilities, o.database.is_some(), o.deprecate_eof);
        self.deprecate_eof = used & caps::DEPRECATE_EOF != 0;
        let mut plugin = g.plugin.clone();
        let mut scramble = g.scramble.clone();
        // An unknown first plugin gets no proof; the server then switches.
        let first = auth::proof(&plugin, &o.password, &scramble).unwrap_or_default();
        let payload = auth::response(used, &o.user, &first, o.database.as_deref(), &plugin);
        let mut seq = 1;
        self.send_packet(seq, &payload)?;
        loop {
            let (s, p) = self.read_packet()?;
            seq = s.wrapping_add(1);
            match p.first() {
                Some(0x00) => return Ok(()),
                Some(0xFF) => return Err(WireError::Server(parse_err(&p)?)),
                Some(0xFE) => {
                    let mut r = Reader::new(&p[1..]);
                    plugin = String::from_utf8_lossy(r.nul_str()).into_owned();
                    let data = r.rest();
                    scramble = data.strip_suffix(&[0]).unwrap_or(data).to_vec();
                    let proof = auth::proof(&plugin, &o.password, &scramble)?;
                    self.send_packet(seq, &proof)?;
                }
                Some(0x01) if plugin == "caching_sha2_password" => match p.get(1) {
                    Some(0x03) => {} // fast path accepted: OK follows
                    _ => {
                        return Err(protocol(
                            "caching_sha2_password wants full authentication (TLS or RSA), which the bench \
                             driver lacks: log in once with the mysql client to fill the server's cache, or \
                             use a mysql_native_password user",
                        ))
                    }
                },
                _ => return Err(protocol("an unexpected packet during authentication")),
            }
        }
    }

    /// Whether replies use CLIENT_DEPRECATE_EOF.
    pub fn deprecate_eof(&self) -> bool {
        self.deprecate_eof
    }

    pub fn server_version(&self) -> &str {
        &self.server_version
    }

    fn send_packet(&mut self, seq: u8, payload: &[u8]) -> Result<(), WireError> {
        self.out.clear();
        let at = packet::begin(&mut self.out, seq);
        self.out.extend_from_slice(payload);
        packet::finish(&mut self.out, at)?;
        self.stream.write_all(&self.out)?;
        Ok(())
    }

    /// Reads more bytes; the server closing is an error.
    fn fill(&mut self) -> Result<(), WireError> {
        if self.filled == self.inbuf.len() {
            self.inbuf.resize(self.inbuf.len() * 2, 0);
        }
        let n = self.stream.read(&mut self.inbuf[self.filled..])?;
        if n == 0 {
            return Err(WireError::Io(std::io::ErrorKind::UnexpectedEof.into()));
        }
        self.filled += n;
        Ok(())
    }

    fn consume(&mut self, n: usize) {
        self.inbuf.copy_within(n..self.filled, 0);
        self.filled -= n;
    }

    /// The next packet: `(sequence id, payload)`.
    fn read_packet(&mut self) -> Result<(u8, Vec<u8>), WireError> {
        loop {
            if let Some((seq, len)) = packet::next(&self.inbuf[..self.filled])? {
                let p = self.inbuf[4..4 + len].to_vec();
                self.consume(4 + len);
                return Ok((seq, p));
            }
            self.fill()?;
        }
    }

    /// Sends the command in `self.out` and reads its reply.
    fn round_trip(&mut self) -> Result<Outcome, WireError> {
        self.stream.write_all(&self.out)?;
        let mut reply = Reply::new(self.deprecate_eof);
        loop {
            let (used, outcome) = reply.feed(&self.inbuf[..self.filled])?;
            self.consume(used);
            if let Some(o) = outcome {
                return Ok(o);
            }
            self.fill()?;
        }
    }

    /// COM_QUERY: a server error is an `Outcome::Failed`, not an `Err`.
    pub fn query(&mut self, sql: &str) -> Result<Outcome, WireError> {
        self.out.clear();
        put_text(&mut self.out, COM_QUERY, sql)?;
        self.round_trip()
    }

    /// COM_STMT_EXECUTE.
    pub fn execute(&mut self, stmt: Prepared, params: &[Param<'_>]) -> Result<Outcome, WireError> {
        if params.len() != usize::from(stmt.params) {
            return Err(protocol(format!("{} values for {} parameters", params.len(), stmt.params)));
        }
        self.out.clear();
        put_execute(&mut self.out, stmt.id, params)?;
        self.round_trip()
    }

    /// COM_STMT_PREPARE; its reply is the statement's id and counts, then
    /// a definition per parameter and per column (each list followed by
    /// EOF unless CLIENT_DEPRECATE_EOF).
    pub fn prepare(&mut self, sql: &str) -> Result<Prepared, WireError> {
        self.out.clear();
        put_text(&mut self.out, COM_STMT_PREPARE, sql)?;
        self.stream.write_all(&self.out)?;
        let (_, p) = self.read_packet()?;
        match p.first() {
            Some(0x00) => {}
            Some(0xFF) => return Err(WireError::Server(parse_err(&p)?)),
            _ => return Err(protocol("a PREPARE reply that is neither OK nor ERR")),
        }
        let mut r = Reader::new(&p[1..]);
        let id = r.u32()?;
        let columns = r.u16()?;
        let params = r.u16()?;
        for n in [params, columns] {
            if n == 0 {
                continue;
            }
            for _ in 0..n {
                self.read_packet()?;
            }
            if !self.deprecate_eof {
                self.read_packet()?;
            }
        }
        Ok(Prepared { id, params })
    }

    /// The socket, and bytes received but not consumed (none, by
    /// invariant 1).
    pub fn into_parts(self) -> (TcpStream, bool) {
        debug_assert_eq!(self.filled, 0, "a reply is outstanding");
        (self.stream, self.deprecate_eof)
    }
}
