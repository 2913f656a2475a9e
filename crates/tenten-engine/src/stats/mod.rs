//! Statistics shared by self-play and timing: histograms, and the intervals,
//! tests and survival estimates every comparison uses.

pub mod divergence;
pub mod golden;
pub mod histogram;
pub mod inference;
pub mod logistic;
pub mod logrank;
pub mod meta;
pub mod survival;
