//! The one place a playtest writes its files' bytes: appends, syncs, files
//! made whole or not at all, and the rollback of a failed append. Every
//! write and sync passes a fault plan first, so a test can fail the n-th of
//! a scripted session's operations and check what a crash there leaves
//! (the real files, not a mocked store). No file stays open between
//! requests: a session costs no descriptor while its tester thinks.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which operation of a run to fail, and what was done so far.
#[derive(Debug)]
pub struct Faults {
    ops: AtomicU64,
    fail_at: AtomicU64,
    failed: Mutex<Option<String>>,
    /// The planned failure is the process dying: every operation from it
    /// on fails, and nothing is taken back (a crash cleans nothing up).
    crash: bool,
}

impl Default for Faults {
    fn default() -> Self {
        Self {
            ops: AtomicU64::new(0),
            fail_at: AtomicU64::new(u64::MAX),
            failed: Mutex::new(None),
            crash: false,
        }
    }
}

impl Faults {
    /// A plan that fails operation `n` (counted from 0) and no other.
    pub fn fail_at(n: u64) -> Self {
        let f = Self::default();
        f.fail_at.store(n, Ordering::SeqCst);
        f
    }

    /// A plan in which the process dies at operation `n`: that write
    /// leaves half its bytes, and nothing after it happens.
    pub fn crash_at(n: u64) -> Self {
        let mut f = Self::fail_at(n);
        f.crash = true;
        f
    }

    /// Whether the process has "died" (a crash plan past its operation).
    pub fn dead(&self) -> bool {
        self.crash && self.ops() > self.fail_at.load(Ordering::SeqCst)
    }

    /// Writes and syncs made (or failed) so far.
    pub fn ops(&self) -> u64 {
        self.ops.load(Ordering::SeqCst)
    }

    /// The operation failed, as "sync journal/x.journal", if one was.
    pub fn failed(&self) -> Option<String> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Counts an operation; the planned one fails.
    fn check(&self, what: &str, path: &Path) -> io::Result<()> {
        if self.dead() {
            return Err(io::Error::other("the process is dead (a planned crash)"));
        }
        let n = self.ops.fetch_add(1, Ordering::SeqCst);
        if n == self.fail_at.load(Ordering::SeqCst) {
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{what} {name}"));
            return Err(io::Error::other(format!(
                "injected failure of operation {n} ({what})"
            )));
        }
        Ok(())
    }
}

fn write(faults: &Faults, file: &mut File, path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Err(e) = faults.check("write", path) {
        // A failed write may have written part of its bytes: so must this.
        let _ = file.write_all(&bytes[..bytes.len() / 2]);
        return Err(e);
    }
    file.write_all(bytes)
}

fn sync(faults: &Faults, file: &File, path: &Path) -> io::Result<()> {
    faults.check("sync", path)?;
    file.sync_data()
}

/// Syncs the folder holding `path`, so a file made or renamed there stays.
pub fn sync_dir(faults: &Faults, path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    faults.check("sync", dir)?;
    File::open(dir)?.sync_all()
}

/// Appends `bytes` (whole lines) to the file at `path`, synced if `durable`
/// (a journal; a log is rebuilt from its journal, so it is not). On
/// failure the file is cut back to its length before, so nothing of a
/// refused request stays. `create` makes a missing file.
pub fn append(faults: &Faults, path: &Path, bytes: &[u8], durable: bool, create: bool) -> io::Result<()> {
    let mut file = OpenOptions::new().append(true).create(create).open(path)?;
    let before = file.metadata()?.len();
    let done = write(faults, &mut file, path, bytes).and_then(|()| {
        if durable {
            sync(faults, &file, path)
        } else {
            Ok(())
        }
    });
    if let Err(e) = done {
        if faults.dead() {
            return Err(e);
        }
        // Cut back and make the cut durable; if even that fails the caller
        // is told the file is in doubt (the store stops writing to it).
        return match file.set_len(before).and_then(|()| file.sync_all()) {
            Ok(()) => Err(e),
            Err(cut) => Err(io::Error::other(InDoubt(format!(
                "{e}; and cutting the file back failed too ({cut}): it may hold a refused line"
            )))),
        };
    }
    Ok(())
}

/// Cuts the file at `path` to `len` bytes (a line a crash tore), synced.
pub fn truncate(faults: &Faults, path: &Path, len: u64) -> io::Result<()> {
    faults.check("write", path)?;
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(len)?;
    sync(faults, &file, path)
}

/// A failed append whose cut-back failed too: the file may hold the line
/// the caller was told failed, so its reader must go by the file.
#[derive(Debug)]
pub struct InDoubt(pub String);

impl std::fmt::Display for InDoubt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InDoubt {}

/// Whether an append's error is `InDoubt`.
pub fn in_doubt(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<InDoubt>())
}

/// The hidden name a file is made under before it is renamed into place.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp"))
}

/// Whether a file name is one `temp_path` made (left by a crash; never
/// acknowledged, so removed at start).
pub fn is_temp(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Makes the file at `path` holding `bytes`, whole or not at all: written
/// under a hidden name, synced, renamed into place, the folder synced. A
/// file there already is refused unless `replace`. On failure nothing is
/// left behind.
pub fn create(faults: &Faults, path: &Path, bytes: &[u8], replace: bool) -> io::Result<()> {
    create_mode(faults, path, bytes, replace, 0o644)
}

/// As `create`, the file readable and writable by `mode` (0o600: the
/// owner alone, for a secret).
pub fn create_mode(faults: &Faults, path: &Path, bytes: &[u8], replace: bool, mode: u32) -> io::Result<()> {
    if !replace && path.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "the file exists already",
        ));
    }
    let tmp = temp_path(path);
    let made = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
        #[cfg(not(unix))]
        let _ = mode;
        let mut file = options.open(&tmp)?;
        write(faults, &mut file, &tmp, bytes)?;
        sync(faults, &file, &tmp)?;
        drop(file);
        faults.check("write", path)?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = made {
        if !faults.dead() {
            let _ = std::fs::remove_file(&tmp);
        }
        return Err(e);
    }
    if let Err(e) = sync_dir(faults, path) {
        // Renamed but not known to last: take it back, so the caller's
        // "nothing was made" holds.
        if !replace && !faults.dead() {
            let _ = std::fs::remove_file(path);
        }
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tenten-disk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_failed_append_leaves_the_file_as_it_was_at_every_operation() {
        let d = dir("append");
        let path = d.join("a.journal");
        create(&Faults::default(), &path, b"one\n", false).unwrap();
        // An append is a write and a sync: fail each in turn.
        for n in 0..2 {
            let f = Faults::fail_at(n);
            assert!(append(&f, &path, b"two\n", true, false).is_err());
            assert_eq!(std::fs::read(&path).unwrap(), b"one\n", "operation {n}");
            assert!(f.failed().is_some());
        }
        let f = Faults::default();
        append(&f, &path, b"two\n", true, false).unwrap();
        assert_eq!(f.ops(), 2);
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failed_create_leaves_nothing_and_a_file_is_never_replaced_unasked() {
        let d = dir("create");
        let path = d.join("b.journal");
        let ops = {
            let f = Faults::default();
            create(&f, &path, b"x\n", false).unwrap();
            std::fs::remove_file(&path).unwrap();
            f.ops()
        };
        assert_eq!(ops, 4, "write, sync, rename, the folder's sync");
        for n in 0..ops {
            assert!(create(&Faults::fail_at(n), &path, b"x\n", false).is_err());
            let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
            assert!(left.is_empty(), "operation {n} left {left:?}");
        }
        create(&Faults::default(), &path, b"x\n", false).unwrap();
        let e = create(&Faults::default(), &path, b"y\n", false).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"x\n");
        assert!(is_temp(".b.journal.tmp") && !is_temp("b.journal"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
