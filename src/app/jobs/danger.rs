//! The danger of the board, kept up to date in the background: whenever the
//! board, the weights, the piece set, the size or the holder size change, the
//! running job is cancelled and a new one starts on a named thread. The
//! summary (danger, killers, dead regions) arrives first; the per-cell map,
//! computed on rayon's pool, follows when the heatmap is shown.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use tenten_engine::danger::{Danger, Progress, danger, dead_regions, influence_map};
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;

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
            set: state.doc.set.clone(),
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
            && self.set == state.doc.set
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

struct Job {
    input: DangerInput,
    rx: Receiver<Message>,
    progress: Arc<Progress>,
}

/// The latest result shown, and the job computing the next.
#[derive(Default)]
pub struct DangerState {
    /// The input of the summary shown.
    pub input: Option<DangerInput>,
    pub summary: Option<Result<Summary, String>>,
    /// Influence of flipping each cell, for `input`'s board.
    pub map: Option<Vec<f64>>,
    job: Option<Job>,
}

impl DangerState {
    /// True while the figures shown are not those of the board on screen.
    pub fn stale(&self, state: &State) -> bool {
        self.input.as_ref().is_none_or(|i| !i.same_board(state))
    }

    /// The per-cell map's progress, while it runs (0 to 1).
    pub fn map_progress(&self) -> Option<f32> {
        let job = self.job.as_ref()?;
        (job.input.map && self.input.as_ref() == Some(&job.input)).then(|| job.progress.fraction())
    }

    /// True once nothing is running and the figures match the screen.
    pub fn settled(&self, state: &State) -> bool {
        self.job.is_none() && !self.stale(state)
    }

    /// Once per frame: take what arrived, and start a job when the input changed.
    pub fn update(&mut self, state: &State, ctx: &egui::Context) {
        self.poll();
        let current = match &self.job {
            Some(job) => job.input.matches(state),
            None => self.input.as_ref().is_some_and(|i| i.matches(state)),
        };
        if current {
            return;
        }
        if let Some(job) = self.job.take() {
            job.progress.cancel.store(true, Ordering::Relaxed);
        }
        self.job = spawn(DangerInput::of(state), ctx);
    }

    fn poll(&mut self) {
        let Some(job) = &self.job else { return };
        loop {
            match job.rx.try_recv() {
                Ok(Message::Summary(summary)) => {
                    self.input = Some(job.input.clone());
                    self.summary = Some(summary);
                    self.map = None;
                }
                Ok(Message::Map(map)) => self.map = Some(map),
                Err(TryRecvError::Empty) => return,
                Err(TryRecvError::Disconnected) => {
                    self.job = None;
                    return;
                }
            }
        }
    }
}

/// Starts a job; `None` only if the system refuses a thread (then the panel
/// keeps its last figures marked stale, and the next change tries again).
fn spawn(input: DangerInput, ctx: &egui::Context) -> Option<Job> {
    let (tx, rx) = channel();
    let progress = Arc::new(Progress::default());
    let job = input.clone();
    let shared = Arc::clone(&progress);
    let ctx = ctx.clone();
    std::thread::Builder::new()
        .name("danger".to_owned())
        .spawn(move || {
            let shapes = Shapes::new(&job.set, job.size);
            let summary = danger(&shapes, &job.set, job.board, job.k).map(|danger| Summary {
                dead: dead_regions(&shapes, &job.set, job.board),
                danger,
            });
            let ok = summary.is_ok();
            // The window may have closed or moved on; nobody to tell then.
            let _ = tx.send(Message::Summary(summary));
            ctx.request_repaint();
            if ok
                && job.map
                && !shared.cancelled()
                && let Ok(Some(map)) = influence_map(&shapes, &job.set, job.board, job.k, &shared)
            {
                let _ = tx.send(Message::Map(map));
                ctx.request_repaint();
            }
        })
        .ok()
        .map(|_| Job { input, rx, progress })
}
