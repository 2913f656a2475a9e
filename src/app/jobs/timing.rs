//! The timing lab's sweep, on a named thread: it builds the corpus, then
//! times every deal at every factor and streams the measurements back in
//! chunks; the UI polls once per frame and keeps the summaries current.

use std::path::PathBuf;

use tenten_engine::io::formats;
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::perf::timing::{self, FactorSummary, Measurement, Sweep, SweepDeal};
use tenten_engine::search::changer::ChangeOptions;

use crate::app::jobs::job::{Background, Job};
use crate::app::shell::settings::{CorpusChoice, TimingSettings};
use tenten_engine::progress::Progress;

/// Everything the worker needs, copied from the window's state.
#[derive(Clone, Debug)]
pub struct SweepRequest {
    pub settings: TimingSettings,
    pub set: PieceSet,
    pub size: BoardSize,
    pub k: usize,
    pub board: Bits,
    pub file: Option<PathBuf>,
    pub options: ChangeOptions,
    /// The active generator: the corpus's holders are drawn as it draws
    /// them (the weights of the band in force for each board's fill).
    pub generator: Option<tenten_engine::play::generator_file::GeneratorSpec>,
}

pub enum Message {
    Corpus(Vec<SweepDeal>),
    Chunk(Vec<Measurement>),
    Failed(String),
    Done { complete: bool },
}

/// The last sweep's results, and the job computing them.
#[derive(Default)]
pub struct TimingSweep {
    /// What the current results were asked for.
    pub request: Option<SweepRequest>,
    pub deals: Vec<SweepDeal>,
    pub measurements: Vec<Measurement>,
    pub summaries: Vec<FactorSummary>,
    /// How the last sweep ended: `Some(true)` complete, `Some(false)` cancelled.
    pub finished: Option<bool>,
    pub error: Option<String>,
    job: Option<Job<Message>>,
    /// The worker's last word, kept across frames: its Done may be drained
    /// a frame before the channel is seen closed.
    done: Option<bool>,
}

impl Background for TimingSweep {
    type Message = Message;
    fn job(&self) -> Option<&Job<Message>> {
        self.job.as_ref()
    }
}

impl TimingSweep {
    /// Starts a sweep, dropping the last results.
    pub fn start(&mut self, request: SweepRequest, ctx: &egui::Context) -> std::io::Result<()> {
        self.cancel();
        let job = request.clone();
        let stream = Job::spawn("timing-sweep", ctx, move |send, progress| {
            let deals = match corpus(&job, progress) {
                Ok(d) => d,
                Err(e) => return send(Message::Failed(e)),
            };
            send(Message::Corpus(deals.clone()));
            let sweep = Sweep {
                set: job.set,
                size: job.size,
                deals,
                seed: job.settings.seed,
                options: job.options,
                factors: job.settings.factors,
            };
            let complete = timing::run(&sweep, progress, |chunk| send(Message::Chunk(chunk)));
            send(Message::Done { complete });
        })?;
        // The last sweep, if still going, is dropped: cancelled.
        *self = TimingSweep {
            request: Some(request),
            job: Some(stream),
            ..TimingSweep::default()
        };
        Ok(())
    }

    /// Takes what arrived; recomputes the summaries when anything did.
    /// Returns how the sweep ended, in the frame it ends.
    pub fn poll(&mut self) -> Option<bool> {
        let job = self.job.as_mut()?;
        let mut changed = false;
        for m in job.drain() {
            match m {
                Message::Corpus(deals) => self.deals = deals,
                Message::Chunk(chunk) => {
                    self.measurements.extend(chunk);
                    changed = true;
                }
                Message::Failed(e) => self.error = Some(e),
                Message::Done { complete } => self.done = Some(complete),
            }
        }
        if changed {
            self.summaries = timing::summarize(&self.measurements);
        }
        if !job.ended() {
            return None;
        }
        let complete = self.done.take().unwrap_or(false);
        if !complete && !job.cancelled() && self.error.is_none() {
            self.error = Some("The sweep stopped unexpectedly.".to_owned());
        }
        self.finished = Some(complete);
        self.job = None;
        self.finished
    }
}

/// The deals to time, built on the worker (gameplays run the changer).
fn corpus(r: &SweepRequest, progress: &Progress) -> Result<Vec<SweepDeal>, String> {
    let s = &r.settings;
    if s.factors.is_empty() {
        return Err("Pick at least one throttle factor to sweep.".to_owned());
    }
    let shapes = Shapes::new(&r.set, r.size);
    let n = s.deals.max(1);
    let deals = match s.corpus {
        CorpusChoice::Realistic => timing::realistic(&shapes, &r.set, r.k, n, s.seed),
        CorpusChoice::Gameplay => {
            timing::gameplay(&shapes, &r.set, r.k, n, s.games, s.seed, r.options, progress)
        }
        CorpusChoice::Board => timing::one_board(&r.set, r.board, r.k, n, s.seed),
        CorpusChoice::File => file_deals(r)?,
    };
    Ok(match (&r.generator, s.corpus) {
        // A file's holders are what the file says.
        (Some(spec), corpus) if corpus != CorpusChoice::File => redrawn(spec, deals, r, s.seed),
        _ => deals,
    })
}

/// The corpus's boards with their holders drawn again as the active
/// generator draws them on boards that full.
fn redrawn(
    spec: &tenten_engine::play::generator_file::GeneratorSpec,
    deals: Vec<SweepDeal>,
    r: &SweepRequest,
    seed: u64,
) -> Vec<SweepDeal> {
    let mut rng = tenten_engine::model::generator::Generator::new(seed ^ 0x006E_6E72_6174_6F72);
    let cells = r.size.cells().max(1) as f64;
    deals
        .into_iter()
        .map(|d| SweepDeal {
            holder: tenten_engine::play::file_dealer::draw_holder(
                spec,
                f64::from(d.board.count_ones()) / cells,
                r.k,
                &mut rng,
            ),
            board: d.board,
        })
        .collect()
}

/// Every deal of the opened file, on the window's piece set and board size.
fn file_deals(r: &SweepRequest) -> Result<Vec<SweepDeal>, String> {
    let Some(path) = &r.file else {
        return Err("No file is open: open a batch (Ctrl+O) or pick another corpus.".to_owned());
    };
    let name = path.display().to_string();
    let text = formats::read_text(path).map_err(|e| e.to_string())?;
    let raws = formats::parse_deals(&text, &name).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for raw in &raws {
        let deal = raw.resolve(&r.set, &text, &name).map_err(|e| e.to_string())?;
        if deal.board.size() != r.size {
            return Err(format!(
                "{name}: a deal is {}, the window's board is {}; sweep one size at a time",
                deal.board.size(),
                r.size
            ));
        }
        if !deal.holder.is_empty() {
            out.push(SweepDeal {
                board: deal.board.bits(),
                holder: deal.holder,
            });
        }
    }
    if out.is_empty() {
        return Err(format!("{name} holds no deal with a holder to time."));
    }
    Ok(out)
}
