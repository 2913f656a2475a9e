//! A forecast checked against real play: the logs of testers who played
//! under one of the forecast's generators. Observed against predicted
//! survival (Kaplan-Meier, the log-rank test), and each `reach_r` and
//! games per session observed against the forecast's interval widened by
//! a cohort's sampling noise (a cohort of 60 testers is not the whole
//! audience): how much the figure varies between cohorts of that many
//! testers, read off the forecast's own players (each figure is a ratio of
//! sums over sessions, its variance the ratio estimator's, each player a
//! cluster). The log-rank test takes games as independent; games of one
//! tester share its skill, so its p-value is optimistic, and the verdict
//! reads the statistic among reference cohorts instead: cohorts of as many
//! testers drawn from the forecast's population, each playing as many
//! sessions as the tester it stands for (`reference`), so a tester's
//! several sessions share one skill there as they do in the logs. (With
//! one session per reference player, cohorts of the true population itself
//! were called "differs" in 2 of 6.)

use rayon::prelude::*;

use crate::fits::population::file::Population;
use crate::fits::population::forecast::{Forecast, NAMES, Outcome, clustered_ratio, ratio_parts, replicate};
use crate::fits::population::session::{Session, Table, mix, play_session, player_seed, session_seed};
use crate::model::generator::Generator;
use crate::progress::Progress;
use crate::stats::logrank::{LogRank, log_rank};

/// Reference cohorts a check draws.
pub const REFERENCE_COHORTS: usize = 40;

const REFERENCE_STREAM: u64 = 0x00C0_4027_0000_0001;

/// Testers drawn from `population`, tester i playing `sessions[i]`
/// sessions (its player i of `seed`); `None` when cancelled.
pub fn play_testers(
    population: &Population,
    table: &Table,
    sessions: &[usize],
    seed: u64,
    progress: &Progress,
) -> Option<Testers> {
    sessions
        .par_iter()
        .enumerate()
        .map(|(i, &n)| {
            let who = player_seed(seed, i as u64);
            let drawn = population.draw(&format!("t{i}"), &mut Generator::new(who));
            // The tester's games so far, carried from session to session.
            let mut history = Default::default();
            let played = (0..n)
                .map(|j| {
                    play_session(
                        table,
                        &drawn.player,
                        &population.quit,
                        session_seed(who, j as u64),
                        &mut history,
                        None,
                        progress,
                    )
                })
                .collect::<Option<Vec<Session>>>()?;
            Some((format!("t{i}"), played))
        })
        .collect()
}

/// `cohorts` reference cohorts for `testers`: cohort c's population is
/// draw c of the fit's sampling distribution (`replicate`), and its tester
/// i plays as many sessions as tester i did. `None` when cancelled.
pub fn reference(
    population: &Population,
    table: &Table,
    testers: &[(String, Vec<Session>)],
    cohorts: usize,
    seed: u64,
    progress: &Progress,
) -> Option<Vec<Testers>> {
    let sessions: Vec<usize> = testers.iter().map(|t| t.1.len()).collect();
    (0..cohorts)
        .map(|c| {
            play_testers(
                &replicate(population, seed, c),
                table,
                &sessions,
                mix(seed ^ REFERENCE_STREAM ^ mix(c as u64)),
                progress,
            )
        })
        .collect()
}

/// Each tester's id and sessions, as a check reads them.
pub type Testers = Vec<(String, Vec<Session>)>;

/// The testers of `logs` (JSON Lines) with their sessions, and the
/// generator the logs name (the first record that names one).
pub fn testers_of(
    logs: &[crate::io::jsonl_log::LogFile],
    set: &crate::model::pieces::PieceSet,
) -> Result<(Testers, Option<String>), crate::io::formats::FormatError> {
    let g = crate::fits::population::fit::gather(logs, set)?;
    let shapes = crate::model::shapes::Shapes::new(set, g.size);
    Ok((
        // A tester whose every game went unplayed played no session: no
        // tester of the figures either.
        g.testers
            .iter()
            .map(|t| (t.id.clone(), t.sessions(&shapes, set)))
            .filter(|t| !t.1.is_empty())
            .collect(),
        g.generator,
    ))
}

/// The figures a check compares: the reach at each round and games per
/// session.
pub const CHECKED: [&str; 5] = [
    "reach_10",
    "reach_25",
    "reach_50",
    "reach_100",
    "games_per_session",
];

/// One figure's check.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: &'static str,
    pub observed: f64,
    pub observed_se: f64,
    pub predicted: f64,
    /// The interval the observed figure should fall in.
    pub interval: (f64, f64),
    pub inside: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub generator: String,
    pub testers: usize,
    pub sessions: usize,
    pub games: usize,
    pub rows: Vec<Row>,
    pub survival: Option<LogRank>,
    /// The log-rank statistic's p-value among the reference cohorts
    /// (`calibrated_p`), with how many there were.
    pub calibrated: Option<(f64, usize)>,
    /// Observed and predicted games as (rounds, censored).
    pub observed_games: Vec<(u32, bool)>,
    pub predicted_games: Vec<(u32, bool)>,
}

/// Games as (rounds, censored), for survival.
pub fn games_of<'a>(sessions: impl Iterator<Item = &'a Session>) -> Vec<(u32, bool)> {
    sessions
        .flat_map(|s| {
            s.games
                .iter()
                .map(|g| (g.rounds, g.end == crate::play::game::End::Censored))
        })
        .collect()
}

/// Figure `j` of the testers' sessions and its standard error, each
/// tester a cluster; NaN with nothing to divide by.
pub fn observed(testers: &[(String, Vec<Session>)], j: usize) -> (f64, f64) {
    let sums: Vec<(f64, f64)> = testers
        .iter()
        .map(|(_, ss)| {
            ss.iter()
                .map(|s| ratio_parts(s)[j])
                .fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1))
        })
        .collect();
    let (r, var) = clustered_ratio(&sums);
    (r, var.sqrt())
}

/// The variance of figure `j` over cohorts like the testers': within each
/// reference cohort, the ratio's clustered variance (each tester a cluster
/// of its sessions), averaged over the cohorts.
fn cohort_variance(reference: &[Testers], j: usize) -> f64 {
    let vars: Vec<f64> = reference
        .iter()
        .map(|c| observed(c, j).1.powi(2))
        .filter(|v| v.is_finite())
        .collect();
    if vars.is_empty() {
        f64::INFINITY
    } else {
        vars.iter().sum::<f64>() / vars.len() as f64
    }
}

/// Where `chi2` falls among the log-rank statistics of the reference
/// cohorts (each against every predicted game): the share at least as
/// large, (1 + k) / (1 + K).
fn calibrated_p(chi2: f64, reference: &[Testers], all: &[(u32, bool)]) -> (f64, usize) {
    let stats: Vec<f64> = reference
        .iter()
        .filter_map(|c| log_rank(&games_of(c.iter().flat_map(|t| &t.1)), all).map(|t| t.chi2))
        .collect();
    let k = stats.iter().filter(|&&x| x >= chi2).count();
    ((1 + k) as f64 / (1 + stats.len()) as f64, stats.len())
}

/// Checks `forecast` (of the generator the testers played, its players'
/// `predicted` sessions) against the testers' sessions, with `reference`
/// cohorts like theirs (`reference`).
pub fn check(
    forecast: &Forecast,
    predicted: &[Outcome],
    testers: &[(String, Vec<Session>)],
    reference: &[Testers],
) -> Check {
    let rows = CHECKED
        .iter()
        .map(|name| {
            let j = NAMES.iter().position(|n| n == name).unwrap_or(0);
            let (obs, se) = observed(testers, j);
            let f = forecast.figures[j];
            let forecast_half = f.ci.map_or(0.0, |(lo, hi)| (hi - lo) / 2.0);
            let cohort = cohort_variance(reference, j);
            let half = (forecast_half.powi(2) + 1.96f64.powi(2) * cohort).sqrt();
            // Shares stay shares; a mean of games stays at least 1.
            let interval = if *name == "games_per_session" {
                ((f.value - half).max(1.0), f.value + half)
            } else {
                ((f.value - half).max(0.0), (f.value + half).min(1.0))
            };
            Row {
                name,
                observed: obs,
                observed_se: se,
                predicted: f.value,
                interval,
                inside: obs >= interval.0 && obs <= interval.1,
            }
        })
        .collect();
    let observed_games = games_of(testers.iter().flat_map(|t| &t.1));
    let predicted_games = games_of(predicted.iter().map(|o| &o.session));
    let survival = log_rank(&observed_games, &predicted_games);
    let calibrated = survival.map(|s| calibrated_p(s.chi2, reference, &predicted_games));
    Check {
        generator: forecast.generator.clone(),
        testers: testers.len(),
        sessions: testers.iter().map(|t| t.1.len()).sum(),
        games: observed_games.len(),
        survival,
        calibrated,
        rows,
        observed_games,
        predicted_games,
    }
}

impl Check {
    pub fn inside(&self) -> usize {
        self.rows.iter().filter(|r| r.inside).count()
    }

    /// One line per figure, then the survival test, then the verdict.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                format!(
                    "check generator={} {}: observed={:.4} predicted={:.4} interval={:.4},{:.4} {}",
                    self.generator,
                    r.name,
                    r.observed,
                    r.predicted,
                    r.interval.0,
                    r.interval.1,
                    if r.inside { "inside" } else { "OUTSIDE" }
                )
            })
            .collect();
        out.push(match (&self.survival, self.calibrated) {
            (Some(s), Some((p, cohorts))) => format!(
                "check generator={} survival: log-rank chi2={:.3} p={:.4} (games as independent) p_cohorts={:.3} \
                 (among {cohorts} cohorts of {} testers drawn from the forecast, as many sessions each) observed_ends={:.0} expected_ends={:.1}",
                self.generator, s.chi2, s.p, p, self.testers, s.observed, s.expected,
            ),
            _ => format!("check generator={} survival: nothing to test (no ended games)", self.generator),
        });
        out.push(format!(
            "verdict: {} of {} figures inside their intervals; survival {} (testers={} sessions={} games={})",
            self.inside(),
            self.rows.len(),
            match self.calibrated {
                Some((p, _)) if p >= 0.05 => format!("agrees with the forecast's cohorts (p={p:.3})"),
                Some((p, _)) => format!("differs from the forecast's cohorts (p={p:.3})"),
                None => "untested".to_owned(),
            },
            self.testers,
            self.sessions,
            self.games
        ));
        out
    }
}
