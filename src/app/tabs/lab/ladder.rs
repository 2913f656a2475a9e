//! The skill ladder, the first thing the Lab shows: each player, then a row
//! per generator (the Kaplan-Meier median of rounds with its 95 % interval,
//! and the unfair share of losses with its interval), so
//! "with random, 31 % of casual's losses are unfair; with repair, none" is
//! read at a glance. A click on a player shows that player's details below.

use egui::{RichText, Ui};

use crate::app::jobs::lab::Lab;
use crate::app::plots::lab::generator_color;
use crate::app::shell::command::Command;
use crate::app::shell::state::State;

use super::results::{median_ci, share_text};

/// The ladder's grid, and the player whose details are shown below it.
pub(super) fn ladder(ui: &mut Ui, state: &State, lab: &Lab, detail: &str, cmds: &mut Vec<Command>) {
    let Some(plan) = &lab.plan else { return };
    ui.label(RichText::new("Skill ladder").strong()).on_hover_text(
        "Players are models anchored on a few facts (see docs/players.md), not measured people. \
         Medians are Kaplan-Meier's: games cut off by the round cap count as alive.",
    );
    // A player's name on a row of its own, then a row per generator: three
    // columns whatever the number of generators, so a ladder of many fits a
    // narrow window without a sideways scroll.
    crate::app::widgets::scroll::sideways(ui, "lab_ladder", |ui| {
        egui::Grid::new("lab_ladder_grid")
            .striped(true)
            .spacing([10.0, 3.0])
            .show(ui, |ui| {
                ui.label(RichText::new("generator").weak())
                    .on_hover_text("Each player (click one for its details below), then its generators");
                ui.label(RichText::new("median rounds\n[95 % CI]").weak())
                    .on_hover_text(
                        "Kaplan-Meier median of rounds, games cut off by the cap counted as alive",
                    );
                ui.label(RichText::new("unfair share\nof losses").weak())
                    .on_hover_text(
                        "Losses on a holder nobody could place, of all losses; Wilson 95 % interval",
                    );
                ui.end_row();
                for player in plan.player_names() {
                    let chosen = player == detail;
                    if ui
                        .selectable_label(chosen, RichText::new(player).strong())
                        .on_hover_text("Show this player's survival, hazard and games below")
                        .clicked()
                        && !chosen
                    {
                        let mut s = state.settings.lab.clone();
                        s.detail = player.to_owned();
                        cmds.push(Command::SetLab(s));
                    }
                    ui.end_row();
                    for r in lab.of_player(player) {
                        ui.horizontal(|ui| {
                            ui.add_space(12.0);
                            ui.label(RichText::new(&r.name).color(generator_color(&r.name)).strong());
                        });
                        let s = &r.summary;
                        if s.games == 0 {
                            ui.weak("…");
                            ui.weak("…");
                        } else {
                            let median = match s.km.median {
                                Some(m) => format!("{m} [{}]", median_ci(s)),
                                None => format!("> {} (cap)", s.km.last),
                            };
                            ui.monospace(median);
                            ui.monospace(share_text(s.unfair_share));
                        }
                        ui.end_row();
                    }
                }
            });
    });
    if let Some(line) = unfair_sentence(lab, detail) {
        ui.label(line);
    }
}

/// "With random, 31 % of casual's losses are unfair; with repair, none."
fn unfair_sentence(lab: &Lab, player: &str) -> Option<String> {
    let shares: Vec<(&str, usize, f64)> = lab
        .of_player(player)
        .iter()
        .filter_map(|r| Some((r.name.as_str(), r.summary.unfair, r.summary.unfair_share?.0)))
        .collect();
    let ((name, unfair, p), rest) = shares.split_first()?;
    let amount = |unfair: usize, p: f64| {
        if unfair == 0 {
            "none".to_owned()
        } else {
            format!("{:.0} %", p * 100.0)
        }
    };
    let mut text = format!(
        "With {name}, {} of {player}'s losses are unfair",
        amount(*unfair, *p)
    );
    for (name, unfair, p) in rest {
        text.push_str(&format!("; with {name}, {}", amount(*unfair, *p)));
    }
    Some(text + ".")
}
