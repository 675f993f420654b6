//! `time_zone`: which wall clock the session's temporal values are in.
//!
//! quire knows three kinds of zone: `SYSTEM` (the server's zone, which is
//! UTC: `system_time_zone` says so), fixed offsets `[+-]H[H]:M[M]` from
//! `-12:59` to `+13:00` (MariaDB's range; MySQL 8.0 allows `-13:59` to
//! `+14:00`), and named zones (`Europe/Paris`, `UTC`) read from the
//! system's zoneinfo files ([`crate::zoneinfo`]; MariaDB needs its time
//! zone tables loaded for them). A name the system does not know is 1298,
//! and NULL in CONVERT_TZ.
//!
//! The session's zone reaches the engine's row codec before every
//! statement ([`enter`], `quire_engine::row::tz`): TIMESTAMP columns are
//! stored in UTC and read in the session's zone there; NOW(), CURDATE(),
//! FROM_UNIXTIME() and UNIX_TIMESTAMP() read the same zone here.

use quire_engine::row::tz;
use quire_engine::row::DateTime;

/// `text` as `time_zone` stores it (`SYSTEM`, `+05:30`, `Europe/Paris`);
/// `None` if it is no zone quire knows.
pub fn canonical(text: &str) -> Option<String> {
    if text.eq_ignore_ascii_case("SYSTEM") {
        return Some("SYSTEM".into());
    }
    match parse_offset(text) {
        Some(secs) => {
            let (sign, abs) = if secs < 0 { ('-', -secs) } else { ('+', secs) };
            Some(format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60))
        }
        None => crate::zoneinfo::load(text).map(|_| text.to_string()),
    }
}

/// The offset east of UTC, in seconds, of a fixed zone (`SYSTEM` or an
/// offset); `None` for a named zone or no zone.
pub fn offset_secs(zone: &str) -> Option<i32> {
    if zone.eq_ignore_ascii_case("SYSTEM") {
        Some(0)
    } else {
        parse_offset(zone)
    }
}

/// What the session variables keep of `time_zone` for each statement: a
/// fixed zone's offset, or [`NAMED`].
pub fn hot_offset(zone: &str) -> i32 {
    offset_secs(zone).unwrap_or(NAMED)
}

/// [`hot_offset`] of a named zone (no fixed offset is this far from UTC).
pub const NAMED: i32 = i32::MIN;

/// Makes the session's zone the calling thread's for the statement
/// (`hot`: [`hot_offset`] of `time_zone`; `name` its text, read only for
/// a named zone).
pub fn enter(hot: i32, name: impl FnOnce() -> Option<String>) {
    if hot != NAMED {
        return tz::set_session_offset(hot);
    }
    match name().and_then(|n| crate::zoneinfo::load(&n)) {
        Some(rules) => tz::set_session_rules(rules),
        None => tz::set_session_offset(0),
    }
}

/// A zone CONVERT_TZ names: UTC instant <-> local time.
enum Zone {
    Fixed(i64),
    Named(std::sync::Arc<crate::zoneinfo::Rules>),
}

fn zone(text: &str) -> Option<Zone> {
    match offset_secs(text) {
        Some(off) => Some(Zone::Fixed(i64::from(off))),
        None => crate::zoneinfo::load(text).map(Zone::Named),
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

thread_local! {
    /// The running statement's time, in microseconds since the epoch
    /// (see [`start_statement`]); `None` on threads that run no statement.
    static STATEMENT_TIME: std::cell::Cell<Option<i64>> = const { std::cell::Cell::new(None) };
}

/// A statement starts on this thread: NOW() and the other functions of
/// the current time answer one instant for the whole statement, as
/// MySQL's do — `fixed_us` (the session's `SET TIMESTAMP`) if given,
/// else the clock's time now.
pub fn start_statement(fixed_us: Option<i64>) {
    STATEMENT_TIME.with(|t| t.set(Some(fixed_us.unwrap_or_else(clock_us))));
}

/// The wall clock, in microseconds since the epoch.
fn clock_us() -> i64 {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    d.as_micros() as i64
}

/// The statement's time in microseconds since the epoch (the clock's,
/// outside a statement).
pub fn statement_us() -> i64 {
    STATEMENT_TIME.with(|t| t.get()).unwrap_or_else(clock_us)
}

/// The session's current date and time (UTC moved to `time_zone`): the
/// statement's time.
pub fn local_now() -> DateTime {
    tz::utc_to_local(utc_now())
}

/// The statement's UTC date and time, to the microsecond.
pub fn utc_now() -> DateTime {
    utc_at(statement_us())
}

/// SYSDATE(): the clock's time when it is called, in the session's zone
/// (`SET TIMESTAMP` does not move it).
pub fn local_sysdate() -> DateTime {
    tz::utc_to_local(utc_at(clock_us()))
}

fn utc_at(us: i64) -> DateTime {
    tz::from_unix_seconds(us.div_euclid(1_000_000), us.rem_euclid(1_000_000) as u32)
        .unwrap_or_else(|| DateTime::parse("1970-01-01 00:00:00").expect("the epoch parses"))
}

/// The largest second a TIMESTAMP holds (2038-01-19 03:14:07 UTC).
const TIMESTAMP_MAX_SECS: i64 = i32::MAX as i64;

/// CONVERT_TZ(dt, from, to): `dt` read in zone `from`, shown in `to`;
/// `None` (SQL NULL) for a zone quire does not know. As MySQL, a `dt`
/// that read in `from` is outside TIMESTAMP's range comes back unchanged,
/// and a time in `from`'s spring gap is read as the transition's instant.
pub fn convert(dt: DateTime, from: &str, to: &str) -> Option<DateTime> {
    use quire_engine::row::tz::ZoneRules as _;
    let (from, to) = (zone(from)?, zone(to)?);
    let local = tz::unix_seconds(&dt);
    let utc = match &from {
        Zone::Fixed(off) => local - off,
        Zone::Named(r) => r.utc_of_local(local),
    };
    if !(0..=TIMESTAMP_MAX_SECS).contains(&utc) {
        return Some(dt);
    }
    let off = match &to {
        Zone::Fixed(off) => *off,
        Zone::Named(r) => i64::from(r.offset_at(utc)),
    };
    Some(tz::from_unix_seconds(utc + off, dt.micros).unwrap_or(dt))
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
            ("No/Such_Zone", None),
            ("", None),
        ] {
            assert_eq!(canonical(given).as_deref(), want, "{given:?}");
        }
        assert_eq!(offset_secs("-05:30"), Some(-19_800));
    }

    #[test]
    fn convert_tz_moves_between_offsets_and_refuses_unknown_names() {
        let dt = DateTime::parse("2020-01-01 00:00:00").unwrap();
        assert_eq!(convert(dt, "+00:00", "+03:00").unwrap().format(0), "2020-01-01 03:00:00");
        assert_eq!(convert(dt, "SYSTEM", "-01:30").unwrap().format(0), "2019-12-31 22:30:00");
        assert!(convert(dt, "+00:00", "No/Such_Zone").is_none());
    }
}
