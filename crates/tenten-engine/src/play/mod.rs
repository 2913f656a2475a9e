//! Playing: one game (`game`), the strategies (`game`'s greedy, `coelho`),
//! players of graded skill (`player`) and a planner's options (`plans`), the dealers and generator files
//! (`dealers`, `generator_file`, `file_dealer`, `adaptive`: rules that read the player), a game played a placement at a time
//! from outside (`episode`), random fills of boards, and the sort of a rank
//! player's options (`rank_sort`).
//! What studies many games lives in `study`.

pub mod adaptive;
pub mod check;
pub mod coelho;
mod coelho_terms;
pub mod dealers;
pub mod dealing;
pub mod episode;
pub mod file_dealer;
pub mod game;
pub mod generator_file;
pub mod plans;
pub mod player;
pub mod random_fill;
mod rank_sort;
pub mod who;
