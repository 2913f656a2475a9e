//! The quit model: after each game a player stops the session with chance
//! logistic(a + b·[the game ended on an unfair deal] + c·ln(rounds)),
//! rounds counted from 1 (a game lost in its first deal counts as 1).
//! The file says it in a designer's terms: `base` is the chance to stop
//! after a fair loss of one round (a = logit(base)), `unfair_odds` is
//! e^b (an unfair loss multiplies the odds of stopping), `per_log_round`
//! is c.
//!
//! Four terms more say what the adaptive dealers' anchors found (Xue et al.
//! 2017, Li et al. 2021): easy can be too easy. Each is 0 unless written,
//! so a file without them is the model above.
//! - `per_unfair_in_row`: log-odds per unfair loss in a row beyond the first;
//! - `per_log_longer`: log-odds per unit of ln(rounds / the player's
//!   typical game) when the game was longer than typical (boredom);
//! - `per_log_shorter`: the same when it was shorter (frustration);
//! - `per_session_game`: log-odds per game already played this session.
//!
//! The typical game is the geometric mean of the player's earlier games
//! (`adaptive::History`); before a second game there is none and the two
//! length terms are 0.

use serde::{Deserialize, Serialize};

use crate::play::adaptive::History;

/// Games a session lasts at most: a session still going then is cut off
/// (its last game is not a quit).
pub const MAX_GAMES: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quit {
    pub base: f64,
    pub unfair_odds: f64,
    pub per_log_round: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub per_unfair_in_row: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub per_log_longer: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub per_log_shorter: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub per_session_game: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The churn terms beyond the three: their names, as written.
pub const CHURN_TERMS: [&str; 4] = [
    "per_unfair_in_row",
    "per_log_longer",
    "per_log_shorter",
    "per_session_game",
];

/// The covariates of the churn terms after the game `history` ends with.
pub fn churn_covariates(history: &History) -> [f64; 4] {
    let ratio = history.log_ratio().unwrap_or(0.0);
    [
        f64::from(history.unfair_in_row.saturating_sub(1)),
        ratio.max(0.0),
        (-ratio).max(0.0),
        f64::from(history.session_games.saturating_sub(1)),
    ]
}

pub fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

pub fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The covariates of one game end: intercept, unfair, ln(rounds).
/// A coefficient's 95 % Wald interval from its estimate and variance (the
/// quit model's and the churn terms' alike).
pub fn wald(x: f64, variance: f64) -> (f64, f64) {
    let se = variance.sqrt();
    (x - 1.96 * se, x + 1.96 * se)
}

pub fn covariates(unfair: bool, rounds: u32) -> [f64; 3] {
    [1.0, f64::from(u8::from(unfair)), f64::from(rounds.max(1)).ln()]
}

impl Quit {
    /// (a, b, c).
    pub fn coefficients(&self) -> [f64; 3] {
        [logit(self.base), self.unfair_odds.ln(), self.per_log_round]
    }

    /// The three from (a, b, c), with no churn terms.
    pub fn from_coefficients(c: [f64; 3]) -> Self {
        Self {
            base: logistic(c[0]),
            unfair_odds: c[1].exp(),
            per_log_round: c[2],
            per_unfair_in_row: 0.0,
            per_log_longer: 0.0,
            per_log_shorter: 0.0,
            per_session_game: 0.0,
        }
    }

    /// The churn terms' coefficients, in `CHURN_TERMS`' order.
    pub fn churn(&self) -> [f64; 4] {
        [
            self.per_unfair_in_row,
            self.per_log_longer,
            self.per_log_shorter,
            self.per_session_game,
        ]
    }

    /// The same with the churn terms `c`.
    pub fn with_churn(self, c: [f64; 4]) -> Self {
        Self {
            per_unfair_in_row: c[0],
            per_log_longer: c[1],
            per_log_shorter: c[2],
            per_session_game: c[3],
            ..self
        }
    }

    /// Whether any churn term is in the model.
    pub fn has_churn(&self) -> bool {
        self.churn().iter().any(|&c| c != 0.0)
    }

    /// The chance to stop after a game of `rounds` rounds, the churn terms
    /// read as after a session's first game.
    pub fn chance(&self, unfair: bool, rounds: u32) -> f64 {
        let mut first = History::default();
        first.ended(rounds, unfair);
        self.chance_after(&first)
    }

    /// The chance to stop after the game `history` ends with.
    pub fn chance_after(&self, history: &History) -> f64 {
        let last = history.last.unwrap_or(crate::play::adaptive::Ended {
            rounds: 1,
            unfair: false,
        });
        let x = covariates(last.unfair, last.rounds);
        let basic: f64 = self.coefficients().iter().zip(x).map(|(a, b)| a * b).sum();
        let churn: f64 = self
            .churn()
            .iter()
            .zip(churn_covariates(history))
            .map(|(a, b)| a * b)
            .sum();
        logistic(basic + churn)
    }

    /// Its values in range, or the key at fault and why.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.base.is_nan() || self.base <= 0.0 || self.base >= 1.0 {
            return Err((
                "base",
                format!("quit base {} is a chance strictly between 0 and 1", self.base),
            ));
        }
        if self.unfair_odds.is_nan() || self.unfair_odds <= 0.0 || self.unfair_odds > 1e6 {
            return Err((
                "unfair_odds",
                format!(
                    "quit unfair_odds {} multiplies odds: above 0, at most 1000000 (1: an unfair loss counts as a fair one)",
                    self.unfair_odds
                ),
            ));
        }
        for (key, c) in CHURN_TERMS.iter().zip(self.churn()) {
            if c.is_nan() || c.abs() > 100.0 {
                return Err((key, format!("quit {key} {c} must be between -100 and 100")));
            }
        }
        if self.per_log_round.is_nan() || self.per_log_round.abs() > 100.0 {
            return Err((
                "per_log_round",
                format!(
                    "quit per_log_round {} must be between -100 and 100",
                    self.per_log_round
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_is_the_chance_after_a_fair_loss_of_one_round() {
        let q = Quit {
            base: 0.2,
            unfair_odds: 2.5,
            per_log_round: -0.1,
            ..Quit::from_coefficients([0.0; 3])
        };
        assert!((q.chance(false, 1) - 0.2).abs() < 1e-12);
        assert!((q.chance(false, 0) - 0.2).abs() < 1e-12);
        let odds = |p: f64| p / (1.0 - p);
        assert!((odds(q.chance(true, 40)) / odds(q.chance(false, 40)) - 2.5).abs() < 1e-9);
        assert!(q.chance(false, 100) < q.chance(false, 10));
        let back = Quit::from_coefficients(q.coefficients());
        assert!((back.base - 0.2).abs() < 1e-12 && (back.unfair_odds - 2.5).abs() < 1e-12);
        assert!(q.check().is_ok());
        assert!(Quit { base: 1.0, ..q }.check().is_err());
        assert!(
            Quit {
                unfair_odds: 0.0,
                ..q
            }
            .check()
            .is_err()
        );
        assert!(
            Quit {
                per_log_round: f64::NAN,
                ..q
            }
            .check()
            .is_err()
        );
    }

    /// Each churn term against its plain formula.
    #[test]
    fn the_churn_terms_add_their_log_odds() {
        let q = Quit {
            base: 0.2,
            unfair_odds: 2.5,
            per_log_round: -0.1,
            ..Quit::from_coefficients([0.0; 3])
        }
        .with_churn([0.4, 0.8, 0.6, 0.05]);
        assert!(q.has_churn() && q.check().is_ok());
        let mut h = History::default();
        h.ended(10, true);
        // A session's first game: the churn terms read 0.
        assert!((q.chance_after(&h) - q.with_churn([0.0; 4]).chance(true, 10)).abs() < 1e-12);
        h.ended(40, true);
        // Second unfair loss in a row, 4 times the typical (10), 1 game before.
        let x = logit(0.2) + 2.5f64.ln() - 0.1 * 40f64.ln() + 0.4 * 1.0 + 0.8 * 4f64.ln() + 0.05 * 1.0;
        assert!((q.chance_after(&h) - logistic(x)).abs() < 1e-12);
        h.ended(5, false);
        // Shorter than typical (the geometric mean of 10 and 40, 20): frustration.
        let x = logit(0.2) - 0.1 * 5f64.ln() + 0.6 * 4f64.ln() + 0.05 * 2.0;
        assert!((q.chance_after(&h) - logistic(x)).abs() < 1e-12);
        assert!(q.with_churn([0.0, 101.0, 0.0, 0.0]).check().is_err());
    }
}
