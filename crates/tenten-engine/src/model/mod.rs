//! The rules: board bits, pieces, placement shapes, the seeded weighted generator.

pub mod board;
pub mod generator;
pub mod pieces;
pub mod shapes;
