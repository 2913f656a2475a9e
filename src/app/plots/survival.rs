//! Difficulty as survival analysis (Isaksen, Gopstein and Nealen, FDG
//! 2015), one player's games per generator: the Kaplan-Meier curve with its
//! 95 % band and a reference line at one half (where the median is read),
//! and the hazard, the chance to lose the next deal by rounds survived (the
//! difficulty curve), binned, with its exact 95 % band.

use egui::Ui;
use egui_plot::{FilledArea, HLine, HoverPosition, Line, LineStyle, Plot, PlotPoints};

use tenten_engine::stats::survival::{HazardBin, Step};

use crate::app::jobs::lab::{GeneratorResults, Pinned};
use crate::app::plots::lab::generator_color;
use crate::app::plots::legend::{self, Entry};
use crate::app::plots::ticks;
use crate::app::widgets::fields::count;

/// How the bands are drawn: the series' colour, faint; fainter still when
/// more than two series share the plot, so the bands do not blur into one.
fn band_alpha(series: usize) -> f32 {
    if series > 2 { 0.07 } else { 0.18 }
}

/// The legend name of a series' band: a click on it shows or hides the band.
fn band_name(label: &str) -> String {
    format!("{label}: 95 % band")
}

/// The rounds axis: as counted, or log10(1 + rounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounds {
    pub log: bool,
}

impl Rounds {
    fn x(self, rounds: f64) -> f64 {
        if self.log { ticks::to_log(rounds) } else { rounds }
    }

    fn back(self, x: f64) -> f64 {
        if self.log { ticks::from_log(x) } else { x }
    }
}

fn series_name(r: &GeneratorResults) -> String {
    format!("{} ({})", r.name, count(r.games.len() as u64, "game", "games"))
}

/// A plot over rounds survived, from 0 and from 0 % up to `top` %, its
/// ticks spaced by the plot's size in pixels (labels never touch) and
/// rounds grouped by thousands, on a log scale when `rounds.log`.
pub(crate) fn by_rounds(
    id: &str,
    height: f32,
    y_label: &'static str,
    top: f64,
    rounds: Rounds,
) -> Plot<'static> {
    let x_label = if rounds.log {
        "rounds survived (log scale)"
    } else {
        "rounds survived"
    };
    let plot = Plot::new(id)
        .height(height)
        .custom_x_axes(vec![ticks::x_hints(x_label, rounds.log)])
        .custom_y_axes(vec![ticks::y_hints(y_label)])
        .y_grid_spacer(ticks::any_y)
        .include_y(0.0)
        .include_y(top)
        .include_x(0.0)
        // The axes start at 0 rounds and 0 %, not a margin below them.
        .set_margin_fraction(egui::vec2(0.0, 0.0))
        .allow_scroll(false);
    if rounds.log {
        plot.x_grid_spacer(ticks::log_rounds_x)
    } else {
        plot.x_grid_spacer(ticks::whole_x)
    }
}

/// A step curve through `(x, y)` points: flat until the next x.
fn steps(points: impl Iterator<Item = (f64, f64)>, last_x: f64) -> Vec<[f64; 2]> {
    let mut out: Vec<[f64; 2]> = Vec::new();
    for (x, y) in points {
        if let Some(&[_, prev]) = out.last() {
            out.push([x, prev]);
        }
        out.push([x, y]);
    }
    if let Some(&[x, y]) = out.last()
        && last_x > x
    {
        out.push([last_x, y]);
    }
    out
}

/// A step curve as a line. Its risers share an x with the treads, which
/// egui_plot would otherwise fold into one thick band per pixel column.
pub(crate) fn step_line(name: impl Into<String>, points: Vec<[f64; 2]>) -> Line<'static> {
    Line::new(name.into(), PlotPoints::from(points)).allow_band(false)
}

/// The curve of a step list, in percent: `pick` reads the estimate or an
/// end of the band.
pub(crate) fn km_curve(km: &[Step], last: u32, pick: fn(&Step) -> f64) -> Vec<[f64; 2]> {
    steps(
        km.iter().map(|s| (f64::from(s.rounds), pick(s) * 100.0)),
        f64::from(last),
    )
}

/// Kaplan-Meier survival of one player's games, a line per generator with
/// its band; a pinned run's curves dashed.
pub fn survival_plot(
    ui: &mut Ui,
    results: &[GeneratorResults],
    pinned: Option<&[GeneratorResults]>,
    rounds: Rounds,
) {
    let played: Vec<&GeneratorResults> = results.iter().filter(|r| !r.games.is_empty()).collect();
    let kept: Vec<&GeneratorResults> = pinned
        .map(|p| p.iter().filter(|r| !r.games.is_empty()).collect())
        .unwrap_or_default();
    let dashed = LineStyle::Dashed { length: 8.0 };
    let mut series: Vec<(&GeneratorResults, String, LineStyle, bool)> = played
        .iter()
        .map(|r| (*r, series_name(r), LineStyle::Solid, true))
        .collect();
    series.extend(
        kept.iter()
            .map(|r| (*r, format!("pinned {}", series_name(r)), dashed, false)),
    );
    let alpha = band_alpha(played.len());
    let mut entries: Vec<Entry> = series
        .iter()
        .map(|(r, label, style, _)| Entry::line(label.clone(), generator_color(&r.name), *style, None))
        .collect();
    entries.extend(played.iter().map(|r| {
        Entry::block(
            band_name(&series_name(r)),
            generator_color(&r.name).gamma_multiply(alpha * 2.5),
        )
    }));
    let hidden = legend::show(ui, "lab_survival", &entries);
    by_rounds("lab_survival", 220.0, "games still going (%)", 100.0, rounds)
        .label_formatter(hover(rounds, 1, |name, r, y| {
            format!("{name}\nafter round {r}: {y:.1} % still going")
        }))
        .show(ui, |plot| {
            plot.hline(
                HLine::new("half the games (the median)", 50.0)
                    .color(egui::Color32::GRAY)
                    .style(LineStyle::Dotted { spacing: 4.0 })
                    .width(1.0),
            );
            for (r, label, style, band) in series.iter().filter(|(_, l, _, _)| !hidden.contains(l)) {
                let km = &r.summary.km;
                let color = generator_color(&r.name);
                if *band && !hidden.contains(&band_name(label)) {
                    let lo = km_curve(&km.steps, km.last, |s| s.lo);
                    let hi = km_curve(&km.steps, km.last, |s| s.hi);
                    let xs: Vec<f64> = lo.iter().map(|p| rounds.x(p[0])).collect();
                    let ys_lo: Vec<f64> = lo.iter().map(|p| p[1]).collect();
                    let ys_hi: Vec<f64> = hi.iter().map(|p| p[1]).collect();
                    plot.add(
                        FilledArea::new(band_name(label), &xs, &ys_lo, &ys_hi)
                            .fill_color(color.gamma_multiply(alpha)),
                    );
                }
                let curve: Vec<[f64; 2]> = km_curve(&km.steps, km.last, |s| s.survival)
                    .into_iter()
                    .map(|[x, y]| [rounds.x(x), y])
                    .collect();
                plot.line(
                    step_line(label.clone(), curve)
                        .color(color)
                        .style(*style)
                        .width(if *band { 2.0 } else { 1.5 }),
                );
            }
        });
}

/// The hazard's bins as a step curve over their rounds, in percent.
fn hazard_curve(bins: &[HazardBin], pick: fn(&HazardBin) -> f64) -> Vec<[f64; 2]> {
    let mut out = Vec::with_capacity(bins.len() * 2);
    for b in bins {
        let y = pick(b) * 100.0;
        out.push([f64::from(b.from), y]);
        out.push([f64::from(b.to), y]);
    }
    out
}

/// The hazard of one player's games, a line per generator with its band.
/// Bins are one round wide to 10 rounds, then each a quarter wider: the
/// early rounds keep their detail, the long tail its games.
pub fn hazard_plot(ui: &mut Ui, results: &[GeneratorResults], rounds: Rounds) {
    let played: Vec<&GeneratorResults> = results.iter().filter(|r| !r.games.is_empty()).collect();
    let alpha = band_alpha(played.len());
    let mut entries: Vec<Entry> = played
        .iter()
        .map(|r| Entry::line(series_name(r), generator_color(&r.name), LineStyle::Solid, None))
        .collect();
    entries.extend(played.iter().map(|r| {
        Entry::block(
            band_name(&series_name(r)),
            generator_color(&r.name).gamma_multiply(alpha * 2.5),
        )
    }));
    let hidden = legend::show(ui, "lab_hazard", &entries);
    // The band's top in a bin with a handful of games at risk reaches 100 %:
    // the view is bounded by the estimates, and bands are cut at its top.
    let top = played
        .iter()
        .flat_map(|r| {
            r.summary
                .hazard
                .iter()
                .filter(|b| b.exposure >= 20)
                .map(|b| b.hazard)
        })
        .fold(0.0f64, f64::max);
    let ceiling = (top * 100.0 * 1.5).max(1.0);
    by_rounds(
        "lab_hazard",
        200.0,
        "chance to lose the next deal (%)",
        ceiling,
        rounds,
    )
    .label_formatter(hover(rounds, 2, |name, r, y| {
        format!("{name}\nafter {r} rounds: {y:.2} % lose the next deal")
    }))
    .show(ui, |plot| {
        for r in played.iter().filter(|r| !hidden.contains(&series_name(r))) {
            let bins = &r.summary.hazard;
            let color = generator_color(&r.name);
            let lo = hazard_curve(bins, |b| b.lo);
            let hi = hazard_curve(bins, |b| b.hi);
            let xs: Vec<f64> = lo.iter().map(|p| rounds.x(p[0])).collect();
            let ys_lo: Vec<f64> = lo.iter().map(|p| p[1].min(ceiling)).collect();
            let ys_hi: Vec<f64> = hi.iter().map(|p| p[1].min(ceiling)).collect();
            let label = series_name(r);
            if !hidden.contains(&band_name(&label)) {
                plot.add(
                    FilledArea::new(band_name(&label), &xs, &ys_lo, &ys_hi)
                        .fill_color(color.gamma_multiply(alpha)),
                );
            }
            let mut line = hazard_curve(bins, |b| b.hazard);
            for p in &mut line {
                p[0] = rounds.x(p[0]);
                p[1] = p[1].min(ceiling);
            }
            plot.line(step_line(label, line).color(color).width(2.0));
        }
    });
}

/// The hover text of a plot over rounds: `near` words a series' point (its
/// name, the rounds, the value in percent); elsewhere, the rounds and the
/// value with `decimals`.
pub(crate) fn hover(
    rounds: Rounds,
    decimals: usize,
    near: impl Fn(&str, String, f64) -> String,
) -> impl Fn(&HoverPosition<'_>) -> Option<String> {
    move |pos| {
        let (HoverPosition::NearDataPoint { position, .. } | HoverPosition::Elsewhere { position }) = pos;
        let r = grouped_round(rounds.back(position.x));
        Some(match pos {
            HoverPosition::NearDataPoint { plot_name, .. } => near(plot_name, r, position.y),
            HoverPosition::Elsewhere { .. } => format!("round {r}, {:.decimals$} %", position.y),
        })
    }
}

fn grouped_round(r: f64) -> String {
    crate::app::widgets::fields::grouped(r.max(0.0).round() as u64)
}

/// Whether the middle 80 % of `results`' games (all generators together)
/// span more than a decade of rounds: then rounds read better on a log
/// scale, and the Lab starts with one. (An expert's games run from a few
/// hundred rounds to thousands; a novice's stay within one decade.)
pub fn spans_a_decade(results: &[GeneratorResults]) -> bool {
    let mut rounds: Vec<u32> = results
        .iter()
        .flat_map(|r| r.games.iter().map(|g| g.rounds))
        .collect();
    if rounds.is_empty() {
        return false;
    }
    rounds.sort_unstable();
    let at = |q: f64| f64::from(rounds[((rounds.len() - 1) as f64 * q).round() as usize]);
    ticks::spans_a_decade(at(0.1), at(0.9))
}

/// The pinned run's results of `player`, if it has them.
pub fn pinned_of<'a>(pinned: Option<&'a Pinned>, player: &str) -> Option<&'a [GeneratorResults]> {
    let p = pinned?;
    let first = p.results.iter().position(|r| r.player == player)?;
    let count = p.results.iter().filter(|r| r.player == player).count();
    Some(&p.results[first..first + count])
}
