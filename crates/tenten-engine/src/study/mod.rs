//! Studying play: many games per (player, generator) and their figures
//! (`runner`), a run's result file and the exact merge of its shards
//! (`results`), a generator tuned to targets (`tune`), and a player fitted
//! to a log (`fit`: rank choice; `fit_value`: value choice; `fit_check`: how
//! well it explains the moves; `compare`: which model explains them best).

pub mod calibrate;
pub mod compare;
pub mod difference;
pub mod explain;
pub mod fit;
pub mod fit_check;
pub mod fit_player;
pub mod fit_value;
pub mod plan;
pub mod population;
pub mod results;
pub mod runner;
pub mod tune;
pub mod tune_goal;
pub mod tune_run;
pub mod tune_verdict;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod players_tests;
