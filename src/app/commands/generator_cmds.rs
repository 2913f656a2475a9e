//! The active generator: opened from a file or a preset, edited in the
//! Generator tab (each edit checked as the file format checks it, undoable),
//! saved, closed. Deal (Ctrl+D) deals from it.

use std::path::Path;

use tenten_engine::play::generator_file::{self, GeneratorFile, GeneratorSpec};

use crate::app::shell::app::App;
use crate::app::shell::undo::EditKey;

impl App {
    /// Opens a generator file: its set (with the file's weights) becomes the
    /// palette's, its rules the active ones. A bad file changes nothing.
    pub(crate) fn load_generator(&mut self, path: &Path) {
        match generator_file::load(path, &self.state.doc.set) {
            Ok(spec) => {
                self.edit(EditKey::Single);
                let closed = if spec.set == self.state.doc.set {
                    ""
                } else {
                    // The file's set, as the file has it, is the palette's
                    // "as opened" (its weights are the generator's).
                    self.state.doc.set_origin = spec.set.clone();
                    self.switch_set(spec.set.clone())
                };
                // The set's file is the one the generator names (relative to
                // the generator), so a save writes that reference again.
                if let Some(p) = &spec.file.pieces {
                    self.state.settings.pieces_file =
                        Some(tenten_engine::io::formats::resolve_pieces_path(path, p));
                }
                // The file's weights are the palette's now; the rules keep
                // none of their own, so palette edits deal as they show.
                let mut rules = spec.file;
                rules.weights.clear();
                let doc = &mut self.state.doc;
                doc.generator = Some(rules);
                doc.generator_origin = doc.generator_as_saved();
                doc.generator_named_for = Some(doc.weights_map());
                doc.generator_path = Some(path.to_path_buf());
                doc.generator_hash = tenten_engine::io::formats::read_text(path)
                    .ok()
                    .map(|t| tenten_engine::io::formats::content_hash(&t));
                self.live.status = format!("Dealing from the generator {}{closed}", path.display());
            }
            Err(e) => self.live.error = Some(e.to_string()),
        }
    }

    /// Starts from a preset's rules on the palette's set (untitled).
    pub(crate) fn new_generator(&mut self, name: &str) {
        let Some(spec) = generator_file::preset(name, &self.state.doc.set) else {
            return;
        };
        self.edit(EditKey::Single);
        let doc = &mut self.state.doc;
        doc.generator = Some(spec.file);
        doc.generator_origin = doc.generator_as_saved();
        doc.generator_named_for = Some(doc.weights_map());
        doc.generator_path = None;
        doc.generator_hash = None;
        self.live.status = format!("Dealing from a new generator, from the preset {name}");
    }

    /// An edit of the rules, applied only if the file would read (a band
    /// out of order, every weight scaled to 0, ... are refused, with why).
    pub(crate) fn set_generator(&mut self, mut rules: GeneratorFile, stroke: u64) {
        // The palette holds the weights; rules in the document hold none.
        rules.weights.clear();
        if self.state.doc.generator.as_ref() == Some(&rules) {
            return;
        }
        let spec = GeneratorSpec {
            file: rules.clone(),
            set: self.state.doc.set.clone(),
        };
        match generator_file::parse(&spec.to_ron(), "the generator", &self.state.doc.set) {
            Ok(_) => {
                self.edit(if stroke == 0 {
                    EditKey::Single
                } else {
                    EditKey::Weight(stroke)
                });
                self.state.doc.generator = Some(rules);
            }
            Err(e) => self.live.status = format!("Not applied: {}", e.message),
        }
    }

    /// A generator file for the Lab to compare, if it reads and deals the
    /// palette's pieces.
    pub(crate) fn add_lab_generator(&mut self, path: std::path::PathBuf) {
        match generator_file::load(&path, &self.state.doc.set) {
            Ok(spec) if tenten_engine::play::dealers::same_pieces(&spec.set, &self.state.doc.set) => {
                let lab = &mut self.state.settings.lab;
                if !lab.files.contains(&path) {
                    lab.files.push(path.clone());
                }
                self.live.status = format!("The Lab compares {} too", path.display());
            }
            Ok(spec) => {
                self.live.error = Some(format!(
                    "{} deals the pieces of \"{}\", not the palette's \"{}\"",
                    path.display(),
                    spec.set.name,
                    self.state.doc.set.name
                ))
            }
            Err(e) => self.live.error = Some(e.to_string()),
        }
    }

    /// Adds a player file to the Lab's players (read now, to show it; read
    /// again when a run starts) and picks it; the same file again is read
    /// afresh. The Tune view offers it too.
    pub(crate) fn add_lab_player(&mut self, path: &std::path::Path) {
        match tenten_engine::play::player::load(path) {
            Ok(player) => {
                let extra = crate::app::shell::settings::ExtraPlayer {
                    player,
                    file: Some(path.to_path_buf()),
                    fitted_to: None,
                    plays: true,
                };
                let words = extra.describe();
                let label = self.put_lab_player(extra, |e| e.file.as_deref() == Some(path));
                self.live.status = format!("The Lab plays {label} too: {words}");
            }
            Err(e) => self.live.error = Some(e.to_string()),
        }
    }

    /// Adds the player fitted to the open log to the Lab, named after the
    /// log; a new fit of the same log takes the old one's place.
    pub(crate) fn use_fitted_in_lab(&mut self) {
        let Some(done) = &self.live.fit.result else {
            return;
        };
        let log = std::path::Path::new(&done.file);
        let stem = log
            .file_stem()
            .map_or_else(|| done.file.clone(), |s| s.to_string_lossy().into_owned());
        let mut player = done.player();
        player.name = stem;
        let log_name = crate::app::shell::files::file_name(log);
        let extra = crate::app::shell::settings::ExtraPlayer {
            player,
            file: None,
            fitted_to: Some(log_name.clone()),
            plays: true,
        };
        let words = extra.describe();
        let label = self.put_lab_player(extra, |e| {
            e.file.is_none() && e.fitted_to.as_deref() == Some(log_name.as_str())
        });
        self.state.settings.lab.tune.player = label.clone();
        self.live.status = format!("The Lab plays {label} too: {words}");
    }

    /// Puts `extra` (which plays) in the Lab's players in place of the one
    /// `same` finds, or after the others, and returns its label.
    fn put_lab_player(
        &mut self,
        extra: crate::app::shell::settings::ExtraPlayer,
        same: impl Fn(&crate::app::shell::settings::ExtraPlayer) -> bool,
    ) -> String {
        let lab = &mut self.state.settings.lab;
        let at = match lab.extra_players.iter().position(&same) {
            Some(i) => {
                lab.extra_players[i] = extra;
                i
            }
            None => {
                lab.extra_players.push(extra);
                lab.extra_players.len() - 1
            }
        };
        crate::app::jobs::lab::extra_labels(&lab.extra_players)[at].clone()
    }

    /// Tunes the active generator (or the random preset) for the Lab's
    /// player and targets, on the board and holder on screen.
    pub(crate) fn start_tune(&mut self, ctx: &egui::Context) {
        use tenten_engine::study::tune::{Goal, Target, TuneRequest};
        let doc = &self.state.doc;
        let t = self.state.settings.lab.tune.clone();
        let base = match doc.generator_spec() {
            Some(spec) => spec,
            None => match generator_file::preset("random", &doc.set) {
                Some(spec) => spec,
                None => return,
            },
        };
        let mut goals = vec![Goal::new(Target::MedianRounds(t.median_rounds.max(1.0)))];
        if let Some(u) = t.unfair_share {
            goals.push(Goal::new(Target::UnfairShare(u.clamp(0.0, 1.0))));
        }
        let what = format!(
            "{} for {}: median {:.0} rounds{}",
            base.file.name,
            t.player,
            t.median_rounds,
            t.unfair_share.map_or(String::new(), |u| format!(
                ", at most {:.0} % of losses unfair",
                u * 100.0
            ))
        );
        let request = TuneRequest {
            plan: tenten_engine::study::runner::Plan {
                shapes_size: doc.board.size(),
                k: doc.slots.len(),
                games: t.games.clamp(1, tenten_engine::study::plan::MAX_GAMES),
                seed: self.state.settings.lab.seed,
                max_rounds: self
                    .state
                    .settings
                    .lab
                    .max_rounds
                    .clamp(1, tenten_engine::study::plan::MAX_ROUNDS),
                ..match crate::app::jobs::lab::who_of(&self.state.settings.lab, &t.player).and_then(|who| {
                    let mut plan = tenten_engine::study::runner::Plan::named(
                        doc.set.clone(),
                        &[],
                        &[],
                        self.state.settings.lab.weights,
                    )
                    .map_err(|e| e.to_string())?;
                    plan.players = vec![(t.player.clone(), who)];
                    Ok(plan)
                }) {
                    Ok(plan) => plan,
                    Err(e) => {
                        self.live.tune.error = Some(e);
                        return;
                    }
                }
            },
            free: (0..doc.set.pieces.len() as tenten_engine::model::pieces::PieceIdx).collect(),
            base,
            goals,
            bounds: (1.0, 200.0),
            keep_mix: t.keep_mix.max(0.0),
            budget_seconds: t.budget_seconds.max(1.0),
            max_evaluations: None,
            audience: None,
            holdout_games: t.holdout.max(tenten_engine::study::tune::MIN_HOLDOUT),
            holdout_max: t
                .holdout
                .max(tenten_engine::study::tune::MIN_HOLDOUT)
                .saturating_mul(tenten_engine::study::tune_run::HOLDOUT_GROWTH),
            plan_holdout: false,
        };
        // A median past the round cap, say, is refused before anything runs.
        if let Err(e) = request.check() {
            self.live.tune.error = Some(e);
            return;
        }
        match self.live.tune.start(request, what, ctx) {
            Ok(()) => self.live.status = "Tuning the generator…".to_owned(),
            Err(e) => self.live.error = Some(format!("Could not start the tune: {e}")),
        }
    }

    /// The tuned weights into the palette and the tuned rules into the
    /// Generator tab, as one undoable step.
    pub(crate) fn apply_tuned(&mut self) {
        let Some(report) = &self.live.tune.report else {
            return;
        };
        let tuned = report.tuned.clone();
        if !tenten_engine::play::dealers::same_pieces(&tuned.set, &self.state.doc.set) {
            self.live.error = Some("The tune was for another piece set; run it again.".to_owned());
            return;
        }
        self.edit(EditKey::Single);
        let doc = &mut self.state.doc;
        for (p, t) in doc.set.pieces.iter_mut().zip(&tuned.set.pieces) {
            p.weight = t.weight;
        }
        let mut rules = tuned.file;
        rules.name = format!("{} tuned", rules.name.trim_end_matches(" tuned"));
        // The weights live in the palette; the rules keep none of their own.
        rules.weights.clear();
        doc.generator = Some(rules);
        doc.generator_named_for = Some(doc.weights_map());
        self.live.status = "Applied the tuned weights to the palette and the generator".to_owned();
    }

    pub(crate) fn close_generator(&mut self) {
        if self.state.doc.generator.is_some() {
            self.edit(EditKey::Single);
            let doc = &mut self.state.doc;
            doc.generator = None;
            doc.generator_origin = None;
            doc.generator_named_for = None;
            doc.generator_path = None;
            doc.generator_hash = None;
            self.live.status = "Dealing from the palette's weights".to_owned();
        }
    }

    /// Writes the active generator: its rules, and the palette's weights as
    /// the file's weights (what is on screen is what is saved).
    pub(crate) fn save_generator_to(&mut self, path: &Path) {
        let Some(rules) = self.state.doc.generator.clone() else {
            self.live.error = Some(format!(
                "Nothing was saved to {}: the generator was closed while the dialog was open.",
                path.display()
            ));
            return;
        };
        let mut file = rules.clone();
        file.weights = self
            .state
            .doc
            .set
            .pieces
            .iter()
            .map(|p| (p.id.clone(), p.weight))
            .collect();
        // The set's file, found again from where the generator goes.
        file.pieces = self
            .state
            .settings
            .pieces_file
            .as_ref()
            .map(|set_file| tenten_engine::io::formats::pieces_reference(path, set_file));
        let spec = GeneratorSpec {
            file,
            set: self.state.doc.set.clone(),
        };
        match tenten_engine::io::formats::write_atomic(path, &spec.to_ron()) {
            Ok(()) => {
                let doc = &mut self.state.doc;
                doc.generator = Some(rules);
                doc.generator_origin = doc.generator_as_saved();
                doc.generator_named_for = Some(doc.weights_map());
                doc.generator_path = Some(path.to_path_buf());
                doc.generator_hash = Some(tenten_engine::io::formats::content_hash(&spec.to_ron()));
                self.live.status = format!("Saved the generator to {}", path.display());
            }
            Err(e) => self.live.error = Some(e.to_string()),
        }
    }
}

impl App {
    /// Learns a generator from `folder`'s logs, or from the open log.
    pub(crate) fn start_learn(&mut self, folder: Option<std::path::PathBuf>, ctx: &egui::Context) {
        use crate::app::jobs::learn::Source;
        let source = match folder {
            Some(p) => Source::Path(p),
            None => match &self.state.doc.batch {
                Some(b) => Source::Text {
                    name: b.source.path.display().to_string(),
                    text: b.source.text.clone(),
                },
                None => {
                    self.live.learn.error =
                        Some("Open a log of deals (a batch or JSON Lines log) first.".to_owned());
                    return;
                }
            },
        };
        let name = source.name();
        match self.live.learn.start(source, self.state.doc.set.clone(), ctx) {
            Ok(()) => self.live.status = format!("Learning a generator from {name}…"),
            Err(e) => self.live.error = Some(format!("Could not start learning: {e}")),
        }
    }

    /// The learned generator becomes the active one, untitled (its weights
    /// the palette's, as when a generator file is opened).
    pub(crate) fn open_learned(&mut self) {
        let Some((_, learned)) = &self.live.learn.result else {
            return;
        };
        match generator_file::parse(&learned.text, "the learned generator", &self.state.doc.set) {
            Ok(spec) => {
                self.edit(EditKey::Single);
                let doc = &mut self.state.doc;
                for (p, q) in doc.set.pieces.iter_mut().zip(&spec.set.pieces) {
                    p.weight = q.weight;
                }
                let mut rules = spec.file;
                rules.weights.clear();
                rules.pieces = None;
                let name = rules.name.clone();
                doc.generator = Some(rules);
                doc.generator_origin = doc.generator_as_saved();
                doc.generator_named_for = Some(doc.weights_map());
                doc.generator_path = None;
                doc.generator_hash = None;
                self.live.status = format!("Dealing from the generator {name} (untitled: Save asks where)");
            }
            Err(e) => self.live.error = Some(e.to_string()),
        }
    }

    /// Keeps the learned file in the data folder (`learned/`, a new name
    /// each time: nothing is replaced) and adds it to the Lab.
    pub(crate) fn learned_to_lab(&mut self) {
        let Some((_, learned)) = &self.live.learn.result else {
            return;
        };
        let Some(dir) = self.data_dir.clone().map(|d| d.join("learned")) else {
            self.live.error = Some(
                "No data folder to keep the learned file in: save it, then add it to the Lab.".to_owned(),
            );
            return;
        };
        if let Err(e) = std::fs::create_dir_all(&dir) {
            self.live.error = Some(format!("Could not make {}: {e}", dir.display()));
            return;
        }
        let stem: String = learned
            .file
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let path = (1..)
            .map(|n| dir.join(format!("{stem}-{n}.ron")))
            .find(|p| !p.exists())
            .unwrap_or_else(|| dir.join(format!("{stem}.ron")));
        match tenten_engine::io::formats::write_atomic(&path, &learned.text) {
            Ok(()) => self.add_lab_generator(path),
            Err(e) => self.live.error = Some(e.to_string()),
        }
    }
}
