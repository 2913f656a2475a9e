//! The Calibration page: an estimator checked by simulation-based
//! calibration (`tenten calibrate`), its table (coverage with its own
//! interval, bias, RMSE, width, failures), coverage per parameter against
//! the nominal 95 %, and the zipper plot of one parameter. For
//! fit-generator, first its rates (the check's verdicts, the rules' false
//! positives and power, the shares' coverage), each with its interval and
//! its goal's verdict.

use egui::{RichText, Ui};

use tenten_engine::study::calibrate::generator::{self, Rate};
use tenten_engine::study::calibrate::summary::{self, Row};
use tenten_engine::study::calibrate::{Design, Estimator, Plan, Replication};

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
    /// fit-generator's full design (2,000-50,000 deals) rather than the
    /// window's (2,000-10,000).
    generator_full: bool,
    replications: usize,
    seed: u64,
    /// The parameter the zipper plot shows.
    zipper: String,
    /// The study file last shown: a newly opened one sets the fields to its
    /// own plan, so the page never shows one estimator's study beside
    /// another's settings.
    opened: usize,
}

impl Default for CalibrationTab {
    fn default() -> Self {
        Self {
            estimator: Estimator::FitPlayer,
            small: false,
            generator_full: false,
            replications: 60,
            seed: 1,
            zipper: String::new(),
            opened: 0,
        }
    }
}

impl CalibrationTab {
    /// The study the fields ask for.
    pub fn plan(&self) -> Plan {
        let design = match (self.estimator, self.small, self.generator_full) {
            (Estimator::FitGenerator, _, true) => Design::GENERATOR,
            (Estimator::FitGenerator, _, false) => Design::GENERATOR_SMALL,
            (_, true, _) => Design::SMALL,
            (_, false, _) => Design::DEFAULT,
        };
        let mut plan = Plan::new(self.estimator, design, self.replications, self.seed);
        if self.estimator == Estimator::Gain && self.small {
            plan.forecast_players = 500;
        }
        plan
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

fn percent(x: f64) -> String {
    if x.is_nan() {
        "none".to_owned()
    } else {
        format!("{:.1}", 100.0 * x)
    }
}

/// fit-generator's rates: count of whole, the rate with its interval, and
/// the goal's verdict where there is one.
fn generator_table(ui: &mut Ui, reps: &[Replication]) {
    let t = generator::tally(reps);
    let goals = generator::goals(&t);
    let mut figures: Vec<(String, Rate, &str)> = vec![
        (
            "check decided right".to_owned(),
            t.right,
            "the decided kind is the truth's",
        ),
        (
            "check decided wrong".to_owned(),
            t.wrong,
            "the decided kind is another",
        ),
        (
            "check undecided".to_owned(),
            t.undecided,
            "the check's verdict left open",
        ),
        (
            "rules kept without rules".to_owned(),
            t.rules_without_rules,
            "of the generators with no rule, those whose final model kept one",
        ),
    ];
    for (i, rule) in generator::RULES.iter().enumerate() {
        figures.push((
            format!("{rule} kept when absent"),
            t.false_positive[i],
            "a false positive",
        ));
    }
    for (i, rule) in generator::RULES.iter().enumerate() {
        figures.push((
            format!("{rule} kept when present"),
            t.power[i],
            "the test's power",
        ));
    }
    figures.push((
        "rules match, with a repeat chance".to_owned(),
        t.rules_match_with_repeat,
        "of the generators with a repeat chance, those whose final model keeps exactly the truth's rules",
    ));
    figures.push((
        "share coverage".to_owned(),
        t.share_coverage,
        "every share's 95 % interval that held its truth; its interval clustered by replication",
    ));
    figures.push((
        "repeat chance coverage".to_owned(),
        t.repeat_coverage,
        "the repeat chance's 95 % interval held the truth (when the final model has one)",
    ));
    // The four figures with a goal, by the name `goals` gives them.
    let goal_of = |name: &str| {
        let key = match name {
            "check decided wrong" => "check_decided_wrong",
            "rules kept without rules" => "rules_kept_without_rules",
            "rules match, with a repeat chance" => "rules_match_with_repeat",
            "share coverage" => "share_coverage",
            _ => return None,
        };
        goals.iter().find(|g| g.0 == key).map(|g| g.2)
    };
    // Four columns are wider than the inspector beside the board: they
    // scroll sideways in their own room, the goal and verdict reachable.
    crate::app::widgets::scroll::sideways(ui, "calibration_generator_scroll", |ui| {
        generator_grid(ui, &figures, &goal_of)
    });
}

/// The rates' grid: figure, rate with its interval and count, goal, verdict.
fn generator_grid(
    ui: &mut Ui,
    figures: &[(String, Rate, &str)],
    goal_of: &dyn Fn(&str) -> Option<generator::Goal>,
) {
    egui::Grid::new("calibration_generator_table")
        .striped(true)
        .num_columns(4)
        .show(ui, |ui| {
            for h in ["figure", "rate [95 % CI]", "goal", "verdict"] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for (name, r, hint) in figures {
                ui.label(name.as_str()).on_hover_text(*hint);
                ui.label(if r.of == 0 {
                    "no case yet, 0/0".to_owned()
                } else {
                    format!(
                        "{} % [{}-{}], {}/{}",
                        percent(r.rate),
                        percent(r.ci.0),
                        percent(r.ci.1),
                        r.count,
                        r.of
                    )
                });
                match goal_of(name) {
                    Some(g) => {
                        ui.label(if g.lo <= 0.0 {
                            format!("≤ {:.0} %", 100.0 * g.hi)
                        } else if g.hi >= 1.0 {
                            format!("≥ {:.0} %", 100.0 * g.lo)
                        } else {
                            format!("{:.0}-{:.0} %", 100.0 * g.lo, 100.0 * g.hi)
                        });
                        let v = g.verdict(r.ci);
                        let colour = match v.word() {
                            "met" => paint::OK,
                            "missed" => paint::BAD,
                            _ => paint::WARN,
                        };
                        ui.label(RichText::new(v.word()).color(colour).strong());
                    }
                    None => {
                        ui.label("");
                        ui.label("");
                    }
                }
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
        if job.opened_count != self.opened {
            self.opened = job.opened_count;
            if let (Some(_), Some(study)) = (&job.opened, &job.result) {
                let plan = &study.plan;
                self.estimator = plan.estimator;
                self.small = plan.design == Design::SMALL
                    || (plan.estimator == Estimator::Gain && plan.forecast_players <= 500);
                self.seed = plan.seed;
                self.replications = plan.replications.clamp(1, MAX_REPLICATIONS);
                self.generator_full = plan.design.deals_range() == Design::GENERATOR.deals_range();
            }
        }
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.label(
                "Does a 95 % interval hold its truth 95 % of the time? Each replication draws a true setting \
                 around the demo population (or, for fit-generator, a generator: a check, weights and rules), \
                 simulates what a designer would collect, runs the estimator as its command does, and compares \
                 (simulation-based calibration, as `tenten calibrate`).",
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
                    if self.estimator == Estimator::FitGenerator {
                        ui.radio_value(&mut self.generator_full, false, "logs of 2,000-10,000 deals")
                            .on_hover_text("each replication's log length drawn log-uniformly: a minute or two a replication");
                        ui.radio_value(&mut self.generator_full, true, "2,000-50,000 deals (the documented design)")
                            .on_hover_text("as `tenten calibrate --estimator fit-generator`: up to a quarter of an hour a replication");
                    } else if self.estimator == Estimator::Gain {
                        let hover = "repair's gain over random in games per session, each replication's players \
                                     under both (as `tenten adapt` reports a gain), against the truth on 10,000 \
                                     players; `tenten calibrate --estimator gain --arms A.ron,B.ron` compares files";
                        ui.radio_value(&mut self.small, false, "2,000 held-out players")
                            .on_hover_text(hover);
                        ui.radio_value(&mut self.small, true, "500 players").on_hover_text(hover);
                    } else {
                        ui.radio_value(
                            &mut self.small,
                            false,
                            "default (50 testers x 5 sessions; 300 deals)",
                        );
                        ui.radio_value(&mut self.small, true, "small (20 x 2; 100 deals)");
                    }
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
                if let Some((done, of)) = job.replications_done() {
                    ui.weak(format!("{done} of {of} replications done"));
                }
            }
            if let Some(e) = &job.error {
                ui.colored_label(paint::BAD, e);
            }
            let Some(study) = &job.result else { return };
            let rows = summary::rows(&study.replications);
            ui.separator();
            let failed = study.replications.iter().filter(|r| r.failed.is_some()).count();
            let generators = study.plan.estimator == Estimator::FitGenerator;
            let held = study.replications.len();
            let count = if held < study.plan.replications {
                format!("{held} of its {} replications", study.plan.replications)
            } else {
                format!("{held} replications")
            };
            if let Some(file) = &job.opened {
                ui.weak(format!("Opened from {file} (played by `tenten calibrate`), not run here."));
            }
            ui.label(format!(
                "{} on the {} design: {count} ({failed} failed{}), seed {}, {}, engine behaviour {}, {0} behaviour {}.",
                study.plan.estimator.name(),
                summary::design(&study.plan),
                study
                    .replications
                    .iter()
                    .find_map(|r| r.failed.as_deref())
                    .map_or(String::new(), |w| format!(", the first: {w}")),
                study.plan.seed,
                if generators {
                    let g = study.plan.generators.clone().unwrap_or_default();
                    format!(
                        "logs played by {} under generators drawn at random{}",
                        g.player,
                        g.repeat_chance
                            .map_or(String::new(), |c| format!(" (a repeat chance in {:.0} % of them)", c * 100.0))
                    )
                } else {
                    format!("testers under {}", study.plan.generator)
                },
                study.plan.engine,
                if study.plan.estimator_version.is_empty() {
                    "unrecorded"
                } else {
                    &study.plan.estimator_version
                }
            ));
            if generators {
                generator_table(ui, &study.replications);
                ui.add_space(6.0);
                ui.label(RichText::new("Per parameter").strong());
            }
            table(ui, &rows);
            ui.add_space(6.0);
            ui.label(RichText::new("Coverage per parameter").strong());
            coverage_plot(ui, &rows, held);
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
