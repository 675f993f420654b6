//! DATE and DATETIME values (MySQL ranges: years 1000..9999 in strict
//! mode's "supported" range, though 0..9999 is accepted; zero dates are
//! refused in strict mode).

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

fn is_leap(y: u16) -> bool {
    (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400)
}

pub fn days_in_month(y: u16, m: u8) -> u8 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

impl Date {
    pub fn new(year: u16, month: u8, day: u8) -> Option<Self> {
        (year <= 9999 && (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)).then_some(Date {
            year,
            month,
            day,
        })
    }

    /// Parses `YYYY-MM-DD` (also with `/` or no separators, `YYYYMMDD`).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let parts: Vec<&str> = s.split(['-', '/', '.']).collect();
        let (y, m, d) = if parts.len() == 3 {
            (parts[0].parse().ok()?, parts[1].parse().ok()?, parts[2].parse().ok()?)
        } else if s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit()) {
            (s[..4].parse().ok()?, s[4..6].parse().ok()?, s[6..].parse().ok()?)
        } else {
            return None;
        };
        Date::new(y, m, d)
    }

    /// Order-preserving packing: (year * 13 + month) * 32 + day.
    pub fn packed(&self) -> u32 {
        (self.year as u32 * 13 + self.month as u32) * 32 + self.day as u32
    }

    pub fn from_packed(v: u32) -> Self {
        let day = (v % 32) as u8;
        let ym = v / 32;
        Date { year: (ym / 13) as u16, month: (ym % 13) as u8, day }
    }
}

impl DateTime {
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let (d, t) = match s.find([' ', 'T']) {
            Some(i) => (&s[..i], s[i + 1..].trim()),
            None => (s, ""),
        };
        let date = Date::parse(d)?;
        if t.is_empty() {
            return Some(DateTime { date, hour: 0, minute: 0, second: 0, micros: 0 });
        }
        let (hms, frac) = match t.find('.') {
            Some(i) => (&t[..i], &t[i + 1..]),
            None => (t, ""),
        };
        let p: Vec<&str> = hms.split(':').collect();
        if p.len() != 3 {
            return None;
        }
        let (hour, minute, second): (u8, u8, u8) = (p[0].parse().ok()?, p[1].parse().ok()?, p[2].parse().ok()?);
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        let micros = if frac.is_empty() {
            0
        } else {
            if !frac.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let f: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
            f.parse().ok()?
        };
        Some(DateTime { date, hour, minute, second, micros })
    }

    /// Order-preserving packing into microseconds-ish units.
    pub fn packed(&self) -> i64 {
        let secs = (self.date.packed() as i64) * 86_400
            + self.hour as i64 * 3600
            + self.minute as i64 * 60
            + self.second as i64;
        secs * 1_000_000 + self.micros as i64
    }

    pub fn from_packed(v: i64) -> Self {
        let micros = (v % 1_000_000) as u32;
        let secs = v / 1_000_000;
        let date = Date::from_packed((secs / 86_400) as u32);
        let rem = secs % 86_400;
        DateTime { date, hour: (rem / 3600) as u8, minute: ((rem % 3600) / 60) as u8, second: (rem % 60) as u8, micros }
    }

    /// Drops fractional digits beyond `fsp` (rounding as MySQL does would
    /// carry into seconds; MariaDB truncates, which is what we do).
    pub fn with_fsp(mut self, fsp: u8) -> Self {
        let div = 10u32.pow(6 - fsp.min(6) as u32);
        self.micros = self.micros / div * div;
        self
    }

    pub fn format(&self, fsp: u8) -> String {
        let mut s = format!("{} {:02}:{:02}:{:02}", self.date, self.hour, self.minute, self.second);
        if fsp > 0 {
            let f = format!("{:06}", self.micros);
            s.push('.');
            s.push_str(&f[..fsp.min(6) as usize]);
        }
        s
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_validate_and_pack_in_order() {
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2023-02-29").is_none());
        assert!(Date::parse("2023-13-01").is_none());
        let a = DateTime::parse("2024-01-31 23:59:59.5").unwrap();
        let b = DateTime::parse("2024-02-01 00:00:00").unwrap();
        assert!(a.packed() < b.packed());
        assert_eq!(DateTime::from_packed(a.packed()), a);
        assert_eq!(a.format(2), "2024-01-31 23:59:59.50");
        assert_eq!(Date::from_packed(a.date.packed()), a.date);
    }
}
