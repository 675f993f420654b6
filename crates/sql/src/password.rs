//! The password proofs of MySQL's two authentication plugins, as a client
//! computes them (the server checks them in `quire_server::proto::auth`;
//! the replica's own client sends them, `replica/client.rs`).
//!
//! ```text
//! mysql_native_password:  SHA1(pw) XOR SHA1(scramble ++ SHA1(SHA1(pw)))
//! caching_sha2_password:  SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) ++ scramble)
//! ```
//!
//! An empty password is proven by an empty response.

use sha1::{Digest, Sha1};
use sha2::Sha256;

/// SHA-1 of the concatenation of `parts`.
pub fn sha1(parts: &[&[u8]]) -> [u8; 20] {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// SHA-256 of the concatenation of `parts`.
pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// What a client computes for mysql_native_password.
pub fn scramble_native(scramble: &[u8], password: &str) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let h1 = sha1(&[password.as_bytes()]);
    let mask = sha1(&[scramble, &sha1(&[&h1])]);
    h1.iter().zip(mask).map(|(a, b)| a ^ b).collect()
}

/// What a client computes for caching_sha2_password (its fast path).
pub fn scramble_sha2(scramble: &[u8], password: &str) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let h1 = sha256(&[password.as_bytes()]);
    let mask = sha256(&[&sha256(&[&h1]), scramble]);
    h1.iter().zip(mask).map(|(a, b)| a ^ b).collect()
}
