//! Fitting a player to a playtest log: temperature and slip by maximum
//! likelihood over every recorded move, under the very law the player
//! plays by (`player::move_probabilities`), with 95 % intervals from the
//! profile likelihood (the values where twice the drop in log-likelihood
//! stays under 3.84, the chi-square quantile with one degree of freedom).
//!
//! Each move is reduced once to what the likelihood needs: the chance a
//! random legal placement would have made it, and the rank of the move
//! among the player's candidates with how many candidates share each rank.
//! Then a (temperature, slip) costs one pass over the moves, no search.

use crate::model::pieces::PieceIdx;
use crate::model::shapes::Shapes;
use crate::play::coelho::{CoelhoStrategy, CoelhoWeights, Evaluator};
use crate::play::player::{Candidate, Lookahead, Player, candidates};
use crate::progress::Progress;

/// Twice the log-likelihood drop at the edge of a 95 % profile interval.
const CHI2_95: f64 = 3.841_458_820_694_124;

/// Temperatures tried: 0, then 0.02 to 50 in steps of 7 %.
fn temperature_grid() -> Vec<f64> {
    let mut grid = vec![0.0];
    let mut t = 0.02;
    while t <= 50.0 {
        grid.push(t);
        t *= 1.07;
    }
    grid
}

/// Slips tried: 0 to 1 in steps of 0.005.
fn slip_grid() -> Vec<f64> {
    (0..=200).map(|i| f64::from(i) / 200.0).collect()
}

/// One recorded placement, as the likelihood sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The chance a uniformly random legal placement is this one.
    pub by_slip: f64,
    /// The move's rank among the candidates (0 the best); `None` when the
    /// player, not slipping, could never make it.
    pub rank: Option<u32>,
    /// How many candidates have each rank.
    pub per_rank: Vec<u32>,
}

impl Decision {
    /// The chance of the move without a slip: a softmax over ranks at
    /// `temperature` (at 0, the best moves share it).
    fn by_choice(&self, temperature: f64) -> f64 {
        let Some(r) = self.rank else { return 0.0 };
        if temperature <= 0.0 {
            return if r == 0 {
                1.0 / f64::from(self.per_rank[0])
            } else {
                0.0
            };
        }
        let total: f64 = self
            .per_rank
            .iter()
            .enumerate()
            .map(|(k, &n)| f64::from(n) * (-(k as f64) / temperature).exp())
            .sum();
        (-f64::from(r) / temperature).exp() / total
    }
}

pub use crate::io::playtest_log::Logged;

/// A playtest log made by `player`: `deals` deals of self-play with the
/// `random` generator on an empty board, game after game (game g on seed
/// `seed + g`), each with the placements made. The round a game is lost in
/// is kept with no moves: the deal was met, no placement was recorded.
pub fn record(
    shapes: &Shapes,
    set: &crate::model::pieces::PieceSet,
    k: usize,
    player: &Player,
    seed: u64,
    deals: usize,
) -> Vec<Logged> {
    record_places(shapes, set, k, player, seed, deals)
        .into_iter()
        .map(|(d, _)| d)
        .collect()
}

/// As `record`, with each deal's place in play: its game, its round, and
/// whether the game ended there (a JSON Lines log says so).
pub fn record_places(
    shapes: &Shapes,
    set: &crate::model::pieces::PieceSet,
    k: usize,
    player: &Player,
    seed: u64,
    deals: usize,
) -> Vec<(Logged, crate::io::jsonl_log::Place)> {
    let mut out = Vec::with_capacity(deals);
    let mut g = 0u64;
    while out.len() < deals {
        let mut dealer = crate::play::dealers::RandomDealer;
        let mut strategy = crate::play::player::PlayerStrategy::new(player.clone());
        let mut rounds = Vec::new();
        crate::play::game::play_game(
            shapes,
            set,
            k,
            &mut dealer,
            &mut strategy,
            seed.wrapping_add(g),
            u32::try_from(deals - out.len()).unwrap_or(u32::MAX),
            Some(&mut rounds),
            &Progress::default(),
        );
        out.extend(rounds.into_iter().enumerate().map(|(round, r)| {
            let place = crate::io::jsonl_log::Place {
                game: g,
                round: round as u64,
                ended: r.after.is_none(),
            };
            let deal = Logged {
                board: r.board,
                holder: r.holder,
                moves: r.moves,
            };
            (deal, place)
        }));
        g += 1;
    }
    out.truncate(deals);
    out
}

/// The decisions of a piece-lookahead player judging with `evaluation`;
/// `None` when cancelled.
pub fn piece_decisions(
    shapes: &Shapes,
    evaluation: CoelhoWeights,
    log: &[Logged],
    progress: &Progress,
) -> Option<Vec<Decision>> {
    let eval = Evaluator::new(shapes.size());
    let mut found: Vec<Candidate> = Vec::new();
    let mut out = Vec::new();
    for deal in log {
        let mut board = deal.board;
        let mut left = deal.holder.clone();
        if progress.cancelled() {
            return None;
        }
        progress.advance(1);
        for &(piece, anchor) in &deal.moves {
            candidates(shapes, &eval, evaluation, board, &left, &mut found);
            let mut distinct: Vec<f64> = found.iter().map(|c| c.value).collect();
            distinct.sort_by(|a, b| b.total_cmp(a));
            distinct.dedup();
            let rank = |v: f64| distinct.partition_point(|&d| d > v);
            let mut per_rank = vec![0u32; distinct.len()];
            for c in &found {
                per_rank[rank(c.value)] += 1;
            }
            let chosen = found
                .iter()
                .find(|c| left[c.slot] == piece && c.anchor == anchor)
                .map(|c| rank(c.value) as u32);
            out.push(Decision {
                by_slip: 1.0 / found.len().max(1) as f64,
                rank: chosen,
                per_rank,
            });
            if let Some(slot) = left.iter().position(|&p| p == piece) {
                left.remove(slot);
            }
            board = shapes.place(board, piece, anchor).0;
        }
    }
    Some(out)
}

/// The decisions of a holder-lookahead player: it follows the analysis's
/// plan for the holder, and a slip puts the planned piece at a random legal
/// spot (then it plans again), as `PlayerStrategy` plays. `None` when
/// cancelled.
pub fn holder_decisions(
    shapes: &Shapes,
    evaluation: CoelhoWeights,
    log: &[Logged],
    progress: &Progress,
) -> Option<Vec<Decision>> {
    let mut search = CoelhoStrategy::new(evaluation);
    let mut out = Vec::new();
    for deal in log {
        let mut board = deal.board;
        let mut left = deal.holder.clone();
        let mut plan: Vec<(PieceIdx, u32)> = Vec::new();
        let mut step = 0;
        progress.advance(1);
        for &(piece, anchor) in &deal.moves {
            if progress.cancelled() {
                return None;
            }
            if step == plan.len() {
                plan = search
                    .best_until(shapes, board, &left, progress)
                    .map(|b| b.moves)
                    .unwrap_or_default();
                step = 0;
            }
            let planned = plan.get(step).copied();
            step += 1;
            let spots = shapes.shape(piece).fits(board, shapes.geometry.full).count_ones();
            let same_piece = planned.is_some_and(|p| p.0 == piece);
            out.push(Decision {
                by_slip: if same_piece {
                    1.0 / f64::from(spots.max(1))
                } else {
                    0.0
                },
                rank: (planned == Some((piece, anchor))).then_some(0),
                per_rank: vec![1],
            });
            if planned != Some((piece, anchor)) {
                // A slip: the plan was for another board.
                step = plan.len();
            }
            if let Some(slot) = left.iter().position(|&p| p == piece) {
                left.remove(slot);
            }
            board = shapes.place(board, piece, anchor).0;
        }
    }
    Some(out)
}

/// The log-likelihood of the decisions at (temperature, slip).
pub fn log_likelihood(decisions: &[Decision], temperature: f64, slip: f64) -> f64 {
    decisions
        .iter()
        .map(|d| (slip * d.by_slip + (1.0 - slip) * d.by_choice(temperature)).ln())
        .sum()
}

/// The fitted player and how sure the fit is.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub temperature: f64,
    /// Its 95 % interval; the high end is infinite when the likelihood
    /// stays within the cut up to the hottest temperature the search tries
    /// (`temperature_end`): the data cannot bound it.
    pub temperature_ci: (f64, f64),
    pub slip: f64,
    pub slip_ci: (f64, f64),
    pub moves: usize,
    /// Moves the model cannot make at any (temperature, slip): a holder
    /// player placing another piece than its plan's next. Left out of the
    /// fit and counted here.
    pub unexplained: usize,
    pub loglik: f64,
    /// The profile log-likelihood of each: (value, best log-likelihood
    /// over the other parameter), for the likelihood curves.
    pub temperature_profile: Vec<(f64, f64)>,
    pub slip_profile: Vec<(f64, f64)>,
}

/// The slip that maximises the log-likelihood given each move's chance by
/// choice: the function is concave in slip (a sum of logs of linear
/// functions), so a golden-section search finds it.
fn best_slip(decisions: &[Decision], by_choice: &[f64]) -> (f64, f64) {
    let ll = |slip: f64| -> f64 {
        decisions
            .iter()
            .zip(by_choice)
            .map(|(d, c)| (slip * d.by_slip + (1.0 - slip) * c).ln())
            .sum()
    };
    let (mut a, mut b) = (0.0f64, 1.0f64);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (x1, x2) = (b - phi * (b - a), a + phi * (b - a));
        if ll(x1) < ll(x2) {
            a = x1;
        } else {
            b = x2;
        }
    }
    // The ends are candidates too: the optimum may sit on 0 or 1.
    [0.0, 1.0, (a + b) / 2.0]
        .into_iter()
        .map(|s| (s, ll(s)))
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap_or((1.0, f64::NEG_INFINITY))
}

/// Where a profile stays within the 95 % cut of its maximum: the first and
/// last values inside, each widened to where the profile crosses the cut
/// between grid points (linearly).
fn profile_interval(profile: &[(f64, f64)], best: f64) -> (f64, f64) {
    let cut = best - CHI2_95 / 2.0;
    let inside: Vec<usize> = (0..profile.len()).filter(|&i| profile[i].1 >= cut).collect();
    let (Some(&first), Some(&last)) = (inside.first(), inside.last()) else {
        return (0.0, 0.0);
    };
    let cross = |i: usize, j: usize| {
        let ((x0, y0), (x1, y1)) = (profile[i], profile[j]);
        if !y0.is_finite() || (y1 - y0).abs() < 1e-12 {
            return x1;
        }
        x0 + (cut - y0) / (y1 - y0) * (x1 - x0)
    };
    let lo = if first == 0 {
        profile[0].0
    } else {
        cross(first - 1, first)
    };
    let hi = if last + 1 == profile.len() {
        profile[last].0
    } else {
        cross(last + 1, last)
    };
    (lo, hi)
}

/// Fits temperature and slip to `decisions` (temperature held at 0 for a
/// holder-lookahead player, whose search keeps only the best end board).
pub fn fit(all: &[Decision], lookahead: Lookahead) -> Fit {
    let decisions: Vec<Decision> = all
        .iter()
        .filter(|d| d.by_slip > 0.0 || d.rank.is_some())
        .cloned()
        .collect();
    let decisions = decisions.as_slice();
    // Coarse grids, then forty more points each where the likelihood is
    // high, so the curves and the intervals' ends are read finely there.
    let coarse = match lookahead {
        Lookahead::Piece => temperature_grid(),
        Lookahead::Holder => vec![0.0],
    };
    let quick: Vec<(f64, f64, f64)> = coarse
        .iter()
        .map(|&t| {
            let by_choice: Vec<f64> = decisions.iter().map(|d| d.by_choice(t)).collect();
            let (s, ll) = best_slip(decisions, &by_choice);
            (t, s, ll)
        })
        .collect();
    let top = quick.iter().map(|q| q.2).fold(f64::NEG_INFINITY, f64::max);
    let near = |xs: &[f64], i: usize| (xs[i.saturating_sub(1)], xs[(i + 1).min(xs.len() - 1)]);
    let high: Vec<usize> = (0..quick.len()).filter(|&i| quick[i].2 >= top - 8.0).collect();
    let mut temperatures = coarse.clone();
    if let (Some(&a), Some(&b), Lookahead::Piece) = (high.first(), high.last(), lookahead) {
        let (lo, hi) = (near(&coarse, a).0, near(&coarse, b).1);
        temperatures.extend((0..40).map(|i| lo + (hi - lo) * f64::from(i) / 39.0));
    }
    temperatures.sort_by(f64::total_cmp);
    temperatures.dedup();
    let mut slips = slip_grid();
    let slips_at: Vec<f64> = quick.iter().filter(|q| q.2 >= top - 8.0).map(|q| q.1).collect();
    if let (Some(lo), Some(hi)) = (
        slips_at.iter().copied().reduce(f64::min),
        slips_at.iter().copied().reduce(f64::max),
    ) {
        let (lo, hi) = ((lo - 0.03).max(0.0), (hi + 0.03).min(1.0));
        slips.extend((0..40).map(|i| lo + (hi - lo) * f64::from(i) / 39.0));
    }
    slips.sort_by(f64::total_cmp);
    slips.dedup();
    let mut temperature_profile = Vec::with_capacity(temperatures.len());
    let mut slip_best = vec![f64::NEG_INFINITY; slips.len()];
    let mut best = (0.0, 1.0, f64::NEG_INFINITY);
    for &t in &temperatures {
        let by_choice: Vec<f64> = decisions.iter().map(|d| d.by_choice(t)).collect();
        let (s, ll) = best_slip(decisions, &by_choice);
        temperature_profile.push((t, ll));
        if ll > best.2 {
            best = (t, s, ll);
        }
        for (i, &slip) in slips.iter().enumerate() {
            let ll: f64 = decisions
                .iter()
                .zip(&by_choice)
                .map(|(d, c)| (slip * d.by_slip + (1.0 - slip) * c).ln())
                .sum();
            slip_best[i] = slip_best[i].max(ll);
        }
    }
    let slip_profile: Vec<(f64, f64)> = slips.iter().copied().zip(slip_best).collect();
    let temperature_ci = match lookahead {
        Lookahead::Piece => {
            // An interval that reaches the end of the search grid is open:
            // the likelihood stays high past the hottest temperature tried.
            let (lo, hi) = profile_interval(&temperature_profile, best.2);
            let grid_end = temperature_profile.last().map_or(0.0, |p| p.0);
            (lo, if hi >= grid_end { f64::INFINITY } else { hi })
        }
        Lookahead::Holder => (0.0, 0.0),
    };
    Fit {
        temperature: best.0,
        temperature_ci,
        slip: best.1,
        slip_ci: profile_interval(&slip_profile, best.2),
        moves: decisions.len(),
        unexplained: all.len() - decisions.len(),
        loglik: best.2,
        temperature_profile,
        slip_profile,
    }
}

impl Fit {
    /// The hottest temperature the search tried.
    pub fn temperature_end(&self) -> f64 {
        self.temperature_profile.last().map_or(0.0, |p| p.0)
    }

    /// The temperature interval's high end: ">47.881" when open.
    pub fn temperature_hi(&self) -> String {
        let hi = self.temperature_ci.1;
        if hi.is_finite() {
            format!("{hi:.3}")
        } else {
            format!(">{:.3}", self.temperature_end())
        }
    }

    /// The line `tenten fit-player` prints.
    pub fn line(&self) -> String {
        format!(
            "temperature={:.3} temperature_ci={:.3},{} slip={:.4} slip_ci={:.4},{:.4} moves={} unexplained={} loglik={:.2}",
            self.temperature,
            self.temperature_ci.0,
            self.temperature_hi(),
            self.slip,
            self.slip_ci.0,
            self.slip_ci.1,
            self.moves,
            self.unexplained,
            self.loglik
        )
    }

    /// The fitted player as a file, its comment saying what it was fitted
    /// to (`source`), how sure the fit is, and the moves it could not
    /// explain.
    pub fn player_file(
        &self,
        source: &str,
        name: &str,
        evaluation: CoelhoWeights,
        lookahead: Lookahead,
    ) -> String {
        format!(
            "// Fitted to {source}: {} moves, maximum likelihood (log-likelihood {:.1});\n\
             // temperature 95 % CI {:.3} to {}, slip 95 % CI {:.4} to {:.4} (profile likelihood);\n\
             // {} moves the model cannot make at any temperature and slip, left out of the fit.\n\
             // A model of the logged play, not a measurement of a person.\n{}",
            self.moves,
            self.loglik,
            self.temperature_ci.0,
            self.temperature_hi(),
            self.slip_ci.0,
            self.slip_ci.1,
            self.unexplained,
            self.player(name, evaluation, lookahead).to_ron()
        )
    }

    /// The fitted player, to save.
    pub fn player(&self, name: &str, evaluation: CoelhoWeights, lookahead: Lookahead) -> Player {
        // Rounded as printed: the file says what the report says.
        let round = |x: f64, digits: i32| (x * 10f64.powi(digits)).round() / 10f64.powi(digits);
        Player {
            name: name.to_owned(),
            evaluation,
            lookahead,
            temperature: round(self.temperature, 3),
            slip: round(self.slip, 4),
        }
    }
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;
