//! The binary log: its files and index, and group commit.
//!
//! Files are `<basename>.NNNNNN` (from 000001) in the log's directory,
//! listed one per line (`./binlog.000001`) in `<basename>.index`. Each
//! file starts with the magic, a FORMAT_DESCRIPTION (IN_USE set while the
//! file is open, cleared when it is closed) and a PREVIOUS_GTIDS holding
//! `gtid_executed` at the file's creation.
//! A server start opens a new file, as MySQL does; the previous last file
//! is first checked event by event and cut after its last whole
//! transaction (a crash may have torn it).
//!
//! **Group commit** (MySQL's flush and sync stages, built like the redo
//! log's): a committer appends its transaction to the pending buffer
//! under the mutex, which gives it its file and position; then the first
//! committer that finds no leader becomes leader, takes every pending
//! transaction, writes them with the mutex released and syncs as
//! `sync_binlog` asks (0: never; N: every N groups); committers that
//! arrived meanwhile wait and are carried by the next leader. A
//! transaction's `commit` returns once its bytes are written (and synced
//! if this group syncs), so the engine commits only what the log holds;
//! `commit_ordered` then runs the engine's commit in log order
//! (`order.rs`: one runner commits the queued transactions one after the
//! other, not a turn passed from thread to thread), so that the position the engine records with it names a
//! prefix of the log, to which `open_after` cuts the log after a crash
//! (`reconcile.rs`).
//!
//! **GTIDs**: a transaction's GTID (automatic with `gtid_mode` ON or
//! ON_PERMISSIVE, or given by the session) is chosen and added to
//! `gtid_executed` in `append`, under the mutex that places its bytes:
//! numbers follow log order. At open both sets are read back from the
//! files after the cuts (`gtid_files.rs`).
//!
//! **Rotation** at `max_binlog_size` or FLUSH BINARY LOGS happens at
//! append time under the mutex: a ROTATE closes the old file in the
//! pending buffer and the next file is created at once (its header
//! written, not synced). The index names the next file only once the
//! old file's last bytes (its ROTATE) are written, and synced when that
//! group syncs: the next file's PREVIOUS_GTIDS names every GTID of the
//! old file, so a crash must not leave it indexed after an old file
//! whose tail was lost (the unindexed file, holding only its header, is
//! removed at the next open). The old file's final sync and the
//! clearing of its IN_USE flag run on a thread of their own, so the
//! commit path never waits for a whole file's sync (seed 004's stall).
//!
//! Invariants:
//! 1. Pending segments are written in append order; `written_ticket`
//!    only grows, and every transaction with a ticket at or below it is
//!    in its file (synced if `sync_binlog` asked).
//! 2. At most one leader writes at a time (`leader` under the mutex).
//! 3. After a write or sync error the log refuses every commit (MySQL's
//!    `binlog_error_action=ABORT_SERVER` stops the server; quire stops
//!    logging and fails the commits with 1598 instead).
//! 4. The index file lists a file only after every earlier file's bytes
//!    are written (`index` is what it lists; `State::files` may be
//!    ahead of it by the files whose predecessors' tails are pending).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::{Condvar, Mutex};

use quire_engine::wait::{file_io, FileOp, Instrument};

use crate::event::{self, Checksum, Events, Frame, LogicalClock, FLAGS_OFFSET, FLAG_IN_USE, MAGIC};
use crate::follow::{pack, Follow};
use crate::gtid::{Gtid, GtidSet, Uuid};
use crate::order::Order;

/// What opening the log needs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Directory of the files (the datadir, or where `log_bin` points).
    pub dir: PathBuf,
    /// `log_bin_basename`'s last part (`binlog`).
    pub basename: String,
    /// `log_bin_index` (absolute).
    pub index: PathBuf,
    pub server_id: u32,
    pub checksum: Checksum,
    pub sync_binlog: u64,
    pub max_size: u64,
    /// `binlog_expire_logs_seconds` (0: never).
    pub expire_secs: u64,
    /// `server_uuid`: the UUID of the GTIDs this server generates.
    pub server_uuid: Uuid,
    /// `gtid_mode` at open.
    pub gtid_mode: GtidMode,
}

/// `gtid_mode` (MySQL's `Gtid_mode`), in its order: it changes one step
/// at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum GtidMode {
    Off = 0,
    OffPermissive = 1,
    OnPermissive = 2,
    On = 3,
}

impl GtidMode {
    pub const NAMES: [&'static str; 4] = ["OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"];

    pub fn parse(s: &str) -> Option<GtidMode> {
        match Self::NAMES.iter().position(|n| n.eq_ignore_ascii_case(s.trim()))? {
            0 => Some(GtidMode::Off),
            1 => Some(GtidMode::OffPermissive),
            2 => Some(GtidMode::OnPermissive),
            _ => Some(GtidMode::On),
        }
    }

    fn from_u8(v: u8) -> GtidMode {
        match v {
            0 => GtidMode::Off,
            1 => GtidMode::OffPermissive,
            2 => GtidMode::OnPermissive,
            _ => GtidMode::On,
        }
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// The GTID a committing transaction asks for (its session's
/// `gtid_next`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GtidNext {
    /// The log decides: a new GTID of `server_uuid` with `gtid_mode` ON or
    /// ON_PERMISSIVE, an anonymous transaction with OFF or OFF_PERMISSIVE.
    Automatic,
    Anonymous,
    /// This GTID (a replica's applier, `mysqlbinlog` output). REQUIRES:
    /// not in `gtid_executed` (the caller skipped such a transaction).
    Given(Gtid),
}

/// One binary log file as SHOW BINARY LOGS lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFile {
    pub name: String,
    pub size: u64,
}

/// Where a transaction ended up: its file and the offset past its XID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub end: u64,
}

impl Position {
    /// The file's number (`binlog.000042` -> 42; 0 for a name without one).
    pub fn file_number(&self) -> u32 {
        file_number(&self.file)
    }
}

/// The number a file name ends with (0 when it has none).
pub fn file_number(name: &str) -> u32 {
    name.rsplit('.').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// An error of the log (the SQL layer reports 1598, or what it names).
#[derive(Debug)]
pub struct LogError(pub String);

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

type LResult<T> = Result<T, LogError>;

fn io_err(what: &str, p: &Path, e: std::io::Error) -> LogError {
    LogError(format!("{what} '{}': {e}", p.display()))
}

/// An open file of the log.
struct OpenFile {
    name: String,
    file: File,
}

/// Bytes waiting for the leader.
struct Segment {
    file: Arc<OpenFile>,
    offset: u64,
    bytes: Vec<u8>,
    /// The file ends with this segment, and this next file follows it:
    /// once written, the index names the next file and this one is
    /// closed (invariant 4).
    closes: Option<String>,
}

struct State {
    cur: Arc<OpenFile>,
    /// The current file's size counting pending bytes.
    end: u64,
    pending: Vec<Segment>,
    /// Tickets: one per appended transaction (invariant 1).
    appended_ticket: u64,
    written_ticket: u64,
    /// The end of the current file as written (SHOW MASTER STATUS).
    written_end: (String, u64),
    leader: bool,
    /// A committer waits to lead the next group (`lead_or_follow`).
    next_leader: bool,
    groups_unsynced: u64,
    /// The logical clock of the current file.
    sequence: i64,
    last_committed: i64,
    failed: Option<String>,
    files: Vec<String>,
    /// Commit-order turns handed out (one per transaction, `order.rs`).
    turns: u64,
    /// `gtid_executed`: every GTID in the log, its purged files included
    /// (a GTID is added as its transaction is appended, in log order).
    executed: GtidSet,
    /// `gtid_purged`: the GTIDs no remaining file holds.
    purged: GtidSet,
}

/// The binary log.
pub struct BinLog {
    opts: Options,
    state: Mutex<State>,
    done: Condvar,
    /// The engine's commit order (`order.rs`).
    order: Order,
    /// Set by [`BinLog::stop_after_engine_failure`].
    engine_failed: std::sync::atomic::AtomicBool,
    /// The last commit-order turn whose transaction is written: turns up
    /// to it commit in the engine even if a later group's write failed.
    /// Moved under `state` by a group's writer before it allows the turns
    /// (`order.rs`); read by the ordered commits without the mutex.
    written_turn: AtomicU64,
    /// The durable end replicas may read to (`follow.rs`).
    follow: Follow,
    /// What the index file lists (invariant 4). Locked after `state`
    /// when both are held.
    index: Mutex<Vec<String>>,
    /// Set by [`BinLog::close`]: dump threads end.
    closed: std::sync::atomic::AtomicBool,
    pub sync_binlog: AtomicU64,
    /// `binlog_group_commit_sync_delay` (µs) and
    /// `binlog_group_commit_sync_no_delay_count`: a leader waits that long
    /// (or until that many transactions are pending) before it writes its
    /// group, so that more commits join it.
    pub sync_delay_us: AtomicU64,
    pub sync_no_delay_count: AtomicU64,
    /// Wakes a delaying leader when a transaction is appended.
    gathered: Condvar,
    pub max_size: AtomicU64,
    pub expire_secs: AtomicU64,
    pub server_id: AtomicU32,
    /// `gtid_mode` ([`GtidMode`] as u8).
    gtid_mode: AtomicU8,
    /// Groups written and syncs made (SHOW STATUS Binlog_commits /
    /// Binlog_group_commits).
    pub commits: AtomicU64,
    pub groups: AtomicU64,
}

fn now_secs() -> u32 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as u32)
}

fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

impl BinLog {
    /// Opens the log: checks and closes the last file of the index (a
    /// crash may have left it open and torn), then starts a new file.
    /// The log is not reconciled with an engine: see [`BinLog::open_after`].
    pub fn open(opts: Options) -> LResult<BinLog> {
        Self::open_after(opts, None)
    }

    /// As [`BinLog::open`], and first cuts the log back to `engine`, the
    /// position of the engine's last logged commit (`reconcile.rs`).
    /// The new file's start ([`BinLog::status`]) is what the caller
    /// records in the engine next, so that a start of the log is a
    /// position too.
    pub fn open_after(opts: Options, engine: Option<(u32, u64)>) -> LResult<BinLog> {
        std::fs::create_dir_all(&opts.dir).map_err(|e| io_err("cannot create", &opts.dir, e))?;
        let mut files = read_index(&opts.index)?;
        files.retain(|f| opts.dir.join(f).exists());
        if let Some(last) = files.last() {
            crate::recover::close_torn(&opts.dir.join(last), opts.checksum)?;
        }
        let mut cut = GtidSet::new();
        if let Some(pos) = engine {
            for c in crate::reconcile::reconcile(&opts.dir, &files, pos)? {
                cut.union(&c.gtids);
            }
        }
        let (executed, purged) = crate::gtid_files::recover(&opts.dir, &files, &cut)?;
        let next = files.last().and_then(|f| f.rsplit('.').next()?.parse::<u32>().ok()).unwrap_or(0) + 1;
        let name = format!("{}.{next:06}", opts.basename);
        let f = Frame { server_id: opts.server_id, timestamp: now_secs(), checksum: opts.checksum };
        remove_unlisted(&opts.dir, next, &opts.basename, &f)?;
        let (file, end) = create_file(&opts.dir, &name, &f, now_secs(), &executed)?;
        files.push(name.clone());
        write_index(&opts.index, &files)?;
        // Every earlier file holds only what the engine committed (the
        // cut above): the durable end starts at the new file's start.
        let follow = Follow::default();
        follow.report(pack(file_number(&name), end));
        let st = State {
            cur: Arc::new(file),
            end,
            pending: Vec::new(),
            appended_ticket: 0,
            written_ticket: 0,
            written_end: (name, end),
            leader: false,
            next_leader: false,
            groups_unsynced: 0,
            sequence: 0,
            last_committed: 0,
            failed: None,
            files,
            turns: 0,
            executed,
            purged,
        };
        Ok(BinLog {
            sync_binlog: AtomicU64::new(opts.sync_binlog),
            written_turn: AtomicU64::new(0),
            sync_delay_us: AtomicU64::new(0),
            sync_no_delay_count: AtomicU64::new(0),
            gathered: Condvar::new(),
            max_size: AtomicU64::new(opts.max_size),
            expire_secs: AtomicU64::new(opts.expire_secs),
            server_id: AtomicU32::new(opts.server_id),
            gtid_mode: AtomicU8::new(opts.gtid_mode as u8),
            opts,
            index: Mutex::new(st.files.clone()),
            state: Mutex::new(st),
            done: Condvar::new(),
            order: Order::new(),
            engine_failed: Default::default(),
            follow,
            closed: Default::default(),
            commits: AtomicU64::new(0),
            groups: AtomicU64::new(0),
        })
    }

    pub fn checksum(&self) -> Checksum {
        self.opts.checksum
    }

    pub fn frame(&self) -> Frame {
        Frame { server_id: self.server_id.load(Ordering::Relaxed), timestamp: now_secs(), checksum: self.opts.checksum }
    }

    /// Logs one transaction (`body`: its events from BEGIN to XID, or one
    /// DDL QUERY) and returns once it is written, and synced if its group
    /// syncs. For a caller with nothing to commit in the engine.
    pub fn commit(&self, body: Events) -> LResult<Position> {
        self.commit_ordered(body, |p| p.clone())
    }

    /// Logs one transaction as [`BinLog::commit`], then runs `engine` (the
    /// engine's commit of it, recording the position it is given) in log
    /// order (`order.rs`): after every transaction logged before it ran
    /// its own, before any logged after it. `engine` is not run when the
    /// log failed; the transaction is then not acknowledged.
    pub fn commit_ordered<R: Send>(&self, body: Events, engine: impl FnOnce(&Position) -> R + Send) -> LResult<R> {
        self.commit_ordered_as(body, GtidNext::Automatic, engine)
    }

    /// As [`BinLog::commit_ordered`], the transaction identified as
    /// `next` says. A `Given` GTID already executed (another session
    /// committed it meanwhile) is refused: nothing is logged.
    pub fn commit_ordered_as<R: Send>(
        &self,
        body: Events,
        next: GtidNext,
        engine: impl FnOnce(&Position) -> R + Send,
    ) -> LResult<R> {
        let mut st = self.state.lock();
        if let Some(e) = &st.failed {
            return Err(LogError(e.clone()));
        }
        let gtid = match next {
            GtidNext::Anonymous => None,
            GtidNext::Given(g) if st.executed.contains(&g) => {
                return Err(LogError(format!("GTID {g} is already executed")));
            }
            GtidNext::Given(g) => Some(g),
            GtidNext::Automatic if self.gtid_mode() >= GtidMode::OnPermissive => {
                let uuid = self.opts.server_uuid;
                let gno = st
                    .executed
                    .next_free(&uuid)
                    .ok_or_else(|| LogError("Impossible to generate GTID: the integer component reached the maximum value. Restart the server with a new server_uuid.".into()))?;
                Some(Gtid { uuid, gno })
            }
            GtidNext::Automatic => None,
        };
        if let Some(g) = &gtid {
            st.executed.add(g);
        }
        let (ticket, pos, turn) = self.append(&mut st, body, gtid);
        if st.leader && self.sync_no_delay_count.load(Ordering::Relaxed) > 0 {
            self.gathered.notify_one();
        }
        // The engine's commit, queued for its turn before the group is
        // written: the group's writer allows it (`order.rs`), and this
        // thread sleeps once, until it ran.
        let mut engine = Some(engine);
        let mut out = None;
        let mut commit = || {
            let failed = if turn <= self.written_turn.load(Ordering::Acquire) {
                None
            } else {
                Some(self.state.lock().failed.clone().unwrap_or_else(|| "binary log write failed".into()))
            };
            out = Some(match failed {
                Some(e) => Err(LogError(e)),
                None if self.engine_failed.load(Ordering::Acquire) => {
                    Err(LogError("an engine commit of a logged transaction failed; logging stopped".into()))
                }
                None => Ok((engine.take().expect("a commit runs once"))(&pos)),
            });
        };
        let waiting = self.order.queue(turn, &mut commit);
        self.lead_or_follow(st, ticket);
        waiting.wait();
        out.expect("the commit ran before wait returned")
    }

    /// What runs after a chain of ordered commits, before their
    /// committers go on (`order.rs`): the engine's redo flush. Set once.
    pub fn after_ordered_commits(&self, f: Box<dyn Fn() + Send + Sync>) {
        self.order.set_after_chain(f);
    }

    /// Stops the log after the engine failed to commit a transaction the
    /// log holds (called by that commit, in its turn): every later commit
    /// fails, including those already written and waiting for their turn,
    /// so that the log's tail past the engine's last recorded position is
    /// only transactions the engine lacks, which the next start cuts.
    pub fn stop_after_engine_failure(&self, why: &str) {
        tracing::error!("the engine could not commit a logged transaction ({why}): binary logging stops");
        self.engine_failed.store(true, Ordering::Release);
        let mut st = self.state.lock();
        if st.failed.is_none() {
            st.failed = Some(format!("an engine commit of a logged transaction failed: {why}"));
        }
    }

    /// Sees `ticket`'s group to the file: writes it as leader, or waits
    /// to lead the next group when a write is under way and nobody waits
    /// to lead yet, or leaves it to that one (whose group will hold this
    /// transaction: it takes every pending one). Whoever writes allows the
    /// turns written (`order.rs`).
    fn lead_or_follow<'a>(&'a self, mut st: parking_lot::MutexGuard<'a, State>, ticket: u64) {
        // What this thread must see written before it may leave.
        let mut need = ticket;
        loop {
            if st.written_ticket >= need {
                return;
            }
            if st.leader {
                if st.next_leader {
                    return;
                }
                st.next_leader = true;
                while st.leader {
                    self.done.wait(&mut st);
                }
                st.next_leader = false;
                // Committers that came while this one waited left their
                // transactions to it, and the group just written may not
                // hold them (its leader took the pending ones before they
                // came, after `gather`'s wait): everything appended so far
                // must be written before this thread leaves.
                need = st.appended_ticket;
                continue;
            }
            st.leader = true;
            self.gather(&mut st);
            let segs = std::mem::take(&mut st.pending);
            let upto = st.appended_ticket;
            let upto_turn = st.turns;
            let end = (st.cur.name.clone(), st.end);
            let seq = st.sequence;
            let sync = {
                let n = self.sync_binlog.load(Ordering::Relaxed);
                st.groups_unsynced += 1;
                if n != 0 && st.groups_unsynced >= n {
                    st.groups_unsynced = 0;
                    true
                } else {
                    false
                }
            };
            drop(st);
            let r = self.write_group(segs, sync);
            st = self.state.lock();
            st.leader = false;
            st.written_ticket = upto;
            self.groups.fetch_add(1, Ordering::Relaxed);
            match r {
                Ok(()) => {
                    if st.failed.is_none() {
                        self.written_turn.store(upto_turn, Ordering::Release);
                    }
                    if st.written_end.0 != end.0 {
                        // A rotation: dumps waiting at the old file's end
                        // may send its ROTATE now (`dump.rs` invariant 2).
                        self.follow.wake();
                    }
                    st.written_end = end;
                    if st.sequence >= seq {
                        st.last_committed = st.last_committed.max(seq.min(st.sequence));
                    }
                }
                Err(e) => {
                    tracing::error!("binary log write failed, logging stops: {e}");
                    st.failed = Some(e.0);
                }
            }
            self.done.notify_all();
            drop(st);
            // Not under the log's mutex: the commits read it.
            self.order.allow(upto_turn);
            return;
        }
    }

    /// The leader's `binlog_group_commit_sync_delay`, as MySQL applies it:
    /// before every group when `sync_binlog` is 0 or 1, before the group
    /// that syncs when it is N > 1. Ends early once
    /// `binlog_group_commit_sync_no_delay_count` transactions are pending.
    /// The transactions appended meanwhile join the group and share its
    /// `last_committed`, so a replica may apply them in parallel.
    fn gather(&self, st: &mut parking_lot::MutexGuard<'_, State>) {
        let delay = self.sync_delay_us.load(Ordering::Relaxed);
        if delay == 0 {
            return;
        }
        let n = self.sync_binlog.load(Ordering::Relaxed);
        if n > 1 && st.groups_unsynced + 1 < n {
            return;
        }
        let enough = self.sync_no_delay_count.load(Ordering::Relaxed);
        let deadline = std::time::Instant::now() + std::time::Duration::from_micros(delay);
        while enough == 0 || st.appended_ticket - st.written_ticket < enough {
            if self.gathered.wait_until(st, deadline).timed_out() {
                break;
            }
        }
    }

    /// Appends under the mutex: the GTID event, then `body`; rotates when
    /// the file reached `max_binlog_size` (a rotation that fails stops
    /// the log, invariant 3: this transaction is then not acknowledged).
    /// Returns the write ticket, the position and the commit-order turn.
    fn append(&self, st: &mut State, mut body: Events, gtid: Option<Gtid>) -> (u64, Position, u64) {
        let f = self.frame();
        st.sequence += 1;
        let clock = LogicalClock { last_committed: st.last_committed, sequence_number: st.sequence };
        let mut gtid_len = event::anonymous_gtid_len(f.checksum, body.len() as u64 + 100);
        loop {
            let total = gtid_len + body.len() as u64;
            let l = event::anonymous_gtid_len(f.checksum, total);
            if l == gtid_len {
                break;
            }
            gtid_len = l;
        }
        let mut ev = Events::with_capacity(gtid_len as usize + body.len(), body.starts.len() + 1);
        ev.transaction_gtid(&f, gtid, clock, now_us(), gtid_len + body.len() as u64);
        ev.append(&body);
        body.clear();
        ev.place(st.end, f.checksum);
        let offset = st.end;
        st.end += ev.len() as u64;
        st.pending.push(Segment { file: st.cur.clone(), offset, bytes: ev.bytes, closes: None });
        st.appended_ticket += 1;
        self.commits.fetch_add(1, Ordering::Relaxed);
        st.turns += 1;
        let (ticket, turn) = (st.appended_ticket, st.turns);
        let pos = Position { file: st.cur.name.clone(), end: st.end };
        if st.end >= self.max_size.load(Ordering::Relaxed) {
            if let Err(e) = self.rotate_locked(st) {
                tracing::error!("binary log rotation failed, logging stops: {e}");
                st.failed = Some(e.0);
            }
        }
        (ticket, pos, turn)
    }

    /// Closes the current file with a ROTATE and opens the next one.
    fn rotate_locked(&self, st: &mut State) -> LResult<()> {
        let next_no = st.cur.name.rsplit('.').next().and_then(|n| n.parse::<u32>().ok()).unwrap_or(0) + 1;
        let name = format!("{}.{next_no:06}", self.opts.basename);
        let f = self.frame();
        let (file, end) = create_file(&self.opts.dir, &name, &f, 0, &st.executed)?;
        let mut ev = Events::default();
        ev.rotate(&f, &name);
        ev.place(st.end, f.checksum);
        let offset = st.end;
        st.pending.push(Segment { file: st.cur.clone(), offset, bytes: ev.bytes, closes: Some(name.clone()) });
        st.cur = Arc::new(file);
        st.end = end;
        st.sequence = 0;
        st.last_committed = 0;
        st.files.push(name);
        // A rotation is itself a group to write (its ROTATE).
        st.appended_ticket += 1;
        Ok(())
    }

    /// The leader's work: write the segments in order, sync the files
    /// written when this group syncs, name a next file in the index once
    /// the file before it is written (and synced, when this group syncs:
    /// invariant 4), and hand files that ended to a closing thread.
    fn write_group(&self, segs: Vec<Segment>, sync: bool) -> LResult<()> {
        let mut touched: Vec<Arc<OpenFile>> = Vec::new();
        let sync_file = |f: &OpenFile| {
            file_io(Instrument::BinlogFile, FileOp::Misc, 0, || f.file.sync_data())
                .map_err(|e| LogError(format!("cannot sync binary log '{}': {e}", f.name)))
        };
        for s in &segs {
            let (bytes, at) = (&s.bytes, s.offset);
            file_io(Instrument::BinlogFile, FileOp::Write, bytes.len(), || s.file.file.write_all_at(bytes, at))
                .map_err(|e| LogError(format!("cannot write binary log '{}': {e}", s.file.name)))?;
            let seen = touched.iter().position(|t| Arc::ptr_eq(t, &s.file));
            if let Some(next) = &s.closes {
                if sync {
                    sync_file(&s.file)?;
                    if let Some(i) = seen {
                        touched.swap_remove(i);
                    }
                }
                let mut index = self.index.lock();
                index.push(next.clone());
                write_index(&self.opts.index, &index)?;
            } else if seen.is_none() {
                touched.push(s.file.clone());
            }
        }
        if sync {
            for t in &touched {
                sync_file(t)?;
            }
        }
        for s in segs.into_iter().filter(|s| s.closes.is_some()) {
            let file = s.file;
            // Off the commit path (seed 004): the old file's final sync.
            let _ = std::thread::Builder::new().name("binlog-close".into()).spawn(move || close_file(&file));
        }
        Ok(())
    }

    /// Forces a sync of the current file and waits for every transaction
    /// appended so far to be written.
    fn flush_all(&self) -> LResult<()> {
        let mut st = self.state.lock();
        while st.leader || !st.pending.is_empty() {
            if !st.leader {
                st.leader = true;
                let segs = std::mem::take(&mut st.pending);
                let upto = st.appended_ticket;
                let upto_turn = st.turns;
                let end = (st.cur.name.clone(), st.end);
                drop(st);
                let r = self.write_group(segs, true);
                st = self.state.lock();
                st.leader = false;
                st.written_ticket = upto;
                if let Err(e) = r {
                    st.failed = Some(e.0.clone());
                    self.done.notify_all();
                    drop(st);
                    self.order.allow(upto_turn);
                    return Err(e);
                }
                st.written_end = end;
                if st.failed.is_none() {
                    self.written_turn.store(upto_turn, Ordering::Release);
                }
                self.follow.wake();
                self.done.notify_all();
                drop(st);
                self.order.allow(upto_turn);
                st = self.state.lock();
            } else {
                self.done.wait(&mut st);
            }
        }
        Ok(())
    }

    /// FLUSH BINARY LOGS: closes the current file and opens the next.
    pub fn rotate(&self) -> LResult<()> {
        {
            let mut st = self.state.lock();
            if let Some(e) = &st.failed {
                return Err(LogError(e.clone()));
            }
            self.rotate_locked(&mut st)?;
        }
        self.flush_all()?;
        self.expire()
    }

    /// SHOW BINARY LOGS.
    pub fn files(&self) -> Vec<LogFile> {
        let st = self.state.lock();
        st.files
            .iter()
            .map(|n| {
                let size = if *n == st.cur.name {
                    st.end
                } else {
                    std::fs::metadata(self.opts.dir.join(n)).map_or(0, |m| m.len())
                };
                LogFile { name: n.clone(), size }
            })
            .collect()
    }

    /// SHOW MASTER STATUS: the current file and the end of what is written.
    pub fn status(&self) -> Position {
        let st = self.state.lock();
        Position { file: st.written_end.0.clone(), end: st.written_end.1 }
    }

    /// PURGE BINARY LOGS TO `name`: deletes the files before it. `Err`
    /// names an unknown file (the SQL layer reports 1373). The GTIDs of
    /// the deleted files join `gtid_purged`: the first remaining file's
    /// PREVIOUS_GTIDS holds them.
    pub fn purge_to(&self, name: &str) -> LResult<usize> {
        let mut st = self.state.lock();
        let Some(i) = st.files.iter().position(|f| f == name) else {
            return Err(LogError(format!("Target log not found in binlog index: {name}")));
        };
        if i > 0 {
            let first = crate::gtid_files::read_previous(&self.opts.dir.join(name))?;
            st.purged.union(&first);
        }
        let gone: Vec<String> = st.files.drain(..i).collect();
        {
            let mut index = self.index.lock();
            index.retain(|f| !gone.contains(f));
            write_index(&self.opts.index, &index)?;
        }
        drop(st);
        for g in &gone {
            let _ = std::fs::remove_file(self.opts.dir.join(g));
        }
        Ok(gone.len())
    }

    /// PURGE BINARY LOGS BEFORE: deletes the files (never the current
    /// one) last modified before `unix_secs`.
    pub fn purge_before(&self, unix_secs: u64) -> LResult<usize> {
        let first_kept = {
            let st = self.state.lock();
            let mut keep = st.cur.name.clone();
            for f in &st.files {
                let m = std::fs::metadata(self.opts.dir.join(f))
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_secs());
                if m >= unix_secs || *f == st.cur.name {
                    keep = f.clone();
                    break;
                }
            }
            keep
        };
        self.purge_to(&first_kept)
    }

    /// `binlog_expire_logs_seconds`: purges files older than that (run at
    /// each rotation and at open, as MySQL does).
    pub fn expire(&self) -> LResult<()> {
        let secs = self.expire_secs.load(Ordering::Relaxed);
        if secs == 0 {
            return Ok(());
        }
        let before = u64::from(now_secs()).saturating_sub(secs);
        self.purge_before(before).map(|_| ())
    }

    /// Clean shutdown: a STOP event, a sync, IN_USE cleared.
    pub fn close(&self) {
        let mut st = self.state.lock();
        if st.failed.is_some() {
            return;
        }
        let f = self.frame();
        let mut ev = Events::default();
        ev.stop(&f);
        ev.place(st.end, f.checksum);
        let offset = st.end;
        st.end += ev.len() as u64;
        let cur = st.cur.clone();
        st.pending.push(Segment { file: cur.clone(), offset, bytes: ev.bytes, closes: None });
        st.appended_ticket += 1;
        drop(st);
        if self.flush_all().is_ok() {
            close_file(&cur);
        }
        self.state.lock().failed = Some("the binary log is closed".into());
        self.closed.store(true, Ordering::SeqCst);
        self.follow.wake();
    }

    /// `gtid_mode` now.
    pub fn gtid_mode(&self) -> GtidMode {
        GtidMode::from_u8(self.gtid_mode.load(Ordering::Acquire))
    }

    /// SET GLOBAL gtid_mode (the caller checked the step).
    pub fn set_gtid_mode(&self, m: GtidMode) {
        self.gtid_mode.store(m as u8, Ordering::Release);
    }

    /// `server_uuid`.
    pub fn server_uuid(&self) -> Uuid {
        self.opts.server_uuid
    }

    /// `gtid_executed`.
    pub fn gtid_executed(&self) -> GtidSet {
        self.state.lock().executed.clone()
    }

    /// `gtid_purged`.
    pub fn gtid_purged(&self) -> GtidSet {
        self.state.lock().purged.clone()
    }

    /// Whether `g` is executed (a transaction with `gtid_next` = `g` is
    /// skipped).
    pub fn is_executed(&self, g: &Gtid) -> bool {
        self.state.lock().executed.contains(g)
    }

    /// SET GLOBAL gtid_purged: `set` joins `gtid_executed` and
    /// `gtid_purged` (`require_empty`: only while `gtid_executed` is
    /// empty, MySQL 5.7's rule for the plain form; else `set` must not
    /// overlap it, 8.0's `+set` form), and the log rotates so that the
    /// new file's PREVIOUS_GTIDS holds it (that is what makes it survive
    /// a restart). `Err(None)`: refused by that rule.
    pub fn add_gtid_purged(&self, set: &GtidSet, require_empty: bool) -> Result<(), Option<LogError>> {
        {
            let mut st = self.state.lock();
            if let Some(e) = &st.failed {
                return Err(Some(LogError(e.clone())));
            }
            let refused = if require_empty { !st.executed.is_empty() } else { !st.executed.intersect(set).is_empty() };
            if refused {
                return Err(None);
            }
            st.executed.union(set);
            st.purged.union(set);
            self.rotate_locked(&mut st).map_err(Some)?;
        }
        self.flush_all().map_err(Some)
    }

    /// The directory of the files.
    pub fn dir(&self) -> &Path {
        &self.opts.dir
    }

    /// The files of the index, oldest first.
    pub fn file_names(&self) -> Vec<String> {
        self.state.lock().files.clone()
    }

    /// [`BinLog::close`] ran: dump threads end.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Reports that the transaction ending at (`file`, `end`) is committed
    /// durably in the engine (`follow.rs`): replicas may now be sent every
    /// transaction up to it. Called by the committer after its redo flush;
    /// the cost is one atomic `fetch_max` unless a dump thread waits.
    pub fn mark_durable(&self, file: u32, end: u64) {
        self.follow.report(pack(file, end));
    }

    /// The durable end, packed (`follow::unpack`).
    pub fn durable_packed(&self) -> u64 {
        self.follow.end()
    }

    /// Wakes every dump waiting for the log (one told to stop, say, whose
    /// replica connected again, need not wait for its next heartbeat).
    pub fn wake_dumps(&self) {
        self.follow.wake();
    }

    /// The count of wake-ups (rotations written, the close) so far: read
    /// before looking at the log, then given to
    /// [`BinLog::wait_durable_past`], so that none in between is missed.
    pub fn wakes(&self) -> u64 {
        self.follow.wakes()
    }

    /// Waits (at most `timeout`) until the durable end passes `seen`, or a
    /// rotation is written or the log closes after the `wakes` count.
    pub fn wait_durable_past(&self, seen: u64, wakes: u64, timeout: std::time::Duration) -> u64 {
        self.follow.wait_past(seen, wakes, timeout)
    }

    /// The number of the file the writer has written up to (a file
    /// before it is complete, its ROTATE included).
    pub fn written_file_number(&self) -> u32 {
        file_number(&self.state.lock().written_end.0)
    }
}

/// Clears the IN_USE flag of a file whose last bytes are written, after
/// syncing them. The FDE's CRC is computed with the flag clear, so it
/// stays valid.
fn close_file(f: &OpenFile) {
    let r = f.file.sync_data().and_then(|()| {
        let mut flags = [0u8; 2];
        f.file.read_exact_at(&mut flags, (MAGIC.len() + FLAGS_OFFSET) as u64)?;
        let v = u16::from_le_bytes(flags) & !FLAG_IN_USE;
        f.file.write_all_at(&v.to_le_bytes(), (MAGIC.len() + FLAGS_OFFSET) as u64)?;
        f.file.sync_data()
    });
    if let Err(e) = r {
        tracing::error!("closing binary log '{}' failed: {e}", f.name);
    }
}

/// Files numbered from `first` on that are not in the index were left
/// by rotations a crash interrupted (a file is created, then named in
/// the index once the file before it is written, and nothing is written
/// to it before that, invariant 4): each holds at most its own header,
/// no transaction, and is removed. A file holding more is not ours to
/// delete: opening the log fails and says so.
fn remove_unlisted(dir: &Path, first: u32, basename: &str, f: &Frame) -> LResult<()> {
    for no in first.. {
        let path = dir.join(format!("{basename}.{no:06}"));
        let len = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_err("cannot read binary log", &path, e)),
        };
        if !holds_only_a_header(&path, len, f)? {
            return Err(LogError(format!(
                "binary log '{}' exists with {len} bytes but is not in the index; move it away to start",
                path.display()
            )));
        }
        tracing::warn!("removing binary log '{}': its creation was interrupted before it was indexed", path.display());
        std::fs::remove_file(&path).map_err(|e| io_err("cannot remove binary log", &path, e))?;
    }
    Ok(())
}

/// Whether the file at `path` (`len` bytes) ends after its header: the
/// magic, a FORMAT_DESCRIPTION and a PREVIOUS_GTIDS (whose length
/// depends on the set it names).
fn holds_only_a_header(path: &Path, len: u64, f: &Frame) -> LResult<bool> {
    if len <= header(f, 0, &GtidSet::new()).len() as u64 {
        return Ok(true);
    }
    let previous = crate::gtid_files::read_previous(path).unwrap_or_default();
    Ok(len <= header(f, 0, &previous).len() as u64)
}

/// A file's first bytes: magic, FDE (IN_USE), PREVIOUS_GTIDS.
fn header(f: &Frame, created: u32, previous: &GtidSet) -> Vec<u8> {
    let mut ev = Events::default();
    ev.format_description(f, created, true);
    ev.previous_gtids(f, previous);
    ev.place(MAGIC.len() as u64, f.checksum);
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&ev.bytes);
    bytes
}

/// Creates a new file: magic, FDE (IN_USE), PREVIOUS_GTIDS. Returns it
/// and its size.
fn create_file(dir: &Path, name: &str, f: &Frame, created: u32, previous: &GtidSet) -> LResult<(OpenFile, u64)> {
    let path = dir.join(name);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| io_err("cannot create binary log", &path, e))?;
    let bytes = header(f, created, previous);
    file.write_all_at(&bytes, 0).map_err(|e| io_err("cannot write binary log", &path, e))?;
    Ok((OpenFile { name: name.to_string(), file }, bytes.len() as u64))
}

fn read_index(p: &Path) -> LResult<Vec<String>> {
    match std::fs::read_to_string(p) {
        Ok(s) => Ok(s
            .lines()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .map(|l| l.rsplit('/').next().unwrap_or(l).to_string())
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_err("cannot read binary log index", p, e)),
    }
}

/// Rewrites the index (a new file renamed over the old one).
fn write_index(p: &Path, files: &[String]) -> LResult<()> {
    let tmp = p.with_extension("index_tmp");
    let mut text = String::new();
    for f in files {
        text.push_str("./");
        text.push_str(f);
        text.push('\n');
    }
    let r = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_data()?;
        std::fs::rename(&tmp, p)?;
        // The rename and the new file's entry reach the disk before
        // anything is written to that file.
        match p.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) => File::open(d)?.sync_all(),
            None => File::open(".")?.sync_all(),
        }
    })();
    r.map_err(|e| io_err("cannot write binary log index", p, e))
}
