//! Work that can take longer than a frame runs on a named thread that reports
//! over a channel and asks for a repaint; the UI polls once per frame.

use std::sync::mpsc::{Receiver, TryRecvError, channel};

use crate::engine::board::Bits;
use crate::engine::changer::{ChangeOptions, Repair, repair};
use crate::engine::generator::Generator;
use crate::engine::pieces::{PieceIdx, PieceSet};
use crate::engine::shapes::Shapes;

/// What a repair was asked for, to tell whether its answer is still current.
#[derive(Clone, Debug, PartialEq)]
pub struct RepairInput {
    pub set: PieceSet,
    pub shapes_size: crate::engine::board::BoardSize,
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
