//! TIME values: a signed duration in microseconds (`Value::Time`), as
//! MySQL holds a TIME: -838:59:59.999999 ..= 838:59:59.999999, hours may
//! exceed 23 (a TIME is an elapsed time as well as a time of day).
//!
//! Invariants:
//! 1. A stored TIME is within [`MAX_MICROS`] of zero and has no more
//!    fractional digits than its column's fsp (truncated, as MariaDB
//!    10.11 does by default).
//! 2. The order of the microsecond count is the SQL order, so the row
//!    codec stores it as an i64 and the key codec sign-flips it.
//!
//! Parsing follows MariaDB's `str_to_time`: `[-][D ]HH:MM[:SS[.frac]]`,
//! digits alone right-aligned as `[[HH]MM]SS[.frac]` (`'1234'` is
//! 00:12:34), a full date and time keeps its time part; minutes or
//! seconds beyond 59 make the value invalid, hours beyond 838 clip.

/// 838:59:59.999999 in microseconds.
pub const MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;
/// 838:59:59, the value an out-of-range TIME is clipped to.
pub const CLIP_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;

/// What reading a TIME gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeRead {
    /// The value, exactly.
    Exact(i64),
    /// Out of range: clipped to ±838:59:59 (MySQL warns 1264 when
    /// storing, 1292 "Truncated incorrect time value" in expressions).
    Clipped(i64),
    /// Not a time at all.
    Invalid,
}

impl TimeRead {
    /// The value, exact or clipped.
    pub fn value(self) -> Option<i64> {
        match self {
            TimeRead::Exact(v) | TimeRead::Clipped(v) => Some(v),
            TimeRead::Invalid => None,
        }
    }
}

/// Clips a microsecond count to the TIME range.
pub fn clip(us: i128) -> TimeRead {
    if us.abs() > MAX_MICROS as i128 {
        TimeRead::Clipped(if us < 0 { -CLIP_MICROS } else { CLIP_MICROS })
    } else {
        TimeRead::Exact(us as i64)
    }
}

fn hms(neg: bool, h: i128, m: i128, s: i128, us: i128) -> TimeRead {
    if m > 59 || s > 59 {
        return TimeRead::Invalid;
    }
    let v = ((h * 60 + m) * 60 + s) * 1_000_000 + us;
    clip(if neg { -v } else { v })
}

/// Six fractional digits from the digits after a point (more truncated).
fn frac_micros(f: &str) -> Option<i128> {
    if !f.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let six: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
    six.parse().ok()
}

fn num(s: &str) -> Option<i128> {
    if s.is_empty() || s.len() > 12 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Reads a TIME from text.
pub fn parse(text: &str) -> TimeRead {
    let t = text.trim();
    // A date and a time: its time part.
    if let Some(dt) = super::DateTime::parse(t).filter(|_| t.contains(['-', '/']) && t.contains(':')) {
        let v = ((dt.hour as i64 * 60 + dt.minute as i64) * 60 + dt.second as i64) * 1_000_000 + dt.micros as i64;
        return TimeRead::Exact(v);
    }
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t),
    };
    let (body, frac) = match t.split_once('.') {
        Some((b, f)) => (b, f),
        None => (t, ""),
    };
    let Some(us) = frac_micros(frac) else { return TimeRead::Invalid };
    // `D HH[:MM[:SS]]`
    let (days, clock) = match body.split_once(' ') {
        Some((d, c)) => match num(d) {
            Some(d) => (d, c.trim_start()),
            None => return TimeRead::Invalid,
        },
        None => (0, body),
    };
    if clock.contains(':') || days > 0 || body.contains(' ') {
        let parts: Vec<&str> = clock.split(':').collect();
        let get = |i: usize| parts.get(i).map_or(Some(0), |p| num(p));
        if parts.len() > 3 {
            return TimeRead::Invalid;
        }
        // `D HH` and `HH:MM` forms: no fraction without seconds.
        if parts.len() < 3 && !frac.is_empty() {
            return TimeRead::Invalid;
        }
        return match (get(0), get(1), get(2)) {
            (Some(h), Some(m), Some(s)) => hms(neg, days * 24 + h, m, s, us),
            _ => TimeRead::Invalid,
        };
    }
    // Digits alone: [[H..]HMM]SS, right-aligned.
    let Some(n) = num(clock) else { return TimeRead::Invalid };
    hms(neg, n / 10_000, n / 100 % 100, n % 100, us)
}

/// Reads a TIME from a number `HHMMSS[.frac]` given as its integer part
/// and microseconds (both of the number's sign).
pub fn from_number(int: i128, micros: i128) -> TimeRead {
    let neg = int < 0 || micros < 0;
    let (n, us) = (int.abs(), micros.abs());
    if n > 8_385_959 {
        return TimeRead::Clipped(if neg { -CLIP_MICROS } else { CLIP_MICROS });
    }
    hms(neg, n / 10_000, n / 100 % 100, n % 100, us)
}

/// Drops fractional digits beyond `fsp`.
pub fn with_fsp(us: i64, fsp: u8) -> i64 {
    let div = 10i64.pow(6 - u32::from(fsp.min(6)));
    us / div * div
}

/// `[-]HH:MM:SS[.f]` with `fsp` fractional digits (hours at least two
/// digits, up to three).
pub fn format(us: i64, fsp: u8) -> String {
    let a = us.unsigned_abs();
    let secs = a / 1_000_000;
    let mut s = format!("{}{:02}:{:02}:{:02}", if us < 0 { "-" } else { "" }, secs / 3600, secs / 60 % 60, secs % 60);
    if fsp > 0 {
        let f = format!("{:06}", a % 1_000_000);
        s.push('.');
        s.push_str(&f[..fsp.min(6) as usize]);
    }
    s
}

/// The fractional digits a value needs: 0 or 6 (as a DATETIME prints).
pub fn natural_fsp(us: i64) -> u8 {
    if us % 1_000_000 == 0 {
        0
    } else {
        6
    }
}

/// `HHMMSS` as an integer and the microseconds, of the value's sign.
pub fn to_hhmmss(us: i64) -> (i64, i64) {
    let a = us.unsigned_abs() as i64;
    let secs = a / 1_000_000;
    let n = secs / 3600 * 10_000 + secs / 60 % 60 * 100 + secs % 60;
    let sign = if us < 0 { -1 } else { 1 };
    (sign * n, sign * (a % 1_000_000))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<String> {
        parse(s).value().map(|v| format(v, natural_fsp(v)))
    }

    #[test]
    fn text_reads_as_mariadb_reads_it() {
        assert_eq!(p("12:34:56").as_deref(), Some("12:34:56"));
        assert_eq!(p("1 02:03:04").as_deref(), Some("26:03:04"));
        assert_eq!(p("123456").as_deref(), Some("12:34:56"));
        assert_eq!(p("1234").as_deref(), Some("00:12:34"));
        assert_eq!(p("12").as_deref(), Some("00:00:12"));
        assert_eq!(p("-12:00").as_deref(), Some("-12:00:00"));
        assert_eq!(p("1:2").as_deref(), Some("01:02:00"));
        assert_eq!(p("10:11:12.5").as_deref(), Some("10:11:12.500000"));
        assert_eq!(p("2020-01-01 10:11:12.5").as_deref(), Some("10:11:12.500000"));
        assert_eq!(parse("900:00:00"), TimeRead::Clipped(CLIP_MICROS));
        assert_eq!(parse("12:61"), TimeRead::Invalid);
        assert_eq!(parse(""), TimeRead::Invalid);
        assert_eq!(parse("abc"), TimeRead::Invalid);
    }

    #[test]
    fn numbers_read_as_hhmmss_and_clip() {
        assert_eq!(from_number(123456, 500_000), TimeRead::Exact(((12 * 60 + 34) * 60 + 56) * 1_000_000 + 500_000));
        assert_eq!(from_number(-9_000_000, 0), TimeRead::Clipped(-CLIP_MICROS));
        assert_eq!(from_number(160, 0), TimeRead::Invalid);
        assert_eq!(to_hhmmss(-((12 * 3600) * 1_000_000 + 5)), (-120000, -5));
        assert_eq!(format(-CLIP_MICROS, 0), "-838:59:59");
        assert_eq!(with_fsp(1_234_567, 3), 1_234_000);
    }
}
