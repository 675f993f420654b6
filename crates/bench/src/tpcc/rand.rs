//! TPC-C's random values (clause 2.1.6 and 4.3.2): uniform integers,
//! NURand, customer last names from syllables, a-strings, n-strings, zip
//! codes and the data fields that hold "ORIGINAL" one time in ten.
//!
//! The NURand constant C differs between the load and the run for C_LAST
//! (clause 2.1.6.1: the difference lies in 65..=119 and is neither 96 nor
//! 112); [`C_LAST_LOAD`] and [`C_LAST_RUN`] differ by 100.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// NURand's C for C_LAST while loading.
pub const C_LAST_LOAD: u32 = 157;
/// NURand's C for C_LAST during the run (|run - load| = 100).
pub const C_LAST_RUN: u32 = 57;
/// NURand's C for C_ID.
pub const C_ID: u32 = 259;
/// NURand's C for OL_I_ID.
pub const C_OL_I_ID: u32 = 7911;

const SYLLABLES: [&str; 10] = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"];
const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// The random numbers of one loader unit or one terminal.
pub struct TRand {
    rng: SmallRng,
}

impl TRand {
    pub fn new(seed: u64) -> Self {
        TRand { rng: SmallRng::seed_from_u64(seed) }
    }

    /// Uniform in `a..=b`.
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        self.rng.gen_range(a..=b)
    }

    /// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
    pub fn nurand(&mut self, a: u32, x: u32, y: u32, c: u32) -> u32 {
        (((self.uniform(0, a) | self.uniform(x, y)) + c) % (y - x + 1)) + x
    }

    /// A customer id for a run: NURand(1023, 1, 3000), within `customers`.
    pub fn customer_id(&mut self, customers: u32) -> u32 {
        if customers == 3000 {
            self.nurand(1023, 1, 3000, C_ID)
        } else {
            self.nurand(1023, 1, customers, C_ID)
        }
    }

    /// An item id for a run: NURand(8191, 1, items).
    pub fn item_id(&mut self, items: u32) -> u32 {
        self.nurand(8191, 1, items, C_OL_I_ID)
    }

    /// A last name for a run: NURand(255, 0, 999) as syllables (limited
    /// to the names loaded when there are fewer than 1000 customers).
    pub fn run_last_name(&mut self, customers: u32) -> String {
        let top = customers.min(1000) - 1;
        last_name(self.nurand(255, 0, top, C_LAST_RUN))
    }

    /// A random a-string (letters and digits) of `min..=max` characters.
    pub fn astring(&mut self, min: usize, max: usize) -> String {
        let n = self.rng.gen_range(min..=max);
        (0..n).map(|_| ALNUM[self.rng.gen_range(0..ALNUM.len())] as char).collect()
    }

    /// A random n-string (digits) of `min..=max` characters.
    pub fn nstring(&mut self, min: usize, max: usize) -> String {
        let n = self.rng.gen_range(min..=max);
        (0..n).map(|_| char::from(b'0' + self.rng.gen_range(0..10u8))).collect()
    }

    /// A zip code: four random digits then "11111".
    pub fn zip(&mut self) -> String {
        format!("{}11111", self.nstring(4, 4))
    }

    /// I_DATA / S_DATA: an a-string of 26..=50 characters; one in ten
    /// holds "ORIGINAL" at a random position.
    pub fn data(&mut self) -> String {
        let mut s = self.astring(26, 50);
        if self.uniform(1, 10) == 1 {
            let at = self.rng.gen_range(0..=s.len() - 8);
            s.replace_range(at..at + 8, "ORIGINAL");
        }
        s
    }

    /// A decimal with two places, uniform in `lo..=hi` hundredths, as text.
    pub fn cents(&mut self, lo: u32, hi: u32) -> String {
        money(i64::from(self.uniform(lo, hi)))
    }

    /// Whether an event with probability `pct`% happens.
    pub fn percent(&mut self, pct: u32) -> bool {
        self.uniform(1, 100) <= pct
    }
}

/// The last name of number `n` (0..=999): three syllables, one per digit.
pub fn last_name(n: u32) -> String {
    let d = [n / 100, (n / 10) % 10, n % 10];
    d.iter().map(|i| SYLLABLES[*i as usize]).collect()
}

/// Hundredths as a decimal text: -1050 -> "-10.50".
pub fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let c = cents.unsigned_abs();
    format!("{sign}{}.{:02}", c / 100, c % 100)
}

/// A decimal text with at most two places as hundredths ("12.3" -> 1230).
pub fn parse_cents(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut f = frac.chars().take(2).collect::<String>();
    while f.len() < 2 {
        f.push('0');
    }
    let v = whole.parse::<i64>().ok()? * 100 + f.parse::<i64>().ok()?;
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_names_are_three_syllables() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(999), "EINGEINGEING");
    }

    #[test]
    fn nurand_stays_in_range_and_the_c_last_constants_are_valid() {
        let mut r = TRand::new(1);
        for _ in 0..10_000 {
            let v = r.nurand(1023, 1, 3000, C_ID);
            assert!((1..=3000).contains(&v));
            assert!((1..=100_000).contains(&r.item_id(100_000)));
        }
        let delta = C_LAST_LOAD.abs_diff(C_LAST_RUN);
        assert!((65..=119).contains(&delta) && delta != 96 && delta != 112);
    }

    #[test]
    fn money_round_trips() {
        assert_eq!(money(-1050), "-10.50");
        assert_eq!(money(5), "0.05");
        assert_eq!(parse_cents("-10.5"), Some(-1050));
        assert_eq!(parse_cents("300000.00"), Some(30_000_000));
        assert_eq!(parse_cents("7"), Some(700));
    }

    #[test]
    fn data_holds_original_about_one_time_in_ten() {
        let mut r = TRand::new(2);
        let n = (0..2000).filter(|_| r.data().contains("ORIGINAL")).count();
        assert!((100..300).contains(&n), "{n}");
    }
}
