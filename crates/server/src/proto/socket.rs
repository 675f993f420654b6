//! What may be done to a connection's socket besides reading and writing
//! it: bound its reads (`connect_timeout` during the handshake,
//! `wait_timeout` between commands) and its writes (`net_write_timeout`),
//! and shut it down from another thread
//! (KILL CONNECTION), which makes a blocked read return at once.
//!
//! The listener hands each connection a clone of its socket (`dup`): socket
//! options and shutdown act on the socket, not on one descriptor, so the
//! clone controls the stream the connection thread reads.

use std::io;
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// Control of a connection's socket, shared between its thread and
/// whoever may kill it.
pub trait SocketControl: Send + Sync {
    /// Reads give up (`WouldBlock` / `TimedOut`) after `t`; `None`: never.
    fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()>;
    /// Writes give up after blocking for `t` (a client that stopped
    /// reading); `None`: never.
    fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()>;
    /// Shuts both directions: the peer sees the connection closed, and a
    /// read blocked on it returns end of stream.
    fn shutdown(&self);
}

/// A zero timeout means "none" to the socket API: the shortest real one
/// is used instead.
fn nonzero(t: Option<Duration>) -> Option<Duration> {
    t.map(|d| d.max(Duration::from_millis(1)))
}

impl SocketControl for TcpStream {
    fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        TcpStream::set_read_timeout(self, nonzero(t))
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        TcpStream::set_write_timeout(self, nonzero(t))
    }
    fn shutdown(&self) {
        let _ = TcpStream::shutdown(self, Shutdown::Both);
    }
}

impl SocketControl for UnixStream {
    fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        UnixStream::set_read_timeout(self, nonzero(t))
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        UnixStream::set_write_timeout(self, nonzero(t))
    }
    fn shutdown(&self) {
        let _ = UnixStream::shutdown(self, Shutdown::Both);
    }
}

/// Whether a read or write failed because its timeout passed.
pub fn is_timeout(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}
