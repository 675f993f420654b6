//! Exact decimals: a signed 128-bit coefficient and a scale, the value being
//! `coef / 10^scale`. Covers DECIMAL(p, s) up to p = 38 (MySQL allows 65;
//! wider columns are refused at CREATE TABLE).

use std::cmp::Ordering;
use std::fmt;

pub const MAX_PRECISION: u8 = 38;
pub const MAX_SCALE: u8 = 30;

#[derive(Clone, Copy, Debug)]
pub struct Decimal {
    pub coef: i128,
    pub scale: u8,
}

fn pow10(n: u8) -> i128 {
    10i128.pow(n as u32)
}

impl Decimal {
    pub const ZERO: Decimal = Decimal { coef: 0, scale: 0 };

    pub fn new(coef: i128, scale: u8) -> Self {
        Self { coef, scale }
    }

    pub fn from_i64(v: i64) -> Self {
        Self { coef: v as i128, scale: 0 }
    }

    /// Parses `[+-]digits[.digits][e[+-]digits]`.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let (mant, exp) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
            None => (s, 0),
        };
        let (neg, digits) = match mant.as_bytes().first()? {
            b'-' => (true, &mant[1..]),
            b'+' => (false, &mant[1..]),
            _ => (false, mant),
        };
        let (int, frac) = match digits.find('.') {
            Some(i) => (&digits[..i], &digits[i + 1..]),
            None => (digits, ""),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut coef: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            coef = coef.checked_mul(10)?.checked_add((b - b'0') as i128)?;
        }
        let mut scale = frac.len() as i32 - exp;
        while scale < 0 {
            coef = coef.checked_mul(10)?;
            scale += 1;
        }
        // Keep at most MAX_SCALE fractional digits, rounding.
        let mut d = Decimal { coef: if neg { -coef } else { coef }, scale: 0 };
        if scale > MAX_SCALE as i32 {
            d.scale = scale.min(u8::MAX as i32) as u8;
            if scale > 76 {
                return Some(Decimal::ZERO);
            }
            return d.rescale(MAX_SCALE);
        }
        d.scale = scale as u8;
        Some(d)
    }

    /// The same value with `scale` fractional digits, rounding half away
    /// from zero as MySQL does. `None` on overflow.
    pub fn rescale(self, scale: u8) -> Option<Self> {
        match scale.cmp(&self.scale) {
            Ordering::Equal => Some(self),
            Ordering::Greater => {
                let f = 10i128.checked_pow((scale - self.scale) as u32)?;
                Some(Decimal { coef: self.coef.checked_mul(f)?, scale })
            }
            Ordering::Less => {
                let diff = self.scale - scale;
                if diff > 38 {
                    return Some(Decimal { coef: 0, scale });
                }
                let f = pow10(diff);
                let q = self.coef / f;
                let r = self.coef % f;
                let half = f / 2;
                let q = if r.abs() >= half && f > 1 { q + self.coef.signum() } else { q };
                Some(Decimal { coef: q, scale })
            }
        }
    }

    /// Number of digits left of the point.
    pub fn int_digits(&self) -> u32 {
        let int = (self.coef / pow10(self.scale)).unsigned_abs();
        if int == 0 {
            0
        } else {
            int.ilog10() + 1
        }
    }

    /// Whether it fits DECIMAL(p, s) once rescaled to s.
    pub fn fits(&self, precision: u8, scale: u8) -> bool {
        self.int_digits() <= (precision - scale) as u32
    }

    /// The nearest double (through the decimal text, which Rust's parser
    /// rounds correctly; dividing by a power of ten would round twice).
    pub fn to_f64(&self) -> f64 {
        if self.scale == 0 && self.coef.unsigned_abs() < (1 << 53) {
            return self.coef as f64;
        }
        self.to_string().parse().unwrap_or(self.coef as f64 / 10f64.powi(self.scale as i32))
    }

    pub fn is_zero(&self) -> bool {
        self.coef == 0
    }

    pub fn checked_add(self, o: Self) -> Option<Self> {
        let s = self.scale.max(o.scale);
        let (a, b) = (self.rescale(s)?, o.rescale(s)?);
        Some(Decimal { coef: a.coef.checked_add(b.coef)?, scale: s })
    }

    pub fn checked_sub(self, o: Self) -> Option<Self> {
        self.checked_add(Decimal { coef: -o.coef, scale: o.scale })
    }

    pub fn checked_mul(self, o: Self) -> Option<Self> {
        let d = Decimal { coef: self.coef.checked_mul(o.coef)?, scale: self.scale.checked_add(o.scale)? };
        if d.scale > MAX_SCALE {
            d.rescale(MAX_SCALE)
        } else {
            Some(d)
        }
    }

    /// Division with `extra` more fractional digits than the dividend
    /// (MySQL's `div_precision_increment`, default 4).
    pub fn checked_div(self, o: Self, extra: u8) -> Option<Self> {
        if o.coef == 0 {
            return None;
        }
        let scale = (self.scale + extra).min(MAX_SCALE);
        // self / o = (self.coef * 10^(scale + o.scale - self.scale)) / o.coef at `scale`.
        let shift = scale as i32 + o.scale as i32 - self.scale as i32;
        let num = if shift >= 0 {
            self.coef.checked_mul(10i128.checked_pow(shift as u32)?)?.checked_mul(10)?
        } else {
            (self.coef / pow10((-shift) as u8)).checked_mul(10)?
        };
        let q = num / o.coef;
        // One extra digit computed for rounding.
        let rounded = if q % 10 >= 5 {
            q / 10 + 1
        } else if q % 10 <= -5 {
            q / 10 - 1
        } else {
            q / 10
        };
        Some(Decimal { coef: rounded, scale })
    }

    /// Both operands at their common (larger) scale: integer coefficients
    /// whose quotient and remainder are the decimals' own. `None` on
    /// overflow.
    fn aligned(self, o: Self) -> Option<(i128, i128, u8)> {
        let s = self.scale.max(o.scale);
        Some((self.rescale(s)?.coef, o.rescale(s)?.coef, s))
    }

    /// `self DIV o`: the quotient truncated toward zero, as an integer
    /// (MySQL's DIV never rounds, whatever the operands' scales). `None`
    /// on division by zero or overflow.
    pub fn checked_div_trunc(self, o: Self) -> Option<i128> {
        let (a, b, _) = self.aligned(o)?;
        a.checked_div(b)
    }

    /// `self MOD o`: the remainder of the truncated quotient, with the
    /// dividend's sign and the larger of the two scales (MySQL: `-7.5 MOD 2`
    /// is `-1.5`). `None` on division by zero or overflow.
    pub fn checked_rem(self, o: Self) -> Option<Self> {
        let (a, b, scale) = self.aligned(o)?;
        Some(Decimal { coef: a.checked_rem(b)?, scale })
    }

    /// The value cut (not rounded) to `scale` fractional digits, toward
    /// zero: TRUNCATE(x, d) for d >= 0.
    pub fn truncate_to(self, scale: u8) -> Self {
        if scale >= self.scale {
            return self;
        }
        let diff = self.scale - scale;
        if diff > 38 {
            return Decimal { coef: 0, scale };
        }
        Decimal { coef: self.coef / pow10(diff), scale }
    }

    fn cmp_value(&self, o: &Self) -> Ordering {
        let s = self.scale.max(o.scale);
        match (self.rescale(s), o.rescale(s)) {
            (Some(a), Some(b)) => a.coef.cmp(&b.coef),
            _ => self.to_f64().partial_cmp(&o.to_f64()).unwrap_or(Ordering::Equal),
        }
    }
}

impl PartialEq for Decimal {
    fn eq(&self, o: &Self) -> bool {
        self.cmp_value(o) == Ordering::Equal
    }
}
impl Eq for Decimal {}
impl PartialOrd for Decimal {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Decimal {
    fn cmp(&self, o: &Self) -> Ordering {
        self.cmp_value(o)
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = self.coef < 0;
        let digits = self.coef.unsigned_abs().to_string();
        let s = self.scale as usize;
        let (int, frac) = if digits.len() > s {
            (digits[..digits.len() - s].to_string(), digits[digits.len() - s..].to_string())
        } else {
            ("0".to_string(), format!("{}{}", "0".repeat(s - digits.len()), digits))
        };
        if neg {
            f.write_str("-")?;
        }
        f.write_str(&int)?;
        if s > 0 {
            write!(f, ".{frac}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_format_and_round_like_mysql() {
        let d = Decimal::parse("-12.345").unwrap();
        assert_eq!(d.to_string(), "-12.345");
        assert_eq!(d.rescale(2).unwrap().to_string(), "-12.35");
        assert_eq!(Decimal::parse("0.005").unwrap().rescale(2).unwrap().to_string(), "0.01");
        assert_eq!(Decimal::parse("1.5e2").unwrap().to_string(), "150");
        assert_eq!(Decimal::parse(".5").unwrap().rescale(3).unwrap().to_string(), "0.500");
        assert!(Decimal::parse("1.2.3").is_none());
        assert!(Decimal::parse("abc").is_none());
        assert!(Decimal::parse("123.4").unwrap().fits(4, 1));
        assert!(!Decimal::parse("12345.4").unwrap().fits(5, 1));
        assert_eq!(Decimal::parse("1.10").unwrap(), Decimal::parse("1.1").unwrap());
    }

    #[test]
    fn arithmetic_is_exact() {
        let a = Decimal::parse("0.1").unwrap();
        let b = Decimal::parse("0.2").unwrap();
        assert_eq!(a.checked_add(b).unwrap().to_string(), "0.3");
        assert_eq!(a.checked_mul(b).unwrap().to_string(), "0.02");
        assert_eq!(Decimal::from_i64(1).checked_div(Decimal::from_i64(3), 4).unwrap().to_string(), "0.3333");
        assert_eq!(Decimal::from_i64(2).checked_div(Decimal::from_i64(3), 4).unwrap().to_string(), "0.6667");
    }

    #[test]
    fn div_truncates_and_mod_keeps_the_larger_scale() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        assert_eq!(d("7.5").checked_div_trunc(d("2")), Some(3));
        assert_eq!(d("7.9").checked_div_trunc(d("1")), Some(7));
        assert_eq!(d("91").checked_div_trunc(d("53.0")), Some(1));
        assert_eq!(d("-7.9").checked_div_trunc(d("2")), Some(-3));
        assert_eq!(d("1").checked_div_trunc(d("0.00")), None);
        assert_eq!(d("7.5").checked_rem(d("2")).unwrap().to_string(), "1.5");
        assert_eq!(d("-7.5").checked_rem(d("2")).unwrap().to_string(), "-1.5");
        assert_eq!(d("7").checked_rem(d("-2.25")).unwrap().to_string(), "0.25");
        assert_eq!(d("1.999").truncate_to(2).to_string(), "1.99");
        assert_eq!(d("-1.999").truncate_to(0).to_string(), "-1");
    }
}
