//! One server per folder: an exclusive lock on `DIR/playtest.lock`, which
//! the operating system drops with its process (a `kill -9` included), and
//! in it who holds it, so a second server can say whom to stop.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::journal::now;

/// The lock file of a playtest folder.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join("playtest.lock")
}

/// A folder held: dropped (or the process gone), it is free again.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Takes the folder for `who` ("tenten playtest serve", "the window"),
    /// or says who holds it.
    pub fn take(dir: &Path, who: &str) -> Result<Self, String> {
        let path = lock_path(dir);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| format!("{}: cannot open the lock: {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(format!(
                    "{} is being served by another server ({}); stop it first, or serve another folder",
                    dir.display(),
                    if holder.is_empty() {
                        "one starting now"
                    } else {
                        holder
                    }
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(format!("{}: cannot lock: {e}", path.display()));
            }
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .unwrap_or_default();
        let line = format!(
            "pid {}{}, {who}, since unix time {} (the system holds this lock while that process runs: \
             if it is gone, the folder is free; do not delete this file while it runs)",
            std::process::id(),
            if host.is_empty() {
                String::new()
            } else {
                format!(" on {host}")
            },
            now()
        );
        // Who holds it is a courtesy: a failure to say so is no reason to stop.
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(line.as_bytes()));
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_is_told_who_holds_the_folder_until_it_is_dropped() {
        let d = std::env::temp_dir().join(format!("tenten-lock-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let held = FolderLock::take(&d, "tenten playtest serve").unwrap();
        let e = FolderLock::take(&d, "the window").unwrap_err();
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        assert!(
            e.contains("tenten playtest serve") && e.contains("stop it first"),
            "{e}"
        );
        drop(held);
        FolderLock::take(&d, "the window").unwrap();
        let _ = std::fs::remove_dir_all(&d);
    }
}
