//! `quire bench` end to end, small: the built-in driver against an
//! embedded quire for a few seconds, then every file of the report read
//! back: the CSVs parse with one row per point / second, the JSON decodes
//! into the same report, every SVG has plotted lines, every PNG decodes to
//! a picture that is not blank; and a bad or unreachable target fails with
//! a message that says which and why.

use std::path::Path;
use std::time::Duration;

use quire_bench::driver::prepare::DataSpec;
use quire_bench::driver::{Mix, Workload};
use quire_bench::report::csv::{parse_line, SAMPLES_HEADER, SUMMARY_HEADER};
use quire_bench::report::Report;
use quire_bench::runner::{self, DriverKind, Options};
use quire_bench::scenario::{Choices, Scenario};
use quire_bench::target::TargetSpec;

fn options(out: &Path, tmp: &Path) -> Options {
    Options {
        scenarios: vec![Scenario::Default],
        choices: Choices {
            workloads: Some(vec![Workload::ReadWrite, Workload::PointSelect]),
            threads: Some(vec![1, 2]),
            time: Some(Duration::from_secs(1)),
            timeline_threads: Some(2),
            timeline_time: Some(Duration::from_secs(2)),
        },
        data: DataSpec { tables: 2, table_size: 1000 },
        targets: vec![],
        embedded: true,
        quire_options: vec![
            ("innodb_buffer_pool_size".into(), "32M".into()),
            ("innodb_flush_log_at_trx_commit".into(), "2".into()),
        ],
        driver: DriverKind::Builtin,
        driver_workers: 0,
        events: 0,
        out: out.to_path_buf(),
        skip_prepare: false,
        prepare_threads: 2,
        progress: false,
        mix: Mix::default(),
        seed: 3,
        command: "quire bench (test)".into(),
        tpcc: Default::default(),
        tmpdir: Some(tmp.to_path_buf()),
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// Rows of a CSV file as fields, after checking its header.
fn csv_rows(path: &Path, header: &str) -> Vec<Vec<String>> {
    let text = read(path);
    assert!(text.ends_with('\n'), "{} does not end with a newline", path.display());
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header), "{} header", path.display());
    let width = parse_line(header).len();
    lines
        .map(|l| {
            let f = parse_line(l);
            assert_eq!(f.len(), width, "{}: row {l:?} has {} fields, not {width}", path.display(), f.len());
            f
        })
        .collect()
}

fn number(s: &str, what: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("{what}: {s:?} is not a number"))
}

#[test]
fn a_short_run_writes_csv_json_svg_png_and_markdown_that_read_back() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("report");
    let (report, files) = runner::run(&options(&out, tmp.path())).expect("the benchmark runs");
    assert_eq!(report.points.len(), 5, "2 workloads x 2 thread counts + the timeline");
    for f in &files {
        assert!(f.is_file(), "{} listed but missing", f.display());
    }

    // summary.csv: one row per point, numbers where numbers belong.
    let rows = csv_rows(&out.join("summary.csv"), SUMMARY_HEADER);
    assert_eq!(rows.len(), report.points.len());
    let col = |name: &str| parse_line(SUMMARY_HEADER).iter().position(|h| h == name).expect("column");
    for (row, p) in rows.iter().zip(&report.points) {
        assert_eq!(row[col("target")], "quire");
        assert_eq!(row[col("workload")], p.workload.name());
        assert_eq!(number(&row[col("threads")], "threads") as u32, p.threads);
        assert!(number(&row[col("tps")], "tps") > 0.0, "no throughput: {row:?}");
        assert!(number(&row[col("p95_ms")], "p95") > 0.0, "no latency: {row:?}");
        assert!(number(&row[col("events")], "events") >= 1.0);
    }

    // samples.csv: one row per point and second.
    let samples = csv_rows(&out.join("samples.csv"), SAMPLES_HEADER);
    let per_point: usize = report.points.iter().map(|p| p.samples.len()).sum();
    assert_eq!(samples.len(), per_point);
    assert!(report.points.iter().all(|p| !p.samples.is_empty()), "a point without samples");
    let timeline = report.points.iter().find(|p| p.scenario == "timeline").expect("timeline point");
    assert!(timeline.samples.len() >= 2, "2 s timeline has {} samples", timeline.samples.len());

    // results.json: the same report.
    let back: Report = serde_json::from_str(&read(&out.join("results.json"))).expect("results.json decodes");
    assert_eq!(back.points.len(), report.points.len());
    assert_eq!(back.points[0].summary, report.points[0].summary);
    assert_eq!(back.targets[0].label, "quire");
    // The built-in driver's statement counts are whole events' worth.
    for p in &back.points {
        let counts = p.statements.as_ref().expect("builtin driver counts statements");
        let per_event = p.workload.per_event(&Mix::default());
        for (name, n) in per_event.named() {
            assert_eq!(counts[name], n * p.summary.events, "{} {name}", p.workload);
        }
    }

    // Charts: TPS and p95 against threads per workload, TPS over time,
    // and the top-5 waits of each group's highest concurrency where the
    // embedded quire's performance_schema saw waits (the read_write
    // timeline's commits write the redo log: it always has some).
    let svgs: Vec<_> = files.iter().filter(|f| f.extension().is_some_and(|e| e == "svg")).collect();
    let pngs: Vec<_> = files.iter().filter(|f| f.extension().is_some_and(|e| e == "png")).collect();
    let is_waits = |f: &&&std::path::PathBuf| f.to_string_lossy().contains("top-waits-");
    let waits = svgs.iter().filter(is_waits).count();
    assert_eq!(svgs.len() - waits, 5, "{svgs:?}");
    assert!((1..=3).contains(&waits), "{svgs:?}");
    assert!(svgs.iter().any(|f| f.to_string_lossy().contains("top-waits-timeline-read_write-quire-2t")), "{svgs:?}");
    let sampled = back.points.iter().find(|p| p.scenario == "timeline").and_then(|p| p.waits.clone());
    let sampled = sampled.expect("the timeline point has wait samples");
    assert!(!sampled.is_empty() && sampled.iter().all(|s| s.waits.iter().all(|(_, w)| *w > 0.0)));
    assert_eq!(pngs.len(), svgs.len());
    for svg in &svgs {
        let text = read(svg);
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"), "{} is not an SVG", svg.display());
        let longest = text
            .split("<polyline")
            .skip(1)
            .map(|pl| pl.split("points=\"").nth(1).and_then(|p| p.split('"').next()).unwrap_or("").split(' ').count())
            .max()
            .unwrap_or(0);
        assert!(longest >= 2, "{} has no plotted line", svg.display());
        assert!(text.contains("quire"), "{} has no legend", svg.display());
    }
    for png in &pngs {
        let decoder = png::Decoder::new(std::fs::File::open(png).expect("open png"));
        let mut reader = decoder.read_info().expect("PNG header");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("PNG data");
        assert_eq!((info.width, info.height), (900, 520), "{}", png.display());
        let px = &buf[..info.buffer_size()];
        let non_white = px.chunks(3).filter(|c| c.iter().any(|b| *b < 200)).count();
        assert!(non_white > 2000, "{} is nearly blank ({non_white} dark pixels)", png.display());
    }

    // README.md links every chart and has a table per group.
    let md = read(&out.join("README.md"));
    for f in svgs.iter().chain(&pngs) {
        let name = f.file_name().and_then(|n| n.to_str()).expect("name");
        assert!(md.contains(&format!("({name})")), "README.md does not link {name}");
    }
    for heading in
        ["## concurrency: oltp_read_write", "## concurrency: oltp_point_select", "## timeline: oltp_read_write"]
    {
        assert!(md.contains(heading), "README.md lacks {heading:?}");
    }
}

#[test]
fn bad_target_urls_are_refused_with_the_expected_form() {
    for bad in ["localhost:3306", "postgres://u@h/db", "mysql://h:3306/db", "mysql://u@h:70000/db"] {
        let e = TargetSpec::parse(bad).expect_err(bad);
        assert!(e.message.contains(bad), "{e}");
        assert!(e.message.contains("mysql://user:password@host:port/database"), "{e}");
    }
}

#[test]
fn an_unreachable_server_is_named_in_the_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut o = options(&tmp.path().join("report"), tmp.path());
    o.embedded = false;
    o.targets = vec![TargetSpec::parse(&format!("mysql://sb:pw@127.0.0.1:{port}/sbtest")).expect("parses")];
    let e = runner::run(&o).expect_err("nothing listens there");
    let want = format!("cannot connect to mysql://sb@127.0.0.1:{port}/sbtest");
    assert!(e.message.contains(&want), "{e}");
    assert!(e.message.contains("is the server running"), "{e}");
    assert!(!e.message.contains("pw"), "the password leaked: {e}");
    assert!(!tmp.path().join("report").exists(), "a report was written for a run that never started");
}
