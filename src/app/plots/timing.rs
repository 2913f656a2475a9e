//! The timing lab's plots (egui_plot). egui_plot has no log axis, so times
//! are plotted as log10 of nanoseconds and the ticks are labelled in µs and
//! ms. Reference lines: one 60 Hz frame (16.7 ms) and the paper's budget
//! (100 ms); Table II's figures as their own series.

use egui::{Color32, Ui};
use egui_plot::{
    AxisHints, Bar, BarChart, BoxElem, BoxPlot, BoxSpread, GridMark, HLine, HoverPosition, Line, LineStyle,
    MarkerShape, Plot, PlotPoint, Points, VLine, log_grid_spacer, uniform_grid_spacer,
};

use tenten_engine::perf::bench::Stats;
use tenten_engine::perf::throttle::short;
use tenten_engine::perf::timing::{BucketRow, FRAME_US, FactorSummary, Headroom, PHONE_US};

use crate::app::plots::legend::{self, Entry};
use crate::app::plots::ticks;
use crate::app::shell::command::Command;

const VALIDATE: Color32 = Color32::from_rgb(0x31, 0x7b, 0xd6);
const CHANGE: Color32 = Color32::from_rgb(0xe0, 0x8a, 0x1f);
const BUDGET: Color32 = Color32::from_rgb(0xd2, 0x45, 0x3c);

/// Microseconds as the plots' y value: log10 of nanoseconds.
pub fn y_of(us: f64) -> f64 {
    (us.max(1e-3) * 1e3).log10()
}

/// "0.12 µs", "34.5 µs", "1.23 ms", "100 ms": one style for every time.
pub fn fmt_time(us: f64) -> String {
    tenten_engine::text::time(us)
}

fn fmt_y(y: f64) -> String {
    fmt_time(10f64.powf(y) / 1e3)
}

/// Ticks on a log axis: labels only at whole decades (1 µs, 10 µs, ...).
fn decade_label(mark: GridMark, _range: &std::ops::RangeInclusive<f64>) -> String {
    if (mark.value - mark.value.round()).abs() < 1e-9 {
        fmt_y(mark.value)
    } else {
        String::new()
    }
}

/// An x axis with one label per Table II bucket (closer together than
/// egui_plot's default label spacing allows).
fn bucket_axis(names: Vec<&'static str>) -> AxisHints<'static> {
    AxisHints::new_x()
        .label("empty cells (Table II buckets)")
        .label_spacing(24.0..=30.0)
        .formatter(move |mark, _| {
            let i = mark.value.round();
            if (mark.value - i).abs() < 1e-9 && i >= 0.0 {
                names.get(i as usize).map_or(String::new(), |n| (*n).to_owned())
            } else {
                String::new()
            }
        })
}

fn hover_label(pos: &HoverPosition<'_>) -> Option<String> {
    match pos {
        HoverPosition::NearDataPoint {
            plot_name, position, ..
        } => Some(format!(
            "{plot_name}\n{}x: {}",
            short(position.x),
            fmt_y(position.y)
        )),
        // Between the measured factors: one decimal, not a float's sixteen.
        HoverPosition::Elsewhere { position } => Some(format!("{:.1}x: {}", position.x, fmt_y(position.y))),
    }
}

fn budget_lines(ui: &mut egui_plot::PlotUi<'_>) {
    ui.hline(
        HLine::new("16.7 ms: one frame at 60 Hz", y_of(FRAME_US))
            .color(BUDGET.gamma_multiply(0.6))
            .style(LineStyle::dashed_dense()),
    );
    ui.hline(HLine::new("100 ms: the paper's budget", y_of(PHONE_US)).color(BUDGET));
}

type Pick = fn(&Stats) -> f64;

/// The throttle plot's series within one operation: a line style and a
/// marker per percentile (the operation gives the colour).
const PERCENTILES: [(&str, Pick, f32, LineStyle, MarkerShape); 4] = [
    ("p50", |s| s.p50, 1.5, LineStyle::Solid, MarkerShape::Circle),
    (
        "p95",
        |s| s.p95,
        1.5,
        LineStyle::Dashed { length: 10.0 },
        MarkerShape::Square,
    ),
    ("p99", |s| s.p99, 2.5, LineStyle::Solid, MarkerShape::Diamond),
    (
        "max",
        |s| s.max,
        1.0,
        LineStyle::Dotted { spacing: 5.0 },
        MarkerShape::Up,
    ),
];

const OPERATIONS: [(&str, Color32); 2] = [("validate", VALIDATE), ("validate + change", CHANGE)];

/// The throttle plot's legend: every series with its colour, line style and
/// marker.
fn throttle_entries() -> Vec<Entry> {
    OPERATIONS
        .iter()
        .flat_map(|&(what, color)| {
            PERCENTILES.iter().map(move |&(name, _, _, style, marker)| {
                Entry::line(format!("{what} {name}"), color, style, Some(marker))
            })
        })
        .collect()
}

/// Plot 1: p50, p95, p99 and max against the factor, for validate and for
/// validate + change, with the budgets and the p99 headroom marked. A click
/// on a max point opens its deal (the slowest at that factor).
pub fn throttle_plot(
    ui: &mut Ui,
    summaries: &[FactorSummary],
    headroom: (Option<Headroom>, Option<Headroom>),
    cmds: &mut Vec<Command>,
) {
    let percentiles = PERCENTILES;
    let entries = throttle_entries();
    let hidden = legend::show(ui, "timing_throttle", &entries);
    let response = Plot::new("timing_throttle")
        .height(280.0)
        // Ticks spaced by the plot's width: at 800x600 the factors 1 to 20
        // read 0, 5, 10, 15, 20, never two labels run together.
        .custom_x_axes(vec![ticks::value_x_hints("CPU throttle factor (x)")])
        .y_axis_label("time per deal (log)")
        .y_grid_spacer(log_grid_spacer(10))
        .y_axis_formatter(decade_label)
        .label_formatter(hover_label)
        .x_grid_spacer(ticks::whole_x)
        .include_y(y_of(PHONE_US) + 0.3)
        .show(ui, |plot| {
            for ((what, color), stats) in OPERATIONS.into_iter().zip([
                (|s: &FactorSummary| s.validate) as fn(&FactorSummary) -> Stats,
                |s: &FactorSummary| s.change,
            ]) {
                for (name, pick, width, style, marker) in percentiles {
                    let label = format!("{what} {name}");
                    if hidden.contains(&label) {
                        continue;
                    }
                    let points: Vec<[f64; 2]> = summaries
                        .iter()
                        .filter(|s| stats(s).n > 0)
                        .map(|s| [s.factor, y_of(pick(&stats(s)))])
                        .collect();
                    plot.line(
                        Line::new(label.clone(), points.clone())
                            .color(color)
                            .width(width)
                            .style(style),
                    );
                    plot.points(
                        Points::new(label, points)
                            .color(color)
                            .shape(marker)
                            .filled(true)
                            .radius(if name == "max" { 4.0 } else { 3.0 }),
                    );
                }
            }
            budget_lines(plot);
            for (h, name) in [
                (headroom.0, "p99 fits 16.7 ms up to"),
                (headroom.1, "p99 fits 100 ms up to"),
            ] {
                if let Some(h) = h.filter(|h| h.factor <= 25.0) {
                    plot.vline(
                        VLine::new(
                            format!("{name} {}x", tenten_engine::text::figure(h.factor, 2)),
                            h.factor,
                        )
                        .color(BUDGET.gamma_multiply(0.8))
                        .style(LineStyle::dotted_loose()),
                    );
                }
            }
        });
    // A click near a max point opens that factor's slowest deal.
    if response.response.clicked()
        && let Some(pointer) = response.response.interact_pointer_pos()
    {
        let mut best: Option<(f32, usize)> = None;
        for s in summaries {
            for (stats, deal) in [(&s.validate, s.slowest_validate), (&s.change, s.slowest_change)] {
                let (Some(deal), true) = (deal, stats.n > 0) else {
                    continue;
                };
                let at = response
                    .transform
                    .position_from_point(&PlotPoint::new(s.factor, y_of(stats.max)));
                let d = at.distance(pointer);
                if d < 14.0 && best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, deal));
                }
            }
        }
        if let Some((_, deal)) = best {
            cmds.push(Command::OpenLabDeal(deal));
        }
    }
}

/// Plot 2: the paper's Table II and Fig. 5: mean time per empty-cell bucket
/// for validate and validate + change, ours at the chosen factor beside the
/// paper's (milliseconds on a 1-core Android emulator).
pub fn table_ii_plot(ui: &mut Ui, rows: &[BucketRow], factor: f64) {
    let bars = |series: &str, offset: f64, value: &dyn Fn(&BucketRow) -> Option<f64>| -> Vec<Bar> {
        rows.iter()
            .enumerate()
            .filter_map(|(i, r)| {
                value(r).map(|us| {
                    // Bars stand on 10 ns (y = 1), the bottom of the axis.
                    Bar::new(i as f64 + offset, y_of(us) - 1.0)
                        .base_offset(1.0)
                        .width(0.19)
                        .name(format!("{series}\n{} empty cells", r.name))
                })
            })
            .collect()
    };
    let formatter = |bar: &Bar, _: &BarChart| format!("{}: {}", bar.name, fmt_y(bar.value + 1.0));
    let names: Vec<&'static str> = rows.iter().map(|r| r.name).collect();
    let ours = format!("at {}x", short(factor));
    let hidden = legend::show(
        ui,
        "timing_table_ii",
        &[
            Entry::block(format!("validate, ours {ours}"), VALIDATE),
            Entry::block("validate, paper", VALIDATE.gamma_multiply(0.45)),
            Entry::block(format!("validate + change, ours {ours}"), CHANGE),
            Entry::block("validate + change, paper", CHANGE.gamma_multiply(0.45)),
        ],
    );
    Plot::new("timing_table_ii")
        .height(240.0)
        .x_grid_spacer(uniform_grid_spacer(|_| [1.0, 1.0, 1.0]))
        .y_axis_label("mean time (log)")
        .y_grid_spacer(log_grid_spacer(10))
        .y_axis_formatter(decade_label)
        .custom_x_axes(vec![bucket_axis(names)])
        .include_y(y_of(PHONE_US) + 0.3)
        .include_y(1.0)
        .include_x(-0.5)
        .include_x(rows.len() as f64 - 0.5)
        .allow_scroll(false)
        .show(ui, |plot| {
            type Mean = fn(&BucketRow) -> Option<f64>;
            let series: [(String, Color32, f64, Mean); 4] = [
                (format!("validate, ours {ours}"), VALIDATE, -0.3, |r| {
                    (r.validate.n > 0).then_some(r.validate.mean)
                }),
                (
                    "validate, paper".to_owned(),
                    VALIDATE.gamma_multiply(0.45),
                    -0.1,
                    |r| Some(r.paper_validate_ms * 1e3),
                ),
                (format!("validate + change, ours {ours}"), CHANGE, 0.1, |r| {
                    (r.change.n > 0).then_some(r.change.mean)
                }),
                (
                    "validate + change, paper".to_owned(),
                    CHANGE.gamma_multiply(0.45),
                    0.3,
                    |r| r.paper_change_ms.map(|ms| ms * 1e3),
                ),
            ];
            for (name, color, offset, value) in series {
                if hidden.contains(&name) {
                    continue;
                }
                plot.bar_chart(
                    BarChart::new(name.clone(), bars(&name, offset, &value))
                        .color(color)
                        .element_formatter(Box::new(formatter)),
                );
            }
            budget_lines(plot);
        });
}

/// The five-number summary of log times, for a box.
fn spread(samples: &[f64]) -> Option<BoxSpread> {
    if samples.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = samples.iter().map(|&us| y_of(us)).collect();
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    Some(BoxSpread::new(v[0], q(0.25), q(0.5), q(0.75), v[v.len() - 1]))
}

/// Plot 3: the distribution per bucket (boxes from min to max, quartiles
/// and median) at the chosen factor, and the change attempts per deal.
pub fn distribution_plots(ui: &mut Ui, rows: &[BucketRow], attempts: &[usize]) {
    let names: Vec<&'static str> = rows.iter().map(|r| r.name).collect();
    let hidden = legend::show(
        ui,
        "timing_distribution",
        &[
            Entry::block("validate", VALIDATE),
            Entry::block("validate + change", CHANGE),
        ],
    );
    Plot::new("timing_distribution")
        .height(220.0)
        .x_grid_spacer(uniform_grid_spacer(|_| [1.0, 1.0, 1.0]))
        .y_axis_label("time per deal (log)")
        .y_grid_spacer(log_grid_spacer(10))
        .y_axis_formatter(decade_label)
        .custom_x_axes(vec![bucket_axis(names)])
        .include_y(y_of(FRAME_US) + 0.3)
        .include_x(-0.5)
        .include_x(rows.len() as f64 - 0.5)
        .allow_scroll(false)
        .show(ui, |plot| {
            for (name, color, offset, samples) in [
                (
                    "validate",
                    VALIDATE,
                    -0.2,
                    (|r: &BucketRow| &r.validate_samples) as fn(&BucketRow) -> &Vec<f64>,
                ),
                ("validate + change", CHANGE, 0.2, |r: &BucketRow| {
                    &r.change_samples
                }),
            ] {
                if hidden.contains(name) {
                    continue;
                }
                let boxes: Vec<BoxElem> = rows
                    .iter()
                    .enumerate()
                    .filter_map(|(i, r)| {
                        spread(samples(r)).map(|s| {
                            BoxElem::new(i as f64 + offset, s).box_width(0.3).name(format!(
                                "{} (n = {})",
                                r.name,
                                samples(r).len()
                            ))
                        })
                    })
                    .collect();
                plot.box_plot(BoxPlot::new(name, boxes).color(color).element_formatter(Box::new(
                    |e: &BoxElem, _: &BoxPlot| {
                        let s = &e.spread;
                        format!(
                            "{}\nmax {}\nq3 {}\nmedian {}\nq1 {}\nmin {}",
                            e.name,
                            fmt_y(s.upper_whisker),
                            fmt_y(s.quartile3),
                            fmt_y(s.median),
                            fmt_y(s.quartile1),
                            fmt_y(s.lower_whisker)
                        )
                    },
                )));
            }
            plot.hline(
                HLine::new("16.7 ms: one frame at 60 Hz", y_of(FRAME_US))
                    .color(BUDGET.gamma_multiply(0.6))
                    .style(LineStyle::dashed_dense()),
            );
        });
    // Change attempts per unsolvable deal.
    let most = attempts.iter().copied().max().unwrap_or(0);
    let mut counts = vec![0usize; most + 1];
    for &a in attempts {
        counts[a] += 1;
    }
    let bars: Vec<Bar> = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(a, &c)| {
            Bar::new(a as f64, c as f64)
                .width(0.8)
                .name(format!("{a} attempts"))
        })
        .collect();
    Plot::new("timing_attempts")
        .height(150.0)
        .x_axis_label("holders the changer tried after the dealt one")
        .y_axis_label("unsolvable deals")
        .include_y(0.0)
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.bar_chart(BarChart::new("change attempts per unsolvable deal", bars).color(CHANGE));
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::plots::legend::Swatch;

    #[test]
    fn every_throttle_series_looks_different_in_the_legend() {
        let entries = throttle_entries();
        assert_eq!(entries.len(), 8);
        for (i, a) in entries.iter().enumerate() {
            for b in &entries[i + 1..] {
                assert!(
                    (a.color, a.swatch) != (b.color, b.swatch),
                    "{} and {} are drawn alike",
                    a.name,
                    b.name
                );
                // Within one colour, the markers alone tell the percentiles apart.
                if a.color == b.color {
                    let marker = |e: &Entry| match e.swatch {
                        Swatch::Line(_, m) => m,
                        Swatch::Block => None,
                    };
                    assert_ne!(marker(a), marker(b), "{} and {}", a.name, b.name);
                }
            }
        }
    }
}
