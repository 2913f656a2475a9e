//! Playtest logs: a batch of deals where each deal may carry the moves the
//! player made, `moves: [("sq3", 4, 0), ("h2", 0, 9)]` (piece id, column and
//! row of the piece's top-left corner, in the order placed). Reading one
//! checks every move against the deal and refuses, naming the deal and the
//! move's line and column, a move of an unknown piece, of a piece not (or
//! no longer) in the holder, or one that does not fit the board there.

use crate::io::formats::{self, FormatError};
use crate::io::jsonl_log;
use crate::io::logged::check_moves;
use crate::model::board::{Board, BoardSize};
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;

pub use crate::io::logged::Logged;

/// A log read and checked: its board size and its deals.
#[derive(Debug)]
pub struct Log {
    pub size: BoardSize,
    pub deals: Vec<Logged>,
    pub moves: usize,
    /// The game of each deal, numbered from 0 in the log's order: a JSON
    /// Lines log says (player, session, game) and is read in that order; in
    /// a RON log a game ends with the deal whose pieces were not all placed.
    pub games: Vec<usize>,
    /// Each deal: whether it comes after a missing round of its game (the
    /// game is censored at the gap; the deal's moves still count).
    pub after_gap: Vec<bool>,
    /// The generator a JSON Lines log names (the first record that does).
    pub generator: Option<String>,
    /// What reading noticed: records out of order, gaps.
    pub notes: Vec<String>,
}

impl Log {
    /// Each game's length in rounds and whether it was lost (its last deal
    /// not all placed); a game the log cuts short, or that a gap cuts, is
    /// censored at the cut.
    pub fn game_lengths(&self) -> Vec<(u32, bool)> {
        let mut out: Vec<(u32, bool)> = Vec::new();
        for (i, d) in self.deals.iter().enumerate() {
            if i == 0 || self.games[i] != self.games[i - 1] {
                out.push((0, false));
            }
            if self.after_gap[i] {
                continue;
            }
            if let Some(last) = out.last_mut() {
                last.0 += 1;
                last.1 = d.moves.len() < d.holder.len();
            }
        }
        out
    }
}

/// Whether `text` reads as a playtest log: JSON Lines telemetry, or a RON
/// batch whose deals record the moves made.
pub fn is_log(text: &str) -> bool {
    jsonl_log::is_jsonl(text) || (formats::is_batch(text) && text.contains("moves:"))
}

/// Reads a playtest log written in `text` (`file` names it in messages).
pub fn parse(text: &str, file: &str, set: &PieceSet) -> Result<Log, FormatError> {
    if jsonl_log::is_jsonl(text) {
        let mut reader = jsonl_log::Reader::new(set);
        reader.read(text.as_bytes(), file)?;
        if reader.is_empty() {
            // A file of one line cut short (a crash mid-write) holds no deal:
            // say so of this file, not of "the logs".
            return Err(FormatError::new(
                file,
                None,
                "holds no complete deal (a JSON Lines log is a deal a line; a last line cut short is not read)",
            ));
        }
        return from_entries(reader.finish()?, file);
    }
    let raws = formats::parse_deals(text, file)?;
    let size = raws[0].board.size();
    let shapes = Shapes::new(set, size);
    let mut deals = Vec::with_capacity(raws.len());
    for (i, raw) in raws.iter().enumerate() {
        let deal = raw.resolve(set, text, file)?;
        if deal.board.size() != size {
            return Err(FormatError::new(
                file,
                raw.move_at(text, 0),
                format!(
                    "deal {i}: the board is {} but the log's first is {size}; a log is of one board size",
                    deal.board.size()
                ),
            ));
        }
        let moves = check_moves(raw, i, &deal.board, &deal.holder, &shapes, set, text, file)?;
        deals.push(Logged {
            board: deal.board.bits(),
            holder: deal.holder,
            moves,
        });
    }
    // A game ends with the deal whose pieces were not all placed.
    let games = game_numbers(&deals, |a, _| a.moves.len() == a.holder.len());
    finished(
        size,
        deals,
        games,
        vec![false; raws.len()],
        None,
        Vec::new(),
        file,
    )
}

/// A playtest log at `path`: a file (RON or JSON Lines), or a folder of
/// JSON Lines logs (a playtest's or a cohort's: every tester's deals, read
/// as one log).
pub fn read_path(path: &std::path::Path, set: &PieceSet) -> Result<Log, FormatError> {
    let name = path.display().to_string();
    if path.is_dir() {
        let files = jsonl_log::read_logs(&[path.to_owned()])?;
        from_entries(jsonl_log::Reader::read_all(set, &files)?, &name)
    } else {
        parse(&formats::read_text(path)?, &name, set)
    }
}

/// A log of JSON Lines records already read and ordered.
pub fn from_entries(ordered: jsonl_log::Ordered, file: &str) -> Result<Log, FormatError> {
    let generator = ordered.entries.iter().find_map(|e| e.generator.clone());
    let games = game_numbers(&ordered.entries, |a, b| {
        (&a.key.player, &a.key.session, a.key.game) == (&b.key.player, &b.key.session, b.key.game)
    });
    let (deals, after_gap) = ordered.entries.into_iter().map(|e| (e.deal, e.after_gap)).unzip();
    finished(
        ordered.size,
        deals,
        games,
        after_gap,
        generator,
        ordered.notes,
        file,
    )
}

/// Each item's game, numbered from 0 in order: a new game begins wherever
/// `same(previous, this)` says the two are not of one game.
pub fn game_numbers<T>(items: &[T], same: impl Fn(&T, &T) -> bool) -> Vec<usize> {
    let mut games = Vec::with_capacity(items.len());
    let mut g = 0;
    for (i, item) in items.iter().enumerate() {
        if i > 0 && !same(&items[i - 1], item) {
            g += 1;
        }
        games.push(g);
    }
    games
}

fn finished(
    size: BoardSize,
    deals: Vec<Logged>,
    games: Vec<usize>,
    after_gap: Vec<bool>,
    generator: Option<String>,
    notes: Vec<String>,
    file: &str,
) -> Result<Log, FormatError> {
    let moves = deals.iter().map(|d| d.moves.len()).sum();
    if moves == 0 {
        return Err(FormatError::new(
            file,
            None,
            format!(
                "the log's {} deals hold no moves; a playtest log lists the placements made in each deal, \
                 moves: [(\"sq3\", 4, 0), ...] (tenten deal --log N --player P writes one)",
                deals.len()
            ),
        ));
    }
    Ok(Log {
        size,
        deals,
        moves,
        games,
        after_gap,
        generator,
        notes,
    })
}

/// A log as JSON Lines, each deal a record of `player` in `session`.
pub fn to_jsonl(
    log: &[(Logged, jsonl_log::Place)],
    size: BoardSize,
    set: &PieceSet,
    player: &str,
    session: &str,
    generator: Option<&str>,
) -> String {
    let mut out = String::new();
    for (d, place) in log {
        let r = record(d, place, size, set, player, session, generator);
        out.push_str(&serde_json::to_string(&r).expect("a record is plain data"));
        out.push('\n');
    }
    out
}

/// Deal `d` at `place` as a JSON Lines record: the one writing of a
/// record, for simulated testers and people alike.
pub fn record(
    d: &Logged,
    place: &jsonl_log::Place,
    size: BoardSize,
    set: &PieceSet,
    player: &str,
    session: &str,
    generator: Option<&str>,
) -> jsonl_log::Record {
    let board = crate::model::board::Board::from_bits(size, d.board);
    jsonl_log::Record {
        player: player.to_owned(),
        session: session.to_owned(),
        game: place.game,
        round: place.round,
        board: board.to_rows(),
        holder: d.holder.iter().map(|&p| set.piece(p).id.clone()).collect(),
        moves: d
            .moves
            .iter()
            .map(|&(p, anchor)| {
                let a = anchor as usize;
                (set.piece(p).id.clone(), a % size.w(), a / size.w())
            })
            .collect(),
        ended: place.ended,
        generator: generator.map(str::to_owned),
        timestamp: None,
        times_ms: Vec::new(),
    }
}

/// A log as RON: each deal with its moves, under `comment`.
pub fn to_ron(log: &[Logged], size: BoardSize, set: &PieceSet, comment: &str) -> String {
    let w = size.w() as u32;
    let texts: Vec<String> = log
        .iter()
        .map(|d| {
            let moves: Vec<(PieceIdx, usize, usize)> = d
                .moves
                .iter()
                .map(|&(p, a)| (p, (a % w) as usize, (a / w) as usize))
                .collect();
            formats::deal_with_moves_to_ron(
                &Board::from_bits(size, d.board),
                &d.holder,
                set,
                None,
                None,
                &moves,
            )
        })
        .collect();
    crate::io::batch_file::batch_to_ron(&texts, comment)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;
    use crate::play::coelho::CoelhoWeights;
    use crate::play::player::{Lookahead, Player};

    fn written() -> (PieceSet, String) {
        let (set, shapes) = classic();
        let casual = Player {
            name: "casual".to_owned(),
            choice: crate::play::player::Choice::Rank,
            beta: [0.0; 5],
            evaluation: CoelhoWeights::BEST,
            lookahead: Lookahead::Piece,
            temperature: 0.5,
            slip: 0.02,
        };
        let log = crate::fits::player::record(&shapes, &set, 3, &casual, 1, 6);
        (set.clone(), to_ron(&log, BoardSize::CLASSIC, &set, "six deals"))
    }

    #[test]
    fn a_written_log_reads_back_with_its_moves() {
        let (set, text) = written();
        assert!(text.contains("moves: ["), "{text}");
        let log = parse(&text, "log.ron", &set).unwrap();
        assert_eq!(log.deals.len(), 6);
        assert_eq!(log.moves, 18, "three placements a deal while the game goes on");
    }

    #[test]
    fn bad_moves_are_refused_with_the_deal_and_place() {
        let (set, text) = written();
        // The first move of deal 0, whatever it is, rewritten.
        let start = text.find("moves: [").unwrap() + "moves: [".len();
        let open = start + text[start..].find('(').unwrap();
        let close = open + text[open..].find(')').unwrap();
        let (line, _) = formats::line_col(&text, open);
        let with = |m: &str| format!("{}{m}{}", &text[..open], &text[close + 1..]);
        for (bad, says) in [
            ("(\"oct\", 0, 0)", "unknown piece"),
            ("(\"v5\", 0, 7)", "does not fit"),
            ("(\"dot\", 10, 0)", "does not fit"),
        ] {
            let e = parse(&with(bad), "log.ron", &set)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            // A dot may be in the holder or not; either message names the place.
            assert!(
                e.contains("deal 0, move 0") && (e.contains(says) || e.contains("is not in the holder")),
                "{bad}: {e}"
            );
            assert!(e.starts_with(&format!("log.ron:{line}:")), "{bad}: {e}");
        }
        let bare = text.replace("moves:", "old_moves:");
        assert!(parse(&bare, "log.ron", &set).is_err());
        let none: String = crate::io::batch_file::batch_to_ron(
            &[formats::deal_to_ron(
                &Board::empty(BoardSize::CLASSIC),
                &[0, 1],
                &set,
                None,
                None,
            )],
            "no moves",
        );
        let e = parse(&none, "log.ron", &set).err().unwrap().to_string();
        assert!(e.contains("hold no moves"), "{e}");
    }
}
