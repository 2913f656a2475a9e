//! The Lab's Tune view: the targets for a player, the budget, a run on a
//! job with its convergence plot, the hold-out check, and the result put in
//! the palette and the Generator tab with one (undoable) click.

use crate::app::jobs::job::Background as _;
use egui::{RichText, Ui};

use tenten_engine::play::who::NAMES as STRATEGIES;
use tenten_engine::study::tune::Verdict;

use super::LabTab;
use crate::app::plots::tune::convergence_plot;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

impl LabTab {
    pub(super) fn tune(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let job = &live.tune;
        ui.label(RichText::new("Tune the generator").strong());
        {
            let base = state
                .doc
                .generator
                .as_ref()
                .map_or("the random generator".to_owned(), |g| {
                    format!("the generator \"{}\"", g.name)
                });
            ui.label(format!(
                    "Searches the weights of every piece of {base} (Nelder-Mead; every candidate on the Lab's seeds, then checked on fresh ones) toward:"
                ));
            let old = &state.settings.lab;
            let mut s = old.clone();
            egui::Grid::new("lab_tune_settings").num_columns(2).spacing([8.0, 4.0]).show(ui, |ui| {
                    let label = ui.label("Player");
                    egui::ComboBox::from_id_salt("lab_tune_player")
                        .selected_text(s.tune.player.clone())
                        .show_ui(ui, |ui| {
                            for p in STRATEGIES {
                                ui.selectable_value(&mut s.tune.player, p.to_owned(), p);
                            }
                            for label in crate::app::jobs::lab::extra_labels(&s.extra_players) {
                                ui.selectable_value(&mut s.tune.player, label.clone(), label);
                            }
                        })
                        .response
                        .labelled_by(label.id);
                    ui.end_row();
                    let label = ui.label("Median rounds");
                    ui.add(egui::DragValue::new(&mut s.tune.median_rounds).range(1.0..=100_000.0).speed(1.0))
                        .labelled_by(label.id);
                    ui.end_row();
                    let label = ui.label("Unfair share");
                    ui.horizontal(|ui| {
                        let mut on = s.tune.unfair_share.is_some();
                        if ui.checkbox(&mut on, "at most").labelled_by(label.id).changed() {
                            s.tune.unfair_share = on.then_some(0.2);
                        }
                        if let Some(u) = &mut s.tune.unfair_share {
                            let mut percent = *u * 100.0;
                            ui.add(egui::DragValue::new(&mut percent).range(0.0..=100.0).suffix(" % of losses"))
                                .labelled_by(label.id);
                            *u = percent / 100.0;
                        }
                    });
                    ui.end_row();
                    // A row each: side by side they run past a narrow panel.
                    let label = ui.label("Games");
                    ui.add(egui::DragValue::new(&mut s.tune.games).range(10..=10_000))
                        .labelled_by(label.id)
                        .on_hover_text("Games per candidate, all on the same seeds");
                    ui.end_row();
                    let label = ui.label("Hold-out");
                    ui.add(egui::DragValue::new(&mut s.tune.holdout).range(20..=100_000))
                        .labelled_by(label.id)
                        .on_hover_text("Fresh games on which the start and the winner are both measured");
                    ui.end_row();
                    let label = ui.label("Budget");
                    ui.add(egui::DragValue::new(&mut s.tune.budget_seconds).range(1.0..=3600.0).suffix(" s"))
                        .labelled_by(label.id)
                        .on_hover_text("How long the search may take");
                    ui.end_row();
                    let label = ui.label("Keep the mix");
                    ui.add(egui::DragValue::new(&mut s.tune.keep_mix).range(0.0..=10_000.0).speed(0.5))
                        .labelled_by(label.id)
                        .on_hover_text(
                            "A penalty on moving the weights away from the base's mix (its divergence, KL in nats, times this): 0 lets one piece take over; 50 or more keeps the mix near yours",
                        );
                    ui.end_row();
                });
            if s != *old {
                cmds.push(Command::SetLab(s));
            }
            ui.horizontal(|ui| {
                if ui
                    .add_enabled(!job.running(), egui::Button::new("Run tune"))
                    .clicked()
                {
                    cmds.push(Command::StartTune);
                }
                if job.running() && ui.button("Cancel tune").clicked() {
                    cmds.push(Command::CancelTune);
                }
            });
            if let Some(p) = job.progress() {
                crate::app::jobs::progress_bar(ui, p);
            }
            if let Some(e) = &job.error {
                ui.colored_label(paint::BAD, e);
            }
            if job.evaluations.is_empty() {
                return;
            }
            ui.weak(format!("Tuning {}", job.what));
            convergence_plot(ui, &job.evaluations);
            let Some(r) = &job.report else { return };
            // The round the games were followed to: a median-only tune
            // stops them early (`tune_plan::rounds_needed`).
            let cap = r.cap.max(1);
            for c in &r.holdout {
                // The verdict first, in its colour: a missed goal is never
                // a line to skim past.
                ui.horizontal_wrapped(|ui| {
                        let (verdict, colour) = match c.verdict {
                            Verdict::Met => ("Met", paint::OK),
                            Verdict::Missed => ("Missed", paint::BAD),
                            Verdict::Undecided => ("Undecided", paint::WARN),
                        };
                        ui.label(RichText::new(verdict).color(colour).strong());
                        let needs = match (c.verdict, c.needed) {
                            (Verdict::Undecided, Some(n)) => format!("; about {n} games would decide it"),
                            (Verdict::Undecided, None) => "; it sits on the tolerance's edge".to_owned(),
                            _ => String::new(),
                        };
                        ui.label(format!(
                            "{} for {}: goal {} within {}; tuned {} ({:.1} % CI on {} fresh games), at the start {} (95 % CI on {}){needs}",
                            c.goal.target.name(),
                            c.player,
                            c.goal.target.goal(),
                            c.goal.tolerance,
                            c.holdout.show(cap),
                            100.0 * c.level,
                            c.games,
                            c.start.show(cap),
                            state.settings.lab.tune.holdout
                        ));
                    });
            }
            ui.weak(format!(
                    "The mix moved {:.3} nats (KL) from the base's; the winner is the best of {} finalists on validation seeds.",
                    r.divergence,
                    r.finalists.len()
                ));
            ui.weak(format!(
                "{} evaluations in {:.0} s ({:.1} a second); loss {:.4} at the start, {:.5} at best; it stopped because {}",
                r.evaluations.len(),
                r.seconds,
                r.evaluations_per_second(),
                r.start.loss,
                r.best.loss,
                r.stop.words()
            ));
            let changes: Vec<String> = r
                .tuned
                .set
                .pieces
                .iter()
                .zip(r.weights_before.iter().zip(&r.weights_after))
                .filter(|(_, (b, a))| b != a)
                .map(|(p, (b, a))| format!("{} {b} to {a}", p.id))
                .collect();
            ui.weak(format!(
                "Weights in tenths of a base weight: {}",
                changes.join(", ")
            ));
            if ui
                .button("Apply to the generator")
                .on_hover_text(
                    "The tuned weights into the palette and the rules into the Generator tab (Ctrl+Z undoes)",
                )
                .clicked()
            {
                cmds.push(Command::ApplyTuned);
            }
        }
    }
}
