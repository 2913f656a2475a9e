//! Statistics shared by self-play and timing: histograms and summaries.

pub mod histogram;
