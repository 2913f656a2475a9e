//! A session's journal: its events, one JSON line each, appended and synced
//! before anyone is told (the truth a restarted server replays), and the
//! reading of a journal or log a crash may have cut short. The bytes go
//! through `disk`, which opens, appends, syncs and closes per event.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::disk::{self, Faults};

/// One event of a tester's session. A deal is never written: the game's
/// seed and the moves before it decide it (the dealers are seeded), so a
/// deal is durable as soon as the event that led to it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// The session's first line: whose it is and which generator deals it.
    Session {
        tester: String,
        session: u32,
        generator: String,
        at: u64,
        /// The tester's games before the session, for a generator with
        /// adaptive rules: the journal replays alone, whatever became of
        /// the tester's other journals.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        history: Option<tenten_engine::play::adaptive::History>,
    },
    /// The tester agreed to the study whose text hashes to `study`
    /// (`Study::hash`), before their first game.
    Agree { study: String, at: u64 },
    /// A game starts on `seed` (the one before, if any, is over or left).
    Game { game: u64, seed: u64, at: u64 },
    /// A placement: the holder's slot and the piece's top-left cell, with
    /// the time since its deal was shown, as the page measured it.
    Move {
        game: u64,
        slot: usize,
        x: usize,
        y: usize,
        ms: u64,
        at: u64,
    },
    /// The session ended (idle, or the tester started another): its log
    /// holds every deal.
    Close { at: u64 },
}

impl Event {
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("an event is plain data")
    }
}

/// Seconds since 1970, for a session's idle time across restarts.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A line cut short at the end of a file (a crash mid-append), cut off.
#[derive(Clone, Debug, PartialEq)]
pub struct Torn {
    pub path: PathBuf,
    pub line: usize,
    pub bytes: usize,
}

impl std::fmt::Display for Torn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: a last line cut short ({} bytes, a write the crash interrupted) was cut off; nothing acknowledged was in it",
            self.path.display(),
            self.line,
            self.bytes
        )
    }
}

/// The complete lines of a file's bytes, and how many bytes follow the
/// last newline (a line a crash cut short; 0 if none).
pub fn complete_lines(bytes: &[u8]) -> (Vec<String>, usize) {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let lines = String::from_utf8_lossy(&bytes[..whole])
        .lines()
        .map(str::to_owned)
        .collect();
    (lines, bytes.len() - whole)
}

/// The complete lines of the file at `path`; a last line a crash cut
/// short is cut off the file (so the next append starts a line of its own)
/// and returned.
pub fn read(faults: &Faults, path: &Path) -> std::io::Result<(Vec<String>, Option<Torn>)> {
    let bytes = std::fs::read(path)?;
    let (lines, cut) = complete_lines(&bytes);
    if cut == 0 {
        return Ok((lines, None));
    }
    let torn = Torn {
        path: path.to_owned(),
        line: lines.len() + 1,
        bytes: cut,
    };
    disk::truncate(faults, path, (bytes.len() - cut) as u64)?;
    Ok((lines, Some(torn)))
}

/// Appends `event` to the journal at `path`, synced; on failure the
/// journal is as it was.
pub fn append(faults: &Faults, path: &Path, event: &Event) -> std::io::Result<()> {
    let mut line = event.line();
    line.push('\n');
    disk::append(faults, path, line.as_bytes(), true, false)
}

/// Makes the journal at `path` holding `events`, whole or not at all.
pub fn create(faults: &Faults, path: &Path, events: &[Event]) -> std::io::Result<()> {
    let mut text = String::new();
    for e in events {
        text.push_str(&e.line());
        text.push('\n');
    }
    disk::create(faults, path, text.as_bytes(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_back_and_a_torn_last_line_is_cut_off_and_reported() {
        let d = std::env::temp_dir().join(format!("tenten-journal-torn-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("a.journal");
        let f = Faults::default();
        let first = Event::Game {
            game: 0,
            seed: 7,
            at: 1,
        };
        let mv = Event::Move {
            game: 0,
            slot: 1,
            x: 2,
            y: 3,
            ms: 400,
            at: 2,
        };
        create(&f, &path, std::slice::from_ref(&first)).unwrap();
        append(&f, &path, &mv).unwrap();
        // A crash mid-append: half a line, no newline.
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"e\":\"move\",\"ga").unwrap();
        drop(file);
        let (lines, torn) = read(&f, &path).unwrap();
        let back: Vec<Event> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(back, vec![first.clone(), mv.clone()]);
        let torn = torn.expect("the torn line is reported");
        assert_eq!((torn.line, torn.bytes), (3, 15));
        assert!(torn.to_string().contains("a.journal:3"), "{torn}");
        // Appending after it starts on a line of its own.
        append(&f, &path, &Event::Close { at: 3 }).unwrap();
        let (lines, torn) = read(&f, &path).unwrap();
        assert_eq!(torn, None);
        assert_eq!(
            serde_json::from_str::<Event>(&lines[2]).unwrap(),
            Event::Close { at: 3 }
        );
        // A journal made twice is refused, not replaced.
        assert!(create(&f, &path, &[first]).is_err());
        let _ = std::fs::remove_dir_all(&d);
    }
}
