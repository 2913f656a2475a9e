//! The Generator tab's Learn section: a generator learned from the open
//! log or a folder of logs (`tenten fit-generator` on a job), its check
//! with its verdict and the smoking gun, the learned weights with their
//! intervals beside the palette's (what deals here), the model table, and the learned file
//! opened as the active generator or compared in the Lab on the same seeds.

use egui::{RichText, Ui};

use tenten_engine::fits::generator::Learned;
use tenten_engine::fits::generator::likelihood::Check;

use crate::app::jobs::job::Background as _;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

/// The section, under the rules (or under the start page without a file).
pub fn learn_section(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    let job = &live.learn;
    ui.separator();
    ui.label(RichText::new("Learn a generator from its deals").strong());
    ui.label(
        "What did a game really deal? Every check (none, reject, repair under each policy, a bag) is fitted to the deals by exact likelihood, then repeat_previous, fill bands and mercy are tested.",
    );
    ui.horizontal_wrapped(|ui| {
        let log = state
            .doc
            .batch
            .as_ref()
            .map(|b| crate::app::shell::files::file_name(&b.source.path));
        let from_log = ui
            .add_enabled(
                log.is_some() && !job.running(),
                egui::Button::new(match &log {
                    Some(name) => format!("Learn from {name}"),
                    None => "Learn from the open log".to_owned(),
                }),
            )
            .on_hover_text("The deals of the open log (a batch or JSON Lines log; moves optional)");
        if from_log.clicked() {
            cmds.push(Command::LearnGenerator);
        }
        if ui
            .add_enabled(!job.running(), egui::Button::new("Learn from a folder…"))
            .on_hover_text("A playtest's or a cohort's folder of logs")
            .clicked()
        {
            cmds.push(Command::PickLearnFolder);
        }
        if job.running() && ui.button("Cancel").clicked() {
            cmds.push(Command::CancelLearn);
        }
    });
    if let Some(p) = job.progress() {
        crate::app::jobs::progress_bar(ui, p);
    }
    if let Some(e) = &job.error {
        ui.colored_label(paint::BAD, e);
    }
    let Some((source, learned)) = &job.result else {
        return;
    };
    summary(ui, source, learned);
    if let Some(best) = &learned.best {
        let set = &state.doc.set;
        // What deals here: the palette's weights (the active generator
        // carries none of its own: it deals the palette's).
        let palette = normalised(set.pieces.iter().map(|p| f64::from(p.weight)).collect());
        let name = match state.doc.generator_title() {
            Some(g) => format!("the palette's weights, which \"{g}\" deals"),
            None => "the palette's weights".to_owned(),
        };
        if best.weights[0].len() == set.pieces.len() {
            crate::app::plots::learned::learned_plot(
                ui,
                set,
                &best.weights[0],
                &best.intervals[0],
                &palette,
                &name,
            );
            if best.weights.len() > 1 {
                ui.weak(format!(
                    "The plot shows the first of {} sets of weights (one per fill band or mercy state); the file writes them all.",
                    best.weights.len()
                ));
            }
        }
    }
    table(ui, learned);
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Open as the generator")
            .on_hover_text("Make the learned generator the active one (untitled: Save asks where)")
            .clicked()
        {
            cmds.push(Command::OpenLearned);
        }
        if ui
            .button("Compare in the Lab")
            .on_hover_text(
                "Add the learned generator to the Lab's generators, played on the same seeds as the others",
            )
            .clicked()
        {
            cmds.push(Command::LearnedToLab);
        }
        if ui.button("Save learned file…").clicked() {
            cmds.push(Command::SaveText {
                title: "Save the learned generator",
                name: "learned.ron",
                text: learned.text.clone(),
            });
        }
    });
}

fn normalised(w: Vec<f64>) -> Vec<f64> {
    let t: f64 = w.iter().sum();
    w.into_iter().map(|x| x / t.max(1e-300)).collect()
}

fn summary(ui: &mut Ui, source: &str, l: &Learned) {
    let check = if l.bag_best {
        "a bag".to_owned()
    } else {
        match l.best.as_ref().map(|b| b.rules.check) {
            Some(Check::Reject) => "reject (redraw the holder until solvable)".to_owned(),
            Some(Check::Repair { policy, .. }) => format!("the paper's repair ({policy} policy)"),
            _ => "none (holders dealt as drawn)".to_owned(),
        }
    };
    ui.label(
        RichText::new(format!(
            "{} deals ({} games) of {source}: check {check}",
            l.deals, l.games
        ))
        .strong(),
    );
    let v = &l.verdict;
    let verdict = if v.z.is_nan() {
        // A bag is decided by BIC.
        format!(
            "{}: the bag's BIC against the best check's ({}), log-likelihood {:.2} apart.",
            if l.decided { "Decided" } else { "Undecided" },
            l.runner_up,
            l.check_margin
        )
    } else if l.decided {
        format!(
            "Decided: it beats every other kind of check by Vuong's test (z {:.2} against {}; {:.2} needed, a 5 % error shared over {} models).",
            v.z, l.runner_up, v.needed, v.comparisons
        )
    } else {
        format!(
            "Undecided: {} explains the deals nearly as well (Vuong's z {:.2}, {:.2} needed for a 5 % error). More deals would tell them apart.",
            l.runner_up, v.z, v.needed
        )
    };
    ui.colored_label(if l.decided { paint::OK } else { paint::WARN }, verdict);
    let s = &l.smoking;
    ui.label(format!(
        "Unsolvable holders dealt where a solvable one existed: {} observed; {:.1} expected (95 % range {:.1}-{:.1}) if nothing checked the holders, over {} deals at risk.",
        s.observed, s.expected, s.range.0, s.range.1, s.boards_at_risk
    ));
    if let Some(b) = &l.best {
        let mut rules = Vec::new();
        if let Some(r) = b.repeat {
            rules.push(format!(
                "repeat_previous {:.3} (95 % CI {:.3}-{:.3})",
                r, b.repeat_ci.0, b.repeat_ci.1
            ));
        }
        if !b.rules.bands.is_empty() {
            rules.push(format!(
                "weights by fill, bands up to {}",
                b.rules
                    .bands
                    .iter()
                    .map(|x| format!("{:.0} %", x * 100.0))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(k) = b.rules.mercy {
            rules.push(format!("mercy after {k} rounds without a clear"));
        }
        ui.label(if rules.is_empty() {
            "No adaptive rule is kept (Models compared says each rule's test and why).".to_owned()
        } else {
            format!(
                "Kept, each by its likelihood-ratio test given the other rules kept: {}.",
                rules.join("; ")
            )
        });
    }
    if let Some(p) = &l.predictive {
        let (inside, all) = p.inside();
        ui.weak(format!(
            "Predictive check: {inside} of {all} piece shares by fill band inside the range of {} simulations of the learned model on the logged boards (seed {}).",
            p.replications, p.seed
        ));
    }
    for n in &l.notes {
        ui.weak(format!("Note: {n}"));
    }
}

fn table(ui: &mut Ui, l: &Learned) {
    ui.collapsing("Models compared", |ui| {
        // Seven columns are wider than the panel beside the board, or the
        // window at 800 px: they scroll sideways in their own room, so the
        // buttons after them keep the panel's width.
        crate::app::widgets::scroll::sideways(ui, "learned_models_scroll", |ui| table_grid(ui, l));
    });
}

fn table_grid(ui: &mut Ui, l: &Learned) {
    egui::Grid::new("learned_models")
        .striped(true)
        .num_columns(7)
        .show(ui, |ui| {
            for h in [
                "model",
                "params",
                "log-likelihood",
                "AIC",
                "BIC",
                "held-out / deal",
                "LR test p",
            ] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            let f = |x: f64| {
                if x.is_finite() {
                    format!("{x:.1}")
                } else {
                    "impossible".to_owned()
                }
            };
            for r in &l.rows {
                ui.label(&r.name);
                ui.label(r.params.to_string());
                ui.label(f(r.loglik));
                ui.label(f(r.aic));
                ui.label(f(r.bic));
                ui.label(r.held_out.map_or("–".to_owned(), |h| {
                    if h.is_finite() {
                        format!("{h:.4}")
                    } else {
                        "impossible".to_owned()
                    }
                }));
                ui.label(
                    r.lr.as_ref()
                        .map_or("–".to_owned(), |x| format!("{:.2e} vs {}", x.3, x.0)),
                );
                ui.end_row();
            }
        });
}
