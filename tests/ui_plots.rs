//! Plots that read at every scale: the Lab's survival, hazard and frequency
//! plots with expert-like games (thousands of rounds) and novice-like ones,
//! three generators, at the widths the Lab has beside the board and in its
//! large view, linear and log; and the Timing plots in an 800x600 window.
//! Read from the painted text: no two tick labels' rectangles overlap, and
//! each axis has at least four labels.

mod common;

use egui::{Rect, Shape};
use egui_kittest::Harness;
use tenten::app::App;
use tenten::app::jobs::job::Background as _;
use tenten::app::jobs::lab::GeneratorResults;
use tenten::app::plots::{lab as lab_plots, survival};
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::TimingSettings;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::game::{BANDS, End, Game};
use tenten_engine::study::runner;

/// Every text painted in the last frame, with its rectangle.
fn texts(shapes: &[egui::epaint::ClippedShape]) -> Vec<(String, Rect)> {
    fn walk(shape: &Shape, out: &mut Vec<(String, Rect)>) {
        match shape {
            Shape::Text(t) => out.push((
                t.galley.text().to_owned(),
                t.galley.rect.translate(t.pos.to_vec2()),
            )),
            Shape::Vec(v) => v.iter().for_each(|s| walk(s, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for c in shapes {
        walk(&c.shape, &mut out);
    }
    out
}

/// A tick label: a number, maybe grouped, maybe with a unit.
fn is_tick(text: &str) -> bool {
    let t = text.trim();
    let number = t.trim_end_matches(|c: char| c.is_alphabetic() || c == '%' || c == 'µ' || c == ' ');
    !number.is_empty()
        && number
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == '.' || c == '-')
}

/// No two tick labels overlap; returns them.
fn ticks_apart(shapes: &[egui::epaint::ClippedShape], what: &str) -> Vec<(String, Rect)> {
    let ticks: Vec<(String, Rect)> = texts(shapes).into_iter().filter(|(t, _)| is_tick(t)).collect();
    for (i, (a, ra)) in ticks.iter().enumerate() {
        for (b, rb) in &ticks[i + 1..] {
            let overlap = ra.intersect(*rb);
            assert!(
                overlap.width() <= 0.5 || overlap.height() <= 0.5,
                "{what}: tick labels {a:?} at {ra:?} and {b:?} at {rb:?} overlap"
            );
        }
    }
    ticks
}

/// The x axis's labels (the bottom row) and the y axis's (the rest, left
/// of the plot), each at least four.
fn four_per_axis(ticks: &[(String, Rect)], what: &str) {
    let bottom = ticks.iter().map(|(_, r)| r.min.y).fold(f32::MIN, f32::max);
    let x: Vec<&str> = ticks
        .iter()
        .filter(|(_, r)| (r.min.y - bottom).abs() < 2.0)
        .map(|(t, _)| t.as_str())
        .collect();
    let y: Vec<&str> = ticks
        .iter()
        .filter(|(_, r)| (r.min.y - bottom).abs() >= 2.0)
        .map(|(t, _)| t.as_str())
        .collect();
    assert!(x.len() >= 4, "{what}: x labels {x:?}");
    assert!(y.len() >= 4, "{what}: y labels {y:?}");
}

/// A seeded spread of game lengths of about `median`, a few at `cap`:
/// Erlang-`k` (k = 1, exponential, spreads over decades as an expert's
/// games do; k = 4 keeps to one, as a novice's do).
fn games(median: f64, k: u32, cap: u32, seed: u64, set: &PieceSet) -> Vec<Game> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut uniform = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 11) as f64 / (1u64 << 53) as f64).clamp(1e-6, 1.0 - 1e-6)
    };
    (0..200)
        .map(|g| {
            let draw: f64 = (0..k).map(|_| -uniform().ln()).sum::<f64>() / f64::from(k);
            let rounds = (draw * median / std::f64::consts::LN_2)
                .round()
                .min(f64::from(cap)) as u32;
            Game {
                seed: g,
                rounds,
                score: u64::from(rounds) * 20,
                end: if rounds >= cap {
                    End::Censored
                } else if g % 3 == 0 {
                    End::Unfair
                } else {
                    End::Stuck
                },
                unsolvable_dealt: 0,
                repairs: 0,
                dealt: set
                    .pieces
                    .iter()
                    .enumerate()
                    .map(|(i, _)| [(i as u32 * 7 + g as u32) % 13 + 1; BANDS])
                    .collect(),
                validate_us: Default::default(),
                change_us: Default::default(),
            }
        })
        .collect()
}

fn results(median: f64, k: u32, cap: u32) -> Vec<GeneratorResults> {
    let set = PieceSet::classic();
    ["random", "repair", "bag"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let games = games(median * (1.0 + 0.3 * i as f64), k, cap, i as u64 + 1, &set);
            GeneratorResults {
                player: "expert".into(),
                name: (*name).into(),
                summary: runner::summarize(&games, &set),
                games,
            }
        })
        .collect()
}

fn shapes_of(size: [f32; 2], draw: impl FnMut(&mut egui::Ui) + 'static) -> Vec<egui::epaint::ClippedShape> {
    let mut draw = draw;
    let mut h = Harness::builder().with_size(size).build_ui(move |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| draw(ui));
    });
    h.run();
    h.output().shapes.clone()
}

#[test]
fn the_labs_round_axes_read_at_every_scale() {
    let set = PieceSet::classic();
    for (who, median, k, cap) in [("expert", 900.0, 1, 12_000), ("novice", 21.0, 4, 10_000)] {
        let r = results(median, k, cap);
        for width in [440.0, 1200.0] {
            for log in [false, true] {
                let what = format!("{who}, {width} px, log {log}");
                let rs = r.clone();
                let s = shapes_of([width, 300.0], move |ui| {
                    survival::survival_plot(ui, &rs, None, survival::Rounds { log });
                });
                four_per_axis(
                    &ticks_apart(&s, &format!("survival, {what}")),
                    &format!("survival, {what}"),
                );
                let rs = r.clone();
                let s = shapes_of([width, 300.0], move |ui| {
                    survival::hazard_plot(ui, &rs, survival::Rounds { log })
                });
                four_per_axis(
                    &ticks_apart(&s, &format!("hazard, {what}")),
                    &format!("hazard, {what}"),
                );
            }
            let rs = r.clone();
            let set = set.clone();
            let s = shapes_of([width, 600.0], move |ui| lab_plots::frequency_plot(ui, &rs, &set));
            let ticks = ticks_apart(&s, &format!("frequencies, {who}, {width} px"));
            let bottom = ticks.iter().map(|(_, r)| r.min.y).fold(f32::MIN, f32::max);
            let x = ticks
                .iter()
                .filter(|(_, r)| (r.min.y - bottom).abs() < 2.0)
                .count();
            assert!(x >= 4, "frequencies, {who}, {width} px: {ticks:?}");
        }
    }
    // Expert games span more than a decade: the log scale is the default.
    assert!(survival::spans_a_decade(&results(900.0, 1, 12_000)));
    assert!(!survival::spans_a_decade(&results(21.0, 4, 10_000)));
}

#[test]
fn the_timing_plots_read_at_800_by_600() {
    let mut h = common::ui::harness_sized(App::new(Default::default()), [800.0, 600.0]);
    egui_kittest::kittest::Queryable::get_by_label(&h, "Timing").click();
    h.run();
    h.state_mut().push(Command::SetTiming(TimingSettings {
        deals: 40,
        factors: vec![1.0, 2.0, 4.0, 6.0, 10.0, 20.0],
        selected: 6.0,
        seed: 7,
        ..TimingSettings::default()
    }));
    h.state_mut().push(Command::StartSweep);
    h.run();
    common::ui::step_until(&mut h, "the sweep's end", |a| !a.live.timing.running());
    for large in [false, true] {
        if large {
            h.state_mut().push(Command::ToggleLargeInspector);
        }
        h.run();
        ticks_apart(&h.output().shapes, &format!("timing at 800x600, large {large}"));
    }
    // The throttle plot alone, as wide as the inspector is at 800x600
    // beside the board (its narrowest, 280-320 px) and in the large view:
    // four labels or more on each axis.
    let summaries = h.state().live.timing.summaries.clone();
    assert_eq!(summaries.len(), 6);
    for width in [300.0, 560.0] {
        let s = summaries.clone();
        let shapes = shapes_of([width, 420.0], move |ui| {
            tenten::app::plots::timing::throttle_plot(ui, &s, (None, None), &mut Vec::new());
        });
        let what = format!("throttle plot, {width} px");
        four_per_axis(&ticks_apart(&shapes, &what), &what);
    }
}
