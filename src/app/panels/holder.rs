//! The holder: 1 to 4 slots under the board. Click a slot, then a palette
//! piece, to set it; drag a slot's piece onto the board to play it; lock a
//! slot to keep it when dealing.

use egui::{RichText, Ui};

use tenten_engine::model::pieces::MAX_HOLDER;

use crate::app::panels::board_view::SlotDrag;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

pub struct HolderPanel;

impl HolderPanel {
    pub fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let doc = &state.doc;
        ui.add_space(8.0);
        ui.horizontal(|ui| {
            let k = doc.slots.len();
            // Tiles shrink in a narrow window, so the holder stays left of
            // the inspector instead of running under it.
            let tile = ((ui.available_width() - 140.0) / k as f32 - 12.0).clamp(56.0, 116.0);
            let width = k as f32 * (tile + 12.0) + 330.0;
            ui.add_space(((ui.available_width() - width) / 2.0).max(0.0));
            ui.vertical(|ui| {
                ui.label(RichText::new("Holder").strong());
                let label = ui.label("slots");
                let mut n = k;
                crate::app::widgets::fields::whole(ui, &mut n, 1..=MAX_HOLDER, "Slots", |d| d)
                    .labelled_by(label.id);
                if n != k {
                    cmds.push(Command::SetHolderSize(n));
                }
                if ui
                    .button("Deal")
                    .on_hover_text("Draw every unlocked slot from the seeded generator (Ctrl+D)")
                    .clicked()
                {
                    cmds.push(Command::Deal);
                }
            });
            for (i, slot) in doc.slots.iter().enumerate() {
                ui.vertical(|ui| {
                    let selected = live.selected_slot == Some(i);
                    let name = slot
                        .piece
                        .map_or("empty".to_owned(), |p| doc.set.piece(p).id.clone());
                    let response = match slot.piece {
                        Some(p) => {
                            let piece = doc.set.piece(p);
                            let color = paint::piece_color(piece, p);
                            let r = paint::piece_tile(
                                ui,
                                piece,
                                color,
                                tile,
                                selected,
                                format!("slot {} {name}", i + 1),
                            );
                            let r = r.interact(egui::Sense::drag());
                            r.dnd_set_drag_payload(SlotDrag(i));
                            if r.dragged()
                                && let Some(pos) = ui.ctx().pointer_interact_pos()
                            {
                                // The piece follows the pointer, above everything.
                                let layer = egui::LayerId::new(
                                    egui::Order::Tooltip,
                                    egui::Id::unique(("dragged slot", i)),
                                );
                                let painter = ui.ctx().layer_painter(layer);
                                let cell = 22.0;
                                let size = egui::vec2(piece.width() as f32, piece.height() as f32) * cell;
                                let origin = pos - size / 2.0;
                                for &(dx, dy) in piece.cells() {
                                    let min = origin + egui::vec2(f32::from(dx), f32::from(dy)) * cell;
                                    let rect =
                                        egui::Rect::from_min_size(min, egui::Vec2::splat(cell)).shrink(1.5);
                                    painter.rect_filled(rect, 3.0, color.gamma_multiply(0.8));
                                }
                            }
                            r
                        }
                        None => {
                            let (rect, r) =
                                ui.allocate_exact_size(egui::Vec2::splat(tile), egui::Sense::click());
                            r.widget_info(|| {
                                egui::WidgetInfo::labeled(
                                    egui::Role::Button,
                                    true,
                                    format!("slot {} empty", i + 1),
                                )
                            });
                            let visuals = ui.style().interact_selectable(&r, selected);
                            ui.painter().rect(
                                rect,
                                4.0,
                                visuals.weak_bg_fill,
                                visuals.bg_stroke,
                                egui::StrokeKind::Inside,
                            );
                            ui.painter().text(
                                rect.center(),
                                egui::Align2::CENTER_CENTER,
                                "empty",
                                egui::FontId::proportional(14.0),
                                ui.visuals().weak_text_color(),
                            );
                            r
                        }
                    };
                    if response.clicked() {
                        cmds.push(Command::SelectSlot(if selected { None } else { Some(i) }));
                    }
                    response.on_hover_text("Click to pick from the palette; drag onto the board to play");
                    let narrow = tile < 100.0;
                    let controls = |ui: &mut Ui| {
                        let mut locked = slot.locked;
                        if ui.checkbox(&mut locked, "lock").changed() {
                            cmds.push(Command::ToggleLock(i));
                        }
                        if slot.piece.is_some()
                            && ui
                                .small_button("empty")
                                .on_hover_text("Empty this slot")
                                .clicked()
                        {
                            cmds.push(Command::SetSlot { slot: i, piece: None });
                        }
                    };
                    // Side by side under a full tile; one above the other
                    // under a small one, so they fit its width.
                    if narrow {
                        ui.vertical(controls);
                    } else {
                        ui.horizontal(controls);
                    }
                    ui.label(format!("b{} {name}", i + 1));
                });
            }
            ui.vertical(|ui| {
                ui.label(RichText::new("Score").strong());
                ui.label(RichText::new(doc.score.to_string()).size(22.0));
            });
        });
    }
}
