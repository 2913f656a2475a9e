//! The workbench window: the persisted `State`, the runtime `Live` view of it,
//! the panels, and `run`, the one place where commands change anything.

use std::path::PathBuf;

use crate::engine::bench::time_validate;
use crate::engine::board::{Bits, Board, BoardSize, Cell, Lines};
use crate::engine::changer::{ChangeOptions, Outcome, Repair};
use crate::engine::generator::Generator;
use crate::engine::heuristic::Policy;
use crate::engine::pieces::{PieceIdx, PieceSet};
use crate::engine::shapes::{Shapes, score};
use crate::engine::simulation::{play, random_fill};
use crate::engine::validator::{MAX_HOLDER, Validation, validate};

use super::board_view::BoardView;
use super::command::{Command, Line};
use super::danger_job::DangerState;
use super::debugger::DebugBoard;
use super::files;
use super::holder::HolderPanel;
use super::inspector::Inspector;
use super::jobs::{RepairInput, RepairJob};
use super::palette::Palette;
use super::state::{Doc, Slot, State};
use super::status_bar;
use super::timing_job::{SweepRequest, TimingLab};
use super::top_bar;
use super::undo::{EditKey, Undo};

/// The live verdict on the current deal.
pub struct Verdict {
    pub validation: Validation,
    /// Mean microseconds of one fast-path validation.
    pub micros: f64,
}

/// A finished repair and what it was asked.
pub struct RepairView {
    pub input: RepairInput,
    pub result: Repair,
}

/// Lines that just cleared in manual play, flashing for a moment.
pub struct Flash {
    pub cells: Bits,
    pub lines: Lines,
    pub started: f64,
}

impl Flash {
    pub const SECONDS: f64 = 0.45;
}

/// Everything the panels read that is not persisted.
pub struct Live {
    pub shapes: Shapes,
    /// `None` while the holder is empty.
    pub verdict: Option<Verdict>,
    pub selected_slot: Option<usize>,
    pub repair: Option<RepairView>,
    pub repair_running: bool,
    pub solution_step: Option<usize>,
    pub flash: Option<Flash>,
    /// A message shown in a dialog until dismissed (a failed load or save).
    pub error: Option<String>,
    pub status: String,
    pub can_undo: bool,
    pub can_redo: bool,
    /// The tree debugger's view of the board, while its tab is open.
    pub debug_board: Option<DebugBoard>,
    /// When the debugger's view last changed, for a short flash of cleared lines.
    pub debug_since: f64,
    /// A holder from the changer's history being replayed in the tree tab.
    pub replay: Option<Vec<PieceIdx>>,
    /// The danger of the next deal on this board, kept current in the background.
    pub danger: DangerState,
    /// The timing lab's last sweep and the job running it.
    pub timing: TimingLab,
    /// The open batch's deal list: verdicts, filter, order.
    pub deals: super::batch::DealsView,
}

impl Live {
    /// The solution of the live verdict, if solvable.
    pub fn solution(&self) -> Option<&crate::engine::validator::Solution> {
        self.verdict.as_ref()?.validation.solution.as_ref()
    }
}

pub struct App {
    pub state: State,
    pub live: Live,
    pub(super) undo: Undo<Doc>,
    cmds: Vec<Command>,
    job: Option<RepairJob>,
    /// The document the verdict was computed for.
    validated: Option<(Doc, BoardSize)>,
    palette: Palette,
    board_view: BoardView,
    holder: HolderPanel,
    inspector: Inspector,
    fills: u64,
    /// Numbers each batch opening (see `batch::Source::id`).
    pub(super) batches_opened: u64,
}

impl App {
    pub fn new(mut state: State) -> Self {
        state.doc.sanitize();
        let shapes = Shapes::new(&state.doc.set, state.doc.board.size());
        let mut app = Self {
            state,
            live: Live {
                shapes,
                verdict: None,
                selected_slot: None,
                repair: None,
                repair_running: false,
                solution_step: None,
                flash: None,
                error: None,
                status: "Ready".to_owned(),
                can_undo: false,
                can_redo: false,
                debug_board: None,
                debug_since: 0.0,
                replay: None,
                danger: DangerState::default(),
                timing: TimingLab::default(),
                deals: Default::default(),
            },
            undo: Undo::default(),
            cmds: Vec::new(),
            job: None,
            validated: None,
            palette: Palette::default(),
            board_view: BoardView::default(),
            holder: HolderPanel,
            inspector: Inspector::default(),
            fills: 0,
            batches_opened: 0,
        };
        app.refresh();
        app
    }

    /// The window as eframe opens it: the stored session, else the classic preset.
    pub fn from_storage(storage: Option<&dyn eframe::Storage>) -> Self {
        let state = storage
            .and_then(|s| eframe::get_value::<State>(s, eframe::APP_KEY))
            .unwrap_or_default();
        Self::new(state)
    }

    /// Whether Undo has a step to take back (tests check undo-redo pairs).
    pub fn can_undo(&self) -> bool {
        self.undo.can_undo()
    }

    /// Queues a command, as a panel would (tests use this too).
    pub fn push(&mut self, cmd: Command) {
        self.cmds.push(cmd);
    }

    /// One frame of the whole window.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.shortcuts(&ctx);
        self.dropped_files(&ctx);
        self.poll_job();
        if let Some(complete) = self.live.timing.poll() {
            let n = self.live.timing.measurements.len();
            self.live.status = match (&self.live.timing.error, complete) {
                (Some(e), _) => format!("Timing sweep failed: {e}"),
                (None, true) => format!("Timing sweep done: {n} measurements"),
                (None, false) => format!("Timing sweep cancelled after {n} measurements"),
            };
        }

        top_bar::ui(ui, &self.state, &self.live, &mut self.cmds);
        status_bar::ui(ui, &self.live, &self.state.settings.timing);
        if self.state.settings.show_palette {
            // Restored widths may come from a larger screen: the board and
            // the banner keep at least about half of this one.
            let width = ctx.content_rect().width();
            egui::Panel::left("palette")
                .resizable(true)
                .default_size(250.0)
                .size_range(200.0..=(0.25 * width).max(200.0))
                .show(ui, |ui| {
                    fixed_width(ui, |ui| {
                        self.palette.ui(ui, &self.state, &self.live, &mut self.cmds)
                    })
                });
        }
        if self.state.settings.show_inspector {
            let width = ctx.content_rect().width();
            egui::Panel::right("inspector")
                .resizable(true)
                .default_size(360.0)
                .size_range(280.0..=(0.4 * width).max(280.0))
                .show(ui, |ui| {
                    fixed_width(ui, |ui| {
                        self.inspector.ui(ui, &self.state, &self.live, &mut self.cmds)
                    })
                });
        }
        egui::CentralPanel::default().show(ui, |ui| {
            self.board_view.ui(ui, &self.state, &self.live, &mut self.cmds);
            self.holder.ui(ui, &self.state, &self.live, &mut self.cmds);
        });
        if let Some(message) = &self.live.error {
            files::error_dialog(&ctx, message, &mut self.cmds);
        }
        if let Some(f) = &self.live.flash {
            let now = ctx.input(|i| i.time);
            if now - f.started > Flash::SECONDS {
                self.live.flash = None;
            } else {
                ctx.request_repaint();
            }
        }
        let time = ctx.input(|i| i.time);
        self.run(&ctx, time);
    }

    /// Only the piece palette (for its snapshot test and embedding).
    pub fn show_palette_only(&mut self, ui: &mut egui::Ui) {
        self.palette.ui(ui, &self.state, &self.live, &mut self.cmds);
        let time = ui.input(|i| i.time);
        self.run(&ui.ctx().clone(), time);
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        // Text fields keep their own Ctrl+Z and friends.
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        for cmd in Command::with_shortcuts() {
            let pressed = ctx.input_mut(|i| {
                cmd.shortcut().is_some_and(|s| i.consume_shortcut(&s))
                    || cmd.alternate_shortcut().is_some_and(|s| i.consume_shortcut(&s))
            });
            if pressed {
                self.cmds.push(cmd);
            }
        }
    }

    fn dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        self.cmds.extend(dropped.into_iter().map(Command::Load));
    }

    fn poll_job(&mut self) {
        let Some(job) = &self.job else { return };
        match job.poll() {
            None => {}
            Some(Ok(result)) => {
                let input = job.input.clone();
                self.live.status = match result.outcome {
                    Outcome::Unchanged => "Repair: the holder was already solvable".to_owned(),
                    Outcome::Repaired => format!(
                        "Repair: solvable after {} change(s): {}",
                        result.changes(),
                        input.set.ids(&result.holder)
                    ),
                    Outcome::Dead => "Repair: the board is dead, no holder of this size fits".to_owned(),
                };
                self.live.repair = Some(RepairView { input, result });
                self.job = None;
            }
            Some(Err(())) => {
                self.live.error = Some("The repair stopped unexpectedly.".to_owned());
                self.job = None;
            }
        }
        self.live.repair_running = self.job.is_some();
    }

    /// Applies the frame's commands, then brings the verdict up to date.
    pub fn run(&mut self, ctx: &egui::Context, time: f64) {
        if !self.cmds.is_empty() {
            // The frame was drawn before these applied: draw it again.
            ctx.request_repaint();
        }
        for cmd in std::mem::take(&mut self.cmds) {
            self.apply(cmd, ctx, time);
        }
        self.refresh();
        self.live.danger.update(&self.state, ctx);
        let options = ChangeOptions {
            policy: self.state.settings.policy,
            reading: self.state.settings.reading,
            max_redraws: self.state.settings.max_redraws,
        };
        self.live.deals.update(&self.state.doc, options, ctx);
    }

    pub(super) fn edit(&mut self, key: EditKey) {
        self.undo.record(&self.state.doc, key);
    }

    fn apply(&mut self, cmd: Command, ctx: &egui::Context, time: f64) {
        let doc = &self.state.doc;
        let size = doc.board.size();
        match cmd {
            Command::NewBoard => {
                self.edit(EditKey::Single);
                let doc = &mut self.state.doc;
                doc.board = Board::empty(size);
                doc.score = 0;
                self.state.settings.file = None;
                self.live.status = format!("New {size} board");
            }
            Command::OpenDeal => {
                if let Some(path) = files::pick_open("Open deal or board") {
                    self.load(&path);
                } else {
                    self.live.status = files::NO_FILE_CHOSEN.to_owned();
                }
            }
            Command::OpenPieceSet => {
                if let Some(path) = files::pick_open("Open piece set") {
                    self.load(&path);
                } else {
                    self.live.status = files::NO_FILE_CHOSEN.to_owned();
                }
            }
            Command::Load(path) => self.load(&path),
            // eframe saves the session on the way out.
            Command::Quit => ctx.send_viewport_cmd(egui::ViewportCommand::Close),
            Command::Save => {
                let batch_file = self.state.doc.batch.as_ref().map(|b| b.source.path.clone());
                match (self.state.settings.file.clone(), batch_file) {
                    // The open batch, whole.
                    (Some(path), Some(source)) if path == source => self.save_batch(&path),
                    (Some(path), None) => self.save_deal(&path),
                    _ => self.apply(Command::SaveAs, ctx, time),
                }
            }
            Command::SaveAs => {
                let batch = self.state.doc.batch.is_some();
                let (title, name) = if batch {
                    ("Save the whole batch", "deals.ron")
                } else {
                    ("Save deal", "deal.ron")
                };
                match files::pick_save(title, name) {
                    Some(path) if batch => self.save_batch(&path),
                    Some(path) => self.save_deal(&path),
                    None => self.live.status = files::NO_FILE_CHOSEN.to_owned(),
                }
            }
            Command::SavePieceSetAs => {
                if let Some(path) = files::pick_save("Save piece set", "pieces.ron") {
                    match files::save_piece_set(&path, &self.state.doc.set) {
                        Ok(()) => {
                            self.live.status = format!("Saved piece set to {}", path.display());
                            self.state.doc.set_origin = self.state.doc.set.clone();
                            self.state.settings.pieces_file = Some(path);
                        }
                        Err(e) => self.live.error = Some(e),
                    }
                } else {
                    self.live.status = files::NO_FILE_CHOSEN.to_owned();
                }
            }
            Command::Undo => {
                if let Some(prev) = self.undo.undo(&self.state.doc) {
                    self.state.doc = prev;
                    self.live.status = "Undo".to_owned();
                }
            }
            Command::Redo => {
                if let Some(next) = self.undo.redo(&self.state.doc) {
                    self.state.doc = next;
                    self.live.status = "Redo".to_owned();
                }
            }
            Command::TogglePalette => self.state.settings.show_palette ^= true,
            Command::ToggleInspector => {
                self.state.settings.show_inspector ^= true;
                self.live.debug_board = None;
            }
            Command::SetInspectorTab(i) => {
                self.state.settings.inspector_tab = i;
                // The tree tab puts its view back when it is shown.
                self.live.debug_board = None;
            }
            Command::Paint { x, y, cell, stroke } => {
                if x < size.w() && y < size.h() && doc.board.get(x, y) != cell {
                    self.edit(EditKey::Stroke(stroke));
                    self.state.doc.board.set(x, y, cell);
                    self.live.status = "Painting".to_owned();
                }
            }
            Command::FillLine { line, filled } => {
                let inside = match line {
                    Line::Row(y) => y < size.h(),
                    Line::Column(x) => x < size.w(),
                };
                if !inside {
                    self.live.status = format!("No {line:?} on a {size} board");
                    return;
                }
                self.edit(EditKey::Single);
                let board = &mut self.state.doc.board;
                let cell = if filled { Cell::Painted } else { Cell::Empty };
                let (what, cells): (String, Vec<(usize, usize)>) = match line {
                    Line::Row(y) => (format!("row {y}"), (0..size.w()).map(|x| (x, y)).collect()),
                    Line::Column(x) => (format!("column {x}"), (0..size.h()).map(|y| (x, y)).collect()),
                };
                for (x, y) in cells {
                    if board.get(x, y).is_filled() != filled {
                        board.set(x, y, cell);
                    }
                }
                self.live.status = format!("{} {what}", if filled { "Filled" } else { "Cleared" });
            }
            Command::ClearBoard => {
                self.edit(EditKey::Single);
                self.state.doc.board = Board::empty(size);
                self.live.status = "Cleared the board".to_owned();
            }
            Command::InvertBoard => {
                self.edit(EditKey::Single);
                let board = &mut self.state.doc.board;
                for y in 0..size.h() {
                    for x in 0..size.w() {
                        let c = if board.get(x, y).is_filled() {
                            Cell::Empty
                        } else {
                            Cell::Painted
                        };
                        board.set(x, y, c);
                    }
                }
                self.live.status = "Inverted the board".to_owned();
            }
            Command::RandomFill => {
                self.edit(EditKey::Single);
                let pct = self.state.settings.fill_percent;
                self.fills += 1;
                let mut rng = Generator::new(self.state.settings.seed ^ self.fills.wrapping_mul(0x9E37_79B9));
                let doc = &mut self.state.doc;
                doc.board = random_fill(&self.live.shapes, &doc.set, f64::from(pct) / 100.0, &mut rng);
                self.live.status = format!(
                    "Random fill by self-play: {} of {} cells",
                    doc.board.filled(),
                    size.cells()
                );
            }
            Command::SetFillPercent(p) => self.state.settings.fill_percent = p.min(95),
            Command::SetSize(new) => {
                if new != size {
                    self.edit(EditKey::Single);
                    let doc = &mut self.state.doc;
                    doc.board = doc.board.resized(new);
                    self.live.status = format!("Board size {new}");
                }
            }
            Command::SetTool(tool) => self.state.settings.tool = tool,
            Command::Place { slot, x, y } => self.place(slot, x, y, time),
            Command::SelectSlot(slot) => self.live.selected_slot = slot,
            Command::SetSlot { slot, piece } => {
                let known = piece.is_none_or(|p| usize::from(p) < doc.set.pieces.len());
                if known && slot < doc.slots.len() && doc.slots[slot].piece != piece {
                    self.edit(EditKey::Single);
                    self.state.doc.slots[slot].piece = piece;
                    let name = piece.map_or("empty".to_owned(), |p| self.state.doc.set.piece(p).id.clone());
                    self.live.status = format!("Slot {} = {name}", slot + 1);
                    // The next slot is the likely next pick.
                    let next = slot + 1;
                    self.live.selected_slot = (next < self.state.doc.slots.len()).then_some(next);
                }
            }
            Command::ToggleLock(slot) => {
                if let Some(s) = self.state.doc.slots.get_mut(slot) {
                    s.locked ^= true;
                }
            }
            Command::SetHolderSize(k) => {
                let k = k.clamp(1, MAX_HOLDER);
                if k != doc.slots.len() {
                    self.edit(EditKey::Single);
                    self.state.doc.slots.resize(k, Slot::default());
                    self.live.selected_slot = self.live.selected_slot.filter(|&s| s < k);
                }
            }
            Command::SetHolder(pieces) => {
                let n = self.state.doc.set.pieces.len();
                if (1..=MAX_HOLDER).contains(&pieces.len()) && pieces.iter().all(|&p| usize::from(p) < n) {
                    self.edit(EditKey::Single);
                    self.state.doc.slots = pieces
                        .iter()
                        .map(|&p| Slot {
                            piece: Some(p),
                            locked: false,
                        })
                        .collect();
                    self.live.selected_slot = None;
                    self.state.settings.inspector_tab = super::tabs::TREE_TAB;
                    self.state.settings.show_inspector = true;
                    self.live.status = format!("Holder {}", self.state.doc.set.ids(&pieces));
                }
            }
            Command::Deal => self.deal(),
            Command::SetSeed(seed) => {
                self.state.settings.seed = seed;
                self.state.doc.deals = 0;
            }
            Command::NewSeed => {
                let mut rng = Generator::new(self.state.settings.seed ^ time.to_bits());
                self.state.settings.seed = rng.below(1_000_000) as u64;
                self.state.doc.deals = 0;
                self.live.status = format!("New seed {}", self.state.settings.seed);
            }
            Command::SetWeight {
                piece,
                weight,
                stroke,
            } => {
                let set = &self.state.doc.set;
                let Some(current) = set.pieces.get(usize::from(piece)).map(|p| p.weight) else {
                    return;
                };
                let weight = weight.min(crate::engine::pieces::MAX_WEIGHT);
                if current != weight {
                    let others = set.total_weight() - u64::from(current);
                    if weight == 0 && others == 0 {
                        self.live.status = "At least one piece needs a positive weight".to_owned();
                    } else {
                        self.edit(EditKey::Weight(stroke));
                        self.state.doc.set.pieces[usize::from(piece)].weight = weight;
                    }
                }
            }
            Command::AddPiece(piece) => {
                if doc.set.index_of(&piece.id).is_some() {
                    self.live.error = Some(format!("A piece with id {:?} is already in the set.", piece.id));
                } else if doc.set.pieces.len() >= 255 {
                    self.live.error = Some("A piece set holds at most 255 pieces.".to_owned());
                } else {
                    self.edit(EditKey::Single);
                    self.live.status = format!("Added piece {}", piece.id);
                    self.state.doc.set.pieces.push(piece);
                }
            }
            Command::SelectDeal(pos) => self.select_deal(pos),
            Command::NextDeal => self.step_deal(true),
            Command::PrevDeal => self.step_deal(false),
            Command::AddToBatch => self.add_to_batch(),
            Command::SetDealsView {
                filter,
                sort,
                descending,
            } => {
                let d = &mut self.live.deals;
                (d.filter, d.sort, d.descending) = (filter, sort, descending);
            }
            Command::CancelJudging => self.live.deals.cancel(),
            Command::ExportBatchCsv => match self.batch_csv() {
                Some(text) => self.cmds.push(Command::SaveText {
                    title: "Save the batch's verdicts as CSV",
                    name: "verdicts.csv",
                    text,
                }),
                None => self.live.status = "No batch is open".to_owned(),
            },
            Command::SaveFilteredAs => self.save_filtered_as(),
            Command::ResetPieceSet => {
                if self.state.doc.set_modified() {
                    self.edit(EditKey::Single);
                    let origin = self.state.doc.set_origin.clone();
                    let closed = self.switch_set(origin);
                    self.live.status = format!("Piece set reset to {}{closed}", self.state.doc.set.name);
                }
            }
            Command::Repair => self.start_repair(ctx),
            Command::ApplyRepair => {
                if let Some(view) = &self.live.repair
                    && view.result.outcome == Outcome::Repaired
                    && view.input.set == self.state.doc.set
                {
                    let holder = view.result.holder.clone();
                    self.edit(EditKey::Single);
                    let filled: Vec<usize> = (0..self.state.doc.slots.len())
                        .filter(|&i| self.state.doc.slots[i].piece.is_some())
                        .collect();
                    for (slot, piece) in filled.into_iter().zip(holder) {
                        self.state.doc.slots[slot].piece = Some(piece);
                    }
                    self.live.status = "Applied the repaired holder".to_owned();
                }
            }
            Command::SetPolicy(p) => self.state.settings.policy = p,
            Command::SetReading(r) => {
                self.state.settings.reading = r;
                self.live.status = format!("Repeated pieces read {}", r.describe());
            }
            Command::CyclePolicy => {
                let all = Policy::ALL;
                let i = all
                    .iter()
                    .position(|&p| p == self.state.settings.policy)
                    .unwrap_or(0);
                self.state.settings.policy = all[(i + 1) % all.len()];
                self.live.status = format!("Failure policy: {}", self.state.settings.policy);
            }
            Command::SetMaxRedraws(n) => self.state.settings.max_redraws = n,
            Command::ShowSolution(step) => {
                // Steps 0..n of the solution found; anything else is refused.
                let steps = self.live.solution().map_or(0, |s| s.steps().len());
                self.live.solution_step = step.filter(|&i| i < steps);
            }
            Command::DismissError => self.live.error = None,
            Command::SetTiming(settings) => self.state.settings.timing = settings,
            Command::StartSweep => self.start_sweep(ctx),
            Command::CancelSweep => self.live.timing.cancel(),
            Command::OpenLabDeal(i) => self.open_lab_deal(i),
            Command::ToggleHeatmap => self.state.settings.danger_heatmap ^= true,
            Command::ToggleDeadRegions => self.state.settings.danger_dead_regions ^= true,
            Command::DebugBoard(board) => {
                self.live.debug_board = board;
                self.live.debug_since = time;
            }
            Command::Replay(holder) => {
                if holder.is_some() {
                    self.state.settings.inspector_tab = super::tabs::TREE_TAB;
                    self.state.settings.show_inspector = true;
                }
                self.live.replay = holder;
            }
            Command::SaveText { title, name, text } => match files::pick_save(title, name) {
                Some(path) => match crate::engine::formats::write_atomic(&path, &text) {
                    Ok(()) => self.live.status = format!("Saved {}", path.display()),
                    Err(e) => self.live.error = Some(e.to_string()),
                },
                None => self.live.status = files::NO_FILE_CHOSEN.to_owned(),
            },
        }
    }

    /// Manual play: place, clear, score, flash.
    fn place(&mut self, slot: usize, x: usize, y: usize, time: f64) {
        let Some(piece) = self.state.doc.slots.get(slot).and_then(|s| s.piece) else {
            return;
        };
        let size = self.live.shapes.size();
        let anchor = size.bit(x, y);
        let shape = self.live.shapes.shape(piece);
        let fits = x < size.w()
            && y < size.h()
            && shape.fits(self.state.doc.board.bits(), self.live.shapes.geometry.full) >> anchor & 1 == 1;
        if !fits {
            self.live.status = format!("{} does not fit there", self.state.doc.set.piece(piece).id);
            return;
        }
        self.edit(EditKey::Single);
        let shapes = &self.live.shapes;
        let before = self.state.doc.board.bits();
        let doc = &mut self.state.doc;
        let lines = play(&mut doc.board, shapes, piece, anchor);
        let gained = score(doc.set.piece(piece).size(), lines);
        doc.score += gained;
        doc.slots[slot].piece = None;
        if !lines.is_empty() {
            let cells = (before | shapes.shape(piece).mask << anchor) & shapes.geometry.mask_of(lines);
            self.live.flash = Some(Flash {
                cells,
                lines,
                started: time,
            });
        }
        self.live.status = if lines.is_empty() {
            format!("Placed {} (+{gained})", doc.set.piece(piece).id)
        } else {
            format!(
                "Placed {}, cleared {} (+{gained})",
                doc.set.piece(piece).id,
                lines.describe()
            )
        };
    }

    /// Deals every unlocked slot from the seeded generator. The n-th deal of a
    /// seed is reproducible; the first equals `tenten deal --seed S`.
    fn deal(&mut self) {
        self.edit(EditKey::Single);
        let seed = self
            .state
            .settings
            .seed
            .wrapping_add(self.state.doc.deals.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut generator = Generator::new(seed);
        let doc = &mut self.state.doc;
        for slot in &mut doc.slots {
            let piece = generator.draw(&doc.set);
            if !slot.locked {
                slot.piece = Some(piece);
            }
        }
        doc.deals += 1;
        self.live.status = format!(
            "Dealt {} (seed {}, deal {})",
            doc.set.ids(&doc.holder()),
            self.state.settings.seed,
            doc.deals
        );
    }

    fn start_repair(&mut self, ctx: &egui::Context) {
        let holder = self.state.doc.holder();
        if holder.is_empty() || self.job.is_some() {
            return;
        }
        let input = RepairInput {
            set: self.state.doc.set.clone(),
            shapes_size: self.state.doc.board.size(),
            board: self.state.doc.board.bits(),
            holder,
            seed: self.state.settings.seed.wrapping_add(self.state.doc.deals),
            options: ChangeOptions {
                policy: self.state.settings.policy,
                reading: self.state.settings.reading,
                max_redraws: self.state.settings.max_redraws,
            },
        };
        match RepairJob::spawn(input, ctx) {
            Ok(job) => {
                self.job = Some(job);
                self.live.repair_running = true;
                self.live.status = "Repairing…".to_owned();
            }
            Err(e) => self.live.error = Some(format!("Could not start the repair: {e}")),
        }
    }

    fn start_sweep(&mut self, ctx: &egui::Context) {
        let s = &self.state;
        let request = SweepRequest {
            settings: s.settings.timing.clone(),
            set: s.doc.set.clone(),
            size: s.doc.board.size(),
            k: s.doc.slots.len(),
            board: s.doc.board.bits(),
            file: s.settings.file.clone(),
            options: ChangeOptions {
                policy: s.settings.policy,
                reading: s.settings.reading,
                max_redraws: s.settings.max_redraws,
            },
        };
        match self.live.timing.start(request, ctx) {
            Ok(()) => self.live.status = "Timing sweep started".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start the sweep: {e}")),
        }
    }

    /// Puts deal `i` of the last sweep on the board and in the holder, with
    /// the sweep's piece set, and opens the tree tab on it.
    fn open_lab_deal(&mut self, i: usize) {
        let lab = &self.live.timing;
        let (Some(request), Some(deal)) = (&lab.request, lab.deals.get(i)) else {
            return;
        };
        let (set, size, deal) = (request.set.clone(), request.size, deal.clone());
        self.edit(EditKey::Single);
        let doc = &mut self.state.doc;
        doc.set = set;
        doc.board = Board::from_bits(size, deal.board);
        doc.score = 0;
        doc.slots = deal
            .holder
            .iter()
            .map(|&p| Slot {
                piece: Some(p),
                locked: false,
            })
            .collect();
        doc.sanitize();
        self.state.settings.inspector_tab = super::tabs::TREE_TAB;
        self.state.settings.show_inspector = true;
        self.live.status = format!("Opened deal {i} of the timing sweep");
    }

    /// Makes `set` the active set, keeping the holder's pieces and the
    /// board's piece colours that it also has (matched by id). An open batch
    /// is closed when the pieces differ (its holders name the old ones);
    /// returns the words saying so.
    fn switch_set(&mut self, set: PieceSet) -> &'static str {
        let doc = &mut self.state.doc;
        let old = std::mem::replace(&mut doc.set, set);
        let set = &doc.set;
        for slot in &mut doc.slots {
            slot.piece = slot.piece.and_then(|p| set.index_of(&old.piece(p).id));
        }
        doc.board = relabel(&doc.board, &old, set);
        let same_pieces = old.pieces.len() == set.pieces.len()
            && old.pieces.iter().zip(&set.pieces).all(|(a, b)| a.id == b.id);
        if !same_pieces && doc.batch.take().is_some() {
            "; the open batch was closed (its holders name the other set's pieces)"
        } else {
            ""
        }
    }

    fn load(&mut self, path: &std::path::Path) {
        match files::load(path, &self.state.doc.set) {
            Ok(files::Loaded::Deal {
                board,
                holder,
                set,
                pieces_file,
                seed,
                note,
                batch,
            }) => {
                self.edit(EditKey::Single);
                let doc = &mut self.state.doc;
                let kept = match set {
                    Some(set) => {
                        doc.set_origin = set.clone();
                        doc.set = set;
                        self.state.settings.pieces_file = pieces_file;
                        String::new()
                    }
                    // No pieces: line: the active set stays, and the user
                    // should know when it is not the one its file holds.
                    None if doc.set_modified() => format!(" with the active set {}", doc.set_title()),
                    None => String::new(),
                };
                doc.board = board;
                doc.score = 0;
                if let Some(holder) = holder {
                    doc.slots = holder
                        .into_iter()
                        .map(|p| Slot {
                            piece: Some(p),
                            locked: false,
                        })
                        .collect();
                }
                doc.sanitize();
                if let Some(seed) = seed {
                    self.state.settings.seed = seed;
                    self.state.doc.deals = 0;
                }
                self.state.settings.file = Some(path.to_path_buf());
                self.state.settings.remember(path.to_path_buf());
                self.live.selected_slot = None;
                self.live.status = format!("Opened {}{note}{kept}", file_name(path));
                match batch {
                    Some((text, read)) => self.open_batch(path, text, read),
                    None => self.state.doc.batch = None,
                }
            }
            Ok(files::Loaded::PieceSet(set)) => {
                self.edit(EditKey::Single);
                self.state.doc.set_origin = set.clone();
                let closed = self.switch_set(set);
                self.state.settings.pieces_file = Some(path.to_path_buf());
                self.state.settings.remember(path.to_path_buf());
                self.live.status = format!("Opened piece set {}{closed}", file_name(path));
            }
            Err(message) => self.live.error = Some(message),
        }
    }

    fn save_deal(&mut self, path: &std::path::Path) {
        let s = &self.state;
        match files::save_deal(path, &s.doc, s.settings.pieces_file.as_deref(), s.settings.seed) {
            Ok(kind) => {
                self.state.settings.file = Some(path.to_path_buf());
                self.state.settings.remember(path.to_path_buf());
                self.live.status = match kind {
                    files::SaveKind::Deal => format!("Saved {}", path.display()),
                    files::SaveKind::IntoBatch(n) => format!(
                        "Saved the deal shown as deal 1 of the {n} in the batch {}; the others are kept",
                        file_name(path)
                    ),
                };
            }
            Err(e) => self.live.error = Some(e),
        }
    }

    /// Recompiles shapes and re-validates when the document changed.
    fn refresh(&mut self) {
        let doc = &self.state.doc;
        let size = doc.board.size();
        if self
            .validated
            .as_ref()
            .is_some_and(|(d, s)| d == doc && *s == size)
        {
            return;
        }
        if self
            .validated
            .as_ref()
            .is_none_or(|(d, s)| d.set != doc.set || *s != size)
        {
            self.live.shapes = Shapes::new(&doc.set, size);
        }
        let holder = doc.holder();
        let bits = doc.board.bits();
        self.live.verdict = (!holder.is_empty()).then(|| Verdict {
            validation: validate(&self.live.shapes, bits, &holder),
            micros: time_validate(&self.live.shapes, bits, &holder),
        });
        self.live.solution_step = None;
        self.live.replay = None;
        self.validated = Some((doc.clone(), size));
        self.live.can_undo = self.undo.can_undo();
        self.live.can_redo = self.undo.can_redo();
        if self
            .live
            .repair
            .as_ref()
            .is_some_and(|r| r.input.board != bits || r.input.set != doc.set)
        {
            self.live.repair = None;
        }
    }
}

/// The last part of a path, for the status bar.
pub(super) fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Board cells coloured by a piece of `old` keep their colour when `new` has
/// a piece with the same id; otherwise they become painted.
/// Lays `add` out in the whole space left in `ui` and claims exactly that
/// space, however wide or narrow the content is. A side panel otherwise
/// takes its content's width, so the board beside it would shift whenever a
/// tab's content changes; content too wide for the panel is clipped instead.
fn fixed_width(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui)) {
    let rect = ui.available_rect_before_wrap();
    let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect).layout(*ui.layout()));
    child.shrink_clip_rect(rect);
    add(&mut child);
    ui.advance_cursor_after_rect(rect);
}

fn relabel(board: &Board, old: &PieceSet, new: &PieceSet) -> Board {
    let mut out = board.clone();
    let size = board.size();
    for y in 0..size.h() {
        for x in 0..size.w() {
            if let Cell::Piece(i) = board.get(x, y) {
                let kept = old.pieces.get(usize::from(i)).and_then(|p| new.index_of(&p.id));
                out.set(x, y, kept.map_or(Cell::Painted, Cell::Piece));
            }
        }
    }
    out
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.state);
    }
}
