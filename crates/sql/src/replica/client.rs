//! The receiver's MySQL client: just what a replica says to its source
//! (the handshake with `mysql_native_password` or the
//! `caching_sha2_password` fast path, COM_QUERY, COM_REGISTER_SLAVE,
//! COM_BINLOG_DUMP) and the event stream that follows.
//!
//! Packets are `len u24 | seq u8 | payload`; a payload of 0xffffff bytes
//! continues in the next packet (events larger than 16 MiB arrive so).
//! Every read is bounds-checked: a malformed packet is an error.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

const MAX_PACKET: usize = 0xff_ffff;

/// Capability flags (MySQL `CLIENT_*`).
mod cap {
    pub const LONG_PASSWORD: u32 = 1;
    pub const LONG_FLAG: u32 = 4;
    pub const PROTOCOL_41: u32 = 0x200;
    pub const TRANSACTIONS: u32 = 0x2000;
    pub const SECURE_CONNECTION: u32 = 0x8000;
    pub const PLUGIN_AUTH: u32 = 0x8_0000;
}

/// A failure talking to the source: the connection or the protocol
/// (`code` 0), or an error packet from the source.
#[derive(Debug, Clone)]
pub struct ClientError {
    pub code: u16,
    pub message: String,
}

impl ClientError {
    fn io(e: std::io::Error) -> Self {
        ClientError { code: 0, message: e.to_string() }
    }

    fn protocol(m: impl Into<String>) -> Self {
        ClientError { code: 0, message: m.into() }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.code == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "error {}: {}", self.code, self.message)
        }
    }
}

type R<T> = Result<T, ClientError>;

/// A logged-in connection to the source.
pub struct Client {
    stream: TcpStream,
    pub server_version: String,
}

/// The proof of `password` for `plugin` over `scramble`.
fn proof(plugin: &str, password: &str, scramble: &[u8]) -> R<Vec<u8>> {
    if password.is_empty() {
        return Ok(Vec::new());
    }
    match plugin {
        "mysql_native_password" => Ok(crate::password::scramble_native(scramble, password)),
        "caching_sha2_password" => Ok(crate::password::scramble_sha2(scramble, password)),
        other => Err(ClientError::protocol(format!("authentication plugin '{other}' is not supported by the replica"))),
    }
}

/// An error packet's code and message.
fn parse_err(p: &[u8]) -> ClientError {
    let code = p.get(1..3).map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
    let msg = if p.get(3) == Some(&b'#') { p.get(9..) } else { p.get(3..) };
    ClientError { code, message: String::from_utf8_lossy(msg.unwrap_or_default()).into_owned() }
}

/// A length-encoded integer at `p[*i]`.
fn lenenc(p: &[u8], i: &mut usize) -> Option<u64> {
    let b = *p.get(*i)?;
    *i += 1;
    let n = match b {
        0..=250 => return Some(u64::from(b)),
        251 => return Some(u64::MAX), // NULL
        252 => 2,
        253 => 3,
        254 => 8,
        _ => return None,
    };
    let s = p.get(*i..*i + n)?;
    *i += n;
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(s);
    Some(u64::from_le_bytes(buf))
}

impl Client {
    /// Connects and logs in as `user`.
    pub fn connect(host: &str, port: u16, user: &str, password: &str, timeout: Duration) -> R<Client> {
        let mut last = None;
        let mut stream = None;
        for addr in (host, port).to_socket_addrs().map_err(ClientError::io)? {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let stream = match (stream, last) {
            (Some(s), _) => s,
            (None, Some(e)) => return Err(ClientError::io(e)),
            (None, None) => return Err(ClientError::protocol(format!("'{host}' resolves to no address"))),
        };
        let _ = stream.set_nodelay(true);
        stream.set_read_timeout(Some(timeout)).map_err(ClientError::io)?;
        let mut c = Client { stream, server_version: String::new() };
        c.login(user, password)?;
        Ok(c)
    }

    /// A clone of the socket (to shut it down from another thread).
    pub fn socket(&self) -> Option<TcpStream> {
        self.stream.try_clone().ok()
    }

    /// Whether bytes wait in the socket (a non-blocking peek).
    pub fn has_pending(&self) -> bool {
        use std::os::fd::AsRawFd;
        let mut b = [0u8; 1];
        // One system call: a peek that does not wait (the receiver asks
        // before each event while a boundary waits to be published).
        // SAFETY: a valid socket and a one-byte buffer we own.
        let n = unsafe {
            libc::recv(self.stream.as_raw_fd(), b.as_mut_ptr().cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT)
        };
        n > 0
    }

    pub fn set_read_timeout(&self, t: Option<Duration>) -> R<()> {
        self.stream.set_read_timeout(t).map_err(ClientError::io)
    }

    fn login(&mut self, user: &str, password: &str) -> R<()> {
        let (_, g) = self.read_packet()?;
        if g.first() == Some(&0xff) {
            return Err(parse_err(&g));
        }
        if g.first() != Some(&10) {
            return Err(ClientError::protocol("the source speaks no handshake protocol 10"));
        }
        let bad = || ClientError::protocol("a malformed handshake from the source");
        let nul = g[1..].iter().position(|&b| b == 0).ok_or_else(bad)?;
        self.server_version = String::from_utf8_lossy(&g[1..1 + nul]).into_owned();
        let mut i = 1 + nul + 1 + 4;
        let mut scramble = g.get(i..i + 8).ok_or_else(bad)?.to_vec();
        i += 9;
        let low = u32::from(u16::from_le_bytes(g.get(i..i + 2).ok_or_else(bad)?.try_into().map_err(|_| bad())?));
        i += 2 + 1 + 2;
        let high = g.get(i..i + 2).map_or(0, |b| u32::from(u16::from_le_bytes([b[0], b[1]])));
        let caps = low | (high << 16);
        i += 2;
        let data_len = usize::from(*g.get(i).unwrap_or(&0));
        i += 1 + 10;
        if caps & cap::SECURE_CONNECTION != 0 {
            let n = data_len.saturating_sub(8).max(13);
            let part = g.get(i..i + n).ok_or_else(bad)?;
            scramble.extend_from_slice(part.strip_suffix(&[0]).unwrap_or(part));
            i += n;
        }
        let mut plugin = if caps & cap::PLUGIN_AUTH != 0 {
            let rest = g.get(i..).unwrap_or_default();
            let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            String::from_utf8_lossy(&rest[..end]).into_owned()
        } else {
            "mysql_native_password".to_string()
        };
        if plugin.is_empty() {
            plugin = "mysql_native_password".into();
        }
        let want = cap::LONG_PASSWORD
            | cap::LONG_FLAG
            | cap::PROTOCOL_41
            | cap::TRANSACTIONS
            | cap::SECURE_CONNECTION
            | cap::PLUGIN_AUTH;
        let used = want & caps;
        let first = proof(&plugin, password, &scramble).unwrap_or_default();
        let mut p = Vec::with_capacity(128);
        p.extend_from_slice(&used.to_le_bytes());
        p.extend_from_slice(&(16u32 << 20).to_le_bytes());
        p.push(45); // utf8mb4_general_ci
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(user.as_bytes());
        p.push(0);
        p.push(first.len() as u8);
        p.extend_from_slice(&first);
        if used & cap::PLUGIN_AUTH != 0 {
            p.extend_from_slice(plugin.as_bytes());
            p.push(0);
        }
        self.write_packet(1, &p)?;
        loop {
            let (seq, r) = self.read_packet()?;
            match r.first() {
                Some(0x00) => return Ok(()),
                Some(0xff) => return Err(parse_err(&r)),
                Some(0xfe) => {
                    // Auth switch: plugin name, then the new scramble.
                    let rest = &r[1..];
                    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
                    plugin = String::from_utf8_lossy(&rest[..end]).into_owned();
                    let data = rest.get(end + 1..).unwrap_or_default();
                    scramble = data.strip_suffix(&[0]).unwrap_or(data).to_vec();
                    let pr = proof(&plugin, password, &scramble)?;
                    self.write_packet(seq.wrapping_add(1), &pr)?;
                }
                // caching_sha2_password: 3 = fast path OK (OK follows).
                Some(0x01) if r.get(1) == Some(&3) => {}
                Some(0x01) => {
                    return Err(ClientError::protocol(
                        "caching_sha2_password asks for full authentication, which needs TLS: give the replication \
                         user mysql_native_password, or log in once with a client to fill the source's cache",
                    ))
                }
                _ => return Err(ClientError::protocol("an unexpected packet during authentication")),
            }
        }
    }

    fn write_packet(&mut self, seq: u8, payload: &[u8]) -> R<()> {
        let mut out = Vec::with_capacity(payload.len() + 4);
        let mut seq = seq;
        let mut rest = payload;
        loop {
            let n = rest.len().min(MAX_PACKET);
            out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
            out.push(seq);
            out.extend_from_slice(&rest[..n]);
            seq = seq.wrapping_add(1);
            rest = &rest[n..];
            if n < MAX_PACKET {
                break;
            }
        }
        self.stream.write_all(&out).map_err(ClientError::io)
    }

    /// One logical packet (continuations joined): (last seq, payload).
    pub fn read_packet(&mut self) -> R<(u8, Vec<u8>)> {
        let mut payload = Vec::new();
        loop {
            let mut h = [0u8; 4];
            self.stream.read_exact(&mut h).map_err(ClientError::io)?;
            let n = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
            let at = payload.len();
            payload.resize(at + n, 0);
            self.stream.read_exact(&mut payload[at..]).map_err(ClientError::io)?;
            if n < MAX_PACKET {
                return Ok((h[3], payload));
            }
        }
    }

    /// COM_QUERY; the first row's values (text; `None` for NULL), or
    /// none for a statement without rows.
    pub fn query(&mut self, sql: &str) -> R<Option<Vec<Option<String>>>> {
        let mut p = vec![0x03];
        p.extend_from_slice(sql.as_bytes());
        self.write_packet(0, &p)?;
        let (_, first) = self.read_packet()?;
        match first.first() {
            Some(0x00) => return Ok(None),
            Some(0xff) => return Err(parse_err(&first)),
            _ => {}
        }
        let mut i = 0;
        let ncols = lenenc(&first, &mut i).ok_or_else(|| ClientError::protocol("a bad column count"))?;
        for _ in 0..ncols {
            self.read_packet()?;
        }
        // EOF after the definitions (no CLIENT_DEPRECATE_EOF asked).
        self.read_packet()?;
        let mut row = None;
        loop {
            let (_, p) = self.read_packet()?;
            match p.first() {
                Some(0xfe) if p.len() < 9 => return Ok(row),
                Some(0xff) => return Err(parse_err(&p)),
                _ => {}
            }
            if row.is_none() {
                let mut vals = Vec::new();
                let mut j = 0;
                for _ in 0..ncols {
                    let n = lenenc(&p, &mut j).ok_or_else(|| ClientError::protocol("a bad row"))?;
                    if n == u64::MAX {
                        vals.push(None);
                    } else {
                        let s = p.get(j..j + n as usize).ok_or_else(|| ClientError::protocol("a bad row"))?;
                        vals.push(Some(String::from_utf8_lossy(s).into_owned()));
                        j += n as usize;
                    }
                }
                row = Some(vals);
            }
        }
    }

    /// COM_REGISTER_SLAVE.
    pub fn register_replica(&mut self, server_id: u32, report_host: &str, port: u16) -> R<()> {
        let mut p = vec![0x15];
        p.extend_from_slice(&server_id.to_le_bytes());
        for s in [report_host, "", ""] {
            p.push(s.len().min(255) as u8);
            p.extend_from_slice(&s.as_bytes()[..s.len().min(255)]);
        }
        p.extend_from_slice(&port.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes()); // rank
        p.extend_from_slice(&0u32.to_le_bytes()); // master id
        self.write_packet(0, &p)?;
        let (_, r) = self.read_packet()?;
        match r.first() {
            Some(0x00) => Ok(()),
            Some(0xff) => Err(parse_err(&r)),
            _ => Err(ClientError::protocol("an unexpected reply to COM_REGISTER_SLAVE")),
        }
    }

    /// COM_BINLOG_DUMP from `file` at `pos`; events follow ([`Client::event`]).
    pub fn binlog_dump(&mut self, file: &str, pos: u64, server_id: u32) -> R<()> {
        let mut p = vec![0x12];
        p.extend_from_slice(&(pos.min(u64::from(u32::MAX)) as u32).to_le_bytes());
        p.extend_from_slice(&0u16.to_le_bytes()); // flags: block
        p.extend_from_slice(&server_id.to_le_bytes());
        p.extend_from_slice(file.as_bytes());
        self.write_packet(0, &p)
    }

    /// COM_BINLOG_DUMP_GTID with `executed`, the GTID set this replica
    /// holds (MySQL's encoding); the source starts at the first
    /// transaction not in it (SOURCE_AUTO_POSITION = 1).
    pub fn binlog_dump_gtid(&mut self, executed: &quire_binlog::GtidSet, server_id: u32) -> R<()> {
        /// BINLOG_THROUGH_GTID: the set follows.
        const THROUGH_GTID: u16 = 0x04;
        let set = executed.encode();
        let mut p = vec![0x1e];
        p.extend_from_slice(&THROUGH_GTID.to_le_bytes()); // and block
        p.extend_from_slice(&server_id.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes()); // no file name
        p.extend_from_slice(&4u64.to_le_bytes());
        p.extend_from_slice(&(set.len() as u32).to_le_bytes());
        p.extend_from_slice(&set);
        self.write_packet(0, &p)
    }

    /// The next event of the dump (the packet's OK byte removed);
    /// `Ok(None)`: the source ended the stream (EOF).
    pub fn event(&mut self) -> R<Option<Vec<u8>>> {
        let (_, mut p) = self.read_packet()?;
        match p.first() {
            Some(0x00) => {
                p.remove(0);
                Ok(Some(p))
            }
            Some(0xfe) if p.len() < 9 => Ok(None),
            Some(0xff) => Err(parse_err(&p)),
            _ => Err(ClientError::protocol("an unexpected packet in the binlog stream")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::password::sha1;

    #[test]
    fn native_proof_matches_the_server_check() {
        // The server checks SHA1(scramble + stored) XOR proof == SHA1(pw),
        // with stored = SHA1(SHA1(pw)).
        let scramble = b"abcdefghij0123456789";
        let p = proof("mysql_native_password", "secret", scramble).unwrap();
        let stored = sha1(&[&sha1(&[b"secret"])]);
        let m = sha1(&[scramble, &stored]);
        let h1: Vec<u8> = p.iter().zip(m).map(|(a, b)| a ^ b).collect();
        assert_eq!(h1, sha1(&[b"secret"]).to_vec());
        assert!(proof("mysql_native_password", "", scramble).unwrap().is_empty());
    }

    #[test]
    fn length_encoded_integers_round_trip() {
        for v in [0u64, 250, 251, 65_535, 65_536, 1 << 24, u64::MAX - 1] {
            let mut out = Vec::new();
            quire_binlog::event::put_packed(&mut out, v);
            let mut i = 0;
            assert_eq!(lenenc(&out, &mut i), Some(v));
        }
    }
}
