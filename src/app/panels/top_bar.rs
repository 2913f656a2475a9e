//! The top bar: File, Edit and View menus, the seed, the piece set, the board size.

use egui::Ui;

use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;

/// A menu entry for `cmd`, with its shortcut shown beside it.
fn item(ui: &mut Ui, cmd: Command, enabled: bool, cmds: &mut Vec<Command>) {
    let mut button = egui::Button::new(cmd.label());
    if let Some(s) = cmd.shortcut() {
        button = button.shortcut_text(ui.ctx().format_shortcut(&s));
    }
    if ui.add_enabled(enabled, button).clicked() {
        cmds.push(cmd);
    }
}

/// A switch, as a painted checkbox (the fonts have no ballot-box glyphs),
/// with its shortcut in the tooltip.
fn check(ui: &mut Ui, cmd: Command, on: bool, cmds: &mut Vec<Command>) {
    let mut value = on;
    let r = ui.checkbox(&mut value, cmd.label());
    let r = match cmd.shortcut() {
        Some(s) => r.on_hover_text(ui.ctx().format_shortcut(&s)),
        None => r,
    };
    if r.changed() {
        cmds.push(cmd);
    }
}

pub fn ui(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    egui::Panel::top("top_bar").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                item(ui, Command::NewBoard, true, cmds);
                item(ui, Command::OpenDeal, true, cmds);
                item(ui, Command::OpenPieceSet, true, cmds);
                ui.menu_button("Open recent", |ui| {
                    if state.settings.recent.is_empty() {
                        ui.weak("No recent files");
                    }
                    for path in &state.settings.recent {
                        if ui.button(path.display().to_string()).clicked() {
                            cmds.push(Command::Load(path.clone()));
                        }
                    }
                });
                ui.separator();
                item(ui, Command::Save, true, cmds);
                item(ui, Command::SaveAs, true, cmds);
                item(ui, Command::SavePieceSetAs, true, cmds);
                item(ui, Command::AddToBatch, true, cmds);
                ui.separator();
                item(ui, Command::Quit, true, cmds);
            });
            ui.menu_button("Edit", |ui| {
                item(ui, Command::Undo, live.can_undo, cmds);
                let mut redo = egui::Button::new(Command::Redo.label());
                if let (Some(a), Some(b)) = (Command::Redo.shortcut(), Command::Redo.alternate_shortcut()) {
                    let ctx = ui.ctx().clone();
                    redo = redo.shortcut_text(format!(
                        "{} / {}",
                        ctx.format_shortcut(&a),
                        ctx.format_shortcut(&b)
                    ));
                }
                if ui.add_enabled(live.can_redo, redo).clicked() {
                    cmds.push(Command::Redo);
                }
                ui.separator();
                item(ui, Command::ClearBoard, true, cmds);
                item(ui, Command::InvertBoard, true, cmds);
                item(ui, Command::RandomFill, true, cmds);
                ui.separator();
                item(ui, Command::Deal, true, cmds);
                item(ui, Command::NewSeed, true, cmds);
                check(ui, Command::ToggleRecordPlay, state.settings.record_play, cmds);
                item(ui, Command::Repair, live.verdict.is_some(), cmds);
            });
            ui.menu_button("View", |ui| {
                check(ui, Command::TogglePalette, state.settings.show_palette, cmds);
                check(ui, Command::ToggleInspector, state.settings.show_inspector, cmds);
                check(
                    ui,
                    Command::ToggleLargeInspector,
                    state.settings.inspector_large,
                    cmds,
                );
                ui.separator();
                // Every tab with its Alt+digit, the Lab's Alt+6 included.
                for tab in Command::with_shortcuts()
                    .into_iter()
                    .filter(|c| matches!(c, Command::SetInspectorTab(_)))
                {
                    item(ui, tab, true, cmds);
                }
                let batch = state.doc.batch.is_some();
                item(ui, Command::NextDeal, batch, cmds);
                item(ui, Command::PrevDeal, batch, cmds);
                item(ui, Command::CyclePolicy, true, cmds);
                ui.separator();
                check(ui, Command::ToggleHeatmap, state.settings.danger_heatmap, cmds);
                check(
                    ui,
                    Command::ToggleDeadRegions,
                    state.settings.danger_dead_regions,
                    cmds,
                );
                ui.separator();
                // In words: egui's own theme buttons are emoji the fonts lack.
                let mut theme = ui.options(|o| o.theme_preference);
                ui.horizontal(|ui| {
                    ui.label("Theme");
                    for (value, name) in [
                        (egui::ThemePreference::System, "System"),
                        (egui::ThemePreference::Light, "Light"),
                        (egui::ThemePreference::Dark, "Dark"),
                    ] {
                        ui.selectable_value(&mut theme, value, name);
                    }
                });
                ui.ctx().set_theme(theme);
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Welcome: examples and where each task lives").clicked() {
                    cmds.push(Command::ShowWelcome);
                }
                ui.weak("The guide: docs/introduction.md in the repository");
            });
            ui.separator();
            let label = ui.label("Seed");
            let mut seed = state.settings.seed;
            let r = ui
                .add(egui::DragValue::new(&mut seed).speed(1.0))
                .labelled_by(label.id);
            if r.changed() {
                cmds.push(Command::SetSeed(seed));
            }
            let new_seed = egui::Button::new("New seed").small();
            if ui.add(new_seed).on_hover_text("New seed (Ctrl+G)").clicked() {
                cmds.push(Command::NewSeed);
            }
            if state.doc.deals > 0 {
                ui.weak(format!("deal {}", state.doc.deals));
            }
            ui.separator();
            if state.doc.set_modified() {
                ui.colored_label(
                    crate::app::widgets::paint::WARN,
                    format!("Pieces: {}", state.doc.set_title()),
                );
            } else {
                ui.label(format!("Pieces: {}", state.doc.set.name));
            }
            ui.separator();
            ui.label(format!("Board {}", state.doc.board.size()));
            if let Some(file) = &state.settings.file {
                ui.separator();
                ui.weak(
                    file.file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                );
            }
        });
    });
}
