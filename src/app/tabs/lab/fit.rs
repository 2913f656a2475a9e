//! "Fit a player" in the Lab, offered when the open batch is a playtest log
//! (deals with moves): the estimates with their intervals, the likelihood
//! curves, and the player saved as a file.

use crate::app::jobs::job::Background as _;
use egui::{RichText, Ui};

use tenten_engine::play::player::Lookahead;

use super::LabTab;
use crate::app::plots::fit::profile_plot;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

impl LabTab {
    pub(super) fn fit(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let hint = "Open a playtest log (RON or JSON Lines, File > Open; presets/logs/casual-playtest.ron is one) to fit a player to its moves.";
        let Some(batch) = &state.doc.batch else {
            ui.weak(hint);
            return;
        };
        // Whether the open batch is a playtest log, looked up once per
        // opening: a log of many thousand deals is megabytes of text.
        let id = batch.source.id;
        let is_log = match self.log_seen {
            Some((seen, is_log)) if seen == id => is_log,
            _ => {
                let is_log = tenten_engine::io::playtest_log::is_log(&batch.source.text);
                self.log_seen = Some((id, is_log));
                is_log
            }
        };
        if !is_log {
            ui.weak(hint);
            return;
        }
        let name = batch
            .source
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let job = &live.fit;
        ui.separator();
        ui.label(RichText::new("Playtest log: fit a player").strong());
        ui.horizontal_wrapped(|ui| {
            let label = ui.label(format!(
                "{name} is a playtest log. Fit temperature and slip to its moves, judging boards with {} and looking",
                state.settings.lab.weights
            ));
            egui::ComboBox::from_id_salt("fit_lookahead")
                .selected_text(look_name(self.fit_lookahead))
                .width(150.0)
                .show_ui(ui, |ui| {
                    for l in [Lookahead::Piece, Lookahead::Holder] {
                        ui.selectable_value(&mut self.fit_lookahead, l, look_name(l));
                    }
                })
                .response
                .labelled_by(label.id);
            if ui
                .add_enabled(!job.running(), egui::Button::new("Fit a player"))
                .on_hover_text("Maximum likelihood over every recorded move, under the law the player plays by")
                .clicked()
            {
                cmds.push(Command::FitPlayer(self.fit_lookahead));
            }
            if job.running() && ui.button("Cancel fit").clicked() {
                cmds.push(Command::CancelFit);
            }
        });
        if let Some(p) = job.progress() {
            crate::app::jobs::progress_bar(ui, p);
        }
        if let Some(e) = &job.error {
            ui.colored_label(paint::BAD, e);
        }
        let Some(done) = &job.result else { return };
        let f = &done.fit;
        ui.label(
            RichText::new(format!(
                "temperature {:.3} (95 % CI {:.3} to {}), slip {:.4} (95 % CI {:.4} to {:.4}), from {} moves of {}{}",
                f.temperature,
                f.temperature_ci.0,
                f.temperature_hi(),
                f.slip,
                f.slip_ci.0,
                f.slip_ci.1,
                f.moves,
                done.file,
                if f.unexplained > 0 {
                    format!("; {} moves the model cannot make, left out", f.unexplained)
                } else {
                    String::new()
                }
            ))
            .strong(),
        );
        ui.weak(format!(
            "Maximum likelihood (log-likelihood {:.1}); intervals from the profile likelihood. {}A model of the logged play, not a measurement of a person.",
            f.loglik,
            if f.unexplained > 0 {
                format!("{} moves the model cannot make were left out. ", f.unexplained)
            } else {
                String::new()
            }
        ));
        if done.lookahead == Lookahead::Piece {
            profile_plot(
                ui,
                "fit_temperature",
                "temperature",
                &f.temperature_profile,
                f.loglik,
                f.temperature,
            );
        }
        profile_plot(ui, "fit_slip", "slip", &f.slip_profile, f.loglik, f.slip);
        if ui
            .button("Use in the Lab")
            .on_hover_text("Add this player to the Lab's players (and the Tune view's), named after the log")
            .clicked()
        {
            cmds.push(Command::UseFittedInLab);
        }
        if ui
            .button("Save player…")
            .on_hover_text("Write the fitted player file, to use with simulate --player")
            .clicked()
        {
            cmds.push(Command::SaveText {
                title: "Save the fitted player",
                name: "fitted-player.ron",
                text: done.player_file(),
            });
        }
    }
}

fn look_name(l: Lookahead) -> &'static str {
    match l {
        Lookahead::Piece => "one piece ahead",
        Lookahead::Holder => "the whole holder ahead",
    }
}
