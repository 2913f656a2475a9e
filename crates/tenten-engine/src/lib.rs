//! The engine of Tenten Workbench: the rules of 1010!-style puzzles and the
//! paper's validator and changer (Lohanda et al. 2019, "Performance Improver
//! for Block Generator in 1010! Using AND-OR Tree"), files, self-play and
//! timing. Pure: no GUI or command-line crate, which Cargo enforces.
//!
//! Floors, each looking only down:
//! 1. `model` (board, pieces, shapes, the seeded generator), `stats`, `progress`;
//! 2. `search` (Fig. 4's validator, the trace, the tree, F and the changer);
//! 3. `danger`, `io` (RON files, batches, exports), `play` (playing: games,
//!    strategies, players, dealers, generator files);
//! 4. `study` (a run's identity, the runner, result files and merges,
//!    tuning, calibration), `fits` (players, populations and generators
//!    fitted to logs);
//! 5. `perf` (benchmarks, the throttle, the timing sweeps).

pub mod bounds;
pub mod danger;
pub mod fits;
#[cfg(test)]
mod fixtures;
pub mod io;
pub mod model;
pub mod perf;
pub mod play;
pub mod progress;
pub mod search;
pub mod stats;
pub mod study;
pub mod text;
