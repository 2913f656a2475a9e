//! The heuristic tab: F as a heatmap with its numbers, the row sums and the
//! argmax (equations 4 and 5), under a switchable failure policy; and the
//! changer's history, each attempt replayable in the tree tab.

use egui::{Color32, CornerRadius, RichText, Sense, Ui, vec2};

use tenten_engine::io::export;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::search::heuristic::{FMatrix, Policy, Reading};

use super::Tab;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

pub struct HeuristicTab;

impl Tab for HeuristicTab {
    fn title(&self) -> &'static str {
        "Heuristic F"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let set = &state.doc.set;
        ui.label(RichText::new("Equation (4)").strong());
        ui.monospace("fail(i,j) = 5·ub(j)  if p(j, ub(j)) = b_i\n           0        otherwise");
        // The frequency policy reads (4) differently: every failure noted in
        // order j counts, not only ub(j)'s, so its F shows sums such as 45.
        if state.settings.policy == Policy::Frequency {
            ui.label(RichText::new("as the frequency policy reads it").weak());
            ui.monospace(
                "fail(i,j) = Σ_d 5·d·n(j,d)  over d with p(j, d) = b_i\nn(j,d): failures noted at position d of order j",
            );
        }
        ui.label(RichText::new("Equation (5)").strong());
        ui.monospace("b* = argmax_i Σ_j fail(i,j)   (ties: lowest slot)");
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.label("Failure policy");
            for p in Policy::ALL {
                let tip = match p {
                    Policy::Deepest => "ub(j) = the deepest position that failed in order j",
                    Policy::Last => "ub(j) = the last failure noted in order j (Fig. 4 read literally)",
                    Policy::Frequency => {
                        "every failure counts, 5 × its position (\"how often the block fails\")"
                    }
                };
                if ui
                    .selectable_label(state.settings.policy == p, p.name())
                    .on_hover_text(tip)
                    .clicked()
                {
                    cmds.push(Command::SetPolicy(p));
                }
            }
        });
        reading_picker(ui, state.settings.reading, cmds);
        ui.separator();
        match &live.verdict {
            None => {
                ui.label("The holder is empty.");
            }
            Some(v) if v.validation.solvable => {
                ui.label("The deal is solvable: the changer leaves it alone, and F is not computed.");
            }
            Some(v) => {
                let f = FMatrix::with_reading(&v.validation, state.settings.policy, state.settings.reading);
                heatmap(ui, set, v.validation.holder(), &f);
                let chosen = set.piece(v.validation.holder()[f.chosen]).id.clone();
                ui.label(
                    RichText::new(format!(
                        "The changer replaces b{} = {chosen} (row sum {})",
                        f.chosen + 1,
                        f.row_sums[f.chosen]
                    ))
                    .strong()
                    .color(paint::BAD),
                );
                if ui.button("Save F as CSV…").clicked() {
                    let text = export::f_csv(&f, set, v.validation.holder());
                    cmds.push(Command::SaveText {
                        title: "Save F as CSV",
                        name: "f-matrix.csv",
                        text,
                    });
                }
            }
        }
        ui.separator();
        history(ui, state, live, cmds);
    }
}

/// F as coloured cells with their values, the row sums, the argmax outlined.
pub fn heatmap(ui: &mut Ui, set: &PieceSet, holder: &[PieceIdx], f: &FMatrix) {
    // Cells share the panel's width; past 24 px each (a holder of 4 has 24
    // orders) the map scrolls sideways instead of overflowing the panel.
    let width = ((ui.available_width() - 110.0) / f.orders.max(1) as f32 - 3.0).clamp(24.0, 44.0);
    crate::app::widgets::scroll::sideways(ui, ("heatmap_scroll", f.policy.name()), |ui| {
        heatmap_grid(ui, set, holder, f, vec2(width, 24.0))
    });
}

fn heatmap_grid(ui: &mut Ui, set: &PieceSet, holder: &[PieceIdx], f: &FMatrix, cell: egui::Vec2) {
    let max = f.fail.iter().copied().max().unwrap_or(0).max(1) as f32;
    egui::Grid::new(("heatmap", f.policy.name()))
        .spacing([3.0, 3.0])
        .show(ui, |ui| {
            ui.label("");
            for j in 0..f.orders {
                ui.label(RichText::new(format!("j={j}")).weak());
            }
            ui.label(RichText::new("Σ").strong());
            ui.end_row();
            ui.label("");
            for &u in &f.unfit_block {
                // Body size: at Small the label was about 7 px tall.
                ui.label(RichText::new(format!("ub {u}")).weak())
                    .on_hover_text("unfitBlock(j): the position the policy blames in order j");
            }
            ui.end_row();
            for (i, &piece) in holder.iter().enumerate().take(f.k) {
                let chosen = i == f.chosen;
                let name = RichText::new(format!("b{} {}", i + 1, set.piece(piece).id));
                ui.label(if chosen {
                    name.strong().color(paint::BAD)
                } else {
                    name
                });
                for j in 0..f.orders {
                    let value = f.get(i, j);
                    let (rect, _) = ui.allocate_exact_size(cell, Sense::hover());
                    let t = value as f32 / max;
                    let fill = if value == 0 {
                        ui.visuals().faint_bg_color
                    } else {
                        paint::BAD.gamma_multiply(0.25 + 0.75 * t)
                    };
                    ui.painter().rect_filled(rect, CornerRadius::same(3), fill);
                    let text_color = if t > 0.5 {
                        Color32::WHITE
                    } else {
                        ui.visuals().text_color()
                    };
                    ui.painter().text(
                        rect.center(),
                        egui::Align2::CENTER_CENTER,
                        value.to_string(),
                        egui::FontId::monospace(12.0),
                        text_color,
                    );
                }
                let sum = RichText::new(f.row_sums[i].to_string()).monospace().strong();
                let sum = if chosen { sum.color(paint::BAD) } else { sum };
                ui.label(sum).on_hover_text(if chosen {
                    "argmax: this slot is changed"
                } else {
                    ""
                });
                ui.end_row();
            }
        });
}

fn history(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    ui.label(RichText::new("Changer history").strong());
    let Some(view) = &live.repair else {
        ui.weak("Run Repair (Ctrl+R) on an unsolvable deal to see every attempt here.");
        return;
    };
    let set = &view.input.set;
    let r = &view.result;
    ui.horizontal(|ui| {
        ui.weak(format!(
            "{} attempts, policy {}",
            r.attempts.len(),
            view.input.options.policy
        ));
        if ui.button("Save history as CSV…").clicked() {
            cmds.push(Command::SaveText {
                title: "Save history as CSV",
                name: "history.csv",
                text: export::history_csv(r, set),
            });
        }
    });
    ui.weak("Click an attempt to replay its search in the AND-OR tree tab.");
    for (n, a) in r.attempts.iter().enumerate().take(200) {
        let phase = a.phase.name();
        let verdict = if a.solvable { "solvable" } else { "unsolvable" };
        let change = if a.change.is_empty() {
            String::new()
        } else {
            format!(", change {}", a.describe_change(set))
        };
        let replaying = live.replay.as_ref() == Some(&a.holder);
        let text = RichText::new(format!("{n} {phase}: {} {verdict}{change}", set.ids(&a.holder))).color(
            if a.solvable {
                paint::OK
            } else {
                ui.visuals().text_color()
            },
        );
        if ui.selectable_label(replaying, text).clicked() {
            cmds.push(Command::Replay(Some(a.holder.clone())));
        }
        if let Some(f) = &a.f {
            ui.indent(("attempt", n), |ui| heatmap(ui, set, &a.holder, f));
        }
    }
    let _ = state;
}

/// How repeated pieces share failures: the reading of equation (4).
pub fn reading_picker(ui: &mut Ui, reading: Reading, cmds: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        ui.label("Repeated pieces");
        for r in Reading::ALL {
            if ui
                .selectable_label(reading == r, r.name())
                .on_hover_text(r.describe())
                .clicked()
            {
                cmds.push(Command::SetReading(r));
            }
        }
    })
    .response
    .on_hover_text(
        "Equation (4) blames \"the block p(j, ub(j))\": the slot that failed, or every copy of that piece",
    );
}
