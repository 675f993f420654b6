//! The receiver (MySQL's I/O thread): connects to the source as a
//! replica, asks for its binary log from where the replica stands, checks
//! every event's checksum and appends it to the relay log; reconnects
//! after `SOURCE_CONNECT_RETRY` seconds when the source goes away.
//!
//! What it says to the source, in order (as a MySQL 8.0 replica does):
//! `SELECT UNIX_TIMESTAMP()` (the clock difference behind
//! Seconds_Behind_Source), `SELECT @@GLOBAL.SERVER_ID` (equal ids are fatal,
//! 1593), `SET @master_heartbeat_period`, `SET @master_binlog_checksum=
//! @@global.binlog_checksum` then read back, COM_REGISTER_SLAVE,
//! COM_BINLOG_DUMP (COM_BINLOG_DUMP_GTID with SOURCE_AUTO_POSITION = 1,
//! naming this server's `gtid_executed` and the GTIDs received since
//! START: the source sends what neither holds).
//!
//! Invariants:
//! 1. The relay log is synced before the position it holds is published
//!    (`Progress::relay_end`, `Progress::read`): the applier never reads
//!    an event that a crash could take back.
//! 2. A connection resumes from `boundary`, the source position just past
//!    the last whole transaction received (or ROTATE / STOP /
//!    PREVIOUS_GTIDS): a transaction cut by a lost connection is fetched
//!    again whole. The new connection starts a new relay file whose first
//!    relayed event is the source's artificial ROTATE; an applier inside a
//!    transaction there rolls it back (`applier.rs`).
//! 3. HEARTBEAT events are not relayed.
//! 4. Every boundary received is published once the stream pauses, even
//!    when no later boundary comes: the applier reaches the end of what
//!    the source sent (its new file's header after a last transaction
//!    that rotated the log) without waiting for another transaction.

use std::io;
use std::time::{Duration, Instant};

use quire_binlog::decode::{self, FLAG_ARTIFICIAL};
use quire_binlog::event::{kind, HEADER_LEN};
use quire_binlog::relay::RelayWriter;
use quire_binlog::Checksum;

use super::client::{Client, ClientError};
use super::info::SourcePos;
use super::{now_secs, Channel, IoState};

/// HEARTBEAT_LOG_EVENT.
const HEARTBEAT: u8 = 27;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A relay file is closed for the next at a transaction boundary past
/// this size (MySQL's `max_relay_log_size` falls back to
/// `max_binlog_size`; quire keeps relay files smaller so that applied
/// ones are deleted sooner).
const MAX_RELAY_FILE_BYTES: u64 = 256 << 20;

/// The longest a steady stream goes without a relay log sync.
const SYNC_INTERVAL: Duration = Duration::from_millis(20);

/// ER_REPLICA_FATAL_ERROR.
const ER_FATAL: u32 = 1593;
/// ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE.
const ER_CHECKSUM: u32 = 1743;
/// ER_SOURCE_FATAL_ERROR_READING_BINLOG.
const ER_READING_BINLOG: u32 = 1236;
/// ER_REPLICA_RELAY_LOG_WRITE_FAILURE.
const ER_RELAY_WRITE: u32 = 13122;
/// ER_CONNECT_TO_SOURCE (2003 is the client's "can't connect").
const ER_CONNECT: u32 = 2003;

/// Discards the old relay log and opens a new one (START REPLICA).
pub fn open_relay(ch: &Channel) -> io::Result<RelayWriter> {
    let w = RelayWriter::create(&ch.relay_dir, &ch.relay_base, ch.server_id, Checksum::Crc32)?;
    let mut p = ch.progress.lock();
    p.relay_end = w.synced_end();
    p.applier_file = w.synced_end().0;
    p.applied.relay_file = w.name().to_string();
    p.applied.relay_pos = w.len();
    Ok(w)
}

/// Why a connection ended.
enum End {
    /// STOP REPLICA.
    Stopped,
    /// Retry after the interval.
    Retry(u32, String),
    /// The receiver stops (Last_IO_Error set).
    Fatal(u32, String),
}

fn lost(e: ClientError) -> End {
    if e.code == 0 {
        End::Retry(ER_CONNECT, format!("error reconnecting to source: {}", e.message))
    } else if u32::from(e.code) == ER_READING_BINLOG {
        End::Fatal(
            ER_READING_BINLOG,
            format!("Got fatal error 1236 from source when reading data from binary log: '{}'", e.message),
        )
    } else {
        End::Retry(u32::from(e.code), e.message)
    }
}

fn relay_err(e: io::Error) -> End {
    End::Fatal(ER_RELAY_WRITE, format!("Relay log write failure: could not queue event from source: {e}"))
}

/// The receiver thread.
pub fn run(ch: &Channel, mut w: RelayWriter) {
    let mut boundary = ch.progress.lock().read.clone();
    let mut attempt = 0u64;
    while !ch.stopping() {
        if attempt > 0 {
            ch.sleep(Duration::from_secs(u64::from(ch.config.connect_retry.max(1))));
            if ch.stopping() {
                break;
            }
        }
        attempt += 1;
        {
            let mut p = ch.progress.lock();
            p.io = IoState::Connecting;
            p.io_state_text = "Connecting to source";
        }
        match connection(ch, &mut w, &mut boundary) {
            End::Stopped => break,
            End::Retry(code, msg) => ch.io_error(code, msg),
            End::Fatal(code, msg) => {
                ch.io_error(code, msg);
                break;
            }
        }
    }
    *ch.socket.lock() = None;
    let _ = w.sync();
    let mut p = ch.progress.lock();
    p.io = IoState::Off;
    p.io_state_text = "";
}

/// One connection: login, dump request, events until it breaks.
fn connection(ch: &Channel, w: &mut RelayWriter, boundary: &mut SourcePos) -> End {
    let c = &ch.config;
    let mut client = match Client::connect(&c.host, c.port, &c.user, &c.password, CONNECT_TIMEOUT) {
        Ok(cl) => cl,
        Err(e) if e.code == 0 => {
            return End::Retry(
                ER_CONNECT,
                format!(
                    "error connecting to source '{}@{}:{}' - retry-time: {}: {}",
                    c.user, c.host, c.port, c.connect_retry, e.message
                ),
            )
        }
        Err(e) => {
            return End::Retry(
                u32::from(e.code),
                format!(
                    "error connecting to source '{}@{}:{}' - retry-time: {}: {}",
                    c.user, c.host, c.port, c.connect_retry, e.message
                ),
            )
        }
    };
    *ch.socket.lock() = client.socket();
    if ch.stopping() {
        return End::Stopped;
    }
    let alg = match handshake(ch, &mut client) {
        Ok(a) => a,
        Err(e) => return e,
    };
    // Invariant 2: a connection's events start a relay file of their own.
    if w.len() > quire_binlog::relay::first_event_offset(w.checksum()) || alg != w.checksum() {
        w.set_checksum(alg);
        if let Err(e) = w.rotate() {
            return relay_err(e);
        }
        publish(ch, w, w.synced_end(), None);
    }
    if let Err(e) = client.register_replica(ch.server_id, "", 0) {
        return lost(e);
    }
    let dump = if c.auto_position {
        let mut have = ch.binlog.as_ref().map(|b| b.log.gtid_executed()).unwrap_or_default();
        have.union(&ch.progress.lock().retrieved);
        tracing::info!("replica receiver: asking {}:{} for the GTIDs not in '{have}'", c.host, c.port);
        client.binlog_dump_gtid(&have, ch.server_id)
    } else {
        tracing::info!("replica receiver: reading from {}:{} at '{}' {}", c.host, c.port, boundary.file, boundary.pos);
        client.binlog_dump(&boundary.file, boundary.pos, ch.server_id)
    };
    if let Err(e) = dump {
        return lost(e);
    }
    // No byte for `replica_net_timeout`: the source is gone.
    let _ = client.set_read_timeout(Some(ch.net_timeout));
    {
        let mut p = ch.progress.lock();
        p.io = IoState::Running;
        p.io_state_text = "Waiting for source to send event";
        p.last_io = (0, String::new(), String::new());
    }
    let mut read = boundary.clone();
    // The GTID of the transaction being received, added to
    // Retrieved_Gtid_Set at its end.
    let mut receiving = None;
    let mut last_sync = Instant::now();
    // The relay end of the last boundary, until it is synced and published.
    let mut unpublished: Option<(u32, u64)> = None;
    loop {
        if ch.stopping() {
            let _ = w.sync();
            return End::Stopped;
        }
        // Checked before every read, not only at the boundary itself: what
        // is queued behind a boundary may end the burst without another
        // one (a ROTATE, the next file's fake ROTATE and FORMAT_DESCRIPTION
        // after a source's last transaction), and the source may then stay
        // quiet for good.
        if let Some(end) = unpublished {
            // Sync when the source has nothing more queued (one sync
            // covers every transaction that arrived together), or at
            // least every SYNC_INTERVAL under a steady stream.
            if last_sync.elapsed() >= SYNC_INTERVAL || !client.has_pending() {
                if let Err(e) = sync_and_publish(ch, w, end, boundary) {
                    return e;
                }
                unpublished = None;
                last_sync = Instant::now();
            }
        }
        let ev = match client.event() {
            Ok(Some(ev)) => ev,
            Ok(None) => return End::Retry(ER_READING_BINLOG, "the source ended the binary log stream".into()),
            Err(e) => {
                if ch.stopping() {
                    return End::Stopped;
                }
                return lost(e);
            }
        };
        if ev.len() < HEADER_LEN {
            return End::Retry(ER_FATAL, "a truncated event from the source".into());
        }
        if alg == Checksum::Crc32 && !decode::checksum_ok(&ev) {
            return End::Retry(
                ER_CHECKSUM,
                "Replication event checksum verification failed while reading from network.".into(),
            );
        }
        let Ok(h) = decode::header(&ev) else { return End::Retry(ER_FATAL, "a bad event header".into()) };
        if h.type_code == HEARTBEAT {
            continue; // invariant 3
        }
        if let Err(e) = w.append(&ev) {
            return relay_err(e);
        }
        let body_end = ev.len() - if alg == Checksum::Crc32 { 4 } else { 0 };
        let body = &ev[HEADER_LEN..body_end];
        if h.type_code == kind::GTID {
            receiving = quire_binlog::event::gtid_of(body);
        }
        if track(&mut read, &h, body) {
            *boundary = read.clone();
            unpublished = Some(w.end());
            if let Some(g) = receiving.take() {
                ch.progress.lock().retrieved.add(&g);
            }
        }
    }
}

/// Moves `read` past the event; whether the event ends a boundary
/// (invariant 2): a transaction's end, or an event outside transactions
/// that a dump may start after (ROTATE, STOP, PREVIOUS_GTIDS, which
/// brings the position to the end of a new file's header, where SHOW
/// MASTER STATUS stands on a source that has not written to it yet).
fn track(read: &mut SourcePos, h: &decode::Header, body: &[u8]) -> bool {
    match h.type_code {
        kind::ROTATE => match decode::rotate(body) {
            Ok((pos, name)) => {
                *read = SourcePos { file: name, pos };
                true
            }
            Err(_) => false,
        },
        kind::FORMAT_DESCRIPTION => false,
        t => {
            if h.next_pos != 0 && h.flags & FLAG_ARTIFICIAL == 0 {
                read.pos = u64::from(h.next_pos);
            }
            match t {
                kind::XID | kind::STOP | kind::PREVIOUS_GTIDS => true,
                kind::QUERY => decode::query(body).is_ok_and(|q| !q.sql.eq_ignore_ascii_case("BEGIN")),
                _ => false,
            }
        }
    }
}

/// Syncs the relay log and publishes the boundary ending at `end` with
/// the source position `read` (invariant 1); then starts a new relay
/// file when this one is past its size and holds nothing after `end`.
fn sync_and_publish(ch: &Channel, w: &mut RelayWriter, end: (u32, u64), read: &SourcePos) -> Result<(), End> {
    w.sync().map_err(relay_err)?;
    publish(ch, w, end, Some(read));
    if w.end() == end && w.len() > MAX_RELAY_FILE_BYTES {
        w.rotate().map_err(relay_err)?;
        publish(ch, w, w.synced_end(), None);
    }
    Ok(())
}

/// The queries before the dump; the checksum algorithm of the stream.
fn handshake(ch: &Channel, client: &mut Client) -> Result<Checksum, End> {
    let first_text = |r: Option<Vec<Option<String>>>| r.and_then(|v| v.into_iter().next().flatten());
    // The clock difference is best effort, as in MySQL.
    if let Ok(r) = client.query("SELECT UNIX_TIMESTAMP()") {
        if let Some(t) = first_text(r).and_then(|s| s.split('.').next().and_then(|x| x.parse::<i64>().ok())) {
            ch.progress.lock().clock_diff_secs = now_secs() - t;
        }
    }
    let sid = client.query("SELECT @@GLOBAL.SERVER_ID").map_err(lost)?;
    let sid = first_text(sid).and_then(|s| s.parse::<u32>().ok()).unwrap_or(0);
    if sid == ch.server_id {
        return Err(End::Fatal(
            ER_FATAL,
            "Fatal error: The replica I/O thread stops because source and replica have equal MySQL server ids; \
             these ids must be different for replication to work"
                .into(),
        ));
    }
    ch.progress.lock().source_server_id = sid;
    // SOURCE_HEARTBEAT_PERIOD, by default half of replica_net_timeout
    // (MySQL's); 0 asks for none.
    let period = ch.config.heartbeat.unwrap_or(ch.net_timeout.as_secs_f64() / 2.0);
    let ns = (period * 1e9) as u64;
    client.query(&format!("SET @master_heartbeat_period= {ns}")).map_err(lost)?;
    client.query("SET @master_binlog_checksum= @@global.binlog_checksum").map_err(lost)?;
    let alg = client.query("SELECT @master_binlog_checksum").map_err(lost)?;
    match first_text(alg).as_deref() {
        Some(a) if a.eq_ignore_ascii_case("CRC32") => Ok(Checksum::Crc32),
        Some(a) if a.eq_ignore_ascii_case("NONE") => Ok(Checksum::None),
        other => Err(End::Fatal(ER_FATAL, format!("the source's binlog_checksum is {other:?}, not CRC32 or NONE"))),
    }
}

/// Publishes `end`, at most the synced relay end (invariant 1), and the
/// position read; deletes relay files the applier finished.
fn publish(ch: &Channel, w: &mut RelayWriter, end: (u32, u64), read: Option<&SourcePos>) {
    debug_assert!(end <= w.synced_end());
    let applier_file = {
        let mut p = ch.progress.lock();
        p.relay_end = end;
        if let Some(r) = read {
            p.read = r.clone();
        }
        ch.changed.notify_all();
        p.applier_file
    };
    if let Err(e) = w.purge_before(applier_file) {
        tracing::warn!("replica receiver: purging applied relay logs: {e}");
    }
}
