//! The Deal tab: the verdict, the solution found, F for an unsolvable deal,
//! and the changer's history with "apply".

use egui::{RichText, Ui};

use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::search::changer::{Outcome, Phase};
use tenten_engine::search::heuristic::{FMatrix, Policy};

use super::Tab;
use crate::app::panels::danger_panel;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

pub struct DealTab;

/// Attempts listed before the rest are summarised (the fallback can try thousands).
const SHOWN_ATTEMPTS: usize = 200;

impl Tab for DealTab {
    fn title(&self) -> &'static str {
        "Deal"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let set = &state.doc.set;
        let Some(verdict) = &live.verdict else {
            ui.label("The holder is empty. Deal (Ctrl+D) or click a slot and pick pieces from the palette.");
            ui.separator();
            danger_panel::ui(ui, state, live, cmds);
            return;
        };
        let v = &verdict.validation;
        let (text, color) = if v.solvable {
            ("Solvable", paint::OK)
        } else {
            ("Unsolvable", paint::BAD)
        };
        ui.label(RichText::new(text).size(20.0).strong().color(color));
        ui.label(format!(
            "Holder {} on a {} board with {} empty cells",
            set.ids(v.holder()),
            state.doc.board.size(),
            state.doc.board.empty_cells()
        ));
        // The time on lines of its own: its length varies from run to run,
        // and must not move what follows.
        ui.label(format!(
            "{} placements; fast-path validation:",
            tenten_engine::text::grouped(v.nodes)
        ));
        ui.label(format!(
            "{}, {}",
            tenten_engine::text::time(verdict.micros),
            super::timing::at_selected(&state.settings.timing, verdict.micros)
        ));
        let per_depth: Vec<String> = v.nodes_per_depth[..v.holder().len()]
            .iter()
            .map(u64::to_string)
            .collect();
        ui.weak(format!(
            "Placements at positions 1..{}: {}",
            v.holder().len(),
            per_depth.join(" / ")
        ));
        if !v.cleared_first.is_empty() {
            ui.colored_label(
                paint::WARN,
                format!(
                    "The board held full lines, cleared first: {}",
                    v.cleared_first.describe()
                ),
            );
        }
        ui.separator();
        danger_panel::ui(ui, state, live, cmds);
        ui.separator();
        if let Some(sol) = &v.solution {
            ui.label(RichText::new(format!("Solution (order {} of the Permute matrix)", sol.order)).strong());
            for (i, s) in sol.steps().iter().enumerate() {
                let piece = set.piece(v.holder()[usize::from(s.slot)]);
                let clears = if s.lines.is_empty() {
                    String::new()
                } else {
                    format!(", clears {}", s.lines.describe())
                };
                let text = format!(
                    "{}. b{} = {} at ({}, {}){clears}",
                    i + 1,
                    s.slot + 1,
                    piece.title(),
                    s.x,
                    s.y
                );
                if ui.selectable_label(live.solution_step == Some(i), text).clicked() {
                    cmds.push(Command::ShowSolution(Some(i)));
                }
            }
        } else {
            heuristic(ui, state, live, cmds);
        }
        ui.separator();
        repair(ui, state, live, cmds);
    }
}

fn policy_picker(ui: &mut Ui, policy: Policy, cmds: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        ui.label("Failure policy");
        for p in Policy::ALL {
            if ui.selectable_label(policy == p, p.name()).clicked() {
                cmds.push(Command::SetPolicy(p));
            }
        }
    });
}

/// F (equation 4) with its row sums and the argmax of equation (5).
fn heuristic(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    let Some(verdict) = &live.verdict else { return };
    let v = &verdict.validation;
    let policy = state.settings.policy;
    policy_picker(ui, policy, cmds);
    super::heuristic::reading_picker(ui, state.settings.reading, cmds);
    let f = FMatrix::with_reading(v, policy, state.settings.reading);
    f_table(ui, &state.doc.set, v.holder(), &f, "f_live");
}

fn f_table(ui: &mut Ui, set: &PieceSet, holder: &[PieceIdx], f: &FMatrix, id: &str) {
    let ub: Vec<String> = f.unfit_block.iter().map(u8::to_string).collect();
    ui.label(format!("unfitBlock = [{}]", ub.join(", ")));
    // Scrolls sideways when wider than the panel (a holder of 4 has 24 orders).
    crate::app::widgets::scroll::sideways(ui, id, |ui| f_grid(ui, set, holder, f, id));
    ui.weak(format!(
        "argmax (equation 5): b{}, ties go to the lowest slot",
        f.chosen + 1
    ));
}

fn f_grid(ui: &mut Ui, set: &PieceSet, holder: &[PieceIdx], f: &FMatrix, id: &str) {
    egui::Grid::new(id)
        .striped(true)
        .spacing([6.0, 2.0])
        .show(ui, |ui| {
            ui.label("F");
            for j in 0..f.orders {
                ui.label(RichText::new(format!("j{j}")).weak());
            }
            ui.label("Σ");
            ui.end_row();
            for (i, &piece) in holder.iter().enumerate().take(f.k) {
                let chosen = i == f.chosen;
                let name = format!("b{} {}", i + 1, set.piece(piece).id);
                ui.label(if chosen {
                    RichText::new(name).strong().color(paint::BAD)
                } else {
                    RichText::new(name)
                });
                for j in 0..f.orders {
                    let value = f.get(i, j);
                    let text = RichText::new(value.to_string()).monospace();
                    ui.label(if value == 0 { text.weak() } else { text });
                }
                let sum = RichText::new(f.row_sums[i].to_string()).monospace().strong();
                ui.label(if chosen { sum.color(paint::BAD) } else { sum });
                ui.end_row();
            }
        });
}

fn repair(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    ui.label(RichText::new("Repair").strong());
    ui.horizontal(|ui| {
        let label = ui.label("Redraws before the fallback");
        let mut n = state.settings.max_redraws;
        if crate::app::widgets::fields::whole(ui, &mut n, 0..=10_000, "Redraws", |d| d)
            .labelled_by(label.id)
            .changed()
        {
            cmds.push(Command::SetMaxRedraws(n));
        }
    });
    if live.verdict.as_ref().is_some_and(|v| v.validation.solvable) {
        ui.weak("A solvable holder is never changed.");
    }
    let running = live.repair_running;
    if ui
        .add_enabled(
            !running && live.verdict.is_some(),
            egui::Button::new(if running { "Repairing…" } else { "Repair" }),
        )
        .clicked()
    {
        cmds.push(Command::Repair);
    }
    let Some(view) = &live.repair else { return };
    let r = &view.result;
    let set = &view.input.set;
    let summary = match r.outcome {
        Outcome::Unchanged => "Unchanged: the holder was already solvable".to_owned(),
        Outcome::Repaired => format!(
            "Repaired after {}: {}",
            tenten_engine::text::count(r.changes() as u64, "change", "changes"),
            set.ids(&r.holder)
        ),
        Outcome::Dead => "Dead: no holder of this size can be placed on this board".to_owned(),
    };
    ui.label(RichText::new(summary).strong());
    ui.weak(format!(
        "{:.1} µs in all, policy {}",
        r.total_micros, view.input.options.policy
    ));
    if r.outcome == Outcome::Repaired {
        // Once applied (or picked by hand), there is nothing left to apply.
        let applied = state.doc.holder() == r.holder;
        let apply = ui
            .add_enabled(
                !applied,
                egui::Button::new(if applied { "Applied" } else { "Apply" }),
            )
            .on_hover_text("Put the repaired holder in the slots")
            .on_disabled_hover_text("The slots already hold the repaired holder");
        if apply.clicked() {
            cmds.push(Command::ApplyRepair);
        }
    }
    egui::Grid::new("history")
        .striped(true)
        .spacing([8.0, 2.0])
        .show(ui, |ui| {
            for h in ["#", "holder", "verdict", "change", "µs"] {
                ui.label(RichText::new(h).weak());
            }
            ui.end_row();
            for (n, a) in r.attempts.iter().enumerate().take(SHOWN_ATTEMPTS) {
                // Redraws are the common case: only the others are named.
                ui.label(match a.phase {
                    Phase::Redraw => n.to_string(),
                    phase => format!("{n} {}", phase.name()),
                });
                ui.label(set.ids(&a.holder));
                let (text, color) = if a.solvable {
                    ("solvable", paint::OK)
                } else {
                    ("unsolvable", paint::BAD)
                };
                ui.label(RichText::new(text).color(color));
                ui.label(a.describe_change(set));
                ui.label(RichText::new(format!("{:.2}", a.micros)).monospace());
                ui.end_row();
            }
        });
    if r.attempts.len() > SHOWN_ATTEMPTS {
        ui.weak(format!(
            "… and {} more attempts",
            r.attempts.len() - SHOWN_ATTEMPTS
        ));
    }
    if let Some(f) = r.attempts.first().and_then(|a| a.f.as_ref()) {
        ui.add_space(4.0);
        ui.collapsing("F of the dealt holder", |ui| {
            f_table(ui, set, &r.attempts[0].holder, f, "f_first")
        });
    }
}
