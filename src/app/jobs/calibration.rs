//! The Calibration page's work, on a job: a calibration study of one
//! estimator, its replications played in order with progress and cancel.

use tenten_engine::study::calibrate::{self, Plan, Replication};

use crate::app::jobs::job::{Background, Job};

/// A finished study: its plan by value and every replication.
#[derive(Clone, Debug)]
pub struct Study {
    pub plan: Plan,
    pub replications: Vec<Replication>,
}

#[derive(Default)]
pub struct CalibrationJob {
    pub result: Option<Study>,
    pub error: Option<String>,
    job: Option<Job<Result<Study, String>>>,
}

impl Background for CalibrationJob {
    type Message = Result<Study, String>;
    fn job(&self) -> Option<&Job<Self::Message>> {
        self.job.as_ref()
    }
}

impl CalibrationJob {
    /// Plays `plan`'s replications; refused before anything runs when the
    /// plan cannot be simulated.
    pub fn start(&mut self, plan: Plan, ctx: &egui::Context) -> Result<(), String> {
        plan.check()?;
        self.cancel();
        let job = Job::spawn("calibrate", ctx, move |send, progress| {
            progress.set_total(plan.replications);
            if let Some(replications) = calibrate::run(&plan, 0..plan.replications, progress, |_| {}) {
                send(Ok(Study { plan, replications }));
            }
        })
        .map_err(|e| e.to_string())?;
        self.job = Some(job);
        self.error = None;
        Ok(())
    }

    pub fn poll(&mut self) -> bool {
        crate::app::jobs::job::poll_answer(&mut self.job, &mut self.result, &mut self.error)
    }
}
