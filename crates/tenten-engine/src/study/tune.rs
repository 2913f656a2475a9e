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

use crate::model::pieces::{MAX_WEIGHT, PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::play::dealing::Dealing;
use crate::play::game::{BANDS, Game};
use crate::play::generator_file::GeneratorSpec;
use crate::progress::Progress;
use crate::stats::divergence;
use crate::stats::survival::{self, Survival};
use crate::study::population::file::Population;
use crate::study::population::forecast::{Forecast, Outcome, REACH, play_players, summarize};
use crate::study::population::quit::MAX_GAMES;
use crate::study::population::session::Table;
use crate::study::runner::{self, Plan, Summary};
use crate::study::tune_verdict;
pub use crate::study::tune_verdict::{Checked, Verdict};

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
    /// An audience's share of games reaching round `round` (a population's).
    Reach { round: u32, share: f64 },
    /// An audience's games per session (a population's).
    GamesPerSession(f64),
}

impl Target {
    pub fn name(&self) -> String {
        match self {
            Target::MedianRounds(_) => "median_rounds".to_owned(),
            Target::UnfairShare(_) => "unfair_share".to_owned(),
            Target::SmallShare { band, .. } => format!("small_share_band{band}"),
            Target::Reach { round, .. } => format!("reach_{round}"),
            Target::GamesPerSession(_) => "games_per_session".to_owned(),
        }
    }

    /// Whether it is measured on an audience (a population's players in
    /// sessions) rather than on each player's games.
    pub fn of_audience(&self) -> bool {
        matches!(self, Target::Reach { .. } | Target::GamesPerSession(_))
    }

    /// The audience's figure, from a forecast's players, and its 95 %
    /// interval (`forecast::summarize`).
    pub fn audience_interval(&self, f: &Forecast) -> Measured {
        let name = match *self {
            Target::Reach { round, .. } => format!("reach_{round}"),
            Target::GamesPerSession(_) => "games_per_session".to_owned(),
            Target::UnfairShare(_) => "unfair_share".to_owned(),
            _ => String::new(),
        };
        match f.figure(&name) {
            // No losses at all: no unfair ones.
            Some(x) if !x.value.is_finite() && name == "unfair_share" => Measured {
                value: Some(0.0),
                ci: None,
            },
            Some(x) => Measured {
                value: x.value.is_finite().then_some(x.value),
                ci: x.ci,
            },
            None => Measured {
                value: None,
                ci: None,
            },
        }
    }

    pub fn goal(&self) -> f64 {
        match *self {
            Target::MedianRounds(v)
            | Target::UnfairShare(v)
            | Target::SmallShare { share: v, .. }
            | Target::Reach { share: v, .. }
            | Target::GamesPerSession(v) => v,
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
            "reach" => {
                let (round, share) = value
                    .split_once(':')
                    .ok_or_else(|| format!("reach is ROUND:SHARE, like reach=50:0.6; got {s:?}"))?;
                let round = round
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|r| REACH.contains(r))
                    .ok_or_else(|| format!("the round of reach is one of 10, 25, 50, 100; got {round:?}"))?;
                let share = number(share)?;
                if (0.0..=1.0).contains(&share) {
                    Ok(Target::Reach { round, share })
                } else {
                    Err(format!("reach is a share, 0 to 1; got {share}"))
                }
            }
            "games_per_session" => {
                let v = number(value)?;
                if (1.0..=f64::from(MAX_GAMES as u32)).contains(&v) {
                    Ok(Target::GamesPerSession(v))
                } else {
                    Err(format!("games_per_session is 1 to {MAX_GAMES}; got {v}"))
                }
            }
            other => Err(format!(
                "unknown target {other:?}; choose median_rounds, unfair_share, small_share, or for a population reach or games_per_session"
            )),
        }
    }

    /// What the games measured for this target.
    pub fn measure(&self, s: &Summary, set: &PieceSet) -> f64 {
        match *self {
            Target::MedianRounds(_) => s.km.median.map_or(s.rounds_median, f64::from),
            Target::UnfairShare(_) => s.unfair_share.map_or(0.0, |x| x.0),
            Target::SmallShare { band, .. } => small_share(s, set, band).map_or(0.0, |x| x.0),
            Target::Reach { .. } | Target::GamesPerSession(_) => f64::NAN,
        }
    }

    /// The tolerance a goal gets unless one is given: 5 % of a median (at
    /// least one round), two points of a share.
    pub fn default_tolerance(&self) -> f64 {
        match *self {
            // Rounded to a millionth, so 5 % of 7 prints as 0.35.
            Target::MedianRounds(t) => ((0.05 * t).max(1.0) * 1e6).round() / 1e6,
            Target::GamesPerSession(t) => ((0.05 * t).max(0.1) * 1e6).round() / 1e6,
            Target::UnfairShare(_) | Target::SmallShare { .. } | Target::Reach { .. } => 0.02,
        }
    }

    /// How far `measured` is from the goal (for unfair_share, only above
    /// it: it is a ceiling).
    pub fn miss(&self, measured: f64) -> f64 {
        match *self {
            Target::MedianRounds(t) | Target::GamesPerSession(t) => (measured - t).abs(),
            Target::UnfairShare(t) => (measured - t).max(0.0),
            Target::SmallShare { share, .. } | Target::Reach { share, .. } => (measured - share).abs(),
        }
    }

    /// The measure on the hold-out games with its 95 % interval; a median
    /// past the round cap (more than half the games alive at it) is
    /// `None`: beyond the cap, not the cap.
    pub fn interval(&self, s: &Summary, set: &PieceSet) -> Measured {
        self.interval_at(s, &s.km, set, survival::z_of(0.95))
    }

    /// The measure with its interval `z` standard errors wide, the median
    /// read from `km` (made at the same `z`).
    pub fn interval_at(&self, s: &Summary, km: &Survival, set: &PieceSet, z: f64) -> Measured {
        let share = |x: Option<(f64, f64, f64)>| Measured {
            value: Some(x.map_or(0.0, |x| x.0)),
            ci: x.map(|(_, lo, hi)| (lo, hi)),
        };
        match *self {
            Target::MedianRounds(_) => {
                let (lo, hi) = km.median_ci;
                Measured {
                    value: km.median.map(f64::from),
                    ci: lo.map(|lo| (f64::from(lo), hi.map_or(f64::INFINITY, f64::from))),
                }
            }
            Target::UnfairShare(_) => share(survival::share_at(s.unfair, s.games - s.censored, z)),
            Target::SmallShare { band, .. } => {
                let (small, whole) = small_counts(s, set, band);
                share(survival::share_at(small, whole, z))
            }
            Target::Reach { .. } | Target::GamesPerSession(_) => Measured {
                value: None,
                ci: None,
            },
        }
    }
}

/// A figure measured on games: its value (`None`: a median beyond the
/// round cap) and its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub value: Option<f64>,
    pub ci: Option<(f64, f64)>,
}

impl Measured {
    /// "35", "0.302 [0.260-0.349]" or "beyond 12" (a median past the cap).
    pub fn show(&self, cap: u32) -> String {
        let v = match self.value {
            Some(v) if v.fract() == 0.0 && v.abs() >= 1.0 => format!("{v:.0}"),
            Some(v) => format!("{:.3}", v + 0.0),
            None => format!("beyond {cap}"),
        };
        match self.ci {
            Some((lo, hi)) if hi.is_finite() => format!("{v} [{}-{}]", short(lo), short(hi)),
            Some((lo, _)) => format!("{v} [{}-beyond {cap}]", short(lo)),
            None => v,
        }
    }
}

fn short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() >= 1.0 {
        format!("{x:.0}")
    } else {
        format!("{:.3}", x + 0.0)
    }
}

/// A target with the tolerance its miss is measured in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    pub target: Target,
    pub tolerance: f64,
}

impl Goal {
    pub fn new(target: Target) -> Self {
        Self {
            target,
            tolerance: target.default_tolerance(),
        }
    }

    /// `KEY=VALUE` (the default tolerance) or `KEY=VALUE@TOL`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (t, tol) = match s.rsplit_once('@') {
            Some((t, tol)) => (
                t,
                Some(
                    tol.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| *x > 0.0 && x.is_finite())
                        .ok_or_else(|| format!("the tolerance of {s:?} (after @) is a positive number"))?,
                ),
            ),
            None => (s, None),
        };
        let target = Target::parse(t)?;
        Ok(Self {
            target,
            tolerance: tol.unwrap_or_else(|| target.default_tolerance()),
        })
    }

    /// The miss in tolerances: 1 or less is met.
    pub fn misses_by(&self, measured: f64) -> f64 {
        self.target.miss(measured) / self.tolerance
    }
}

/// The share of pieces of 1-3 cells among those dealt in `band`, with its
/// Wilson interval.
pub fn small_share(s: &Summary, set: &PieceSet, band: usize) -> Option<(f64, f64, f64)> {
    let (small, whole) = small_counts(s, set, band);
    survival::share(small, whole)
}

/// The pieces of 1-3 cells dealt on boards in `band`, and all pieces dealt
/// there.
pub fn small_counts(s: &Summary, set: &PieceSet, band: usize) -> (usize, usize) {
    let small: u64 = s
        .dealt
        .iter()
        .zip(&set.pieces)
        .filter(|(_, p)| p.cells().len() <= 3)
        .map(|(d, _)| d[band])
        .sum();
    (small as usize, s.dealt_by_band[band] as usize)
}

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
    let n = games.len();
    let outcomes: Vec<Outcome> = play_players(&point, &table, n, games, req.plan.seed, progress)?;
    Some(summarize(
        AUDIENCE,
        &outcomes.iter().collect::<Vec<_>>(),
        n,
        false,
    ))
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
    let holdout = tune_verdict::check(req, &base, &tuned, progress).unwrap_or_default();
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

#[cfg(test)]
#[path = "tune_tests.rs"]
mod tests;
