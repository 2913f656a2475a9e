//! Small reusable pieces of drawing and input.

pub mod fields;
pub mod paint;
pub mod rows;
pub mod scroll;
