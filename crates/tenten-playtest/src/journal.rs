//! Files written a line at a time and synced before anyone is told: a
//! session's journal (its events, the truth a restarted server replays) and
//! its JSON Lines log. A write that fails is cut back off the file, and a
//! line a crash tore is cut off when the file is next opened, and reported.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
    },
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

/// Seconds since 1970, for a session's idle time across restarts.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A file appended a line at a time, each line synced before `append`
/// returns.
#[derive(Debug)]
pub struct Lines {
    file: File,
    len: u64,
    pub path: PathBuf,
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

/// Syncs the directory holding `path`, so a file just made stays made.
fn sync_dir(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => File::open(dir)?.sync_all(),
        _ => Ok(()),
    }
}

impl Lines {
    /// Makes a new file holding `first` (if any), synced, its folder too.
    pub fn create(path: &Path, first: Option<&str>) -> io::Result<Self> {
        let file = OpenOptions::new().create_new(true).append(true).open(path)?;
        let mut lines = Self {
            file,
            len: 0,
            path: path.to_owned(),
        };
        if let Some(line) = first {
            lines.append(line)?;
        } else {
            lines.file.sync_all()?;
        }
        sync_dir(path)?;
        Ok(lines)
    }

    /// Opens a file to append to, with its complete lines; a last line
    /// without its newline is cut off and returned.
    pub fn open(path: &Path) -> io::Result<(Self, Vec<String>, Option<Torn>)> {
        let mut file = OpenOptions::new().read(true).append(true).open(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let (lines, cut) = complete_lines(&bytes);
        let whole = bytes.len() - cut;
        let torn = (cut > 0).then(|| Torn {
            path: path.to_owned(),
            line: lines.len() + 1,
            bytes: cut,
        });
        if torn.is_some() {
            file.set_len(whole as u64)?;
            file.sync_all()?;
        }
        file.seek(SeekFrom::End(0))?;
        Ok((
            Self {
                file,
                len: whole as u64,
                path: path.to_owned(),
            },
            lines,
            torn,
        ))
    }

    /// Appends `line` and a newline in one write and syncs it; on failure
    /// the file is cut back to where it was.
    pub fn append(&mut self, line: &str) -> io::Result<()> {
        debug_assert!(!line.contains('\n'));
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        let written = self.file.write_all(&buf).and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            let _ = self.file.set_len(self.len);
            return Err(e);
        }
        self.len += buf.len() as u64;
        Ok(())
    }

    /// Appends an event as a JSON line.
    pub fn event(&mut self, e: &Event) -> io::Result<()> {
        self.append(&serde_json::to_string(e).expect("an event is plain data"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tenten-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn lines_read_back_and_a_torn_last_line_is_cut_off_and_reported() {
        let d = dir("torn");
        let path = d.join("a.journal");
        let first = Event::Game {
            game: 0,
            seed: 7,
            at: 1,
        };
        let mut j = Lines::create(&path, Some(&serde_json::to_string(&first).unwrap())).unwrap();
        let mv = Event::Move {
            game: 0,
            slot: 1,
            x: 2,
            y: 3,
            ms: 400,
            at: 2,
        };
        j.event(&mv).unwrap();
        drop(j);
        // A crash mid-append: half a line, no newline.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"e\":\"move\",\"ga").unwrap();
        drop(f);
        let (mut j, lines, torn) = Lines::open(&path).unwrap();
        assert_eq!(lines.len(), 2);
        let back: Vec<Event> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(back, vec![first.clone(), mv.clone()]);
        let torn = torn.expect("the torn line is reported");
        assert_eq!((torn.line, torn.bytes), (3, 15));
        assert!(torn.to_string().contains("a.journal:3"), "{torn}");
        // Appending after it starts on a line of its own.
        j.event(&Event::Close { at: 3 }).unwrap();
        let (_, lines, torn) = Lines::open(&path).unwrap();
        assert_eq!(torn, None);
        assert_eq!(lines.len(), 3);
        assert_eq!(
            serde_json::from_str::<Event>(&lines[2]).unwrap(),
            Event::Close { at: 3 }
        );
        // A file made twice is refused, not replaced.
        assert!(Lines::create(&path, None).is_err());
        let _ = std::fs::remove_dir_all(&d);
    }
}
