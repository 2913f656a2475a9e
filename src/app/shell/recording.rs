//! Games played by hand in the window, kept as a JSON Lines log in the
//! playtest format (one file per window session, in the data folder's
//! `play-logs/`), so a designer who plays can fit themself and compare
//! with the ladder. A deal is written when it closes: every piece placed,
//! the game stuck, or the board or holder edited by hand (the deal closes
//! as it stood, and moves on an edited board are not a game's). Each
//! record names the generator that dealt it (the active generator, or
//! `random` for the palette's draw), so `fit-player --compare` replays
//! its survival check on it. A game's first deal closed with no move (an
//! unplayed deal) is no game and is not written.

use std::path::PathBuf;
use std::time::Instant;

use tenten_engine::io::jsonl_log::Place;
use tenten_engine::io::playtest_log::{self, Logged};
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_playtest::disk::{self, Faults};
use tenten_playtest::ids;

/// The folder of the window's play logs, inside its data folder.
pub const FOLDER: &str = "play-logs";

struct Open {
    round: u64,
    board: Bits,
    holder: Vec<PieceIdx>,
    /// Pieces not yet placed.
    left: Vec<PieceIdx>,
    moves: Vec<(PieceIdx, u32)>,
    times: Vec<u64>,
    /// The generator that dealt it, as the log names it.
    generator: String,
    /// The board after the moves so far.
    now: Bits,
    shown: Instant,
}

#[derive(Default)]
pub struct Recorder {
    /// Where logs go; `None`: not recording.
    pub folder: Option<PathBuf>,
    pub player: String,
    log: Option<PathBuf>,
    session: u32,
    size: Option<BoardSize>,
    game: u64,
    /// Deals written in the current game (a new game starts at round 0).
    round: u64,
    open: Option<Open>,
    /// The board the next deal goes on with the game from.
    expected: Option<Bits>,
    /// Deals written this session.
    pub recorded: u64,
    pub error: Option<String>,
}

impl Recorder {
    /// A recorder for `player` (not recording until it has a folder).
    pub fn new(player: String) -> Self {
        Self {
            player,
            ..Default::default()
        }
    }

    /// The log this session writes (made at its first deal).
    pub fn file(&self) -> Option<PathBuf> {
        self.log.clone()
    }

    /// Stops recording (the open deal is written as it stands).
    pub fn stop(&mut self, set: &PieceSet) {
        self.finish(set);
        self.folder = None;
        self.log = None;
    }

    /// A holder dealt on `board` by `generator` (its name): the game goes
    /// on if the board is where the last deal left it; else a new game
    /// starts.
    pub fn dealt(
        &mut self,
        shapes: &Shapes,
        set: &PieceSet,
        board: Bits,
        holder: Vec<PieceIdx>,
        generator: &str,
    ) {
        if self.folder.is_none() || holder.is_empty() {
            return;
        }
        self.close(set, false);
        let size = shapes.size();
        let same_game = self.expected == Some(board) && self.size == Some(size);
        if !same_game && self.round > 0 {
            self.game += 1;
            self.round = 0;
        }
        self.size = Some(size);
        self.open = Some(Open {
            round: self.round,
            board,
            left: holder.clone(),
            holder,
            moves: Vec::new(),
            times: Vec::new(),
            generator: generator.to_owned(),
            now: board,
            shown: Instant::now(),
        });
        self.check_stuck(shapes, set);
    }

    /// A piece placed by hand on `before`, leaving `after`.
    pub fn placed(
        &mut self,
        shapes: &Shapes,
        set: &PieceSet,
        before: Bits,
        piece: PieceIdx,
        anchor: u32,
        after: Bits,
    ) {
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let slot = open.left.iter().position(|&p| p == piece);
        match slot {
            Some(i) if open.now == before => {
                open.left.remove(i);
                open.moves.push((piece, anchor));
                open.times.push(open.shown.elapsed().as_millis() as u64);
                open.now = after;
                if open.left.is_empty() {
                    self.expected = Some(after);
                    self.close(set, false);
                } else {
                    self.check_stuck(shapes, set);
                }
            }
            // The board or the holder was edited since the deal: it closes
            // as it stood, and the game with it.
            _ => {
                self.close(set, false);
                self.expected = None;
            }
        }
    }

    /// Writes the open deal as it stands (the window closes).
    pub fn finish(&mut self, set: &PieceSet) {
        self.close(set, false);
    }

    fn check_stuck(&mut self, shapes: &Shapes, set: &PieceSet) {
        let Some(open) = &self.open else { return };
        let stuck = !open.left.iter().any(|&p| shapes.fits_anywhere(open.now, p));
        if stuck {
            self.close(set, true);
            // The game is over: the next deal starts another.
            self.expected = None;
        }
    }

    fn close(&mut self, set: &PieceSet, ended: bool) {
        let (Some(open), Some(size)) = (self.open.take(), self.size) else {
            return;
        };
        // A game's first deal with no move: nothing was played, so no game
        // (nor a game over on a board that was full before it).
        if open.round == 0 && open.moves.is_empty() {
            return;
        }
        let deal = Logged {
            board: open.board,
            holder: open.holder,
            moves: open.moves,
        };
        let place = Place {
            game: self.game,
            round: open.round,
            ended,
        };
        self.round = open.round + 1;
        if ended {
            self.game += 1;
            self.round = 0;
        }
        if let Err(e) = self.ensure_log() {
            self.error = Some(e);
            return;
        }
        let mut record = playtest_log::record(
            &deal,
            &place,
            size,
            set,
            &self.player,
            &format!("s{}", self.session),
            Some(&open.generator),
        );
        record.times_ms = open.times;
        let line = serde_json::to_string(&record).expect("a record is plain data");
        let log = self.log.as_ref().expect("ensured");
        // Appended and synced a line at a time; a failed write is cut back off.
        match disk::append(
            &Faults::default(),
            log,
            format!("{line}\n").as_bytes(),
            true,
            false,
        ) {
            Ok(()) => self.recorded += 1,
            Err(e) => self.error = Some(format!("{}: {e}", log.display())),
        }
    }

    /// Makes this session's log, numbered after the player's others in the
    /// folder, at the first deal written.
    fn ensure_log(&mut self) -> Result<(), String> {
        if self.log.is_some() {
            return Ok(());
        }
        let folder = self.folder.clone().ok_or("not recording")?;
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let mine = format!("{}-s", self.player);
        self.session = std::fs::read_dir(&folder)
            .map_err(|e| format!("{}: {e}", folder.display()))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(&mine))
            .count() as u32;
        let path = folder.join(ids::log_name(&self.player, self.session));
        disk::create(&Faults::default(), &path, b"", false)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        self.log = Some(path);
        Ok(())
    }
}
