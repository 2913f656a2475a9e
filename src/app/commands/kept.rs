//! What the window keeps across a restart besides the document: the Lab's
//! last run, as a result file in the window's data folder, and the fitted
//! population, fitted again from its folder of logs when the window opens
//! (the same logs give the same fit).

use std::path::{Path, PathBuf};

use tenten_engine::study::plan::Plan;
use tenten_engine::study::results::ResultFile;

use crate::app::jobs::job::{Background as _, Job};
use crate::app::jobs::lab::GeneratorResults;
use crate::app::shell::app::App;

/// The file the Lab's last run is kept in.
const LAB_RUN: &str = "lab-last-run.ron";

/// A result file's games, as the Lab shows them: each (player, generator)
/// with its summary, and the seconds the games took.
pub fn lab_results(result: &ResultFile) -> Result<(Plan, Vec<GeneratorResults>, f64), String> {
    let plan = result.plan.clone();
    let rows = result.rows()?;
    let seconds = rows.iter().map(|(_, s)| s).sum();
    let results = rows
        .into_iter()
        .map(|((player, generator, games), _)| GeneratorResults {
            summary: tenten_engine::study::runner::summarize(&games, &plan.set),
            player,
            name: generator,
            games,
        })
        .collect();
    Ok((plan, results, seconds))
}

impl App {
    /// Where the window keeps what outlives it (`None` in tests that do
    /// not give one: nothing is written).
    pub fn set_data_dir(&mut self, dir: Option<PathBuf>) {
        self.data_dir = dir;
        self.recorder.folder = self
            .data_dir
            .as_ref()
            .filter(|_| self.state.settings.record_play)
            .map(|d| d.join(crate::app::shell::recording::FOLDER));
    }

    /// Writes the Lab's run (finished or cancelled, as shown) to the data
    /// folder, replacing the last one kept.
    /// (A large run is megabytes of text: it is written on a job, not in
    /// the frame the run ends in.)
    pub(crate) fn keep_lab_run(&mut self, ctx: &egui::Context) {
        let Some(dir) = self.data_dir.clone() else {
            return;
        };
        let Some(file) = self.live.lab.result_file() else {
            return;
        };
        let spawned = Job::spawn("keep-lab-run", ctx, move |send, _| {
            send(
                std::fs::create_dir_all(&dir)
                    .map_err(|e| e.to_string())
                    .and_then(|()| {
                        tenten_engine::io::formats::write_atomic(&dir.join(LAB_RUN), &file.to_ron())
                            .map_err(|e| e.to_string())
                    }),
            );
        });
        match spawned {
            Ok(job) => self.live.keeping = Some(job),
            Err(e) => self.live.error = Some(format!("The Lab's run could not be kept: {e}")),
        }
    }

    /// Takes the answer of the job keeping the Lab's run, once it is there.
    pub(crate) fn poll_keeping(&mut self) {
        let Some(job) = &mut self.live.keeping else {
            return;
        };
        if let Some(Err(e)) = job.drain().pop() {
            self.live.error = Some(format!(
                "The Lab's run could not be kept for the next session: {e}"
            ));
        }
        if job.ended() {
            self.live.keeping = None;
        }
    }

    /// Brings back what the last session kept: the Lab's run, and the
    /// population (fitted again from its folder, in the background).
    pub fn restore_kept(&mut self, ctx: &egui::Context) {
        if let Some(dir) = self.data_dir.clone() {
            self.restore_lab_run(&dir.join(LAB_RUN));
        }
        let folder = self.state.settings.population_folder.clone();
        if let Some(folder) = folder.filter(|f| f.is_dir())
            && !self.live.population_fit.running()
        {
            self.start_population_fit(folder.clone(), ctx);
            self.live.status = format!(
                "Fitting the last session's population again from {}…",
                folder.display()
            );
        }
    }

    fn restore_lab_run(&mut self, path: &Path) {
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        let restored = ResultFile::parse(&text, &path.display().to_string())
            .map_err(|e| e.to_string())
            .and_then(|r| {
                let (done, all) = r.done();
                lab_results(&r).map(|(plan, results, seconds)| (plan, results, seconds, done == all))
            });
        match restored {
            Ok((plan, results, seconds, finished)) => self.live.lab.restore(plan, results, seconds, finished),
            // A run of another engine behaviour, or a damaged file: say so,
            // and start without it.
            Err(e) => self.live.status = format!("The last session's Lab run was not restored: {e}"),
        }
    }
}
