//! STR_TO_DATE(str, format) and GET_FORMAT(type, standard): text read
//! back through DATE_FORMAT's specifiers, as MariaDB's
//! `extract_date_time` (`item_timefunc.cc`) reads it.
//!
//! The result type comes from the format when it is a constant
//! ([`kind_of`], MariaDB's `get_date_time_result_type`): only date
//! specifiers give a DATE, only time ones a TIME, both a DATETIME, `%f`
//! six fractional digits. A format known only at run time gives a
//! DATETIME(6) (the compiler passes a third argument saying so, see
//! [`bind`]).
//!
//! Reading rules (MariaDB's, kept here):
//! 1. Whitespace in the input is skipped before each format item;
//!    whitespace in the format matches nothing; other format characters
//!    must match exactly.
//! 2. Numbers take at most their specifier's width (`%Y` 4, `%j` 3, `%f`
//!    6, the others 2), a sign allowed but a negative number failing;
//!    `%Y` of one or two digits and `%y` map 00-69 to 2000-2069 and 70-99
//!    to 1970-1999.
//! 3. Names (`%M %b %W %a`) match an English name or a unique prefix of
//!    one, in any case.
//! 4. Reading stops when either the input or the format runs out: a
//!    format longer than the input leaves the remaining fields zero; text
//!    left after the format is a 1292 warning, the value still returned.
//! 5. A mismatch, a field out of range, `%p` without a 12-hour `%h`,
//!    or (per `sql_mode`) a zero date or a zero in a date is NULL with
//!    warning 1411 "Incorrect datetime value: 'str' for function
//!    str_to_date" (an error in strict-mode writes, through
//!    [`Env::warn`]).
//! 6. Days beyond a month's end are kept (`04/31/2004` is `2004-04-31`),
//!    as MySQL documents.

use quire_engine::row::{Date, DateTime, Value};

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::{as_string, Env, Expr};
use crate::plan::MetaType;
use crate::temporal::{DAY_NAMES as DAYS, MONTH_NAMES as MONTHS};

/// What a format reads, and so the function's result type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Date,
    Time { fsp: u8 },
    DateTime { fsp: u8 },
}

impl Kind {
    /// The word MariaDB's 1292 truncation warning uses for the type.
    fn word(self) -> &'static str {
        match self {
            Kind::Date => "date",
            Kind::Time { .. } => "time",
            Kind::DateTime { .. } => "datetime",
        }
    }
}

/// The result kind of a constant format (MariaDB's
/// `get_date_time_result_type`: `%d %e %D %p %w` count as neither).
pub fn kind_of(format: &str) -> Kind {
    const TIME: &[u8] = b"HISThiklrs";
    const DATE: &[u8] = b"MVUXYWabcjmvuxyw";
    let (mut date, mut time, mut frac) = (false, false, false);
    let b = format.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 1 < b.len() {
            i += 1;
            let c = b[i];
            if c == b'f' {
                frac = true;
                time = true;
            } else if TIME.contains(&c) {
                time = true;
            } else if DATE.contains(&c) {
                date = true;
            }
            if date && frac {
                return Kind::DateTime { fsp: 6 };
            }
        }
        i += 1;
    }
    match (date, time, frac) {
        (_, _, true) => Kind::Time { fsp: 6 },
        (true, true, _) => Kind::DateTime { fsp: 0 },
        (false, true, _) => Kind::Time { fsp: 0 },
        _ => Kind::Date,
    }
}

/// Marks a call whose format is not a constant: the result is then a
/// DATETIME(6), as MariaDB types it.
const RUNTIME_FORMAT: i64 = 1;

/// Marks a call whose format is a `?` marker: typed DATETIME(6), but the
/// value read by the bound format's kind. The plan cache makes the
/// literals of WHERE and VALUES such markers (`normalize.rs`), where
/// MariaDB sees constants; a client's own prepared `?` is typed the same
/// (MariaDB reads its value as a DATETIME(6) too).
const PARAM_FORMAT: i64 = 2;

/// The compiled call: two arguments (1582 otherwise), the format folded
/// to a literal when it is a constant MariaDB would fold
/// (`GET_FORMAT(DATE, 'USA')`, `CONCAT('%Y', '-%m')`), and a third
/// [`RUNTIME_FORMAT`] when it is not one.
pub fn bind(mut args: Vec<Expr>) -> Result<Expr> {
    if args.len() != 2 {
        return Err(SqlError::new(
            1582,
            "42000",
            "Incorrect parameter count in the call to native function 'str_to_date'",
        ));
    }
    match constant(&args[1]) {
        Some(v) => args[1] = Expr::Lit(v),
        None if matches!(args[1], Expr::Param(_)) => args.push(Expr::Lit(Value::Int(PARAM_FORMAT))),
        None => args.push(Expr::Lit(Value::Int(RUNTIME_FORMAT))),
    }
    Ok(Expr::Func("str_to_date".into(), args))
}

/// The value of an expression of literals and pure functions; `None`
/// for anything that depends on rows, the session or the moment.
fn constant(e: &Expr) -> Option<Value> {
    const IMPURE: &[&str] = &[
        "str_to_date",
        "database",
        "schema",
        "user",
        "current_user",
        "session_user",
        "system_user",
        "found_rows",
        "row_count",
        "last_insert_id",
        "connection_id",
        "rand",
        "sleep",
    ];
    match e {
        Expr::Lit(v) => Some(v.clone()),
        Expr::Func(name, args) if !IMPURE.contains(&name.as_str()) && crate::plan::constant_with(e, &|_| false) => {
            let vals = args.iter().map(constant).collect::<Option<Vec<_>>>()?;
            crate::func::call(name, &vals).ok()
        }
        _ => None,
    }
}

/// The compiled GET_FORMAT call: the type (already a literal, upper case)
/// must be DATE, TIME, DATETIME or TIMESTAMP (a syntax error otherwise,
/// as MySQL's grammar has it).
pub fn bind_get_format(args: Vec<Expr>) -> Result<Expr> {
    match args.first() {
        Some(Expr::Lit(Value::Str(k))) if args.len() == 2 && get_format(k, "ISO").is_some() => {
            Ok(Expr::Func("get_format".into(), args))
        }
        _ => Err(SqlError::syntax("GET_FORMAT needs DATE, TIME, DATETIME or TIMESTAMP and a standard")),
    }
}

/// The kind a compiled call returns.
fn kind_of_call(args: &[Value]) -> Kind {
    match (args.get(2), args.get(1)) {
        (Some(Value::Int(PARAM_FORMAT)) | None, Some(f)) if !f.is_null() => kind_of(&as_string(f)),
        _ => Kind::DateTime { fsp: 6 },
    }
}

/// The result type of a compiled call.
pub fn infer(args: &[Expr]) -> MetaType {
    let kind = match (args.get(2), args.get(1)) {
        (None, Some(Expr::Lit(f))) if !f.is_null() => kind_of(&as_string(f)),
        _ => Kind::DateTime { fsp: 6 },
    };
    match kind {
        Kind::Date => MetaType::Date,
        Kind::Time { fsp } => MetaType::Time { fsp },
        Kind::DateTime { fsp } => MetaType::DateTime { fsp },
    }
}

/// The fields read so far (MySQL's `MYSQL_TIME` while parsing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Fields {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
}

/// Why a read failed: the 1411 warning's type word and text.
struct Mismatch {
    what: &'static str,
    text: String,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// MySQL's `my_strtoll10` over `s[at..at + width]`: spaces, a sign, digits
/// (at least one); a negative number fails. The value and where it ended.
fn number(s: &[u8], at: usize, width: usize) -> Option<(i64, usize)> {
    let end = (at + width).min(s.len());
    let mut i = at;
    while i < end && (s[i] == b' ' || s[i] == b'\t') {
        i += 1;
    }
    if i < end && s[i] == b'-' {
        return None;
    }
    if i < end && s[i] == b'+' {
        i += 1;
    }
    let start = i;
    let mut n: i64 = 0;
    while i < end && s[i].is_ascii_digit() {
        n = n * 10 + i64::from(s[i] - b'0');
        i += 1;
    }
    (i > start).then_some((n, i))
}

/// A name of `names` (1-based), or a unique prefix of one, starting at
/// `at`; the word ends at the first non-letter.
fn name(names: &[&str], s: &[u8], at: usize) -> Option<(i64, usize)> {
    let mut end = at;
    while end < s.len() && s[end].is_ascii_alphabetic() {
        end += 1;
    }
    let word = &s[at..end];
    let mut found = None;
    let mut count = 0;
    for (i, n) in names.iter().enumerate() {
        let n = n.as_bytes();
        if word.len() <= n.len() && n[..word.len()].eq_ignore_ascii_case(word) {
            if word.len() == n.len() {
                return Some((i as i64 + 1, end));
            }
            count += 1;
            found = Some(i as i64 + 1);
        }
    }
    (count == 1).then(|| (found.unwrap_or(0), end))
}

/// Two-digit years: 00-69 are 2000-2069, 70-99 1970-1999.
fn year_2000(y: i64) -> i64 {
    if y < 70 {
        y + 2000
    } else {
        y + 1900
    }
}

/// Week-number reading state (`%U %u %V %v %X %x` with a weekday).
#[derive(Default)]
struct Weeks {
    /// 1 = Monday .. 7 = Sunday; 0: not read.
    weekday: i64,
    yearday: i64,
    week: Option<i64>,
    sunday_first: bool,
    strict: bool,
    strict_year: Option<i64>,
    strict_year_sunday: bool,
}

/// Reads `s` by `fmt` into `f` (MariaDB's `extract_date_time`). `sub`:
/// reading `%r` / `%T`'s inner format, which returns where it stopped and
/// leaves the date parts alone. `Ok(end)`: the read ended at `end`.
fn extract(
    s: &[u8],
    start: usize,
    fmt: &[u8],
    f: &mut Fields,
    w: &mut Weeks,
    sub: bool,
) -> std::result::Result<usize, Mismatch> {
    let fail = |what: &'static str| Mismatch { what, text: String::from_utf8_lossy(&s[start..]).into_owned() };
    let what = if sub { "time" } else { "datetime" };
    let mut val = start;
    let mut p = 0;
    let mut usa_time = false;
    let mut daypart = 0;
    while p < fmt.len() && val < s.len() {
        while val < s.len() && is_space(s[val]) {
            val += 1;
        }
        if val >= s.len() {
            break;
        }
        if fmt[p] == b'%' && p + 1 < fmt.len() {
            p += 1;
            let rest = s.len() - val;
            let num = move |width: usize| number(s, val, width).ok_or_else(|| fail(what));
            match fmt[p] {
                b'Y' => {
                    let (n, end) = num(4)?;
                    f.year = if end - val <= 2 { year_2000(n) } else { n };
                    val = end;
                }
                b'y' => {
                    let (n, end) = num(2)?;
                    f.year = year_2000(n);
                    val = end;
                }
                b'm' | b'c' => (f.month, val) = num(2)?,
                b'M' => (f.month, val) = name(&MONTHS, s, val).ok_or_else(|| fail(what))?,
                b'b' => {
                    let abbr: Vec<&str> = MONTHS.iter().map(|m| &m[..3]).collect();
                    (f.month, val) = name(&abbr, s, val).ok_or_else(|| fail(what))?;
                }
                b'd' | b'e' => (f.day, val) = num(2)?,
                b'D' => {
                    let (n, end) = num(2)?;
                    f.day = n;
                    // The suffix (st, nd, rd, th): any two characters.
                    val = end + (s.len() - end).min(2);
                }
                c @ (b'h' | b'I' | b'l' | b'k' | b'H') => {
                    usa_time |= matches!(c, b'h' | b'I' | b'l');
                    (f.hour, val) = num(2)?;
                }
                b'i' => (f.minute, val) = num(2)?,
                b's' | b'S' => (f.second, val) = num(2)?,
                b'f' => {
                    let (n, end) = num(6)?;
                    f.micros = n * 10i64.pow(6u32.saturating_sub((end - val) as u32));
                    val = end;
                }
                b'p' => {
                    if rest < 2 || !usa_time {
                        return Err(fail(what));
                    }
                    let two = &s[val..val + 2];
                    if two.eq_ignore_ascii_case(b"PM") {
                        daypart = 12;
                    } else if !two.eq_ignore_ascii_case(b"AM") {
                        return Err(fail(what));
                    }
                    val += 2;
                }
                b'W' => (w.weekday, val) = name(&DAYS, s, val).ok_or_else(|| fail(what))?,
                b'a' => {
                    let abbr: Vec<&str> = DAYS.iter().map(|d| &d[..3]).collect();
                    (w.weekday, val) = name(&abbr, s, val).ok_or_else(|| fail(what))?;
                }
                b'w' => {
                    let (n, end) = num(1)?;
                    if !(0..7).contains(&n) {
                        return Err(fail(what));
                    }
                    w.weekday = if n == 0 { 7 } else { n };
                    val = end;
                }
                b'j' => (w.yearday, val) = num(3)?,
                c @ (b'V' | b'U' | b'v' | b'u') => {
                    w.sunday_first = matches!(c, b'U' | b'V');
                    w.strict = matches!(c, b'V' | b'v');
                    let (n, end) = num(2)?;
                    if (w.strict && n == 0) || n > 53 {
                        return Err(fail(what));
                    }
                    w.week = Some(n);
                    val = end;
                }
                c @ (b'X' | b'x') => {
                    w.strict_year_sunday = c == b'X';
                    let (n, end) = num(4)?;
                    w.strict_year = Some(n);
                    val = end;
                }
                b'r' => val = extract(s, val, b"%I:%i:%S %p", f, w, true)?,
                b'T' => val = extract(s, val, b"%H:%i:%S", f, w, true)?,
                b'.' => {
                    while val < s.len() && s[val].is_ascii_punctuation() {
                        val += 1;
                    }
                }
                b'@' => {
                    while val < s.len() && s[val].is_ascii_alphabetic() {
                        val += 1;
                    }
                }
                b'#' => {
                    while val < s.len() && s[val].is_ascii_digit() {
                        val += 1;
                    }
                }
                _ => return Err(fail(what)),
            }
        } else if !is_space(fmt[p]) {
            if s[val] != fmt[p] {
                return Err(fail(what));
            }
            val += 1;
        }
        p += 1;
    }
    if usa_time {
        if !(1..=12).contains(&f.hour) {
            return Err(fail(what));
        }
        f.hour = f.hour % 12 + daypart;
    }
    Ok(val)
}

/// The date parts `%j` and the week specifiers imply; `false` when they
/// name no date MySQL can hold.
fn resolve_days(f: &mut Fields, w: &Weeks) -> bool {
    use crate::temporal::{from_days, to_days};
    let set = |f: &mut Fields, days: i64| match from_days(days) {
        Some(d) => {
            (f.year, f.month, f.day) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
            true
        }
        None => false,
    };
    let jan1 = |y: i64| to_days(Date { year: y.clamp(0, 9999) as u16, month: 1, day: 1 });
    if w.yearday > 0 {
        let day = jan1(f.year) + w.yearday - 1;
        if !set(f, day) {
            return false;
        }
    }
    if let (Some(week), true) = (w.week, w.weekday != 0) {
        // %V / %v need %X / %x of the same kind; %U / %u need neither.
        let paired = match w.strict_year {
            Some(_) => w.strict && w.strict_year_sunday == w.sunday_first,
            None => !w.strict,
        };
        if !paired {
            return false;
        }
        let mut days = jan1(if w.strict { w.strict_year.unwrap_or(0) } else { f.year });
        let first_weekday = (days + 5 + i64::from(w.sunday_first)) % 7;
        days += if w.sunday_first {
            (if first_weekday == 0 { 0 } else { 7 }) - first_weekday + (week - 1) * 7 + w.weekday % 7
        } else {
            (if first_weekday <= 3 { 0 } else { 7 }) - first_weekday + (week - 1) * 7 + (w.weekday - 1)
        };
        if !set(f, days) {
            return false;
        }
    }
    true
}

/// The `sql_mode` flags that judge a date read here.
#[derive(Clone, Copy, Default)]
struct DateRules {
    no_zero_date: bool,
    no_zero_in_date: bool,
}

impl DateRules {
    fn of(env: &dyn Env) -> Result<Self> {
        let mode = as_string(&env.sysvar("sql_mode", false)?);
        let has = |m: &str| mode.split(',').any(|x| x.eq_ignore_ascii_case(m));
        Ok(DateRules { no_zero_date: has("NO_ZERO_DATE"), no_zero_in_date: has("NO_ZERO_IN_DATE") })
    }
}

/// Reads `text` by `fmt` as `kind`: the value, and whether text was left
/// over after the format (the 1292 warning).
fn read(text: &str, fmt: &str, kind: Kind, rules: DateRules) -> std::result::Result<(Value, bool), Mismatch> {
    let s = text.as_bytes();
    let mut f = Fields::default();
    let mut w = Weeks::default();
    let end = extract(s, 0, fmt.as_bytes(), &mut f, &mut w, false)?;
    let fail = || Mismatch { what: "datetime", text: text.to_owned() };
    if !resolve_days(&mut f, &w) {
        return Err(fail());
    }
    if f.month > 12 || f.day > 31 || f.hour > 23 || f.minute > 59 || f.second > 59 {
        return Err(fail());
    }
    if !matches!(kind, Kind::Time { .. }) {
        let zero = f.year == 0 && f.month == 0 && f.day == 0;
        if (zero && rules.no_zero_date) || (!zero && rules.no_zero_in_date && (f.month == 0 || f.day == 0)) {
            return Err(fail());
        }
    }
    let left = s[end..].iter().any(|&b| !is_space(b));
    let date = Date { year: f.year as u16, month: f.month as u8, day: f.day as u8 };
    let value = match kind {
        Kind::Date => Value::Date(date),
        Kind::Time { fsp } => {
            // A day read with a time-only format adds its hours (MariaDB).
            let secs = ((f.day * 24 + f.hour) * 60 + f.minute) * 60 + f.second;
            let micros = if fsp == 0 { 0 } else { f.micros };
            Value::Time(secs * 1_000_000 + micros)
        }
        Kind::DateTime { fsp } => Value::DateTime(DateTime {
            date,
            hour: f.hour as u8,
            minute: f.minute as u8,
            second: f.second as u8,
            micros: if fsp == 0 { 0 } else { f.micros as u32 },
        }),
    };
    Ok((value, left))
}

/// STR_TO_DATE on evaluated arguments (see [`bind`] for the third).
pub fn call(args: &[Value], env: &dyn Env) -> Result<Value> {
    if let Some(v) = crate::binary::call("str_to_date", &args[..args.len().min(2)])? {
        if v.is_null() {
            return Ok(v);
        }
    }
    let (Some(s), Some(fmt)) = (args.first(), args.get(1)) else { return Ok(Value::Null) };
    if s.is_null() || fmt.is_null() {
        return Ok(Value::Null);
    }
    let kind = kind_of_call(args);
    let text = as_string(s);
    match read(&text, &as_string(fmt), kind, DateRules::of(env)?) {
        Ok((v, left)) => {
            if left {
                let m = format!("Truncated incorrect {} value: '{text}'", kind.word());
                env.warn(Condition::new(Level::Warning, 1292, m))?;
            }
            Ok(v)
        }
        Err(m) => {
            let shown: String = m.text.chars().take(127).collect();
            let msg = format!("Incorrect {} value: '{shown}' for function str_to_date", m.what);
            env.warn(Condition::new(Level::Warning, 1411, msg))?;
            Ok(Value::Null)
        }
    }
}

/// GET_FORMAT(DATE | TIME | DATETIME | TIMESTAMP, 'EUR' | 'USA' | 'JIS' |
/// 'ISO' | 'INTERNAL'): the format string, NULL for another standard.
pub fn get_format(kind: &str, standard: &str) -> Option<&'static str> {
    let std = standard.to_ascii_uppercase();
    let i = ["USA", "JIS", "ISO", "EUR", "INTERNAL"].iter().position(|s| *s == std)?;
    let table: [&str; 5] = match kind.to_ascii_uppercase().as_str() {
        "DATE" => ["%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%d.%m.%Y", "%Y%m%d"],
        "DATETIME" | "TIMESTAMP" => {
            ["%Y-%m-%d %H.%i.%s", "%Y-%m-%d %H:%i:%s", "%Y-%m-%d %H:%i:%s", "%Y-%m-%d %H.%i.%s", "%Y%m%d%H%i%s"]
        }
        "TIME" => ["%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H.%i.%s", "%H%i%s"],
        _ => return None,
    };
    Some(table[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str, f: &str) -> Option<String> {
        read(s, f, kind_of(f), DateRules::default()).ok().map(|(v, _)| v.to_string())
    }

    #[test]
    fn kinds_follow_the_format_specifiers() {
        assert_eq!(kind_of("%Y-%m-%d"), Kind::Date);
        assert_eq!(kind_of("%d"), Kind::Date);
        assert_eq!(kind_of("%H:%i"), Kind::Time { fsp: 0 });
        assert_eq!(kind_of("%s.%f"), Kind::Time { fsp: 6 });
        assert_eq!(kind_of("%Y %T"), Kind::DateTime { fsp: 0 });
        assert_eq!(kind_of("%f %Y"), Kind::DateTime { fsp: 6 });
    }

    #[test]
    fn mysqls_documented_examples_read_as_documented() {
        assert_eq!(run("01,5,2013", "%d,%m,%Y").as_deref(), Some("2013-05-01"));
        assert_eq!(run("May 1, 2013", "%M %d,%Y").as_deref(), Some("2013-05-01"));
        assert_eq!(run("a09:30:17", "a%h:%i:%s").as_deref(), Some("09:30:17"));
        assert_eq!(run("a09:30:17", "%h:%i:%s"), None);
        assert_eq!(run("09:30:17a", "%h:%i:%s").as_deref(), Some("09:30:17"));
        assert_eq!(run("abc", "abc").as_deref(), Some("0000-00-00"));
        assert_eq!(run("9", "%m").as_deref(), Some("0000-09-00"));
        assert_eq!(run("9", "%s").as_deref(), Some("00:00:09"));
        assert_eq!(run("04/31/2004", "%m/%d/%Y").as_deref(), Some("2004-04-31"));
        assert_eq!(run("200442 Monday", "%X%V %W").as_deref(), Some("2004-10-18"));
        assert_eq!(run("10:20:30 PM", "%r").as_deref(), Some("22:20:30"));
        assert_eq!(run("13:20:30 PM", "%r"), None);
        assert_eq!(run("2020 60", "%Y %j").as_deref(), Some("2020-02-29"));
        assert_eq!(run("1.5", "%s.%f").as_deref(), Some("00:00:01.500000"));
    }

    #[test]
    fn get_format_knows_the_five_standards() {
        assert_eq!(get_format("date", "usa"), Some("%m.%d.%Y"));
        assert_eq!(get_format("TIME", "EUR"), Some("%H.%i.%s"));
        assert_eq!(get_format("DATE", "nope"), None);
    }
}
