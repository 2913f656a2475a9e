//! Undo and redo as whole-document snapshots. Edits that belong together (one
//! drag stroke, one slider drag) share a key and become a single step.

/// An undo step: the document and the files it came from, restored together.
#[derive(Clone, PartialEq)]
pub struct Titled {
    pub doc: crate::app::shell::state::Doc,
    pub file: Option<std::path::PathBuf>,
    pub pieces_file: Option<std::path::PathBuf>,
}

/// What an edit belongs to; consecutive edits with the same key coalesce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKey {
    /// Each discrete action is its own step.
    Single,
    /// One drag stroke on the board.
    Stroke(u64),
    /// One drag of a weight slider.
    Weight(u64),
}

pub struct Undo<T> {
    past: Vec<T>,
    future: Vec<T>,
    last_key: Option<EditKey>,
    limit: usize,
}

impl<T: Clone + PartialEq> Default for Undo<T> {
    fn default() -> Self {
        Self::new(200)
    }
}

impl<T: Clone + PartialEq> Undo<T> {
    pub fn new(limit: usize) -> Self {
        Self {
            past: Vec::new(),
            future: Vec::new(),
            last_key: None,
            limit,
        }
    }

    /// Call before changing the document, with its state before the change.
    pub fn record(&mut self, before: &T, key: EditKey) {
        let coalesce = key != EditKey::Single && self.last_key == Some(key);
        self.last_key = Some(key);
        self.future.clear();
        if coalesce || self.past.last() == Some(before) {
            return;
        }
        self.past.push(before.clone());
        if self.past.len() > self.limit {
            self.past.remove(0);
        }
    }

    pub fn can_undo(&self) -> bool {
        !self.past.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.future.is_empty()
    }

    /// The state to go back to, given the current one.
    pub fn undo(&mut self, current: &T) -> Option<T> {
        let prev = self.past.pop()?;
        self.future.push(current.clone());
        self.last_key = None;
        Some(prev)
    }

    pub fn redo(&mut self, current: &T) -> Option<T> {
        let next = self.future.pop()?;
        self.past.push(current.clone());
        self.last_key = None;
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stroke_is_one_step_and_redo_follows_undo() {
        let mut u = Undo::new(10);
        let mut doc = 0;
        for _ in 0..5 {
            u.record(&doc, EditKey::Stroke(1));
            doc += 1;
        }
        u.record(&doc, EditKey::Single);
        doc = 100;
        assert_eq!(u.undo(&doc), Some(5));
        assert_eq!(u.undo(&5), Some(0));
        assert_eq!(u.undo(&0), None);
        assert_eq!(u.redo(&0), Some(5));
        assert_eq!(u.redo(&5), Some(100));
        assert!(!u.can_redo());
    }

    #[test]
    fn a_new_edit_drops_the_redo_branch_and_old_steps_fall_off() {
        let mut u = Undo::new(3);
        for i in 0..5 {
            u.record(&i, EditKey::Single);
        }
        assert_eq!(u.undo(&5), Some(4));
        u.record(&4, EditKey::Single);
        assert!(!u.can_redo());
        assert_eq!(u.undo(&9), Some(4));
        assert_eq!(u.undo(&4), Some(3));
        assert_eq!(u.undo(&3), Some(2));
        assert_eq!(u.undo(&2), None);
    }
}
