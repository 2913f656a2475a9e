//! Colours and small drawings shared by the panels.

use egui::{Color32, CornerRadius, Rect, Role, Sense, Ui, Vec2, WidgetInfo, vec2};

use tenten_engine::model::board::Cell;
use tenten_engine::model::pieces::{Piece, PieceIdx};

pub const EMPTY: Color32 = Color32::from_rgb(0xe8, 0xe6, 0xe1);
pub const PAINTED: Color32 = Color32::from_rgb(0x8a, 0x8f, 0x98);
pub const GRID: Color32 = Color32::from_rgb(0xd4, 0xd1, 0xca);
pub const OK: Color32 = Color32::from_rgb(0x2e, 0x9e, 0x5b);
pub const BAD: Color32 = Color32::from_rgb(0xd2, 0x45, 0x3c);
pub const WARN: Color32 = Color32::from_rgb(0xe0, 0x9a, 0x1f);
pub const HIGHLIGHT: Color32 = Color32::from_rgb(0x31, 0x7b, 0xd6);

/// One colour per piece type, close to the game's: same type, same colour.
const PALETTE: [Color32; 12] = [
    Color32::from_rgb(0x7d, 0x5b, 0xa6), // dot
    Color32::from_rgb(0x98, 0xc3, 0x4a), // sq2
    Color32::from_rgb(0x4f, 0xbc, 0xa8), // sq3
    Color32::from_rgb(0xf2, 0xb1, 0x3c), // 2-lines
    Color32::from_rgb(0xec, 0x82, 0x3a), // 3-lines
    Color32::from_rgb(0xe8, 0x60, 0x6e), // 4-lines
    Color32::from_rgb(0xd9, 0x48, 0x48), // 5-lines
    Color32::from_rgb(0x5c, 0xb3, 0xe8), // small corners
    Color32::from_rgb(0x40, 0x7e, 0xd0), // big corners
    Color32::from_rgb(0xb0, 0x6a, 0xc8),
    Color32::from_rgb(0x6a, 0x9a, 0x78),
    Color32::from_rgb(0xc8, 0x8a, 0x5a),
];

/// The colour of a piece: by its paper type t in b(t, r), else by index.
pub fn piece_color(piece: &Piece, idx: PieceIdx) -> Color32 {
    let t = piece
        .label
        .strip_prefix("b(")
        .and_then(|rest| rest.split(',').next())
        .and_then(|t| t.trim().parse::<usize>().ok());
    match t {
        Some(t) if t < 9 => PALETTE[t],
        _ => PALETTE[9 + usize::from(idx) % 3],
    }
}

/// The colour of a board cell.
pub fn cell_color(cell: Cell, pieces: &[Piece]) -> Color32 {
    match cell {
        Cell::Empty => EMPTY,
        Cell::Painted => PAINTED,
        Cell::Piece(i) => pieces.get(usize::from(i)).map_or(PAINTED, |p| piece_color(p, i)),
    }
}

/// Draws `piece` centred in `rect` with square cells of at most `cell` points.
pub fn draw_piece(painter: &egui::Painter, rect: Rect, piece: &Piece, color: Color32, cell: f32) {
    let side = cell.min(rect.width() / 5.0).min(rect.height() / 5.0).max(2.0);
    let size = vec2(piece.width() as f32, piece.height() as f32) * side;
    let origin = rect.center() - size / 2.0;
    for &(dx, dy) in piece.cells() {
        let min = origin + vec2(f32::from(dx), f32::from(dy)) * side;
        let r = Rect::from_min_size(min, Vec2::splat(side)).shrink(side * 0.06);
        painter.rect_filled(r, CornerRadius::same((side * 0.18) as u8), color);
    }
}

/// A clickable tile showing a piece; `label` names it for screen readers and tests.
pub fn piece_tile(
    ui: &mut Ui,
    piece: &Piece,
    color: Color32,
    size: f32,
    selected: bool,
    label: String,
) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), Sense::click());
    response.widget_info(|| WidgetInfo::labeled(Role::Button, ui.is_enabled(), label.clone()));
    let visuals = ui.style().interact_selectable(&response, selected);
    ui.painter().rect(
        rect,
        CornerRadius::same(4),
        visuals.weak_bg_fill,
        visuals.bg_stroke,
        egui::StrokeKind::Inside,
    );
    draw_piece(ui.painter(), rect.shrink(4.0), piece, color, size / 6.0);
    response
}
