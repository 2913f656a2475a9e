//! Fitting a player to a playtest log by maximum likelihood over every
//! recorded move, under the very law the player plays by (`player`).
//!
//! Each move is reduced once to what the likelihood needs: its options (the
//! candidate moves of a piece player, or a planner's plans) grouped by the
//! criteria of the board they leave, each group with how many options it
//! holds, how many of them are the move made (or start with it), and how
//! many place the same piece; and what a slip would give the move. Then a
//! set of parameters costs one pass over those groups, no search.
//!
//! Rank choice fits temperature and slip here, with 95 % intervals from the
//! profile likelihood (the values where twice the drop in log-likelihood
//! stays under 3.84, the chi-square quantile with one degree of freedom);
//! value choice fits its β and slip in `fit_value`.

use rayon::prelude::*;

use crate::model::shapes::Shapes;
use crate::play::coelho::{CoelhoWeights, Criteria, Evaluator};
use crate::play::player::{Candidate, Choice, Lookahead, Player, candidates};
use crate::progress::Progress;

/// Twice the log-likelihood drop at the edge of a 95 % profile interval.
pub(crate) const CHI2_95: f64 = 3.841_458_820_694_124;

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

/// What a slip makes of the move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SlipLaw {
    /// A piece player slips to any legal placement of any piece left: the
    /// chance of this one.
    AnyMove(f64),
    /// A planner slips the piece its plan places next to a random legal
    /// spot: the chance of this spot, times the chance it meant that piece.
    PlannedPiece(f64),
}

impl SlipLaw {
    /// The move's chance: by choice with chance 1 - `slip`, else by the
    /// slip, given the chances by choice of the move and of its piece.
    pub fn mix(self, (chosen, piece): (f64, f64), slip: f64) -> f64 {
        let by_slip = match self {
            SlipLaw::AnyMove(q) => q,
            SlipLaw::PlannedPiece(q) => q * piece,
        };
        (1.0 - slip) * chosen + slip * by_slip
    }
}

/// Options alike for the likelihood: the same criteria of the board left,
/// so the same weight under any parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opt {
    /// The five criteria on their natural scales (`Evaluator::features`).
    pub features: [f64; 5],
    /// The rank of their value under the rank model's criteria weights
    /// (0 the best), among the decision's distinct values.
    pub rank: u32,
    /// How many options (moves, or plans) there are in the group.
    pub all: f64,
    /// How many of them are the move made (or plans starting with it).
    pub chosen: f64,
    /// How many place the same piece first (a planner's slip needs it).
    pub piece: f64,
}

/// One recorded placement, as the likelihood sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The game it was made in (folds hold whole games).
    pub game: usize,
    /// The log's deal and the move's place in it: the same move under
    /// every model, so models are compared on the moves they all explain.
    pub at: (usize, usize),
    pub slip: SlipLaw,
    pub options: Vec<Opt>,
}

impl Decision {
    /// The chances, without a slip, of the move made and of its piece
    /// going first, given each group's weight.
    pub fn chances(&self, mut weight: impl FnMut(&Opt) -> f64) -> (f64, f64) {
        let (mut all, mut chosen, mut piece) = (0.0, 0.0, 0.0);
        for o in &self.options {
            let w = weight(o);
            all += o.all * w;
            chosen += o.chosen * w;
            piece += o.piece * w;
        }
        if all > 0.0 {
            (chosen / all, piece / all)
        } else {
            (0.0, 0.0)
        }
    }

    /// The move's chance given its chances by choice.
    pub fn with_slip(&self, chances: (f64, f64), slip: f64) -> f64 {
        self.slip.mix(chances, slip)
    }

    /// Rank choice's weight of a group at `temperature` (at 0, the best).
    pub fn rank_weight(o: &Opt, temperature: f64) -> f64 {
        if temperature > 0.0 {
            (-f64::from(o.rank) / temperature).exp()
        } else {
            f64::from(u8::from(o.rank == 0))
        }
    }

    /// The chance of the move made under rank choice.
    pub fn rank_chance(&self, temperature: f64, slip: f64) -> f64 {
        self.with_slip(self.chances(|o| Self::rank_weight(o, temperature)), slip)
    }
}

/// The decisions of one log and the moves they leave out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decisions {
    pub list: Vec<Decision>,
    /// Moves no parameters can explain: a planner's moves in a deal where
    /// no plan places the whole holder (its law plans whole holders). Left
    /// out of the fit and counted.
    pub unexplained: usize,
}

/// Groups options by their criteria (and the flags), ranked under
/// `evaluation`.
fn grouped(eval: &Evaluator, evaluation: CoelhoWeights, mut raw: Vec<(Criteria, f64, f64, f64)>) -> Vec<Opt> {
    raw.sort_by_key(|r| (crate::play::plans::pack(&r.0), r.2 > 0.0, r.3 > 0.0));
    let mut out: Vec<(Criteria, Opt)> = Vec::new();
    for (c, all, chosen, piece) in raw {
        match out.last_mut() {
            Some((lc, o)) if *lc == c => {
                o.all += all;
                o.chosen += chosen;
                o.piece += piece;
            }
            _ => out.push((
                c,
                Opt {
                    features: eval.features(&c),
                    rank: 0,
                    all,
                    chosen,
                    piece,
                },
            )),
        }
    }
    // Ranked as a player ranks them (`player::rank_key`).
    let keys: Vec<u64> = out
        .iter()
        .map(|(c, _)| crate::play::player::rank_key(eval.value(c, evaluation)))
        .collect();
    let mut distinct = keys.clone();
    distinct.sort_unstable();
    distinct.dedup();
    out.into_iter()
        .zip(keys)
        .map(|((_, mut o), k)| {
            o.rank = distinct.partition_point(|&d| d < k) as u32;
            o
        })
        .collect()
}

/// The decisions of a piece-lookahead player (ranked under `evaluation`);
/// `None` when cancelled.
pub fn piece_decisions(
    shapes: &Shapes,
    evaluation: CoelhoWeights,
    log: &[Logged],
    games: &[usize],
    progress: &Progress,
) -> Option<Decisions> {
    let eval = Evaluator::new(shapes.size());
    let table = eval.table(evaluation);
    let per_deal: Option<Vec<Vec<Decision>>> = log
        .par_iter()
        .enumerate()
        .map(|(i, deal)| {
            if progress.cancelled() {
                return None;
            }
            progress.advance(1);
            let mut found: Vec<Candidate> = Vec::new();
            let (mut board, mut left) = (deal.board, deal.holder.clone());
            let mut out = Vec::new();
            for (j, &(piece, anchor)) in deal.moves.iter().enumerate() {
                candidates(shapes, &eval, &table, board, &left, true, &mut found);
                let raw = found
                    .iter()
                    .map(|c| {
                        let made = left[c.slot] == piece && c.anchor == anchor;
                        (c.criteria, 1.0, f64::from(u8::from(made)), 0.0)
                    })
                    .collect();
                out.push(Decision {
                    game: games.get(i).copied().unwrap_or(i),
                    at: (i, j),
                    slip: SlipLaw::AnyMove(1.0 / found.len().max(1) as f64),
                    options: grouped(&eval, evaluation, raw),
                });
                // The log's moves were checked when it was read.
                let _ = crate::play::player::play_move(shapes, &mut board, &mut left, (piece, anchor));
            }
            Some(out)
        })
        .collect();
    Some(Decisions {
        list: per_deal?.into_iter().flatten().collect(),
        unexplained: 0,
    })
}

/// The decisions of a planner: before each move every plan for the pieces
/// left, grouped by end board, counted by whether it starts with the move
/// made and with its piece; a slip puts the planned piece at a random
/// spot. `None` when cancelled.
pub fn holder_decisions(
    shapes: &Shapes,
    evaluation: CoelhoWeights,
    log: &[Logged],
    games: &[usize],
    progress: &Progress,
) -> Option<Decisions> {
    let eval = Evaluator::new(shapes.size());
    let per_deal: Option<Vec<(Vec<Decision>, usize)>> = log
        .par_iter()
        .enumerate()
        .map(|(i, deal)| {
            progress.advance(1);
            let (mut board, mut left) = (deal.board, deal.holder.clone());
            let (mut out, mut unexplained) = (Vec::new(), 0);
            for (j, &(piece, anchor)) in deal.moves.iter().enumerate() {
                let firsts = crate::play::plans::plans(shapes, &eval, board, &left, progress)?;
                if firsts.is_empty() {
                    unexplained += 1;
                } else {
                    let mut raw = Vec::new();
                    for f in &firsts {
                        let made = f64::from(u8::from(f.first == (piece, anchor)));
                        let same = f64::from(u8::from(f.first.0 == piece));
                        raw.extend(f.ends.iter().map(|&(c, n)| {
                            let n = n as f64;
                            (c, n, n * made, n * same)
                        }));
                    }
                    let spots = shapes.shape(piece).fits(board, shapes.geometry.full).count_ones();
                    out.push(Decision {
                        game: games.get(i).copied().unwrap_or(i),
                        at: (i, j),
                        slip: SlipLaw::PlannedPiece(1.0 / f64::from(spots.max(1))),
                        options: grouped(&eval, evaluation, raw),
                    });
                }
                // The log's moves were checked when it was read.
                let _ = crate::play::player::play_move(shapes, &mut board, &mut left, (piece, anchor));
            }
            Some((out, unexplained))
        })
        .collect();
    let per_deal = per_deal?;
    Some(Decisions {
        unexplained: per_deal.iter().map(|d| d.1).sum(),
        list: per_deal.into_iter().flat_map(|d| d.0).collect(),
    })
}

/// The decisions of `lookahead`, ranked under `evaluation`.
pub fn decisions(
    shapes: &Shapes,
    lookahead: Lookahead,
    evaluation: CoelhoWeights,
    log: &crate::io::playtest_log::Log,
    progress: &Progress,
) -> Option<Decisions> {
    match lookahead {
        Lookahead::Piece => piece_decisions(shapes, evaluation, &log.deals, &log.games, progress),
        Lookahead::Holder => holder_decisions(shapes, evaluation, &log.deals, &log.games, progress),
    }
}

/// A decision reduced for rank choice: per rank, (options, chosen, piece).
pub(crate) struct Ranked {
    slip: SlipLaw,
    by_rank: Vec<[f64; 3]>,
}

impl Ranked {
    pub(crate) fn new(d: &Decision) -> Self {
        let top = d.options.iter().map(|o| o.rank as usize + 1).max().unwrap_or(0);
        let mut by_rank = vec![[0.0; 3]; top];
        for o in &d.options {
            let r = &mut by_rank[o.rank as usize];
            r[0] += o.all;
            r[1] += o.chosen;
            r[2] += o.piece;
        }
        Self {
            slip: d.slip,
            by_rank,
        }
    }

    pub(crate) fn chances(&self, temperature: f64) -> (f64, f64) {
        let (mut all, mut chosen, mut piece) = (0.0, 0.0, 0.0);
        for (k, r) in self.by_rank.iter().enumerate() {
            let w = if temperature > 0.0 {
                (-(k as f64) / temperature).exp()
            } else if k == 0 {
                1.0
            } else {
                break;
            };
            all += r[0] * w;
            chosen += r[1] * w;
            piece += r[2] * w;
        }
        if all > 0.0 {
            (chosen / all, piece / all)
        } else {
            (0.0, 0.0)
        }
    }

    pub(crate) fn with_slip(&self, chances: (f64, f64), slip: f64) -> f64 {
        self.slip.mix(chances, slip)
    }
}

/// The log-likelihood of the decisions under rank choice at (temperature,
/// slip).
pub fn log_likelihood(decisions: &[Decision], temperature: f64, slip: f64) -> f64 {
    decisions
        .iter()
        .map(|d| d.rank_chance(temperature, slip).ln())
        .sum()
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
    record_places_dealt(
        shapes,
        set,
        k,
        player,
        seed,
        deals,
        &crate::play::dealing::Dealing::Builtin("random"),
    )
}

/// As `record_places`, dealt by `dealing` (a generator file's rules, a
/// preset's): the deals a generator fit learns from.
pub fn record_places_dealt(
    shapes: &Shapes,
    set: &crate::model::pieces::PieceSet,
    k: usize,
    player: &Player,
    seed: u64,
    deals: usize,
    dealing: &crate::play::dealing::Dealing,
) -> Vec<(Logged, crate::io::jsonl_log::Place)> {
    let never = Progress::default();
    record_places_dealt_until(shapes, set, k, player, seed, deals, u32::MAX, dealing, &never)
        .unwrap_or_else(|| unreachable!("a progress nobody holds is never cancelled"))
}

/// `record_places_dealt` with games of at most `max_rounds` rounds and a
/// progress counting deals; `None` when cancelled.
#[allow(clippy::too_many_arguments)]
pub fn record_places_dealt_until(
    shapes: &Shapes,
    set: &crate::model::pieces::PieceSet,
    k: usize,
    player: &Player,
    seed: u64,
    deals: usize,
    max_rounds: u32,
    dealing: &crate::play::dealing::Dealing,
    progress: &Progress,
) -> Option<Vec<(Logged, crate::io::jsonl_log::Place)>> {
    progress.set_total(deals);
    let mut out = Vec::with_capacity(deals);
    let mut g = 0u64;
    while out.len() < deals {
        if progress.cancelled() {
            return None;
        }
        let mut dealer = dealing.dealer(set, crate::search::changer::ChangeOptions::default());
        let mut strategy = crate::play::player::PlayerStrategy::new(player.clone());
        let mut rounds = Vec::new();
        crate::play::game::play_game(
            shapes,
            set,
            k,
            dealer.as_mut(),
            &mut strategy,
            seed.wrapping_add(g),
            u32::try_from(deals - out.len())
                .unwrap_or(u32::MAX)
                .min(max_rounds),
            Some(&mut rounds),
            progress,
        );
        let before = out.len();
        out.extend(
            rounds
                .into_iter()
                .enumerate()
                .map(|(round, r)| logged(r, g, round)),
        );
        progress.advance(out.len().min(deals) - before);
        g += 1;
    }
    out.truncate(deals);
    Some(out)
}

/// A round played as a log records it: the deal met, the moves made (in
/// the round that ended the game, those made before the player was stuck),
/// and its place: game `game`, round `round`, ended or not.
pub fn logged(r: crate::play::game::Round, game: u64, round: usize) -> (Logged, crate::io::jsonl_log::Place) {
    let place = crate::io::jsonl_log::Place {
        game,
        round: round as u64,
        ended: r.after.is_none(),
    };
    let deal = Logged {
        board: r.board,
        holder: r.holder,
        moves: if r.after.is_some() { r.moves } else { r.stuck_after },
    };
    (deal, place)
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
    /// Moves the model cannot make at any (temperature, slip): a planner's
    /// in a deal where no plan places the whole holder. Left out of the fit
    /// and counted here.
    pub unexplained: usize,
    pub loglik: f64,
    /// The profile log-likelihood of each: (value, best log-likelihood
    /// over the other parameter), for the likelihood curves.
    pub temperature_profile: Vec<(f64, f64)>,
    pub slip_profile: Vec<(f64, f64)>,
}

/// The slip that maximises the log-likelihood given each move's chances
/// by choice: the function is concave in slip (a sum of logs of linear
/// functions), so a golden-section search finds it.
fn best_slip(decisions: &[Ranked], by_choice: &[(f64, f64)]) -> (f64, f64) {
    let ll = |slip: f64| -> f64 {
        decisions
            .iter()
            .zip(by_choice)
            .map(|(d, c)| d.with_slip(*c, slip).ln())
            .sum()
    };
    // The ends are candidates too: the optimum may sit on 0 or 1.
    [0.0, 1.0, crate::stats::golden::maximize(ll, (0.0, 1.0))]
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

/// The maximum-likelihood (temperature, slip) of rank choice, without the
/// profiles (a fold of a comparison needs only the point).
pub fn fit_point(list: &[Decision]) -> (f64, f64) {
    let decisions: Vec<Ranked> = list.iter().map(Ranked::new).collect();
    temperature_grid()
        .par_iter()
        .map(|&t| {
            let chances: Vec<(f64, f64)> = decisions.iter().map(|d| d.chances(t)).collect();
            let (s, ll) = best_slip(&decisions, &chances);
            (t, s, ll)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map_or((0.0, 1.0), |b| (b.0, b.1))
}

/// Fits temperature and slip of rank choice to `decisions`.
pub fn fit(all: &Decisions) -> Fit {
    let decisions: Vec<Ranked> = all.list.iter().map(Ranked::new).collect();
    let decisions = decisions.as_slice();
    let chances = |t: f64| -> Vec<(f64, f64)> { decisions.iter().map(|d| d.chances(t)).collect() };
    // Coarse grids, then forty more points each where the likelihood is
    // high, so the curves and the intervals' ends are read finely there.
    let coarse = temperature_grid();
    let quick: Vec<(f64, f64, f64)> = coarse
        .par_iter()
        .map(|&t| {
            let (s, ll) = best_slip(decisions, &chances(t));
            (t, s, ll)
        })
        .collect();
    let top = quick.iter().map(|q| q.2).fold(f64::NEG_INFINITY, f64::max);
    let near = |xs: &[f64], i: usize| (xs[i.saturating_sub(1)], xs[(i + 1).min(xs.len() - 1)]);
    let high: Vec<usize> = (0..quick.len()).filter(|&i| quick[i].2 >= top - 8.0).collect();
    let mut temperatures = coarse.clone();
    if let (Some(&a), Some(&b)) = (high.first(), high.last()) {
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
    // Per temperature: the best slip, and the log-likelihood at every slip.
    let rows: Vec<(f64, f64, f64, Vec<f64>)> = temperatures
        .par_iter()
        .map(|&t| {
            let by_choice = chances(t);
            let (s, ll) = best_slip(decisions, &by_choice);
            let at: Vec<f64> = slips
                .iter()
                .map(|&slip| {
                    decisions
                        .iter()
                        .zip(&by_choice)
                        .map(|(d, c)| d.with_slip(*c, slip).ln())
                        .sum()
                })
                .collect();
            (t, s, ll, at)
        })
        .collect();
    let mut temperature_profile = Vec::with_capacity(rows.len());
    let mut slip_best = vec![f64::NEG_INFINITY; slips.len()];
    let mut best = (0.0, 1.0, f64::NEG_INFINITY);
    for (t, s, ll, at) in &rows {
        temperature_profile.push((*t, *ll));
        if *ll > best.2 {
            best = (*t, *s, *ll);
        }
        for (b, l) in slip_best.iter_mut().zip(at) {
            *b = b.max(*l);
        }
    }
    let slip_profile: Vec<(f64, f64)> = slips.iter().copied().zip(slip_best).collect();
    // An interval that reaches the end of the search grid is open: the
    // likelihood stays high past the hottest temperature tried.
    let (lo, hi) = profile_interval(&temperature_profile, best.2);
    let grid_end = temperature_profile.last().map_or(0.0, |p| p.0);
    Fit {
        temperature: best.0,
        temperature_ci: (lo, if hi >= grid_end { f64::INFINITY } else { hi }),
        slip: best.1,
        slip_ci: profile_interval(&slip_profile, best.2),
        moves: decisions.len(),
        unexplained: all.unexplained,
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
            choice: Choice::Rank,
            beta: [0.0; 5],
            evaluation,
            lookahead,
            temperature: round(self.temperature, 3),
            slip: round(self.slip, 4),
        }
    }
}

#[cfg(test)]
#[path = "player_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "player_recovery_tests.rs"]
mod recovery_tests;
