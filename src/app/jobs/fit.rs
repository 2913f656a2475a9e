//! Fitting a player to the open playtest log, on a job: the log read and
//! checked, each move reduced to what the likelihood needs, then the
//! maximum-likelihood temperature and slip with their profile curves.

use tenten_engine::fits::player::{self as fit, Fit};
use tenten_engine::io::playtest_log;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::coelho::CoelhoWeights;
use tenten_engine::play::player::{Lookahead, Player};

use crate::app::jobs::job::{Background, Job};

/// What to fit: the log's text and name, its piece set, and the player's
/// fixed parts.
#[derive(Clone, Debug)]
pub struct FitRequest {
    pub text: String,
    pub file: String,
    pub set: PieceSet,
    pub lookahead: Lookahead,
    pub evaluation: CoelhoWeights,
}

/// A finished fit and what it was asked.
#[derive(Clone, Debug)]
pub struct Fitted {
    pub file: String,
    pub lookahead: Lookahead,
    pub evaluation: CoelhoWeights,
    pub fit: Fit,
}

impl Fitted {
    /// The fitted player, named after its log.
    pub fn player(&self) -> Player {
        let stem = std::path::Path::new(&self.file)
            .file_stem()
            .map_or("log".into(), |s| s.to_string_lossy());
        self.fit
            .player(&format!("fitted to {stem}"), self.evaluation, self.lookahead)
    }

    /// The player file, with a comment saying where it came from.
    pub fn player_file(&self) -> String {
        self.fit.player_file(
            &format!("{} in the workbench", self.file),
            &self.player().name,
            self.evaluation,
            self.lookahead,
        )
    }
}

/// The last fit and the job computing the next.
#[derive(Default)]
pub struct PlayerFit {
    pub result: Option<Fitted>,
    pub error: Option<String>,
    job: Option<Job<Result<Fitted, String>>>,
}

impl Background for PlayerFit {
    type Message = Result<Fitted, String>;
    fn job(&self) -> Option<&Job<Self::Message>> {
        self.job.as_ref()
    }
}

impl PlayerFit {
    pub fn start(&mut self, r: FitRequest, ctx: &egui::Context) -> std::io::Result<()> {
        self.cancel();
        let job = Job::spawn("fit-player", ctx, move |send, progress| {
            let log = match playtest_log::parse(&r.text, &r.file, &r.set) {
                Ok(log) => log,
                Err(e) => return send(Err(e.to_string())),
            };
            progress.set_total(log.deals.len());
            let shapes = Shapes::new(&r.set, log.size);
            if let Some(d) = fit::decisions(&shapes, r.lookahead, r.evaluation, &log, progress) {
                send(Ok(Fitted {
                    file: r.file.clone(),
                    lookahead: r.lookahead,
                    evaluation: r.evaluation,
                    fit: fit::fit(&d),
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
