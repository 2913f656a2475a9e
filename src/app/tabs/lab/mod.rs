//! The Lab tab: self-play games that compare generators (random, repair,
//! reject, bag) under players of graded skill: the skill ladder first, then
//! for one player survival and hazard curves, ends by kind, piece
//! frequencies and the distortion a repair brings, a table with confidence
//! intervals and a paired test, and a replay of any game on the board.

use crate::app::jobs::job::Background as _;
use egui::{RichText, Ui};

use tenten_engine::play::game::End;

mod explain;
mod fit;
mod ladder;
mod replay;
mod results;
mod settings;
mod tune;

use super::Tab;
use crate::app::plots::lab as lab_plots;
use crate::app::plots::survival as survival_plots;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::settings::LabPage;
use crate::app::shell::state::State;
use crate::app::widgets::paint;
use replay::replay;
use results::{headline, paired, table};

#[derive(Default)]
pub struct LabTab {
    /// The weights as typed, until they are five digits.
    weights_text: Option<String>,
    /// The games list: which generator, and which ends.
    list_generator: usize,
    list_end: Option<End>,
    /// How the player to fit looks ahead.
    fit_lookahead: tenten_engine::play::player::Lookahead,
    /// The open batch (by its opening's id) and whether it holds moves.
    log_seen: Option<(u64, bool)>,
}

pub fn end_name(e: End) -> &'static str {
    match e {
        End::Unfair => "unfair",
        End::Stuck => "stuck",
        End::Dead => "dead",
        End::Censored => "censored",
    }
}

impl Tab for LabTab {
    fn title(&self) -> &'static str {
        "Lab"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        ui.label(RichText::new("Generator lab: what a generator and its weights do to play").strong());
        ui.collapsing("What is measured", |ui| {
            ui.label(
                "Self-play: a player places every dealt holder until it cannot. Players are \
                 models of graded skill (strategy errors as a temperature, execution errors as a \
                 slip), anchored on a few facts, not measured people. Game g of every player and \
                 generator is seeded with seed + g, so generators are compared on the same draws \
                 (paired) for as long as neither redraws. A game ends unfair when the dealt \
                 holder could not be placed in any order (no player could have), stuck when it \
                 could but the player failed, dead when no holder of that size fits, and is \
                 censored at the round cap; survival and medians are Kaplan-Meier's, which count \
                 censored games as alive. Pieces dealt are counted by the board's fill when \
                 dealt, against the palette's weights.",
            );
        });
        let page = self.pages(ui, state, cmds);
        match page {
            LabPage::Setup => {
                // What a run measures cannot change under it: the
                // settings are read-only until it ends or is cancelled.
                let running = live.lab.running();
                ui.add_enabled_ui(!running, |ui| self.settings(ui, state, cmds))
                    .response
                    .on_disabled_hover_text(
                        "A run is playing: cancel it or let it finish to change the settings",
                    );
                self.run_row(ui, live, cmds);
                self.error_line(ui, live);
                if live.lab.plan.is_some() {
                    ui.weak("The last run's figures are on the Results page.");
                }
                return;
            }
            LabPage::Players => {
                self.fit(ui, state, live, cmds);
                let log_open = state.doc.batch.as_ref().is_some_and(|b| {
                    self.log_seen
                        .is_some_and(|(id, is_log)| id == b.source.id && is_log)
                });
                if log_open {
                    self.explain(ui, live, cmds);
                }
                players_page(ui, state);
                return;
            }
            LabPage::Tune => {
                self.tune(ui, state, live, cmds);
                return;
            }
            LabPage::Results => self.run_row(ui, live, cmds),
        }
        self.error_line(ui, live);
        let lab = &live.lab;
        let Some(plan) = &lab.plan else {
            ui.weak(if lab.incoming.is_some() {
                "Playing the first games…"
            } else {
                "Run a simulation to see the plots."
            });
            return;
        };
        ui.separator();
        let played: usize = lab.results.iter().map(|r| r.games.len()).sum();
        if played == 0 {
            ui.weak("Playing the first games…");
            return;
        }
        let what = crate::app::jobs::lab::run_label(plan, &lab.set_title);
        ui.weak(format!(
            "{what}, round cap {}, run {}{}",
            plan.max_rounds,
            lab.fingerprint,
            if lab.running() {
                format!(
                    "; {played} of {} games so far",
                    plan.games * plan.generators.len() * plan.players.len()
                )
            } else {
                format!("; {played} games in {:.1} s", lab.seconds)
            }
        ));
        // Results that no longer describe the settings say so, and go grey;
        // a run opened from a file describes its own settings, not these.
        let stale = if let Some(source) = &lab.source {
            ui.label(format!(
                "Opened from {source}: a run made elsewhere with its own settings, which the Lab's above need not match (Run measures those here); its time is its shards' play, summed."
            ));
            Vec::new()
        } else {
            let title = state.doc.generator_title();
            crate::app::jobs::lab::stale(
                plan,
                &state.settings.lab,
                state.doc.generator.as_ref().zip(title.as_deref()),
                &state.doc.set,
                state.doc.board.size(),
                tenten_engine::search::changer::ChangeOptions {
                    policy: state.settings.policy,
                    reading: state.settings.reading,
                    max_redraws: state.settings.max_redraws,
                },
            )
        };
        if !stale.is_empty() {
            ui.colored_label(
                paint::WARN,
                format!(
                    "Stale: {} changed since this run. Run again to measure the settings as they are.",
                    and_list(&stale)
                ),
            );
            ui.multiply_opacity(0.45);
        }
        pin_row(ui, lab, cmds);
        // The player whose details are shown: the chosen one if it ran.
        let wanted = &state.settings.lab.detail;
        let names = plan.player_names();
        let detail = if names.contains(&wanted.as_str()) {
            wanted.as_str()
        } else {
            names.first().copied().unwrap_or("")
        };
        ladder::ladder(ui, state, lab, detail, cmds);
        ui.separator();
        let mine = lab.of_player(detail);
        ui.label(RichText::new(format!("{detail}: details")).heading())
            .on_hover_text("Click a player in the ladder to see theirs");
        headline(ui, state, mine, &plan.set);
        let auto = survival_plots::spans_a_decade(mine);
        let mut log = state.settings.lab.log_rounds.unwrap_or(auto);
        if ui
            .checkbox(&mut log, "Rounds on a log scale")
            .on_hover_text(if auto {
                "These games span more than a decade of rounds (the 90th percentile over ten times the 10th), so the log scale is the default"
            } else {
                "These games span less than a decade of rounds, so the default is linear"
            })
            .changed()
        {
            let mut s = state.settings.lab.clone();
            s.log_rounds = Some(log);
            cmds.push(Command::SetLab(s));
        }
        let rounds = survival_plots::Rounds { log };
        ui.label(RichText::new("Survival").strong()).on_hover_text(
            "Kaplan-Meier: the share of games still going after each round, games cut off by the \
             round cap counted as alive; shaded, the 95 % band (Greenwood, log-log)",
        );
        survival_plots::survival_plot(
            ui,
            mine,
            survival_plots::pinned_of(lab.pinned.as_ref(), detail),
            rounds,
        );
        ui.label(RichText::new("Hazard: the difficulty curve").strong())
            .on_hover_text(
                "The chance to lose the next deal having survived so many rounds: losses over games \
             dealt again, in bins one round wide to 10 rounds, then each a quarter wider; shaded, \
             the exact 95 % Poisson band",
            );
        survival_plots::hazard_plot(ui, mine, rounds);
        ui.label(RichText::new("How games ended").strong());
        lab_plots::ends_plot(ui, mine);
        ui.label(RichText::new("Pieces dealt against the weights").strong());
        lab_plots::frequency_plot(ui, mine, &plan.set);
        ui.label(RichText::new("Distortion by board fill").strong());
        lab_plots::distortion_plot(ui, mine, &plan.set);
        ui.weak("Bars: the share of pieces of 1-3 cells dealt on boards that full; dashed: the weights' share. Hover for the counts and the KL divergence.");
        ui.separator();
        ui.label(RichText::new("Every figure").strong());
        table(ui, mine);
        paired(ui, state, mine, cmds);
        ui.separator();
        self.games(ui, lab, mine, cmds);
        if let Some(r) = &lab.replay {
            ui.separator();
            replay(ui, state, live, plan, r, cmds);
        }
    }
}

impl LabTab {
    /// The page row; returns the page to draw.
    fn pages(&mut self, ui: &mut Ui, state: &State, cmds: &mut Vec<Command>) -> LabPage {
        let now = state.settings.lab.page;
        let mut page = now;
        ui.horizontal(|ui| {
            for p in LabPage::ALL {
                ui.selectable_value(&mut page, p, p.title());
            }
        });
        ui.separator();
        if page != now {
            let mut s = state.settings.lab.clone();
            s.page = page;
            cmds.push(Command::SetLab(s));
        }
        page
    }

    fn error_line(&self, ui: &mut Ui, live: &Live) {
        if let Some(e) = &live.lab.error {
            ui.colored_label(paint::BAD, e);
        }
    }
}

/// The Players page's list of the players from files and fits, with their
/// parameters (Setup's Player files row picks which play).
fn players_page(ui: &mut Ui, state: &State) {
    let extras = &state.settings.lab.extra_players;
    ui.separator();
    ui.label(RichText::new("Players from files and fits").strong());
    if extras.is_empty() {
        ui.weak(
            "None yet: open a player file (File > Open, or Add player file… on the Setup page), or fit one to a playtest log above and press Use in the Lab.",
        );
    }
    let labels = crate::app::jobs::lab::extra_labels(extras);
    for (extra, label) in extras.iter().zip(labels) {
        ui.label(RichText::new(label).strong());
        ui.weak(extra.describe());
    }
}

/// "a, b and c".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Pin this run to compare the next ones with it (its survival curves stay
/// on the plot, dashed), or unpin the one kept.
fn pin_row(ui: &mut Ui, lab: &crate::app::jobs::lab::Lab, cmds: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        if !lab.running()
            && ui
                .button("Pin this run")
                .on_hover_text("Keep its survival curves on the plot, dashed, to compare with the next runs")
                .clicked()
        {
            cmds.push(Command::PinLabRun);
        }
        if let Some(p) = &lab.pinned {
            ui.weak(format!("Pinned: {}", p.label));
            if ui.small_button("Unpin").clicked() {
                cmds.push(Command::UnpinLabRun);
            }
        }
    });
    if let Some(other) = lab.other.as_ref().filter(|_| !lab.running()) {
        ui.horizontal_wrapped(|ui| {
            let now = if lab.finished == Some(true) {
                "finished"
            } else {
                "partial"
            };
            ui.colored_label(
                if now == "partial" {
                    paint::WARN
                } else {
                    ui.visuals().text_color()
                },
                format!("Shown: this run ({now}). Also kept: {}.", other.label()),
            );
            if ui
                .button("Show the other run")
                .on_hover_text("A cancelled re-run never replaces a finished run: both are kept")
                .clicked()
            {
                cmds.push(Command::SwapLabRun);
            }
        });
    }
}
