//! The predictive check of a learned model on games it was not fitted to
//! (each half of the games with the model fitted on the other half): its
//! deals simulated on the logged boards (each with the logged previous piece and history), with
//! the engine's own dealers doing the check, against what was dealt:
//! every piece's share in each fill band and the rate of unsolvable
//! holders, each simulated figure's 95 % range over replications.

use rayon::prelude::*;

use crate::fits::generator::deals::Seen;
use crate::fits::generator::fit::Fitted;
use crate::fits::generator::likelihood::Check;
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::play::dealers::{Table, rejected, repaired};
use crate::play::file_dealer::weighted;
use crate::search::changer::ChangeOptions;
use crate::search::validator::validate;

/// The most deals a predictive check simulates (evenly spaced).
pub const MAX_DEALS: usize = 5_000;
/// The bands the shares are compared in.
pub const BANDS: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

/// Observed against simulated.
#[derive(Clone, Debug, PartialEq)]
pub struct Predictive {
    pub deals: usize,
    pub replications: usize,
    pub seed: u64,
    /// Checked on games the models were not fitted to (false: one game,
    /// checked on the deals fitted).
    pub held_out: bool,
    /// (band, piece, observed share, simulated mean, 2.5 %, 97.5 %), for
    /// pieces dealt or simulated in the band.
    pub shares: Vec<(usize, PieceIdx, f64, f64, f64, f64)>,
    /// Unsolvable holders among deals: observed, simulated mean and range.
    pub unsolvable: (f64, f64, f64, f64),
}

impl Predictive {
    /// Shares inside their simulated range, of all compared.
    pub fn inside(&self) -> (usize, usize) {
        let inside = self
            .shares
            .iter()
            .filter(|s| s.2 >= s.4 - 1e-12 && s.2 <= s.5 + 1e-12)
            .count();
        (inside, self.shares.len())
    }
}

fn band(fill: f64) -> usize {
    BANDS
        .iter()
        .position(|&u| fill <= u + 1e-12)
        .unwrap_or(BANDS.len() - 1)
}

/// The models a check simulates: with `held_out`, two, the one fitted on
/// the games of odd number first (it checks the even games), else one.
pub struct Models<'a> {
    pub fitted: &'a [Fitted],
    pub held_out: bool,
}

impl Models<'_> {
    /// The model that deals `d` in the check.
    fn of(&self, d: &Seen) -> usize {
        if self.held_out && self.fitted.len() == 2 {
            d.game % 2
        } else {
            0
        }
    }
}

/// One simulated holder on a logged deal's board.
#[allow(clippy::too_many_arguments)]
fn simulate(
    shapes: &Shapes,
    set: &PieceSet,
    model: &Fitted,
    sets: &[PieceSet],
    d: &Seen,
    k: usize,
    rng: &mut Generator,
) -> Vec<PieceIdx> {
    let weights = &sets[model.rules.context(d)];
    let mut before = d.previous;
    let drawn: Vec<PieceIdx> = (0..k)
        .map(|_| {
            let p = match (model.repeat, before) {
                (Some(r), Some(b)) if rng.unit() < r => b,
                _ => rng.draw(weights),
            };
            before = Some(p);
            p
        })
        .collect();
    let table = Table {
        shapes,
        set,
        board: d.board,
        k,
    };
    match model.rules.check {
        Check::None => drawn,
        Check::Reject => rejected(&table, weights, drawn, rng, 10_000).holder,
        Check::Repair { policy, redraws } => {
            let options = ChangeOptions {
                policy,
                max_redraws: redraws,
                ..ChangeOptions::default()
            };
            repaired(&table, weights, drawn, rng, options).holder
        }
    }
}

/// Per band, each piece's share of the pieces dealt; and the unsolvable share.
fn figures(shapes: &Shapes, deals: &[&Seen], holders: &[Vec<PieceIdx>], n: usize) -> (Vec<Vec<f64>>, f64) {
    let mut counts = vec![vec![0.0; n]; BANDS.len()];
    let mut unsolvable = 0.0;
    for (d, h) in deals.iter().zip(holders) {
        let b = band(d.fill);
        for &p in h {
            counts[b][usize::from(p)] += 1.0;
        }
        if !validate(shapes, d.board, h).solvable {
            unsolvable += 1.0;
        }
    }
    for c in &mut counts {
        let t: f64 = c.iter().sum();
        if t > 0.0 {
            c.iter_mut().for_each(|x| *x /= t);
        }
    }
    (counts, unsolvable / deals.len().max(1) as f64)
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// The check of `models` on `deals` (`replications` runs from `seed`).
#[allow(clippy::too_many_arguments)]
pub fn check(
    shapes: &Shapes,
    set: &PieceSet,
    models: &Models,
    deals: &[Seen],
    k: usize,
    seed: u64,
    replications: usize,
    progress: &crate::progress::Progress,
) -> Predictive {
    let n = set.pieces.len();
    let step = deals.len().div_ceil(MAX_DEALS).max(1);
    let chosen: Vec<&Seen> = deals.iter().step_by(step).collect();
    let observed_holders: Vec<Vec<PieceIdx>> = chosen.iter().map(|d| d.holder.clone()).collect();
    let (observed, observed_unsolvable) = figures(shapes, &chosen, &observed_holders, n);
    // Each model's contexts' weights as sets to draw from, made once.
    let sets: Vec<Vec<PieceSet>> = models
        .fitted
        .iter()
        .map(|m| m.weights.iter().map(|w| weighted(set, w)).collect())
        .collect();
    let runs: Vec<(Vec<Vec<f64>>, f64)> = (0..replications)
        .into_par_iter()
        .map(|r| {
            let mut rng = Generator::new(seed.wrapping_add(r as u64));
            let holders: Vec<Vec<PieceIdx>> = chosen
                .iter()
                .map(|d| {
                    // A cancel leaves the rest as dealt; the caller drops it.
                    if progress.cancelled() {
                        d.holder.clone()
                    } else {
                        let m = models.of(d);
                        simulate(shapes, set, &models.fitted[m], &sets[m], d, k, &mut rng)
                    }
                })
                .collect();
            figures(shapes, &chosen, &holders, n)
        })
        .collect();
    let mut shares = Vec::new();
    for b in 0..BANDS.len() {
        if !chosen.iter().any(|d| band(d.fill) == b) {
            continue;
        }
        for p in 0..n {
            let mut sims: Vec<f64> = runs.iter().map(|(f, _)| f[b][p]).collect();
            if observed[b][p] == 0.0 && sims.iter().all(|&x| x == 0.0) {
                continue;
            }
            sims.sort_by(f64::total_cmp);
            let mean = sims.iter().sum::<f64>() / sims.len().max(1) as f64;
            shares.push((
                b,
                p as PieceIdx,
                observed[b][p],
                mean,
                quantile(&sims, 0.025),
                quantile(&sims, 0.975),
            ));
        }
    }
    let mut u: Vec<f64> = runs.iter().map(|(_, u)| *u).collect();
    u.sort_by(f64::total_cmp);
    let mean = u.iter().sum::<f64>() / u.len().max(1) as f64;
    Predictive {
        deals: chosen.len(),
        replications,
        seed,
        held_out: models.held_out,
        shares,
        unsolvable: (
            observed_unsolvable,
            mean,
            quantile(&u, 0.025),
            quantile(&u, 0.975),
        ),
    }
}
