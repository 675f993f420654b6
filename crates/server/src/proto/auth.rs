//! Authentication: the scramble (nonce) and the two password proofs a
//! client can send, checked against the stored hashes in [`Credentials`].
//!
//! mysql_native_password (stored `native` = SHA1(SHA1(pw))):
//!
//! ```text
//! client:  response  = SHA1(pw) XOR SHA1(scramble ++ SHA1(SHA1(pw)))
//! server:  candidate = response XOR SHA1(scramble ++ native)
//!          accept iff  SHA1(candidate) == native
//! ```
//!
//! caching_sha2_password, fast path (stored `sha2` = SHA256(SHA256(pw))):
//!
//! ```text
//! client:  response  = SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) ++ scramble)
//! server:  candidate = response XOR SHA256(sha2 ++ scramble)
//!          accept iff  SHA256(candidate) == sha2
//! ```
//!
//! (Note the orders: native hashes the scramble first, caching_sha2 last;
//! this is what MySQL's server and `mysql_common::scramble` compute.)
//!
//! An empty password is stored as `None` and proven by an empty response.
//! Comparisons are constant-time in the data.

pub use quire_sql::password::{scramble_native, scramble_sha2};
use quire_sql::password::{sha1, sha256};
use rand::Rng;

use super::Credentials;

/// Length of the scramble the server sends.
pub const SCRAMBLE_LEN: usize = 20;

/// A fresh scramble: printable ASCII without `$` (MySQL's
/// `generate_user_salt` also keeps NUL and `$` out, since the scramble is
/// sent NUL-terminated and `$` separates fields of stored sha2 hashes).
pub fn new_scramble() -> [u8; SCRAMBLE_LEN] {
    let mut rng = rand::thread_rng();
    let mut out = [0u8; SCRAMBLE_LEN];
    for b in &mut out {
        loop {
            let c = rng.gen_range(33u8..=126);
            if c != b'$' {
                *b = c;
                break;
            }
        }
    }
    out
}

fn eq_ct(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The stored hashes for `password` (both `None` when it is empty).
pub fn credentials_for_password(password: &str) -> Credentials {
    if password.is_empty() {
        return Credentials::default();
    }
    let pw = password.as_bytes();
    Credentials { native: Some(sha1(&[&sha1(&[pw])])), sha2: Some(sha256(&[&sha256(&[pw])])) }
}

/// Checks a mysql_native_password `response` to `scramble`.
pub fn verify_native(scramble: &[u8], response: &[u8], stored: Option<&[u8; 20]>) -> bool {
    let Some(stored) = stored else {
        return response.is_empty();
    };
    if response.len() != 20 {
        return false;
    }
    let mask = sha1(&[scramble, stored]);
    let mut candidate = [0u8; 20];
    for i in 0..20 {
        candidate[i] = response[i] ^ mask[i];
    }
    eq_ct(&sha1(&[&candidate]), stored)
}

/// Checks a caching_sha2_password fast-path `response` to `scramble`.
pub fn verify_sha2(scramble: &[u8], response: &[u8], stored: Option<&[u8; 32]>) -> bool {
    let Some(stored) = stored else {
        return response.is_empty();
    };
    if response.len() != 32 {
        return false;
    }
    let mask = sha256(&[stored, scramble]);
    let mut candidate = [0u8; 32];
    for i in 0..32 {
        candidate[i] = response[i] ^ mask[i];
    }
    eq_ct(&sha256(&[&candidate]), stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_is_printable_without_nul_or_dollar() {
        for _ in 0..100 {
            assert!(new_scramble().iter().all(|&b| (33..=126).contains(&b) && b != b'$'));
        }
    }

    #[test]
    fn native_accepts_the_right_password_only() {
        let creds = credentials_for_password("secret");
        let s = new_scramble();
        assert!(verify_native(&s, &scramble_native(&s, "secret"), creds.native.as_ref()));
        assert!(!verify_native(&s, &scramble_native(&s, "Secret"), creds.native.as_ref()));
        assert!(!verify_native(&s, b"", creds.native.as_ref()));
        assert!(!verify_native(&new_scramble(), &scramble_native(&s, "secret"), creds.native.as_ref()));
    }

    #[test]
    fn sha2_fast_path_accepts_the_right_password_only() {
        let creds = credentials_for_password("secret");
        let s = new_scramble();
        assert!(verify_sha2(&s, &scramble_sha2(&s, "secret"), creds.sha2.as_ref()));
        assert!(!verify_sha2(&s, &scramble_sha2(&s, "secreT"), creds.sha2.as_ref()));
        assert!(!verify_sha2(&s, &[0u8; 31], creds.sha2.as_ref()));
    }

    #[test]
    fn empty_password_needs_an_empty_response() {
        let creds = credentials_for_password("");
        let s = new_scramble();
        assert!(verify_native(&s, b"", creds.native.as_ref()));
        assert!(verify_sha2(&s, b"", creds.sha2.as_ref()));
        assert!(!verify_native(&s, &scramble_native(&s, "x"), creds.native.as_ref()));
    }

    /// Known-answer vector, independent of the helpers above: SHA1 of "pw"
    /// twice, as MySQL's `PASSWORD('pw')` stores it.
    #[test]
    fn native_stored_hash_matches_mysql_password_function() {
        let creds = credentials_for_password("password");
        let hex: String = creds.native.unwrap().iter().map(|b| format!("{b:02X}")).collect();
        // SELECT PASSWORD('password') = *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19
        assert_eq!(hex, "2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
    }
}
