//! Fits: models learned from what was logged. `generator`: a generator
//! learned from the deals it dealt. (Players' and populations' fits live
//! in `study`, beside the runs they are checked against.)

pub mod generator;
