//! Status codes, the last error per thread, and the guard every exported
//! function runs in: no panic crosses the boundary.

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a call returned. Anything but `TENTEN_STATUS_OK` left its outputs
/// untouched and a message for `tenten_last_error`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TentenStatus {
    /// Done.
    Ok = 0,
    /// A pointer argument was NULL.
    NullPointer = 1,
    /// An argument is out of range: a board of the wrong size, a holder of
    /// no or too many pieces, a side or holder size the engine cannot take,
    /// text that is not UTF-8.
    InvalidArgument = 2,
    /// A piece id or index not in the set.
    UnknownPiece = 3,
    /// A file or string is not a valid piece set or generator (the message
    /// names the line and column).
    Parse = 4,
    /// A file could not be read.
    Io = 5,
    /// The piece does not fit at that position.
    NoFit = 6,
    /// A bug in the library: caught, reported, and the host goes on.
    Panic = 7,
}

/// Why a call failed.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: TentenStatus,
    pub message: String,
}

impl Failure {
    pub fn new(status: TentenStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
}

pub(crate) type Done = Result<(), Failure>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A NUL inside a message would end the C string early; it cannot occur
    // in ours, but a file name might carry one.
    let text = CString::new(message.replace('\0', "?")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs `body`, catching panics, and turns its outcome into a status,
/// leaving the message of a failure for `tenten_last_error`.
pub(crate) fn guard(body: impl FnOnce() -> Done) -> TentenStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => TentenStatus::Ok,
        Ok(Err(f)) => {
            set_last_error(&f.message);
            f.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".to_owned());
            set_last_error(&format!(
                "internal error in the tenten library (please report it): {what}"
            ));
            TentenStatus::Panic
        }
    }
}

/// The message of the last call on this thread that failed ("" when none
/// has). The text belongs to the library and stays valid until the next
/// failing call on this thread; copy it to keep it.
#[unsafe(no_mangle)]
pub extern "C" fn tenten_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// TENTEN_ABI_VERSION of the library loaded, to check against the header's.
#[unsafe(no_mangle)]
pub extern "C" fn tenten_abi_version() -> u32 {
    crate::TENTEN_ABI_VERSION
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn last_error() -> String {
        // SAFETY: the pointer is this thread's message, alive until the next failure.
        unsafe { CStr::from_ptr(tenten_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message_not_an_abort() {
        let status = guard(|| panic!("boom at the boundary"));
        assert_eq!(status, TentenStatus::Panic);
        assert!(last_error().contains("boom at the boundary"), "{}", last_error());
    }

    #[test]
    fn a_failure_leaves_its_message_for_this_thread_only() {
        let status = guard(|| Err(Failure::new(TentenStatus::Parse, "x.ron:2:3: expected `(`")));
        assert_eq!(status, TentenStatus::Parse);
        assert_eq!(last_error(), "x.ron:2:3: expected `(`");
        let other = std::thread::spawn(last_error).join().unwrap();
        assert_eq!(other, "", "another thread has its own last error");
        assert_eq!(guard(|| Ok(())), TentenStatus::Ok);
    }
}
