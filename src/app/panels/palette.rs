//! The piece palette: every piece of the active set with its id, paper label,
//! weight and probability; the set's expected cells per holder; and a small
//! editor for custom pieces.

use egui::{RichText, Ui};

use tenten_engine::model::pieces::{MAX_PIECE_SIDE, MAX_WEIGHT, Piece, PieceIdx};

use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::fields;
use crate::app::widgets::paint;

pub struct Palette {
    /// Groups the changes of one slider drag, or of one typed edit of the
    /// number, into one undo step.
    weight_stroke: u64,
    /// A typed weight that had to be clamped, under its piece's row.
    weight_note: Option<(PieceIdx, String)>,
    editor: [[bool; MAX_PIECE_SIDE]; MAX_PIECE_SIDE],
    new_id: String,
    new_weight: u32,
}

impl Default for Palette {
    fn default() -> Self {
        Self {
            weight_stroke: 0,
            weight_note: None,
            editor: [[false; MAX_PIECE_SIDE]; MAX_PIECE_SIDE],
            new_id: String::new(),
            new_weight: 1,
        }
    }
}

impl Palette {
    pub fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let set = &state.doc.set;
        let k = state.doc.slots.len();
        ui.add_space(4.0);
        // A long set name wraps rather than widening the panel's content,
        // which would push the weight boxes past its right edge.
        ui.add(egui::Label::new(RichText::new(&set.name).heading()).wrap());
        // Always drawn, so the rows below do not move (and a weight box being
        // typed into keeps its focus) when the set becomes modified.
        ui.horizontal_wrapped(|ui| {
            let modified = state.doc.set_modified();
            if modified {
                ui.colored_label(paint::WARN, "modified")
                    .on_hover_text("Weights or pieces differ from the set as it was opened");
            } else {
                ui.weak("as opened");
            }
            let origin = &state.doc.set_origin.name;
            if ui
                .add_enabled(
                    modified,
                    egui::Button::new(format!("Reset to {origin}"))
                        .small()
                        .wrap_mode(egui::TextWrapMode::Wrap),
                )
                .on_hover_text("Back to the set as it was opened (undo with Ctrl+Z)")
                .clicked()
            {
                cmds.push(Command::ResetPieceSet);
            }
        });
        ui.label(format!(
            "{} pieces · total weight {} · {:.1} cells per holder of {k}",
            set.pieces.len(),
            set.total_weight(),
            set.expected_cells_per_holder(k)
        ));
        ui.horizontal(|ui| {
            if ui.button("Open set…").clicked() {
                cmds.push(Command::OpenPieceSet);
            }
            if ui.button("Save piece set as…").clicked() {
                cmds.push(Command::SavePieceSetAs);
            }
        });
        let hint = match live.selected_slot {
            Some(s) => format!("Click a piece to put it in slot {}", s + 1),
            None => "Click a piece to fill the first empty slot".to_owned(),
        };
        ui.weak(hint);
        ui.separator();
        // Explicit ids: the rows above come and go ("modified"), and a weight
        // box being typed into must keep its focus when they do.
        // A scrollbar of its own width, beside the rows: floating over them,
        // it covered the probabilities' % signs.
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        egui::ScrollArea::vertical()
            .id_salt("palette_pieces")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (i, piece) in set.pieces.iter().enumerate() {
                    ui.push_id(("piece", &piece.id), |ui| {
                        self.piece_row(ui, state, live, i as PieceIdx, piece, cmds)
                    });
                }
                ui.add_space(6.0);
                egui::CollapsingHeader::new("Add a custom piece").show(ui, |ui| self.editor(ui, cmds));
            });
    }

    fn piece_row(
        &mut self,
        ui: &mut Ui,
        state: &State,
        live: &Live,
        idx: PieceIdx,
        piece: &Piece,
        cmds: &mut Vec<Command>,
    ) {
        let set = &state.doc.set;
        ui.horizontal(|ui| {
            let selected = live
                .selected_slot
                .and_then(|s| state.doc.slots.get(s))
                .is_some_and(|s| s.piece == Some(idx));
            let tile = paint::piece_tile(
                ui,
                piece,
                paint::piece_color(piece, idx),
                46.0,
                selected,
                format!("piece {}", piece.id),
            );
            if tile.on_hover_text(format!("{} cells", piece.size())).clicked() {
                let slot = live
                    .selected_slot
                    .or_else(|| state.doc.slots.iter().position(|s| s.piece.is_none()));
                match slot {
                    Some(slot) => cmds.push(Command::SetSlot {
                        slot,
                        piece: Some(idx),
                    }),
                    None => cmds.push(Command::SelectSlot(None)),
                }
            }
            ui.vertical(|ui| {
                let name = ui
                    .horizontal(|ui| {
                        let name = ui.label(RichText::new(&piece.id).strong()).id;
                        if !piece.label.is_empty() {
                            ui.weak(&piece.label);
                        }
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            ui.monospace(format!("{:5.1}%", 100.0 * set.probability(idx)));
                        });
                        name
                    })
                    .inner;
                let mut weight = piece.weight;
                // The slider takes what the number box leaves of the row, so
                // the row fits the panel at any width.
                ui.spacing_mut().slider_width = (ui.available_width() - 56.0).max(40.0);
                let slider = egui::Slider::new(&mut weight, 0..=slider_end(set, &state.doc.set_origin))
                    .clamping(egui::SliderClamping::Never);
                let r = ui.add(slider).labelled_by(name).on_hover_text(format!(
                    "Weight of {}. Weights are whole numbers from 0 (never dealt) to {}; type a number \
                     beyond the slider's end to go higher.",
                    piece.id,
                    fields::grouped(u64::from(MAX_WEIGHT))
                ));
                // A new undo step starts with a drag, with focus on the number,
                // or with a click; keystrokes while the number has focus join it.
                if r.drag_started() || r.gained_focus() || (r.changed() && !r.dragged() && !r.has_focus()) {
                    self.weight_stroke += 1;
                }
                if r.changed() {
                    let mut typed = u64::from(weight);
                    let note = fields::clamp_with_note(&mut typed, 0..=u64::from(MAX_WEIGHT), "A weight");
                    self.weight_note = note.map(|n| (idx, n));
                    cmds.push(Command::SetWeight {
                        piece: idx,
                        weight: typed as u32,
                        stroke: self.weight_stroke,
                    });
                }
                if let Some((_, note)) = self.weight_note.as_ref().filter(|(p, _)| *p == idx) {
                    ui.colored_label(paint::WARN, note);
                }
            });
        });
    }

    fn editor(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        ui.weak("Paint the piece on the grid, name it, weight it.");
        let cell = 18.0;
        let (rect, response) = ui.allocate_exact_size(
            egui::Vec2::splat(cell * MAX_PIECE_SIDE as f32),
            egui::Sense::click(),
        );
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "custom piece grid"));
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            let x = ((pos.x - rect.min.x) / cell) as usize;
            let y = ((pos.y - rect.min.y) / cell) as usize;
            if x < MAX_PIECE_SIDE && y < MAX_PIECE_SIDE {
                self.editor[y][x] ^= true;
            }
        }
        for (y, row) in self.editor.iter().enumerate() {
            for (x, &on) in row.iter().enumerate() {
                let r = egui::Rect::from_min_size(
                    rect.min + egui::vec2(x as f32, y as f32) * cell,
                    egui::Vec2::splat(cell),
                )
                .shrink(1.0);
                ui.painter()
                    .rect_filled(r, 2.0, if on { paint::HIGHLIGHT } else { paint::EMPTY });
            }
        }
        ui.horizontal(|ui| {
            let label = ui.label("id");
            ui.add(egui::TextEdit::singleline(&mut self.new_id).desired_width(90.0))
                .labelled_by(label.id);
            let label = ui.label("weight");
            // Not clamped here: a weight out of range is refused below, saying why.
            ui.add(egui::DragValue::new(&mut self.new_weight))
                .labelled_by(label.id)
                .on_hover_text(format!("0 (never dealt) to {MAX_WEIGHT}"));
        });
        let rows: Vec<String> = self
            .editor
            .iter()
            .map(|r| r.iter().map(|&c| if c { '#' } else { '.' }).collect())
            .collect();
        let piece = Piece::from_rows(self.new_id.trim(), "", self.new_weight, &rows);
        match &piece {
            Ok(_) => {}
            Err(e) => {
                ui.weak(e);
            }
        }
        if ui
            .add_enabled(piece.is_ok(), egui::Button::new("Add piece"))
            .clicked()
            && let Ok(p) = piece
        {
            cmds.push(Command::AddPiece(p));
            self.editor = [[false; MAX_PIECE_SIDE]; MAX_PIECE_SIDE];
            self.new_id.clear();
        }
    }
}

/// The weight sliders' common end: twice the heaviest weight of the set (or
/// of the set as opened, whichever is heavier), at least 12, rounded up to
/// 1, 2 or 5 times a power of ten and kept within MAX_WEIGHT. So no slider
/// sits pinned at its end with its value beyond it (tuned weights in tenths
/// included), and the end stays put while any lighter piece is dragged.
fn slider_end(
    set: &tenten_engine::model::pieces::PieceSet,
    origin: &tenten_engine::model::pieces::PieceSet,
) -> u32 {
    let heaviest = set
        .pieces
        .iter()
        .chain(&origin.pieces)
        .map(|p| p.weight)
        .max()
        .unwrap_or(0);
    let want = (2 * u64::from(heaviest)).max(12);
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            if m * step >= want {
                return (m * step).min(u64::from(MAX_WEIGHT)) as u32;
            }
        }
        step *= 10;
    }
}

#[cfg(test)]
mod slider_tests {
    use super::slider_end;
    use tenten_engine::model::pieces::{MAX_WEIGHT, PieceSet};

    fn with_heaviest(w: u32) -> PieceSet {
        let mut set = PieceSet::classic();
        set.pieces[0].weight = w;
        set
    }

    #[test]
    fn no_weight_sits_at_or_beyond_its_sliders_end() {
        let classic = PieceSet::classic();
        // The classic set (sq2 6): 20, with room on both sides.
        assert_eq!(slider_end(&classic, &classic), 20);
        for w in [0, 1, 6, 12, 13, 60, 96, 120, 499, 500, 999, 1000] {
            let set = with_heaviest(w);
            let end = slider_end(&set, &classic);
            assert!(end <= MAX_WEIGHT, "{w}: {end}");
            assert!(
                set.pieces.iter().all(|p| p.weight < end || end == MAX_WEIGHT),
                "{w}: {end}"
            );
            if w < MAX_WEIGHT / 2 {
                assert!(end >= 2 * w, "{w}: the heaviest piece at most halfway: {end}");
            }
        }
        // Tuned weights in tenths (dot 20 ... sq2 96): not pinned.
        assert_eq!(slider_end(&with_heaviest(96), &classic), 200);
    }
}
