//! The Calibration page: an estimator checked by simulation-based
//! calibration (`tenten calibrate`), its table (coverage with its own
//! interval, bias, RMSE, width, failures), coverage per parameter against
//! the nominal 95 %, and the zipper plot of one parameter.

use egui::{RichText, Ui};

use tenten_engine::study::calibrate::summary::{self, Row};
use tenten_engine::study::calibrate::{Design, Estimator, Plan};

use super::Tab;
use crate::app::jobs::job::{Background as _, progress_bar};
use crate::app::plots::calibration::{coverage_plot, zipper_plot};
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

/// The most replications the page runs (the CLI shards more).
pub const MAX_REPLICATIONS: usize = 2_000;

pub struct CalibrationTab {
    estimator: Estimator,
    small: bool,
    replications: usize,
    seed: u64,
    /// The parameter the zipper plot shows.
    zipper: String,
}

impl Default for CalibrationTab {
    fn default() -> Self {
        Self {
            estimator: Estimator::FitPlayer,
            small: false,
            replications: 60,
            seed: 1,
            zipper: String::new(),
        }
    }
}

impl CalibrationTab {
    /// The study the fields ask for.
    pub fn plan(&self) -> Plan {
        let design = if self.small {
            Design::SMALL
        } else {
            Design::DEFAULT
        };
        Plan::new(self.estimator, design, self.replications, self.seed)
    }
}

fn figure(x: f64) -> String {
    if x.is_nan() {
        "none".to_owned()
    } else if x.is_infinite() {
        "open".to_owned()
    } else {
        format!("{x:.4}")
    }
}

fn table(ui: &mut Ui, rows: &[Row]) {
    egui::Grid::new("calibration_table")
        .striped(true)
        .num_columns(6)
        .show(ui, |ui| {
            for h in [
                "parameter",
                "coverage [95 % CI]",
                "bias ± MCSE",
                "RMSE",
                "width",
                "calibrated",
            ] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for r in rows {
                ui.label(&r.parameter);
                ui.label(if r.with_interval == 0 {
                    "no interval".to_owned()
                } else {
                    format!(
                        "{:.1} % [{:.1}-{:.1}], {}/{}",
                        100.0 * r.coverage,
                        100.0 * r.coverage_ci.0,
                        100.0 * r.coverage_ci.1,
                        r.covered,
                        r.with_interval
                    )
                });
                ui.label(format!("{} ± {}", figure(r.bias), figure(r.bias_mcse)));
                ui.label(figure(r.rmse));
                ui.label(figure(r.width))
                    .on_hover_text("the median width of the 95 % intervals");
                let (word, colour) = match r.calibrated() {
                    "yes" => ("yes", paint::OK),
                    "no" => ("no", paint::BAD),
                    "unclear" => ("unclear", paint::WARN),
                    _ => ("no interval", ui.visuals().weak_text_color()),
                };
                ui.label(RichText::new(word).color(colour).strong());
                ui.end_row();
            }
        });
}

impl Tab for CalibrationTab {
    fn title(&self) -> &'static str {
        "Calibration"
    }

    fn ui(&mut self, ui: &mut Ui, _state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let job = &live.calibration;
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.label(
                "Does a 95 % interval hold its truth 95 % of the time? Each replication draws a true setting \
                 around the demo population, simulates what a designer would collect, runs the estimator as \
                 its command does, and compares (simulation-based calibration, as `tenten calibrate`).",
            );
            ui.add_enabled_ui(!job.running(), |ui| {
                ui.horizontal_wrapped(|ui| {
                    let label = ui.label("Estimator");
                    egui::ComboBox::from_id_salt("calibration_estimator")
                        .selected_text(self.estimator.name())
                        .show_ui(ui, |ui| {
                            for name in Estimator::NAMES {
                                if let Ok(e) = Estimator::parse(name) {
                                    ui.selectable_value(&mut self.estimator, e, name);
                                }
                            }
                        })
                        .response
                        .labelled_by(label.id);
                    ui.label("Design");
                    ui.radio_value(
                        &mut self.small,
                        false,
                        "default (50 testers x 5 sessions; 300 deals)",
                    );
                    ui.radio_value(&mut self.small, true, "small (20 x 2; 100 deals)");
                });
                ui.horizontal_wrapped(|ui| {
                    let label = ui.label("Replications");
                    ui.add(egui::DragValue::new(&mut self.replications).range(1..=MAX_REPLICATIONS))
                        .labelled_by(label.id);
                    let label = ui.label("Seed");
                    ui.add(egui::DragValue::new(&mut self.seed)).labelled_by(label.id);
                });
            });
            ui.horizontal(|ui| {
                if ui
                    .add_enabled(!job.running(), egui::Button::new("Run the study"))
                    .clicked()
                {
                    cmds.push(Command::StartCalibration(Box::new(self.plan())));
                }
                if job.running() && ui.button("Cancel study").clicked() {
                    cmds.push(Command::CancelCalibration);
                }
            });
            if let Some(p) = job.progress() {
                progress_bar(ui, p);
            }
            if let Some(e) = &job.error {
                ui.colored_label(paint::BAD, e);
            }
            let Some(study) = &job.result else { return };
            let rows = summary::rows(&study.replications);
            ui.separator();
            let failed = study.replications.iter().filter(|r| r.failed.is_some()).count();
            ui.label(format!(
                "{} on the {} design: {} replications ({failed} failed{}), seed {}, testers under {}, engine behaviour {}.",
                study.plan.estimator.name(),
                summary::design(&study.plan),
                study.plan.replications,
                study
                    .replications
                    .iter()
                    .find_map(|r| r.failed.as_deref())
                    .map_or(String::new(), |w| format!(", the first: {w}")),
                study.plan.seed,
                study.plan.generator,
                study.plan.engine
            ));
            table(ui, &rows);
            ui.add_space(6.0);
            ui.label(RichText::new("Coverage per parameter").strong());
            coverage_plot(ui, &rows, study.plan.replications);
            let with: Vec<&Row> = rows.iter().filter(|r| r.with_interval > 0).collect();
            if with.is_empty() {
                return;
            }
            if !with.iter().any(|r| r.parameter == self.zipper) {
                self.zipper = with[0].parameter.clone();
            }
            ui.add_space(6.0);
            ui.horizontal(|ui| {
                let label = ui.label(RichText::new("Zipper plot of").strong());
                egui::ComboBox::from_id_salt("calibration_zipper_parameter")
                    .selected_text(&self.zipper)
                    .show_ui(ui, |ui| {
                        for r in &with {
                            ui.selectable_value(&mut self.zipper, r.parameter.clone(), &r.parameter);
                        }
                    })
                    .response
                    .labelled_by(label.id);
            });
            zipper_plot(ui, &self.zipper, &study.replications);
        });
    }
}
