//! The workbench window: the persisted `State`, the runtime `Live` view of it,
//! the panels and the frame (`show`, then `run`, which hands each command to
//! `apply` in apply.rs and brings the verdict up to date). Commands that play
//! and deal are in doc_cmds.rs, files in file_cmds.rs, batches in
//! batch_cmds.rs.

use crate::app::jobs::job::Background as _;
use std::path::PathBuf;

use tenten_engine::model::board::BoardSize;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::perf::bench::time_validate;
use tenten_engine::search::changer::{ChangeOptions, Outcome};
use tenten_engine::search::validator::validate;

use crate::app::jobs::danger::DangerState;
use crate::app::jobs::job::{Job, Watch};
use crate::app::jobs::repair::{RepairJob, RepairPoll};
use crate::app::jobs::timing::TimingSweep;
use crate::app::panels::board_view::BoardView;
use crate::app::panels::holder::HolderPanel;
use crate::app::panels::inspector::Inspector;
use crate::app::panels::palette::Palette;
use crate::app::panels::status_bar;
use crate::app::panels::top_bar;
use crate::app::shell::command::Command;
use crate::app::shell::files;
use crate::app::shell::live::{Flash, Live, RepairView, Verdict};
use crate::app::shell::state::{Doc, State};
use crate::app::shell::undo::{EditKey, Titled, Undo};

pub struct App {
    pub state: State,
    pub live: Live,
    pub(crate) undo: Undo<Titled>,
    pub(crate) cmds: Vec<Command>,
    pub(crate) job: Option<RepairJob>,
    /// The document the verdict was computed for.
    validated: Option<(Doc, BoardSize)>,
    palette: Palette,
    board_view: BoardView,
    holder: HolderPanel,
    inspector: Inspector,
    pub(crate) fills: u64,
    /// Numbers each batch opening (see `batch::Source::id`).
    pub(crate) batches_opened: u64,
    /// Where the window keeps what outlives it (the Lab's last run).
    pub(crate) data_dir: Option<std::path::PathBuf>,
    /// Games played by hand, kept as a log.
    pub recorder: crate::app::shell::recording::Recorder,
}

impl App {
    pub fn new(mut state: State) -> Self {
        state.doc.sanitize();
        if !tenten_playtest::ids::is_tester(&state.settings.player_id) {
            state.settings.player_id = tenten_playtest::ids::random_hex(16);
        }
        let recorder = crate::app::shell::recording::Recorder::new(state.settings.player_id.clone());
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
                timing: TimingSweep::default(),
                lab: Default::default(),
                fit: Default::default(),
                learn: Default::default(),
                explain: Default::default(),
                tune: Default::default(),
                population_fit: Default::default(),
                forecast: Default::default(),
                calibration: Default::default(),
                playtest_plan: Default::default(),
                playtest: Default::default(),
                deals: Default::default(),
                loading: None,
                file_dialog: None,
                confirm: None,
                pending_load: None,
                quit_confirmed: false,
                welcome: false,
                picked_folder: None,
                keeping: None,
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
            data_dir: None,
            recorder,
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

    /// The threads of every job now running or returning after a cancel
    /// (tests join them to check that Cancel reached the worker).
    pub fn job_watches(&self) -> Vec<Watch> {
        let mut w: Vec<Watch> = self.job.iter().map(RepairJob::watch).collect();
        w.extend(self.live.danger.watch());
        w.extend(self.live.lab.watches());
        w.extend(self.live.fit.watches());
        w.extend(self.live.learn.watches());
        w.extend(self.live.explain.watches());
        w.extend(self.live.tune.watches());
        w.extend(self.live.population_fit.watches());
        w.extend(self.live.forecast.watches());
        w.extend(self.live.calibration.watches());
        w.extend(self.live.playtest_plan.watches());
        w.extend(self.live.timing.watches());
        w.extend(self.live.deals.watch());
        w.extend(self.live.loading.as_ref().map(|(_, j)| j.watch()));
        w.extend(self.live.keeping.as_ref().map(Job::watch));
        w
    }

    /// Queues a command, as a panel would (tests use this too).
    pub fn push(&mut self, cmd: Command) {
        self.cmds.push(cmd);
    }

    /// One frame of the whole window.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        // The window's close button asks, as Quit does, when changes are
        // not saved to their files.
        if ctx.input(|i| i.viewport().close_requested()) && !self.live.quit_confirmed {
            let unsaved = self.unsaved();
            if !unsaved.is_empty() {
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.live.confirm = Some(crate::app::shell::confirm::Confirm::quit(&unsaved));
            }
        }
        self.shortcuts(&ctx);
        self.dropped_files(&ctx);
        self.poll_job();
        self.poll_load(&ctx);
        self.poll_keeping();
        self.poll_playtest(&ctx);
        self.poll_file_dialog(&ctx);
        if let Some(complete) = self.live.timing.poll() {
            let n = self.live.timing.measurements.len();
            self.live.status = match (&self.live.timing.error, complete) {
                (Some(e), _) => format!("Timing sweep failed: {e}"),
                (None, true) => format!("Timing sweep done: {n} measurements"),
                (None, false) => format!("Timing sweep cancelled after {n} measurements"),
            };
        }

        let had_replay = self.live.lab.replay.is_some();
        let ended = self.live.lab.poll();
        if self.live.lab.take_first_figures() {
            self.state.settings.lab.page = crate::app::shell::settings::LabPage::Results;
            if had_replay {
                // The replay went with the old run: take its step off the board.
                self.live.debug_board = None;
            }
        }
        if let Some(complete) = ended {
            self.keep_lab_run(&ctx);
            let games = tenten_engine::text::grouped(self.live.lab.ended_games as u64);
            self.live.status = if complete {
                format!(
                    "Generator lab done: {games} games in {:.1} s",
                    self.live.lab.seconds
                )
            } else if self.live.lab.ended_games == 0 {
                "Generator lab cancelled before its first game finished".to_owned()
            } else {
                format!("Generator lab cancelled after {games} games")
            };
        }

        if self.live.tune.poll() {
            let t = &self.live.tune;
            self.live.status = match (&t.error, &t.report) {
                (Some(e), _) => format!("The tune failed: {e}"),
                (None, Some(r)) => {
                    format!("Tuned: {} evaluations in {:.0} s", r.evaluations.len(), r.seconds)
                }
                (None, None) => "The tune was cancelled".to_owned(),
            };
        }
        if self.live.explain.poll() {
            self.live.status = match (&self.live.explain.error, &self.live.explain.result) {
                (Some(e), _) => format!("Comparing models failed: {e}"),
                (None, Some(x)) if x.e.comparison.decided() => {
                    format!("{} explains {} best", x.e.best.name(), x.file)
                }
                (None, Some(x)) => format!(
                    "{} cannot name a best model; {} scored highest (see the Lab's Players page)",
                    x.file,
                    x.e.best.name()
                ),
                (None, None) => "Comparing models cancelled".to_owned(),
            };
        }
        if self.live.population_fit.poll() {
            if let Some(f) = &self.live.population_fit.result {
                self.state.settings.population_folder = Some(f.folder.clone());
            }
            let p = &self.live.population_fit;
            self.live.status = match (&p.error, &p.result) {
                (Some(e), _) => format!("Fitting a population failed: {e}"),
                (None, Some(f)) => format!(
                    "Fitted a population to {} testers of {}",
                    f.fit.testers.len(),
                    f.folder.display()
                ),
                (None, None) => "Fitting a population cancelled".to_owned(),
            };
        }
        if self.live.calibration.poll() {
            let c = &self.live.calibration;
            self.live.status = match (&c.error, &c.result) {
                (Some(e), _) => format!("The calibration study failed: {e}"),
                (None, Some(s)) => format!(
                    "Calibrated {} over {} replications",
                    s.plan.estimator.name(),
                    s.plan.replications
                ),
                (None, None) => "The calibration study was cancelled".to_owned(),
            };
        }
        if self.live.playtest_plan.poll() {
            let p = &self.live.playtest_plan;
            self.live.status = match (&p.error, &p.result) {
                (Some(e), _) => format!("Planning the playtest failed: {e}"),
                (None, Some(r)) => format!("Planned a playtest: {} testers", r.testers),
                (None, None) => "Planning the playtest was cancelled".to_owned(),
            };
        }
        if self.live.forecast.poll() {
            let f = &self.live.forecast;
            self.live.status = match (&f.error, &f.result) {
                (Some(e), _) => format!("The forecast failed: {e}"),
                (None, Some(r)) => format!(
                    "Forecast {} players of {} under {} generators",
                    tenten_engine::text::grouped(r.players as u64),
                    r.population,
                    r.generators.len()
                ),
                (None, None) => "The forecast was cancelled".to_owned(),
            };
        }
        if self.live.learn.poll() {
            self.live.status = match (&self.live.learn.error, &self.live.learn.result) {
                (Some(e), _) => format!("Learning failed: {e}"),
                (None, Some((source, l))) => {
                    format!("Learned a generator from {} deals of {source}", l.deals)
                }
                _ => "Learning cancelled".to_owned(),
            };
        }
        if self.live.fit.poll() {
            self.live.status = match (&self.live.fit.error, &self.live.fit.result) {
                (Some(e), _) => format!("Fitting a player failed: {e}"),
                (None, Some(f)) => format!("Fitted a player to {} moves of {}", f.fit.moves, f.file),
                (None, None) => "Fitting a player cancelled".to_owned(),
            };
        }

        top_bar::ui(ui, &self.state, &self.live, &mut self.cmds);
        status_bar::ui(
            ui,
            &self.live,
            &self.state.settings.timing,
            self.recorder.folder.as_deref(),
            &mut self.cmds,
        );
        let width = ctx.content_rect().width();
        if self.state.settings.show_palette {
            // Restored widths may come from a larger screen: the board and
            // the banner keep at least about half of this one.
            // 230: the narrowest the rows fit (tile, id, label, %, box).
            let range = 230.0..=(0.25 * width).max(230.0);
            let mut preferred = self.state.settings.palette_width;
            side_panel(
                ui,
                egui::Panel::left("palette"),
                "palette",
                250.0,
                range,
                &mut preferred,
                |ui| {
                    fixed_width(ui, |ui| {
                        self.palette.ui(ui, &self.state, &self.live, &mut self.cmds)
                    })
                },
            );
            self.state.settings.palette_width = preferred;
        }
        let large = self.state.settings.show_inspector && self.state.settings.inspector_large;
        if self.state.settings.show_inspector && !large {
            let range = 280.0..=(0.4 * width).max(280.0);
            let mut preferred = self.state.settings.inspector_width;
            side_panel(
                ui,
                egui::Panel::right("inspector"),
                "inspector",
                360.0,
                range,
                &mut preferred,
                |ui| {
                    fixed_width(ui, |ui| {
                        self.inspector.ui(ui, &self.state, &self.live, &mut self.cmds)
                    })
                },
            );
            self.state.settings.inspector_width = preferred;
        }
        egui::CentralPanel::default().show(ui, |ui| {
            if large {
                // The tab with room: plots and tables take the whole width.
                self.inspector.ui(ui, &self.state, &self.live, &mut self.cmds);
            } else {
                self.board_view.ui(ui, &self.state, &self.live, &mut self.cmds);
                self.holder.ui(ui, &self.state, &self.live, &mut self.cmds);
            }
        });
        if let Some(message) = &self.live.error {
            files::error_dialog(&ctx, message, &mut self.cmds);
        } else if let Some(confirm) = &self.live.confirm {
            confirm.show(&ctx, &mut self.cmds);
        } else if self.live.welcome {
            crate::app::panels::welcome::show(&ctx, &self.state, &mut self.cmds);
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
        let Some(job) = &mut self.job else { return };
        match job.poll() {
            RepairPoll::Running => {}
            RepairPoll::Done(result) => {
                let input = job.input.clone();
                self.live.status = match result.outcome {
                    Outcome::Unchanged => "Repair: the holder was already solvable".to_owned(),
                    Outcome::Repaired => format!(
                        "Repair: solvable after {}: {}",
                        tenten_engine::text::count(result.changes() as u64, "change", "changes"),
                        input.set.ids(&result.holder)
                    ),
                    Outcome::Dead => "Repair: the board is dead, no holder of this size fits".to_owned(),
                };
                self.live.repair = Some(RepairView {
                    input,
                    result: *result,
                });
                self.job = None;
            }
            RepairPoll::Cancelled => {
                self.live.status = "Repair cancelled".to_owned();
                self.job = None;
            }
            RepairPoll::Failed => {
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

    pub(crate) fn edit(&mut self, key: EditKey) {
        self.undo.record(&self.titled(), key);
    }

    /// The document with the files it was opened from or saved to.
    pub(crate) fn titled(&self) -> Titled {
        Titled {
            doc: self.state.doc.clone(),
            file: self.state.settings.file.clone(),
            pieces_file: self.state.settings.pieces_file.clone(),
        }
    }

    /// Back to an undo step: the document and the files it belongs to, so
    /// Save never writes a document over a file it was not read from.
    pub(crate) fn restore(&mut self, t: Titled) {
        self.state.doc = t.doc;
        if t.file != self.state.settings.file {
            // Its text then is not known here: no check at the next Save.
            self.state.settings.file_hash = None;
        }
        self.state.settings.file = t.file;
        self.state.settings.pieces_file = t.pieces_file;
    }

    /// Makes the document a new, untitled one, for a deal from a generated
    /// source (a timing sweep, a Lab replay, a killer deal): Save asks where,
    /// and never writes it over the file (or batch) opened before. Undo
    /// brings that file back with its document.
    pub(crate) fn untitled(&mut self, what: String) {
        self.state.doc.batch = None;
        self.state.settings.file = None;
        self.state.settings.pieces_file = None;
        self.live.status = format!("Opened {what} as a new, untitled deal");
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

/// Board cells coloured by a piece of `old` keep their colour when `new` has
/// a piece with the same id; otherwise they become painted.
/// Lays `add` out in the whole space left in `ui` and claims exactly that
/// space, however wide or narrow the content is. A side panel otherwise
/// takes its content's width, so the board beside it would shift whenever a
/// tab's content changes; content too wide for the panel is clipped instead.
/// A resizable side panel that remembers the width the user dragged it to
/// (`preferred`): a small window narrows it to `range`, and it comes back
/// when the window grows, instead of keeping the narrow width for good.
fn side_panel(
    ui: &mut egui::Ui,
    panel: egui::Panel,
    salt: &str,
    default: f32,
    range: std::ops::RangeInclusive<f32>,
    preferred: &mut Option<f32>,
    add: impl FnOnce(&mut egui::Ui),
) {
    let (lo, hi) = (*range.start(), *range.end());
    let dragging = ui.input(|i| i.pointer.primary_down());
    let want = preferred.unwrap_or(default);
    let expected = want.clamp(lo, hi);
    // The id egui stores the panel's state under.
    let id = ui.scope_id().with_salt(egui::IdSalt::new(salt));
    if !dragging && let Some(mut state) = egui::containers::panel::PanelState::load(ui.ctx(), id) {
        // egui keeps the width it last drew (clamped by a small window);
        // give it the preferred one, which it clamps to this frame's range.
        state.outer_rect.set_width(want);
        ui.ctx().data_mut(|d| d.insert_persisted(id, state));
    }
    let shown = panel
        .resizable(true)
        .default_size(default)
        .size_range(range)
        .show(ui, add)
        .response
        .rect
        .width();
    if dragging && (shown - expected).abs() > 1.0 {
        *preferred = Some(shown);
    }
}

fn fixed_width(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui)) {
    let rect = ui.available_rect_before_wrap();
    let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect).layout(*ui.layout()));
    child.shrink_clip_rect(rect);
    add(&mut child);
    ui.advance_cursor_after_rect(rect);
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.state);
    }

    fn on_exit(&mut self) {
        // The deal being played is written as it stands.
        self.recorder.finish(&self.state.doc.set);
    }
}
