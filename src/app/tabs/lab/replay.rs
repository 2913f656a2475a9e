//! The Lab tab's games list and the replay of one game, round by round,
//! on the board.

use egui::{RichText, Ui};

use tenten_engine::model::board::{Bits, Lines};
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::game::End;
use tenten_engine::study::runner::{self};

use super::LabTab;
use super::end_name;
use crate::app::jobs::lab::{GeneratorResults, Lab, Replay};
use crate::app::shell::command::Command;
use crate::app::shell::debugger::DebugBoard;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

impl LabTab {
    /// The games of one player (`results`, one per generator), to replay.
    pub(super) fn games(
        &mut self,
        ui: &mut Ui,
        lab: &Lab,
        results: &[GeneratorResults],
        cmds: &mut Vec<Command>,
    ) {
        ui.label(RichText::new("Games").strong());
        if results.is_empty() {
            return;
        }
        self.list_generator = self.list_generator.min(results.len() - 1);
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("of");
            egui::ComboBox::from_id_salt("lab_list_generator")
                .selected_text(results[self.list_generator].name.clone())
                .width(70.0)
                .show_ui(ui, |ui| {
                    for (i, r) in results.iter().enumerate() {
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
        let r = &results[self.list_generator];
        let shown: Vec<(usize, &tenten_engine::play::game::Game)> = r
            .games
            .iter()
            .enumerate()
            .filter(|(_, g)| self.list_end.is_none_or(|e| g.end == e))
            .collect();
        ui.weak(format!(
            "{}; click one to replay it on the board",
            tenten_engine::text::count(shown.len() as u64, "game", "games")
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
                        .is_some_and(|p| p.game == i && p.generator == r.name && p.player == r.player);
                    if ui.selectable_label(current, text).clicked() {
                        cmds.push(Command::ReplayLabGame {
                            player: r.player.clone(),
                            generator: r.name.clone(),
                            game: i,
                        });
                    }
                }
            });
    }
}

/// The board and lines after placements 0..=i of a round.
pub(super) fn after_moves(
    shapes: &Shapes,
    board: Bits,
    moves: &[(PieceIdx, u32)],
) -> (Bits, Vec<Bits>, Lines) {
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

pub(super) fn ids(set: &PieceSet, holder: &[PieceIdx]) -> String {
    holder
        .iter()
        .map(|&p| set.piece(p).id.clone())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The replay: step controls, what happened at the step, the holder drawn
/// and dealt, and the step on the board (when the sizes match).
pub(super) fn replay(
    ui: &mut Ui,
    state: &State,
    live: &Live,
    plan: &runner::Plan,
    r: &Replay,
    cmds: &mut Vec<Command>,
) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!(
                "Replay: {} with {}, game {}",
                r.player, r.generator, r.game
            ))
            .strong(),
        );
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
