//! Studying play: many games per (player, generator) and their figures
//! (`runner`), an adaptive generator optimised against an audience (`adapt`), a run's result file and the exact merge of its shards
//! (`results`), a generator tuned to targets (`tune`), and whether the
//! intervals cover (`calibrate`). Fits to logs are in `fits`.

pub mod adapt;
pub mod arms;
pub mod calibrate;
pub mod difference;
pub mod plan;
pub mod results;
pub mod runner;
pub mod tune;
pub mod tune_goal;
pub mod tune_plan;
pub mod tune_run;
pub mod tune_scout;
pub mod tune_verdict;

#[cfg(test)]
mod golden_tests;
