//! What the binary log's integration tests share: a log's options in a
//! directory, and a small transaction's events.
#![allow(dead_code)] // each test file uses its own part

use std::path::Path;

use quire_binlog::event::Checksum;
use quire_binlog::{BinLog, Events, Options, Position, QueryEvent};

/// A log named `binlog` in `dir`, synced at every group, never rotating.
pub fn opts(dir: &Path, checksum: Checksum) -> Options {
    Options {
        dir: dir.to_path_buf(),
        basename: "binlog".into(),
        index: dir.join("binlog.index"),
        server_id: 1,
        checksum,
        sync_binlog: 1,
        max_size: 1 << 30,
        expire_secs: 0,
        server_uuid: quire_binlog::Uuid([0x11; 16]),
        gtid_mode: quire_binlog::GtidMode::Off,
    }
}

/// BEGIN, `sql`, XID: one transaction's events.
pub fn body(log: &BinLog, sql: &str) -> Events {
    let f = log.frame();
    let mut ev = Events::default();
    ev.query(&f, &QueryEvent { thread_id: 1, db: "d", sql: "BEGIN", flags2: 0, sql_mode: 0, charset: [45; 3] });
    ev.query(&f, &QueryEvent { thread_id: 1, db: "d", sql, flags2: 0, sql_mode: 0, charset: [45; 3] });
    ev.xid(&f, 7);
    ev
}

/// [`body`] committed: its end in the log.
pub fn trx(log: &BinLog, sql: &str) -> Position {
    log.commit(body(log, sql)).unwrap()
}
