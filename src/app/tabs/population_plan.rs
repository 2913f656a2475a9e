//! The Population view's playtest planner: before recruiting, how many
//! testers (at so many sessions each) give a figure's interval a width, or
//! detect a difference between two of the Lab's generators (its built-ins
//! and its generator files, an adaptive one against a static one too); each
//! answer printed with its own check by simulation, as `tenten
//! plan-playtest`.

use egui::{RichText, Ui};

use tenten_engine::fits::population::forecast::NAMES;

use crate::app::jobs::job::{Background as _, progress_bar};
use crate::app::jobs::playtest_plan::Question;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;

pub struct PlanSection {
    figure: usize,
    sessions: usize,
    compare: bool,
    generator: usize,
    width: f64,
    other: usize,
    difference: f64,
    power: f64,
}

impl Default for PlanSection {
    fn default() -> Self {
        Self {
            figure: 2,
            sessions: 2,
            compare: false,
            generator: 0,
            width: 0.10,
            other: 1,
            difference: 0.05,
            power: 0.8,
        }
    }
}

/// A choice among the Lab's generators, by index.
fn generator_combo(ui: &mut Ui, id: &str, label: &str, names: &[String], at: &mut usize) {
    let l = ui.label(label);
    *at = (*at).min(names.len().saturating_sub(1));
    egui::ComboBox::from_id_salt(id)
        .selected_text(names.get(*at).map_or("none", String::as_str))
        .show_ui(ui, |ui| {
            for (i, n) in names.iter().enumerate() {
                ui.selectable_value(at, i, n);
            }
        })
        .response
        .labelled_by(l.id);
}

impl PlanSection {
    /// `fitted`: plan for the fitted population (else the demo one).
    pub fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, fitted: bool, cmds: &mut Vec<Command>) {
        ui.label(RichText::new("Plan a playtest").strong());
        ui.label(
            RichText::new(format!(
                "How many testers before you recruit: simulated cohorts of the {} population dealt the palette's pieces \
                 on the Lab's board, each answer checked at the design it names",
                if fitted { "fitted" } else { "demo" }
            ))
            .small()
            .weak(),
        );
        let choices = crate::app::jobs::lab::plannable(&state.settings.lab);
        let names: Vec<String> = choices.iter().map(|(label, _)| label.clone()).collect();
        let names = &names;
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("figure:");
            egui::ComboBox::from_id_salt("plan_figure")
                .selected_text(NAMES[self.figure])
                .show_ui(ui, |ui| {
                    for (i, n) in NAMES.iter().enumerate() {
                        ui.selectable_value(&mut self.figure, i, *n);
                    }
                })
                .response
                .labelled_by(l.id);
            let l = ui.label("sessions per tester:");
            ui.add(egui::DragValue::new(&mut self.sessions).range(1..=100))
                .labelled_by(l.id);
        });
        ui.horizontal_wrapped(|ui| {
            ui.radio_value(&mut self.compare, false, "an interval this wide");
            ui.radio_value(&mut self.compare, true, "a difference between two generators");
        });
        ui.horizontal_wrapped(|ui| {
            if self.compare {
                generator_combo(ui, "plan_a", "A:", names, &mut self.generator);
                generator_combo(ui, "plan_b", "B:", names, &mut self.other);
                let l = ui.label("difference:");
                ui.add(
                    egui::DragValue::new(&mut self.difference)
                        .range(0.001..=10.0)
                        .speed(0.005),
                )
                .labelled_by(l.id);
                let l = ui.label("power:");
                ui.add(
                    egui::DragValue::new(&mut self.power)
                        .range(0.5..=0.99)
                        .speed(0.01),
                )
                .labelled_by(l.id);
            } else {
                generator_combo(ui, "plan_g", "generator:", names, &mut self.generator);
                let l = ui.label("full width (hi - lo):");
                ui.add(
                    egui::DragValue::new(&mut self.width)
                        .range(0.001..=10.0)
                        .speed(0.005),
                )
                .labelled_by(l.id);
            }
        });
        let job = &live.playtest_plan;
        ui.horizontal(|ui| {
            if job.running() {
                if ui.button("Cancel").clicked() {
                    cmds.push(Command::CancelPlanPlaytest);
                }
                if let Some(p) = job.progress() {
                    progress_bar(ui, p);
                }
            } else if ui
                .add_enabled(!names.is_empty(), egui::Button::new("Plan"))
                .on_hover_text(
                    "Simulates cohorts at growing designs, then checks the answer: a minute for short games, longer for long ones (the bar counts sessions played)",
                )
                .clicked()
            {
                // The engine reads a file by its path, not by its label.
                let pick = |i: usize| choices.get(i).map(|(_, name)| name.clone()).unwrap_or_default();
                let question = if self.compare {
                    Question::Compare {
                        a: pick(self.generator),
                        b: pick(self.other),
                        difference: self.difference,
                        power: self.power,
                    }
                } else {
                    Question::Width {
                        generator: pick(self.generator),
                        width: self.width,
                    }
                };
                cmds.push(Command::PlanPlaytest {
                    fitted,
                    figure: NAMES[self.figure].to_owned(),
                    sessions: self.sessions,
                    question,
                });
            }
        });
        if let Some(e) = &job.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        if let Some(r) = &job.result {
            let ask = &r.request.ask;
            // A file by the Lab's label, as it was chosen.
            let label = |name: &String| {
                choices
                    .iter()
                    .find(|(_, n)| n == name)
                    .map_or(name.clone(), |(l, _)| l.clone())
            };
            let answer = match &r.request.question {
                Question::Width { generator, width } => format!(
                    "{} testers x {} sessions under {} give {} an interval about {width} wide (median of {} cohorts)",
                    r.testers,
                    ask.sessions,
                    label(generator),
                    ask.figure,
                    ask.pilots
                ),
                Question::Compare {
                    a,
                    b,
                    difference,
                    power,
                } => format!(
                    "{} testers per generator ({} sessions each) detect a difference of {difference} in {} between {} and {} with power {power}",
                    r.testers,
                    ask.sessions,
                    ask.figure,
                    label(a),
                    label(b)
                ),
            };
            ui.label(RichText::new(answer).strong());
            for line in &r.lines {
                ui.label(RichText::new(line).small().monospace());
            }
        }
    }
}
