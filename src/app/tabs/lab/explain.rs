//! "Which model explains this log?" in the Lab's Fit view: every model
//! compared on held-out games, then the best's criteria weights, the
//! calibration of its predicted chances, and its games against the log's,
//! as `fit-player --compare` prints them.

use crate::app::jobs::job::Background as _;
use egui::{RichText, Ui};

use tenten_engine::fits::explain::Fitted;
use tenten_engine::stats::survival::kaplan_meier;

use super::LabTab;
use crate::app::plots::explain::{calibration_plot, criteria_bars, survival_check_plot};
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::widgets::paint;

impl LabTab {
    pub(super) fn explain(&mut self, ui: &mut Ui, live: &Live, cmds: &mut Vec<Command>) {
        let job = &live.explain;
        ui.separator();
        ui.label(RichText::new("Which model explains this log?").strong());
        ui.horizontal_wrapped(|ui| {
            ui.label("Rank and value choice, one piece and the whole holder ahead, each fitted on four fifths of the games and scored on the rest.");
            if ui
                .add_enabled(!job.running(), egui::Button::new("Compare models"))
                .on_hover_text("Held-out log-likelihood per move, 5 folds over whole games; then the best model fitted and checked (fit-player --compare)")
                .clicked()
            {
                cmds.push(Command::ExplainLog);
            }
            if job.running() && ui.button("Cancel comparison").clicked() {
                cmds.push(Command::CancelExplain);
            }
        });
        if let Some(p) = job.progress() {
            crate::app::jobs::progress_bar(ui, p);
        }
        if let Some(e) = &job.error {
            ui.colored_label(paint::BAD, e);
        }
        let Some(done) = &job.result else { return };
        let e = &done.e;
        let c = &e.comparison;
        egui::Grid::new("explain_models").striped(true).show(ui, |ui| {
            ui.strong("model");
            ui.strong("held-out log-likelihood a move");
            ui.strong("standard error");
            ui.end_row();
            for s in &c.ranked {
                ui.label(s.model.name());
                ui.label(format!("{:.4}", s.per_move));
                ui.label(format!("{:.4}", s.se));
                ui.end_row();
            }
        });
        let verdict = match (c.undecided(), c.margin_se) {
            (None, Some(m)) => format!(
                "{} explains the log best, by {m:.1} standard errors over the next ({} games in {} folds).",
                e.best.name(),
                c.games,
                c.folds
            ),
            (why, _) => format!("Undecided: {}.", why.unwrap_or_default()),
        };
        ui.label(RichText::new(verdict).strong());
        let m = &e.moves;
        if !c.decided() {
            ui.label(format!(
                "{} scored highest on held-out games; it is checked below, as the best guess the log allows.",
                e.best.name()
            ));
        }
        ui.label(format!(
            "How well {} explains the moves: its most likely move was made {:.1} % of the time ({} moves); the moves made had a mean predicted chance of {:.3}.",
            e.best.name(),
            100.0 * m.top1,
            m.moves,
            m.mean_chance
        ));
        match &e.fitted {
            Fitted::Value(f) => {
                ui.label(format!(
                    "Criteria weights (β) with 95 % profile-likelihood intervals; slip {:.4} (95 % CI {:.4} to {:.4}); from {} moves of {}. A model of the logged play, not a measurement of a person.",
                    f.slip, f.slip_ci.0, f.slip_ci.1, f.moves, done.file
                ));
                criteria_bars(ui, f, e.size.cells() as f64);
            }
            Fitted::Rank(f, w) => {
                ui.label(format!(
                    "Rank choice under {w}: temperature {:.3} (95 % CI {:.3} to {}), slip {:.4} (95 % CI {:.4} to {:.4}); the criteria are fixed at {w}, so there are no weights to draw.",
                    f.temperature,
                    f.temperature_ci.0,
                    f.temperature_hi(),
                    f.slip,
                    f.slip_ci.0,
                    f.slip_ci.1
                ));
            }
        }
        ui.label(RichText::new("Calibration: moves binned by predicted chance").strong());
        calibration_plot(ui, &m.calibration);
        match &e.survival {
            Some(s) => {
                let median = |g: &[(u32, bool)]| {
                    kaplan_meier(g)
                        .median
                        .map_or("beyond the cap".to_owned(), |m| format!("{m} rounds"))
                };
                let test = s.test.map_or("no log-rank test (too few games)".to_owned(), |t| {
                    format!("log-rank χ² {:.2}, p = {:.3}", t.chi2, t.p)
                });
                ui.label(RichText::new("Survival: the log's games and the fitted player's").strong());
                ui.label(format!(
                    "The fitted player played {} games on {} (seeds {} on, capped at {} rounds): median {} against the log's {}; {test}.",
                    s.simulated.len(),
                    s.generator,
                    s.seed,
                    e.cap,
                    median(&s.simulated),
                    median(&s.observed)
                ));
                survival_check_plot(ui, s);
            }
            None => {
                ui.weak(format!(
                    "No survival check: {:?} is not a generator preset.",
                    e.generator
                ));
            }
        }
    }
}
