//! MySQL 8.0's global transaction identifiers: a GTID is `uuid:gno`
//! (the originating server's `server_uuid` and a transaction number from
//! 1), and a GTID set is, per UUID, a list of closed intervals of numbers.
//!
//! Text form (MySQL's `Gtid_set::to_string`): UUIDs in ascending byte
//! order, lowercase with hyphens, each followed by its intervals
//! `:a-b` (or `:a` for one number), sets of several UUIDs joined by
//! `",\n"`; the empty set is the empty string. Parsing accepts what
//! MySQL accepts: whitespace anywhere between tokens, entries separated
//! by commas, a UUID given several times, intervals in any order and
//! overlapping (they are merged).
//!
//! Binary form (PREVIOUS_GTIDS' body, COM_BINLOG_DUMP_GTID's set;
//! `Gtid_set::encode`), little-endian: `n_sids u64`, then per UUID
//! `uuid[16] | n_intervals u64 | (start u64, end_exclusive u64)*`.
//!
//! Invariants of [`GtidSet`]:
//! 1. No UUID maps to an empty list.
//! 2. Each list is sorted, its intervals are non-empty (`start <= end`,
//!    both in `1..=GNO_MAX`), and neither overlap nor touch (`a.end + 1 <
//!    b.start`): the merged form, so equal sets compare equal.

use std::collections::BTreeMap;
use std::fmt;

/// The highest transaction number (MySQL's `GNO_END - 1`).
pub const GNO_MAX: u64 = i64::MAX as u64 - 1;

/// A server's UUID, 16 bytes in text order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// Parses the 36-character form (`8-4-4-4-12` hex digits), or the 32
    /// digits without hyphens, as MySQL's `Uuid::parse` does.
    pub fn parse(s: &str) -> Option<Uuid> {
        let s = s.trim();
        let hex: Vec<u8> = if s.len() == 36 {
            let b = s.as_bytes();
            if [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
                return None;
            }
            s.bytes().filter(|&c| c != b'-').collect()
        } else if s.len() == 32 {
            s.bytes().collect()
        } else {
            return None;
        };
        if hex.len() != 32 {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, pair) in hex.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            out[i] = (hi * 16 + lo) as u8;
        }
        Some(Uuid(out))
    }

    /// A random version-4 UUID (a new `server_uuid`), from the system's
    /// random source.
    pub fn random() -> std::io::Result<Uuid> {
        use std::io::Read;
        let mut b = [0u8; 16];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        Ok(Uuid(b))
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// One GTID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gtid {
    pub uuid: Uuid,
    pub gno: u64,
}

impl Gtid {
    /// `uuid:N` (1793 `ER_MALFORMED_GTID_SPECIFICATION` when `None`).
    pub fn parse(s: &str) -> Option<Gtid> {
        let (u, n) = s.trim().split_once(':')?;
        let uuid = Uuid::parse(u)?;
        let gno = n.trim().parse::<u64>().ok().filter(|g| (1..=GNO_MAX).contains(g))?;
        Some(Gtid { uuid, gno })
    }
}

impl fmt::Display for Gtid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.uuid, self.gno)
    }
}

/// A set of GTIDs (invariants 1–2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GtidSet {
    sets: BTreeMap<Uuid, Vec<(u64, u64)>>,
}

impl GtidSet {
    pub fn new() -> GtidSet {
        GtidSet::default()
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// Parses the text form; `None` for malformed text (MySQL's 1772
    /// `ER_MALFORMED_GTID_SET_SPECIFICATION`).
    pub fn parse(text: &str) -> Option<GtidSet> {
        let mut set = GtidSet::new();
        for entry in text.split(',') {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            let mut parts = entry.split(':');
            let uuid = Uuid::parse(parts.next()?)?;
            let mut any = false;
            for iv in parts {
                let (a, b) = match iv.trim().split_once('-') {
                    Some((a, b)) => (a.trim(), b.trim()),
                    None => (iv.trim(), iv.trim()),
                };
                let a = a.parse::<u64>().ok()?;
                let b = b.parse::<u64>().ok()?;
                if a == 0 || b < a || b > GNO_MAX {
                    return None;
                }
                set.add_interval(uuid, a, b);
                any = true;
            }
            if !any {
                // A bare UUID names no transaction: MySQL refuses it.
                return None;
            }
        }
        Some(set)
    }

    /// Whether the set holds a GTID of `uuid`.
    pub fn has_uuid(&self, uuid: &Uuid) -> bool {
        self.sets.contains_key(uuid)
    }

    /// Whether `g` is in the set.
    pub fn contains(&self, g: &Gtid) -> bool {
        self.sets.get(&g.uuid).is_some_and(|l| l.iter().any(|&(a, b)| a <= g.gno && g.gno <= b))
    }

    /// Adds one GTID.
    pub fn add(&mut self, g: &Gtid) {
        self.add_interval(g.uuid, g.gno, g.gno);
    }

    /// Adds `a..=b` of `uuid`. REQUIRES: `1 <= a <= b <= GNO_MAX`.
    pub fn add_interval(&mut self, uuid: Uuid, a: u64, b: u64) {
        debug_assert!((1..=b).contains(&a) && b <= GNO_MAX, "invariant 2");
        let list = self.sets.entry(uuid).or_default();
        // Fast path: appending the next number (every commit).
        if let Some(last) = list.last_mut() {
            if last.1 + 1 == a {
                last.1 = b;
                return;
            }
        }
        list.push((a, b));
        list.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(list.len());
        for &(s, e) in list.iter() {
            match merged.last_mut() {
                Some(m) if s <= m.1.saturating_add(1) => m.1 = m.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        *list = merged;
    }

    /// Adds every GTID of `other`.
    pub fn union(&mut self, other: &GtidSet) {
        for (u, l) in &other.sets {
            for &(a, b) in l {
                self.add_interval(*u, a, b);
            }
        }
    }

    /// Whether every GTID of `self` is in `other` (GTID_SUBSET).
    pub fn is_subset(&self, other: &GtidSet) -> bool {
        self.sets.iter().all(|(u, l)| {
            let Some(o) = other.sets.get(u) else { return false };
            l.iter().all(|&(a, b)| o.iter().any(|&(c, d)| c <= a && b <= d))
        })
    }

    /// The GTIDs of `self` not in `other` (GTID_SUBTRACT).
    pub fn subtract(&self, other: &GtidSet) -> GtidSet {
        let mut out = GtidSet::new();
        for (u, l) in &self.sets {
            let o = other.sets.get(u).map_or(&[][..], Vec::as_slice);
            for &(a, b) in l {
                let mut from = a;
                for &(c, d) in o {
                    if d < from || c > b {
                        continue;
                    }
                    if c > from {
                        out.add_interval(*u, from, c - 1);
                    }
                    from = d.saturating_add(1);
                    if from > b {
                        break;
                    }
                }
                if from <= b {
                    out.add_interval(*u, from, b);
                }
            }
        }
        out
    }

    /// The GTIDs of `self` that are also in `other`.
    pub fn intersect(&self, other: &GtidSet) -> GtidSet {
        self.subtract(&self.subtract(other))
    }

    /// The smallest number of `uuid` not in the set (the next automatic
    /// GTID, as MySQL's `get_automatic_gno`); `None` when exhausted.
    pub fn next_free(&self, uuid: &Uuid) -> Option<u64> {
        let Some(l) = self.sets.get(uuid) else { return Some(1) };
        match l.first() {
            Some(&(a, _)) if a > 1 => Some(1),
            Some(&(_, b)) => (b < GNO_MAX).then_some(b + 1),
            None => Some(1),
        }
    }

    /// The count of GTIDs.
    pub fn count(&self) -> u64 {
        self.sets.values().flatten().map(|(a, b)| b - a + 1).sum()
    }

    /// The binary form (module note).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.sets.len() * 40);
        out.extend_from_slice(&(self.sets.len() as u64).to_le_bytes());
        for (u, l) in &self.sets {
            out.extend_from_slice(&u.0);
            out.extend_from_slice(&(l.len() as u64).to_le_bytes());
            for &(a, b) in l {
                out.extend_from_slice(&a.to_le_bytes());
                out.extend_from_slice(&(b + 1).to_le_bytes());
            }
        }
        out
    }

    /// Decodes the binary form; `None` when the bytes do not hold one
    /// (MySQL's 1773 `ER_MALFORMED_GTID_SET_ENCODING`). Trailing bytes
    /// are an error too.
    pub fn decode(bytes: &[u8]) -> Option<GtidSet> {
        let mut r = bytes;
        let mut take = |n: usize| -> Option<&[u8]> {
            if r.len() < n {
                return None;
            }
            let (a, b) = r.split_at(n);
            r = b;
            Some(a)
        };
        let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        let n_sids = u64_at(take(8)?);
        let mut set = GtidSet::new();
        for _ in 0..n_sids {
            let uuid = Uuid(take(16)?.try_into().ok()?);
            let n = u64_at(take(8)?);
            for _ in 0..n {
                let a = u64_at(take(8)?);
                let e = u64_at(take(8)?);
                if a == 0 || e <= a || e - 1 > GNO_MAX {
                    return None;
                }
                set.add_interval(uuid, a, e - 1);
            }
        }
        if !r.is_empty() {
            return None;
        }
        Some(set)
    }
}

impl fmt::Display for GtidSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (u, l)) in self.sets.iter().enumerate() {
            if i > 0 {
                f.write_str(",\n")?;
            }
            write!(f, "{u}")?;
            for &(a, b) in l {
                if a == b {
                    write!(f, ":{a}")?;
                } else {
                    write!(f, ":{a}-{b}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    const B: &str = "ad9a6a3c-8c53-11ee-a4a5-0242ac110002";

    fn set(s: &str) -> GtidSet {
        GtidSet::parse(s).unwrap_or_else(|| panic!("{s} parses"))
    }

    #[test]
    fn text_round_trips_with_intervals_merged_and_uuids_sorted() {
        let s = set(&format!("{B}:3, {A}:1-5:7 , {A}:6 ,{B}:1-2"));
        assert_eq!(s.to_string(), format!("{A}:1-7,\n{B}:1-3"));
        assert_eq!(set(&s.to_string()), s);
        assert_eq!(set("").to_string(), "");
        assert_eq!(set(&format!("{}:4:2", A.replace('-', "").to_uppercase())).to_string(), format!("{A}:2:4"));
    }

    #[test]
    fn malformed_text_is_refused() {
        for bad in [
            "x",
            A,
            &format!("{A}:0"),
            &format!("{A}:5-3"),
            &format!("{A}:a"),
            &format!("{A}:1-"),
            "3e11fa47-71ca-11e1-9e33-c80aa942956:1",
        ] {
            assert_eq!(GtidSet::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn subset_and_subtract_follow_the_intervals() {
        let big = set(&format!("{A}:1-10:20-30,{B}:1"));
        assert!(set(&format!("{A}:2-4:25")).is_subset(&big));
        assert!(!set(&format!("{A}:9-11")).is_subset(&big));
        assert!(!set(&format!("{B}:2")).is_subset(&big));
        assert!(set("").is_subset(&set("")));
        assert_eq!(big.subtract(&set(&format!("{A}:3-5:10-22,{B}:1"))).to_string(), format!("{A}:1-2:6-9:23-30"));
        assert_eq!(big.subtract(&big), GtidSet::new());
        assert_eq!(big.intersect(&set(&format!("{A}:5-25"))).to_string(), format!("{A}:5-10:20-25"));
    }

    #[test]
    fn next_free_is_the_first_gap_from_one() {
        let u = Uuid::parse(A).unwrap();
        assert_eq!(GtidSet::new().next_free(&u), Some(1));
        assert_eq!(set(&format!("{A}:1-4")).next_free(&u), Some(5));
        assert_eq!(set(&format!("{A}:2-4")).next_free(&u), Some(1));
        assert_eq!(set(&format!("{A}:1-4:6")).next_free(&u), Some(5));
    }

    #[test]
    fn binary_form_round_trips_and_rejects_bad_bytes() {
        let s = set(&format!("{A}:1-7:9,{B}:5"));
        let enc = s.encode();
        assert_eq!(enc.len(), 8 + (16 + 8 + 32) + (16 + 8 + 16));
        assert_eq!(GtidSet::decode(&enc), Some(s));
        assert_eq!(GtidSet::decode(&0u64.to_le_bytes()), Some(GtidSet::new()));
        assert_eq!(GtidSet::decode(&enc[..enc.len() - 1]), None);
        let mut extra = enc.clone();
        extra.push(0);
        assert_eq!(GtidSet::decode(&extra), None);
    }

    /// A model check: random interval sets against `BTreeSet<u64>`.
    #[test]
    fn set_operations_agree_with_a_plain_set_model() {
        use std::collections::BTreeSet;
        let u = Uuid::parse(A).unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..300 {
            let mut pair = Vec::new();
            for _ in 0..2 {
                let mut g = GtidSet::new();
                let mut m = BTreeSet::new();
                for _ in 0..rnd(6) {
                    let a = 1 + rnd(40);
                    let b = a + rnd(6);
                    g.add_interval(u, a, b);
                    m.extend(a..=b);
                }
                pair.push((g, m));
            }
            let ((x, mx), (y, my)) = (&pair[0], &pair[1]);
            let to_model =
                |g: &GtidSet| -> BTreeSet<u64> { (1..60).filter(|&n| g.contains(&Gtid { uuid: u, gno: n })).collect() };
            assert_eq!(to_model(x), *mx);
            assert_eq!(to_model(&x.subtract(y)), mx.difference(my).copied().collect());
            assert_eq!(x.is_subset(y), mx.is_subset(my));
            let mut un = x.clone();
            un.union(y);
            assert_eq!(to_model(&un), mx.union(my).copied().collect());
            assert_eq!(GtidSet::parse(&un.to_string()), Some(un.clone()));
            assert_eq!(x.count(), mx.len() as u64);
        }
    }
}
