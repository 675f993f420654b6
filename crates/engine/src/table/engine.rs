//! The engine: data directory, buffer pool, catalog, tables.
//!
//! Data directory layout:
//! ```text
//! <datadir>/quire_system.qbd      space 0: space header, catalog B+tree
//! <datadir>/<db>/<table>.qbd      one space per table ("db/table" names)
//! ```
//! The system space header's owner area (page 0, bytes 64..128) holds:
//! ```text
//! 64 u32 catalog root page    68 u32 next space id
//! 72 u64 transaction id mark   80 u32 next index id
//! 84 u32 rollback segment page
//! ```
//!
//! <datadir>/quire_redo.log        the redo log
//!
//! Opening runs crash recovery: every space file found under the data
//! directory is identified by its page 0 (which CREATE TABLE writes and
//! syncs before the table is entered in the catalog), then the redo log is
//! replayed from its last checkpoint. A checkpointer thread keeps the log
//! from filling: it writes dirty pages in oldest-modification order and
//! moves the checkpoint; appenders wait (before latching anything) when the
//! log is three quarters full.
//!
//! After redo recovery, the undo logs are examined: transactions left
//! active by a crash are rolled back before the engine is used, and the
//! logs of finished ones go to the history list for purge.
//!
//! DDL is serialised by one mutex.

use std::collections::HashMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, RwLock};
use quire_io::Vfs;

use super::catalog::{self, TableDef};
use super::row_id::SYS_ROW_ID_MARK;
use super::trx::{self, Trx, TxnSys, SYS_TRX_ID_MARK};
use super::{Secondary, Table};
use crate::btree::{BTree, Direction};
use crate::buffer::{BufferPool, PoolConfig};
use crate::config::{EngineConfig, FlushMethod, ShutdownMode};
use crate::dblwr::{Doublewrite, DoublewriteMode};
use crate::ibuf::ChangeBuffer;
use crate::log::recovery::{self, RecoveryReport};
use crate::log::RedoLog;
use crate::page;
use crate::row::{codec, ForeignKeyDef, IndexDef, TableExtras, TableSchema, Value};
use crate::space::{self, files::SpaceFiles};
use crate::txn::rsegs::RollbackSegments;
use crate::txn::undo::{self, BinlogPos, UndoLog};
use crate::txn::Isolation;
use crate::{Error, Lsn, PageId, Result, SYSTEM_SPACE};

mod instant;
mod rebuild;

pub const SYSTEM_FILE: &str = "quire_system.qbd";
pub const REDO_FILE: &str = "quire_redo.log";
/// Where a new log's LSNs start.
const FIRST_LSN: u64 = 8192;
/// A slow shutdown stops waiting for purge after this long without progress.
const SLOW_SHUTDOWN_STALL: std::time::Duration = std::time::Duration::from_secs(60);
const SYS_CATALOG_ROOT: usize = 64;
const SYS_NEXT_SPACE_ID: usize = 68;
const SYS_NEXT_INDEX_ID: usize = 80;
const SYS_RSEG_PAGE: usize = 84;
/// How long a checkpoint waits for the page cleaners' sync flush before
/// writing what is left itself.
const SYNC_FLUSH_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
/// The rollback segment directory (`txn/rsegs.rs`); 0 in a data directory
/// made with one segment.
const SYS_RSEG_DIR: usize = 88;
/// The change buffer's root page (0: not made yet, a data directory from
/// before it existed).
const SYS_IBUF_ROOT: usize = 100;
/// Index id of the catalog B+tree.
const CATALOG_INDEX_ID: u32 = 1;

pub struct Engine {
    cfg: EngineConfig,
    log: Arc<RedoLog>,
    checkpointer: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Wakes the checkpointer early (log filling up, shutdown).
    checkpoint_wake: (Mutex<bool>, Condvar),
    /// What the last open's recovery did.
    recovery: RecoveryReport,
    vfs: Arc<dyn Vfs>,
    pool: Arc<BufferPool>,
    catalog: BTree,
    tables: crate::wait::RwLock<HashMap<String, Arc<Table>>>,
    /// Tables that could not be opened. Using one reports the corruption;
    /// the rest of the server works, and only DROP TABLE touches its file.
    broken: RwLock<HashMap<String, Broken>>,
    ddl: crate::wait::Mutex<()>,
    shut_down: AtomicBool,
    /// `innodb_fast_shutdown` (a [`ShutdownMode`]), settable at runtime.
    shutdown_mode: std::sync::atomic::AtomicU8,
    txn: Arc<TxnSys>,
    purge_workers: Mutex<Vec<std::thread::JoinHandle<()>>>,
    /// Transactions the last open found active and rolled back.
    recovered_rollbacks: std::sync::atomic::AtomicUsize,
    /// Tables opened since startup: at open, and each one created
    /// (`Opened_tables`).
    opened_tables: AtomicU64,
}

/// Where a table that could not be opened is damaged.
struct Broken {
    page: PageId,
    path: PathBuf,
    reason: String,
}

/// `db/table` -> `<datadir>/db/table.qbd`, with characters unsafe in file
/// names written as `@xxxx` (MySQL's file name encoding, simplified).
pub fn table_path(datadir: &Path, name: &str) -> PathBuf {
    let mut p = datadir.to_path_buf();
    let parts: Vec<&str> = name.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let mut enc = String::new();
        for ch in part.chars() {
            if ch.is_ascii_alphanumeric() || ch == '_' || ch == '$' {
                enc.push(ch);
            } else {
                enc.push_str(&format!("@{:04x}", ch as u32));
            }
        }
        if i + 1 == parts.len() {
            enc.push_str(".qbd");
        }
        p.push(enc);
    }
    p
}

impl Engine {
    /// Opens the data directory, creating it on first use.
    pub fn open(mut cfg: EngineConfig, vfs: Arc<dyn Vfs>) -> Result<Arc<Engine>> {
        page::validate_page_size(cfg.page_size)?;
        if cfg.force_recovery > 6 {
            return Err(Error::Config(format!("innodb_force_recovery={} (0..6 allowed)", cfg.force_recovery)));
        }
        if cfg.force_recovery >= 2 {
            // No purge runs, so writers must not wait for it.
            cfg.max_purge_lag = 0;
        }
        if cfg.force_recovery > 0 {
            tracing::warn!(
                "innodb_force_recovery={}: damaged tables open read-only and scans skip damaged pages{}{}",
                cfg.force_recovery,
                if cfg.force_recovery >= 2 { "; purge is off" } else { "" },
                if cfg.force_recovery >= 3 {
                    "; transactions left active are not rolled back and every table is read-only"
                } else {
                    ""
                }
            );
        }
        vfs.create_dir_all(&cfg.datadir).map_err(|e| Error::io(format!("creation of {}", cfg.datadir.display()), e))?;
        let sys_path = cfg.datadir.join(SYSTEM_FILE);
        let fresh = !vfs.exists(&sys_path);
        if !fresh {
            Self::check_page_size(&*vfs, &sys_path, cfg.page_size)?;
        }
        let files = Arc::new(SpaceFiles::new(vfs.clone(), cfg.page_size, cfg.flush_method == FlushMethod::ODirect));
        let lsn = Arc::new(AtomicU64::new(0));
        let pool = Arc::new(BufferPool::new(
            PoolConfig {
                page_size: cfg.page_size,
                size_bytes: cfg.buffer_pool_size,
                instances: cfg.buffer_pool_instances,
                old_blocks_pct: cfg.old_blocks_pct,
                old_blocks_time_ms: cfg.old_blocks_time_ms,
            },
            files.clone(),
            lsn.clone(),
        )?);
        if cfg.doublewrite.mode != DoublewriteMode::Off {
            let d = Doublewrite::open(&vfs, &cfg.datadir, &cfg.doublewrite, cfg.page_size, cfg.buffer_pool_instances)?;
            pool.set_doublewrite(Arc::new(d));
        }
        let redo_path = cfg.datadir.join(REDO_FILE);
        let io = |what: &str, e| Error::io(format!("{what} {}", redo_path.display()), e);
        let mut report = RecoveryReport::default();
        let (log, catalog, rseg) = if fresh {
            let f = vfs.open(&redo_path, &quire_io::OpenOptions::create()).map_err(|e| io("creation of", e))?;
            let log = RedoLog::create(f, &cfg.log, FIRST_LSN)?;
            pool.set_log(log.clone());
            log.start();
            files.open(SYSTEM_SPACE, &sys_path, true)?;
            space::init_space(&pool, SYSTEM_SPACE)?;
            let catalog = BTree::create(&pool, SYSTEM_SPACE, CATALOG_INDEX_ID)?;
            let (rseg, rseg_dir) = RollbackSegments::create(&pool, cfg.rollback_segments)?;
            space::set_owner_fields(
                &pool,
                SYSTEM_SPACE,
                &[
                    (SYS_CATALOG_ROOT, &catalog.root().page_no.to_le_bytes()),
                    (SYS_NEXT_SPACE_ID, &1u32.to_le_bytes()),
                    (SYS_TRX_ID_MARK, &1u64.to_le_bytes()),
                    (SYS_NEXT_INDEX_ID, &(CATALOG_INDEX_ID + 1).to_le_bytes()),
                    (SYS_RSEG_PAGE, &rseg.first_page().to_le_bytes()),
                    (SYS_RSEG_DIR, &rseg_dir.to_le_bytes()),
                    (SYS_ROW_ID_MARK, &1u64.to_le_bytes()),
                ],
            )?;
            pool.flush_all()?;
            log.checkpoint(log.ready_lsn())?;
            tracing::info!("initialised a new data directory at {}", cfg.datadir.display());
            (log, catalog, rseg)
        } else {
            let f = vfs.open(&redo_path, &quire_io::OpenOptions::existing()).map_err(|e| io("open of", e))?;
            let (log, checkpoint) = RedoLog::open(f, &cfg.log)?;
            Self::open_space_files(&*vfs, &files, &cfg.datadir, cfg.page_size)?;
            if let Some(d) = pool.dblwr() {
                let repair = d.repair(&files, checkpoint)?;
                if !repair.repaired.is_empty() {
                    tracing::warn!(
                        "doublewrite: restored {} torn page(s): {:?}",
                        repair.repaired.len(),
                        repair.repaired
                    );
                }
                if !repair.detected.is_empty() {
                    tracing::error!(
                        "doublewrite (DETECT_ONLY): {} torn page(s) cannot be repaired: {:?}",
                        repair.detected.len(),
                        repair.detected
                    );
                }
                report.repaired = repair.repaired;
                report.torn_unrepaired = repair.detected;
            }
            let repaired = std::mem::take(&mut report.repaired);
            let torn = std::mem::take(&mut report.torn_unrepaired);
            report = recovery::recover(&log, &pool, checkpoint)?;
            for space_id in report.damaged.keys() {
                // Half-replayed pages of a damaged table never reach disk;
                // the table is marked corrupt below.
                pool.discard_space(*space_id);
            }
            report.repaired = repaired;
            report.torn_unrepaired = torn;
            log.resume(report.end_lsn);
            pool.set_log(log.clone());
            log.start();
            if report.groups > 0 {
                tracing::info!(
                    "crash recovery: applied {} redo records in {} mini-transactions to {} pages, LSN {} to {}, in {:.3}s",
                    report.records,
                    report.groups,
                    report.pages,
                    report.start_lsn,
                    report.end_lsn,
                    report.elapsed.as_secs_f64()
                );
                pool.flush_all()?;
                log.checkpoint(log.ready_lsn())?;
            }
            space::check_header(&pool, SYSTEM_SPACE)?;
            let root = space::owner_u32(&pool, SYSTEM_SPACE, SYS_CATALOG_ROOT)?;
            let rseg = RollbackSegments::open(
                &pool,
                space::owner_u32(&pool, SYSTEM_SPACE, SYS_RSEG_PAGE)?,
                space::owner_u32(&pool, SYSTEM_SPACE, SYS_RSEG_DIR)?,
            )?;
            (log, BTree::open(&pool, PageId::new(SYSTEM_SPACE, root), CATALOG_INDEX_ID)?, rseg)
        };
        let id_mark = space::owner_u32(&pool, SYSTEM_SPACE, SYS_TRX_ID_MARK)? as u64
            | (space::owner_u32(&pool, SYSTEM_SPACE, SYS_TRX_ID_MARK + 4)? as u64) << 32;
        let row_id_mark = space::owner_u32(&pool, SYSTEM_SPACE, SYS_ROW_ID_MARK)? as u64
            | (space::owner_u32(&pool, SYSTEM_SPACE, SYS_ROW_ID_MARK + 4)? as u64) << 32;
        let ibuf = Self::open_change_buffer(&pool, &cfg)?;
        let txn = Arc::new(TxnSys::new(pool.clone(), log.clone(), rseg, id_mark, row_id_mark, ibuf, &cfg));
        let shutdown_mode = std::sync::atomic::AtomicU8::new(cfg.fast_shutdown as u8);
        let engine = Arc::new(Engine {
            cfg,
            log,
            checkpointer: Mutex::new(None),
            checkpoint_wake: (Mutex::new(false), Condvar::new()),
            recovery: report,
            vfs,
            pool,
            catalog,
            tables: crate::wait::RwLock::new(crate::wait::Instrument::DictTables, HashMap::new()),
            broken: RwLock::new(HashMap::new()),
            ddl: crate::wait::Mutex::new(crate::wait::Instrument::DictSys, ()),
            shut_down: AtomicBool::new(false),
            shutdown_mode,
            txn,
            purge_workers: Mutex::new(Vec::new()),
            recovered_rollbacks: Default::default(),
            opened_tables: AtomicU64::new(0),
        });
        engine.replay_renames()?;
        engine.load_tables()?;
        engine.finish_interrupted_ddl()?;
        engine.recover_transactions()?;
        engine.pool.files().start_write_io(engine.cfg.write_io_threads)?;
        engine.pool.start_lru_flushers()?;
        engine.pool.read_ahead.set_threshold(engine.cfg.read_ahead_threshold);
        engine.pool.read_ahead.set_random(engine.cfg.random_read_ahead);
        engine.pool.adaptive_hash.set_parts(engine.cfg.adaptive_hash_index_parts);
        engine.pool.adaptive_hash.set_enabled(engine.cfg.adaptive_hash_index);
        engine.pool.start_read_ahead(engine.cfg.read_io_threads)?;
        engine.pool.tuning.set(&engine.cfg.flushing);
        engine.pool.start_page_cleaners(engine.cfg.flushing.page_cleaners)?;
        engine.txn.ibuf.start_merger()?;
        let purge_threads = if engine.cfg.force_recovery >= 2 { 0 } else { engine.cfg.purge_threads.max(1) };
        for w in 0..purge_threads {
            let sys = engine.txn.clone();
            let h = std::thread::Builder::new()
                .name(format!("purge-{w}"))
                .spawn(move || {
                    crate::sync::priority::raise_background_priority();
                    super::purge::purge_loop(sys, w)
                })
                .map_err(|e| Error::io("starting purge", e))?;
            engine.purge_workers.lock().push(h);
        }
        let weak = Arc::downgrade(&engine);
        let handle = std::thread::Builder::new()
            .name("checkpointer".into())
            .spawn(move || checkpointer_loop(weak))
            .map_err(|e| Error::io("starting the checkpointer", e))?;
        *engine.checkpointer.lock() = Some(handle);
        Ok(engine)
    }

    /// Opens the change buffer, making its tree first in a data directory
    /// from before it existed.
    fn open_change_buffer(pool: &Arc<BufferPool>, cfg: &EngineConfig) -> Result<Arc<ChangeBuffer>> {
        let mut root = space::owner_u32(pool, SYSTEM_SPACE, SYS_IBUF_ROOT)?;
        if root == 0 {
            root = ChangeBuffer::create(pool)?.page_no;
            space::set_owner_fields(pool, SYSTEM_SPACE, &[(SYS_IBUF_ROOT, &root.to_le_bytes())])?;
        }
        ChangeBuffer::open(pool, PageId::new(SYSTEM_SPACE, root), cfg.change_buffering, cfg.change_buffer_max_size)
    }

    /// Forgets a tablespace being dropped: its buffered changes, then its
    /// cached pages. REQUIRES: nobody uses the space any more.
    fn discard_space(&self, space_id: crate::SpaceId) {
        if let Err(e) = self.txn.ibuf.drop_space(space_id) {
            tracing::warn!("change buffer: the changes buffered for space {space_id} could not be dropped: {e}");
        }
        self.pool.discard_space(space_id);
    }

    /// The change buffer (`innodb_change_buffering`).
    pub fn change_buffer(&self) -> &Arc<ChangeBuffer> {
        &self.txn.ibuf
    }

    /// Registers every space file under the data directory, identified by
    /// the space id in its page 0, for recovery.
    fn open_space_files(vfs: &dyn Vfs, files: &SpaceFiles, datadir: &Path, page_size: usize) -> Result<()> {
        let all = vfs.walk(datadir).map_err(|e| Error::io(format!("listing {}", datadir.display()), e))?;
        for path in all.into_iter().filter(|p| p.extension().is_some_and(|e| e == "qbd")) {
            let f = vfs
                .open(&path, &quire_io::OpenOptions::existing())
                .map_err(|e| Error::io(format!("open of {}", path.display()), e))?;
            let mut p0 = vec![0u8; page_size];
            let id = match f.read_exact_at(&mut p0, 0) {
                Ok(()) if page::check(&p0, page::page_id(&p0)).is_ok() => page::page_id(&p0).space,
                Ok(()) => {
                    // A damaged page 0: if the catalog names this file, the
                    // table is marked corrupt when the catalog is loaded.
                    tracing::warn!(
                        "{}: page 0 fails its check ({}); not used for recovery",
                        path.display(),
                        page::check(&p0, page::page_id(&p0)).expect_err("failed above")
                    );
                    continue;
                }
                Err(_) => {
                    tracing::warn!("ignoring {}: too short to hold a space header", path.display());
                    continue;
                }
            };
            drop(f);
            files.open(id, &path, false)?;
        }
        Ok(())
    }

    /// The redo log.
    pub fn log(&self) -> &Arc<RedoLog> {
        &self.log
    }

    /// What crash recovery did when this engine opened.
    pub fn recovery_report(&self) -> &RecoveryReport {
        &self.recovery
    }

    /// Waits, before any latch is taken, while the redo log is too full
    /// (and wakes the checkpointer). Every write operation starts here.
    pub fn log_free_check(&self) -> Result<()> {
        let limit = self.log.capacity() / 4 * 3;
        if self.log.checkpoint_age() > self.log.capacity() / 2 {
            self.wake_checkpointer();
        }
        self.log.wait_for_log_space(limit)
    }

    fn wake_checkpointer(&self) {
        let (m, c) = &self.checkpoint_wake;
        *m.lock() = true;
        c.notify_one();
    }

    /// Writes dirty pages older than `flush_below` and moves the checkpoint
    /// to the oldest change not yet on disk.
    pub fn checkpoint(&self, flush_below: u64) -> Result<()> {
        let ready = self.log.ready_lsn();
        self.pool.sync_flush(flush_below.min(ready), SYNC_FLUSH_WAIT)?;
        // The target first, then the sync: a page written after the target
        // was taken is still on a flush list at or above it, and every page
        // written before is covered by the sync.
        let target = self.pool.oldest_modification().map_or(ready, |o| o.min(ready));
        self.pool.files().sync_all()?;
        self.log.checkpoint(target)
    }

    /// Refuses a data directory made with another page size, with a clear
    /// message rather than a wall of checksum errors.
    fn check_page_size(vfs: &dyn Vfs, path: &Path, page_size: usize) -> Result<()> {
        let f = vfs
            .open(path, &quire_io::OpenOptions::existing())
            .map_err(|e| Error::io(format!("open of {}", path.display()), e))?;
        let mut hdr = [0u8; 64];
        f.read_exact_at(&mut hdr, 0).map_err(|_| Error::CorruptFile {
            path: path.display().to_string(),
            reason: "too short to hold a space header".into(),
        })?;
        if &hdr[32..40] != space::SPACE_MAGIC {
            return Err(Error::CorruptFile {
                path: path.display().to_string(),
                reason: "not a quire system space".into(),
            });
        }
        let found = page::get_u32(&hdr, 48) as usize;
        if found != page_size {
            return Err(Error::Config(format!(
                "the data directory was created with innodb_page_size={found}, not {page_size}"
            )));
        }
        Ok(())
    }

    fn load_tables(&self) -> Result<()> {
        let mut cursor = self.catalog.range(Bound::Included(b"T"), Bound::Excluded(b"U"), Direction::Forward);
        let mut defs = Vec::new();
        while let Some((k, v)) = cursor.next()? {
            let name = String::from_utf8_lossy(&k[1..]).into_owned();
            let def = catalog::decode(&name, v).ok_or_else(|| {
                Error::corruption(self.catalog.root(), format!("unreadable catalog entry for '{name}'"))
            })?;
            defs.push(def);
        }
        let salvage = self.cfg.force_recovery >= 1;
        for def in defs {
            let name = def.name.clone();
            let space_id = def.space_id;
            // Files are known by the space id in their page 0: a rebuild or
            // rename a crash interrupted may have left the table's file
            // under another name (`rebuild.rs`).
            let path = match self.pool.files().get(space_id) {
                Ok(f) => f.path.clone(),
                Err(_) => table_path(&self.cfg.datadir, &def.name),
            };
            let opened = (|| {
                if let Some((page, reason)) = self.recovery.damaged.get(&space_id) {
                    return Err(Error::corruption(*page, format!("{reason} (its redo could not be replayed)")));
                }
                self.pool.files().open(def.space_id, &path, false)?;
                space::check_header(&self.pool, def.space_id)?;
                self.open_table(def.clone(), salvage)
            })();
            let e = match opened {
                Ok(table) => {
                    table.set_read_only(self.cfg.force_recovery >= 3);
                    self.register_table(name, table);
                    continue;
                }
                Err(e) => e,
            };
            let (page, reason) = match e {
                Error::Corruption { page, reason } => {
                    (page, reason.replace(&format!(" in file {}", path.display()), ""))
                }
                other => (PageId::new(space_id, 0), other.to_string()),
            };
            tracing::error!("table '{name}' is corrupt: page {} of {}: {reason}", page.page_no, path.display());
            if salvage && self.pool.files().get(space_id).is_ok() {
                // innodb_force_recovery: read what is readable, change nothing.
                match self.open_table(def, true) {
                    Ok(table) => {
                        tracing::warn!("innodb_force_recovery: table '{name}' opened read-only despite the damage");
                        table.set_read_only(true);
                        self.register_table(name, table);
                        continue;
                    }
                    Err(e) => tracing::error!("innodb_force_recovery: table '{name}' cannot be read at all: {e}"),
                }
            }
            self.broken.write().insert(name, Broken { page, path, reason });
        }
        Ok(())
    }

    fn register_table(&self, name: String, table: Table) {
        let t = Arc::new(table);
        self.txn.register(&t);
        self.tables.write().insert(name, t);
        self.opened_tables.fetch_add(1, Ordering::Relaxed);
    }

    /// Opens a table's trees. With `salvage` (innodb_force_recovery) its
    /// scans skip damaged pages, and an unreadable AUTO_INCREMENT maximum
    /// is not fatal.
    fn open_table(&self, def: TableDef, salvage: bool) -> Result<Table> {
        let open = |root: u32, id: u32| -> Result<BTree> {
            let t = BTree::open(&self.pool, PageId::new(def.space_id, root), id)?;
            Ok(if salvage { t.salvaging() } else { t })
        };
        let clustered = open(def.clustered.0, def.clustered.1)?;
        let secondary = def
            .secondary
            .iter()
            .map(|&(root, id)| Ok(Secondary { tree: open(root, id)?, users: Default::default() }))
            .collect::<Result<Vec<_>>>()?;
        let auto_inc = match Self::recover_auto_inc(&def, &clustered, None) {
            Ok(v) => v,
            Err(e) if salvage => {
                tracing::warn!("table '{}': AUTO_INCREMENT not recovered: {e}", def.name);
                1
            }
            Err(e) => return Err(e),
        };
        Ok(Table::new(def, clustered, secondary, auto_inc, self.txn.clone()))
    }

    /// Rolls back the transactions a crash left active and hands the undo
    /// logs of finished ones to purge.
    fn recover_transactions(&self) -> Result<()> {
        let pool = &self.pool;
        let mut rolled_back = 0;
        for info in self.txn.rseg.logs(pool)? {
            if info.state == undo::STATE_CACHED {
                self.txn.rseg.recache(&info);
                continue;
            }
            if info.state != undo::STATE_ACTIVE {
                self.txn.trx_sys.adopt(info.trx);
                self.txn.trx_sys.end_into_history(info.trx);
                self.txn.history.push(info);
                continue;
            }
            self.txn.trx_sys.adopt(info.trx);
            if self.cfg.force_recovery >= 3 {
                // SRV_FORCE_NO_TRX_UNDO: its changes stay, invisible to
                // consistent reads; a later normal start rolls it back.
                tracing::warn!("innodb_force_recovery: transaction {} left active, not rolled back", info.trx);
                continue;
            }
            let log = UndoLog::reopen(pool, &info)?;
            let records = log.records_backward(pool)?;
            for (ptr, _) in &records {
                trx::undo_one(&self.txn, info.trx, *ptr)?;
            }
            self.txn.rseg.finish(pool, &log, info.trx, undo::STATE_ROLLED_BACK, None)?;
            self.txn.trx_sys.end_into_history(info.trx);
            self.txn.history.push(log.info(undo::STATE_ROLLED_BACK));
            rolled_back += 1;
            tracing::info!("rolled back transaction {} ({} changes) left active by a crash", info.trx, records.len());
        }
        if rolled_back > 0 {
            self.log.flush_up_to(self.log.current_lsn())?;
        }
        self.recovered_rollbacks.store(rolled_back, Ordering::Relaxed);
        Ok(())
    }

    /// How many tables have been opened since startup (`Opened_tables`):
    /// every table stays open until it is dropped, so this grows only with
    /// the tables found at startup and those created since (temporary
    /// ones included, as MySQL counts them).
    pub fn opened_tables(&self) -> u64 {
        self.opened_tables.load(Ordering::Relaxed)
    }

    /// How many transactions a crash had left active, rolled back when this
    /// engine opened.
    pub fn recovered_rollbacks(&self) -> usize {
        self.recovered_rollbacks.load(Ordering::Relaxed)
    }

    /// The binary log position of the last commit that recorded one (the
    /// highest over the rollback segments, `txn/undo.rs`), as recovery
    /// left it; `None` when no commit recorded one (the log was off at
    /// the last start, or this data directory predates the field).
    pub fn binlog_position(&self) -> Result<Option<BinlogPos>> {
        self.txn.rseg.binlog_position(&self.pool)
    }

    /// Whether every rollback segment can record a binary log position.
    pub fn records_binlog_position(&self) -> bool {
        self.txn.rseg.records_binlog()
    }

    /// Records binary log position `pos` outside any transaction (a new
    /// log file at startup, a DDL statement logged after its commit), or
    /// clears every recorded one (`None`: a start with the log off), and
    /// waits until that is durable.
    pub fn set_binlog_position(&self, pos: Option<BinlogPos>) -> Result<()> {
        let lsn = self.txn.rseg.set_binlog_position(&self.pool, pos)?;
        if lsn == 0 {
            return Ok(());
        }
        self.log.flush_up_to(lsn)
    }

    /// As `set_binlog_position(Some(pos))`, but returns the LSN for the
    /// caller to make durable (as `Trx::wait_durable`) outside its commit
    /// order.
    pub fn record_binlog_position(&self, pos: BinlogPos) -> Result<Lsn> {
        self.txn.rseg.set_binlog_position(&self.pool, Some(pos))
    }

    /// Waits until `lsn` is as durable as `innodb_flush_log_at_trx_commit`
    /// asks.
    pub fn wait_durable(&self, lsn: Lsn) -> Result<()> {
        if lsn == 0 {
            return Ok(());
        }
        self.log.commit(lsn)
    }

    /// Starts a transaction.
    pub fn begin(&self, isolation: Isolation) -> Trx {
        Trx::new(self.txn.clone(), isolation)
    }

    /// The transaction system (locks, views, history).
    pub fn txn(&self) -> &Arc<TxnSys> {
        &self.txn
    }

    /// Pauses purge: its workers take no more undo logs, and this returns
    /// once none holds a batch, so the history list and its purgeable
    /// count change only by commits and read views until
    /// [`Engine::resume_purge`]. For tests that must see the history
    /// before purge does (InnoDB's debug `innodb_purge_stop_now`).
    /// Writers beyond `innodb_max_purge_lag` still wait, up to their delay.
    pub fn pause_purge(&self) {
        self.txn.history.pause();
    }

    /// Lets purge run again (`innodb_purge_run_now`).
    pub fn resume_purge(&self) {
        self.txn.history.resume();
    }

    /// The next AUTO_INCREMENT value: one past the largest value stored,
    /// in a delete-marked row too unless `committed` says its delete is
    /// committed (a row purge has not yet removed must not hold the
    /// counter up: InnoDB's `row_search_max_autoinc` skips delete-marked
    /// rows). At open every row counts: one deleted by a transaction that
    /// recovery is about to roll back comes back. `committed`: the next
    /// transaction id and the active ones, taken in that order before the
    /// scan (a delete by a transaction still active, or begun since, may
    /// be rolled back: it counts).
    fn recover_auto_inc(
        def: &TableDef,
        clustered: &BTree,
        committed: Option<(crate::txn::TrxId, &std::collections::HashSet<crate::txn::TrxId>)>,
    ) -> Result<u64> {
        let schema = &def.schema;
        let Some(ai) = schema.columns.iter().position(|c| c.auto_increment) else { return Ok(1) };
        let as_u64 = |v: &Value| match v {
            Value::Int(i) if *i > 0 => *i as u64,
            Value::UInt(u) => *u,
            _ => 0,
        };
        let mut max = 0u64;
        // When it leads the primary key the largest value is in the last row.
        let dir = if schema.primary_key.first() == Some(&ai) { Direction::Backward } else { Direction::Forward };
        let mut c = clustered.range(Bound::Unbounded, Bound::Unbounded, dir);
        while let Some((_, v)) = c.next()? {
            let split = crate::txn::record::RecHeader::split(v);
            let gone = |h: &crate::txn::record::RecHeader| {
                committed.is_some_and(|(next, active)| h.deleted && h.trx < next && !active.contains(&h.trx))
            };
            if split.as_ref().is_some_and(|(h, _)| gone(h)) {
                continue;
            }
            let row = split.and_then(|(_, r)| codec::decode_row(schema, r));
            let row = row.ok_or_else(|| {
                Error::corruption(clustered.root(), "undecodable row while recovering AUTO_INCREMENT")
            })?;
            max = max.max(as_u64(&row[ai]));
            if dir == Direction::Backward {
                break;
            }
        }
        Ok((max + 1).max(def.extras.auto_increment_start))
    }

    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    /// Syncs of every file of the engine: data files, doublewrite files,
    /// redo log.
    pub fn fsyncs(&self) -> crate::fsyncs::FsyncTotals {
        let log = &self.log.file().fsyncs;
        let data = &self.pool.files().fsyncs;
        let (dblwr_done, dblwr_pending) =
            self.pool.dblwr().map_or((0, 0), |d| (d.stats.fsyncs.done(), d.stats.fsyncs.pending()));
        crate::fsyncs::FsyncTotals {
            done: log.done() + data.done() + dblwr_done,
            pending: log.pending() + data.pending() + dblwr_pending,
            log_pending: log.pending(),
        }
    }

    pub fn vfs(&self) -> &Arc<dyn Vfs> {
        &self.vfs
    }

    fn check_open(&self) -> Result<()> {
        if self.shut_down.load(Ordering::Acquire) {
            Err(Error::Shutdown)
        } else {
            Ok(())
        }
    }

    /// DDL is refused while `innodb_force_recovery` >= 3 made the server
    /// read-only.
    fn check_ddl_allowed(&self, name: &str) -> Result<()> {
        self.check_open()?;
        if self.cfg.force_recovery >= 3 {
            return Err(Error::ReadOnly(name.to_string()));
        }
        Ok(())
    }

    fn next_counter(&self, off: usize, n: u32) -> Result<u32> {
        let cur = space::owner_u32(&self.pool, SYSTEM_SPACE, off)?;
        space::set_owner_fields(&self.pool, SYSTEM_SPACE, &[(off, &(cur + n).to_le_bytes())])?;
        Ok(cur)
    }

    /// Creates a table. `name` is `db/table` (or just `table`).
    pub fn create_table(&self, name: &str, schema: TableSchema) -> Result<Arc<Table>> {
        self.create_table_with_foreign_keys(name, schema, Vec::new())
    }

    /// Creates a table whose definition holds `foreign_keys` (kept, not
    /// checked: the SQL layer validates and enforces them). The
    /// definition, keys included, enters the catalog in one write.
    pub fn create_table_with_foreign_keys(
        &self,
        name: &str,
        schema: TableSchema,
        foreign_keys: Vec<ForeignKeyDef>,
    ) -> Result<Arc<Table>> {
        self.create_table_with_extras(name, schema, foreign_keys, TableExtras::default())
    }

    /// Creates a table whose definition also holds `extras` (CHECK
    /// constraints, COMMENTs, AUTO_INCREMENT start: kept for the SQL layer;
    /// the counter starts at `extras.auto_increment_start` if above 1).
    pub fn create_table_with_extras(
        &self,
        name: &str,
        schema: TableSchema,
        foreign_keys: Vec<ForeignKeyDef>,
        extras: TableExtras,
    ) -> Result<Arc<Table>> {
        self.check_ddl_allowed(name)?;
        let _ddl = self.ddl.lock();
        // A new table's rows are all written whole (CREATE TABLE ... LIKE
        // copies a definition that may have instant columns).
        let mut schema = schema;
        crate::row::instant::clear(&mut schema);
        if name.is_empty() || name.split('/').any(|p| p.is_empty()) {
            return Err(Error::InvalidSchema(format!("invalid table name '{name}'")));
        }
        schema.validate(self.cfg.page_size)?;
        // A damaged table still owns its name and its file.
        if self.tables.read().contains_key(name) || self.broken.read().contains_key(name) {
            return Err(Error::TableExists(name.to_string()));
        }
        let space_id = self.next_counter(SYS_NEXT_SPACE_ID, 1)?;
        let first_index = self.next_counter(SYS_NEXT_INDEX_ID, 1 + schema.indexes.len() as u32)?;
        let path = table_path(&self.cfg.datadir, name);
        if let Some(dir) = path.parent() {
            self.vfs.create_dir_all(dir).map_err(|e| Error::io(format!("creation of {}", dir.display()), e))?;
        }
        if self.vfs.exists(&path) {
            // Not in the catalog (a creation a crash interrupted, or a file
            // put there by hand): nothing is deleted without DROP TABLE, so
            // it is moved aside, where the next start ignores it.
            let aside = (1..).map(|n| path.with_extension(format!("qbd.orphan-{n}"))).find(|p| !self.vfs.exists(p));
            let aside = aside.expect("an unused name");
            tracing::warn!("moving {} (not in the catalog) aside to {}", path.display(), aside.display());
            self.vfs.rename(&path, &aside).map_err(|e| Error::io(format!("rename of {}", path.display()), e))?;
        }
        self.pool.files().open(space_id, &path, true)?;
        let build = || -> Result<Table> {
            space::init_space(&self.pool, space_id)?;
            let clustered = BTree::create(&self.pool, space_id, first_index)?;
            let mut secondary = Vec::new();
            let mut roots = Vec::new();
            for i in 0..schema.indexes.len() as u32 {
                let t = BTree::create(&self.pool, space_id, first_index + 1 + i)?;
                roots.push((t.root().page_no, t.index_id()));
                secondary.push(Secondary { tree: t, users: Default::default() });
            }
            let def = TableDef {
                name: name.to_string(),
                space_id,
                schema: schema.clone(),
                clustered: (clustered.root().page_no, first_index),
                secondary: roots,
                foreign_keys: foreign_keys.clone(),
                extras: extras.clone(),
            };
            // The space's first pages reach disk before the catalog names
            // it, so that recovery can always identify the file.
            self.pool.flush_space(space_id)?;
            self.catalog.insert(&catalog::table_key(name), &catalog::encode(&def))?;
            self.log.flush_up_to(crate::mtr::last_commit_lsn())?; // DDL is durable in every commit mode
            let auto_inc = def.extras.auto_increment_start.max(1);
            Ok(Table::new(def, clustered, secondary, auto_inc, self.txn.clone()))
        };
        match build() {
            Ok(t) => {
                let t = Arc::new(t);
                self.txn.register(&t);
                self.tables.write().insert(name.to_string(), t.clone());
                self.opened_tables.fetch_add(1, Ordering::Relaxed);
                Ok(t)
            }
            Err(e) => {
                let _ = self.catalog.remove(&catalog::table_key(name));
                self.discard_space(space_id);
                let _ = self.pool.files().remove(space_id);
                Err(e)
            }
        }
    }

    /// Drops a table and deletes its file. REQUIRES: nobody is using it.
    pub fn drop_table(&self, name: &str) -> Result<()> {
        self.check_ddl_allowed(name)?;
        let _ddl = self.ddl.lock();
        let open = self.tables.read().get(name).cloned();
        if let Some(t) = &open {
            // Open cursors finish (and learn of the drop) first.
            t.users.drop_and_wait(&format!("table '{name}'"))?;
        }
        let space_id = match self.tables.write().remove(name) {
            Some(t) => t.space_id(),
            None => {
                self.broken.write().remove(name).ok_or_else(|| Error::NoSuchTable(name.to_string()))?;
                let b = self
                    .catalog
                    .range(Bound::Included(&catalog::table_key(name)), Bound::Unbounded, Direction::Forward)
                    .collect_all()?;
                match b
                    .first()
                    .and_then(|(k, v)| (k == &catalog::table_key(name)).then(|| catalog::decode(name, v)).flatten())
                {
                    Some(def) => def.space_id,
                    None => return Err(Error::NoSuchTable(name.to_string())),
                }
            }
        };
        self.catalog.remove(&catalog::table_key(name))?;
        self.txn.unregister(space_id);
        // Durable before the file goes: recovery must not meet a catalog
        // entry whose file is gone.
        self.log.flush_up_to(crate::mtr::last_commit_lsn())?;
        self.discard_space(space_id);
        self.pool.files().remove(space_id)?;
        Ok(())
    }

    pub fn table(&self, name: &str) -> Result<Arc<Table>> {
        if let Some(t) = self.tables.read().get(name) {
            return Ok(t.clone());
        }
        match self.broken.read().get(name) {
            Some(b) => Err(Error::TableCorrupt {
                table: name.to_string(),
                path: b.path.display().to_string(),
                page: b.page,
                reason: b.reason.clone(),
            }),
            None => Err(Error::NoSuchTable(name.to_string())),
        }
    }

    /// Every table in the catalog, damaged ones included, once each.
    pub fn table_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.tables.read().keys().cloned().collect();
        v.extend(self.broken.read().keys().cloned());
        v.sort();
        v.dedup();
        v
    }

    /// The file of a space, if it is open (for messages naming it).
    pub fn space_path(&self, space: u32) -> Option<PathBuf> {
        self.pool.files().get(space).ok().map(|f| f.path.clone())
    }

    /// Adds a secondary index to a table that may already hold rows.
    pub fn create_index(&self, table: &str, index: IndexDef) -> Result<()> {
        self.check_ddl_allowed(table)?;
        let _ddl = self.ddl.lock();
        let t = self.table(table)?;
        let mut st = t.state().write();
        let mut schema = st.def.schema.clone();
        schema.indexes.push(index.clone());
        schema.validate(self.cfg.page_size)?;
        let ix = schema.indexes.len() - 1;
        let id = self.next_counter(SYS_NEXT_INDEX_ID, 1)?;
        let tree = BTree::create(&self.pool, st.def.space_id, id)?;
        // Populate from the clustered index; writers are held off by the
        // exclusive state latch. Entries are gathered in clustered order
        // and inserted in key order, a run of at most SORT_RUN bytes at a
        // time: sorted, the insertions walk the leaves in turn instead of
        // jumping across the tree (InnoDB sorts the whole index and builds
        // it bottom-up; sorted runs keep most of the gain without a merge).
        const SORT_RUN: usize = 64 << 20;
        let fill = || -> Result<()> {
            let mut run: Vec<IndexEntry> = Vec::new();
            let mut bytes = 0;
            let mut c = t.clustered().range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
            while let Some((pk, v)) = c.next()? {
                // Every record gets its entry, delete-marked ones too (purge
                // removes those with the record). Views older than the
                // index may miss older versions through it.
                let (h, row) = crate::txn::record::RecHeader::split(v)
                    .ok_or_else(|| Error::corruption(t.clustered().root(), "bad record header"))?;
                let row = codec::decode_row(&schema, row)
                    .ok_or_else(|| Error::corruption(t.clustered().root(), "undecodable row"))?;
                let (key, prefix) = Table::sec_key(&schema, ix, &row, pk);
                // A live row of a UNIQUE index without NULLs must not meet
                // another entry of its key.
                let unique = (!h.deleted && index.unique && !index.columns.iter().any(|&c| row[c].is_null()))
                    .then(|| Table::describe_key(&index.columns, &row));
                bytes += key.len() + 32;
                run.push(IndexEntry { key, prefix, unique });
                if bytes >= SORT_RUN {
                    insert_sorted(&tree, &index.name, &mut run)?;
                    bytes = 0;
                }
            }
            insert_sorted(&tree, &index.name, &mut run)
        };
        if let Err(e) = fill() {
            let _ = tree.destroy();
            return Err(e);
        }
        let mut def = st.def.clone();
        def.schema = schema;
        def.secondary.push((tree.root().page_no, id));
        self.catalog.update(&catalog::table_key(table), &catalog::encode(&def))?;
        self.log.flush_up_to(crate::mtr::last_commit_lsn())?; // DDL is durable in every commit mode
        st.def = def;
        st.secondary.push(Secondary { tree, users: Default::default() });
        Ok(())
    }

    /// Replaces a table's FOREIGN KEYs (ALTER TABLE ADD / DROP FOREIGN
    /// KEY): one catalog write, durable before this returns.
    pub fn set_foreign_keys(&self, table: &str, foreign_keys: Vec<ForeignKeyDef>) -> Result<()> {
        self.update_def(table, |_, def| {
            def.foreign_keys = foreign_keys;
            Ok(())
        })
    }

    /// Stores the table's SQL-side extras (CHECK constraints, COMMENTs,
    /// the AUTO_INCREMENT start) in its catalog entry, durably. With
    /// `reset_auto_inc` the counter becomes what a restart would make it:
    /// max(largest stored value + 1, the start) — `ALTER TABLE t
    /// AUTO_INCREMENT = n` as MySQL and MariaDB's InnoDB set it. DML on the
    /// table waits meanwhile (the state latch is held exclusively).
    pub fn set_extras(&self, table: &str, extras: TableExtras, reset_auto_inc: bool) -> Result<()> {
        self.update_def(table, |t, def| {
            def.extras = extras;
            if reset_auto_inc {
                let next_trx = self.txn.trx_sys.next_id();
                let active = self.txn.trx_sys.active_list().into_iter().map(|(id, _)| id).collect();
                let next = Self::recover_auto_inc(def, t.clustered(), Some((next_trx, &active)))?;
                t.auto_inc.store(next, Ordering::Release);
            }
            Ok(())
        })
    }

    /// A catalog-only DDL: `change` edits a copy of the table's definition
    /// (and may touch the table's counters), the copy is written to the
    /// catalog durably, then it replaces the live one. DML on the table
    /// waits meanwhile (the state latch is held exclusively).
    fn update_def(&self, table: &str, change: impl FnOnce(&Table, &mut TableDef) -> Result<()>) -> Result<()> {
        self.check_ddl_allowed(table)?;
        let _ddl = self.ddl.lock();
        let t = self.table(table)?;
        let mut st = t.state().write();
        let mut def = st.def.clone();
        change(&t, &mut def)?;
        self.catalog.update(&catalog::table_key(table), &catalog::encode(&def))?;
        self.log.flush_up_to(crate::mtr::last_commit_lsn())?; // DDL is durable in every commit mode
        st.def = def;
        Ok(())
    }

    /// Removes a secondary index and frees its pages.
    pub fn drop_index(&self, table: &str, index: &str) -> Result<()> {
        self.check_ddl_allowed(table)?;
        let _ddl = self.ddl.lock();
        let t = self.table(table)?;
        let mut st = t.state().write();
        let ix = st
            .def
            .schema
            .indexes
            .iter()
            .position(|i| i.name.eq_ignore_ascii_case(index))
            .ok_or_else(|| Error::NoSuchIndex(index.to_string()))?;
        st.secondary[ix].users.drop_and_wait(&format!("index '{index}'"))?;
        let mut def = st.def.clone();
        def.schema.indexes.remove(ix);
        def.secondary.remove(ix);
        self.catalog.update(&catalog::table_key(table), &catalog::encode(&def))?;
        let sec = st.secondary.remove(ix);
        st.def = def;
        sec.tree.destroy()?;
        self.log.flush_up_to(crate::mtr::last_commit_lsn())?; // DDL is durable in every commit mode
        Ok(())
    }

    /// `innodb_fast_shutdown` from now on.
    pub fn set_shutdown_mode(&self, mode: ShutdownMode) {
        self.shutdown_mode.store(mode as u8, Ordering::Relaxed);
    }

    pub fn shutdown_mode(&self) -> ShutdownMode {
        ShutdownMode::from_u64(self.shutdown_mode.load(Ordering::Relaxed) as u64).unwrap_or(ShutdownMode::Fast)
    }

    /// Shuts down as `innodb_fast_shutdown` says ([`ShutdownMode`]): by
    /// default writes every dirty page, records the LSN and syncs, so the
    /// next open finds everything on disk. Idempotent.
    pub fn shutdown(&self) -> Result<()> {
        let _ddl = self.ddl.lock();
        if self.shut_down.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let mode = self.shutdown_mode();
        if mode == ShutdownMode::Slow && !self.purge_workers.lock().is_empty() {
            self.txn.history.wait_purged(SLOW_SHUTDOWN_STALL);
        }
        self.txn.shutting_down.store(true, Ordering::Release);
        self.txn.history.wake_all();
        for h in self.purge_workers.lock().drain(..) {
            let _ = h.join();
        }
        if mode == ShutdownMode::Slow {
            // After purge: its removals may have been buffered.
            if let Err(e) = self.txn.ibuf.merge_all() {
                tracing::warn!("slow shutdown: merging the change buffer failed: {e}");
            }
        }
        self.txn.ibuf.stop_merger();
        self.txn.clear_tables();
        self.wake_checkpointer();
        if let Some(h) = self.checkpointer.lock().take() {
            // The checkpointer itself may hold the last reference (it
            // upgrades its weak one each round): it then ends on its own.
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        self.pool.stop_read_ahead();
        self.pool.stop_page_cleaners();
        self.pool.stop_lru_flushers();
        let flushed = match mode {
            // The log alone (written and synced by `log.shutdown` below)
            // holds what the pages lack: the next open replays it.
            ShutdownMode::Cold => Ok(()),
            _ => (|| {
                self.pool.flush_all()?;
                self.log.checkpoint(self.log.ready_lsn())
            })(),
        };
        self.pool.files().stop_write_io();
        // The log threads stop whatever happened above.
        let stopped = self.log.shutdown();
        flushed?;
        stopped?;
        match mode {
            ShutdownMode::Cold => tracing::info!(
                "shut down with innodb_fast_shutdown = 2 at LSN {}: the next start recovers from the log",
                self.log.current_lsn()
            ),
            _ => tracing::info!("shut down cleanly at LSN {}", self.log.current_lsn()),
        }
        Ok(())
    }
}

/// A secondary index entry made by CREATE INDEX; `unique` describes the
/// row's key when it must be checked against the others.
struct IndexEntry {
    key: Vec<u8>,
    prefix: u16,
    unique: Option<String>,
}

/// Inserts a run of entries in key order (and empties it).
fn insert_sorted(tree: &BTree, index: &str, run: &mut Vec<IndexEntry>) -> Result<()> {
    run.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    for e in run.drain(..) {
        if let Some(described) = e.unique {
            let sec = &e.key[..e.prefix as usize];
            let mut probe = tree.range(Bound::Included(sec), Bound::Unbounded, Direction::Forward);
            if let Some((found, _)) = probe.next()? {
                if found.starts_with(sec) {
                    return Err(Error::DuplicateKey { index: index.to_string(), key: described });
                }
            }
        }
        tree.insert(&e.key, &e.prefix.to_le_bytes())?;
    }
    Ok(())
}

impl Drop for Engine {
    /// An engine dropped without `shutdown` shuts down now, as cleanly as
    /// it can (after a simulated crash its files refuse every write, so this
    /// changes nothing on disk).
    fn drop(&mut self) {
        if !self.shut_down.load(Ordering::Acquire) {
            if let Err(e) = self.shutdown() {
                tracing::warn!("shutdown on drop failed: {e}");
            }
        }
    }
}

/// The checkpointer: every 100 ms, or when woken, if the log is past half
/// full it writes the oldest dirty pages so that a quarter of the log stays
/// between the checkpoint and the head; every second it moves the
/// checkpoint to the oldest change not yet on disk (a fuzzy checkpoint).
fn checkpointer_loop(engine: std::sync::Weak<Engine>) {
    let mut last = std::time::Instant::now();
    loop {
        let Some(e) = engine.upgrade() else { return };
        {
            let (m, c) = &e.checkpoint_wake;
            let mut woken = m.lock();
            if !*woken {
                c.wait_for(&mut woken, std::time::Duration::from_millis(100));
            }
            *woken = false;
        }
        if e.shut_down.load(Ordering::Acquire) {
            return;
        }
        let cap = e.log.capacity();
        let age = e.log.checkpoint_age();
        let res = if age > cap / 2 {
            let head = e.log.current_lsn();
            e.checkpoint(head.saturating_sub(cap / 4))
        } else if last.elapsed() >= std::time::Duration::from_secs(1) {
            last = std::time::Instant::now();
            e.checkpoint(0)
        } else {
            Ok(())
        };
        if let Err(err) = res {
            tracing::error!("checkpoint failed: {err}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}
