//! Fits: models learned from what was logged, sharing likelihood
//! machinery and their tables and checks. A player fitted to a log
//! (`player`: rank choice; `player_value`: value choice; `player_check`:
//! how well it explains the moves; `compare`: which model explains them
//! best; `explain`: the comparison and checks together; `fit_player`: the
//! command as one call); an audience (`population`); a generator learned
//! from the deals it dealt (`generator`).

pub mod compare;
pub mod explain;
pub mod fit_player;
pub mod generator;
pub mod player;
pub mod player_check;
pub mod player_value;
pub mod population;

#[cfg(test)]
mod players_tests;
