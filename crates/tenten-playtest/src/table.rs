//! One tester's game as the server plays it: the engine's episode (the
//! same deals as simulation on the same seed, the same judgement of a lost
//! game), every move checked with a reason for a refusal, and each deal
//! written as a log record once it is closed.

use tenten_engine::io::jsonl_log::{Place, Record};
use tenten_engine::io::playtest_log::{self, Logged};
use tenten_engine::model::board::{Bits, Board, BoardSize};
use tenten_engine::model::pieces::PieceIdx;
use tenten_engine::play::adaptive::History;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::play::episode::Episode;
use tenten_engine::play::game::End;

use crate::config::Config;

/// Rounds a person's game may last: never reached, but the episode wants one.
pub(crate) const MAX_ROUNDS: u32 = 1_000_000;

/// Why a move was refused (nothing changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The page's game or move count is not the server's: a replayed or
    /// stale move (or one sent from another tab).
    Stale(String),
    GameOver,
    NoSlot(usize),
    Placed(usize),
    OutOfBounds(String),
    Filled(String),
}

impl Refusal {
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Stale(_) => "stale",
            Refusal::GameOver => "game_over",
            Refusal::NoSlot(_) => "no_slot",
            Refusal::Placed(_) => "placed_already",
            Refusal::OutOfBounds(_) => "out_of_bounds",
            Refusal::Filled(_) => "filled",
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Stale(why) => write!(f, "a stale or replayed move: {why}; reload the page"),
            Refusal::GameOver => f.write_str("the game is over; start a new one"),
            Refusal::NoSlot(s) => write!(f, "the holder has no slot {s}"),
            Refusal::Placed(s) => write!(f, "the piece in slot {s} was placed already"),
            Refusal::OutOfBounds(why) | Refusal::Filled(why) => f.write_str(why),
        }
    }
}

/// A placement made: its points and the cells its lines cleared.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub points: u64,
    pub cleared: Bits,
}

/// The deal being played: what it was, and the moves made in it so far.
#[derive(Clone, Debug, PartialEq)]
struct OpenDeal {
    round: u64,
    board: Bits,
    holder: Vec<PieceIdx>,
    moves: Vec<(PieceIdx, u32)>,
    times: Vec<u64>,
}

/// One game of a session, and the records of the deals it closed.
pub struct Table {
    pub episode: Episode,
    pub game: u64,
    pub seed: u64,
    /// Moves made in this game (the page sends the count it saw, so a
    /// replayed or stale move is told from a new one).
    pub moves: u64,
    deal: OpenDeal,
    /// The deal is in the log already (the game ended in it).
    logged: bool,
    /// A game left part way joins the player's history (behaviour 2 on).
    left_joins: bool,
    /// How the game was judged when it was left part way (`leave`).
    left: Option<End>,
}

impl Table {
    /// Game `game` of a session, dealt by `dealing` from `seed` to a tester
    /// whose games so far are `history` (a generator's adaptive rules read
    /// it; the game joins it when it ends).
    pub fn new(config: &Config, dealing: &Dealing, game: u64, seed: u64, history: History) -> Self {
        let mut episode = Episode::new(
            dealing.clone(),
            config.set.clone(),
            config.size,
            config.k,
            MAX_ROUNDS,
        );
        episode.history = history;
        episode.reset(seed);
        let deal = open_deal(&episode);
        Self {
            episode,
            game,
            seed,
            moves: 0,
            deal,
            logged: false,
            left_joins: config.behaviour >= 2,
            left: None,
        }
    }

    pub fn size(&self) -> BoardSize {
        self.episode.size()
    }

    pub fn over(&self) -> Option<End> {
        self.episode.end
    }

    /// Checks the move the page sent: its game and count, then the slot,
    /// the bounds, and the cells.
    pub fn check(&self, game: u64, seen: u64, slot: usize, x: usize, y: usize) -> Result<u32, Refusal> {
        if game != self.game || seen != self.moves {
            return Err(Refusal::Stale(format!(
                "the page sent move {seen} of game {game}, and this session is at move {} of game {}",
                self.moves, self.game
            )));
        }
        if self.episode.end.is_some() {
            return Err(Refusal::GameOver);
        }
        let piece = match self.episode.holder.get(slot) {
            None => return Err(Refusal::NoSlot(slot)),
            Some(None) => return Err(Refusal::Placed(slot)),
            Some(Some(p)) => *p,
        };
        let size = self.size();
        let shape = self.episode.shapes.shape(piece);
        let (w, h) = (usize::from(shape.width), usize::from(shape.height));
        if x >= size.w() || y >= size.h() || x + w > size.w() || y + h > size.h() {
            return Err(Refusal::OutOfBounds(format!(
                "out of bounds: a {w}x{h} piece with its top-left at column {x}, row {y} leaves the {size} board"
            )));
        }
        let anchor = (y * size.w() + x) as u32;
        let fits = shape.fits(self.episode.board, self.episode.shapes.geometry.full) >> anchor & 1 == 1;
        if !fits {
            return Err(Refusal::Filled(format!(
                "the piece would cover filled cells with its top-left at column {x}, row {y}"
            )));
        }
        Ok(anchor)
    }

    /// Places the piece of `slot` at `anchor` (checked), `ms` after its
    /// deal was shown; the records of the deals this closed are pushed to
    /// `closed`.
    pub fn play(
        &mut self,
        slot: usize,
        anchor: u32,
        ms: u64,
        closed: &mut Vec<(Logged, Place, Vec<u64>)>,
    ) -> Placed {
        let piece = self.episode.holder[slot].expect("a checked move's slot holds a piece");
        let (_, lines) = self.episode.shapes.place(self.episode.board, piece, anchor);
        let cleared = self.episode.shapes.geometry.mask_of(lines);
        let cells = self.episode.size().cells();
        let step = self.episode.step(slot * cells + anchor as usize);
        debug_assert!(step.placed);
        self.moves += 1;
        self.deal.moves.push((piece, anchor));
        self.deal.times.push(ms);
        if step.round_over {
            // Every piece placed: the deal closes, and the next may end the
            // game where it is dealt.
            closed.push(self.close(false));
            self.deal = open_deal(&self.episode);
            if self.episode.end.is_some_and(|e| e != End::Censored) {
                closed.push(self.close(true));
                self.logged = true;
            }
        } else if self.episode.end.is_some() {
            closed.push(self.close(true));
            self.logged = true;
        }
        Placed {
            points: step.points,
            cleared,
        }
    }

    /// The game's first deal may end it (no piece fits an empty board:
    /// never on the sizes the workbench plays, but it is judged the same).
    pub fn first(&mut self, closed: &mut Vec<(Logged, Place, Vec<u64>)>) {
        if self.episode.end.is_some() && !self.logged {
            closed.push(self.close(true));
            self.logged = true;
        }
    }

    /// The open deal, left as it stands (the tester left the game or the
    /// session): nothing if the game ended and was logged. The player's
    /// history has the game as the log reads it (`Episode::leave`), so the
    /// next game is dealt to the player the logs describe; a game left
    /// before any move was not played, and is in neither.
    pub fn leave(&mut self) -> Option<(Logged, Place, Vec<u64>)> {
        (!self.logged).then(|| {
            self.logged = true;
            if self.left_part_way() {
                self.left = self.episode.leave();
            }
            self.close(false)
        })
    }

    /// How the game was judged when it was left part way (`Unfair` on a
    /// holder that could not all be placed): `None` if it was not.
    pub fn left(&self) -> Option<End> {
        self.left
    }

    fn left_part_way(&self) -> bool {
        self.left_joins && self.moves > 0 && self.episode.end.is_none()
    }

    /// The player's games as they would stand if the tester left now (a
    /// new session begun while this one is open is dealt from them).
    pub fn games_if_left(&self) -> History {
        if !self.logged && self.left_part_way() {
            self.episode.history_if_left().0
        } else {
            self.episode.history.clone()
        }
    }

    fn close(&self, ended: bool) -> (Logged, Place, Vec<u64>) {
        let d = &self.deal;
        (
            Logged {
                board: d.board,
                holder: d.holder.clone(),
                moves: d.moves.clone(),
            },
            Place {
                game: self.game,
                round: d.round,
                ended,
            },
            d.times.clone(),
        )
    }

    /// The board's rows ('.' empty, '#' filled).
    pub fn rows(&self) -> Vec<String> {
        Board::from_bits(self.size(), self.episode.board).to_rows()
    }
}

fn open_deal(e: &Episode) -> OpenDeal {
    OpenDeal {
        round: u64::from(e.rounds),
        board: e.board,
        holder: e.dealt.holder.clone(),
        moves: Vec::new(),
        times: Vec::new(),
    }
}

/// A closed deal as its log line.
pub fn record(
    config: &Config,
    tester: &str,
    session: u32,
    generator: &str,
    (deal, place, times): &(Logged, Place, Vec<u64>),
) -> Record {
    let mut r = playtest_log::record(
        deal,
        place,
        config.size,
        &config.set,
        tester,
        &format!("s{session}"),
        Some(generator),
    );
    r.times_ms = times.clone();
    r
}

/// A record as its log's line, newline included.
pub fn log_line(r: &Record) -> String {
    let mut line = serde_json::to_string(r).expect("a record is plain data");
    line.push('\n');
    line
}
