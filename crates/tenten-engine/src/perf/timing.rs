//! The timing lab: validate and validate + change timed on a corpus of
//! deals at each CPU-throttle factor of a sweep, summarised as the
//! percentiles, the paper's Table II buckets and the headroom a designer
//! reads off ("fits a phone up to N x slower than this machine").
//!
//! Corpora: realistic deals met in random self-play (as `tenten bench`),
//! gameplays (the paper's own method: games played with the repairing
//! generator, every dealt holder timed as it comes), one board with many
//! seeded holders, or the deals of a batch file.

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::Ordering;

use crate::model::board::{Bits, BoardSize};
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::perf::bench::{Stats, TABLE_II, bucket};
use crate::perf::throttle::{Throttle, short};
use crate::play::random_fill::played_deals;
use crate::progress::Progress;
use crate::search::changer::{ChangeOptions, Outcome, repair};
use crate::search::validator::validate;

/// One frame at 60 Hz, and the paper's budget for the improver.
pub const FRAME_US: f64 = 16_700.0;
pub const PHONE_US: f64 = 100_000.0;

/// A deal of the corpus.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepDeal {
    pub board: Bits,
    pub holder: Vec<PieceIdx>,
}

/// Realistic deals: every holder dealt in games of random weighted pieces at
/// random spots (the corpus of `tenten bench`), every fill level.
pub fn realistic(shapes: &Shapes, set: &PieceSet, k: usize, n: usize, seed: u64) -> Vec<SweepDeal> {
    played_deals(shapes, set, k, n, &mut Generator::new(seed))
        .into_iter()
        .map(|d| SweepDeal {
            board: d.board,
            holder: d.holder,
        })
        .collect()
}

/// Gameplays, the paper's method: `games` games with the repairing
/// generator, `n` dealt holders in all, each recorded as dealt (before the
/// changer). The player places the repaired holder in a solvable order, each
/// piece at a random spot that keeps the rest placeable, so a game ends only
/// on a dead board or at its share of the `n` rounds.
#[allow(clippy::too_many_arguments)] // the corpus settings, as the CLI names them
pub fn gameplay(
    shapes: &Shapes,
    set: &PieceSet,
    k: usize,
    n: usize,
    games: usize,
    seed: u64,
    options: ChangeOptions,
    progress: &Progress,
) -> Vec<SweepDeal> {
    let games = games.max(1);
    let rounds = n.div_ceil(games);
    let mut out = Vec::with_capacity(n);
    // A game that dies before its share leaves deals to find: further games
    // (seeded as game g would be) make them up, so the corpus always holds
    // `n` deals. Each game adds at least its first deal, so this ends.
    for g in 0.. {
        let mut rng = Generator::new(seed ^ (g as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut board: Bits = 0;
        for _ in 0..rounds {
            if out.len() == n || progress.cancelled() {
                return out;
            }
            let holder = rng.deal(set, k);
            out.push(SweepDeal {
                board,
                holder: holder.clone(),
            });
            let r = repair(shapes, set, board, &holder, &mut rng, options);
            if r.outcome == Outcome::Dead {
                break;
            }
            board = play_safely(shapes, board, &r.holder, &mut rng);
        }
        if out.len() == n {
            break;
        }
    }
    out
}

/// Places a solvable holder: the pieces in the order of the solution found,
/// each at a random fitting spot after which the rest can still be placed.
fn play_safely(shapes: &Shapes, board: Bits, holder: &[PieceIdx], rng: &mut Generator) -> Bits {
    let v = validate(shapes, board, holder);
    let Some(solution) = v.solution else {
        return board;
    };
    let order: Vec<PieceIdx> = solution
        .steps()
        .iter()
        .map(|s| holder[usize::from(s.slot)])
        .collect();
    let mut board = v.start;
    for (i, &piece) in order.iter().enumerate() {
        let fits = shapes.shape(piece).fits(board, shapes.geometry.full);
        let anchors: Vec<u32> = (0..128).filter(|&a| fits >> a & 1 == 1).collect();
        let offset = rng.below(anchors.len());
        let rest = &order[i + 1..];
        let next = (0..anchors.len())
            .map(|j| {
                shapes
                    .place(board, piece, anchors[(offset + j) % anchors.len()])
                    .0
            })
            .find(|&b| rest.is_empty() || validate(shapes, b, rest).solvable);
        match next {
            Some(b) => board = b,
            None => return board,
        }
    }
    board
}

/// One board with `n` seeded holders.
pub fn one_board(set: &PieceSet, board: Bits, k: usize, n: usize, seed: u64) -> Vec<SweepDeal> {
    let mut rng = Generator::new(seed);
    (0..n)
        .map(|_| SweepDeal {
            board,
            holder: rng.deal(set, k),
        })
        .collect()
}

/// One deal timed at one factor.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Index of the deal in the corpus.
    pub deal: usize,
    pub factor: f64,
    pub empty: usize,
    pub validate_us: f64,
    /// Validation plus the change loop, when the deal was unsolvable.
    pub change_us: Option<f64>,
    /// Holders the changer tried after the dealt one.
    pub attempts: usize,
    /// Placements the validator tried on the dealt holder.
    pub nodes: u64,
}

/// What a sweep times: the corpus, the changer's settings, the factors.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub set: PieceSet,
    pub size: BoardSize,
    pub deals: Vec<SweepDeal>,
    pub seed: u64,
    pub options: ChangeOptions,
    pub factors: Vec<f64>,
}

/// Times deal `i` at `factor`. The changer is seeded per deal, so every
/// repetition of a batch redraws alike.
pub fn measure(shapes: &Shapes, sweep: &Sweep, i: usize, factor: f64) -> Measurement {
    let d = &sweep.deals[i];
    let throttle = Throttle::new(factor);
    let v = validate(shapes, d.board, &d.holder);
    let validate_us = throttle.time_per_call(|| {
        black_box(validate(shapes, black_box(d.board), black_box(&d.holder)));
    });
    let (change_us, attempts) = if v.solvable {
        (None, 0)
    } else {
        let seed = sweep.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut attempts = 0;
        let us = throttle.time_per_call(|| {
            let r = repair(
                shapes,
                &sweep.set,
                d.board,
                &d.holder,
                &mut Generator::new(seed),
                sweep.options,
            );
            attempts = r.attempts.len().saturating_sub(1);
            black_box(r);
        });
        (Some(us), attempts)
    };
    Measurement {
        deal: i,
        factor,
        empty: shapes.size().cells() - d.board.count_ones() as usize,
        validate_us,
        change_us,
        attempts,
        nodes: v.nodes,
    }
}

/// Runs the sweep factor by factor, handing results over in chunks as they
/// come; stops early when cancelled (returns false then).
pub fn run(sweep: &Sweep, progress: &Progress, mut emit: impl FnMut(Vec<Measurement>)) -> bool {
    const CHUNK: usize = 50;
    let shapes = Shapes::new(&sweep.set, sweep.size);
    let n = sweep.deals.len();
    // Progress counts cost, not deals: a deal at 20x takes 20 times as long
    // as at 1x, so an ETA from the fraction done holds across factors.
    let total: usize = sweep.factors.iter().map(|&f| cost(f)).sum();
    progress.total.store(n * total, Ordering::Relaxed);
    for &factor in &sweep.factors {
        for start in (0..n).step_by(CHUNK) {
            if progress.cancelled() {
                return false;
            }
            let chunk: Vec<Measurement> = (start..(start + CHUNK).min(n))
                .map(|i| {
                    let m = measure(&shapes, sweep, i, factor);
                    progress.done.fetch_add(cost(factor), Ordering::Relaxed);
                    m
                })
                .collect();
            emit(chunk);
        }
    }
    true
}

/// What one deal costs to measure at `factor`, in hundredths of a 1x deal:
/// the throttle stretches every measurement by the factor.
pub fn cost(factor: f64) -> usize {
    (factor * 100.0).round().max(1.0) as usize
}

/// The percentiles at one factor, with the slowest deals.
#[derive(Clone, Debug, PartialEq)]
pub struct FactorSummary {
    pub factor: f64,
    pub validate: Stats,
    /// Over the deals the changer ran on.
    pub change: Stats,
    /// The deals of the maxima, to open them.
    pub slowest_validate: Option<usize>,
    pub slowest_change: Option<usize>,
}

impl FactorSummary {
    /// What the improver takes on the deals that need it most: validate +
    /// change where the changer ran, else validate alone.
    pub fn improver(&self) -> &Stats {
        if self.change.n > 0 {
            &self.change
        } else {
            &self.validate
        }
    }
}

/// One summary per factor measured, in increasing factor.
pub fn summarize(ms: &[Measurement]) -> Vec<FactorSummary> {
    let mut factors: Vec<f64> = ms.iter().map(|m| m.factor).collect();
    factors.sort_by(f64::total_cmp);
    factors.dedup();
    factors
        .into_iter()
        .map(|factor| {
            let at: Vec<&Measurement> = ms.iter().filter(|m| m.factor == factor).collect();
            let slowest = |key: &dyn Fn(&Measurement) -> Option<f64>| {
                at.iter()
                    .filter_map(|m| key(m).map(|t| (t, m.deal)))
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, deal)| deal)
            };
            FactorSummary {
                factor,
                validate: Stats::of(at.iter().map(|m| m.validate_us)),
                change: Stats::of(at.iter().filter_map(|m| m.change_us)),
                slowest_validate: slowest(&|m| Some(m.validate_us)),
                slowest_change: slowest(&|m| m.change_us),
            }
        })
        .collect()
}

/// How a headroom was found in the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Between two measured factors, by linear interpolation.
    Interpolated,
    /// Beyond the largest factor measured: scaled from it (the duty cycle
    /// is linear in the factor).
    Extrapolated,
    /// Already over budget at the smallest factor measured: scaled down.
    Below,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Headroom {
    pub factor: f64,
    pub reach: Reach,
}

impl Headroom {
    /// "6.3x (interpolated)".
    pub fn describe(&self) -> String {
        let how = match self.reach {
            Reach::Interpolated => "interpolated between measured factors",
            Reach::Extrapolated => "extrapolated beyond the largest factor measured",
            Reach::Below => "over budget at the smallest factor measured",
        };
        format!("{:.1}x ({how})", self.factor)
    }
}

/// The largest factor at which `time(factor)` stays within `budget`, from
/// measured points (factor, microseconds) in increasing factor.
pub fn headroom(points: &[(f64, f64)], budget: f64) -> Option<Headroom> {
    let (&(f0, t0), &(fl, tl)) = (points.first()?, points.last()?);
    if t0 > budget {
        return Some(Headroom {
            factor: f0 * budget / t0,
            reach: Reach::Below,
        });
    }
    for pair in points.windows(2) {
        let ((fa, ta), (fb, tb)) = (pair[0], pair[1]);
        if tb > budget {
            return Some(Headroom {
                factor: fa + (budget - ta) * (fb - fa) / (tb - ta),
                reach: Reach::Interpolated,
            });
        }
    }
    Some(Headroom {
        factor: fl * budget / tl.max(f64::MIN_POSITIVE),
        reach: Reach::Extrapolated,
    })
}

/// Headroom of a percentile of the improver's time for a budget.
pub fn headroom_of(summaries: &[FactorSummary], pick: fn(&Stats) -> f64, budget: f64) -> Option<Headroom> {
    let points: Vec<(f64, f64)> = summaries.iter().map(|s| (s.factor, pick(s.improver()))).collect();
    headroom(&points, budget)
}

/// The designer's question answered in one sentence for one factor: "At 6x
/// (low-tier mobile) the slowest deal takes 0.84 ms: fits a 16.7 ms frame."
pub fn frame_sentence(s: &FactorSummary) -> String {
    // The slowest deal of all: validate alone where the deal was solvable,
    // validate + change where the changer ran.
    let stats = Stats {
        n: s.validate.n,
        max: s.validate.max.max(s.change.max),
        ..s.validate
    };
    let at = crate::perf::throttle::describe(s.factor);
    let at = match at.split_once(' ') {
        Some((factor, name)) => format!("{factor} ({name})"),
        None => at,
    };
    if stats.n == 0 {
        return format!("At {at} nothing was measured yet.");
    }
    let slowest = crate::text::time(stats.max);
    let verdict = if stats.max <= FRAME_US {
        "fits a 16.7 ms frame".to_owned()
    } else if stats.max <= PHONE_US {
        "misses a 16.7 ms frame but fits the paper's 100 ms budget".to_owned()
    } else {
        "misses even the paper's 100 ms budget".to_owned()
    };
    format!(
        "At {at} the slowest of {} takes {slowest}: {verdict}.",
        crate::text::count(stats.n as u64, "deal", "deals")
    )
}

/// A warning when a percentile rests on too few deals to differ from the
/// maximum: p99 needs at least 100, p95 at least 20. `None` when enough.
pub fn small_sample_note(n: usize) -> Option<String> {
    let deals = crate::text::count(n as u64, "deal", "deals");
    if n < 20 {
        Some(format!(
            "p95 and p99 rest on {deals}: with fewer than 20 both are about the slowest deal. \
             Measure more deals for a tail that means something."
        ))
    } else if n < 100 {
        Some(format!(
            "p99 rests on {deals}: with fewer than 100 it is the slowest deal, not a percentile."
        ))
    } else {
        None
    }
}

/// One row of Table II at one factor, beside the paper's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct BucketRow {
    pub name: &'static str,
    pub validate: Stats,
    pub change: Stats,
    /// All the validate + change times, for the distribution plot.
    pub change_samples: Vec<f64>,
    pub validate_samples: Vec<f64>,
    pub paper_validate_ms: f64,
    pub paper_change_ms: Option<f64>,
}

/// Table II's eight empty-cell buckets at `factor`.
pub fn table_ii(ms: &[Measurement], factor: f64) -> Vec<BucketRow> {
    TABLE_II
        .iter()
        .enumerate()
        .map(|(b, &(name, paper_v, paper_c))| {
            let at = ms.iter().filter(|m| m.factor == factor && bucket(m.empty) == b);
            let validate_samples: Vec<f64> = at.clone().map(|m| m.validate_us).collect();
            let change_samples: Vec<f64> = at.filter_map(|m| m.change_us).collect();
            BucketRow {
                name,
                validate: Stats::of(validate_samples.iter().copied()),
                change: Stats::of(change_samples.iter().copied()),
                change_samples,
                validate_samples,
                paper_validate_ms: paper_v,
                paper_change_ms: paper_c,
            }
        })
        .collect()
}

/// One CSV row per deal and factor.
pub fn csv(ms: &[Measurement]) -> String {
    let mut out =
        String::from("deal,empty_cells,bucket,throttle,validate_us,validate_change_us,attempts,nodes\n");
    for m in ms {
        let change = m.change_us.map_or(String::new(), |c| format!("{c:.4}"));
        let _ = writeln!(
            out,
            "{},{},{},{},{:.4},{change},{},{}",
            m.deal,
            m.empty,
            TABLE_II[bucket(m.empty)].0,
            short(m.factor),
            m.validate_us,
            m.attempts,
            m.nodes
        );
    }
    out
}

/// The line `tenten bench --throttle` prints for one factor.
pub fn cli_line(s: &FactorSummary) -> String {
    let (v, c) = (&s.validate, &s.change);
    format!(
        "throttle={} deals={} validate_mean_us={:.3} validate_p50_us={:.3} validate_p95_us={:.3} \
         validate_p99_us={:.3} validate_max_us={:.3} change_n={} change_mean_us={:.3} \
         change_p95_us={:.3} change_p99_us={:.3} change_max_us={:.3}",
        short(s.factor),
        v.n,
        v.mean,
        v.p50,
        v.p95,
        v.p99,
        v.max,
        c.n,
        c.mean,
        c.p95,
        c.p99,
        c.max
    )
}

/// The closing line: the p99 headroom of validate + change for both budgets.
pub fn headroom_line(summaries: &[FactorSummary]) -> String {
    let h = |budget| headroom_of(summaries, |s| s.p99, budget).map_or(0.0, |h| h.factor);
    format!(
        "headroom_16ms={:.1} headroom_100ms={:.1}",
        h(FRAME_US),
        h(PHONE_US)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;

    fn m(deal: usize, factor: f64, empty: usize, v: f64, c: Option<f64>) -> Measurement {
        Measurement {
            deal,
            factor,
            empty,
            validate_us: v,
            change_us: c,
            attempts: usize::from(c.is_some()),
            nodes: 3,
        }
    }

    #[test]
    fn headroom_interpolates_inside_the_sweep() {
        let pts = [(1.0, 4_000.0), (4.0, 16_000.0), (6.0, 24_000.0)];
        let h = headroom(&pts, 16_700.0).unwrap();
        assert_eq!(h.reach, Reach::Interpolated);
        // 16,700 lies 700/8,000 of the way from 4x to 6x.
        assert!((h.factor - (4.0 + 2.0 * 700.0 / 8_000.0)).abs() < 1e-9, "{h:?}");
    }

    #[test]
    fn headroom_beyond_or_below_the_sweep_is_scaled_and_says_so() {
        let h = headroom(&[(1.0, 10.0), (20.0, 200.0)], 100_000.0).unwrap();
        assert_eq!(h.reach, Reach::Extrapolated);
        assert!((h.factor - 10_000.0).abs() < 1e-6);
        assert!(h.describe().contains("extrapolated"));
        let h = headroom(&[(2.0, 40_000.0), (4.0, 80_000.0)], 16_700.0).unwrap();
        assert_eq!(h.reach, Reach::Below);
        assert!((h.factor - 2.0 * 16_700.0 / 40_000.0).abs() < 1e-9);
        assert_eq!(headroom(&[], 1.0), None);
    }

    #[test]
    fn summaries_pick_percentiles_and_the_slowest_deal_per_factor() {
        let ms = vec![
            m(0, 1.0, 50, 1.0, None),
            m(1, 1.0, 30, 3.0, Some(9.0)),
            m(0, 4.0, 50, 4.0, None),
            m(1, 4.0, 30, 12.0, Some(36.0)),
        ];
        let s = summarize(&ms);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].factor, 4.0);
        assert_eq!(s[1].validate.max, 12.0);
        assert_eq!(s[1].change.n, 1);
        assert_eq!(s[1].slowest_validate, Some(1));
        assert_eq!(s[0].slowest_change, Some(1));
        assert_eq!(s[1].improver().p99, 36.0);
        let line = cli_line(&s[1]);
        assert!(
            line.starts_with("throttle=4 deals=2 validate_mean_us=8.000 validate_p50_us="),
            "{line}"
        );
        assert!(line.ends_with("change_n=1 change_mean_us=36.000 change_p95_us=36.000 change_p99_us=36.000 change_max_us=36.000"), "{line}");
        let head = headroom_line(&s);
        assert!(
            head.starts_with("headroom_16ms=") && head.contains(" headroom_100ms="),
            "{head}"
        );
    }

    #[test]
    fn table_ii_buckets_and_csv_columns() {
        let ms = vec![
            m(0, 6.0, 20, 1.0, None),
            m(1, 6.0, 21, 2.0, Some(5.0)),
            m(2, 6.0, 81, 3.0, None),
        ];
        let rows = table_ii(&ms, 6.0);
        assert_eq!(rows.len(), 8);
        assert_eq!((rows[0].name, rows[0].validate.n), ("k<21", 1));
        assert_eq!((rows[1].validate.n, rows[1].change.n), (1, 1));
        assert_eq!(rows[7].validate.n, 1);
        assert_eq!(rows[1].paper_change_ms, Some(15.147));
        let text = csv(&ms);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "deal,empty_cells,bucket,throttle,validate_us,validate_change_us,attempts,nodes"
        );
        assert_eq!(lines[1], "0,20,k<21,6,1.0000,,0,3");
        assert_eq!(lines[2], "1,21,21-30,6,2.0000,5.0000,1,3");
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn a_gameplay_corpus_holds_every_deal_asked_even_when_games_die_early() {
        // Only 3x3 squares on 5x5: three never fit, so every game dies at
        // its first deal, far short of the 150 rounds each of two games
        // would need.
        let mut set = PieceSet::classic();
        for p in &mut set.pieces {
            p.weight = u32::from(p.id == "sq3");
        }
        let shapes = Shapes::new(&set, BoardSize::new(5, 5).unwrap());
        let options = ChangeOptions::default();
        let deals = gameplay(&shapes, &set, 3, 300, 2, 7, options, &Progress::default());
        assert_eq!(deals.len(), 300);
        let starts = deals.iter().filter(|d| d.board == 0).count();
        assert_eq!(starts, 300, "one deal per game, each on an empty board");
        // A cancelled corpus stops at once.
        let cancelled = Progress::default();
        cancelled.cancel();
        assert!(gameplay(&shapes, &set, 3, 300, 2, 7, options, &cancelled).is_empty());
    }

    #[test]
    fn corpora_have_the_size_asked_and_gameplays_start_empty() {
        let (set, shapes) = classic();
        let options = ChangeOptions::default();
        let games = gameplay(&shapes, &set, 3, 60, 3, 7, options, &Progress::default());
        assert_eq!(games.len(), 60);
        // Three games of 20 rounds, each starting on an empty board.
        assert_eq!(games[0].board, 0);
        assert_eq!(games[20].board, 0);
        assert!(games.iter().any(|d| d.board.count_ones() > 10));
        // The same seed gives the same corpus.
        assert_eq!(
            games,
            gameplay(&shapes, &set, 3, 60, 3, 7, options, &Progress::default())
        );
        assert_eq!(realistic(&shapes, &set, 3, 25, 1).len(), 25);
        let one = one_board(&set, 0b111, 2, 10, 3);
        assert!(one.iter().all(|d| d.board == 0b111 && d.holder.len() == 2));
    }

    #[test]
    fn the_designers_question_is_answered_in_one_sentence() {
        let stats = |max: f64, n: usize| Stats {
            n,
            max,
            ..Stats::default()
        };
        let summary = |factor, max, n| FactorSummary {
            factor,
            validate: stats(max, n),
            change: stats(0.0, 0),
            slowest_validate: None,
            slowest_change: None,
        };
        assert_eq!(
            frame_sentence(&summary(6.0, 840.0, 500)),
            "At 6x (low-tier mobile) the slowest of 500 deals takes 840 µs: fits a 16.7 ms frame."
        );
        assert!(frame_sentence(&summary(20.0, 50_000.0, 9)).contains("misses a 16.7 ms frame but fits"));
        assert!(frame_sentence(&summary(3.0, 200_000.0, 1)).starts_with("At 3x the slowest of 1 deal"));
        assert!(frame_sentence(&summary(3.0, 0.0, 0)).contains("nothing was measured"));
        // The slowest of all deals: the changer's where it ran and took longer.
        let mixed = FactorSummary {
            change: stats(900.0, 117),
            ..summary(6.0, 100.0, 2000)
        };
        assert!(
            frame_sentence(&mixed).contains("the slowest of 2,000 deals takes 900 µs"),
            "{}",
            frame_sentence(&mixed)
        );
        assert!(
            small_sample_note(9)
                .unwrap()
                .contains("p95 and p99 rest on 9 deals")
        );
        assert!(
            small_sample_note(50)
                .unwrap()
                .starts_with("p99 rests on 50 deals")
        );
        assert_eq!(small_sample_note(100), None);
    }

    #[test]
    fn a_tiny_sweep_measures_every_deal_at_every_factor_and_cancels() {
        let (set, shapes) = classic();
        let sweep = Sweep {
            deals: realistic(&shapes, &set, 3, 12, 5),
            set,
            size: BoardSize::CLASSIC,
            seed: 5,
            options: ChangeOptions::default(),
            factors: vec![1.0, 2.0],
        };
        let progress = Progress::default();
        let mut got = Vec::new();
        // The fraction done after each chunk: weighted by cost, the 12 deals
        // at 1x are a third of the work and the 12 at 2x the rest.
        let mut fractions = Vec::new();
        assert!(run(&sweep, &progress, |chunk| {
            got.extend(chunk);
            fractions.push(progress.fraction());
        }));
        assert_eq!(got.len(), 24);
        assert!((fractions[0] - 1.0 / 3.0).abs() < 1e-6, "{fractions:?}");
        assert_eq!(fractions[1], 1.0);
        assert_eq!(progress.done.load(Ordering::Relaxed), 12 * 100 + 12 * 200);
        assert!(got.iter().all(|m| m.validate_us > 0.0));
        let cancelled = Progress::default();
        cancelled.cancel.store(true, Ordering::Relaxed);
        let mut none = Vec::new();
        assert!(!run(&sweep, &cancelled, |chunk| none.extend(chunk)));
        assert!(none.is_empty());
    }
}
