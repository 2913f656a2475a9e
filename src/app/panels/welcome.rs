//! The start page: what the workbench is, three examples to open, and
//! where each task lives. Shown when the window opens until a returning
//! user turns it off; Help > Welcome brings it back.

use egui::RichText;

use crate::app::shell::command::Command;
use crate::app::shell::files::preset_path;
use crate::app::shell::state::State;

/// The examples: what each shows, its file under `presets/`, and the tab
/// it opens on.
const EXAMPLES: [(&str, &str, usize); 3] = [
    (
        "An unsolvable deal: the verdict, the paper's F matrix and Repair",
        "deals/unsolvable-fit-alone-not-together.ron",
        0,
    ),
    (
        "A generator file: weights by fill and mercy, to edit and compare in the Lab",
        "generators/classic-with-mercy.ron",
        crate::app::tabs::GENERATOR_TAB,
    ),
    (
        "A tester's playtest log: fit a player to its moves (Lab > Players)",
        "logs/casual-playtest.jsonl",
        crate::app::tabs::LAB_TAB,
    ),
];

/// Each task, and where it lives.
const TASKS: [(&str, &str); 6] = [
    (
        "Why can this deal not be placed?",
        "Deal tab (Alt+1), AND-OR tree (Alt+2), Heuristic F (Alt+3)",
    ),
    (
        "How long do games last under my generator?",
        "Lab (Alt+6): Setup, then Run",
    ),
    (
        "Tune a generator to a target",
        "Lab (Alt+6) > Tune, on the Generator tab's rules",
    ),
    (
        "Edit a generator's rules",
        "Generator tab, or File > Open a generator file",
    ),
    (
        "Fit a player to a tester's log",
        "Lab (Alt+6) > Players, after opening the log",
    ),
    (
        "Forecast an audience from many testers",
        "Population (Alt+7): fit a folder of logs, then Forecast",
    ),
];

pub fn show(ctx: &egui::Context, state: &State, cmds: &mut Vec<Command>) {
    let mut again = state.settings.show_welcome;
    let mut close = false;
    egui::Window::new("Welcome to Tenten Workbench")
        .collapsible(false)
        .resizable(false)
        .default_width(560.0_f32.min(ctx.content_rect().width() - 40.0))
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .show(ctx, |ui| {
            ui.label(
                "A workbench for the block generators of 1010!-style puzzles: when a generator deals \
                 pieces that cannot all be placed, the player loses through no fault of their own. \
                 The workbench validates deals with the AND-OR tree of Lohanda et al. (2019), repairs \
                 them with its heuristic F, and measures generators against model players of graded \
                 skill and populations fitted to testers' logs.",
            );
            ui.add_space(6.0);
            ui.label(RichText::new("Open an example").strong());
            for (what, file, tab) in EXAMPLES {
                if ui.button(what).on_hover_text(format!("presets/{file}")).clicked() {
                    cmds.push(Command::Load(preset_path(file)));
                    cmds.push(Command::SetInspectorTab(tab));
                    close = true;
                }
            }
            ui.add_space(6.0);
            ui.label(RichText::new("Where each task lives").strong());
            egui::Grid::new("welcome_tasks")
                .num_columns(2)
                .striped(true)
                .show(ui, |ui| {
                    for (task, place) in TASKS {
                        ui.label(task);
                        ui.label(RichText::new(place).weak());
                        ui.end_row();
                    }
                });
            ui.add_space(6.0);
            ui.weak("The guide is in docs/ (docs/introduction.md); Help > Welcome shows this page again.");
            ui.separator();
            ui.horizontal(|ui| {
                ui.checkbox(&mut again, "Show this page when the workbench opens");
                if ui.button("Close").clicked() {
                    close = true;
                }
            });
        });
    if again != state.settings.show_welcome {
        cmds.push(Command::SetShowWelcome(again));
    }
    if close {
        cmds.push(Command::CloseWelcome);
    }
}
