//! Progress and cancel of a long computation, shared between the thread
//! doing it and whoever waits (the window's progress bars and Cancel). The
//! engine's long loops read `cancelled` often enough that a cancel takes
//! effect within milliseconds.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Progress and cancel shared with whoever waits for a long computation.
#[derive(Debug, Default)]
pub struct Progress {
    pub done: AtomicUsize,
    pub total: AtomicUsize,
    pub cancel: AtomicBool,
}

impl Progress {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Asks the computation to stop at its next check.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn set_total(&self, total: usize) {
        self.total.store(total, Ordering::Relaxed);
    }

    pub fn advance(&self, by: usize) {
        self.done.fetch_add(by, Ordering::Relaxed);
    }

    /// Done over total, 0 to 1.
    pub fn fraction(&self) -> f32 {
        let total = self.total.load(Ordering::Relaxed).max(1);
        (self.done.load(Ordering::Relaxed) as f32 / total as f32).min(1.0)
    }

    /// Seconds left, from `seconds` spent on the fraction done (units of
    /// cost, so weighted by cost); none before a hundredth is done.
    pub fn seconds_left(&self, seconds: f64) -> Option<f64> {
        let f = self.fraction();
        (f > 0.01).then(|| seconds * f64::from(1.0 - f) / f64::from(f))
    }
}
