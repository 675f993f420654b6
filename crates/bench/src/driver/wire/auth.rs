//! The connection phase, client side: read HandshakeV10, answer with
//! HandshakeResponse41, then follow the server's authentication.
//!
//! ```text
//! server                                   client
//! HandshakeV10 (seq 0, scramble S, plugin P) -->
//!                                  <------ HandshakeResponse41: caps, user,
//!                                          proof for S by P, db, P
//! OK                                --> connected
//! ERR                               --> refused
//! AuthSwitchRequest (0xFE, P2, S2)  --> <-- proof for S2 by P2
//! AuthMoreData 0x01 0x03            --> (caching_sha2 fast path ok) OK follows
//! AuthMoreData 0x01 0x04            --> full authentication: needs TLS or
//!                                       RSA, which this client lacks: error
//! ```
//!
//! Proofs (what MySQL's and MariaDB's clients compute):
//! - mysql_native_password: `SHA1(pw) XOR SHA1(S ++ SHA1(SHA1(pw)))`;
//! - caching_sha2_password: `SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) ++ S)`;
//! - an empty password: an empty proof.

use super::packet::{protocol, Reader, WireError};

/// `CLIENT_*` capability flags: the server's own definitions.
pub use quire_server::proto::handshake::capability as caps;

/// What HandshakeV10 told.
#[derive(Debug, Clone)]
pub struct Greeting {
    pub server_version: String,
    pub capabilities: u32,
    /// The 20-byte nonce (parts 1 and 2, without the trailing NUL).
    pub scramble: Vec<u8>,
    pub plugin: String,
}

/// Parses HandshakeV10.
pub fn parse_greeting(p: &[u8]) -> Result<Greeting, WireError> {
    let mut r = Reader::new(p);
    match r.u8()? {
        10 => {}
        0xFF => return Err(WireError::Server(super::packet::parse_err(p)?)),
        v => return Err(protocol(format!("handshake protocol {v} (only 10 is spoken)"))),
    }
    let server_version = String::from_utf8_lossy(r.nul_str()).into_owned();
    r.u32()?; // connection id
    let mut scramble = r.bytes(8)?.to_vec();
    r.u8()?;
    let low = u32::from(r.u16()?);
    r.u8()?; // charset
    r.u16()?; // status
    let capabilities = low | u32::from(r.u16()?) << 16;
    let data_len = usize::from(r.u8()?);
    r.bytes(10)?;
    if capabilities & caps::SECURE_CONNECTION != 0 {
        let n = data_len.saturating_sub(8).max(13);
        let part2 = r.bytes(n)?;
        scramble.extend_from_slice(part2.strip_suffix(&[0]).unwrap_or(part2));
    }
    let plugin = if capabilities & caps::PLUGIN_AUTH != 0 {
        String::from_utf8_lossy(r.nul_str()).into_owned()
    } else {
        "mysql_native_password".to_string()
    };
    Ok(Greeting { server_version, capabilities, scramble, plugin })
}

/// The proof of `password` for `scramble` by `plugin`.
pub fn proof(plugin: &str, password: &str, scramble: &[u8]) -> Result<Vec<u8>, WireError> {
    use quire_server::proto::auth::{scramble_native, scramble_sha2};
    match plugin {
        "mysql_native_password" => Ok(scramble_native(scramble, password)),
        "caching_sha2_password" => Ok(scramble_sha2(scramble, password)),
        other => Err(protocol(format!("authentication plugin {other} is not supported by the bench driver"))),
    }
}

/// What the client asks for, given what the server offers.
pub fn client_capabilities(server: u32, with_db: bool, deprecate_eof: bool) -> u32 {
    use caps::*;
    let mut want = LONG_PASSWORD
        | LONG_FLAG
        | PROTOCOL_41
        | TRANSACTIONS
        | SECURE_CONNECTION
        | MULTI_RESULTS
        | PS_MULTI_RESULTS
        | PLUGIN_AUTH
        | PLUGIN_AUTH_LENENC_CLIENT_DATA;
    if with_db {
        want |= CONNECT_WITH_DB;
    }
    if deprecate_eof {
        want |= DEPRECATE_EOF;
    }
    want & server
}

/// HandshakeResponse41's payload.
pub fn response(caps_used: u32, user: &str, proof: &[u8], db: Option<&str>, plugin: &str) -> Vec<u8> {
    let mut p = Vec::with_capacity(128);
    p.extend_from_slice(&caps_used.to_le_bytes());
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(45); // utf8mb4_general_ci
    p.extend_from_slice(&[0; 23]);
    p.extend_from_slice(user.as_bytes());
    p.push(0);
    if caps_used & caps::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        super::packet::put_lenenc_bytes(&mut p, proof);
    } else {
        p.push(proof.len() as u8);
        p.extend_from_slice(proof);
    }
    if let Some(db) = db.filter(|_| caps_used & caps::CONNECT_WITH_DB != 0) {
        p.extend_from_slice(db.as_bytes());
        p.push(0);
    }
    if caps_used & caps::PLUGIN_AUTH != 0 {
        p.extend_from_slice(plugin.as_bytes());
        p.push(0);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's check of each proof (quire's `proto::auth`).
    #[test]
    fn proofs_are_what_the_server_checks() {
        let scramble = b"abcdefghij0123456789";
        let native = proof("mysql_native_password", "secret", scramble).expect("known plugin");
        assert_eq!(native, quire_server::proto::auth::scramble_native(scramble, "secret"));
        let sha2 = proof("caching_sha2_password", "secret", scramble).expect("known plugin");
        assert_eq!(sha2, quire_server::proto::auth::scramble_sha2(scramble, "secret"));
        assert!(proof("mysql_native_password", "", scramble).expect("empty").is_empty());
        assert!(proof("sha256_password", "x", scramble).is_err());
    }
}
