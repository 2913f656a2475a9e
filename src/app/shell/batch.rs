//! The open batch. Its deals as read are shared and never change; the deal
//! on screen, the user's edits to other deals and the deals added with
//! Ctrl+B live in the document, so undo covers them like any edit. Its
//! list and verdicts are `deals_view`'s.

use std::collections::BTreeMap;
use std::sync::Arc;

use tenten_engine::io::formats::Deal;

use crate::app::shell::batch_source::Source;

/// The batch in the document.
#[derive(Clone, Debug)]
pub struct DocBatch {
    pub source: Arc<Source>,
    /// The position (in the list, 0-based) of the deal on screen.
    pub pos: usize,
    /// Edited deals other than the one on screen, by position.
    pub edits: BTreeMap<usize, Deal>,
    /// Deals added with "Add to batch", after the file's.
    pub added: Vec<Deal>,
}

/// Two batches are the same when they are the same opening (not a deep
/// comparison of thousands of deals) with the same edits.
impl PartialEq for DocBatch {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.source, &other.source)
            && self.pos == other.pos
            && self.edits == other.edits
            && self.added == other.added
    }
}

impl DocBatch {
    pub fn new(source: Source) -> Self {
        Self {
            source: Arc::new(source),
            pos: 0,
            edits: BTreeMap::new(),
            added: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.source.entries.len() + self.added.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The deal at `pos` as read (an added deal is its own original).
    pub fn original(&self, pos: usize) -> Option<&Deal> {
        let n = self.source.entries.len();
        if pos < n {
            Some(&self.source.entries[pos].deal)
        } else {
            self.added.get(pos - n)
        }
    }

    /// The deal at `pos` with the user's edits, except the one on screen,
    /// which the caller has (`Doc::current_deal`).
    pub fn stored(&self, pos: usize) -> Option<&Deal> {
        self.edits.get(&pos).or_else(|| self.original(pos))
    }

    /// Keeps `current` (the deal on screen) as the deal at `pos`.
    pub fn commit(&mut self, current: Deal) {
        let n = self.source.entries.len();
        if self.pos >= n {
            if let Some(slot) = self.added.get_mut(self.pos - n) {
                *slot = current;
            }
        } else if self.original(self.pos) == Some(&current) {
            self.edits.remove(&self.pos);
        } else {
            self.edits.insert(self.pos, current);
        }
    }

    /// Whether the deal at `pos` differs from the file (added deals do).
    pub fn is_modified(&self, pos: usize, current: &Deal) -> bool {
        if pos >= self.source.entries.len() {
            return true;
        }
        if pos == self.pos {
            return self.original(pos) != Some(current);
        }
        self.edits.contains_key(&pos)
    }

    /// The deal's number in the file (added deals follow the file's).
    pub fn file_index(&self, pos: usize) -> usize {
        match self.source.entries.get(pos) {
            Some(e) => e.index,
            // After every deal of the file, the unreadable ones included.
            None => pos + self.source.bad.len(),
        }
    }

    /// How many deals are edited or new (without walking the batch).
    pub fn modified_count(&self, current: &Deal) -> usize {
        let n = self.source.entries.len();
        let on_screen =
            self.pos < n && !self.edits.contains_key(&self.pos) && self.original(self.pos) != Some(current);
        // An edit kept for the deal on screen may have been undone by hand.
        let kept_but_undone =
            self.pos < n && self.edits.contains_key(&self.pos) && self.original(self.pos) == Some(current);
        self.edits.len() + self.added.len() + usize::from(on_screen) - usize::from(kept_but_undone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use tenten_engine::io::batch::Entry;
    use tenten_engine::model::board::{Board, BoardSize};

    fn deal(cells: usize) -> Deal {
        let mut board = Board::empty(BoardSize::new(4, 4).unwrap());
        for i in 0..cells {
            board.set(i % 4, i / 4, tenten_engine::model::board::Cell::Painted);
        }
        Deal {
            board,
            holder: vec![0],
            seed: None,
        }
    }

    fn batch_of(n: usize) -> DocBatch {
        DocBatch::new(Source {
            id: 1,
            path: PathBuf::from("b.ron"),
            text: String::new(),
            entries: (0..n)
                .map(|i| Entry {
                    index: i,
                    deal: deal(i),
                })
                .collect(),
            bad: Vec::new(),
        })
    }

    #[test]
    fn edits_are_kept_per_deal_and_undone_by_putting_the_deal_back() {
        let mut b = batch_of(3);
        // Deal 0 on screen, edited, then deal 1 selected.
        b.commit(deal(9));
        assert!(b.is_modified(0, &deal(9)) && b.edits.contains_key(&0));
        b.pos = 1;
        assert!(!b.is_modified(1, &deal(1)));
        assert!(b.is_modified(0, &deal(1)));
        // Putting the original back removes the edit.
        b.pos = 0;
        b.commit(deal(0));
        assert!(b.edits.is_empty());
        b.added.push(deal(5));
        assert_eq!(b.len(), 4);
        assert!(b.is_modified(3, &deal(0)), "an added deal is new");
        assert_eq!(b.file_index(1), 1);
        assert_eq!(b.file_index(3), 3);
        assert_eq!(b.modified_count(&deal(0)), 1);
    }
}
