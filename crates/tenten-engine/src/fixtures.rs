//! What the engine's unit tests share: the classic set compiled for the
//! classic board, holders named by piece id, and boards drawn as text.

use crate::model::board::{Bits, Board, BoardSize, Cell};
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;

/// The classic 1010! set and its shapes on the 10x10 board.
pub fn classic() -> (PieceSet, Shapes) {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    (set, shapes)
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
