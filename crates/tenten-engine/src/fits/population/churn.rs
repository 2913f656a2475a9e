//! The churn terms fitted from the testers' logs, and whether the logs
//! want them. The quit model of three terms (base, unfair odds, log
//! rounds) and the model of seven (with `quit::CHURN_TERMS`: unfair losses
//! in a row, a game longer or shorter than the player's typical one, games
//! already played this session) are both fitted to every quit decision, and
//! compared by their likelihood on testers each was not fitted to: the
//! testers split into `FOLDS` folds (a tester's every decision in one fold,
//! since a tester's decisions are not independent), each fold scored by
//! the models fitted to the others. The difference is summed over testers
//! and its standard error taken from the testers' own differences.
//!
//! The population takes the seven only when they predict held-out testers
//! better by more than 1.96 standard errors; otherwise it keeps the three
//! (the smaller model unless the logs say otherwise) and the seven are
//! kept beside it, so every claim can be checked under each.
//!
//! A tester's history (`adaptive::History`) runs across their sessions in
//! the log's order, as the playtest server and the cohort keep it: the
//! typical game is the geometric mean of all their earlier games, and the
//! session's counts start again with each session.

use serde::{Deserialize, Serialize};

use crate::fits::population::quit::{Quit, churn_covariates, covariates};
use crate::fits::population::session::Session;
use crate::play::adaptive::History;
use crate::play::game::End;
use crate::stats::logistic;

/// The held-out comparison's folds (fewer when there are fewer testers).
pub const FOLDS: usize = 5;

/// The quit model's columns: a, b, c, then the churn terms.
pub const COLUMNS: usize = 7;

/// The seven-term quit model fitted to the logs, and how it compares with
/// the three-term one on held-out testers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChurnFit {
    /// a, b, c, then `quit::CHURN_TERMS`, fitted to every tester.
    pub coefficients: Vec<f64>,
    /// Their covariance (infinite where a column never varies).
    pub cov: Vec<Vec<f64>>,
    /// The folds the testers were split into (0: fewer than two testers
    /// made a quit decision, and nothing was compared).
    pub folds: usize,
    /// The quit decisions' log-likelihood on held-out testers, summed: the
    /// three-term model's and the seven-term model's.
    pub heldout_basic: f64,
    pub heldout_churn: f64,
    /// The standard error of `heldout_churn - heldout_basic`.
    pub heldout_se: f64,
    /// Whether the population's quit model holds the churn terms.
    pub chosen: bool,
}

impl ChurnFit {
    /// The seven-term model's gain in held-out log-likelihood.
    pub fn heldout_gain(&self) -> f64 {
        self.heldout_churn - self.heldout_basic
    }

    /// The seven-term quit model as fitted.
    pub fn quit(&self) -> Quit {
        let c = &self.coefficients;
        Quit::from_coefficients([c[0], c[1], c[2]]).with_churn([c[3], c[4], c[5], c[6]])
    }

    /// A churn term's estimate and 95 % interval (Wald), by its index in
    /// `quit::CHURN_TERMS`.
    pub fn term(&self, j: usize) -> (f64, f64, f64) {
        let x = self.coefficients[3 + j];
        let (lo, hi) = crate::fits::population::quit::wald(x, self.cov[3 + j][3 + j]);
        (x, lo, hi)
    }

    /// The comparison and the terms in words, for the window.
    pub fn words(&self) -> String {
        let verdict = if self.folds == 0 {
            "not compared (fewer than two testers made a quit decision): kept out".to_owned()
        } else {
            format!(
                "{} by held-out testers ({:+.1} ± {:.1} in log-likelihood over {} folds)",
                if self.chosen { "chosen" } else { "not chosen" },
                self.heldout_gain(),
                self.heldout_se,
                self.folds
            )
        };
        let names = [
            "unfair in a row",
            "longer than typical",
            "shorter than typical",
            "per session game",
        ];
        let terms: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(j, name)| {
                let (x, lo, hi) = self.term(j);
                format!("{name} {x:+.2} [{lo:+.2}, {hi:+.2}]")
            })
            .collect();
        format!("churn terms {verdict}; fitted: {}", terms.join(", "))
    }

    /// Its values in range and shape, or why not.
    pub fn check(&self) -> Result<(), String> {
        let square = self.cov.len() == COLUMNS && self.cov.iter().all(|r| r.len() == COLUMNS);
        if self.coefficients.len() != COLUMNS || !square {
            return Err(format!(
                "churn holds {COLUMNS} coefficients and a {COLUMNS}x{COLUMNS} covariance; it has {} and {} rows",
                self.coefficients.len(),
                self.cov.len()
            ));
        }
        if self.coefficients.iter().any(|c| !c.is_finite()) || self.cov.iter().flatten().any(|c| c.is_nan()) {
            return Err("churn's coefficients are numbers and its covariance has no NaN".to_owned());
        }
        for i in 0..COLUMNS {
            if self.cov[i][i].is_nan() || self.cov[i][i] < 0.0 {
                return Err(format!(
                    "churn's covariance has variance {} in column {i}: at least 0",
                    self.cov[i][i]
                ));
            }
            for j in 0..i {
                let (a, b) = (self.cov[i][j], self.cov[j][i]);
                let apart = a.is_infinite() != b.is_infinite()
                    || (a.is_finite() && (a - b).abs() > 1e-9 * a.abs().max(b.abs()).max(1e-300));
                if apart {
                    return Err(format!(
                        "churn's covariance is not symmetric at ({i}, {j}): {a} and {b}"
                    ));
                }
            }
        }
        let compared = self.heldout_basic.is_finite() && self.heldout_churn.is_finite();
        if self.folds > FOLDS || self.heldout_se.is_nan() || self.heldout_se < 0.0 || !compared {
            return Err(format!(
                "churn's comparison: folds 0 to {FOLDS}, heldout_se at least 0, held-out log-likelihoods numbers; got folds {}, heldout_se {}",
                self.folds, self.heldout_se
            ));
        }
        Ok(())
    }
}

/// One tester's quit decisions with all seven covariates: after every game
/// that ended (lost or capped), whether the player stopped; a session's
/// last game is no decision when the session was cut off.
pub fn tester_rows(sessions: &[Session]) -> Vec<(Vec<f64>, bool)> {
    let mut rows = Vec::new();
    let mut history = History::default();
    for (i, s) in sessions.iter().enumerate() {
        if i > 0 {
            history.new_session();
        }
        let n = s.games.len();
        for (g, game) in s.games.iter().enumerate() {
            let unfair = game.end == End::Unfair;
            history.ended(game.rounds, unfair);
            let last = g + 1 == n;
            if last && !s.quit {
                continue;
            }
            let mut x = covariates(unfair, game.rounds).to_vec();
            x.extend(churn_covariates(&history));
            rows.push((x, last && s.quit));
        }
    }
    rows
}

/// The log-likelihood of `rows` under `coefficients` (over the rows'
/// first `coefficients.len()` columns); chances kept off 0 and 1 so that a
/// held-out decision the fit called impossible costs much, not infinitely.
fn loglik(rows: &[(Vec<f64>, bool)], coefficients: &[f64]) -> f64 {
    rows.iter()
        .map(|(x, y)| {
            let eta: f64 = x.iter().zip(coefficients).map(|(a, b)| a * b).sum();
            let p = (1.0 / (1.0 + (-eta).exp())).clamp(1e-12, 1.0 - 1e-12);
            if *y { p.ln() } else { (1.0 - p).ln() }
        })
        .sum()
}

/// The rows cut to the three-term model's columns.
pub fn basic(rows: &[(Vec<f64>, bool)]) -> Vec<(Vec<f64>, bool)> {
    rows.iter().map(|(x, y)| (x[..3].to_vec(), *y)).collect()
}

/// Fits the seven-term model to the testers' rows (one entry per tester,
/// from `tester_rows`) and compares it with the three-term model on
/// held-out testers. `None` when there is no quit decision at all.
pub fn fit(testers: &[Vec<(Vec<f64>, bool)>]) -> Option<ChurnFit> {
    let all: Vec<(Vec<f64>, bool)> = testers.iter().flatten().cloned().collect();
    let whole = logistic::fit(&all)?;
    let with_rows: Vec<&Vec<(Vec<f64>, bool)>> = testers.iter().filter(|t| !t.is_empty()).collect();
    let folds = FOLDS.min(with_rows.len());
    let mut out = ChurnFit {
        coefficients: whole.coefficients,
        cov: whole.covariance,
        folds: 0,
        heldout_basic: 0.0,
        heldout_churn: 0.0,
        heldout_se: f64::INFINITY,
        chosen: false,
    };
    if folds < 2 {
        return Some(out);
    }
    let mut gains = Vec::with_capacity(with_rows.len());
    for f in 0..folds {
        let train: Vec<(Vec<f64>, bool)> = with_rows
            .iter()
            .enumerate()
            .filter(|(i, _)| i % folds != f)
            .flat_map(|(_, t)| t.iter().cloned())
            .collect();
        let (Some(seven), Some(three)) = (logistic::fit(&train), logistic::fit(&basic(&train))) else {
            continue;
        };
        for (_, rows) in with_rows.iter().enumerate().filter(|(i, _)| i % folds == f) {
            let (b, c) = (
                loglik(rows, &three.coefficients),
                loglik(rows, &seven.coefficients),
            );
            out.heldout_basic += b;
            out.heldout_churn += c;
            gains.push(c - b);
        }
    }
    let n = gains.len() as f64;
    let mean = gains.iter().sum::<f64>() / n;
    let var = gains.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0);
    out.folds = folds;
    out.heldout_se = (n * var).sqrt();
    out.chosen = out.heldout_se.is_finite() && out.heldout_gain() > 1.96 * out.heldout_se;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fits::population::session::Played;
    use crate::model::generator::Generator;

    /// Sessions played under `quit`, game lengths drawn around the player's
    /// own typical length, some losses unfair.
    fn sessions(quit: &Quit, sessions: usize, rng: &mut Generator) -> Vec<Session> {
        let mut history = History::default();
        let typical = 5.0 + 40.0 * rng.unit();
        (0..sessions)
            .map(|i| {
                if i > 0 {
                    history.new_session();
                }
                let mut games = Vec::new();
                loop {
                    let rounds = (typical * (2.0 * rng.unit() - 1.0).exp()).round().max(1.0) as u32;
                    let end = if rng.unit() < 0.3 { End::Unfair } else { End::Stuck };
                    history.ended(rounds, end == End::Unfair);
                    games.push(Played { rounds, end });
                    if rng.unit() < quit.chance_after(&history) {
                        return Session { games, quit: true };
                    }
                    if games.len() == 100 {
                        return Session { games, quit: false };
                    }
                }
            })
            .collect()
    }

    fn quit() -> Quit {
        Quit {
            base: 0.15,
            unfair_odds: 2.0,
            per_log_round: -0.1,
            ..Quit::from_coefficients([0.0; 3])
        }
    }

    /// The rows' covariates by hand for one tester's two sessions.
    #[test]
    fn a_testers_rows_read_their_history_across_sessions() {
        let s = |games: &[(u32, End)], quit| Session {
            games: games
                .iter()
                .map(|&(rounds, end)| Played { rounds, end })
                .collect(),
            quit,
        };
        let rows = tester_rows(&[
            s(&[(10, End::Unfair), (40, End::Unfair)], true),
            s(&[(5, End::Stuck), (20, End::Censored)], false),
        ]);
        // The cut-off session's last game is no decision.
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].0, vec![1.0, 1.0, 10f64.ln(), 0.0, 0.0, 0.0, 0.0]);
        assert!(!rows[0].1 && rows[1].1 && !rows[2].1);
        // Second unfair loss in a row, 4 times the typical 10, one game before.
        let r = &rows[1].0;
        assert_eq!(r[3], 1.0);
        assert!((r[4] - 4f64.ln()).abs() < 1e-12 && r[5] == 0.0 && r[6] == 1.0);
        // A new session: its counts start again, the typical (20) is kept.
        let r = &rows[2].0;
        assert_eq!((r[1], r[3], r[6]), (0.0, 0.0, 0.0));
        assert!((r[5] - 4f64.ln()).abs() < 1e-12 && r[4] == 0.0);
    }

    /// Logs drawn under churn terms: the seven-term model wins on held-out
    /// testers and its intervals hold the truth; drawn without them, the
    /// three-term model is kept.
    #[test]
    fn the_logs_choose_the_churn_terms_only_when_they_hold_them() {
        let mut rng = Generator::new(11);
        let truth = quit().with_churn([0.5, 1.2, 0.9, 0.04]);
        let testers: Vec<_> = (0..300)
            .map(|_| tester_rows(&sessions(&truth, 4, &mut rng)))
            .collect();
        let churned = fit(&testers).unwrap();
        assert!(churned.check().is_ok());
        assert!(churned.chosen && churned.folds == FOLDS, "{churned:?}");
        let want: Vec<f64> = truth.coefficients().into_iter().chain(truth.churn()).collect();
        for (j, w) in want.iter().enumerate() {
            let se = churned.cov[j][j].sqrt();
            let got = churned.coefficients[j];
            assert!(
                (got - w).abs() < 3.5 * se,
                "column {j}: {got} against {w} (se {se})"
            );
        }

        let plain: Vec<_> = (0..300)
            .map(|_| tester_rows(&sessions(&quit(), 4, &mut rng)))
            .collect();
        let kept = fit(&plain).unwrap();
        assert!(!kept.chosen, "{kept:?}");
        // Terms that are not there gain held-out testers nothing to speak of.
        assert!(kept.heldout_gain().abs() < 3.0 * kept.heldout_se, "{kept:?}");
        assert!(kept.heldout_se.is_finite() && kept.heldout_se > 0.0);
    }

    /// Every input gives an answer: no tester, one tester, no decision.
    #[test]
    fn small_inputs_compare_nothing_and_choose_nothing() {
        assert!(fit(&[]).is_none());
        assert!(fit(&[Vec::new(), Vec::new()]).is_none());
        let mut rng = Generator::new(3);
        let one = vec![tester_rows(&sessions(&quit(), 3, &mut rng))];
        let f = fit(&one).unwrap();
        assert_eq!(f.folds, 0);
        assert!(!f.chosen && f.heldout_se.is_infinite());
        let two = vec![one[0].clone(), tester_rows(&sessions(&quit(), 3, &mut rng))];
        let f = fit(&two).unwrap();
        assert_eq!(f.folds, 2);
        assert!(f.heldout_basic.is_finite() && f.heldout_churn.is_finite());
    }
}
