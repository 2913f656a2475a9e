//! A logged deal: the board before, the holder, and the placements the
//! player made, each checked against the deal when read (RON and JSON
//! Lines logs alike).

use crate::io::formats::{FormatError, RawDeal};
use crate::model::board::{Bits, Board};
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;

/// A recorded deal: the board before, the pieces left to place, and the
/// placements made (piece, anchor).
#[derive(Clone, Debug, PartialEq)]
pub struct Logged {
    pub board: Bits,
    pub holder: Vec<PieceIdx>,
    pub moves: Vec<(PieceIdx, u32)>,
}

/// Each move of deal `i` as (piece, anchor), replayed on its board.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_moves(
    raw: &RawDeal,
    i: usize,
    board: &Board,
    holder: &[PieceIdx],
    shapes: &Shapes,
    set: &PieceSet,
    text: &str,
    file: &str,
) -> Result<Vec<(PieceIdx, u32)>, FormatError> {
    let mut left = holder.to_vec();
    let mut bits = board.bits();
    let size = board.size();
    let mut out = Vec::with_capacity(raw.moves.len());
    for (m, (id, x, y)) in raw.moves.iter().enumerate() {
        let refuse = |why: String| {
            Err(FormatError::new(
                file,
                raw.move_at(text, m),
                format!("deal {i}, move {m} ({id:?}, {x}, {y}): {why}"),
            ))
        };
        let Some(piece) = set.index_of(id) else {
            return refuse(format!("unknown piece (not in the piece set \"{}\")", set.name));
        };
        let Some(slot) = left.iter().position(|&p| p == piece) else {
            return refuse(format!(
                "{id} is not in the holder {} (or was placed already)",
                set.ids(holder)
            ));
        };
        let on_board = *x < size.w() && *y < size.h();
        // Only a place on the board has an anchor (a typed column of 2^60
        // would overflow the product).
        let anchor = if on_board { (y * size.w() + x) as u32 } else { 0 };
        let fits = on_board && shapes.shape(piece).fits(bits, shapes.geometry.full) >> anchor & 1 == 1;
        if !fits {
            return refuse(format!(
                "the piece does not fit the {size} board there (column {x}, row {y} is its top-left corner, from 0)"
            ));
        }
        left.remove(slot);
        bits = shapes.place(bits, piece, anchor).0;
        out.push((piece, anchor));
    }
    Ok(out)
}
