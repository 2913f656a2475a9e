//! Work that can take longer than a frame runs on a named thread that reports
//! over a channel and asks for a repaint; the UI polls once per frame.

pub mod danger;
pub mod lab;
pub mod timing;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

use tenten_engine::model::board::Bits;
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::progress::Progress;
use tenten_engine::search::changer::{ChangeOptions, Repair, repair};

/// What a repair was asked for, to tell whether its answer is still current.
#[derive(Clone, Debug, PartialEq)]
pub struct RepairInput {
    pub set: PieceSet,
    pub shapes_size: tenten_engine::model::board::BoardSize,
    pub board: Bits,
    pub holder: Vec<PieceIdx>,
    pub seed: u64,
    pub options: ChangeOptions,
}

/// A repair running in the background.
pub struct RepairJob {
    pub input: RepairInput,
    rx: Receiver<Repair>,
}

impl RepairJob {
    /// Starts the changer on its own thread.
    pub fn spawn(input: RepairInput, ctx: &egui::Context) -> std::io::Result<Self> {
        let (tx, rx) = channel();
        let job = input.clone();
        let ctx = ctx.clone();
        std::thread::Builder::new()
            .name("repair".to_owned())
            .spawn(move || {
                let shapes = Shapes::new(&job.set, job.shapes_size);
                let mut generator = Generator::new(job.seed);
                let r = repair(
                    &shapes,
                    &job.set,
                    job.board,
                    &job.holder,
                    &mut generator,
                    job.options,
                );
                // The window may have closed; nobody to tell then.
                let _ = tx.send(r);
                ctx.request_repaint();
            })?;
        Ok(Self { input, rx })
    }

    /// The result, once it has arrived; `Err` if the thread died.
    pub fn poll(&self) -> Option<Result<Repair, ()>> {
        match self.rx.try_recv() {
            Ok(r) => Some(Ok(r)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(())),
        }
    }
}

/// A long computation on a named thread that streams messages back, with
/// progress and cancel shared through a `Progress` (the timing sweep, the
/// generator lab).
pub struct Stream<M> {
    rx: Receiver<M>,
    progress: Arc<Progress>,
    started: Instant,
}

impl<M: Send + 'static> Stream<M> {
    /// Runs `work` on a thread named `name`; each message it sends asks for
    /// a repaint.
    pub fn spawn(
        name: &str,
        ctx: &egui::Context,
        work: impl FnOnce(&dyn Fn(M), &Progress) + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, rx) = channel();
        let progress = Arc::new(Progress::default());
        let shared = Arc::clone(&progress);
        let ctx = ctx.clone();
        std::thread::Builder::new().name(name.to_owned()).spawn(move || {
            let send = |m: M| {
                // The window may have closed; nobody to tell then.
                let _ = tx.send(m);
                ctx.request_repaint();
            };
            work(&send, &shared);
        })?;
        Ok(Self {
            rx,
            progress,
            started: Instant::now(),
        })
    }

    pub fn try_recv(&self) -> Result<M, TryRecvError> {
        self.rx.try_recv()
    }

    pub fn cancel(&self) {
        self.progress.cancel.store(true, Ordering::Relaxed);
    }

    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Done over total, and the estimated seconds left.
    pub fn progress(&self) -> (f32, Option<f64>) {
        let f = self.progress.fraction();
        let eta = (f > 0.01).then(|| self.seconds() * f64::from(1.0 - f) / f64::from(f));
        (f, eta)
    }
}

/// A fixed-width progress bar with the percentage and the time left,
/// repainting while it is shown.
pub fn progress_bar(ui: &mut egui::Ui, (f, eta): (f32, Option<f64>)) {
    let eta = eta.map_or("estimating…".to_owned(), |s| format!("about {s:.0} s left"));
    ui.add(
        egui::ProgressBar::new(f)
            .desired_width(260.0)
            .text(format!("{:.0} % · {eta}", f * 100.0)),
    );
    ui.ctx()
        .request_repaint_after(std::time::Duration::from_millis(200));
}
