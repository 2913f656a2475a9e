//! Where the board is drawn on screen: a square cell grid in a rectangle,
//! shared by the board and the overlays drawn over it.

use egui::{Rect, Vec2, vec2};

use tenten_engine::model::board::{BoardSize, Lines};

/// Where the board is drawn: a square cell grid inside `rect`.
pub(crate) struct Grid {
    pub rect: Rect,
    pub cell: f32,
    pub size: BoardSize,
}

impl Grid {
    pub fn cell_rect(&self, x: usize, y: usize) -> Rect {
        Rect::from_min_size(
            self.rect.min + vec2(x as f32, y as f32) * self.cell,
            Vec2::splat(self.cell),
        )
    }

    pub fn cell_at(&self, pos: egui::Pos2) -> Option<(usize, usize)> {
        let p = pos - self.rect.min;
        if p.x < 0.0 || p.y < 0.0 {
            return None;
        }
        let (x, y) = ((p.x / self.cell) as usize, (p.y / self.cell) as usize);
        (x < self.size.w() && y < self.size.h()).then_some((x, y))
    }

    pub fn line_rect(&self, lines: Lines) -> Vec<Rect> {
        let mut out = Vec::new();
        for y in 0..self.size.h() {
            if lines.rows & (1 << y) != 0 {
                out.push(self.cell_rect(0, y).union(self.cell_rect(self.size.w() - 1, y)));
            }
        }
        for x in 0..self.size.w() {
            if lines.cols & (1 << x) != 0 {
                out.push(self.cell_rect(x, 0).union(self.cell_rect(x, self.size.h() - 1)));
            }
        }
        out
    }
}
