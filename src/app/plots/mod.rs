//! The egui_plot figures of the labs.

pub mod calibration;
pub mod explain;
pub mod fit;
pub mod lab;
pub mod learned;
pub mod legend;
pub mod population;
pub mod survival;
pub mod ticks;
pub mod timing;
pub mod tune;
