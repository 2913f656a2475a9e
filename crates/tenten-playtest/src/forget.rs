//! `tenten playtest forget DIR TESTER`: every record of a tester removed
//! (journals, logs, copies set aside), what a tester who asks to be
//! forgotten is owed. It holds the folder's lock while it works, so no
//! server writes beside it, and refuses while the tester's session is open
//! (a server serving the folder again would resume it).

use std::path::Path;

use crate::ids;
use crate::lock::FolderLock;
use crate::recover::set_aside_dir;
use crate::replay::replay_lines;
use crate::store::{Error, journal_dir};

/// What was removed.
#[derive(Debug, PartialEq, Eq)]
pub struct Forgot {
    pub files: usize,
    pub sessions: usize,
}

/// Removes the records of `tester` from the playtest in `dir`.
pub fn forget(dir: &Path, tester: &str) -> Result<Forgot, Error> {
    if !ids::is_tester(tester) {
        return Err(Error::Bad(format!(
            "{tester:?} is not a tester id ({} lower-case hex digits, the logs' player)",
            ids::TESTER_LEN
        )));
    }
    let config = crate::status::folder_config(dir)?;
    let _lock = FolderLock::take(dir, "tenten playtest forget").map_err(Error::Folder)?;
    let jdir = journal_dir(dir);
    let mut sessions: Vec<u32> = ids::journals_in(&jdir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(t, _)| t == tester)
        .map(|(_, n)| n)
        .collect();
    sessions.sort_unstable();
    // Every session in order, so an adaptive generator deals the last as
    // it was dealt; only the last may be open.
    let mut games = tenten_engine::play::adaptive::History::default();
    for (i, &number) in sessions.iter().enumerate() {
        let path = jdir.join(ids::journal_name(tester, number));
        let bytes = std::fs::read(&path).map_err(|e| crate::store::io_error(&path, "read", e))?;
        let (lines, _) = crate::journal::complete_lines(&bytes);
        let Ok((_, r)) = replay_lines(&config, &path, &lines, tester, number, games.clone()) else {
            continue;
        };
        games = r.history.clone();
        let last = number;
        if i + 1 == sessions.len() && !r.ended {
            return Err(Error::Bad(format!(
                "{}: the tester's session s{last} is still open; it closes when the folder is served again \
                 and it has been idle past --idle-minutes (or the tester starts another); forget them then",
                path.display()
            )));
        }
    }
    let mut files = 0;
    for folder in [dir.to_owned(), jdir.clone(), set_aside_dir(dir)] {
        for name in files_in(&folder) {
            if name.starts_with(&format!("{tester}-s")) {
                let path = folder.join(&name);
                std::fs::remove_file(&path).map_err(|e| crate::store::io_error(&path, "remove", e))?;
                files += 1;
            }
        }
        if let Ok(f) = std::fs::File::open(&folder) {
            let _ = f.sync_all();
        }
    }
    if files == 0 {
        return Err(Error::Bad(format!(
            "{}: holds no records of tester {tester}",
            dir.display()
        )));
    }
    Ok(Forgot {
        files,
        sessions: sessions.len(),
    })
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}
