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

use serde::{Deserialize, Serialize};

use crate::io::formats::{self, FormatError, RawDeal};

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
}

/// Whether `text` is JSON Lines (its first character a `{`) rather than RON.
pub fn is_jsonl(text: &str) -> bool {
    text.trim_start().starts_with('{')
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
        let record: Record = serde_json::from_str(line).map_err(|e| {
            // serde_json counts within the line; the file's line is ours.
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
            FormatError::new(file, Some((i + 1, e.column().max(1))), message)
        })?;
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

/// The deals of a JSON Lines log, as a RON log's are read.
pub fn parse_deals(text: &str, file: &str) -> Result<Vec<RawDeal>, FormatError> {
    deals_of(records(text, file)?, text, file)
}

/// The deals of records already read from `text`; the first bad deal
/// fails them all.
pub fn deals_of(records: Vec<(usize, Record)>, text: &str, file: &str) -> Result<Vec<RawDeal>, FormatError> {
    deals_each(records, text, file).into_iter().collect()
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

/// The logs given: files, and every `.jsonl` file of a folder given
/// (sorted, so the testers' order is the same on every machine).
pub fn read_logs(paths: &[std::path::PathBuf]) -> Result<Vec<(String, String)>, FormatError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let name = p.display().to_string();
            let mut inside: Vec<std::path::PathBuf> = std::fs::read_dir(p)
                .map_err(|e| FormatError::new(&name, None, format!("cannot read the folder: {e}")))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
                .collect();
            inside.sort();
            if inside.is_empty() {
                return Err(FormatError::new(&name, None, "the folder holds no .jsonl logs"));
            }
            files.extend(inside);
        } else {
            files.push(p.clone());
        }
    }
    files
        .iter()
        .map(|f| Ok((f.display().to_string(), formats::read_text(f)?)))
        .collect()
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
    use crate::io::playtest_log::{self, Logged, to_jsonl};
    use crate::model::board::BoardSize;
    use crate::model::pieces::PieceSet;
    use crate::model::shapes::Shapes;

    fn recorded(n: usize) -> (Vec<(Logged, Place)>, PieceSet) {
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        let player = crate::play::player::preset("casual").unwrap();
        (
            crate::study::fit::record_places(&shapes, &set, 3, &player, 1, n),
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
}
