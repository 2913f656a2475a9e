//! Wide content (tables, heatmaps) in a narrow panel: it scrolls sideways
//! with a scrollbar that takes its own room below the content, so it is seen
//! before it is needed and never covers the last row.

use egui::Ui;

/// Shows `add` in a sideways-scrolling area named `id`.
pub fn sideways<R>(ui: &mut Ui, id: impl egui::AsIdSalt, add: impl FnOnce(&mut Ui) -> R) -> R {
    ui.scope(|ui| {
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        egui::ScrollArea::horizontal()
            .id_salt(id)
            .auto_shrink([true, true])
            .show(ui, add)
            .inner
    })
    .inner
}
