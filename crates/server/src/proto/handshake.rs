//! The connection phase: the server's HandshakeV10, the client's
//! HandshakeResponse41, and the authentication exchange.
//!
//! ```text
//! server                                   client
//! HandshakeV10 (seq 0, scramble S) ------>
//!                                  <------ HandshakeResponse41 (seq 1): user,
//!                                          proof for S by plugin P, db, attrs
//! P = mysql_native_password:        verify native(S)
//! P = caching_sha2_password:        verify sha2(S); if a password was sent:
//!   0x01 0x03 "fast auth ok"  ------>
//! P = anything else (or sha2 without a stored sha2 hash):
//!   AuthSwitchRequest (0xfe, "mysql_native_password", S2) ------>
//!                                  <------ native proof for S2
//! then OK (the caller, after opening the session) or ERR 1045 and close.
//! ```
//!
//! The server never advertises CLIENT_SSL, so the caching_sha2 "full
//! authentication" path (cleartext over TLS or RSA) is never needed: the
//! stored SHA256(SHA256(pw)) allows the fast path for every login.

use std::io::{Read, Write};

use super::auth::{new_scramble, verify_native, verify_sha2};
use super::codec::{put_nul_str, Cursor, DecodeError};
use super::packet::{PacketError, PacketIo};
use super::response;
use super::{charset, Backend, ErrPacket, STATUS_AUTOCOMMIT};

/// Capability flags (`CLIENT_*`).
pub mod capability {
    pub const LONG_PASSWORD: u32 = 1;
    pub const FOUND_ROWS: u32 = 1 << 1;
    pub const LONG_FLAG: u32 = 1 << 2;
    pub const CONNECT_WITH_DB: u32 = 1 << 3;
    /// The client sends files for LOAD DATA LOCAL.
    pub const LOCAL_FILES: u32 = 1 << 7;
    pub const PROTOCOL_41: u32 = 1 << 9;
    /// The client is interactive: `interactive_timeout` applies.
    pub const INTERACTIVE: u32 = 1 << 10;
    pub const SSL: u32 = 1 << 11;
    pub const TRANSACTIONS: u32 = 1 << 13;
    pub const SECURE_CONNECTION: u32 = 1 << 15;
    pub const MULTI_STATEMENTS: u32 = 1 << 16;
    pub const MULTI_RESULTS: u32 = 1 << 17;
    pub const PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const PLUGIN_AUTH: u32 = 1 << 19;
    pub const CONNECT_ATTRS: u32 = 1 << 20;
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const DEPRECATE_EOF: u32 = 1 << 24;
}

/// What the server offers. Not CLIENT_SSL, CLIENT_DEPRECATE_EOF,
/// CLIENT_SESSION_TRACK nor CLIENT_QUERY_ATTRIBUTES: result sets always end
/// with EOF packets.
pub const SERVER_CAPABILITIES: u32 = capability::LONG_PASSWORD
    | capability::FOUND_ROWS
    | capability::LONG_FLAG
    | capability::CONNECT_WITH_DB
    | capability::PROTOCOL_41
    | capability::INTERACTIVE
    | capability::LOCAL_FILES
    | capability::TRANSACTIONS
    | capability::SECURE_CONNECTION
    | capability::MULTI_STATEMENTS
    | capability::MULTI_RESULTS
    | capability::PS_MULTI_RESULTS
    | capability::PLUGIN_AUTH
    | capability::CONNECT_ATTRS
    | capability::PLUGIN_AUTH_LENENC_CLIENT_DATA;

pub const NATIVE_PASSWORD: &str = "mysql_native_password";
pub const CACHING_SHA2_PASSWORD: &str = "caching_sha2_password";

/// The authentication plugin announced in the handshake (the client's
/// first proof uses it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AuthPlugin {
    #[default]
    NativePassword,
    CachingSha2Password,
}

impl AuthPlugin {
    pub fn name(self) -> &'static str {
        match self {
            AuthPlugin::NativePassword => NATIVE_PASSWORD,
            AuthPlugin::CachingSha2Password => CACHING_SHA2_PASSWORD,
        }
    }
}

/// Protocol::HandshakeV10.
pub fn handshake_v10(buf: &mut Vec<u8>, server_version: &str, connection_id: u32, scramble: &[u8; 20], plugin: &str) {
    buf.push(10);
    put_nul_str(buf, server_version.as_bytes());
    buf.extend_from_slice(&connection_id.to_le_bytes());
    buf.extend_from_slice(&scramble[..8]);
    buf.push(0);
    buf.extend_from_slice(&(SERVER_CAPABILITIES as u16).to_le_bytes());
    buf.push(charset::UTF8MB4_GENERAL_CI as u8);
    buf.extend_from_slice(&STATUS_AUTOCOMMIT.to_le_bytes());
    buf.extend_from_slice(&((SERVER_CAPABILITIES >> 16) as u16).to_le_bytes());
    buf.push(21);
    buf.extend_from_slice(&[0u8; 10]);
    buf.extend_from_slice(&scramble[8..]);
    buf.push(0);
    put_nul_str(buf, plugin.as_bytes());
}

/// Protocol::HandshakeResponse41, parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HandshakeResponse {
    /// The client's flags (not yet intersected with ours).
    pub capabilities: u32,
    pub max_packet_bytes: u32,
    pub charset: u8,
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub auth_plugin: Option<String>,
    pub attrs: Vec<(String, String)>,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Parses HandshakeResponse41. Pre-4.1 clients are refused.
pub fn parse_handshake_response(payload: &[u8]) -> Result<HandshakeResponse, DecodeError> {
    use capability as c;
    let mut cur = Cursor::new(payload);
    let client = cur.u32()?;
    if client & c::PROTOCOL_41 == 0 {
        return Err(DecodeError("client does not speak protocol 4.1"));
    }
    if client & c::SSL != 0 && payload.len() == 32 {
        return Err(DecodeError("SSL request, but SSL was not offered"));
    }
    // Flags the server did not offer are treated as absent.
    let caps = client & SERVER_CAPABILITIES;
    let max_packet_bytes = cur.u32()?;
    let charset = cur.u8()?;
    cur.bytes(23)?;
    let user = text(cur.nul_bytes()?);
    let auth_response = if caps & c::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        cur.lenenc_bytes()?.to_vec()
    } else if caps & c::SECURE_CONNECTION != 0 {
        let n = cur.u8()?;
        cur.bytes(usize::from(n))?.to_vec()
    } else {
        cur.nul_bytes()?.to_vec()
    };
    let mut resp = HandshakeResponse {
        capabilities: client,
        max_packet_bytes,
        charset,
        user,
        auth_response,
        ..Default::default()
    };
    if caps & c::CONNECT_WITH_DB != 0 && !cur.is_empty() {
        let db = cur.nul_or_rest();
        if !db.is_empty() {
            resp.database = Some(text(db));
        }
    }
    if caps & c::PLUGIN_AUTH != 0 && !cur.is_empty() {
        resp.auth_plugin = Some(text(cur.nul_or_rest()));
    }
    if caps & c::CONNECT_ATTRS != 0 && !cur.is_empty() {
        let len = usize::try_from(cur.lenenc_int()?).map_err(|_| DecodeError("attributes length"))?;
        let mut attrs = Cursor::new(cur.bytes(len)?);
        while !attrs.is_empty() {
            let k = text(attrs.lenenc_bytes()?);
            let v = text(attrs.lenenc_bytes()?);
            resp.attrs.push((k, v));
        }
    }
    Ok(resp)
}

/// A client that proved who it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authenticated {
    pub user: String,
    pub database: Option<String>,
    /// The capabilities in effect: the client's and ours.
    pub capabilities: u32,
}

/// ER_HANDSHAKE_ERROR.
pub fn bad_handshake() -> ErrPacket {
    ErrPacket::new(1043, "08S01", "Bad handshake")
}

/// ER_ACCESS_DENIED_ERROR.
pub fn access_denied(user: &str, host: &str, password_sent: bool) -> ErrPacket {
    let yes = if password_sent { "YES" } else { "NO" };
    ErrPacket::new(1045, "28000", format!("Access denied for user '{user}'@'{host}' (using password: {yes})"))
}

/// Sends `e` and flushes.
pub fn send_err<S: Read + Write>(io: &mut PacketIo<S>, e: &ErrPacket) -> Result<(), PacketError> {
    let mut buf = Vec::new();
    response::err(&mut buf, e);
    io.write_packet(&buf)?;
    io.flush()?;
    Ok(())
}

/// Runs the handshake and authentication up to (not including) the final
/// OK. `Ok(None)`: the client was refused and has been sent an ERR.
pub fn authenticate<B: Backend, S: Read + Write>(
    io: &mut PacketIo<S>,
    backend: &B,
    plugin: AuthPlugin,
    connection_id: u32,
    peer_host: &str,
) -> Result<Option<Authenticated>, PacketError> {
    let scramble = new_scramble();
    let mut buf = Vec::with_capacity(128);
    handshake_v10(&mut buf, &backend.server_version(), connection_id, &scramble, plugin.name());
    io.reset_seq();
    io.write_packet(&buf)?;
    io.flush()?;

    let payload = io.read_packet()?;
    let resp = match parse_handshake_response(&payload) {
        Ok(r) => r,
        Err(_) => {
            send_err(io, &bad_handshake())?;
            return Ok(None);
        }
    };
    let capabilities = resp.capabilities & SERVER_CAPABILITIES;
    let Some(creds) = backend.credentials(&resp.user) else {
        send_err(io, &access_denied(&resp.user, peer_host, !resp.auth_response.is_empty()))?;
        return Ok(None);
    };

    let client_plugin = match resp.auth_plugin.as_deref() {
        Some(p) if capabilities & capability::PLUGIN_AUTH != 0 && !p.is_empty() => p,
        _ => NATIVE_PASSWORD,
    };
    let mut proof = resp.auth_response;
    let accepted = match client_plugin {
        NATIVE_PASSWORD => verify_native(&scramble, &proof, creds.native.as_ref()),
        CACHING_SHA2_PASSWORD if creds.sha2.is_some() || creds.native.is_none() => {
            let ok = verify_sha2(&scramble, &proof, creds.sha2.as_ref());
            if ok && !proof.is_empty() {
                io.write_packet(&[0x01, 0x03])?;
            }
            ok
        }
        _ => {
            // AuthSwitchRequest to mysql_native_password with a new scramble.
            let scramble2 = new_scramble();
            buf.clear();
            buf.push(0xfe);
            put_nul_str(&mut buf, NATIVE_PASSWORD.as_bytes());
            put_nul_str(&mut buf, &scramble2);
            io.write_packet(&buf)?;
            io.flush()?;
            proof = io.read_packet()?;
            verify_native(&scramble2, &proof, creds.native.as_ref())
        }
    };
    if !accepted {
        send_err(io, &access_denied(&resp.user, peer_host, !proof.is_empty()))?;
        return Ok(None);
    }
    Ok(Some(Authenticated { user: resp.user, database: resp.database, capabilities }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::codec::put_lenenc_str;

    fn response_bytes(caps: u32, user: &str, auth: &[u8], db: Option<&str>, plugin: Option<&str>) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&caps.to_le_bytes());
        b.extend_from_slice(&(1u32 << 24).to_le_bytes());
        b.push(45);
        b.extend_from_slice(&[0u8; 23]);
        put_nul_str(&mut b, user.as_bytes());
        if caps & capability::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            put_lenenc_str(&mut b, auth);
        } else {
            b.push(auth.len() as u8);
            b.extend_from_slice(auth);
        }
        if let Some(db) = db {
            put_nul_str(&mut b, db.as_bytes());
        }
        if let Some(p) = plugin {
            put_nul_str(&mut b, p.as_bytes());
        }
        b
    }

    #[test]
    fn handshake_response_fields_are_parsed_per_capabilities() {
        use capability as c;
        let caps = c::PROTOCOL_41 | c::SECURE_CONNECTION | c::CONNECT_WITH_DB | c::PLUGIN_AUTH;
        let b = response_bytes(caps, "root", &[7u8; 20], Some("test"), Some(NATIVE_PASSWORD));
        let r = parse_handshake_response(&b).unwrap();
        assert_eq!(r.user, "root");
        assert_eq!(r.auth_response, vec![7u8; 20]);
        assert_eq!(r.database.as_deref(), Some("test"));
        assert_eq!(r.auth_plugin.as_deref(), Some(NATIVE_PASSWORD));

        let caps = c::PROTOCOL_41 | c::PLUGIN_AUTH_LENENC_CLIENT_DATA | c::PLUGIN_AUTH;
        let b = response_bytes(caps, "u", &[1u8; 32], None, Some(CACHING_SHA2_PASSWORD));
        let r = parse_handshake_response(&b).unwrap();
        assert_eq!(r.auth_response.len(), 32);
        assert_eq!(r.database, None);
        assert_eq!(r.auth_plugin.as_deref(), Some(CACHING_SHA2_PASSWORD));
    }

    #[test]
    fn old_protocol_and_truncated_responses_are_refused() {
        let b = response_bytes(capability::SECURE_CONNECTION, "root", b"", None, None);
        assert!(parse_handshake_response(&b).is_err());
        let b = response_bytes(capability::PROTOCOL_41 | capability::SECURE_CONNECTION, "root", &[1; 20], None, None);
        for cut in 0..b.len() - 1 {
            // Every strict prefix that cuts a field short is an error.
            let _ = parse_handshake_response(&b[..cut]);
        }
        assert!(parse_handshake_response(&b[..b.len() - 3]).is_err());
    }

    #[test]
    fn handshake_v10_carries_the_whole_scramble_and_plugin() {
        let s = *b"abcdefghijklmnopqrst";
        let mut buf = Vec::new();
        handshake_v10(&mut buf, "8.0.36-quire", 7, &s, NATIVE_PASSWORD);
        let mut c = Cursor::new(&buf);
        assert_eq!(c.u8().unwrap(), 10);
        assert_eq!(c.nul_bytes().unwrap(), b"8.0.36-quire");
        assert_eq!(c.u32().unwrap(), 7);
        assert_eq!(c.bytes(8).unwrap(), b"abcdefgh");
        c.u8().unwrap();
        let lo = c.u16().unwrap();
        assert_eq!(c.u8().unwrap(), 45);
        c.u16().unwrap();
        let hi = c.u16().unwrap();
        assert_eq!(u32::from(lo) | u32::from(hi) << 16, SERVER_CAPABILITIES);
        assert_eq!(c.u8().unwrap(), 21);
        c.bytes(10).unwrap();
        assert_eq!(c.nul_bytes().unwrap(), b"ijklmnopqrst");
        assert_eq!(c.nul_bytes().unwrap(), NATIVE_PASSWORD.as_bytes());
        assert!(c.is_empty());
    }
}
