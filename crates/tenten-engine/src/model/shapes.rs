//! Pieces compiled for one board size: each piece as a bit mask at the origin
//! plus the anchors where its box fits inside the board, so "where does this
//! piece fit?" is a handful of shift-and operations on the whole board at once
//! (the bitfield tricks of the 1010! analysis).

use crate::model::board::{Bits, BoardSize, Geometry, Lines};
use crate::model::pieces::{PieceIdx, PieceSet};

/// One piece on one board size.
#[derive(Clone, Debug)]
pub struct Shape {
    /// The cells with the box's top-left at bit 0.
    pub mask: Bits,
    /// Bits of the anchors (top-left of the box) that keep the box on the board.
    pub anchors: Bits,
    /// `dy * width + dx` of each cell.
    offsets: [u8; 25],
    len: u8,
    pub width: u8,
    pub height: u8,
}

impl Shape {
    /// The anchors where the piece fits on `board` (equation 3: every cell of
    /// the piece lands on an empty cell inside the board).
    #[inline]
    pub fn fits(&self, board: Bits, full: Bits) -> Bits {
        let free = !board & full;
        let mut fit = self.anchors;
        for &o in &self.offsets[..usize::from(self.len)] {
            fit &= free >> o;
        }
        fit
    }

    pub fn cells(&self) -> usize {
        usize::from(self.len)
    }
}

/// A piece set compiled for one board size.
#[derive(Clone, Debug)]
pub struct Shapes {
    pub geometry: Geometry,
    pub shapes: Vec<Shape>,
    /// Column and row of each bit, to find the lines a placement touches.
    xy: [(u8, u8); 128],
}

impl Shapes {
    /// Compiles `set` for `size`. A piece larger than the board gets no anchors.
    pub fn new(set: &PieceSet, size: BoardSize) -> Self {
        let geometry = Geometry::new(size);
        let (w, h) = (size.w(), size.h());
        let shapes = set
            .pieces
            .iter()
            .map(|p| {
                let mut offsets = [0u8; 25];
                let mut mask: Bits = 0;
                for (i, &(dx, dy)) in p.cells().iter().enumerate() {
                    let o = usize::from(dy) * w + usize::from(dx);
                    offsets[i] = o as u8;
                    mask |= 1 << o;
                }
                let mut anchors: Bits = 0;
                if p.width() <= w && p.height() <= h {
                    for y in 0..=h - p.height() {
                        for x in 0..=w - p.width() {
                            anchors |= 1 << (y * w + x);
                        }
                    }
                }
                Shape {
                    mask,
                    anchors,
                    offsets,
                    len: p.size() as u8,
                    width: p.width() as u8,
                    height: p.height() as u8,
                }
            })
            .collect();
        let mut xy = [(0, 0); 128];
        for (i, cell) in xy.iter_mut().enumerate().take(size.cells()) {
            *cell = ((i % w) as u8, (i / w) as u8);
        }
        Self { geometry, shapes, xy }
    }

    pub fn size(&self) -> BoardSize {
        self.geometry.size
    }

    pub fn shape(&self, piece: PieceIdx) -> &Shape {
        &self.shapes[usize::from(piece)]
    }

    /// (column, row) of an anchor bit.
    #[inline]
    pub fn xy(&self, anchor: u32) -> (usize, usize) {
        let (x, y) = self.xy[anchor as usize];
        (usize::from(x), usize::from(y))
    }

    /// Places `piece` at `anchor` (which must fit) and clears the rows and
    /// columns it completes, all at the same time; returns the new board and
    /// the cleared lines. Only the lines the piece touches are checked.
    #[inline]
    pub fn place(&self, board: Bits, piece: PieceIdx, anchor: u32) -> (Bits, Lines) {
        let shape = self.shape(piece);
        let placed = board | shape.mask << anchor;
        let (x, y) = self.xy(anchor);
        let lines = self.geometry.full_lines_in(
            placed,
            y,
            y + usize::from(shape.height),
            x,
            x + usize::from(shape.width),
        );
        if lines.is_empty() {
            (placed, lines)
        } else {
            (placed & !self.geometry.mask_of(lines), lines)
        }
    }

    /// Whether `piece` fits anywhere on `board`.
    pub fn fits_anywhere(&self, board: Bits, piece: PieceIdx) -> bool {
        self.shape(piece).fits(board, self.geometry.full) != 0
    }
}

/// Points for a placement (the 1010! analysis): a point per cell placed, and
/// 5 r (r + 1) when r lines clear at once.
pub fn score(cells: usize, lines: Lines) -> u64 {
    let r = u64::from(lines.count());
    cells as u64 + 5 * r * (r + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;

    #[test]
    fn every_anchor_keeps_the_piece_inside() {
        let (set, shapes) = classic();
        let full = shapes.geometry.full;
        let h5 = set.index_of("h5").unwrap();
        assert_eq!(shapes.shape(h5).fits(0, full).count_ones(), 6 * 10);
        let sq3 = set.index_of("sq3").unwrap();
        assert_eq!(shapes.shape(sq3).fits(0, full).count_ones(), 8 * 8);
        let dot = set.index_of("dot").unwrap();
        assert_eq!(shapes.shape(dot).fits(full & !(1 << 55), full), 1 << 55);
    }

    #[test]
    fn a_piece_larger_than_the_board_never_fits() {
        let mut set = PieceSet::classic();
        set.pieces[0] = crate::model::pieces::Piece::from_rows("long", "", 1, &["#####".into()]).unwrap();
        let shapes = Shapes::new(&set, BoardSize::new(4, 16).unwrap());
        assert_eq!(shapes.shape(0).fits(0, shapes.geometry.full), 0);
    }

    #[test]
    fn placing_clears_completed_rows_and_columns_together() {
        let (set, shapes) = classic();
        let g = &shapes.geometry;
        // Row 0 missing its first two cells, column 1 missing its top cell too.
        let board = (g.rows[0] | g.cols[1]) & !0b11;
        let h2 = set.index_of("h2").unwrap();
        let (after, lines) = shapes.place(board, h2, 0);
        assert_eq!(lines, Lines { rows: 1, cols: 2 });
        assert_eq!(after, 0);
        assert_eq!(score(2, lines), 2 + 5 * 2 * 3);
    }
}
