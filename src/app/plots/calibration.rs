//! The Calibration page's figures: each parameter's coverage with its
//! binomial interval against the nominal 95 % and the band an honest
//! interval's coverage falls in over this many replications; and the
//! zipper plot (Morris, White and Crowther 2019, fig. 4): every
//! replication's interval drawn about its truth, ranked by how far the
//! truth falls from the estimate, the misses in red at the top, so bias
//! (misses on one side) and too narrow intervals (too many misses) show
//! at a glance.

use egui::{Color32, Ui};
use egui_plot::{
    FilledArea, GridMark, HLine, HoverPosition, Line, MarkerShape, Plot, PlotPoints, Points, VLine,
};

use tenten_engine::study::calibrate::Replication;
use tenten_engine::study::calibrate::summary::Row;

use crate::app::plots::legend::{self, Entry};
use crate::app::widgets::paint;

const NOMINAL: Color32 = Color32::from_rgb(0x55, 0x55, 0x66);
const BAND: Color32 = Color32::from_rgb(0x8a, 0x8f, 0x98);
const TRUTH: Color32 = Color32::from_rgb(0xe0, 0x9a, 0x1f);

fn verdict_color(r: &Row) -> Color32 {
    match r.calibrated() {
        "yes" => paint::OK,
        "no" => paint::BAD,
        _ => paint::WARN,
    }
}

/// The binomial 95 % range of an honest 95 % interval's coverage over `n`
/// replications (normal approximation), in %.
pub fn honest_band(n: usize) -> (f64, f64) {
    let n = n.max(1) as f64;
    let half = 1.96 * (0.95 * 0.05 / n).sqrt();
    (100.0 * (0.95 - half), (100.0 * (0.95 + half)).min(100.0))
}

/// Coverage per parameter, one row each (names on the left axis, so long
/// names never overlap), with its interval as a whisker.
pub fn coverage_plot(ui: &mut Ui, rows: &[Row], replications: usize) {
    let rows: Vec<&Row> = rows.iter().filter(|r| r.with_interval > 0).collect();
    if rows.is_empty() {
        ui.weak("No parameter has an interval to judge.");
        return;
    }
    let (blo, bhi) = honest_band(replications);
    let entries = [
        Entry::line(
            "coverage with its 95 % interval",
            paint::OK,
            egui_plot::LineStyle::Solid,
            Some(MarkerShape::Circle),
        ),
        Entry::line(
            "nominal 95 %",
            NOMINAL,
            egui_plot::LineStyle::Dashed { length: 6.0 },
            None,
        ),
        Entry::block(
            format!("where an honest interval falls over {replications} replications ({blo:.1}-{bhi:.1} %)"),
            BAND.gamma_multiply(0.35),
        ),
    ];
    legend::show(ui, "calibration_coverage", &entries);
    ui.weak("Green: calibrated (90-98 %); red: not (its interval excludes 95 %); amber: too few replications to tell.");
    let names: Vec<String> = rows.iter().map(|r| r.parameter.clone()).collect();
    let n = rows.len();
    let lowest = rows
        .iter()
        .map(|r| r.coverage_ci.0 * 100.0)
        .fold(blo, f64::min)
        .max(0.0);
    let x_min = (lowest / 5.0).floor() * 5.0;
    let names_for_axis = names.clone();
    Plot::new("calibration_coverage")
        .height(40.0 + 26.0 * n as f32)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_zoom(false)
        .x_axis_label("replications whose 95 % interval held the truth (%)")
        .include_x(x_min)
        .include_x(100.0)
        .include_y(-0.6)
        .include_y(n as f64 - 0.4)
        .y_grid_spacer(move |_| (0..n).map(|i| GridMark { value: i as f64, step_size: 1.0 }).collect())
        .y_axis_formatter(move |m, _| {
            let i = m.value.round();
            if (m.value - i).abs() < 1e-6 && i >= 0.0 {
                names_for_axis.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .label_formatter(move |pos| {
            let (HoverPosition::NearDataPoint { position: p, .. } | HoverPosition::Elsewhere { position: p }) = pos;
            let i = p.y.round();
            match names.get(i.max(0.0) as usize) {
                Some(name) if (p.y - i).abs() < 0.4 => Some(format!("{name}\n{:.1} %", p.x)),
                _ => None,
            }
        })
        .show(ui, |plot| {
            let top = n as f64 - 0.4;
            plot.add(
                FilledArea::new("honest band", &[blo, bhi], &[-0.6, -0.6], &[top, top]).fill_color(BAND.gamma_multiply(0.35)),
            );
            plot.add(VLine::new("nominal 95 %", 95.0).color(NOMINAL).style(egui_plot::LineStyle::Dashed { length: 6.0 }));
            for (i, r) in rows.iter().enumerate() {
                let y = i as f64;
                let c = verdict_color(r);
                plot.add(
                    Line::new(
                        r.parameter.clone(),
                        PlotPoints::from(vec![[100.0 * r.coverage_ci.0, y], [100.0 * r.coverage_ci.1, y]]),
                    )
                    .color(c)
                    .width(2.0),
                );
                plot.add(
                    Points::new(r.parameter.clone(), vec![[100.0 * r.coverage, y]])
                        .color(c)
                        .radius(5.0)
                        .shape(MarkerShape::Circle),
                );
            }
        });
}

/// The zipper plot of `parameter`: each replication's interval minus its
/// truth (so the truth is the line at 0), ranked by |estimate - truth| over
/// the interval's half-width; intervals that missed in red.
pub fn zipper_plot(ui: &mut Ui, parameter: &str, replications: &[Replication]) {
    let mut rows: Vec<(f64, f64, f64, f64, usize, bool)> = replications
        .iter()
        .flat_map(|r| r.estimates.iter().map(move |e| (r.index, e)))
        .filter(|(_, e)| {
            e.parameter == parameter && e.has_interval() && e.truth.is_finite() && e.value.is_finite()
        })
        .map(|(i, e)| {
            let half = ((e.hi - e.lo) / 2.0).max(1e-12);
            let z = ((e.value - e.truth) / half).abs();
            (
                z,
                e.lo - e.truth,
                e.hi - e.truth,
                e.value - e.truth,
                i,
                e.covers(),
            )
        })
        .collect();
    if rows.is_empty() {
        ui.weak("No replication gave this parameter an interval.");
        return;
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = rows.len();
    let misses = rows.iter().filter(|r| !r.5).count();
    let entries = [
        Entry::line(
            format!("interval that held the truth ({} of {n})", n - misses),
            paint::HIGHLIGHT,
            egui_plot::LineStyle::Solid,
            None,
        ),
        Entry::line(
            format!("interval that missed ({misses})"),
            paint::BAD,
            egui_plot::LineStyle::Solid,
            None,
        ),
        Entry::line(
            "the truth",
            NOMINAL,
            egui_plot::LineStyle::Dashed { length: 6.0 },
            None,
        ),
    ];
    legend::show(ui, "calibration_zipper", &entries);
    // Open intervals drawn to the edge of what the finite ones span.
    let finite = rows.iter().flat_map(|r| [r.1, r.2]).filter(|x| x.is_finite());
    let (lo, hi) = finite.fold((0.0f64, 0.0f64), |a, x| (a.0.min(x), a.1.max(x)));
    let pad = 0.05 * (hi - lo).max(1e-9);
    let clip = |x: f64| x.clamp(lo - pad, hi + pad);
    let ranked: Vec<[f64; 2]> = rows
        .iter()
        .enumerate()
        .map(|(k, r)| [r.3, 100.0 * (k as f64 + 0.5) / n as f64])
        .collect();
    let info: Vec<(usize, f64, f64)> = rows.iter().map(|r| (r.4, r.1, r.2)).collect();
    Plot::new("calibration_zipper")
        .height(300.0)
        .allow_drag(false)
        .allow_scroll(false)
        .x_axis_label(format!("{parameter}: interval minus the truth"))
        .y_axis_label("rank of |estimate - truth| / half-width (%)")
        .include_y(0.0)
        .include_y(100.0)
        .label_formatter(move |pos| {
            let (HoverPosition::NearDataPoint { position: p, .. } | HoverPosition::Elsewhere { position: p }) = pos;
            let k = ((p.y / 100.0 * n as f64) - 0.5).round().clamp(0.0, n as f64 - 1.0) as usize;
            info.get(k).map(|(i, a, b)| format!("replication {i}\ninterval - truth: {a:.4} to {b:.4}"))
        })
        .show(ui, |plot| {
            plot.add(HLine::new("95th centile", 95.0).color(BAND).style(egui_plot::LineStyle::Dotted { spacing: 4.0 }));
            for (k, r) in rows.iter().enumerate() {
                let y = 100.0 * (k as f64 + 0.5) / n as f64;
                let c = if r.5 { paint::HIGHLIGHT } else { paint::BAD };
                plot.add(Line::new("interval", PlotPoints::from(vec![[clip(r.1), y], [clip(r.2), y]])).color(c).width(1.2));
            }
            plot.add(Points::new("estimate", ranked).color(Color32::from_gray(200)).radius(1.5));
            plot.add(VLine::new("the truth", 0.0).color(TRUTH).width(2.0).style(egui_plot::LineStyle::Dashed { length: 6.0 }));
        });
}
