//! Opening and saving RON files from the window. Dialogs run on the UI thread
//! (rfd's synchronous dialogs, then the file I/O); a file that fails to load
//! changes nothing, and saving goes through a temporary file and a rename.

use std::path::{Path, PathBuf};

use tenten_engine::io::formats::{self, FormatError};
use tenten_engine::model::board::Board;
use tenten_engine::model::pieces::MAX_HOLDER;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};

use crate::app::shell::command::Command;
use crate::app::shell::state::Doc;

/// What a file held, checked whole before anything is applied.
pub enum Loaded {
    Deal {
        board: Board,
        /// `None` for a board file (no holder): the holder stays as it is.
        holder: Option<Vec<PieceIdx>>,
        /// The deal's piece set: its `pieces:` file, else the classic set;
        /// `None` for a JSON Lines log whose pieces are the active set's
        /// (its weights may differ): the set, its weights and the active
        /// generator stay as they are.
        set: Option<PieceSet>,
        pieces_file: Option<PathBuf>,
        seed: Option<u64>,
        /// Extra words for the status bar ("deal 1 of 5").
        note: String,
        /// For a batch: its text and every deal that could be read (the
        /// deal above is the first of them).
        batch: Option<(String, tenten_engine::io::batch::Batch)>,
    },
    PieceSet(PieceSet),
    /// A simulation's result (`tenten simulate --out`, `tenten merge --out`).
    Result(Box<tenten_engine::study::results::ResultFile>),
    /// A calibration study (`tenten calibrate --out`, `tenten merge --out`;
    /// a shard or a checkpoint reads as the study it is part of).
    Study(Box<tenten_engine::study::calibrate::file::Study>),
}

/// A result file has a format, settings and pairs of games; no deal, set
/// or generator file has all three.
/// Reads a deal, board, batch (its first deal) or piece set. The holder's ids
/// refer to the deal's own `pieces` file, else to the classic set.
pub fn load(path: &Path, current: &PieceSet) -> Result<Loaded, String> {
    let text = formats::read_text(path).map_err(|e| e.to_string())?;
    let name = path.display().to_string();
    if tenten_engine::study::results::is_result(&text) {
        return tenten_engine::study::results::ResultFile::parse(&text, &name)
            .map(|r| Loaded::Result(Box::new(r)))
            .map_err(|e| e.to_string());
    }
    if let Some(study) = tenten_engine::study::calibrate::file::Study::parse(&text, &name) {
        return study.map(|s| Loaded::Study(Box::new(s)));
    }
    if tenten_engine::io::jsonl_log::is_jsonl(&text) {
        // Telemetry names no piece set: the classic one, as in the CLI. A
        // log is read, not dealt from: when the active set has the classic
        // pieces (whatever its weights, a generator's) it stays.
        let classic = PieceSet::classic();
        let keep = tenten_engine::play::dealers::same_pieces(current, &classic);
        let set = if keep { current } else { &classic };
        let batch = tenten_engine::io::batch::parse(&text, &name, set).map_err(|e| e.to_string())?;
        return Ok(batch_loaded(text, batch, (!keep).then_some(classic), None));
    }
    let looks_like_set = !text.contains("board") && text.contains("pieces");
    if looks_like_set {
        return formats::parse_piece_set(&text, &name)
            .map(Loaded::PieceSet)
            .map_err(|e| e.to_string());
    }
    // The piece set is the first deal's `pieces:`, else the active one.
    let raws = formats::parse_deals_each(&text, &name).map_err(|e| e.to_string())?;
    let pieces = raws
        .iter()
        .find_map(|r| r.as_ref().ok())
        .and_then(|r| r.pieces.clone());
    let (set, pieces_file) = match pieces.as_deref() {
        Some(p) => {
            let (set, file) = formats::load_pieces_of(path, p).map_err(|e| e.to_string())?;
            (Some(set), Some(file))
        }
        // No `pieces:` line means the classic set, as in the CLI: a file
        // means the same thing whatever set the window had before.
        None => (Some(PieceSet::classic()), None),
    };
    let active = set.as_ref().unwrap_or(current);
    if formats::is_batch(&text) {
        // Lenient: the deals that can be read open, the others are listed.
        let batch = tenten_engine::io::batch::parse(&text, &name, active).map_err(|e| e.to_string())?;
        return Ok(batch_loaded(text, batch, set, pieces_file));
    }
    let raw = raws.into_iter().next().expect("a deal file holds one deal");
    let deal = raw
        .and_then(|r| r.resolve(active, &text, &name))
        .map_err(|e: FormatError| e.to_string())?;
    debug_assert!(deal.holder.len() <= MAX_HOLDER);
    Ok(Loaded::Deal {
        holder: (!deal.holder.is_empty()).then_some(deal.holder),
        board: deal.board,
        set,
        pieces_file,
        seed: deal.seed,
        note: String::new(),
        batch: None,
    })
}

/// A batch (RON or a JSON Lines log) opened at its first deal.
fn batch_loaded(
    text: String,
    batch: tenten_engine::io::batch::Batch,
    set: Option<PieceSet>,
    pieces_file: Option<PathBuf>,
) -> Loaded {
    let first = batch.deals[0].deal.clone();
    let bad = if batch.bad.is_empty() {
        String::new()
    } else {
        format!("; {} could not be read, listed in the Deals tab", batch.bad.len())
    };
    let note = format!(" (deal 1 of {}{bad})", batch.deals.len());
    Loaded::Deal {
        holder: (!first.holder.is_empty()).then_some(first.holder),
        board: first.board,
        set,
        pieces_file,
        seed: first.seed,
        note,
        batch: Some((text, batch)),
    }
}

/// The last part of a path, for the status bar (and a tab's button:
/// here, not in the commands, so a tab needs nothing that imports the
/// frame).
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The hash of the file's text on disk now (`None` when it cannot be read).
pub fn hash_on_disk(path: &Path) -> Option<u64> {
    formats::read_text(path).ok().map(|t| formats::content_hash(&t))
}

/// Whether the file at `path` still holds the text hashed to `hash`:
/// `Some(false)` when another program changed (or removed) it.
pub fn unchanged(path: &Path, hash: Option<u64>) -> Option<bool> {
    formats::unchanged_on_disk(path, hash)
}

/// Writes the document as a deal file; `pieces` is written relative to the
/// file's folder. When `path` holds a batch, only its first deal (the one
/// shown) is replaced: the other deals and the comments stay.
pub fn save_deal(path: &Path, doc: &Doc, pieces: Option<&Path>, seed: u64) -> Result<SaveKind, String> {
    let pieces = pieces.map(|p| formats::pieces_reference(path, p));
    let text = formats::deal_to_ron(&doc.board, &doc.holder(), &doc.set, pieces.as_deref(), Some(seed));
    let old = std::fs::read_to_string(path);
    if let Ok(old) = &old
        && tenten_engine::io::jsonl_log::is_jsonl(old)
    {
        return Err(format!(
            "{} is a JSON Lines playtest log, which this window does not write into; nothing was written. Use Save as.",
            path.display()
        ));
    }
    if let Ok(old) = old
        && formats::is_batch(&old)
    {
        let n = formats::parse_deals(&old, &path.display().to_string()).map_or(0, |d| d.len());
        let batch = tenten_engine::io::batch_file::replace_first_deal(&old, &text).map_err(|why| {
            format!(
                "{} is a batch this window cannot update safely ({why}); nothing was written. Use Save as.",
                path.display()
            )
        })?;
        formats::write_atomic(path, &batch).map_err(|e| e.to_string())?;
        return Ok(SaveKind::IntoBatch(n));
    }
    formats::write_atomic(path, &text).map_err(|e| e.to_string())?;
    Ok(SaveKind::Deal)
}

/// Whether `path` holds a batch (a RON list of deals).
pub fn is_batch_file(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| formats::is_batch(&t))
}

/// What a save wrote.
pub enum SaveKind {
    Deal,
    /// The first deal of a batch of this many.
    IntoBatch(usize),
}

pub fn save_piece_set(path: &Path, set: &PieceSet) -> Result<(), String> {
    formats::write_atomic(path, &formats::piece_set_to_ron(set)).map_err(|e| e.to_string())
}

/// Shown when a dialog returns nothing: cancelled, or no dialog could open.
pub const NO_FILE_CHOSEN: &str = "No file chosen. (You can also drop a .ron or .jsonl file on the window.)";

fn dialog(title: &str, folder: Option<PathBuf>) -> rfd::FileDialog {
    dialog_for(title, "ron", folder)
}

/// The file filter of a dialog for `extension`: its name and extensions.
fn filter_for(extension: &str) -> (String, [&str; 1]) {
    let name = match extension {
        "ron" => "Tenten RON (deal, batch or piece set)".to_owned(),
        "svg" => "SVG image".to_owned(),
        "dot" => "Graphviz DOT".to_owned(),
        "csv" => "CSV table".to_owned(),
        other => other.to_uppercase(),
    };
    (name, [extension])
}

/// The extension a save dialog filters by: the proposed name's, else RON.
fn save_extension(name: &str) -> &str {
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("ron")
}

/// Where dialogs start: `presets/` when run from the project, else the
/// working folder's default.
pub fn start_folder() -> Option<PathBuf> {
    presets_dir()
}

/// The presets folder: the working folder's `presets/`, else the one of
/// the clone this binary was built from (so `cargo run` or an installed
/// `tenten` started from anywhere finds the examples and the demo cohort).
pub fn presets_dir() -> Option<PathBuf> {
    let here = std::env::current_dir().ok().map(|d| d.join("presets"));
    let built = Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("presets"));
    [here, built].into_iter().flatten().find(|d| d.is_dir())
}

/// A preset by its path under `presets/`, found where `presets_dir` is
/// (the relative path itself when there is none, so a message names it).
pub fn preset_path(relative: &str) -> PathBuf {
    presets_dir().map_or_else(|| Path::new("presets").join(relative), |d| d.join(relative))
}

/// A dialog filtered to files of `extension` (a CSV export shows CSV
/// files), opening in `folder` (else `presets/`).
fn dialog_for(title: &str, extension: &str, folder: Option<PathBuf>) -> rfd::FileDialog {
    let (name, extensions) = filter_for(extension);
    let d = rfd::FileDialog::new()
        .set_title(title)
        .add_filter(name, &extensions);
    match folder.or_else(start_folder) {
        Some(dir) => d.set_directory(dir),
        None => d,
    }
}

/// Set (to anything) to make every file dialog answer "no file chosen" at
/// once: for automated runs, where a real dialog would wait for a person.
pub const NO_DIALOGS_ENV: &str = "TENTEN_NO_DIALOGS";

static DIALOGS_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The same as `NO_DIALOGS_ENV`, from code (the UI monkey test).
pub fn disable_dialogs() {
    DIALOGS_OFF.store(true, std::sync::atomic::Ordering::Relaxed);
}

pub(crate) fn dialogs_off() -> bool {
    DIALOGS_OFF.load(std::sync::atomic::Ordering::Relaxed) || std::env::var_os(NO_DIALOGS_ENV).is_some()
}

/// An open dialog; `logs` also offers JSON Lines playtest logs.
pub fn pick_open(title: &str, folder: Option<PathBuf>, logs: bool) -> Option<PathBuf> {
    if dialogs_off() {
        return None;
    }
    let d = dialog(title, folder);
    if logs {
        d.add_filter("JSON Lines playtest log", &["jsonl"]).pick_file()
    } else {
        d.pick_file()
    }
}

/// A folder dialog opening in `folder` (else `presets/`).
pub fn pick_folder(title: &str, folder: Option<PathBuf>) -> Option<PathBuf> {
    if dialogs_off() {
        return None;
    }
    let d = rfd::FileDialog::new().set_title(title);
    match folder.or_else(start_folder) {
        Some(dir) => d.set_directory(dir),
        None => d,
    }
    .pick_folder()
}

/// A save dialog filtered by the extension of the proposed `name`.
pub fn pick_save(title: &str, name: &str, folder: Option<PathBuf>) -> Option<PathBuf> {
    if dialogs_off() {
        return None;
    }
    dialog_for(title, save_extension(name), folder)
        .set_file_name(name)
        .save_file()
}

/// The dialog that shows why a file could not be used.
pub fn error_dialog(ctx: &egui::Context, message: &str, cmds: &mut Vec<Command>) {
    let modal = egui::Modal::new(egui::Id::unique("error")).show(ctx, |ui| {
        ui.set_max_width(520.0);
        ui.heading("Nothing was changed");
        ui.add_space(4.0);
        ui.label(message);
        ui.add_space(8.0);
        ui.button("OK").clicked()
    });
    if modal.inner || modal.should_close() {
        cmds.push(Command::DismissError);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every export's proposed name gives its own filter: an SVG save dialog
    /// lists SVG files, not RON ones.
    #[test]
    fn save_dialogs_filter_by_what_is_saved() {
        for (name, ext, label) in [
            ("tree.svg", "svg", "SVG image"),
            ("tree.dot", "dot", "Graphviz DOT"),
            ("f-matrix.csv", "csv", "CSV table"),
            ("timing.csv", "csv", "CSV table"),
            ("deal.ron", "ron", "Tenten RON (deal, batch or piece set)"),
            ("pieces.ron", "ron", "Tenten RON (deal, batch or piece set)"),
        ] {
            assert_eq!(save_extension(name), ext, "{name}");
            assert_eq!(filter_for(ext), (label.to_owned(), [ext]), "{name}");
        }
        assert_eq!(save_extension("no-extension"), "ron");
    }
}
