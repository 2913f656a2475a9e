//! The generator lab's simulation, on a named thread: games are played in
//! blocks of `BLOCK` seeds, every chosen (player, generator) on the same
//! block before the next, so the partial results streamed to the window are
//! paired from the first block on. A replay of one game runs on its own thread too (a
//! coelho game of thousands of rounds takes a while).

use tenten_engine::model::board::BoardSize;
use tenten_engine::play::dealers;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::play::game::{Game, Round};
use tenten_engine::play::who::Who;
use tenten_engine::search::changer::ChangeOptions;
use tenten_engine::study::runner::{self, Plan, Summary};

use crate::app::jobs::job::{Background, Job, Watch};
use crate::app::shell::settings::{LabSettings, LabSize};

/// Seeds per block: small enough to stream often, large enough to keep both
/// cores busy.
const BLOCK: usize = 64;

/// The results of one (player, generator) so far.
#[derive(Clone, Debug)]
pub struct GeneratorResults {
    pub player: String,
    /// The generator.
    pub name: String,
    /// Games in seed order (blocks arrive in order).
    pub games: Vec<Game>,
    pub summary: Summary,
}

/// A block of games of one (player, generator), in seed order.
pub struct Block {
    pair: usize,
    games: Vec<Game>,
}

/// A replay of one game, computed off the UI thread.
pub struct Replay {
    pub player: String,
    pub generator: String,
    pub game: usize,
    /// `None` while it is being played again.
    pub rounds: Option<(Game, Vec<Round>)>,
    /// The step shown: 0 is the first deal; see `steps`.
    pub step: usize,
    /// Every step, in order, once the rounds have arrived.
    steps: Vec<ReplayStep>,
    job: Option<Job<(Game, Vec<Round>)>>,
}

/// One step of a replay: a round's deal, or one of its placements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayStep {
    pub round: usize,
    /// `None`: the deal (and its repair); `Some(i)`: after placement i.
    pub placement: Option<usize>,
}

impl Replay {
    pub fn steps(&self) -> &[ReplayStep] {
        &self.steps
    }

    /// The step shown (clamped to the last), and its index.
    pub fn current(&self) -> Option<(usize, ReplayStep)> {
        let at = self.step.min(self.steps.len().checked_sub(1)?);
        Some((at, self.steps[at]))
    }

    /// A round's deal, then each of its placements, round after round.
    fn steps_of(rounds: &[Round]) -> Vec<ReplayStep> {
        rounds
            .iter()
            .enumerate()
            .flat_map(|(r, round)| {
                std::iter::once(ReplayStep {
                    round: r,
                    placement: None,
                })
                .chain((0..round.moves.len()).map(move |i| ReplayStep {
                    round: r,
                    placement: Some(i),
                }))
            })
            .collect()
    }
}

/// A finished run kept beside the next ones, to compare with.
#[derive(Clone, Debug)]
pub struct Pinned {
    /// What it was: "greedy, classic 1010! (modified), 10x10, seeds 1..500".
    pub label: String,
    pub results: Vec<GeneratorResults>,
}

/// The last simulation's results, the job computing them, and a replay.
#[derive(Default)]
pub struct Lab {
    /// What the results were asked for.
    pub plan: Option<Plan>,
    /// The plan's fingerprint (`Plan::fingerprint`), shown with the figures.
    pub fingerprint: String,
    /// The run's piece set as the top bar named it ("classic 1010!
    /// (modified)"), at the time of the run.
    pub set_title: String,
    /// A run pinned to compare with this one (kept across runs).
    pub pinned: Option<Pinned>,
    pub results: Vec<GeneratorResults>,
    pub finished: Option<bool>,
    pub error: Option<String>,
    pub replay: Option<Replay>,
    job: Option<Job<Block>>,
    /// Seconds the finished run took.
    pub seconds: f64,
    /// The result file the results were opened from (a run made elsewhere,
    /// such as a merge of shards), or `None` for a run made here.
    pub source: Option<String>,
    /// A run started but without a finished game yet: the results above
    /// stay the last run's until it has figures of its own.
    pub incoming: Option<Incoming>,
    /// What became of a run that ended before its first game: one sentence.
    pub note: Option<String>,
    /// A new run's first figures arrived since `take_first_figures` asked.
    first_figures: bool,
    /// The finished run a new run took the place of, kept until the new one
    /// finishes; after a cancelled re-run, the other of the two runs (the
    /// finished one shown, the partial one kept here, or the other way
    /// round after `swap_other`).
    pub other: Option<Shown>,
    /// The games the run that ended last had played (0 when it ended
    /// before its first game), for the status line.
    pub ended_games: usize,
}

/// A run as shown: what it measured and its games so far.
#[derive(Clone, Debug)]
pub struct Shown {
    pub plan: Option<Plan>,
    pub fingerprint: String,
    pub set_title: String,
    pub results: Vec<GeneratorResults>,
    pub finished: Option<bool>,
    pub seconds: f64,
    pub source: Option<String>,
}

impl Shown {
    /// "novice + expert, 100 games: finished" or "... cancelled after 37 of 200 games".
    pub fn label(&self) -> String {
        let played: usize = self.results.iter().map(|r| r.games.len()).sum();
        let wanted = self.plan.as_ref().map_or(0, |p| p.games * self.results.len());
        let what = self
            .plan
            .as_ref()
            .map_or(String::new(), |p| run_label(p, &self.set_title));
        match self.finished {
            Some(true) => format!(
                "{what}: finished, {} games",
                tenten_engine::text::grouped(played as u64)
            ),
            _ => format!(
                "{what}: partial, cancelled after {} of {} games",
                tenten_engine::text::grouped(played as u64),
                tenten_engine::text::grouped(wanted as u64)
            ),
        }
    }
}

/// A new run until its first games arrive.
pub struct Incoming {
    pub plan: Plan,
    pub results: Vec<GeneratorResults>,
    pub set_title: String,
}

impl Background for Lab {
    type Message = Block;
    fn job(&self) -> Option<&Job<Block>> {
        self.job.as_ref()
    }

    /// The threads of the run and the replay (tests check that they end).
    fn watches(&self) -> Vec<Watch> {
        let replay = self.replay.as_ref().and_then(|r| r.job.as_ref()).map(Job::watch);
        self.job.iter().map(Job::watch).chain(replay).collect()
    }
}

impl Lab {
    /// The run shown, as a result file (what `tenten simulate --out`
    /// writes): the window keeps its last run across restarts in one.
    pub fn result_file(&self) -> Option<tenten_engine::study::results::ResultFile> {
        let plan = self.plan.clone()?;
        let mut file =
            tenten_engine::study::results::ResultFile::new(plan, tenten_engine::study::results::Shard::ALL);
        let per_pair = self.seconds / self.results.len().max(1) as f64;
        for (i, r) in self.results.iter().enumerate() {
            file.add(i, r.games.iter().cloned().enumerate(), per_pair);
        }
        Some(file)
    }

    /// Shows a run kept from the last session, as it was shown then.
    pub fn restore(&mut self, plan: Plan, results: Vec<GeneratorResults>, seconds: f64, finished: bool) {
        self.show_result(plan, results, seconds, String::new());
        self.source = None;
        self.finished = Some(finished);
        self.note = Some("The last session's run, kept across the restart.".to_owned());
    }

    /// The run on screen, moved out (its games are not copied).
    fn take_shown(&mut self) -> Shown {
        Shown {
            plan: self.plan.take(),
            fingerprint: std::mem::take(&mut self.fingerprint),
            set_title: std::mem::take(&mut self.set_title),
            results: std::mem::take(&mut self.results),
            finished: self.finished.take(),
            seconds: std::mem::take(&mut self.seconds),
            source: self.source.take(),
        }
    }

    fn show(&mut self, s: Shown) {
        self.plan = s.plan;
        self.fingerprint = s.fingerprint;
        self.set_title = s.set_title;
        self.results = s.results;
        self.finished = s.finished;
        self.seconds = s.seconds;
        self.source = s.source;
        self.replay = None;
    }

    /// Shows the other run kept (a finished run and a cancelled re-run's
    /// partial one), keeping this one in its place.
    pub fn swap_other(&mut self) {
        if self.running() {
            return;
        }
        if let Some(other) = self.other.take() {
            let now = self.take_shown();
            self.show(other);
            self.other = Some(now);
        }
    }

    /// Keeps the results on screen as the pinned run.
    pub fn pin(&mut self) {
        if let Some(plan) = &self.plan {
            self.pinned = Some(Pinned {
                label: run_label(plan, &self.set_title),
                results: self.results.clone(),
            });
        }
    }

    /// Shows a finished run made elsewhere (a result file, such as `tenten
    /// merge --out` writes): its plan and games, as if it had run here.
    pub fn show_result(&mut self, plan: Plan, results: Vec<GeneratorResults>, seconds: f64, source: String) {
        self.cancel();
        *self = Lab {
            set_title: plan.set.name.clone(),
            fingerprint: plan.fingerprint(),
            plan: Some(plan),
            results,
            finished: Some(true),
            seconds,
            source: Some(source),
            pinned: self.pinned.take(),
            ..Lab::default()
        };
    }

    pub fn start(&mut self, plan: Plan, set_title: String, ctx: &egui::Context) -> std::io::Result<()> {
        self.cancel();
        self.poll();
        if let Some(old) = self.job.take() {
            // Superseded mid-run: what it finished stays, as a cancelled run's.
            self.incoming = None;
            self.seconds = old.seconds();
            self.finished = Some(false);
        }
        self.note = None;
        self.error = None;
        if plan.generators.is_empty() {
            self.error = Some("Pick at least one generator.".to_owned());
            return Ok(());
        }
        if plan.players.is_empty() {
            self.error = Some("Pick at least one player.".to_owned());
            return Ok(());
        }
        let job = plan.clone();
        let stream = Job::spawn("generator-lab", ctx, move |send, progress| {
            let pairs = pairs(&job);
            // Progress in estimated time, so the ETA holds across players
            // whose games differ a thousandfold in cost.
            let costs: Vec<usize> = pairs.iter().map(|(p, _)| runner::game_cost(&job, p)).collect();
            progress.set_total(job.games * costs.iter().sum::<usize>());
            let mut start = 0;
            while start < job.games {
                let end = (start + BLOCK).min(job.games);
                for (i, (p, g)) in pairs.iter().enumerate() {
                    match runner::run_range(&job, p, g, start..end, costs[i], progress) {
                        Some(games) => send(Block { pair: i, games }),
                        None => return,
                    }
                }
                start = end;
            }
        })?;
        let results = pairs(&plan)
            .into_iter()
            .map(|(p, g)| GeneratorResults {
                player: p.to_owned(),
                name: g.to_owned(),
                games: Vec::new(),
                summary: runner::summarize(&[], &plan.set),
            })
            .collect();
        // The last run's figures stay on screen until this one has its own.
        self.incoming = Some(Incoming {
            plan,
            results,
            set_title,
        });
        self.job = Some(stream);
        Ok(())
    }

    /// The new run's first games are in: its figures take the last run's
    /// place (and the replay of a game of the last run goes).
    fn promote(&mut self) {
        let Some(new) = self.incoming.take() else { return };
        // A finished run is never thrown away by a re-run that may yet be
        // cancelled: it is kept until the new one finishes.
        if self.finished == Some(true) && self.plan.is_some() {
            self.other = Some(self.take_shown());
        }
        self.fingerprint = new.plan.fingerprint();
        self.plan = Some(new.plan);
        self.results = new.results;
        self.set_title = new.set_title;
        self.replay = None;
        self.source = None;
        self.finished = None;
        self.seconds = 0.0;
        self.first_figures = true;
    }

    /// Whether a new run's first figures arrived since the last call (the
    /// Lab then shows its Results page).
    pub fn take_first_figures(&mut self) -> bool {
        std::mem::take(&mut self.first_figures)
    }

    /// Takes what arrived and keeps the summaries current; returns how the
    /// run ended (complete or not), in the frame it ends.
    pub fn poll(&mut self) -> Option<bool> {
        self.poll_replay();
        let blocks = self.job.as_mut()?.drain();
        let mut changed = Vec::new();
        if !blocks.is_empty() {
            self.promote();
        }
        for Block { pair, games } in blocks {
            if let Some(r) = self.results.get_mut(pair) {
                r.games.extend(games);
                changed.push(pair);
            }
        }
        if let Some(plan) = &self.plan {
            changed.sort_unstable();
            changed.dedup();
            for i in changed {
                let r = &mut self.results[i];
                r.summary = runner::summarize(&r.games, &plan.set);
            }
        }
        let job = self.job.as_ref()?;
        if !job.ended() {
            return None;
        }
        let job_cancelled = job.cancelled();
        let job_seconds = job.seconds();
        self.job = None;
        if self.incoming.take().is_some() {
            self.ended_games = 0;
            // Ended before its first game: the last run's figures stay.
            self.note = Some(if self.plan.is_some() {
                "The new run was cancelled before its first game finished; the Results page still shows the last run's figures."
            } else {
                "The run was cancelled before its first game finished."
            }
            .to_owned());
            if !job_cancelled {
                self.error = Some("The simulation stopped unexpectedly.".to_owned());
            }
            return Some(false);
        }
        let games = self.plan.as_ref().map_or(0, |p| p.games);
        let complete = self.results.iter().all(|r| r.games.len() == games);
        if !complete && !job_cancelled {
            self.error = Some("The simulation stopped unexpectedly.".to_owned());
        }
        self.seconds = job_seconds;
        self.finished = Some(complete);
        self.ended_games = self.results.iter().map(|r| r.games.len()).sum();
        if complete {
            self.other = None;
        } else if self.other.is_some() {
            // The finished run comes back on screen; the partial one is
            // kept beside it.
            self.swap_other();
            self.note = Some(
                "The re-run was cancelled: the Results page shows the finished run; its partial games are kept beside it."
                    .to_owned(),
            );
        }
        Some(complete)
    }

    /// The results of one player, one per generator, in the lab's order
    /// (empty for a player not in the run).
    pub fn of_player(&self, player: &str) -> &[GeneratorResults] {
        let first = self.results.iter().position(|r| r.player == player);
        let count = self.results.iter().filter(|r| r.player == player).count();
        first.map_or(&[], |f| &self.results[f..f + count])
    }

    /// Plays game `game` of `player` against `generator` again, recording
    /// every round. A replay asked while another is played cancels that one.
    pub fn start_replay(&mut self, player: &str, generator: &str, game: usize, ctx: &egui::Context) {
        let Some(plan) = self.plan.clone() else { return };
        let (who, name) = (player.to_owned(), generator.to_owned());
        let spawned = Job::spawn("lab-replay", ctx, move |send, progress| {
            if let Some(r) = runner::replay(&plan, &who, &name, game, progress) {
                send(r);
            }
        });
        let job = match spawned {
            Ok(job) => job,
            Err(e) => {
                self.error = Some(format!("Could not start the replay: {e}"));
                return;
            }
        };
        // A replay still playing is dropped, so cancelled.
        self.replay = Some(Replay {
            player: player.to_owned(),
            generator: generator.to_owned(),
            game,
            rounds: None,
            step: 0,
            steps: Vec::new(),
            job: Some(job),
        });
    }

    fn poll_replay(&mut self) {
        let Some(r) = &mut self.replay else { return };
        let Some(job) = &mut r.job else { return };
        if let Some(done) = job.drain().pop() {
            r.steps = Replay::steps_of(&done.1);
            r.rounds = Some(done);
        }
        if job.ended() {
            let failed = r.rounds.is_none() && !job.cancelled();
            r.job = None;
            if failed {
                self.error = Some("The replay stopped unexpectedly.".to_owned());
                self.replay = None;
            }
        }
    }
}

/// Every (player, generator) of a plan, player by player: the order of
/// the lab's results.
pub fn pairs(plan: &Plan) -> Vec<(&str, &str)> {
    plan.players
        .iter()
        .flat_map(|(p, _)| plan.generators.iter().map(move |(g, _)| (p.as_str(), g.as_str())))
        .collect()
}

/// "novice, casual, classic 1010! (modified), 10x10 board, holders of 3,
/// seeds 1..500": what a run measured, its set named as the top bar names it.
pub fn run_label(plan: &Plan, set_title: &str) -> String {
    let players: Vec<String> = plan
        .players
        .iter()
        .map(|(p, who)| match who {
            Who::Coelho { criteria } => format!("{p} {criteria}"),
            _ => p.clone(),
        })
        .collect();
    let set = if set_title.is_empty() {
        &plan.set.name
    } else {
        set_title
    };
    format!(
        "{}, {set}, {} board, holders of {}, seeds {}..{}",
        players.join(", "),
        plan.shapes_size,
        plan.k,
        plan.seed,
        plan.seed.wrapping_add(plan.games.saturating_sub(1) as u64),
    )
}

/// What changed since `run` was planned, against the window's settings,
/// piece set and board now: empty while the results still describe them.
/// Asked every frame the Lab shows results, so it compares in place
/// instead of building (and cloning the set into) a new plan.
#[allow(clippy::too_many_arguments)]
pub fn stale(
    run: &Plan,
    settings: &LabSettings,
    edited: Option<(&tenten_engine::play::generator_file::GeneratorFile, &str)>,
    set: &tenten_engine::model::pieces::PieceSet,
    on_screen: BoardSize,
    options: ChangeOptions,
) -> Vec<&'static str> {
    let mut what = Vec::new();
    if run.set != *set {
        what.push("the pieces or weights");
    }
    if run.shapes_size != board_of(settings, on_screen) {
        what.push("the board");
    }
    if run.k != holder_of(settings) {
        what.push("the holder size");
    }
    let coelho = run.players.iter().any(|(_, w)| match w {
        Who::Coelho { criteria } => *criteria != settings.weights,
        _ => false,
    });
    if !run
        .player_names()
        .into_iter()
        .eq(players_of(settings).iter().map(String::as_str))
        || coelho
    {
        what.push("the players");
    }
    if run.seed != settings.seed || run.games != settings.games.max(1) {
        what.push("the seeds");
    }
    if run.max_rounds != settings.max_rounds.max(1) {
        what.push("the round cap");
    }
    let names = generator_names(settings, edited.map(|(_, t)| t));
    if !run.generator_names().into_iter().map(str::to_owned).eq(names) {
        what.push("the generators");
    }
    if run.options != options {
        what.push("the repair settings");
    }
    // The edited generator as it ran, by value, against its rules now.
    let ran_edited = run.generators.iter().find_map(|(n, d)| match d {
        Dealing::File(spec) if n.starts_with("edited: ") => Some(spec),
        _ => None,
    });
    if let Some(ran) = ran_edited {
        let same = edited
            .map(|(r, _)| r)
            .filter(|_| settings.edited)
            .is_some_and(|now| {
                // Every field named, so a field added to generator files
                // fails to compile here instead of going unnoticed. The
                // weights as dealt (the file's over the palette's); `pieces`
                // is normalised away when a file is dealt.
                let tenten_engine::play::generator_file::GeneratorFile {
                    name,
                    pieces: _,
                    weights,
                    by_fill,
                    repeat_previous,
                    mercy,
                    check,
                    adaptive,
                } = now;
                let r = &ran.file;
                (name, by_fill, repeat_previous, mercy, check, adaptive)
                    == (
                        &r.name,
                        &r.by_fill,
                        &r.repeat_previous,
                        &r.mercy,
                        &r.check,
                        &r.adaptive,
                    )
                    && set.pieces.iter().all(|p| {
                        let w = weights.get(&p.id).copied().unwrap_or(p.weight);
                        ran.set
                            .index_of(&p.id)
                            .is_some_and(|i| ran.set.piece(i).weight == w)
                    })
            });
        if !same {
            what.push("the generator being edited");
        }
    }
    what
}

pub(crate) fn board_of(settings: &LabSettings, on_screen: BoardSize) -> BoardSize {
    match settings.size {
        LabSize::OnScreen => on_screen,
        LabSize::Fixed(s) => s,
    }
}

fn holder_of(settings: &LabSettings) -> usize {
    settings
        .holder_size
        .clamp(1, tenten_engine::model::pieces::MAX_HOLDER)
}

/// The chosen players, in the ladder's order: bots and presets, then the
/// players from files and fits that play, as added.
fn players_of(settings: &LabSettings) -> Vec<String> {
    let names = tenten_engine::play::who::NAMES;
    let mut chosen: Vec<String> = names
        .iter()
        .filter(|n| settings.players.iter().any(|p| p == *n))
        .map(|n| (*n).to_owned())
        .collect();
    chosen.extend(
        settings
            .extra_players
            .iter()
            .zip(extra_labels(&settings.extra_players))
            .filter(|(e, _)| e.plays)
            .map(|(_, label)| label),
    );
    chosen
}

/// The labels the players from files and fits play under, the one place
/// they are made: each player's name with its file's name (with as many
/// folders as it takes to tell two files of one name apart, "tester
/// (fitted-player.ron)"), or "(fitted)" for a fit made here.
pub fn extra_labels(extras: &[crate::app::shell::settings::ExtraPlayer]) -> Vec<String> {
    let files: Vec<std::path::PathBuf> = extras.iter().filter_map(|e| e.file.clone()).collect();
    let mut file_names = file_labels(&files).into_iter();
    extras
        .iter()
        .map(|e| match &e.file {
            Some(_) => format!("{} ({})", e.player.name, file_names.next().unwrap_or_default()),
            None => format!("{} (fitted)", e.player.name),
        })
        .collect()
}

/// Who plays under `label`: a bot or preset by name, else a player from a
/// file (read now: a run plays from what it read when it started) or a fit.
pub fn who_of(settings: &LabSettings, label: &str) -> Result<Who, String> {
    let labels = extra_labels(&settings.extra_players);
    if let Some(i) = labels.iter().position(|l| l == label) {
        let extra = &settings.extra_players[i];
        return match &extra.file {
            Some(path) => tenten_engine::play::player::load(path)
                .map(Who::Model)
                .map_err(|e| e.to_string()),
            None => Ok(Who::Model(extra.player.clone())),
        };
    }
    Who::by_name(label, settings.weights).map_err(|e| e.to_string())
}

/// The names generator files play under: each file's name, with as many
/// of its folders as it takes to tell apart files of the same name
/// (`a/g.ron` and `b/g.ron`).
pub fn file_labels(paths: &[std::path::PathBuf]) -> Vec<String> {
    let tail = |p: &std::path::Path, n: usize| {
        let parts: Vec<String> = p
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts[parts.len().saturating_sub(n)..].join("/")
    };
    let deepest = paths.iter().map(|p| p.components().count()).max().unwrap_or(1);
    paths
        .iter()
        .map(|p| {
            (1..=deepest)
                .map(|n| (n, tail(p, n)))
                .find(|(n, label)| paths.iter().filter(|q| *q != p).all(|q| tail(q, *n) != *label))
                .map_or_else(|| p.display().to_string(), |(_, label)| label)
        })
        .collect()
}

/// The name the generator being edited plays under.
pub fn edited_label(title: &str) -> String {
    format!("edited: {title}")
}

/// The names the Lab's generators play under, in its order: the built-ins
/// chosen, the generator files, the edited generator.
pub fn generator_names(settings: &LabSettings, edited: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = generators_of(settings).map(str::to_owned).collect();
    names.extend(file_labels(&settings.files));
    if let (true, Some(title)) = (settings.edited, edited) {
        names.push(edited_label(title));
    }
    names
}

/// The Lab's generators a playtest plan can deal from, each as (the name
/// it plays under, the name or path the engine reads): the built-ins chosen
/// and the generator files. The edited generator is held in memory, not in
/// a file a plan could name, so it is left out.
pub fn plannable(settings: &LabSettings) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = generators_of(settings)
        .map(|g| (g.to_owned(), g.to_owned()))
        .collect();
    for (path, label) in settings.files.iter().zip(file_labels(&settings.files)) {
        out.push((label, path.display().to_string()));
    }
    out
}

/// The chosen generators, in the lab's order.
fn generators_of(settings: &LabSettings) -> impl Iterator<Item = &'static str> + '_ {
    dealers::NAMES
        .iter()
        .copied()
        .filter(|n| settings.generators.iter().any(|g| g == n))
}

/// The Lab's generators, each with the name it plays under
/// (`generator_names`): the built-ins chosen, the generator files (each
/// read here, once; an unreadable one is an error naming its place) and the
/// generator being edited. The Lab's runs and the Population view's
/// forecasts both deal from this list.
pub fn generators(
    settings: &LabSettings,
    set: &tenten_engine::model::pieces::PieceSet,
    edited: Option<(String, tenten_engine::play::generator_file::GeneratorSpec)>,
) -> Result<Vec<(String, Dealing)>, String> {
    let mut generators: Vec<(String, Dealing)> = generators_of(settings)
        .map(|g| Dealing::by_name(g, set).map(|d| (g.to_owned(), d)))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    for (path, label) in settings.files.iter().zip(file_labels(&settings.files)) {
        let spec = tenten_engine::play::generator_file::load(path, set).map_err(|e| e.to_string())?;
        let name = spec.set.name.clone();
        let dealing = Dealing::file(spec, set).map_err(|_| {
            format!(
                "{} deals the pieces of \"{name}\", not the palette's \"{}\"",
                path.display(),
                set.name
            )
        })?;
        generators.push((label, dealing));
    }
    if let (true, Some((title, spec))) = (settings.edited, edited) {
        let label = edited_label(&title);
        generators.push((label, Dealing::file(spec, set)?));
    }
    Ok(generators)
}

/// The plan for the window's settings, piece set and board, with the
/// generator files read (an unreadable one is an error, naming its place)
/// and the generator being edited.
pub fn plan(
    settings: &LabSettings,
    set: &tenten_engine::model::pieces::PieceSet,
    on_screen: BoardSize,
    options: ChangeOptions,
    edited: Option<(String, tenten_engine::play::generator_file::GeneratorSpec)>,
) -> Result<Plan, String> {
    let generators = generators(settings, set, edited)?;
    let players = players_of(settings)
        .into_iter()
        .map(|p| who_of(settings, &p).map(|w| (p, w)))
        .collect::<Result<_, _>>()?;
    let plan = Plan {
        set: set.clone(),
        shapes_size: board_of(settings, on_screen),
        k: holder_of(settings),
        generators,
        players,
        games: settings.games.clamp(1, tenten_engine::study::plan::MAX_GAMES),
        seed: settings.seed,
        max_rounds: settings
            .max_rounds
            .clamp(1, tenten_engine::study::plan::MAX_ROUNDS),
        options,
    };
    plan.check()?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenten_engine::play::coelho::CoelhoWeights;

    #[test]
    fn a_run_goes_stale_when_what_it_measured_changes() {
        let set = tenten_engine::model::pieces::PieceSet::classic();
        let settings = LabSettings::default();
        let run = plan(
            &settings,
            &set,
            BoardSize::CLASSIC,
            ChangeOptions::default(),
            None,
        )
        .unwrap();
        let now = |s: &LabSettings, set: &tenten_engine::model::pieces::PieceSet, board: BoardSize| {
            stale(&run, s, None, set, board, ChangeOptions::default())
        };
        assert!(now(&settings, &set, BoardSize::CLASSIC).is_empty());
        let mut edited = set.clone();
        edited.pieces[0].weight = 0;
        assert_eq!(
            now(&settings, &edited, BoardSize::CLASSIC),
            ["the pieces or weights"]
        );
        let seeds = LabSettings {
            seed: 9,
            ..settings.clone()
        };
        assert_eq!(now(&seeds, &set, BoardSize::CLASSIC), ["the seeds"]);
        let players = LabSettings {
            players: vec!["coelho".to_owned()],
            ..settings.clone()
        };
        assert_eq!(now(&players, &set, BoardSize::CLASSIC), ["the players"]);
        assert_eq!(now(&settings, &set, BoardSize::new(8, 8).unwrap()), ["the board"]);
        let fewer = LabSettings {
            generators: vec!["random".to_owned()],
            ..settings.clone()
        };
        assert_eq!(now(&fewer, &set, BoardSize::CLASSIC), ["the generators"]);
        let repair = ChangeOptions {
            max_redraws: 3,
            ..ChangeOptions::default()
        };
        assert_eq!(
            stale(&run, &settings, None, &set, BoardSize::CLASSIC, repair),
            ["the repair settings"]
        );
    }

    /// The Lab's runs and the Population view's forecasts deal from one
    /// list; its names are the ones `generator_names` gives (what `stale`
    /// and the forecast's label read), built-ins first, then files, then the
    /// edited generator. The edited generator's adaptive rules are part of
    /// what a run measured.
    #[test]
    fn the_labs_generators_are_named_as_they_play() {
        let set = tenten_engine::model::pieces::PieceSet::classic();
        let settings = LabSettings {
            generators: vec!["repair".to_owned(), "random".to_owned()],
            files: vec![
                "presets/generators/classic-with-mercy.ron".into(),
                "docs/examples/adaptive.ron".into(),
            ],
            edited: true,
            ..LabSettings::default()
        };
        let spec = tenten_engine::play::generator_file::load(
            std::path::Path::new("docs/examples/adaptive.ron"),
            &set,
        )
        .unwrap();
        let dealt = generators(&settings, &set, Some(("mine".to_owned(), spec.clone()))).unwrap();
        let names: Vec<&str> = dealt.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "random",
                "repair",
                "classic-with-mercy.ron",
                "adaptive.ron",
                "edited: mine"
            ]
        );
        assert_eq!(generator_names(&settings, Some("mine")), names);
        // A playtest plan deals from the same list but the edited one, a
        // file by its path.
        let plannable = plannable(&settings);
        let labels: Vec<&str> = plannable.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, names[..4]);
        assert_eq!(plannable[1].1, "repair");
        assert_eq!(plannable[3].1, "docs/examples/adaptive.ron");
        // An unreadable file is an error naming it.
        let missing = LabSettings {
            files: vec!["no/such.ron".into()],
            ..settings.clone()
        };
        let e = generators(&missing, &set, None).unwrap_err();
        assert!(e.contains("no/such.ron"), "{e}");
        // A run with the edited generator goes stale when its rules change.
        let run = plan(
            &settings,
            &set,
            BoardSize::CLASSIC,
            ChangeOptions::default(),
            Some(("mine".to_owned(), spec.clone())),
        )
        .unwrap();
        let now = |file: &tenten_engine::play::generator_file::GeneratorFile| {
            stale(
                &run,
                &settings,
                Some((file, "mine")),
                &set,
                BoardSize::CLASSIC,
                ChangeOptions::default(),
            )
        };
        assert!(now(&spec.file).is_empty());
        let mut fewer_rules = spec.file.clone();
        fewer_rules.adaptive.as_mut().unwrap().rules.pop();
        assert_eq!(now(&fewer_rules), ["the generator being edited"]);
    }

    #[test]
    fn the_labs_settings_survive_a_restart() {
        // eframe keeps the session as RON.
        let mut state = crate::app::shell::state::State::default();
        state.settings.lab = LabSettings {
            generators: vec!["bag".to_owned(), "repair".to_owned()],
            files: vec!["presets/generators/classic-with-mercy.ron".into()],
            edited: false,
            players: vec!["coelho".to_owned(), "expert".to_owned()],
            extra_players: vec![crate::app::shell::settings::ExtraPlayer {
                player: tenten_engine::play::player::preset("casual").unwrap(),
                file: Some("t.ron".into()),
                fitted_to: None,
                plays: true,
            }],
            page: crate::app::shell::settings::LabPage::Results,
            log_rounds: Some(true),
            detail: "expert".to_owned(),
            weights: CoelhoWeights([0, 3, 2, 9, 1]),
            size: LabSize::Fixed(BoardSize::new(8, 8).unwrap()),
            holder_size: 2,
            games: 77,
            max_rounds: 300,
            seed: 9,
            compare: ("bag".to_owned(), "repair".to_owned()),
            tune: crate::app::shell::settings::TuneSettings {
                median_rounds: 77.0,
                ..Default::default()
            },
        };
        let text = ron::ser::to_string(&state).unwrap();
        let back: crate::app::shell::state::State = ron::from_str(&text).unwrap();
        assert_eq!(back.settings.lab, state.settings.lab);
        // A session saved before the lab existed opens with the defaults.
        let old = text.replace("lab:", "lab_gone:");
        let back: crate::app::shell::state::State = ron::from_str(&old).unwrap();
        assert_eq!(back.settings.seed, state.settings.seed);
        assert_eq!(back.settings.lab, LabSettings::default());
    }

    #[test]
    fn a_plan_takes_the_generators_in_a_fixed_order_and_bounds_its_numbers() {
        let s = LabSettings {
            generators: vec!["bag".to_owned(), "nope".to_owned(), "random".to_owned()],
            holder_size: 9,
            games: 0,
            max_rounds: 0,
            ..LabSettings::default()
        };
        let p = plan(
            &s,
            &tenten_engine::model::pieces::PieceSet::classic(),
            BoardSize::CLASSIC,
            ChangeOptions::default(),
            None,
        )
        .unwrap();
        assert_eq!(p.generator_names(), ["random", "bag"]);
        assert_eq!(
            (p.k, p.games, p.max_rounds),
            (tenten_engine::model::pieces::MAX_HOLDER, 1, 1)
        );
        assert_eq!(p.shapes_size, BoardSize::CLASSIC);
    }

    /// Two generator files of one name in two folders are two generators,
    /// labelled by their folders, each playing its own rules (both used to
    /// play the first).
    #[test]
    fn two_files_of_one_name_are_two_generators() {
        let dir = std::env::temp_dir().join(format!("tenten-two-names-{}", std::process::id()));
        for (folder, check) in [("a", "none"), ("b", "bag")] {
            std::fs::create_dir_all(dir.join(folder)).unwrap();
            std::fs::write(
                dir.join(folder).join("g.ron"),
                format!("(name: \"g\", check: {check})"),
            )
            .unwrap();
        }
        let settings = LabSettings {
            generators: Vec::new(),
            files: vec![dir.join("a/g.ron"), dir.join("b/g.ron")],
            ..LabSettings::default()
        };
        let set = tenten_engine::model::pieces::PieceSet::classic();
        let p = plan(
            &settings,
            &set,
            BoardSize::CLASSIC,
            ChangeOptions::default(),
            None,
        )
        .unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(p.generator_names(), ["a/g.ron", "b/g.ron"]);
        let checks: Vec<_> = p
            .generators
            .iter()
            .map(|(_, d)| match d {
                Dealing::File(spec) => spec.file.check,
                Dealing::Builtin(b) => panic!("{b}"),
            })
            .collect();
        use tenten_engine::play::generator_file::Check;
        assert_eq!(checks, [Check::None, Check::Bag]);
        let deep = [
            std::path::PathBuf::from("x/a/g.ron"),
            "y/a/g.ron".into(),
            "h.ron".into(),
        ];
        assert_eq!(file_labels(&deep), ["x/a/g.ron", "y/a/g.ron", "h.ron"]);
    }
}
