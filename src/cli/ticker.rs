//! A long CLI computation's progress on stderr: every ten seconds, how far
//! the engine's `Progress` says it is and about how long is left, so a run
//! of an hour is not an hour of silence.

use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use tenten_engine::progress::Progress;

/// How often a line is said.
const EVERY: Duration = Duration::from_secs(10);

/// Runs `work`, saying every ten seconds `  WHAT: DONE of TOTAL UNIT (P %),
/// about S s left` from `progress` (without the share and the estimate
/// while the total is unknown).
pub fn ticking<T>(what: &str, unit: &str, progress: &Progress, work: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let (finished, wait) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // Woken at once when the work ends (the sender dropped), so a
            // timed run is not held up by the reporter's join.
            while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(EVERY) {
                eprintln!("{}", line(what, unit, progress, started.elapsed()));
            }
        });
        let out = work();
        drop(finished);
        out
    })
}

/// One progress line, after `elapsed`.
fn line(what: &str, unit: &str, progress: &Progress, elapsed: Duration) -> String {
    let done = progress.done.load(Ordering::Relaxed);
    let total = progress.total.load(Ordering::Relaxed);
    if total == 0 || done > total {
        return format!("  {what}: {done} {unit}");
    }
    let left = progress
        .seconds_left(elapsed.as_secs_f64())
        .map_or(String::new(), |s| format!(", about {s:.0} s left"));
    // Down, so 99.6 % is not said as a 100 % with work left.
    format!(
        "  {what}: {done} of {total} {unit} ({} %){left}",
        100 * done / total
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_the_share_and_what_is_left_once_there_is_a_total() {
        let p = Progress::default();
        let ten = Duration::from_secs(10);
        p.advance(5);
        assert_eq!(line("planning", "sessions", &p, ten), "  planning: 5 sessions");
        p.set_total(20);
        assert_eq!(
            line("planning", "sessions", &p, ten),
            "  planning: 5 of 20 sessions (25 %), about 30 s left"
        );
        let none = Progress::default();
        none.set_total(4);
        assert_eq!(line("x", "games", &none, ten), "  x: 0 of 4 games (0 %)");
        // More done than the total said (a total still growing): no share.
        p.advance(30);
        assert_eq!(line("planning", "sessions", &p, ten), "  planning: 35 sessions");
    }

    #[test]
    fn the_work_is_returned_and_the_reporter_stops_with_it() {
        let p = Progress::default();
        let t = Instant::now();
        assert_eq!(ticking("x", "games", &p, || 7), 7);
        // The scope joined the reporter: it woke at the end, not after a
        // ten-second line.
        assert!(t.elapsed() < EVERY);
    }
}
