//! Self-play: one game (`game`), the dealers, the strategies (`game`'s
//! random and greedy, `coelho`), the runner behind `tenten simulate` and the
//! generator lab, players of graded skill and fitting one to a log, and
//! random fills of boards.

pub mod coelho;
pub mod dealers;
pub mod file_dealer;
pub mod fit;
pub mod game;
pub mod generator_file;
pub mod player;
pub mod random_fill;
pub mod results;
pub mod runner;
pub mod tune;
