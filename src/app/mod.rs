//! The workbench window (eframe/egui). The engine knows nothing of it.

#[allow(clippy::module_inception)]
mod app;
mod apply;
pub mod batch;
mod batch_cmds;
mod board_view;
pub mod command;
pub mod danger_job;
mod danger_overlay;
mod danger_panel;
pub mod debugger;
mod doc_cmds;
mod fields;
mod file_cmds;
mod files;
mod holder;
mod inspector;
mod jobs;
pub mod lab_job;
mod lab_plots;
mod paint;
mod palette;
pub mod state;
mod status_bar;
mod tabs;
pub mod timing_job;
mod timing_plots;
mod top_bar;
mod undo;

pub use app::{App, Live};
pub use board_view::SlotDrag;
pub use files::{NO_DIALOGS_ENV, disable_dialogs};

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
            if let Some(file) = file {
                app.push(command::Command::Load(file));
            }
            Ok(Box::new(app))
        }),
    )
}
