//! What each group of commands does: play and deal, files, batches.

pub mod batch_cmds;
pub mod doc_cmds;
pub mod file_cmds;
