//! The frame and the document: the app, the commands and how each is
//! applied, the persisted state and what is saved with the session, undo,
//! files, the open batch and the debugger's view.

pub mod app;
pub mod apply;
pub mod batch;
pub mod batch_source;
pub mod command;
pub mod confirm;
pub mod deals_view;
pub mod debugger;
pub mod dialogs;
pub mod files;
pub mod live;
pub mod recording;
pub mod settings;
pub mod state;
pub mod undo;
