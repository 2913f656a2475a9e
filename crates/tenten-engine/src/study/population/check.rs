//! A forecast checked against real play: the logs of testers who played
//! under one of the forecast's generators. Observed against predicted
//! survival (Kaplan-Meier, the log-rank test), and each `reach_r` and
//! games per session observed against the forecast's interval widened by
//! the cohort's own sampling noise (a cohort of 60 testers is not the
//! whole audience): the observed figure's standard error comes from the
//! spread between testers (each figure is a ratio of sums over sessions,
//! its variance the cluster ratio estimator's, by tester).

use crate::stats::logrank::{LogRank, log_rank};
use crate::study::population::forecast::{Forecast, NAMES, Outcome, ratio_parts};
use crate::study::population::session::Session;

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

/// Figure `j` of the testers' sessions and its standard error (the ratio
/// estimator's, clustered by tester); NaN with nothing to divide by.
fn observed(testers: &[(String, Vec<Session>)], j: usize) -> (f64, f64) {
    let sums: Vec<(f64, f64)> = testers
        .iter()
        .map(|(_, ss)| {
            ss.iter()
                .map(|s| ratio_parts(s)[j])
                .fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1))
        })
        .collect();
    let (a, n): (f64, f64) = sums.iter().fold((0.0, 0.0), |s, p| (s.0 + p.0, s.1 + p.1));
    if n <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let r = a / n;
    let m = sums.len() as f64;
    let se = if m > 1.0 {
        (m / (m - 1.0) * sums.iter().map(|(ai, ni)| (ai - r * ni).powi(2)).sum::<f64>()).sqrt() / n
    } else {
        f64::INFINITY
    };
    (r, se)
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
            let half = (forecast_half.powi(2) + (1.96 * se).powi(2)).sqrt();
            let interval = (f.value - half, f.value + half);
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
    Check {
        generator: forecast.generator.clone(),
        testers: testers.len(),
        sessions: testers.iter().map(|t| t.1.len()).sum(),
        games: observed_games.len(),
        survival: log_rank(&observed_games, &predicted_games),
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
        out.push(match &self.survival {
            Some(s) => format!(
                "check generator={} survival: log-rank chi2={:.3} p={:.4} observed_ends={:.0} expected_ends={:.1} ({})",
                self.generator,
                s.chi2,
                s.p,
                s.observed,
                s.expected,
                if s.p < 0.05 {
                    "the observed games differ from the forecast's"
                } else {
                    "no difference shown"
                }
            ),
            None => format!("check generator={} survival: nothing to test (no ended games)", self.generator),
        });
        out.push(format!(
            "verdict: {} of {} figures inside their intervals; survival {} (testers={} sessions={} games={})",
            self.inside(),
            self.rows.len(),
            match &self.survival {
                Some(s) if s.p >= 0.05 => format!("agrees (log-rank p={:.3})", s.p),
                Some(s) => format!("differs (log-rank p={:.3})", s.p),
                None => "untested".to_owned(),
            },
            self.testers,
            self.sessions,
            self.games
        ));
        out
    }
}
