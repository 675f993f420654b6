//! `time_zone`: which wall clock the session's temporal values are in.
//!
//! quire knows two kinds of zone, those MySQL and MariaDB know without
//! their time zone tables loaded: `SYSTEM` (the server's zone, which is
//! UTC: `system_time_zone` says so) and fixed offsets `[+-]H[H]:M[M]`
//! from `-12:59` to `+13:00` (MariaDB's range; MySQL 8.0 allows `-13:59`
//! to `+14:00`). Named zones (`Europe/Paris`, even `UTC`) are error 1298
//! as there, and NULL in CONVERT_TZ.
//!
//! The session's offset reaches the engine's row codec before every
//! statement (`quire_engine::row::tz`): TIMESTAMP columns are stored in
//! UTC and read in the session's zone there; NOW(), CURDATE(),
//! FROM_UNIXTIME() and UNIX_TIMESTAMP() read the same offset here.

use quire_engine::row::tz;
use quire_engine::row::DateTime;

/// `text` as `time_zone` stores it (`SYSTEM`, `+05:30`); `None` if it is
/// no zone quire knows.
pub fn canonical(text: &str) -> Option<String> {
    if text.eq_ignore_ascii_case("SYSTEM") {
        return Some("SYSTEM".into());
    }
    let secs = parse_offset(text)?;
    let (sign, abs) = if secs < 0 { ('-', -secs) } else { ('+', secs) };
    Some(format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60))
}

/// The offset east of UTC, in seconds, of a zone [`canonical`] accepts.
pub fn offset_secs(zone: &str) -> Option<i32> {
    if zone.eq_ignore_ascii_case("SYSTEM") {
        Some(0)
    } else {
        parse_offset(zone)
    }
}

/// `[+-]H[H]:M[M]` within MariaDB's range, as seconds.
fn parse_offset(text: &str) -> Option<i32> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'+' => (false, &text[1..]),
        b'-' => (true, &text[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let digits = |s: &str| (1..=2).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(h) || !digits(m) {
        return None;
    }
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    if m >= 60 {
        return None;
    }
    let secs = h * 3600 + m * 60;
    let ok = if negative { secs < 13 * 3600 } else { secs <= 13 * 3600 };
    ok.then_some(if negative { -secs } else { secs })
}

/// The session's current date and time (UTC moved to `time_zone`).
pub fn local_now() -> DateTime {
    let utc = utc_now();
    tz::shift(utc, i64::from(tz::session_offset()))
}

/// The current UTC date and time, to the microsecond.
pub fn utc_now() -> DateTime {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    tz::from_unix_seconds(d.as_secs() as i64, d.subsec_micros())
        .unwrap_or_else(|| DateTime::parse("1970-01-01 00:00:00").expect("the epoch parses"))
}

/// CONVERT_TZ(dt, from, to): `dt` read in zone `from`, shown in `to`;
/// `None` (SQL NULL) for a zone quire does not know.
pub fn convert(dt: DateTime, from: &str, to: &str) -> Option<DateTime> {
    let (from, to) = (offset_secs(from)?, offset_secs(to)?);
    Some(tz::shift(dt, i64::from(to) - i64::from(from)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_canonical_within_mariadbs_range() {
        for (given, want) in [
            ("system", Some("SYSTEM")),
            ("+5:30", Some("+05:30")),
            ("+05:5", Some("+05:05")),
            ("-00:00", Some("+00:00")),
            ("+13:00", Some("+13:00")),
            ("-12:59", Some("-12:59")),
            ("+13:01", None),
            ("-13:00", None),
            ("+00:60", None),
            ("05:30", None),
            (" +05:30", None),
            ("+05:30:00", None),
            ("UTC", None),
            ("Europe/Paris", None),
            ("", None),
        ] {
            assert_eq!(canonical(given).as_deref(), want, "{given:?}");
        }
        assert_eq!(offset_secs("-05:30"), Some(-19_800));
    }

    #[test]
    fn convert_tz_moves_between_offsets_and_refuses_names() {
        let dt = DateTime::parse("2020-01-01 00:00:00").unwrap();
        assert_eq!(convert(dt, "+00:00", "+03:00").unwrap().format(0), "2020-01-01 03:00:00");
        assert_eq!(convert(dt, "SYSTEM", "-01:30").unwrap().format(0), "2019-12-31 22:30:00");
        assert!(convert(dt, "+00:00", "Europe/Paris").is_none());
    }
}
