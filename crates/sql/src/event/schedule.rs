//! An event's schedule as numbers: the interval of `EVERY value unit`
//! as months plus seconds, and the next execution of a schedule, in UTC
//! seconds, found from its times in the event's zone (`event`,
//! invariant 3).
//!
//! Occurrences of `EVERY` are `STARTS + k * interval` (k = 0, 1, ...),
//! the months added on the calendar (a day past the month's end is
//! clamped, as DATE_ADD does) and the seconds on the clock.

use quire_engine::row::{tz, Date, DateTime};

/// The units of `EVERY` (MySQL's `interval_type` without the
/// microsecond ones, which MySQL refuses too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    YearMonth,
    DayHour,
    DayMinute,
    DaySecond,
    HourMinute,
    HourSecond,
    MinuteSecond,
}

const ALL: [Unit; 15] = [
    Unit::Year,
    Unit::Quarter,
    Unit::Month,
    Unit::Week,
    Unit::Day,
    Unit::Hour,
    Unit::Minute,
    Unit::Second,
    Unit::YearMonth,
    Unit::DayHour,
    Unit::DayMinute,
    Unit::DaySecond,
    Unit::HourMinute,
    Unit::HourSecond,
    Unit::MinuteSecond,
];

/// The unit words with microseconds: MySQL refuses them (1235).
pub const MICROSECOND_UNITS: [&str; 5] =
    ["MICROSECOND", "SECOND_MICROSECOND", "MINUTE_MICROSECOND", "HOUR_MICROSECOND", "DAY_MICROSECOND"];

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Year => "YEAR",
            Unit::Quarter => "QUARTER",
            Unit::Month => "MONTH",
            Unit::Week => "WEEK",
            Unit::Day => "DAY",
            Unit::Hour => "HOUR",
            Unit::Minute => "MINUTE",
            Unit::Second => "SECOND",
            Unit::YearMonth => "YEAR_MONTH",
            Unit::DayHour => "DAY_HOUR",
            Unit::DayMinute => "DAY_MINUTE",
            Unit::DaySecond => "DAY_SECOND",
            Unit::HourMinute => "HOUR_MINUTE",
            Unit::HourSecond => "HOUR_SECOND",
            Unit::MinuteSecond => "MINUTE_SECOND",
        }
    }

    pub fn from_name(w: &str) -> Option<Unit> {
        ALL.into_iter().find(|u| u.name().eq_ignore_ascii_case(w))
    }

    /// Every unit word (where an interval's value ends).
    pub fn words() -> Vec<&'static str> {
        ALL.iter().map(|u| u.name()).chain(MICROSECOND_UNITS).collect()
    }

    /// The parts of a compound unit's value, each as (months, seconds);
    /// one part for a simple unit.
    fn parts(self) -> &'static [(i64, i64)] {
        const D: i64 = 86_400;
        match self {
            Unit::Year => &[(12, 0)],
            Unit::Quarter => &[(3, 0)],
            Unit::Month => &[(1, 0)],
            Unit::Week => &[(0, 7 * D)],
            Unit::Day => &[(0, D)],
            Unit::Hour => &[(0, 3600)],
            Unit::Minute => &[(0, 60)],
            Unit::Second => &[(0, 1)],
            Unit::YearMonth => &[(12, 0), (1, 0)],
            Unit::DayHour => &[(0, D), (0, 3600)],
            Unit::DayMinute => &[(0, D), (0, 3600), (0, 60)],
            Unit::DaySecond => &[(0, D), (0, 3600), (0, 60), (0, 1)],
            Unit::HourMinute => &[(0, 3600), (0, 60)],
            Unit::HourSecond => &[(0, 3600), (0, 60), (0, 1)],
            Unit::MinuteSecond => &[(0, 60), (0, 1)],
        }
    }

    pub fn is_compound(self) -> bool {
        self.parts().len() > 1
    }
}

/// The largest interval value MySQL takes (`EVEX_MAX_INTERVAL_VALUE`).
pub const MAX_VALUE: i64 = 1_000_000_000;

/// An interval: months on the calendar, then seconds on the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub months: i64,
    pub secs: i64,
}

/// The interval `value unit`, `value` as SHOW shows it (`5`, `'1:30'`);
/// `None` if it is not positive or too big (MySQL's 1542). A compound
/// value's numbers fill its parts from the right (`'30'` HOUR_MINUTE is
/// thirty minutes), as MySQL reads them.
pub fn step(value: &str, unit: Unit) -> Option<Step> {
    let v = value.trim().trim_matches('\'');
    if v.trim_start().starts_with('-') {
        return None;
    }
    let nums: Vec<i64> = v
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect::<Option<_>>()?;
    let parts = unit.parts();
    if nums.is_empty() || nums.len() > parts.len() || nums.iter().any(|n| *n > MAX_VALUE) {
        return None;
    }
    let mut s = Step { months: 0, secs: 0 };
    for (n, (m, sec)) in nums.iter().rev().zip(parts.iter().rev()) {
        s.months += n * m;
        s.secs += n * sec;
    }
    (s.months > 0 || s.secs > 0).then_some(s)
}

/// `dt` moved by `k` steps; `None` beyond the calendar.
pub fn add(dt: DateTime, s: Step, k: i64) -> Option<DateTime> {
    let mut out = dt;
    if s.months != 0 {
        let m0 = i64::from(dt.date.year) * 12 + i64::from(dt.date.month) - 1 + s.months.checked_mul(k)?;
        let (year, month) = (m0.div_euclid(12), (m0.rem_euclid(12) + 1) as u8);
        if !(1..=9999).contains(&year) {
            return None;
        }
        let year = year as u16;
        let day = dt.date.day.min(quire_engine::row::datetime::days_in_month(year, month));
        out.date = Date { year, month, day };
    }
    let secs = tz::unix_seconds(&out).checked_add(s.secs.checked_mul(k)?)?;
    tz::from_unix_seconds(secs, out.micros).filter(|d| d.date.year <= 9999)
}

/// `local`, a wall-clock time of `zone`, as UTC seconds.
pub fn utc_secs(local: &DateTime, zone: &str) -> i64 {
    let utc = crate::timezone::convert(*local, zone, "+00:00").unwrap_or(*local);
    tz::unix_seconds(&utc)
}

/// UTC seconds as `YYYY-MM-DD hh:mm:ss` in `zone`.
pub fn local_text(utc: i64, zone: &str) -> String {
    let Some(dt) = tz::from_unix_seconds(utc, 0) else { return String::new() };
    crate::timezone::convert(dt, "+00:00", zone).unwrap_or(dt).format(0)
}

/// The first occurrence of `starts + k * step` (in `zone`) at or after
/// `from` and after `after` (UTC seconds); `None` if there is none on
/// the calendar.
pub fn next_occurrence(starts: &DateTime, s: Step, zone: &str, from: i64, after: Option<i64>) -> Option<i64> {
    let floor = match after {
        Some(a) => from.max(a + 1),
        None => from,
    };
    let first = utc_secs(starts, zone);
    if first >= floor {
        return Some(first);
    }
    // An estimate of k from below (a month is at least 28 days), then
    // forward to the first occurrence at or after `floor`.
    let per = s.months * 28 * 86_400 + s.secs;
    let mut k = if s.months == 0 {
        (floor - first) / per
    } else {
        ((floor - first) / (s.months * 31 * 86_400 + s.secs)).max(0)
    };
    loop {
        let t = utc_secs(&add(*starts, s, k)?, zone);
        if t >= floor {
            return Some(t);
        }
        k += if s.months == 0 { 1 } else { ((floor - t) / per).max(1) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        DateTime::parse(s).unwrap()
    }

    #[test]
    fn interval_values_become_months_and_seconds() {
        assert_eq!(step("5", Unit::Minute), Some(Step { months: 0, secs: 300 }));
        assert_eq!(step("'1:30'", Unit::HourMinute), Some(Step { months: 0, secs: 5400 }));
        assert_eq!(step("'30'", Unit::HourMinute), Some(Step { months: 0, secs: 1800 }));
        assert_eq!(step("'1-2'", Unit::YearMonth), Some(Step { months: 14, secs: 0 }));
        assert_eq!(step("'1 2:3:4'", Unit::DaySecond), Some(Step { months: 0, secs: 86_400 + 7200 + 184 }));
        assert_eq!(step("1", Unit::Quarter), Some(Step { months: 3, secs: 0 }));
        assert_eq!(step("2", Unit::Week), Some(Step { months: 0, secs: 14 * 86_400 }));
        for bad in ["0", "-1", "'1:2:3'", "1000000001", "''"] {
            let unit = if bad.starts_with('\'') { Unit::HourMinute } else { Unit::Day };
            assert_eq!(step(bad, unit), None, "{bad}");
        }
    }

    #[test]
    fn months_are_added_on_the_calendar_and_clamped() {
        let m = Step { months: 1, secs: 0 };
        assert_eq!(add(dt("2030-01-31 10:00:00"), m, 1), Some(dt("2030-02-28 10:00:00")));
        assert_eq!(add(dt("2030-01-31 10:00:00"), m, 13), Some(dt("2031-02-28 10:00:00")));
        assert_eq!(add(dt("2030-12-31 23:59:59"), Step { months: 0, secs: 1 }, 1), Some(dt("2031-01-01 00:00:00")));
        assert_eq!(add(dt("9999-12-01 00:00:00"), m, 1), None);
    }

    #[test]
    fn the_next_occurrence_is_the_first_at_or_after_now_and_after_the_last_run() {
        let starts = dt("2030-01-01 00:00:00");
        let t0 = utc_secs(&starts, "SYSTEM");
        let hour = Step { months: 0, secs: 3600 };
        // Before STARTS: STARTS itself.
        assert_eq!(next_occurrence(&starts, hour, "SYSTEM", t0 - 100, None), Some(t0));
        // Between occurrences: the next one.
        assert_eq!(next_occurrence(&starts, hour, "SYSTEM", t0 + 10, None), Some(t0 + 3600));
        // On an occurrence that already ran: the one after.
        assert_eq!(next_occurrence(&starts, hour, "SYSTEM", t0 + 3600, Some(t0 + 3600)), Some(t0 + 7200));
        // A zone moves the instants, not the wall-clock pattern.
        assert_eq!(next_occurrence(&starts, hour, "+02:00", t0 - 100_000, None), Some(t0 - 7200));
        // Monthly, far ahead: still the calendar's occurrence.
        let month = Step { months: 1, secs: 0 };
        let want = utc_secs(&dt("2032-03-01 00:00:00"), "SYSTEM");
        assert_eq!(next_occurrence(&starts, month, "SYSTEM", want - 5, None), Some(want));
        assert_eq!(local_text(want, "+01:00"), "2032-03-01 01:00:00");
    }
}
