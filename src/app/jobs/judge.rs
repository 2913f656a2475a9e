//! Judging every deal of an opened batch: rayon over chunks of deals on the
//! job's thread, each chunk's verdicts streamed as it finishes. Cancel is
//! read before every deal.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use tenten_engine::io::batch::{self, Judged};
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::changer::ChangeOptions;

use crate::app::jobs::job::Job;
use crate::app::shell::batch_source::Source;

/// The verdicts of the deals from a position on.
pub type Chunk = (usize, Vec<Judged>);

const CHUNK: usize = 256;

/// Starts judging `source`'s deals; `None` only if the system refuses a thread.
pub fn spawn(
    source: &Arc<Source>,
    set: &PieceSet,
    options: ChangeOptions,
    ctx: &egui::Context,
) -> Option<Job<Chunk>> {
    let (source, set) = (Arc::clone(source), set.clone());
    Job::spawn("judge-batch", ctx, move |send, progress| {
        progress.set_total(source.entries.len());
        let mut sizes: Vec<BoardSize> = source.entries.iter().map(|e| e.deal.board.size()).collect();
        sizes.sort_by_key(|s| (s.w(), s.h()));
        sizes.dedup();
        let shapes: HashMap<BoardSize, Shapes> =
            sizes.into_iter().map(|s| (s, Shapes::new(&set, s))).collect();
        source
            .entries
            .par_chunks(CHUNK)
            .enumerate()
            .for_each(|(c, chunk)| {
                let mut verdicts = Vec::with_capacity(chunk.len());
                for (i, e) in chunk.iter().enumerate() {
                    if progress.cancelled() {
                        return;
                    }
                    let pos = c * CHUNK + i;
                    verdicts.push(batch::judge(
                        &shapes[&e.deal.board.size()],
                        &set,
                        &e.deal,
                        options,
                        pos as u64,
                    ));
                }
                send((c * CHUNK, verdicts));
                progress.advance(chunk.len());
            });
    })
    .ok()
}
