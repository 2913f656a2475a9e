//! `tenten tune`: a generator file's weights tuned toward targets for a
//! player, the best checked on fresh seeds and written as a generator file.

use std::sync::atomic::Ordering;

use super::*;
use tenten_engine::study::tune::{self, Verdict};
use tenten_engine::study::tune_run::{self, Options};

/// Tunes; the verdict of the whole tune on the hold-out.
pub(super) fn cmd_tune(a: Options, file: &Path, out: &mut String) -> Result<Verdict, FormatError> {
    let req = tune_run::request(&a)?;
    eprintln!(
        "tuning {} weights of {} for {} ({} {} a candidate, {:.0} s)...",
        req.free.len(),
        req.base.file.name,
        tune_run::who(&req, &a),
        a.games,
        tune_run::unit(&req),
        a.budget
    );
    let count = std::sync::atomic::AtomicUsize::new(0);
    // Each new best is written at once (atomically), so a run stopped by
    // Ctrl+C or a kill keeps the best generator found so far.
    let failed = std::cell::RefCell::new(None);
    let report = tune::tune(&req, &Progress::default(), |e| {
        if e.n == 0 {
            eprintln!("  {}", tune_run::outlook(&req, e));
        }
        // Every tenth, and every new best: a slow tune still shows progress.
        if count.fetch_add(1, Ordering::Relaxed).is_multiple_of(10) || (e.n > 0 && e.loss == e.best) {
            // Raced out, or sharpened: the games behind the figure.
            let raced = if e.games != req.plan.games {
                format!(" (on {} {})", e.games, tune_run::unit(&req))
            } else {
                String::new()
            };
            eprintln!(
                "  evaluation {} loss {:.5} best {:.5}{raced}",
                e.n, e.loss, e.best
            );
        }
        if e.loss == e.best && failed.borrow().is_none() {
            let note = format!(
                "the best so far, evaluation {} (loss {:.5}), not yet checked on the hold-out.",
                e.n, e.loss
            );
            let text = tune_run::tuned_file(&req, &a, &tune::candidate(&req, &e.x), file, &note);
            if let Err(err) = formats::write_atomic(file, &text) {
                *failed.borrow_mut() = Some(err);
            }
        }
    })
    .ok_or_else(|| FormatError::new("tune", None, "the tune stopped before its first evaluation"))?;
    if let Some(err) = failed.into_inner() {
        return Err(err);
    }
    let cap = report.cap;
    for c in report.holdout.iter().filter(|c| c.verdict != Verdict::Met) {
        let needs = match c.needed {
            Some(n) if c.verdict == Verdict::Undecided => format!("; about {n} would decide it"),
            None if c.verdict == Verdict::Undecided => "; it sits on the tolerance's edge".to_owned(),
            _ => String::new(),
        };
        eprintln!(
            "{}: {} for {}: {} ({:.1} % interval) on {} fresh {}, goal {} within {}{needs}",
            c.verdict.word().to_uppercase(),
            c.goal.target.name(),
            c.player,
            c.holdout.show(cap),
            100.0 * c.level,
            c.games,
            tune_run::unit(&req),
            c.goal.target.goal(),
            c.goal.tolerance
        );
    }
    for line in tune_run::lines(&req, &report) {
        let _ = writeln!(out, "{line}");
    }
    let note = tune_run::final_note(&req, &a, &report);
    formats::write_atomic(file, &tune_run::tuned_file(&req, &a, &report.tuned, file, &note))?;
    Ok(report.verdict())
}
