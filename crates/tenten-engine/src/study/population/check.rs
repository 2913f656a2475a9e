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
//! counts the figures.

use crate::stats::logrank::{LogRank, log_rank};
use crate::study::population::forecast::{Forecast, NAMES, Outcome, clustered_ratio, ratio_parts};
use crate::study::population::session::Session;

/// Each tester's id and sessions, as a check reads them.
pub type Testers = Vec<(String, Vec<Session>)>;

/// The testers of `logs` (JSON Lines) with their sessions, and the
/// generator the logs name (the first record that names one).
pub fn testers_of(
    logs: &[crate::io::jsonl_log::LogFile],
    set: &crate::model::pieces::PieceSet,
) -> Result<(Testers, Option<String>), crate::io::formats::FormatError> {
    let g = crate::study::population::fit::gather(logs, set)?;
    let shapes = crate::model::shapes::Shapes::new(set, g.size);
    Ok((
        g.testers
            .iter()
            .map(|t| (t.id.clone(), t.sessions(&shapes, set)))
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
    /// The log-rank statistic's p-value among cohorts of as many testers
    /// drawn from the forecast (`calibrated_p`), with how many were drawn.
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
fn observed(testers: &[(String, Vec<Session>)], j: usize) -> (f64, f64) {
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

/// The variance of figure `j` over cohorts of `m` testers drawn from the
/// forecast's players: within each replicate (one draw of the fit), the
/// ratio's clustered variance scaled from its players to `m`, averaged over
/// replicates. The forecast's thousands of players measure it far better
/// than a cohort's few testers measure their own.
fn cohort_variance(predicted: &[Outcome], j: usize, m: usize) -> f64 {
    let replicates = predicted.iter().map(|o| o.replicate + 1).max().unwrap_or(0);
    let scaled: Vec<f64> = (0..replicates)
        .filter_map(|r| {
            let parts: Vec<(f64, f64)> = predicted
                .iter()
                .filter(|o| o.replicate == r)
                .map(|o| ratio_parts(&o.session)[j])
                .collect();
            let (_, var) = clustered_ratio(&parts);
            var.is_finite()
                .then(|| var * parts.len() as f64 / m.max(1) as f64)
        })
        .collect();
    if scaled.is_empty() {
        f64::INFINITY
    } else {
        scaled.iter().sum::<f64>() / scaled.len() as f64
    }
}

/// Where `chi2` falls among the log-rank statistics of cohorts of `m`
/// testers drawn from the forecast itself (each replicate's players in
/// groups of `m`, each group against every predicted game): the share at
/// least as large, (1 + k) / (1 + K). Games of one tester share its skill,
/// which the plain test ignores; cohorts of testers carry it.
fn calibrated_p(chi2: f64, predicted: &[Outcome], all: &[(u32, bool)], m: usize) -> (f64, usize) {
    let replicates = predicted.iter().map(|o| o.replicate + 1).max().unwrap_or(0);
    let mut stats = Vec::new();
    for r in 0..replicates {
        let mine: Vec<&Outcome> = predicted.iter().filter(|o| o.replicate == r).collect();
        for group in mine.chunks_exact(m.max(1)) {
            let games = games_of(group.iter().map(|o| &o.session));
            if let Some(t) = log_rank(&games, all) {
                stats.push(t.chi2);
            }
        }
    }
    let k = stats.iter().filter(|&&x| x >= chi2).count();
    ((1 + k) as f64 / (1 + stats.len()) as f64, stats.len())
}

/// Checks `forecast` (of the generator the testers played, its players'
/// `predicted` sessions) against the testers' sessions.
pub fn check(forecast: &Forecast, predicted: &[Outcome], testers: &[(String, Vec<Session>)]) -> Check {
    let rows = CHECKED
        .iter()
        .map(|name| {
            let j = NAMES.iter().position(|n| n == name).unwrap_or(0);
            let (obs, se) = observed(testers, j);
            let f = forecast.figures[j];
            let forecast_half = f.ci.map_or(0.0, |(lo, hi)| (hi - lo) / 2.0);
            let cohort = cohort_variance(predicted, j, testers.len());
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
    let calibrated = survival.map(|s| calibrated_p(s.chi2, predicted, &predicted_games, testers.len()));
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
                 (among {cohorts} cohorts of {} testers drawn from the forecast) observed_ends={:.0} expected_ends={:.1}",
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
