//! The Population view's playtest planner, on a job: how many testers give
//! a figure's interval a width, or detect a difference between two
//! generators, each answer checked by simulation at the design it names
//! (`tenten plan-playtest`, the same engine and the same lines).

use tenten_engine::study::calibrate::plan_playtest::{self, Ask};

use crate::app::jobs::job::{Background, Job};

/// The question asked.
#[derive(Clone, Debug, PartialEq)]
pub enum Question {
    Width {
        generator: String,
        width: f64,
    },
    Compare {
        a: String,
        b: String,
        difference: f64,
        power: f64,
    },
}

/// A question with the population, figure and design it is asked of.
#[derive(Clone, Debug)]
pub struct PlanRequest {
    pub ask: Ask,
    pub question: Question,
}

/// An answer: the request and the lines `plan-playtest` prints.
#[derive(Clone, Debug)]
pub struct Planned {
    pub request: PlanRequest,
    pub testers: usize,
    pub lines: Vec<String>,
}

#[derive(Default)]
pub struct PlanJob {
    pub result: Option<Planned>,
    pub error: Option<String>,
    job: Option<Job<Result<Planned, String>>>,
}

impl Background for PlanJob {
    type Message = Result<Planned, String>;
    fn job(&self) -> Option<&Job<Self::Message>> {
        self.job.as_ref()
    }
}

/// Answers `request`; `Ok(None)` when cancelled.
pub fn answer(
    request: &PlanRequest,
    progress: &tenten_engine::progress::Progress,
) -> Result<Option<Planned>, String> {
    let ask = &request.ask;
    Ok(match &request.question {
        Question::Width { generator, width } => {
            plan_playtest::testers_for_width(ask, generator, *width, progress)?.map(|r| Planned {
                request: request.clone(),
                testers: r.testers,
                lines: r.lines(ask, generator, *width),
            })
        }
        Question::Compare {
            a,
            b,
            difference,
            power,
        } => plan_playtest::testers_for_difference(ask, (a, b), *difference, *power, progress)?.map(|r| {
            Planned {
                request: request.clone(),
                testers: r.testers,
                lines: r.lines(ask, *difference, *power),
            }
        }),
    })
}

impl PlanJob {
    pub fn start(&mut self, request: PlanRequest, ctx: &egui::Context) -> Result<(), String> {
        self.cancel();
        let job = Job::spawn("plan-playtest", ctx, move |send, progress| {
            match answer(&request, progress) {
                Ok(Some(p)) => send(Ok(p)),
                Ok(None) => {}
                Err(e) => send(Err(e)),
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
