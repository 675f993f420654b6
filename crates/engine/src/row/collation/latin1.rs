//! MySQL's latin1 character set (Windows code page 1252, its five undefined
//! bytes mapped to the C1 controls of the same value) and its collations
//! latin1_swedish_ci (the sort order of MariaDB's ctype-latin1.c: case
//! insensitive, 'Å' 'Ä' 'Ö' after 'Z', 'ü' = 'y') and latin1_bin (by byte).
//!
//! quire keeps string values as UTF-8 whatever the column's character set;
//! a latin1 column only accepts characters that latin1 can hold, and its
//! weights (one byte a character) are computed from the latin1 byte.

use std::collections::HashMap;
use std::sync::OnceLock;

struct Latin1 {
    /// Unicode code point of each latin1 byte.
    to_unicode: [u32; 256],
    from_unicode: HashMap<u32, u8>,
    /// latin1_swedish_ci weight of each byte.
    swedish: [u8; 256],
}

fn tables() -> &'static Latin1 {
    static T: OnceLock<Latin1> = OnceLock::new();
    T.get_or_init(|| {
        let bytes = include_bytes!("latin1.bin");
        let mut t = Latin1 { to_unicode: [0; 256], from_unicode: HashMap::new(), swedish: [0; 256] };
        for b in 0..256 {
            let cp = u32::from_le_bytes([bytes[4 * b], bytes[4 * b + 1], bytes[4 * b + 2], bytes[4 * b + 3]]);
            t.to_unicode[b] = cp;
            t.from_unicode.insert(cp, b as u8);
            t.swedish[b] = bytes[1024 + b];
        }
        t
    })
}

/// The latin1 byte of `ch`, if latin1 has it.
pub fn encode_char(ch: char) -> Option<u8> {
    let c = ch as u32;
    // Below 0x80 and 0xA0..=0xFF latin1 is ISO 8859-1 (no lookup needed).
    if c < 0x80 || (0xA0..=0xFF).contains(&c) {
        return Some(c as u8);
    }
    tables().from_unicode.get(&c).copied()
}

/// The first character of `s` that latin1 cannot hold.
pub fn first_unmappable(s: &str) -> Option<char> {
    if s.is_ascii() {
        return None;
    }
    s.chars().find(|&c| encode_char(c).is_none())
}

/// The number of bytes `s` takes in latin1 (one per character).
pub fn byte_len(s: &str) -> usize {
    s.chars().count()
}

/// The character latin1 byte `b` is.
pub fn decode_byte(b: u8) -> char {
    char::from_u32(tables().to_unicode[b as usize]).unwrap_or('?')
}

/// Appends latin1_swedish_ci weights (one byte a character); a character
/// latin1 cannot hold weighs as '?', as MySQL converts it.
pub fn swedish_weights(s: &str, out: &mut Vec<u8>) {
    let t = tables();
    out.extend(s.chars().map(|c| t.swedish[encode_char(c).unwrap_or(b'?') as usize]));
}

/// Appends latin1_bin weights: the latin1 bytes.
pub fn bin_weights(s: &str, out: &mut Vec<u8>) {
    out.extend(s.chars().map(|c| encode_char(c).unwrap_or(b'?')));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw(s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        swedish_weights(s, &mut out);
        out
    }

    #[test]
    fn swedish_sorts_aring_adiaeresis_odiaeresis_after_z() {
        assert!(sw("Z") < sw("Å") && sw("Å") < sw("Ä") && sw("Ä") < sw("Ö"));
        assert_eq!(sw("ü"), sw("Y"));
        assert_eq!(sw("abc"), sw("ABC"));
        assert_eq!(sw("é"), sw("E"));
    }

    #[test]
    fn cp1252_round_trips_and_refuses_other_characters() {
        assert_eq!(encode_char('€'), Some(0x80));
        assert_eq!(decode_byte(0x80), '€');
        assert_eq!(encode_char('\u{81}'), Some(0x81));
        assert_eq!(first_unmappable("añ€"), None);
        assert_eq!(first_unmappable("a\u{1F600}"), Some('\u{1F600}'));
        assert_eq!(first_unmappable("ĉ"), Some('ĉ'));
    }
}
