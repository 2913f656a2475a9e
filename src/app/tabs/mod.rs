//! Inspector tabs. Adding one: a file here with a type implementing `Tab`,
//! and its line in `all`.

use egui::Ui;

use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;

mod calibration;
mod deal;
mod deals;
mod generator;
mod generator_adaptive;
mod generator_learn;
pub mod heuristic;
mod lab;
pub mod population;
mod population_live;
mod population_plan;
pub mod timing;
mod tree;

pub trait Tab {
    fn title(&self) -> &'static str;
    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>);
}

/// The tabs, in the order they are shown.
pub fn all() -> Vec<Box<dyn Tab>> {
    vec![
        Box::new(deal::DealTab),
        Box::new(tree::TreeTab::default()),
        Box::new(heuristic::HeuristicTab),
        Box::new(timing::TimingTab::default()),
        Box::new(deals::DealsTab),
        Box::new(lab::LabTab::default()),
        Box::new(population::PopulationTab::default()),
        Box::new(generator::GeneratorTab),
        Box::new(calibration::CalibrationTab::default()),
    ]
}

/// Where `all` puts the tree tab (replaying an attempt opens it).
pub const TREE_TAB: usize = 1;

/// Where `all` puts the deal browser (opening a batch shows it).
pub const DEALS_TAB: usize = 4;

/// Where `all` puts the Lab (opening a result file shows it).
pub const LAB_TAB: usize = 5;

/// Where `all` puts the Population view.
pub const POPULATION_TAB: usize = 6;

/// Where `all` puts the Generator tab (opening a generator file shows it).
pub const GENERATOR_TAB: usize = 7;

/// Where `all` puts the Calibration page.
pub const CALIBRATION_TAB: usize = 8;
