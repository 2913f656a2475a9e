//! The Generator tab: the active generator's rules, edited (the check, the
//! chance to repeat the previous piece, mercy, the fill bands and their
//! scales, the adaptive rules in `generator_adaptive`), with the weights in force on the board on screen; open, start
//! from a preset, save, close. Every edit is a command, checked as the file
//! format checks it and undoable.

use std::collections::BTreeMap;

use egui::{RichText, Ui};

use tenten_engine::play::generator_file::{Band, Check, Mercy, PRESETS};
use tenten_engine::search::heuristic::Policy;

use super::Tab;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

pub struct GeneratorTab;

impl Tab for GeneratorTab {
    fn title(&self) -> &'static str {
        "Generator"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        // The width on screen, taken before the rules: a row wider than the
        // panel widens the tab's layout, and the Learn section's rows would
        // wrap at that width, past the panel's edge (its Cancel read "Ca").
        let visible = (ui.clip_rect().right() - ui.max_rect().left()).max(120.0);
        self.rules(ui, state, cmds);
        ui.scope(|ui| {
            ui.set_max_width(visible);
            super::generator_learn::learn_section(ui, state, live, cmds);
        });
    }
}

impl GeneratorTab {
    fn rules(&mut self, ui: &mut Ui, state: &State, cmds: &mut Vec<Command>) {
        let doc = &state.doc;
        let Some(rules) = &doc.generator else {
            ui.label(RichText::new("Generator").strong());
            ui.label("Deal (Ctrl+D) draws from the palette's weights. A generator adds rules: weights by how full the board is, a chance to repeat the previous piece, mercy after rounds without a clear, and a check on every holder.");
            ui.horizontal_wrapped(|ui| {
                if ui.button("Open generator…").clicked() {
                    cmds.push(Command::OpenGenerator);
                }
                ui.label("or start from");
                for (name, _) in PRESETS {
                    if ui
                        .button(name)
                        .on_hover_text(format!("presets/generators/{name}.ron"))
                        .clicked()
                    {
                        cmds.push(Command::NewGenerator(name));
                    }
                }
            });
            return;
        };
        let modified = doc.generator_modified();
        let file = doc
            .generator_path
            .as_ref()
            .map_or("untitled".to_owned(), |p| p.display().to_string());
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(format!("Generator: {}", rules.name)).strong());
            ui.weak(format!("{file}{}", if modified { " (modified)" } else { "" }));
        });
        ui.horizontal_wrapped(|ui| {
            if ui.button("Open…").clicked() {
                cmds.push(Command::OpenGenerator);
            }
            if ui.button("Save").clicked() {
                cmds.push(Command::SaveGenerator);
            }
            if ui.button("Save as…").clicked() {
                cmds.push(Command::SaveGeneratorAs);
            }
            if ui
                .button("Close")
                .on_hover_text("Deal from the palette's weights again")
                .clicked()
            {
                cmds.push(Command::CloseGenerator);
            }
        });
        let mut edited = rules.clone();
        let mut stroke = 0u64;
        let mut dragged = |r: &egui::Response| {
            if r.dragged() || r.drag_stopped() {
                stroke = r.id.value();
            }
        };
        egui::Grid::new("generator_rules").num_columns(2).spacing([8.0, 4.0]).show(ui, |ui| {
            let label = ui.label("Name");
            ui.add(egui::TextEdit::singleline(&mut edited.name).desired_width(200.0)).labelled_by(label.id);
            ui.end_row();
            check_row(ui, &mut edited.check, &mut dragged);
            let label = ui.label("Repeat previous");
            let r = ui
                .add(egui::Slider::new(&mut edited.repeat_previous, 0.0..=1.0).fixed_decimals(2))
                .labelled_by(label.id)
                .on_hover_text("The chance that a piece is the previous piece's kind again (Block Blast: about 0.09)");
            dragged(&r);
            ui.end_row();
            let label = ui.label("Mercy");
            // Wrapped: "rounds in a row without a clear" ran past the panel
            // beside the board, widening the tab so that every row below
            // it (the Learn section's Cancel) was cut at the panel's edge.
            ui.horizontal_wrapped(|ui| {
                let mut on = edited.mercy.is_some();
                if ui.checkbox(&mut on, "after").labelled_by(label.id).changed() {
                    edited.mercy = on.then(|| Mercy {
                        after_rounds_without_clear: 8,
                        scale: BTreeMap::from([("dot".to_owned(), 3.0)]),
                    });
                }
                if let Some(m) = &mut edited.mercy {
                    let r = ui
                        .add(egui::DragValue::new(&mut m.after_rounds_without_clear).range(1..=1000))
                        .labelled_by(label.id);
                    dragged(&r);
                    ui.label("rounds in a row without a clear");
                }
            });
            ui.end_row();
        });
        if let Some(m) = &mut edited.mercy {
            ui.collapsing("Mercy's scales", |ui| {
                scales(ui, "mercy", state, &mut m.scale, &mut dragged)
            });
        }
        ui.separator();
        ui.label(RichText::new("Weights by how full the board is").strong());
        bands(ui, state, &mut edited.by_fill, &mut dragged);
        ui.separator();
        super::generator_adaptive::adaptive_section(ui, &mut edited.adaptive, &mut dragged);
        if edited != *rules {
            cmds.push(Command::SetGenerator {
                rules: Box::new(edited),
                stroke,
            });
        }
        ui.separator();
        in_force(ui, state);
    }
}

fn check_row(ui: &mut Ui, check: &mut Check, dragged: &mut impl FnMut(&egui::Response)) {
    let label = ui.label("Check");
    ui.horizontal(|ui| {
        let name = |c: &Check| match c {
            Check::Repair { .. } => "repair (the paper)",
            Check::Reject { .. } => "reject and redraw",
            Check::Bag => "bag",
            Check::None => "none",
        };
        egui::ComboBox::from_id_salt("generator_check")
            .selected_text(name(check))
            .show_ui(ui, |ui| {
                for c in [
                    Check::None,
                    Check::Repair {
                        policy: Policy::Deepest,
                        redraws: 64,
                    },
                    Check::Reject { redraws: 10_000 },
                    Check::Bag,
                ] {
                    let chosen = std::mem::discriminant(check) == std::mem::discriminant(&c);
                    if ui.selectable_label(chosen, name(&c)).clicked() && !chosen {
                        *check = c;
                    }
                }
            })
            .response
            .labelled_by(label.id);
        match check {
            Check::Repair { redraws, .. } => {
                let label = ui.label("redraws");
                dragged(
                    &ui.add(egui::DragValue::new(redraws).range(0..=10_000))
                        .labelled_by(label.id),
                );
            }
            Check::Reject { redraws } => {
                let label = ui.label("at most, redraws");
                dragged(
                    &ui.add(egui::DragValue::new(redraws).range(1..=100_000))
                        .labelled_by(label.id),
                );
            }
            Check::Bag | Check::None => {}
        }
    });
    ui.end_row();
}

/// The fill bands: each its upper fill and its scales.
fn bands(ui: &mut Ui, state: &State, by_fill: &mut Vec<Band>, dragged: &mut impl FnMut(&egui::Response)) {
    let mut remove = None;
    let n = by_fill.len();
    for b in 0..n {
        let below = if b == 0 { 0.0 } else { by_fill[b - 1].up_to };
        let above = by_fill.get(b + 1).map_or(1.0, |x| x.up_to);
        let band = &mut by_fill[b];
        ui.horizontal(|ui| {
            let label = ui.label(format!("Band {}: boards up to", b + 1));
            let mut percent = band.up_to * 100.0;
            // Kept between its neighbours, so bands stay in order.
            let r = ui
                .add(
                    egui::DragValue::new(&mut percent)
                        .range((below * 100.0 + 1.0)..=(above * 100.0).max(below * 100.0 + 1.0))
                        .suffix(" % full"),
                )
                .labelled_by(label.id);
            dragged(&r);
            band.up_to = (percent / 100.0).clamp(0.01, 1.0);
            if ui.small_button("Remove").clicked() {
                remove = Some(b);
            }
        });
        ui.push_id(b, |ui| {
            ui.collapsing(format!("Band {}'s scales", b + 1), |ui| {
                scales(ui, "band", state, &mut band.scale, dragged);
            });
        });
    }
    if let Some(b) = remove {
        by_fill.remove(b);
    }
    let last = by_fill.last().map_or(0.0, |b| b.up_to);
    if last < 1.0
        && ui
            .button("Add a band")
            .on_hover_text("Up to a fuller board than the last band")
            .clicked()
    {
        by_fill.push(Band {
            up_to: if by_fill.is_empty() { 0.5 } else { 1.0 },
            scale: BTreeMap::new(),
        });
    }
    if by_fill.is_empty() {
        ui.weak("No bands: the palette's weights on every board.");
    } else if last < 1.0 {
        ui.weak(format!(
            "Boards fuller than {:.0} % use the palette's weights.",
            last * 100.0
        ));
    }
}

/// A scale per piece (1: unchanged); a scale of 1 is not written.
fn scales(
    ui: &mut Ui,
    salt: &str,
    state: &State,
    scale: &mut BTreeMap<String, f64>,
    dragged: &mut impl FnMut(&egui::Response),
) {
    egui::Grid::new(salt)
        .num_columns(4)
        .spacing([10.0, 2.0])
        .show(ui, |ui| {
            for (i, p) in state.doc.set.pieces.iter().enumerate() {
                let mut v = scale.get(&p.id).copied().unwrap_or(1.0);
                let label = ui.label(&p.id);
                let r = ui
                    .add(
                        egui::DragValue::new(&mut v)
                            .range(0.0..=20.0)
                            .speed(0.05)
                            .fixed_decimals(2)
                            .prefix("x"),
                    )
                    .labelled_by(label.id);
                dragged(&r);
                if (v - 1.0).abs() < 1e-9 {
                    scale.remove(&p.id);
                } else {
                    scale.insert(p.id.clone(), v);
                }
                if i % 2 == 1 {
                    ui.end_row();
                }
            }
        });
}

/// The weights in force on the board on screen, as shares.
fn in_force(ui: &mut Ui, state: &State) {
    let Some(spec) = state.doc.generator_spec() else {
        ui.colored_label(
            paint::BAD,
            "These rules do not read; the last edit was not applied.",
        );
        return;
    };
    let board = &state.doc.board;
    let fill = board.filled() as f64 / board.size().cells().max(1) as f64;
    let weights = spec.weights_at(fill, false);
    let total: f64 = weights.iter().sum();
    let band = spec
        .band_at(fill)
        .map_or("no band".to_owned(), |b| format!("band {}", b + 1));
    ui.label(
        RichText::new(format!(
            "In force on this board: {:.0} % full, {band}",
            fill * 100.0
        ))
        .strong(),
    )
    .on_hover_text("Mercy, when it fires in self-play, scales these further");
    egui::Grid::new("generator_in_force")
        .striped(true)
        .num_columns(6)
        .show(ui, |ui| {
            for (i, (p, w)) in spec.set.pieces.iter().zip(&weights).enumerate() {
                ui.label(&p.id);
                ui.monospace(format!("{:.1} %", w / total.max(1e-12) * 100.0));
                if i % 3 == 2 {
                    ui.end_row();
                }
            }
        });
}
