//! One worker thread: an event loop (mio, epoll on Linux) driving its
//! share of the clients, each on its own connection with at most one
//! statement outstanding, as a sysbench thread has.
//!
//! A client's states ([`Phase`]) and what moves them ([`Worker::on_reply`]):
//!
//! | phase | event | next |
//! |---|---|---|
//! | `Idle` | the run starts | `Statement` (first event) or `Done` |
//! | `Statement` | reply OK, more commands in the attempt | `Statement` (next command sent) |
//! | `Statement` | reply OK, attempt complete | event recorded; `Statement` (new event) or `Done` (time up, budget spent) |
//! | `Statement` | ERR 1213 / 1205, transactional | `Rollback` (ROLLBACK sent) |
//! | `Statement` | ERR 1213 / 1205, autocommit | `Statement` (new attempt) or `Done` when stopping |
//! | `Rollback` | any reply | `Statement` (new attempt) or `Done` when stopping |
//! | any | other ERR, I/O error | the run stops with the error |
//!
//! An event's latency runs from the start of its first attempt (before its
//! first command is sent) to the reply that completes it, retries included.
//!
//! Invariants:
//! 1. A client in `Statement` or `Rollback` has exactly one command
//!    outstanding: `sent` bytes of it are written, the rest wait for the
//!    socket to be writable.
//! 2. A reply is read only up to its end; the loop does not read on to
//!    `WouldBlock`, because the server sends nothing more before the next
//!    command, and epoll in edge-triggered mode signals each arrival of
//!    data (so the next reply still wakes the loop).
//! 3. Once `stop` is set no event starts; the loop ends when every client
//!    is `Done` (in-flight events finish and are recorded, as sysbench's
//!    threads finish theirs).

use std::io::{self, Read, Write};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

use super::session::Session;
use super::stats::Slot;
use super::wire::{retryable, Outcome, Reply, WireError};
use super::Shared;

/// `ROLLBACK` as a COM_QUERY packet.
pub const ROLLBACK_PACKET: &[u8] = b"\x09\x00\x00\x00\x03ROLLBACK";

/// How long the loop sleeps in `epoll_wait` at most.
const POLL_TIMEOUT: Duration = Duration::from_millis(100);

/// Receive buffer per connection to start with; it grows for a larger reply.
const INBUF_BYTES: usize = 16 << 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Connected, before its first event.
    Idle,
    Statement,
    Rollback,
    Done,
}

/// One connection and its client.
pub struct Client {
    stream: TcpStream,
    session: Session,
    reply: Reply,
    inbuf: Vec<u8>,
    filled: usize,
    /// Bytes of the outstanding command already written.
    sent: usize,
    phase: Phase,
    /// When the current event started.
    started: Instant,
    /// Retryable errors the current event has hit.
    errors: u64,
}

impl Client {
    /// `stream` is a logged-in connection (no reply outstanding) on which
    /// `session` prepared its statements.
    pub fn new(stream: std::net::TcpStream, deprecate_eof: bool, session: Session) -> io::Result<Client> {
        stream.set_nonblocking(true)?;
        Ok(Client {
            stream: TcpStream::from_std(stream),
            session,
            reply: Reply::new(deprecate_eof),
            inbuf: vec![0; INBUF_BYTES],
            filled: 0,
            sent: 0,
            phase: Phase::Idle,
            started: Instant::now(),
            errors: 0,
        })
    }

    fn pending(&self) -> &[u8] {
        match self.phase {
            Phase::Statement => self.session.command(),
            Phase::Rollback => ROLLBACK_PACKET,
            Phase::Idle | Phase::Done => &[],
        }
    }

    /// Writes what is left of the outstanding command.
    fn flush(&mut self) -> io::Result<()> {
        loop {
            let total = self.pending().len();
            if self.sent >= total {
                return Ok(());
            }
            let r = match self.phase {
                Phase::Statement => self.stream.write(&self.session.command()[self.sent..]),
                Phase::Rollback => self.stream.write(&ROLLBACK_PACKET[self.sent..]),
                Phase::Idle | Phase::Done => return Ok(()),
            };
            match r {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Sends a new command (the session's current one, or ROLLBACK).
    fn send(&mut self, phase: Phase) -> io::Result<()> {
        self.phase = phase;
        self.sent = 0;
        self.reply.reset();
        self.flush()
    }

    /// Reads what has arrived; the reply's outcome once it is complete.
    fn receive(&mut self) -> Result<Option<Outcome>, WireError> {
        loop {
            if self.filled == self.inbuf.len() {
                self.inbuf.resize(self.inbuf.len() * 2, 0);
            }
            match self.stream.read(&mut self.inbuf[self.filled..]) {
                Ok(0) => {
                    return Err(WireError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    )))
                }
                Ok(n) => {
                    self.filled += n;
                    let (used, outcome) = self.reply.feed(&self.inbuf[..self.filled])?;
                    self.inbuf.copy_within(used..self.filled, 0);
                    self.filled -= used;
                    if outcome.is_some() {
                        return Ok(outcome);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// A statement's failure that stops the run: its SQL and the error.
pub struct Fatal {
    pub sql: String,
    pub error: WireError,
}

/// The clients of one worker thread.
pub struct Worker<'a> {
    poll: Poll,
    clients: Vec<Client>,
    /// Clients not `Done`.
    active: usize,
    shared: &'a Shared,
    slot: &'a Slot,
}

impl<'a> Worker<'a> {
    pub(super) fn new(clients: Vec<Client>, shared: &'a Shared, slot: &'a Slot) -> io::Result<Worker<'a>> {
        let poll = Poll::new()?;
        let active = clients.len();
        let mut w = Worker { poll, clients, active, shared, slot };
        for (i, c) in w.clients.iter_mut().enumerate() {
            w.poll.registry().register(&mut c.stream, Token(i), Interest::READABLE | Interest::WRITABLE)?;
        }
        Ok(w)
    }

    /// Runs events until time is up or the budget is spent.
    pub fn run(&mut self) -> Result<(), Fatal> {
        for i in 0..self.clients.len() {
            self.next_event(i)?;
        }
        let mut events = Events::with_capacity(self.clients.len().clamp(16, 1024));
        while self.active > 0 {
            if let Err(e) = self.poll.poll(&mut events, Some(POLL_TIMEOUT)) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Fatal { sql: "(epoll_wait)".into(), error: e.into() });
            }
            for ev in events.iter() {
                let i = ev.token().0;
                if ev.is_writable() {
                    self.clients[i].flush().map_err(|e| self.fatal(i, e.into()))?;
                }
                if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
                    let c = &mut self.clients[i];
                    if matches!(c.phase, Phase::Idle | Phase::Done) {
                        continue;
                    }
                    match c.receive() {
                        Ok(Some(o)) => self.on_reply(i, o)?,
                        Ok(None) => {}
                        Err(e) => return Err(self.fatal(i, e)),
                    }
                }
            }
        }
        Ok(())
    }

    fn fatal(&self, i: usize, error: WireError) -> Fatal {
        self.shared.stop.store(true, Ordering::Release);
        let c = &self.clients[i];
        let sql = match c.phase {
            Phase::Statement => c.session.current_sql(),
            Phase::Rollback => "ROLLBACK".into(),
            Phase::Idle | Phase::Done => String::new(),
        };
        Fatal { sql, error }
    }

    fn stopping(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Starts client `i`'s next event, or makes it `Done`.
    fn next_event(&mut self, i: usize) -> Result<(), Fatal> {
        let spent = self.shared.budget.as_ref().is_some_and(|b| b.fetch_sub(1, Ordering::AcqRel) <= 0);
        if self.stopping() || spent {
            self.done(i);
            return Ok(());
        }
        let c = &mut self.clients[i];
        c.started = Instant::now();
        c.errors = 0;
        self.attempt(i)
    }

    /// Encodes and sends a new attempt of client `i`'s event.
    fn attempt(&mut self, i: usize) -> Result<(), Fatal> {
        let c = &mut self.clients[i];
        if let Err(e) = c.session.start_attempt() {
            return Err(self.fatal(i, e));
        }
        self.clients[i].send(Phase::Statement).map_err(|e| self.fatal(i, e.into()))
    }

    fn on_reply(&mut self, i: usize, outcome: Outcome) -> Result<(), Fatal> {
        let c = &mut self.clients[i];
        match (c.phase, outcome) {
            (Phase::Statement, Outcome::Done { .. }) => {
                if !c.session.advance() {
                    return c.send(Phase::Statement).map_err(|e| self.fatal(i, e.into()));
                }
                let us = c.started.elapsed().as_micros().min(u128::from(u64::MAX)) as u64;
                self.slot.record(us, &c.session.counts, c.errors);
                self.next_event(i)
            }
            (Phase::Statement, Outcome::Failed(e)) if retryable(&e) => {
                c.errors += 1;
                if c.session.transactional() {
                    return c.send(Phase::Rollback).map_err(|e| self.fatal(i, e.into()));
                }
                self.retry(i)
            }
            (Phase::Statement, Outcome::Failed(e)) => Err(self.fatal(i, WireError::Server(e))),
            // The rollback's own result does not matter (as before a retry
            // in sysbench): the transaction is over either way.
            (Phase::Rollback, _) => self.retry(i),
            // Idle and Done clients have no command outstanding.
            (Phase::Idle | Phase::Done, _) => Ok(()),
        }
    }

    fn done(&mut self, i: usize) {
        debug_assert_ne!(self.clients[i].phase, Phase::Done);
        self.clients[i].phase = Phase::Done;
        self.active -= 1;
    }

    /// After a retryable error: the event again, unless the run is ending.
    fn retry(&mut self, i: usize) -> Result<(), Fatal> {
        if self.stopping() {
            let c = &mut self.clients[i];
            self.slot.record_errors(c.errors);
            self.done(i);
            return Ok(());
        }
        self.attempt(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rollback_packet_is_a_com_query() {
        let mut b = Vec::new();
        super::super::wire::command::put_text(&mut b, super::super::wire::command::COM_QUERY, "ROLLBACK")
            .expect("small");
        assert_eq!(b, ROLLBACK_PACKET);
    }
}
