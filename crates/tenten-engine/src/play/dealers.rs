//! Block generators for self-play, behind one trait so that a designer adds
//! one in one file: `random` (weighted, never checked), `repair` (the paper's
//! validator and changer), `reject` (redraw the whole holder until it is
//! solvable) and `bag` (deal from a shuffled bag holding the weights'
//! multiset of pieces, refilled when empty).

use std::time::Instant;

use crate::model::board::Bits;
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::search::changer::{ChangeOptions, Outcome, repair};
use crate::search::validator::validate;

/// What a dealer sees of the game.
pub struct Table<'a> {
    pub shapes: &'a Shapes,
    pub set: &'a PieceSet,
    pub board: Bits,
    pub k: usize,
}

/// A dealt holder and what dealing it took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dealt {
    pub holder: Vec<PieceIdx>,
    /// The holder first drawn (the same as `holder` unless it was fixed).
    pub drawn: Vec<PieceIdx>,
    /// The holder first drawn was unsolvable (the dealer may have fixed it).
    pub drawn_unsolvable: bool,
    /// Holders validated beyond the first (changer attempts, redraws).
    pub repairs: u32,
    /// No holder of this size fits the board (as the changer found).
    pub dead: bool,
    /// Microseconds spent validating the first holder, and in all.
    pub validate_us: f64,
    pub total_us: f64,
}

pub trait Dealer: Send {
    fn name(&self) -> &'static str;
    /// The holder for this round, drawing from `rng` (the game's dealing
    /// stream, the same for every dealer given the same seed).
    fn deal(&mut self, table: &Table, rng: &mut Generator) -> Dealt;
}

/// The seed of deal `n` (from 0) of `seed`: each deal of the window's Deal
/// and of the library's dealer draws from its own stream, so the n-th deal
/// of a seed is fixed however the deals before it went; deal 0 draws from
/// `seed` itself, as `tenten deal --seed S` does.
pub fn nth_deal_seed(seed: u64, n: u64) -> u64 {
    seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The generator names `tenten simulate` and the lab accept.
pub const NAMES: [&str; 4] = ["random", "repair", "reject", "bag"];

/// A built-in dealer by name, for a game of `set` (generator files are
/// `play::dealing`'s).
pub fn by_name(name: &str, set: &PieceSet, options: ChangeOptions) -> Option<Box<dyn Dealer>> {
    Some(match name {
        "random" => Box::new(RandomDealer),
        "repair" => Box::new(RepairDealer { options }),
        "reject" => Box::new(RejectDealer { max_draws: 10_000 }),
        "bag" => Box::new(BagDealer::new(set)),
        _ => return None,
    })
}

/// The same pieces in the same order (weights aside): a generator file's
/// set can deal a game of `set`.
pub fn same_pieces(a: &PieceSet, b: &PieceSet) -> bool {
    a.pieces.len() == b.pieces.len()
        && a.pieces
            .iter()
            .zip(&b.pieces)
            .all(|(x, y)| x.id == y.id && x.cells() == y.cells())
}

fn timed_validate(table: &Table, holder: &[PieceIdx]) -> (bool, f64) {
    let t = Instant::now();
    let v = validate(table.shapes, table.board, holder);
    (v.solvable, t.elapsed().as_secs_f64() * 1e6)
}

/// A holder dealt as drawn: validated only to record whether it was fair.
pub fn unchecked(table: &Table, holder: Vec<PieceIdx>) -> Dealt {
    let (solvable, us) = timed_validate(table, &holder);
    Dealt {
        drawn: holder.clone(),
        holder,
        drawn_unsolvable: !solvable,
        validate_us: us,
        total_us: us,
        ..Dealt::default()
    }
}

/// A holder dealt as drawn, not validated: for games whose deals nobody
/// reads back (`Dealing::unrecorded_dealer`).
pub fn unrecorded(holder: Vec<PieceIdx>) -> Dealt {
    Dealt {
        drawn: holder.clone(),
        holder,
        ..Dealt::default()
    }
}

/// Weighted draws, never checked. Validated only to record whether the deal
/// was fair.
pub struct RandomDealer;

impl Dealer for RandomDealer {
    fn name(&self) -> &'static str {
        "random"
    }
    fn deal(&mut self, table: &Table, rng: &mut Generator) -> Dealt {
        unchecked(table, rng.deal(table.set, table.k))
    }
}

/// `RandomDealer`'s draws, not validated (`Dealing::unrecorded_dealer`).
pub struct UnrecordedRandomDealer;

impl Dealer for UnrecordedRandomDealer {
    fn name(&self) -> &'static str {
        "random"
    }
    fn deal(&mut self, table: &Table, rng: &mut Generator) -> Dealt {
        unrecorded(rng.deal(table.set, table.k))
    }
}

/// The paper's improver: validate, and if unsolvable let the changer pick
/// the block to replace (Fig. 4, equations 4 and 5).
pub struct RepairDealer {
    pub options: ChangeOptions,
}

impl Dealer for RepairDealer {
    fn name(&self) -> &'static str {
        "repair"
    }
    fn deal(&mut self, table: &Table, rng: &mut Generator) -> Dealt {
        let drawn = rng.deal(table.set, table.k);
        repaired(table, table.set, drawn, rng, self.options)
    }
}

/// The changer on a drawn holder, its redraws weighted by `weights`.
pub fn repaired(
    table: &Table,
    weights: &PieceSet,
    drawn: Vec<PieceIdx>,
    rng: &mut Generator,
    options: ChangeOptions,
) -> Dealt {
    let t = Instant::now();
    let r = repair(table.shapes, weights, table.board, &drawn, rng, options);
    let total_us = t.elapsed().as_secs_f64() * 1e6;
    Dealt {
        drawn,
        drawn_unsolvable: r.outcome != Outcome::Unchanged,
        repairs: r.attempts.len().saturating_sub(1) as u32,
        dead: r.outcome == Outcome::Dead,
        validate_us: r.attempts.first().map_or(0.0, |a| a.micros),
        total_us,
        holder: r.holder,
    }
}

/// Redraws the whole holder until it is solvable. When the first draw is
/// unsolvable, the changer's exact search (no redraws, the fallback alone)
/// settles first whether the board is dead, so a dead board costs one
/// search, not `max_draws` validations; after `max_draws` failed redraws
/// the dealer deals that search's holder, repaired from the holder first
/// drawn, so it never deals an unsolvable holder while one exists.
pub struct RejectDealer {
    pub max_draws: u32,
}

impl Dealer for RejectDealer {
    fn name(&self) -> &'static str {
        "reject"
    }
    fn deal(&mut self, table: &Table, rng: &mut Generator) -> Dealt {
        let drawn = rng.deal(table.set, table.k);
        rejected(table, table.set, drawn, rng, self.max_draws)
    }
}

/// Reject-and-redraw of a drawn holder, redrawing by `weights` (see
/// `RejectDealer`).
pub fn rejected(
    table: &Table,
    weights: &PieceSet,
    drawn: Vec<PieceIdx>,
    rng: &mut Generator,
    max_draws: u32,
) -> Dealt {
    let t = Instant::now();
    let (solvable, us) = timed_validate(table, &drawn);
    let mut out = Dealt {
        drawn: drawn.clone(),
        drawn_unsolvable: !solvable,
        validate_us: us,
        ..Dealt::default()
    };
    if solvable {
        out.holder = drawn;
        out.total_us = t.elapsed().as_secs_f64() * 1e6;
        return out;
    }
    let options = ChangeOptions {
        max_redraws: 0,
        ..ChangeOptions::default()
    };
    let exact = repair(table.shapes, weights, table.board, &drawn, rng, options);
    out.repairs += exact.attempts.len().saturating_sub(1) as u32;
    if exact.outcome == Outcome::Dead {
        out.dead = true;
        out.holder = drawn;
        out.total_us = t.elapsed().as_secs_f64() * 1e6;
        return out;
    }
    for _ in 1..max_draws {
        let holder = rng.deal(weights, table.k);
        out.repairs += 1;
        if timed_validate(table, &holder).0 {
            out.holder = holder;
            out.total_us = t.elapsed().as_secs_f64() * 1e6;
            return out;
        }
    }
    out.holder = exact.holder;
    out.total_us = t.elapsed().as_secs_f64() * 1e6;
    out
}

/// Deals from a shuffled bag holding each piece as many times as its weight
/// (the Tetris "7-bag" idea with the weights' multiset); refilled when empty.
pub struct BagDealer {
    full: Vec<PieceIdx>,
    bag: Vec<PieceIdx>,
}

impl BagDealer {
    pub fn new(set: &PieceSet) -> Self {
        let full = (0..set.pieces.len() as PieceIdx)
            .flat_map(|i| std::iter::repeat_n(i, set.piece(i).weight as usize))
            .collect();
        Self {
            full,
            bag: Vec::new(),
        }
    }

    pub fn next(&mut self, rng: &mut Generator) -> PieceIdx {
        if self.bag.is_empty() {
            self.bag = self.full.clone();
            // Fisher-Yates, drawing from the game's stream.
            for i in (1..self.bag.len()).rev() {
                let j = rng.below(i + 1);
                self.bag.swap(i, j);
            }
        }
        self.bag.pop().unwrap_or(0)
    }
}

impl Dealer for BagDealer {
    fn name(&self) -> &'static str {
        "bag"
    }
    fn deal(&mut self, table: &Table, rng: &mut Generator) -> Dealt {
        let holder = (0..table.k).map(|_| self.next(rng)).collect();
        unchecked(table, holder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;
    use crate::model::board::BoardSize;

    #[test]
    fn a_bag_deals_the_weights_multiset_exactly_once_per_refill() {
        let (set, shapes) = classic();
        let table = Table {
            shapes: &shapes,
            set: &set,
            board: 0,
            k: 3,
        };
        let mut bag = BagDealer::new(&set);
        let mut rng = Generator::new(5);
        // 42 pieces per bag = 14 holders of 3.
        let mut counts = vec![0u32; set.pieces.len()];
        for _ in 0..14 {
            for p in bag.deal(&table, &mut rng).holder {
                counts[usize::from(p)] += 1;
            }
        }
        let weights: Vec<u32> = set.pieces.iter().map(|p| p.weight).collect();
        assert_eq!(counts, weights);
    }

    #[test]
    fn reject_and_repair_deal_solvable_holders_on_crowded_boards() {
        let (set, shapes) = classic();
        let mut rng = Generator::new(3);
        // Crowded self-play boards, where random holders often fail.
        let boards = crate::play::random_fill::played_deals(&shapes, &set, 3, 400, &mut rng);
        let mut unsolvable_drawn = 0;
        for (i, d) in boards.iter().enumerate() {
            let table = Table {
                shapes: &shapes,
                set: &set,
                board: d.board,
                k: 3,
            };
            for dealer in [
                &mut RejectDealer { max_draws: 50 } as &mut dyn Dealer,
                &mut RepairDealer {
                    options: ChangeOptions::default(),
                },
            ] {
                let dealt = dealer.deal(&table, &mut Generator::new(i as u64));
                unsolvable_drawn += u32::from(dealt.drawn_unsolvable);
                if !dealt.dead {
                    assert!(
                        validate(&shapes, d.board, &dealt.holder).solvable,
                        "{} board {i}",
                        dealer.name()
                    );
                }
            }
        }
        assert!(unsolvable_drawn > 0, "the corpus must test the fixing");
    }

    /// A checkerboard and a set of dominoes: no piece fits anywhere, so the
    /// board is dead for every holder.
    fn dead_table_set() -> (PieceSet, Bits) {
        let set = crate::io::formats::parse_piece_set(
            "(name: \"no dot\", pieces: [(id: \"h2\", label: \"\", weight: 1, rows: [\"##\"]), (id: \"v2\", label: \"\", weight: 1, rows: [\"#\", \"#\"])])",
            "test",
        )
        .unwrap();
        let size = BoardSize::CLASSIC;
        let mut board: Bits = 0;
        for y in 0..size.h() {
            for x in 0..size.w() {
                // A checkerboard: no two empty cells touch, so no domino fits.
                if (x + y) % 2 == 0 {
                    board |= 1 << size.bit(x, y);
                }
            }
        }
        (set, board)
    }

    #[test]
    fn reject_settles_a_dead_board_with_one_exact_search_not_ten_thousand_draws() {
        let (set, board) = dead_table_set();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        let table = Table {
            shapes: &shapes,
            set: &set,
            board,
            k: 3,
        };
        let dealt = RejectDealer { max_draws: 10_000 }.deal(&table, &mut Generator::new(1));
        assert!(dealt.dead);
        assert_eq!(dealt.holder, dealt.drawn, "a dead board deals the holder drawn");
        // The old dealer validated 10,000 redraws before its fallback.
        assert!(
            dealt.repairs < 100,
            "{} validations for a dead board",
            dealt.repairs
        );
    }

    #[test]
    fn reject_falls_back_from_the_holder_it_reports_as_drawn() {
        let (set, shapes) = classic();
        let mut rng = Generator::new(11);
        let boards = crate::play::random_fill::played_deals(&shapes, &set, 3, 400, &mut rng);
        let options = ChangeOptions {
            max_redraws: 0,
            ..ChangeOptions::default()
        };
        let mut checked = 0;
        for (i, d) in boards.iter().enumerate() {
            let table = Table {
                shapes: &shapes,
                set: &set,
                board: d.board,
                k: 3,
            };
            // One draw only: any unsolvable first draw goes to the fallback.
            let dealt = RejectDealer { max_draws: 1 }.deal(&table, &mut Generator::new(i as u64));
            if !dealt.drawn_unsolvable || dealt.dead {
                continue;
            }
            let exact = repair(
                &shapes,
                &set,
                d.board,
                &dealt.drawn,
                &mut Generator::new(0),
                options,
            );
            assert_eq!(
                dealt.holder, exact.holder,
                "board {i}: dealt a fix of another holder"
            );
            checked += 1;
        }
        assert!(checked > 0, "the corpus must reach the fallback");
    }
}
