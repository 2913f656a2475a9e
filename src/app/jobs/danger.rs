//! The danger of the board, kept up to date in the background: whenever the
//! board, the weights, the piece set, the size or the holder size change, the
//! running job is cancelled, and once it has returned a new one starts. At
//! most one runs, so edits in quick succession never pile threads up. The
//! summary (danger, killers, dead regions) arrives first; the per-cell map,
//! computed on rayon's pool, follows when the heatmap is shown.

use tenten_engine::danger::{Danger, danger_until, dead_regions, influence_map};
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;

use crate::app::jobs::job::{Job, Watch};
use crate::app::shell::state::State;

/// What a danger was computed for, to tell whether it is still current.
#[derive(Clone, Debug, PartialEq)]
pub struct DangerInput {
    pub set: PieceSet,
    pub size: BoardSize,
    pub board: Bits,
    pub k: usize,
    /// Also compute the per-cell map (the heatmap is shown).
    pub map: bool,
}

impl DangerInput {
    pub fn of(state: &State) -> Self {
        Self {
            // The weights a deal on this board is drawn with.
            set: state.doc.set_in_force().into_owned(),
            size: state.doc.board.size(),
            board: state.doc.board.bits(),
            k: state.doc.slots.len(),
            map: state.settings.danger_heatmap,
        }
    }

    /// The same board, holder size and weights (cheaper than building an
    /// input every frame and comparing).
    fn same_board(&self, state: &State) -> bool {
        self.board == state.doc.board.bits()
            && self.size == state.doc.board.size()
            && self.k == state.doc.slots.len()
            && self.set == *state.doc.set_in_force()
    }

    fn matches(&self, state: &State) -> bool {
        self.same_board(state) && self.map == state.settings.danger_heatmap
    }
}

/// The danger of one board and its dead regions.
pub struct Summary {
    pub danger: Danger,
    pub dead: Vec<Bits>,
}

enum Message {
    Summary(Result<Summary, String>),
    Map(Vec<f64>),
}

struct Running {
    input: DangerInput,
    job: Job<Message>,
}

/// The latest result shown, and the job computing the next.
#[derive(Default)]
pub struct DangerState {
    /// The input of the summary shown.
    pub input: Option<DangerInput>,
    pub summary: Option<Result<Summary, String>>,
    /// Influence of flipping each cell, for `input`'s board.
    pub map: Option<Vec<f64>>,
    running: Option<Running>,
    /// Jobs started, for tests that count them.
    started: usize,
}

impl DangerState {
    /// True while the figures shown are not those of the board on screen.
    pub fn stale(&self, state: &State) -> bool {
        self.input.as_ref().is_none_or(|i| !i.same_board(state))
    }

    /// The per-cell map's progress, while it runs (0 to 1).
    pub fn map_progress(&self) -> Option<f32> {
        let r = self.running.as_ref()?;
        (r.input.map && self.input.as_ref() == Some(&r.input)).then(|| r.job.progress().0)
    }

    /// True once nothing is running and the figures match the screen.
    pub fn settled(&self, state: &State) -> bool {
        self.running.is_none() && !self.stale(state)
    }

    /// The running job's thread (tests check that a superseded one ends).
    pub fn watch(&self) -> Option<Watch> {
        self.running.as_ref().map(|r| r.job.watch())
    }

    /// How many jobs have been started.
    pub fn started(&self) -> usize {
        self.started
    }

    /// Once per frame: take what arrived; when the input changed, cancel the
    /// running job and start the next once it has returned.
    pub fn update(&mut self, state: &State, ctx: &egui::Context) {
        self.poll();
        if let Some(r) = &self.running {
            if !r.input.matches(state) {
                r.job.cancel();
            }
            return;
        }
        if self.input.as_ref().is_some_and(|i| i.matches(state)) {
            return;
        }
        let input = DangerInput::of(state);
        if let Some(job) = spawn(&input, ctx) {
            self.running = Some(Running { input, job });
            self.started += 1;
        }
    }

    fn poll(&mut self) {
        let Some(r) = &mut self.running else { return };
        let cancelled = r.job.cancelled();
        for m in r.job.drain() {
            match m {
                // A superseded job's figures are not shown.
                _ if cancelled => {}
                Message::Summary(summary) => {
                    self.input = Some(r.input.clone());
                    self.summary = Some(summary);
                    self.map = None;
                }
                Message::Map(map) => self.map = Some(map),
            }
        }
        if r.job.ended() {
            self.running = None;
        }
    }
}

/// Starts a job; `None` only if the system refuses a thread (then the panel
/// keeps its last figures marked stale, and the next frame tries again).
fn spawn(input: &DangerInput, ctx: &egui::Context) -> Option<Job<Message>> {
    let job = input.clone();
    Job::spawn("danger", ctx, move |send, progress| {
        let shapes = Shapes::new(&job.set, job.size);
        let summary = match danger_until(&shapes, &job.set, job.board, job.k, progress) {
            Ok(None) => return,
            Ok(Some(danger)) => Ok(Summary {
                dead: dead_regions(&shapes, &job.set, job.board),
                danger,
            }),
            Err(e) => Err(e),
        };
        let ok = summary.is_ok();
        send(Message::Summary(summary));
        if ok
            && job.map
            && let Ok(Some(map)) = influence_map(&shapes, &job.set, job.board, job.k, progress)
        {
            send(Message::Map(map));
        }
    })
    .ok()
}
