//! Checkboxes laid out in rows that wrap by measure: each row is its own
//! horizontal line, so a grid cell knows its height (egui's wrapped layout
//! in a grid cell runs into the row below in a narrow panel, or past the
//! panel's edge without wrapping at all).

use egui::Ui;

/// Lays out `items` (each drawn by `add`, about as wide as its `text` with
/// a checkbox) in as many rows as the width needs.
pub fn wrapped<T>(ui: &mut Ui, items: &[T], text: impl Fn(&T) -> String, mut add: impl FnMut(&mut Ui, &T)) {
    let spacing = ui.spacing();
    let extra =
        spacing.icon_width + spacing.icon_spacing + spacing.item_spacing.x + 2.0 * spacing.button_padding.x;
    let font = egui::TextStyle::Body.resolve(ui.style());
    let width_of = |t: &T| {
        let galley = ui
            .painter()
            .layout_no_wrap(text(t), font.clone(), egui::Color32::WHITE);
        galley.size().x + extra
    };
    let room = ui.available_width().max(1.0);
    let mut rows: Vec<Vec<&T>> = vec![Vec::new()];
    let mut used = 0.0;
    for item in items {
        let w = width_of(item);
        if used > 0.0 && used + w > room {
            rows.push(Vec::new());
            used = 0.0;
        }
        used += w;
        rows.last_mut().expect("a row").push(item);
    }
    ui.vertical(|ui| {
        for row in rows {
            ui.horizontal(|ui| {
                for item in row {
                    add(ui, item);
                }
            });
        }
    });
}
