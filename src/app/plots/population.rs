//! The Population view's figures: the testers of a fitted population
//! (temperature against slip, each tester's own fit and its shrunken
//! estimate, and the population's ellipses), and a forecast's reach curves,
//! one per generator with its 95 % band, a pinned forecast dashed and the
//! checked logs' observed curve dotted.

use egui::{Color32, Ui};
use egui_plot::{FilledArea, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points};

use tenten_engine::fits::population::file::Population;
use tenten_engine::fits::population::fit::PopulationFit;
use tenten_engine::fits::population::quit::logistic;

use crate::app::jobs::population::ForecastResult;
use crate::app::plots::lab::generator_color;
use crate::app::plots::legend::{self, Entry};
use crate::app::plots::survival::{Rounds, by_rounds, hover, step_line};
use crate::app::plots::ticks;

const OWN: Color32 = Color32::from_rgb(0x9a, 0x9a, 0xa8);
const SHRUNK: Color32 = Color32::from_rgb(0x31, 0x7b, 0xd6);
const ELLIPSE: Color32 = Color32::from_rgb(0xd6, 0x5f, 0x31);

/// The population's ellipse at `k` spreads: in (ln temperature, logit
/// slip), where the population is normal, mapped back to (ln temperature,
/// slip in %).
fn ellipse(p: &Population, k: f64) -> Vec<[f64; 2]> {
    let Some(t) = p.temperature else {
        return Vec::new();
    };
    let (mu_t, sd_t) = (t.median.ln(), t.log_sd);
    let mu_s = tenten_engine::fits::population::quit::logit(p.slip.median.clamp(1e-9, 1.0 - 1e-9));
    let sd_s = p.slip.logit_sd;
    (0..=96)
        .map(|i| {
            let a = std::f64::consts::TAU * f64::from(i) / 96.0;
            [
                mu_t + k * sd_t * a.cos(),
                100.0 * logistic(mu_s + k * sd_s * a.sin()),
            ]
        })
        .collect()
}

/// Marks at round temperatures (0.1, 0.2, 0.5, 1, 2, 5, ... and the
/// steps between when the range is narrow) on the log axis.
fn temperature_marks(input: egui_plot::GridInput) -> Vec<egui_plot::GridMark> {
    let (lo, hi) = input.bounds;
    let narrow = hi - lo < 2.5;
    let mut out = Vec::new();
    for decade in [0.01, 0.1, 1.0, 10.0, 100.0] {
        let steps: &[f64] = if narrow {
            &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]
        } else {
            &[1.0, 2.0, 5.0]
        };
        for &m in steps {
            let v = (decade * m).ln();
            if v >= lo && v <= hi {
                out.push(egui_plot::GridMark {
                    value: v,
                    step_size: if m == 1.0 { 1.0 } else { 0.3 },
                });
            }
        }
    }
    out
}

/// Each tester of a rank population: its own fit and its shrunken
/// estimate (temperature on a log axis, slip in %), and the population's
/// 1- and 2-spread ellipses.
pub fn testers_plot(ui: &mut Ui, fit: &PopulationFit) {
    let fitted = fit.population.fitted.as_ref();
    let testers = fitted.map(|f| f.per_tester.as_slice()).unwrap_or_default();
    let own: Vec<[f64; 2]> = testers
        .iter()
        .filter(|t| t.estimate.len() == 2)
        .map(|t| [t.estimate[0].max(1e-3).ln(), 100.0 * t.estimate[1]])
        .collect();
    let shrunk: Vec<[f64; 2]> = testers
        .iter()
        .filter(|t| t.shrunk.len() == 2)
        .map(|t| [t.shrunk[0].max(1e-3).ln(), 100.0 * t.shrunk[1]])
        .collect();
    let names = [
        format!("each tester's own fit ({})", own.len()),
        "shrunken toward the population".to_owned(),
        "population: 1 and 2 spreads".to_owned(),
    ];
    let entries = [
        Entry::line(names[0].clone(), OWN, LineStyle::Solid, Some(MarkerShape::Circle)),
        Entry::line(
            names[1].clone(),
            SHRUNK,
            LineStyle::Solid,
            Some(MarkerShape::Diamond),
        ),
        Entry::line(names[2].clone(), ELLIPSE, LineStyle::Solid, None),
    ];
    let hidden = legend::show(ui, "population_testers", &entries);
    Plot::new("population_testers")
        .height(220.0)
        .custom_x_axes(vec![
            egui_plot::AxisHints::new_x()
                .label("temperature (log scale)")
                .formatter(|m, _| format!("{}", (m.value.exp() * 100.0).round() / 100.0)),
        ])
        .x_grid_spacer(temperature_marks)
        .custom_y_axes(vec![ticks::y_hints("slip (% of placements)")])
        .include_y(0.0)
        .allow_scroll(false)
        .label_formatter(|pos: &egui_plot::HoverPosition<'_>| {
            let (egui_plot::HoverPosition::NearDataPoint { position, .. }
            | egui_plot::HoverPosition::Elsewhere { position }) = pos;
            let what = match pos {
                egui_plot::HoverPosition::NearDataPoint { plot_name, .. } => format!("{plot_name}\n"),
                egui_plot::HoverPosition::Elsewhere { .. } => String::new(),
            };
            Some(format!(
                "{what}temperature {:.3}, slip {:.2} %",
                position.x.exp(),
                position.y
            ))
        })
        .show(ui, |plot| {
            if !hidden.contains(&names[2]) {
                for k in [1.0, 2.0] {
                    plot.line(
                        Line::new(names[2].clone(), PlotPoints::from(ellipse(&fit.population, k)))
                            .color(ELLIPSE)
                            .width(if k == 1.0 { 2.0 } else { 1.0 }),
                    );
                }
            }
            if !hidden.contains(&names[0]) {
                plot.points(
                    Points::new(names[0].clone(), own)
                        .color(OWN)
                        .radius(2.5)
                        .shape(MarkerShape::Circle),
                );
            }
            if !hidden.contains(&names[1]) {
                plot.points(
                    Points::new(names[1].clone(), shrunk)
                        .color(SHRUNK)
                        .radius(2.5)
                        .shape(MarkerShape::Diamond),
                );
            }
        });
}

/// The share of games reaching each round (in %), one curve per generator
/// with its 95 % band; a pinned forecast dashed, the checked logs dotted.
pub fn reach_plot(ui: &mut Ui, result: &ForecastResult, pinned: Option<&ForecastResult>) {
    let rounds = Rounds { log: false };
    let dashed = LineStyle::Dashed { length: 8.0 };
    let dotted = LineStyle::Dotted { spacing: 5.0 };
    let mut entries: Vec<Entry> = Vec::new();
    for g in &result.generators {
        let c = generator_color(&g.forecast.generator);
        entries.push(Entry::line(
            format!(
                "{} ({} players)",
                g.forecast.generator,
                tenten_engine::text::grouped(result.players as u64)
            ),
            c,
            LineStyle::Solid,
            None,
        ));
        if let Some((check, _)) = &g.check {
            entries.push(Entry::line(
                format!("{}: observed ({} testers)", g.forecast.generator, check.testers),
                c,
                dotted,
                Some(MarkerShape::Circle),
            ));
        }
    }
    for g in pinned.map(|p| p.generators.as_slice()).unwrap_or_default() {
        entries.push(Entry::line(
            format!(
                "pinned {} ({})",
                g.forecast.generator,
                pinned.map_or("", |p| &p.population)
            ),
            generator_color(&g.forecast.generator),
            dashed,
            None,
        ));
    }
    let hidden = legend::show(ui, "population_reach", &entries);
    by_rounds(
        "population_reach",
        240.0,
        "games reaching the round (%)",
        100.0,
        rounds,
    )
    .label_formatter(hover(rounds, 1, |name, r, y| {
        format!("{name}\nround {r}: {y:.1} % of games reach it")
    }))
    .show(ui, |plot| {
        for g in &result.generators {
            let name = format!(
                "{} ({} players)",
                g.forecast.generator,
                tenten_engine::text::grouped(result.players as u64)
            );
            if hidden.contains(&name) {
                continue;
            }
            let c = generator_color(&g.forecast.generator);
            let with_band: Vec<(f64, f64, f64)> = g
                .curve
                .iter()
                .filter_map(|(r, f)| f.ci.map(|(lo, hi)| (f64::from(*r), 100.0 * lo, 100.0 * hi)))
                .collect();
            let xs: Vec<f64> = with_band.iter().map(|b| b.0).collect();
            let lo: Vec<f64> = with_band.iter().map(|b| b.1).collect();
            let hi: Vec<f64> = with_band.iter().map(|b| b.2).collect();
            plot.add(
                FilledArea::new(format!("{name}: 95 % band"), &xs, &lo, &hi)
                    .fill_color(c.gamma_multiply(0.18)),
            );
            let curve: Vec<[f64; 2]> = g
                .curve
                .iter()
                .map(|(r, f)| [f64::from(*r), 100.0 * f.value])
                .collect();
            plot.line(step_line(name, curve).color(c).width(2.0));
            if let Some((check, observed)) = &g.check {
                let label = format!("{}: observed ({} testers)", g.forecast.generator, check.testers);
                if !hidden.contains(&label) {
                    let pts: Vec<[f64; 2]> =
                        observed.iter().map(|(r, v)| [f64::from(*r), 100.0 * v]).collect();
                    plot.line(step_line(label, pts).color(c).style(dotted).width(2.0));
                }
            }
        }
        for g in pinned.map(|p| p.generators.as_slice()).unwrap_or_default() {
            let name = format!(
                "pinned {} ({})",
                g.forecast.generator,
                pinned.map_or("", |p| &p.population)
            );
            if hidden.contains(&name) {
                continue;
            }
            let curve: Vec<[f64; 2]> = g
                .curve
                .iter()
                .map(|(r, f)| [f64::from(*r), 100.0 * f.value])
                .collect();
            plot.line(
                step_line(name, curve)
                    .color(generator_color(&g.forecast.generator))
                    .style(dashed)
                    .width(1.5),
            );
        }
    });
}
