//! Tenten Workbench: design, debug and teach the block generators of
//! 1010!-style puzzles (Lohanda et al. 2019, "Performance Improver for Block
//! Generator in 1010! Using AND-OR Tree").

#[cfg(feature = "gui")]
pub mod app;
pub mod cli;
