//! Long calls run without the GIL on a worker thread while the caller's
//! thread checks Python's signals; Ctrl+C cancels the engine's `Progress`,
//! which its inner loops read, and the call raises KeyboardInterrupt once
//! the worker has stopped.

use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use pyo3::prelude::*;
use tenten_engine::progress::Progress;

/// Runs `work` (given the progress to honour), checking for Ctrl+C every
/// 50 ms. `work` returns `None` only when cancelled.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&Progress) -> Option<T> + Send,
) -> PyResult<T> {
    let progress = Progress::default();
    py.detach(|| {
        std::thread::scope(|s| {
            // The worker says when it is done, so a short call returns at
            // once rather than at the next check.
            let (done, finished) = std::sync::mpsc::channel();
            let progress = &progress;
            let worker = s.spawn(move || {
                let result = work(progress);
                let _ = done.send(());
                result
            });
            let mut signal = Ok(());
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(Duration::from_millis(50)) {
                if signal.is_ok() {
                    signal = Python::attach(|py| py.check_signals());
                    if signal.is_err() {
                        progress.cancel();
                    }
                }
            }
            let result = worker.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            signal?;
            result.ok_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("cancelled"))
        })
    })
}
