//! A population file (`presets/populations/`): one choice model and
//! lookahead (and criteria, for rank choice), each fitted parameter a
//! distribution over players (temperature log-normal, slip logit-normal,
//! a value player's β multivariate normal), and the quit model. A model of
//! an audience, not measured people: what anchors it is the logs it was
//! fitted to (`fitted`), or the designer who wrote it.
//!
//! ```text
//! (name: "demo", choice: rank, evaluation: "10025", lookahead: piece,
//!  temperature: (median: 0.8, log_sd: 0.4), slip: (median: 0.03, logit_sd: 0.5),
//!  quit: (base: 0.2, unfair_odds: 2.5, per_log_round: -0.1))
//! ```
//!
//! A fitted population also carries `fitted`: how many testers, moves and
//! games it came from, the standard errors of its parameters (the forecast
//! draws them from their sampling distribution) and each tester's estimate
//! and shrunken estimate.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::fits::population::churn::ChurnFit;
use crate::fits::population::quit::{Quit, logistic, logit};
use crate::io::formats::{FormatError, line_col, parse_ron};
use crate::model::generator::Generator;
use crate::play::coelho::CoelhoWeights;
use crate::play::player::{Choice, Lookahead, MAX_BETA, MAX_TEMPERATURE, Player};

/// Spreads beyond this (on the log or logit scale) are refused: e^10 is a
/// factor of 22,000 between two players one spread apart.
pub const MAX_SPREAD: f64 = 10.0;

/// A log-normal distribution over players: half of them below `median`,
/// ln of the value with standard deviation `log_sd`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogNormal {
    pub median: f64,
    pub log_sd: f64,
}

/// A logit-normal distribution over players (a chance): half below
/// `median`, logit of the chance with standard deviation `logit_sd`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogitNormal {
    pub median: f64,
    pub logit_sd: f64,
}

/// A multivariate normal over value players' β: each criterion's mean and
/// standard deviation, and (optional, default none) their correlations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BetaNormal {
    /// Five numbers, one per criterion, as a player file's `beta`.
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
    /// Five rows of five.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corr: Option<Vec<Vec<f64>>>,
}

/// One tester of a fitted population: the fit of its own log and its
/// shrunken (empirical-Bayes) estimate, on the parameters' own scales:
/// [temperature, slip], or [β1..β5, slip].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tester {
    pub id: String,
    pub moves: usize,
    pub estimate: Vec<f64>,
    pub shrunk: Vec<f64>,
}

/// Where a fitted population came from and how sure it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fitted {
    pub testers: usize,
    pub moves: usize,
    pub games: usize,
    /// The testers' sessions in all (0 in files written before it was
    /// kept: the design a calibration is looked up at is then unknown).
    #[serde(default)]
    pub sessions: usize,
    /// Standard errors on the working scales: a median's of its log
    /// (temperature) or logit (slip), a spread's of itself, a β mean's and
    /// spread's of themselves (`beta1_mean`, `beta1_sd`, ...).
    pub se: BTreeMap<String, f64>,
    /// The quit model's coefficients (a, b, c) and their covariance.
    pub quit_cov: [[f64; 3]; 3],
    #[serde(default)]
    pub per_tester: Vec<Tester>,
    /// The quit model with churn terms fitted to the same decisions, and
    /// the held-out comparison that chose it or not (absent in files
    /// written before churn terms were fitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub churn: Option<ChurnFit>,
}

/// A population of players.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Population {
    pub name: String,
    #[serde(default)]
    pub choice: Choice,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub evaluation: String,
    pub lookahead: Lookahead,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<LogNormal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<BetaNormal>,
    pub slip: LogitNormal,
    pub quit: Quit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted: Option<Fitted>,
}

/// One player drawn from a population, with the standard normal draws that
/// made it (a skill score is read off them).
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    pub player: Player,
    /// Higher is more skilled: minus the mean of the standardised draws of
    /// temperature (or, for value choice, β along its mean) and slip.
    pub skill: f64,
    /// The standard normal draws of the choice's parameters: one for a
    /// temperature, five for β (before their correlation); none otherwise.
    pub z_choice: Vec<f64>,
    /// The standard normal draw of the slip.
    pub z_slip: f64,
}

/// The preset populations, built in: the demo audience, and the same with
/// the churn terms (`quit`).
pub const PRESETS: [(&str, &str); 2] = [
    (
        "demo",
        include_str!("../../../../../presets/populations/demo.ron"),
    ),
    (
        "demo-churn",
        include_str!("../../../../../presets/populations/demo-churn.ron"),
    ),
];

impl Population {
    /// Reads a population file; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Self, FormatError> {
        let raw: Population = parse_ron(text, file)?;
        raw.check().map_err(|(key, m)| {
            FormatError::new(file, text.find(&format!("{key}:")).map(|i| line_col(text, i)), m)
        })?;
        Ok(raw)
    }

    /// The rank player's criteria (the best-known weights for value choice,
    /// which does not use them).
    pub fn evaluation(&self) -> CoelhoWeights {
        CoelhoWeights::parse(&self.evaluation).unwrap_or(CoelhoWeights::BEST)
    }

    /// Its values in range, or the key at fault and why.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        match self.choice {
            Choice::Rank => {
                CoelhoWeights::parse(&self.evaluation).map_err(|_| {
                    (
                        "evaluation",
                        format!(
                            "a rank population needs evaluation: five digits, like \"10025\"; got {:?}",
                            self.evaluation
                        ),
                    )
                })?;
                let t = self.temperature.ok_or((
                    "name",
                    "a rank population needs temperature: (median: T, log_sd: S)".to_owned(),
                ))?;
                if !(t.median > 0.0 && t.median <= MAX_TEMPERATURE) {
                    return Err((
                        "temperature",
                        format!(
                            "temperature median {} must be above 0, at most {MAX_TEMPERATURE}",
                            t.median
                        ),
                    ));
                }
                spread_ok("temperature", t.log_sd)?;
                if self.beta.is_some() {
                    return Err((
                        "beta",
                        "beta is for a value population: say `choice: value`".to_owned(),
                    ));
                }
            }
            Choice::Value => {
                let b = self.beta.as_ref().ok_or((
                    "choice",
                    "a value population needs beta: (mean: [5 numbers], sd: [5 numbers])".to_owned(),
                ))?;
                if b.mean.len() != 5 || b.sd.len() != 5 {
                    return Err((
                        "beta",
                        "beta's mean and sd are five numbers each, one per criterion (free cells, 5x5 square, \
                         large pieces, alignment, surface)"
                            .to_owned(),
                    ));
                }
                if b.mean.iter().any(|m| m.is_nan() || m.abs() > MAX_BETA) {
                    return Err(("beta", format!("every beta mean is within ±{MAX_BETA}")));
                }
                // β are on the criteria's own scales (a free cell's weight
                // may be in the hundreds): their spreads are bounded as β are.
                if b.sd.iter().any(|s| s.is_nan() || *s < 0.0 || *s > MAX_BETA) {
                    return Err(("beta", format!("every beta sd is 0 to {MAX_BETA}")));
                }
                if let Some(c) = &b.corr {
                    cholesky(c).ok_or((
                        "corr",
                        "beta's corr must be a correlation matrix: symmetric, 1 on the diagonal, positive definite"
                            .to_owned(),
                    ))?;
                }
                if self.temperature.is_some() || !self.evaluation.is_empty() {
                    return Err((
                        if self.evaluation.is_empty() {
                            "temperature"
                        } else {
                            "evaluation"
                        },
                        "a value population has no temperature or evaluation: its beta carry them".to_owned(),
                    ));
                }
            }
        }
        if !(0.0..=1.0).contains(&self.slip.median) {
            return Err((
                "slip",
                format!("slip median {} is a chance, 0 to 1", self.slip.median),
            ));
        }
        spread_ok("slip", self.slip.logit_sd)?;
        if let Some(fitted) = &self.fitted {
            if let Some(churn) = &fitted.churn {
                churn.check().map_err(|e| ("churn", e))?;
            }
            let chosen = fitted.churn.as_ref().filter(|c| c.chosen);
            // A chosen model's covariance is its coefficients': the quit
            // model must be the one fitted, or its intervals are another's.
            if let Some(c) = chosen {
                let (want, have) = (c.quit(), self.quit);
                let near = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
                let same = near(want.base, have.base)
                    && near(want.unfair_odds, have.unfair_odds)
                    && near(want.per_log_round, have.per_log_round)
                    && want.churn().iter().zip(have.churn()).all(|(a, b)| near(*a, b));
                if !same {
                    return Err((
                        "quit",
                        "a fitted population whose churn terms were chosen holds the quit model its fit chose (fitted.churn.coefficients): edited, its forecasts' intervals would be another model's".to_owned(),
                    ));
                }
            }
            if self.quit.has_churn() && chosen.is_none() {
                return Err((
                    "quit",
                    "a fitted population has churn terms only where its fit chose them (fitted.churn.chosen): its forecasts' intervals would not hold them otherwise".to_owned(),
                ));
            }
        }
        self.quit.check()
    }

    /// The file's text.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .indentor("    ".to_owned())
            .extensions(ron::extensions::Extensions::IMPLICIT_SOME);
        let mut text = ron::ser::to_string_pretty(self, config).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Player `i`'s parameters, drawn from `rng`.
    pub fn draw(&self, name: &str, rng: &mut Generator) -> Drawn {
        let z_slip = rng.normal();
        let slip = if self.slip.median <= 0.0 || self.slip.median >= 1.0 {
            self.slip.median
        } else {
            logistic(logit(self.slip.median) + self.slip.logit_sd * z_slip)
        };
        let mut player = Player {
            name: name.to_owned(),
            choice: self.choice,
            evaluation: self.evaluation(),
            beta: [0.0; 5],
            lookahead: self.lookahead,
            temperature: 0.0,
            slip,
        };
        let mut zs = Vec::new();
        let z_choice = match (self.choice, &self.temperature, &self.beta) {
            (Choice::Rank, Some(t), _) => {
                let z = rng.normal();
                player.temperature = (t.median * (t.log_sd * z).exp()).min(MAX_TEMPERATURE);
                zs.push(z);
                z
            }
            (Choice::Value, _, Some(b)) => {
                let z: [f64; 5] = std::array::from_fn(|_| rng.normal());
                let l = b.corr.as_deref().and_then(cholesky).unwrap_or_else(identity);
                for (i, row) in l.iter().enumerate() {
                    let correlated: f64 = row.iter().zip(&z).take(i + 1).map(|(a, b)| a * b).sum();
                    player.beta[i] = (b.mean[i] + b.sd[i] * correlated).clamp(-MAX_BETA, MAX_BETA);
                }
                zs.extend(z);
                // Hotter is a smaller β along the mean's direction.
                let norm = b.mean.iter().map(|m| m * m).sum::<f64>().sqrt();
                if norm > 0.0 {
                    -(0..5).map(|i| b.mean[i] / norm * z[i]).sum::<f64>()
                } else {
                    0.0
                }
            }
            _ => 0.0,
        };
        Drawn {
            player,
            skill: -(z_choice + z_slip) / 2.0,
            z_choice: zs,
            z_slip,
        }
    }

    /// The population a forecast's players are drawn from: a fitted one's
    /// predictive distribution, each spread widened by its median's (or
    /// mean's) standard error, sqrt(spread² + se²), as a new player of an
    /// uncertain population varies; itself when it was not fitted.
    pub fn predictive(&self) -> Population {
        let Some(fitted) = &self.fitted else {
            return self.clone();
        };
        let widen = |sd: f64, key: &str| match fitted.se.get(key) {
            Some(se) if se.is_finite() => sd.hypot(*se).min(MAX_SPREAD),
            _ => sd,
        };
        let mut p = self.clone();
        if let Some(t) = &mut p.temperature {
            t.log_sd = widen(t.log_sd, "temperature_median");
        }
        if let Some(b) = &mut p.beta {
            for i in 0..b.sd.len().min(5) {
                b.sd[i] = widen(b.sd[i], &format!("beta{}_mean", i + 1));
            }
        }
        p.slip.logit_sd = widen(p.slip.logit_sd, "slip_median");
        p
    }

    /// The population's parameters drawn once from the fit's sampling
    /// distribution (itself when it was not fitted, or for a parameter whose
    /// standard error is unknown): a forecast's replicate.
    pub fn sampled(&self, rng: &mut Generator) -> Population {
        let Some(fitted) = &self.fitted else {
            return self.clone();
        };
        let mut p = self.clone();
        let mut jitter = |key: &str, value: f64| -> f64 {
            let z = rng.normal();
            match fitted.se.get(key) {
                Some(se) if se.is_finite() => value + se * z,
                _ => value,
            }
        };
        if let Some(t) = &mut p.temperature {
            t.median = jitter("temperature_median", t.median.ln())
                .exp()
                .min(MAX_TEMPERATURE);
            t.log_sd = jitter("temperature_log_sd", t.log_sd).abs().min(MAX_SPREAD);
        }
        if let Some(b) = &mut p.beta {
            for i in 0..5 {
                b.mean[i] = jitter(&format!("beta{}_mean", i + 1), b.mean[i]).clamp(-MAX_BETA, MAX_BETA);
                b.sd[i] = jitter(&format!("beta{}_sd", i + 1), b.sd[i])
                    .abs()
                    .min(MAX_SPREAD);
            }
        }
        if self.slip.median > 0.0 && self.slip.median < 1.0 {
            p.slip.median = logistic(jitter("slip_median", logit(self.slip.median)));
        }
        p.slip.logit_sd = jitter("slip_logit_sd", p.slip.logit_sd).abs().min(MAX_SPREAD);
        // The quit model's coefficients from their joint normal; a
        // coefficient the fit could not estimate stays where it is.
        let c = self.quit.coefficients();
        let cov = fitted.quit_cov;
        let known: Vec<usize> = (0..3)
            .filter(|&i| cov[i][i].is_finite() && cov[i][i] > 0.0)
            .collect();
        let sub: Vec<Vec<f64>> = known
            .iter()
            .map(|&i| known.iter().map(|&j| cov[i][j]).collect())
            .collect();
        if let Some(l) = cholesky_dyn(&sub) {
            let z: Vec<f64> = known.iter().map(|_| rng.normal()).collect();
            let mut drawn = c;
            for (a, &i) in known.iter().enumerate() {
                drawn[i] += (0..=a).map(|b| l[a][b] * z[b]).sum::<f64>();
            }
            // The churn terms are not fitted: they stay as written.
            let q = Quit::from_coefficients(drawn).with_churn(self.quit.churn());
            if q.check().is_ok() {
                p.quit = q;
            }
        }
        p
    }
}

fn spread_ok(key: &'static str, sd: f64) -> Result<(), (&'static str, String)> {
    if (0.0..=MAX_SPREAD).contains(&sd) {
        Ok(())
    } else {
        Err((key, format!("{key}'s spread {sd} must be 0 to {MAX_SPREAD}")))
    }
}

fn identity() -> [[f64; 5]; 5] {
    std::array::from_fn(|i| std::array::from_fn(|j| f64::from(u8::from(i == j))))
}

/// The lower Cholesky factor of a correlation matrix; `None` when it is not
/// one (not five rows of five, asymmetric, not 1 on the diagonal, not
/// positive definite).
pub(crate) fn cholesky(c: &[Vec<f64>]) -> Option<[[f64; 5]; 5]> {
    if c.len() != 5 || c.iter().any(|r| r.len() != 5) {
        return None;
    }
    for (i, row) in c.iter().enumerate() {
        let bad = |j: usize| (row[j] - c[j][i]).abs() > 1e-9 || row[j].is_nan() || row[j].abs() > 1.0;
        if (row[i] - 1.0).abs() > 1e-9 || (0..5).any(bad) {
            return None;
        }
    }
    let l = cholesky_dyn(c)?;
    Some(std::array::from_fn(|i| std::array::from_fn(|j| l[i][j])))
}

/// The lower Cholesky factor of a symmetric positive-definite matrix.
fn cholesky_dyn(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = a[i][i] - s;
                if d.is_nan() || d <= 0.0 {
                    return None;
                }
                l[i][j] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - s) / l[j][j];
            }
        }
    }
    Some(l)
}

/// Reads a population file.
pub fn load(path: &std::path::Path) -> Result<Population, FormatError> {
    let text = crate::io::formats::read_text(path)?;
    Population::parse(&text, &path.display().to_string())
}

/// A preset population by name (`demo`, `demo-churn`), or a file.
pub fn by_name(name: &str) -> Result<Population, FormatError> {
    match PRESETS.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => Population::parse(text, &format!("presets/populations/{n}.ron")),
        None => load(std::path::Path::new(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_reads_as_written_and_round_trips() {
        let demo = by_name("demo").unwrap();
        assert_eq!(demo.choice, Choice::Rank);
        assert_eq!(
            demo.temperature,
            Some(LogNormal {
                median: 0.8,
                log_sd: 0.4
            })
        );
        assert_eq!(
            demo.slip,
            LogitNormal {
                median: 0.03,
                logit_sd: 0.5
            }
        );
        assert_eq!(demo.quit.unfair_odds, 2.5);
        assert_eq!(Population::parse(&demo.to_ron(), "again.ron").unwrap(), demo);
        // Without churn terms the file writes none.
        assert!(!demo.quit.has_churn() && !demo.to_ron().contains("per_log_longer"));
        let churn = by_name("demo-churn").unwrap();
        assert_eq!(churn.quit.churn(), [0.4, 0.8, 0.6, 0.05]);
        assert_eq!(churn.quit.coefficients(), demo.quit.coefficients());
        assert_eq!(Population::parse(&churn.to_ron(), "again.ron").unwrap(), churn);
        let bad = churn
            .to_ron()
            .replace("per_log_longer: 0.8", "per_log_longer: 500.0");
        let e = Population::parse(&bad, "bad.ron").unwrap_err();
        assert!(e.message.contains("per_log_longer"), "{e}");
    }

    #[test]
    fn bad_values_are_refused_at_their_key() {
        let text = include_str!("../../../../../presets/populations/demo.ron");
        for (from, to, key) in [
            ("log_sd: 0.4", "log_sd: -1", "temperature"),
            ("median: 0.03", "median: 1.5", "slip"),
            ("base: 0.2", "base: 0", "base"),
            ("unfair_odds: 2.5", "unfair_odds: -2", "unfair_odds"),
            ("\"10025\"", "\"100\"", "evaluation"),
        ] {
            let bad = text.replace(from, to);
            let e = Population::parse(&bad, "p.ron").unwrap_err();
            let at = e.at.expect("a place");
            assert!(
                bad.lines().nth(at.0 - 1).unwrap().contains(&format!("{key}:")),
                "{e}"
            );
        }
        assert!(Population::parse("(name: \"x\")", "p.ron").is_err());
        // A value population's β spreads are on the β's scales.
        let value = "(name: \"v\", choice: value, lookahead: piece, beta: (mean: [90, 0, 0, 12, 1], sd: [80, 0, 0, 6, 0.5]),\n slip: (median: 0.03, logit_sd: 0.5), quit: (base: 0.2, unfair_odds: 2.5, per_log_round: -0.1))";
        assert!(Population::parse(&value.replace("12, 1]", "12]"), "v.ron").is_err());
        let v = Population::parse(value, "v.ron").unwrap();
        let drawn = v.draw("p", &mut Generator::new(1));
        assert_eq!(drawn.player.choice, Choice::Value);
        assert!(Population::parse(&value.replace("sd: [80", "sd: [-1"), "v.ron").is_err());
    }

    #[test]
    fn draws_follow_the_distributions() {
        let demo = by_name("demo").unwrap();
        let mut rng = Generator::new(9);
        let drawn: Vec<Drawn> = (0..4000).map(|i| demo.draw(&i.to_string(), &mut rng)).collect();
        let mut ln_t: Vec<f64> = drawn.iter().map(|d| d.player.temperature.ln()).collect();
        ln_t.sort_by(f64::total_cmp);
        assert!((ln_t[2000].exp() - 0.8).abs() < 0.03, "{}", ln_t[2000].exp());
        let mean = ln_t.iter().sum::<f64>() / 4000.0;
        let sd = (ln_t.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3999.0).sqrt();
        assert!((sd - 0.4).abs() < 0.02, "{sd}");
        let mut slips: Vec<f64> = drawn.iter().map(|d| d.player.slip).collect();
        slips.sort_by(f64::total_cmp);
        assert!((slips[2000] - 0.03).abs() < 0.003, "{}", slips[2000]);
        // The coolest, steadiest players score highest.
        let best = drawn.iter().max_by(|a, b| a.skill.total_cmp(&b.skill)).unwrap();
        assert!(
            best.player.temperature < 0.8 && best.player.slip < 0.03,
            "{best:?}"
        );
    }
}
