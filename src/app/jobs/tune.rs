//! Tuning the active generator (or the random one) toward the Lab's
//! targets, on a job: every evaluation streams in for the convergence plot,
//! then the report with the hold-out check.

use tenten_engine::study::tune::{self, Evaluation, TuneReport, TuneRequest};

use crate::app::jobs::job::{Background, Job};

pub enum Message {
    Eval(Evaluation),
    Done(Box<TuneReport>),
}

/// The last tune: its evaluations so far, its report, the job.
#[derive(Default)]
pub struct TuneJob {
    pub evaluations: Vec<Evaluation>,
    pub report: Option<TuneReport>,
    /// What was tuned: the base generator's name and the targets, in words.
    pub what: String,
    pub error: Option<String>,
    job: Option<Job<Message>>,
}

impl Background for TuneJob {
    type Message = Message;
    fn job(&self) -> Option<&Job<Message>> {
        self.job.as_ref()
    }
}

impl TuneJob {
    pub fn start(&mut self, request: TuneRequest, what: String, ctx: &egui::Context) -> std::io::Result<()> {
        self.cancel();
        let budget = request.budget_seconds;
        let job = Job::spawn("tune", ctx, move |send, progress| {
            // Progress in tenths of a second of the budget: the search runs
            // until the budget or the targets end it.
            progress.set_total((budget * 10.0) as usize);
            let started = std::time::Instant::now();
            let report = tune::tune(&request, progress, |e| {
                let spent = (started.elapsed().as_secs_f64() * 10.0) as usize;
                let done = progress.done.load(std::sync::atomic::Ordering::Relaxed);
                progress.advance(spent.saturating_sub(done).min((budget * 10.0) as usize));
                send(Message::Eval(e.clone()));
            });
            if let Some(r) = report {
                send(Message::Done(Box::new(r)));
            }
        })?;
        *self = TuneJob {
            what,
            job: Some(job),
            ..TuneJob::default()
        };
        Ok(())
    }

    /// Takes what arrived; true in the frame the job ends.
    pub fn poll(&mut self) -> bool {
        let Some(job) = self.job.as_mut() else {
            return false;
        };
        for m in job.drain() {
            match m {
                Message::Eval(e) => self.evaluations.push(e),
                Message::Done(r) => self.report = Some(*r),
            }
        }
        if !job.ended() {
            return false;
        }
        if self.report.is_none() && !job.cancelled() {
            self.error = Some("The tune stopped unexpectedly.".to_owned());
        }
        self.job = None;
        true
    }
}
