//! Self-play with weighted random pieces at random fitting spots: how the
//! benchmark and the window's "random fill" make realistic boards (a board a
//! game could leave, not white noise).

use crate::model::board::{Bits, Board, Cell, Lines};
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;

/// Puts `piece` on `board` with its box's top-left at `anchor` (which must
/// fit), colouring its cells by kind, then clears the lines it completes.
pub fn play(board: &mut Board, shapes: &Shapes, piece: PieceIdx, anchor: u32) -> Lines {
    let (_, lines) = shapes.place(board.bits(), piece, anchor);
    let mask = shapes.shape(piece).mask << anchor;
    let w = board.size().w();
    for i in 0..board.size().cells() {
        if mask >> i & 1 == 1 {
            board.set(i % w, i / w, Cell::Piece(piece));
        }
    }
    board.clear(lines);
    lines
}

/// A uniformly chosen set bit of `bits` (which must not be 0).
fn pick_bit(bits: Bits, rng: &mut Generator) -> u32 {
    let mut b = bits;
    for _ in 0..rng.below(bits.count_ones() as usize) {
        b &= b - 1;
    }
    b.trailing_zeros()
}

/// A random fitting anchor for `piece`, if any.
pub fn random_spot(shapes: &Shapes, board: Bits, piece: PieceIdx, rng: &mut Generator) -> Option<u32> {
    let fits = shapes.shape(piece).fits(board, shapes.geometry.full);
    (fits != 0).then(|| pick_bit(fits, rng))
}

/// Plays random weighted pieces at random spots on `board` until at least
/// `fraction` of the cells are filled. Games that run out of room start over
/// from an empty board, so the result always comes from real play. Gives up
/// after a bounded number of games and returns the fullest board seen.
pub fn random_fill(shapes: &Shapes, set: &PieceSet, fraction: f64, rng: &mut Generator) -> Board {
    let size = shapes.size();
    let target = (fraction.clamp(0.0, 1.0) * size.cells() as f64).round() as usize;
    let mut best = Board::empty(size);
    for _ in 0..200 {
        let mut board = Board::empty(size);
        loop {
            if board.filled() >= target {
                return board;
            }
            let piece = rng.draw(set);
            match random_spot(shapes, board.bits(), piece, rng) {
                Some(anchor) => {
                    play(&mut board, shapes, piece, anchor);
                }
                None => break,
            }
            if board.filled() > best.filled() {
                best = board.clone();
            }
        }
    }
    best
}

/// A deal met in self-play: the board and the holder dealt on it.
#[derive(Clone, Debug)]
pub struct PlayedDeal {
    pub board: Bits,
    pub holder: Vec<PieceIdx>,
}

/// Plays games of random weighted holders of `k` pieces, each piece at a
/// random fitting spot, and records every deal met, `n` in all. A game ends
/// when a piece finds no spot; the next starts on an empty board. Fills
/// range from empty to the jammed boards where games end.
pub fn played_deals(
    shapes: &Shapes,
    set: &PieceSet,
    k: usize,
    n: usize,
    rng: &mut Generator,
) -> Vec<PlayedDeal> {
    let mut out = Vec::with_capacity(n);
    let mut board: Bits = 0;
    while out.len() < n {
        let holder = rng.deal(set, k);
        out.push(PlayedDeal {
            board,
            holder: holder.clone(),
        });
        for &piece in &holder {
            match random_spot(shapes, board, piece, rng) {
                Some(anchor) => board = shapes.place(board, piece, anchor).0,
                None => {
                    board = 0;
                    break;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;
    use crate::model::board::BoardSize;

    #[test]
    fn random_fill_reaches_its_target_by_real_play() {
        let (set, shapes) = classic();
        let mut rng = Generator::new(9);
        let board = random_fill(&shapes, &set, 0.4, &mut rng);
        assert!(board.filled() >= 40, "{}", board.filled());
        // Played boards hold no full line: every completed line was cleared.
        assert!(shapes.geometry.full_lines(board.bits()).is_empty());
        assert!(board.cells().iter().all(|c| !matches!(c, Cell::Painted)));
    }

    #[test]
    fn self_play_meets_deals_of_every_fill() {
        let (set, shapes) = classic();
        let deals = played_deals(&shapes, &set, 3, 2000, &mut Generator::new(1));
        assert_eq!(deals.len(), 2000);
        let fills: Vec<u32> = deals.iter().map(|d| d.board.count_ones()).collect();
        assert!(fills.contains(&0));
        assert!(fills.iter().any(|&f| f > 60), "max fill {:?}", fills.iter().max());
    }

    #[test]
    fn play_colours_the_piece_and_clears_lines() {
        let (set, shapes) = classic();
        let h5 = set.index_of("h5").unwrap();
        let mut board = Board::empty(BoardSize::CLASSIC);
        assert!(play(&mut board, &shapes, h5, 0).is_empty());
        assert_eq!(board.get(4, 0), Cell::Piece(h5));
        let lines = play(&mut board, &shapes, h5, 5);
        assert_eq!(lines.rows, 1);
        assert_eq!(board.filled(), 0);
    }
}
