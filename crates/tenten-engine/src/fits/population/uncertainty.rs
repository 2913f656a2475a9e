//! How sure a forecast from a fitted population is: the delta method,
//! Var f(θ̂) ≈ g'Σg, with Σ the fit's covariance of its parameters and g
//! the gradient of a figure in them, measured on the forecast's own players
//! by the score function (likelihood-ratio) method: ∂E[Y]/∂θ = E[Y·S],
//! S the score of what θ decides in a player (its standard normal draws of
//! temperature or β and slip, and its quit decisions). The gradient needs
//! no second simulation and no difference of two noisy variances (the
//! replicates it replaces estimated the fit's share as between − within,
//! which came out 0 in 8 of 13 cohorts). Each estimated gᵢ carries noise;
//! E[ĝ'Σĝ] = g'Σg + tr(Σ Cov ĝ), so that trace is taken off.
//!
//! Players are drawn from the fit's predictive population
//! (`Population::predictive`): a spread s' = sqrt(σ² + se²) keeps the
//! location's score z/s' defined where a fitted spread is 0.

use crate::fits::population::file::{Drawn, Population, cholesky};
use crate::fits::population::quit::{churn_covariates, covariates, logit};
use crate::fits::population::session::Session;
use crate::play::player::Choice;

/// The fit's parameters a forecast's uncertainty is carried over, their
/// covariance on the working scales, and how to read a player's score.
#[derive(Clone, Debug, PartialEq)]
pub struct Uncertainty {
    pub keys: Vec<String>,
    pub cov: Vec<Vec<f64>>,
}

/// The location parameters whose errors correlate through the testers who
/// measured them both, with their index in a tester's estimate.
fn locations(population: &Population) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    match population.choice {
        Choice::Rank if population.temperature.is_some() => out.push(("temperature_median".into(), 0)),
        Choice::Value => {
            let se = population.fitted.as_ref().map(|f| &f.se);
            let mut j = 0;
            for i in 1..=5 {
                let key = format!("beta{i}_mean");
                if se.is_some_and(|s| s.contains_key(&key)) {
                    out.push((key, j));
                    j += 1;
                }
            }
        }
        Choice::Rank => {}
    }
    let next = out.len();
    out.push(("slip_median".into(), next));
    out
}

/// A tester's estimate on its working scale: ln of a temperature, logit of
/// a slip, β as it is.
fn working(key: &str, x: f64) -> f64 {
    if key == "temperature_median" {
        x.ln()
    } else if key == "slip_median" {
        logit(x)
    } else {
        x
    }
}

/// The correlation of two columns over the testers where both are finite;
/// 0 with fewer than three.
fn correlation(pairs: &[(f64, f64)]) -> f64 {
    let pairs: Vec<(f64, f64)> = pairs
        .iter()
        .copied()
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .collect();
    let n = pairs.len() as f64;
    if pairs.len() < 3 {
        return 0.0;
    }
    let (ma, mb) = pairs
        .iter()
        .fold((0.0, 0.0), |s, p| (s.0 + p.0 / n, s.1 + p.1 / n));
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (a, b) in &pairs {
        sab += (a - ma) * (b - mb);
        saa += (a - ma).powi(2);
        sbb += (b - mb).powi(2);
    }
    let r = sab / (saa * sbb).sqrt();
    if r.is_finite() { r.clamp(-1.0, 1.0) } else { 0.0 }
}

/// The quit model's coefficients: a, b, c, then the churn terms.
const QUIT_KEYS: [&str; 7] = [
    "quit_a",
    "quit_b",
    "quit_c",
    "quit_per_unfair_in_row",
    "quit_per_log_longer",
    "quit_per_log_shorter",
    "quit_per_session_game",
];

/// The covariance of the quit model the population holds: the seven
/// terms' where its fit chose the churn terms, else the three's.
fn quit_cov(fitted: &crate::fits::population::file::Fitted) -> Vec<Vec<f64>> {
    match &fitted.churn {
        Some(c) if c.chosen => c.cov.clone(),
        _ => fitted.quit_cov.iter().map(|r| r.to_vec()).collect(),
    }
}

impl Uncertainty {
    /// The fit's uncertainty; `None` for a population that was not fitted.
    /// The location parameters' errors correlate as their testers'
    /// estimates do (each mean is a weighted mean of those estimates); the
    /// spreads' are taken as independent.
    pub fn of(population: &Population) -> Option<Uncertainty> {
        let fitted = population.fitted.as_ref()?;
        let mut keys: Vec<String> = fitted
            .se
            .iter()
            .filter(|(_, se)| se.is_finite() && **se > 0.0)
            .map(|(k, _)| k.clone())
            .collect();
        let quit_cov = quit_cov(fitted);
        let quit: Vec<usize> = (0..quit_cov.len().min(QUIT_KEYS.len()))
            .filter(|&i| quit_cov[i][i].is_finite() && quit_cov[i][i] > 0.0)
            .collect();
        keys.extend(quit.iter().map(|&i| QUIT_KEYS[i].to_owned()));
        let n = keys.len();
        let mut cov = vec![vec![0.0; n]; n];
        let se = |k: &str| fitted.se.get(k).copied().unwrap_or(0.0);
        let place = |k: &str| keys.iter().position(|x| x == k);
        for (i, k) in keys.iter().enumerate() {
            if let Some(q) = QUIT_KEYS.iter().position(|x| x == k) {
                for (j, l) in keys.iter().enumerate() {
                    if let Some(r) = QUIT_KEYS.iter().position(|x| x == l) {
                        cov[i][j] = quit_cov[q][r];
                    }
                }
            } else {
                cov[i][i] = se(k).powi(2);
            }
        }
        let loc = locations(population);
        for (a, (ka, ia)) in loc.iter().enumerate() {
            for (kb, ib) in &loc[a + 1..] {
                let (Some(i), Some(j)) = (place(ka), place(kb)) else {
                    continue;
                };
                let pairs: Vec<(f64, f64)> = fitted
                    .per_tester
                    .iter()
                    .filter_map(|t| {
                        Some((
                            working(ka, *t.estimate.get(*ia)?),
                            working(kb, *t.estimate.get(*ib)?),
                        ))
                    })
                    .collect();
                let c = correlation(&pairs) * se(ka) * se(kb);
                cov[i][j] = c;
                cov[j][i] = c;
            }
        }
        Some(Uncertainty { keys, cov })
    }

    /// A player's score in each key: the derivative of the log density of
    /// what it drew and decided, in the fit's parameters (`fitted`, on
    /// their working scales), at the predictive population it was drawn
    /// from (`predictive`).
    pub fn score(
        &self,
        fitted: &Population,
        predictive: &Population,
        drawn: &Drawn,
        session: &Session,
    ) -> Vec<f64> {
        // ∂/∂m and ∂/∂σ of ln N(x; m, s'), s' = sqrt(σ² + se²), at z.
        let location = |z: f64, s: f64| if s > 0.0 { z / s } else { 0.0 };
        let spread = |z: f64, s: f64, sigma: f64| {
            if s > 0.0 {
                (z * z - 1.0) / s * (sigma / s)
            } else {
                0.0
            }
        };
        let beta_means: Option<Vec<f64>> = match (&fitted.beta, &predictive.beta) {
            (Some(_), Some(b)) if drawn.z_choice.len() == 5 => {
                Some(match b.corr.as_deref().and_then(cholesky) {
                    // Σ⁻¹(x − μ) = D⁻¹ L⁻ᵀ z: solve Lᵀu = z.
                    Some(l) => {
                        let mut u = [0.0; 5];
                        for i in (0..5).rev() {
                            let s: f64 = (i + 1..5).map(|k| l[k][i] * u[k]).sum();
                            u[i] = (drawn.z_choice[i] - s) / l[i][i];
                        }
                        (0..5).map(|i| location(u[i], b.sd[i])).collect()
                    }
                    None => (0..5).map(|i| location(drawn.z_choice[i], b.sd[i])).collect(),
                })
            }
            _ => None,
        };
        let quit = quit_score(fitted, session);
        let slip_free = fitted.slip.median > 0.0 && fitted.slip.median < 1.0;
        self.keys
            .iter()
            .map(|k| {
                let z0 = drawn.z_choice.first().copied().unwrap_or(0.0);
                match k.as_str() {
                    "temperature_median" => predictive.temperature.map_or(0.0, |t| location(z0, t.log_sd)),
                    "temperature_log_sd" => match (fitted.temperature, predictive.temperature) {
                        (Some(t), Some(p)) => spread(z0, p.log_sd, t.log_sd),
                        _ => 0.0,
                    },
                    "slip_median" if slip_free => location(drawn.z_slip, predictive.slip.logit_sd),
                    "slip_logit_sd" if slip_free => {
                        spread(drawn.z_slip, predictive.slip.logit_sd, fitted.slip.logit_sd)
                    }
                    other => match QUIT_KEYS.iter().position(|q| *q == other) {
                        Some(q) => quit[q],
                        None => beta_score(other, fitted, predictive, drawn, beta_means.as_deref(), spread),
                    },
                }
            })
            .collect()
    }

    /// The fit's share of a ratio figure's variance, Σa/Σn over players:
    /// each player's influence Y = (a − R n)/n̄ times its score estimates
    /// the gradient, g'Σg less the noise's trace; 0 when not positive.
    pub fn variance(&self, parts: &[(f64, f64)], scores: &[&[f64]]) -> f64 {
        let m = parts.len();
        let k = self.keys.len();
        if m < 2 || k == 0 || scores.len() != m || scores.iter().any(|s| s.len() != k) {
            return 0.0;
        }
        let (a, n) = parts.iter().fold((0.0, 0.0), |s, p| (s.0 + p.0, s.1 + p.1));
        if n <= 0.0 {
            return 0.0;
        }
        let r = a / n;
        let nbar = n / m as f64;
        let w: Vec<Vec<f64>> = parts
            .iter()
            .zip(scores)
            .map(|(p, s)| {
                let y = (p.0 - r * p.1) / nbar;
                s.iter().map(|x| y * x).collect()
            })
            .collect();
        let mf = m as f64;
        let g: Vec<f64> = (0..k).map(|j| w.iter().map(|x| x[j]).sum::<f64>() / mf).collect();
        let mut quad = 0.0;
        let mut trace = 0.0;
        for i in 0..k {
            for j in 0..k {
                let c = self.cov[i][j];
                if c == 0.0 {
                    continue;
                }
                quad += g[i] * c * g[j];
                let cij = w.iter().map(|x| (x[i] - g[i]) * (x[j] - g[j])).sum::<f64>() / (mf - 1.0) / mf;
                trace += c * cij;
            }
        }
        let v = quad - trace;
        if v.is_finite() { v.max(0.0) } else { 0.0 }
    }
}

/// A β's score: its mean's (`means`, already through the correlation) or,
/// without correlations, its spread's.
fn beta_score(
    key: &str,
    fitted: &Population,
    predictive: &Population,
    drawn: &Drawn,
    means: Option<&[f64]>,
    spread: impl Fn(f64, f64, f64) -> f64,
) -> f64 {
    let Some(rest) = key.strip_prefix("beta") else {
        return 0.0;
    };
    let (Some(i), Some(means), Some(b), Some(p)) = (
        rest.chars()
            .next()
            .and_then(|c| c.to_digit(10))
            .map(|d| d as usize),
        means,
        &fitted.beta,
        &predictive.beta,
    ) else {
        return 0.0;
    };
    if !(1..=5).contains(&i) {
        return 0.0;
    }
    if rest.ends_with("_mean") {
        means[i - 1]
    } else if rest.ends_with("_sd") && p.corr.is_none() {
        spread(drawn.z_choice[i - 1], p.sd[i - 1], b.sd[i - 1])
    } else {
        0.0
    }
}

/// The score of a session's quit decisions in the quit model's
/// coefficients (a, b, c, then the churn terms): Σ (stopped − chance) ·
/// covariates, one decision after every game (a session cut off at its
/// last game decided to go on).
pub fn quit_score(population: &Population, session: &Session) -> [f64; 7] {
    let mut s = [0.0; 7];
    let last = session.games.len().saturating_sub(1);
    // The churn terms read the session so far, as the session was played.
    let mut history = crate::play::adaptive::History::default();
    for (j, g) in session.games.iter().enumerate() {
        let unfair = g.end == crate::play::game::End::Unfair;
        history.ended(g.rounds, unfair);
        let p = population.quit.chance_after(&history);
        let stopped = f64::from(u8::from(session.quit && j == last));
        let x = covariates(unfair, g.rounds)
            .into_iter()
            .chain(churn_covariates(&history));
        for (si, x) in s.iter_mut().zip(x) {
            *si += (stopped - p) * x;
        }
    }
    s
}

#[cfg(test)]
#[path = "uncertainty_tests.rs"]
mod tests;
