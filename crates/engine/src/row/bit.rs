//! BIT(n), 1 <= n <= 64: an unsigned number of n bits, held as
//! `Value::UInt` and stored in ceil(n/8) bytes (little-endian in rows,
//! big-endian in index keys, so key order is numeric order). Clients are
//! sent its big-endian bytes (the server's wire layer).
//!
//! A string stored into a BIT column is its bytes read as a big-endian
//! number (`'a'` is 97), as MySQL stores it.

/// The most bits a BIT column may have.
pub const MAX_BITS: u8 = 64;

/// Bytes of a BIT(bits) value.
pub fn width(bits: u8) -> usize {
    usize::from(bits).div_ceil(8).max(1)
}

/// The largest BIT(bits) value.
pub fn max(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Bytes read as a big-endian number (`None` beyond 64 bits).
pub fn from_bytes(b: &[u8]) -> Option<u64> {
    let start = b.iter().position(|&x| x != 0).unwrap_or(b.len());
    let b = &b[start..];
    if b.len() > 8 {
        return None;
    }
    Some(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
}

/// The big-endian bytes of a BIT(bits) value, as clients are sent it.
pub fn to_bytes(v: u64, bits: u8) -> Vec<u8> {
    v.to_be_bytes()[8 - width(bits)..].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_big_endian_numbers() {
        assert_eq!(from_bytes(b"a"), Some(97));
        assert_eq!(from_bytes(&[1, 2]), Some(258));
        assert_eq!(from_bytes(&[0; 12]), Some(0));
        assert_eq!(from_bytes(&[1; 9]), None);
        assert_eq!(to_bytes(5, 10), vec![0, 5]);
        assert_eq!(to_bytes(u64::MAX, 64), vec![0xff; 8]);
        assert_eq!(max(10), 1023);
        assert_eq!(width(1), 1);
        assert_eq!(width(9), 2);
    }
}
