//! Commands that play, deal, repair and sweep: manual placement with its
//! flash and score, the seeded deal, and the background repair and timing
//! jobs.

use crate::app::jobs::job::Background as _;
use tenten_engine::model::board::Board;
use tenten_engine::model::generator::Generator;
use tenten_engine::model::shapes::score;
use tenten_engine::play::random_fill::play;
use tenten_engine::search::changer::ChangeOptions;

use crate::app::jobs::repair::{RepairInput, RepairJob};
use crate::app::jobs::timing::SweepRequest;
use crate::app::shell::app::App;
use crate::app::shell::live::Flash;
use crate::app::shell::state::Slot;
use crate::app::shell::undo::EditKey;

impl App {
    /// Manual play: place, clear, score, flash.
    pub(crate) fn place(&mut self, slot: usize, x: usize, y: usize, time: f64) {
        let Some(piece) = self.state.doc.slots.get(slot).and_then(|s| s.piece) else {
            return;
        };
        let size = self.live.shapes.size();
        let anchor = size.bit(x, y);
        let shape = self.live.shapes.shape(piece);
        let fits = x < size.w()
            && y < size.h()
            && shape.fits(self.state.doc.board.bits(), self.live.shapes.geometry.full) >> anchor & 1 == 1;
        if !fits {
            self.live.status = format!("{} does not fit there", self.state.doc.set.piece(piece).id);
            return;
        }
        self.edit(EditKey::Single);
        let shapes = &self.live.shapes;
        let before = self.state.doc.board.bits();
        let doc = &mut self.state.doc;
        let lines = play(&mut doc.board, shapes, piece, anchor);
        let gained = score(doc.set.piece(piece).size(), lines);
        doc.score += gained;
        doc.slots[slot].piece = None;
        self.recorder
            .placed(shapes, &doc.set, before, piece, anchor, doc.board.bits());
        if let Some(e) = self.recorder.error.take() {
            self.live.error = Some(format!("A game played by hand could not be recorded: {e}"));
        }
        if !lines.is_empty() {
            let cells = (before | shapes.shape(piece).mask << anchor) & shapes.geometry.mask_of(lines);
            self.live.flash = Some(Flash {
                cells,
                lines,
                started: time,
            });
        }
        self.live.status = if lines.is_empty() {
            format!("Placed {} (+{gained})", doc.set.piece(piece).id)
        } else {
            format!(
                "Placed {}, cleared {} (+{gained})",
                doc.set.piece(piece).id,
                lines.describe()
            )
        };
    }

    /// Deals every unlocked slot from the seeded generator. The n-th deal of a
    /// seed is reproducible; the first equals `tenten deal --seed S`.
    pub(crate) fn deal(&mut self) {
        self.edit(EditKey::Single);
        let seed =
            tenten_engine::play::dealers::nth_deal_seed(self.state.settings.seed, self.state.doc.deals);
        let mut generator = Generator::new(seed);
        // The active generator deals the whole holder (its rules and check
        // see the board); without one, a weighted draw per slot.
        let spec = self.state.doc.generator_spec();
        let doc = &mut self.state.doc;
        let dealt: Vec<_> = match spec {
            Some(spec) => {
                let shapes = tenten_engine::model::shapes::Shapes::new(&doc.set, doc.board.size());
                let table = tenten_engine::play::dealers::Table {
                    shapes: &shapes,
                    set: &doc.set,
                    board: doc.board.bits(),
                    k: doc.slots.len(),
                };
                let mut dealer = tenten_engine::play::file_dealer::FileDealer::new(spec);
                tenten_engine::play::dealers::Dealer::deal(&mut dealer, &table, &mut generator).holder
            }
            None => doc.slots.iter().map(|_| generator.draw(&doc.set)).collect(),
        };
        for (slot, piece) in doc.slots.iter_mut().zip(dealt) {
            if !slot.locked {
                slot.piece = Some(piece);
            }
        }
        doc.deals += 1;
        self.live.status = format!(
            "Dealt {} (seed {}, deal {})",
            doc.set.ids(&doc.holder()),
            self.state.settings.seed,
            doc.deals
        );
        let holder = doc.holder();
        // The log names what dealt: the active generator as its file is
        // (a preset's name replays it), else the palette's weighted draw,
        // `random` on the set's own weights.
        let preset = doc
            .generator_path
            .as_deref()
            .and_then(|p| p.file_stem())
            .and_then(|stem| {
                tenten_engine::play::generator_file::PRESETS
                    .iter()
                    .find(|(key, _)| *stem == **key)
            })
            .map(|(key, _)| *key);
        let generator = match (&doc.generator, preset) {
            (Some(g), _) if doc.generator_modified() => format!("{} (modified)", g.name),
            (Some(_), Some(key)) => key.to_owned(),
            (Some(g), None) => g.name.clone(),
            (None, _) if doc.set_modified() => "random (edited weights)".to_owned(),
            (None, _) => "random".to_owned(),
        };
        self.recorder
            .dealt(&self.live.shapes, &doc.set, doc.board.bits(), holder, &generator);
        if let Some(e) = self.recorder.error.take() {
            self.live.error = Some(format!("A game played by hand could not be recorded: {e}"));
        }
    }

    /// Starts or stops keeping games played by hand.
    pub(crate) fn toggle_record_play(&mut self) {
        let on = !self.state.settings.record_play;
        self.state.settings.record_play = on;
        if on {
            self.set_data_dir(self.data_dir.clone());
            self.live.status = match &self.recorder.folder {
                Some(f) => format!("Recording games played by hand in {}", f.display()),
                None => "Games played by hand will be recorded once the window has a data folder".to_owned(),
            };
        } else {
            self.recorder.stop(&self.state.doc.set);
            self.live.status = "No longer recording games played by hand".to_owned();
        }
    }

    pub(crate) fn start_repair(&mut self, ctx: &egui::Context) {
        let holder = self.state.doc.holder();
        if holder.is_empty() || self.job.is_some() {
            return;
        }
        let input = RepairInput {
            set: self.state.doc.set.clone(),
            shapes_size: self.state.doc.board.size(),
            board: self.state.doc.board.bits(),
            holder,
            seed: self.state.settings.seed.wrapping_add(self.state.doc.deals),
            options: ChangeOptions {
                policy: self.state.settings.policy,
                reading: self.state.settings.reading,
                max_redraws: self.state.settings.max_redraws,
            },
        };
        match RepairJob::spawn(input, ctx) {
            Ok(job) => {
                self.job = Some(job);
                self.live.repair_running = true;
                self.live.status = "Repairing…".to_owned();
            }
            Err(e) => self.live.error = Some(format!("Could not start the repair: {e}")),
        }
    }

    pub(crate) fn start_sweep(&mut self, ctx: &egui::Context) {
        let s = &self.state;
        let request = SweepRequest {
            settings: s.settings.timing.clone(),
            set: s.doc.set.clone(),
            size: s.doc.board.size(),
            k: s.doc.slots.len(),
            board: s.doc.board.bits(),
            file: s.settings.file.clone(),
            options: ChangeOptions {
                policy: s.settings.policy,
                reading: s.settings.reading,
                max_redraws: s.settings.max_redraws,
            },
            generator: s.doc.generator_spec(),
        };
        match self.live.timing.start(request, ctx) {
            Ok(()) => self.live.status = "Timing sweep started".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start the sweep: {e}")),
        }
    }

    pub(crate) fn start_lab(&mut self, ctx: &egui::Context) {
        let s = &self.state;
        let options = ChangeOptions {
            policy: s.settings.policy,
            reading: s.settings.reading,
            max_redraws: s.settings.max_redraws,
        };
        let planned = crate::app::jobs::lab::plan(
            &s.settings.lab,
            &s.doc.set,
            s.doc.board.size(),
            options,
            s.doc.generator_title().zip(s.doc.generator_spec()),
        );
        let plan = match planned {
            Ok(plan) => plan,
            Err(e) => {
                self.live.lab.error = Some(e);
                return;
            }
        };
        let (games, generators, players) = (plan.games, plan.generators.len(), plan.players.len());
        let set_title = self.state.doc.set_title();
        let started = self.live.lab.start(plan, set_title, ctx);
        match started {
            Ok(()) if self.live.lab.running() => {
                self.live.status = format!(
                    "Generator lab: playing {games} games for each of {players} players and {generators} generators"
                );
            }
            Ok(()) => {}
            Err(e) => self.live.error = Some(format!("Could not start the simulation: {e}")),
        }
    }

    /// Fits a population (rank choice, piece lookahead, the Lab's criteria)
    /// to every log of `folder`.
    pub(crate) fn start_population_fit(&mut self, folder: std::path::PathBuf, ctx: &egui::Context) {
        let (set, weights) = (self.state.doc.set.clone(), self.state.settings.lab.weights);
        match self.live.population_fit.start(folder, set, weights, ctx) {
            Ok(()) => self.live.status = "Fitting a population to the testers' logs…".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start the fit: {e}")),
        }
    }

    /// Forecasts the Lab's generators for the fitted population (or the
    /// demo), on the Lab's board, holder, cap and seed.
    /// The Population view's population: the one fitted to a folder of
    /// logs (`fitted`), or the demo one.
    fn chosen_population(
        &self,
        fitted: bool,
    ) -> Result<tenten_engine::fits::population::file::Population, String> {
        match (&self.live.population_fit.result, fitted) {
            (Some(f), true) => Ok(f.fit.population.clone()),
            (None, true) => {
                Err("Fit a population to a folder of logs first, or choose the demo population.".to_owned())
            }
            (_, false) => tenten_engine::fits::population::file::by_name("demo").map_err(|e| e.to_string()),
        }
    }

    /// Plans a playtest of the fitted (or the demo) population on the
    /// Lab's board and round cap, with `plan-playtest`'s defaults.
    pub(crate) fn start_playtest_plan(
        &mut self,
        fitted: bool,
        figure: String,
        sessions: usize,
        question: crate::app::jobs::playtest_plan::Question,
        ctx: &egui::Context,
    ) {
        let population = match self.chosen_population(fitted) {
            Ok(p) => p,
            Err(e) => {
                self.live.playtest_plan.error = Some(e);
                return;
            }
        };
        let plan = &mut self.live.playtest_plan;
        let lab = &self.state.settings.lab;
        let size = crate::app::jobs::lab::board_of(lab, self.state.doc.board.size());
        let ask = tenten_engine::study::calibrate::plan_playtest::Ask {
            population,
            figure,
            sessions: sessions.clamp(1, 100),
            pilots: 20,
            checks: 100,
            truth_players: 20_000,
            seed: lab.seed,
            board: (size.w() as u8, size.h() as u8),
            max_rounds: lab.max_rounds.min(10_000),
            // The palette's pieces, as the forecasts beside it play.
            pieces: self.state.doc.set.clone(),
        };
        let request = crate::app::jobs::playtest_plan::PlanRequest { ask, question };
        match plan.start(request, ctx) {
            Ok(()) => self.live.status = "Planning a playtest…".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start planning: {e}")),
        }
    }

    pub(crate) fn start_forecast(
        &mut self,
        players: usize,
        fitted: bool,
        check: Option<std::path::PathBuf>,
        ctx: &egui::Context,
    ) {
        let population = match self.chosen_population(fitted) {
            Ok(p) => p,
            Err(e) => {
                self.live.forecast.error = Some(e);
                return;
            }
        };
        let s = &self.state;
        let lab = &s.settings.lab;
        let edited = s.doc.generator_title().zip(s.doc.generator_spec());
        let generators = match crate::app::jobs::lab::generators(lab, &s.doc.set, edited) {
            Ok(g) if !g.is_empty() => g,
            Ok(_) => {
                self.live.forecast.error = Some(
                    "Choose the generators to compare on the Lab's Setup page (built-ins, files or the edited one)."
                        .to_owned(),
                );
                return;
            }
            Err(e) => {
                self.live.forecast.error = Some(e);
                return;
            }
        };
        let ask = crate::app::jobs::population::ForecastAsk {
            population,
            generators,
            set: self.state.doc.set.clone(),
            size: crate::app::jobs::lab::board_of(lab, self.state.doc.board.size()),
            k: lab.holder_size.clamp(1, tenten_engine::model::pieces::MAX_HOLDER),
            players: players.clamp(1, crate::app::tabs::population::MAX_PLAYERS),
            seed: lab.seed,
            max_rounds: lab.max_rounds.min(10_000),
            check,
        };
        match self.live.forecast.start(ask, ctx) {
            Ok(()) => self.live.status = "Forecasting the audience…".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start the forecast: {e}")),
        }
    }

    /// Fits a player to the open batch, a playtest log with moves.
    pub(crate) fn start_fit(
        &mut self,
        lookahead: tenten_engine::play::player::Lookahead,
        ctx: &egui::Context,
    ) {
        let Some(batch) = &self.state.doc.batch else {
            self.live.fit.error = Some("Open a playtest log (a batch of deals with moves) first.".to_owned());
            return;
        };
        let request = crate::app::jobs::fit::FitRequest {
            text: batch.source.text.clone(),
            file: batch.source.path.display().to_string(),
            set: self.state.doc.set.clone(),
            lookahead,
            evaluation: self.state.settings.lab.weights,
        };
        match self.live.fit.start(request, ctx) {
            Ok(()) => self.live.status = "Fitting a player to the open log…".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start the fit: {e}")),
        }
    }

    /// Compares every model on the open playtest log (5 folds), fits the
    /// best and checks it, as `fit-player --compare` does.
    pub(crate) fn start_explain(&mut self, ctx: &egui::Context) {
        let Some(batch) = &self.state.doc.batch else {
            self.live.explain.error =
                Some("Open a playtest log (a batch of deals with moves) first.".to_owned());
            return;
        };
        let stem = batch
            .source
            .path
            .file_stem()
            .map_or("log".into(), |s| s.to_string_lossy().into_owned());
        let request = crate::app::jobs::explain::ExplainRequest {
            text: batch.source.text.clone(),
            file: batch.source.path.display().to_string(),
            set: self.state.doc.set.clone(),
            ask: tenten_engine::fits::explain::Ask {
                folds: 5,
                evaluation: self.state.settings.lab.weights,
                criteria: [true; 5],
                generator: None,
                games: 200,
                seed: 1,
                name: format!("fitted to {stem}"),
            },
        };
        match self.live.explain.start(request, ctx) {
            Ok(()) => self.live.status = "Comparing models on the open log…".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start the comparison: {e}")),
        }
    }

    /// Puts the replay's round on the board and in the holder, with the
    /// lab's piece set (undoable), and opens the Deal tab on it.
    pub(crate) fn open_lab_replay_deal(&mut self) {
        let lab = &self.live.lab;
        let (Some(plan), Some(replay)) = (&lab.plan, &lab.replay) else {
            return;
        };
        let Some((_, rounds)) = &replay.rounds else { return };
        let Some((_, step)) = replay.current() else { return };
        let round = &rounds[step.round];
        let (set, size, board, holder) = (
            plan.set.clone(),
            plan.shapes_size,
            round.board,
            round.holder.clone(),
        );
        let (name, game) = (replay.generator.clone(), replay.game);
        let r = step.round + 1;
        self.edit(EditKey::Single);
        let doc = &mut self.state.doc;
        doc.set = set;
        doc.board = Board::from_bits(size, board);
        doc.score = 0;
        doc.slots = Slot::holding(&holder);
        doc.sanitize();
        self.live.debug_board = None;
        self.state.settings.inspector_tab = 0;
        self.untitled(format!("round {r} of {name} game {game}"));
    }

    /// Puts deal `i` of the last sweep on the board and in the holder, with
    /// the sweep's piece set, and opens the tree tab on it.
    pub(crate) fn open_lab_deal(&mut self, i: usize) {
        let lab = &self.live.timing;
        let (Some(request), Some(deal)) = (&lab.request, lab.deals.get(i)) else {
            return;
        };
        let (set, size, deal) = (request.set.clone(), request.size, deal.clone());
        self.edit(EditKey::Single);
        let doc = &mut self.state.doc;
        doc.set = set;
        doc.board = Board::from_bits(size, deal.board);
        doc.score = 0;
        doc.slots = Slot::holding(&deal.holder);
        doc.sanitize();
        self.state.settings.inspector_tab = crate::app::tabs::TREE_TAB;
        self.state.settings.show_inspector = true;
        self.untitled(format!("deal {i} of the timing sweep"));
    }
}

impl App {
    /// Takes what the playtest's jobs sent; refits the followed folder's
    /// population when enough new games arrived.
    pub(crate) fn poll_playtest(&mut self, ctx: &egui::Context) {
        // Where a Serve without a folder writes, as the view says.
        let home = self
            .data_dir
            .as_ref()
            .map(|d| d.join(crate::app::jobs::playtest_live::FOLDER));
        if self.live.playtest.home != home {
            self.live.playtest.home = home;
        }
        let had_link = self.live.playtest.link.is_some();
        let had_error = self.live.playtest.server_error.is_some();
        let refit = self.live.playtest.poll(ctx);
        if let Some(link) = &self.live.playtest.link
            && !had_link
        {
            self.live.status = format!("Serving the playtest at {link}");
            // Followed live once the server made (or resumed) its folder.
            let served = self.live.playtest.served.clone();
            if served.is_some() && self.live.playtest.folder != served {
                self.live.playtest.follow(served);
            }
        }
        // The reason is shown in full beside Serve; the status bar points there.
        if self.live.playtest.server_error.is_some() && !had_error {
            self.live.status =
                "The playtest server did not start or stopped: the Population view says why".to_owned();
        }
        if refit
            && !self.live.population_fit.running()
            && let Some(folder) = self.live.playtest.folder.clone()
        {
            self.live.playtest.fitted_at = self.live.playtest.games();
            self.live.status = format!(
                "Refitting the population: {} games in {}",
                self.live.playtest.games().unwrap_or(0),
                folder.display()
            );
            self.start_population_fit(folder, ctx);
        }
    }

    /// Starts a playtest server on the board's rules, into `folder` (else
    /// a new folder in the data folder's `playtests/`); once it listens,
    /// its folder is followed live.
    pub(crate) fn serve_playtest(
        &mut self,
        generator: String,
        folder: Option<std::path::PathBuf>,
        open: bool,
        ctx: &egui::Context,
    ) {
        use crate::app::jobs::playtest_live::{FOLDER, serve_folder};
        if self.live.playtest.running() {
            return;
        }
        let home = self.data_dir.as_ref().map(|d| d.join(FOLDER));
        let folder = match serve_folder(folder.as_deref(), home.as_deref(), &generator) {
            Ok(f) => f,
            Err(e) => {
                self.live.playtest.server_error = Some(e);
                self.live.status = "Not served: the Population view says why".to_owned();
                return;
            }
        };
        let doc = &self.state.doc;
        let req = crate::app::jobs::playtest_live::ServeRequest {
            generator,
            set: doc.set.clone(),
            size: doc.board.size(),
            k: doc.slots.len().max(1),
            folder: folder.clone(),
            open,
        };
        self.live.playtest.serve(req, ctx);
        self.live.status = format!("Starting a playtest server on {}…", folder.display());
    }
}
