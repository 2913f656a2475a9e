//! The centre: board tools, the verdict banner, and the board itself, which
//! paints, fills lines, takes dropped holder pieces and steps solutions.

use egui::{Color32, CornerRadius, RichText, Sense, Stroke, Ui, Vec2, vec2};

use tenten_engine::model::board::{Bits, BoardSize, Cell};

use crate::app::panels::grid::Grid;
use crate::app::shell::command::{Command, Line};
use crate::app::shell::live::{Flash, Live};
use crate::app::shell::settings::Tool;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

/// The payload of a holder piece being dragged onto the board.
#[derive(Clone, Copy, Debug)]
pub struct SlotDrag(pub usize);

#[derive(Default)]
pub struct BoardView {
    stroke: u64,
    /// A brush stroke is under way.
    painting: bool,
    custom: (usize, usize),
    custom_open: bool,
}

impl BoardView {
    pub fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        self.toolbar(ui, state, cmds);
        ui.add_space(4.0);
        verdict_banner(ui, state, live, cmds);
        ui.add_space(6.0);
        self.board(ui, state, live, cmds);
    }

    fn toolbar(&mut self, ui: &mut Ui, state: &State, cmds: &mut Vec<Command>) {
        let s = &state.settings;
        ui.horizontal_wrapped(|ui| {
            for (tool, name, tip) in [
                (Tool::Brush, "Brush", "Left-drag paints, right-drag erases"),
                (Tool::Row, "Row", "Click fills a row, right-click clears it"),
                (
                    Tool::Column,
                    "Column",
                    "Click fills a column, right-click clears it",
                ),
            ] {
                if ui
                    .selectable_label(s.tool == tool, name)
                    .on_hover_text(tip)
                    .clicked()
                {
                    cmds.push(Command::SetTool(tool));
                }
            }
            ui.separator();
            for cmd in [Command::ClearBoard, Command::InvertBoard] {
                if ui.button(cmd.label()).clicked() {
                    cmds.push(cmd);
                }
            }
            ui.separator();
            if ui
                .button("Random fill")
                .on_hover_text("Self-play with weighted pieces at random spots (Ctrl+F)")
                .clicked()
            {
                cmds.push(Command::RandomFill);
            }
            // One allocation (slider without its number box), so the wrapped
            // toolbar never splits it and overflows a narrow window.
            let mut pct = s.fill_percent;
            // A slider lays itself out in a nested row, which the wrapped
            // toolbar cannot wrap: start a new row when it would not fit.
            // (In a wrapping row `available_width` is the whole row's.)
            if ui.max_rect().right() - ui.cursor().left() < ui.spacing().slider_width + 70.0 {
                ui.end_row();
            }
            let r = ui
                .add(egui::Slider::new(&mut pct, 0..=80).show_value(false))
                .on_hover_text("How full Random fill makes the board");
            let label = ui.label(format!("{pct}% fill"));
            let r = r.labelled_by(label.id);
            if r.changed() {
                cmds.push(Command::SetFillPercent(pct));
            }
            ui.separator();
            let size = state.doc.board.size();
            egui::ComboBox::from_label("size")
                .selected_text(format!("{size}"))
                .show_ui(ui, |ui| {
                    for (w, h) in [(8, 8), (10, 10), (11, 11)] {
                        if let Ok(preset) = BoardSize::new(w, h)
                            && ui.selectable_label(preset == size, format!("{preset}")).clicked()
                        {
                            cmds.push(Command::SetSize(preset));
                        }
                    }
                });
            if ui
                .button("Custom…")
                .on_hover_text("Any width and height, typed or dragged")
                .clicked()
            {
                self.custom = (size.w(), size.h());
                self.custom_open = true;
            }
        });
        self.custom_size_window(ui, cmds);
    }

    /// A small window, not a popup, so the numbers can be typed: a popup
    /// closes on the first click inside it. Out-of-range sizes say why.
    fn custom_size_window(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        let mut open = self.custom_open;
        let mut used = false;
        // Below the menu and tool bars, beside the board, not over the menus.
        egui::Window::new("Custom board size")
            .default_pos(ui.max_rect().left_top() + vec2(24.0, 72.0))
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ui.ctx(), |ui| {
                // Not clamped: a size out of range is refused below, saying why.
                egui::Grid::new("custom_size").show(ui, |ui| {
                    let label = ui.label("width");
                    ui.add(egui::DragValue::new(&mut self.custom.0))
                        .labelled_by(label.id);
                    ui.end_row();
                    let label = ui.label("height");
                    ui.add(egui::DragValue::new(&mut self.custom.1))
                        .labelled_by(label.id);
                    ui.end_row();
                });
                match BoardSize::new(self.custom.0, self.custom.1) {
                    Ok(new) => {
                        if ui.button(format!("Use {new}")).clicked() {
                            cmds.push(Command::SetSize(new));
                            used = true;
                        }
                    }
                    Err(e) => {
                        ui.colored_label(paint::BAD, e);
                    }
                }
            });
        self.custom_open = open && !used;
    }

    fn board(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let size = state.doc.board.size();
        let avail = ui.available_size() - vec2(0.0, 200.0);
        let cell = (avail.x / size.w() as f32)
            .min(avail.y / size.h() as f32)
            .clamp(12.0, 56.0);
        let board_size = vec2(cell * size.w() as f32, cell * size.h() as f32);
        let (response, painter) = ui
            .horizontal(|ui| {
                ui.add_space(((ui.available_width() - board_size.x) / 2.0).max(0.0));
                ui.allocate_painter(board_size, Sense::click_and_drag())
            })
            .inner;
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "board"));
        let grid = Grid {
            rect: response.rect,
            cell,
            size,
        };
        let set = &state.doc.set;

        // The cells: the live board, or a solution step.
        let step = live.solution_step.zip(live.solution());
        let shown: Option<Bits> = step.and_then(|(i, sol)| {
            if i == 0 {
                live.verdict.as_ref().map(|v| v.validation.start)
            } else {
                sol.steps().get(i - 1).map(|s| s.board)
            }
        });
        painter.rect_filled(grid.rect.expand(3.0), CornerRadius::same(6), paint::GRID);
        for y in 0..size.h() {
            for x in 0..size.w() {
                let color = match shown {
                    Some(bits) => {
                        if bits >> size.bit(x, y) & 1 == 1 {
                            paint::cell_color(state.doc.board.get(x, y), &set.pieces).gamma_multiply(0.55)
                        } else {
                            paint::EMPTY
                        }
                    }
                    None => paint::cell_color(state.doc.board.get(x, y), &set.pieces),
                };
                painter.rect_filled(
                    grid.cell_rect(x, y).shrink(cell * 0.05),
                    CornerRadius::same((cell * 0.12) as u8),
                    color,
                );
            }
        }

        // The danger panel's heatmap and dead regions, on the live board.
        if shown.is_none() && live.debug_board.is_none() {
            crate::app::panels::danger_overlay::draw(&painter, &grid, state, live);
            crate::app::panels::danger_overlay::hover(&response, &grid, state, live);
            crate::app::panels::danger_overlay::board_legend(ui, state, live);
        }

        // Full lines on a painted board: validation clears them first.
        if shown.is_none()
            && let Some(v) = &live.verdict
            && !v.validation.cleared_first.is_empty()
        {
            for r in grid.line_rect(v.validation.cleared_first) {
                painter.rect_stroke(
                    r,
                    CornerRadius::same(3),
                    Stroke::new(3.0, paint::WARN),
                    egui::StrokeKind::Inside,
                );
            }
        }

        // A solution step: the piece placed and the lines it clears.
        if let Some((i, sol)) = step
            && let Some(s) = sol.steps().get(i)
            && let Some(v) = &live.verdict
        {
            let piece_idx = v.validation.holder()[usize::from(s.slot)];
            let piece = set.piece(piece_idx);
            for &(dx, dy) in piece.cells() {
                let r = grid.cell_rect(
                    usize::from(s.x) + usize::from(dx),
                    usize::from(s.y) + usize::from(dy),
                );
                painter.rect_filled(
                    r.shrink(cell * 0.05),
                    CornerRadius::same((cell * 0.12) as u8),
                    paint::piece_color(piece, piece_idx),
                );
                painter.rect_stroke(
                    r.shrink(cell * 0.05),
                    CornerRadius::same((cell * 0.12) as u8),
                    Stroke::new(2.0, Color32::WHITE),
                    egui::StrokeKind::Inside,
                );
            }
            for r in grid.line_rect(s.lines) {
                painter.rect_stroke(
                    r,
                    CornerRadius::same(3),
                    Stroke::new(3.0, paint::OK),
                    egui::StrokeKind::Inside,
                );
            }
        }

        // Lines that just cleared in manual play.
        if let Some(f) = &live.flash {
            let t = ((ui.input(|i| i.time) - f.started) / Flash::SECONDS).clamp(0.0, 1.0) as f32;
            let alpha = ((1.0 - t) * 220.0) as u8;
            for y in 0..size.h() {
                for x in 0..size.w() {
                    if f.cells >> size.bit(x, y) & 1 == 1 {
                        painter.rect_filled(
                            grid.cell_rect(x, y).shrink(cell * 0.05),
                            CornerRadius::same((cell * 0.12) as u8),
                            Color32::from_rgba_unmultiplied(255, 255, 255, alpha),
                        );
                    }
                }
            }
        }

        if let Some(db) = &live.debug_board {
            debug_overlay(ui, &painter, &grid, state, db, live.debug_since);
            return;
        }
        self.drop_target(ui, &response, &grid, state, live, cmds);
        if shown.is_none() {
            self.paint_input(ui, &response, &grid, state, cmds);
        }
    }

    /// Brush strokes (from the press on, so a click paints too) and line fills.
    fn paint_input(
        &mut self,
        ui: &Ui,
        response: &egui::Response,
        grid: &Grid,
        state: &State,
        cmds: &mut Vec<Command>,
    ) {
        let down = response.is_pointer_button_down_on();
        if !down {
            self.painting = false;
        }
        let Some((x, y)) = response.interact_pointer_pos().and_then(|p| grid.cell_at(p)) else {
            return;
        };
        match state.settings.tool {
            Tool::Brush => {
                if !down {
                    return;
                }
                if !self.painting {
                    self.painting = true;
                    self.stroke += 1;
                }
                let erase = ui.input(|i| i.pointer.secondary_down());
                let cell = if erase { Cell::Empty } else { Cell::Painted };
                if state.doc.board.get(x, y).is_filled() == erase {
                    cmds.push(Command::Paint {
                        x,
                        y,
                        cell,
                        stroke: self.stroke,
                    });
                }
            }
            Tool::Row | Tool::Column => {
                if response.clicked() || response.secondary_clicked() {
                    let line = if state.settings.tool == Tool::Row {
                        Line::Row(y)
                    } else {
                        Line::Column(x)
                    };
                    cmds.push(Command::FillLine {
                        line,
                        filled: response.clicked(),
                    });
                }
            }
        }
    }

    /// A holder piece dragged over the board: a ghost shows where it lands
    /// and whether it fits; releasing places it.
    fn drop_target(
        &self,
        ui: &Ui,
        response: &egui::Response,
        grid: &Grid,
        state: &State,
        live: &Live,
        cmds: &mut Vec<Command>,
    ) {
        let Some(drag) = response.dnd_hover_payload::<SlotDrag>() else {
            return;
        };
        let Some(piece_idx) = state.doc.slots.get(drag.0).and_then(|s| s.piece) else {
            return;
        };
        let Some(pointer) = ui.ctx().pointer_hover_pos() else {
            return;
        };
        let piece = state.doc.set.piece(piece_idx);
        // The pointer holds the piece by its middle.
        let corner = pointer - vec2(piece.width() as f32, piece.height() as f32) * grid.cell / 2.0
            + Vec2::splat(grid.cell / 2.0);
        let Some((x, y)) = grid.cell_at(corner) else {
            return;
        };
        let shapes = &live.shapes;
        let fits = x + piece.width() <= grid.size.w()
            && y + piece.height() <= grid.size.h()
            && shapes
                .shape(piece_idx)
                .fits(state.doc.board.bits(), shapes.geometry.full)
                >> grid.size.bit(x, y)
                & 1
                == 1;
        let color = if fits {
            paint::piece_color(piece, piece_idx).gamma_multiply(0.7)
        } else {
            paint::BAD.gamma_multiply(0.6)
        };
        for &(dx, dy) in piece.cells() {
            let (cx, cy) = (x + usize::from(dx), y + usize::from(dy));
            if cx < grid.size.w() && cy < grid.size.h() {
                let r = grid.cell_rect(cx, cy).shrink(grid.cell * 0.05);
                ui.painter()
                    .rect_filled(r, CornerRadius::same((grid.cell * 0.12) as u8), color);
            }
        }
        if response.dnd_release_payload::<SlotDrag>().is_some() {
            cmds.push(Command::Place { slot: drag.0, x, y });
        }
    }
}

/// Colours of the 1st, 2nd, 3rd and 4th placement on the debugger's path.
const SEQUENCE: [Color32; 4] = [
    Color32::from_rgb(0x31, 0x7b, 0xd6),
    Color32::from_rgb(0xe0, 0x8a, 0x1f),
    Color32::from_rgb(0x8e, 0x4f, 0xc8),
    Color32::from_rgb(0x2e, 0x9e, 0x8b),
];

/// The tree debugger's node on the board: the pieces placed along the path in
/// sequence colours, the candidate outlined, the lines it cleared flashing.
fn debug_overlay(
    ui: &Ui,
    painter: &egui::Painter,
    grid: &Grid,
    state: &State,
    db: &crate::app::shell::debugger::DebugBoard,
    since: f64,
) {
    let size = grid.size;
    let cell = grid.cell;
    let radius = CornerRadius::same((cell * 0.12) as u8);
    for y in 0..size.h() {
        for x in 0..size.w() {
            let bit = 1u128 << size.bit(x, y);
            let color = if db.board & bit == 0 {
                paint::EMPTY
            } else if let Some(i) = db.placed.iter().rposition(|m| m & bit != 0) {
                SEQUENCE[i % SEQUENCE.len()]
            } else {
                // A replayed game's board need not be the document's.
                let cell = match state.doc.board.get(x, y) {
                    Cell::Empty => Cell::Painted,
                    c => c,
                };
                paint::cell_color(cell, &state.doc.set.pieces).gamma_multiply(0.6)
            };
            painter.rect_filled(grid.cell_rect(x, y).shrink(cell * 0.05), radius, color);
        }
    }
    if let Some((mask, _)) = db.candidate {
        for y in 0..size.h() {
            for x in 0..size.w() {
                if mask >> size.bit(x, y) & 1 == 1 {
                    let r = grid.cell_rect(x, y).shrink(cell * 0.05);
                    painter.rect_stroke(
                        r,
                        radius,
                        Stroke::new(3.0, Color32::WHITE),
                        egui::StrokeKind::Inside,
                    );
                }
            }
        }
    }
    if !db.cleared.is_empty() {
        // A short flash, then a steady outline.
        let age = ui.input(|i| i.time) - since;
        let pulse = if age < 1.2 {
            ui.ctx().request_repaint();
            (0.55 + 0.45 * (age * 10.0).cos()) as f32
        } else {
            1.0
        };
        for r in grid.line_rect(db.cleared) {
            painter.rect_stroke(
                r,
                CornerRadius::same(3),
                Stroke::new(4.0, paint::WARN.gamma_multiply(pulse)),
                egui::StrokeKind::Inside,
            );
        }
    }
}

/// Solvable (with "show solution"), unsolvable (with "repair"), or a note
/// that full lines were cleared first.
fn verdict_banner(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    let Some(v) = &live.verdict else {
        banner(
            ui,
            paint::PAINTED,
            "Holder empty: deal, or pick pieces from the palette",
            |_| {},
        );
        return;
    };
    let val = &v.validation;
    let set = &state.doc.set;
    // One line whatever the verdict, so the board never jumps.
    let cleared = if val.cleared_first.is_empty() {
        String::new()
    } else {
        format!(
            " after clearing the full {} first, as validation does",
            val.cleared_first.describe()
        )
    };
    if val.solvable {
        let sol = val.solution.as_ref();
        let text = format!(
            "Solvable: {} fits{cleared} ({} placements)",
            set.ids(val.holder()),
            tenten_engine::text::grouped(val.nodes)
        );
        banner(ui, paint::OK, &text, |ui| {
            let Some(sol) = sol else { return };
            match live.solution_step {
                None => {
                    if ui.button("Show solution").clicked() {
                        cmds.push(Command::ShowSolution(Some(0)));
                    }
                }
                Some(i) => {
                    let n = sol.steps().len();
                    if ui.button("Close").on_hover_text("Close the solution").clicked() {
                        cmds.push(Command::ShowSolution(None));
                    }
                    if ui
                        .add_enabled(i + 1 < n, egui::Button::new("Next"))
                        .on_hover_text("Next step")
                        .clicked()
                    {
                        cmds.push(Command::ShowSolution(Some(i + 1)));
                    }
                    if ui
                        .add_enabled(i > 0, egui::Button::new("Back"))
                        .on_hover_text("Previous step")
                        .clicked()
                    {
                        cmds.push(Command::ShowSolution(Some(i - 1)));
                    }
                    if let Some(s) = sol.steps().get(i) {
                        let id = &set.piece(val.holder()[usize::from(s.slot)]).id;
                        let clears = if s.lines.is_empty() {
                            String::new()
                        } else {
                            format!(", clears {}", s.lines.describe())
                        };
                        ui.label(
                            RichText::new(format!("Step {}/{n}: {id} at ({}, {}){clears}", i + 1, s.x, s.y))
                                .color(Color32::WHITE),
                        );
                    }
                }
            }
        });
    } else {
        let text = format!(
            "Unsolvable: no order places {}{cleared} ({} placements)",
            set.ids(val.holder()),
            tenten_engine::text::grouped(val.nodes)
        );
        banner(ui, paint::BAD, &text, |ui| {
            let label = if live.repair_running {
                "Repairing…"
            } else {
                "Repair"
            };
            if ui
                .add_enabled(!live.repair_running, egui::Button::new(label))
                .on_hover_text("Ctrl+R")
                .clicked()
            {
                cmds.push(Command::Repair);
            }
            if live.repair_running && ui.button("Cancel").clicked() {
                cmds.push(Command::CancelRepair);
            }
        });
    }
}

fn banner(ui: &mut Ui, color: Color32, text: &str, buttons: impl FnOnce(&mut Ui)) {
    egui::Frame::new()
        .fill(color)
        .corner_radius(6)
        .inner_margin(egui::Margin::symmetric(10, 6))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            // The buttons first, at the right edge; the sentence wraps in
            // what is left, so a narrow window never pushes Repair under
            // the inspector.
            ui.horizontal(|ui| {
                // Room kept for the widest buttons ("Show solution", or
                // "Repairing…" with "Cancel").
                let text_width = (ui.available_width() - 150.0).max(80.0);
                ui.allocate_ui(egui::vec2(text_width, 0.0), |ui| {
                    ui.add(egui::Label::new(RichText::new(text).color(Color32::WHITE).strong()).wrap());
                });
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), buttons);
            });
        });
}
