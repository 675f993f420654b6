//! Named time zones (`Europe/Paris`), read from the system's zoneinfo
//! files (`/usr/share/zoneinfo`, TZif) the first time a session names
//! one, and kept for the server's life (a tzdata update applies at the
//! next start, as MariaDB's tables apply when reloaded).
//!
//! MariaDB needs its time zone tables loaded by `mariadb-tzinfo-to-sql`,
//! which reads the same files' version-1 block (32-bit transition times:
//! they cover TIMESTAMP's whole range, 1970-2038); quire reads that block
//! directly, so both hold the same transitions. Files with leap seconds
//! (`right/...`) are refused (1298): MySQL's leap-second corrections are
//! not built.
//!
//! Conversions follow MySQL's `Time_zone_db` (`tztime.cc`):
//! 1. UTC to local: the offset of the last transition at or before the
//!    instant; before the first, the zone's first standard-time type.
//! 2. Local to UTC through the "reverse" ranges `prepare_tz_info` builds:
//!    a local time that occurs twice (the autumn overlap) is read with the
//!    earlier offset (the first occurrence); a local time that does not
//!    occur (the spring gap) becomes the instant of the transition (02:30
//!    in Paris on a spring-forward day reads as 03:00).
//!
//! Invariant: `rev` is sorted by local start, its first entry starts at
//! `i64::MIN`, and a gap entry is never first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use quire_engine::row::tz::ZoneRules;

/// The directory zone names are looked up in.
const ZONEINFO: &str = "/usr/share/zoneinfo";

/// One zone's transitions.
#[derive(Debug)]
pub struct Rules {
    /// UTC instants (seconds) of the transitions, ascending.
    at: Vec<i64>,
    /// The offset east of UTC from `at[i]` on.
    offset: Vec<i32>,
    /// The offset before the first transition.
    initial: i32,
    /// Local time ranges: (first local second, offset, in a gap).
    rev: Vec<(i64, i32, bool)>,
}

impl ZoneRules for Rules {
    fn offset_at(&self, utc_secs: i64) -> i32 {
        match self.at.partition_point(|&t| t <= utc_secs) {
            0 => self.initial,
            i => self.offset[i - 1],
        }
    }

    fn utc_of_local(&self, local_secs: i64) -> i64 {
        let i = self.rev.partition_point(|&(start, ..)| start <= local_secs).saturating_sub(1);
        let (start, offset, gap) = self.rev[i];
        if gap {
            start - i64::from(offset)
        } else {
            local_secs - i64::from(offset)
        }
    }
}

fn be32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A TZif file's version-1 block as [`Rules`]; `None` when it is not one
/// (or has leap seconds).
pub fn parse(b: &[u8]) -> Option<Rules> {
    if b.get(..4)? != b"TZif" {
        return None;
    }
    let count = |i: usize| be32(b, 20 + 4 * i).and_then(|n| usize::try_from(n).ok());
    let (leapcnt, timecnt, typecnt) = (count(2)?, count(3)?, count(4)?);
    if leapcnt != 0 || typecnt == 0 {
        return None;
    }
    let times = 44;
    let idx = times + 4 * timecnt;
    let types = idx + timecnt;
    let ttinfo = |k: usize| -> Option<(i32, bool)> {
        let at = types + 6 * k;
        Some((be32(b, at)?, *b.get(at + 4)? != 0))
    };
    let mut at = Vec::with_capacity(timecnt);
    let mut offset = Vec::with_capacity(timecnt);
    for i in 0..timecnt {
        at.push(i64::from(be32(b, times + 4 * i)?));
        let k = usize::from(*b.get(idx + i)?);
        if k >= typecnt {
            return None;
        }
        offset.push(ttinfo(k)?.0);
    }
    if at.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    // Before the first transition: the first standard-time type, else
    // the first type (MySQL's fallback).
    let mut initial = ttinfo(0)?.0;
    for k in 0..typecnt {
        let (off, dst) = ttinfo(k)?;
        if !dst {
            initial = off;
            break;
        }
    }
    let rev = reverse(&at, &offset, initial);
    Some(Rules { at, offset, initial, rev })
}

/// MySQL's reverse ranges (rule 2), built as `prepare_tz_info` builds them.
fn reverse(at: &[i64], offset: &[i32], initial: i32) -> Vec<(i64, i32, bool)> {
    let mut rev: Vec<(i64, i32, bool)> = Vec::with_capacity(at.len() * 2 + 1);
    let mut max_seen: Option<i64> = None;
    for k in 0..=at.len() {
        let (start_t, off) = if k == 0 { (i64::MIN, initial) } else { (at[k - 1], offset[k - 1]) };
        let end_t = at.get(k).map_or(i64::MAX, |t| t - 1);
        let off64 = i64::from(off);
        let cur_l = if start_t == i64::MIN { i64::MIN } else { start_t + off64 };
        let end_l = if end_t == i64::MAX { i64::MAX } else { end_t + off64 };
        match max_seen {
            None => {
                rev.push((cur_l, off, false));
                max_seen = Some(end_l);
            }
            Some(mut m) if end_l > m => {
                if cur_l > m + 1 {
                    let prev = rev.last().map_or(off, |r| r.1);
                    rev.push((m + 1, prev, true));
                    m = cur_l - 1;
                }
                rev.push((m + 1, off, false));
                max_seen = Some(end_l);
            }
            _ => {}
        }
    }
    rev
}

/// Whether `name` may name a file under the zoneinfo directory: path
/// segments of letters, digits, `_ + -`, none empty or `.`/`..`.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-' | b'.'))
        })
}

/// The zone named `name`, loaded once; `None` when the system has no such
/// zone file.
pub fn load(name: &str) -> Option<Arc<Rules>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<Arc<Rules>>>>> = OnceLock::new();
    if !safe_name(name) {
        return None;
    }
    let cache = CACHE.get_or_init(Default::default);
    if let Some(z) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
        return z.clone();
    }
    let path = std::path::Path::new(ZONEINFO).join(name);
    let rules = std::fs::read(path).ok().and_then(|b| parse(&b)).map(Arc::new);
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_string(), rules.clone());
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paris from 1996 on, by hand: CET +1, CEST +2, changes at 01:00 UTC.
    fn paris() -> Rules {
        // 2021-03-28 01:00 UTC and 2021-10-31 01:00 UTC.
        let at = vec![1_616_893_200, 1_635_642_000];
        let offset = vec![7200, 3600];
        let rev = reverse(&at, &offset, 3600);
        Rules { at, offset, initial: 3600, rev }
    }

    #[test]
    fn gaps_move_to_the_transition_and_overlaps_take_the_first_time() {
        let z = paris();
        // Local times are seconds since the epoch as if they were UTC.
        // 2021-03-28 02:30 local is in the gap: the transition, 01:00 UTC.
        assert_eq!(z.utc_of_local(1_616_893_200 + 3600 + 1800), 1_616_893_200);
        // 2021-03-28 03:30 local (CEST) is 01:30 UTC.
        assert_eq!(z.utc_of_local(1_616_893_200 + 7200 + 1800), 1_616_893_200 + 1800);
        // 2021-10-31 02:30 local happens twice: the first (CEST) is 00:30 UTC.
        assert_eq!(z.utc_of_local(1_635_642_000 + 3600 + 1800), 1_635_642_000 - 1800);
        assert_eq!(z.offset_at(1_635_642_000 - 1), 7200);
        assert_eq!(z.offset_at(1_635_642_000), 3600);
        assert_eq!(z.offset_at(0), 3600);
    }

    #[test]
    fn the_system_files_parse_when_present() {
        if let Some(z) = load("Europe/Paris") {
            assert_eq!(z.offset_at(1_625_097_600), 7200, "2021-07-01 is summer time");
            assert_eq!(z.offset_at(1_609_459_200), 3600, "2021-01-01 is winter time");
        }
        assert!(load("../etc/passwd").is_none());
        assert!(load("No/Such_Zone").is_none());
    }
}
