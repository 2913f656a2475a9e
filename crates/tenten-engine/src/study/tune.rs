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
use crate::study::runner::{self, Plan};
pub use crate::study::tune_goal::{
    Evaluation, GOOD_ENOUGH, Goal, Measured, Target, small_counts, small_share,
};
use crate::study::tune_plan;
use crate::study::tune_scout;
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
    /// Plan the hold-out from the tuned candidate's spread instead
    /// (`tune_plan::holdout_looks`): `holdout_games` and `holdout_max` are
    /// then the least and the most its looks may take.
    pub plan_holdout: bool,
    /// Tune for an audience instead of players: each candidate's figures
    /// are those of this population's players, `plan.games` of them, one
    /// session each (its point estimate: a fit's uncertainty is the
    /// forecast's to show).
    pub audience: Option<Population>,
}

/// The fewest hold-out games (or players) a verdict is given on: one
/// game's median is a point, its interval no interval.
pub const MIN_HOLDOUT: usize = 20;

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
            let top = g.band().1;
            if let Target::MedianRounds(m) = g.target
                && top > f64::from(self.plan.max_rounds)
            {
                return Err(format!(
                    "median_rounds={m} within {} reaches round {top}, past the round cap of {}: a median beyond the cap cannot be measured, so the goal could never be met; raise the cap (--max-rounds)",
                    g.tolerance, self.plan.max_rounds
                ));
            }
        }
        if self.holdout_games < MIN_HOLDOUT {
            return Err(format!(
                "the hold-out is at least {MIN_HOLDOUT} games (or players): one game's median is a point, not an interval; got {}",
                self.holdout_games
            ));
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

/// A finalist: a candidate among the best on the tuning seeds, and its
/// loss on the validation seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Finalist {
    pub x: Vec<f64>,
    pub tuning_loss: f64,
    pub validation_loss: f64,
    /// Per measure, on the validation games.
    pub validation: Vec<Measured>,
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
    /// The round every game was followed to (`tune_plan::rounds_needed`):
    /// the plan's cap, or less when every goal is a median.
    pub cap: u32,
    /// The hold-out's first and last look, in games (or players).
    pub holdout_looks: (usize, usize),
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
            Stop::TargetsMet => {
                "every target was met on the tuning seeds (within a tenth of its tolerance, or a quarter of its standard error: closer only fits their noise)"
            }
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

/// Every player's games of `spec` on `games`, player by player.
fn played(
    req: &TuneRequest,
    spec: &GeneratorSpec,
    games: std::ops::Range<usize>,
    progress: &Progress,
) -> Option<Vec<Vec<Game>>> {
    req.plan
        .player_names()
        .into_iter()
        .map(|p| runner::run_spec(&req.plan, p, spec, games.clone(), progress))
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

/// A candidate scored on some games.
struct Scored {
    /// The squared misses in tolerances, summed over players and goals,
    /// plus the divergence penalty.
    loss: f64,
    /// Per player, per goal.
    measures: Vec<f64>,
    intervals: Vec<Measured>,
    kl: f64,
}

/// `spec` scored on `games`.
fn loss_on(
    req: &TuneRequest,
    spec: &GeneratorSpec,
    games: std::ops::Range<usize>,
    progress: &Progress,
) -> Option<Scored> {
    if req.audience.is_none() {
        return Some(scored(req, spec, &played(req, spec, games, progress)?));
    }
    let f = audience_forecast(req, spec, games, progress)?;
    let (measures, intervals) = req
        .goals
        .iter()
        .map(|g| {
            let m = g.target.audience_interval(&f);
            (m.value.unwrap_or(f64::INFINITY), m)
        })
        .unzip();
    Some(score(req, spec, measures, intervals))
}

/// `spec` scored on every player's `games`.
fn scored(req: &TuneRequest, spec: &GeneratorSpec, games: &[Vec<Game>]) -> Scored {
    let set = &req.plan.set;
    let (measures, intervals) = games
        .iter()
        .map(|g| runner::summarize(g, set))
        .flat_map(|s| {
            req.goals
                .iter()
                .map(move |g| (g.target.measure(&s, set), g.target.interval(&s, set)))
                .collect::<Vec<_>>()
        })
        .unzip();
    score(req, spec, measures, intervals)
}

/// The loss of `measures` (per player, per goal), with the divergence.
fn score(req: &TuneRequest, spec: &GeneratorSpec, measures: Vec<f64>, intervals: Vec<Measured>) -> Scored {
    let goals = req.goals.iter().cycle();
    let misses: f64 = goals.zip(&measures).map(|(g, &m)| g.misses_by(m).powi(2)).sum();
    let kl = divergence(req, spec);
    Scored {
        loss: misses + req.keep_mix * kl,
        measures,
        intervals,
        kl,
    }
}

/// A race's first leg: this share of a candidate's games, at least
/// `RACE_LEAST`; a candidate whose intervals there already put it behind
/// the best so far plays no more.
pub const RACE_SHARE: usize = 4;
pub const RACE_LEAST: usize = 30;

/// The loss the intervals of `s` allow at least (every measure at the end
/// of its interval nearest its goal), with the divergence penalty.
fn least_loss(req: &TuneRequest, s: &Scored) -> f64 {
    let cap = f64::from(req.plan.max_rounds);
    let goals = req.goals.iter().cycle();
    let misses: f64 = goals
        .zip(&s.intervals)
        .map(|(g, m)| g.least_miss(m, cap).powi(2))
        .sum();
    misses + req.keep_mix * s.kl
}

/// A candidate played: its weights and the tuning games it played.
type Played = (Vec<u32>, usize);

struct Objective<'a, F: Fn(&Evaluation)> {
    req: &'a TuneRequest,
    progress: &'a Progress,
    started: Instant,
    seen: RefCell<Vec<Evaluation>>,
    best: RefCell<Option<(f64, Vec<f64>)>>,
    /// Candidates already played, by their weights (rounding makes many
    /// points one candidate; the seeds are common, so a replay would give
    /// the same figures): the evaluation, its loss without straying.
    played: RefCell<BTreeMap<Played, (f64, Evaluation)>>,
    /// The best so far sits within its games' noise of every goal.
    settled: std::cell::Cell<bool>,
    /// The tuning games a candidate plays now (`plan.games`, more once
    /// sharpened).
    games: std::cell::Cell<usize>,
    /// The seconds the last evaluation on all of them took.
    full_seconds: std::cell::Cell<f64>,
    on_eval: F,
}

/// Whether `e` (played on all the tuning games) is as near every goal as
/// those games can tell: each measure within a quarter of its standard
/// error (from its 95 % interval) or a tenth of its tolerance. Searching
/// closer would fit the seeds' luck. Not with a penalty on the mix, whose
/// trade against the misses the search must still make.
fn within_noise(req: &TuneRequest, e: &Evaluation, games: usize) -> bool {
    let goals = req.goals.iter().cycle();
    req.keep_mix == 0.0
        && e.games == games
        && goals.zip(&e.measures).zip(&e.intervals).all(|((g, &m), i)| {
            let se =
                i.ci.filter(|(lo, hi)| hi.is_finite() && hi > lo)
                    .map_or(0.0, |(lo, hi)| (hi - lo) / 3.92);
            let miss = g.target.miss(m);
            miss <= (0.1 * g.tolerance).max(0.25 * se) && miss <= g.tolerance
        })
}

impl<F: Fn(&Evaluation)> Objective<'_, F> {
    /// `spec` on the tuning games, raced for a player's tune: the first
    /// leg's intervals already behind the best so far end it there (its
    /// figures those of the leg's games), else the rest is played and the
    /// figures are those of all the games, as if never raced.
    fn race(&self, spec: &GeneratorSpec) -> Option<(Scored, usize)> {
        let (req, n) = (self.req, self.games.get());
        let leg = (n / RACE_SHARE).max(RACE_LEAST);
        let best = self.best.borrow().as_ref().map(|b| b.0);
        let (Some(best), None, true) = (best, &req.audience, leg < n) else {
            return Some((loss_on(req, spec, 0..n, self.progress)?, n));
        };
        let mut games = played(req, spec, 0..leg, self.progress)?;
        let first = scored(req, spec, &games);
        if least_loss(req, &first) > best {
            return Some((first, leg));
        }
        for (mine, rest) in games.iter_mut().zip(played(req, spec, leg..n, self.progress)?) {
            mine.extend(rest);
        }
        Some((scored(req, spec, &games), n))
    }

    fn evaluate(&self, x: &[f64]) -> Option<Evaluation> {
        let spec = candidate(self.req, x);
        // Straying past the bounds costs a little, so the simplex comes back.
        let stray: f64 = x
            .iter()
            .map(|&v| (self.req.bounds.0 - v).max(0.0) + (v - self.req.bounds.1).max(0.0))
            .sum::<f64>()
            * 1e-3;
        let key = (spec.set.weights(), self.games.get());
        if let Some((loss, e)) = self.played.borrow().get(&key) {
            return Some(Evaluation {
                loss: loss + stray,
                x: x.to_vec(),
                ..e.clone()
            });
        }
        let began = Instant::now();
        let (scored, games) = self.race(&spec)?;
        let loss = scored.loss + stray;
        let mut best = self.best.borrow_mut();
        if best.as_ref().is_none_or(|b| loss < b.0) {
            *best = Some((loss, x.to_vec()));
            self.settled.set(false);
        }
        let e = Evaluation {
            n: self.seen.borrow().len(),
            loss,
            best: best.as_ref().map_or(loss, |b| b.0),
            measures: scored.measures,
            divergence: scored.kl,
            x: x.to_vec(),
            intervals: scored.intervals,
            seconds: began.elapsed().as_secs_f64(),
            games,
        };
        if games == self.games.get() {
            self.full_seconds.set(e.seconds);
        }
        self.played.borrow_mut().insert(key, (scored.loss, e.clone()));
        if e.loss == e.best && within_noise(self.req, &e, self.games.get()) {
            self.settled.set(true);
        }
        self.seen.borrow_mut().push(e.clone());
        (self.on_eval)(&e);
        Some(e)
    }
}

impl<F: Fn(&Evaluation)> Objective<'_, F> {
    /// The search should stop: the budget is spent (or would be by the
    /// next evaluation, at the pace so far: the budget bounds the search,
    /// not its start), a cancel came, or every goal is met.
    fn done(&self) -> bool {
        self.out_of_budget()
            || self.progress.cancelled()
            || self.best.borrow().as_ref().is_some_and(|b| b.0 <= GOOD_ENOUGH)
            || self.settled.get()
    }

    /// The budget is spent, or would be by the next full evaluation (at
    /// the last one's pace: raced ones are cheaper), or the evaluations
    /// are.
    fn out_of_budget(&self) -> bool {
        let seen = self.seen.borrow().len();
        let spent = self.started.elapsed().as_secs_f64();
        let pace = (spent / seen.max(1) as f64).max(self.full_seconds.get());
        spent + pace > self.req.budget_seconds || self.req.max_evaluations.is_some_and(|m| seen >= m)
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
    let req = &capped(req);
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
        played: RefCell::new(BTreeMap::new()),
        settled: std::cell::Cell::new(false),
        games: std::cell::Cell::new(req.plan.games),
        full_seconds: std::cell::Cell::new(0.0),
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
    // Scouting: the first simplex's vertices, then a line through the start
    // and the best of them; Nelder-Mead starts from the best point found.
    let scouted = tune_scout::along_best(
        &req.goals,
        &start,
        &simplex[1..],
        |x| objective.evaluate(x),
        || objective.done(),
    );
    // The best point first; a vertex it equals takes the start's place,
    // so the simplex keeps its volume.
    if let Some(best) = scouted {
        match simplex.iter().position(|v| *v == best.x) {
            Some(k) => simplex.swap(0, k),
            None => simplex[0] = best.x,
        }
    }
    // Nelder-Mead with restarts around the best so far (it stalls on the
    // plateaus rounding to whole weights makes), and again around the best
    // each time sharpening has every candidate play more games.
    nelder_mead(&objective, simplex, span)?;
    while sharpen(&objective) {
        let Some((_, best)) = objective.best.borrow().clone() else {
            break;
        };
        nelder_mead(&objective, around(&best, span / 3.0), span / 3.0)?;
    }
    let met = objective.settled.get()
        || objective
            .best
            .borrow()
            .as_ref()
            .is_some_and(|b| b.0 <= GOOD_ENOUGH);
    let stop = if progress.cancelled() {
        Stop::Cancelled
    } else if met {
        Stop::TargetsMet
    } else if objective.out_of_budget() {
        Stop::Budget
    } else {
        Stop::Converged
    };
    let stopped_early = progress.cancelled() || (!met && stop == Stop::Budget);
    // From here on a candidate is judged on as many games as the search's
    // last (sharpened) candidates played.
    let sharpened = TuneRequest {
        plan: Plan {
            games: objective.games.get(),
            ..req.plan.clone()
        },
        ..req.clone()
    };
    let req = &sharpened;
    let evaluations = objective.seen.into_inner();
    let last: Vec<Evaluation> = evaluations
        .iter()
        .filter(|e| e.games == req.plan.games)
        .cloned()
        .collect();
    let least = |e: &[Evaluation]| e.iter().min_by(|a, b| a.loss.total_cmp(&b.loss)).cloned();
    let best = least(&last).or_else(|| least(&evaluations))?;
    // Validation: the best few on fresh seeds, so the winner is not the
    // candidate that fit the tuning seeds' luck best.
    let validation = VALIDATION_SEEDS..VALIDATION_SEEDS + req.plan.games;
    let mut finalists: Vec<Finalist> = Vec::new();
    for (x, tuning_loss) in best_few(if last.is_empty() { &evaluations } else { &last }, req) {
        let Some(scored) = loss_on(req, &candidate(req, &x), validation.clone(), progress) else {
            break;
        };
        finalists.push(Finalist {
            x,
            tuning_loss,
            validation_loss: scored.loss,
            validation: scored.intervals,
        });
    }
    finalists.sort_by(|a, b| a.validation_loss.total_cmp(&b.validation_loss));
    let chosen = finalists.first().map_or(best.x.clone(), |f| f.x.clone());
    let tuned = candidate(req, &chosen);
    // The hold-out: the start and the winner on the same fresh seeds.
    let base = candidate(req, &x0);
    let planned = planned_holdout(req, finalists.first().map(|f| &f.validation[..]));
    let holdout = check_holdout(&planned, &base, &tuned, progress).unwrap_or_default();
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
        stopped_early,
        stop,
        cap: req.plan.max_rounds,
        holdout_looks: (
            planned.holdout_games,
            planned.holdout_max.max(planned.holdout_games),
        ),
    })
}

/// Sharpening: once the best sits within the noise of its games but that
/// noise is wider than a quarter of a median goal's tolerance, every
/// candidate plays more games (the same seeds and more: common random
/// numbers still), as many as would bring the noise there, at most four
/// times as many and no more than four evaluations' worth of the budget
/// left; the best and the runner-up are played again and the line through
/// them walked. True when the games were raised (Nelder-Mead then goes on
/// around the best), false when nothing was to be gained or the budget
/// would not allow it.
fn sharpen<F: Fn(&Evaluation)>(objective: &Objective<'_, F>) -> bool {
    let req = objective.req;
    if !objective.settled.get() || objective.out_of_budget() || objective.progress.cancelled() {
        return false;
    }
    let n = objective.games.get();
    let mut full: Vec<Evaluation> = objective
        .seen
        .borrow()
        .iter()
        .filter(|e| e.games == n)
        .cloned()
        .collect();
    full.sort_by(|a, b| a.loss.total_cmp(&b.loss));
    let Some(best) = full.first() else { return false };
    let spent = objective.started.elapsed().as_secs_f64();
    let per_game = best.seconds / n.max(1) as f64;
    // A run cut by evaluations is repeatable: its games then do not
    // depend on the clock (the budget still stops it).
    let affordable = match req.max_evaluations {
        Some(_) => usize::MAX,
        None => ((req.budget_seconds - spent) / (4.0 * per_game).max(1e-9)).min(1e7) as usize,
    };
    let Some(more) = tune_plan::sharper_games(&req.goals, &best.intervals, n, affordable) else {
        return false;
    };
    let weights = |e: &Evaluation| candidate(req, &e.x).set.weights();
    let runner = full.iter().find(|e| weights(e) != weights(best)).cloned();
    objective.games.set(more);
    objective.settled.set(false);
    // The best played again first, so a cancel keeps it; its loss on the
    // new games becomes the best so far.
    *objective.best.borrow_mut() = None;
    let Some(again) = objective.evaluate(&best.x) else {
        return false;
    };
    if let Some(runner) = runner
        && !objective.done()
        && let Some(other) = objective.evaluate(&runner.x)
        && !objective.done()
    {
        let (worse, better) = if other.loss < again.loss {
            (again, other)
        } else {
            (other, again)
        };
        tune_scout::walk(
            &req.goals,
            &worse,
            better,
            |x| objective.evaluate(x),
            || objective.done(),
        );
    }
    true
}

/// Nelder-Mead from `simplex`, restarted around the best so far with a
/// smaller simplex until the objective is done or the steps fall under a
/// weight; `None` only when the solver cannot be built.
fn nelder_mead<F: Fn(&Evaluation)>(
    objective: &Objective<'_, F>,
    mut simplex: Vec<Vec<f64>>,
    span: f64,
) -> Option<()> {
    let mut round = 0;
    while !objective.done() {
        let solver = NelderMead::new(simplex.clone()).with_sd_tolerance(1e-6).ok()?;
        let run = Executor::new(objective, solver)
            .configure(|state| state.max_iters(400))
            .run();
        if run.is_err() || objective.done() {
            break;
        }
        round += 1;
        let Some((_, best)) = objective.best.borrow().clone() else {
            break;
        };
        let shrink = span / f64::from(2 * round + 1);
        if shrink < 1.0 {
            break;
        }
        simplex = around(&best, shrink);
    }
    Some(())
}

/// A simplex around `x`: `x` and each weight moved by `step`, up and down
/// in turn.
fn around(x: &[f64], step: f64) -> Vec<Vec<f64>> {
    let mut simplex = vec![x.to_vec()];
    for i in 0..x.len() {
        let mut v = x.to_vec();
        v[i] += if i % 2 == 0 { step } else { -step };
        simplex.push(v);
    }
    simplex
}

/// `req` with its games followed only as far as its goals need
/// (`tune_plan::rounds_needed`).
pub fn capped(req: &TuneRequest) -> TuneRequest {
    let mut out = req.clone();
    out.plan.max_rounds = tune_plan::rounds_needed(&req.goals, req.audience.is_some(), req.plan.max_rounds);
    out
}

/// `req` with its hold-out's looks planned from `seen` (the chosen
/// candidate's intervals on `plan.games` validation games, per player and
/// goal) when asked: the largest any median goal needs; any other goal
/// may grow it to the most. Unplanned, `req` as it is.
pub fn planned_holdout(req: &TuneRequest, seen: Option<&[Measured]>) -> TuneRequest {
    let mut out = req.clone();
    if !req.plan_holdout {
        return out;
    }
    let (least, most) = (req.holdout_games, req.holdout_max.max(req.holdout_games));
    let mut looks = (least, least);
    let each = req.goals.len() * req.plan.players.len().max(1);
    for (i, g) in req.goals.iter().cycle().take(each).enumerate() {
        let planned = match g.target {
            Target::MedianRounds(t) => {
                let m = seen.and_then(|s| s.get(i)).map(|m| (m, req.plan.games));
                tune_plan::holdout_looks(g, tune_plan::median_spread(m, t), least, most)
            }
            _ => (least, most),
        };
        looks = (looks.0.max(planned.0), looks.1.max(planned.1));
    }
    out.holdout_games = looks.0;
    out.holdout_max = looks.1;
    out
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
