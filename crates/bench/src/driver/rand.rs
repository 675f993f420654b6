//! sysbench 1.0.20's random numbers, so that the driver hits the same rows
//! with the same skew as `sysbench` does (`src/sb_rand.c`):
//!
//! - `uniform(a, b)` = `a + u * (b - a + 1)`, `u` uniform in [0, 1);
//! - `special(a, b)`, the default `--rand-type` (`--rand-spec-iter=12`,
//!   `--rand-spec-pct=1`, `--rand-spec-res=75`): 75% of the values fall
//!   uniformly in the 1% of the range at its centre, the other 25% follow
//!   a bell curve (mean of 12 uniforms) over the whole range;
//! - `string(template)`: every `#` becomes a digit, every `@` a letter.
//!
//! The generator is a per-thread xoshiro (rand's `SmallRng`); sysbench uses
//! xoroshiro128+. Only the distributions matter to the workload.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// `--rand-spec-iter`.
const SPEC_ITER: u32 = 12;
/// `--rand-spec-pct`: the share of the range where special values fall.
const SPEC_PCT: f64 = 1.0;
/// `--rand-spec-res`: the share of values that are special.
const SPEC_RES: f64 = 75.0;

/// sysbench's `c` column: 10 groups of 11 digits (119 characters).
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-\
###########-###########-###########-###########-###########";
/// sysbench's `pad` column: 5 groups of 11 digits (59 characters).
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// The random numbers of one client thread.
pub struct SbRand {
    rng: SmallRng,
}

impl SbRand {
    pub fn new(seed: u64) -> Self {
        SbRand { rng: SmallRng::seed_from_u64(seed) }
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        self.rng.gen::<f64>()
    }

    /// `sysbench.rand.uniform(a, b)`: a..=b, uniform.
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        let span = f64::from(b.saturating_sub(a)) + 1.0;
        (f64::from(a) + self.unit() * span) as u32
    }

    /// `sysbench.rand.default(a, b)` with `--rand-type=special`.
    pub fn special(&mut self, a: u32, b: u32) -> u32 {
        let t = f64::from(b.saturating_sub(a));
        let range = t * (100.0 / (100.0 - SPEC_RES));
        let rnd = self.unit();
        if rnd * range < t {
            let sum: f64 = (0..SPEC_ITER).map(|_| self.unit()).sum();
            return (f64::from(a) + sum * t / f64::from(SPEC_ITER)) as u32;
        }
        let d = t * SPEC_PCT / 100.0;
        let res = rnd * (d + 1.0) + t / 2.0 - t * SPEC_PCT / 200.0;
        a.saturating_add(res as u32)
    }

    /// `sysbench.rand.string(template)` into `out` (cleared first).
    pub fn string_into(&mut self, template: &str, out: &mut String) {
        out.clear();
        for ch in template.chars() {
            match ch {
                '#' => out.push(char::from(b'0' + self.uniform(0, 9) as u8)),
                '@' => out.push(char::from(b'a' + self.uniform(0, 25) as u8)),
                other => out.push(other),
            }
        }
    }

    pub fn string(&mut self, template: &str) -> String {
        let mut s = String::with_capacity(template.len());
        self.string_into(template, &mut s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_puts_three_quarters_in_the_central_percent() {
        let mut r = SbRand::new(7);
        let (a, b) = (1u32, 100_000u32);
        let n = 200_000;
        let mut central = 0;
        for _ in 0..n {
            let v = r.special(a, b);
            assert!((a..=b).contains(&v), "{v} out of range");
            // The special window is [t/2 - t/200, t/2 + t/200] + a.
            if (49_500..=50_502).contains(&v) {
                central += 1;
            }
        }
        let share = f64::from(central) / f64::from(n);
        // 75% special, plus the bell curve's own mass in that window (~2%).
        assert!((0.74..0.80).contains(&share), "central share {share}");
    }

    #[test]
    fn uniform_covers_its_bounds_and_strings_follow_the_template() {
        let mut r = SbRand::new(1);
        let mut seen = [false; 4];
        for _ in 0..1000 {
            let v = r.uniform(1, 4);
            seen[(v - 1) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        let c = r.string(C_TEMPLATE);
        assert_eq!(c.len(), 119);
        assert!(c.chars().zip(C_TEMPLATE.chars()).all(|(x, t)| if t == '#' { x.is_ascii_digit() } else { x == t }));
        assert_eq!(r.string(PAD_TEMPLATE).len(), 59);
    }
}
