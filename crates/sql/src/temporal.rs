//! Date and time arithmetic and the functions that take dates apart:
//! `DATE_ADD` / `DATE_SUB` / `ADDDATE` / `SUBDATE`, `expr ± INTERVAL n
//! unit`, `EXTRACT(unit FROM expr)`, YEAR() .. MICROSECOND(), QUARTER(),
//! DAYOFWEEK(), WEEKDAY(), DAYOFYEAR(), DAYNAME(), MONTHNAME(),
//! DATEDIFF(), TO_DAYS(), FROM_DAYS(), LAST_DAY(), DATE(), DATE_FORMAT(),
//! WEEK() / YEARWEEK() (MySQL's week modes), FROM_UNIXTIME(),
//! TIMESTAMPDIFF() (TIMESTAMPADD compiles to DATE_ADD).
//!
//! An interval is a signed count of months and of microseconds (`Span`),
//! read from its value as MySQL reads it for its unit (`'1:30'
//! HOUR_MINUTE` is 90 minutes). Adding months keeps the day unless the
//! month is shorter (Jan 31 + 1 month = Feb 28/29), as MySQL does; a
//! result outside years 0..9999 is NULL.
//!
//! Result types follow MySQL: a DATE plus days, weeks, months, quarters
//! or years is a DATE, plus any time part a DATETIME; a string argument
//! gives a string (the date alone when it has no time part and none was
//! added).

use quire_engine::row::datetime::days_in_month;
use quire_engine::row::{Date, DateTime, Value};

use crate::error::{Result, SqlError};
use crate::expr::{as_string, to_decimal, to_i128};

/// An interval's unit, as `INTERVAL n unit` and EXTRACT spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

const UNITS: &[(&str, Unit)] = &[
    ("microsecond", Unit::Microsecond),
    ("second", Unit::Second),
    ("minute", Unit::Minute),
    ("hour", Unit::Hour),
    ("day", Unit::Day),
    ("week", Unit::Week),
    ("month", Unit::Month),
    ("quarter", Unit::Quarter),
    ("year", Unit::Year),
    ("second_microsecond", Unit::SecondMicrosecond),
    ("minute_microsecond", Unit::MinuteMicrosecond),
    ("minute_second", Unit::MinuteSecond),
    ("hour_microsecond", Unit::HourMicrosecond),
    ("hour_second", Unit::HourSecond),
    ("hour_minute", Unit::HourMinute),
    ("day_microsecond", Unit::DayMicrosecond),
    ("day_second", Unit::DaySecond),
    ("day_minute", Unit::DayMinute),
    ("day_hour", Unit::DayHour),
    ("year_month", Unit::YearMonth),
];

const MICROS_PER_SECOND: i128 = 1_000_000;
const MICROS_PER_DAY: i128 = 86_400 * MICROS_PER_SECOND;

impl Unit {
    /// The unit named `s` (any case; `DAYS` and other plurals as
    /// sqlparser may spell them are accepted).
    pub fn parse(s: &str) -> Option<Unit> {
        let s = s.to_ascii_lowercase();
        let s = s.trim();
        UNITS.iter().find(|(n, _)| *n == s || s.strip_suffix('s') == Some(n)).map(|&(_, u)| u)
    }

    pub fn name(self) -> &'static str {
        UNITS.iter().find(|(_, u)| *u == self).map_or("day", |(n, _)| n)
    }

    /// Adding this unit to a DATE keeps it a DATE.
    pub fn keeps_date(self) -> bool {
        matches!(self, Unit::Day | Unit::Week | Unit::Month | Unit::Quarter | Unit::Year | Unit::YearMonth)
    }

    /// The fields a value of this unit is written in, largest first, with
    /// each field's size in the next smaller unit's terms: (months,
    /// microseconds) per unit of the field.
    fn fields(self) -> &'static [Field] {
        use Field::*;
        match self {
            Unit::Microsecond => &[Micro],
            Unit::Second => &[Sec],
            Unit::Minute => &[Min],
            Unit::Hour => &[Hr],
            Unit::Day => &[Dy],
            Unit::Week => &[Wk],
            Unit::Month => &[Mon],
            Unit::Quarter => &[Qtr],
            Unit::Year => &[Yr],
            Unit::SecondMicrosecond => &[Sec, Micro],
            Unit::MinuteMicrosecond => &[Min, Sec, Micro],
            Unit::MinuteSecond => &[Min, Sec],
            Unit::HourMicrosecond => &[Hr, Min, Sec, Micro],
            Unit::HourSecond => &[Hr, Min, Sec],
            Unit::HourMinute => &[Hr, Min],
            Unit::DayMicrosecond => &[Dy, Hr, Min, Sec, Micro],
            Unit::DaySecond => &[Dy, Hr, Min, Sec],
            Unit::DayMinute => &[Dy, Hr, Min],
            Unit::DayHour => &[Dy, Hr],
            Unit::YearMonth => &[Yr, Mon],
        }
    }
}

#[derive(Clone, Copy)]
enum Field {
    Micro,
    Sec,
    Min,
    Hr,
    Dy,
    Wk,
    Mon,
    Qtr,
    Yr,
}

impl Field {
    /// (months, microseconds) in one of this field.
    fn size(self) -> (i128, i128) {
        match self {
            Field::Micro => (0, 1),
            Field::Sec => (0, MICROS_PER_SECOND),
            Field::Min => (0, 60 * MICROS_PER_SECOND),
            Field::Hr => (0, 3600 * MICROS_PER_SECOND),
            Field::Dy => (0, MICROS_PER_DAY),
            Field::Wk => (0, 7 * MICROS_PER_DAY),
            Field::Mon => (1, 0),
            Field::Qtr => (3, 0),
            Field::Yr => (12, 0),
        }
    }
}

/// A signed interval: months and microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub months: i128,
    pub micros: i128,
}

impl Span {
    /// The interval `INTERVAL v unit`; `None` when v is NULL.
    pub fn of(v: &Value, unit: Unit) -> Option<Span> {
        if v.is_null() {
            return None;
        }
        let fields = unit.fields();
        if let [field] = fields {
            let (months, micros) = field.size();
            // A single unit takes the number, rounded (MySQL: INTERVAL
            // 1.5 DAY is 2 days); a SECOND keeps its fraction.
            if matches!(field, Field::Sec) {
                let d = to_decimal(v)?;
                let us = d.coef.checked_mul(MICROS_PER_SECOND)? / 10i128.checked_pow(u32::from(d.scale))?;
                return Some(Span { months: 0, micros: us });
            }
            let n = match v {
                Value::Str(s) => leading_int(s),
                _ => to_decimal(v).and_then(|d| d.rescale(0)).map(|d| d.coef)?,
            };
            return Some(Span { months: n.checked_mul(months)?, micros: n.checked_mul(micros)? });
        }
        // A compound unit reads its fields from the text, right-aligned
        // ('5' DAY_HOUR is 5 hours), any non-digits separating them.
        let text = as_string(v);
        let text = text.trim();
        let negative = text.starts_with('-');
        let nums: Vec<i128> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .map(|p| p.parse().unwrap_or(0))
            .collect();
        if nums.len() > fields.len() {
            return None;
        }
        let skip = fields.len() - nums.len();
        let mut span = Span { months: 0, micros: 0 };
        for (i, f) in fields.iter().enumerate().skip(skip) {
            let mut n = nums[i - skip];
            if matches!(f, Field::Micro) {
                // Digits of a fraction: '1.5' SECOND_MICROSECOND is 1.5 s.
                let digits = text.rsplit(|c: char| !c.is_ascii_digit()).next().map_or(0, str::len);
                n *= 10i128.pow(6u32.saturating_sub(digits as u32));
            }
            let (m, us) = f.size();
            span.months = span.months.checked_add(n.checked_mul(m)?)?;
            span.micros = span.micros.checked_add(n.checked_mul(us)?)?;
        }
        if negative {
            span = span.negated();
        }
        Some(span)
    }

    pub fn negated(self) -> Span {
        Span { months: -self.months, micros: -self.micros }
    }
}

/// Prefix of the stand-in function that carries a compound unit through
/// the parser (see [`compound_unit_tokens`]).
pub const UNIT_CARRIER: &str = "__quire_interval_";
/// Prefix of the stand-in for `EXTRACT(compound_unit FROM x)`.
pub const EXTRACT_CARRIER: &str = "__quire_extract_";

/// sqlparser knows no compound interval units (`HOUR_MINUTE`, ...). When
/// `text` uses one, its tokens rewritten so that it parses:
/// `INTERVAL v HOUR_MINUTE` becomes `INTERVAL __quire_interval_hour_minute(v)
/// MICROSECOND` and `EXTRACT(HOUR_MINUTE FROM x)` becomes
/// `__quire_extract_hour_minute(x)`; the expression compiler turns both
/// back (`expr.rs`). `None` when the text has none (the common case: a
/// scan for the word INTERVAL or EXTRACT decides without tokenizing).
pub fn compound_unit_tokens(text: &str) -> Option<Vec<sqlparser::tokenizer::Token>> {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::{Token, Tokenizer};
    let has = |w: &str| text.as_bytes().windows(w.len()).any(|b| b.eq_ignore_ascii_case(w.as_bytes()));
    if !text.contains('_') || !(has("interval") || has("extract")) {
        return None;
    }
    let dialect = sqlparser::dialect::MySqlDialect {};
    let tokens = Tokenizer::new(&dialect, text).tokenize().ok()?;
    let compound = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_none() && w.value.contains('_') => {
            Unit::parse(&w.value).filter(|u| u.fields().len() > 1)
        }
        _ => None,
    };
    if !tokens.iter().any(|t| compound(t).is_some()) {
        return None;
    }
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len() + 8);
    // Positions in `out` just after each INTERVAL still open.
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if let Token::Word(w) = t {
            if w.keyword == Keyword::INTERVAL && w.quote_style.is_none() {
                out.push(t.clone());
                open.push(out.len());
                i += 1;
                continue;
            }
            // EXTRACT ( unit FROM
            if w.keyword == Keyword::EXTRACT && w.quote_style.is_none() {
                let next: Vec<(usize, &Token)> = tokens
                    .iter()
                    .enumerate()
                    .skip(i + 1)
                    .filter(|(_, t)| !matches!(t, Token::Whitespace(_)))
                    .take(3)
                    .collect();
                if let [(_, Token::LParen), (_, unit_tok), (from_at, Token::Word(f))] = next.as_slice() {
                    if let (Some(unit), Keyword::FROM) = (compound(unit_tok), f.keyword) {
                        out.push(Token::make_word(&format!("{EXTRACT_CARRIER}{}", unit.name()), None));
                        out.push(Token::LParen);
                        i = from_at + 1;
                        continue;
                    }
                }
            }
        }
        if let Some(unit) = compound(t) {
            if let Some(at) = open.pop() {
                let carrier = Token::make_word(&format!("{UNIT_CARRIER}{}", unit.name()), None);
                out.splice(
                    at..at,
                    [Token::Whitespace(sqlparser::tokenizer::Whitespace::Space), carrier, Token::LParen],
                );
                out.push(Token::RParen);
                out.push(Token::Whitespace(sqlparser::tokenizer::Whitespace::Space));
                out.push(Token::make_word("MICROSECOND", None));
                i += 1;
                continue;
            }
        }
        out.push(t.clone());
        i += 1;
    }
    Some(out)
}

/// The integer a string starts with (MySQL reads `'3 days'` as 3).
fn leading_int(s: &str) -> i128 {
    let s = s.trim_start();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(s.len(), |(i, _)| i);
    s[..end].parse().unwrap_or(0)
}

/// A value as a date and time, and whether it had a time part; `None`
/// when it is not one (NULL, or a string or number that is no date).
pub fn temporal(v: &Value) -> Option<(DateTime, bool)> {
    match v {
        Value::Date(d) => Some((midnight(*d), false)),
        Value::DateTime(dt) => Some((*dt, true)),
        Value::Str(s) => {
            let t = s.trim();
            let timed = t.contains(':') || (t.len() > 10 && t.contains(' '));
            DateTime::parse(t).map(|dt| (dt, timed))
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
            // YYYYMMDD or YYYYMMDDhhmmss.
            let n = to_i128(v)?;
            if (10_000_101..=99_991_231).contains(&n) {
                Date::parse(&n.to_string()).map(|d| (midnight(d), false))
            } else if (10_000_101_000_000..=99_991_231_235_959).contains(&n) {
                let s = n.to_string();
                let text = format!("{}-{}-{} {}:{}:{}", &s[..4], &s[4..6], &s[6..8], &s[8..10], &s[10..12], &s[12..]);
                DateTime::parse(&text).map(|dt| (dt, true))
            } else {
                None
            }
        }
        Value::Time(us) => crate::timeval::to_datetime(*us).map(|dt| (dt, true)),
        Value::Null => None,
        Value::Bytes(b) => temporal(&Value::Str(std::str::from_utf8(b).ok()?.to_owned())),
        Value::Json(j) => match &**j {
            quire_engine::row::json::Json::Date(d) => Some((midnight(*d), false)),
            quire_engine::row::json::Json::DateTime(dt) => Some((*dt, true)),
            quire_engine::row::json::Json::Str(s) => temporal(&Value::Str(s.clone())),
            _ => None,
        },
        Value::Choice(c) => temporal(&Value::Str(c.text())),
    }
}

fn midnight(date: Date) -> DateTime {
    DateTime { date, hour: 0, minute: 0, second: 0, micros: 0 }
}

/// Days since 0000-00-00 as MySQL's TO_DAYS counts them (proleptic
/// Gregorian, year 0 a leap year... as MySQL's calendar has it).
pub fn to_days(d: Date) -> i64 {
    let (y, m, day) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
    let mut delsum = 365 * y + 31 * (m - 1) + day;
    let mut year = y;
    if m <= 2 {
        year -= 1;
    } else {
        delsum -= (m * 4 + 23) / 10;
    }
    let temp = ((year / 100 + 1) * 3) / 4;
    delsum + year / 4 - temp
}

/// The date `days` after 0000-00-00 (MySQL's FROM_DAYS); `None` before
/// year 1 or after 9999 (from year 1 on MySQL's calendar is the
/// proleptic Gregorian one, whose civil-from-days conversion this is).
pub fn from_days(days: i64) -> Option<Date> {
    if !(366..=3_652_424).contains(&days) {
        return None;
    }
    // Day 719 528 is 1970-01-01.
    quire_engine::row::tz::civil_from_days(days - 719_528)
}

/// `dt + span`; `None` outside years 0..9999.
pub fn add(dt: DateTime, span: Span) -> Option<DateTime> {
    let mut dt = dt;
    if span.months != 0 {
        let m = i128::from(dt.date.year) * 12 + i128::from(dt.date.month) - 1 + span.months;
        if !(0..10_000 * 12).contains(&m) {
            return None;
        }
        let (year, month) = ((m / 12) as u16, (m % 12) as u8 + 1);
        let day = dt.date.day.min(days_in_month(year, month));
        dt.date = Date { year, month, day };
    }
    if span.micros != 0 {
        let day_us = i128::from(to_days(dt.date)) * MICROS_PER_DAY
            + (i128::from(dt.hour) * 3600 + i128::from(dt.minute) * 60 + i128::from(dt.second)) * MICROS_PER_SECOND
            + i128::from(dt.micros);
        let t = day_us.checked_add(span.micros)?;
        let days = t.div_euclid(MICROS_PER_DAY);
        let rest = t.rem_euclid(MICROS_PER_DAY);
        let date = from_days(i64::try_from(days).ok()?)?;
        let secs = rest / MICROS_PER_SECOND;
        dt = DateTime {
            date,
            hour: (secs / 3600) as u8,
            minute: (secs % 3600 / 60) as u8,
            second: (secs % 60) as u8,
            micros: (rest % MICROS_PER_SECOND) as u32,
        };
    }
    Some(dt)
}

/// DATE_ADD(v, INTERVAL n unit), typed as MySQL types it (module note);
/// `digits`: the fractional digits of a string result with a time, when
/// fixed (a value that is not a literal: 6), else as [`fraction_digits`].
pub fn date_add(v: &Value, n: &Value, unit: Unit, subtract: bool, digits: Option<u8>) -> Value {
    if let Value::Time(us) = v {
        // A TIME plus a day-time interval stays a TIME (clipped); months
        // make no sense of a duration: NULL.
        return match Span::of(n, unit) {
            Some(s) if s.months == 0 => {
                let d = if subtract { -s.micros } else { s.micros };
                let r = quire_engine::row::time::clip(i128::from(*us) + d);
                r.value().map_or(Value::Null, Value::Time)
            }
            _ => Value::Null,
        };
    }
    let Some((dt, timed)) = temporal(v) else { return Value::Null };
    let Some(span) = Span::of(n, unit) else { return Value::Null };
    let span = if subtract { span.negated() } else { span };
    let Some(out) = add(dt, span) else { return Value::Null };
    let keeps_date = !timed && unit.keeps_date();
    match v {
        Value::Date(_) if keeps_date => Value::Date(out.date),
        Value::Date(_) | Value::DateTime(_) => Value::DateTime(out),
        _ if keeps_date => Value::Str(out.date.to_string()),
        _ => Value::Str(out.format(digits.unwrap_or_else(|| fraction_digits(v, n, unit, out.micros)))),
    }
}

/// The fractional digits of a string result, as MariaDB prints them: as
/// many as the argument or the interval has (a MICROSECOND unit: 6), and 6
/// when the result has a fraction neither had.
fn fraction_digits(v: &Value, n: &Value, unit: Unit, micros: u32) -> u8 {
    let of_text = |s: &str| s.rsplit_once('.').filter(|(a, _)| a.contains(':')).map_or(0, |(_, f)| f.trim().len());
    let input = match v {
        Value::Str(s) => of_text(s),
        _ => 0,
    };
    let interval = if unit.name().contains("microsecond") {
        6
    } else if unit == Unit::Second {
        match n {
            Value::Decimal(d) => usize::from(d.scale),
            Value::Str(s) => s.rsplit_once('.').map_or(0, |(_, f)| f.trim().len()),
            _ => 0,
        }
    } else {
        0
    };
    match input.max(interval).min(6) as u8 {
        0 if micros != 0 => 6,
        d => d,
    }
}

/// The functions of this module, with their argument counts.
pub const FUNCS: &[(&str, usize, usize)] = &[
    ("date_add", 3, 4),
    ("date_sub", 3, 4),
    ("extract", 2, 2),
    ("year", 1, 1),
    ("month", 1, 1),
    ("day", 1, 1),
    ("dayofmonth", 1, 1),
    ("hour", 1, 1),
    ("minute", 1, 1),
    ("second", 1, 1),
    ("microsecond", 1, 1),
    ("quarter", 1, 1),
    ("dayofweek", 1, 1),
    ("weekday", 1, 1),
    ("dayofyear", 1, 1),
    ("dayname", 1, 1),
    ("monthname", 1, 1),
    ("datediff", 2, 2),
    ("to_days", 1, 1),
    ("from_days", 1, 1),
    ("last_day", 1, 1),
    ("date", 1, 1),
    ("date_format", 2, 2),
    ("week", 1, 2),
    ("yearweek", 1, 2),
    ("from_unixtime", 1, 2),
    ("timestampdiff", 3, 3),
];

pub(crate) const DAY_NAMES: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
pub(crate) const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Monday = 0.
fn weekday(d: Date) -> i64 {
    (to_days(d) + 5).rem_euclid(7)
}

/// Calls function `name` of [`FUNCS`]. `date_add` / `date_sub` take the
/// unit's name as their third argument, `extract` as its first.
pub fn call(name: &str, args: &[Value]) -> Result<Value> {
    let unit_of = |v: &Value| Unit::parse(&as_string(v)).ok_or_else(|| SqlError::internal("unknown interval unit"));
    if let "date_add" | "date_sub" = name {
        let unit = unit_of(&args[2])?;
        let digits = args.get(3).and_then(to_i128).map(|d| d.clamp(0, 6) as u8);
        return Ok(date_add(&args[0], &args[1], unit, name == "date_sub", digits));
    }
    if name == "extract" {
        return Ok(extract(unit_of(&args[0])?, &args[1]));
    }
    match name {
        "date_format" => {
            let Some((dt, _)) = temporal(&args[0]) else { return Ok(Value::Null) };
            if args[1].is_null() {
                return Ok(Value::Null);
            }
            return Ok(Value::Str(format(&dt, &as_string(&args[1]))));
        }
        "week" | "yearweek" => {
            let Some((dt, _)) = temporal(&args[0]) else { return Ok(Value::Null) };
            let mode = match args.get(1) {
                Some(v) => match to_i128(v) {
                    Some(m) => m.rem_euclid(8) as u8,
                    None => return Ok(Value::Null),
                },
                None => 0,
            };
            let mut behaviour = week_mode(mode);
            if name == "yearweek" {
                behaviour |= WEEK_YEAR;
            }
            let (week, year) = calc_week(dt.date, behaviour);
            return Ok(Value::Int(if name == "week" { week } else { year * 100 + week }));
        }
        "from_unixtime" => {
            let Some(d) = to_decimal(&args[0]) else { return Ok(Value::Null) };
            if d.coef < 0 {
                return Ok(Value::Null);
            }
            let micros = d.coef.checked_mul(MICROS_PER_SECOND).map(|c| c / 10i128.pow(u32::from(d.scale.min(38))));
            let epoch = midnight(Date { year: 1970, month: 1, day: 1 });
            let Some(dt) = micros.and_then(|m| add(epoch, Span { months: 0, micros: m })) else {
                return Ok(Value::Null);
            };
            if dt.date.year > 2106 {
                return Ok(Value::Null);
            }
            // An instant, shown in the session's `time_zone`.
            let dt = quire_engine::row::tz::utc_to_local(dt);
            return Ok(match args.get(1) {
                Some(Value::Null) => Value::Null,
                Some(f) => Value::Str(format(&dt, &as_string(f))),
                None => Value::DateTime(dt),
            });
        }
        "timestampdiff" => {
            let unit = unit_of(&args[0])?;
            let (Some((a, _)), Some((b, _))) = (temporal(&args[1]), temporal(&args[2])) else {
                return Ok(Value::Null);
            };
            return Ok(Value::Int(timestampdiff(unit, a, b)));
        }
        _ => {}
    }
    if name == "from_days" {
        let n = to_i128(&args[0]);
        return Ok(n
            .and_then(|n| i64::try_from(n).ok())
            .map_or(Value::Null, |n| Value::Date(from_days(n).unwrap_or(Date { year: 0, month: 0, day: 0 }))));
    }
    if name == "datediff" {
        let (Some((a, _)), Some((b, _))) = (temporal(&args[0]), temporal(&args[1])) else {
            return Ok(Value::Null);
        };
        return Ok(Value::Int(to_days(a.date) - to_days(b.date)));
    }
    let Some((dt, _)) = temporal(&args[0]) else { return Ok(Value::Null) };
    let d = dt.date;
    let int = |n: i64| Value::Int(n);
    Ok(match name {
        "year" => int(d.year.into()),
        "month" => int(d.month.into()),
        "day" | "dayofmonth" => int(d.day.into()),
        "hour" => int(dt.hour.into()),
        "minute" => int(dt.minute.into()),
        "second" => int(dt.second.into()),
        "microsecond" => int(dt.micros.into()),
        "quarter" => int((i64::from(d.month) + 2) / 3),
        "dayofweek" => int((weekday(d) + 1) % 7 + 1),
        "weekday" => int(weekday(d)),
        "dayofyear" => int(to_days(d) - to_days(Date { year: d.year, month: 1, day: 1 }) + 1),
        "dayname" => Value::Str(DAY_NAMES[weekday(d) as usize].to_string()),
        "monthname" => Value::Str(MONTH_NAMES[usize::from(d.month) - 1].to_string()),
        "to_days" => int(to_days(d)),
        "last_day" => Value::Date(Date { day: days_in_month(d.year, d.month), ..d }),
        "date" => Value::Date(d),
        _ => return Err(SqlError::internal(format!("{name} is not a date function"))),
    })
}

/// Microseconds from day 0 of a date and time.
fn micros_of(dt: &DateTime) -> i128 {
    i128::from(to_days(dt.date)) * MICROS_PER_DAY
        + (i128::from(dt.hour) * 3600 + i128::from(dt.minute) * 60 + i128::from(dt.second)) * MICROS_PER_SECOND
        + i128::from(dt.micros)
}

/// TIMESTAMPDIFF(unit, a, b): whole units from a to b (months counted as
/// MySQL does: a month is complete when the day and time of month reach
/// a's).
fn timestampdiff(unit: Unit, a: DateTime, b: DateTime) -> i64 {
    let months_unit = match unit {
        Unit::Month => Some(1),
        Unit::Quarter => Some(3),
        Unit::Year => Some(12),
        _ => None,
    };
    if let Some(per) = months_unit {
        let (lo, hi, sign) = if micros_of(&b) >= micros_of(&a) { (a, b, 1) } else { (b, a, -1) };
        let mut months = (i64::from(hi.date.year) - i64::from(lo.date.year)) * 12 + i64::from(hi.date.month)
            - i64::from(lo.date.month);
        let rest = |d: &DateTime| (d.date.day, d.hour, d.minute, d.second, d.micros);
        if rest(&hi) < rest(&lo) {
            months -= 1;
        }
        return sign * (months / per);
    }
    let per: i128 = match unit {
        Unit::Microsecond => 1,
        Unit::Second => MICROS_PER_SECOND,
        Unit::Minute => 60 * MICROS_PER_SECOND,
        Unit::Hour => 3600 * MICROS_PER_SECOND,
        Unit::Week => 7 * MICROS_PER_DAY,
        _ => MICROS_PER_DAY,
    };
    ((micros_of(&b) - micros_of(&a)) / per) as i64
}

const WEEK_MONDAY_FIRST: u8 = 1;
const WEEK_YEAR: u8 = 2;
const WEEK_FIRST_WEEKDAY: u8 = 4;

/// WEEK()'s mode as the behaviour bits of [`calc_week`].
fn week_mode(mode: u8) -> u8 {
    let mut m = mode & 7;
    if m & WEEK_MONDAY_FIRST == 0 {
        m ^= WEEK_FIRST_WEEKDAY;
    }
    m
}

fn days_in_year(y: i64) -> i64 {
    if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
        366
    } else {
        365
    }
}

/// The week of `d` and the year it belongs to, by MySQL's rules for the
/// behaviour bits (Monday first; weeks counted in the year they mostly
/// fall in; week 1 the first with the first weekday).
fn calc_week(d: Date, behaviour: u8) -> (i64, i64) {
    let daynr = to_days(d);
    let mut first_daynr = to_days(Date { year: d.year, month: 1, day: 1 });
    let monday_first = behaviour & WEEK_MONDAY_FIRST != 0;
    let mut week_year = behaviour & WEEK_YEAR != 0;
    let first_weekday = behaviour & WEEK_FIRST_WEEKDAY != 0;
    let weekday_of = |n: i64, sunday_first: bool| (n + 5 + i64::from(sunday_first)).rem_euclid(7);
    let mut weekday = weekday_of(first_daynr, !monday_first);
    let mut year = i64::from(d.year);
    if d.month == 1 && i64::from(d.day) <= 7 - weekday {
        if !week_year && ((first_weekday && weekday != 0) || (!first_weekday && weekday >= 4)) {
            return (0, year);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first_daynr -= days;
        weekday = (weekday + 53 * 7 - days).rem_euclid(7);
    }
    let days = if (first_weekday && weekday != 0) || (!first_weekday && weekday >= 4) {
        daynr - (first_daynr + (7 - weekday))
    } else {
        daynr - (first_daynr - weekday)
    };
    if week_year && days >= 52 * 7 {
        let wd = (weekday + days_in_year(year)).rem_euclid(7);
        if (!first_weekday && wd < 4) || (first_weekday && wd == 0) {
            return (1, year + 1);
        }
    }
    (days / 7 + 1, year)
}

/// DATE_FORMAT's text of `dt` for `fmt` (MySQL's specifiers; an unknown
/// one stands for its letter).
pub fn format(dt: &DateTime, fmt: &str) -> String {
    let d = dt.date;
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut chars = fmt.chars();
    let hour12 = |h: u8| if h.is_multiple_of(12) { 12 } else { h % 12 };
    let suffix = |n: u8| match (n % 100, n % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    };
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else { break };
        let text = match spec {
            'a' => DAY_NAMES[weekday(d) as usize][..3].to_string(),
            'b' => MONTH_NAMES.get(usize::from(d.month).wrapping_sub(1)).map_or(String::new(), |m| m[..3].to_string()),
            'c' => d.month.to_string(),
            'D' => format!("{}{}", d.day, suffix(d.day)),
            'd' => format!("{:02}", d.day),
            'e' => d.day.to_string(),
            'f' => format!("{:06}", dt.micros),
            'H' => format!("{:02}", dt.hour),
            'h' | 'I' => format!("{:02}", hour12(dt.hour)),
            'i' => format!("{:02}", dt.minute),
            'j' => format!("{:03}", to_days(d) - to_days(Date { year: d.year, month: 1, day: 1 }) + 1),
            'k' => dt.hour.to_string(),
            'l' => hour12(dt.hour).to_string(),
            'M' => MONTH_NAMES.get(usize::from(d.month).wrapping_sub(1)).map_or(String::new(), |m| m.to_string()),
            'm' => format!("{:02}", d.month),
            'p' => (if dt.hour < 12 { "AM" } else { "PM" }).to_string(),
            'r' => format!(
                "{:02}:{:02}:{:02} {}",
                hour12(dt.hour),
                dt.minute,
                dt.second,
                if dt.hour < 12 { "AM" } else { "PM" }
            ),
            'S' | 's' => format!("{:02}", dt.second),
            'T' => format!("{:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second),
            'U' => format!("{:02}", calc_week(d, WEEK_FIRST_WEEKDAY).0),
            'u' => format!("{:02}", calc_week(d, WEEK_MONDAY_FIRST).0),
            'V' => format!("{:02}", calc_week(d, WEEK_YEAR | WEEK_FIRST_WEEKDAY).0),
            'v' => format!("{:02}", calc_week(d, WEEK_MONDAY_FIRST | WEEK_YEAR).0),
            'X' => format!("{:04}", calc_week(d, WEEK_YEAR | WEEK_FIRST_WEEKDAY).1),
            'x' => format!("{:04}", calc_week(d, WEEK_MONDAY_FIRST | WEEK_YEAR).1),
            'W' => DAY_NAMES[weekday(d) as usize].to_string(),
            'w' => ((weekday(d) + 1) % 7).to_string(),
            'Y' => format!("{:04}", d.year),
            'y' => format!("{:02}", d.year % 100),
            other => other.to_string(),
        };
        out.push_str(&text);
    }
    out
}

/// EXTRACT(unit FROM v): the unit's fields of v run together as digits
/// (`EXTRACT(DAY_MINUTE FROM '2020-01-02 03:04:05')` is 20304).
fn extract(unit: Unit, v: &Value) -> Value {
    let Some((dt, _)) = temporal(v) else { return Value::Null };
    let d = dt.date;
    let parts: Vec<(i64, i64)> = unit
        .fields()
        .iter()
        .map(|f| match f {
            Field::Micro => (i64::from(dt.micros), 1_000_000),
            Field::Sec => (i64::from(dt.second), 100),
            Field::Min => (i64::from(dt.minute), 100),
            Field::Hr => (i64::from(dt.hour), 100),
            Field::Dy => (i64::from(d.day), 100),
            // MySQL's default week mode 0: weeks start on Sunday, week 1
            // is the first with a Sunday in this year.
            Field::Wk => (calc_week(d, week_mode(0)).0, 100),
            Field::Mon => (i64::from(d.month), 100),
            Field::Qtr => ((i64::from(d.month) + 2) / 3, 10),
            Field::Yr => (i64::from(d.year), 10_000),
        })
        .collect();
    let n = parts.iter().fold(0i64, |acc, &(v, width)| acc * width + v);
    Value::Int(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        DateTime::parse(s).unwrap()
    }

    #[test]
    fn to_days_and_from_days_agree_with_mysql_and_each_other() {
        // MySQL: TO_DAYS('2007-10-07') = 733321, TO_DAYS('0000-01-01') = 1.
        assert_eq!(to_days(Date { year: 2007, month: 10, day: 7 }), 733_321);
        assert_eq!(to_days(Date { year: 1970, month: 1, day: 1 }), 719_528);
        for days in [366, 719_528, 733_321, 738_000, 3_652_424] {
            assert_eq!(to_days(from_days(days).unwrap()), days, "{days}");
        }
        assert_eq!(from_days(730_669).unwrap().to_string(), "2000-07-03");
    }

    #[test]
    fn months_clamp_the_day_and_times_carry_across_days() {
        let s = |months, micros| Span { months, micros };
        assert_eq!(add(dt("2024-01-31"), s(1, 0)), Some(dt("2024-02-29")));
        assert_eq!(add(dt("2023-01-31"), s(1, 0)), Some(dt("2023-02-28")));
        assert_eq!(add(dt("2020-12-31 23:59:59"), s(0, 1_000_000)), Some(dt("2021-01-01 00:00:00")));
        assert_eq!(add(dt("2020-03-01"), s(0, -MICROS_PER_DAY)), Some(dt("2020-02-29")));
        assert_eq!(add(dt("9999-12-31"), s(0, MICROS_PER_DAY)), None);
    }

    #[test]
    fn compound_units_read_their_fields_right_aligned() {
        let span = |v: &str, u| Span::of(&Value::Str(v.into()), u).unwrap();
        assert_eq!(span("1:30", Unit::HourMinute).micros, 90 * 60 * MICROS_PER_SECOND);
        assert_eq!(span("2", Unit::DayHour).micros, 2 * 3600 * MICROS_PER_SECOND);
        assert_eq!(span("1-2", Unit::YearMonth).months, 14);
        assert_eq!(span("-1 1", Unit::DayHour).micros, -(MICROS_PER_DAY + 3600 * MICROS_PER_SECOND));
        assert_eq!(span("1.5", Unit::SecondMicrosecond).micros, 1_500_000);
    }
}
