//! How well a fitted player explains a log, beyond its parameters: how
//! often the move made was the model's most likely one, the mean chance it
//! gave the moves made, a calibration table (every legal move binned by its
//! predicted chance, against the share of them that were made), and a
//! survival check (the model's games on the log's generator and board
//! against the log's game lengths, Kaplan-Meier and the log-rank test).

use rayon::prelude::*;

use crate::io::playtest_log::{Log, Logged};
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::coelho::{Evaluator, Move};
use crate::play::player::{self, Candidate, Choice, Lookahead, Player};
use crate::progress::Progress;
use crate::stats::logrank::{LogRank, log_rank};

/// One decision as the model sees it: the chance of every legal move, and
/// which was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    pub chances: Vec<f64>,
    pub made: usize,
}

/// The model's chance for every legal move of every recorded decision
/// (a planner's decisions in deals no plan places whole are left out, as
/// its fit leaves them); `None` when cancelled.
pub fn predictions(
    shapes: &Shapes,
    player: &Player,
    log: &[Logged],
    progress: &Progress,
) -> Option<Vec<Prediction>> {
    let eval = Evaluator::new(shapes.size());
    let table = eval.table(player.evaluation);
    let per_deal: Option<Vec<Vec<Prediction>>> = log
        .par_iter()
        .map(|deal| {
            let (mut board, mut left) = (deal.board, deal.holder.clone());
            let mut out = Vec::new();
            let mut found: Vec<Candidate> = Vec::new();
            for &(piece, anchor) in &deal.moves {
                if progress.cancelled() {
                    return None;
                }
                player::candidates(shapes, &eval, &table, board, &left, true, &mut found);
                let moves: Vec<Move> = found.iter().map(|c| (left[c.slot], c.anchor)).collect();
                let chances = match player.lookahead {
                    Lookahead::Piece => Some(match player.choice {
                        Choice::Rank => {
                            let values: Vec<f64> = found.iter().map(|c| c.value).collect();
                            player::move_probabilities(&values, player.temperature, player.slip)
                        }
                        Choice::Value => {
                            let f: Vec<[f64; 5]> = found.iter().map(|c| eval.features(&c.criteria)).collect();
                            player::value_probabilities(&f, &player.beta, player.slip)
                        }
                    }),
                    Lookahead::Holder => {
                        planner_chances(shapes, &eval, player, board, &left, &moves, progress)?
                    }
                };
                if let (Some(chances), Some(made)) =
                    (chances, moves.iter().position(|m| *m == (piece, anchor)))
                {
                    out.push(Prediction { chances, made });
                }
                // The log's moves were checked when it was read.
                let _ = crate::play::player::play_move(shapes, &mut board, &mut left, (piece, anchor));
            }
            progress.advance(1);
            Some(out)
        })
        .collect();
    Some(per_deal?.into_iter().flatten().collect())
}

/// A planner's chance of each of `moves`: its plan's first move, or a slip
/// of the planned piece to that spot. `Some(None)` when no plan places the
/// whole holder; `None` when cancelled.
fn planner_chances(
    shapes: &Shapes,
    eval: &Evaluator,
    player: &Player,
    board: crate::model::board::Bits,
    left: &[crate::model::pieces::PieceIdx],
    moves: &[Move],
    progress: &Progress,
) -> Option<Option<Vec<f64>>> {
    let firsts = crate::play::plans::plans(shapes, eval, board, left, progress)?;
    if firsts.is_empty() {
        return Some(None);
    }
    let first = player::first_move_chances(player, eval, &firsts);
    let by_piece = |p| -> f64 {
        firsts
            .iter()
            .zip(&first)
            .filter(|(f, _)| f.first.0 == p)
            .map(|(_, c)| c)
            .sum()
    };
    let spots = |p| moves.iter().filter(|m| m.0 == p).count().max(1) as f64;
    Some(Some(
        moves
            .iter()
            .map(|m| {
                let planned = firsts
                    .iter()
                    .position(|f| f.first == *m)
                    .map_or(0.0, |i| first[i]);
                (1.0 - player.slip) * planned + player.slip * by_piece(m.0) / spots(m.0)
            })
            .collect(),
    ))
}

/// A bin of the calibration table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// Predicted chances from `lo` (inclusive) to `hi`.
    pub lo: f64,
    pub hi: f64,
    /// Legal moves in the bin.
    pub moves: usize,
    /// Their mean predicted chance, and the share of them that were made.
    pub predicted: f64,
    pub observed: f64,
}

/// The calibration table's edges: fine where most moves' chances lie.
pub const EDGES: [f64; 11] = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0];

/// How well the model explains the moves.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveCheck {
    pub moves: usize,
    /// The share of moves that were the model's most likely (ties count).
    pub top1: f64,
    /// The mean chance the model gave the moves made.
    pub mean_chance: f64,
    /// Bins with at least one move.
    pub calibration: Vec<Bin>,
}

pub fn check_moves(predictions: &[Prediction]) -> MoveCheck {
    let n = predictions.len();
    let mut top = 0usize;
    let mut sum = 0.0;
    let mut bins: Vec<(usize, f64, usize)> = vec![(0, 0.0, 0); EDGES.len() - 1];
    for p in predictions {
        let best = p.chances.iter().copied().fold(0.0, f64::max);
        let made = p.chances[p.made];
        top += usize::from(made >= best * (1.0 - 1e-9));
        sum += made;
        for (i, &c) in p.chances.iter().enumerate() {
            let b = EDGES[1..].partition_point(|&e| e <= c).min(bins.len() - 1);
            bins[b].0 += 1;
            bins[b].1 += c;
            bins[b].2 += usize::from(i == p.made);
        }
    }
    MoveCheck {
        moves: n,
        top1: if n == 0 { 0.0 } else { top as f64 / n as f64 },
        mean_chance: if n == 0 { 0.0 } else { sum / n as f64 },
        calibration: bins
            .iter()
            .enumerate()
            .filter(|(_, b)| b.0 > 0)
            .map(|(i, b)| Bin {
                lo: EDGES[i],
                hi: EDGES[i + 1],
                moves: b.0,
                predicted: b.1 / b.0 as f64,
                observed: b.2 as f64 / b.0 as f64,
            })
            .collect(),
    }
}

/// The model's games against the log's.
#[derive(Clone, Debug, PartialEq)]
pub struct SurvivalCheck {
    pub generator: String,
    pub seed: u64,
    /// (rounds placed whole, censored) of each game, as `survival` takes
    /// them.
    pub observed: Vec<(u32, bool)>,
    pub simulated: Vec<(u32, bool)>,
    pub test: Option<LogRank>,
}

/// The log's games as (rounds placed whole, censored).
pub fn observed_games(log: &Log) -> Vec<(u32, bool)> {
    log.game_lengths()
        .into_iter()
        .map(|(deals, lost)| (if lost { deals - 1 } else { deals }, !lost))
        .collect()
}

/// Plays `games` games of `player` on `generator` (a preset's name) on the
/// log's board, game g on seed + g, capped at `max_rounds`; `None` when
/// cancelled or the generator is unknown.
#[allow(clippy::too_many_arguments)]
pub fn survival_check(
    set: &PieceSet,
    log: &Log,
    k: usize,
    player: &Player,
    generator: &str,
    games: usize,
    seed: u64,
    max_rounds: u32,
    progress: &Progress,
) -> Option<SurvivalCheck> {
    let dealing = crate::play::dealing::Dealing::by_name(generator, set).ok()?;
    let shapes = Shapes::new(set, log.size);
    let simulated: Option<Vec<(u32, bool)>> = (0..games)
        .into_par_iter()
        .map(|g| {
            let mut dealer = dealing.dealer(set, Default::default());
            let mut strategy = player::PlayerStrategy::new(player.clone());
            let game = crate::play::game::play_game(
                &shapes,
                set,
                k,
                dealer.as_mut(),
                &mut strategy,
                seed.wrapping_add(g as u64),
                max_rounds,
                None,
                progress,
            )?;
            progress.advance(1);
            Some((game.rounds, game.end == crate::play::game::End::Censored))
        })
        .collect();
    let simulated = simulated?;
    let observed = observed_games(log);
    Some(SurvivalCheck {
        generator: generator.to_owned(),
        seed,
        test: log_rank(&observed, &simulated),
        observed,
        simulated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checks_are_defined_for_no_moves_and_read_ties_as_agreement() {
        let none = check_moves(&[]);
        assert_eq!((none.moves, none.top1, none.mean_chance), (0, 0.0, 0.0));
        assert!(none.calibration.is_empty());
        let p = [
            Prediction {
                chances: vec![0.5, 0.5],
                made: 1,
            },
            Prediction {
                chances: vec![0.9, 0.1],
                made: 1,
            },
        ];
        let c = check_moves(&p);
        assert_eq!(c.top1, 0.5);
        assert!((c.mean_chance - 0.3).abs() < 1e-12);
        // 0.1 and 0.5 and 0.9 fall in their bins; each bin's share made.
        let bin = |lo: f64| c.calibration.iter().find(|b| b.lo == lo).unwrap();
        assert_eq!((bin(0.1).moves, bin(0.1).observed), (1, 1.0));
        assert_eq!((bin(0.5).moves, bin(0.5).observed), (2, 0.5));
        assert_eq!((bin(0.9).moves, bin(0.9).observed), (1, 0.0));
    }
}
