//! Contention you can see (seed 000's figure, remade): while a point runs,
//! one extra connection reads `performance_schema.
//! events_waits_summary_global_by_event_name` once a second; the growth of
//! each instrument's SUM_TIMER_WAIT over that second is how many seconds
//! the server's threads spent waiting on it. The report charts the top
//! five instruments of a run beside its TPS.
//!
//! A target without the table (MariaDB started with
//! `performance_schema=OFF`, its default) gives no samples and a note;
//! one with the instruments switched off is asked to switch the `wait/%`
//! ones on ([`enable`]), as seed 000 did for its chart.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::Conn;

use crate::target::TargetSpec;

/// The waits of one second of a run: (instrument, seconds waited in it).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WaitSecond {
    pub second: u32,
    pub waits: Vec<(String, f64)>,
}

const QUERY: &str =
    "SELECT EVENT_NAME, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name \
                     WHERE SUM_TIMER_WAIT > 0 AND EVENT_NAME <> 'idle'";

/// Every instrument's SUM_TIMER_WAIT (picoseconds) now.
fn read(c: &mut Conn) -> Option<HashMap<String, u64>> {
    let rows: Vec<(String, mysql::Value)> = c.query(QUERY).ok()?;
    Some(
        rows.into_iter()
            .filter_map(|(n, v)| match v {
                mysql::Value::UInt(u) => Some((n, u)),
                mysql::Value::Int(i) => Some((n, i.max(0) as u64)),
                mysql::Value::Bytes(b) => String::from_utf8_lossy(&b).parse().ok().map(|u| (n, u)),
                _ => None,
            })
            .collect(),
    )
}

/// Switches the target's wait instruments on and timed; why not, if it
/// cannot (no performance_schema, no privilege).
pub fn enable(spec: &TargetSpec) -> Option<String> {
    let mut c = match spec.connect(false, 0) {
        Ok(c) => c,
        Err(e) => return Some(format!("no wait samples: {e}")),
    };
    if read(&mut c).is_none() {
        return Some(
            "no wait samples: performance_schema is not readable (started with performance_schema=OFF?)".into(),
        );
    }
    match c.query_drop(
        "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'wait/%'",
    ) {
        Ok(()) => None,
        Err(e) => Some(format!("wait instruments left as they were: {e}")),
    }
}

/// A running sampler.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<WaitSecond>>,
}

impl Sampler {
    /// Starts sampling `spec`; `None` when its performance_schema cannot
    /// be read.
    pub fn start(spec: &TargetSpec) -> Option<Sampler> {
        let mut c = spec.connect(false, 0).ok()?;
        let first = read(&mut c)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut prev = (Instant::now(), first);
            let mut out = Vec::new();
            let mut second = 0u32;
            loop {
                second += 1;
                let due = prev.0 + Duration::from_secs(1);
                while Instant::now() < due && !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20).min(due.saturating_duration_since(Instant::now())));
                }
                let at = Instant::now();
                let Some(now) = read(&mut c) else { break };
                // The run's last part second, if long enough to say
                // something, is scaled to a rate like the others.
                let span = at.duration_since(prev.0).as_secs_f64();
                let stopping = flag.load(Ordering::Relaxed);
                if !stopping || span >= 0.25 {
                    let mut waits: Vec<(String, f64)> = now
                        .iter()
                        .filter_map(|(n, v)| {
                            let d = v.saturating_sub(prev.1.get(n).copied().unwrap_or(0));
                            (d > 0).then(|| (n.clone(), d as f64 / 1e12 / span))
                        })
                        .collect();
                    waits.sort_by(|a, b| b.1.total_cmp(&a.1));
                    out.push(WaitSecond { second, waits });
                }
                if stopping {
                    break;
                }
                prev = (at, now);
            }
            out
        });
        Some(Sampler { stop, handle })
    }

    /// Stops and returns the seconds sampled.
    pub fn finish(self) -> Vec<WaitSecond> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

/// The `n` instruments waited on longest over `seconds`, with their
/// total seconds waited, longest first.
pub fn top(seconds: &[WaitSecond], n: usize) -> Vec<(String, f64)> {
    let mut total: HashMap<&str, f64> = HashMap::new();
    for s in seconds {
        for (name, w) in &s.waits {
            *total.entry(name).or_default() += w;
        }
    }
    let mut v: Vec<(String, f64)> = total.into_iter().map(|(k, w)| (k.to_string(), w)).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_instruments_are_those_waited_on_longest_overall() {
        let s = |second, w: &[(&str, f64)]| WaitSecond {
            second,
            waits: w.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        };
        let secs = [s(1, &[("a", 0.5), ("b", 0.1)]), s(2, &[("b", 0.6), ("c", 0.2)])];
        let t = top(&secs, 2);
        assert_eq!(t.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["b", "a"]);
        assert!((t[0].1 - 0.7).abs() < 1e-9);
    }
}
