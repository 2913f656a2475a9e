//! The Calibration page's work, on a job: a calibration study of one
//! estimator, its replications played in order with progress and cancel.
//! The progress is the study's own (`calibrate::run` counts replications
//! weighed by their cost, and the part of the one under way its fit has
//! reported), so the bar's ETA is an honest one.

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
    /// The file the result was opened from (`None`: run here).
    pub opened: Option<String>,
    /// Studies opened so far: the page sets its fields to each new one's
    /// plan (two files of one name are two studies).
    pub opened_count: usize,
    pub error: Option<String>,
    job: Option<Job<Result<Study, String>>>,
    /// The plan under way, to say which replication it is at.
    running: Option<Plan>,
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
        self.running = Some(plan.clone());
        let job = Job::spawn("calibrate", ctx, move |send, progress| {
            if let Some(replications) = calibrate::run(&plan, 0..plan.replications, progress, |_| {}) {
                send(Ok(Study { plan, replications }));
            }
        })
        .map_err(|e| e.to_string())?;
        self.job = Some(job);
        self.error = None;
        // A study opened from a file leaves with it: nothing run here is
        // shown under the file's name, or the file's under this run's.
        self.opened = None;
        self.result = None;
        Ok(())
    }

    /// Shows a study read from `file` as the page's result.
    pub fn show(&mut self, study: Study, file: String) {
        self.result = Some(study);
        self.error = None;
        self.opened = Some(file);
        self.opened_count += 1;
    }

    /// Replications done of the study under way, from the units of cost
    /// its job has counted.
    pub fn replications_done(&self) -> Option<(usize, usize)> {
        let (job, plan) = (self.job.as_ref()?, self.running.as_ref()?);
        let units = job.done();
        let mut sum = 0;
        let done = (0..plan.replications)
            .take_while(|&r| {
                sum += plan.cost(r);
                sum <= units
            })
            .count();
        Some((done, plan.replications))
    }

    pub fn poll(&mut self) -> bool {
        crate::app::jobs::job::poll_answer(&mut self.job, &mut self.result, &mut self.error)
    }
}
