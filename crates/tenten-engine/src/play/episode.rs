//! A game played one placement at a time by someone outside the engine (a
//! Python agent, a Gymnasium environment): the same deals as `play_game`
//! on the same seed, the same judgement of a lost game's end.
//!
//! An action is `slot * cells + y * width + x`: the holder slot to place
//! and the cell of its box's top-left corner.

use crate::model::board::{Bits, BoardSize};
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::{Shapes, score};
use crate::play::adaptive::History;
use crate::play::dealers::{Dealer, Dealt, Table};
use crate::play::dealing::Dealing;
use crate::play::game::{End, lost_to};
use crate::search::changer::ChangeOptions;

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Step {
    /// The action was legal and the piece placed (else nothing changed).
    pub placed: bool,
    /// Points the placement scored (cells, and lines as the analysis counts).
    pub points: u64,
    /// Rows and columns it cleared.
    pub lines: u32,
    /// The holder is placed: the round is over (and the next dealt, unless
    /// the cap ends the game).
    pub round_over: bool,
    /// How the game ended, if it did on this step (`Censored`: the cap).
    pub end: Option<End>,
}

pub struct Episode {
    pub shapes: Shapes,
    pub set: PieceSet,
    pub k: usize,
    pub max_rounds: u32,
    dealing: Dealing,
    options: ChangeOptions,
    dealer: Box<dyn Dealer>,
    deal_rng: Generator,
    /// The board now, and at the start of the round (a lost round is
    /// judged from there, as `play_game` judges it).
    pub board: Bits,
    round_start: Bits,
    /// The round's holder by slot: `None` once placed.
    pub holder: Vec<Option<PieceIdx>>,
    /// The deal of this round as the dealer made it. The dealer does not
    /// record whether a holder it does not check was fair (`unrecorded_dealer`):
    /// a lost game is judged by `lost_to`, and whoever reports a deal's
    /// verdict validates it once, not twice.
    pub dealt: Dealt,
    pub rounds: u32,
    pub score: u64,
    pub end: Option<End>,
    /// The player's games before this one, which a generator file's
    /// adaptive rules read: each game that ends is added to it, and one
    /// the player leaves part way when they do (`leave`); `new_session`
    /// marks a session's start.
    pub history: History,
}

impl Episode {
    /// A game of `set` on a board of `size` with holders of `k`, dealt by
    /// `dealing`; `reset` starts it.
    pub fn new(dealing: Dealing, set: PieceSet, size: BoardSize, k: usize, max_rounds: u32) -> Self {
        let options = ChangeOptions::default();
        let dealer = dealing.unrecorded_dealer(&set, options, &History::default());
        let mut e = Self {
            shapes: Shapes::new(&set, size),
            set,
            k,
            max_rounds,
            dealing,
            options,
            dealer,
            deal_rng: Generator::new(0),
            board: 0,
            round_start: 0,
            holder: Vec::new(),
            dealt: Dealt::default(),
            rounds: 0,
            score: 0,
            end: None,
            history: History::default(),
        };
        e.reset(0);
        // The game dealt to start with is nobody's: a first holder that
        // fits nowhere ended it at once.
        e.history = History::default();
        e
    }

    /// A new game on `seed`: deal i draws from the same stream as game
    /// `seed` of `play_game` (`tenten simulate`'s game seeds, `tenten deal
    /// --seed` for the first holder).
    pub fn reset(&mut self, seed: u64) {
        self.dealer = self
            .dealing
            .unrecorded_dealer(&self.set, self.options, &self.history);
        self.deal_rng = Generator::new(seed);
        self.board = 0;
        self.rounds = 0;
        self.score = 0;
        self.end = None;
        self.deal();
    }

    pub fn size(&self) -> BoardSize {
        self.shapes.size()
    }

    /// How many actions there are: slots times cells.
    pub fn actions(&self) -> usize {
        self.k * self.size().cells()
    }

    fn deal(&mut self) {
        if self.rounds >= self.max_rounds {
            // The cap, as `play_game` stops: no deal past it.
            self.holder.clear();
            self.finish(End::Censored);
            return;
        }
        let table = Table {
            shapes: &self.shapes,
            set: &self.set,
            board: self.board,
            k: self.k,
        };
        self.dealt = self.dealer.deal(&table, &mut self.deal_rng);
        self.holder = self.dealt.holder.iter().map(|&p| Some(p)).collect();
        self.round_start = self.board;
        self.check_stuck();
    }

    /// The piece in `slot` and whether it fits at `anchor` (a cell).
    fn legal(&self, slot: usize, anchor: u32) -> Option<PieceIdx> {
        let piece = (*self.holder.get(slot)?)?;
        let fits = self
            .shapes
            .shape(piece)
            .fits(self.board, self.shapes.geometry.full);
        (anchor < 128 && fits >> anchor & 1 == 1).then_some(piece)
    }

    /// 1 for every legal action, 0 else, into `mask` (`actions()` long).
    pub fn mask_into(&self, mask: &mut [u8]) {
        mask.fill(0);
        if self.end.is_some() {
            return;
        }
        let cells = self.size().cells();
        for (slot, p) in self.holder.iter().enumerate() {
            let Some(p) = *p else { continue };
            let mut fits = self.shapes.shape(p).fits(self.board, self.shapes.geometry.full);
            while fits != 0 {
                let anchor = fits.trailing_zeros() as usize;
                fits &= fits - 1;
                mask[slot * cells + anchor] = 1;
            }
        }
    }

    /// Places the piece `action` names, if it is legal; ends the round when
    /// the holder is placed (dealing the next), and the game when a piece
    /// left fits nowhere or the round cap is reached.
    pub fn step(&mut self, action: usize) -> Step {
        let mut step = Step::default();
        if self.end.is_some() {
            return step;
        }
        let cells = self.size().cells();
        let (slot, anchor) = (action / cells, (action % cells) as u32);
        let Some(piece) = self.legal(slot, anchor) else {
            return step;
        };
        let (next, lines) = self.shapes.place(self.board, piece, anchor);
        self.board = next;
        self.holder[slot] = None;
        step.placed = true;
        step.points = score(self.shapes.shape(piece).cells(), lines);
        step.lines = lines.count();
        self.score += step.points;
        if self.holder.iter().all(Option::is_none) {
            self.rounds += 1;
            step.round_over = true;
            self.deal();
        } else {
            self.check_stuck();
        }
        step.end = self.end;
        step
    }

    /// Ends the game when no piece left fits anywhere, judged as a game
    /// played by `play_game` is: from the round's starting board.
    fn check_stuck(&mut self) {
        let full = self.shapes.geometry.full;
        let any = self
            .holder
            .iter()
            .flatten()
            .any(|&p| self.shapes.shape(p).fits(self.board, full) != 0);
        if !any {
            self.finish(self.judged());
        }
    }

    /// How the round's deal ends the game, judged from the round's start.
    fn judged(&self) -> End {
        lost_to(
            &self.shapes,
            &self.set,
            self.round_start,
            &self.dealt.holder,
            self.dealt.dead,
        )
    }

    /// The game ends: the player's history has it, as a session's games
    /// do (`fits::population::session`).
    fn finish(&mut self, end: End) {
        self.end = Some(end);
        self.history.ended(self.rounds, end == End::Unfair);
    }

    /// The player left the game before it ended (a new game asked for, or
    /// the session closed): the history has it as a log reads the
    /// unfinished deal (`fits::population::fit`), its full rounds and its
    /// end judged from the round's start board. A server that skipped it
    /// dealt the next game to a player who had not lost the last one: a
    /// person, or a scripted tester, who leaves a holder that cannot all be
    /// placed never reaches "no piece fits", and the rules read for "after
    /// an unfair loss" never heard of it. The game itself stays open (its
    /// `end` is what was played); the caller leaves a game once. How the
    /// game was judged, if it had not ended.
    pub fn leave(&mut self) -> Option<End> {
        let (history, end) = self.history_if_left();
        self.history = history;
        end
    }

    /// The history `leave` would leave, and how it would judge the game: a
    /// game that ended is in the history already.
    pub fn history_if_left(&self) -> (History, Option<End>) {
        let mut h = self.history.clone();
        if self.end.is_some() {
            return (h, None);
        }
        let end = self.judged();
        h.ended(self.rounds, end == End::Unfair);
        (h, Some(end))
    }

    /// The player's next game starts a new session (the next `reset` deals
    /// it as a session's first game).
    pub fn new_session(&mut self) {
        self.history.new_session();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::BoardSize;

    fn episode(max_rounds: u32) -> Episode {
        let set = PieceSet::classic();
        let dealing = Dealing::by_name("random", &set).unwrap();
        Episode::new(dealing, set, BoardSize::CLASSIC, 3, max_rounds)
    }

    /// Plays the first legal action until the end; the rounds counted.
    fn play_first(e: &mut Episode) -> u32 {
        let mut mask = vec![0; e.actions()];
        while e.end.is_none() {
            e.mask_into(&mut mask);
            let a = mask
                .iter()
                .position(|&m| m == 1)
                .expect("a game not over has a legal action");
            assert!(e.step(a).placed);
        }
        e.rounds
    }

    #[test]
    fn the_first_holder_is_the_deal_commands_and_games_are_seeded() {
        let mut e = episode(1000);
        for seed in [0, 1, 7] {
            e.reset(seed);
            let mut g = Generator::new(seed);
            let set = PieceSet::classic();
            assert_eq!(e.dealt.holder, g.deal(&set, 3), "seed {seed}");
        }
        e.reset(5);
        let a = play_first(&mut e);
        e.reset(5);
        assert_eq!(play_first(&mut e), a);
        assert!(matches!(e.end, Some(End::Stuck | End::Unfair | End::Dead)));
    }

    #[test]
    fn an_illegal_action_changes_nothing_and_the_cap_ends_a_game() {
        let mut e = episode(2);
        e.reset(3);
        let before = (e.board, e.holder.clone(), e.score);
        assert_eq!(e.step(e.actions() + 5), Step::default());
        // Slot 0 at the bottom-right corner fits only a monomino.
        let s = e.step(e.size().cells() - 1);
        if !s.placed {
            assert_eq!((e.board, e.holder.clone(), e.score), before);
        }
        e.reset(3);
        assert_eq!(play_first(&mut e).min(2), e.rounds);
        if e.rounds == 2 {
            assert_eq!(e.end, Some(End::Censored));
        }
    }

    #[test]
    fn a_game_left_joins_the_history_as_a_log_reads_it_and_only_once() {
        use crate::play::adaptive::Ended;
        use crate::search::validator::validate;
        // First-fit play over many games, each left at the first round that
        // starts on a holder that cannot all be placed while a piece still
        // fits (the game not over): a person, or a scripted tester, can
        // leave there, and the log reads the deal as the game's end.
        let mut e = episode(1000);
        let (mut unfair, mut mask) = (0, vec![0; e.actions()]);
        for seed in 0..300 {
            e.history = History::default();
            e.reset(seed);
            while e.end.is_none() && validate(&e.shapes, e.board, &e.dealt.holder).solvable {
                // Through the round: every piece, first fit.
                let rounds = e.rounds;
                while e.end.is_none() && e.rounds == rounds {
                    e.mask_into(&mut mask);
                    let a = mask.iter().position(|&m| m == 1).expect("a legal action");
                    e.step(a);
                }
            }
            let before = e.history.clone();
            let judged = e.leave();
            if e.end.is_some() {
                assert_eq!(judged, None);
                assert_eq!(e.history, before, "a game that ended is in the history already");
                continue;
            }
            // A holder that cannot all be placed on a board some holder
            // fits is the generator's fault; on one no holder fits, nobody's
            // (the exact count of the board's killer holders decides).
            let d = crate::danger::danger(&e.shapes, &e.set, e.board, e.k).unwrap();
            let end = if (d.killers.len() as u64) < d.multisets {
                End::Unfair
            } else {
                End::Dead
            };
            assert_eq!(judged, Some(end), "seed {seed}");
            unfair += usize::from(end == End::Unfair);
            assert_eq!(
                e.history.last,
                Some(Ended {
                    rounds: e.rounds.max(1),
                    unfair: end == End::Unfair,
                }),
                "seed {seed}"
            );
            assert_eq!(e.history.session_games, 1);
        }
        assert!(unfair > 0, "some game was left on an unfair deal");
    }
}
