//! Adaptive dealing: a generator file's `adaptive` rules read the player
//! (this session's games and how the last one ended, measured against the
//! player's own typical length) and the game (its round, the board's fill,
//! the dry rounds, the exact danger of the next deal), and move levers: a
//! tilt of the weights toward small or large pieces and the check's
//! strength. The first rule whose conditions all hold is in force; none:
//! the file deals as it would without the section.
//!
//! ```ron
//! adaptive: Some((rules: [
//!     (when: [after_unfair], tilt: -1.0, check: Some(repair(policy: deepest, redraws: 64))),
//!     (when: [last_longer(2.0)], tilt: 0.5),
//! ])),
//! ```
//!
//! What the player did reaches the dealer as a `History`, which the game
//! reports (a game ended, how long, whether on an unfair deal; a session
//! began): simulated sessions, the `Episode` (the Python environment), the
//! playtest server and the C library's dealer all keep one, so the same
//! seed and the same games deal the same holders everywhere.

use serde::{Deserialize, Serialize};

use crate::model::pieces::PieceSet;
use crate::play::check::Check;

/// The largest tilt: e^(5·z) already moves a piece two standard deviations
/// from the mean size by a factor of e^10.
pub const MAX_TILT: f64 = 5.0;
/// The most rules a policy holds (each may keep its own weights per band).
pub const MAX_RULES: usize = 32;
/// The most conditions a rule holds.
pub const MAX_CONDITIONS: usize = 16;

/// One condition on the player or the game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// No game has ended yet this session.
    FirstGame,
    /// The session's last game ended on an unfair deal.
    AfterUnfair,
    /// At least n of the session's last games in a row ended unfairly.
    UnfairInRow(u32),
    /// The last game lasted fewer rounds than this times the player's
    /// typical game (the geometric mean of their earlier games).
    LastShorter(f64),
    /// The last game lasted more rounds than this times the typical game.
    LastLonger(f64),
    /// At least n games ended this session.
    SessionGames(u32),
    /// This game has reached round n (the first deal is round 1).
    Round(u32),
    /// This game's round is past this times the player's typical game
    /// (every game they finished, the last included; none before their
    /// first).
    RoundPastTypical(f64),
    /// The board is more than this fraction full.
    FillAbove(f64),
    /// At least n rounds in a row cleared no line.
    DryRounds(u32),
    /// The chance that a holder drawn from the weights in force is
    /// unsolvable on this board (`danger`'s exact figure) exceeds this.
    DangerAbove(f64),
}

/// A rule: when every condition holds, its levers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub when: Vec<When>,
    /// Each weight times e^(tilt·z), z the piece's size in cells
    /// standardised over the set's base weights: below 0 toward small
    /// pieces, above 0 toward large ones.
    #[serde(default)]
    pub tilt: f64,
    /// The check in force instead of the file's (not a bag: a bag's order
    /// spans rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
}

/// The `adaptive` section of a generator file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adaptive {
    pub rules: Vec<Rule>,
}

/// How one game ended, as the game reports it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ended {
    pub rounds: u32,
    pub unfair: bool,
}

/// What a policy (and the quit model) reads of the player, kept by whoever
/// deals to them (`new_session` carries the typical game into the next
/// session). A game joins it when it ends, or when the player leaves it
/// part way (`Episode::leave`, as a log reads a left game).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// Games ended this session.
    pub session_games: u32,
    /// This session's last games in a row that ended on an unfair deal.
    pub unfair_in_row: u32,
    /// This session's last game.
    pub last: Option<Ended>,
    /// The player's games before `last`, in every session, and their
    /// ln(rounds) summed: the typical game is e^(mean). Written as its bits,
    /// so a journal read back deals exactly as before (a decimal can come
    /// back a unit in the last place off).
    pub earlier_games: u64,
    #[serde(with = "bits")]
    pub earlier_log_rounds: f64,
}

/// An f64 kept as its bits.
mod bits {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(x.to_bits())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        u64::deserialize(d).map(f64::from_bits)
    }
}

/// The most games `History::parse` reads: a player's history is a few
/// numbers however long it is, but a typed list should not run forever.
pub const MAX_PARSED_GAMES: usize = 100_000;

impl History {
    /// The history of the games written as `12u,40,3|20`: each game's
    /// rounds in order, `u` after an unfair one, `|` where a new session
    /// began (the games after it are that session's). Empty text: no game.
    pub fn parse(text: &str) -> Result<History, String> {
        let mut h = History::default();
        let mut games = 0usize;
        for (s, session) in text.trim().split('|').enumerate() {
            if s > 0 {
                h.new_session();
            }
            for game in session.split(',').map(str::trim).filter(|g| !g.is_empty()) {
                games += 1;
                if games > MAX_PARSED_GAMES {
                    return Err(format!("more than {MAX_PARSED_GAMES} games"));
                }
                let (digits, unfair) = match game.strip_suffix(['u', 'U']) {
                    Some(d) => (d, true),
                    None => (game, false),
                };
                let rounds: u32 = digits.parse().ok().filter(|&r| r >= 1).ok_or_else(|| {
                    let shown: String = game.chars().take(40).collect();
                    let game = if shown.len() < game.len() { format!("{shown}...") } else { shown };
                    format!(
                        "game {games} is {game:?}: a game is its rounds (1 to {}), with u after an unfair one",
                        u32::MAX
                    )
                })?;
                h.ended(rounds, unfair);
            }
        }
        Ok(h)
    }

    /// A game ended after `rounds` rounds (a game lost in its first deal
    /// counts as 1), on an unfair deal or not.
    pub fn ended(&mut self, rounds: u32, unfair: bool) {
        self.fold_last();
        self.last = Some(Ended {
            rounds: rounds.max(1),
            unfair,
        });
        self.session_games = self.session_games.saturating_add(1);
        self.unfair_in_row = if unfair {
            self.unfair_in_row.saturating_add(1)
        } else {
            0
        };
    }

    /// A new session begins: the last game joins the player's typical
    /// length, and the session's counts start again.
    pub fn new_session(&mut self) {
        self.fold_last();
        self.session_games = 0;
        self.unfair_in_row = 0;
    }

    fn fold_last(&mut self) {
        if let Some(l) = self.last.take() {
            self.earlier_games = self.earlier_games.saturating_add(1);
            self.earlier_log_rounds += f64::from(l.rounds.max(1)).ln();
        }
    }

    /// The mean ln(rounds) of every game the player finished, when there is
    /// one.
    pub fn typical_log(&self) -> Option<f64> {
        let (n, sum) = match self.last {
            Some(l) => (
                self.earlier_games + 1,
                self.earlier_log_rounds + f64::from(l.rounds.max(1)).ln(),
            ),
            None => (self.earlier_games, self.earlier_log_rounds),
        };
        (n > 0).then(|| sum / n as f64)
    }

    /// ln(last game's rounds / the player's typical game), when there is a
    /// last game and an earlier one to compare it with.
    pub fn log_ratio(&self) -> Option<f64> {
        let last = self.last?;
        (self.earlier_games > 0)
            .then(|| f64::from(last.rounds.max(1)).ln() - self.earlier_log_rounds / self.earlier_games as f64)
    }
}

/// What a condition reads inside a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Now {
    /// The round about to be dealt, from 1.
    pub round: u32,
    pub fill: f64,
    pub dry_rounds: u32,
}

impl When {
    /// Whether it holds; `danger` is asked only by `DangerAbove`.
    pub fn holds(&self, history: &History, now: &Now, danger: &mut dyn FnMut() -> f64) -> bool {
        let ratio = || history.log_ratio();
        match *self {
            When::FirstGame => history.session_games == 0,
            When::AfterUnfair => history.session_games > 0 && history.last.is_some_and(|l| l.unfair),
            When::UnfairInRow(n) => history.unfair_in_row >= n,
            When::LastShorter(r) => history.session_games > 0 && ratio().is_some_and(|x| x < r.ln()),
            When::LastLonger(r) => history.session_games > 0 && ratio().is_some_and(|x| x > r.ln()),
            When::SessionGames(n) => history.session_games >= n,
            When::Round(n) => now.round >= n,
            When::RoundPastTypical(r) => history
                .typical_log()
                .is_some_and(|t| f64::from(now.round.max(1)).ln() > r.ln() + t),
            When::FillAbove(f) => now.fill > f,
            When::DryRounds(n) => now.dry_rounds >= n,
            When::DangerAbove(d) => danger() > d,
        }
    }

    /// Whether it needs the board's exact danger (a search per deal).
    pub fn reads_danger(&self) -> bool {
        matches!(self, When::DangerAbove(_))
    }

    /// Its values in range, or why not.
    fn check(&self) -> Result<(), String> {
        let fraction = |what: &str, x: f64| {
            if (0.0..=1.0).contains(&x) {
                Ok(())
            } else {
                Err(format!("{what} is {x}; it is a fraction, 0 to 1"))
            }
        };
        match *self {
            When::LastShorter(r) | When::LastLonger(r) | When::RoundPastTypical(r)
                if !(r > 0.0 && r <= 1000.0) =>
            {
                Err(format!(
                    "a length ratio of {r}; it is above 0 and at most 1000 (1: the player's typical game)"
                ))
            }
            When::FillAbove(f) => fraction("fill_above", f),
            When::DangerAbove(d) => fraction("danger_above", d),
            _ => Ok(()),
        }
    }
}

impl Adaptive {
    /// The rule in force, if any.
    pub fn rule_at(&self, history: &History, now: &Now, danger: &mut dyn FnMut() -> f64) -> Option<usize> {
        self.rules
            .iter()
            .position(|r| r.when.iter().all(|w| w.holds(history, now, danger)))
    }

    /// Every rule in range, or the rule at fault and why.
    pub fn check(&self) -> Result<(), String> {
        if self.rules.len() > MAX_RULES {
            return Err(format!(
                "adaptive: {} rules; a policy holds at most {MAX_RULES}",
                self.rules.len()
            ));
        }
        for (i, r) in self.rules.iter().enumerate() {
            let at = |m: String| format!("adaptive: rule {i}: {m}");
            if r.tilt.is_nan() || r.tilt.abs() > MAX_TILT {
                return Err(at(format!("tilt {} is -{MAX_TILT} to {MAX_TILT}", r.tilt)));
            }
            if r.check == Some(Check::Bag) {
                return Err(at(
                    "a rule's check is repair, reject or none; a bag deals whole bags across rounds"
                        .to_owned(),
                ));
            }
            if let Some(c) = &r.check {
                c.check().map_err(at)?;
            }
            if r.when.len() > MAX_CONDITIONS {
                return Err(at(format!(
                    "{} conditions; a rule holds at most {MAX_CONDITIONS}",
                    r.when.len()
                )));
            }
            for w in &r.when {
                w.check().map_err(at)?;
            }
        }
        Ok(())
    }

    /// Whether any rule needs the board's exact danger.
    pub fn reads_danger(&self) -> bool {
        self.rules.iter().any(|r| r.when.iter().any(When::reads_danger))
    }
}

/// Each piece's size standardised over the set's base weights (0 for a set
/// of one size).
pub fn size_scores(set: &PieceSet) -> Vec<f64> {
    let total = set.total_weight().max(1) as f64;
    let cells: Vec<f64> = set.pieces.iter().map(|p| p.size() as f64).collect();
    let weight = |i: usize| f64::from(set.pieces[i].weight) / total;
    let mean: f64 = (0..cells.len()).map(|i| weight(i) * cells[i]).sum();
    let var: f64 = (0..cells.len())
        .map(|i| weight(i) * (cells[i] - mean).powi(2))
        .sum();
    let sd = var.sqrt();
    cells
        .iter()
        .map(|c| if sd > 0.0 { (c - mean) / sd } else { 0.0 })
        .collect()
}

/// `weights` tilted by `tilt` along `scores`.
pub fn tilted(weights: &[f64], scores: &[f64], tilt: f64) -> Vec<f64> {
    if tilt == 0.0 {
        return weights.to_vec();
    }
    // Shifted by the largest exponent among dealt pieces: the ratios are
    // the same, and no factor overflows on a skewed set.
    let top = weights
        .iter()
        .zip(scores)
        .filter(|(w, _)| **w > 0.0)
        .map(|(_, z)| tilt * z)
        .fold(f64::NEG_INFINITY, f64::max);
    let top = if top.is_finite() { top } else { 0.0 };
    weights
        .iter()
        .zip(scores)
        .map(|(w, z)| w * (tilt * z - top).exp())
        .collect()
}

#[cfg(test)]
#[path = "adaptive_tests.rs"]
mod tests;
