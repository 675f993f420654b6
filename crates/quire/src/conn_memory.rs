//! `quire conn-memory`: how much resident memory a MySQL server (quire or
//! any other) holds per idle, logged-in connection, and whether it gives
//! that memory back when the connections close (issue 14, item 3).
//!
//! The server runs as its own process; this program only opens
//! connections to it and reads that process's `VmRSS` from
//! `/proc/PID/status`. For each count N it reads RSS idle, opens N
//! connections (each logs in and runs one `SELECT 1`, as a pooled client
//! would), waits `--settle-ms`, reads RSS, closes them all, waits again
//! and reads RSS a last time. It prints one markdown row per N;
//! `scripts/conn-memory.sh` runs it against several servers side by side.
//! It is a benchmark, not a test: figures depend on the machine.

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// the server's TCP port on 127.0.0.1
    #[arg(long)]
    port: u16,
    #[arg(long, default_value = "root")]
    user: String,
    #[arg(long, default_value = "root")]
    password: String,
    /// the server's process id (its RSS is read from /proc/PID/status)
    #[arg(long)]
    pid: u32,
    /// connection counts, measured one after the other (each set is closed
    /// before the next opens)
    #[arg(long, value_delimiter = ',', default_value = "1024,2000")]
    connections: Vec<usize>,
    /// the row's label in the report
    #[arg(long)]
    label: String,
    /// pause after opening or closing before RSS is read, so that delayed
    /// frees and purges have happened
    #[arg(long, default_value_t = 3000)]
    settle_ms: u64,
    /// print the table header first
    #[arg(long)]
    header: bool,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    if a.header {
        println!("| server | connections | RSS idle MiB | RSS open MiB | KiB per connection | RSS after close MiB | returned |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
    }
    let settle = Duration::from_millis(a.settle_ms);
    for &n in &a.connections {
        std::thread::sleep(settle);
        let idle = rss_kib(a.pid)?;
        let mut conns = Vec::with_capacity(n);
        for i in 0..n {
            let opts = OptsBuilder::new()
                .ip_or_hostname(Some("127.0.0.1"))
                .tcp_port(a.port)
                .user(Some(a.user.clone()))
                .pass(Some(a.password.clone()))
                .prefer_socket(false);
            let mut c = Conn::new(opts).map_err(|e| format!("connection {i} of {n}: {e}"))?;
            c.query_drop("SELECT 1")?;
            conns.push(c);
        }
        std::thread::sleep(settle);
        let open = rss_kib(a.pid)?;
        drop(conns);
        std::thread::sleep(settle);
        let closed = rss_kib(a.pid)?;
        let per_conn = open.saturating_sub(idle) as f64 / n as f64;
        // The share of what the connections took that is back after close.
        let grown = open.saturating_sub(idle).max(1) as f64;
        let returned = 100.0 * open.saturating_sub(closed) as f64 / grown;
        println!(
            "| {} | {n} | {:.1} | {:.1} | {per_conn:.0} | {:.1} | {returned:.0}% |",
            a.label,
            mib(idle),
            mib(open),
            mib(closed)
        );
    }
    Ok(())
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The process's resident set size in KiB (`VmRSS`).
fn rss_kib(pid: u32) -> Result<u64, Box<dyn std::error::Error>> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).ok_or("no VmRSS in /proc/PID/status")?;
    Ok(line.split_whitespace().nth(1).ok_or("VmRSS without a value")?.parse()?)
}
