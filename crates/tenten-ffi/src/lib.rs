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

#[cfg(test)]
pub(crate) mod test_support {
    //! Handles for the unit tests, made through the ABI itself.
    use std::ffi::CString;
    use std::ptr::null_mut;

    use crate::{
        TentenRules, TentenStatus, tenten_generator_free, tenten_generator_preset, tenten_rules_new,
    };

    /// Rules for a preset generator on the classic set; freed by the caller.
    pub fn rules(preset: &str, width: u8, height: u8, k: u8) -> *mut TentenRules {
        let name = CString::new(preset).unwrap();
        let (mut generator, mut rules) = (null_mut(), null_mut());
        // SAFETY: valid strings and output pointers.
        unsafe {
            assert_eq!(
                tenten_generator_preset(name.as_ptr(), std::ptr::null(), &mut generator),
                TentenStatus::Ok
            );
            assert_eq!(
                tenten_rules_new(generator, width, height, k, &mut rules),
                TentenStatus::Ok
            );
            tenten_generator_free(generator);
        }
        rules
    }

    /// A board's bits as the ABI's cells.
    pub fn cells(bits: u128, count: usize) -> Vec<u8> {
        (0..count).map(|i| u8::from(bits >> i & 1 == 1)).collect()
    }
}
