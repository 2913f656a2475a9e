//! Learning a generator from deals, on a job: the open log's text or a
//! folder of logs read and checked, then `fits::generator::learn` (every
//! check, the rules, the table), its cancel read in the inner loops.

use std::path::PathBuf;

use tenten_engine::fits::generator::{self, Learned, deals};
use tenten_engine::model::pieces::PieceSet;

use crate::app::jobs::job::{Background, Job};

/// Where the deals come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// The open log: its text and name.
    Text { name: String, text: String },
    /// A file or folder of logs.
    Path(PathBuf),
}

impl Source {
    pub fn name(&self) -> String {
        match self {
            Source::Text { name, .. } => name.clone(),
            Source::Path(p) => p.display().to_string(),
        }
    }
}

/// The last generator learned, what it was learned from, and the job
/// learning the next.
#[derive(Default)]
pub struct LearnJob {
    pub result: Option<(String, Learned)>,
    pub error: Option<String>,
    job: Option<Job<Result<(String, Learned), String>>>,
}

impl Background for LearnJob {
    type Message = Result<(String, Learned), String>;
    fn job(&self) -> Option<&Job<Self::Message>> {
        self.job.as_ref()
    }
}

impl LearnJob {
    pub fn start(&mut self, source: Source, set: PieceSet, ctx: &egui::Context) -> std::io::Result<()> {
        self.cancel();
        let job = Job::spawn("learn-generator", ctx, move |send, progress| {
            let read = match &source {
                Source::Text { name, text } => deals::read_texts(&[(name.clone(), text.clone())], &set),
                Source::Path(p) => deals::read(std::slice::from_ref(p), &set),
            };
            let read = match read {
                Ok(d) => d,
                Err(e) => return send(Err(e.to_string())),
            };
            let stem = std::path::Path::new(&source.name())
                .file_stem()
                .map_or("deals".into(), |s| s.to_string_lossy().into_owned());
            let req = generator::Request {
                name: format!("learned from {stem}"),
                replications: 20,
                ..generator::Request::default()
            };
            match generator::learn(&set, &read, &req, progress) {
                Ok(Some(l)) => send(Ok((source.name(), l))),
                Ok(None) => {}
                Err(e) => send(Err(e)),
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
