//! Playtest logs as game teams' telemetry has them: JSON Lines, one record
//! per deal, read with serde_json (errors at line:column) into the same
//! deals a RON log holds, so both formats fit identically.
//!
//! ```text
//! {"player":"t7","session":"s1","game":0,"round":0,"board":["..........", ...],"holder":["dot","sq2","l3_bl"],"moves":[["dot",9,9],["l3_bl",7,8],["sq2",5,8]],"ended":false}
//! ```
//!
//! Every field but `generator` and `timestamp` is required; unknown fields
//! are refused, so a misspelt key is not silently dropped.

use std::io::{BufRead, Read as _};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::io::formats::{self, FormatError, RawDeal};
use crate::io::logged::{Logged, check_moves};
use crate::model::board::BoardSize;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;

/// One deal of a JSON Lines log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub player: String,
    pub session: String,
    /// The game's number in the session, from 0.
    pub game: u64,
    /// The round in the game, from 0.
    pub round: u64,
    /// Rows from the top, '.' empty, any other character filled.
    pub board: Vec<String>,
    pub holder: Vec<String>,
    /// The placements made, in order: [piece, column, row] of the piece's
    /// top-left corner, from 0.
    pub moves: Vec<(String, usize, usize)>,
    /// Whether the game ended in this deal (the holder could not all be
    /// placed).
    pub ended: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Each placement's time since the deal was shown, in milliseconds
    /// (people's logs; the models do not read it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub times_ms: Vec<u64>,
}

/// Whether `text` is JSON Lines (its first character a `{`) rather than RON.
pub fn is_jsonl(text: &str) -> bool {
    // A byte-order mark first (spreadsheet and Windows tools) is no content.
    text.trim_start_matches('\u{feff}').trim_start().starts_with('{')
}

/// A record that does not read, at line `line` of `file` (serde_json
/// counts within the line; the file's line is ours).
pub fn line_error(e: &serde_json::Error, file: &str, line: usize) -> FormatError {
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
    FormatError::new(file, Some((line, e.column().max(1))), message)
}

/// The records of `text`, one a non-blank line, with the byte offset of
/// each line; a bad line fails with its line and column.
pub fn records(text: &str, file: &str) -> Result<Vec<(usize, Record)>, FormatError> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        if line.trim().is_empty() {
            continue;
        }
        let record: Record = serde_json::from_str(line).map_err(|e| line_error(&e, file, i + 1))?;
        out.push((start, record));
    }
    if out.is_empty() {
        return Err(FormatError::new(
            file,
            None,
            "the log holds no records (one JSON object a line)",
        ));
    }
    Ok(out)
}

/// The deals of records already read from `text`, each read on its own:
/// a bad board or holder is an `Err` in its place (a batch lists it).
pub fn deals_each(
    records: Vec<(usize, Record)>,
    text: &str,
    file: &str,
) -> Vec<Result<RawDeal, FormatError>> {
    records
        .into_iter()
        .enumerate()
        .map(|(i, (offset, r))| {
            formats::raw_deal(
                r.board,
                r.holder,
                r.moves,
                text,
                offset,
                file,
                &format!("deal {i}: "),
            )
        })
        .collect()
}

/// A log to read: a file, streamed, or text already in memory.
#[derive(Clone, Debug, PartialEq)]
pub enum LogFile {
    Path(PathBuf),
    Text { name: String, text: String },
}

impl LogFile {
    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Self::Path(p) => p.display().to_string(),
            Self::Text { name, .. } => name.clone(),
        }
    }
}

/// The logs given: files, and every `.jsonl` file of a folder given
/// (sorted, so the testers' order is the same on every machine). Nothing
/// is read yet: `Reader` streams them.
pub fn read_logs(paths: &[PathBuf]) -> Result<Vec<LogFile>, FormatError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let name = p.display().to_string();
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| FormatError::new(&name, None, format!("cannot read the folder: {e}")))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
                // A playtest server makes a session's log before its first
                // deal closes: an empty log in a folder is not yet a tester's.
                .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() > 0))
                .collect();
            inside.sort();
            if inside.is_empty() {
                return Err(FormatError::new(&name, None, "the folder holds no .jsonl logs"));
            }
            files.extend(inside.into_iter().map(LogFile::Path));
        } else if !p.exists() {
            return Err(FormatError::new(
                &p.display().to_string(),
                None,
                "cannot read: no such file",
            ));
        } else {
            files.push(LogFile::Path(p.clone()));
        }
    }
    Ok(files)
}

/// The longest line a log may hold: a longer one is refused with its
/// number rather than read into memory (a record is one deal, a few
/// hundred bytes).
pub const MAX_LINE: usize = 1 << 20;

/// One line of a JSON Lines log as every reader of one takes it.
pub enum LogLine {
    /// A line to read as a record (1-based `number`; a byte-order mark
    /// before the first is dropped).
    Record { number: usize, text: String },
    /// The last line cut short (no newline, the JSON ended early: a writer
    /// killed mid-append): not a record yet, noted, never fatal.
    CutShort {
        number: usize,
        text: String,
        note: String,
    },
}

impl LogLine {
    /// The line's number and text, a record's or a cut-short line's.
    pub fn place(&self) -> (usize, &str) {
        match self {
            LogLine::Record { number, text } | LogLine::CutShort { number, text, .. } => (*number, text),
        }
    }
}

/// The lines of a JSON Lines log, streamed: blank lines skipped, a line
/// longer than `MAX_LINE` or not UTF-8 refused with its number (never read
/// into memory whole), the last line cut short noted.
pub struct LogLines<R> {
    source: R,
    file: String,
    number: usize,
    buf: Vec<u8>,
    failed: bool,
}

impl<R: BufRead> LogLines<R> {
    pub fn new(source: R, file: &str) -> Self {
        Self {
            source,
            file: file.to_owned(),
            number: 0,
            buf: Vec::new(),
            failed: false,
        }
    }

    fn next_line(&mut self) -> Result<Option<LogLine>, FormatError> {
        let file = self.file.as_str();
        loop {
            self.buf.clear();
            let got = (&mut self.source)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| FormatError::new(file, None, format!("cannot read: {e}")))?;
            if got == 0 {
                return Ok(None);
            }
            self.number += 1;
            let number = self.number;
            if self.buf.len() > MAX_LINE && self.buf.last() != Some(&b'\n') {
                return Err(FormatError::new(
                    file,
                    Some((number, 1)),
                    format!(
                        "the line is longer than {} bytes (1 MB); a record is one deal, a line of its own",
                        crate::text::grouped(MAX_LINE as u64)
                    ),
                ));
            }
            let line = std::str::from_utf8(&self.buf).map_err(|e| {
                FormatError::new(
                    file,
                    Some((number, 1)),
                    format!("not UTF-8 text (byte {} of the line)", e.valid_up_to()),
                )
            })?;
            // Spreadsheet and Windows tools start a UTF-8 file with a mark.
            let line = if number == 1 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            if line.trim().is_empty() {
                continue;
            }
            let torn = self.buf.last() != Some(&b'\n')
                && serde_json::from_str::<serde_json::Value>(line).is_err_and(|e| e.is_eof());
            if torn {
                return Ok(Some(LogLine::CutShort {
                    number,
                    text: line.to_owned(),
                    note: format!(
                        "{file}:{number}: the last line is cut short ({} bytes, no newline: a write interrupted); ignored",
                        self.buf.len()
                    ),
                }));
            }
            return Ok(Some(LogLine::Record {
                number,
                text: line.to_owned(),
            }));
        }
    }
}

impl<R: BufRead> Iterator for LogLines<R> {
    type Item = Result<LogLine, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let got = self.next_line().transpose();
        self.failed = matches!(got, Some(Err(_)));
        got
    }
}

/// Where a record sits in play. Records are taken in this order, whatever
/// order the file holds them in.
/// A deal's place: ordered by player, session, game and round, ids in
/// natural order (`s2` before `s10`: the playtest server and a cohort
/// number sessions without padding, and a player's sessions are read in
/// the order they were played).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub player: String,
    pub session: String,
    pub game: u64,
    pub round: u64,
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        natural(&self.player, &other.player)
            .then_with(|| natural(&self.session, &other.session))
            .then(self.game.cmp(&other.game))
            .then(self.round.cmp(&other.round))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Natural order: runs of digits compared by their value (then by their
/// leading zeros), the rest character by character; equal only when the
/// strings are.
pub fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a, b);
    loop {
        let (Some(cx), Some(cy)) = (x.chars().next(), y.chars().next()) else {
            return x.len().cmp(&y.len()).then_with(|| a.cmp(b));
        };
        if cx.is_ascii_digit() && cy.is_ascii_digit() {
            let dx = x.len() - x.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let dy = y.len() - y.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (nx, ny) = (x[..dx].trim_start_matches('0'), y[..dy].trim_start_matches('0'));
            let o = nx.len().cmp(&ny.len()).then_with(|| nx.cmp(ny));
            if o != Ordering::Equal {
                return o;
            }
            (x, y) = (&x[dx..], &y[dy..]);
        } else {
            if cx != cy {
                return cx.cmp(&cy);
            }
            (x, y) = (&x[cx.len_utf8()..], &y[cy.len_utf8()..]);
        }
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "player {:?}, session {:?}, game {}, round {}",
            self.player, self.session, self.game, self.round
        )
    }
}

/// A record read, its deal and moves checked.
#[derive(Clone, Debug)]
pub struct Entry {
    pub key: Key,
    pub ended: bool,
    pub generator: Option<String>,
    pub deal: Logged,
    /// The file (its index among those read) and the 1-based line.
    pub file: usize,
    pub line: usize,
    /// Set when ordered: a deal after a missing round of its game (the game
    /// is censored at the gap; its moves still show the player's choices).
    pub after_gap: bool,
}

/// Reads records from one or more logs, a line at a time.
pub struct Reader<'a> {
    set: &'a PieceSet,
    shapes: Option<(Shapes, String)>,
    files: Vec<String>,
    entries: Vec<Entry>,
    notes: Vec<String>,
}

/// The records of every log read, in key order, with what was noticed on
/// the way (records out of order, gaps).
#[derive(Debug)]
pub struct Ordered {
    pub size: BoardSize,
    pub files: Vec<String>,
    pub entries: Vec<Entry>,
    pub notes: Vec<String>,
}

/// The same error at line `line` of the file (a record's text is one line,
/// so its messages point at line 1 of it).
pub(crate) fn on_line(mut e: FormatError, line: usize) -> FormatError {
    e.at = Some(e.at.map_or((line, 1), |(_, col)| (line, col)));
    e
}

impl<'a> Reader<'a> {
    /// Whether no record has been read yet (every line so far blank or cut
    /// short).
    pub fn is_empty(&self) -> bool {
        self.shapes.is_none()
    }

    pub fn new(set: &'a PieceSet) -> Self {
        Self {
            set,
            shapes: None,
            files: Vec::new(),
            entries: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Reads every log of `files`, streamed.
    pub fn read_all(set: &'a PieceSet, files: &[LogFile]) -> Result<Ordered, FormatError> {
        let mut reader = Self::new(set);
        for f in files {
            match f {
                LogFile::Path(p) => {
                    let name = p.display().to_string();
                    let file = std::fs::File::open(p)
                        .map_err(|e| FormatError::new(&name, None, format!("cannot read: {e}")))?;
                    reader.read(std::io::BufReader::new(file), &name)?;
                }
                LogFile::Text { name, text } => reader.read(text.as_bytes(), name)?,
            }
        }
        reader.finish()
    }

    /// Reads the records of one log, each line on its own (at most
    /// `MAX_LINE` bytes); the first bad line fails with its place.
    pub fn read(&mut self, source: impl BufRead, file: &str) -> Result<(), FormatError> {
        let index = self.files.len();
        self.files.push(file.to_owned());
        let mut records = 0;
        let mut cut_short = false;
        for line in LogLines::new(source, file) {
            let line = line?;
            let (number, text) = line.place();
            // The first line says what the file is, cut short or not.
            if records == 0 && !is_jsonl(text) {
                return Err(FormatError::new(
                    file,
                    Some((number, 1)),
                    "not a JSON Lines log: testers' logs are one JSON object a line, saying whose deal each is \
                     and in which session (tenten cohort writes them; docs/formats.md)",
                ));
            }
            let (number, line) = match line {
                LogLine::Record { number, text } => (number, text),
                LogLine::CutShort { note, .. } => {
                    self.notes.push(note);
                    cut_short = true;
                    continue;
                }
            };
            let entry = self.entry(&line, file, records).map_err(|e| on_line(e, number))?;
            self.entries.push(Entry {
                file: index,
                line: number,
                ..entry
            });
            records += 1;
        }
        if records == 0 && !cut_short {
            return Err(FormatError::new(
                file,
                None,
                "the log holds no records (one JSON object a line)",
            ));
        }
        Ok(())
    }

    /// Record `i` of a file, read from its line.
    fn entry(&mut self, line: &str, file: &str, i: usize) -> Result<Entry, FormatError> {
        let r: Record = serde_json::from_str(line).map_err(|e| {
            // serde_json counts within the line; the file's line is ours.
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
            FormatError::new(file, Some((1, e.column().max(1))), message)
        })?;
        let raw = formats::raw_deal(r.board, r.holder, r.moves, line, 0, file, &format!("deal {i}: "))?;
        let deal = raw.resolve(self.set, line, file)?;
        let size = deal.board.size();
        let (shapes, first) = self
            .shapes
            .get_or_insert_with(|| (Shapes::new(self.set, size), format!("{file}, deal {i}")));
        if shapes.size() != size {
            return Err(FormatError::new(
                file,
                raw.move_at(line, 0),
                format!(
                    "deal {i}: the board is {size} but the first deal's ({first}) is {}; logs read together are of one board size",
                    shapes.size()
                ),
            ));
        }
        let moves = check_moves(&raw, i, &deal.board, &deal.holder, shapes, self.set, line, file)?;
        Ok(Entry {
            key: Key {
                player: r.player,
                session: r.session,
                game: r.game,
                round: r.round,
            },
            ended: r.ended,
            generator: r.generator,
            deal: Logged {
                board: deal.board.bits(),
                holder: deal.holder,
                moves,
            },
            file: 0,
            line: 0,
            after_gap: false,
        })
    }

    /// The records in (player, session, game, round) order. A repeated key
    /// is refused at its file and line; records out of order, a missing
    /// round (the game is censored there: `after_gap`) and a missing game
    /// are noted.
    pub fn finish(self) -> Result<Ordered, FormatError> {
        let Self {
            shapes,
            files,
            entries,
            notes: torn,
            ..
        } = self;
        let Some((shapes, _)) = shapes else {
            return Err(FormatError::new("the logs", None, "no logs given"));
        };
        let mut entries = entries;
        let mut notes = torn;
        let at = |e: &Entry| format!("{}:{}", files[e.file], e.line);
        // Out of order: the first record of each file that comes before the
        // one above it (a file's records are read one after another).
        let mut noted = vec![false; files.len()];
        for w in entries.windows(2) {
            let (l, e) = (&w[0], &w[1]);
            if l.file == e.file && e.key < l.key && !std::mem::replace(&mut noted[e.file], true) {
                notes.push(format!(
                    "{}: records arrive out of order ({} comes after {} at line {}); read in (player, session, game, round) order",
                    at(e),
                    e.key,
                    l.key,
                    l.line
                ));
            }
        }
        // Stable: a repeated key keeps its order of reading.
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        for w in entries.windows(2) {
            if w[0].key == w[1].key {
                return Err(FormatError::new(
                    &files[w[1].file],
                    Some((w[1].line, 1)),
                    format!(
                        "repeats the record of {} ({}); each (player, session, game, round) is one deal",
                        at(&w[0]),
                        w[0].key
                    ),
                ));
            }
        }
        // Each game's rounds count up from 0 by one; each session's games too.
        let mut i = 0;
        while i < entries.len() {
            let same_game =
                |a: &Key, b: &Key| a.player == b.player && a.session == b.session && a.game == b.game;
            let mut j = i;
            while j < entries.len() && same_game(&entries[j].key, &entries[i].key) {
                j += 1;
            }
            let new_session = i == 0
                || entries[i - 1].key.player != entries[i].key.player
                || entries[i - 1].key.session != entries[i].key.session;
            let expected_game = if new_session {
                0
            } else {
                entries[i - 1].key.game + 1
            };
            if entries[i].key.game != expected_game {
                notes.push(format!(
                    "{}: player {:?}, session {:?} has no game {}{} (this record is of game {})",
                    at(&entries[i]),
                    entries[i].key.player,
                    entries[i].key.session,
                    expected_game,
                    if entries[i].key.game > expected_game + 1 {
                        format!(" to {}", entries[i].key.game - 1)
                    } else {
                        String::new()
                    },
                    entries[i].key.game
                ));
            }
            let mut gap = false;
            for k in i..j {
                let expected = (k - i) as u64;
                if !gap && entries[k].key.round != expected {
                    gap = true;
                    let r = entries[k].key.round;
                    notes.push(format!(
                        "{}: player {:?}, session {:?}, game {} has no round {}{}; the game is censored at round {}, not joined across the gap",
                        at(&entries[k]),
                        entries[k].key.player,
                        entries[k].key.session,
                        entries[k].key.game,
                        expected,
                        if r > expected + 1 { format!(" to {}", r - 1) } else { String::new() },
                        expected
                    ));
                }
                entries[k].after_gap = gap;
                if entries[k].ended && k + 1 < j {
                    return Err(FormatError::new(
                        &files[entries[k + 1].file],
                        Some((entries[k + 1].line, 1)),
                        format!(
                            "{} follows the record that ended the game ({}, at {})",
                            entries[k + 1].key,
                            entries[k].key,
                            at(&entries[k])
                        ),
                    ));
                }
            }
            i = j;
        }
        Ok(Ordered {
            size: shapes.size(),
            files,
            entries,
            notes,
        })
    }
}

/// Where each logged deal sits in play: its game, its round, and whether
/// the game ended there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub game: u64,
    pub round: u64,
    pub ended: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sessions and players in the order they were played: numbers by
    /// value; equal only when the same text.
    #[test]
    fn ids_sort_naturally() {
        use std::cmp::Ordering::*;
        let mut ids = vec![
            "s10", "s2", "s1", "s02", "t", "s", "s10a", "s10b", "s9z", "é1", "e2",
        ];
        ids.sort_by(|a, b| natural(a, b));
        assert_eq!(
            ids,
            [
                "e2", "s", "s1", "s02", "s2", "s9z", "s10", "s10a", "s10b", "t", "é1"
            ]
        );
        assert_eq!(natural("s007", "s007"), Equal);
        assert_eq!(
            natural("a99999999999999999999999", "a100000000000000000000000"),
            Less
        );
        let key = |s: &str| Key {
            player: "p".to_owned(),
            session: s.to_owned(),
            game: 0,
            round: 0,
        };
        assert!(key("s2") < key("s10"));
    }
    use crate::io::playtest_log::{self, Logged, to_jsonl};
    use crate::model::board::BoardSize;
    use crate::model::pieces::PieceSet;
    use crate::model::shapes::Shapes;

    fn recorded(n: usize) -> (Vec<(Logged, Place)>, PieceSet) {
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        let player = crate::play::player::preset("casual").unwrap();
        (
            crate::fits::player::record_places(&shapes, &set, 3, &player, 1, n),
            set,
        )
    }

    #[test]
    fn a_jsonl_log_reads_back_as_the_same_deals_as_its_ron() {
        let (log, set) = recorded(120);
        let deals: Vec<Logged> = log.iter().map(|(d, _)| d.clone()).collect();
        let ron = playtest_log::to_ron(&deals, BoardSize::CLASSIC, &set, "a test");
        let jsonl = to_jsonl(&log, BoardSize::CLASSIC, &set, "casual", "s1", Some("random"));
        assert!(is_jsonl(&jsonl) && !is_jsonl(&ron));
        let from_ron = playtest_log::parse(&ron, "log.ron", &set).unwrap();
        let from_jsonl = playtest_log::parse(&jsonl, "log.jsonl", &set).unwrap();
        assert_eq!(from_jsonl.deals, from_ron.deals);
        assert_eq!(from_jsonl.deals, deals);
        // Games and rounds count up, and every game but the last ends in a
        // deal whose holder was not all placed.
        let ends: Vec<&Place> = log.iter().map(|(_, p)| p).filter(|p| p.ended).collect();
        assert!(!ends.is_empty());
        for (d, p) in &log {
            if p.ended {
                assert!(d.moves.len() < d.holder.len(), "{p:?}");
            }
        }
        assert_eq!(
            log[0].1,
            Place {
                game: 0,
                round: 0,
                ended: false
            }
        );
        // It writes back byte for byte.
        let recs = records(&jsonl, "log.jsonl").unwrap();
        assert_eq!(recs.len(), 120);
        assert_eq!(recs[0].1.generator.as_deref(), Some("random"));
    }

    #[test]
    fn bad_records_are_refused_at_their_line_and_column() {
        let (log, set) = recorded(3);
        let good = to_jsonl(&log, BoardSize::CLASSIC, &set, "casual", "s1", None);
        let lines: Vec<&str> = good.lines().collect();
        // A misspelt key on line 2.
        let bad = format!(
            "{}\n{}\n{}\n",
            lines[0],
            lines[1].replace("\"holder\"", "\"hodler\""),
            lines[2]
        );
        let e = playtest_log::parse(&bad, "log.jsonl", &set).unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(2), "{e}");
        assert!(e.to_string().contains("hodler"), "{e}");
        // Not JSON at all on line 3.
        let bad = format!("{}\n{}\n{{\"player\": \n", lines[0], lines[1]);
        let e = playtest_log::parse(&bad, "log.jsonl", &set).unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(3), "{e}");
        // A move that does not fit: its deal and its line.
        let moved = lines[1].replacen("\"moves\":[[", "\"moves\":[[\"dot\",42,0],[", 1);
        let bad = format!("{}\n{moved}\n", lines[0]);
        let e = playtest_log::parse(&bad, "log.jsonl", &set).unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(2), "{e}");
        assert!(e.to_string().contains("deal 1, move 0"), "{e}");
    }

    #[test]
    fn a_last_line_cut_short_is_noted_not_fatal() {
        let (log, set) = recorded(3);
        let good = to_jsonl(&log, BoardSize::CLASSIC, &set, "casual", "s1", None);
        let lines: Vec<&str> = good.lines().collect();
        let half = &lines[2][..lines[2].len() / 2];
        let torn = format!("{}\n{}\n{half}", lines[0], lines[1]);
        let read = playtest_log::parse(&torn, "log.jsonl", &set).unwrap();
        assert_eq!(read.deals.len(), 2);
        assert!(
            read.notes
                .iter()
                .any(|n| n.contains("log.jsonl:3") && n.contains("cut short")),
            "{:?}",
            read.notes
        );
        // Cut short but not last (a newline follows): an error at its line.
        let e = playtest_log::parse(
            &format!("{}\n{half}\n{}\n", lines[0], lines[1]),
            "log.jsonl",
            &set,
        )
        .unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(2), "{e}");
        // Whole but wrong, without a newline: an error, not a torn write.
        let wrong = lines[2].replace("\"holder\"", "\"hodler\"");
        let e = playtest_log::parse(&format!("{}\n{wrong}", lines[0]), "log.jsonl", &set).unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(2), "{e}");
    }
}
