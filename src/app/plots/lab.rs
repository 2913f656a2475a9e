//! The generator lab's plots (egui_plot; survival and hazard in
//! `survival.rs`): ends by kind,
//! observed against target piece frequencies, and the distortion by board
//! fill band. Every series is named, every axis labelled, and hovering a
//! point or a bar says its value.

use egui::{Color32, Ui};
use egui_plot::{
    AxisHints, Bar, BarChart, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points, uniform_grid_spacer,
};

use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::game::BANDS;
use tenten_engine::study::runner;

use crate::app::jobs::lab::GeneratorResults;
use crate::app::plots::legend::{self, Entry};
use crate::app::plots::ticks;
use crate::app::widgets::paint;

/// One colour per generator, by name, the same in every plot and the table.
pub fn generator_color(name: &str) -> Color32 {
    match name {
        "random" => Color32::from_rgb(0x8c, 0x8c, 0x9c),
        "repair" => Color32::from_rgb(0x2e, 0xa0, 0x5a),
        "reject" => Color32::from_rgb(0x7e, 0x57, 0xc2),
        "bag" => Color32::from_rgb(0xe0, 0x8a, 0x1f),
        // Generator files and the one being edited: one of a few more
        // colours, the same for a name every time.
        other => {
            const MORE: [Color32; 5] = [
                Color32::from_rgb(0x31, 0x7b, 0xd6),
                Color32::from_rgb(0xd6, 0x4f, 0x8c),
                Color32::from_rgb(0x1f, 0xb5, 0xb0),
                Color32::from_rgb(0xb8, 0x8a, 0x4a),
                Color32::from_rgb(0x9c, 0xc1, 0x3a),
            ];
            let h = other
                .bytes()
                .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
            MORE[h as usize % MORE.len()]
        }
    }
}

/// The band names of `game::BANDS`.
pub const BAND_NAMES: [&str; BANDS] = ["0-20 %", "20-40 %", "40-60 %", "60-80 %", "80-100 %"];

/// An axis with a name at each whole number (generators, pieces, bands).
fn named_axis(axis: AxisHints<'static>, label: &'static str, names: Vec<String>) -> AxisHints<'static> {
    axis.label(label)
        .label_spacing(12.0..=14.0)
        .formatter(move |mark, _| {
            let i = mark.value.round();
            if (mark.value - i).abs() < 1e-9 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
}

/// A plot of one row per piece (the set's order, top to bottom) against a
/// share in percent from 0 to `right`, its hover saying the value.
pub fn piece_rows_plot(
    id: &'static str,
    names: Vec<String>,
    x_label: &'static str,
    right: f64,
) -> Plot<'static> {
    let n = names.len();
    Plot::new(id)
        .height(30.0 + 21.0 * n as f32)
        .y_grid_spacer(uniform_grid_spacer(|_| [1.0, 1.0, 1.0]))
        .custom_y_axes(vec![named_axis(AxisHints::new_y(), "piece", names)])
        .custom_x_axes(vec![ticks::value_x_hints(x_label)])
        .x_grid_spacer(ticks::decimal_x)
        .set_margin_fraction(egui::vec2(0.0, 0.0))
        .include_x(0.0)
        .include_x(right)
        .include_y(-0.5)
        .include_y(n as f64 - 0.5)
        .allow_scroll(false)
        .label_formatter(|pos: &egui_plot::HoverPosition<'_>| match pos {
            egui_plot::HoverPosition::NearDataPoint {
                plot_name, position, ..
            } => Some(format!("{plot_name}\n{:.2} %", position.x)),
            egui_plot::HoverPosition::Elsewhere { .. } => None,
        })
}

/// Plot 2: how games ended, per generator: unfair (red: the dealt holder
/// was unsolvable), stuck, dead, and censored at the round cap.
pub fn ends_plot(ui: &mut Ui, results: &[GeneratorResults]) {
    let names: Vec<String> = results.iter().map(|r| r.name.clone()).collect();
    type Count = fn(&runner::Summary) -> usize;
    let kinds: [(&str, Color32, Count); 4] = [
        ("unfair: unsolvable holder dealt", paint::BAD, |s| s.unfair),
        ("stuck: the strategy failed", paint::WARN, |s| s.stuck),
        ("dead: no holder fits", Color32::from_gray(110), |s| s.dead),
        (
            "censored at the round cap",
            Color32::from_rgb(0x31, 0x7b, 0xd6),
            |s| s.censored,
        ),
    ];
    let most = results.iter().map(|r| r.summary.games).max().unwrap_or(1) as f64;
    let entries: Vec<Entry> = kinds
        .iter()
        .map(|(kind, color, _)| Entry::block(*kind, *color))
        .collect();
    let hidden = legend::show(ui, "lab_ends", &entries);
    Plot::new("lab_ends")
        .height(220.0)
        .x_grid_spacer(uniform_grid_spacer(|_| [1.0, 1.0, 1.0]))
        .custom_x_axes(vec![named_axis(AxisHints::new_x(), "generator", names)])
        .custom_y_axes(vec![AxisHints::new_y().label("games").label_spacing(14.0..=20.0)])
        .include_x(-0.5)
        .include_x(results.len() as f64 - 0.5)
        .include_y(0.0)
        .include_y(most * 1.05)
        .allow_scroll(false)
        .show(ui, |plot| {
            for (k, (kind, color, count)) in kinds.iter().enumerate() {
                if hidden.contains(*kind) {
                    continue;
                }
                let bars: Vec<Bar> = results
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        Bar::new(i as f64 - 0.3 + 0.2 * k as f64, count(&r.summary) as f64)
                            .width(0.18)
                            .name(format!("{}: {kind}", r.name))
                    })
                    .collect();
                plot.bar_chart(
                    BarChart::new(*kind, bars)
                        .color(*color)
                        .element_formatter(Box::new(|bar, _| format!("{}\n{} games", bar.name, bar.value))),
                );
            }
        });
}

/// Observed against target piece frequencies as a dot plot: a row per
/// piece, the weights' share as a grey tick, each generator's observed
/// share as a dot in its legend colour and marker (offset a little within
/// the row, so four generators stay apart).
pub fn frequency_plot(ui: &mut Ui, results: &[GeneratorResults], set: &PieceSet) {
    const MARKERS: [MarkerShape; 6] = [
        MarkerShape::Circle,
        MarkerShape::Diamond,
        MarkerShape::Square,
        MarkerShape::Up,
        MarkerShape::Down,
        MarkerShape::Cross,
    ];
    let n_pieces = set.pieces.len();
    // Top to bottom in the set's order: piece i at y = n - 1 - i.
    let y_of = |i: usize| (n_pieces - 1 - i) as f64;
    let names: Vec<String> = (0..n_pieces).rev().map(|i| set.pieces[i].id.clone()).collect();
    let total_weight = set.total_weight().max(1) as f64;
    let played: Vec<&GeneratorResults> = results
        .iter()
        .filter(|r| r.summary.dealt.iter().flatten().sum::<u64>() > 0)
        .collect();
    // Each played generator's share of every piece, in percent, once.
    let shares: Vec<Vec<f64>> = played
        .iter()
        .map(|r| {
            let n: u64 = r.summary.dealt.iter().flatten().sum();
            (0..n_pieces)
                .map(|i| {
                    r.summary
                        .dealt
                        .get(i)
                        .map_or(0.0, |b| b.iter().sum::<u64>() as f64 / n.max(1) as f64 * 100.0)
                })
                .collect()
        })
        .collect();
    let most = set
        .pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let observed = shares.iter().map(|s| s[i]).fold(0.0, f64::max);
            (f64::from(p.weight) / total_weight * 100.0).max(observed)
        })
        .fold(0.0, f64::max);
    const TARGET: &str = "target (the weights)";
    let mut entries = vec![Entry::line(
        TARGET,
        Color32::from_gray(150),
        LineStyle::Solid,
        None,
    )];
    entries.extend(played.iter().enumerate().map(|(j, r)| {
        Entry::line(
            format!("{} observed", r.name),
            generator_color(&r.name),
            LineStyle::Dotted { spacing: 40.0 },
            Some(MARKERS[j % MARKERS.len()]),
        )
    }));
    let hidden = legend::show(ui, "lab_frequencies", &entries);
    let spread = 0.56 / played.len().max(1) as f64;
    piece_rows_plot("lab_frequencies", names, "share of pieces dealt (%)", most * 1.1).show(ui, |plot| {
        if !hidden.contains(TARGET) {
            for (i, p) in set.pieces.iter().enumerate() {
                let t = f64::from(p.weight) / total_weight * 100.0;
                let y = y_of(i);
                plot.line(
                    Line::new(
                        format!("{}: target, weight {}", p.id, p.weight),
                        PlotPoints::from(vec![[t, y - 0.4], [t, y + 0.4]]),
                    )
                    .color(Color32::from_gray(150))
                    .width(2.5),
                );
            }
        }
        for (j, r) in played.iter().enumerate() {
            let name = format!("{} observed", r.name);
            if hidden.contains(&name) {
                continue;
            }
            let dy = (j as f64 - (played.len() as f64 - 1.0) / 2.0) * spread;
            let dots: Vec<[f64; 2]> = (0..n_pieces).map(|i| [shares[j][i], y_of(i) + dy]).collect();
            plot.points(
                Points::new(name, PlotPoints::from(dots))
                    .shape(MARKERS[j % MARKERS.len()])
                    .radius(4.0)
                    .filled(true)
                    .color(generator_color(&r.name)),
            );
        }
    });
}

/// Share of the pieces dealt in each fill band that are small (at most
/// `SMALL` cells), and the weights' share.
pub const SMALL: usize = 3;

pub fn small_share(r: &GeneratorResults, set: &PieceSet) -> [Option<f64>; BANDS] {
    let by_band = &r.summary.dealt;
    let mut out = [None; BANDS];
    for (b, o) in out.iter_mut().enumerate() {
        let all: u64 = by_band.iter().map(|p| p[b]).sum();
        let small: u64 = by_band
            .iter()
            .zip(&set.pieces)
            .filter(|(_, p)| p.size() <= SMALL)
            .map(|(c, _)| c[b])
            .sum();
        if all > 0 {
            *o = Some(small as f64 / all as f64 * 100.0);
        }
    }
    out
}

pub fn small_target(set: &PieceSet) -> f64 {
    let small: u32 = set
        .pieces
        .iter()
        .filter(|p| p.size() <= SMALL)
        .map(|p| p.weight)
        .sum();
    f64::from(small) / f64::from(set.total_weight().max(1) as u32) * 100.0
}

/// Plot 4: the distortion by fill band: the share of small pieces dealt on
/// boards of each fill, per generator, against the weights' share (the
/// repair swaps in small pieces on crowded boards; this is how much).
pub fn distortion_plot(ui: &mut Ui, results: &[GeneratorResults], set: &PieceSet) {
    let names: Vec<String> = BAND_NAMES
        .iter()
        .map(|s| s.trim_end_matches(" %").to_string())
        .collect();
    let width = 0.8 / results.len().max(1) as f64;
    let target = small_target(set);
    let weights = format!("the weights: {target:.1} %");
    let mut entries = vec![Entry::line(
        weights.clone(),
        Color32::from_gray(150),
        egui_plot::LineStyle::dashed_dense(),
        None,
    )];
    entries.extend(
        results
            .iter()
            .map(|r| Entry::block(r.name.clone(), generator_color(&r.name))),
    );
    let hidden = legend::show(ui, "lab_distortion", &entries);
    Plot::new("lab_distortion")
        .height(200.0)
        .x_grid_spacer(uniform_grid_spacer(|_| [1.0, 1.0, 1.0]))
        .custom_x_axes(vec![named_axis(
            AxisHints::new_x(),
            "board filled when dealt (%)",
            names,
        )])
        .y_axis_label(format!("pieces of 1-{SMALL} cells (%)"))
        .include_y(0.0)
        .include_y(100.0)
        .include_x(-0.5)
        .include_x(BANDS as f64 - 0.5)
        .allow_scroll(false)
        .show(ui, |plot| {
            if !hidden.contains(&weights) {
                plot.hline(
                    egui_plot::HLine::new(weights.clone(), target)
                        .color(Color32::from_gray(150))
                        .style(egui_plot::LineStyle::dashed_dense()),
                );
            }
            for (j, r) in results.iter().enumerate() {
                if hidden.contains(&r.name) {
                    continue;
                }
                let kl = r.summary.kl_by_band;
                let dealt = r.summary.dealt_by_band;
                let bars: Vec<Bar> = small_share(r, set)
                    .iter()
                    .enumerate()
                    .filter_map(|(b, share)| {
                        share.map(|s| {
                            Bar::new(b as f64 - 0.4 + width * (j as f64 + 0.5), s)
                                .width(width * 0.9)
                                .name(format!(
                                    "{} on boards {} full\n{} pieces dealt, KL {:.4} nats",
                                    r.name, BAND_NAMES[b], dealt[b], kl[b]
                                ))
                        })
                    })
                    .collect();
                plot.bar_chart(
                    BarChart::new(r.name.clone(), bars)
                        .color(generator_color(&r.name))
                        .element_formatter(Box::new(|bar, _| {
                            format!("{}\nsmall pieces: {:.1} %", bar.name, bar.value)
                        })),
                );
            }
        });
}
