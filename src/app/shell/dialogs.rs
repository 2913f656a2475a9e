//! Choosing a file. The desktop's own dialog (rfd) where the desktop has one;
//! on a Linux desktop without xdg-desktop-portal or zenity, rfd can show
//! nothing, so a dialog drawn in the window (egui_file) takes its place and
//! Open, Save as and every export keep working.

use std::path::{Path, PathBuf};

use egui_file::{FileDialog, State};

/// What a chosen file is for: each way into a file dialog.
#[derive(Clone, Debug, PartialEq)]
pub enum Purpose {
    OpenDeal,
    OpenPieceSet,
    /// Save as: the deal on screen, or the whole open batch.
    SaveDeal {
        batch: bool,
    },
    SavePieceSet,
    OpenGenerator,
    SaveGenerator,
    /// A generator file for the Lab to compare.
    AddLabGenerator,
    /// A player file for the Lab to play.
    AddLabPlayer,
    /// The deals the Deals tab shows, as a new batch.
    SaveFiltered,
    /// A folder of testers' JSON Lines logs for the Population view: to
    /// fit, or (`check`) to check a forecast against.
    PickLogFolder {
        check: bool,
    },
    /// A folder of logs to learn a generator from (the Generator tab).
    PickLearnFolder,
    /// An export (CSV, SVG, DOT) whose text is ready.
    SaveText {
        title: &'static str,
        name: &'static str,
        text: String,
    },
}

impl Purpose {
    pub fn title(&self) -> &str {
        match self {
            Purpose::OpenDeal => "Open deal or board",
            Purpose::OpenPieceSet => "Open piece set",
            Purpose::SaveDeal { batch: true } => "Save the whole batch",
            Purpose::SaveDeal { batch: false } => "Save deal",
            Purpose::SavePieceSet => "Save piece set",
            Purpose::OpenGenerator => "Open generator",
            Purpose::AddLabGenerator => "Compare a generator file in the Lab",
            Purpose::AddLabPlayer => "Play a player file in the Lab",
            Purpose::SaveGenerator => "Save generator",
            Purpose::SaveFiltered => "Save the deals shown as a batch",
            Purpose::PickLogFolder { check: false } => "Choose the folder of testers' logs to fit",
            Purpose::PickLearnFolder => "Choose a folder of logs to learn a generator from",
            Purpose::PickLogFolder { check: true } => {
                "Choose the folder of logs to check the forecast against"
            }
            Purpose::SaveText { title, .. } => title,
        }
    }

    /// The file name a save proposes; `None` for an open.
    pub fn proposed_name(&self) -> Option<&str> {
        match self {
            Purpose::OpenDeal
            | Purpose::OpenPieceSet
            | Purpose::OpenGenerator
            | Purpose::AddLabGenerator
            | Purpose::AddLabPlayer
            | Purpose::PickLogFolder { .. }
            | Purpose::PickLearnFolder => None,
            Purpose::SaveGenerator => Some("generator.ron"),
            Purpose::SaveDeal { batch: true } => Some("deals.ron"),
            Purpose::SaveDeal { batch: false } => Some("deal.ron"),
            Purpose::SavePieceSet => Some("pieces.ron"),
            Purpose::SaveFiltered => Some("deals.ron"),
            Purpose::SaveText { name, .. } => Some(name),
        }
    }
}

impl Purpose {
    /// The kind of file it chooses, under which the last folder is kept:
    /// deals (and batches, logs), sets, generators, players, exports.
    pub fn kind(&self) -> &'static str {
        match self {
            Purpose::OpenDeal | Purpose::SaveDeal { .. } | Purpose::SaveFiltered => "deals",
            Purpose::OpenPieceSet | Purpose::SavePieceSet => "sets",
            Purpose::OpenGenerator | Purpose::SaveGenerator | Purpose::AddLabGenerator => "generators",
            Purpose::AddLabPlayer => "players",
            Purpose::PickLogFolder { .. } | Purpose::PickLearnFolder => "logs",
            Purpose::SaveText { name, .. } if name.ends_with("player.ron") => "players",
            Purpose::SaveText { .. } => "exports",
        }
    }

    /// It chooses a folder, not a file.
    pub fn picks_folder(&self) -> bool {
        matches!(self, Purpose::PickLogFolder { .. } | Purpose::PickLearnFolder)
    }

    /// A save: it writes the chosen file.
    pub fn saves(&self) -> bool {
        self.proposed_name().is_some()
    }
}

/// A file dialog drawn in the window, and what its answer is for.
pub struct InWindow {
    pub dialog: FileDialog,
    pub purpose: Purpose,
}

/// What an in-window dialog said this frame.
pub enum Answer {
    Open,
    Chosen(PathBuf),
    Cancelled,
}

impl InWindow {
    /// `at`: the dialog's top-left corner (below the menu bar).
    pub fn new(purpose: Purpose, folder: Option<PathBuf>, at: egui::Pos2) -> Self {
        let dialog = match purpose.proposed_name() {
            _ if purpose.picks_folder() => FileDialog::select_folder(),
            Some(name) => FileDialog::save_file().default_filename(name),
            // egui_file's open dialog ignores a typed name (its Open button
            // opens only a clicked file); its save dialog takes a typed name,
            // so an open is a save dialog whose button says Open. A name
            // that is no file is refused by the load with its reason.
            None => FileDialog::save_file()
                .save_button_text("Open".into())
                .show_new_folder(false)
                .show_rename(false),
        };
        let mut dialog = dialog
            .title(purpose.title())
            .default_size([560.0, 420.0])
            .default_pos(at);
        if let Some(folder) = folder {
            dialog = dialog.initial_path(folder);
        }
        dialog.open();
        Self { dialog, purpose }
    }

    /// Draws the dialog; says whether a file was chosen or it was closed.
    pub fn show(&mut self, ctx: &egui::Context) -> Answer {
        self.dialog.show(ctx);
        match self.dialog.state() {
            State::Open => Answer::Open,
            State::Selected => match self.dialog.path() {
                Some(p) => Answer::Chosen(p.to_path_buf()),
                None => Answer::Cancelled,
            },
            State::Cancelled | State::Closed => Answer::Cancelled,
        }
    }
}

/// Which dialog to use, from `TENTEN_FILE_DIALOG`: `window` forces the one
/// in the window, `native` the desktop's.
pub const DIALOG_ENV: &str = "TENTEN_FILE_DIALOG";

static FORCE_WINDOW: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The same as `TENTEN_FILE_DIALOG=window`, from code (tests).
pub fn use_window_dialogs() {
    FORCE_WINDOW.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the desktop can show its own file dialog. On Linux rfd needs the
/// xdg-desktop-portal service (over the session bus) or zenity; elsewhere
/// the system always has one.
pub fn native_available() -> bool {
    if FORCE_WINDOW.load(std::sync::atomic::Ordering::Relaxed) {
        return false;
    }
    match std::env::var(DIALOG_ENV).as_deref() {
        Ok("window") => return false,
        Ok("native") => return true,
        _ => {}
    }
    if !cfg!(target_os = "linux") {
        return true;
    }
    let on_path = |program: &str| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
    };
    let portal = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
        && [
            "/usr/libexec/xdg-desktop-portal",
            "/usr/lib/xdg-desktop-portal",
            "/usr/lib/x86_64-linux-gnu/xdg-desktop-portal",
        ]
        .iter()
        .any(|p| Path::new(p).is_file());
    portal || on_path("zenity")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_purpose_has_a_title_and_saves_propose_a_name() {
        assert_eq!(Purpose::OpenDeal.proposed_name(), None);
        assert_eq!(Purpose::SavePieceSet.proposed_name(), Some("pieces.ron"));
        let export = Purpose::SaveText {
            title: "Export games",
            name: "games.csv",
            text: String::new(),
        };
        assert_eq!(
            (export.title(), export.proposed_name()),
            ("Export games", Some("games.csv"))
        );
        assert_eq!(Purpose::SaveDeal { batch: true }.title(), "Save the whole batch");
    }
}
