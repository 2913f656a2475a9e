//! The right-hand inspector: one tab per file under `tabs/`.

use egui::Ui;

use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::tabs::{self, Tab};

pub struct Inspector {
    tabs: Vec<Box<dyn Tab>>,
}

impl Default for Inspector {
    fn default() -> Self {
        Self { tabs: tabs::all() }
    }
}

impl Inspector {
    pub fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let current = state
            .settings
            .inspector_tab
            .min(self.tabs.len().saturating_sub(1));
        ui.add_space(4.0);
        // Wraps when the panel is narrow: five tabs need about 340 points.
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 4.0;
            for (i, tab) in self.tabs.iter().enumerate() {
                let key = Command::SetInspectorTab(i)
                    .shortcut()
                    .map(|s| ui.ctx().format_shortcut(&s));
                let r = ui.selectable_label(i == current, tab.title());
                let r = match key {
                    Some(key) => r.on_hover_text(key),
                    None => r,
                };
                if r.clicked() {
                    cmds.push(Command::SetInspectorTab(i));
                }
            }
            // The labs' plots and tables want room: the tab can take the
            // whole central area, and come back beside the board.
            let large = state.settings.inspector_large;
            let (text, tip) = if large {
                ("Beside the board", "Put the tab back beside the board")
            } else {
                (
                    "Large view",
                    "Give the tab the whole window: the board is hidden meanwhile",
                )
            };
            let key = Command::ToggleLargeInspector
                .shortcut()
                .map_or(String::new(), |s| format!(" ({})", ui.ctx().format_shortcut(&s)));
            if ui
                .small_button(text)
                .on_hover_text(format!("{tip}{key}"))
                .clicked()
            {
                cmds.push(Command::ToggleLargeInspector);
            }
        });
        ui.separator();
        if let Some(tab) = self.tabs.get_mut(current) {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| tab.ui(ui, state, live, cmds));
        }
    }
}
