//! The Lab tab's settings: generators, players, board, holder, games, and
//! the Run, Cancel and Export row with its progress.

use crate::app::jobs::job::Background as _;
use egui::Ui;

use tenten_engine::model::board::BoardSize;
use tenten_engine::play::coelho::{CoelhoWeights, rounds_per_second_estimate};
use tenten_engine::play::dealers;
use tenten_engine::play::player::Lookahead;
use tenten_engine::play::who::NAMES as STRATEGIES;
use tenten_engine::study::runner;

use super::LabTab;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::settings::{LabSettings, LabSize};
use crate::app::shell::state::State;
use crate::app::widgets::fields::{count, whole};
use crate::app::widgets::{paint, rows};

impl LabTab {
    pub(super) fn settings(&mut self, ui: &mut Ui, state: &State, cmds: &mut Vec<Command>) {
        let old = &state.settings.lab;
        let mut s = old.clone();
        let screen = state.doc.board.size();
        egui::Grid::new("lab_settings")
            .num_columns(2)
            .spacing([8.0, 4.0])
            .show(ui, |ui| {
                ui.label("Generators");
                rows::wrapped(
                    ui,
                    &dealers::NAMES,
                    |g: &&str| (*g).to_owned(),
                    |ui, g| {
                        let mut on = s.generators.iter().any(|x| x == g);
                        if ui
                            .checkbox(&mut on, *g)
                            .on_hover_text(generator_help(g))
                            .changed()
                        {
                            s.generators.retain(|x| x != g);
                            if on {
                                s.generators.push((*g).to_owned());
                            }
                        }
                    },
                );
                ui.end_row();
                // One line per file, not a wrapped row: a wrapped row in a
                // grid cell runs into the row below in a narrow panel.
                ui.label("Files");
                ui.vertical(|ui| {
                    let mut remove = None;
                    let labels = crate::app::jobs::lab::file_labels(&s.files);
                    for (i, (path, label)) in s.files.iter().zip(labels).enumerate() {
                        ui.horizontal(|ui| {
                            ui.label(label).on_hover_text(path.display().to_string());
                            if ui
                                .small_button("x")
                                .on_hover_text("Leave this file out")
                                .clicked()
                            {
                                remove = Some(i);
                            }
                        });
                    }
                    if let Some(i) = remove {
                        s.files.remove(i);
                    }
                    if ui
                        .button("Add generator file…")
                        .on_hover_text("Compare a generator file (presets/generators) with the others")
                        .clicked()
                    {
                        cmds.push(Command::AddLabGenerator);
                    }
                    if let Some(title) = state.doc.generator_title() {
                        ui.checkbox(&mut s.edited, crate::app::jobs::lab::edited_label(&title))
                            .on_hover_text("The Generator tab's rules, as they are now");
                    }
                });
                ui.end_row();
                // Two rows, the ladder and the bots: one wrapped row inside a
                // grid cell overlaps the row below it in a narrow panel.
                for (label, names) in [("Players", &STRATEGIES[3..]), ("Bots", &STRATEGIES[..3])] {
                    ui.label(label);
                    rows::wrapped(
                        ui,
                        names,
                        |p: &&str| (*p).to_owned(),
                        |ui, &p| {
                            let mut on = s.players.iter().any(|x| x == p);
                            if ui.checkbox(&mut on, p).on_hover_text(player_help(p)).changed() {
                                s.players.retain(|x| x != p);
                                if on {
                                    s.players.push(p.to_owned());
                                }
                            }
                        },
                    );
                    ui.end_row();
                }
                ui.label("Player files");
                ui.vertical(|ui| {
                    let labels = crate::app::jobs::lab::extra_labels(&s.extra_players);
                    let mut remove = None;
                    for (i, (extra, label)) in s.extra_players.iter_mut().zip(labels).enumerate() {
                        ui.horizontal(|ui| {
                            let words = extra.describe();
                            ui.checkbox(&mut extra.plays, label).on_hover_text(words);
                            if ui
                                .small_button("x")
                                .on_hover_text("Leave this player out of the Lab")
                                .clicked()
                            {
                                remove = Some(i);
                            }
                        });
                    }
                    if let Some(i) = remove {
                        s.extra_players.remove(i);
                    }
                    if ui
                        .button("Add player file…")
                        .on_hover_text(
                            "Play a player file (presets/players, or a fitted tester) beside the presets",
                        )
                        .clicked()
                    {
                        cmds.push(Command::AddLabPlayer);
                    }
                });
                ui.end_row();
                if s.players.iter().any(|p| p == "coelho") {
                    let label = ui.label("Weights");
                    ui.horizontal(|ui| {
                        let text = self.weights_text.get_or_insert_with(|| s.weights.to_string());
                        let r = ui
                            .add(egui::TextEdit::singleline(text).desired_width(52.0).char_limit(5))
                            .labelled_by(label.id)
                            .on_hover_text(
                                "Five digits, one per criterion: free cells, 5x5 square, large pieces \
                                 (sq3, h5, v5), alignment, surface. 10025 is the analysis's best.",
                            );
                        match CoelhoWeights::parse(text) {
                            Ok(w) => s.weights = w,
                            Err(_) if r.has_focus() => {}
                            Err(_) => {
                                ui.colored_label(paint::BAD, "five digits, like 10025");
                            }
                        }
                        if ui
                            .small_button("10025")
                            .on_hover_text("The analysis's best weights")
                            .clicked()
                        {
                            s.weights = CoelhoWeights::BEST;
                            self.weights_text = Some(s.weights.to_string());
                        }
                    });
                    ui.end_row();
                }
                let label = ui.label("Board");
                let name = |z: LabSize| match z {
                    LabSize::OnScreen => format!("as on screen ({screen})"),
                    LabSize::Fixed(b) => b.to_string(),
                };
                egui::ComboBox::from_id_salt("lab_size")
                    .selected_text(name(s.size))
                    .show_ui(ui, |ui| {
                        // Block Blast's 8x8 and 1010!'s 10x10; other sizes as on screen.
                        let eight = BoardSize { width: 8, height: 8 };
                        for c in [
                            LabSize::OnScreen,
                            LabSize::Fixed(eight),
                            LabSize::Fixed(BoardSize::CLASSIC),
                        ] {
                            ui.selectable_value(&mut s.size, c, name(c));
                        }
                    })
                    .response
                    .labelled_by(label.id);
                ui.end_row();
                // A drop-down, not a drag chip that reads like a label.
                let label = ui.label("Holder");
                let pieces = |k: usize| count(k as u64, "piece", "pieces");
                egui::ComboBox::from_id_salt("lab_holder")
                    .selected_text(pieces(s.holder_size))
                    .show_ui(ui, |ui| {
                        for k in 1..=tenten_engine::model::pieces::MAX_HOLDER {
                            ui.selectable_value(&mut s.holder_size, k, pieces(k));
                        }
                    })
                    .response
                    .labelled_by(label.id)
                    .on_hover_text("Pieces per holder in every game");
                ui.end_row();
                // A row each: side by side they run past a narrow panel.
                let label = ui.label("Games");
                whole(ui, &mut s.games, 1..=100_000, "Games", |d| d.speed(10.0))
                    .labelled_by(label.id)
                    .on_hover_text("Games per generator and player");
                ui.end_row();
                let label = ui.label("Round cap");
                whole(ui, &mut s.max_rounds, 1..=1_000_000, "The round cap", |d| {
                    d.speed(10.0)
                })
                .labelled_by(label.id)
                .on_hover_text("A game reaching it is censored");
                ui.end_row();
                let label = ui.label("Seed");
                whole(ui, &mut s.seed, 0..=u64::MAX, "The seed", |d| d)
                    .labelled_by(label.id)
                    .on_hover_text("Game g of every generator and player is seeded with seed + g");
                ui.end_row();
            });
        coelho_warning(ui, &s, screen);
        if &s != old {
            cmds.push(Command::SetLab(s));
        }
        let doc = &state.doc;
        ui.weak(format!(
            "Pieces and weights from the palette ({}); repair uses policy {} and {} redraws",
            doc.set.name, state.settings.policy, state.settings.max_redraws
        ));
    }

    /// Run, Cancel and Export, with the run's progress and what became of
    /// the last one: on the Setup and the Results pages.
    pub(super) fn run_row(&mut self, ui: &mut Ui, live: &Live, cmds: &mut Vec<Command>) {
        let lab = &live.lab;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!lab.running(), egui::Button::new("Run"))
                .on_hover_text("Play the games on all cores in the background")
                .clicked()
            {
                cmds.push(Command::StartLab);
            }
            // Always drawn, enabled while a run plays: Run and Cancel keep
            // their places, so a second click never lands on the other.
            if ui
                .add_enabled(lab.running(), egui::Button::new("Cancel"))
                .on_hover_text(
                    "Stop the run; the games finished are kept, and a finished run is never replaced",
                )
                .clicked()
            {
                cmds.push(Command::CancelLab);
            }
            if lab.plan.is_some()
                && lab.results.iter().any(|r| !r.games.is_empty())
                && ui
                    .button("Export CSV…")
                    .on_hover_text("One row per game")
                    .clicked()
            {
                let rows: Vec<runner::Row> = lab
                    .results
                    .iter()
                    .map(|r| (r.player.clone(), r.name.clone(), r.games.clone()))
                    .collect();
                cmds.push(Command::SaveText {
                    title: "Export games",
                    name: "games.csv",
                    text: runner::csv(&rows),
                });
            }
        });
        if let Some(p) = lab.progress() {
            crate::app::jobs::progress_bar(ui, p);
            if lab.incoming.is_some() && lab.plan.is_some() {
                ui.weak("Playing the new run's first games; until they finish, the Results page shows the last run's figures.");
            }
        } else if let Some(note) = &lab.note {
            ui.weak(note);
        } else if lab.finished == Some(false) && lab.error.is_none() {
            ui.weak("Cancelled: the Results page covers the games finished.");
        }
    }
}

/// What a player is: the bots in words, a preset from its own file.
pub(super) fn player_help(p: &str) -> String {
    match p {
        "random" => {
            "Every placement a slip (presets/players/random.ron): a random legal placement of any piece left"
                .to_owned()
        }
        "greedy" => {
            "Each piece in dealt order where it leaves the most free cells (ties: more lines cleared)"
                .to_owned()
        }
        "coelho" => "The 1010! analysis: every order and placement of the whole holder, keeping the end \
             board with the best weighted sum of free cells, 5x5 square, large pieces, alignment and \
             surface (the weights below). Thorough and slow: use a round cap"
            .to_owned(),
        name => match tenten_engine::play::player::preset(name) {
            Some(pl) => {
                let look = match pl.lookahead {
                    Lookahead::Piece => "one piece at a time",
                    Lookahead::Holder => "the whole holder searched, as the analysis does",
                };
                format!(
                    "A model player, not a measured person (presets/players/{name}.ron): criteria {}, \
                     {look}, temperature {} (strategy errors), slip {} (execution errors)",
                    pl.evaluation, pl.temperature, pl.slip
                )
            }
            None => String::new(),
        },
    }
}

fn generator_help(g: &str) -> &'static str {
    match g {
        "random" => "Weighted draws, never checked",
        "repair" => "The paper: validate, and let the F matrix pick the block to replace",
        "reject" => "Redraw the whole holder until it is solvable",
        "bag" => "Deal from a shuffled bag holding the weights' multiset, refilled when empty",
        _ => "",
    }
}

/// Before a run with players that search the whole holder (coelho and the
/// holder presets): how long it may take at worst (every game to the round
/// cap), from the measured rate for this holder and board size, when that
/// is more than two minutes.
fn coelho_warning(ui: &mut Ui, s: &LabSettings, screen: BoardSize) {
    let searching = s
        .players
        .iter()
        .filter(|p| {
            *p == "coelho"
                || tenten_engine::play::player::preset(p).is_some_and(|pl| pl.lookahead == Lookahead::Holder)
        })
        .count();
    let size = match s.size {
        LabSize::OnScreen => screen,
        LabSize::Fixed(b) => b,
    };
    let per_core = rounds_per_second_estimate(s.holder_size, size.cells());
    // The run's pool (a read of rayon's registry, not of /sys each frame).
    let cores = rayon::current_num_threads() as f64;
    let worst = (s.games * (s.generators.len() + s.files.len() + usize::from(s.edited)) * searching) as f64
        * f64::from(s.max_rounds)
        / (per_core * cores);
    if worst <= 120.0 {
        return;
    }
    let rate = if per_core >= 10.0 {
        format!("about {per_core:.0} rounds a second")
    } else {
        format!("about one round every {:.1} s", 1.0 / per_core)
    };
    let up_to = match worst {
        w if w > 2.0 * 86_400.0 => format!("{:.0} days", w / 86_400.0),
        w if w > 7200.0 => format!("{:.0} hours", w / 3600.0),
        w => format!("{:.0} minutes", w / 60.0),
    };
    ui.colored_label(
        paint::WARN,
        format!(
            "Players that search the whole holder (coelho, skilled, expert, machine) play {rate} per \
             core on a {size} board with holders of {} (estimated), and their games last thousands \
             of rounds: this may take up to {up_to}. Lower the games or the round cap.",
            s.holder_size
        ),
    );
}
