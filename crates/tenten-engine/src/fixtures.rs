//! What the engine's unit tests share: the classic set compiled for the
//! classic board, a large set on 8x8, holders named by piece id, and boards
//! drawn as text or at random.

use crate::model::board::{Bits, Board, BoardSize, Cell};
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;

/// The classic 1010! set and its shapes on the 10x10 board.
pub fn classic() -> (PieceSet, Shapes) {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    (set, shapes)
}

/// The classic set on 10x10, or with `fixed` the 41 pieces never rotated
/// of `presets/pieces/fixed-41.ron` on 8x8 (a real game's size).
pub fn classic_or_fixed41(fixed: bool) -> (PieceSet, Shapes) {
    if !fixed {
        return classic();
    }
    let text = include_str!("../../../presets/pieces/fixed-41.ron");
    let set = crate::io::formats::parse_piece_set(text, "fixed-41").unwrap();
    let shapes = Shapes::new(&set, BoardSize::new(8, 8).unwrap());
    (set, shapes)
}

/// A board of `shapes`' size with each cell filled with chance `fill`.
pub fn random_board(shapes: &Shapes, fill: f64, seed: u64) -> Bits {
    let mut g = crate::model::generator::Generator::new(seed);
    (0..shapes.size().cells())
        .filter(|_| g.unit() < fill)
        .fold(0, |b, i| b | 1 << i)
}

/// The holder of the pieces named `ids` (`["sq3", "h5"]`) in `set`.
pub fn holder(set: &PieceSet, ids: &[&str]) -> Vec<PieceIdx> {
    ids.iter()
        .map(|id| set.index_of(id).unwrap_or_else(|| panic!("no piece {id}")))
        .collect()
}

/// A board drawn row by row, `#` filled and anything else empty; its size
/// is the drawing's.
pub fn board(rows: &[&str]) -> Bits {
    let size = BoardSize::new(rows[0].len(), rows.len()).unwrap();
    let mut b = Board::empty(size);
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c == '#' {
                b.set(x, y, Cell::Painted);
            }
        }
    }
    b.bits()
}
