//! The status bar: the last action, a file being read (with Cancel), and the
//! live validation's time and nodes.

use egui::Ui;

use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::settings::TimingSettings;
use crate::app::tabs::timing::at_selected;

pub fn ui(
    ui: &mut Ui,
    live: &Live,
    timing: &TimingSettings,
    recording: Option<&std::path::Path>,
    cmds: &mut Vec<Command>,
) {
    egui::Panel::bottom("status_bar").show(ui, |ui| {
        // The figures on the right first, then the status in what is left,
        // cut with "…" (whole on hover): at 800 px a long status ran into them.
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if let Some(v) = &live.verdict {
                ui.monospace(format!(
                    "validate {}, {} · {} placements",
                    tenten_engine::text::time(v.micros),
                    at_selected(timing, v.micros),
                    tenten_engine::text::grouped(v.validation.nodes)
                ));
            } else {
                ui.weak("holder empty");
            }
            if let Some(folder) = recording {
                ui.weak("recording play").on_hover_text(format!(
                    "Games played by hand are kept in {} (Edit > Record games played by hand)",
                    folder.display()
                ));
                ui.separator();
            }
            if live.repair_running || live.loading.is_some() {
                ui.spinner();
            }
            ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                // Cancel before the status, which takes the rest of the row.
                if live.loading.is_some()
                    && ui
                        .small_button("Cancel")
                        .on_hover_text("Stop reading the file; the document stays as it is")
                        .clicked()
                {
                    cmds.push(Command::CancelLoad);
                }
                ui.add(egui::Label::new(&live.status).truncate());
            });
        });
    });
}
