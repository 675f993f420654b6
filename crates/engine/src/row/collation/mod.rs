//! What each collation is: its name, character set, MySQL id, PAD SPACE or
//! NO PAD, and its weights (the bytes that compare as the collation does).
//! [`super::key`] builds index keys from these weights and the SQL layer
//! compares, sorts and groups by them.
//!
//! | collation          | weights (per character)                 | pad      |
//! |--------------------|-----------------------------------------|----------|
//! | utf8mb4_bin        | the UTF-8 bytes                          | PAD SPACE |
//! | utf8mb4_general_ci | 2 bytes: simple uppercase, Latin-1 folded | PAD SPACE |
//! | utf8mb4_unicode_ci | UCA 4.0.0 primary weights, 2 bytes each  | PAD SPACE |
//! | utf8mb4_0900_ai_ci | UCA 9.0.0 primary weights, 2 bytes each  | NO PAD   |
//! | latin1_swedish_ci  | 1 byte: MariaDB's swedish sort order     | PAD SPACE |
//! | latin1_bin         | 1 byte: the latin1 byte                  | PAD SPACE |
//!
//! Invariant: under a PAD SPACE collation, trailing spaces are not part of
//! the weights (callers pad with [`Collation::pad_weight`]); under NO PAD
//! they are, and the pad weight is empty.

pub mod latin1;
pub mod uca;

use super::Collation;

/// Every collation quire has, in SHOW COLLATION's order.
pub const ALL: [Collation; 6] = [
    Collation::Latin1SwedishCi,
    Collation::Latin1Bin,
    Collation::Utf8mb4GeneralCi,
    Collation::Utf8mb4Bin,
    Collation::Utf8mb4UnicodeCi,
    Collation::Utf8mb40900AiCi,
];

impl Collation {
    /// The character set: "utf8mb4" or "latin1".
    pub fn charset(self) -> &'static str {
        match self {
            Collation::Latin1SwedishCi | Collation::Latin1Bin => "latin1",
            _ => "utf8mb4",
        }
    }

    /// MySQL's collation id (SHOW COLLATION, the handshake).
    pub fn id(self) -> u32 {
        match self {
            Collation::Utf8mb4Bin => 46,
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4UnicodeCi => 224,
            Collation::Utf8mb40900AiCi => 255,
            Collation::Latin1SwedishCi => 8,
            Collation::Latin1Bin => 47,
        }
    }

    /// The default collation of a character set (MariaDB's defaults:
    /// utf8mb4_general_ci, latin1_swedish_ci).
    pub fn default_for_charset(cs: &str) -> Option<Collation> {
        match cs.to_ascii_lowercase().as_str() {
            "utf8mb4" | "utf8" | "utf8mb3" => Some(Collation::Utf8mb4GeneralCi),
            "latin1" => Some(Collation::Latin1SwedishCi),
            "binary" => Some(Collation::Utf8mb4Bin),
            _ => None,
        }
    }

    /// Whether this is its character set's default.
    pub fn is_default(self) -> bool {
        matches!(self, Collation::Utf8mb4GeneralCi | Collation::Latin1SwedishCi)
    }

    /// PAD SPACE (trailing spaces do not count) or NO PAD.
    pub fn pad_space(self) -> bool {
        !matches!(self, Collation::Utf8mb40900AiCi)
    }

    /// The weight of a space, which PAD SPACE pads the shorter string with
    /// (empty for NO PAD).
    pub fn pad_weight(self) -> &'static [u8] {
        match self {
            Collation::Utf8mb4Bin | Collation::Latin1Bin | Collation::Latin1SwedishCi => b" ",
            Collation::Utf8mb4GeneralCi => &[0x00, 0x20],
            Collation::Utf8mb4UnicodeCi => &[0x02, 0x09],
            Collation::Utf8mb40900AiCi => &[],
        }
    }

    /// The budget of weight bytes per character for index key lengths.
    /// UCA weights are 2 bytes, 2 per character for nearly all (CJK
    /// implicit weights, 'ß', 'Æ'); the rare longer expansions (U+FDFA
    /// has 18) may make one value's key longer than the budget, which the
    /// B-tree then refuses (1071) rather than truncating.
    pub fn bytes_per_char(self) -> usize {
        match self {
            Collation::Utf8mb4Bin | Collation::Utf8mb4UnicodeCi | Collation::Utf8mb40900AiCi => 4,
            Collation::Utf8mb4GeneralCi => 2,
            Collation::Latin1SwedishCi | Collation::Latin1Bin => 1,
        }
    }

    /// Whether values of a column of this collation can hold `s`: the
    /// first character its character set lacks.
    pub fn unmappable(self, s: &str) -> Option<char> {
        match self.charset() {
            "latin1" => latin1::first_unmappable(s),
            _ => None,
        }
    }

    /// The weights of the collations this module adds (not utf8mb4_bin or
    /// general_ci, which [`super::key::weights`] computes inline); `s` is
    /// already without trailing spaces when the collation pads.
    pub(crate) fn other_weights(self, s: &str, out: &mut Vec<u8>) {
        match self {
            Collation::Utf8mb4UnicodeCi => uca::uca0400().weights(s, out),
            Collation::Utf8mb40900AiCi => uca::uca0900().weights(s, out),
            Collation::Latin1SwedishCi => latin1::swedish_weights(s, out),
            Collation::Latin1Bin => latin1::bin_weights(s, out),
            Collation::Utf8mb4Bin | Collation::Utf8mb4GeneralCi => unreachable!("computed in key::weights"),
        }
    }
}

/// Compares two strings under `coll` exactly: PAD SPACE collations pad
/// the shorter weight string with the weight of a space.
pub fn compare(coll: Collation, a: &str, b: &str) -> std::cmp::Ordering {
    let (mut wa, mut wb) = (Vec::with_capacity(a.len() * 2), Vec::with_capacity(b.len() * 2));
    super::key::weights(coll, a, &mut wa);
    super::key::weights(coll, b, &mut wb);
    compare_weights(coll, &wa, &wb)
}

/// Compares two weight strings of `coll` (from [`super::key::weights`]).
pub fn compare_weights(coll: Collation, wa: &[u8], wb: &[u8]) -> std::cmp::Ordering {
    let n = wa.len().min(wb.len());
    match wa[..n].cmp(&wb[..n]) {
        std::cmp::Ordering::Equal => {}
        o => return o,
    }
    let pad = coll.pad_weight();
    if pad.is_empty() || wa.len() == wb.len() {
        return wa.len().cmp(&wb.len());
    }
    // The longer one's rest against spaces.
    let (rest, flip) = if wa.len() > wb.len() { (&wa[n..], false) } else { (&wb[n..], true) };
    let mut o = std::cmp::Ordering::Equal;
    for (i, &x) in rest.iter().enumerate() {
        let p = pad[(n + i) % pad.len()];
        if x != p {
            o = x.cmp(&p);
            break;
        }
    }
    if flip {
        o.reverse()
    } else {
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::*;

    #[test]
    fn pad_space_and_no_pad_treat_trailing_spaces_as_mysql() {
        assert_eq!(compare(Collation::Utf8mb4UnicodeCi, "a", "a  "), Equal);
        assert_eq!(compare(Collation::Utf8mb40900AiCi, "a", "a "), Less);
        assert_eq!(compare(Collation::Latin1SwedishCi, "A", "a "), Equal);
        // A tab weighs less than a space: 'a\t' < 'a' under PAD SPACE.
        assert_eq!(compare(Collation::Utf8mb4UnicodeCi, "a\t", "a"), Less);
        assert_eq!(compare(Collation::Utf8mb4GeneralCi, "a", "a\t"), Greater);
    }

    #[test]
    fn sharp_s_equals_ss_only_under_uca() {
        assert_eq!(compare(Collation::Utf8mb4UnicodeCi, "straße", "STRASSE"), Equal);
        assert_eq!(compare(Collation::Utf8mb40900AiCi, "straße", "strasse"), Equal);
        assert_ne!(compare(Collation::Utf8mb4GeneralCi, "straße", "strasse"), Equal);
    }

    #[test]
    fn every_collation_round_trips_its_name() {
        for c in ALL {
            assert_eq!(Collation::from_name(c.name()), Some(c));
            assert_eq!(c.name().split('_').next(), Some(c.charset()));
        }
    }
}
