//! Every user action is a `Command`, collected during the frame and applied in
//! one place (`App::run`). The same enum gives menu labels and keyboard
//! shortcuts, so menus and hotkeys never disagree.

use std::path::PathBuf;

use egui::{Key, KeyboardShortcut, Modifiers};

use tenten_engine::model::board::{BoardSize, Cell};
use tenten_engine::model::pieces::{Piece, PieceIdx};
use tenten_engine::search::heuristic::Policy;

use crate::app::shell::debugger::DebugBoard;
use crate::app::shell::settings::Tool;

/// A row or a column of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    Row(usize),
    Column(usize),
}

#[derive(Clone, Debug, PartialEq)]
// A handful of commands a frame: the Lab's settings carried by value cost
// a copy of a few hundred bytes, nothing beside a frame, and keep every
// caller's `SetLab(s)` plain.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    // File
    NewBoard,
    OpenDeal,
    OpenPieceSet,
    Save,
    SaveAs,
    SavePieceSetAs,
    /// Open a file by path (recent files, drag-and-drop, tests).
    Load(PathBuf),
    /// Do what a chosen file was for, without asking again (the answer to
    /// "replace it?" or "it changed on disk: overwrite?").
    SaveTo {
        purpose: crate::app::shell::dialogs::Purpose,
        path: PathBuf,
    },
    /// Close the question without doing anything.
    DismissConfirm,
    /// Close the window; with unsaved changes, ask first.
    Quit,
    /// Choose a folder of logs for the Population view (true: to check a
    /// forecast against).
    PickLogFolder(bool),
    /// Show the start page (Help > Welcome).
    ShowWelcome,
    CloseWelcome,
    /// Whether the start page shows when the window opens.
    SetShowWelcome(bool),
    /// Close the window without asking (the answer to Quit's question).
    QuitNow,
    /// Apply the file read before the question whether it may replace the
    /// edited piece set (the answer "Open it").
    OpenPending,
    // Edit
    Undo,
    Redo,
    // View
    TogglePalette,
    ToggleInspector,
    /// The inspector's tab takes the whole central area (or goes back
    /// beside the board).
    ToggleLargeInspector,
    SetInspectorTab(usize),
    // Board
    Paint {
        x: usize,
        y: usize,
        cell: Cell,
        stroke: u64,
    },
    FillLine {
        line: Line,
        filled: bool,
    },
    ClearBoard,
    InvertBoard,
    RandomFill,
    SetFillPercent(u32),
    SetSize(BoardSize),
    SetTool(Tool),
    /// Manual play: put a holder piece at an anchor and clear lines.
    Place {
        slot: usize,
        x: usize,
        y: usize,
    },
    // Holder
    SelectSlot(Option<usize>),
    SetSlot {
        slot: usize,
        piece: Option<PieceIdx>,
    },
    ToggleLock(usize),
    SetHolderSize(usize),
    /// A killer deal's click: the board with these pieces in the holder (one
    /// per slot, resizing it) as a new, untitled deal, one undo step, and the
    /// tree tab open on it.
    OpenKillerDeal(Vec<PieceIdx>),
    Deal,
    SetSeed(u64),
    NewSeed,
    // Pieces
    /// `stroke` groups the changes of one slider drag into one undo step.
    SetWeight {
        piece: PieceIdx,
        weight: u32,
        stroke: u64,
    },
    AddPiece(Piece),
    // Generator
    /// Choose a generator file to open, or open this one.
    OpenGenerator,
    LoadGenerator(std::path::PathBuf),
    /// Start from a preset generator (random, repair, reject, bag).
    NewGenerator(&'static str),
    /// The edited rules; `stroke` groups one drag's changes into one undo
    /// step (0: a step of its own).
    SetGenerator {
        rules: Box<tenten_engine::play::generator_file::GeneratorFile>,
        stroke: u64,
    },
    /// Deal from the palette's weights again.
    CloseGenerator,
    SaveGenerator,
    SaveGeneratorAs,
    /// Back to the set as it came from its file (or the built-in one).
    ResetPieceSet,
    // Verdict and repair
    Repair,
    /// Stop a repair that is still running.
    CancelRepair,
    /// Stop reading a large file; the document stays as it was.
    CancelLoad,
    ApplyRepair,
    SetPolicy(Policy),
    SetReading(tenten_engine::search::heuristic::Reading),
    /// deepest -> last -> frequency -> deepest.
    CyclePolicy,
    SetMaxRedraws(usize),
    /// Step the found solution on the board (`None` closes it).
    ShowSolution(Option<usize>),
    DismissError,
    // The danger panel's board overlays
    ToggleHeatmap,
    ToggleDeadRegions,
    /// Keep games played by hand as a log (or stop).
    ToggleRecordPlay,
    /// Follow a playtest folder live in the Population view (`None` stops).
    FollowPlaytest(Option<std::path::PathBuf>),
    /// Refit the followed folder's population every N new games (`None`: on demand).
    SetRefitEvery(Option<u64>),
    /// Serve a playtest page from the window, dealt by `generator` on the
    /// board's rules, its logs in `folder` (`None`: a new folder in the
    /// data folder's `playtests/`; a playtest's folder resumes it); `open`:
    /// reachable by other devices (with the folder's token).
    ServePlaytest {
        generator: String,
        folder: Option<std::path::PathBuf>,
        open: bool,
    },
    StopPlaytest,
    // The timing lab
    SetTiming(crate::app::shell::settings::TimingSettings),
    StartSweep,
    CancelSweep,
    /// Open deal i of the last sweep on the board and in the tree tab.
    OpenLabDeal(usize),
    // The generator lab
    SetLab(crate::app::shell::settings::LabSettings),
    StartLab,
    CancelLab,
    /// Choose a generator file for the Lab to compare.
    AddLabGenerator,
    /// Choose a player file for the Lab (and the Tune view) to play.
    AddLabPlayer,
    /// Add the player just fitted to the open log to the Lab, and play it.
    UseFittedInLab,
    /// Tune the active generator (or the random one) toward the Lab's
    /// targets; stop it; put its result in the palette and the Generator
    /// tab (undoable).
    StartTune,
    CancelTune,
    /// Run a calibration study (the Calibration page).
    StartCalibration(Box<tenten_engine::study::calibrate::Plan>),
    CancelCalibration,
    /// Plan a playtest (the Population view): `fitted` asks it of the
    /// fitted population, else of the demo one.
    PlanPlaytest {
        fitted: bool,
        figure: String,
        sessions: usize,
        question: crate::app::jobs::playtest_plan::Question,
    },
    CancelPlanPlaytest,
    ApplyTuned,
    /// Play game `game` of `player` against `generator` of the last run
    /// again, round by round.
    ReplayLabGame {
        player: String,
        generator: String,
        game: usize,
    },
    SetLabReplayStep(usize),
    CloseLabReplay,
    /// Put the replay's current round (board and dealt holder) in the document.
    OpenLabReplayDeal,
    /// Learn a generator from the open log's deals (the Generator tab);
    /// from a folder chosen; stop; make the learned one the active
    /// generator; add it to the Lab.
    LearnGenerator,
    PickLearnFolder,
    CancelLearn,
    OpenLearned,
    LearnedToLab,
    /// Fit a player (temperature and slip) to the open playtest log.
    FitPlayer(tenten_engine::play::player::Lookahead),
    CancelFit,
    /// Compare every model on the open playtest log, fit the best and check it.
    ExplainLog,
    CancelExplain,
    /// Fit a population to every tester's log in a folder (the Population view).
    FitPopulation(std::path::PathBuf),
    CancelPopulationFit,
    /// Forecast the Lab's generators for the fitted population (or the demo
    /// when `fitted` is false), `players` players; check the generator a
    /// folder's logs were played under against them.
    ForecastPopulation {
        players: usize,
        fitted: bool,
        check: Option<std::path::PathBuf>,
    },
    CancelForecast,
    /// Keep the forecast to compare the next with; drop the kept one.
    PinForecast,
    UnpinForecast,
    /// Keep the Lab's results to compare the next runs with; drop the kept ones.
    PinLabRun,
    UnpinLabRun,
    /// Show the other kept run (a finished run, or a cancelled re-run's
    /// partial games) in place of the one shown.
    SwapLabRun,
    // The deal browser
    /// Show deal `pos` (its place in the batch's list, 0-based).
    SelectDeal(usize),
    NextDeal,
    PrevDeal,
    /// Append the deal on screen to the open batch (or start one).
    AddToBatch,
    SetDealsView {
        filter: tenten_engine::io::batch::Filter,
        sort: tenten_engine::io::batch::SortKey,
        descending: bool,
    },
    CancelJudging,
    ExportBatchCsv,
    SaveFilteredAs,
    // The tree debugger
    /// What the board shows for the debugger's current event (`None`: the live board).
    DebugBoard(Option<DebugBoard>),
    /// Trace this holder instead of the live one (`None`: back to the live deal).
    Replay(Option<Vec<PieceIdx>>),
    /// Save text (an export) through a save dialog.
    SaveText {
        title: &'static str,
        name: &'static str,
        text: String,
    },
}

const fn ctrl(key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::COMMAND, key)
}

const fn alt(key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::ALT, key)
}

const fn ctrl_shift(key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), key)
}

impl Command {
    /// Commands reachable by a keyboard shortcut, checked in this order (the
    /// shifted ones first, so Ctrl+Shift+S is not taken for Ctrl+S).
    pub fn with_shortcuts() -> [Command; 28] {
        [
            Command::SetInspectorTab(0),
            Command::SetInspectorTab(1),
            Command::SetInspectorTab(2),
            Command::SetInspectorTab(3),
            Command::SetInspectorTab(4),
            Command::SetInspectorTab(5),
            Command::SetInspectorTab(6),
            Command::NextDeal,
            Command::PrevDeal,
            Command::AddToBatch,
            Command::CyclePolicy,
            Command::ToggleHeatmap,
            Command::ToggleDeadRegions,
            Command::Quit,
            Command::SaveAs,
            Command::OpenPieceSet,
            Command::Redo,
            Command::NewBoard,
            Command::OpenDeal,
            Command::Save,
            Command::Undo,
            Command::Deal,
            Command::Repair,
            Command::RandomFill,
            Command::NewSeed,
            Command::TogglePalette,
            Command::ToggleInspector,
            Command::ToggleLargeInspector,
        ]
    }

    pub fn shortcut(&self) -> Option<KeyboardShortcut> {
        Some(match self {
            Command::Quit => ctrl(Key::Q),
            Command::NewBoard => ctrl(Key::N),
            Command::OpenDeal => ctrl(Key::O),
            Command::OpenPieceSet => ctrl_shift(Key::O),
            Command::Save => ctrl(Key::S),
            Command::SaveAs => ctrl_shift(Key::S),
            Command::Undo => ctrl(Key::Z),
            Command::Redo => ctrl_shift(Key::Z),
            Command::Deal => ctrl(Key::D),
            Command::Repair => ctrl(Key::R),
            Command::RandomFill => ctrl(Key::F),
            Command::NewSeed => ctrl(Key::G),
            Command::TogglePalette => ctrl(Key::Num1),
            Command::ToggleInspector => ctrl(Key::Num2),
            Command::ToggleLargeInspector => ctrl(Key::Num3),
            Command::SetInspectorTab(0) => alt(Key::Num1),
            Command::SetInspectorTab(1) => alt(Key::Num2),
            Command::SetInspectorTab(2) => alt(Key::Num3),
            Command::SetInspectorTab(3) => alt(Key::Num4),
            Command::SetInspectorTab(4) => alt(Key::Num5),
            Command::SetInspectorTab(5) => alt(Key::Num6),
            Command::SetInspectorTab(6) => alt(Key::Num7),
            Command::NextDeal => ctrl(Key::PageDown),
            Command::PrevDeal => ctrl(Key::PageUp),
            Command::AddToBatch => ctrl(Key::B),
            Command::CyclePolicy => alt(Key::P),
            Command::ToggleHeatmap => alt(Key::H),
            Command::ToggleDeadRegions => alt(Key::D),
            _ => return None,
        })
    }

    /// Ctrl+Y also redoes, as on most desktops.
    pub fn alternate_shortcut(&self) -> Option<KeyboardShortcut> {
        matches!(self, Command::Redo).then_some(ctrl(Key::Y))
    }

    pub fn label(&self) -> &'static str {
        match self {
            Command::NewBoard => "New board",
            Command::OpenDeal => "Open deal, board, batch or log…",
            Command::OpenPieceSet => "Open piece set…",
            Command::Save => "Save",
            Command::SaveAs => "Save as…",
            Command::SavePieceSetAs => "Save piece set as…",
            Command::Quit => "Quit",
            Command::Undo => "Undo",
            Command::Redo => "Redo",
            Command::TogglePalette => "Piece palette",
            Command::ToggleInspector => "Inspector",
            Command::ToggleLargeInspector => "Tab takes the whole window",
            Command::ClearBoard => "Clear board",
            Command::InvertBoard => "Invert",
            Command::RandomFill => "Random fill",
            Command::Deal => "Deal",
            Command::NewSeed => "New seed",
            Command::Repair => "Repair",
            Command::ApplyRepair => "Apply",
            Command::SetInspectorTab(0) => "Deal tab",
            Command::SetInspectorTab(1) => "AND-OR tree tab",
            Command::SetInspectorTab(2) => "Heuristic F tab",
            Command::SetInspectorTab(3) => "Timing tab",
            Command::SetInspectorTab(4) => "Deals tab",
            Command::SetInspectorTab(5) => "Lab tab",
            Command::SetInspectorTab(6) => "Population tab",
            Command::NextDeal => "Next deal in the list",
            Command::PrevDeal => "Previous deal in the list",
            Command::AddToBatch => "Add to batch",
            Command::ExportBatchCsv => "Export verdicts as CSV…",
            Command::SaveFilteredAs => "Save the deals shown as…",
            Command::CyclePolicy => "Next failure policy",
            Command::ToggleHeatmap => "Danger heatmap",
            Command::ToggleDeadRegions => "Dead regions",
            Command::ToggleRecordPlay => "Record games played by hand",
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_command_has_a_label_and_a_distinct_shortcut() {
        let all = Command::with_shortcuts();
        for (i, c) in all.iter().enumerate() {
            assert!(!c.label().is_empty(), "{c:?}");
            let s = c.shortcut().unwrap();
            for other in &all[i + 1..] {
                assert_ne!(Some(s), other.shortcut(), "{c:?} and {other:?}");
            }
        }
    }
}
