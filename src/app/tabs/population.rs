//! The Population view, beside the Lab: a folder of testers' logs fitted
//! to a population (the testers as points, their shrunken estimates, the
//! population's ellipse), and a forecast of the Lab's generators for it:
//! reach curves with bands, games per session and unfair shares with their
//! intervals, pinned to compare, and checked against a folder of logs.

use std::path::PathBuf;

use egui::{RichText, Ui};

use tenten_engine::fits::population::design;
use tenten_engine::fits::population::forecast::{Figure, NAMES};
use tenten_engine::study::calibrate::{Estimator, measured};

use super::Tab;
use crate::app::jobs::job::{Background as _, progress_bar};
use crate::app::plots::population::{reach_plot, testers_plot};
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;

/// The most players a forecast from the window plays.
pub const MAX_PLAYERS: usize = 100_000;

pub struct PopulationTab {
    folder: String,
    check_folder: String,
    check: bool,
    players: usize,
    fitted: bool,
    /// The folder choice last taken from `Live::picked_folder`.
    taken: Option<(bool, PathBuf)>,
    plan: super::population_plan::PlanSection,
    live: super::population_live::LiveSection,
}

impl Default for PopulationTab {
    fn default() -> Self {
        Self {
            // Absolute, found wherever the window was started from.
            folder: crate::app::shell::files::preset_path("cohorts/demo/random")
                .display()
                .to_string(),
            check_folder: crate::app::shell::files::preset_path("cohorts/demo/block-blast-like")
                .display()
                .to_string(),
            check: false,
            players: 2_000,
            fitted: true,
            taken: None,
            plan: Default::default(),
            live: Default::default(),
        }
    }
}

/// "53.7 (48.6-58.6)" (a share scaled by 100), or "none" where nothing
/// was measured.
fn shown(f: &Figure, scale: f64) -> String {
    if !f.value.is_finite() {
        return "none".to_owned();
    }
    let v = f.value * scale;
    match f.ci {
        Some((lo, hi)) => format!("{v:.1} ({:.1}-{:.1})", lo * scale, hi * scale),
        None => format!("{v:.1}"),
    }
}

impl Tab for PopulationTab {
    fn title(&self) -> &'static str {
        "Population"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        // A folder chosen in the dialog since the last frame.
        if live.picked_folder != self.taken {
            self.taken = live.picked_folder.clone();
            if let Some((check, folder)) = &self.taken {
                let text = folder.display().to_string();
                if *check {
                    self.check_folder = text;
                    self.check = true;
                } else {
                    self.folder = text;
                }
            }
        }
        ui.label(RichText::new("Population: what a generator does to an audience").strong());
        ui.collapsing("What is measured", |ui| {
            ui.label(
                "A population is a model of an audience, anchored on the testers' logs it was fitted \
                 to, not measured people. Each tester is fitted on its own (rank choice, piece \
                 lookahead, the Lab's criteria); the population's median and spread of temperature \
                 and slip come from a random-effects model that counts each tester's own \
                 uncertainty, and the quit model (the chance to stop after a game, higher after an \
                 unfair loss) from a logistic regression over game ends. A forecast draws players \
                 from it, each playing one session under the Lab's generators; its 95 % intervals \
                 hold the fit's uncertainty (the delta method, its gradients read off the \
                 forecast's own players) and the simulation's noise.",
            );
        });
        ui.separator();
        self.fit_section(ui, live, cmds);
        ui.separator();
        self.live.ui(ui, state, live, &self.folder, cmds);
        ui.separator();
        self.forecast_section(ui, state, live, cmds);
        ui.separator();
        self.plan.ui(ui, state, live, self.fitted, cmds);
    }
}

impl PopulationTab {
    fn fit_section(&mut self, ui: &mut Ui, live: &Live, cmds: &mut Vec<Command>) {
        ui.label(RichText::new("Fit a population").strong());
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Testers' logs (a folder of .jsonl):");
            ui.add(
                egui::TextEdit::singleline(&mut self.folder)
                    .desired_width(260.0_f32.min(ui.available_width())),
            )
            .labelled_by(l.id);
            if ui.button("Choose folder…").clicked() {
                cmds.push(Command::PickLogFolder(false));
            }
        });
        let job = &live.population_fit;
        ui.horizontal(|ui| {
            if job.running() {
                if ui.button("Cancel").clicked() {
                    cmds.push(Command::CancelPopulationFit);
                }
                if let Some(p) = job.progress() {
                    progress_bar(ui, p);
                }
            } else if ui
                .button("Fit the testers")
                .on_hover_text("Every tester fitted, then the population across them")
                .clicked()
            {
                cmds.push(Command::FitPopulation(PathBuf::from(self.folder.trim())));
            }
        });
        if let Some(e) = &job.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        let Some(f) = &job.result else {
            return;
        };
        let fit = &f.fit;
        let p = &fit.population;
        let e = |j: usize| &fit.parameters[j].effects;
        let n = |x: usize| tenten_engine::text::grouped(x as u64);
        ui.label(format!(
            "{} testers, {} moves, {} games ({})",
            n(fit.testers.len()),
            n(fit.moves),
            n(fit.games),
            f.folder.display()
        ));
        if let Some(t) = p.temperature {
            let (lo, hi) = e(0).mean_ci;
            ui.label(format!(
                "temperature: median {:.3} [{:.3}-{:.3}], spread (log sd) {:.3} [{:.3}-{}]",
                t.median,
                lo.exp(),
                hi.exp(),
                t.log_sd,
                e(0).sd_ci.0,
                if e(0).sd_ci.1.is_finite() {
                    format!("{:.3}", e(0).sd_ci.1)
                } else {
                    "inf".to_owned()
                }
            ));
        }
        let s = e(fit.parameters.len() - 1);
        let l = tenten_engine::fits::population::quit::logistic;
        ui.label(format!(
            "slip: median {:.2} % [{:.2}-{:.2} %], spread (logit sd) {:.3} [{:.3}-{:.3}]",
            100.0 * p.slip.median,
            100.0 * l(s.mean_ci.0),
            100.0 * l(s.mean_ci.1),
            p.slip.logit_sd,
            s.sd_ci.0,
            s.sd_ci.1
        ));
        let (lo, hi) = fit.unfair_odds_ci();
        let (base, slope) = (fit.quit_base_ci(), fit.quit_per_log_round_ci());
        ui.label(format!(
            "quit: {:.1} % [{:.1}-{:.1} %] after a fair loss of one round; an unfair loss multiplies the odds by {:.2} [{:.2}-{:.2}]; \
             each doubling of a game's rounds adds {:+.2} [{:+.2} to {:+.2}] to the log odds ({} game ends, {} unfair)",
            100.0 * p.quit.base,
            100.0 * base.0,
            100.0 * base.1,
            p.quit.unfair_odds,
            lo,
            hi,
            p.quit.per_log_round * std::f64::consts::LN_2,
            slope.0 * std::f64::consts::LN_2,
            slope.1 * std::f64::consts::LN_2,
            n(fit.ends),
            n(fit.unfair_ends)
        ));
        if let Some(churn) = p.fitted.as_ref().and_then(|f| f.churn.as_ref()) {
            ui.label(churn.words()).on_hover_text(
                "The quit model with churn terms (unfair losses in a row, a game longer or shorter than the \
                 player's typical one, games already played this session) against the three-term model, \
                 scored on testers each was not fitted to; the population holds the terms only when chosen",
            );
        }
        // As `tenten fit-population` prints them: the coverage measured at
        // the nearest calibrated design, and a word when this fit's design
        // is smaller than every one of them.
        if let Some(line) = measured::of_population(p, Estimator::FitPopulation) {
            ui.label(RichText::new(line).monospace().small().weak())
                .on_hover_text(
                    "Whether each interval was found to cover 95 % (tenten calibrate) at the largest \
                 measured design within this one (testers x sessions each); measured_at=none: at none",
                );
        }
        if let Some(words) = design::below_calibrated(p) {
            ui.colored_label(
                crate::app::widgets::paint::WARN,
                format!("Uncalibrated: {words}."),
            );
        }
        if ui
            .button("Save population…")
            .on_hover_text("The fitted population as a file: tenten forecast --population FILE, the Lab and Python read it")
            .clicked()
        {
            cmds.push(Command::SaveText {
                title: "Save the fitted population",
                name: "population.ron",
                text: fit.file_text(&format!("the window, from {},", f.folder.display())),
            });
        }
        testers_plot(ui, fit);
    }

    fn forecast_section(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        ui.label(RichText::new("Forecast the Lab's generators").strong());
        let names = crate::app::jobs::lab::generator_names(
            &state.settings.lab,
            state.doc.generator_title().as_deref(),
        );
        let names = if names.is_empty() {
            "No generator chosen yet on the Lab's Setup page".to_owned()
        } else {
            names.join(", ")
        };
        ui.label(
            RichText::new(format!(
                "{names} (and the generator checked logs were played under), on the Lab's board, holder, round cap and seed"
            ))
            .small()
            .weak(),
        );
        ui.horizontal_wrapped(|ui| {
            ui.radio_value(&mut self.fitted, true, "the fitted population");
            ui.radio_value(&mut self.fitted, false, "the demo population");
            let l = ui.label("players:");
            ui.add(
                egui::DragValue::new(&mut self.players)
                    .range(20..=MAX_PLAYERS)
                    .speed(50),
            )
            .labelled_by(l.id);
        });
        ui.horizontal_wrapped(|ui| {
            let l = ui.checkbox(&mut self.check, "Check against logs:");
            ui.add_enabled(
                self.check,
                egui::TextEdit::singleline(&mut self.check_folder)
                    .desired_width(260.0_f32.min(ui.available_width())),
            )
            .labelled_by(l.id);
            if ui.button("Choose folder…").clicked() {
                cmds.push(Command::PickLogFolder(true));
            }
        });
        let job = &live.forecast;
        ui.horizontal(|ui| {
            if job.running() {
                if ui.button("Cancel").clicked() {
                    cmds.push(Command::CancelForecast);
                }
                if let Some(p) = job.progress() {
                    progress_bar(ui, p);
                }
            } else {
                if ui.button("Forecast").clicked() {
                    cmds.push(Command::ForecastPopulation {
                        players: self.players,
                        fitted: self.fitted,
                        check: self.check.then(|| PathBuf::from(self.check_folder.trim())),
                    });
                }
                if job.result.is_some() && ui.button("Pin to compare").clicked() {
                    cmds.push(Command::PinForecast);
                }
                if job.pinned.is_some() && ui.button("Unpin").clicked() {
                    cmds.push(Command::UnpinForecast);
                }
            }
        });
        if let Some(e) = &job.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        let Some(r) = &job.result else {
            return;
        };
        ui.label(
            RichText::new(format!(
                "{} players of {} (seed {}, round cap {}); 95 % intervals",
                tenten_engine::text::grouped(r.players as u64),
                r.population,
                r.seed,
                tenten_engine::text::grouped(u64::from(r.max_rounds))
            ))
            .small(),
        );
        // A row per figure, a column per generator: shares in %, games
        // per session as counted, each with its interval.
        egui::Grid::new("forecast_table").striped(true).show(ui, |ui| {
            ui.label("");
            for g in &r.generators {
                ui.label(RichText::new(&g.forecast.generator).small().strong());
            }
            ui.end_row();
            for j in [0usize, 1, 2, 3, 4, 5, 6, 7, 8, 9] {
                let unit = if j == 4 { "" } else { " (%)" };
                ui.label(RichText::new(format!("{}{unit}", NAMES[j].replace('_', " "))).small());
                for g in &r.generators {
                    let cell = shown(&g.forecast.figures[j], if j == 4 { 1.0 } else { 100.0 });
                    ui.label(RichText::new(cell).small().monospace());
                }
                ui.end_row();
            }
        });
        gains_table(ui, r);
        reach_plot(ui, r, job.pinned.as_ref());
        for g in &r.generators {
            if let Some((check, _)) = &g.check {
                check_table(ui, check);
            }
        }
    }
}

/// Each generator against the first on games per session, the same
/// players under both: the relative gain with its 95 % interval and
/// verdict, then per skill decile (D1 the least skilled tenth), a row per
/// decile and a column per generator so it fits beside the board.
fn gains_table(ui: &mut Ui, r: &crate::app::jobs::population::ForecastResult) {
    let [base, rest @ ..] = r.generators.as_slice() else {
        return;
    };
    if rest.is_empty() {
        return;
    }
    // The table above may be wider than the panel: these lines wrap at
    // what is on screen.
    let visible = (ui.clip_rect().right() - ui.max_rect().left()).max(120.0);
    ui.scope(|ui| {
        ui.set_max_width(visible);
        ui.label(
            RichText::new(format!(
                "Games per session against {}, the same players under both (relative gain, 95 % interval)",
                base.forecast.generator
            ))
            .small()
            .strong(),
        );
        let cell = |g: Option<&tenten_engine::stats::inference::Gain>| match g {
            None => "too few players".to_owned(),
            Some(g) => match g.ci {
                Some((lo, hi)) => format!(
                    "{:+.1} % [{:+.1}, {:+.1}] {}",
                    100.0 * g.gain,
                    100.0 * lo,
                    100.0 * hi,
                    g.verdict()
                ),
                None => format!("{:+.1} % (no interval: too few players)", 100.0 * g.gain),
            },
        };
        for g in rest {
            ui.label(RichText::new(format!("{}: {}", g.forecast.generator, cell(g.gain.as_ref()))).small());
        }
        egui::ScrollArea::horizontal()
            .id_salt("gains_scroll")
            .show(ui, |ui| {
                egui::Grid::new("gains_table").striped(true).show(ui, |ui| {
                    ui.label(RichText::new("skill decile").small());
                    for g in rest {
                        ui.label(RichText::new(&g.forecast.generator).small().strong());
                    }
                    ui.end_row();
                    for d in 0..10 {
                        ui.label(RichText::new(format!("D{}", d + 1)).small());
                        for g in rest {
                            let gain = g.decile_gains.get(d).copied().flatten();
                            let text = gain.map_or("-".to_owned(), |x| format!("{:+.0} %", 100.0 * x.gain));
                            ui.label(RichText::new(text).small().monospace())
                                .on_hover_text(cell(gain.as_ref()));
                        }
                        ui.end_row();
                    }
                });
            });
    });
}

/// A check against logs, in the table's units: reach as %, games per
/// session as counted; then the survival test and the verdict in words.
fn check_table(ui: &mut Ui, check: &tenten_engine::fits::population::check::Check) {
    ui.label(
        RichText::new(format!(
            "Checked against the logs played under {} ({} testers, {} sessions, {} games)",
            check.generator,
            tenten_engine::text::grouped(check.testers as u64),
            tenten_engine::text::grouped(check.sessions as u64),
            tenten_engine::text::grouped(check.games as u64)
        ))
        .strong(),
    );
    egui::Grid::new(("check_table", &check.generator))
        .striped(true)
        .show(ui, |ui| {
            for h in ["figure", "observed", "predicted", "interval", ""] {
                ui.label(RichText::new(h).small().weak());
            }
            ui.end_row();
            for row in &check.rows {
                let share = row.name != "games_per_session";
                let (scale, unit) = if share { (100.0, " %") } else { (1.0, "") };
                ui.label(RichText::new(row.name.replace('_', " ")).small());
                ui.label(
                    RichText::new(format!("{:.1}{unit}", row.observed * scale))
                        .small()
                        .monospace(),
                );
                ui.label(
                    RichText::new(format!("{:.1}{unit}", row.predicted * scale))
                        .small()
                        .monospace(),
                );
                ui.label(
                    RichText::new(format!(
                        "{:.1}-{:.1}{unit}",
                        row.interval.0 * scale,
                        row.interval.1 * scale
                    ))
                    .small()
                    .monospace(),
                );
                if row.inside {
                    ui.label(RichText::new("inside").small());
                } else {
                    ui.label(
                        RichText::new("OUTSIDE")
                            .small()
                            .color(crate::app::widgets::paint::WARN),
                    );
                }
                ui.end_row();
            }
        });
    // The survival test and the verdict: the CLI's last two lines.
    for line in check.lines().iter().rev().take(2).rev() {
        ui.label(RichText::new(line).small().monospace());
    }
}
