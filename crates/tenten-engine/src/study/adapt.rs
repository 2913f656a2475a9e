//! `tenten adapt`: an adaptive generator optimised against a population's
//! simulated players, and proven on players it was not optimised on.
//!
//! The policy searched is a fixed template of rules over what the player
//! did (`TEMPLATE`): a game already past the player's typical length, after
//! an unfair loss, after a game shorter than the player's typical one, after
//! a longer one, and otherwise, each with its own tilt toward small or large
//! pieces.
//!
//! The best static generator is the same search over one check and one
//! tilt for everyone (the check the base's own, none, reject or repair; the
//! tilt a rule with no condition): the same levers, the same objective, the
//! same budget, not reading the player. The adaptive rules keep the static
//! arm's check, so what they add is only the reading: a check that ends
//! unfair losses is a static lever, and its gain over a base without it is
//! not the adaptive rules' to claim.
//!
//! Both searches are a pattern search on common random numbers (every
//! candidate plays the same training players, as `tune` does); the verdict
//! is on held-out players (another seed), each arm against the others as a
//! paired relative gain with its 95 % interval (`stats::inference::paired_gain`).
//!
//! The weights stay near the base's: no rule's tilt moves them further
//! than `max_distortion` (KL divergence, nats, of the tilted shares from
//! the base's), which bounds the divergence of the mixture drawn from too
//! (KL is convex in its first argument). A check changes what is dealt
//! from those weights (a repair replaces a piece of an unsolvable holder);
//! the bound is on the weights, not on what a check makes of them.

use std::time::{Duration, Instant};

use crate::fits::population::file::Population;
use crate::fits::population::forecast::{
    NAMES, Outcome, REACH, RETURNING, paired_gains, play_players, ratio_parts,
};
use crate::fits::population::quit::Quit;
use crate::fits::population::session::{Table, mix};
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::adaptive::{Adaptive, MAX_TILT, Rule, When, size_scores, tilted};
use crate::play::check::Check;
use crate::play::dealing::Dealing;
use crate::play::generator_file::{GeneratorSpec, effective};
use crate::progress::Progress;
use crate::stats::inference::Gain;

/// The rules the search fills in, in the order they are tried: the first
/// that holds is in force. A game already past the player's typical length
/// comes first: under a churn model with boredom and frustration, what
/// keeps a player is a game near their own typical length.
pub const TEMPLATE: [(&str, When); 4] = [
    ("past_typical", When::RoundPastTypical(1.0)),
    ("after_unfair", When::AfterUnfair),
    ("after_short", When::LastShorter(0.7)),
    ("after_long", When::LastLonger(1.5)),
];

/// The smallest step the pattern search takes before it stops, as a share
/// of the bounds' width.
const MIN_STEP: f64 = 0.01;
const HOLDOUT_STREAM: u64 = 0x00AD_A970_0000_0001;

/// What an adaptive generator is optimised for: a forecast's figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Objective {
    GamesPerSession,
    Reach(u32),
    ReturningAfter(usize),
}

impl Objective {
    /// `games_per_session`, `reach=R` (R one of `REACH`) or
    /// `returning_after=N` (N one of `RETURNING`).
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "unknown objective {s:?}; choose games_per_session, reach=R (R one of {REACH:?}) or returning_after=N (N one of {RETURNING:?})"
            )
        };
        match s.split_once('=') {
            None if s == "games_per_session" => Ok(Objective::GamesPerSession),
            Some(("reach", r)) => {
                let r: u32 = r.parse().map_err(|_| bad())?;
                REACH.contains(&r).then_some(Objective::Reach(r)).ok_or_else(bad)
            }
            Some(("returning_after", n)) => {
                let n: usize = n.parse().map_err(|_| bad())?;
                RETURNING
                    .contains(&n)
                    .then_some(Objective::ReturningAfter(n))
                    .ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }

    /// Its figure's place in `forecast::NAMES`.
    pub fn index(&self) -> usize {
        match *self {
            Objective::GamesPerSession => 4,
            Objective::Reach(r) => REACH.iter().position(|&x| x == r).unwrap_or(0),
            Objective::ReturningAfter(n) => 5 + RETURNING.iter().position(|&x| x == n).unwrap_or(0),
        }
    }

    pub fn name(&self) -> &'static str {
        NAMES[self.index()]
    }
}

/// What `tenten adapt` is asked.
#[derive(Clone, Debug)]
pub struct AdaptRequest {
    pub population: Population,
    pub base: GeneratorSpec,
    pub set: PieceSet,
    pub shapes: Shapes,
    pub k: usize,
    pub max_rounds: u32,
    pub objective: Objective,
    /// The most KL divergence (nats) a rule's tilted shares may have from
    /// the base's.
    pub max_distortion: f64,
    /// Each search's wall-clock budget, and its most candidates (a run
    /// cut by candidates, not seconds, is repeatable on any machine).
    pub budget: Duration,
    pub max_candidates: Option<usize>,
    /// Players every candidate plays (common random numbers), and players
    /// of the verdict (another seed).
    pub players: usize,
    pub holdout: usize,
    pub seed: u64,
}

/// One arm against another on the held-out players.
#[derive(Clone, Debug, PartialEq)]
pub struct Versus {
    /// `base` or `static`.
    pub against: &'static str,
    pub gain: Option<Gain>,
}

/// A search's end: the check and tilts, its objective on the training
/// players, and how many candidates it played.
#[derive(Clone, Debug, PartialEq)]
pub struct Searched {
    pub check: Check,
    pub tilts: Vec<f64>,
    pub value: f64,
    pub candidates: usize,
}

/// An arm's held-out figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    pub name: &'static str,
    pub spec: GeneratorSpec,
    pub objective: f64,
    pub unfair_share: f64,
    pub outcomes: Vec<Outcome>,
}

/// Everything `tenten adapt` found.
#[derive(Clone, Debug, PartialEq)]
pub struct Adapted {
    pub adaptive: Searched,
    pub fixed: Searched,
    /// The tilt bounds the distortion allows: toward small, toward large.
    pub bounds: (f64, f64),
    /// base, static, adaptive on the held-out players.
    pub arms: [Arm; 3],
    pub versus: [Versus; 2],
    /// The adaptive arm's gain over the static one under each churn model:
    /// (name, gain).
    pub churn: Vec<(String, Option<Gain>)>,
    /// The adaptive arm's gain over the static one per skill decile.
    pub deciles: Vec<Option<Gain>>,
}

/// The KL divergence (nats) of `weights` tilted by `tilt` from `weights`.
pub fn tilt_divergence(weights: &[f64], scores: &[f64], tilt: f64) -> f64 {
    let p = tilted(weights, scores, tilt);
    let (sp, sq): (f64, f64) = (p.iter().sum(), weights.iter().sum());
    p.iter()
        .zip(weights)
        .filter(|(a, _)| **a > 0.0)
        .map(|(a, b)| (a / sp) * ((a / sp) / (b / sq)).ln())
        .sum()
}

/// The largest tilt each way (toward small pieces, negative; toward large)
/// whose divergence stays within `kl` for every weight vector `spec` deals
/// from (its base, each band's, each with and without mercy).
pub fn tilt_bounds(spec: &GeneratorSpec, kl: f64) -> (f64, f64) {
    let scores = size_scores(&spec.set);
    let mercy = spec.file.mercy.as_ref().map(|m| &m.scale);
    let mut bands = vec![None];
    bands.extend(spec.file.by_fill.iter().map(|b| Some(&b.scale)));
    let mut bounds = (-MAX_TILT, MAX_TILT);
    for band in bands {
        for m in [None, mercy] {
            let weights = effective(&spec.set, band, m);
            let (lo, hi) = weight_bounds(&weights, &scores, kl);
            bounds = (bounds.0.max(lo), bounds.1.min(hi));
        }
    }
    bounds
}

/// `tilt_bounds` for one weight vector.
fn weight_bounds(weights: &[f64], scores: &[f64], kl: f64) -> (f64, f64) {
    let (weights, scores) = (weights.to_vec(), scores.to_vec());
    let reach = |sign: f64| {
        if tilt_divergence(&weights, &scores, sign * MAX_TILT) <= kl {
            return sign * MAX_TILT;
        }
        let (mut lo, mut hi) = (0.0, MAX_TILT);
        for _ in 0..50 {
            let mid = (lo + hi) / 2.0;
            if tilt_divergence(&weights, &scores, sign * mid) <= kl {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        sign * lo
    };
    (reach(-1.0), reach(1.0))
}

/// The base with the policy `tilts` writes: one tilt for everyone (static)
/// or one per `TEMPLATE` rule and a last for otherwise (adaptive). Rules
/// that deal as the ones after them would are left out.
pub fn policy(base: &GeneratorSpec, tilts: &[f64]) -> GeneratorSpec {
    let mut rules: Vec<Rule> = Vec::new();
    let (states, otherwise) = tilts.split_at(tilts.len() - 1);
    for (d, ((_, when), &tilt)) in TEMPLATE.iter().zip(states).enumerate() {
        if dead(base, d) {
            continue;
        }
        rules.push(Rule {
            when: vec![*when],
            tilt: round_tilt(tilt),
            check: None,
        });
    }
    rules.push(Rule {
        when: Vec::new(),
        tilt: round_tilt(otherwise[0]),
        check: None,
    });
    // A state's rule just before the last with the last's tilt deals as
    // the last would: left out, so the file says only what differs.
    while rules.len() > 1 && rules[rules.len() - 2].tilt == rules[rules.len() - 1].tilt {
        rules.remove(rules.len() - 2);
    }
    // A last rule of tilt 0 and no condition deals as the base.
    if rules.last().is_some_and(|r| r.tilt == 0.0) {
        rules.pop();
    }
    let mut spec = base.clone();
    spec.file.adaptive = (!rules.is_empty()).then_some(Adaptive { rules });
    spec
}

/// Whether the template's rule `d` almost never fires under `base`'s check:
/// after an unfair loss, when the check deals a solvable holder whenever
/// one exists. The search spends no candidates on it and the file leaves
/// it out.
fn dead(base: &GeneratorSpec, d: usize) -> bool {
    TEMPLATE.get(d).is_some_and(|(_, w)| *w == When::AfterUnfair) && base.file.check.solvable_when_possible()
}

/// Tilts as the file keeps them: four decimals, toward 0 (a tilt at the
/// distortion bound stays within it).
fn round_tilt(t: f64) -> f64 {
    (t * 10_000.0).trunc() / 10_000.0 + 0.0
}

/// Held-out and training players' sessions under `spec`, the population's
/// quit model replaced by `quit` when given.
fn play(
    req: &AdaptRequest,
    spec: &GeneratorSpec,
    quit: Option<&Quit>,
    players: usize,
    seed: u64,
    progress: &Progress,
) -> Option<Vec<Outcome>> {
    let mut point = req.population.clone();
    point.fitted = None;
    if let Some(q) = quit {
        point.quit = *q;
    }
    let dealing = Dealing::file(spec.clone(), &req.set).ok()?;
    let table = Table::new(&req.shapes, &req.set, req.k, &dealing, req.max_rounds);
    play_players(&point, &table, 0..players, seed, progress)
}

/// The objective's per-player parts.
fn parts(req: &AdaptRequest, outcomes: &[Outcome]) -> Vec<(f64, f64)> {
    outcomes
        .iter()
        .map(|o| ratio_parts(&o.session)[req.objective.index()])
        .collect()
}

fn value(parts: &[(f64, f64)]) -> f64 {
    let (a, n) = parts.iter().fold((0.0, 0.0), |s, c| (s.0 + c.0, s.1 + c.1));
    if n > 0.0 { a / n } else { f64::NAN }
}

/// Tilts a one-dimensional search tries first, evenly over the bounds:
/// a pattern search alone stops at the first step that does not help,
/// which noise makes early.
const GRID: usize = 9;
/// The grid's points coarse to fine (both ends and the middle first), so a
/// search cut short by its candidates has seen both directions.
const GRID_ORDER: [usize; GRID] = [0, 8, 4, 2, 6, 1, 3, 5, 7];

/// How long a search may run: seconds, and candidates when given.
#[derive(Clone, Copy, Debug)]
struct Limits {
    budget: Duration,
    max_candidates: Option<usize>,
}

/// The checks the static search tries: the base's own, then none, reject
/// and repair as their presets write them (a check already tried is
/// skipped; a bag is never tried, no tilt changes a bag).
fn check_options(base: &GeneratorSpec) -> Vec<Check> {
    let mut checks: Vec<Check> = Some(base.file.check)
        .filter(|c| *c != Check::Bag)
        .into_iter()
        .collect();
    let presets = ["reject", "repair"]
        .into_iter()
        .filter_map(|name| crate::play::generator_file::preset(name, &base.set).map(|p| p.file.check));
    for c in std::iter::once(Check::None).chain(presets) {
        if !checks.contains(&c) {
            checks.push(c);
        }
    }
    checks
}

/// The base with `check` in force instead of its own.
fn with_check(base: &GeneratorSpec, check: Check) -> GeneratorSpec {
    let mut spec = base.clone();
    spec.file.check = check;
    spec
}

/// The best static generator: for each of `check_options`, the best one
/// tilt (a share of the budget and candidates each); the check whose tilt
/// plays best on the training players.
fn static_search(req: &AdaptRequest, bounds: (f64, f64), progress: &Progress) -> Option<Searched> {
    let checks = check_options(&req.base);
    let n = checks.len();
    let mut best: Option<Searched> = None;
    let mut candidates = 0;
    for (i, check) in checks.into_iter().enumerate() {
        // The cap shared exactly (the first checks take the remainder);
        // every search plays its start, so a check gets at least one.
        let limits = Limits {
            budget: req.budget / n as u32,
            max_candidates: req
                .max_candidates
                .map(|m| (m / n + usize::from(i < m % n)).max(1)),
        };
        let base = with_check(&req.base, check);
        let found = search(req, &base, vec![0.0], bounds, limits, progress)?;
        candidates += found.candidates;
        if best.as_ref().is_none_or(|b| found.value > b.value) {
            best = Some(found);
        }
    }
    best.map(|b| Searched { candidates, ..b })
}

/// A pattern search over tilts from `start` within `bounds` (one tilt: from
/// the best of a grid over the bounds), `base`'s check in force, each
/// candidate played on the training players; `None` when cancelled.
fn search(
    req: &AdaptRequest,
    base: &GeneratorSpec,
    start: Vec<f64>,
    bounds: (f64, f64),
    limits: Limits,
    progress: &Progress,
) -> Option<Searched> {
    let started = Instant::now();
    let score = |tilts: &[f64]| -> Option<f64> {
        let outcomes = play(req, &policy(base, tilts), None, req.players, req.seed, progress)?;
        Some(value(&parts(req, &outcomes)))
    };
    let dims = start.len();
    let mut x = start;
    let mut best = score(&x)?;
    let mut candidates = 1;
    let width = (bounds.1 - bounds.0).abs().max(1e-9);
    let mut step = width / 4.0;
    let within = |candidates: usize| {
        started.elapsed() < limits.budget && limits.max_candidates.is_none_or(|m| candidates < m)
    };
    if dims == 1 {
        for i in GRID_ORDER {
            if !within(candidates) {
                break;
            }
            let t = bounds.0 + width * i as f64 / (GRID - 1) as f64;
            let v = score(&[t])?;
            candidates += 1;
            if v > best {
                (best, x) = (v, vec![t]);
            }
        }
        step = width / (2.0 * (GRID - 1) as f64);
    }
    while step >= MIN_STEP * width && within(candidates) {
        let mut moved = false;
        for d in 0..dims {
            // Only the adaptive search's dimensions are the template's rules.
            if dims > 1 && dead(base, d) {
                continue;
            }
            for sign in [-1.0, 1.0] {
                if !within(candidates) {
                    break;
                }
                let mut y = x.clone();
                y[d] = (y[d] + sign * step).clamp(bounds.0, bounds.1);
                if y[d] == x[d] {
                    continue;
                }
                let v = score(&y)?;
                candidates += 1;
                if v > best {
                    best = v;
                    x = y;
                    moved = true;
                    break;
                }
            }
        }
        if !moved {
            step /= 2.0;
        }
    }
    Some(Searched {
        check: base.file.check,
        tilts: x.iter().map(|&t| round_tilt(t)).collect(),
        value: best,
        candidates,
    })
}

/// The gain of `a` over `b` on the objective, player by player.
fn gain(req: &AdaptRequest, a: &[Outcome], b: &[Outcome]) -> Option<Gain> {
    paired_gains(a, b, req.objective.index()).0
}

/// Runs `tenten adapt`; `None` when cancelled.
pub fn adapt(req: &AdaptRequest, progress: &Progress) -> Option<Adapted> {
    let bounds = tilt_bounds(&req.base, req.max_distortion);
    let fixed = static_search(req, bounds, progress)?;
    // From the static optimum: its check for every rule, every state at
    // its tilt, so the adaptive search begins where the static one ended.
    let checked = with_check(&req.base, fixed.check);
    let limits = Limits {
        budget: req.budget,
        max_candidates: req.max_candidates,
    };
    let start = vec![fixed.tilts[0]; TEMPLATE.len() + 1];
    let adaptive = search(req, &checked, start, bounds, limits, progress)?;
    let holdout_seed = mix(req.seed ^ HOLDOUT_STREAM);
    let arm = |name: &'static str, spec: GeneratorSpec| -> Option<Arm> {
        let outcomes = play(req, &spec, None, req.holdout, holdout_seed, progress)?;
        let sessions = outcomes.iter().map(|o| &o.session);
        let figures = crate::fits::population::forecast::figures(sessions);
        Some(Arm {
            name,
            objective: value(&parts(req, &outcomes)),
            unfair_share: figures[8],
            spec,
            outcomes,
        })
    };
    let base = arm("base", req.base.clone())?;
    let fixed_arm = arm("static", policy(&checked, &fixed.tilts))?;
    let adaptive_arm = arm("adaptive", policy(&checked, &adaptive.tilts))?;
    let versus = [
        Versus {
            against: "base",
            gain: gain(req, &adaptive_arm.outcomes, &base.outcomes),
        },
        Versus {
            against: "static",
            gain: gain(req, &adaptive_arm.outcomes, &fixed_arm.outcomes),
        },
    ];
    let mut churn = vec![("population".to_owned(), versus[1].gain)];
    // The same comparison under the other churn models the file allows:
    // without the churn terms (the quit model of three), and with each
    // term alone left out; for a fit that did not choose its churn terms,
    // with them as fitted.
    let quit = req.population.quit;
    let mut variants = Vec::new();
    if quit.has_churn() {
        variants.push(("without_churn_terms".to_owned(), quit.with_churn([0.0; 4])));
        for (i, name) in crate::fits::population::quit::CHURN_TERMS.iter().enumerate() {
            let mut c = quit.churn();
            if c[i] != 0.0 {
                c[i] = 0.0;
                variants.push((format!("without_{name}"), quit.with_churn(c)));
            }
        }
    }
    let fitted_churn = req.population.fitted.as_ref().and_then(|f| f.churn.as_ref());
    if let Some(c) = fitted_churn.filter(|c| !c.chosen && c.check().is_ok()) {
        variants.push(("with_fitted_churn_terms".to_owned(), c.quit()));
    }
    for (name, q) in variants {
        let a = play(
            req,
            &adaptive_arm.spec,
            Some(&q),
            req.holdout,
            holdout_seed,
            progress,
        )?;
        let s = play(
            req,
            &fixed_arm.spec,
            Some(&q),
            req.holdout,
            holdout_seed,
            progress,
        )?;
        churn.push((name, gain(req, &a, &s)));
    }
    let (_, deciles) = paired_gains(&adaptive_arm.outcomes, &fixed_arm.outcomes, req.objective.index());
    Some(Adapted {
        adaptive,
        fixed,
        bounds,
        arms: [base, fixed_arm, adaptive_arm],
        versus,
        churn,
        deciles,
    })
}

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{:.4}", x + 0.0)
    } else {
        "none".to_owned()
    }
}

/// A check as a generator file writes it, on one line without spaces
/// (`repair(policy:deepest,redraws:64)`): two repairs are told apart.
fn check_ron(check: &Check) -> String {
    ron::to_string(check).unwrap_or_else(|_| check.name().to_owned())
}

fn gain_fields(g: Option<&Gain>) -> String {
    match g {
        None => "gain=none gain_ci=none verdict=undecided".to_owned(),
        Some(g) => format!(
            "gain={} gain_ci={} verdict={}",
            num(g.gain),
            g.ci.map_or("none".to_owned(), |(lo, hi)| format!("{},{}", num(lo), num(hi))),
            g.verdict()
        ),
    }
}

impl Adapted {
    /// The lines `tenten adapt` prints.
    pub fn lines(&self, req: &AdaptRequest) -> Vec<String> {
        let objective = req.objective.name();
        let mut out = Vec::new();
        for a in &self.arms {
            out.push(format!(
                "arm={} objective={objective} value={} unfair_share={} players={} seed={}",
                a.name,
                num(a.objective),
                num(a.unfair_share),
                req.holdout,
                mix(req.seed ^ HOLDOUT_STREAM)
            ));
        }
        for v in &self.versus {
            out.push(format!(
                "vs={} objective={objective} {}",
                v.against,
                gain_fields(v.gain.as_ref())
            ));
        }
        for (name, g) in &self.churn {
            out.push(format!(
                "churn_model={name} vs=static objective={objective} {}",
                gain_fields(g.as_ref())
            ));
        }
        for (d, g) in self.deciles.iter().enumerate() {
            out.push(format!(
                "skill_decile={} vs=static objective={objective} {}",
                d + 1,
                gain_fields(g.as_ref())
            ));
        }
        let tilts = |s: &Searched| s.tilts.iter().map(|t| num(*t)).collect::<Vec<_>>().join(",");
        out.push(format!(
            "search check={} static tilts={} train_value={} candidates={} adaptive tilts={} train_value={} candidates={} tilt_bounds={},{} max_distortion={} train_players={} train_seed={}",
            check_ron(&self.fixed.check),
            tilts(&self.fixed),
            num(self.fixed.value),
            self.fixed.candidates,
            tilts(&self.adaptive),
            num(self.adaptive.value),
            self.adaptive.candidates,
            num(self.bounds.0),
            num(self.bounds.1),
            req.max_distortion,
            req.players,
            req.seed
        ));
        out
    }
}

#[cfg(test)]
#[path = "adapt_tests.rs"]
mod tests;
