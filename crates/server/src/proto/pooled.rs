//! A connection served by the thread pool ([`super::pool`]): the same
//! login and command loop as a connection thread's (`conn.rs`), cut at
//! command boundaries. Between commands the connection owns its stream,
//! session and buffers, and no thread.
//!
//! Invariant: the backend hears of the connection opened on its first
//! [`Client::serve`] and closed exactly once, when it is dropped (by the
//! worker that saw it end, or by the pool when it stops).

use std::any::Any;
use std::io::{self, ErrorKind, Read, Write};
use std::os::fd::RawFd;
use std::sync::Arc;
use std::time::Duration;

use super::conn::{login, Conn, ConnEnv, ConnOptions, Flow};
use super::packet::PacketError;
use super::pool::{Client, Priority, Served};
use super::socket::SocketControl;
use super::{Backend, ConnEnd};

enum Phase<S, T> {
    /// Accepted; the login is next.
    Accepted(S),
    /// Logged in, between commands (boxed: a connection state is large).
    Ready(Box<Conn<S, T>>),
    Ended,
}

pub(super) struct Pooled<B: Backend, S> {
    backend: Arc<B>,
    id: u32,
    /// The client's address for access checks and messages.
    host: String,
    /// `ip:port` for SHOW PROCESSLIST.
    peer: String,
    options: ConnOptions,
    control: Arc<dyn SocketControl>,
    fd: RawFd,
    /// More connections are open than `max_connections`.
    over_limit: Arc<dyn Fn() -> bool + Send + Sync>,
    phase: Phase<S, B::Session>,
    /// The backend was told the connection opened.
    opened: bool,
    end: ConnEnd,
    /// Idle beyond `wait_timeout`: the next serve ends it.
    timed_out: bool,
    /// Its wait instruments (performance_schema's thread of the
    /// connection, whichever worker serves it).
    waits: quire_engine::wait::ConnectionSlot,
    /// Dropped with the connection (the listener's open count).
    _guard: Box<dyn Any + Send>,
}

impl<B: Backend, S: Read + Write + Send + 'static> Pooled<B, S> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        backend: Arc<B>,
        stream: S,
        id: u32,
        host: String,
        peer: String,
        options: ConnOptions,
        control: Arc<dyn SocketControl>,
        fd: RawFd,
        over_limit: Arc<dyn Fn() -> bool + Send + Sync>,
        guard: Box<dyn Any + Send>,
    ) -> Self {
        Pooled {
            backend,
            id,
            host,
            peer,
            options,
            control,
            fd,
            over_limit,
            phase: Phase::Accepted(stream),
            opened: false,
            end: ConnEnd::LoginFailed,
            timed_out: false,
            waits: quire_engine::wait::ConnectionSlot::new(u64::from(id)),
            _guard: guard,
        }
    }

    fn log_end(&self, r: io::Result<()>) {
        match r {
            Ok(()) => tracing::debug!("connection {} from {} closed", self.id, self.host),
            Err(e) => tracing::debug!("connection {} from {} ended: {e}", self.id, self.host),
        }
    }

    /// Ends a logged-in connection with `r`.
    fn finish(&mut self, conn: &mut Conn<S, B::Session>, r: Result<(), PacketError>) -> Served {
        let (how, r) = conn.finish(r, self.id, &self.host);
        self.end = how;
        self.log_end(r);
        Served::Close
    }

    fn serve_phase(&mut self) -> Served {
        let mut conn = match std::mem::replace(&mut self.phase, Phase::Ended) {
            Phase::Ended => return Served::Close,
            Phase::Ready(conn) => conn,
            Phase::Accepted(stream) => {
                let control = Arc::clone(&self.control);
                self.backend.connection_opened(self.id, &self.peer, Some(Box::new(move || control.shutdown())));
                self.opened = true;
                let over_limit = Arc::clone(&self.over_limit);
                let env = ConnEnv {
                    peer: &self.peer,
                    socket: Some(Arc::clone(&self.control)),
                    over_limit: &*over_limit,
                    socket_fd: Some(self.fd),
                };
                // The login mostly waits for the client: a wait, for the
                // pool (its group may serve others meanwhile).
                let logged_in =
                    quire_engine::txn::admission::lend(quire_engine::wait::Instrument::ClientSocket, || {
                        login(&*self.backend, stream, self.id, &self.host, &self.options, &env)
                    });
                match logged_in {
                    Ok(conn) => {
                        let conn = Box::new(conn);
                        self.end = ConnEnd::Aborted;
                        if !conn.has_buffered_input() {
                            self.phase = Phase::Ready(conn);
                            return Served::Wait;
                        }
                        conn
                    }
                    Err(r) => {
                        self.log_end(r);
                        return Served::Close;
                    }
                }
            }
        };
        if self.timed_out {
            let e = io::Error::new(ErrorKind::TimedOut, "wait_timeout");
            return self.finish(&mut conn, Err(PacketError::Io(e)));
        }
        // Every command that has arrived; pipelined ones wait in the
        // read buffer, where epoll would not report them.
        loop {
            match conn.step() {
                Ok(Flow::Next) if conn.has_buffered_input() => continue,
                Ok(Flow::Next) => {
                    self.phase = Phase::Ready(conn);
                    return Served::Wait;
                }
                Ok(Flow::Quit) => return self.finish(&mut conn, Ok(())),
                Err(e) => return self.finish(&mut conn, Err(e)),
            }
        }
    }
}

impl<B: Backend, S: Read + Write + Send + 'static> Client for Pooled<B, S> {
    fn serve(&mut self) -> Served {
        // The worker records the connection's waits in its slot.
        let _attached = self.waits.attach();
        self.serve_phase()
    }

    fn fd(&self) -> RawFd {
        self.fd
    }

    fn in_transaction(&self) -> bool {
        match &self.phase {
            Phase::Ready(conn) => conn.in_transaction(),
            _ => false,
        }
    }

    fn priority(&self) -> Option<Priority> {
        match &self.phase {
            Phase::Ready(conn) => conn.pool_priority(),
            _ => None,
        }
    }

    fn idle_timeout(&self) -> Option<Duration> {
        match &self.phase {
            Phase::Ready(conn) => conn.idle_timeout(),
            _ => None,
        }
    }

    fn time_out(&mut self) {
        self.timed_out = true;
    }
}

impl<B: Backend, S> Drop for Pooled<B, S> {
    fn drop(&mut self) {
        // The session ends (rolling back an open transaction) before the
        // backend hears the connection closed.
        let _attached = self.waits.attach();
        self.phase = Phase::Ended;
        if self.opened {
            self.backend.connection_closed(self.id, self.end);
        }
    }
}
