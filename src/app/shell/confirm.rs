//! A question asked before a save replaces a file (it exists, or another
//! program changed it since it was read), with its answers as commands.

use std::path::PathBuf;

use crate::app::shell::command::Command;
use crate::app::shell::dialogs::Purpose;

/// A question asked before a file is replaced, with its answers: each a
/// label and the command it runs (Cancel runs nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct Confirm {
    pub title: String,
    pub message: String,
    pub choices: Vec<(&'static str, Command)>,
}

impl Confirm {
    /// "deal.ron already exists. Replace it?", as the desktop's dialog asks.
    pub fn replace(purpose: Purpose, path: PathBuf) -> Self {
        let name = path
            .file_name()
            .map_or(path.display().to_string(), |n| n.to_string_lossy().into_owned());
        Self {
            title: format!("Replace {name}?"),
            message: format!(
                "{} already exists. Replacing it overwrites what it holds.",
                path.display()
            ),
            choices: vec![("Replace", Command::SaveTo { purpose, path })],
        }
    }

    /// The file changed on disk since it was opened or saved here: write
    /// over it, read it again, or save elsewhere.
    pub fn changed_on_disk(purpose: Purpose, path: PathBuf, reload: Command, save_as: Command) -> Self {
        Self {
            title: "The file changed on disk".to_owned(),
            message: format!(
                "{} was changed by another program since it was opened or saved here. Saving now would overwrite those changes.",
                path.display()
            ),
            choices: vec![
                ("Overwrite", Command::SaveTo { purpose, path }),
                ("Reload it", reload),
                ("Save elsewhere…", save_as),
            ],
        }
    }

    /// Quit with changes not saved to their files.
    pub fn quit(unsaved: &[String]) -> Self {
        Self {
            title: "Quit with unsaved changes?".to_owned(),
            message: format!(
                "Not saved to a file: {}. The window keeps its last session, but a file is only what Save wrote.",
                unsaved.join("; ")
            ),
            choices: vec![("Quit anyway", Command::QuitNow)],
        }
    }

    /// Opening a file would replace the piece set edited here.
    pub fn replace_set(name: &str, set: &str) -> Self {
        Self {
            title: "Replace your edited piece set?".to_owned(),
            message: format!(
                "Opening {name} replaces the edited piece set ({set}) with the file's. Ctrl+Z brings it back; \
                 File > Save piece set as… keeps it in a file first."
            ),
            choices: vec![("Open it", Command::OpenPending)],
        }
    }

    /// Opening a JSON Lines log (its deals name the classic pieces) while
    /// another set is active: it would replace the set, and the active
    /// generator would let go of its file.
    /// `generator`: the active one's name, and whether it has a file.
    pub fn log_replaces_set(name: &str, set: &str, generator: Option<(&str, bool)>) -> Self {
        let generator = generator.map_or(String::new(), |(g, file)| {
            format!(
                ", and the generator \"{g}\" would deal the classic set's weights{}",
                if file { " and let go of its file" } else { "" }
            )
        });
        Self {
            title: "Open the log with the classic set?".to_owned(),
            message: format!(
                "{name} is a playtest log of classic-set deals. Opening it replaces the piece set ({set}) \
                 with the classic set{generator}. Ctrl+Z brings them back."
            ),
            choices: vec![("Open it", Command::OpenPending)],
        }
    }

    /// Draws the question as a modal; pushes the command of the answer.
    pub fn show(&self, ctx: &egui::Context, cmds: &mut Vec<Command>) {
        let modal = egui::Modal::new(egui::Id::unique("confirm")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            ui.heading(&self.title);
            ui.add_space(4.0);
            ui.label(&self.message);
            ui.add_space(8.0);
            let mut answered = None;
            ui.horizontal(|ui| {
                for (label, command) in &self.choices {
                    if ui.button(*label).clicked() {
                        answered = Some(command.clone());
                    }
                }
                if ui.button("Cancel").clicked() {
                    answered = Some(Command::DismissConfirm);
                }
            });
            answered
        });
        match modal.inner {
            Some(Command::DismissConfirm) => cmds.push(Command::DismissConfirm),
            Some(c) => cmds.extend([Command::DismissConfirm, c]),
            None if modal.should_close() => cmds.push(Command::DismissConfirm),
            None => {}
        }
    }
}
