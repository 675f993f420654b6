//! One client connection from handshake to close: authentication, then the
//! command loop, each command answered through the [`Session`].
//!
//! States and transitions:
//!
//! | state        | event                          | next         | done by                 |
//! |--------------|--------------------------------|--------------|-------------------------|
//! | Handshake    | proof accepted, session opened | Command      | [`serve_connection_with`] |
//! | Handshake    | refused / bad handshake        | Closed       | `handshake::authenticate` |
//! | Command      | a command other than QUIT      | Command      | `Conn::dispatch`        |
//! | Handshake    | no packet within connect_timeout | Closed     | [`serve_connection_in`] |
//! | Handshake    | over max_connections, no admin | Closed (1040)| [`serve_connection_in`] |
//! | Command      | COM_QUIT, EOF                  | Closed       | `Conn::run`             |
//! | Command      | idle beyond wait_timeout       | Closed       | `Conn::run`             |
//! | Command      | a write blocked beyond net_write_timeout | Closed | `Conn::run`        |
//! | Command      | KILL CONNECTION                | Closed       | `Conn::run`, the killer shuts the socket |
//! | Command      | COM_BINLOG_DUMP(_GTID) ended   | Closed       | `Conn::binlog_dump`     |
//! | any          | framing error, oversized packet| Closed (ERR) | `end_with`              |
//!
//! Invariants:
//! 1. Every command's sequence ids start at 0 (the client's packet).
//! 2. A malformed command body gets an ERR and the connection continues; a
//!    malformed frame (truncated, out of order, too large) ends it.
//! 3. Every reply is flushed before the next command is read; a long one
//!    is written out as it is produced (`ReplyWriter`), never held whole.
//! 4. In a multi-result reply, every OK/EOF but the last carries
//!    `STATUS_MORE_RESULTS` (the session's status flags say so).
//! 5. A connection served by [`serve_connection_in`] is reported to the
//!    backend exactly once opened and once closed, with how it ended (the
//!    close is reported by a guard, even if the thread unwinds).

use std::io::{self, ErrorKind, Read, Write};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::codec::put_lenenc_int;
use super::handshake::{authenticate, capability, send_err, AuthPlugin};
use super::packet::{PacketError, PacketIo};
use super::replication;
use super::socket::{is_timeout, SocketControl};
use super::stmt::Statements;
use super::{charset, column_type, response, Backend, Cell, ColumnDef, ConnEnd, Done, ErrPacket, Replies, Session};

/// Command bytes (`enum_server_command`).
pub mod command {
    pub const QUIT: u8 = 0x01;
    pub const INIT_DB: u8 = 0x02;
    pub const QUERY: u8 = 0x03;
    pub const FIELD_LIST: u8 = 0x04;
    pub const SHUTDOWN: u8 = 0x08;
    pub const STATISTICS: u8 = 0x09;
    pub const PING: u8 = 0x0e;
    pub const STMT_PREPARE: u8 = 0x16;
    pub const STMT_EXECUTE: u8 = 0x17;
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const STMT_CLOSE: u8 = 0x19;
    pub const STMT_RESET: u8 = 0x1a;
    pub const SET_OPTION: u8 = 0x1b;
    pub const STMT_FETCH: u8 = 0x1c;
    pub const RESET_CONNECTION: u8 = 0x1f;
}

/// A command buffer larger than this is not kept between commands.
const KEPT_PACKET_BYTES: usize = 64 * 1024;

/// The largest packet accepted before authentication (a handshake
/// response with connection attributes fits easily).
pub const HANDSHAKE_MAX_BYTES: usize = 64 * 1024;

/// Per-listener choices for every connection.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnOptions {
    /// The plugin announced in the handshake (MySQL's
    /// `default_authentication_plugin`). Either is verified; a client on
    /// any other plugin is switched to mysql_native_password.
    pub auth_plugin: AuthPlugin,
}

/// ER_NET_PACKET_TOO_LARGE.
pub fn packet_too_large() -> ErrPacket {
    ErrPacket::new(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes")
}

/// ER_NET_PACKETS_OUT_OF_ORDER.
pub fn packets_out_of_order() -> ErrPacket {
    ErrPacket::new(1156, "08S01", "Got packets out of order")
}

/// ER_UNKNOWN_COM_ERROR.
pub fn unknown_command() -> ErrPacket {
    ErrPacket::new(1047, "08S01", "Unknown command")
}

/// Serves one connection with default options until the client quits or
/// the connection fails. `Ok` for an orderly end (including a refused
/// login); `Err` when the stream failed or the client broke the framing.
pub fn serve_connection<B: Backend, S: Read + Write>(
    backend: &B,
    stream: S,
    connection_id: u32,
    peer_host: &str,
) -> io::Result<()> {
    serve_connection_with(backend, stream, connection_id, peer_host, &ConnOptions::default())
}

/// [`serve_connection`] with explicit options.
pub fn serve_connection_with<B: Backend, S: Read + Write>(
    backend: &B,
    stream: S,
    connection_id: u32,
    peer_host: &str,
    options: &ConnOptions,
) -> io::Result<()> {
    let env = ConnEnv { peer: peer_host, socket: None, over_limit: &|| false, socket_fd: None };
    serve_connection_in(backend, stream, connection_id, peer_host, options, &env)
}

/// What the listener knows of a connection besides its stream.
pub struct ConnEnv<'a> {
    /// `ip:port`, or `localhost` for a Unix socket (SHOW PROCESSLIST).
    pub peer: &'a str,
    /// The socket, for read timeouts and KILL CONNECTION (`None`: the
    /// stream has no timeouts and cannot be killed from outside).
    pub socket: Option<Arc<dyn SocketControl>>,
    /// More connections are open than `max_connections`: this one is the
    /// extra one, for an administrator only.
    pub over_limit: &'a dyn Fn() -> bool,
    /// The socket's descriptor, when the stream is a socket (replies are
    /// then written without blocking where the socket takes them).
    pub socket_fd: Option<std::os::fd::RawFd>,
}

/// Reports the end of a connection to the backend, once (invariant 5).
struct EndGuard<'a, B: Backend> {
    backend: &'a B,
    id: u32,
    end: ConnEnd,
}

impl<B: Backend> Drop for EndGuard<'_, B> {
    fn drop(&mut self) {
        self.backend.connection_closed(self.id, self.end);
        quire_engine::wait::set_processlist_id(0); // the thread may serve another
    }
}

/// MySQL's note for a connection that ended badly.
fn log_aborted(id: u32, db: Option<&str>, user: &str, host: &str, why: &str) {
    let db = db.unwrap_or("unconnected");
    tracing::info!("Aborted connection {id} to db: '{db}' user: '{user}' host: '{host}' ({why})");
}

/// Why a read ended the connection, in MySQL's words.
fn read_failure(e: &PacketError) -> &'static str {
    match e {
        PacketError::Io(io) if is_timeout(io) => "Got timeout reading communication packets",
        _ => "Got an error reading communication packets",
    }
}

/// Why a write ended the connection, in MySQL's words.
fn write_failure(e: &PacketError) -> &'static str {
    match e {
        PacketError::Io(io) if is_timeout(io) => "Got timeout writing communication packets",
        _ => "Got an error writing communication packets",
    }
}

/// Serves one connection the listener accepted: registers it with the
/// backend, bounds the handshake by `connect_timeout`, lets only an
/// administrator take the connection beyond `max_connections`, bounds
/// idle time by the session's `wait_timeout`, and closes it when killed.
pub fn serve_connection_in<B: Backend, S: Read + Write>(
    backend: &B,
    stream: S,
    connection_id: u32,
    peer_host: &str,
    options: &ConnOptions,
    env: &ConnEnv<'_>,
) -> io::Result<()> {
    let closer = env.socket.clone().map(|s| Box::new(move || s.shutdown()) as super::Closer);
    backend.connection_opened(connection_id, env.peer, closer);
    // performance_schema.threads shows this thread as the connection's.
    quire_engine::wait::set_processlist_id(u64::from(connection_id));
    let mut end = EndGuard { backend, id: connection_id, end: ConnEnd::LoginFailed };
    let mut conn = match login(backend, stream, connection_id, peer_host, options, env) {
        Ok(conn) => conn,
        Err(r) => return r,
    };
    end.end = ConnEnd::Aborted;
    let r = conn.run();
    let (how, r) = conn.finish(r, connection_id, peer_host);
    end.end = how;
    r
}

/// The handshake, authentication and the session: the connection in its
/// command phase, or how it ended (refused, failed; the client was
/// answered where it could be). The caller has reported it opened.
pub(super) fn login<B: Backend, S: Read + Write>(
    backend: &B,
    stream: S,
    connection_id: u32,
    peer_host: &str,
    options: &ConnOptions,
    env: &ConnEnv<'_>,
) -> Result<Conn<S, B::Session>, io::Result<()>> {
    let socket = env.socket.clone();
    let connect_timeout = backend.connect_timeout();
    if let (Some(s), Some(_)) = (&socket, connect_timeout) {
        s.set_read_timeout(connect_timeout).map_err(Err)?;
    }
    let max_packet = backend.max_allowed_packet();
    let mut io = PacketIo::new(stream, HANDSHAKE_MAX_BYTES.min(max_packet));
    if let Some(fd) = env.socket_fd {
        io.set_socket_fd(fd);
    }
    let auth = match authenticate(&mut io, backend, options.auth_plugin, connection_id, peer_host) {
        Ok(Some(a)) => a,
        Ok(None) => return Err(Ok(())),
        Err(e) => {
            if matches!(&e, PacketError::Io(io) if is_timeout(io)) {
                log_aborted(connection_id, None, "unauthenticated", peer_host, read_failure(&e));
            }
            return Err(end_with(&mut io, e));
        }
    };
    if (env.over_limit)() && !backend.is_connection_admin(&auth.user) {
        let _ = send_err(&mut io, &super::listener::too_many_connections());
        return Err(Ok(()));
    }
    let mut session = match backend.open_session(&auth.user, auth.database.as_deref(), connection_id) {
        Ok(s) => s,
        Err(e) => {
            let _ = send_err(&mut io, &e);
            return Err(Ok(()));
        }
    };
    session.client_capabilities(auth.capabilities);
    if auth.capabilities & capability::INTERACTIVE != 0 {
        session.set_interactive();
    }
    io.set_max_payload_bytes(max_packet);
    let mut conn = Conn {
        io,
        multi_statements: auth.capabilities & capability::MULTI_STATEMENTS != 0,
        local_files: auth.capabilities & capability::LOCAL_FILES != 0,
        session,
        statements: Statements::new(max_packet),
        questions: 0,
        buf: Vec::with_capacity(1024),
        packet: Vec::new(),
        socket,
        read_timeout: connect_timeout,
        write_timeout: None,
        failed_writing: false,
        user: auth.user,
    };
    let status = conn.session.status_flags();
    let sent = conn.send_ok(0, 0, status, 0, "").and_then(|()| conn.io.flush());
    if let Err(e) = sent {
        let (_, r) = conn.finish(Err(PacketError::Io(e)), connection_id, peer_host);
        return Err(r);
    }
    Ok(conn)
}

/// Ends a connection on a read failure: tells the client why when it can
/// still listen.
fn end_with<S: Read + Write>(io: &mut PacketIo<S>, e: PacketError) -> io::Result<()> {
    match e {
        PacketError::Closed => Ok(()),
        PacketError::Truncated => Err(io::Error::new(ErrorKind::UnexpectedEof, "connection closed inside a packet")),
        PacketError::TooLarge => {
            let _ = send_err(io, &packet_too_large());
            Err(io::Error::new(ErrorKind::InvalidData, PacketError::TooLarge))
        }
        PacketError::OutOfOrder { .. } => {
            let _ = send_err(io, &packets_out_of_order());
            Err(io::Error::new(ErrorKind::InvalidData, e))
        }
        PacketError::Io(e) => Err(e),
    }
}

fn started() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// What a command left the connection to do.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Flow {
    /// Read the next command.
    Next,
    /// The connection ends (COM_QUIT, a dump's end, killed).
    Quit,
}

/// An authenticated connection in the command phase.
pub(super) struct Conn<S, T> {
    io: PacketIo<S>,
    session: T,
    /// Prepared statements' parameter types and long data.
    statements: Statements,
    /// CLIENT_MULTI_STATEMENTS, as toggled by COM_SET_OPTION.
    multi_statements: bool,
    /// CLIENT_LOCAL_FILES: the client sends files for LOAD DATA LOCAL.
    local_files: bool,
    /// Commands served (COM_STATISTICS' "Questions").
    questions: u64,
    /// Scratch space for one outgoing payload.
    buf: Vec<u8>,
    /// The command being served.
    packet: Vec<u8>,
    /// The socket, to bound idle reads by the session's `wait_timeout`.
    socket: Option<Arc<dyn SocketControl>>,
    /// The read timeout the socket has now.
    read_timeout: Option<Duration>,
    /// The write timeout the socket has now.
    write_timeout: Option<Duration>,
    /// The connection failed while answering (writing), not reading.
    failed_writing: bool,
    /// The account logged in.
    user: String,
}

impl<S: Read + Write, T: Session> Conn<S, T> {
    /// The command loop; `Ok` on COM_QUIT, or after the command during
    /// which the session was killed.
    fn run(&mut self) -> Result<(), PacketError> {
        while self.step()? == Flow::Next {}
        Ok(())
    }

    /// Reads and answers one command.
    pub(super) fn step(&mut self) -> Result<Flow, PacketError> {
        if self.session.killed() {
            return Ok(Flow::Quit);
        }
        self.set_timeouts()?;
        self.io.reset_seq();
        let mut packet = std::mem::take(&mut self.packet);
        let r = self.io.read_packet_into(&mut packet).and_then(|()| self.command(&packet));
        if packet.capacity() > KEPT_PACKET_BYTES {
            packet = Vec::new(); // an idle connection does not keep a bulk load's buffer
        }
        self.packet = packet;
        r
    }

    fn command(&mut self, packet: &[u8]) -> Result<Flow, PacketError> {
        self.questions += 1;
        let Some((&cmd, body)) = packet.split_first() else {
            self.send_err(&unknown_command())?;
            self.io.flush()?;
            return Ok(Flow::Next);
        };
        if cmd == command::QUIT {
            return Ok(Flow::Quit);
        }
        if cmd == replication::BINLOG_DUMP || cmd == replication::BINLOG_DUMP_GTID {
            // The connection ends with the dump, as MySQL's does. A dump
            // waits for events for hours: the thread says it blocks.
            quire_engine::txn::admission::lend(quire_engine::wait::Instrument::BinlogFile, || {
                self.binlog_dump(cmd, body)
            })?;
            let _ = self.io.flush();
            return Ok(Flow::Quit);
        }
        let answered = self.dispatch(cmd, body);
        if self.session.killed() {
            // The last answer: to a connection that killed itself; one
            // killed by another has its socket shut already, and the
            // answer goes nowhere.
            let _ = self.io.flush();
            return Ok(Flow::Quit);
        }
        if let Err(e) = answered.and_then(|()| Ok(self.io.flush()?)) {
            self.failed_writing = true;
            return Err(e);
        }
        Ok(Flow::Next)
    }

    /// A command arrived with the last one and waits in the read buffer.
    pub(super) fn has_buffered_input(&self) -> bool {
        self.io.has_buffered_input()
    }

    /// Inside a transaction (`SERVER_STATUS_IN_TRANS`).
    pub(super) fn in_transaction(&self) -> bool {
        self.session.status_flags() & super::STATUS_IN_TRANS != 0
    }

    /// Its session's `thread_pool_priority`, if it says one.
    pub(super) fn pool_priority(&self) -> Option<super::pool::Priority> {
        self.session.thread_pool_priority().and_then(super::pool::Priority::parse)
    }

    /// How long the connection may wait for its next command.
    pub(super) fn idle_timeout(&self) -> Option<Duration> {
        self.session.idle_timeout()
    }

    /// The connection ended with `r`: logs an abnormal end as MySQL does,
    /// tells the client why where it can still listen, and says how it
    /// ended.
    pub(super) fn finish(
        &mut self,
        r: Result<(), PacketError>,
        connection_id: u32,
        peer_host: &str,
    ) -> (ConnEnd, io::Result<()>) {
        let killed = self.session.killed();
        match r {
            Ok(()) if !killed => (ConnEnd::Quit, Ok(())),
            Ok(()) => (ConnEnd::Aborted, Ok(())),
            Err(e) => {
                if !killed {
                    let why = if self.failed_writing { write_failure(&e) } else { read_failure(&e) };
                    log_aborted(connection_id, self.session.database().as_deref(), &self.user, peer_host, why);
                }
                (ConnEnd::Aborted, end_with(&mut self.io, e))
            }
        }
    }

    /// Bounds the wait for the next command by the session's
    /// `wait_timeout`, and each write of its answer by `net_write_timeout`
    /// (a system call each, only when it changed).
    fn set_timeouts(&mut self) -> io::Result<()> {
        let Some(socket) = &self.socket else {
            return Ok(());
        };
        let t = self.session.idle_timeout();
        if t != self.read_timeout {
            socket.set_read_timeout(t)?;
            self.read_timeout = t;
        }
        let t = self.session.write_timeout();
        if t != self.write_timeout {
            socket.set_write_timeout(t)?;
            self.write_timeout = t;
        }
        Ok(())
    }

    fn dispatch(&mut self, cmd: u8, body: &[u8]) -> Result<(), PacketError> {
        match cmd {
            command::PING => self.send_status_ok(),
            command::INIT_DB => match self.session.init_db(&String::from_utf8_lossy(body)) {
                Ok(()) => self.send_status_ok(),
                Err(e) => self.send_err(&e),
            },
            command::QUERY => {
                // Raw bytes in string literals (a dump's BLOB values) are
                // read as hex literals (`quire_sql::raw_literals`).
                let sql = match std::str::from_utf8(body) {
                    Ok(sql) => std::borrow::Cow::Borrowed(sql),
                    Err(_) => match quire_sql::raw_literals::to_text(body) {
                        Some(sql) => std::borrow::Cow::Owned(sql),
                        None => {
                            return self.send_err(&ErrPacket::new(1300, "HY000", "Invalid utf8mb4 character string"))
                        }
                    },
                };
                let mut out = ReplyWriter::new(&mut self.io, &mut self.buf, false);
                out.local_files = self.local_files;
                self.session.query(&sql, self.multi_statements, &mut out)?;
                out.finish()
            }
            // mariadb-admin shutdown: the SHUTDOWN statement's privilege
            // check and effect, answered with its OK or error.
            command::SHUTDOWN => {
                let mut out = ReplyWriter::new(&mut self.io, &mut self.buf, false);
                self.session.query("SHUTDOWN", false, &mut out)?;
                out.finish()
            }
            command::FIELD_LIST => {
                let status = self.session.status_flags();
                self.send_eof(status)
            }
            command::STATISTICS => {
                if let Some(text) = self.session.statistics() {
                    self.io.write_packet(text.as_bytes())?;
                    return Ok(());
                }
                let uptime = started().elapsed().as_secs();
                let qps = self.questions as f64 / uptime.max(1) as f64;
                let text = format!(
                    "Uptime: {uptime}  Questions: {}  Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0  Queries per second avg: {qps:.3}",
                    self.questions
                );
                self.io.write_packet(text.as_bytes())?;
                Ok(())
            }
            command::STMT_PREPARE => self.prepare(body),
            command::STMT_EXECUTE => match self.statements.parse_execute(body) {
                Ok((id, params)) => {
                    let mut out = ReplyWriter::new(&mut self.io, &mut self.buf, true);
                    self.session.execute(id, &params, &mut out)?;
                    out.finish()
                }
                Err(e) => self.send_err(&e),
            },
            command::STMT_SEND_LONG_DATA => {
                self.statements.send_long_data(body);
                Ok(())
            }
            command::STMT_CLOSE => {
                if let Some(id) = body.get(..4) {
                    let id = u32::from_le_bytes([id[0], id[1], id[2], id[3]]);
                    self.statements.close(id);
                    self.session.close_statement(id);
                }
                Ok(())
            }
            command::STMT_RESET => {
                let Some(id) = body.get(..4) else {
                    return self.send_err(&unknown_command());
                };
                let id = u32::from_le_bytes([id[0], id[1], id[2], id[3]]);
                if !self.statements.reset(id) {
                    return self.send_err(&super::stmt::unknown_statement(id, "mysqld_stmt_reset"));
                }
                match self.session.reset_statement(id) {
                    Ok(()) => self.send_status_ok(),
                    Err(e) => self.send_err(&e),
                }
            }
            command::SET_OPTION => match body {
                [0, 0] | [1, 0] => {
                    self.multi_statements = body[0] == 0;
                    let status = self.session.status_flags();
                    self.send_eof(status)
                }
                _ => self.send_err(&unknown_command()),
            },
            command::STMT_FETCH => {
                let id = body.get(..4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                self.send_err(&ErrPacket::new(1421, "HY000", format!("The statement ({id}) has no open cursor.")))
            }
            replication::REGISTER_SLAVE => match replication::parse_register(body) {
                Ok(r) => match self.session.register_replica(&r) {
                    Ok(()) => self.send_status_ok(),
                    Err(e) => self.send_err(&e),
                },
                Err(e) => self.send_err(&e),
            },
            command::RESET_CONNECTION => {
                self.session.reset_connection();
                self.statements.clear();
                self.send_status_ok()
            }
            _ => self.send_err(&unknown_command()),
        }
    }

    /// COM_BINLOG_DUMP(_GTID): the events, then EOF or ERR.
    fn binlog_dump(&mut self, cmd: u8, body: &[u8]) -> Result<(), PacketError> {
        let parsed = if cmd == replication::BINLOG_DUMP {
            replication::parse_dump(body)
        } else {
            replication::parse_dump_gtid(body)
        };
        let d = match parsed {
            Ok(d) => d,
            Err(e) => return self.send_err(&e),
        };
        // A dump may wait for hours between events: no idle or write
        // timeout of a client connection applies (heartbeats and the
        // replica's own timeout watch the link).
        if let Some(s) = &self.socket {
            s.set_read_timeout(None)?;
            s.set_write_timeout(None)?;
        }
        let mut sink = EventWriter { io: &mut self.io, buf: &mut self.buf };
        match self.session.binlog_dump(&d, &mut sink) {
            replication::DumpOutcome::Eof => {
                let status = self.session.status_flags();
                self.send_eof(status)
            }
            replication::DumpOutcome::Closed => Ok(()),
            replication::DumpOutcome::Error(e) => self.send_err(&e),
        }
    }

    fn prepare(&mut self, body: &[u8]) -> Result<(), PacketError> {
        let Ok(sql) = std::str::from_utf8(body) else {
            return self.send_err(&ErrPacket::new(1300, "HY000", "Invalid utf8mb4 character string"));
        };
        let prepared = match self.session.prepare(sql) {
            Ok(p) => p,
            Err(e) => return self.send_err(&e),
        };
        self.statements.prepared(prepared.id, prepared.params);
        let columns = u16::try_from(prepared.columns.len()).unwrap_or(u16::MAX);
        self.buf.clear();
        self.buf.push(0x00);
        self.buf.extend_from_slice(&prepared.id.to_le_bytes());
        self.buf.extend_from_slice(&columns.to_le_bytes());
        self.buf.extend_from_slice(&prepared.params.to_le_bytes());
        self.buf.push(0);
        self.buf.extend_from_slice(&0u16.to_le_bytes());
        self.io.write_packet(&self.buf)?;
        let status = self.session.status_flags();
        if prepared.params > 0 {
            let param =
                ColumnDef { charset: charset::BINARY, length: 0, ..ColumnDef::expr("?", column_type::VAR_STRING) };
            for _ in 0..prepared.params {
                self.send_column_def(&param)?;
            }
            self.send_eof(status)?;
        }
        if !prepared.columns.is_empty() {
            for c in &prepared.columns {
                self.send_column_def(c)?;
            }
            self.send_eof(status)?;
        }
        Ok(())
    }

    fn send_column_def(&mut self, c: &ColumnDef) -> Result<(), PacketError> {
        self.buf.clear();
        response::column_def(&mut self.buf, c);
        self.io.write_packet(&self.buf)?;
        Ok(())
    }

    fn send_ok(&mut self, affected: u64, insert_id: u64, status: u16, warnings: u16, info: &str) -> io::Result<()> {
        self.buf.clear();
        response::ok(&mut self.buf, affected, insert_id, status, warnings, info);
        self.io.write_packet(&self.buf)
    }

    fn send_status_ok(&mut self) -> Result<(), PacketError> {
        let status = self.session.status_flags();
        Ok(self.send_ok(0, 0, status, 0, "")?)
    }

    fn send_eof(&mut self, status: u16) -> Result<(), PacketError> {
        self.send_eof_with(0, status)
    }

    /// The EOF that ends a result set: it carries the statement's warnings.
    fn send_eof_with(&mut self, warnings: u16, status: u16) -> Result<(), PacketError> {
        self.buf.clear();
        response::eof(&mut self.buf, warnings, status);
        Ok(self.io.write_packet(&self.buf)?)
    }

    fn send_err(&mut self, e: &ErrPacket) -> Result<(), PacketError> {
        self.buf.clear();
        response::err(&mut self.buf, e);
        Ok(self.io.write_packet(&self.buf)?)
    }
}

/// A command's answers on their way out ([`Replies`]): each packet goes
/// into the connection's buffered output as the session produces it, and
/// the buffer is written out whenever it passes
/// [`super::packet::FLUSH_AT_BYTES`], so a result set is never held
/// whole.
///
/// A result set's column definitions wait for its first row or its end:
/// a statement that fails before producing a row answers with a plain
/// ERR, one that fails later with ERR in place of the EOF.
struct ReplyWriter<'c, S> {
    io: &'c mut PacketIo<S>,
    buf: &'c mut Vec<u8>,
    /// Rows in the binary protocol (COM_STMT_EXECUTE), else in text.
    binary: bool,
    /// The open result set's columns (empty: none open).
    columns: Vec<ColumnDef>,
    /// The open result set's definitions are not sent yet: the status
    /// their EOF carries.
    unsent: Option<u16>,
    /// Something was answered (else the command gets an OK).
    answered: bool,
    /// An error was the last answer: nothing more goes out.
    ended: bool,
    /// The client sends files for LOAD DATA LOCAL (COM_QUERY only).
    local_files: bool,
}

impl<'c, S: Read + Write> ReplyWriter<'c, S> {
    fn new(io: &'c mut PacketIo<S>, buf: &'c mut Vec<u8>, binary: bool) -> Self {
        Self { io, buf, binary, columns: Vec::new(), unsent: None, answered: false, ended: false, local_files: false }
    }

    /// Sends the open result set's definitions if they wait.
    fn send_definitions(&mut self) -> io::Result<()> {
        let Some(status) = self.unsent.take() else { return Ok(()) };
        self.buf.clear();
        put_lenenc_int(self.buf, self.columns.len() as u64);
        self.io.write_packet(self.buf)?;
        for c in &self.columns {
            self.buf.clear();
            response::column_def(self.buf, c);
            self.io.write_packet(self.buf)?;
        }
        self.buf.clear();
        response::eof(self.buf, 0, status);
        self.io.write_packet(self.buf)
    }

    /// The command's answer is complete: a command the session answered
    /// nothing to gets an OK.
    fn finish(self) -> Result<(), PacketError> {
        debug_assert!(self.columns.is_empty(), "a result set was left open");
        if !self.answered {
            self.buf.clear();
            response::ok(self.buf, 0, 0, 0, 0, "");
            self.io.write_packet(self.buf)?;
        }
        Ok(())
    }
}

impl<S: Read + Write> Replies for ReplyWriter<'_, S> {
    fn columns(&mut self, columns: Vec<ColumnDef>, status: u16) -> io::Result<()> {
        debug_assert!(self.columns.is_empty() && !self.ended);
        self.unsent = (!columns.is_empty()).then_some(status);
        self.columns = columns;
        Ok(())
    }

    fn row(&mut self, row: &[Cell]) -> io::Result<()> {
        debug_assert!(!self.columns.is_empty(), "a row outside a result set");
        if self.ended {
            return Ok(());
        }
        self.send_definitions()?;
        self.buf.clear();
        if self.binary {
            response::binary_row(self.buf, &self.columns, row);
        } else {
            response::text_row(self.buf, &self.columns, row);
        }
        self.io.write_packet(self.buf)
    }

    fn done(&mut self, done: Done, status: u16) -> io::Result<()> {
        if self.ended {
            return Ok(());
        }
        self.answered = true;
        self.buf.clear();
        if self.columns.is_empty() {
            response::ok(self.buf, done.affected_rows, done.last_insert_id, status, done.warnings, &done.info);
        } else {
            self.send_definitions()?;
            self.columns.clear();
            self.buf.clear();
            response::eof(self.buf, done.warnings, status);
        }
        self.io.write_packet(self.buf)
    }

    fn local_file(&mut self, name: &str) -> io::Result<Option<Box<dyn Read + '_>>> {
        if !self.local_files || self.ended {
            return Ok(None);
        }
        self.buf.clear();
        self.buf.push(0xfb);
        self.buf.extend_from_slice(name.as_bytes());
        self.io.write_packet(self.buf)?;
        self.io.flush()?;
        Ok(Some(Box::new(LocalFile { io: &mut *self.io, packet: Vec::new(), pos: 0, done: false })))
    }

    fn error(&mut self, e: &ErrPacket) -> io::Result<()> {
        if self.ended {
            return Ok(());
        }
        self.answered = true;
        self.ended = true;
        self.unsent = None;
        self.columns.clear();
        self.buf.clear();
        response::err(self.buf, e);
        self.io.write_packet(self.buf)
    }
}

/// The contents of a LOAD DATA LOCAL file as the client sends them: packets
/// up to an empty one. Dropped before that, it reads and discards the
/// rest, so that the answer follows the client's last packet.
struct LocalFile<'a, S: Read + Write> {
    io: &'a mut PacketIo<S>,
    /// The packet being read.
    packet: Vec<u8>,
    pos: usize,
    /// The empty packet came (or the connection failed).
    done: bool,
}

impl<S: Read + Write> LocalFile<'_, S> {
    fn next_packet(&mut self) -> io::Result<()> {
        self.pos = 0;
        match self.io.read_packet_into(&mut self.packet) {
            Ok(()) => {
                self.done = self.packet.is_empty();
                Ok(())
            }
            Err(e) => {
                self.done = true;
                self.packet.clear();
                Err(io::Error::new(io::ErrorKind::ConnectionAborted, format!("{e:?}")))
            }
        }
    }
}

impl<S: Read + Write> Read for LocalFile<'_, S> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.packet.len() {
            if self.done {
                return Ok(0);
            }
            self.next_packet()?;
        }
        let n = out.len().min(self.packet.len() - self.pos);
        out[..n].copy_from_slice(&self.packet[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl<S: Read + Write> Drop for LocalFile<'_, S> {
    fn drop(&mut self) {
        while !self.done {
            let _ = self.next_packet();
        }
    }
}

/// A dump's events written as packets (`0x00`, then the event).
struct EventWriter<'a, S> {
    io: &'a mut PacketIo<S>,
    buf: &'a mut Vec<u8>,
}

impl<S: Read + Write> replication::EventSink for EventWriter<'_, S> {
    fn event(&mut self, ev: &[u8]) -> io::Result<()> {
        self.buf.clear();
        self.buf.push(0x00);
        self.buf.extend_from_slice(ev);
        self.io.write_packet(self.buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.io.flush()
    }
}
