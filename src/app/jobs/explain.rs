//! Which model explains the open playtest log, on a job: every model
//! compared on held-out games, the best fitted and checked
//! (`tenten_engine::fits::explain`, what `fit-player --compare` prints).

use tenten_engine::fits::explain::{self, Ask, Explanation};
use tenten_engine::io::playtest_log;
use tenten_engine::model::pieces::PieceSet;

use crate::app::jobs::job::{Background, Job};

/// What to explain: the log's text and name, its piece set, and the ask.
#[derive(Clone, Debug)]
pub struct ExplainRequest {
    pub text: String,
    pub file: String,
    pub set: PieceSet,
    pub ask: Ask,
}

/// A finished explanation and the log it is of.
#[derive(Clone, Debug)]
pub struct Explained {
    pub file: String,
    pub ask: Ask,
    pub e: Explanation,
}

/// The last explanation and the job computing the next.
#[derive(Default)]
pub struct LogCheck {
    pub result: Option<Explained>,
    pub error: Option<String>,
    job: Option<Job<Result<Explained, String>>>,
}

impl Background for LogCheck {
    type Message = Result<Explained, String>;
    fn job(&self) -> Option<&Job<Self::Message>> {
        self.job.as_ref()
    }
}

impl LogCheck {
    pub fn start(&mut self, r: ExplainRequest, ctx: &egui::Context) -> std::io::Result<()> {
        self.cancel();
        let job = Job::spawn("explain-log", ctx, move |send, progress| {
            let log = match playtest_log::parse(&r.text, &r.file, &r.set) {
                Ok(log) => log,
                Err(e) => return send(Err(e.to_string())),
            };
            // Four models' decisions, the best's fit and predictions, then
            // the simulated games: about one unit of work per deal each.
            progress.set_total(log.deals.len() * 4 + r.ask.games);
            if let Some(e) = explain::explain(&r.set, &log, &r.ask, progress) {
                send(Ok(Explained {
                    file: r.file.clone(),
                    ask: r.ask.clone(),
                    e,
                }));
            }
        })?;
        self.job = Some(job);
        self.error = None;
        Ok(())
    }

    /// Takes the answer when it comes; true in the frame the job ends.
    pub fn poll(&mut self) -> bool {
        crate::app::jobs::job::poll_answer(&mut self.job, &mut self.result, &mut self.error)
    }
}
