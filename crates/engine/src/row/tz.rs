//! The session time zone of TIMESTAMP columns.
//!
//! MySQL stores a TIMESTAMP as an instant (UTC) and shows it in the
//! session's `time_zone`; a DATETIME is stored as written. quire keeps
//! that boundary in the row and key codecs: a TIMESTAMP value outside the
//! engine is the session's wall-clock time, the bytes on disk are UTC.
//! The session's offset lives in a thread-local that the SQL layer sets
//! before each statement ([`set_session_offset`]); threads that never set
//! it (purge, recovery) see raw UTC on both sides, so whatever they decode
//! and re-encode round-trips unchanged. A fixed offset (`+05:30`) converts
//! exactly both ways. A named zone (`Europe/Paris`, [`ZoneRules`], read
//! by the SQL layer from the system's zoneinfo) changes its offset over
//! time: its local-to-UTC reading follows MySQL (a time in the spring gap
//! is the transition's instant, a time of the autumn overlap its first
//! occurrence), so it stays monotonic and index ranges stay ranges.
//!
//! The zero date (`0000-00-00 00:00:00`, non-strict mode's stand-in for a
//! bad value) is kept as it is, in every zone, as MySQL does.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use super::{Date, DateTime};

/// A zone whose offset from UTC changes over time (a named zone).
pub trait ZoneRules: Send + Sync + std::fmt::Debug {
    /// The offset east of UTC, in seconds, at UTC instant `utc_secs`.
    fn offset_at(&self, utc_secs: i64) -> i32;
    /// The UTC instant of local time `local_secs` (seconds since the epoch
    /// as if the local time were UTC), gaps and overlaps read as MySQL
    /// reads them.
    fn utc_of_local(&self, local_secs: i64) -> i64;
}

/// [`OFFSET`]'s value while the session's zone is a named one ([`RULES`]).
const NAMED: i32 = i32::MIN;

thread_local! {
    /// The fixed offset, or [`NAMED`].
    static OFFSET: Cell<i32> = const { Cell::new(0) };
    /// The named zone while `OFFSET` is [`NAMED`].
    static RULES: RefCell<Option<Arc<dyn ZoneRules>>> = const { RefCell::new(None) };
}

/// Sets the calling thread's session zone to a fixed offset from UTC, in
/// seconds.
pub fn set_session_offset(secs: i32) {
    OFFSET.with(|o| o.set(secs));
}

/// Sets the calling thread's session zone to a named zone.
pub fn set_session_rules(rules: Arc<dyn ZoneRules>) {
    RULES.with(|r| *r.borrow_mut() = Some(rules));
    OFFSET.with(|o| o.set(NAMED));
}

/// Runs `f` with the calling thread's session zone set to UTC, then puts
/// the zone back: TIMESTAMP values `f` decodes are the stored UTC ones
/// (the binary log writes them as seconds since the epoch).
pub fn with_utc<T>(f: impl FnOnce() -> T) -> T {
    let off = OFFSET.with(|o| o.replace(0));
    let r = f();
    OFFSET.with(|o| o.set(off));
    r
}

fn rules() -> Option<Arc<dyn ZoneRules>> {
    RULES.with(|r| r.borrow().clone())
}

/// The session zone's offset from UTC, in seconds, at UTC instant
/// `utc_secs`.
pub fn offset_at(utc_secs: i64) -> i32 {
    match OFFSET.with(|o| o.get()) {
        NAMED => rules().map_or(0, |r| r.offset_at(utc_secs)),
        off => off,
    }
}

/// The UTC instant (seconds) of `dt` read in the session's zone.
pub fn local_unix_seconds(dt: &DateTime) -> i64 {
    let local = unix_seconds(dt);
    match OFFSET.with(|o| o.get()) {
        NAMED => rules().map_or(local, |r| r.utc_of_local(local)),
        off => local - i64::from(off),
    }
}

/// The session's wall-clock time of UTC date and time `utc` (the zero
/// date unchanged).
pub fn utc_to_local(utc: DateTime) -> DateTime {
    match OFFSET.with(|o| o.get()) {
        0 => utc,
        NAMED if !is_zero(&utc) => shift(utc, i64::from(offset_at(unix_seconds(&utc)))),
        NAMED => utc,
        off => shift(utc, i64::from(off)),
    }
}

/// The UTC date and time of `local`, read in the session's zone (the
/// zero date unchanged).
pub fn local_to_utc(local: DateTime) -> DateTime {
    match OFFSET.with(|o| o.get()) {
        0 => local,
        NAMED if !is_zero(&local) => from_unix_seconds(local_unix_seconds(&local), local.micros).unwrap_or(local),
        NAMED => local,
        off => shift(local, -i64::from(off)),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(d: Date) -> i64 {
    let (y, m, day) = (i64::from(d.year) - i64::from(d.month <= 2), i64::from(d.month), i64::from(d.day));
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01; `None` outside years 0..=9999.
pub fn civil_from_days(days: i64) -> Option<Date> {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (0..=9999).contains(&year).then_some(Date { year: year as u16, month, day })
}

/// Seconds since the epoch of `dt` read as UTC (its micros aside).
pub fn unix_seconds(dt: &DateTime) -> i64 {
    days_from_civil(dt.date) * 86_400 + i64::from(dt.hour) * 3600 + i64::from(dt.minute) * 60 + i64::from(dt.second)
}

/// The UTC date and time `secs` after the epoch, with `micros`; `None`
/// outside years 0..=9999.
pub fn from_unix_seconds(secs: i64, micros: u32) -> Option<DateTime> {
    let date = civil_from_days(secs.div_euclid(86_400))?;
    let rem = secs.rem_euclid(86_400);
    Some(DateTime { date, hour: (rem / 3600) as u8, minute: (rem % 3600 / 60) as u8, second: (rem % 60) as u8, micros })
}

fn is_zero(dt: &DateTime) -> bool {
    dt.date.month == 0 || dt.date.day == 0
}

/// `dt` moved by `secs` seconds; unchanged for the zero date or a move
/// that would leave years 0..=9999.
pub fn shift(dt: DateTime, secs: i64) -> DateTime {
    if secs == 0 || is_zero(&dt) {
        return dt;
    }
    from_unix_seconds(unix_seconds(&dt) + secs, dt.micros).unwrap_or(dt)
}

/// Whether local time `dt` occurs in the session's zone (a named zone's
/// spring gap does not; a fixed offset has none).
pub fn local_exists(dt: &DateTime) -> bool {
    if OFFSET.with(|o| o.get()) != NAMED || is_zero(dt) {
        return true;
    }
    let back = utc_to_local(local_to_utc(*dt));
    (back.date, back.hour, back.minute, back.second) == (dt.date, dt.hour, dt.minute, dt.second)
}

/// The stored (UTC) form of a TIMESTAMP given in the session's zone.
#[inline]
pub fn timestamp_to_utc(dt: DateTime) -> DateTime {
    local_to_utc(dt)
}

/// The session's view of a stored (UTC) TIMESTAMP.
#[inline]
pub fn timestamp_from_utc(dt: DateTime) -> DateTime {
    utc_to_local(dt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days_round_trip_over_the_supported_years() {
        for days in (days_from_civil(Date { year: 0, month: 1, day: 1 })..=2_932_896).step_by(97) {
            let d = civil_from_days(days).unwrap();
            assert_eq!(days_from_civil(d), days, "{d:?}");
        }
        assert_eq!(days_from_civil(Date { year: 1970, month: 1, day: 1 }), 0);
        assert_eq!(days_from_civil(Date { year: 2000, month: 3, day: 1 }), 11_017);
    }

    #[test]
    fn timestamps_convert_at_the_session_offset_and_zero_stays_zero() {
        let dt = DateTime::parse("2020-01-01 00:00:00.5").unwrap();
        set_session_offset(5 * 3600 + 1800);
        let utc = timestamp_to_utc(dt);
        assert_eq!(utc.format(1), "2019-12-31 18:30:00.5");
        assert_eq!(timestamp_from_utc(utc), dt);
        let zero = DateTime::from_packed(0);
        assert_eq!(timestamp_to_utc(zero), zero);
        set_session_offset(0);
        assert_eq!(timestamp_to_utc(dt), dt);
    }
}
