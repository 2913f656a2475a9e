//! The egui_plot figures of the labs.

pub mod lab;
pub mod legend;
pub mod survival;
pub mod timing;
