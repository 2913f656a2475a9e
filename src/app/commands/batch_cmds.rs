//! What the batch commands do: open a batch into the document, move between
//! its deals, add the deal on screen, save the whole batch (comments kept)
//! or only the deals shown, and export the verdicts.

use std::collections::BTreeMap;
use std::path::Path;

use tenten_engine::io::batch;
use tenten_engine::io::formats::{self, Deal};

use crate::app::shell::app::App;
use crate::app::shell::batch::DocBatch;
use crate::app::shell::batch_source::Source;
use crate::app::shell::files::file_name;
use crate::app::shell::state::Slot;
use crate::app::shell::undo::EditKey;

impl App {
    /// A batch just read (the document already shows its first deal).
    pub(crate) fn open_batch(&mut self, path: &Path, text: String, read: batch::Batch) {
        self.batches_opened += 1;
        self.state.doc.batch = Some(DocBatch::new(Source {
            id: self.batches_opened,
            path: path.to_path_buf(),
            text,
            entries: read.deals,
            bad: read.bad,
        }));
        self.state.settings.inspector_tab = crate::app::tabs::DEALS_TAB;
        self.state.settings.show_inspector = true;
    }

    /// Shows the deal at `pos`, keeping the one on screen (edited or not) in
    /// the batch. One undo step.
    pub(crate) fn select_deal(&mut self, pos: usize) {
        let doc = &self.state.doc;
        let Some(b) = &doc.batch else { return };
        if pos >= b.len() || pos == b.pos {
            return;
        }
        self.edit(EditKey::Single);
        let doc = &mut self.state.doc;
        let current = doc.current_deal();
        let Some(b) = doc.batch.as_mut() else { return };
        b.commit(current);
        b.pos = pos;
        let Some(deal) = b.stored(pos).cloned() else {
            return;
        };
        let index = b.file_index(pos);
        let n = b.len();
        doc.board = deal.board;
        doc.slots = Slot::holding(&deal.holder);
        doc.score = 0;
        doc.sanitize();
        self.live.selected_slot = None;
        self.live.status = format!("Deal {index} ({} of {n} in the batch)", pos + 1);
    }

    /// The next (or previous) deal of the list as filtered and sorted.
    pub(crate) fn step_deal(&mut self, forward: bool) {
        let Some(b) = &self.state.doc.batch else {
            self.live.status = "No batch is open: open one (File, Open) to walk its deals".to_owned();
            return;
        };
        match self.live.deals.step(b.pos, forward) {
            Some(pos) => self.select_deal(pos),
            None => {
                self.live.status = format!(
                    "No {} deal in this list",
                    if forward { "next" } else { "previous" }
                )
            }
        }
    }

    /// Appends the deal on screen to the open batch, or starts a new batch
    /// with it (saved with Save as). One undo step.
    pub(crate) fn add_to_batch(&mut self) {
        self.edit(EditKey::Single);
        let current = self.state.doc.current_deal();
        if self.state.doc.batch.is_none() {
            self.batches_opened += 1;
            self.state.doc.batch = Some(DocBatch::new(Source {
                id: self.batches_opened,
                path: std::path::PathBuf::new(),
                text: "// Deals collected in Tenten Workbench\n[\n]\n".to_owned(),
                entries: Vec::new(),
                bad: Vec::new(),
            }));
            // Not the file on screen any more: Save asks where the batch goes.
            self.state.settings.file = None;
        }
        let Some(b) = self.state.doc.batch.as_mut() else {
            return;
        };
        b.commit(current.clone());
        b.added.push(current);
        b.pos = b.len() - 1;
        let n = b.len();
        self.live.status = format!("Added the deal on screen to the batch: deal {} of {n}", n);
    }

    /// The RON of one deal of the batch written to `file`, its `pieces`
    /// relative to the file's folder.
    fn deal_text(&self, deal: &Deal, file: &Path) -> String {
        let pieces = self
            .state
            .settings
            .pieces_file
            .as_deref()
            .map(|p| formats::pieces_reference(file, p));
        formats::deal_to_ron(
            &deal.board,
            &deal.holder,
            &self.state.doc.set,
            pieces.as_deref(),
            deal.seed,
        )
    }

    /// Writes the whole batch, edits and added deals included, atomically:
    /// the file's text with only the edited deals replaced and the new ones
    /// appended, so comments stay. Then reads it back as the open batch.
    pub(crate) fn save_batch(&mut self, path: &Path) {
        let doc = &self.state.doc;
        let Some(b) = &doc.batch else {
            self.live.error = Some(format!(
                "Nothing was saved to {}: the batch was closed while the dialog was open.",
                path.display()
            ));
            return;
        };
        if tenten_engine::io::jsonl_log::is_jsonl(&b.source.text) {
            // Its deals as RON would drop the records' player, session and
            // game; written over the log, the telemetry itself.
            self.live.error = Some(format!(
                "{} is a JSON Lines playtest log: the window reads it but does not write logs, so nothing was written to {}. The Deals tab's \"Save the deals shown as…\" writes its deals (without the moves) as a RON batch.",
                file_name(&b.source.path),
                path.display()
            ));
            return;
        }
        let folder = path;
        // Into another folder, every deal's relative `pieces:` would point
        // elsewhere: every deal is written again, its reference from there.
        let here = |p: &Path| {
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .canonicalize()
                .ok()
        };
        let moved = here(path) != here(&b.source.path);
        let current = doc.current_deal();
        let mut edits: BTreeMap<usize, String> = BTreeMap::new();
        let n = b.source.entries.len();
        for pos in 0..n {
            let deal = if pos == b.pos {
                Some(&current)
            } else {
                b.edits.get(&pos)
            };
            let deal = deal.or_else(|| b.original(pos).filter(|_| moved));
            if let Some(deal) = deal.filter(|d| moved || b.original(pos) != Some(d)) {
                // update_batch counts every deal of the file, unreadable ones too.
                edits.insert(b.source.entries[pos].index, self.deal_text(deal, folder));
            }
        }
        let added: Vec<String> = (n..b.len())
            .map(|pos| {
                let deal = if pos == b.pos { &current } else { &b.added[pos - n] };
                self.deal_text(deal, folder)
            })
            .collect();
        let text = match tenten_engine::io::batch_file::update_batch(&b.source.text, &edits, &added) {
            Ok(text) => text,
            Err(why) => {
                self.live.error = Some(format!(
                    "{} could not be updated safely ({why}); nothing was written. Use Save as.",
                    b.source.path.display()
                ));
                return;
            }
        };
        if let Err(e) = formats::write_atomic(path, &text) {
            self.live.error = Some(e.to_string());
            return;
        }
        let (written, pos) = (b.len(), b.pos);
        self.state.settings.file = Some(path.to_path_buf());
        self.state.settings.file_hash = Some(formats::content_hash(&text));
        self.state.settings.remember(path.to_path_buf());
        self.reopen_batch(path, text, pos);
        self.live.status = format!("Saved the whole batch ({written} deals) to {}", file_name(path));
    }

    /// After a save: the written file becomes the open batch, same deal shown.
    fn reopen_batch(&mut self, path: &Path, text: String, pos: usize) {
        let name = path.display().to_string();
        match batch::parse(&text, &name, &self.state.doc.set) {
            Ok(read) => {
                self.batches_opened += 1;
                let mut b = DocBatch::new(Source {
                    id: self.batches_opened,
                    path: path.to_path_buf(),
                    text,
                    entries: read.deals,
                    bad: read.bad,
                });
                b.pos = pos.min(b.len().saturating_sub(1));
                self.state.doc.batch = Some(b);
            }
            Err(e) => self.live.error = Some(format!("Saved, but reading it back failed: {e}")),
        }
    }

    /// Writes only the deals the list shows, in its order, to a new file.
    pub(crate) fn save_filtered_to(&mut self, path: &Path) {
        let Some(b) = &self.state.doc.batch else {
            self.live.error = Some(format!(
                "Nothing was saved to {}: the batch was closed while the dialog was open.",
                path.display()
            ));
            return;
        };
        let path = path.to_path_buf();
        let folder = path.as_path();
        let current = self.state.doc.current_deal();
        let rows = self.live.deals.rows().to_vec();
        let texts: Vec<String> = rows
            .iter()
            .filter_map(|&pos| {
                let deal = if pos == b.pos {
                    Some(&current)
                } else {
                    b.stored(pos)
                };
                deal.map(|d| self.deal_text(d, folder))
            })
            .collect();
        let comment = format!(
            "{} deals of {} shown by the Deals tab ({:?}, by {})",
            texts.len(),
            file_name(&b.source.path),
            self.live.deals.filter,
            self.live.deals.sort.name()
        );
        match formats::write_atomic(
            &path,
            &tenten_engine::io::batch_file::batch_to_ron(&texts, &comment),
        ) {
            Ok(()) => {
                self.live.status = format!(
                    "Saved {} to {}",
                    tenten_engine::text::count(texts.len() as u64, "deal", "deals"),
                    file_name(&path)
                )
            }
            Err(e) => self.live.error = Some(e.to_string()),
        }
    }

    /// The verdict CSV of every judged deal, in file order.
    pub(crate) fn batch_csv(&self) -> Option<String> {
        let b = self.state.doc.batch.as_ref()?;
        let current = self.state.doc.current_deal();
        let rows: Vec<(usize, &Deal, &batch::Judged)> = (0..b.len())
            .filter_map(|pos| {
                let deal = if pos == b.pos { &current } else { b.stored(pos)? };
                Some((b.file_index(pos), deal, self.live.deals.judged_at(pos)?))
            })
            .collect();
        Some(batch::csv(rows, &self.state.doc.set))
    }
}
