//! The open batch's deal list: the verdicts of every deal, judged on a
//! background thread as they arrive, the filter and the order. What the
//! panels read of the batch besides the document.

use std::collections::HashMap;

use tenten_engine::io::batch::{self, Filter, Judged, SortKey};
use tenten_engine::io::formats::Deal;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::changer::ChangeOptions;
use tenten_engine::search::heuristic::{Policy, Reading};

use crate::app::jobs::job::{Job, Watch};
use crate::app::jobs::judge;
use crate::app::shell::batch::DocBatch;
use crate::app::shell::state::Doc;

/// What the judging depends on besides the deals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct JudgeKey {
    source: u64,
    policy: Policy,
    reading: Reading,
    max_redraws: usize,
    /// The pieces and weights (which pieces are dealt decides `dead`).
    set: u64,
}

fn set_fingerprint(set: &PieceSet) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in &set.pieces {
        (&p.id, p.weight, p.cells()).hash(&mut h);
    }
    h.finish()
}

/// The deal list's state: verdicts as they arrive, the filter and the order.
#[derive(Default)]
pub struct DealsView {
    key: Option<JudgeKey>,
    /// Verdicts of the deals as read, by position.
    judged: Vec<Option<Judged>>,
    /// Verdicts of edited and added deals, with the deal they judge.
    edited: HashMap<usize, (Deal, Judged)>,
    job: Option<Job<judge::Chunk>>,
    /// The last run was cancelled before it finished.
    pub cancelled: bool,
    pub filter: Filter,
    pub sort: SortKey,
    pub descending: bool,
    /// Bumped whenever a verdict or the batch changes, to rebuild `rows`.
    version: u64,
    rows_for: Option<(u64, Filter, SortKey, bool)>,
    rows: Vec<usize>,
    /// Deals per verdict, counted with the rows.
    counts: HashMap<batch::Verdict, usize>,
}

impl DealsView {
    /// Once per frame: take the verdicts that arrived, start judging a batch
    /// that is new (or whose policy changed), judge edited deals, and bring
    /// the list's rows up to date.
    pub fn update(&mut self, doc: &Doc, options: ChangeOptions, ctx: &egui::Context) {
        let Some(b) = &doc.batch else {
            if self.key.is_some() {
                *self = Self {
                    filter: self.filter,
                    sort: self.sort,
                    descending: self.descending,
                    ..Self::default()
                };
            }
            return;
        };
        let key = JudgeKey {
            source: b.source.id,
            policy: options.policy,
            reading: options.reading,
            max_redraws: options.max_redraws,
            set: set_fingerprint(&doc.set),
        };
        if self.key != Some(key) {
            // A judging of the old key is dropped, so cancelled.
            self.job = None;
            self.key = Some(key);
            self.judged = vec![None; b.source.entries.len()];
            self.edited.clear();
            self.cancelled = false;
            self.version += 1;
            self.job = judge::spawn(&b.source, &doc.set, options, ctx);
        }
        self.poll(ctx);
        self.judge_edits(doc, b, options);
        self.rebuild_rows(doc, b);
    }

    /// Takes the verdicts that arrived; the judging ends when its worker
    /// has returned and every chunk it sent was taken.
    fn poll(&mut self, ctx: &egui::Context) {
        let Some(job) = &mut self.job else { return };
        let mut got = false;
        for (start, verdicts) in job.drain() {
            for (i, j) in verdicts.into_iter().enumerate() {
                if let Some(slot) = self.judged.get_mut(start + i) {
                    *slot = Some(j);
                }
            }
            got = true;
        }
        if got {
            self.version += 1;
        }
        if job.ended() {
            self.cancelled = self.judged.iter().any(Option::is_none);
            self.job = None;
        } else {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }

    /// Edited and added deals are judged here, on the UI thread: one deal
    /// takes microseconds, and only deals the user touched are judged.
    fn judge_edits(&mut self, doc: &Doc, b: &DocBatch, options: ChangeOptions) {
        let current = doc.current_deal();
        let mut shapes: Option<Shapes> = None;
        let mut changed = false;
        // Only the deals that can differ from the file: the edited ones, the
        // added ones and the one on screen (not the whole batch every frame).
        let n = b.source.entries.len();
        let mut touched: Vec<usize> = b.edits.keys().copied().chain(n..b.len()).collect();
        touched.push(b.pos);
        let before = self.edited.len();
        self.edited
            .retain(|p, _| touched.contains(p) && b.is_modified(*p, &current));
        changed |= self.edited.len() != before;
        for pos in touched {
            if !b.is_modified(pos, &current) {
                continue;
            }
            let deal = if pos == b.pos {
                &current
            } else {
                b.stored(pos).unwrap_or(&current)
            };
            if self.edited.get(&pos).is_some_and(|(d, _)| d == deal) {
                continue;
            }
            let size = deal.board.size();
            let shapes = match &shapes {
                Some(s) if s.size() == size => s,
                _ => shapes.insert(Shapes::new(&doc.set, size)),
            };
            let j = batch::judge(shapes, &doc.set, deal, options, pos as u64);
            self.edited.insert(pos, (deal.clone(), j));
            changed = true;
        }
        if changed {
            self.version += 1;
        }
    }

    fn rebuild_rows(&mut self, doc: &Doc, b: &DocBatch) {
        let want = (self.version, self.filter, self.sort, self.descending);
        if self.rows_for == Some(want) {
            return;
        }
        let effective: Vec<Option<Judged>> = (0..b.len()).map(|p| self.judged_at(p).cloned()).collect();
        self.counts.clear();
        for j in effective.iter().flatten() {
            *self.counts.entry(j.verdict).or_insert(0) += 1;
        }
        let current = doc.current_deal();
        self.rows = batch::view(
            &effective,
            |p| b.is_modified(p, &current),
            self.filter,
            self.sort,
            self.descending,
        );
        self.rows_for = Some(want);
    }

    /// The verdict the list shows for `pos`: of the edited deal if edited.
    pub fn judged_at(&self, pos: usize) -> Option<&Judged> {
        match self.edited.get(&pos) {
            Some((_, j)) => Some(j),
            None => self.judged.get(pos)?.as_ref(),
        }
    }

    /// The positions shown, in order.
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// The row after (or before) `pos` in the list as filtered and sorted.
    /// When `pos` is not in the list (a fix changed its verdict, say), the
    /// rows that would be around it in the list's order: after deal 22 of
    /// the unsolvable ones comes 72, not the first row again.
    pub fn step(&self, pos: usize, forward: bool) -> Option<usize> {
        let rows = &self.rows;
        let at = match rows.iter().position(|&p| p == pos) {
            Some(i) if forward => i + 1,
            Some(i) => i,
            None => rows.partition_point(|&r| {
                let judged = |i| self.judged_at(i);
                batch::compare(judged, self.sort, self.descending, r, pos).is_lt()
            }),
        };
        if forward {
            rows.get(at).copied()
        } else {
            at.checked_sub(1).map(|i| rows[i])
        }
    }

    /// (deals judged, deals in all, seconds left) while judging.
    pub fn progress(&self) -> Option<(usize, usize, Option<f64>)> {
        let job = self.job.as_ref()?;
        let total = self.judged.len();
        Some((job.done().min(total), total, job.progress().1))
    }

    /// Asks the judging to stop; the verdicts so far stay.
    pub fn cancel(&mut self) {
        if let Some(job) = &self.job {
            job.cancel();
        }
    }

    /// The judging's thread (tests check that it ends).
    pub fn watch(&self) -> Option<Watch> {
        self.job.as_ref().map(Job::watch)
    }

    /// Deals per verdict among those judged (edits included).
    pub fn counts(&self) -> &HashMap<batch::Verdict, usize> {
        &self.counts
    }

    /// True once every deal has a verdict and nothing runs (for tests).
    pub fn settled(&self, len: usize) -> bool {
        self.job.is_none() && (0..len).all(|p| self.judged_at(p).is_some())
    }
}
