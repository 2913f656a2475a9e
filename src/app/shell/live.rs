//! What the panels and tabs read that is not persisted: the verdict, the
//! repair, the jobs' results. Panels look down at this module; the app that
//! draws them owns one `Live`, so no panel imports the app.

use std::path::PathBuf;

use tenten_engine::model::board::{Bits, Lines};
use tenten_engine::model::pieces::PieceIdx;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::changer::Repair;
use tenten_engine::search::validator::Validation;

use crate::app::jobs::danger::DangerState;
use crate::app::jobs::job::Job;
use crate::app::jobs::repair::RepairInput;
use crate::app::jobs::timing::TimingSweep;
use crate::app::shell::debugger::DebugBoard;
use crate::app::shell::files;

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
    pub timing: TimingSweep,
    /// The generator lab's last simulation, its job and a replay.
    pub lab: crate::app::jobs::lab::Lab,
    /// A player fitted to the open playtest log, and the job fitting it.
    pub fit: crate::app::jobs::fit::PlayerFit,
    /// A generator learned from deals (the Generator tab), and its job.
    pub learn: crate::app::jobs::learn::LearnJob,
    /// Which model explains the open playtest log, and the job finding out.
    pub explain: crate::app::jobs::explain::LogCheck,
    /// The Lab's last tune of the generator, and the job running it.
    pub tune: crate::app::jobs::tune::TuneJob,
    /// The Population view: a population fitted to a folder of logs, and a
    /// forecast of the Lab's generators for it.
    pub population_fit: crate::app::jobs::population::PopulationFitJob,
    pub forecast: crate::app::jobs::population::ForecastJob,
    /// The Calibration page's last study and the job running it.
    pub calibration: crate::app::jobs::calibration::CalibrationJob,
    /// The Population view's playtest plan and the job finding it.
    pub playtest_plan: crate::app::jobs::playtest_plan::PlanJob,
    /// A playtest folder followed live, and a server started from here.
    pub playtest: crate::app::jobs::playtest_live::PlaytestLive,
    /// The open batch's deal list: verdicts, filter, order.
    pub deals: crate::app::shell::deals_view::DealsView,
    /// A large file being read on a thread.
    pub loading: Option<(PathBuf, Job<Result<files::Loaded, String>>)>,
    /// A file dialog drawn in the window, where the desktop has none.
    pub file_dialog: Option<crate::app::shell::dialogs::InWindow>,
    /// A question before a save replaces a file: the file exists, or it
    /// changed on disk since it was read.
    pub confirm: Option<crate::app::shell::confirm::Confirm>,
    /// A file read whose opening would replace the edited piece set, held
    /// while the question is asked.
    pub pending_load: Option<(PathBuf, files::Loaded)>,
    /// The user answered "Quit anyway": the next close is not stopped.
    pub quit_confirmed: bool,
    /// The start page is open.
    pub welcome: bool,
    /// The last folder chosen for the Population view (true: the logs to
    /// check against), which the view takes into its field.
    pub picked_folder: Option<(bool, PathBuf)>,
    /// The job writing the Lab's finished run to the data folder.
    pub keeping: Option<Job<Result<(), String>>>,
}

impl Live {
    /// The solution of the live verdict, if solvable.
    pub fn solution(&self) -> Option<&tenten_engine::search::validator::Solution> {
        self.verdict.as_ref()?.validation.solution.as_ref()
    }
}
