//! Simulation-based calibration: the workbench checks its own estimators
//! (Cook, Gelman and Rubin 2006; Talts et al. 2018; Morris, White and
//! Crowther 2019). Each replication draws a true setting from seeded
//! ranges, simulates the data a designer would have (one tester's deals, or
//! a cohort of testers × sessions) under a generator, runs the estimator as
//! the CLI does, and keeps every estimate beside its truth; `summary` tells
//! per parameter how often the 95 % interval held the truth, the bias, the
//! RMSE and the width.
//!
//! `plan` is the study's identity, by value; `estimators` one replication
//! of each; `generator` the fit-generator estimator's truths, replications
//! and tally; `summary` the table; `file` the result file, shards, merge
//! and checkpoints.

pub mod estimators;
pub mod file;
pub mod gain;
pub mod generator;
pub mod measured;
pub mod plan_playtest;
pub mod summary;

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::fits::population::file::{LogNormal, LogitNormal, Population, by_name};
use crate::fits::population::quit::Quit;
use crate::model::board::BoardSize;
use crate::model::generator::Generator;
use crate::model::pieces::PieceSet;
use crate::progress::Progress;

/// The estimators a study can check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Estimator {
    /// `fit-player` (rank choice, piece lookahead) on one tester's deals.
    FitPlayer,
    /// `fit-population` on a cohort of testers × sessions.
    FitPopulation,
    /// `forecast` from that fit, against the true population's players.
    Forecast,
    /// `tune`'s verdict on a median target, confirmed on fresh games.
    Tune,
    /// A playtest's own figures (each a ratio over its testers' sessions,
    /// clustered by tester) against the true population's.
    Playtest,
    /// `fit-generator` on a log dealt by a generator drawn at random: its
    /// shares' intervals, its rules and its check's verdict.
    FitGenerator,
    /// `adapt`'s paired gain of one generator over another on held-out
    /// players (`forecast_players`), against the true gain on
    /// `truth_players` players of the same population.
    Gain,
}

impl Estimator {
    pub const NAMES: [&'static str; 7] = [
        "fit-player",
        "fit-population",
        "forecast",
        "tune",
        "playtest",
        "fit-generator",
        "gain",
    ];

    pub fn name(self) -> &'static str {
        match self {
            Estimator::FitPlayer => "fit-player",
            Estimator::FitPopulation => "fit-population",
            Estimator::Forecast => "forecast",
            Estimator::Tune => "tune",
            Estimator::Playtest => "playtest",
            Estimator::FitGenerator => "fit-generator",
            Estimator::Gain => "gain",
        }
    }

    /// The estimator's behaviour version. Bump it when a change can change
    /// a replication's result (the engine's version covers only the games
    /// played): a checkpoint or shard made before then never resumes or
    /// merges with one made after, so a study measures one estimator.
    pub fn version(self) -> &'static str {
        match self {
            // 2: forward-backward rule selection with the held-out veto
            // against Student's t (session 12, add286b).
            Estimator::FitGenerator => "2",
            // 2: the quit base and round slope with their intervals
            // (session 17); before, without.
            Estimator::FitPopulation => "2",
            // 2: the truth is the design's (each tester's sessions, their
            // games carried), not a first session each (session 18).
            Estimator::Playtest => "2",
            _ => "1",
        }
    }

    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "fit-player" => Ok(Estimator::FitPlayer),
            "fit-population" => Ok(Estimator::FitPopulation),
            "forecast" => Ok(Estimator::Forecast),
            "tune" => Ok(Estimator::Tune),
            "playtest" => Ok(Estimator::Playtest),
            "fit-generator" => Ok(Estimator::FitGenerator),
            "gain" => Ok(Estimator::Gain),
            other => Err(format!(
                "unknown estimator {other:?}; choose {}",
                Estimator::NAMES.join(", ")
            )),
        }
    }
}

/// A closed range a true parameter is drawn from, uniformly.
pub type Range = (f64, f64);

/// Where the true settings come from: each parameter drawn uniformly from
/// its range per replication (a range of one value holds it fixed). The
/// defaults surround the demo population.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ranges {
    pub temperature_median: Range,
    pub temperature_log_sd: Range,
    pub slip_median: Range,
    pub slip_logit_sd: Range,
    pub quit_base: Range,
    pub quit_unfair_odds: Range,
    pub quit_per_log_round: Range,
    /// The churn terms (`quit::CHURN_TERMS`), 0 unless given: a plan
    /// without them draws, plays and writes what it did before they were.
    #[serde(skip_serializing_if = "is_zero_range")]
    pub quit_per_unfair_in_row: Range,
    #[serde(skip_serializing_if = "is_zero_range")]
    pub quit_per_log_longer: Range,
    #[serde(skip_serializing_if = "is_zero_range")]
    pub quit_per_log_shorter: Range,
    #[serde(skip_serializing_if = "is_zero_range")]
    pub quit_per_session_game: Range,
}

fn is_zero_range(r: &Range) -> bool {
    *r == (0.0, 0.0)
}

impl Default for Ranges {
    fn default() -> Self {
        Self {
            temperature_median: (0.8, 1.6),
            temperature_log_sd: (0.15, 0.4),
            slip_median: (0.02, 0.08),
            slip_logit_sd: (0.2, 0.5),
            quit_base: (0.2, 0.35),
            quit_unfair_odds: (2.0, 5.0),
            quit_per_log_round: (-0.3, -0.1),
            quit_per_unfair_in_row: (0.0, 0.0),
            quit_per_log_longer: (0.0, 0.0),
            quit_per_log_shorter: (0.0, 0.0),
            quit_per_session_game: (0.0, 0.0),
        }
    }
}

impl Ranges {
    /// Every range one value: the population file `p` held fixed.
    pub fn fixed(p: &Population) -> Result<Self, String> {
        let t = p
            .temperature
            .ok_or("a population held fixed needs rank choice (a temperature)")?;
        let one = |x: f64| (x, x);
        Ok(Self {
            temperature_median: one(t.median),
            temperature_log_sd: one(t.log_sd),
            slip_median: one(p.slip.median),
            slip_logit_sd: one(p.slip.logit_sd),
            quit_base: one(p.quit.base),
            quit_unfair_odds: one(p.quit.unfair_odds),
            quit_per_log_round: one(p.quit.per_log_round),
            quit_per_unfair_in_row: one(p.quit.per_unfair_in_row),
            quit_per_log_longer: one(p.quit.per_log_longer),
            quit_per_log_shorter: one(p.quit.per_log_shorter),
            quit_per_session_game: one(p.quit.per_session_game),
        })
    }

    /// Every range one value: the population is held, not drawn.
    pub fn is_fixed(&self) -> bool {
        self.all().iter().all(|(_, (lo, hi), ..)| lo == hi)
    }

    /// The churn terms' ranges, in `quit::CHURN_TERMS`' order.
    pub fn churn(&self) -> [Range; 4] {
        [
            self.quit_per_unfair_in_row,
            self.quit_per_log_longer,
            self.quit_per_log_shorter,
            self.quit_per_session_game,
        ]
    }

    /// Whether the truth may hold churn terms: then the fit's are
    /// calibrated too.
    pub fn has_churn(&self) -> bool {
        self.churn().iter().any(|r| !is_zero_range(r))
    }

    /// Reads a ranges file (RON: any of the fields, each `(LO, HI)`).
    pub fn parse(text: &str, file: &str) -> Result<Self, crate::io::formats::FormatError> {
        let r: Self = crate::io::formats::parse_ron(text, file)?;
        r.check()
            .map_err(|m| crate::io::formats::FormatError::new(file, None, m))?;
        Ok(r)
    }

    fn all(&self) -> [(&'static str, Range, f64, f64); 11] {
        use crate::fits::population::file::MAX_SPREAD;
        [
            ("temperature_median", self.temperature_median, 1e-3, 100.0),
            ("temperature_log_sd", self.temperature_log_sd, 0.0, MAX_SPREAD),
            ("slip_median", self.slip_median, 1e-6, 0.999),
            ("slip_logit_sd", self.slip_logit_sd, 0.0, MAX_SPREAD),
            ("quit_base", self.quit_base, 1e-6, 0.999),
            ("quit_unfair_odds", self.quit_unfair_odds, 1e-3, 1e3),
            ("quit_per_log_round", self.quit_per_log_round, -10.0, 10.0),
            ("quit_per_unfair_in_row", self.quit_per_unfair_in_row, -10.0, 10.0),
            ("quit_per_log_longer", self.quit_per_log_longer, -10.0, 10.0),
            ("quit_per_log_shorter", self.quit_per_log_shorter, -10.0, 10.0),
            ("quit_per_session_game", self.quit_per_session_game, -10.0, 10.0),
        ]
    }

    /// Each range LO <= HI inside what a population can hold, or the field
    /// at fault.
    pub fn check(&self) -> Result<(), String> {
        for (name, (lo, hi), min, max) in self.all() {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Err(format!(
                    "{name}: a range is (LO, HI) with LO <= HI; got ({lo}, {hi})"
                ));
            }
            if lo < min || hi > max {
                return Err(format!("{name}: ({lo}, {hi}) leaves {min} to {max}"));
            }
        }
        Ok(())
    }

    /// Replication `r`'s true population (rank choice, piece lookahead).
    pub fn draw(&self, seed: u64, r: usize) -> Population {
        let mut rng = Generator::new(replication_seed(seed, r) ^ TRUTH_STREAM);
        let mut pick = |(lo, hi): Range| lo + (hi - lo) * rng.unit();
        let mut p = by_name("demo").unwrap_or_else(|_| unreachable!("the demo preset parses"));
        p.name = format!("truth {r}");
        p.fitted = None;
        p.temperature = Some(LogNormal {
            median: pick(self.temperature_median),
            log_sd: pick(self.temperature_log_sd),
        });
        p.slip = LogitNormal {
            median: pick(self.slip_median),
            logit_sd: pick(self.slip_logit_sd),
        };
        p.quit = Quit {
            base: pick(self.quit_base),
            unfair_odds: pick(self.quit_unfair_odds),
            per_log_round: pick(self.quit_per_log_round),
            ..p.quit
        };
        // Drawn after the rest, and only when given, so a plan without
        // churn terms draws the truths it always drew.
        if self.has_churn() {
            let c = self.churn().map(&mut pick);
            p.quit = p.quit.with_churn(c);
        }
        p
    }
}

const TRUTH_STREAM: u64 = 0x7E57_CA11_B0A7_0001;

/// The seed of replication `r`: every replication its own stream, so a
/// shard plays exactly what one process would.
pub fn replication_seed(seed: u64, r: usize) -> u64 {
    crate::fits::population::session::mix(seed ^ crate::fits::population::session::mix(r as u64 + 1))
}

/// The data a designer would have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Design {
    /// Testers × sessions (fit-population, forecast).
    pub testers: usize,
    pub sessions: usize,
    /// One tester's deals (fit-player); the fewest deals of a log
    /// (fit-generator).
    pub deals: usize,
    /// The most deals of a log (fit-generator): each replication's length
    /// drawn log-uniformly from `deals` to this; 0 holds it at `deals`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub deals_max: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Design {
    /// The documented default: 50 testers × 5 sessions; 300 deals.
    pub const DEFAULT: Design = Design {
        testers: 50,
        sessions: 5,
        deals: 300,
        deals_max: 0,
    };
    /// The small one: 20 × 2; 100 deals.
    pub const SMALL: Design = Design {
        testers: 20,
        sessions: 2,
        deals: 100,
        deals_max: 0,
    };
    /// fit-generator's documented design: logs of 2,000 to 50,000 deals.
    pub const GENERATOR: Design = Design {
        testers: 0,
        sessions: 0,
        deals: 2_000,
        deals_max: 50_000,
    };
    /// The window's: 2,000 to 10,000 deals (a replication in seconds).
    pub const GENERATOR_SMALL: Design = Design {
        deals_max: 10_000,
        ..Design::GENERATOR
    };

    /// The fewest and the most deals of a log.
    pub fn deals_range(&self) -> (usize, usize) {
        (self.deals, self.deals_max.max(self.deals))
    }
}

/// A calibration study's identity: everything that decides its
/// replications, by value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The engine's behaviour version (`plan::ENGINE`).
    pub engine: String,
    pub estimator: Estimator,
    /// The estimator's behaviour version (`Estimator::version`); empty in
    /// files made before it was kept.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub estimator_version: String,
    pub design: Design,
    pub ranges: Ranges,
    /// The generator the testers played (a built-in's name).
    pub generator: String,
    /// The generator a forecast is for (forecast only).
    pub forecast_generator: String,
    /// Players the forecast plays, and the true population's players its
    /// truth is measured on (forecast only).
    pub forecast_players: usize,
    pub truth_players: usize,
    pub board: (u8, u8),
    pub max_rounds: u32,
    pub replications: usize,
    pub seed: u64,
    /// Where the true generators come from (fit-generator only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generators: Option<generator::GeneratorRanges>,
    /// The two generators a gain compares, by value, and its objective
    /// (gain only; without them, `forecast_generator` over `generator`
    /// on games per session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arms: Option<gain::Arms>,
    /// The pieces dealt, by value: the classic set (what every study was
    /// measured on, and what a file without the field holds), or a game's
    /// own for a playtest's plan (`plan-playtest --pieces`).
    #[serde(default = "PieceSet::classic", skip_serializing_if = "is_classic")]
    pub pieces: PieceSet,
}

fn is_classic(set: &PieceSet) -> bool {
    *set == PieceSet::classic()
}

/// The most replications a study holds.
pub const MAX_REPLICATIONS: usize = 100_000;

impl Plan {
    /// Whether this program plays and estimates as the one that made the
    /// study `name` did (the engine's and the estimator's behaviour
    /// versions): a study is resumed or merged only then.
    pub fn same_behaviour(&self, name: &str) -> Result<(), String> {
        if self.engine != crate::study::plan::ENGINE {
            return Err(format!(
                "{name} was played by engine behaviour {}, this is engine behaviour {}; rerun it",
                self.engine,
                crate::study::plan::ENGINE
            ));
        }
        let version = self.estimator.version();
        if self.estimator_version != version {
            return Err(format!(
                "{name} was made by {} behaviour {}, this is {0} behaviour {version}; rerun it",
                self.estimator.name(),
                if self.estimator_version.is_empty() {
                    "from before versions were kept"
                } else {
                    &self.estimator_version
                },
            ));
        }
        Ok(())
    }

    pub fn new(estimator: Estimator, design: Design, replications: usize, seed: u64) -> Self {
        Self {
            engine: crate::study::plan::ENGINE.to_owned(),
            estimator,
            estimator_version: estimator.version().to_owned(),
            design,
            ranges: Ranges::default(),
            generator: "random".to_owned(),
            forecast_generator: "repair".to_owned(),
            forecast_players: 2_000,
            // A gain's truth on ten times its players (gain.rs says why).
            truth_players: if estimator == Estimator::Gain {
                20_000
            } else {
                10_000
            },
            board: (10, 10),
            max_rounds: 1_000,
            replications,
            seed,
            generators: (estimator == Estimator::FitGenerator).then(generator::GeneratorRanges::default),
            arms: None,
            pieces: PieceSet::classic(),
        }
    }

    /// What replication `r` costs, in the units of `run`'s progress: its
    /// log's deals (fit-generator), else one.
    pub fn cost(&self, r: usize) -> usize {
        match self.estimator {
            Estimator::FitGenerator => generator::deals_of(self, r).max(1),
            _ => 1,
        }
    }

    pub fn size(&self) -> Result<BoardSize, String> {
        BoardSize::new(usize::from(self.board.0), usize::from(self.board.1))
            .map_err(|e| format!("board: {e}"))
    }

    /// What cannot be simulated, refused with the field at fault; a
    /// study's generators are built-ins, so the plan holds them by value.
    pub fn check(&self) -> Result<(), String> {
        self.check_values()?;
        for g in [&self.generator, &self.forecast_generator] {
            if !crate::play::dealers::NAMES.contains(&g.as_str()) {
                return Err(format!(
                    "unknown generator {g:?}; a study plays a built-in: {}",
                    crate::play::dealers::NAMES.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// The same but for the generators' names: a plan that is never
    /// written (plan-playtest's) may deal from files and presets.
    pub fn check_values(&self) -> Result<(), String> {
        if self.replications == 0 || self.replications > MAX_REPLICATIONS {
            return Err(format!(
                "replications: 1 to {MAX_REPLICATIONS}; got {}",
                self.replications
            ));
        }
        self.ranges.check()?;
        self.size()?;
        if self.estimator != Estimator::Playtest && !is_classic(&self.pieces) {
            // The estimators' ranges, players and measured table are the
            // classic set's; a playtest's figures are the plan's own.
            return Err(format!(
                "pieces: {} is calibrated on the classic set only; \"{}\" is another",
                self.estimator.name(),
                self.pieces.name
            ));
        }
        if self.max_rounds == 0 {
            return Err("max-rounds: a game needs a round".to_owned());
        }
        let d = self.design;
        match self.estimator {
            Estimator::FitPlayer => {
                if !(10..=100_000).contains(&d.deals) {
                    return Err(format!("deals: 10 to 100,000 for one tester; got {}", d.deals));
                }
                // One tester's log is recorded as `deal --log` records it.
                if self.generator != "random" {
                    return Err(format!(
                        "generator: fit-player's replications record a tester under random; got {}",
                        self.generator
                    ));
                }
            }
            Estimator::FitPopulation | Estimator::Forecast | Estimator::Playtest => {
                if d.testers < 2 {
                    return Err(format!(
                        "testers: a population's spread needs at least 2 testers; got {}",
                        d.testers
                    ));
                }
                if d.sessions == 0 {
                    return Err("sessions: each tester plays at least one session; got 0".to_owned());
                }
                crate::fits::population::cohort::check_size(d.testers, d.sessions)?;
            }
            Estimator::Tune => {}
            Estimator::Gain => match &self.arms {
                Some(arms) => arms.check()?,
                None if self.generator == self.forecast_generator => {
                    return Err(format!(
                        "generator and forecast-generator are both {}: a gain of a generator over itself is 0 with no width",
                        self.generator
                    ));
                }
                None => {}
            },
            Estimator::FitGenerator => {
                let (lo, hi) = d.deals_range();
                if !(100..=200_000).contains(&lo) || hi > 200_000 {
                    return Err(format!(
                        "deals: a log of 100 to 200,000 deals; got {}",
                        if lo < 100 { lo } else { hi }
                    ));
                }
                if d.deals_max != 0 && d.deals_max < d.deals {
                    return Err(format!(
                        "deals-max: at least deals ({}); got {}",
                        d.deals, d.deals_max
                    ));
                }
                self.generators.clone().unwrap_or_default().check()?;
            }
        }
        if matches!(
            self.estimator,
            Estimator::Forecast | Estimator::Playtest | Estimator::Gain
        ) {
            for (n, what) in [
                (self.forecast_players, "forecast-players"),
                (self.truth_players, "truth-players"),
            ] {
                if !(20..=1_000_000).contains(&n) {
                    return Err(format!("{what}: 20 to 1,000,000; got {n}"));
                }
            }
        }
        Ok(())
    }
}

/// One estimate beside its truth; `lo`, `hi` NaN without an interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    pub parameter: String,
    pub truth: f64,
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
    /// A tune's verdict on the hold-out ("met", "missed", "undecided").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// A tune's tolerance band, which its verdict is confirmed against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<(f64, f64)>,
}

impl Estimate {
    pub fn new(parameter: &str, truth: f64, value: f64, (lo, hi): (f64, f64)) -> Self {
        Self {
            parameter: parameter.to_owned(),
            truth,
            value,
            lo,
            hi,
            verdict: None,
            band: None,
        }
    }

    pub fn has_interval(&self) -> bool {
        !self.lo.is_nan() && !self.hi.is_nan()
    }

    pub fn covers(&self) -> bool {
        self.has_interval() && self.lo <= self.truth && self.truth <= self.hi
    }
}

/// One replication: its estimates, or why the estimator failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replication {
    pub index: usize,
    pub estimates: Vec<Estimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// A fit-generator replication's truth and what the fit decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<generator::Outcome>,
}

/// Plays replications `indices` of `plan` in order; `on_done` hears of
/// each as it ends (checkpoints, progress). `None` when cancelled; the
/// replications done before are in `on_done`'s hands.
///
/// `progress` counts in units of cost (`Plan::cost`: a replication's deals
/// for fit-generator, one otherwise), its total set here: the replications
/// done, and the part of the one under way that its estimator reports on
/// its own progress (a fit-generator replication's simulation and its
/// fit, weighed by `generator::SIMULATION_SHARE`). The estimator's own
/// totals never reach `progress`, so the fraction is the study's and the
/// ETA an honest one.
pub fn run(
    plan: &Plan,
    indices: impl IntoIterator<Item = usize>,
    progress: &Progress,
    mut on_done: impl FnMut(&Replication),
) -> Option<Vec<Replication>> {
    let indices: Vec<usize> = indices.into_iter().collect();
    let costs: Vec<usize> = indices.iter().map(|&r| plan.cost(r)).collect();
    progress.set_total(costs.iter().sum::<usize>().max(1));
    progress.done.store(0, Ordering::Relaxed);
    let mut base = 0usize;
    let mut out = Vec::new();
    for (&r, &cost) in indices.iter().zip(&costs) {
        if progress.cancelled() {
            return None;
        }
        let stages = [Progress::default(), Progress::default()];
        let weights = match plan.estimator {
            Estimator::FitGenerator => [generator::SIMULATION_SHARE, 1.0 - generator::SIMULATION_SHARE],
            _ => [1.0, 0.0],
        };
        let rep = watched(progress, &stages, weights, base, cost, || {
            estimators::replicate(plan, r, [&stages[0], &stages[1]])
        })?;
        base += cost;
        progress.done.store(base, Ordering::Relaxed);
        on_done(&rep);
        out.push(rep);
    }
    Some(out)
}

/// Runs `work` while a watcher passes a cancel of `outer` on to `stages`
/// and shows their weighted fraction of `cost` on `outer` past `base`
/// (never going back).
pub(crate) fn watched<T>(
    outer: &Progress,
    stages: &[Progress; 2],
    weights: [f64; 2],
    base: usize,
    cost: usize,
    work: impl FnOnce() -> T,
) -> T {
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut shown = 0usize;
            while !finished.load(Ordering::Relaxed) {
                if outer.cancelled() {
                    stages.iter().for_each(Progress::cancel);
                }
                let f: f64 = stages
                    .iter()
                    .zip(weights)
                    .map(|(s, w)| w * f64::from(s.fraction()))
                    .sum();
                // A stage not yet begun reads 0 (its total unset): the
                // fraction only grows as each stage does.
                let part = ((f * cost as f64) as usize).min(cost.saturating_sub(1));
                if part > shown {
                    shown = part;
                    outer.done.store(base + shown, Ordering::Relaxed);
                }
                std::thread::park_timeout(std::time::Duration::from_millis(50));
            }
        });
        let answer = work();
        finished.store(true, Ordering::Relaxed);
        watcher.thread().unpark();
        answer
    })
}

#[cfg(test)]
mod tests;
