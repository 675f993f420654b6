//! Kill tests: a real child process runs a write workload and is killed
//! with SIGKILL at random moments; after each kill the engine recovers and
//! every acknowledged change must be there, with the primary key and the
//! secondary index agreeing. `QUIRE_KILL_ITERATIONS` sets the number of
//! kills (default 30; the long mode, a few hundred, is run by hand).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::ops::Bound;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use quire_engine::btree::Direction;
use quire_engine::row::Value;
use quire_engine::table::IndexRef;
use rand::{Rng, SeedableRng};

const LOG_FILE_SIZE: u64 = 2 << 20;

fn open(dir: &std::path::Path) -> std::sync::Arc<quire_engine::Engine> {
    let vfs: std::sync::Arc<dyn quire_io::Vfs> = quire_io::OsVfs::new();
    let cfg =
        quire_engine::EngineConfig::new(dir).page_size(4096).buffer_pool_size(2 << 20).log_file_size(LOG_FILE_SIZE);
    quire_engine::Engine::open(cfg, vfs).expect("recovery succeeds")
}

/// Runs `kill-workload` with `args` on `dir`, SIGKILLs it after a random
/// pause in `pause_ms`, and returns the lines it acknowledged.
fn run_and_kill(
    dir: &std::path::Path,
    args: &[&str],
    pause_ms: std::ops::Range<u64>,
    rng: &mut impl Rng,
) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quire"))
        .arg("kill-workload")
        .args(args)
        .arg("--datadir")
        .arg(dir)
        .args(["--log-file-size", &LOG_FILE_SIZE.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the workload");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)).expect("workload starts"), "READY");
    std::thread::sleep(Duration::from_millis(rng.gen_range(pause_ms)));
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    reader.join().unwrap();
    rx.try_iter().collect()
}

#[test]
fn kill_during_writes_loses_no_acknowledged_change() {
    let iterations: usize = std::env::var("QUIRE_KILL_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    // id -> acknowledged value (None = deleted), across all runs.
    let mut acked: HashMap<i64, Option<i64>> = HashMap::new();
    // Changes whose acknowledgement may have been cut off by the kill.
    for it in 0..iterations {
        let seed = it.to_string();
        let lines = run_and_kill(dir.path(), &["--seed", &seed, "--threads", "3", "--ids", "3000"], 50..700, &mut rng);
        let mut n = 0;
        for line in lines {
            let parts: Vec<&str> = line.split(' ').collect();
            match parts.as_slice() {
                ["I", id, v] => {
                    acked.insert(id.parse().unwrap(), Some(v.parse().unwrap()));
                }
                ["D", id] => {
                    acked.insert(id.parse().unwrap(), None);
                }
                _ => panic!("unexpected line {line:?}"),
            }
            n += 1;
        }
        // Recover in this process and check.
        let e = open(dir.path());
        let t = e.table("t").expect("table survives");
        let rows = t
            .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
            .unwrap()
            .collect_all()
            .unwrap();
        let by_v = t
            .scan(IndexRef::Secondary(0), Bound::Unbounded, Bound::Unbounded, Direction::Forward)
            .unwrap()
            .collect_all()
            .unwrap();
        assert_eq!(rows.len(), by_v.len(), "iteration {it}: indexes disagree");
        let found: HashMap<i64, i64> = rows
            .iter()
            .map(|r| match (&r[0], &r[1]) {
                (Value::Int(id), Value::Int(v)) => (*id, *v),
                _ => panic!("bad row"),
            })
            .collect();
        // Each writer thread has at most one change in flight when killed:
        // that change may or may not have landed. Everything else must be
        // exactly as acknowledged.
        let mut in_flight = 0;
        for (id, want) in &acked {
            let got = found.get(id).copied();
            if got != *want {
                let newer = match (want, got) {
                    (Some(w), Some(g)) => (g >> 40) & 0xf == (w >> 40) & 0xf && g > *w,
                    _ => true,
                };
                assert!(newer, "iteration {it}: id {id} acknowledged {want:?}, recovered an older {got:?}");
                in_flight += 1;
            }
        }
        for id in found.keys() {
            if !acked.contains_key(id) {
                in_flight += 1;
            }
        }
        assert!(in_flight <= 3, "iteration {it}: {in_flight} ids differ from their acknowledged state");
        // What recovery shows becomes the truth for the next round.
        for (id, v) in &found {
            acked.insert(*id, Some(*v));
        }
        for (id, want) in acked.iter_mut() {
            if !found.contains_key(id) {
                *want = None;
            }
        }
        e.shutdown().unwrap();
        eprintln!("iteration {it}: {n} acknowledged changes checked");
    }
}

#[test]
fn kill_during_bank_transfers_keeps_the_total_and_every_acknowledged_transfer() {
    const ACCOUNTS: i64 = 50;
    const START: i64 = 10_000;
    let iterations: usize =
        std::env::var("QUIRE_KILL_ITERATIONS").ok().and_then(|v| v.parse().ok()).map_or(15, |n: usize| n / 2);
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut acked: Vec<i64> = Vec::new();
    let mut rolled_back = 0;
    for it in 0..iterations {
        let seed = (it + 1).to_string();
        let lines = run_and_kill(dir.path(), &["--bank", "--seed", &seed, "--threads", "4"], 100..700, &mut rng);
        for line in lines {
            let id = line.strip_prefix("T ").unwrap_or_else(|| panic!("unexpected line {line:?}"));
            acked.push(id.parse().unwrap());
        }
        let e = open(dir.path());
        rolled_back += e.recovered_rollbacks();
        let all = |name: &str| {
            e.table(name)
                .unwrap()
                .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
                .unwrap()
                .collect_all()
                .unwrap()
        };
        let int = |v: &Value| match v {
            Value::Int(i) => *i,
            other => panic!("{other:?}"),
        };
        let log = all("transfers");
        let logged: std::collections::HashSet<i64> = log.iter().map(|r| int(&r[0])).collect();
        for id in &acked {
            assert!(logged.contains(id), "iteration {it}: acknowledged transfer {id:#x} is lost");
        }
        let mut expect = vec![START; ACCOUNTS as usize];
        for r in &log {
            expect[int(&r[1]) as usize] -= int(&r[3]);
            expect[int(&r[2]) as usize] += int(&r[3]);
        }
        let accounts = all("bank");
        assert_eq!(accounts.len(), ACCOUNTS as usize);
        for r in &accounts {
            assert_eq!(
                int(&r[1]),
                expect[int(&r[0]) as usize],
                "iteration {it}: a balance the transfers don't explain"
            );
        }
        e.shutdown().unwrap();
        eprintln!("iteration {it}: {} transfers logged, {} acknowledged", log.len(), acked.len());
    }
    eprintln!("{rolled_back} in-flight transactions rolled back by recovery");
}
