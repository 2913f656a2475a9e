//! What each group of commands does: play and deal, files, batches, the
//! active generator.

pub mod batch_cmds;
pub mod doc_cmds;
pub mod file_cmds;
pub mod generator_cmds;
pub mod kept;
