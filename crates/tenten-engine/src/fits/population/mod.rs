//! An audience, not a player: a population of players (`file`: each fitted
//! parameter a distribution over players, and a quit model), whole sessions
//! played under it (`session`), cohorts of testers' logs drawn from it
//! (`cohort`), a population fitted to many testers' logs (`fit`, its
//! churn terms when the logs want them in `churn`, its design against the
//! calibrated ones in `design`), and a
//! forecast of what a generator does to the audience (`forecast`), checked
//! against real play (`check`).

pub mod check;
pub mod churn;
pub mod cohort;
pub mod design;
pub mod file;
pub mod fit;
pub mod forecast;
pub mod quit;
pub mod session;
pub mod shard;
pub mod uncertainty;

#[cfg(test)]
mod logs_tests;
#[cfg(test)]
mod recovery_tests;
