//! A batch file as it was read: its text (so a save keeps its comments),
//! its deals and the ones that could not be read. Shared by the open batch
//! and the job that judges it.

use std::path::PathBuf;

use tenten_engine::io::batch::Entry;

/// A batch file as it was read.
#[derive(Debug)]
pub struct Source {
    /// Tells one opening from another (undo may bring back an older one).
    pub id: u64,
    pub path: PathBuf,
    /// The file's text, so saving can keep its comments.
    pub text: String,
    pub entries: Vec<Entry>,
    /// The deals that could not be read, with file, line and column.
    pub bad: Vec<String>,
}
