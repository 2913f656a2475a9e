//! Work off the UI thread: one job type (`job`) and the jobs built on it.
//! Each starts on a named thread, streams its results, shows progress with
//! an ETA, stops when cancelled (the engine's inner loops read the flag) and
//! ends when its channel disconnects.

pub mod calibration;
pub mod danger;
pub mod explain;
pub mod fit;
pub mod job;
pub mod judge;
pub mod lab;
pub mod learn;
pub mod playtest_live;
pub mod playtest_plan;
pub mod population;
pub mod repair;
pub mod timing;
pub mod tune;

pub use job::{Job, Watch, progress_bar};
