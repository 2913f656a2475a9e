//! Tuning a generator to targets: the weights of the free pieces searched
//! by Nelder-Mead (argmin) against a loss over goals (the median rounds of
//! each player, at most an unfair share of losses, the share of small
//! pieces dealt in a fill band), every candidate played on the same seeds
//! (common random numbers: differences between candidates are not luck).
//!
//! Each goal's miss is measured in its own tolerance (stated, and
//! overridable: `median_rounds=35@2`), so no goal is traded away for
//! another on a different scale: the loss is the sum of the squared misses
//! in tolerances, plus, if asked, a penalty on the divergence of the mix
//! from the designer's. Common random numbers fit the tuning seeds' noise,
//! so the few best candidates are played again on validation seeds before
//! one is chosen; the start and the winner are then both measured on fresh
//! seeds (the hold-out), each goal with its interval and a verdict from
//! it: met, missed or undecided (`tune_verdict`).
//!
//! The weights are tuned in steps of a tenth of the base weights (fewer
//! when a base weight is so large that tenths would pass 1000), every piece
//! written in the tuned file; `bounds` hold every free weight, and no
//! weight passes `MAX_WEIGHT`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

use argmin::core::{CostFunction, Error, Executor};
use argmin::solver::neldermead::NelderMead;

use crate::fits::population::file::Population;
use crate::fits::population::forecast::{Forecast, Outcome, play_players, summarize};
use crate::fits::population::session::Table;
use crate::model::pieces::{MAX_WEIGHT, PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::play::dealing::Dealing;
use crate::play::game::Game;
use crate::play::generator_file::GeneratorSpec;
use crate::progress::Progress;
use crate::stats::divergence;
use crate::stats::survival;
use crate::study::runner::{self, Plan, Summary};
pub use crate::study::tune_goal::{Goal, Measured, Target, small_counts, small_share};
pub use crate::study::tune_verdict::{Checked, Verdict};
use crate::study::tune_verdict::{audience_at, level, looks};

/// The weights are tuned at this many steps per base weight, at most.
pub const STEPS: u32 = 10;

/// Steps per base weight for `set`: ten, or fewer so that the largest base
/// weight in steps stays within `MAX_WEIGHT`.
pub fn steps(set: &PieceSet) -> u32 {
    let largest = set.pieces.iter().map(|p| p.weight).max().unwrap_or(1).max(1);
    (MAX_WEIGHT / largest).clamp(1, STEPS)
}

/// Validation: the best candidates on the tuning seeds played again on
/// these, the first far from the tuning and hold-out seeds.
pub const VALIDATION_SEEDS: usize = 2_000_000;
pub const HOLDOUT_SEEDS: usize = 1_000_000;
/// How many of the best candidates are validated.
pub const FINALISTS: usize = 3;

/// A loss this small means every goal is met within a tenth of its
/// tolerance: the search stops there (on the tuning seeds any closer is
/// overfitting them).
pub const GOOD_ENOUGH: f64 = 1e-2;

/// What to tune.
#[derive(Clone, Debug)]
pub struct TuneRequest {
    pub base: GeneratorSpec,
    /// The games every candidate plays: the plan's set is the base's, its
    /// seeds `seed..seed + games`; every player of the plan plays them, and
    /// the goals hold for each (their misses summed).
    pub plan: Plan,
    pub goals: Vec<Goal>,
    /// The pieces whose weights move (the others keep theirs).
    pub free: Vec<PieceIdx>,
    /// Every free weight stays in `bounds`, in steps (see `steps`).
    pub bounds: (f64, f64),
    /// The strength of the penalty on the divergence (KL, nats) of the
    /// candidate's mix from the base's: 0 lets the mix go anywhere.
    pub keep_mix: f64,
    pub budget_seconds: f64,
    /// A cap on evaluations too (tests use it: a time budget is not
    /// repeatable).
    pub max_evaluations: Option<usize>,
    pub holdout_games: usize,
    /// An undecided goal grows the hold-out, doubling, up to this many
    /// games (`tune_verdict`); at most `holdout_games` means one look.
    pub holdout_max: usize,
    /// Tune for an audience instead of players: each candidate's figures
    /// are those of this population's players, `plan.games` of them, one
    /// session each (its point estimate: a fit's uncertainty is the
    /// forecast's to show).
    pub audience: Option<Population>,
}

/// The label of an audience in the hold-out's verdicts.
pub const AUDIENCE: &str = "audience";

impl TuneRequest {
    /// What a tune cannot mean, refused before it starts: no player or no
    /// goal, a median goal past the round cap (it could never be
    /// measured), bounds outside 0 to `MAX_WEIGHT`.
    pub fn check(&self) -> Result<(), String> {
        if self.plan.players.is_empty() && self.audience.is_none() {
            return Err("a tune needs a player".to_owned());
        }
        if self.goals.is_empty() {
            return Err("a tune needs a target".to_owned());
        }
        for g in &self.goals {
            let t = g.target;
            if self.audience.is_some() && !(t.of_audience() || matches!(t, Target::UnfairShare(_))) {
                return Err(format!(
                    "{} is a player's target; for a population the targets are reach, games_per_session and unfair_share",
                    t.name()
                ));
            }
            if self.audience.is_none() && t.of_audience() {
                return Err(format!("{} is an audience's target: give a population", t.name()));
            }
        }
        for g in &self.goals {
            if let Target::MedianRounds(m) = g.target
                && m > f64::from(self.plan.max_rounds)
            {
                return Err(format!(
                    "median_rounds={m} is past the round cap of {}: a median beyond the cap cannot be measured; raise the cap",
                    self.plan.max_rounds
                ));
            }
        }
        let (lo, hi) = self.bounds;
        if !(lo >= 0.0 && lo < hi && hi <= f64::from(MAX_WEIGHT)) {
            return Err(format!(
                "the bounds are LO,HI with 0 <= LO < HI <= {MAX_WEIGHT}; got {lo},{hi}"
            ));
        }
        if !(self.keep_mix >= 0.0 && self.keep_mix.is_finite()) {
            return Err(format!("keep-mix is 0 or more; got {}", self.keep_mix));
        }
        Ok(())
    }
}

/// One evaluation of a candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub n: usize,
    pub loss: f64,
    pub best: f64,
    /// Per player, per goal, player by player.
    pub measures: Vec<f64>,
    /// The divergence of the candidate's mix from the base's (nats).
    pub divergence: f64,
    /// The free weights tried (see `candidate`).
    pub x: Vec<f64>,
}

/// A finalist: a candidate among the best on the tuning seeds, and its
/// loss on the validation seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Finalist {
    pub x: Vec<f64>,
    pub tuning_loss: f64,
    pub validation_loss: f64,
}

/// The result: the chosen generator, and how it and the start do on fresh
/// seeds.
#[derive(Clone, Debug)]
pub struct TuneReport {
    pub tuned: GeneratorSpec,
    pub start: Evaluation,
    pub best: Evaluation,
    pub evaluations: Vec<Evaluation>,
    /// The best candidates validated, the chosen one first.
    pub finalists: Vec<Finalist>,
    /// Per player and goal, the start and the tuned on the hold-out.
    pub holdout: Vec<Checked>,
    /// In steps of `steps` per base weight.
    pub steps: u32,
    pub weights_before: Vec<u32>,
    pub weights_after: Vec<u32>,
    /// The divergence (KL, nats) of the tuned mix from the base's.
    pub divergence: f64,
    pub seconds: f64,
    /// The budget ran out or a cancel came before the targets were met or
    /// Nelder-Mead converged.
    pub stopped_early: bool,
    /// What stopped the search.
    pub stop: Stop,
}

/// What stopped a tune's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every target within a tenth of its tolerance on the tuning seeds.
    TargetsMet,
    /// The time budget (or the cap on evaluations) ran out.
    Budget,
    /// Cancel.
    Cancelled,
    /// Nelder-Mead stopped moving before the budget ran out.
    Converged,
}

impl Stop {
    /// In words, for the window and the CLI.
    pub fn words(self) -> &'static str {
        match self {
            Stop::TargetsMet => "every target was met on the tuning seeds",
            Stop::Budget => "the budget ran out",
            Stop::Cancelled => "Cancel stopped it, the best so far kept",
            Stop::Converged => "the search stopped improving",
        }
    }
}

impl TuneReport {
    pub fn evaluations_per_second(&self) -> f64 {
        self.evaluations.len() as f64 / self.seconds.max(1e-9)
    }

    /// Every goal met for every player on the hold-out (false when the
    /// hold-out was cancelled).
    pub fn all_met(&self) -> bool {
        !self.holdout.is_empty() && self.holdout.iter().all(|c| c.verdict == Verdict::Met)
    }

    /// The verdict of the whole tune: missed if any goal is, else
    /// undecided if any is (or the hold-out was cancelled), else met.
    pub fn verdict(&self) -> Verdict {
        let any = |v: Verdict| self.holdout.iter().any(|c| c.verdict == v);
        if any(Verdict::Missed) {
            Verdict::Missed
        } else if any(Verdict::Undecided) || self.holdout.is_empty() {
            Verdict::Undecided
        } else {
            Verdict::Met
        }
    }
}

/// The base weights in tuning steps.
fn start_weights(set: &PieceSet) -> Vec<u32> {
    let k = steps(set);
    set.pieces
        .iter()
        .map(|p| (p.weight * k).min(MAX_WEIGHT))
        .collect()
}

/// The candidate generator for free weights `x` (clamped to the bounds and
/// to `MAX_WEIGHT`, and rounded): every piece's weight written, in steps.
pub fn candidate(req: &TuneRequest, x: &[f64]) -> GeneratorSpec {
    let mut weights = start_weights(&req.base.set);
    for (&piece, &v) in req.free.iter().zip(x) {
        let v = v.clamp(req.bounds.0, req.bounds.1).min(f64::from(MAX_WEIGHT));
        weights[usize::from(piece)] = v.round() as u32;
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

/// The divergence of `spec`'s mix from the base's (nats): KL of the
/// candidate's probabilities from the base's, over pieces the base deals.
fn divergence(req: &TuneRequest, spec: &GeneratorSpec) -> f64 {
    let weights: Vec<u64> = spec.set.pieces.iter().map(|p| u64::from(p.weight)).collect();
    divergence::kl_divergence(&weights, &req.base.set.weights())
}

/// Every player's games of `spec` on `games`, summarized, player by player.
fn summaries(
    req: &TuneRequest,
    spec: &GeneratorSpec,
    games: std::ops::Range<usize>,
    progress: &Progress,
) -> Option<Vec<Summary>> {
    req.plan
        .player_names()
        .into_iter()
        .map(|p| {
            let played: Vec<Game> = runner::run_spec(&req.plan, p, spec, games.clone(), progress)?;
            Some(runner::summarize(&played, &req.plan.set))
        })
        .collect()
}

/// The audience's figures under `spec`: the population's players `games`
/// (player i of the plan's seed), one session each.
pub(crate) fn audience_forecast(
    req: &TuneRequest,
    spec: &GeneratorSpec,
    games: std::ops::Range<usize>,
    progress: &Progress,
) -> Option<Forecast> {
    let mut point = req.audience.clone()?;
    point.fitted = None;
    let set = &req.plan.set;
    let shapes = Shapes::new(set, req.plan.shapes_size);
    let dealing = Dealing::file(spec.clone(), set).ok()?;
    let table = Table {
        shapes: &shapes,
        set,
        k: req.plan.k,
        dealing: &dealing,
        options: req.plan.options,
        max_rounds: req.plan.max_rounds,
    };
    let outcomes: Vec<Outcome> = play_players(&point, &table, games, req.plan.seed, progress)?;
    Some(summarize(AUDIENCE, &outcomes.iter().collect::<Vec<_>>(), None))
}

/// The loss of `spec` on `games`: the squared misses in tolerances, summed
/// over players and goals, the divergence penalty, and the measures.
fn loss_on(
    req: &TuneRequest,
    spec: &GeneratorSpec,
    games: std::ops::Range<usize>,
    progress: &Progress,
) -> Option<(f64, Vec<f64>, f64)> {
    let measures: Vec<f64> = if req.audience.is_some() {
        let f = audience_forecast(req, spec, games, progress)?;
        req.goals
            .iter()
            .map(|g| g.target.audience_interval(&f).value.unwrap_or(f64::INFINITY))
            .collect()
    } else {
        let summaries = summaries(req, spec, games, progress)?;
        summaries
            .iter()
            .flat_map(|s| req.goals.iter().map(move |g| g.target.measure(s, &req.plan.set)))
            .collect()
    };
    let goals = req.goals.iter().cycle();
    let misses: f64 = goals.zip(&measures).map(|(g, &m)| g.misses_by(m).powi(2)).sum();
    let kl = divergence(req, spec);
    Some((misses + req.keep_mix * kl, measures, kl))
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
        let (loss, measures, kl) = loss_on(self.req, &spec, 0..self.req.plan.games, self.progress)?;
        // Straying past the bounds costs a little, so the simplex comes back.
        let stray: f64 = x
            .iter()
            .map(|&v| (self.req.bounds.0 - v).max(0.0) + (v - self.req.bounds.1).max(0.0))
            .sum::<f64>()
            * 1e-3;
        let loss = loss + stray;
        let mut best = self.best.borrow_mut();
        if best.as_ref().is_none_or(|b| loss < b.0) {
            *best = Some((loss, x.to_vec()));
        }
        let e = Evaluation {
            n: self.seen.borrow().len(),
            loss,
            best: best.as_ref().map_or(loss, |b| b.0),
            measures,
            divergence: kl,
            x: x.to_vec(),
        };
        self.seen.borrow_mut().push(e.clone());
        (self.on_eval)(&e);
        Some(e)
    }
}

impl<F: Fn(&Evaluation)> Objective<'_, F> {
    /// The search should stop: the budget is spent, a cancel came, or
    /// every goal is met.
    fn done(&self) -> bool {
        let seen = self.seen.borrow().len();
        self.started.elapsed().as_secs_f64() > self.req.budget_seconds
            || self.req.max_evaluations.is_some_and(|m| seen >= m)
            || self.progress.cancelled()
            || self.best.borrow().as_ref().is_some_and(|b| b.0 <= GOOD_ENOUGH)
    }
}

// Implemented for a reference: each restart of the solver borrows the one
// objective, its record of evaluations kept across them.
impl<F: Fn(&Evaluation)> CostFunction for &Objective<'_, F> {
    type Param = Vec<f64>;
    type Output = f64;

    /// Once the search should stop, every point costs infinity at once,
    /// never an error: argmin 0.11's Nelder-Mead unwraps the costs of its
    /// first simplex, so an error there (a budget spent or a cancel during
    /// the first evaluations) would panic.
    fn cost(&self, x: &Self::Param) -> Result<f64, Error> {
        if self.done() {
            return Ok(f64::INFINITY);
        }
        Ok(self.evaluate(x).map_or(f64::INFINITY, |e| e.loss))
    }
}

/// The few best distinct candidates of the search, best first.
fn best_few(evaluations: &[Evaluation], req: &TuneRequest) -> Vec<(Vec<f64>, f64)> {
    let mut sorted: Vec<&Evaluation> = evaluations.iter().collect();
    sorted.sort_by(|a, b| a.loss.total_cmp(&b.loss));
    let mut out: Vec<(Vec<f64>, f64)> = Vec::new();
    let mut seen: Vec<Vec<u32>> = Vec::new();
    for e in sorted {
        let w: Vec<u32> = candidate(req, &e.x).set.weights();
        if !seen.contains(&w) {
            seen.push(w);
            out.push((e.x.clone(), e.loss));
        }
        if out.len() == FINALISTS {
            break;
        }
    }
    out
}

/// Tunes; `on_eval` hears of every evaluation (the convergence plot).
/// `None` only when cancelled before the first evaluation; a cancel later
/// keeps the best so far (validated and checked on the hold-out unless
/// cancelled there).
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
    while !objective.done() && budget_left(objective.seen.borrow().len()) {
        let solver = NelderMead::new(simplex.clone()).with_sd_tolerance(1e-6).ok()?;
        let run = Executor::new(&objective, solver)
            .configure(|state| state.max_iters(400))
            .run();
        if run.is_err() || objective.done() {
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
    let met = objective
        .best
        .borrow()
        .as_ref()
        .is_some_and(|b| b.0 <= GOOD_ENOUGH);
    let stop = if progress.cancelled() {
        Stop::Cancelled
    } else if met {
        Stop::TargetsMet
    } else if !budget_left(objective.seen.borrow().len()) {
        Stop::Budget
    } else {
        Stop::Converged
    };
    let evaluations = objective.seen.into_inner();
    let best = evaluations
        .iter()
        .min_by(|a, b| a.loss.total_cmp(&b.loss))?
        .clone();
    // Validation: the best few on fresh seeds, so the winner is not the
    // candidate that fit the tuning seeds' luck best.
    let validation = VALIDATION_SEEDS..VALIDATION_SEEDS + req.plan.games;
    let mut finalists: Vec<Finalist> = Vec::new();
    for (x, tuning_loss) in best_few(&evaluations, req) {
        let Some((validation_loss, ..)) = loss_on(req, &candidate(req, &x), validation.clone(), progress)
        else {
            break;
        };
        finalists.push(Finalist {
            x,
            tuning_loss,
            validation_loss,
        });
    }
    finalists.sort_by(|a, b| a.validation_loss.total_cmp(&b.validation_loss));
    let chosen = finalists.first().map_or(best.x.clone(), |f| f.x.clone());
    let tuned = candidate(req, &chosen);
    // The hold-out: the start and the winner on the same fresh seeds.
    let base = candidate(req, &x0);
    let holdout = check_holdout(req, &base, &tuned, progress).unwrap_or_default();
    Some(TuneReport {
        weights_before: start_weights(&req.base.set),
        weights_after: tuned.set.pieces.iter().map(|p| p.weight).collect(),
        divergence: divergence(req, &tuned),
        steps: steps(&req.base.set),
        tuned,
        start,
        best,
        evaluations,
        finalists,
        holdout,
        seconds: started.elapsed().as_secs_f64(),
        stopped_early: stopped_early || progress.cancelled(),
        stop,
    })
}

/// The start and the tuned generator on the hold-out, every goal of every
/// player given its verdict; `None` when cancelled.
pub fn check_holdout(
    req: &TuneRequest,
    base: &GeneratorSpec,
    tuned: &GeneratorSpec,
    progress: &Progress,
) -> Option<Vec<Checked>> {
    let looks = looks(req.holdout_games, req.holdout_max.max(req.holdout_games));
    let level = level(looks.len());
    let z = survival::z_of(level);
    let first = HOLDOUT_SEEDS..HOLDOUT_SEEDS + looks[0];
    if req.audience.is_some() {
        let before = audience_forecast(req, base, first, progress)?;
        let mut checked: Vec<Checked> = req
            .goals
            .iter()
            .map(|g| Checked::pending(AUDIENCE, *g, g.target.audience_interval(&before), level))
            .collect();
        for &n in &looks {
            let after = audience_forecast(req, tuned, HOLDOUT_SEEDS..HOLDOUT_SEEDS + n, progress)?;
            for c in checked.iter_mut().filter(|c| c.verdict == Verdict::Undecided) {
                c.holdout = audience_at(&c.goal.target, &after, level);
                c.verdict = c.goal.verdict(&c.holdout);
                c.games = n;
            }
            if checked.iter().all(|c| c.verdict != Verdict::Undecided) {
                break;
            }
        }
        return Some(finish(checked));
    }
    let players = req.plan.player_names();
    let mut checked = Vec::new();
    for p in players {
        let start_games = runner::run_spec(&req.plan, p, base, first.clone(), progress)?;
        let start = runner::summarize(&start_games, &req.plan.set);
        let mut mine: Vec<Checked> = req
            .goals
            .iter()
            .map(|g| Checked::pending(p, *g, g.target.interval(&start, &req.plan.set), level))
            .collect();
        let mut games: Vec<Game> = Vec::new();
        for &n in &looks {
            let more = HOLDOUT_SEEDS + games.len()..HOLDOUT_SEEDS + n;
            games.extend(runner::run_spec(&req.plan, p, tuned, more, progress)?);
            let s = runner::summarize(&games, &req.plan.set);
            let timed: Vec<(u32, bool)> = games
                .iter()
                .map(|g| (g.rounds, g.end == crate::play::game::End::Censored))
                .collect();
            let km = survival::kaplan_meier_at(&timed, z);
            for c in mine.iter_mut().filter(|c| c.verdict == Verdict::Undecided) {
                c.holdout = c.goal.target.interval_at(&s, &km, &req.plan.set, z);
                c.verdict = c.goal.verdict(&c.holdout);
                c.games = n;
            }
            if mine.iter().all(|c| c.verdict != Verdict::Undecided) {
                break;
            }
        }
        checked.extend(mine);
    }
    Some(finish(checked))
}

/// The games an undecided goal would need.
fn finish(mut checked: Vec<Checked>) -> Vec<Checked> {
    for c in &mut checked {
        if c.verdict == Verdict::Undecided {
            c.needed = c.goal.needed(&c.holdout, c.games);
        }
    }
    checked
}

#[cfg(test)]
#[path = "tune_tests.rs"]
mod tests;
