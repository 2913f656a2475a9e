//! What the window remembers: the document (everything undo covers) and the
//! settings, both persisted across restarts through eframe's storage.

use serde::{Deserialize, Serialize};

use tenten_engine::model::board::{Board, BoardSize};
use tenten_engine::model::pieces::MAX_HOLDER;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};

/// One holder slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    pub piece: Option<PieceIdx>,
    /// A locked slot keeps its piece when dealing.
    pub locked: bool,
}

impl Slot {
    /// Unlocked slots holding `holder`, one piece each.
    pub fn holding(holder: &[PieceIdx]) -> Vec<Slot> {
        holder
            .iter()
            .map(|&p| Slot {
                piece: Some(p),
                locked: false,
            })
            .collect()
    }
}

/// The document: board, holder, piece set, seed and score. Undo snapshots it whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Doc {
    pub board: Board,
    /// 1 to 4 slots.
    pub slots: Vec<Slot>,
    pub set: PieceSet,
    /// Score of manual play on this board.
    pub score: u64,
    /// The set as it came from its file (or the built-in classic set): the
    /// palette marks `set` as modified when it differs, and can reset to it.
    pub set_origin: PieceSet,
    /// The open batch (its deals shared, the edits here so undo covers
    /// them); not persisted: a restart starts without it.
    #[serde(skip)]
    pub batch: Option<crate::app::shell::batch::DocBatch>,
    /// Deals made with the seed: the next deal is the (deals + 1)-th. Part of
    /// the document so that undoing a deal makes the next one the same again.
    pub deals: u64,
    /// The active generator's rules (bands, repeat, mercy, check), dealing
    /// from `set`'s weights; none: plain weighted draws. With the file it
    /// came from and the rules as opened or saved ("modified" when they
    /// differ), all in the document so undo covers them.
    pub generator: Option<tenten_engine::play::generator_file::GeneratorFile>,
    /// The rules as opened or saved, with the weights they had then (every
    /// piece's): the generator is modified when its rules or the palette's
    /// weights differ from these, so the generator on screen and the
    /// weights in force are one thing.
    pub generator_origin: Option<tenten_engine::play::generator_file::GeneratorFile>,
    pub generator_path: Option<std::path::PathBuf>,
    /// The hash of the generator file's text as opened or saved here, to
    /// tell at the next Save whether another program changed it.
    pub generator_hash: Option<u64>,
    /// The palette's weights when the generator got its name (opened,
    /// saved, new, or tuned and applied): a name follows its weights, so
    /// once they change the name says so (`generator_title`).
    #[serde(default)]
    pub generator_named_for: Option<std::collections::BTreeMap<String, u32>>,
}

impl Default for Doc {
    fn default() -> Self {
        let set = PieceSet::classic();
        let ids = ["sq3", "h5", "l3_tl"];
        let slots = ids
            .iter()
            .map(|id| Slot {
                piece: set.index_of(id),
                locked: false,
            })
            .collect();
        Self {
            board: Board::empty(BoardSize::CLASSIC),
            slots,
            set_origin: set.clone(),
            set,
            score: 0,
            batch: None,
            deals: 0,
            generator: None,
            generator_origin: None,
            generator_named_for: None,
            generator_path: None,
            generator_hash: None,
        }
    }
}

impl Doc {
    /// The deal on screen, as a batch stores it.
    pub fn current_deal(&self) -> tenten_engine::io::formats::Deal {
        let seed = self
            .batch
            .as_ref()
            .and_then(|b| b.original(b.pos))
            .and_then(|d| d.seed);
        tenten_engine::io::formats::Deal {
            board: self.board.clone(),
            holder: self.holder(),
            seed,
        }
    }

    /// The palette's weights, by piece id, as a generator file writes them.
    pub fn weights_map(&self) -> std::collections::BTreeMap<String, u32> {
        self.set.pieces.iter().map(|p| (p.id.clone(), p.weight)).collect()
    }

    /// The active generator, with the palette's weights, as it would be
    /// saved (what `generator_origin` holds for the file as opened).
    pub fn generator_as_saved(&self) -> Option<tenten_engine::play::generator_file::GeneratorFile> {
        let mut g = self.generator.clone()?;
        g.weights = self.weights_map();
        Some(g)
    }

    /// The active generator's name as the Lab shows it: marked once the
    /// palette's weights are no longer those it was named for ("random
    /// tuned" on classic weights would claim a tune that is not in force).
    pub fn generator_title(&self) -> Option<String> {
        let rules = self.generator.as_ref()?;
        let changed = self
            .generator_named_for
            .as_ref()
            .is_some_and(|w| *w != self.weights_map());
        Some(if changed {
            format!("{} (weights changed since)", rules.name)
        } else {
            rules.name.clone()
        })
    }

    /// The generator's rules or the weights in force differ from the file
    /// as opened or saved.
    pub fn generator_modified(&self) -> bool {
        self.generator.is_some() && self.generator_as_saved() != self.generator_origin
    }

    /// The active generator on the document's set. Its rules were checked
    /// when they were opened or edited (`set_generator` refuses what would
    /// not read) and carry no weights of their own (the palette's are used),
    /// so no reading again: this is asked every frame the Generator tab shows.
    pub fn generator_spec(&self) -> Option<tenten_engine::play::generator_file::GeneratorSpec> {
        Some(tenten_engine::play::generator_file::GeneratorSpec {
            file: self.generator.clone()?,
            set: self.set.clone(),
        })
    }

    /// The set with the weights in force on this board: the active
    /// generator's band for the board's fill (mercy aside: it needs a game's
    /// history), or the palette's.
    pub fn set_in_force(&self) -> std::borrow::Cow<'_, PieceSet> {
        use tenten_engine::play::generator_file::effective;
        let Some(rules) = &self.generator else {
            return std::borrow::Cow::Borrowed(&self.set);
        };
        let fill = self.board.filled() as f64 / self.board.size().cells().max(1) as f64;
        let band = rules
            .by_fill
            .iter()
            .find(|b| fill <= b.up_to + 1e-12)
            .map(|b| &b.scale);
        if band.is_none_or(|b| b.is_empty()) {
            return std::borrow::Cow::Borrowed(&self.set);
        }
        let weights = effective(&self.set, band, None);
        std::borrow::Cow::Owned(tenten_engine::play::file_dealer::weighted(&self.set, &weights))
    }

    /// The pieces in the filled slots, in slot order.
    pub fn holder(&self) -> Vec<PieceIdx> {
        self.slots.iter().filter_map(|s| s.piece).collect()
    }

    /// Whether the weights or pieces were edited since the set was opened.
    pub fn set_modified(&self) -> bool {
        self.set != self.set_origin
    }

    /// The set's name, marked when it was edited: "classic 1010! (modified)".
    pub fn set_title(&self) -> String {
        if self.set_modified() {
            format!("{} (modified)", self.set.name)
        } else {
            self.set.name.clone()
        }
    }

    /// Keeps the document consistent after loading stored state: 1 to 4
    /// slots, each naming a piece of the set.
    pub fn sanitize(&mut self) {
        self.slots.truncate(MAX_HOLDER);
        if self.slots.is_empty() {
            self.slots.push(Slot::default());
        }
        let n = self.set.pieces.len();
        for s in &mut self.slots {
            if s.piece.is_some_and(|p| usize::from(p) >= n) {
                s.piece = None;
            }
        }
    }
}

/// Everything persisted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct State {
    pub doc: Doc,
    pub settings: crate::app::shell::settings::Settings,
}
