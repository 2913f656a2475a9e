//! Opening and saving from the window: a deal, a board, a batch (handed to
//! the deal browser) or a piece set; switching the active set.

use crate::app::jobs::job::Background as _;
use std::path::PathBuf;

use tenten_engine::model::board::{Board, Cell};
use tenten_engine::model::pieces::PieceSet;

use crate::app::jobs::job::Job;
use crate::app::shell::app::App;
use crate::app::shell::dialogs::{self, Answer, InWindow, Purpose};
use crate::app::shell::files::{self, file_name};
use crate::app::shell::state::Slot;
use crate::app::shell::undo::EditKey;

impl App {
    /// Asks where: the desktop's dialog where it has one (its answer comes
    /// at once), else a dialog in the window, answered in a later frame.
    pub(crate) fn choose_file(&mut self, purpose: Purpose, ctx: &egui::Context) {
        if files::dialogs_off() {
            self.live.status = files::NO_FILE_CHOSEN.to_owned();
            return;
        }
        // The folder this kind of file was last chosen in, else presets/.
        let folder = self
            .state
            .settings
            .last_folders
            .get(purpose.kind())
            .filter(|d| d.is_dir())
            .cloned()
            .or_else(files::start_folder);
        if dialogs::native_available() {
            let path = match purpose.proposed_name() {
                _ if purpose.picks_folder() => files::pick_folder(purpose.title(), folder),
                Some(name) => files::pick_save(purpose.title(), name, folder),
                None => files::pick_open(purpose.title(), folder, matches!(purpose, Purpose::OpenDeal)),
            };
            self.chosen(purpose, path, ctx);
        } else {
            let at = ctx.content_rect().left_top() + egui::vec2(48.0, 64.0);
            self.live.file_dialog = Some(InWindow::new(purpose, folder, at));
            self.live.status =
                "No desktop file dialog (it needs xdg-desktop-portal or zenity): choose in the window"
                    .to_owned();
        }
    }

    /// The in-window dialog, once a frame while it is open.
    pub(crate) fn poll_file_dialog(&mut self, ctx: &egui::Context) {
        let Some(open) = &mut self.live.file_dialog else {
            return;
        };
        match open.show(ctx) {
            Answer::Open => {}
            Answer::Chosen(path) => {
                let purpose = open.purpose.clone();
                self.live.file_dialog = None;
                // The dialog in the window confirms a double-clicked file at
                // once: ask before replacing it, as the desktop's dialog does.
                if purpose.saves() && path.exists() {
                    self.live.confirm = Some(crate::app::shell::confirm::Confirm::replace(purpose, path));
                } else {
                    self.chosen(purpose, Some(path), ctx);
                }
            }
            Answer::Cancelled => {
                self.live.file_dialog = None;
                self.live.status = files::NO_FILE_CHOSEN.to_owned();
            }
        }
    }

    /// Does what the file was chosen for; `None`: nothing was chosen.
    pub(crate) fn chosen(&mut self, purpose: Purpose, path: Option<PathBuf>, ctx: &egui::Context) {
        let Some(path) = path else {
            self.live.status = files::NO_FILE_CHOSEN.to_owned();
            return;
        };
        // Remembered per kind of file, with the session (a chosen folder's
        // parent, so the next choice starts beside it).
        if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
            let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
            self.state
                .settings
                .last_folders
                .insert(purpose.kind().to_owned(), folder);
        }
        match purpose {
            Purpose::OpenDeal | Purpose::OpenPieceSet => self.load(&path, ctx),
            Purpose::SaveDeal { batch: true } => self.save_batch(&path),
            Purpose::SaveDeal { batch: false } => self.save_deal(&path),
            Purpose::SavePieceSet => match files::save_piece_set(&path, &self.state.doc.set) {
                Ok(()) => {
                    self.live.status = format!("Saved piece set to {}", path.display());
                    self.state.doc.set_origin = self.state.doc.set.clone();
                    self.state.settings.pieces_file = Some(path);
                }
                Err(e) => self.live.error = Some(e),
            },
            Purpose::OpenGenerator => self.load_generator(&path),
            Purpose::AddLabGenerator => self.add_lab_generator(path),
            Purpose::AddLabPlayer => self.add_lab_player(&path),
            Purpose::SaveGenerator => self.save_generator_to(&path),
            Purpose::SaveFiltered => self.save_filtered_to(&path),
            Purpose::PickLogFolder { check } => {
                let path = std::path::absolute(&path).unwrap_or(path);
                self.live.status = format!("Chose {}", path.display());
                self.live.picked_folder = Some((check, path));
            }
            Purpose::PickLearnFolder => self.start_learn(Some(path), ctx),
            Purpose::SaveText { text, .. } => match tenten_engine::io::formats::write_atomic(&path, &text) {
                Ok(()) => self.live.status = format!("Saved {}", path.display()),
                Err(e) => self.live.error = Some(e.to_string()),
            },
        }
    }

    /// After a file replaced the palette's weights (`before`): the active
    /// generator deals with the new weights, so it is no longer the file it
    /// was opened from. It lets go of that file (Save asks where, never
    /// writing these weights over it unseen) and the words say so.
    fn generator_lets_go(&mut self, before: &[u32]) -> String {
        let doc = &mut self.state.doc;
        let (Some(rules), Some(path)) = (&doc.generator, &doc.generator_path) else {
            return String::new();
        };
        if doc.set.weights() == before {
            return String::new();
        }
        let words = format!(
            "; the generator \"{}\" now deals this file's weights, so it let go of {} (Save as keeps it; Ctrl+Z brings it back)",
            rules.name,
            file_name(path)
        );
        doc.generator_path = None;
        doc.generator_hash = None;
        words
    }

    /// The document's file changed on disk since it was read or saved here.
    pub(crate) fn changed_on_disk(&self, path: &std::path::Path) -> bool {
        files::unchanged(path, self.state.settings.file_hash) == Some(false)
    }

    /// Makes `set` the active set, keeping the holder's pieces and the
    /// board's piece colours that it also has (matched by id). An open batch
    /// is closed when the pieces differ (its holders name the old ones);
    /// returns the words saying so.
    pub(crate) fn switch_set(&mut self, set: PieceSet) -> &'static str {
        let doc = &mut self.state.doc;
        let old = std::mem::replace(&mut doc.set, set);
        let set = &doc.set;
        for slot in &mut doc.slots {
            slot.piece = slot.piece.and_then(|p| set.index_of(&old.piece(p).id));
        }
        doc.board = relabel(&doc.board, &old, set);
        let same_pieces = old.pieces.len() == set.pieces.len()
            && old.pieces.iter().zip(&set.pieces).all(|(a, b)| a.id == b.id);
        if !same_pieces && doc.batch.take().is_some() {
            "; the open batch was closed (its holders name the other set's pieces)"
        } else {
            ""
        }
    }

    /// Opens `path`. A large file (a playtest log of many thousand deals) is
    /// read and parsed on a thread, so the window stays live meanwhile;
    /// `poll_load` applies it when it is ready.
    pub(crate) fn load(&mut self, path: &std::path::Path, ctx: &egui::Context) {
        const ON_A_THREAD: u64 = 1 << 20;
        // A generator file opens as the active generator (and shows its tab).
        if is_generator_file(path) {
            self.load_generator(path);
            if self.live.error.is_none() {
                self.state.settings.inspector_tab = crate::app::tabs::GENERATOR_TAB;
            }
            return;
        }
        // A player file joins the Lab's players (and shows the Lab).
        if is_player_file(path) {
            self.add_lab_player(path);
            if self.live.error.is_none() {
                self.state.settings.inspector_tab = crate::app::tabs::LAB_TAB;
            }
            return;
        }
        if std::fs::metadata(path).is_ok_and(|m| m.len() > ON_A_THREAD) {
            let (set, owned) = (self.state.doc.set.clone(), path.to_path_buf());
            let spawned = Job::spawn("open-file", ctx, move |send, progress| {
                let loaded = files::load(&owned, &set);
                // A load cancelled while reading is not applied.
                if !progress.cancelled() {
                    send(loaded);
                }
            });
            if let Ok(job) = spawned {
                self.live.status = format!("Reading {}…", file_name(path));
                self.live.loading = Some((path.to_path_buf(), job));
                return;
            }
        }
        let loaded = files::load(path, &self.state.doc.set);
        self.finish_load(path, loaded);
    }

    /// Applies a file read on a thread, once it is there.
    pub(crate) fn poll_load(&mut self, ctx: &egui::Context) {
        let Some((path, job)) = &mut self.live.loading else {
            return;
        };
        let path = path.clone();
        if let Some(loaded) = job.drain().pop() {
            self.live.loading = None;
            self.finish_load(&path, loaded);
            ctx.request_repaint();
        } else if job.ended() {
            if !job.cancelled() {
                self.live.error = Some(format!("Reading {} stopped unexpectedly.", path.display()));
            }
            self.live.loading = None;
        } else {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    /// What is not saved to a file: the edited piece set, the generator's
    /// rules or weights, a batch's edited deals.
    pub(crate) fn unsaved(&self) -> Vec<String> {
        let doc = &self.state.doc;
        let mut out = Vec::new();
        if doc.set_modified() {
            out.push(format!("the piece set {}", doc.set_title()));
        }
        if doc.generator_modified() {
            out.push(format!(
                "the generator {}",
                doc.generator.as_ref().map_or("", |g| g.name.as_str())
            ));
        }
        if let Some(b) = &doc.batch {
            let n = b.modified_count(&doc.current_deal());
            if n > 0 {
                out.push(format!(
                    "{n} edited deal{} of the batch",
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        out
    }

    /// Applies a file read, or first asks when it would replace the piece
    /// set edited here (as Save asks before replacing a file).
    fn finish_load(&mut self, path: &std::path::Path, loaded: Result<files::Loaded, String>) {
        if let Ok(l) = &loaded {
            let doc = &self.state.doc;
            let replaced = match l {
                files::Loaded::Deal { set: Some(set), .. } => *set != doc.set,
                // A log on the active set's pieces: nothing is replaced.
                files::Loaded::Deal { set: None, .. } => false,
                files::Loaded::PieceSet(set) => *set != doc.set,
                files::Loaded::Result(_) | files::Loaded::Study(_) => false,
            };
            let log = matches!(l, files::Loaded::Deal { batch: Some((text, _)), .. }
                if tenten_engine::io::jsonl_log::is_jsonl(text));
            // A log (classic pieces) over another set would replace the set
            // and make the generator let go of its file: ask first.
            let generator = doc
                .generator
                .as_ref()
                .map(|g| (g.name.clone(), doc.generator_path.is_some()));
            if replaced && (doc.set_modified() || (log && generator.is_some())) {
                let question = if log {
                    crate::app::shell::confirm::Confirm::log_replaces_set(
                        &file_name(path),
                        &doc.set_title(),
                        generator.as_ref().map(|(g, file)| (g.as_str(), *file)),
                    )
                } else {
                    crate::app::shell::confirm::Confirm::replace_set(&file_name(path), &doc.set_title())
                };
                self.live.confirm = Some(question);
                self.live.pending_load = loaded.ok().map(|l| (path.to_path_buf(), l));
                return;
            }
        }
        self.apply_load(path, loaded);
    }

    pub(crate) fn apply_load(&mut self, path: &std::path::Path, loaded: Result<files::Loaded, String>) {
        match loaded {
            Ok(files::Loaded::Deal {
                board,
                holder,
                set,
                pieces_file,
                seed,
                note,
                batch,
            }) => {
                self.edit(EditKey::Single);
                // The file's set (its `pieces:` file, else the classic set)
                // replaces the active one, edits included: Ctrl+Z brings
                // them back. A log on the active set's pieces (`None`)
                // leaves the set, its weights and the generator as they are.
                let kept = match set {
                    Some(set) => {
                        let edited = self.state.doc.set_modified();
                        let named = format!(" with the {} set", set.name);
                        let weights = self.state.doc.set.weights();
                        self.state.doc.set_origin = set.clone();
                        self.switch_set(set);
                        self.state.settings.pieces_file = pieces_file;
                        let generator = self.generator_lets_go(&weights);
                        if edited {
                            format!(
                                "{named} (your edited set was replaced; Ctrl+Z brings it back){generator}"
                            )
                        } else {
                            format!("{named}{generator}")
                        }
                    }
                    None => String::new(),
                };
                let doc = &mut self.state.doc;
                doc.board = board;
                doc.score = 0;
                if let Some(holder) = holder {
                    doc.slots = Slot::holding(&holder);
                }
                doc.sanitize();
                if let Some(seed) = seed {
                    self.state.settings.seed = seed;
                    self.state.doc.deals = 0;
                }
                self.state.settings.file = Some(path.to_path_buf());
                self.state.settings.file_hash = files::hash_on_disk(path);
                self.state.settings.remember(path.to_path_buf());
                self.live.selected_slot = None;
                self.live.status = format!("Opened {}{note}{kept}", file_name(path));
                match batch {
                    Some((text, read)) => self.open_batch(path, text, read),
                    None => self.state.doc.batch = None,
                }
            }
            Ok(files::Loaded::PieceSet(set)) => {
                self.edit(EditKey::Single);
                let weights = self.state.doc.set.weights();
                self.state.doc.set_origin = set.clone();
                let closed = self.switch_set(set);
                self.state.settings.pieces_file = Some(path.to_path_buf());
                self.state.settings.remember(path.to_path_buf());
                let generator = self.generator_lets_go(&weights);
                self.live.status = format!("Opened piece set {}{closed}{generator}", file_name(path));
            }
            Ok(files::Loaded::Result(result)) => self.open_result(path, *result),
            Ok(files::Loaded::Study(study)) => self.open_study(path, *study),
            Err(message) => self.live.error = Some(message),
        }
    }

    /// Shows a calibration study (one the CLI ran for hours, say) on the
    /// Calibration page as if it had run here. A study with replications
    /// missing (a shard, a checkpoint) is shown with what it lacks said:
    /// its rates describe the replications it holds, no more.
    fn open_study(&mut self, path: &std::path::Path, study: tenten_engine::study::calibrate::file::Study) {
        let name = file_name(path);
        if self.live.calibration.running() {
            self.live.error = Some(format!(
                "A calibration study is running: cancel it before opening {name}."
            ));
            return;
        }
        let (held, planned) = (study.replications.len(), study.plan.replications);
        let part = if held < planned {
            format!(" (only {held} of its {planned} replications: a shard or an unfinished study)")
        } else {
            String::new()
        };
        self.live.status = format!(
            "Opened the study {name}: {} over {held} replications{part}, shown on the Calibration page",
            study.plan.estimator.name()
        );
        self.live.calibration.show(
            crate::app::jobs::calibration::Study {
                plan: study.plan,
                replications: study.replications,
            },
            name,
        );
        self.state.settings.inspector_tab = crate::app::tabs::CALIBRATION_TAB;
        self.state.settings.remember(path.to_path_buf());
    }

    /// Shows a result file's run in the Lab as if it had run here. A shard
    /// alone is refused: its figures would describe a slice of the seeds.
    fn open_result(&mut self, path: &std::path::Path, result: tenten_engine::study::results::ResultFile) {
        let name = file_name(path);
        if result.shard.of > 1 {
            self.live.error = Some(format!(
                "{name} is shard {} of a run: merge every shard first (tenten merge part-*.ron --out merged.ron) and open the merged file",
                result.shard
            ));
            return;
        }
        if self.live.lab.running() {
            self.live.error = Some(format!(
                "A simulation is running in the Lab: stop it before opening {name}."
            ));
            return;
        }
        // The run as it was played, by value: no file is read again.
        let (plan, results, seconds) = match crate::app::commands::kept::lab_results(&result) {
            Ok(r) => r,
            Err(e) => {
                self.live.error = Some(format!("{name}: {e}"));
                return;
            }
        };
        let (done, all) = result.done();
        let unfinished = if done < all {
            format!(" (unfinished: {done} of {all} games)")
        } else {
            String::new()
        };
        self.live.status = format!("Opened the result {name}: {done} games{unfinished}, shown in the Lab");
        self.live.lab.show_result(plan, results, seconds, name);
        self.state.settings.inspector_tab = crate::app::tabs::LAB_TAB;
        self.state.settings.lab.page = crate::app::shell::settings::LabPage::Results;
        self.state.settings.remember(path.to_path_buf());
    }

    pub(crate) fn save_deal(&mut self, path: &std::path::Path) {
        let s = &self.state;
        match files::save_deal(path, &s.doc, s.settings.pieces_file.as_deref(), s.settings.seed) {
            Ok(kind) => {
                self.state.settings.file = Some(path.to_path_buf());
                self.state.settings.file_hash = files::hash_on_disk(path);
                self.state.settings.remember(path.to_path_buf());
                self.live.status = match kind {
                    files::SaveKind::Deal => format!("Saved {}", path.display()),
                    files::SaveKind::IntoBatch(n) => format!(
                        "Saved the deal shown as deal 1 of the {n} in the batch {}; the others are kept",
                        file_name(path)
                    ),
                };
            }
            Err(e) => self.live.error = Some(e),
        }
    }
}

fn relabel(board: &Board, old: &PieceSet, new: &PieceSet) -> Board {
    let mut out = board.clone();
    let size = board.size();
    for y in 0..size.h() {
        for x in 0..size.w() {
            if let Cell::Piece(i) = board.get(x, y) {
                let kept = old.pieces.get(usize::from(i)).and_then(|p| new.index_of(&p.id));
                out.set(x, y, kept.map_or(Cell::Painted, Cell::Piece));
            }
        }
    }
    out
}

/// A small file with a player's keys (`lookahead:` and `slip:`), which no
/// deal, piece set or generator file has.
fn is_player_file(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() < 1 << 16)
        && std::fs::read_to_string(path)
            .is_ok_and(|t| t.contains("lookahead:") && t.contains("slip:") && !t.contains("board:"))
}

/// A small file whose first key is a generator's (`name:` then a `check:`
/// somewhere): deals and piece sets have neither.
fn is_generator_file(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() < 1 << 16)
        && std::fs::read_to_string(path)
            .is_ok_and(|t| t.contains("check:") && t.contains("name:") && !t.contains("board:"))
}
