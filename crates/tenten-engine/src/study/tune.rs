//! Tuning a generator to a target: the weights of the free pieces searched
//! by Nelder-Mead (argmin) against a weighted loss over targets (the median
//! rounds of a player, at most an unfair share of losses, the share of small
//! pieces dealt in a fill band), every candidate played on the same seeds
//! (common random numbers: differences between candidates are not luck),
//! then the best checked on fresh seeds (the hold-out), each target with its
//! 95 % interval.
//!
//! The weights are tuned in tenths of the base weights (the base set's
//! weights times 10, every piece written in the tuned file), so a step of
//! one is a tenth of a classic weight; `bounds` hold every free weight.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

use argmin::core::{CostFunction, Error, Executor};
use argmin::solver::neldermead::NelderMead;

use crate::model::pieces::{PieceIdx, PieceSet};
use crate::play::game::{BANDS, Game};
use crate::play::generator_file::GeneratorSpec;
use crate::progress::Progress;
use crate::stats::survival;
use crate::study::runner::{self, Plan, Summary};

/// The weights are tuned at this many steps per base weight.
pub const STEPS: u32 = 10;

/// What the tuned generator should do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The player's median rounds.
    MedianRounds(f64),
    /// At most this share of the player's losses unfair.
    UnfairShare(f64),
    /// This share of pieces of 1-3 cells dealt on boards in fill band `band`
    /// (0: 0-20 %, ... 4: 80-100 %).
    SmallShare { band: usize, share: f64 },
}

impl Target {
    pub fn name(&self) -> String {
        match self {
            Target::MedianRounds(_) => "median_rounds".to_owned(),
            Target::UnfairShare(_) => "unfair_share".to_owned(),
            Target::SmallShare { band, .. } => format!("small_share_band{band}"),
        }
    }

    pub fn goal(&self) -> f64 {
        match *self {
            Target::MedianRounds(v) | Target::UnfairShare(v) | Target::SmallShare { share: v, .. } => v,
        }
    }

    /// Parses `median_rounds=200`, `unfair_share=0.1`, `small_share=3:0.6`
    /// (band 3, share 0.6).
    pub fn parse(s: &str) -> Result<Self, String> {
        let (key, value) = s
            .split_once('=')
            .ok_or_else(|| format!("a target is KEY=VALUE, like median_rounds=200; got {s:?}"))?;
        let number = |v: &str| {
            v.trim()
                .parse::<f64>()
                .map_err(|_| format!("{v:?} is not a number in {s:?}"))
        };
        match key.trim() {
            "median_rounds" => {
                let v = number(value)?;
                if v >= 1.0 {
                    Ok(Target::MedianRounds(v))
                } else {
                    Err(format!("median_rounds is at least 1; got {v}"))
                }
            }
            "unfair_share" => {
                let v = number(value)?;
                if (0.0..=1.0).contains(&v) {
                    Ok(Target::UnfairShare(v))
                } else {
                    Err(format!("unfair_share is a share, 0 to 1; got {v}"))
                }
            }
            "small_share" => {
                let (band, share) = value
                    .split_once(':')
                    .ok_or_else(|| format!("small_share is BAND:SHARE, like small_share=3:0.6; got {s:?}"))?;
                let band = band
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&b| b < BANDS)
                    .ok_or_else(|| {
                        format!(
                            "the band of small_share is 0 to {} (0-20 % ... 80-100 % full); got {band:?}",
                            BANDS - 1
                        )
                    })?;
                let share = number(share)?;
                if (0.0..=1.0).contains(&share) {
                    Ok(Target::SmallShare { band, share })
                } else {
                    Err(format!("small_share is a share, 0 to 1; got {share}"))
                }
            }
            other => Err(format!(
                "unknown target {other:?}; choose median_rounds, unfair_share or small_share"
            )),
        }
    }

    /// What the games measured for this target.
    pub fn measure(&self, s: &Summary, set: &PieceSet) -> f64 {
        match *self {
            Target::MedianRounds(_) => s.km.median.map_or(s.rounds_median, f64::from),
            Target::UnfairShare(_) => s.unfair_share.map_or(0.0, |x| x.0),
            Target::SmallShare { band, .. } => small_share(s, set, band).map_or(0.0, |x| x.0),
        }
    }

    /// Its part of the loss: the relative miss squared (for a share, the
    /// miss itself, and for unfair_share only above the goal).
    fn loss(&self, measured: f64) -> f64 {
        match *self {
            Target::MedianRounds(t) => ((measured - t) / t).powi(2),
            Target::UnfairShare(t) => (measured - t).max(0.0).powi(2),
            Target::SmallShare { share, .. } => (measured - share).powi(2),
        }
    }

    /// The measure on the hold-out games with its 95 % interval.
    pub fn interval(&self, s: &Summary, set: &PieceSet) -> (f64, Option<(f64, f64)>) {
        match *self {
            Target::MedianRounds(_) => {
                let (lo, hi) = s.km.median_ci;
                let ci = lo.map(|lo| (f64::from(lo), hi.map_or(f64::INFINITY, f64::from)));
                (self.measure(s, set), ci)
            }
            Target::UnfairShare(_) => match s.unfair_share {
                Some((p, lo, hi)) => (p, Some((lo, hi))),
                None => (0.0, None),
            },
            Target::SmallShare { band, .. } => match small_share(s, set, band) {
                Some((p, lo, hi)) => (p, Some((lo, hi))),
                None => (0.0, None),
            },
        }
    }
}

/// The share of pieces of 1-3 cells among those dealt in `band`, with its
/// Wilson interval.
pub fn small_share(s: &Summary, set: &PieceSet, band: usize) -> Option<(f64, f64, f64)> {
    let small: u64 = s
        .dealt
        .iter()
        .zip(&set.pieces)
        .filter(|(_, p)| p.cells().len() <= 3)
        .map(|(d, _)| d[band])
        .sum();
    survival::share(small as usize, s.dealt_by_band[band] as usize)
}

/// A loss this small means every target is met within about 1 %: the
/// search stops there (on the tuning seeds any closer is overfitting them).
pub const GOOD_ENOUGH: f64 = 1e-4;

/// What to tune.
#[derive(Clone, Debug)]
pub struct TuneRequest {
    pub base: GeneratorSpec,
    /// The games every candidate plays: the plan's set is the base's, its
    /// seeds `seed..seed + games`.
    pub plan: Plan,
    pub player: String,
    pub targets: Vec<(Target, f64)>,
    /// The pieces whose weights move (the others keep theirs).
    pub free: Vec<PieceIdx>,
    /// Every free weight stays in `bounds`, in tenths of a base weight.
    pub bounds: (f64, f64),
    pub budget_seconds: f64,
    /// A cap on evaluations too (tests use it: a time budget is not
    /// repeatable).
    pub max_evaluations: Option<usize>,
    pub holdout_games: usize,
}

/// One evaluation of a candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub n: usize,
    pub loss: f64,
    pub best: f64,
    pub measures: Vec<f64>,
    /// The free weights tried (see `candidate`).
    pub x: Vec<f64>,
}

/// One target checked: its value at the start (on the tuning seeds) and
/// the tuned generator's on the hold-out games, with its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checked {
    pub target: Target,
    pub start: f64,
    pub holdout: f64,
    pub ci: Option<(f64, f64)>,
}

/// The result: the best generator, and how it does on fresh seeds.
#[derive(Clone, Debug)]
pub struct TuneReport {
    pub tuned: GeneratorSpec,
    pub start: Evaluation,
    pub best: Evaluation,
    pub evaluations: Vec<Evaluation>,
    /// Per target, how the start and the best did.
    pub holdout: Vec<Checked>,
    pub weights_before: Vec<u32>,
    pub weights_after: Vec<u32>,
    pub seconds: f64,
    /// The budget ran out or a cancel came before the targets were met or
    /// Nelder-Mead converged.
    pub stopped_early: bool,
}

impl TuneReport {
    pub fn evaluations_per_second(&self) -> f64 {
        self.evaluations.len() as f64 / self.seconds.max(1e-9)
    }
}

/// The base weights in tuning steps.
fn start_weights(set: &PieceSet) -> Vec<u32> {
    set.pieces.iter().map(|p| p.weight * STEPS).collect()
}

/// The candidate generator for free weights `x` (clamped to the bounds and
/// rounded): every piece's weight written, in steps.
pub fn candidate(req: &TuneRequest, x: &[f64]) -> GeneratorSpec {
    let mut weights = start_weights(&req.base.set);
    for (&piece, &v) in req.free.iter().zip(x) {
        weights[usize::from(piece)] = v.clamp(req.bounds.0, req.bounds.1).round() as u32;
    }
    if weights.iter().all(|&w| w == 0) {
        weights = start_weights(&req.base.set);
    }
    let mut spec = req.base.clone();
    spec.file.weights = BTreeMap::new();
    for (p, &w) in spec.set.pieces.iter_mut().zip(&weights) {
        p.weight = w;
        spec.file.weights.insert(p.id.clone(), w);
    }
    spec
}

fn summarize(
    req: &TuneRequest,
    spec: &GeneratorSpec,
    games: std::ops::Range<usize>,
    progress: &Progress,
) -> Option<(Summary, Vec<Game>)> {
    let played = runner::run_spec(&req.plan, &req.player, spec, games, progress)?;
    Some((runner::summarize(&played, &req.plan.set), played))
}

struct Objective<'a, F: Fn(&Evaluation)> {
    req: &'a TuneRequest,
    progress: &'a Progress,
    started: Instant,
    seen: RefCell<Vec<Evaluation>>,
    best: RefCell<Option<(f64, Vec<f64>)>>,
    on_eval: F,
}

impl<F: Fn(&Evaluation)> Objective<'_, F> {
    fn evaluate(&self, x: &[f64]) -> Option<Evaluation> {
        let spec = candidate(self.req, x);
        let (s, _) = summarize(self.req, &spec, 0..self.req.plan.games, self.progress)?;
        let measures: Vec<f64> = self
            .req
            .targets
            .iter()
            .map(|(t, _)| t.measure(&s, &self.req.plan.set))
            .collect();
        // Straying past the bounds costs a little, so the simplex comes back.
        let stray: f64 = x
            .iter()
            .map(|&v| (self.req.bounds.0 - v).max(0.0) + (v - self.req.bounds.1).max(0.0))
            .sum::<f64>()
            * 1e-3;
        let loss = self
            .req
            .targets
            .iter()
            .zip(&measures)
            .map(|((t, w), &m)| w * t.loss(m))
            .sum::<f64>()
            + stray;
        let mut best = self.best.borrow_mut();
        if best.as_ref().is_none_or(|b| loss < b.0) {
            *best = Some((loss, x.to_vec()));
        }
        let e = Evaluation {
            n: self.seen.borrow().len(),
            loss,
            best: best.as_ref().map_or(loss, |b| b.0),
            measures,
            x: x.to_vec(),
        };
        self.seen.borrow_mut().push(e.clone());
        (self.on_eval)(&e);
        Some(e)
    }
}

// Implemented for a reference: each restart of the solver borrows the one
// objective, its record of evaluations kept across them.
impl<F: Fn(&Evaluation)> CostFunction for &Objective<'_, F> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Self::Param) -> Result<f64, Error> {
        let spent = self.started.elapsed().as_secs_f64() > self.req.budget_seconds
            || self
                .req
                .max_evaluations
                .is_some_and(|m| self.seen.borrow().len() >= m);
        if spent {
            return Err(Error::msg("the budget is spent"));
        }
        if self.best.borrow().as_ref().is_some_and(|b| b.0 <= GOOD_ENOUGH) {
            return Err(Error::msg("every target is met"));
        }
        self.evaluate(x)
            .map(|e| e.loss)
            .ok_or_else(|| Error::msg("cancelled"))
    }
}

/// Tunes; `on_eval` hears of every evaluation (the convergence plot).
/// `None` only when cancelled before the first evaluation; a cancel later
/// keeps the best so far (checked on the hold-out unless cancelled there).
pub fn tune(req: &TuneRequest, progress: &Progress, on_eval: impl Fn(&Evaluation)) -> Option<TuneReport> {
    let started = Instant::now();
    let x0: Vec<f64> = req
        .free
        .iter()
        .map(|&p| f64::from(start_weights(&req.base.set)[usize::from(p)]).clamp(req.bounds.0, req.bounds.1))
        .collect();
    let objective = Objective {
        req,
        progress,
        started,
        seen: RefCell::new(Vec::new()),
        best: RefCell::new(None),
        on_eval,
    };
    let start = objective.evaluate(&x0)?;
    // The first simplex: each free weight moved by a third of the range
    // (towards the middle), so the search looks wide before it narrows.
    let span = (req.bounds.1 - req.bounds.0) / 3.0;
    let mut simplex = vec![x0.clone()];
    for i in 0..x0.len() {
        let mut v = x0.clone();
        let mid = (req.bounds.0 + req.bounds.1) / 2.0;
        v[i] += if v[i] < mid { span } else { -span };
        simplex.push(v);
    }
    let mut stopped_early = false;
    // Restarts around the best so far while budget remains: Nelder-Mead
    // stalls on the plateaus rounding to whole weights makes.
    let mut round = 0;
    let budget_left = |seen: usize| {
        started.elapsed().as_secs_f64() < req.budget_seconds && req.max_evaluations.is_none_or(|m| seen < m)
    };
    while !progress.cancelled() && budget_left(objective.seen.borrow().len()) {
        let solver = NelderMead::new(simplex.clone()).with_sd_tolerance(1e-6).ok()?;
        let run = Executor::new(&objective, solver)
            .configure(|state| state.max_iters(400))
            .run();
        if run.is_err() {
            stopped_early = objective.best.borrow().as_ref().is_none_or(|b| b.0 > GOOD_ENOUGH);
            break;
        }
        round += 1;
        let Some((_, best)) = objective.best.borrow().clone() else {
            break;
        };
        let shrink = span / f64::from(2 * round + 1);
        simplex = vec![best.clone()];
        for i in 0..best.len() {
            let mut v = best.clone();
            v[i] += if i % 2 == 0 { shrink } else { -shrink };
            simplex.push(v);
        }
        if shrink < 1.0 {
            break;
        }
    }
    let (_, best_x) = objective.best.borrow().clone()?;
    let evaluations = objective.seen.into_inner();
    let best = evaluations
        .iter()
        .min_by(|a, b| a.loss.total_cmp(&b.loss))?
        .clone();
    let tuned = candidate(req, &best_x);
    // The hold-out: fresh seeds, far from the tuning ones.
    let fresh = 1_000_000..1_000_000 + req.holdout_games;
    let holdout = match summarize(req, &tuned, fresh, progress) {
        Some((s, _)) => req
            .targets
            .iter()
            .zip(&start.measures)
            .map(|((t, _), &at_start)| {
                let (holdout, ci) = t.interval(&s, &req.plan.set);
                Checked {
                    target: *t,
                    start: at_start,
                    holdout,
                    ci,
                }
            })
            .collect(),
        None => Vec::new(),
    };
    Some(TuneReport {
        weights_before: start_weights(&req.base.set),
        weights_after: tuned.set.pieces.iter().map(|p| p.weight).collect(),
        tuned,
        start,
        best,
        evaluations,
        holdout,
        seconds: started.elapsed().as_secs_f64(),
        stopped_early: stopped_early || progress.cancelled(),
    })
}

#[cfg(test)]
#[path = "tune_tests.rs"]
mod tests;
