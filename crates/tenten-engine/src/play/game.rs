//! Self-play games that compare generators: a strategy places each dealt
//! holder until it cannot, and the end is classified by whose fault it was.
//! The start of the generator lab (issue 8): dealers in `dealers.rs`, the
//! `greedy` strategy here (random is a player file, `play::player`), and
//! the frequency statistics.

use crate::model::board::Bits;
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::{Shapes, score};
use crate::play::coelho::{CoelhoStrategy, Move};
use crate::play::dealers::{Dealer, Table};
use crate::progress::Progress;
use crate::search::validator::validate;
use crate::stats::histogram::TimeHistogram;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum End {
    /// The dealt holder was unsolvable while a solvable one existed: no
    /// player could have placed it, and the generator could have helped.
    Unfair,
    /// The holder was solvable but the strategy failed to place it.
    Stuck,
    /// No holder of this size fits the board: nobody could go on.
    Dead,
    /// The round cap was reached.
    Censored,
}

/// A placement strategy for a whole holder.
pub trait Strategy: Send {
    fn name(&self) -> &'static str;
    /// Places every piece of `holder` on `board`: the board after and the
    /// points scored, with the placements in `moves` (cleared first); `None`
    /// when it cannot place them all.
    fn play(
        &mut self,
        shapes: &Shapes,
        board: Bits,
        holder: &[PieceIdx],
        rng: &mut Generator,
        moves: &mut Vec<Move>,
        progress: &Progress,
    ) -> Option<(Bits, u64)>;
}

/// Each piece in dealt order where it leaves the most free cells (after the
/// lines it completes clear), ties by more lines cleared, then the lowest
/// anchor.
pub struct GreedyStrategy;

impl Strategy for GreedyStrategy {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn play(
        &mut self,
        shapes: &Shapes,
        mut board: Bits,
        holder: &[PieceIdx],
        _: &mut Generator,
        moves: &mut Vec<Move>,
        _: &Progress,
    ) -> Option<(Bits, u64)> {
        moves.clear();
        let mut points = 0;
        for &piece in holder {
            let mut fits = shapes.shape(piece).fits(board, shapes.geometry.full);
            let mut best: Option<(u32, u32, Bits, u64, u32)> = None;
            while fits != 0 {
                let anchor = fits.trailing_zeros();
                fits &= fits - 1;
                let (next, lines) = shapes.place(board, piece, anchor);
                let key = (next.count_zeros(), lines.count());
                if best.is_none_or(|(f, l, ..)| key > (f, l)) {
                    best = Some((
                        key.0,
                        key.1,
                        next,
                        score(shapes.shape(piece).cells(), lines),
                        anchor,
                    ));
                }
            }
            let (_, _, next, p, anchor) = best?;
            moves.push((piece, anchor));
            board = next;
            points += p;
        }
        Some((board, points))
    }
}

impl Strategy for CoelhoStrategy {
    fn name(&self) -> &'static str {
        "coelho"
    }
    fn play(
        &mut self,
        shapes: &Shapes,
        board: Bits,
        holder: &[PieceIdx],
        _: &mut Generator,
        moves: &mut Vec<Move>,
        progress: &Progress,
    ) -> Option<(Bits, u64)> {
        let best = self.best_until(shapes, board, holder, progress)?;
        moves.clear();
        moves.extend_from_slice(&best.moves);
        Some((best.board, best.points))
    }
}

/// Board fill bands for the frequency statistics: 0-20 %, 20-40 %, ... 80-100 %.
pub const BANDS: usize = 5;

/// One game.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    pub seed: u64,
    /// Holders placed whole.
    pub rounds: u32,
    pub score: u64,
    pub end: End,
    /// Holders first drawn unsolvable (fixed or not).
    pub unsolvable_dealt: u32,
    /// Holders validated beyond the first (changer attempts, redraws).
    pub repairs: u32,
    /// Pieces dealt, by piece and by the board's fill band when dealt.
    pub dealt: Vec<[u32; BANDS]>,
    /// Time to validate each holder as drawn, and to deal the holders that
    /// were drawn unsolvable (validate + change, or the redraws).
    pub validate_us: TimeHistogram,
    pub change_us: TimeHistogram,
}

/// One round of a replayed game: the board as dealt on, the holder drawn and
/// the holder dealt (different when the generator fixed it), the strategy's
/// placements, and the board after them (`None` when the round ended the
/// game).
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    pub board: Bits,
    pub drawn: Vec<PieceIdx>,
    pub holder: Vec<PieceIdx>,
    pub drawn_unsolvable: bool,
    pub repairs: u32,
    pub moves: Vec<Move>,
    /// In the round that ended the game: the placements made before the
    /// player was stuck (a replay shows the round as lost, with none).
    pub stuck_after: Vec<Move>,
    pub after: Option<Bits>,
    pub points: u64,
}

/// Plays one game. The dealer draws from a stream seeded by `seed` alone and
/// the strategy from another, so two dealers given the same seed see the
/// same draws for as long as neither redraws (paired comparisons). With
/// `record`, every round is kept for a replay.
#[allow(clippy::too_many_arguments)]
pub fn play_game(
    shapes: &Shapes,
    set: &PieceSet,
    k: usize,
    dealer: &mut dyn Dealer,
    strategy: &mut dyn Strategy,
    seed: u64,
    max_rounds: u32,
    mut record: Option<&mut Vec<Round>>,
    progress: &Progress,
) -> Option<Game> {
    let mut deal_rng = Generator::new(seed);
    let mut play_rng = Generator::new(seed ^ 0x005E_ED0F_5E1F_91A7);
    let cells = shapes.size().cells() as u32;
    let mut game = Game {
        seed,
        rounds: 0,
        score: 0,
        end: End::Censored,
        unsolvable_dealt: 0,
        repairs: 0,
        dealt: vec![[0; BANDS]; set.pieces.len()],
        validate_us: TimeHistogram::default(),
        change_us: TimeHistogram::default(),
    };
    let mut board: Bits = 0;
    let mut moves = Vec::with_capacity(k);
    while game.rounds < max_rounds {
        if progress.cancelled() {
            return None;
        }
        let table = Table {
            shapes,
            set,
            board,
            k,
        };
        let dealt = dealer.deal(&table, &mut deal_rng);
        let band = ((board.count_ones() * BANDS as u32) / cells.max(1)).min(BANDS as u32 - 1) as usize;
        for &p in &dealt.holder {
            game.dealt[usize::from(p)][band] += 1;
        }
        game.unsolvable_dealt += u32::from(dealt.drawn_unsolvable);
        game.repairs += dealt.repairs;
        game.validate_us.add(dealt.validate_us);
        if dealt.drawn_unsolvable {
            game.change_us.add(dealt.total_us);
        }
        let played = strategy.play(shapes, board, &dealt.holder, &mut play_rng, &mut moves, progress);
        if played.is_none() && progress.cancelled() {
            return None;
        }
        if let Some(rec) = record.as_deref_mut() {
            rec.push(Round {
                board,
                drawn: dealt.drawn.clone(),
                holder: dealt.holder.clone(),
                drawn_unsolvable: dealt.drawn_unsolvable,
                repairs: dealt.repairs,
                moves: if played.is_some() {
                    moves.clone()
                } else {
                    Vec::new()
                },
                // A playtest log keeps them: one that dropped them would
                // hold only rounds that went well, and a fit to it would
                // read the player as sharper than it is.
                stuck_after: if played.is_some() {
                    Vec::new()
                } else {
                    moves.clone()
                },
                after: played.map(|p| p.0),
                points: played.map_or(0, |p| p.1),
            });
        }
        match played {
            Some((next, points)) => {
                board = next;
                game.score += points;
                game.rounds += 1;
            }
            None => {
                game.end = lost_to(shapes, set, board, &dealt.holder, dealt.dead);
                return Some(game);
            }
        }
    }
    Some(game)
}

/// Whose fault a lost round was: the player's (`Stuck`: the holder could be
/// placed), nobody's (`Dead`: no holder of this size fits; `dead` when the
/// dealer knows it already) or the generator's (`Unfair`). A game played
/// here and a game read from a log are judged alike.
pub fn lost_to(shapes: &Shapes, set: &PieceSet, board: Bits, holder: &[PieceIdx], dead: bool) -> End {
    if validate(shapes, board, holder).solvable {
        End::Stuck
    } else if dead || is_dead(shapes, set, board, holder) {
        End::Dead
    } else {
        End::Unfair
    }
}

/// No holder of this size can be placed (the changer's exact fallback
/// decides, as `repair` answers `dead`).
fn is_dead(shapes: &Shapes, set: &PieceSet, board: Bits, holder: &[PieceIdx]) -> bool {
    let options = crate::search::changer::ChangeOptions {
        max_redraws: 0,
        ..Default::default()
    };
    let r = crate::search::changer::repair(shapes, set, board, holder, &mut Generator::new(0), options);
    r.outcome == crate::search::changer::Outcome::Dead
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::BoardSize;
    use crate::play::coelho::CoelhoWeights;
    use crate::play::dealers::by_name;
    use crate::search::changer::ChangeOptions;

    fn games(dealer: &str, strategy: &str, n: u64, set: &PieceSet, size: BoardSize) -> Vec<Game> {
        let shapes = Shapes::new(set, size);
        (0..n)
            .map(|seed| {
                let mut d = by_name(dealer, set, ChangeOptions::default()).unwrap();
                let mut s = crate::play::who::Who::by_name(strategy, CoelhoWeights::BEST)
                    .unwrap()
                    .strategy();
                let never = Progress::default();
                play_game(&shapes, set, 3, d.as_mut(), s.as_mut(), seed, 2_000, None, &never).unwrap()
            })
            .collect()
    }

    #[test]
    fn repair_and_reject_never_cause_an_unfair_loss_and_random_does() {
        let set = PieceSet::classic();
        let size = BoardSize::new(8, 8).unwrap();
        for dealer in ["repair", "reject"] {
            for g in games(dealer, "random", 30, &set, size) {
                assert_ne!(g.end, End::Unfair, "{dealer} seed {}", g.seed);
            }
        }
        let random = games("random", "random", 60, &set, size);
        assert!(
            random.iter().any(|g| g.end == End::Unfair),
            "random deals must lose unfairly sometimes"
        );
        assert!(random.iter().all(|g| g.end != End::Censored));
    }

    #[test]
    fn greedy_outlives_random_play_and_games_are_reproducible() {
        let set = PieceSet::classic();
        let size = BoardSize::new(8, 8).unwrap();
        let mean = |gs: &[Game]| gs.iter().map(|g| f64::from(g.rounds)).sum::<f64>() / gs.len() as f64;
        let greedy = games("repair", "greedy", 20, &set, size);
        let random = games("repair", "random", 20, &set, size);
        assert!(
            mean(&greedy) > mean(&random),
            "{} vs {}",
            mean(&greedy),
            mean(&random)
        );
        // The same games again, all but the timings.
        let play = |g: &Game| (g.seed, g.rounds, g.score, g.end, g.dealt.clone(), g.repairs);
        let again: Vec<_> = games("repair", "greedy", 3, &set, size)
            .iter()
            .map(play)
            .collect();
        assert_eq!(again, greedy[..3].iter().map(play).collect::<Vec<_>>());
    }

    #[test]
    fn random_frequencies_converge_to_the_weights() {
        let set = PieceSet::classic();
        let mut rng = Generator::new(11);
        let mut counts = vec![0u64; set.pieces.len()];
        for _ in 0..42_000 {
            counts[usize::from(rng.draw(&set))] += 1;
        }
        // 18 degrees of freedom: the 99.9th percentile is 42.3.
        let chi2 = crate::stats::divergence::chi_square(&counts, &set.weights());
        assert!(chi2 < 42.3, "chi2 {chi2}");
        assert!(crate::stats::divergence::kl_divergence(&counts, &set.weights()) < 0.001);
        // A skewed count is caught.
        counts[0] += 3_000;
        assert!(crate::stats::divergence::chi_square(&counts, &set.weights()) > 100.0);
    }
}
