//! The Lab tab: self-play games that compare generators (random, repair,
//! reject, bag) under a strategy, with survival curves, ends by kind, piece
//! frequencies and the distortion a repair brings, a table with confidence
//! intervals and a paired test, and a replay of any game on the board.

use egui::{RichText, Ui};

use tenten_engine::model::board::{Bits, BoardSize, Lines};
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::coelho::CoelhoWeights;
use tenten_engine::play::dealers;
use tenten_engine::play::game::{End, STRATEGIES};
use tenten_engine::play::runner::{self, Summary};

use super::Tab;
use crate::app::jobs::lab::{GeneratorResults, Lab, Replay};
use crate::app::plots::lab::{self as lab_plots, BAND_NAMES, generator_color};
use crate::app::plots::timing::fmt_time;
use crate::app::shell::command::Command;
use crate::app::shell::debugger::DebugBoard;
use crate::app::shell::live::Live;
use crate::app::shell::settings::LabSize;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

#[derive(Default)]
pub struct LabTab {
    /// The weights as typed, until they are five digits.
    weights_text: Option<String>,
    /// The games list: which generator, and which ends.
    list_generator: usize,
    list_end: Option<End>,
}

fn strategy_help(s: &str) -> &'static str {
    match s {
        "random" => "Each piece in dealt order at a random spot where it fits",
        "greedy" => {
            "Each piece in dealt order where it leaves the most free cells (ties: more lines cleared)"
        }
        "coelho" => {
            "The 1010! analysis: every order and placement of the whole holder, keeping the end board with \
             the best weighted sum of free cells, 5x5 square, large pieces, alignment and surface. \
             Thorough and about 300 rounds/s per core: use a round cap"
        }
        _ => "",
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
                "Self-play: a strategy places every dealt holder until it cannot. Game g of every \
                 generator is seeded with seed + g, so the generators are compared on the same \
                 draws (paired) for as long as neither redraws. A game ends unfair when the dealt \
                 holder could not be placed in any order (no player could have), stuck when it \
                 could but the strategy failed, dead when no holder of that size fits, and is \
                 censored at the round cap. Pieces dealt are counted by the board's fill when \
                 dealt, against the palette's weights.",
            );
        });
        self.settings(ui, state, live, cmds);
        let lab = &live.lab;
        if let Some(e) = &lab.error {
            ui.colored_label(paint::BAD, e);
        }
        let Some(plan) = &lab.plan else {
            ui.weak("Run a simulation to see the plots.");
            return;
        };
        ui.separator();
        let played: usize = lab.results.iter().map(|r| r.games.len()).sum();
        if played == 0 {
            ui.weak("Playing the first games…");
            return;
        }
        ui.weak(format!(
            "{} strategy{}, {}, {} board, holders of {}, seeds {}..{}, round cap {}{}",
            plan.strategy,
            if plan.strategy == "coelho" {
                format!(" {}", plan.weights)
            } else {
                String::new()
            },
            plan.set.name,
            plan.shapes_size,
            plan.k,
            plan.seed,
            plan.seed.wrapping_add(plan.games.saturating_sub(1) as u64),
            plan.max_rounds,
            if lab.running() {
                format!(
                    "; {played} of {} games so far",
                    plan.games * plan.generators.len()
                )
            } else {
                format!("; {played} games in {:.1} s", lab.seconds)
            }
        ));
        headline(ui, state, lab, &plan.set);
        ui.separator();
        ui.label(RichText::new("Survival").strong());
        lab_plots::survival_plot(ui, &lab.results);
        ui.label(RichText::new("How games ended").strong());
        lab_plots::ends_plot(ui, &lab.results);
        ui.label(RichText::new("Pieces dealt against the weights").strong());
        lab_plots::frequency_plot(ui, &lab.results, &plan.set);
        ui.label(RichText::new("Distortion by board fill").strong());
        lab_plots::distortion_plot(ui, &lab.results, &plan.set);
        ui.weak("Bars: the share of pieces of 1-3 cells dealt on boards that full; dashed: the weights' share. Hover for the counts and the KL divergence.");
        ui.separator();
        ui.label(RichText::new("Every figure").strong());
        table(ui, &lab.results);
        paired(ui, state, lab, cmds);
        ui.separator();
        self.games(ui, lab, cmds);
        if let Some(r) = &lab.replay {
            ui.separator();
            replay(ui, state, live, plan, r, cmds);
        }
    }
}

impl LabTab {
    fn settings(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let old = &state.settings.lab;
        let mut s = old.clone();
        let screen = state.doc.board.size();
        egui::Grid::new("lab_settings")
            .num_columns(2)
            .spacing([8.0, 4.0])
            .show(ui, |ui| {
                ui.label("Generators");
                ui.horizontal_wrapped(|ui| {
                    for g in dealers::NAMES {
                        let mut on = s.generators.iter().any(|x| x == g);
                        if ui.checkbox(&mut on, g).on_hover_text(generator_help(g)).changed() {
                            s.generators.retain(|x| x != g);
                            if on {
                                s.generators.push(g.to_owned());
                            }
                        }
                    }
                });
                ui.end_row();
                let label = ui.label("Strategy");
                egui::ComboBox::from_id_salt("lab_strategy")
                    .selected_text(s.strategy.clone())
                    .show_ui(ui, |ui| {
                        for st in STRATEGIES {
                            ui.selectable_value(&mut s.strategy, st.to_owned(), st)
                                .on_hover_text(strategy_help(st));
                        }
                    })
                    .response
                    .labelled_by(label.id)
                    .on_hover_text(strategy_help(&s.strategy));
                ui.end_row();
                if s.strategy == "coelho" {
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
                let label = ui.label("Holder");
                ui.horizontal(|ui| {
                    ui.add(
                        egui::DragValue::new(&mut s.holder_size)
                            .range(1..=tenten_engine::model::pieces::MAX_HOLDER)
                            .suffix(" pieces"),
                    )
                    .labelled_by(label.id);
                });
                ui.end_row();
                let label = ui.label("Games");
                ui.horizontal(|ui| {
                    ui.add(egui::DragValue::new(&mut s.games).range(1..=100_000).speed(10.0))
                        .labelled_by(label.id)
                        .on_hover_text("Games per generator");
                    let label = ui.label("round cap");
                    ui.add(
                        egui::DragValue::new(&mut s.max_rounds)
                            .range(1..=1_000_000)
                            .speed(10.0),
                    )
                    .labelled_by(label.id)
                    .on_hover_text("A game reaching it is censored");
                    let label = ui.label("seed");
                    ui.add(egui::DragValue::new(&mut s.seed)).labelled_by(label.id);
                });
                ui.end_row();
            });
        if s.strategy == "coelho" {
            // About 300 rounds a second per core (tenten bench).
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
            let worst =
                s.games as f64 * s.generators.len() as f64 * f64::from(s.max_rounds) / (300.0 * cores);
            if worst > 120.0 {
                ui.colored_label(
                    paint::WARN,
                    format!(
                        "coelho plays about 300 rounds a second per core and its games last thousands of \
                         rounds: this may take up to {}. Lower the games or the round cap.",
                        if worst > 7200.0 {
                            format!("{:.0} hours", worst / 3600.0)
                        } else {
                            format!("{:.0} minutes", worst / 60.0)
                        }
                    ),
                );
            }
        }
        if &s != old {
            cmds.push(Command::SetLab(s));
        }
        let doc = &state.doc;
        ui.weak(format!(
            "Pieces and weights from the palette ({}); repair uses policy {} and {} redraws",
            doc.set.name, state.settings.policy, state.settings.max_redraws
        ));
        let lab = &live.lab;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!lab.running(), egui::Button::new("Run"))
                .on_hover_text("Play the games on all cores in the background")
                .clicked()
            {
                cmds.push(Command::StartLab);
            }
            if lab.running() && ui.button("Cancel").clicked() {
                cmds.push(Command::CancelLab);
            }
            if let Some(plan) = &lab.plan
                && lab.results.iter().any(|r| !r.games.is_empty())
                && ui
                    .button("Export CSV…")
                    .on_hover_text("One row per game")
                    .clicked()
            {
                let rows: Vec<(String, Vec<_>)> = lab
                    .results
                    .iter()
                    .map(|r| (r.name.clone(), r.games.clone()))
                    .collect();
                cmds.push(Command::SaveText {
                    title: "Export games",
                    name: "games.csv",
                    text: runner::csv(&rows, &plan.strategy),
                });
            }
        });
        if let Some(p) = lab.progress() {
            crate::app::jobs::progress_bar(ui, p);
        } else if lab.finished == Some(false) && lab.error.is_none() {
            ui.weak("Cancelled: the figures below cover the games finished.");
        }
    }

    fn games(&mut self, ui: &mut Ui, lab: &Lab, cmds: &mut Vec<Command>) {
        ui.label(RichText::new("Games").strong());
        if lab.results.is_empty() {
            return;
        }
        self.list_generator = self.list_generator.min(lab.results.len() - 1);
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("of");
            egui::ComboBox::from_id_salt("lab_list_generator")
                .selected_text(lab.results[self.list_generator].name.clone())
                .width(70.0)
                .show_ui(ui, |ui| {
                    for (i, r) in lab.results.iter().enumerate() {
                        ui.selectable_value(&mut self.list_generator, i, r.name.clone());
                    }
                })
                .response
                .labelled_by(label.id);
            for (e, label) in [
                (None, "all"),
                (Some(End::Unfair), "unfair"),
                (Some(End::Stuck), "stuck"),
                (Some(End::Dead), "dead"),
                (Some(End::Censored), "censored"),
            ] {
                ui.selectable_value(&mut self.list_end, e, label);
            }
        });
        let r = &lab.results[self.list_generator];
        let shown: Vec<(usize, &tenten_engine::play::game::Game)> = r
            .games
            .iter()
            .enumerate()
            .filter(|(_, g)| self.list_end.is_none_or(|e| g.end == e))
            .collect();
        ui.weak(format!(
            "{} games; click one to replay it on the board",
            shown.len()
        ));
        let row = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
        egui::ScrollArea::vertical()
            .id_salt("lab_games")
            .max_height(160.0)
            .min_scrolled_height(160.0)
            .auto_shrink([false, true])
            .show_rows(ui, row, shown.len(), |ui, range| {
                // One line per game, whatever the panel's width.
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
                for &(i, g) in &shown[range] {
                    let text = format!(
                        "game {i}: {} rounds, {}, score {}{}",
                        g.rounds,
                        end_name(g.end),
                        g.score,
                        if g.unsolvable_dealt > 0 {
                            format!(", {} unsolvable dealt", g.unsolvable_dealt)
                        } else {
                            String::new()
                        }
                    );
                    let current = lab
                        .replay
                        .as_ref()
                        .is_some_and(|p| p.game == i && p.generator == r.name);
                    if ui.selectable_label(current, text).clicked() {
                        cmds.push(Command::ReplayLabGame {
                            generator: r.name.clone(),
                            game: i,
                        });
                    }
                }
            });
    }
}

fn find<'a>(lab: &'a Lab, name: &str) -> Option<&'a GeneratorResults> {
    lab.results.iter().find(|r| r.name == name && !r.games.is_empty())
}

/// The two answers a designer comes for: how much longer games last with
/// repair than with random (paired), how many random losses were unfair,
/// and how far repair skews the pieces on crowded boards.
fn headline(ui: &mut Ui, state: &State, lab: &Lab, set: &PieceSet) {
    let (a, b) = &state.settings.lab.compare;
    if let (Some(x), Some(y)) = (find(lab, a), find(lab, b))
        && x.name != y.name
        && let Some(t) = runner::paired(&x.games, &y.games)
    {
        let more = if t.mean_difference >= 0.0 {
            "longer"
        } else {
            "shorter"
        };
        ui.label(
            RichText::new(format!(
                "With {}, games last {:.1} rounds {more} than with {} (95 % CI {:.1} to {:.1}; paired over {} seeds, {}).",
                x.name,
                t.mean_difference.abs(),
                y.name,
                t.mean_difference - t.ci95,
                t.mean_difference + t.ci95,
                x.games.len().min(y.games.len()),
                p_text(t.p_value)
            ))
            .strong(),
        );
    }
    for r in &lab.results {
        let s = &r.summary;
        let losses = s.unfair + s.stuck + s.dead;
        if losses > 0 && r.name == "random" {
            ui.label(format!(
                "{} of the {losses} losses with random were unfair ({:.0} %): the dealt holder could not be placed at all.",
                s.unfair,
                s.unfair as f64 / losses as f64 * 100.0
            ));
        }
    }
    if let Some(r) = find(lab, "repair") {
        let share = lab_plots::small_share(r, set);
        // The most crowded band with enough pieces for a share to mean
        // something.
        let dealt = r.summary.dealt_by_band;
        let band = (1..BAND_NAMES.len()).rev().find(|&b| dealt[b] >= MIN_BAND_PIECES);
        if let Some(b) = band
            && let Some(v) = share[b]
        {
            let baseline = find(lab, "random")
                .and_then(|x| lab_plots::small_share(x, set)[b])
                .map_or(String::new(), |x| format!(", random {x:.0} %"));
            ui.label(format!(
                "On boards {} full, repair dealt pieces of 1-3 cells {:.0} % of the time (the weights say {:.0} %{baseline}; {} pieces dealt there, KL {:.4} nats).",
                BAND_NAMES[b],
                v,
                lab_plots::small_target(set),
                dealt[b],
                r.summary.kl_by_band[b]
            ));
        }
    }
}

/// Pieces a fill band needs before the headline quotes its share.
const MIN_BAND_PIECES: u64 = 300;

fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

/// Metrics down, generators across (fits the inspector's width).
fn table(ui: &mut Ui, results: &[GeneratorResults]) {
    type Cell = fn(&Summary) -> String;
    let rows: [(&str, &str, Cell); 16] = [
        ("games", "", |s| s.games.to_string()),
        (
            "rounds, mean",
            "with the half-width of its 95 % interval (Student's t); with censored games the mean is a lower bound",
            |s| {
                let mean = match s.rounds_ci95 {
                    Some(h) => format!("{:.1} ± {:.1}", s.rounds_mean, h),
                    None if s.games == 1 => format!("{:.1} (1 game, no interval)", s.rounds_mean),
                    None => "no games".to_owned(),
                };
                if s.censored > 0 {
                    format!("≥ {mean}")
                } else {
                    mean
                }
            },
        ),
        (
            "rounds, median",
            "with the quartiles; with censored games, the Kaplan-Meier median (games cut off by the round cap count as alive)",
            |s| {
                if s.censored == 0 {
                    format!("{:.0} [{:.0}, {:.0}]", s.rounds_median, s.rounds_q1, s.rounds_q3)
                } else {
                    match s.rounds_km_median {
                        Some(m) => format!("{m:.0} (Kaplan-Meier)"),
                        None => "over the cap (Kaplan-Meier: half the games outlived it)".to_owned(),
                    }
                }
            },
        ),
        ("censored", "games that reached the round cap", |s| {
            s.censored.to_string()
        }),
        ("score, mean", "", |s| format!("{:.0}", s.score_mean)),
        ("ended unfair", "on an unsolvable holder", |s| {
            s.unfair.to_string()
        }),
        (
            "ended stuck",
            "the holder was solvable, the strategy failed",
            |s| s.stuck.to_string(),
        ),
        ("ended dead", "no holder of that size fitted", |s| {
            s.dead.to_string()
        }),
        (
            "unsolvable dealt",
            "holders first drawn unsolvable (fixed or not)",
            |s| s.unsolvable_dealt.to_string(),
        ),
        ("repairs", "extra validations: changer attempts or redraws", |s| {
            s.repairs.to_string()
        }),
        ("validate p50", "time to validate a holder as drawn", |s| {
            fmt_time(s.validate_us.quantile(0.5))
        }),
        ("validate p99", "", |s| fmt_time(s.validate_us.quantile(0.99))),
        ("change p99", "time to deal a holder drawn unsolvable", |s| {
            if s.change_us.n == 0 {
                "-".to_owned()
            } else {
                fmt_time(s.change_us.quantile(0.99))
            }
        }),
        ("change max", "", |s| {
            if s.change_us.n == 0 {
                "-".to_owned()
            } else {
                fmt_time(s.change_us.max_us)
            }
        }),
        (
            "chi-square",
            "pieces dealt against the weights (degrees of freedom: pieces - 1)",
            |s| format!("{:.1}", s.chi2),
        ),
        ("KL divergence", "nats", |s| format!("{:.5}", s.kl)),
    ];
    egui::ScrollArea::horizontal()
        .id_salt("lab_table")
        .show(ui, |ui| {
            egui::Grid::new("lab_table_grid")
                .striped(true)
                .spacing([10.0, 2.0])
                .show(ui, |ui| {
                    ui.label("");
                    for r in results {
                        ui.label(RichText::new(&r.name).color(generator_color(&r.name)).strong());
                    }
                    ui.end_row();
                    for (name, help, cell) in rows {
                        let l = ui.label(RichText::new(name).weak());
                        if !help.is_empty() {
                            l.on_hover_text(help);
                        }
                        for r in results {
                            ui.monospace(cell(&r.summary));
                        }
                        ui.end_row();
                    }
                });
        });
}

/// The paired test between two chosen generators.
fn paired(ui: &mut Ui, state: &State, lab: &Lab, cmds: &mut Vec<Command>) {
    if lab.results.len() < 2 {
        return;
    }
    let mut compare = state.settings.lab.compare.clone();
    ui.horizontal(|ui| {
        for (salt, text, pick) in [
            ("lab_cmp_a", "Paired test:", &mut compare.0),
            ("lab_cmp_b", "against", &mut compare.1),
        ] {
            let label = ui.label(text);
            egui::ComboBox::from_id_salt(salt)
                .selected_text(pick.clone())
                .width(70.0)
                .show_ui(ui, |ui| {
                    for r in &lab.results {
                        ui.selectable_value(pick, r.name.clone(), r.name.clone());
                    }
                })
                .response
                .labelled_by(label.id);
        }
    });
    if compare != state.settings.lab.compare {
        let mut s = state.settings.lab.clone();
        s.compare = compare.clone();
        cmds.push(Command::SetLab(s));
    }
    match (find(lab, &compare.0), find(lab, &compare.1)) {
        (Some(a), Some(b)) if a.name != b.name => match runner::paired(&a.games, &b.games) {
            Some(t) => {
                let verdict = if t.p_value < 0.05 {
                    "they really differ"
                } else {
                    "no difference shown at the 5 % level"
                };
                ui.label(format!(
                    "{} minus {}: {:+.2} rounds a game (95 % CI {:+.2} to {:+.2}), {}: {verdict}.",
                    a.name,
                    b.name,
                    t.mean_difference,
                    t.mean_difference - t.ci95,
                    t.mean_difference + t.ci95,
                    p_text(t.p_value)
                ))
                .on_hover_text(
                    "Paired t test (Student's t) on the same seeds, two-sided; \
                     the differences are per game, game g of both generators on seed S + g.",
                );
            }
            None => {
                ui.weak(format!(
                    "Too few games for a paired test: it needs at least {} seeds played by both.",
                    tenten_engine::stats::inference::MIN_PAIRED
                ));
            }
        },
        _ => {
            ui.weak("Pick two different generators that were run.");
        }
    }
}

/// The board and lines after placements 0..=i of a round.
fn after_moves(shapes: &Shapes, board: Bits, moves: &[(PieceIdx, u32)]) -> (Bits, Vec<Bits>, Lines) {
    let mut b = board;
    let mut placed = Vec::new();
    let mut last = Lines::default();
    for &(p, a) in moves {
        placed.push(shapes.shape(p).mask << a);
        let (next, lines) = shapes.place(b, p, a);
        b = next;
        last = lines;
    }
    (b, placed, last)
}

fn ids(set: &PieceSet, holder: &[PieceIdx]) -> String {
    holder
        .iter()
        .map(|&p| set.piece(p).id.clone())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The replay: step controls, what happened at the step, the holder drawn
/// and dealt, and the step on the board (when the sizes match).
fn replay(ui: &mut Ui, state: &State, live: &Live, plan: &runner::Plan, r: &Replay, cmds: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("Replay: {} game {}", r.generator, r.game)).strong());
        if ui.small_button("Close").clicked() {
            cmds.push(Command::CloseLabReplay);
        }
    });
    let Some((game, rounds)) = &r.rounds else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Playing the game again…");
        });
        return;
    };
    let Some((at, step)) = r.current() else { return };
    let steps = r.steps();
    ui.weak(format!(
        "seed {}: {} rounds, score {}, ended {}",
        game.seed,
        game.rounds,
        game.score,
        end_name(game.end)
    ));
    ui.horizontal(|ui| {
        let last = steps.len() - 1;
        for (label, target, help) in [
            ("|<", 0, "First deal"),
            ("<", at.saturating_sub(1), "Previous step"),
            (">", (at + 1).min(last), "Next step"),
            (">|", last, "The end"),
        ] {
            if ui.button(label).on_hover_text(help).clicked() {
                cmds.push(Command::SetLabReplayStep(target));
            }
        }
        let mut s = at;
        if ui
            .add(egui::Slider::new(&mut s, 0..=last).text(format!("of {} steps", last + 1)))
            .changed()
        {
            cmds.push(Command::SetLabReplayStep(s));
        }
    });
    let round = &rounds[step.round];
    let set = &plan.set;
    let shapes = Shapes::new(set, plan.shapes_size);
    let board = match step.placement {
        None => DebugBoard {
            board: round.board,
            placed: Vec::new(),
            candidate: None,
            cleared: Lines::default(),
        },
        Some(i) => {
            let (b, placed, lines) = after_moves(&shapes, round.board, &round.moves[..=i]);
            DebugBoard {
                board: b,
                placed,
                candidate: None,
                cleared: lines,
            }
        }
    };
    let what = match step.placement {
        None if round.drawn != round.holder => format!(
            "Round {}: drew {} (unsolvable); {} dealt {} instead{}.",
            step.round + 1,
            ids(set, &round.drawn),
            r.generator,
            ids(set, &round.holder),
            if round.repairs > 0 {
                format!(
                    " after {} more holder{}",
                    round.repairs,
                    if round.repairs == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            }
        ),
        None => format!(
            "Round {}: dealt {}{}.",
            step.round + 1,
            ids(set, &round.holder),
            if round.drawn_unsolvable {
                " (unsolvable)"
            } else {
                ""
            }
        ),
        Some(i) => {
            let (p, a) = round.moves[i];
            let (x, y) = shapes.xy(a);
            let lines = board.cleared;
            format!(
                "Round {}, placement {} of {}: {} at column {}, row {}{}.",
                step.round + 1,
                i + 1,
                round.moves.len(),
                set.piece(p).id,
                x + 1,
                y + 1,
                if lines.is_empty() {
                    String::new()
                } else {
                    format!(", clearing {}", lines.describe())
                }
            )
        }
    };
    ui.label(what);
    if round.after.is_none() && step.placement.is_none() {
        ui.colored_label(
            if game.end == End::Unfair {
                paint::BAD
            } else {
                paint::WARN
            },
            match game.end {
                End::Unfair => {
                    "The end: no order of this holder fits. An unfair loss: no player could have placed it."
                }
                End::Stuck => "The end: the holder could be placed, but the strategy did not find how.",
                End::Dead => "The end: no holder of this size fits the board.",
                End::Censored => "",
            },
        );
    }
    // The holder: drawn (if the generator changed it) and dealt.
    ui.horizontal(|ui| {
        for (label, holder) in [("drawn", &round.drawn), ("dealt", &round.holder)] {
            if label == "drawn" && round.drawn == round.holder {
                continue;
            }
            ui.label(label);
            for &p in holder.iter() {
                let (rect, _) = ui.allocate_exact_size(egui::vec2(52.0, 52.0), egui::Sense::hover());
                let piece = set.piece(p);
                ui.painter().rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
                paint::draw_piece(
                    ui.painter(),
                    rect.shrink(3.0),
                    piece,
                    paint::piece_color(piece, p),
                    9.0,
                );
            }
        }
    });
    if state.doc.board.size() == plan.shapes_size {
        if live.debug_board.as_ref() != Some(&board) {
            cmds.push(Command::DebugBoard(Some(board)));
        }
        ui.weak("Shown on the board; placements in sequence colours.");
        {
            if ui
                .small_button("Open this deal")
                .on_hover_text("Put this round's board and holder in the document (undoable), for the Deal, tree and F tabs")
                .clicked()
            {
                cmds.push(Command::OpenLabReplayDeal);
            }
        }
    } else {
        ui.weak(format!(
            "The lab played on {}, the board on screen is {}: set the board to {} to see the replay on it.",
            plan.shapes_size,
            state.doc.board.size(),
            plan.shapes_size
        ));
    }
}
