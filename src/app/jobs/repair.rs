//! The changer (Fig. 4, equations 4 and 5) on a job: one message, the
//! repair, or none when cancelled.

use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::changer::{ChangeOptions, Repair, repair_until};

use crate::app::jobs::job::{Job, Watch};

/// What a repair was asked for, to tell whether its answer is still current.
#[derive(Clone, Debug, PartialEq)]
pub struct RepairInput {
    pub set: PieceSet,
    pub shapes_size: BoardSize,
    pub board: Bits,
    pub holder: Vec<PieceIdx>,
    pub seed: u64,
    pub options: ChangeOptions,
}

/// How a poll found the repair.
pub enum RepairPoll {
    Running,
    Done(Box<Repair>),
    Cancelled,
    /// The worker ended without an answer (it panicked).
    Failed,
}

/// A repair running in the background.
pub struct RepairJob {
    pub input: RepairInput,
    job: Job<Repair>,
}

impl RepairJob {
    pub fn spawn(input: RepairInput, ctx: &egui::Context) -> std::io::Result<Self> {
        let i = input.clone();
        let job = Job::spawn("repair", ctx, move |send, progress| {
            let shapes = Shapes::new(&i.set, i.shapes_size);
            let mut generator = Generator::new(i.seed);
            let r = repair_until(
                &shapes,
                &i.set,
                i.board,
                &i.holder,
                &mut generator,
                i.options,
                progress,
            );
            if let Some(r) = r {
                send(r);
            }
        })?;
        Ok(Self { input, job })
    }

    pub fn poll(&mut self) -> RepairPoll {
        if let Some(r) = self.job.drain().pop() {
            return RepairPoll::Done(Box::new(r));
        }
        match (self.job.ended(), self.job.cancelled()) {
            (false, _) => RepairPoll::Running,
            (true, true) => RepairPoll::Cancelled,
            (true, false) => RepairPoll::Failed,
        }
    }

    pub fn cancel(&self) {
        self.job.cancel();
    }

    pub fn cancelled(&self) -> bool {
        self.job.cancelled()
    }

    pub fn watch(&self) -> Watch {
        self.job.watch()
    }
}
