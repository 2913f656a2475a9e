//! The quit model: after each game a player stops the session with chance
//! logistic(a + b·[the game ended on an unfair deal] + c·ln(rounds)),
//! rounds counted from 1 (a game lost in its first deal counts as 1).
//! The file says it in a designer's terms: `base` is the chance to stop
//! after a fair loss of one round (a = logit(base)), `unfair_odds` is
//! e^b (an unfair loss multiplies the odds of stopping), `per_log_round`
//! is c.

use serde::{Deserialize, Serialize};

/// Games a session lasts at most: a session still going then is cut off
/// (its last game is not a quit).
pub const MAX_GAMES: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quit {
    pub base: f64,
    pub unfair_odds: f64,
    pub per_log_round: f64,
}

pub fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

pub fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The covariates of one game end: intercept, unfair, ln(rounds).
pub fn covariates(unfair: bool, rounds: u32) -> [f64; 3] {
    [1.0, f64::from(u8::from(unfair)), f64::from(rounds.max(1)).ln()]
}

impl Quit {
    /// (a, b, c).
    pub fn coefficients(&self) -> [f64; 3] {
        [logit(self.base), self.unfair_odds.ln(), self.per_log_round]
    }

    pub fn from_coefficients(c: [f64; 3]) -> Self {
        Self {
            base: logistic(c[0]),
            unfair_odds: c[1].exp(),
            per_log_round: c[2],
        }
    }

    /// The chance to stop after a game of `rounds` rounds.
    pub fn chance(&self, unfair: bool, rounds: u32) -> f64 {
        let x = covariates(unfair, rounds);
        logistic(self.coefficients().iter().zip(x).map(|(a, b)| a * b).sum())
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
}
