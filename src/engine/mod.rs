//! The pure model: rules, pieces, generator, the paper's validator and
//! changer, file formats, benchmark and self-play. No GUI types here.

pub mod batch;
pub mod batch_file;
pub mod bench;
pub mod bench_selfplay;
pub mod board;
pub mod changer;
pub mod coelho;
pub mod danger;
pub mod dealers;
pub mod explain;
pub mod export;
pub mod formats;
pub mod generator;
pub mod heuristic;
pub mod histogram;
pub mod lab;
pub mod pieces;
pub mod progress;
pub mod selfplay;
pub mod shapes;
pub mod simulation;
pub mod throttle;
pub mod timing;
pub mod trace;
pub mod tree;
pub mod validator;
