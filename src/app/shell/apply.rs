//! `App::apply`: what each command does to the document, the settings and
//! the live view. The one place where commands change anything.

use crate::app::jobs::job::Background as _;
use tenten_engine::model::board::{Board, Cell};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::MAX_HOLDER;
use tenten_engine::play::random_fill::random_fill;
use tenten_engine::search::changer::Outcome;
use tenten_engine::search::heuristic::Policy;

use crate::app::shell::app::App;
use crate::app::shell::command::{Command, Line};
use crate::app::shell::confirm::Confirm;
use crate::app::shell::dialogs::Purpose;
use crate::app::shell::files;
use crate::app::shell::state::Slot;
use crate::app::shell::undo::EditKey;

impl App {
    pub(crate) fn apply(&mut self, cmd: Command, ctx: &egui::Context, time: f64) {
        let doc = &self.state.doc;
        let size = doc.board.size();
        match cmd {
            Command::NewBoard => {
                self.edit(EditKey::Single);
                let doc = &mut self.state.doc;
                doc.board = Board::empty(size);
                doc.score = 0;
                self.state.settings.file = None;
                self.live.status = format!("New {size} board");
            }
            Command::OpenDeal => self.choose_file(Purpose::OpenDeal, ctx),
            Command::OpenPieceSet => self.choose_file(Purpose::OpenPieceSet, ctx),
            Command::Load(path) => self.load(&path, ctx),
            // eframe saves the session on the way out.
            Command::Quit => {
                let unsaved = self.unsaved();
                if unsaved.is_empty() {
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                } else {
                    self.live.confirm = Some(Confirm::quit(&unsaved));
                }
            }
            Command::ShowWelcome => self.live.welcome = true,
            Command::PickLogFolder(check) => self.choose_file(Purpose::PickLogFolder { check }, ctx),
            Command::CloseWelcome => self.live.welcome = false,
            Command::SetShowWelcome(on) => self.state.settings.show_welcome = on,
            Command::QuitNow => {
                self.live.quit_confirmed = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            Command::OpenPending => {
                if let Some((path, loaded)) = self.live.pending_load.take() {
                    self.apply_load(&path, Ok(loaded));
                }
            }
            Command::Save => {
                let batch_file = self.state.doc.batch.as_ref().map(|b| b.source.path.clone());
                match (self.state.settings.file.clone(), batch_file) {
                    // Changed on disk since it was read or saved here: ask.
                    (Some(path), batch) if self.changed_on_disk(&path) => {
                        let purpose = Purpose::SaveDeal {
                            batch: batch.is_some(),
                        };
                        self.live.confirm = Some(Confirm::changed_on_disk(
                            purpose,
                            path.clone(),
                            Command::Load(path),
                            Command::SaveAs,
                        ));
                    }
                    // The open batch, whole.
                    (Some(path), Some(source)) if path == source => self.save_batch(&path),
                    // A batch file with no batch open (after a restart, or an
                    // undo to before it was opened): Save would have to guess
                    // which deal the one on screen is, so it asks instead.
                    (Some(path), None) if files::is_batch_file(&path) => {
                        self.live.status = format!(
                            "{} is a batch; open it to edit its deals, or choose where to save this deal",
                            path.display()
                        );
                        self.apply(Command::SaveAs, ctx, time);
                    }
                    (Some(path), None) => self.save_deal(&path),
                    _ => self.apply(Command::SaveAs, ctx, time),
                }
            }
            Command::SaveAs => {
                let batch = self.state.doc.batch.is_some();
                self.choose_file(Purpose::SaveDeal { batch }, ctx);
            }
            Command::SavePieceSetAs => self.choose_file(Purpose::SavePieceSet, ctx),
            Command::OpenGenerator => self.choose_file(Purpose::OpenGenerator, ctx),
            Command::LoadGenerator(path) => self.load_generator(&path),
            Command::NewGenerator(name) => self.new_generator(name),
            Command::SetGenerator { rules, stroke } => self.set_generator(*rules, stroke),
            Command::CloseGenerator => self.close_generator(),
            Command::SaveGenerator => match self.state.doc.generator_path.clone() {
                Some(path) if files::unchanged(&path, self.state.doc.generator_hash) == Some(false) => {
                    self.live.confirm = Some(Confirm::changed_on_disk(
                        Purpose::SaveGenerator,
                        path.clone(),
                        Command::LoadGenerator(path),
                        Command::SaveGeneratorAs,
                    ));
                }
                Some(path) => self.save_generator_to(&path),
                None => self.choose_file(Purpose::SaveGenerator, ctx),
            },
            Command::SaveGeneratorAs => self.choose_file(Purpose::SaveGenerator, ctx),
            Command::Undo => {
                if let Some(prev) = self.undo.undo(&self.titled()) {
                    self.restore(prev);
                    self.live.status = "Undo".to_owned();
                }
            }
            Command::Redo => {
                if let Some(next) = self.undo.redo(&self.titled()) {
                    self.restore(next);
                    self.live.status = "Redo".to_owned();
                }
            }
            Command::TogglePalette => self.state.settings.show_palette ^= true,
            Command::ToggleLargeInspector => {
                let s = &mut self.state.settings;
                s.inspector_large ^= true;
                s.show_inspector |= s.inspector_large;
                self.live.debug_board = None;
            }
            Command::ToggleInspector => {
                self.state.settings.show_inspector ^= true;
                self.live.debug_board = None;
            }
            Command::SetInspectorTab(i) => {
                self.state.settings.inspector_tab = i;
                // The tree tab puts its view back when it is shown.
                self.live.debug_board = None;
            }
            Command::Paint { x, y, cell, stroke } => {
                if x < size.w() && y < size.h() && doc.board.get(x, y) != cell {
                    self.edit(EditKey::Stroke(stroke));
                    self.state.doc.board.set(x, y, cell);
                    self.live.status = "Painting".to_owned();
                }
            }
            Command::FillLine { line, filled } => {
                let inside = match line {
                    Line::Row(y) => y < size.h(),
                    Line::Column(x) => x < size.w(),
                };
                if !inside {
                    self.live.status = format!("No {line:?} on a {size} board");
                    return;
                }
                self.edit(EditKey::Single);
                let board = &mut self.state.doc.board;
                let cell = if filled { Cell::Painted } else { Cell::Empty };
                let (what, cells): (String, Vec<(usize, usize)>) = match line {
                    Line::Row(y) => (format!("row {y}"), (0..size.w()).map(|x| (x, y)).collect()),
                    Line::Column(x) => (format!("column {x}"), (0..size.h()).map(|y| (x, y)).collect()),
                };
                for (x, y) in cells {
                    if board.get(x, y).is_filled() != filled {
                        board.set(x, y, cell);
                    }
                }
                self.live.status = format!("{} {what}", if filled { "Filled" } else { "Cleared" });
            }
            Command::ClearBoard => {
                self.edit(EditKey::Single);
                self.state.doc.board = Board::empty(size);
                self.live.status = "Cleared the board".to_owned();
            }
            Command::InvertBoard => {
                self.edit(EditKey::Single);
                let board = &mut self.state.doc.board;
                for y in 0..size.h() {
                    for x in 0..size.w() {
                        let c = if board.get(x, y).is_filled() {
                            Cell::Empty
                        } else {
                            Cell::Painted
                        };
                        board.set(x, y, c);
                    }
                }
                self.live.status = "Inverted the board".to_owned();
            }
            Command::RandomFill => {
                self.edit(EditKey::Single);
                let pct = self.state.settings.fill_percent;
                self.fills += 1;
                let mut rng = Generator::new(self.state.settings.seed ^ self.fills.wrapping_mul(0x9E37_79B9));
                let doc = &mut self.state.doc;
                doc.board = random_fill(&self.live.shapes, &doc.set, f64::from(pct) / 100.0, &mut rng);
                self.live.status = format!(
                    "Random fill by self-play: {} of {} cells",
                    doc.board.filled(),
                    size.cells()
                );
            }
            Command::SetFillPercent(p) => self.state.settings.fill_percent = p.min(95),
            Command::SetSize(new) => {
                if new != size {
                    self.edit(EditKey::Single);
                    let doc = &mut self.state.doc;
                    doc.board = doc.board.resized(new);
                    self.live.status = format!("Board size {new}");
                }
            }
            Command::SetTool(tool) => self.state.settings.tool = tool,
            Command::Place { slot, x, y } => self.place(slot, x, y, time),
            Command::SelectSlot(slot) => self.live.selected_slot = slot,
            Command::SetSlot { slot, piece } => {
                let known = piece.is_none_or(|p| usize::from(p) < doc.set.pieces.len());
                if known && slot < doc.slots.len() && doc.slots[slot].piece != piece {
                    self.edit(EditKey::Single);
                    self.state.doc.slots[slot].piece = piece;
                    let name = piece.map_or("empty".to_owned(), |p| self.state.doc.set.piece(p).id.clone());
                    self.live.status = format!("Slot {} = {name}", slot + 1);
                    // The next slot is the likely next pick.
                    let next = slot + 1;
                    self.live.selected_slot = (next < self.state.doc.slots.len()).then_some(next);
                }
            }
            Command::ToggleLock(slot) => {
                if let Some(s) = self.state.doc.slots.get_mut(slot) {
                    s.locked ^= true;
                }
            }
            Command::SetHolderSize(k) => {
                let k = k.clamp(1, MAX_HOLDER);
                if k != doc.slots.len() {
                    self.edit(EditKey::Single);
                    self.state.doc.slots.resize(k, Slot::default());
                    self.live.selected_slot = self.live.selected_slot.filter(|&s| s < k);
                }
            }
            Command::OpenKillerDeal(pieces) => {
                let n = self.state.doc.set.pieces.len();
                if (1..=MAX_HOLDER).contains(&pieces.len()) && pieces.iter().all(|&p| usize::from(p) < n) {
                    self.edit(EditKey::Single);
                    self.state.doc.slots = Slot::holding(&pieces);
                    self.live.selected_slot = None;
                    self.state.settings.inspector_tab = crate::app::tabs::TREE_TAB;
                    self.state.settings.show_inspector = true;
                    let ids = self.state.doc.set.ids(&pieces);
                    self.untitled(format!("the killer deal {ids} of the danger map"));
                }
            }
            Command::Deal => self.deal(),
            Command::SetSeed(seed) => {
                self.state.settings.seed = seed;
                self.state.doc.deals = 0;
            }
            Command::NewSeed => {
                let mut rng = Generator::new(self.state.settings.seed ^ time.to_bits());
                self.state.settings.seed = rng.below(1_000_000) as u64;
                self.state.doc.deals = 0;
                self.live.status = format!("New seed {}", self.state.settings.seed);
            }
            Command::SetWeight {
                piece,
                weight,
                stroke,
            } => {
                let set = &self.state.doc.set;
                let Some(current) = set.pieces.get(usize::from(piece)).map(|p| p.weight) else {
                    return;
                };
                let weight = weight.min(tenten_engine::model::pieces::MAX_WEIGHT);
                if current != weight {
                    let others = set.total_weight() - u64::from(current);
                    if weight == 0 && others == 0 {
                        self.live.status = "At least one piece needs a positive weight".to_owned();
                    } else {
                        self.edit(EditKey::Weight(stroke));
                        self.state.doc.set.pieces[usize::from(piece)].weight = weight;
                    }
                }
            }
            Command::AddPiece(piece) => {
                if doc.set.index_of(&piece.id).is_some() {
                    self.live.error = Some(format!("A piece with id {:?} is already in the set.", piece.id));
                } else if doc.set.pieces.len() >= 255 {
                    self.live.error = Some("A piece set holds at most 255 pieces.".to_owned());
                } else {
                    self.edit(EditKey::Single);
                    self.live.status = format!("Added piece {}", piece.id);
                    self.state.doc.set.pieces.push(piece);
                }
            }
            Command::SelectDeal(pos) => self.select_deal(pos),
            Command::NextDeal => self.step_deal(true),
            Command::PrevDeal => self.step_deal(false),
            Command::AddToBatch => self.add_to_batch(),
            Command::SetDealsView {
                filter,
                sort,
                descending,
            } => {
                let d = &mut self.live.deals;
                (d.filter, d.sort, d.descending) = (filter, sort, descending);
            }
            Command::CancelJudging => self.live.deals.cancel(),
            Command::ExportBatchCsv => match self.batch_csv() {
                Some(text) => self.cmds.push(Command::SaveText {
                    title: "Save the batch's verdicts as CSV",
                    name: "verdicts.csv",
                    text,
                }),
                None => self.live.status = "No batch is open".to_owned(),
            },
            Command::SaveFilteredAs => {
                if self.state.doc.batch.is_some() {
                    self.choose_file(Purpose::SaveFiltered, ctx);
                }
            }
            Command::ResetPieceSet => {
                if self.state.doc.set_modified() {
                    self.edit(EditKey::Single);
                    let origin = self.state.doc.set_origin.clone();
                    let closed = self.switch_set(origin);
                    self.live.status = format!("Piece set reset to {}{closed}", self.state.doc.set.name);
                }
            }
            Command::Repair => self.start_repair(ctx),
            Command::CancelLoad => {
                if let Some((path, job)) = self.live.loading.take() {
                    job.cancel();
                    self.live.status = format!("Stopped reading {}; nothing changed", path.display());
                }
            }
            Command::CancelRepair => {
                if let Some(job) = &self.job {
                    job.cancel();
                    self.live.status = "Cancelling the repair…".to_owned();
                }
            }
            Command::ApplyRepair => {
                if let Some(view) = &self.live.repair
                    && view.result.outcome == Outcome::Repaired
                    && view.input.set == self.state.doc.set
                {
                    let holder = view.result.holder.clone();
                    self.edit(EditKey::Single);
                    let filled: Vec<usize> = (0..self.state.doc.slots.len())
                        .filter(|&i| self.state.doc.slots[i].piece.is_some())
                        .collect();
                    for (slot, piece) in filled.into_iter().zip(holder) {
                        self.state.doc.slots[slot].piece = Some(piece);
                    }
                    self.live.status = "Applied the repaired holder".to_owned();
                }
            }
            Command::SetPolicy(p) => self.state.settings.policy = p,
            Command::SetReading(r) => {
                self.state.settings.reading = r;
                self.live.status = format!("Repeated pieces read {}", r.describe());
            }
            Command::CyclePolicy => {
                let all = Policy::ALL;
                let i = all
                    .iter()
                    .position(|&p| p == self.state.settings.policy)
                    .unwrap_or(0);
                self.state.settings.policy = all[(i + 1) % all.len()];
                self.live.status = format!("Failure policy: {}", self.state.settings.policy);
            }
            Command::SetMaxRedraws(n) => self.state.settings.max_redraws = n,
            Command::ShowSolution(step) => {
                // Steps 0..n of the solution found; anything else is refused.
                let steps = self.live.solution().map_or(0, |s| s.steps().len());
                self.live.solution_step = step.filter(|&i| i < steps);
            }
            Command::DismissError => self.live.error = None,
            Command::DismissConfirm => {
                // The file read stays until OpenPending (the answer "Open
                // it", which comes after this) takes it or the next load
                // replaces it.
                if self.live.pending_load.is_some() {
                    self.live.status = "Nothing was opened".to_owned();
                }
                if self.live.confirm.take().is_some() && self.live.status.is_empty() {
                    self.live.status = "Nothing was saved".to_owned();
                }
            }
            Command::SaveTo { purpose, path } => self.chosen(purpose, Some(path), ctx),
            Command::SetTiming(settings) => self.state.settings.timing = settings,
            Command::StartSweep => self.start_sweep(ctx),
            Command::CancelSweep => self.live.timing.cancel(),
            Command::OpenLabDeal(i) => self.open_lab_deal(i),
            Command::SetLab(settings) => self.state.settings.lab = settings,
            Command::StartLab => self.start_lab(ctx),
            Command::CancelLab => self.live.lab.cancel(),
            Command::AddLabGenerator => self.choose_file(Purpose::AddLabGenerator, ctx),
            Command::AddLabPlayer => self.choose_file(Purpose::AddLabPlayer, ctx),
            Command::UseFittedInLab => self.use_fitted_in_lab(),
            Command::StartTune => self.start_tune(ctx),
            Command::CancelTune => self.live.tune.cancel(),
            Command::StartCalibration(plan) => match self.live.calibration.start(*plan, ctx) {
                Ok(()) => self.live.status = "Calibrating…".to_owned(),
                Err(e) => self.live.calibration.error = Some(e),
            },
            Command::CancelCalibration => self.live.calibration.cancel(),
            Command::PlanPlaytest {
                fitted,
                figure,
                sessions,
                question,
            } => self.start_playtest_plan(fitted, figure, sessions, question, ctx),
            Command::CancelPlanPlaytest => self.live.playtest_plan.cancel(),
            Command::ApplyTuned => self.apply_tuned(),
            Command::ReplayLabGame {
                player,
                generator,
                game,
            } => {
                let known = self
                    .live
                    .lab
                    .results
                    .iter()
                    .any(|r| r.player == player && r.name == generator && game < r.games.len());
                if known {
                    self.live.lab.start_replay(&player, &generator, game, ctx);
                }
            }
            Command::SetLabReplayStep(step) => {
                if let Some(r) = &mut self.live.lab.replay {
                    r.step = step.min(r.steps().len().saturating_sub(1));
                }
            }
            Command::CloseLabReplay => {
                self.live.lab.replay = None;
                self.live.debug_board = None;
            }
            Command::OpenLabReplayDeal => self.open_lab_replay_deal(),
            Command::FitPlayer(lookahead) => self.start_fit(lookahead, ctx),
            Command::CancelFit => self.live.fit.cancel(),
            Command::LearnGenerator => self.start_learn(None, ctx),
            Command::PickLearnFolder => self.choose_file(Purpose::PickLearnFolder, ctx),
            Command::CancelLearn => self.live.learn.cancel(),
            Command::OpenLearned => self.open_learned(),
            Command::LearnedToLab => self.learned_to_lab(),
            Command::ExplainLog => self.start_explain(ctx),
            Command::CancelExplain => self.live.explain.cancel(),
            Command::FitPopulation(folder) => {
                if self.live.playtest.folder.as_ref() == Some(&folder) {
                    self.live.playtest.fitted_at = self.live.playtest.games();
                }
                self.start_population_fit(folder, ctx)
            }
            Command::CancelPopulationFit => self.live.population_fit.cancel(),
            Command::ForecastPopulation {
                players,
                fitted,
                check,
            } => self.start_forecast(players, fitted, check, ctx),
            Command::CancelForecast => self.live.forecast.cancel(),
            Command::PinForecast => self.live.forecast.pinned = self.live.forecast.result.clone(),
            Command::UnpinForecast => self.live.forecast.pinned = None,
            Command::PinLabRun => self.live.lab.pin(),
            Command::UnpinLabRun => self.live.lab.pinned = None,
            Command::SwapLabRun => self.live.lab.swap_other(),
            Command::ToggleHeatmap => self.state.settings.danger_heatmap ^= true,
            Command::ToggleRecordPlay => self.toggle_record_play(),
            Command::FollowPlaytest(folder) => {
                self.live.status = match &folder {
                    Some(f) => format!("Following the playtest in {}", f.display()),
                    None => "No longer following a playtest".to_owned(),
                };
                self.live.playtest.follow(folder);
            }
            Command::SetRefitEvery(n) => self.live.playtest.refit_every = n,
            Command::ServePlaytest {
                generator,
                folder,
                open,
            } => self.serve_playtest(generator, folder, open, ctx),
            Command::StopPlaytest => {
                use crate::app::jobs::job::Background as _;
                self.live.playtest.cancel();
                self.live.status =
                    "Stopping the playtest server (open games resume when it is served again)".to_owned();
            }
            Command::ToggleDeadRegions => self.state.settings.danger_dead_regions ^= true,
            Command::DebugBoard(board) => {
                self.live.debug_board = board;
                self.live.debug_since = time;
            }
            Command::Replay(holder) => {
                if holder.is_some() {
                    self.state.settings.inspector_tab = crate::app::tabs::TREE_TAB;
                    self.state.settings.show_inspector = true;
                }
                self.live.replay = holder;
            }
            Command::SaveText { title, name, text } => {
                self.choose_file(Purpose::SaveText { title, name, text }, ctx);
            }
        }
    }
}
