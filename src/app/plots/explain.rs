//! What the Fit view draws of a model's fit to a log: the criteria weights
//! with their 95 % intervals as bars, the calibration of the moves'
//! predicted chances against the diagonal, and the log's survival against
//! the fitted player's on one plot.

use egui::{Color32, Ui};
use egui_plot::{
    AxisHints, Bar, BarChart, HoverPosition, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points,
};

use tenten_engine::fits::player_check::{Bin, SurvivalCheck};
use tenten_engine::fits::player_value::ValueFit;
use tenten_engine::stats::survival::kaplan_meier;

use crate::app::plots::legend::{self, Entry};
use crate::app::plots::survival::{Rounds, by_rounds, km_curve, step_line};

const BAR: Color32 = Color32::from_rgb(0x31, 0x7b, 0xd6);
const WHISKER: Color32 = Color32::from_rgb(0x40, 0x40, 0x40);
const OBSERVED: Color32 = Color32::from_rgb(0xd0, 0x5a, 0x4a);
const MODEL: Color32 = Color32::from_rgb(0x31, 0x7b, 0xd6);
const DIAGONAL: Color32 = Color32::GRAY;

/// The five criteria, short, in the analysis's order.
pub const CRITERIA: [&str; 5] = ["free cells", "5x5 fits", "large fit", "alignment", "surface"];

/// Each criterion's weight times its range (100 free cells on 10x10, 1
/// for the four shares), so the bars compare how much each can move the
/// odds of a move; whiskers are the 95 % intervals, cut at the plot's edge
/// where the moves do not inform a criterion.
pub fn criteria_bars(ui: &mut Ui, f: &ValueFit, cells: f64) {
    let range = |j: usize| if j == 0 { cells } else { 1.0 };
    let heights: Vec<f64> = (0..5).map(|j| f.beta[j] * range(j)).collect();
    let reach = heights.iter().fold(1.0f64, |m, h| m.max(h.abs())) * 1.5;
    let entries = [
        Entry::block("weight x range (log-odds a move gains)", BAR),
        Entry::line("95 % interval", WHISKER, LineStyle::Solid, None),
    ];
    legend::show(ui, "explain_criteria", &entries);
    let bars: Vec<Bar> = (0..5)
        .map(|j| {
            Bar::new(j as f64, heights[j])
                .width(0.6)
                .name(format!(
                    "{}: β {:.4} (95 % CI {:.4} to {:.4}){}",
                    CRITERIA[j],
                    f.beta[j],
                    f.beta_ci[j].0,
                    f.beta_ci[j].1,
                    if f.free[j] { "" } else { ", held at 0" }
                ))
                .fill(BAR)
        })
        .collect();
    Plot::new("explain_criteria")
        .height(170.0)
        .allow_scroll(false)
        .include_y(-reach.min(heights.iter().cloned().fold(0.0, f64::min) * 1.2 - 0.5))
        .include_y(heights.iter().cloned().fold(0.0, f64::max) * 1.2 + 0.5)
        .x_grid_spacer(|_| {
            (0..5)
                .map(|j| egui_plot::GridMark {
                    value: j as f64,
                    step_size: 1.0,
                })
                .collect()
        })
        .x_axis_formatter(|m, _| {
            CRITERIA
                .get(m.value.round() as usize)
                .map_or(String::new(), |s| (*s).to_owned())
        })
        .custom_y_axes(vec![
            AxisHints::new_y()
                .label("weight x range")
                .label_spacing(14.0..=20.0),
        ])
        .label_formatter(|pos: &HoverPosition<'_>| match pos {
            HoverPosition::NearDataPoint { .. } => None,
            HoverPosition::Elsewhere { position } => Some(format!("{:.2}", position.y)),
        })
        .show(ui, |plot| {
            plot.bar_chart(
                BarChart::new("weights", bars)
                    .color(BAR)
                    .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone())),
            );
            for j in (0..5).filter(|&j| f.free[j]) {
                let (lo, hi) = (
                    (f.beta_ci[j].0 * range(j)).clamp(-reach, reach),
                    (f.beta_ci[j].1 * range(j)).clamp(-reach, reach),
                );
                let x = j as f64;
                for seg in [
                    [[x, lo], [x, hi]],
                    [[x - 0.12, lo], [x + 0.12, lo]],
                    [[x - 0.12, hi], [x + 0.12, hi]],
                ] {
                    plot.line(
                        Line::new(format!("95 % interval {j}"), PlotPoints::from(seg.to_vec()))
                            .color(WHISKER)
                            .width(1.5),
                    );
                }
            }
        });
}

/// Observed share against mean predicted chance per bin, with the
/// diagonal a calibrated model lies on.
pub fn calibration_plot(ui: &mut Ui, bins: &[Bin]) {
    let entries = [
        Entry::line(
            "observed share per bin",
            MODEL,
            LineStyle::Solid,
            Some(MarkerShape::Circle),
        ),
        Entry::line(
            "calibrated (the diagonal)",
            DIAGONAL,
            LineStyle::Dashed { length: 6.0 },
            None,
        ),
    ];
    let hidden = legend::show(ui, "explain_calibration", &entries);
    let points: Vec<[f64; 2]> = bins
        .iter()
        .filter(|b| b.moves > 0)
        .map(|b| [b.predicted, b.observed])
        .collect();
    let moves: Vec<(f64, usize)> = bins
        .iter()
        .filter(|b| b.moves > 0)
        .map(|b| (b.predicted, b.moves))
        .collect();
    Plot::new("explain_calibration")
        .height(200.0)
        .allow_scroll(false)
        .include_x(0.0)
        .include_x(1.0)
        .include_y(0.0)
        .include_y(1.0)
        .custom_x_axes(vec![
            AxisHints::new_x()
                .label("predicted chance of a move")
                .label_spacing(24.0..=40.0),
        ])
        .custom_y_axes(vec![
            AxisHints::new_y().label("share made").label_spacing(14.0..=20.0),
        ])
        .label_formatter(move |pos: &HoverPosition<'_>| match pos {
            HoverPosition::NearDataPoint { position, .. } => {
                let n = moves
                    .iter()
                    .find(|m| (m.0 - position.x).abs() < 1e-9)
                    .map_or(String::new(), |m| format!(" ({} moves)", m.1));
                Some(format!("predicted {:.3}, made {:.3}{n}", position.x, position.y))
            }
            HoverPosition::Elsewhere { position } => Some(format!("{:.2}, {:.2}", position.x, position.y)),
        })
        .show(ui, |plot| {
            if !hidden.contains("calibrated (the diagonal)") {
                plot.line(
                    Line::new(
                        "calibrated (the diagonal)",
                        PlotPoints::from(vec![[0.0, 0.0], [1.0, 1.0]]),
                    )
                    .color(DIAGONAL)
                    .style(LineStyle::Dashed { length: 6.0 }),
                );
            }
            if !hidden.contains("observed share per bin") {
                plot.line(
                    Line::new("observed share per bin", PlotPoints::from(points.clone()))
                        .color(MODEL)
                        .width(1.5),
                );
                plot.points(
                    Points::new("observed share per bin", PlotPoints::from(points))
                        .color(MODEL)
                        .shape(MarkerShape::Circle)
                        .radius(4.0),
                );
            }
        });
}

/// The log's Kaplan-Meier curve and the fitted player's, on one plot.
pub fn survival_check_plot(ui: &mut Ui, s: &SurvivalCheck) {
    let observed = format!("the log's games ({})", s.observed.len());
    let model = format!(
        "the fitted player's games ({}, {})",
        s.simulated.len(),
        s.generator
    );
    let entries = [
        Entry::line(observed.clone(), OBSERVED, LineStyle::Solid, None),
        Entry::line(model.clone(), MODEL, LineStyle::Dashed { length: 6.0 }, None),
    ];
    let hidden = legend::show(ui, "explain_survival", &entries);
    let curve = |games: &[(u32, bool)]| {
        let km = kaplan_meier(games);
        let mut pts = vec![[0.0, 100.0]];
        pts.extend(km_curve(&km.steps, km.last, |s| s.survival));
        pts
    };
    let (a, b) = (curve(&s.observed), curve(&s.simulated));
    // The Lab's survival axes: from 0 rounds and 0 %, ticks that never touch.
    by_rounds(
        "explain_survival",
        200.0,
        "games still on (%)",
        100.0,
        Rounds { log: false },
    )
    .label_formatter(|pos: &HoverPosition<'_>| match pos {
        HoverPosition::NearDataPoint {
            plot_name, position, ..
        } => Some(format!(
            "{plot_name}\nround {:.0}: {:.1} % still on",
            position.x, position.y
        )),
        HoverPosition::Elsewhere { position } => {
            Some(format!("round {:.0}, {:.1} %", position.x, position.y))
        }
    })
    .show(ui, |plot| {
        if !hidden.contains(&observed) {
            plot.line(step_line(observed.clone(), a).color(OBSERVED).width(2.0));
        }
        if !hidden.contains(&model) {
            plot.line(
                step_line(model.clone(), b)
                    .color(MODEL)
                    .width(2.0)
                    .style(LineStyle::Dashed { length: 6.0 }),
            );
        }
    });
}
