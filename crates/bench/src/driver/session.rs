//! One client's workload, as one sysbench thread runs it: `thread_init`
//! prepares the script's statements on every table (server-side prepared
//! statements, sysbench's default `--db-ps-mode=auto`), then each event
//! binds fresh random values and executes them one at a time.
//!
//! An attempt of an event is encoded whole when it starts
//! ([`Session::start_attempt`]): every command of it, one after another,
//! in one buffer. The caller sends them one at a time, each after the
//! reply to the one before ([`Session::command`], [`Session::advance`]),
//! so a connection never has more than one statement outstanding.
//!
//! Invariants:
//! 1. `next <= steps.len()`; `steps[i].end` is where command i ends in
//!    `out`, and command i starts where command i - 1 ends (or at 0).
//! 2. `counts` holds the statements of the current attempt that the
//!    server answered without error, and only those.

use super::rand::{SbRand, C_TEMPLATE, PAD_TEMPLATE};
use super::wire::command::{put_execute, put_text, COM_QUERY};
use super::wire::{Conn, Param, Prepared, WireError};
use super::workload::{sql, Kind, Mix, Stmt, StmtCounts, Workload};

/// One command of an attempt.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// Where the command's packet ends in `out`.
    end: usize,
    kind: Kind,
    table: u32,
}

/// A statement that could not be prepared.
#[derive(Debug)]
pub struct PrepareError {
    pub sql: String,
    pub error: WireError,
}

/// One client: its prepared statements, random numbers and current event.
pub struct Session {
    workload: Workload,
    mix: Mix,
    tables: u32,
    table_size: u32,
    /// `stmts[table - 1][kind]`, prepared as the workload needs.
    stmts: Vec<[Option<Prepared>; Kind::ALL.len()]>,
    begin: Option<Prepared>,
    commit: Option<Prepared>,
    rng: SbRand,
    c_buf: String,
    pad_buf: String,
    /// The current attempt's commands.
    out: Vec<u8>,
    steps: Vec<Step>,
    /// The command awaiting its reply.
    next: usize,
    /// Statements of the current attempt answered without error.
    pub counts: StmtCounts,
}

/// Statements a workload prepares per table.
fn kinds_of(w: Workload, mix: &Mix) -> Vec<Kind> {
    let mut out = Vec::new();
    for (stmt, _) in w.groups(mix) {
        if stmt == Stmt::TextInsert {
            continue;
        }
        for k in stmt.kinds() {
            if !out.contains(k) {
                out.push(*k);
            }
        }
    }
    out
}

impl Session {
    /// Prepares the workload's statements on `conn`.
    pub fn prepare(
        conn: &mut Conn,
        workload: Workload,
        mix: Mix,
        tables: u32,
        table_size: u32,
        seed: u64,
    ) -> Result<Session, PrepareError> {
        let mut prep = |text: String| conn.prepare(&text).map_err(|error| PrepareError { sql: text, error });
        let (begin, commit) = if workload.transactional() {
            (Some(prep(sql(Kind::Begin, 0))?), Some(prep(sql(Kind::Commit, 0))?))
        } else {
            (None, None)
        };
        let mut stmts = Vec::with_capacity(tables as usize);
        for t in 1..=tables {
            let mut row = [None; Kind::ALL.len()];
            for k in kinds_of(workload, &mix) {
                row[k as usize] = Some(prep(sql(k, t))?);
            }
            stmts.push(row);
        }
        Ok(Session {
            workload,
            mix,
            tables,
            table_size,
            stmts,
            begin,
            commit,
            rng: SbRand::new(seed),
            c_buf: String::with_capacity(120),
            pad_buf: String::with_capacity(60),
            out: Vec::with_capacity(1024),
            steps: Vec::with_capacity(24),
            next: 0,
            counts: StmtCounts::default(),
        })
    }

    pub fn transactional(&self) -> bool {
        self.workload.transactional()
    }

    /// A random id: `sysbench.rand.default(1, table_size)`.
    fn id(&mut self) -> i64 {
        i64::from(self.rng.special(1, self.table_size))
    }

    /// Encodes a new attempt of the event, with fresh random values.
    pub fn start_attempt(&mut self) -> Result<(), WireError> {
        self.out.clear();
        self.steps.clear();
        self.next = 0;
        self.counts = StmtCounts::default();
        if self.workload.transactional() {
            self.exec(0, Kind::Begin, &[])?;
        }
        for (stmt, n) in self.workload.groups(&self.mix) {
            let t = self.rng.uniform(1, self.tables);
            for _ in 0..n {
                self.statement(stmt, t)?;
            }
        }
        if self.workload.transactional() {
            self.exec(0, Kind::Commit, &[])?;
        }
        Ok(())
    }

    /// The packet of the command awaiting its reply. REQUIRES: the attempt
    /// is not complete.
    pub fn command(&self) -> &[u8] {
        let start = if self.next == 0 { 0 } else { self.steps[self.next - 1].end };
        &self.out[start..self.steps[self.next].end]
    }

    /// The current command was answered without error; returns whether
    /// that completed the attempt.
    pub fn advance(&mut self) -> bool {
        let s = self.steps[self.next];
        self.counts.add(s.kind, 1);
        self.next += 1;
        self.next == self.steps.len()
    }

    /// The current command's SQL, for an error message.
    pub fn current_sql(&self) -> String {
        let s = self.steps[self.next];
        let packet = self.command();
        match packet.get(4) {
            Some(&COM_QUERY) => String::from_utf8_lossy(&packet[5..]).into_owned(),
            _ => sql(s.kind, s.table),
        }
    }

    fn exec(&mut self, table: u32, kind: Kind, params: &[Param<'_>]) -> Result<(), WireError> {
        let stmt = match kind {
            Kind::Begin => self.begin,
            Kind::Commit => self.commit,
            _ => self.stmts.get(table as usize - 1).and_then(|r| r[kind as usize]),
        };
        let stmt =
            stmt.ok_or_else(|| super::wire::packet::protocol(format!("'{}' was not prepared", sql(kind, table))))?;
        put_execute(&mut self.out, stmt.id, params)?;
        self.steps.push(Step { end: self.out.len(), kind, table });
        Ok(())
    }

    fn statement(&mut self, stmt: Stmt, t: u32) -> Result<(), WireError> {
        let range = i64::from(self.mix.range_size);
        match stmt {
            Stmt::PointSelect => {
                let id = self.id();
                self.exec(t, Kind::PointSelect, &[Param::Int(id)])
            }
            Stmt::SimpleRange | Stmt::SumRange | Stmt::OrderRange | Stmt::DistinctRange => {
                let id = self.id();
                self.exec(t, stmt.kinds()[0], &[Param::Int(id), Param::Int(id + range - 1)])
            }
            Stmt::IndexUpdate => {
                let id = self.id();
                self.exec(t, Kind::IndexUpdate, &[Param::Int(id)])
            }
            Stmt::NonIndexUpdate => {
                let mut c = std::mem::take(&mut self.c_buf);
                self.rng.string_into(C_TEMPLATE, &mut c);
                let id = self.id();
                let r = self.exec(t, Kind::NonIndexUpdate, &[Param::Text(&c), Param::Int(id)]);
                self.c_buf = c;
                r
            }
            Stmt::DeleteInsert => {
                let id = self.id();
                let k = self.id();
                let mut c = std::mem::take(&mut self.c_buf);
                let mut pad = std::mem::take(&mut self.pad_buf);
                self.rng.string_into(C_TEMPLATE, &mut c);
                self.rng.string_into(PAD_TEMPLATE, &mut pad);
                let r = self.exec(t, Kind::Delete, &[Param::Int(id)]).and_then(|()| {
                    self.exec(t, Kind::Insert, &[Param::Int(id), Param::Int(k), Param::Text(&c), Param::Text(&pad)])
                });
                self.c_buf = c;
                self.pad_buf = pad;
                r
            }
            Stmt::Delete => {
                let id = self.id();
                self.exec(t, Kind::Delete, &[Param::Int(id)])
            }
            Stmt::TextInsert => {
                let k = self.id();
                let c = self.rng.string(C_TEMPLATE);
                let pad = self.rng.string(PAD_TEMPLATE);
                let text = format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (0, {k}, '{c}', '{pad}')");
                put_text(&mut self.out, COM_QUERY, &text)?;
                self.steps.push(Step { end: self.out.len(), kind: Kind::Insert, table: t });
                Ok(())
            }
        }
    }
}
