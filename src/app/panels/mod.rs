//! What is always on screen: the board, the holder, the palette, the
//! inspector around the tabs, the top and status bars, danger.

pub mod board_view;
pub mod danger_overlay;
pub mod danger_panel;
pub mod grid;
pub mod holder;
pub mod inspector;
pub mod palette;
pub mod status_bar;
pub mod top_bar;
pub mod welcome;
