//! One replication of each estimator: the truth drawn, the designer's data
//! simulated, the estimator run as the CLI runs it, every estimate kept
//! beside its truth. A fit that fails is a replication that failed, with
//! its reason, never one dropped.

use crate::fits::compare::Model;
use crate::fits::fit_player::{Request, fit_player};
use crate::fits::player::record_places;
use crate::fits::population::check::{observed, play_testers};
use crate::fits::population::cohort::cohort;
use crate::fits::population::file::Population;
use crate::fits::population::fit::{self as population_fit, PopulationFit, fit_population};
use crate::fits::population::forecast::{NAMES, Outcome, play_players, summarize};
use crate::fits::population::quit::{CHURN_TERMS, logistic};
use crate::fits::population::session::{Table, mix};
use crate::fits::population::uncertainty::Uncertainty;
use crate::io::jsonl_log::LogFile;
use crate::io::playtest_log;
use crate::model::generator::Generator;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::coelho::CoelhoWeights;
use crate::play::dealing::Dealing;
use crate::play::generator_file;
use crate::play::player::{Choice, Lookahead, Player};
use crate::progress::Progress;
use crate::study::runner;
use crate::study::tune::{self, Goal, Target, TuneRequest};

use super::{Estimate, Estimator, Plan, Replication, replication_seed};

/// Replication `r` of `plan`; `None` when cancelled. `stages` are the
/// progress of its parts (a fit-generator replication's simulation and
/// fit; every other estimator reports on the first).
pub fn replicate(plan: &Plan, r: usize, stages: [&Progress; 2]) -> Option<Replication> {
    let progress = stages[0];
    let (outcome, generator) = match plan.estimator {
        Estimator::FitPlayer => (one_tester(plan, r, progress)?, None),
        Estimator::FitPopulation => (population(plan, r, progress)?.map(|(e, _)| e), None),
        Estimator::Forecast => (forecast(plan, r, progress)?, None),
        Estimator::Tune => (tuned(plan, r, progress)?, None),
        Estimator::Playtest => (playtest(plan, r, progress)?, None),
        Estimator::Gain => (super::gain::replicate(plan, r, progress)?, None),
        Estimator::FitGenerator => match super::generator::replicate(plan, r, stages)? {
            Ok((estimates, outcome)) => (Ok(estimates), Some(outcome)),
            Err(e) => (Err(e), None),
        },
    };
    Some(match outcome {
        Ok(estimates) => Replication {
            index: r,
            estimates,
            failed: None,
            generator,
        },
        Err(why) => Replication {
            index: r,
            estimates: Vec::new(),
            failed: Some(why),
            generator: None,
        },
    })
}

type Estimates = Option<Result<Vec<Estimate>, String>>;

/// The rank player of the replication's truth: its population's medians.
fn tester(truth: &Population) -> Player {
    Player {
        name: "truth".to_owned(),
        choice: Choice::Rank,
        evaluation: CoelhoWeights::BEST,
        beta: [0.0; 5],
        lookahead: Lookahead::Piece,
        temperature: truth.temperature.map_or(1.0, |t| t.median),
        slip: truth.slip.median,
    }
}

/// `fit-player` (rank, piece lookahead, as the CLI's default) on one
/// tester's `deals` deals, read back from the JSON Lines a game would send.
fn one_tester(plan: &Plan, r: usize, progress: &Progress) -> Estimates {
    let truth = plan.ranges.draw(plan.seed, r);
    let player = tester(&truth);
    let set = PieceSet::classic();
    let Ok(size) = plan.size() else {
        return Some(Err("the board size".to_owned()));
    };
    let shapes = Shapes::new(&set, size);
    let seed = replication_seed(plan.seed, r);
    let places = record_places(&shapes, &set, 3, &player, seed, plan.design.deals);
    let text = playtest_log::to_jsonl(&places, size, &set, "tester", "s0", Some("random"));
    let log = match playtest_log::parse(&text, "replication.jsonl", &set) {
        Ok(log) => log,
        Err(e) => return Some(Err(e.to_string())),
    };
    let req = Request {
        model: Model::Rank {
            lookahead: Lookahead::Piece,
            evaluation: CoelhoWeights::BEST,
        },
        evaluation: CoelhoWeights::BEST,
        criteria: [true; 5],
        compare: false,
        folds: 5,
        generator: None,
        games: 0,
        seed: 0,
        name: "fitted".to_owned(),
    };
    let fit = fit_player(&set, &log, &req, progress)?;
    let est = fit.estimates();
    let find = |name: &str| est.iter().find(|e| e.0 == name);
    let (Some(t), Some(s)) = (find("temperature"), find("slip")) else {
        return Some(Err("the fit gave no temperature or slip".to_owned()));
    };
    Some(Ok(vec![
        Estimate::new("temperature", player.temperature, t.1, (t.2, t.3)),
        Estimate::new("slip", player.slip, s.1, (s.2, s.3)),
    ]))
}

/// The testers' table under `generator`.
fn with_table<T>(plan: &Plan, generator: &str, f: impl FnOnce(&Table) -> T) -> Result<T, String> {
    let set = &plan.pieces;
    let shapes = Shapes::new(set, plan.size()?);
    let dealing = Dealing::by_name(generator, set).map_err(|e| e.to_string())?;
    let table = Table {
        shapes: &shapes,
        set,
        k: 3,
        dealing: &dealing,
        options: crate::search::changer::ChangeOptions::default(),
        max_rounds: plan.max_rounds,
    };
    Ok(f(&table))
}

/// `fit-population` (rank, piece lookahead) on a cohort of the truth;
/// the estimates, and the fit with its truth for a forecast.
#[allow(clippy::type_complexity)]
fn population(
    plan: &Plan,
    r: usize,
    progress: &Progress,
) -> Option<Result<(Vec<Estimate>, (Population, PopulationFit)), String>> {
    let truth = plan.ranges.draw(plan.seed, r);
    let seed = replication_seed(plan.seed, r);
    let d = plan.design;
    let logs = match with_table(plan, &plan.generator, |t| {
        cohort(&truth, t, &plan.generator, d.testers, d.sessions, seed, progress)
    }) {
        Ok(logs) => logs?,
        Err(e) => return Some(Err(e)),
    };
    let logs: Vec<LogFile> = logs
        .into_iter()
        .map(|l| LogFile::Text {
            name: format!("{}.jsonl", l.id),
            text: l.text,
        })
        .collect();
    let model = population_fit::Model {
        choice: Choice::Rank,
        lookahead: Lookahead::Piece,
        evaluation: CoelhoWeights::BEST,
        free: [true; 5],
    };
    let fit = match fit_population("fitted", &model, &logs, &plan.pieces, progress) {
        Ok(Some(fit)) => fit,
        Ok(None) => return None,
        Err(e) => return Some(Err(e.to_string())),
    };
    let (Some(t), Some(temperature), Some(slip)) = (
        truth.temperature,
        fit.parameters.first().map(|p| &p.effects),
        fit.parameters.last().map(|p| &p.effects),
    ) else {
        return Some(Err("the fit has no temperature".to_owned()));
    };
    let q = &fit.population.quit;
    let estimates = vec![
        Estimate::new(
            "temperature_median",
            t.median,
            temperature.mean.exp(),
            (temperature.mean_ci.0.exp(), temperature.mean_ci.1.exp()),
        ),
        Estimate::new("temperature_log_sd", t.log_sd, temperature.sd, temperature.sd_ci),
        Estimate::new(
            "slip_median",
            truth.slip.median,
            logistic(slip.mean),
            (logistic(slip.mean_ci.0), logistic(slip.mean_ci.1)),
        ),
        Estimate::new("slip_logit_sd", truth.slip.logit_sd, slip.sd, slip.sd_ci),
        Estimate::new("quit_base", truth.quit.base, q.base, fit.quit_base_ci()),
        Estimate::new(
            "quit_unfair_odds",
            truth.quit.unfair_odds,
            q.unfair_odds,
            fit.unfair_odds_ci(),
        ),
        Estimate::new(
            "quit_per_log_round",
            truth.quit.per_log_round,
            q.per_log_round,
            fit.quit_per_log_round_ci(),
        ),
    ];
    let mut estimates = estimates;
    if plan.ranges.has_churn() {
        // The seven-term fit's churn terms, whether the held-out testers
        // chose them or not: its intervals are what a designer reads.
        let Some(churn) = fit.population.fitted.as_ref().and_then(|f| f.churn.as_ref()) else {
            return Some(Err(
                "the fit made no quit decision to fit churn terms to".to_owned()
            ));
        };
        for (j, term) in CHURN_TERMS.iter().enumerate() {
            let (x, lo, hi) = churn.term(j);
            estimates.push(Estimate::new(
                &format!("quit_{term}"),
                truth.quit.churn()[j],
                x,
                (lo, hi),
            ));
        }
    }
    Some(Ok((estimates, (truth, fit))))
}

/// `forecast` of `plan.forecast_generator` from the fit, against the true
/// population's `truth_players` players under it.
fn forecast(plan: &Plan, r: usize, progress: &Progress) -> Estimates {
    let (truth, fit) = match population(plan, r, progress)? {
        Ok((_, both)) => both,
        Err(e) => return Some(Err(e)),
    };
    let seed = replication_seed(plan.seed, r);
    let g = &plan.forecast_generator;
    let played = with_table(plan, g, |t| {
        let p = plan.forecast_players;
        let fitted: Vec<Outcome> = play_players(&fit.population, t, 0..p, mix(seed ^ 1), progress)?;
        let n = plan.truth_players;
        let real: Vec<Outcome> = play_players(&truth, t, 0..n, mix(seed ^ 2), progress)?;
        let uncertainty = Uncertainty::of(&fit.population);
        Some((
            summarize(g, &fitted.iter().collect::<Vec<_>>(), uncertainty.as_ref()),
            summarize(g, &real.iter().collect::<Vec<_>>(), None),
        ))
    });
    let (f, real) = match played {
        Ok(x) => x?,
        Err(e) => return Some(Err(e)),
    };
    Some(Ok(NAMES
        .iter()
        .filter_map(|name| {
            let (a, t) = (f.figure(name)?, real.figure(name)?);
            Some(Estimate::new(
                name,
                t.value,
                a.value,
                a.ci.unwrap_or((f64::NAN, f64::NAN)),
            ))
        })
        .collect()))
}

/// A figure and its 95 % interval (NaN ends without one).
pub type Figure = (f64, (f64, f64));

/// The figures a playtest of `plan.design` estimates, measured on
/// `players` testers of the true population under `generator`: each plays
/// the design's sessions, their games carried from one to the next as a
/// tester's are, and each figure pools them as the playtest's does (a
/// ratio over the sessions). A first session alone is a forecast's figure,
/// another number wherever earlier sessions matter: a churn model that
/// reads the player's typical game, an adaptive generator that reads the
/// games before. Under `demo-churn` the adaptive file of the guide gains
/// +13.4 % in a first session and +17 % over three (session 18), and a
/// plan of three sessions a tester that called +13.4 % its truth checked
/// its A/B against the wrong number.
pub fn true_figures(
    truth: &Population,
    plan: &Plan,
    generator: &str,
    players: usize,
    seed: u64,
    progress: &Progress,
) -> Result<Option<Vec<f64>>, String> {
    let sessions = plan.design.sessions.max(1);
    let max = crate::fits::population::forecast::MAX_SESSIONS;
    if players.saturating_mul(sessions) > max {
        return Err(format!(
            "truth-players: {players} testers x {sessions} sessions is over the {max} sessions a truth may play; fewer"
        ));
    }
    with_table(plan, generator, |t| {
        let testers = play_testers(truth, t, &vec![sessions; players], seed, progress)?;
        progress.advance(players * sessions);
        Some((0..NAMES.len()).map(|j| observed(&testers, j).0).collect())
    })
}

/// A playtest's figures: `design.testers` testers of `truth`, each playing
/// `design.sessions` sessions under `plan.generator`, each figure a ratio
/// over the sessions with its 95 % interval (clustered by tester, normal).
pub fn observed_figures(
    truth: &Population,
    plan: &Plan,
    seed: u64,
    progress: &Progress,
) -> Result<Option<Vec<Figure>>, String> {
    let d = plan.design;
    with_table(plan, &plan.generator, |t| {
        let testers = play_testers(truth, t, &vec![d.sessions; d.testers], seed, progress)?;
        Some(
            (0..NAMES.len())
                .map(|j| {
                    let (v, se) = observed(&testers, j);
                    let (floor, ceiling) = if NAMES[j] == "games_per_session" {
                        (1.0, f64::INFINITY)
                    } else {
                        (0.0, 1.0)
                    };
                    let ci = if se.is_finite() {
                        ((v - 1.96 * se).max(floor), (v + 1.96 * se).min(ceiling))
                    } else {
                        (f64::NAN, f64::NAN)
                    };
                    (v, ci)
                })
                .collect(),
        )
    })
}

/// The playtest estimator against the truth's figures from
/// `plan.truth_players` players (under the testers' generator).
fn playtest(plan: &Plan, r: usize, progress: &Progress) -> Estimates {
    let truth = plan.ranges.draw(plan.seed, r);
    let seed = replication_seed(plan.seed, r);
    let real = match true_figures(
        &truth,
        plan,
        &plan.generator,
        plan.truth_players,
        mix(seed ^ 2),
        progress,
    ) {
        Ok(x) => x?,
        Err(e) => return Some(Err(e)),
    };
    let seen = match observed_figures(&truth, plan, mix(seed ^ 1), progress) {
        Ok(x) => x?,
        Err(e) => return Some(Err(e)),
    };
    Some(Ok(NAMES
        .iter()
        .zip(real.iter().zip(&seen))
        .map(|(name, (t, (v, ci)))| Estimate::new(name, *t, *v, *ci))
        .collect()))
}

/// Where a tune's verdict is confirmed: far from its tuning, validation
/// and hold-out seeds, and every replication's its own.
const CONFIRM_SEEDS: usize = 10_000_000;
/// The tolerance of a tune's median target, in rounds.
pub const TUNE_TOLERANCE: f64 = 2.0;
/// Fresh games that confirm a verdict.
pub const CONFIRM_GAMES: usize = 2_000;

/// `tune` of `plan.generator` for novice toward a median drawn from 20 to
/// 34 rounds (novice lives about 22 under random) within 2 rounds (the
/// default 5 % is a round or so, which a median of whole rounds on 800
/// games seldom decides); the verdict's truth is the tuned generator's
/// median on 2,000 fresh games.
fn tuned(plan: &Plan, r: usize, progress: &Progress) -> Estimates {
    let set = PieceSet::classic();
    let seed = replication_seed(plan.seed, r);
    let goal_rounds = (20.0 + 14.0 * Generator::new(seed ^ 0x60A1).unit()).round();
    let goal = Goal {
        target: Target::MedianRounds(goal_rounds),
        tolerance: TUNE_TOLERANCE,
    };
    let Some(Ok(base)) = generator_file::spec_by_name(&plan.generator, &set) else {
        return Some(Err(format!("unknown generator {}", plan.generator)));
    };
    let Ok(size) = plan.size() else {
        return Some(Err("the board size".to_owned()));
    };
    let named = match runner::Plan::named(set.clone(), &["novice"], &[], CoelhoWeights::BEST) {
        Ok(p) => p,
        Err(e) => return Some(Err(e.to_string())),
    };
    let req = TuneRequest {
        base,
        plan: runner::Plan {
            games: 100,
            seed: seed % 1_000_000_000,
            max_rounds: plan.max_rounds,
            shapes_size: size,
            ..named
        },
        goals: vec![goal],
        free: (0..set.pieces.len() as crate::model::pieces::PieceIdx).collect(),
        bounds: (1.0, 200.0),
        keep_mix: 0.0,
        budget_seconds: f64::INFINITY,
        max_evaluations: Some(30),
        holdout_games: 200,
        holdout_max: 800,
        plan_holdout: false,
        audience: None,
    };
    let report = tune::tune(&req, progress, |_| {})?;
    let Some(c) = report.holdout.first() else {
        if progress.cancelled() {
            return None;
        }
        return Some(Err("the tune gave no hold-out verdict".to_owned()));
    };
    let fresh = CONFIRM_SEEDS + r * CONFIRM_GAMES..CONFIRM_SEEDS + (r + 1) * CONFIRM_GAMES;
    let games = runner::run_spec(&req.plan, "novice", &report.tuned, fresh, progress)?;
    let s = runner::summarize(&games, &set);
    let truth = s.km.median.map_or(f64::NAN, f64::from);
    let (lo, hi) = c.holdout.ci.unwrap_or((f64::NAN, f64::NAN));
    Some(Ok(vec![Estimate {
        verdict: Some(c.verdict.word().to_owned()),
        band: Some(goal.band()),
        ..Estimate::new(
            "median_rounds",
            truth,
            c.holdout.value.unwrap_or(f64::NAN),
            (lo, hi),
        )
    }]))
}
