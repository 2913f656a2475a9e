//! The one job type of the window. Anything that can take longer than a
//! frame runs on a named thread that streams messages over a channel and
//! asks for a repaint; progress and cancel are shared through the engine's
//! `Progress`, whose cancel flag the engine's inner loops read. A job ends
//! when its channel disconnects (the worker returned or died), never on a
//! counter, so nothing the worker sent is lost.

use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tenten_engine::progress::Progress;

/// A background job streaming messages of type `M`.
pub struct Job<M> {
    rx: Receiver<M>,
    progress: Arc<Progress>,
    started: Instant,
    thread: Watch,
    ended: bool,
}

/// A handle on a job's thread that outlives the job, so whoever cancelled
/// it (a test, a newer job) can tell that the worker has stopped.
#[derive(Clone, Debug)]
pub struct Watch {
    name: String,
    handle: Arc<Mutex<Option<JoinHandle<()>>>>,
}

impl Watch {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Both watch the same thread.
    pub fn is(&self, other: &Watch) -> bool {
        Arc::ptr_eq(&self.handle, &other.handle)
    }

    /// The worker's thread has returned.
    pub fn finished(&self) -> bool {
        let handle = self.handle.lock().unwrap_or_else(|e| e.into_inner());
        handle.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Waits up to `timeout` for the thread to return, joins it and tells
    /// how long it took; `None` if it is still running.
    pub fn join_within(&self, timeout: Duration) -> Option<Duration> {
        let start = Instant::now();
        while !self.finished() {
            if start.elapsed() > timeout {
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let took = start.elapsed();
        let mut handle = self.handle.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = handle.take() {
            // A worker that panicked has ended too; the panic was reported.
            let _ = h.join();
        }
        Some(took)
    }
}

impl<M: Send + 'static> Job<M> {
    /// Runs `work` on a thread named `name`. Each message it sends arrives
    /// in order and asks for a repaint (`send` may be called from rayon's
    /// threads too); `work` reads `Progress::cancelled`
    /// in its inner loops and returns when asked to.
    pub fn spawn(
        name: &str,
        ctx: &egui::Context,
        work: impl FnOnce(&(dyn Fn(M) + Sync), &Arc<Progress>) + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, rx) = channel();
        let progress = Arc::new(Progress::default());
        let shared = Arc::clone(&progress);
        let ctx = ctx.clone();
        let handle = std::thread::Builder::new().name(name.to_owned()).spawn(move || {
            let send = |m: M| {
                // The window may have closed or moved on; nobody to tell then.
                let _ = tx.send(m);
                ctx.request_repaint();
            };
            work(&send, &shared);
            drop(tx);
            // The end itself is news: the window takes the disconnect.
            ctx.request_repaint();
        })?;
        Ok(Self {
            rx,
            progress,
            started: Instant::now(),
            thread: Watch {
                name: name.to_owned(),
                handle: Arc::new(Mutex::new(Some(handle))),
            },
            ended: false,
        })
    }

    /// Everything that has arrived since the last call, in order. After
    /// the last message, `ended` turns true.
    pub fn drain(&mut self) -> Vec<M> {
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(m) => out.push(m),
                Err(TryRecvError::Empty) => return out,
                Err(TryRecvError::Disconnected) => {
                    self.ended = true;
                    return out;
                }
            }
        }
    }

    /// The worker has returned and every message it sent was drained.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Asks the worker to stop; it returns at its next check.
    pub fn cancel(&self) {
        self.progress.cancel();
    }

    pub fn cancelled(&self) -> bool {
        self.progress.cancelled()
    }

    pub fn watch(&self) -> Watch {
        self.thread.clone()
    }

    /// The units of cost done so far, as the worker counts them.
    pub fn done(&self) -> usize {
        self.progress.done.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Done over total (the worker counts in units of cost, so the ETA is
    /// weighted by cost), and the estimated seconds left.
    pub fn progress(&self) -> (f32, Option<f64>) {
        (
            self.progress.fraction(),
            self.progress.seconds_left(self.seconds()),
        )
    }
}

/// What every panel asks of its background work, which it keeps as at most
/// one job at a time: whether it runs, how far it is, its thread (tests
/// join it after a cancel), and cancel. A panel only says where its job is.
pub trait Background {
    type Message: Send + 'static;

    /// The job running now, if any.
    fn job(&self) -> Option<&Job<Self::Message>>;

    fn running(&self) -> bool {
        self.job().is_some()
    }

    /// Done over total, and the estimated seconds left.
    fn progress(&self) -> Option<(f32, Option<f64>)> {
        self.job().map(Job::progress)
    }

    fn watches(&self) -> Vec<Watch> {
        self.job().map(Job::watch).into_iter().collect()
    }

    /// Asks the worker to stop; what it sent so far stays, and the job ends
    /// when the worker returns.
    fn cancel(&self) {
        if let Some(job) = self.job() {
            job.cancel();
        }
    }
}

/// A job nobody holds any more (superseded, or its window closed) is
/// cancelled: its worker returns at its next check, and a `Watch` taken
/// before can still see that it did.
/// Polls a job whose answer is a result or an error: keeps the last of
/// each that arrived, and drops the job once it has ended. True in the
/// frame it ends.
pub fn poll_answer<T: Send + 'static>(
    job: &mut Option<Job<Result<T, String>>>,
    result: &mut Option<T>,
    error: &mut Option<String>,
) -> bool {
    let Some(j) = job.as_mut() else {
        return false;
    };
    for answer in j.drain() {
        match answer {
            Ok(r) => *result = Some(r),
            Err(e) => *error = Some(e),
        }
    }
    if !j.ended() {
        return false;
    }
    *job = None;
    true
}

impl<M> Drop for Job<M> {
    fn drop(&mut self) {
        self.progress.cancel();
    }
}

/// A fixed-width progress bar with the percentage and the time left,
/// repainting while it is shown.
pub fn progress_bar(ui: &mut egui::Ui, (f, eta): (f32, Option<f64>)) {
    let eta = eta.map_or("estimating…".to_owned(), |s| format!("about {s:.0} s left"));
    ui.add(
        egui::ProgressBar::new(f)
            .desired_width(260.0)
            .text(format!("{:.0} % · {eta}", f * 100.0)),
    );
    ui.ctx()
        .request_repaint_after(std::time::Duration::from_millis(200));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_ends_on_disconnect_with_every_message_taken() {
        let ctx = egui::Context::default();
        let mut job = Job::spawn("test-job", &ctx, |send, _| {
            for i in 0..1000 {
                send(i);
            }
        })
        .unwrap();
        assert!(job.watch().join_within(Duration::from_secs(30)).is_some());
        let mut got = Vec::new();
        while !job.ended() {
            got.extend(job.drain());
        }
        assert_eq!(got, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn cancel_reaches_the_worker_and_its_thread_ends() {
        let ctx = egui::Context::default();
        let job = Job::<()>::spawn("test-spin", &ctx, |_, progress| {
            while !progress.cancelled() {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .unwrap();
        let watch = job.watch();
        assert!(!watch.finished(), "the worker spins until cancelled");
        job.cancel();
        assert!(watch.join_within(Duration::from_secs(30)).is_some());
    }

    #[test]
    fn a_dropped_job_is_cancelled_and_its_thread_ends() {
        let ctx = egui::Context::default();
        let job = Job::<()>::spawn("test-drop", &ctx, |_, progress| {
            while !progress.cancelled() {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .unwrap();
        let watch = job.watch();
        drop(job);
        assert!(watch.join_within(Duration::from_secs(30)).is_some());
    }

    #[test]
    fn a_worker_that_panics_ends_the_job() {
        let ctx = egui::Context::default();
        let mut job = Job::<u8>::spawn("test-panic", &ctx, |send, _| {
            send(1);
            panic!("boom");
        })
        .unwrap();
        assert!(job.watch().join_within(Duration::from_secs(30)).is_some());
        assert_eq!(job.drain(), vec![1]);
        assert!(job.ended());
    }
}
