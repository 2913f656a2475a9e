//! The deals a generator fit reads: each deal's board before and the
//! holder dealt, in the order dealt, from JSON Lines logs (a playtest's, a
//! cohort's, or a recording of another game with only `board` and
//! `holder`), RON batches and logs, or folders of them. Moves are optional:
//! where a deal logs all its placements and the next deal is its game's
//! next round, the next board must follow from them, or the log is refused
//! at that deal's line. Pieces outside the set and mixed board or holder
//! sizes are refused the same way.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::io::formats::{self, FormatError};
use crate::io::jsonl_log::{LogLine, LogLines};
use crate::model::board::{Bits, BoardSize};
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;

/// One deal as the fit sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub board: Bits,
    pub holder: Vec<PieceIdx>,
    /// The game it belongs to (from 0, in reading order).
    pub game: usize,
    /// The piece dealt just before it (the last of the previous deal of
    /// its game), when that deal is in the log.
    pub previous: Option<PieceIdx>,
    /// Rounds in a row without a clear before it, when its game is logged
    /// from its start without a gap.
    pub dry_rounds: Option<u32>,
    /// Pieces dealt in its game before it, when known (a bag's place).
    pub dealt_before: Option<u64>,
    /// The board's filled share, 0 to 1.
    pub fill: f64,
    /// Where it is written: "file:line".
    pub at: String,
}

/// A log of deals, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Deals {
    pub size: BoardSize,
    pub k: usize,
    pub deals: Vec<Seen>,
    pub games: usize,
    /// What reading noticed (gaps, unmarked game starts, files).
    pub notes: Vec<String>,
}

/// A JSON Lines record with everything but the board and holder optional:
/// a playtest's record reads as one, and so does a recording of another
/// game that knows only what was dealt.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DealRecord {
    #[serde(default)]
    player: Option<String>,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    game: Option<u64>,
    #[serde(default)]
    round: Option<u64>,
    board: Vec<String>,
    holder: Vec<String>,
    #[serde(default)]
    moves: Option<Vec<(String, usize, usize)>>,
    #[serde(default)]
    #[allow(dead_code)]
    ended: Option<bool>,
    #[serde(default)]
    #[allow(dead_code)]
    generator: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    timestamp: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    times_ms: Vec<u64>,
}

/// A deal read, before sequencing.
struct Raw {
    board: crate::model::board::Board,
    holder: Vec<PieceIdx>,
    moves: Option<Vec<(PieceIdx, usize, usize)>>,
    /// (player, session, game), when the record says.
    game_key: Option<(String, String, u64)>,
    round: Option<u64>,
    /// The record says its game ended in this deal.
    ended: bool,
    file: String,
    line: usize,
}

/// Every log file under `paths` (a folder: its `.jsonl` and `.ron` files,
/// sorted; empty ones skipped).
fn files_of(paths: &[PathBuf]) -> Result<Vec<PathBuf>, FormatError> {
    let mut out = Vec::new();
    for p in paths {
        let name = p.display().to_string();
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| FormatError::new(&name, None, format!("cannot read the folder: {e}")))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.extension().is_some_and(|x| x == "jsonl")
                        || (f.extension().is_some_and(|x| x == "ron")
                            && f.file_name()
                                .is_some_and(|n| n != crate::fits::population::cohort::IDENTITY))
                })
                .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() > 0))
                .collect();
            inside.sort();
            if inside.is_empty() {
                return Err(FormatError::new(
                    &name,
                    None,
                    "the folder holds no .jsonl or .ron logs",
                ));
            }
            out.extend(inside);
        } else if !p.exists() {
            return Err(FormatError::new(&name, None, "cannot read: no such file"));
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Reads the deals of `paths` (files or folders) against `set`: JSON
/// Lines logs streamed a line at a time (a line over 1 MB is refused
/// before it is read whole), RON read whole.
pub fn read(paths: &[PathBuf], set: &PieceSet) -> Result<Deals, FormatError> {
    let mut logs = Logs::default();
    for f in files_of(paths)? {
        let name = f.display().to_string();
        if name.ends_with(".jsonl") {
            let file = std::fs::File::open(&f)
                .map_err(|e| FormatError::new(&name, None, format!("cannot read: {e}")))?;
            logs.jsonl(std::io::BufReader::new(file), &name, set)?;
        } else {
            logs.text(&formats::read_text(&f)?, &name, set)?;
        }
    }
    logs.finish(set)
}

/// Reads the deals of logs already in memory, (name, text) each.
pub fn read_texts(texts: &[(String, String)], set: &PieceSet) -> Result<Deals, FormatError> {
    let mut logs = Logs::default();
    for (name, text) in texts {
        if name.ends_with(".jsonl") {
            logs.jsonl(text.as_bytes(), name, set)?;
        } else {
            logs.text(text, name, set)?;
        }
    }
    logs.finish(set)
}

/// The deals of the logs read so far, and what reading them noticed.
#[derive(Default)]
struct Logs {
    raws: Vec<Raw>,
    notes: Vec<String>,
    /// The first file that held only a last line cut short (a session's
    /// first write interrupted): passed over, as the telemetry reader does.
    cut_only: Option<String>,
}

impl Logs {
    fn jsonl(
        &mut self,
        source: impl std::io::BufRead,
        name: &str,
        set: &PieceSet,
    ) -> Result<(), FormatError> {
        let before = self.raws.len();
        let cut_short = read_jsonl(source, name, set, &mut self.raws, &mut self.notes)?;
        if self.raws.len() == before {
            if !cut_short {
                return Err(FormatError::new(
                    name,
                    None,
                    "the log is empty: it holds no deals",
                ));
            }
            self.cut_only.get_or_insert_with(|| name.to_owned());
        }
        Ok(())
    }

    /// A file named otherwise: JSON Lines or RON by its content.
    fn text(&mut self, text: &str, name: &str, set: &PieceSet) -> Result<(), FormatError> {
        let text = text.trim_start_matches('\u{feff}');
        if text.trim().is_empty() {
            return Err(FormatError::new(
                name,
                None,
                "the log is empty: it holds no deals",
            ));
        }
        if crate::io::jsonl_log::is_jsonl(text) {
            self.jsonl(text.as_bytes(), name, set)
        } else {
            self.raws.extend(read_ron(text, name, set)?);
            Ok(())
        }
    }

    fn finish(self, set: &PieceSet) -> Result<Deals, FormatError> {
        if self.raws.is_empty() {
            let name = self.cut_only.unwrap_or_else(|| "the logs".to_owned());
            return Err(FormatError::new(
                &name,
                None,
                "no deals: the log holds only a last line cut short (a write interrupted)",
            ));
        }
        let mut deals = sequence(self.raws, set)?;
        deals.notes.extend(self.notes);
        Ok(deals)
    }
}

/// Reads one file at `path` (for the window's opened log).
pub fn read_one(path: &Path, set: &PieceSet) -> Result<Deals, FormatError> {
    read(&[path.to_owned()], set)
}

fn resolve_holder(
    ids: &[String],
    set: &PieceSet,
    file: &str,
    line: usize,
    what: &str,
) -> Result<Vec<PieceIdx>, FormatError> {
    ids.iter()
        .map(|id| {
            set.index_of(id).ok_or_else(|| {
                FormatError::new(
                    file,
                    Some((line, 1)),
                    format!(
                        "{what}: unknown piece {id:?} (not in the piece set \"{}\"; give --pieces the set this log was dealt from)",
                        set.name
                    ),
                )
            })
        })
        .collect()
}

fn read_jsonl(
    source: impl std::io::BufRead,
    file: &str,
    set: &PieceSet,
    out: &mut Vec<Raw>,
    notes: &mut Vec<String>,
) -> Result<bool, FormatError> {
    let mut records = 0;
    let mut cut_short = false;
    for line in LogLines::new(source, file) {
        let line = line?;
        let (number, text) = line.place();
        // Every record is an object; so is the first line, cut short or not.
        let record = matches!(line, LogLine::Record { .. });
        if (record || records == 0) && !crate::io::jsonl_log::is_jsonl(text) {
            return Err(FormatError::new(
                file,
                Some((number, 1)),
                "not a JSON object: a log of deals is one object a line, with its `board` and `holder` \
                 (docs/formats.md)",
            ));
        }
        let (number, line) = match line {
            LogLine::Record { number, text } => (number, text),
            LogLine::CutShort { note, .. } => {
                notes.push(note);
                cut_short = true;
                continue;
            }
        };
        records += 1;
        let r: DealRecord =
            serde_json::from_str(&line).map_err(|e| crate::io::jsonl_log::line_error(&e, file, number))?;
        let what = format!("deal at line {number}");
        // The line alone: its errors point at line 1, moved to the file's.
        let raw = formats::raw_deal(
            r.board,
            r.holder.clone(),
            Vec::new(),
            &line,
            0,
            file,
            &format!("{what}: "),
        )
        .map_err(|e| crate::io::jsonl_log::on_line(e, number))?;
        let holder = resolve_holder(&r.holder, set, file, number, &what)?;
        let moves = match r.moves {
            Some(m) => Some(
                m.iter()
                    .map(|(id, x, y)| {
                        let p = resolve_holder(std::slice::from_ref(id), set, file, number, &what)?[0];
                        Ok((p, *x, *y))
                    })
                    .collect::<Result<Vec<_>, FormatError>>()?,
            ),
            None => None,
        };
        let game_key = r.game.map(|g| {
            (
                r.player.clone().unwrap_or_default(),
                r.session.clone().unwrap_or_default(),
                g,
            )
        });
        out.push(Raw {
            board: raw.board,
            holder,
            moves,
            game_key,
            round: r.round,
            ended: r.ended.unwrap_or(false),
            file: file.to_owned(),
            line: number,
        });
    }
    Ok(cut_short)
}

fn read_ron(text: &str, file: &str, set: &PieceSet) -> Result<Vec<Raw>, FormatError> {
    let raws = formats::parse_deals(text, file)?;
    let mut out = Vec::with_capacity(raws.len());
    for (i, raw) in raws.iter().enumerate() {
        let line = raw.start(text).0;
        let deal = raw.resolve(set, text, file)?;
        let moves = if raw.moves.is_empty() {
            None
        } else {
            Some(
                raw.moves
                    .iter()
                    .map(|(id, x, y)| {
                        let p =
                            resolve_holder(std::slice::from_ref(id), set, file, line, &format!("deal {i}"))?
                                [0];
                        Ok((p, *x, *y))
                    })
                    .collect::<Result<Vec<_>, FormatError>>()?,
            )
        };
        out.push(Raw {
            board: deal.board,
            holder: deal.holder,
            moves,
            game_key: None,
            round: None,
            ended: false,
            file: file.to_owned(),
            line,
        });
    }
    Ok(out)
}

/// The board after `moves` on `board`, or why they cannot be made.
fn after_moves(
    shapes: &Shapes,
    board: Bits,
    holder: &[PieceIdx],
    moves: &[(PieceIdx, usize, usize)],
) -> Result<Bits, String> {
    let size = shapes.size();
    let mut left = holder.to_vec();
    let mut bits = board;
    // The board as dealt may hold full lines; they clear first.
    let g = &shapes.geometry;
    bits &= !g.mask_of(g.full_lines(bits));
    for (m, &(p, x, y)) in moves.iter().enumerate() {
        let Some(at) = left.iter().position(|&q| q == p) else {
            return Err(format!(
                "move {m} places a piece not (or no longer) in the holder"
            ));
        };
        left.remove(at);
        let shape = shapes.shape(p);
        if x + usize::from(shape.width) > size.w() || y + usize::from(shape.height) > size.h() {
            return Err(format!("move {m} ({x}, {y}) goes off the board"));
        }
        let anchor = size.bit(x, y);
        if bits & (shape.mask << anchor) != 0 {
            return Err(format!("move {m} ({x}, {y}) covers a filled cell"));
        }
        bits = shapes.place(bits, p, anchor).0;
    }
    Ok(bits)
}

/// Orders the deals into games and notes each one's history.
fn sequence(raws: Vec<Raw>, set: &PieceSet) -> Result<Deals, FormatError> {
    let first = &raws[0];
    let size = first.board.size();
    let k = first.holder.len();
    let mut notes = Vec::new();
    for r in &raws {
        if r.board.size() != size {
            return Err(FormatError::new(
                &r.file,
                Some((r.line, 1)),
                format!(
                    "the board is {} but the log's first ({}:{}) is {size}; a generator is fitted to deals of one board size",
                    r.board.size(),
                    first.file,
                    first.line
                ),
            ));
        }
        if r.holder.len() != k {
            return Err(FormatError::new(
                &r.file,
                Some((r.line, 1)),
                format!(
                    "the holder has {} pieces but the log's first has {k}; a generator is fitted to holders of one size",
                    r.holder.len()
                ),
            ));
        }
    }
    let keyed = raws.iter().all(|r| r.game_key.is_some() && r.round.is_some());
    let mut raws = raws;
    if keyed {
        // Records in play order whatever the files' order.
        raws.sort_by(|a, b| (&a.game_key, a.round).cmp(&(&b.game_key, b.round)));
    } else {
        notes.push(
            "game starts are not marked in every record: a game is taken to start at an empty board, \
             after a deal whose pieces were not all placed, or where a file starts"
                .to_owned(),
        );
    }
    let shapes = Shapes::new(set, size);
    let cells = size.cells().max(1) as f64;
    let mut deals: Vec<Seen> = Vec::with_capacity(raws.len());
    let mut game = 0usize;
    let mut gaps = 0usize;
    for i in 0..raws.len() {
        let r = &raws[i];
        let board = r.board.bits();
        // Whether this deal directly follows deal i - 1 in one game.
        let follows = if i == 0 {
            None
        } else {
            let p = &raws[i - 1];
            if keyed {
                if p.game_key != r.game_key {
                    None
                } else if p.round == r.round {
                    return Err(FormatError::new(
                        &r.file,
                        Some((r.line, 1)),
                        format!(
                            "repeats the record of {}:{} (the same game and round{})",
                            p.file,
                            p.line,
                            match &r.game_key {
                                Some((player, session, _)) if player.is_empty() && session.is_empty() => {
                                    "; records without `player` and `session` are told apart by game and round alone"
                                }
                                _ => "",
                            }
                        ),
                    ));
                } else if p.ended {
                    return Err(FormatError::new(
                        &r.file,
                        Some((r.line, 1)),
                        format!(
                            "a deal after the one that ended its game ({}:{}); a game's rounds stop at its end",
                            p.file, p.line
                        ),
                    ));
                } else if p.round.map(|x| x + 1) == r.round {
                    Some(true)
                } else {
                    gaps += 1;
                    Some(false)
                }
            } else if p.file != r.file
                || (board == 0 && p.board.bits() != 0)
                || p.moves.as_ref().is_some_and(|m| m.len() < p.holder.len())
            {
                None
            } else {
                Some(true)
            }
        };
        if i > 0 && follows.is_none() {
            game += 1;
        }
        // The board must follow from the previous deal and its moves.
        if follows == Some(true) {
            let p = &raws[i - 1];
            if let Some(moves) = &p.moves
                && moves.len() == p.holder.len()
            {
                let after = after_moves(&shapes, p.board.bits(), &p.holder, moves).map_err(|why| {
                    FormatError::new(
                        &p.file,
                        Some((p.line, 1)),
                        format!("the deal's moves cannot be made: {why}"),
                    )
                })?;
                if after != board {
                    return Err(FormatError::new(
                        &r.file,
                        Some((r.line, 1)),
                        format!(
                            "the board does not follow from the previous deal ({}:{}) and its moves; \
                             deals of one game must come in the order dealt",
                            p.file, p.line
                        ),
                    ));
                }
            }
        }
        let previous = (follows == Some(true))
            .then(|| raws[i - 1].holder.last().copied())
            .flatten();
        let (dry_rounds, dealt_before) = match (follows, deals.last()) {
            (None, _) => (Some(0), Some(0)),
            (Some(true), Some(last)) => {
                let p = &raws[i - 1];
                let placed: u32 = p.holder.iter().map(|&q| shapes.shape(q).cells() as u32).sum();
                // A round cleared when the board holds fewer cells than
                // before plus those dealt (as the dealer counts).
                let cleared = board.count_ones() < p.board.bits().count_ones() + placed;
                (
                    last.dry_rounds.map(|d| if cleared { 0 } else { d + 1 }),
                    last.dealt_before.map(|n| n + k as u64),
                )
            }
            _ => (None, None),
        };
        // A game whose first record is not its first round (keyed logs).
        let (dry_rounds, dealt_before) = if follows.is_none() && keyed && r.round != Some(0) {
            gaps += 1;
            (None, None)
        } else {
            (dry_rounds, dealt_before)
        };
        deals.push(Seen {
            board,
            holder: r.holder.clone(),
            game,
            previous,
            dry_rounds,
            dealt_before,
            fill: f64::from(board.count_ones()) / cells,
            at: format!("{}:{}", r.file, r.line),
        });
    }
    if gaps > 0 {
        notes.push(format!(
            "{gaps} gaps in rounds: the deal after a gap has no previous piece, and its game's bag place and dry rounds are unknown from there"
        ));
    }
    Ok(Deals {
        size,
        k,
        games: if deals.is_empty() { 0 } else { game + 1 },
        deals,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> PieceSet {
        PieceSet::classic()
    }

    const EMPTY: &str = r#"["..........","..........","..........","..........","..........","..........","..........","..........","..........",".........."]"#;

    #[test]
    fn a_deals_only_recording_reads_with_unmarked_game_starts() {
        let text = format!(
            "{{\"board\":{EMPTY},\"holder\":[\"dot\",\"h2\",\"v2\"]}}\n{{\"board\":{EMPTY},\"holder\":[\"sq3\",\"h2\",\"v2\"]}}\n"
        );
        let d = read_texts(&[("rec.jsonl".into(), text)], &set()).unwrap();
        assert_eq!(d.deals.len(), 2);
        assert_eq!(d.k, 3);
        // Two empty boards in a row: unmarked, taken as one game (an empty
        // board after an empty one is the game's first round again only if
        // the previous had moves; none are logged).
        assert!(d.notes.iter().any(|n| n.contains("not marked")), "{:?}", d.notes);
        assert_eq!(d.deals[1].previous, Some(set().index_of("v2").unwrap()));
    }

    /// A keyed record of game `game`, round `round`, `ended` or not.
    fn keyed(game: u64, round: u64, ended: bool) -> String {
        format!(
            "{{\"player\":\"p\",\"session\":\"s\",\"game\":{game},\"round\":{round},\"board\":{EMPTY},\"holder\":[\"dot\",\"h2\",\"v2\"],\"ended\":{ended}}}\n"
        )
    }

    /// What real telemetry holds, read as the telemetry reader reads it:
    /// a byte-order mark, a last line cut short (noted), a line over 1 MB,
    /// a record after its game ended or twice over (refused with both
    /// places), an empty file and a line that is no object (refused).
    #[test]
    fn telemetry_defects_are_read_or_refused_with_their_place() {
        let read = |text: String| read_texts(&[("t.jsonl".into(), text)], &set());
        let two = keyed(0, 0, false) + &keyed(0, 1, true);
        let d = read(format!("\u{feff}{two}")).unwrap();
        assert_eq!(d.deals.len(), 2);
        let cut = keyed(1, 0, false);
        let d = read(format!("{two}{}", &cut[..cut.len() / 2])).unwrap();
        assert_eq!(d.deals.len(), 2);
        assert!(
            d.notes
                .iter()
                .any(|n| n.starts_with("t.jsonl:3: the last line is cut short")),
            "{:?}",
            d.notes
        );
        let e = read(two.clone() + &keyed(0, 2, false)).unwrap_err();
        assert_eq!(e.at, Some((3, 1)));
        assert!(e.message.contains("ended its game (t.jsonl:2)"), "{}", e.message);
        let e = read(two.clone() + &keyed(0, 1, true)).unwrap_err();
        assert_eq!(e.at, Some((3, 1)));
        assert!(
            e.message.contains("repeats the record of t.jsonl:2"),
            "{}",
            e.message
        );
        let long = format!(
            "{two}{{\"board\":\"{}\"}}\n",
            "x".repeat(crate::io::jsonl_log::MAX_LINE)
        );
        let e = read(long).unwrap_err();
        assert_eq!(e.at, Some((3, 1)));
        assert!(e.message.contains("longer than"), "{}", e.message);
        // Only a cut-short line: refused as having no deals, not a panic.
        let e = read(cut[..cut.len() / 2].to_owned()).unwrap_err();
        assert!(e.message.contains("only a last line cut short"), "{}", e.message);
        // Blank lines and a mark still count: a bad board names its own line.
        let bad = format!("\u{feff}\n{two}{{\"board\":[\"..x\"],\"holder\":[\"dot\"]}}\n");
        assert_eq!(read(bad).unwrap_err().at.map(|a| a.0), Some(4));
        assert!(read(" \n\n".into()).unwrap_err().message.contains("empty"));
        let e = read(format!("{two}[1,2,3]\n")).unwrap_err();
        assert_eq!(e.at, Some((3, 1)));
        assert!(e.message.contains("not a JSON object"), "{}", e.message);
    }

    #[test]
    fn an_unknown_piece_is_refused_with_its_line() {
        let text = format!(
            "{{\"board\":{EMPTY},\"holder\":[\"dot\",\"h2\",\"v2\"]}}\n{{\"board\":{EMPTY},\"holder\":[\"oct\",\"h2\",\"v2\"]}}\n"
        );
        let e = read_texts(&[("rec.jsonl".into(), text)], &set())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("rec.jsonl:2:"), "{e}");
        assert!(e.contains("unknown piece \"oct\""), "{e}");
    }

    #[test]
    fn mixed_sizes_and_a_board_that_does_not_follow_are_refused_with_their_line() {
        let small =
            r#"["........","........","........","........","........","........","........","........"]"#;
        let text = format!(
            "{{\"board\":{EMPTY},\"holder\":[\"dot\",\"h2\",\"v2\"]}}\n{{\"board\":{small},\"holder\":[\"dot\",\"h2\",\"v2\"]}}\n"
        );
        let e = read_texts(&[("mixed.jsonl".into(), text)], &set())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("mixed.jsonl:2:") && e.contains("one board size"),
            "{e}"
        );
        // Moves logged: the next board must be the one they make.
        let text = format!(
            "{{\"game\":0,\"round\":0,\"board\":{EMPTY},\"holder\":[\"dot\",\"h2\",\"v2\"],\"moves\":[[\"dot\",0,0],[\"h2\",2,0],[\"v2\",5,5]]}}\n{{\"game\":0,\"round\":1,\"board\":{EMPTY},\"holder\":[\"dot\",\"h2\",\"v2\"]}}\n"
        );
        let e = read_texts(&[("moves.jsonl".into(), text)], &set())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("moves.jsonl:2:") && e.contains("does not follow"),
            "{e}"
        );
    }

    #[test]
    fn a_playtest_log_reads_with_its_games_and_history() {
        let text = include_str!("../../../../../presets/logs/casual-playtest.jsonl");
        let d = read_texts(&[("casual.jsonl".into(), text.to_owned())], &set()).unwrap();
        assert_eq!(d.deals.len(), text.lines().count());
        assert!(d.games >= 1);
        assert_eq!(d.deals[0].previous, None);
        assert_eq!(d.deals[0].dealt_before, Some(0));
        assert_eq!(d.deals[1].dealt_before, Some(3));
        assert!(d.deals[1].previous.is_some());
    }
}
