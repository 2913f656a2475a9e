//! The Timing tab: sweep a CPU-throttle factor over a corpus of deals and
//! read off where validate + change crosses one frame (16.7 ms) and the
//! paper's 100 ms budget, beside the paper's Table II.

use crate::app::jobs::job::Background as _;
use egui::{RichText, Ui};

use tenten_engine::perf::bench::TABLE_II;
use tenten_engine::perf::throttle::{DEFAULT_SWEEP, MAX_FACTOR, MIN_FACTOR, describe, short};
use tenten_engine::perf::timing::{self, FRAME_US, PHONE_US};

use super::Tab;
use crate::app::jobs::timing::TimingSweep;
use crate::app::plots::timing::{self as timing_plots, fmt_time};
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::settings::{CorpusChoice, TimingSettings};
use crate::app::shell::state::State;
use crate::app::widgets::fields::{count, grouped, rounded, whole};
use crate::app::widgets::paint;

#[derive(Default)]
pub struct TimingTab {
    /// A custom factor being typed, before it is added to the sweep.
    custom: f64,
}

impl Tab for TimingTab {
    fn title(&self) -> &'static str {
        "Timing"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        ui.label(RichText::new("Timing lab: validate and change against a CPU throttle").strong());
        ui.collapsing("What the throttle models", |ui| {
            ui.label(
                "A duty cycle on the measuring thread: after each timed slice of real work of \
                 duration d, the thread busy-waits (f - 1) d, and the time reported is work plus \
                 stall. It scales CPU time, as browser developer tools do. It does not model a \
                 phone's smaller caches, slower memory, a managed runtime or thermal throttling: \
                 read the figures as this machine made f times slower, a floor for a real phone.",
            );
        });
        self.settings(ui, state, live, cmds);
        ui.separator();
        let lab = &live.timing;
        if let Some(e) = &lab.error {
            ui.colored_label(paint::BAD, e);
        }
        if lab.summaries.is_empty() {
            if !lab.running() {
                ui.weak("Run a sweep to see the plots.");
            }
            return;
        }
        results(ui, state, lab, cmds);
    }
}

impl TimingTab {
    fn settings(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let old = &state.settings.timing;
        let mut s = old.clone();
        egui::Grid::new("timing_settings")
            .num_columns(2)
            .spacing([8.0, 4.0])
            .show(ui, |ui| {
                let label = ui.label("Corpus");
                egui::ComboBox::from_id_salt("timing_corpus")
                    .selected_text(s.corpus.name())
                    .show_ui(ui, |ui| {
                        for c in CorpusChoice::ALL {
                            ui.selectable_value(&mut s.corpus, c, c.name());
                        }
                    })
                    .response
                    .labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Deals");
                ui.horizontal(|ui| {
                    whole(ui, &mut s.deals, 1..=100_000, "Deals", |d| d.speed(10.0)).labelled_by(label.id);
                    if s.corpus == CorpusChoice::Gameplay {
                        let label = ui.label("in games");
                        whole(ui, &mut s.games, 1..=1_000, "Games", |d| d).labelled_by(label.id);
                    }
                    let label = ui.label("seed");
                    whole(ui, &mut s.seed, 0..=u64::MAX, "The seed", |d| d).labelled_by(label.id);
                });
                ui.end_row();
                ui.label("Sweep");
                ui.horizontal_wrapped(|ui| {
                    let mut shown: Vec<f64> = DEFAULT_SWEEP.to_vec();
                    shown.extend(s.factors.iter().filter(|f| !DEFAULT_SWEEP.contains(f)));
                    shown.sort_by(f64::total_cmp);
                    for f in shown {
                        let mut on = s.factors.contains(&f);
                        if ui
                            .checkbox(&mut on, format!("{}x", short(f)))
                            .on_hover_text(describe(f))
                            .changed()
                        {
                            if on {
                                s.factors.push(f);
                            } else {
                                s.factors.retain(|&x| x != f);
                            }
                        }
                    }
                });
                ui.end_row();
                let label = ui.label("Custom");
                ui.horizontal(|ui| {
                    if self.custom < MIN_FACTOR {
                        self.custom = 3.0;
                    }
                    ui.add(
                        egui::DragValue::new(&mut self.custom)
                            .range(MIN_FACTOR..=MAX_FACTOR)
                            .speed(0.1)
                            .suffix("x"),
                    )
                    .labelled_by(label.id);
                    if ui
                        .button("Add to the sweep")
                        .on_hover_text("Any factor from 1x to 20x")
                        .clicked()
                        && !s.factors.contains(&self.custom)
                    {
                        s.factors.push(self.custom);
                    }
                });
                ui.end_row();
                let label = ui.label("Show at");
                egui::ComboBox::from_id_salt("timing_selected")
                    .selected_text(describe(s.selected))
                    .show_ui(ui, |ui| {
                        for &f in &s.factors {
                            ui.selectable_value(&mut s.selected, f, describe(f));
                        }
                    })
                    .response
                    .labelled_by(label.id)
                    .on_hover_text(
                        "The factor of Table II, the distribution and the live timing in the Deal tab",
                    );
                ui.end_row();
            });
        s.factors.sort_by(f64::total_cmp);
        s.factors.dedup();
        if &s != old {
            cmds.push(Command::SetTiming(s));
        }
        let doc = &state.doc;
        let drawn = match &doc.generator {
            Some(g) => format!(
                "; holders drawn as the generator \"{}\" draws them (its band for each board's fill; a file corpus keeps its own)",
                g.name
            ),
            None => String::new(),
        };
        ui.weak(format!(
            "Pieces and weights from the palette ({}), {} board, holders of {}, policy {}, {} redraws{drawn}",
            doc.set.name,
            doc.board.size(),
            doc.slots.len(),
            state.settings.policy,
            state.settings.max_redraws
        ));
        let lab = &live.timing;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!lab.running(), egui::Button::new("Run sweep"))
                .on_hover_text("Time every deal at every factor on a background thread")
                .clicked()
            {
                cmds.push(Command::StartSweep);
            }
            if lab.running() && ui.button("Cancel").clicked() {
                cmds.push(Command::CancelSweep);
            }
            if !lab.measurements.is_empty()
                && ui
                    .button("Export CSV…")
                    .on_hover_text("Every measurement: one row per deal and factor")
                    .clicked()
            {
                cmds.push(Command::SaveText {
                    title: "Export timings",
                    name: "timings.csv",
                    text: timing::csv(&lab.measurements),
                });
            }
        });
        // A fixed width, so the panel does not change size as the text does.
        if let Some(p) = lab.progress() {
            crate::app::jobs::progress_bar(ui, p);
        } else if lab.finished == Some(false) && lab.error.is_none() {
            ui.weak(format!("Cancelled after {} measurements", lab.measurements.len()));
        }
    }
}

/// The factor measured closest to the one asked for.
fn nearest(lab: &TimingSweep, factor: f64) -> Option<f64> {
    lab.summaries
        .iter()
        .map(|s| s.factor)
        .min_by(|a, b| (a - factor).abs().total_cmp(&(b - factor).abs()))
}

fn results(ui: &mut Ui, state: &State, lab: &TimingSweep, cmds: &mut Vec<Command>) {
    let settings = &state.settings.timing;
    let summaries = &lab.summaries;
    let n = summaries.first().map_or(0, |s| s.validate.n);
    let changed = summaries.first().map_or(0, |s| s.change.n);
    if let Some(r) = &lab.request {
        let total = lab.deals.len() as u64;
        // A run stopped early says how much of it was measured.
        let deals = if lab.finished == Some(false) || lab.running() {
            format!(
                "{} of {} measured",
                grouped(n as u64),
                count(total, "deal", "deals")
            )
        } else {
            count(total, "deal", "deals")
        };
        ui.weak(format!(
            "{deals} ({}, seed {}), {}, {} board, holders of {}; {} needed the changer{}",
            r.settings.corpus.name(),
            r.settings.seed,
            r.set.name,
            r.size,
            r.k,
            grouped(changed as u64),
            if lab.running() {
                "; still measuring"
            } else if lab.finished == Some(false) {
                "; cancelled"
            } else {
                ""
            }
        ));
    }
    // The headline: where p95 and p99 of validate + change cross the budgets.
    let h = |pick: fn(&tenten_engine::perf::bench::Stats) -> f64, budget| {
        timing::headroom_of(summaries, pick, budget)
    };
    let p99 = (h(|s| s.p99, FRAME_US), h(|s| s.p99, PHONE_US));
    let p95 = (h(|s| s.p95, FRAME_US), h(|s| s.p95, PHONE_US));
    ui.label(RichText::new("Fits a phone up to N x slower than this machine").strong())
        .on_hover_text("The largest throttle factor at which validate + change stays within the budget");
    let mut reaches = Vec::new();
    crate::app::widgets::scroll::sideways(ui, "timing_headroom_scroll", |ui| {
        egui::Grid::new("timing_headroom")
            .spacing([14.0, 2.0])
            .show(ui, |ui| {
                for t in [
                    "validate + change",
                    "16.7 ms (one frame)",
                    "100 ms (the paper's budget)",
                ] {
                    ui.label(RichText::new(t).weak());
                }
                ui.end_row();
                for (label, (frame, phone)) in [("p99", p99), ("p95", p95)] {
                    ui.label(label);
                    for h in [frame, phone] {
                        match h {
                            Some(h) => {
                                reaches.push(h.reach);
                                // Two significant digits; "about" where scaled
                                // past the sweep ("about 1,300x", not "1332.7x").
                                let about = if h.reach == timing::Reach::Interpolated {
                                    ""
                                } else {
                                    "about "
                                };
                                ui.label(RichText::new(format!("{about}{}x", rounded(h.factor, 2))).strong())
                                    .on_hover_text(h.describe());
                            }
                            None => {
                                ui.label("-");
                            }
                        }
                    }
                    ui.end_row();
                }
            })
    });
    let largest = summaries.last().map_or(0.0, |s| s.factor);
    if reaches.contains(&timing::Reach::Extrapolated) {
        ui.weak(format!(
            "Past {}x, the largest factor measured, the figure is scaled from the {}x measurement \
             (the duty cycle is linear in the factor); inside the sweep it is interpolated.",
            short(largest),
            short(largest)
        ));
    } else {
        ui.weak("Interpolated between the measured factors.");
    }
    // The designer's question, answered at the factor chosen below.
    if let Some(at) = nearest(lab, settings.selected).and_then(|f| summaries.iter().find(|s| s.factor == f)) {
        ui.label(RichText::new(timing::frame_sentence(at)).strong());
    }
    let fewest = summaries.iter().map(|s| s.improver().n).min().unwrap_or(0);
    if let Some(note) = timing::small_sample_note(fewest) {
        ui.colored_label(paint::WARN, note);
    }
    timing_plots::throttle_plot(ui, summaries, p99, cmds);
    ui.weak(format!(
        "{n} deals per factor. Hover for values; click a max point to open that deal in the tree tab."
    ));
    let Some(factor) = nearest(lab, settings.selected) else {
        return;
    };
    slowest(ui, lab, factor, cmds);
    ui.separator();
    ui.label(RichText::new(format!("Table II and Fig. 5 at {}", describe(factor))).strong());
    if factor != settings.selected {
        ui.weak(format!(
            "({}x was not in the sweep; nearest shown)",
            short(settings.selected)
        ));
    }
    let rows = timing::table_ii(&lab.measurements, factor);
    timing_plots::table_ii_plot(ui, &rows, factor);
    crate::app::widgets::scroll::sideways(ui, "timing_table_scroll", |ui| {
        egui::Grid::new("timing_table")
            .striped(true)
            .spacing([10.0, 2.0])
            .show(ui, |ui| {
                for h in [
                    "empty cells",
                    "deals",
                    "validate",
                    "paper",
                    "changed",
                    "validate + change",
                    "paper",
                ] {
                    ui.label(RichText::new(h).weak());
                }
                ui.end_row();
                for (row, (_, _, _)) in rows.iter().zip(TABLE_II) {
                    ui.label(row.name);
                    ui.label(row.validate.n.to_string());
                    ui.monospace(if row.validate.n > 0 {
                        fmt_time(row.validate.mean)
                    } else {
                        "-".into()
                    });
                    ui.monospace(format!("{:.3} ms", row.paper_validate_ms));
                    ui.label(row.change.n.to_string());
                    ui.monospace(if row.change.n > 0 {
                        fmt_time(row.change.mean)
                    } else {
                        "-".into()
                    });
                    ui.monospace(
                        row.paper_change_ms
                            .map_or("-".to_owned(), |ms| format!("{ms:.3} ms")),
                    );
                    ui.end_row();
                }
            })
    });
    ui.weak("Means per deal; the paper's are milliseconds on a 1-core Android emulator, unthrottled.");
    ui.separator();
    ui.label(RichText::new(format!("Distribution at {}", describe(factor))).strong());
    let attempts: Vec<usize> = lab
        .measurements
        .iter()
        .filter(|m| m.factor == factor && m.change_us.is_some())
        .map(|m| m.attempts)
        .collect();
    timing_plots::distribution_plots(ui, &rows, &attempts);
}

/// The five slowest deals at `factor` (validate + change where it ran),
/// each one click from the tree tab.
fn slowest(ui: &mut Ui, lab: &TimingSweep, factor: f64, cmds: &mut Vec<Command>) {
    let mut at: Vec<_> = lab.measurements.iter().filter(|m| m.factor == factor).collect();
    at.sort_by(|a, b| {
        let t = |m: &&tenten_engine::perf::timing::Measurement| m.change_us.unwrap_or(m.validate_us);
        t(b).total_cmp(&t(a))
    });
    ui.label(format!("Slowest deals at {}", describe(factor)));
    for m in at.iter().take(5) {
        ui.horizontal(|ui| {
            let what = match m.change_us {
                Some(c) => format!(
                    "validate + change {} ({} holder{} tried)",
                    fmt_time(c),
                    m.attempts,
                    if m.attempts == 1 { "" } else { "s" }
                ),
                None => format!("validate {}", fmt_time(m.validate_us)),
            };
            if ui
                .small_button("Open")
                .on_hover_text("Open in the AND-OR tree tab")
                .clicked()
            {
                cmds.push(Command::OpenLabDeal(m.deal));
            }
            ui.label(format!(
                "deal {}: {what}, {} empty cells, {} placements",
                m.deal, m.empty, m.nodes
            ));
        });
    }
}

/// The live deal's time at the selected factor, for the Deal tab and the
/// status bar: "2.4 µs at 6x low-tier mobile" (duty cycle: f times the time).
pub fn at_selected(settings: &TimingSettings, us: f64) -> String {
    format!(
        "{} at {}",
        fmt_time(us * settings.selected),
        describe(settings.selected)
    )
}
