//! Packet framing: every message travels as packets of
//!
//! ```text
//! +---------------------+-------------+-----------------------+
//! | payload length: u24 | seq id: u8  | payload (length bytes)|
//! +---------------------+-------------+-----------------------+
//! ```
//!
//! A payload of `0xffffff` bytes or more is split into chunks of exactly
//! `0xffffff` bytes followed by one shorter chunk (possibly empty); the
//! reader joins chunks until it sees a short one.
//!
//! Invariants:
//! 1. Sequence ids count up (wrapping) across both directions within one
//!    command or the handshake: the reader expects `seq`, the writer sends
//!    `seq`, each packet moves it on by one. [`PacketIo::reset_seq`] starts a
//!    command at 0.
//! 2. A logical payload larger than `max_payload_bytes` is never buffered:
//!    the reader discards the oversized chunk's bytes (so that the client
//!    can read the error instead of a reset) and returns
//!    [`PacketError::TooLarge`]; the caller then answers ERR 1153 and closes.
//! 3. Writes are buffered until [`PacketIo::flush`] (or until the buffer
//!    passes [`FLUSH_AT_BYTES`]), so that a reply costs one system call.
//!
//! Not thread-safe: one connection thread owns its `PacketIo`.

use std::io::{self, ErrorKind, Read, Write};

/// The largest chunk; a chunk of this length says "more follows".
pub const MAX_CHUNK_BYTES: usize = 0xff_ffff;

/// Buffered output is written out once it grows past this.
pub const FLUSH_AT_BYTES: usize = 64 * 1024;

/// How a packet could not be read.
#[derive(Debug)]
pub enum PacketError {
    /// The peer closed the connection between packets.
    Closed,
    /// The peer closed the connection inside a packet.
    Truncated,
    /// The packet's sequence id was not the expected one.
    OutOfOrder {
        expected: u8,
        got: u8,
    },
    /// The payload exceeds `max_allowed_packet` (invariant 2).
    TooLarge,
    Io(io::Error),
}

impl std::fmt::Display for PacketError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PacketError::Closed => write!(f, "connection closed"),
            PacketError::Truncated => write!(f, "connection closed inside a packet"),
            PacketError::OutOfOrder { expected, got } => {
                write!(f, "packet out of order: expected sequence id {expected}, got {got}")
            }
            PacketError::TooLarge => write!(f, "packet larger than max_allowed_packet"),
            PacketError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PacketError {}

impl From<io::Error> for PacketError {
    fn from(e: io::Error) -> Self {
        if e.kind() == ErrorKind::UnexpectedEof {
            PacketError::Truncated
        } else {
            PacketError::Io(e)
        }
    }
}

/// Reads and writes packets on one stream.
pub struct PacketIo<S> {
    /// The connection.
    stream: S,
    /// Read buffer; `rbuf[rpos..rend]` is received but not consumed.
    rbuf: Box<[u8]>,
    rpos: usize,
    rend: usize,
    /// Packets written but not yet flushed.
    wbuf: Vec<u8>,
    /// The next sequence id, in either direction (invariant 1).
    seq: u8,
    /// The largest logical payload accepted (invariant 2).
    max_payload_bytes: usize,
    /// The stream's socket, when it is one: [`PacketIo::flush`] first
    /// tries to write without blocking, and only a write that would block
    /// counts as a wait.
    socket_fd: Option<std::os::fd::RawFd>,
}

impl<S: Read + Write> PacketIo<S> {
    pub fn new(stream: S, max_payload_bytes: usize) -> Self {
        Self {
            stream,
            rbuf: vec![0u8; 16 * 1024].into_boxed_slice(),
            rpos: 0,
            rend: 0,
            wbuf: Vec::with_capacity(16 * 1024),
            seq: 0,
            max_payload_bytes,
            socket_fd: None,
        }
    }

    /// Tells that the stream is the socket `fd` (the stream's own reads
    /// and writes act on that same socket).
    pub fn set_socket_fd(&mut self, fd: std::os::fd::RawFd) {
        self.socket_fd = Some(fd);
    }

    /// The read buffer holds bytes not yet consumed (a pipelined command).
    pub fn has_buffered_input(&self) -> bool {
        self.rpos < self.rend
    }

    pub fn set_max_payload_bytes(&mut self, n: usize) {
        self.max_payload_bytes = n;
    }

    /// Starts a new command: the client's packet carries sequence id 0.
    pub fn reset_seq(&mut self) {
        self.seq = 0;
    }

    /// The sequence id the next packet (either way) carries.
    pub fn seq(&self) -> u8 {
        self.seq
    }

    /// Refills the read buffer; `Ok(0)` at end of stream.
    fn fill(&mut self) -> io::Result<usize> {
        debug_assert_eq!(self.rpos, self.rend);
        loop {
            match self.stream.read(&mut self.rbuf) {
                Ok(n) => {
                    self.rpos = 0;
                    self.rend = n;
                    return Ok(n);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Appends exactly `n` bytes from the stream to `out`.
    fn read_into(&mut self, out: &mut Vec<u8>, mut n: usize) -> Result<(), PacketError> {
        while n > 0 {
            if self.rpos == self.rend && self.fill()? == 0 {
                return Err(PacketError::Truncated);
            }
            let take = n.min(self.rend - self.rpos);
            out.extend_from_slice(&self.rbuf[self.rpos..self.rpos + take]);
            self.rpos += take;
            n -= take;
        }
        Ok(())
    }

    /// Fills `dst` from the stream.
    fn read_exact(&mut self, dst: &mut [u8]) -> Result<(), PacketError> {
        let mut at = 0;
        while at < dst.len() {
            if self.rpos == self.rend && self.fill()? == 0 {
                return Err(PacketError::Truncated);
            }
            let take = (dst.len() - at).min(self.rend - self.rpos);
            dst[at..at + take].copy_from_slice(&self.rbuf[self.rpos..self.rpos + take]);
            self.rpos += take;
            at += take;
        }
        Ok(())
    }

    /// Consumes and drops `n` bytes from the stream.
    fn discard(&mut self, mut n: usize) -> Result<(), PacketError> {
        while n > 0 {
            if self.rpos == self.rend && self.fill()? == 0 {
                return Err(PacketError::Truncated);
            }
            let take = n.min(self.rend - self.rpos);
            self.rpos += take;
            n -= take;
        }
        Ok(())
    }

    /// Reads one logical packet (all its chunks) into `out`, replacing its
    /// contents.
    pub fn read_packet_into(&mut self, out: &mut Vec<u8>) -> Result<(), PacketError> {
        out.clear();
        let mut first = true;
        loop {
            if first && self.rpos == self.rend && self.fill()? == 0 {
                return Err(PacketError::Closed);
            }
            first = false;
            let mut header = [0u8; 4];
            self.read_exact(&mut header)?;
            let len = usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
            let got = header[3];
            if got != self.seq {
                return Err(PacketError::OutOfOrder { expected: self.seq, got });
            }
            self.seq = self.seq.wrapping_add(1);
            if out.len().saturating_add(len) > self.max_payload_bytes {
                // Best effort: a client that sent the whole chunk can then
                // read our ERR rather than a connection reset.
                let _ = self.discard(len);
                return Err(PacketError::TooLarge);
            }
            self.read_into(out, len)?;
            if len < MAX_CHUNK_BYTES {
                return Ok(());
            }
        }
    }

    /// Reads one logical packet.
    pub fn read_packet(&mut self) -> Result<Vec<u8>, PacketError> {
        let mut out = Vec::new();
        self.read_packet_into(&mut out)?;
        Ok(out)
    }

    /// Queues `payload` as one logical packet (split into chunks as needed).
    pub fn write_packet(&mut self, payload: &[u8]) -> io::Result<()> {
        let mut rest = payload;
        loop {
            let n = rest.len().min(MAX_CHUNK_BYTES);
            let len = (n as u32).to_le_bytes();
            self.wbuf.extend_from_slice(&[len[0], len[1], len[2], self.seq]);
            self.wbuf.extend_from_slice(&rest[..n]);
            self.seq = self.seq.wrapping_add(1);
            rest = &rest[n..];
            if self.wbuf.len() >= FLUSH_AT_BYTES {
                self.flush()?;
            }
            if n < MAX_CHUNK_BYTES {
                return Ok(());
            }
        }
    }

    /// Writes out everything queued.
    pub fn flush(&mut self) -> io::Result<()> {
        use quire_engine::wait::{self, Instrument};
        let mut sent = 0;
        if let Some(fd) = self.socket_fd.filter(|_| !self.wbuf.is_empty()) {
            sent = wait::time(Instrument::ClientSocket, || send_now(fd, &self.wbuf))?;
            if sent == self.wbuf.len() {
                self.wbuf.clear();
                return Ok(());
            }
        }
        // A client slow to read blocks the statement: the thread says so
        // (its engine seat, `innodb_thread_concurrency`, is lent, and a
        // thread pool may run another worker meanwhile).
        quire_engine::txn::admission::blocking(Instrument::ClientSocket, || {
            if sent < self.wbuf.len() {
                self.stream.write_all(&self.wbuf[sent..])?;
            }
            self.wbuf.clear();
            self.stream.flush()
        })
    }

    /// The underlying stream.
    pub fn get_ref(&self) -> &S {
        &self.stream
    }
}

/// Writes what the socket takes without blocking: the count written
/// (short when its send buffer filled up).
fn send_now(fd: std::os::fd::RawFd, buf: &[u8]) -> io::Result<usize> {
    let mut at = 0;
    while at < buf.len() {
        let rest = &buf[at..];
        // SAFETY: `rest` is a live slice for the call; `fd` is the open
        // socket of the stream this PacketIo owns.
        let n = unsafe { libc::send(fd, rest.as_ptr().cast(), rest.len(), libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL) };
        if n >= 0 {
            at += n as usize;
            continue;
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            ErrorKind::Interrupted => continue,
            ErrorKind::WouldBlock => break,
            _ => return Err(e),
        }
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An in-memory duplex: reads from `input`, writes to `output`.
    struct Pipe {
        input: io::Cursor<Vec<u8>>,
        output: Vec<u8>,
    }

    impl Read for Pipe {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn pipe(input: Vec<u8>) -> PacketIo<Pipe> {
        PacketIo::new(Pipe { input: io::Cursor::new(input), output: Vec::new() }, 64 << 20)
    }

    #[test]
    fn payloads_at_the_chunk_boundary_split_and_join_back() {
        for len in [0, 1, MAX_CHUNK_BYTES - 1, MAX_CHUNK_BYTES, MAX_CHUNK_BYTES + 1, 2 * MAX_CHUNK_BYTES] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut w = pipe(Vec::new());
            w.write_packet(&payload).unwrap();
            w.flush().unwrap();
            let wire = std::mem::take(&mut w.stream.output);
            let chunks = len / MAX_CHUNK_BYTES + 1;
            assert_eq!(wire.len(), len + 4 * chunks, "len {len}");
            let mut r = pipe(wire);
            assert_eq!(r.read_packet().unwrap(), payload);
            assert_eq!(r.seq(), chunks as u8);
            assert!(matches!(r.read_packet(), Err(PacketError::Closed)));
        }
    }

    #[test]
    fn truncated_header_and_body_are_errors() {
        assert!(matches!(pipe(vec![5, 0]).read_packet(), Err(PacketError::Truncated)));
        assert!(matches!(pipe(vec![5, 0, 0, 0, b'a']).read_packet(), Err(PacketError::Truncated)));
    }

    #[test]
    fn wrong_sequence_id_is_out_of_order() {
        let r = pipe(vec![1, 0, 0, 7, b'x']).read_packet();
        assert!(matches!(r, Err(PacketError::OutOfOrder { expected: 0, got: 7 })));
    }

    #[test]
    fn oversized_payload_is_discarded_and_reported() {
        let mut wire = vec![10, 0, 0, 0];
        wire.extend_from_slice(&[b'z'; 10]);
        wire.extend_from_slice(&[1, 0, 0, 0, b'k']);
        let mut r = pipe(wire);
        r.set_max_payload_bytes(5);
        assert!(matches!(r.read_packet(), Err(PacketError::TooLarge)));
        // The oversized bytes were consumed; the stream is still framed.
        r.reset_seq();
        assert_eq!(r.read_packet().unwrap(), b"k");
    }
}
