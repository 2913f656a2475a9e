//! A tune's first steps, before Nelder-Mead: each free weight moved alone
//! (the first simplex's vertices), then a line through the start and the
//! best of them, walked by secant steps on the goals' signed misses.
//!
//! Nelder-Mead in 19 dimensions needs hundreds of evaluations to turn its
//! simplex toward a goal; a skilled player's candidate costs seconds. One
//! weight moved by a third of its range often overshoots a median by far
//! (the 3x3 square from 2 to 8.6 tenths takes a skilled player's median
//! under block-blast-like from 800 rounds to about 150), and the point on
//! that line where the misses vanish is a few secant steps away.

use crate::study::tune_goal::{Evaluation, GOOD_ENOUGH, Goal};

/// The most secant steps along the line.
pub const LINE_STEPS: usize = 5;

/// The signed misses of `e`, per player and goal.
fn residuals(goals: &[Goal], e: &Evaluation) -> Vec<f64> {
    goals
        .iter()
        .cycle()
        .zip(&e.measures)
        .map(|(g, &m)| g.residual(m))
        .collect()
}

/// Scouts from `start`: every vertex in `vertices` evaluated (until
/// `done`), then secant steps on the line through the start and the best
/// vertex. The best point found, or `None` when no vertex beat the start
/// (or `evaluate` was cancelled before any did).
pub fn along_best(
    goals: &[Goal],
    start: &Evaluation,
    vertices: &[Vec<f64>],
    evaluate: impl Fn(&[f64]) -> Option<Evaluation>,
    done: impl Fn() -> bool,
) -> Option<Evaluation> {
    let mut best: Option<Evaluation> = None;
    for v in vertices {
        if done() {
            break;
        }
        let Some(e) = evaluate(v) else { break };
        if e.loss < best.as_ref().map_or(start.loss, |b| b.loss) {
            best = Some(e);
        }
    }
    let vertex = best?;
    Some(walk(goals, start, vertex, evaluate, done))
}

/// Secant steps on the line through `a` (at 0) and `b` (at 1), `b` the
/// better: the best point found, `b` itself when no step beat it.
pub fn walk(
    goals: &[Goal],
    a: &Evaluation,
    b: Evaluation,
    evaluate: impl Fn(&[f64]) -> Option<Evaluation>,
    done: impl Fn() -> bool,
) -> Evaluation {
    let toward = b.x.clone();
    let at = |t: f64| -> Vec<f64> { a.x.iter().zip(&toward).map(|(s, v)| s + t * (v - s)).collect() };
    let mut best = b.clone();
    let mut line: Vec<(f64, Evaluation)> = vec![(0.0, a.clone()), (1.0, b)];
    for _ in 0..LINE_STEPS {
        if done() || best.loss <= GOOD_ENOUGH {
            break;
        }
        line.sort_by(|p, q| p.1.loss.total_cmp(&q.1.loss));
        let Some(t) = next(goals, &line[0], &line[1]) else {
            break;
        };
        if line.iter().any(|(seen, _)| (seen - t).abs() < 1e-3) {
            break;
        }
        let Some(e) = evaluate(&at(t)) else { break };
        if e.loss < best.loss {
            best = e.clone();
        }
        line.push((t, e));
    }
    best
}

/// The secant step through two points of the line: where the straight
/// line through their signed misses comes nearest zero (least squares),
/// within a step of three lines' lengths; `None` when the misses do not
/// move or are not finite.
fn next(goals: &[Goal], (a, ea): &(f64, Evaluation), (b, eb): &(f64, Evaluation)) -> Option<f64> {
    let (ra, rb) = (residuals(goals, ea), residuals(goals, eb));
    let d: Vec<f64> = rb.iter().zip(&ra).map(|(b, a)| b - a).collect();
    let dd: f64 = d.iter().map(|x| x * x).sum();
    let rd: f64 = ra.iter().zip(&d).map(|(r, d)| r * d).sum();
    let t = -rd / dd;
    let step = a + t * (b - a);
    (dd > 0.0 && step.is_finite()).then(|| step.clamp(a - 3.0, a + 3.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::tune_goal::Target;

    fn at(x: f64, loss_of: impl Fn(f64) -> f64, measure: impl Fn(f64) -> f64) -> Evaluation {
        Evaluation {
            n: 0,
            loss: loss_of(measure(x)),
            best: 0.0,
            measures: vec![measure(x)],
            divergence: 0.0,
            x: vec![x],
            intervals: Vec::new(),
            seconds: 0.0,
            games: 1,
        }
    }

    /// A median that falls as a weight grows, overshot by the first vertex:
    /// the line's secant steps land within a tenth of a tolerance, in far
    /// fewer evaluations than the steps allowed.
    #[test]
    fn the_line_finds_the_goal_a_vertex_overshot() {
        let goal = Goal {
            target: Target::MedianRounds(270.0),
            tolerance: 40.0,
        };
        let measure = |w: f64| 800.0 * (-(w - 20.0) / 40.0).exp();
        let loss = move |m: f64| goal.misses_by(m).powi(2);
        let count = std::cell::Cell::new(0);
        let eval = |x: &[f64]| {
            count.set(count.get() + 1);
            Some(at(x[0], loss, measure))
        };
        let start = at(20.0, loss, measure);
        let best = along_best(&[goal], &start, &[vec![86.0], vec![10.0]], eval, || false).unwrap();
        assert!(goal.misses_by(best.measures[0]) < 0.1, "{best:?}");
        assert!(count.get() <= 2 + LINE_STEPS);
        // No vertex better than the start: no line to walk.
        let worse = |x: &[f64]| Some(at(x[0] - 1000.0, loss, measure));
        assert!(along_best(&[goal], &start, &[vec![5.0]], worse, || false).is_none());
        // Done at once: nothing evaluated.
        count.set(0);
        assert!(along_best(&[goal], &start, &[vec![86.0]], eval, || true).is_none());
        assert_eq!(count.get(), 0);
    }
}
