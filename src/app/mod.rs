//! The workbench window (eframe/egui), on top of the engine, which knows
//! nothing of it. `shell` holds the frame, the document and the commands;
//! `commands` what they do; `jobs` the work off the UI thread; `panels` what
//! is always on screen; `tabs` the inspector's tabs; `plots` and `widgets`
//! the pieces they draw with.

pub mod commands;
pub mod jobs;
pub mod panels;
pub mod plots;
pub mod shell;
pub mod tabs;
pub mod widgets;

pub use panels::board_view::SlotDrag;
pub use shell::app::App;
pub use shell::dialogs::{DIALOG_ENV, use_window_dialogs};
pub use shell::files::{NO_DIALOGS_ENV, disable_dialogs};
pub use shell::live::Live;

/// Opens the window, then `file` if given; returns when it closes.
pub fn run(file: Option<std::path::PathBuf>) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Tenten Workbench")
            .with_inner_size([1400.0, 880.0])
            .with_min_inner_size([900.0, 600.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Tenten Workbench",
        options,
        Box::new(|cc| {
            let mut app = App::from_storage(cc.storage);
            // Beside eframe's own session file: the Lab's last run.
            app.set_data_dir(eframe::storage_dir("Tenten Workbench"));
            app.restore_kept(&cc.egui_ctx);
            app.live.welcome = app.state.settings.show_welcome;
            if let Some(file) = file {
                app.push(shell::command::Command::Load(file));
            }
            Ok(Box::new(app))
        }),
    )
}
