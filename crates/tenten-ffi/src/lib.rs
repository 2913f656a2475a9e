//! The engine of Tenten Workbench as a C library (`include/tenten.h`): load
//! a piece set or a generator file, deal from it with a seed, validate and
//! repair holders (Lohanda et al. 2019, Fig. 4 and equations 4 and 5), the
//! danger of a board, and play a piece. The same engine, so the same deals
//! and verdicts as the workbench.
//!
//! Every function is `extern "C"`, checks every pointer for null, returns a
//! [`TentenStatus`] and leaves a message for [`tenten_last_error`]; no panic
//! crosses the boundary. Handles are boxed Rust values behind opaque
//! pointers.
// The boundary is raw pointers by nature; each dereference is behind a
// null check in `args`.
#![allow(unsafe_code)]

mod args;
mod dealer;
mod generator;
mod pieces;
mod play;
mod rules;
mod search;
mod status;

pub use dealer::*;
pub use generator::*;
pub use pieces::*;
pub use play::*;
pub use rules::*;
pub use search::*;
pub use status::*;

/// The most pieces a holder holds.
pub const TENTEN_MAX_HOLDER: usize = 4;

/// The version of this C interface: it changes when a signature or a
/// struct changes; functions may be added without changing it.
pub const TENTEN_ABI_VERSION: u32 = 1;
