//! Charts like the seeds': TPS and p95 latency against client threads (x on
//! a log2 scale, one line per target, or per target and setting), and TPS
//! over time at one concurrency, where a stall shows as a dip. Each chart
//! is drawn twice from the same [`ChartSpec`]: SVG (plotters' SVG backend)
//! and PNG (its bitmap backend).
//!
//! Text is rendered with a bundled subset of DejaVu Sans
//! (`assets/DejaVuSans-subset.ttf`, license beside it) through plotters'
//! `ab_glyph` backend, so no system font is needed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{slug, Point, Report};
use crate::error::{Error, Result};

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans-subset.ttf");
const FONT_NAME: &str = "sans-serif";
const SIZE: (u32, u32) = (900, 520);
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// One line of a chart.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    /// (x, y); x is the thread count or the second.
    pub points: Vec<(f64, f64)>,
}

/// What to draw.
#[derive(Debug, Clone)]
pub struct ChartSpec {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// x is a thread count: log2 scale, ticks at powers of two.
    pub log2_x: bool,
    pub series: Vec<Series>,
}

/// A chart written to disk.
#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    /// `tps-vs-threads`, `p95-vs-threads`, `tps-over-time` or `top-waits`.
    pub kind: &'static str,
    pub scenario: String,
    /// The workload's short name (`read_write`).
    pub workload: String,
    pub svg: PathBuf,
    pub png: PathBuf,
}

fn register_font() -> Result<()> {
    static ONCE: Once = Once::new();
    let mut ok = true;
    ONCE.call_once(|| ok = plotters::style::register_font(FONT_NAME, FontStyle::Normal, FONT).is_ok());
    if ok {
        Ok(())
    } else {
        Err(Error::new("the bundled chart font does not load"))
    }
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, spec: &ChartSpec) -> std::result::Result<(), String> {
    let e = |x: &dyn std::fmt::Debug| format!("{x:?}");
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let all: Vec<(f64, f64)> = spec.series.iter().flat_map(|s| s.points.iter().copied()).collect();
    let tx = |x: f64| if spec.log2_x { x.max(1e-9).log2() } else { x };
    let (mut x0, mut x1) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(tx(p.0)), b.max(tx(p.0))));
    if all.is_empty() {
        (x0, x1) = (0.0, 1.0);
    }
    if !spec.log2_x {
        x0 = x0.min(0.0);
    }
    if x1 - x0 < 1e-9 {
        (x0, x1) = (x0 - 1.0, x1 + 1.0);
    }
    let pad = if spec.log2_x { 0.25 } else { 0.0 };
    let y1 = all.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.12;
    let mut chart = ChartBuilder::on(&root)
        .caption(&spec.title, (FONT_NAME, 22))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..y1)
        .map_err(|x| e(&x))?;
    let log2 = spec.log2_x;
    let x_fmt = move |v: &f64| {
        if !log2 {
            return if (v - v.round()).abs() < 1e-6 { format!("{v:.0}") } else { format!("{v:.1}") };
        }
        if (v - v.round()).abs() < 1e-6 {
            format!("{}", 2f64.powf(v.round()) as u64)
        } else {
            String::new()
        }
    };
    let y_fmt = |v: &f64| {
        if *v >= 10_000.0 {
            format!("{:.0}k", v / 1000.0)
        } else if *v >= 10.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    };
    let ticks = if log2 { (x1 - x0).round() as usize + 1 } else { 10 };
    chart
        .configure_mesh()
        .x_desc(&spec.x_label)
        .y_desc(&spec.y_label)
        .x_labels(ticks.max(2))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style((FONT_NAME, 14))
        .axis_desc_style((FONT_NAME, 15))
        .max_light_lines(0)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(|x| e(&x))?;
    for (i, s) in spec.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let pts: Vec<(f64, f64)> = s.points.iter().map(|(x, y)| (tx(*x), *y)).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(3)));
        if log2 || pts.len() <= 2 {
            chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, colour.filled()))).map_err(|x| e(&x))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .label_font((FONT_NAME, 14))
        .draw()
        .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))?;
    Ok(())
}

/// Draws `spec` as `<dir>/<name>.svg` and `<dir>/<name>.png`.
pub fn render(spec: &ChartSpec, dir: &Path, name: &str) -> Result<(PathBuf, PathBuf)> {
    register_font()?;
    let svg = dir.join(format!("{name}.svg"));
    let png = dir.join(format!("{name}.png"));
    draw(SVGBackend::new(&svg, SIZE).into_drawing_area(), spec)
        .map_err(|e| Error::new(format!("cannot draw {}: {e}", svg.display())))?;
    draw(BitMapBackend::new(&png, SIZE).into_drawing_area(), spec)
        .map_err(|e| Error::new(format!("cannot draw {}: {e}", png.display())))?;
    Ok((svg, png))
}

/// The line's name: the target, and the setting when there is one.
fn series_name(p: &Point) -> String {
    match &p.setting {
        Some(s) => format!("{} {}={}", p.target, s.variable.trim_start_matches("innodb_"), s.label),
        None => p.target.clone(),
    }
}

/// Charts for every group of points in `r`.
pub fn write_all(r: &Report, dir: &Path) -> Result<Vec<Chart>> {
    // (scenario, workload) -> points, in measurement order.
    let mut groups: BTreeMap<(String, String), Vec<&Point>> = BTreeMap::new();
    for p in &r.points {
        groups.entry((p.scenario.clone(), p.workload.name().to_string())).or_default().push(p);
    }
    let mut out = Vec::new();
    for ((scenario, workload), points) in groups {
        let script = points.first().map_or_else(|| format!("oltp_{workload}"), |p| p.workload.script());
        let mut lines: Vec<(String, Vec<&Point>)> = Vec::new();
        for p in &points {
            let name = series_name(p);
            match lines.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.push(p),
                None => lines.push((name, vec![p])),
            }
        }
        let threads: std::collections::BTreeSet<u32> = points.iter().map(|p| p.threads).collect();
        let base = format!("{}-{}", slug(&scenario), slug(&workload));
        if scenario != "timeline" && !threads.is_empty() {
            let by = points.iter().find_map(|p| p.setting.as_ref()).map(|s| format!(" by {}", s.variable));
            let by = by.unwrap_or_default();
            for (kind, y_label, pick) in [
                ("tps-vs-threads", "transactions per second", (|p: &Point| p.summary.tps) as fn(&Point) -> f64),
                ("p95-vs-threads", "95th percentile latency (ms)", |p: &Point| p.summary.p95_ms),
            ] {
                let what = if kind == "tps-vs-threads" { "TPS" } else { "p95 latency" };
                let spec = ChartSpec {
                    title: format!("{script}: {what} against client threads{by}"),
                    x_label: "client threads".into(),
                    y_label: y_label.into(),
                    log2_x: true,
                    series: lines
                        .iter()
                        .map(|(n, ps)| Series {
                            name: n.clone(),
                            points: ps.iter().map(|p| (f64::from(p.threads), pick(p))).collect(),
                        })
                        .collect(),
                };
                let (svg, png) = render(&spec, dir, &format!("{kind}-{base}"))?;
                out.push(Chart {
                    title: spec.title,
                    kind,
                    scenario: scenario.clone(),
                    workload: workload.clone(),
                    svg,
                    png,
                });
            }
        }
        // TPS over time: the timeline scenario's points, or a settings
        // scenario's points at its highest concurrency.
        let at = match threads.iter().next_back() {
            Some(t) if scenario == "timeline" || points.iter().any(|p| p.setting.is_some()) => *t,
            _ => continue,
        };
        let spec = ChartSpec {
            title: format!("{script} at {at} threads: TPS over time"),
            x_label: "seconds".into(),
            y_label: "transactions per second".into(),
            log2_x: false,
            series: lines
                .iter()
                .filter_map(|(n, ps)| ps.iter().find(|p| p.threads == at).map(|p| (n, p)))
                .map(|(n, p)| Series {
                    name: n.clone(),
                    points: p.samples.iter().map(|s| (f64::from(s.second), s.tps)).collect(),
                })
                .collect(),
        };
        let (svg, png) = render(&spec, dir, &format!("tps-over-time-{base}-{at}t"))?;
        out.push(Chart {
            title: spec.title,
            kind: "tps-over-time",
            scenario: scenario.clone(),
            workload: workload.clone(),
            svg,
            png,
        });
    }
    out.extend(waits_charts(r, dir)?);
    Ok(out)
}

/// Seed 000's figure: for each target, scenario and workload, at its
/// highest concurrency, the five instruments waited on longest, as
/// seconds waited per second over the run.
fn waits_charts(r: &Report, dir: &Path) -> Result<Vec<Chart>> {
    let mut highest: BTreeMap<(String, String, String), &Point> = BTreeMap::new();
    for p in r.points.iter().filter(|p| p.waits.as_ref().is_some_and(|w| !w.is_empty())) {
        let k = (p.scenario.clone(), p.workload.name().to_string(), series_name(p));
        if highest.get(&k).is_none_or(|q| q.threads < p.threads) {
            highest.insert(k, p);
        }
    }
    let mut out = Vec::new();
    for ((scenario, workload, line), p) in highest {
        let seconds = p.waits.as_deref().unwrap_or_default();
        let top = crate::waits::top(seconds, 5);
        if top.is_empty() {
            continue;
        }
        let spec = ChartSpec {
            title: format!("{line}, {} at {} threads: top-5 waits", p.workload.script(), p.threads),
            x_label: "seconds".into(),
            y_label: "seconds waited per second".into(),
            log2_x: false,
            series: top
                .iter()
                .map(|(name, _)| Series {
                    name: name.clone(),
                    points: seconds
                        .iter()
                        .map(|s| {
                            let w = s.waits.iter().find(|(n, _)| n == name).map_or(0.0, |(_, w)| *w);
                            (f64::from(s.second), w)
                        })
                        .collect(),
                })
                .collect(),
        };
        let name = format!("top-waits-{}-{}-{}-{}t", slug(&scenario), slug(&workload), slug(&line), p.threads);
        let (svg, png) = render(&spec, dir, &name)?;
        out.push(Chart { title: spec.title, kind: "top-waits", scenario, workload, svg, png });
    }
    Ok(out)
}
