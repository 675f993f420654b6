//! quire as a replication source: COM_REGISTER_SLAVE (the replicas SHOW
//! REPLICAS lists) and COM_BINLOG_DUMP (a dump thread sending the log,
//! `quire_binlog::dump`), with MySQL 8.0's privilege checks and the
//! user variables a replica sets before it asks for the log
//! (`@master_binlog_checksum`, `@master_heartbeat_period`).
//!
//! Invariants:
//! 1. A replica stays registered until its connection ends
//!    ([`Replicas::connection_closed`]); registering again (same server
//!    id) replaces the entry, as MySQL's `register_replica` does.
//! 2. At most one dump runs per replica server id: a new dump from the
//!    same id stops the older one (MySQL's `kill_zombie_dump_threads`:
//!    a replica that reconnects after a network failure must not leave a
//!    dump thread writing to a dead socket).
//! 3. Only transactions durable on this server are sent (the rule lives
//!    in `quire_binlog::dump`, invariant 1).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
pub use quire_binlog::DumpOut;
use quire_binlog::{Checksum, DumpEnd, DumpRequest};
use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::plan::{ColMeta, MetaType};
use crate::session::Session;

/// BINLOG_DUMP_NON_BLOCK: EOF instead of waiting once caught up.
pub const DUMP_NON_BLOCK: u16 = 0x01;

/// One registered replica (COM_REGISTER_SLAVE).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replica {
    pub connection_id: u32,
    pub server_id: u32,
    /// `report_host` (may be empty), as the replica sent it.
    pub host: String,
    pub port: u16,
    pub master_id: u32,
    /// `@replica_uuid` / `@slave_uuid`, when the replica set it.
    pub uuid: String,
}

/// The registered replicas and the running dumps.
#[derive(Default)]
pub struct Replicas {
    registered: Mutex<Vec<Replica>>,
    /// Running dumps: (replica server id, connection id, stop flag).
    dumps: Mutex<Vec<(u32, u32, Arc<AtomicBool>)>>,
}

impl Replicas {
    /// Invariant 1.
    pub fn register(&self, r: Replica) {
        let mut g = self.registered.lock();
        g.retain(|x| x.server_id != r.server_id && x.connection_id != r.connection_id);
        g.push(r);
    }

    /// The connection ended: its registration goes.
    pub fn connection_closed(&self, connection_id: u32) {
        self.registered.lock().retain(|x| x.connection_id != connection_id);
    }

    /// Invariant 2: registers a dump of `server_id`, stopping older ones.
    fn start_dump(&self, server_id: u32, connection_id: u32) -> Arc<AtomicBool> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut g = self.dumps.lock();
        for (sid, _, flag) in g.iter() {
            if *sid == server_id && server_id != 0 {
                flag.store(true, Ordering::SeqCst);
            }
        }
        g.retain(|(sid, _, _)| *sid != server_id || server_id == 0);
        g.push((server_id, connection_id, stop.clone()));
        stop
    }

    fn end_dump(&self, connection_id: u32) {
        self.dumps.lock().retain(|(_, c, _)| *c != connection_id);
    }

    /// SHOW REPLICAS / SHOW SLAVE HOSTS rows.
    pub fn rows(&self, mysql_columns: bool) -> Vec<Vec<Value>> {
        let mut g = self.registered.lock().clone();
        g.sort_by_key(|r| r.server_id);
        g.into_iter()
            .map(|r| {
                let mut row = vec![
                    Value::UInt(r.server_id.into()),
                    Value::Str(r.host),
                    Value::UInt(r.port.into()),
                    Value::UInt(r.master_id.into()),
                ];
                if mysql_columns {
                    row.push(Value::Str(r.uuid));
                }
                row
            })
            .collect()
    }
}

/// The columns of SHOW REPLICAS (MySQL 8.0) / SHOW SLAVE HOSTS (MariaDB).
pub fn replica_columns(mysql_columns: bool) -> Vec<ColMeta> {
    let int = |n: &str| ColMeta::expr(n, MetaType::Int { unsigned: true, width: 10 });
    let text = |n: &str| ColMeta::expr(n, MetaType::Str { len: 255, fixed: false });
    if mysql_columns {
        vec![int("Server_Id"), text("Host"), int("Port"), int("Source_Id"), text("Replica_UUID")]
    } else {
        vec![int("Server_id"), text("Host"), int("Port"), int("Master_id")]
    }
}

/// What COM_BINLOG_DUMP asked for.
#[derive(Clone, Debug)]
pub struct DumpCommand {
    pub file: String,
    pub pos: u64,
    pub flags: u16,
    /// The replica's server id (0: a client such as mysqlbinlog).
    pub server_id: u32,
    /// COM_BINLOG_DUMP_GTID: the replica's executed GTIDs, encoded.
    pub gtid_set: Option<Vec<u8>>,
}

/// ER_MASTER_FATAL_ERROR_READING_BINLOG.
pub fn fatal(msg: &str) -> SqlError {
    SqlError::new(1236, "HY000", msg.to_string())
}

impl Session {
    fn user_var_text(&self, name: &str) -> Option<String> {
        match self.user_vars.borrow().get(name)? {
            Value::Null => None,
            v => Some(crate::expr::as_string(v)),
        }
    }

    /// 1227 unless the user holds REPLICATION SLAVE (MySQL 8.0 checks it
    /// for COM_REGISTER_SLAVE and the dump commands).
    pub fn check_replication_slave(&self) -> Result<()> {
        if self.shared.catalog.user(&self.user).is_some_and(|u| u.has_global("REPLICATION SLAVE")) {
            Ok(())
        } else {
            Err(super::show::denied("REPLICATION SLAVE"))
        }
    }

    /// COM_REGISTER_SLAVE.
    pub fn register_replica(&mut self, server_id: u32, host: &str, port: u16, master_id: u32) -> Result<()> {
        self.check_replication_slave()?;
        let uuid = self.user_var_text("replica_uuid").or_else(|| self.user_var_text("slave_uuid")).unwrap_or_default();
        self.shared.replicas.register(Replica {
            connection_id: self.connection_id,
            server_id,
            host: host.to_string(),
            port,
            master_id,
            uuid,
        });
        Ok(())
    }

    /// COM_BINLOG_DUMP: sends the log to `out` until the replica goes, the
    /// connection is killed, or (BINLOG_DUMP_NON_BLOCK) it is caught up.
    /// `Ok(true)`: caught up, the caller sends EOF; `Ok(false)`: stopped
    /// or the connection failed; `Err`: the error to send (1227, 1236).
    pub fn binlog_dump(&mut self, cmd: &DumpCommand, out: &mut dyn DumpOut) -> Result<bool> {
        self.check_replication_slave()?;
        let Some(b) = self.shared.binlog.get().cloned() else {
            // MySQL 8.0 with log_bin off: the sender finds no index.
            return Err(fatal("Binary log is not open"));
        };
        let gtids = match &cmd.gtid_set {
            None => None,
            Some(_) if b.log.gtid_mode() == quire_binlog::GtidMode::Off => {
                return Err(fatal(
                    "The replication sender thread cannot start in AUTO_POSITION mode: this server has GTID_MODE = OFF instead of ON.",
                ));
            }
            Some(bytes) => Some(
                quire_binlog::GtidSet::decode(bytes)
                    .ok_or_else(|| SqlError::new(1773, "HY000", "Malformed GTID set encoding."))?,
            ),
        };
        let replica_checksum = match self.user_var_text("master_binlog_checksum") {
            None => None,
            Some(v) if v.eq_ignore_ascii_case("CRC32") => Some(Checksum::Crc32),
            Some(v) if v.eq_ignore_ascii_case("NONE") => Some(Checksum::None),
            // MySQL's `find_type` finds no algorithm: "undefined", the
            // replica is taken not to know checksums.
            Some(_) => None,
        };
        // Nanoseconds, as the replica sends it.
        let heartbeat = self
            .user_var_text("master_heartbeat_period")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|ns| *ns >= 1.0)
            .map(|ns| Duration::from_nanos(ns.min(u64::MAX as f64) as u64));
        let req = DumpRequest {
            file: cmd.file.clone(),
            pos: cmd.pos,
            // Server id 0 (a client such as mysqlbinlog without
            // --stop-never) never waits either, as in MySQL.
            non_block: cmd.flags & DUMP_NON_BLOCK != 0 || cmd.server_id == 0,
            heartbeat,
            replica_checksum,
            gtids,
        };
        let stop = self.shared.replicas.start_dump(cmd.server_id, self.connection_id);
        // An older dump of this replica, told to stop, leaves now rather
        // than at its next heartbeat (none, with a period of 0).
        if let Some(b) = self.shared.binlog.get() {
            b.log.wake_dumps();
        }
        self.process.begin("Binlog Dump", "");
        self.process.set_state("Source has sent all binlog to replica; waiting for more updates");
        tracing::info!(
            "binlog dump for replica server_id {} from '{}' at {} (connection {})",
            cmd.server_id,
            cmd.file,
            cmd.pos,
            self.connection_id
        );
        let process = self.process.clone();
        let shutdown = self.shared.clone();
        let killed = || process.killed() || shutdown.shutdown_requested();
        let mut guarded = Guarded { out, stop: &stop, killed: &killed };
        let end = quire_binlog::dump::dump(&b.log, &req, &mut guarded);
        self.shared.replicas.end_dump(self.connection_id);
        self.process.idle();
        match end {
            DumpEnd::CaughtUp => Ok(true),
            DumpEnd::Stopped => Ok(false),
            DumpEnd::Io(e) => {
                tracing::info!("binlog dump for replica server_id {} ended: {e}", cmd.server_id);
                Ok(false)
            }
            DumpEnd::Fatal(m) => {
                tracing::warn!("binlog dump for replica server_id {}: {m}", cmd.server_id);
                Err(fatal(&m))
            }
        }
    }
}

/// The connection's output with the dump's stop conditions: a KILL, a
/// newer dump of the same replica (invariant 2), a server shutdown.
struct Guarded<'a> {
    out: &'a mut dyn DumpOut,
    stop: &'a AtomicBool,
    killed: &'a dyn Fn() -> bool,
}

impl DumpOut for Guarded<'_> {
    fn event(&mut self, ev: &[u8]) -> std::io::Result<()> {
        self.out.event(ev)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    fn stopped(&mut self) -> bool {
        self.stop.load(Ordering::SeqCst) || (self.killed)() || self.out.stopped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(conn: u32, sid: u32) -> Replica {
        Replica {
            connection_id: conn,
            server_id: sid,
            host: String::new(),
            port: 3306,
            master_id: 0,
            uuid: String::new(),
        }
    }

    #[test]
    fn a_replica_registered_again_replaces_its_entry_and_goes_with_its_connection() {
        let reps = Replicas::default();
        reps.register(r(1, 2));
        reps.register(r(5, 3));
        reps.register(r(7, 2));
        assert_eq!(reps.rows(false).len(), 2);
        reps.connection_closed(7);
        let rows = reps.rows(false);
        assert_eq!(rows, vec![vec![Value::UInt(3), Value::Str(String::new()), Value::UInt(3306), Value::UInt(0)]]);
    }

    #[test]
    fn a_new_dump_of_a_server_id_stops_the_older_one() {
        let reps = Replicas::default();
        let a = reps.start_dump(2, 1);
        let b = reps.start_dump(3, 4);
        let c = reps.start_dump(2, 9);
        assert!(a.load(Ordering::SeqCst));
        assert!(!b.load(Ordering::SeqCst) && !c.load(Ordering::SeqCst));
    }
}
