#![allow(dead_code)] // each test crate uses its own part of the helpers

//! The one harness the integration tests share: a plain brute-force search
//! (`brute`) for the property tests, and the window driven by egui_kittest
//! (`ui`) for the UI tests.

pub mod alloc;
pub mod brute;
pub mod cli;
pub mod numbers;
pub mod playtest;
pub mod python;
pub mod ui;
