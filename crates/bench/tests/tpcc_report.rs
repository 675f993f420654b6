//! `quire bench --scenario tpcc --check` end to end, small: the embedded
//! quire loads a reduced TPC-C database (1 warehouse, 2 000 items, 100
//! customers per district), the mix runs for two seconds at 2 threads,
//! the consistency conditions pass, and the report carries tpmC and the
//! per-type counts in its JSON, `summary.csv`, `samples.csv` and README,
//! with a note that the population is not the standard one.

use std::time::Duration;

use quire_bench::driver::prepare::DataSpec;
use quire_bench::driver::{Mix, Workload};
use quire_bench::report::csv::{parse_line, SAMPLES_HEADER, SUMMARY_HEADER};
use quire_bench::runner::{self, DriverKind, Options, TpccOptions};
use quire_bench::scenario::{Choices, Scenario};
use quire_bench::tpcc::Scale;

#[test]
fn a_tpcc_run_reports_tpmc_and_per_type_counts_and_passes_the_checks() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("report");
    let opts = Options {
        scenarios: vec![Scenario::Tpcc],
        choices: Choices { threads: Some(vec![2]), time: Some(Duration::from_secs(2)), ..Choices::default() },
        data: DataSpec { tables: 1, table_size: 1 },
        targets: vec![],
        embedded: true,
        quire_options: vec![("innodb_buffer_pool_size".into(), "32M".into())],
        driver: DriverKind::Builtin,
        driver_workers: 0,
        events: 0,
        out: out.clone(),
        skip_prepare: false,
        prepare_threads: 2,
        progress: false,
        mix: Mix::default(),
        seed: 3,
        command: "quire bench --scenario tpcc (test)".into(),
        tmpdir: Some(tmp.path().to_path_buf()),
        tpcc: TpccOptions {
            scale: Scale { warehouses: 1, items: 2_000, customers: 100 },
            foreign_keys: true,
            check: true,
        },
    };
    let (report, _) = runner::run(&opts).expect("load, run and checks pass");
    assert_eq!(report.points.len(), 1);
    let p = &report.points[0];
    assert_eq!(p.workload, Workload::Tpcc);
    let t = p.summary.tpcc.as_ref().expect("TPC-C counts");
    assert!(t.new_order > 0 && t.payment > 0, "{t:?}");
    assert_eq!(
        p.summary.events,
        t.new_order + t.payment + t.order_status + t.delivery + t.stock_level,
        "every transaction is one of the five"
    );
    let expect_tpmc = t.new_order as f64 * 60.0 / p.summary.seconds;
    assert!((t.tpmc - expect_tpmc).abs() < 1e-6, "tpmC is new orders per minute");
    let statements = p.statements.as_ref().expect("statement counts");
    assert!(statements.contains_key("select") && statements.contains_key("commit"), "{statements:?}");
    assert!(!statements.contains_key("point_select"), "no sysbench statement in a TPC-C point");
    assert!(report.notes.iter().any(|n| n.text.contains("reduced TPC-C population")), "{:?}", report.notes);

    let summary = std::fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let header = parse_line(SUMMARY_HEADER);
    let row = parse_line(summary.lines().nth(1).expect("a row"));
    let col = |name: &str| &row[header.iter().position(|h| h == name).expect("column")];
    assert_eq!(col("workload"), "tpcc");
    assert_eq!(col("new_order"), &t.new_order.to_string());
    assert!(col("tpmc").parse::<f64>().expect("tpmC is a number") > 0.0);
    let samples = std::fs::read_to_string(out.join("samples.csv")).expect("samples.csv");
    let sh = parse_line(SAMPLES_HEADER);
    let tpmc_col = sh.iter().position(|h| h == "tpmc").expect("tpmc column");
    assert!(samples.lines().skip(1).any(|l| !parse_line(l)[tpmc_col].is_empty()), "per-second tpmC");
    let readme = std::fs::read_to_string(out.join("README.md")).expect("README.md");
    assert!(readme.contains("## tpcc: tpcc") && readme.contains("quire tpmC"), "{readme}");
}
