//! A UI monkey: thousands of random user actions against a real `App` in a
//! kittest harness, drawn from the `Command` enum with random arguments (out
//! of range ones included) and mixed with random clicks and keys. After every
//! action: nothing panicked, the board and the holder are valid, and undo
//! followed by redo gives back the same document. A failure prints the seed
//! and the actions that led to it.
//!
//! `cargo test` runs 10,000 actions with a fixed seed. For a heavier run:
//! `TENTEN_MONKEY_ACTIONS=200000 TENTEN_MONKEY_SEED=7 cargo test --release --test ui_monkey`.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::PathBuf;

use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use tenten::app::App;
use tenten::app::shell::command::{Command, Line};
use tenten::app::shell::settings::Tool;
use tenten::app::shell::state::State;
use tenten_engine::io::batch::{Filter, SortKey, Verdict};
use tenten_engine::model::board::{BoardSize, Cell};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::MAX_HOLDER;
use tenten_engine::model::pieces::Piece;
use tenten_engine::search::heuristic::{Policy, Reading};

use common::ui::{harness_sized, preset};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Copies of a few presets in a temporary folder: the monkey's saves and
/// loads touch only these.
fn sandbox(seed: u64) -> (PathBuf, Vec<PathBuf>) {
    let dir = std::env::temp_dir().join(format!("tenten-monkey-{}-{seed}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let presets = preset("deals");
    let mut files = Vec::new();
    for name in [
        "teaching-batch.ron",
        "unsolvable-policies-disagree.ron",
        "block-blast-8x8.ron",
    ] {
        let to = dir.join(name);
        std::fs::copy(presets.join(name), &to).unwrap();
        files.push(to);
    }
    let broken = dir.join("broken.ron");
    std::fs::write(&broken, "[ (board: [\"..\"], holder: [\"dot\"] ").unwrap();
    files.push(broken);
    files.push(dir.join("missing.ron"));
    (dir, files)
}

/// One random action, described for the failure report.
// A command is as large as the Lab's settings; the actions are few and
// short-lived, so boxing buys nothing.
#[allow(clippy::large_enum_variant)]
enum Action {
    Cmd(Command),
    Click(Pos2, PointerButton),
    Key(Modifiers, Key),
}

fn random_command(rng: &mut Generator, files: &[PathBuf]) -> Command {
    let any = |rng: &mut Generator, n: usize| rng.below(n);
    let piece = |rng: &mut Generator| rng.below(24) as u8; // 19 pieces: some out of range
    match rng.below(47) {
        0..=5 => Command::Paint {
            x: any(rng, 14),
            y: any(rng, 14),
            cell: match rng.below(3) {
                0 => Cell::Empty,
                1 => Cell::Painted,
                _ => Cell::Piece(piece(rng)),
            },
            stroke: rng.below(4) as u64,
        },
        6 => Command::FillLine {
            line: if rng.below(2) == 0 {
                Line::Row(any(rng, 14))
            } else {
                Line::Column(any(rng, 14))
            },
            filled: rng.below(2) == 0,
        },
        7 => Command::ClearBoard,
        8 => Command::InvertBoard,
        9 => Command::RandomFill,
        10 => Command::SetFillPercent(rng.below(200) as u32),
        11 => {
            let (w, h) = (4 + rng.below(10), 4 + rng.below(10));
            match BoardSize::new(w, h) {
                Ok(size) => Command::SetSize(size),
                Err(_) => Command::SetSize(BoardSize::CLASSIC),
            }
        }
        12 => Command::SetTool([Tool::Brush, Tool::Row, Tool::Column][rng.below(3)]),
        13 => Command::Place {
            slot: any(rng, 6),
            x: any(rng, 14),
            y: any(rng, 14),
        },
        14 => Command::SelectSlot((rng.below(2) == 0).then(|| any(rng, 6))),
        15..=16 => Command::SetSlot {
            slot: any(rng, 6),
            piece: (rng.below(5) != 0).then(|| piece(rng)),
        },
        17 => Command::ToggleLock(any(rng, 6)),
        18 => Command::SetHolderSize(any(rng, MAX_HOLDER + 3)),
        19 => Command::OpenKillerDeal((0..any(rng, 6)).map(|_| piece(rng)).collect()),
        20..=21 => Command::Deal,
        22 => Command::SetSeed(rng.below(1000) as u64),
        23 => [
            Command::NewSeed,
            Command::CancelLoad,
            Command::PinLabRun,
            Command::UnpinLabRun,
        ][rng.below(4)]
        .clone(),
        24 => Command::SetWeight {
            piece: piece(rng),
            weight: rng.below(3000) as u32,
            stroke: rng.below(3) as u64,
        },
        25 => {
            let id = format!("m{}", rng.below(6));
            let rows: Vec<String> = (0..1 + rng.below(3))
                .map(|_| {
                    (0..1 + rng.below(3))
                        .map(|_| if rng.below(2) == 0 { '#' } else { '.' })
                        .collect()
                })
                .collect();
            match Piece::from_rows(&id, "", rng.below(5) as u32, &rows) {
                Ok(p) => Command::AddPiece(p),
                Err(_) => Command::ClearBoard,
            }
        }
        26 => Command::ResetPieceSet,
        27 => Command::Repair,
        28 => Command::ApplyRepair,
        29 => Command::SetPolicy(Policy::ALL[rng.below(3)]),
        30 => Command::SetReading(if rng.below(2) == 0 {
            Reading::Slot
        } else {
            Reading::Piece
        }),
        31 => Command::SetMaxRedraws(rng.below(200)),
        32 => Command::ShowSolution((rng.below(2) == 0).then(|| any(rng, 6))),
        33 => Command::SetInspectorTab(any(rng, 8)),
        34 => [
            Command::TogglePalette,
            Command::ToggleInspector,
            Command::ToggleHeatmap,
            Command::ToggleDeadRegions,
            Command::ToggleLargeInspector,
        ][rng.below(5)]
        .clone(),
        35..=36 => [Command::Undo, Command::Redo][rng.below(2)].clone(),
        37 => Command::Load(files[rng.below(files.len())].clone()),
        38 => Command::SelectDeal(any(rng, 12)),
        39 => [Command::NextDeal, Command::PrevDeal][rng.below(2)].clone(),
        40 => Command::AddToBatch,
        41 => Command::SetDealsView {
            filter: match rng.below(4) {
                0 => Filter::All,
                1 => Filter::Modified,
                2 => Filter::Only(Verdict::Unsolvable),
                _ => Filter::Only(Verdict::Solvable),
            },
            sort: SortKey::ALL[rng.below(4)],
            descending: rng.below(2) == 0,
        },
        42 => [
            Command::CyclePolicy,
            Command::DismissError,
            Command::CancelJudging,
        ][rng.below(3)]
        .clone(),
        43 => Command::OpenLabDeal(any(rng, 5)),
        // The generator lab: a tiny run now and then, and its replay
        // commands with indices in and out of range.
        44 => [
            Command::SetLab(tenten::app::shell::settings::LabSettings {
                games: 1 + any(rng, 8),
                max_rounds: 1 + any(rng, 60) as u32,
                ..Default::default()
            }),
            Command::StartLab,
            Command::CancelLab,
            Command::CloseLabReplay,
            Command::OpenLabReplayDeal,
        ][rng.below(5)]
        .clone(),
        // The active generator: from a preset, edited (sometimes into rules
        // that must be refused), dealt from, closed.
        45 => match rng.below(4) {
            0 => Command::NewGenerator(["random", "repair", "reject", "bag"][rng.below(4)]),
            1 => Command::CloseGenerator,
            2 => Command::Deal,
            _ => {
                let set = tenten_engine::model::pieces::PieceSet::classic();
                let mut rules = tenten_engine::play::generator_file::preset("bag", &set)
                    .unwrap()
                    .file;
                rules.repeat_previous = rng.unit() * 1.2;
                rules.by_fill = (0..rng.below(3))
                    .map(|b| tenten_engine::play::generator_file::Band {
                        up_to: 0.3 * (b as f64 + 1.0) + rng.unit() * 0.5 - 0.25,
                        scale: [("dot".to_owned(), rng.unit() * 3.0 - 0.5)].into_iter().collect(),
                    })
                    .collect();
                Command::SetGenerator {
                    rules: Box::new(rules),
                    stroke: any(rng, 3) as u64,
                }
            }
        },
        _ => match rng.below(2) {
            0 => Command::ReplayLabGame {
                player: ["novice", "casual", "greedy"][rng.below(3)].to_owned(),
                generator: ["random", "repair", "bag", "nope"][rng.below(4)].to_owned(),
                game: any(rng, 12),
            },
            _ => Command::SetLabReplayStep(any(rng, 300)),
        },
    }
}

/// Keys a user might press, Ctrl shortcuts included. Ctrl+Q (quit) is left
/// out; dialogs answer at once (TENTEN_NO_DIALOGS), saves go to the sandbox.
fn random_key(rng: &mut Generator) -> (Modifiers, Key) {
    const KEYS: [Key; 20] = [
        Key::F5,
        Key::F9,
        Key::F10,
        Key::F11,
        Key::ArrowLeft,
        Key::ArrowRight,
        Key::ArrowUp,
        Key::ArrowDown,
        Key::Enter,
        Key::Escape,
        Key::Space,
        Key::Z,
        Key::Y,
        Key::D,
        Key::R,
        Key::B,
        Key::S,
        Key::PageDown,
        Key::PageUp,
        Key::Num3,
    ];
    let modifiers = match rng.below(4) {
        0 => Modifiers::NONE,
        1 => Modifiers::COMMAND,
        2 => Modifiers::SHIFT,
        _ => Modifiers::ALT,
    };
    (modifiers, KEYS[rng.below(KEYS.len())])
}

fn check(app: &App) -> Result<(), String> {
    let doc = &app.state.doc;
    let size = doc.board.size();
    BoardSize::new(size.w(), size.h()).map_err(|e| format!("board size: {e}"))?;
    if doc.board.cells().len() != size.cells() {
        return Err("board cells and size disagree".to_owned());
    }
    if !(1..=MAX_HOLDER).contains(&doc.slots.len()) {
        return Err(format!("{} slots", doc.slots.len()));
    }
    let n = doc.set.pieces.len();
    if let Some(s) = doc
        .slots
        .iter()
        .find(|s| s.piece.is_some_and(|p| usize::from(p) >= n))
    {
        return Err(format!("slot holds piece {:?} of a set of {n}", s.piece));
    }
    if let Some(b) = &doc.batch
        && b.pos >= b.len()
    {
        return Err(format!("batch position {} of {}", b.pos, b.len()));
    }
    Ok(())
}

fn run_monkey(seed: u64, actions: usize) {
    tenten::app::disable_dialogs();
    let (dir, files) = sandbox(seed);
    let mut rng = Generator::new(seed);
    let mut h = harness_sized(App::new(State::default()), [1280.0, 720.0]);
    let mut log: Vec<String> = Vec::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        for i in 0..actions {
            let action = match rng.below(10) {
                0..=5 => Action::Cmd(random_command(&mut rng, &files)),
                6..=7 => {
                    let pos = Pos2::new(rng.below(1280) as f32, rng.below(720) as f32);
                    let button = if rng.below(4) == 0 {
                        PointerButton::Secondary
                    } else {
                        PointerButton::Primary
                    };
                    Action::Click(pos, button)
                }
                _ => {
                    let (m, k) = random_key(&mut rng);
                    Action::Key(m, k)
                }
            };
            log.push(match &action {
                Action::Cmd(c) => format!("{i}: {c:?}"),
                Action::Click(p, b) => format!("{i}: click {b:?} at ({}, {})", p.x, p.y),
                Action::Key(m, k) => format!("{i}: key {k:?} with {m:?}"),
            });
            match action {
                Action::Cmd(c) => h.state_mut().push(c),
                Action::Click(pos, button) => {
                    h.hover_at(pos);
                    for pressed in [true, false] {
                        h.event(Event::PointerButton {
                            pos,
                            button,
                            pressed,
                            modifiers: Modifiers::NONE,
                        });
                    }
                }
                Action::Key(m, k) => h.key_press_modifiers(m, k),
            }
            h.step();
            h.step();
            if let Err(e) = check(h.state()) {
                panic!("invalid state after action {i}: {e}");
            }
            // Undo then redo gives back the document (when there is an undo).
            if h.state().can_undo() && rng.below(4) == 0 {
                let before = h.state().state.doc.clone();
                h.state_mut().push(Command::Undo);
                h.step();
                h.state_mut().push(Command::Redo);
                h.step();
                assert!(
                    h.state().state.doc == before,
                    "undo then redo changed the document after action {i}"
                );
            }
        }
    }));
    std::fs::remove_dir_all(dir).ok();
    if let Err(panic) = result {
        let tail = log.len().saturating_sub(40);
        eprintln!(
            "UI monkey failed: seed {seed}, after {} actions. The last ones:\n{}",
            log.len(),
            log[tail..].join("\n")
        );
        resume_unwind(panic);
    }
}

#[test]
fn ten_thousand_random_actions_leave_a_valid_undoable_window() {
    let seed = env_or("TENTEN_MONKEY_SEED", 2026);
    let actions = env_or("TENTEN_MONKEY_ACTIONS", 10_000) as usize;
    run_monkey(seed, actions);
}
