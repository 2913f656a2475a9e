//! Many self-play games per (player, generator), on all cores, and the
//! figures a designer compares: rounds survived (mean with a 95 % interval,
//! quartiles, censored; the Kaplan-Meier curve, median and restricted mean
//! with intervals, and the hazard), score, ends by kind and the unfair and
//! stuck shares of losses, unsolvable deals, repairs, and how far the dealt
//! pieces drift from the weights.

use rayon::prelude::*;

use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::dealers;
use crate::play::game::{self, BANDS, End, Game, Round};
use crate::play::who::Who;
use crate::progress::Progress;
use crate::stats::divergence;
use crate::stats::histogram::TimeHistogram;
use crate::stats::inference::{self, Paired};
use crate::stats::survival::{self, HazardBin, Survival};

pub use crate::study::plan::Plan;

/// Game g of every generator starts from seed + g: paired comparisons.
pub fn game_seed(plan: &Plan, g: usize) -> u64 {
    plan.seed.wrapping_add(g as u64)
}

/// Plays game `g` of `player` against `generator` (labels of the plan),
/// keeping every round when `record` is given (a replay plays the game
/// again: games are seeded, so it is the same game). `None` when cancelled
/// or when a label is not the plan's.
#[allow(clippy::too_many_arguments)]
pub fn play(
    plan: &Plan,
    shapes: &Shapes,
    player: &str,
    generator: &str,
    g: usize,
    record: Option<&mut Vec<Round>>,
    progress: &Progress,
) -> Option<Game> {
    let mut dealer = plan.dealing(generator)?.dealer(&plan.set, plan.options);
    play_with(
        plan,
        shapes,
        plan.who(player)?,
        dealer.as_mut(),
        g,
        record,
        progress,
    )
}

/// Plays game `g` of `who` against `dealer`.
fn play_with(
    plan: &Plan,
    shapes: &Shapes,
    who: &Who,
    dealer: &mut dyn dealers::Dealer,
    g: usize,
    record: Option<&mut Vec<Round>>,
    progress: &Progress,
) -> Option<Game> {
    let mut strategy = who.strategy();
    game::play_game(
        shapes,
        &plan.set,
        plan.k,
        dealer,
        strategy.as_mut(),
        game_seed(plan, g),
        plan.max_rounds,
        record,
        progress,
    )
}

/// Plays games `range` of `player` against `generator` in parallel, each
/// game advancing `progress` by `cost` (see `game_cost`); `None` when
/// cancelled.
pub fn run_range(
    plan: &Plan,
    player: &str,
    generator: &str,
    range: std::ops::Range<usize>,
    cost: usize,
    progress: &Progress,
) -> Option<Vec<Game>> {
    in_parallel(plan, range, cost, progress, |shapes, g| {
        play(plan, shapes, player, generator, g, None, progress)
    })
}

/// Plays the games numbered `games` (a shard's, or those a checkpoint
/// lacks) of `player` against `generator` in parallel, in the order given;
/// `None` when cancelled.
pub fn run_games(
    plan: &Plan,
    player: &str,
    generator: &str,
    games: &[usize],
    cost: usize,
    progress: &Progress,
) -> Option<Vec<Game>> {
    in_parallel(plan, games.to_vec(), cost, progress, |shapes, g| {
        play(plan, shapes, player, generator, g, None, progress)
    })
}

/// Plays games `range` of `player` against a generator file held in memory
/// (a candidate of a tune), in parallel; `None` when cancelled.
pub fn run_spec(
    plan: &Plan,
    player: &str,
    spec: &crate::play::generator_file::GeneratorSpec,
    range: std::ops::Range<usize>,
    progress: &Progress,
) -> Option<Vec<Game>> {
    // A tune measures its progress in time, not games: these advance nothing.
    let who = plan.who(player)?;
    in_parallel(plan, range, 0, progress, |shapes, g| {
        let mut dealer = crate::play::file_dealer::FileDealer::new(spec.clone());
        play_with(plan, shapes, who, &mut dealer, g, None, progress)
    })
}

/// Games `range` played by `one` on all cores, in seed order; `None` when
/// cancelled (or a game could not start).
fn in_parallel(
    plan: &Plan,
    range: impl IntoParallelIterator<Item = usize>,
    cost: usize,
    progress: &Progress,
    one: impl Fn(&Shapes, usize) -> Option<Game> + Sync,
) -> Option<Vec<Game>> {
    let shapes = Shapes::new(&plan.set, plan.shapes_size);
    let games: Vec<Option<Game>> = range
        .into_par_iter()
        .map(|g| {
            if progress.cancelled() {
                return None;
            }
            let game = one(&shapes, g)?;
            progress.advance(cost);
            Some(game)
        })
        .collect();
    games.into_iter().collect()
}

/// Plays every game of `player` against `generator`, in parallel; `None`
/// when cancelled.
pub fn run(plan: &Plan, player: &str, generator: &str, progress: &Progress) -> Option<Vec<Game>> {
    run_range(plan, player, generator, 0..plan.games, 1, progress)
}

/// About how long a game of `player` takes, in microseconds on one core,
/// for a progress bar whose ETA weighs a machine player's game (thousands
/// of searched rounds) against a novice's (twenty quick ones). From the
/// medians and rates measured on 10x10 with the random generator (docs/players.md),
/// the searching players' rate scaled to the plan's board and holder.
pub fn game_cost(plan: &Plan, player: &str) -> usize {
    let searching = crate::play::coelho::rounds_per_second_estimate(plan.k, plan.shapes_size.cells());
    // A preset by its name; a player file by its parameters' nearest preset.
    let name = match plan.who(player) {
        Some(Who::Greedy) => "greedy",
        Some(Who::Coelho { .. }) => "coelho",
        Some(Who::Model(p)) => p.name.as_str(),
        None => player,
    };
    let (rounds, per_second) = match name {
        "random" => (6.0, 300_000.0),
        "greedy" => (21.0, 700_000.0),
        "novice" => (21.0, 80_000.0),
        "casual" => (102.0, 75_000.0),
        "skilled" => (341.0, 2.0 * searching),
        "expert" => (950.0, 2.0 * searching),
        "machine" | "coelho" => (20_000.0, 2.0 * searching),
        // A player file: as slow as a searching player, to be safe.
        _ => (1_000.0, 2.0 * searching),
    };
    let rounds = f64::min(rounds, f64::from(plan.max_rounds));
    ((rounds / per_second * 1e6) as usize).max(1)
}

/// Replays game `g` of `player` against `generator` round by round; `None`
/// when cancelled.
pub fn replay(
    plan: &Plan,
    player: &str,
    generator: &str,
    g: usize,
    progress: &Progress,
) -> Option<(Game, Vec<Round>)> {
    let shapes = Shapes::new(&plan.set, plan.shapes_size);
    let mut rounds = Vec::new();
    let game = play(plan, &shapes, player, generator, g, Some(&mut rounds), progress)?;
    Some((game, rounds))
}

/// Pieces dealt over `games`, by piece and fill band.
pub fn dealt_by_band(games: &[Game], pieces: usize) -> Vec<[u64; BANDS]> {
    let mut out = vec![[0u64; BANDS]; pieces];
    for g in games {
        for (o, d) in out.iter_mut().zip(&g.dealt) {
            for b in 0..BANDS {
                o[b] += u64::from(d[b]);
            }
        }
    }
    out
}

/// The figures of one (player, generator).
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub games: usize,
    pub rounds_mean: f64,
    /// Half the width of the 95 % interval of the mean (Student's t); `None`
    /// below two games. A lower bound when games were censored.
    pub rounds_ci95: Option<f64>,
    /// Kaplan-Meier: the curve with its band, the median and restricted
    /// mean with their intervals (censored games count as alive at the cap).
    pub km: Survival,
    /// The chance to lose the next deal, by rounds survived, binned.
    pub hazard: Vec<HazardBin>,
    /// The sample median and quartiles of rounds (with censored games,
    /// lower bounds: `km` has the median that counts them).
    pub rounds_median: f64,
    pub rounds_q1: f64,
    pub rounds_q3: f64,
    pub censored: usize,
    pub score_mean: f64,
    pub unfair: usize,
    pub stuck: usize,
    pub dead: usize,
    /// Of the losses (unfair, stuck, dead), the share unfair and the share
    /// stuck, each with its Wilson 95 % interval; `None` without losses.
    pub unfair_share: Option<(f64, f64, f64)>,
    pub stuck_share: Option<(f64, f64, f64)>,
    pub unsolvable_dealt: u64,
    pub repairs: u64,
    pub chi2: f64,
    pub kl: f64,
    /// Chi-square and KL of the pieces dealt on boards in each fill band,
    /// and how many pieces were dealt in each.
    pub chi2_by_band: [f64; BANDS],
    pub kl_by_band: [f64; BANDS],
    pub dealt_by_band: [u64; BANDS],
    /// Pieces dealt, by piece and fill band (what the two above sum).
    pub dealt: Vec<[u64; BANDS]>,
    /// Time to validate a holder as drawn, and to deal one drawn unsolvable.
    pub validate_us: TimeHistogram,
    pub change_us: TimeHistogram,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

pub fn summarize(games: &[Game], set: &PieceSet) -> Summary {
    let n = games.len();
    let mut rounds: Vec<f64> = games.iter().map(|g| f64::from(g.rounds)).collect();
    rounds.sort_by(f64::total_cmp);
    let mean = rounds.iter().sum::<f64>() / n.max(1) as f64;
    let timed: Vec<(u32, bool)> = games.iter().map(|g| (g.rounds, g.end == End::Censored)).collect();
    let count = |e: End| games.iter().filter(|g| g.end == e).count();
    let losses = n - count(End::Censored);
    let weights = set.weights();
    let by_band = dealt_by_band(games, set.pieces.len());
    let overall: Vec<u64> = by_band.iter().map(|b| b.iter().sum()).collect();
    let mut chi2_by_band = [0.0; BANDS];
    let mut kl_by_band = [0.0; BANDS];
    let mut dealt_in_band = [0u64; BANDS];
    for b in 0..BANDS {
        let band: Vec<u64> = by_band.iter().map(|p| p[b]).collect();
        dealt_in_band[b] = band.iter().sum();
        if dealt_in_band[b] > 0 {
            chi2_by_band[b] = divergence::chi_square(&band, &weights);
            kl_by_band[b] = divergence::kl_divergence(&band, &weights);
        }
    }
    let mut validate_us = TimeHistogram::default();
    let mut change_us = TimeHistogram::default();
    for g in games {
        validate_us.merge(&g.validate_us);
        change_us.merge(&g.change_us);
    }
    Summary {
        games: n,
        rounds_mean: mean,
        rounds_ci95: inference::mean_interval(&rounds).map(|(_, h)| h),
        km: survival::kaplan_meier(&timed),
        hazard: survival::hazard(&timed),
        rounds_median: quantile(&rounds, 0.5),
        rounds_q1: quantile(&rounds, 0.25),
        rounds_q3: quantile(&rounds, 0.75),
        censored: count(End::Censored),
        score_mean: games.iter().map(|g| g.score as f64).sum::<f64>() / n.max(1) as f64,
        unfair: count(End::Unfair),
        stuck: count(End::Stuck),
        dead: count(End::Dead),
        unfair_share: survival::share(count(End::Unfair), losses),
        stuck_share: survival::share(count(End::Stuck), losses),
        unsolvable_dealt: games.iter().map(|g| u64::from(g.unsolvable_dealt)).sum(),
        repairs: games.iter().map(|g| u64::from(g.repairs)).sum(),
        chi2: divergence::chi_square(&overall, &weights),
        kl: divergence::kl_divergence(&overall, &weights),
        chi2_by_band,
        kl_by_band,
        dealt_by_band: dealt_in_band,
        dealt: by_band,
        validate_us,
        change_us,
    }
}

/// A paired comparison of rounds survived by two generators on the same
/// seeds (a - b), restricted to the round cap: a game cut off by the cap
/// counts the cap, so each difference is of rounds cut there and the mean
/// difference is the difference of the two restricted means, the figure
/// the censoring leaves measurable. `censored` says how many pairs had a
/// game cut off (then the difference beyond the cap is unknown).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedRounds {
    pub test: Paired,
    pub cap: u32,
    pub censored: usize,
}

/// The paired test (Student's t on the per-seed differences of rounds
/// restricted to `cap`); `None` below `inference::MIN_PAIRED` pairs ("too
/// few games").
pub fn paired(a: &[Game], b: &[Game], cap: u32) -> Option<PairedRounds> {
    let pairs: Vec<(&Game, &Game)> = a.iter().zip(b).filter(|(x, y)| x.seed == y.seed).collect();
    let d: Vec<f64> = pairs
        .iter()
        .map(|(x, y)| f64::from(x.rounds.min(cap)) - f64::from(y.rounds.min(cap)))
        .collect();
    Some(PairedRounds {
        test: inference::paired_t(&d)?,
        cap,
        censored: pairs
            .iter()
            .filter(|(x, y)| x.end == End::Censored || y.end == End::Censored)
            .count(),
    })
}

/// The line `tenten simulate` prints for one (player, generator). The
/// median is Kaplan-Meier's (games at the cap count as alive); a figure
/// that does not exist prints `none`: a median or interval end beyond the
/// longest game, a share without losses, a mean or interval without games.
pub fn cli_line(player: &str, generator: &str, s: &Summary, run: &str, rounds_per_s: f64) -> String {
    let opt = |v: Option<u32>| v.map_or("none".to_owned(), |v| v.to_string());
    let (lo, hi) = s.km.median_ci;
    // `+ 0.0` everywhere: a negative zero prints as 0, never -0.000.
    let rmean =
        s.km.rmean
            .map_or("none".to_owned(), |m| format!("{:.1}", m + 0.0));
    let rmean_ci = match s.km.rmean_ci {
        Some((lo, hi)) => format!("{:.1},{:.1}", lo + 0.0, hi + 0.0),
        None => "none".to_owned(),
    };
    let share = |x: Option<(f64, f64, f64)>| match x {
        Some((p, lo, hi)) => (
            format!("{:.3}", p + 0.0),
            format!("{:.3},{:.3}", lo + 0.0, hi + 0.0),
        ),
        None => ("none".to_owned(), "none".to_owned()),
    };
    let (unfair_share, unfair_share_ci) = share(s.unfair_share);
    let (stuck_share, stuck_share_ci) = share(s.stuck_share);
    format!(
        "player={player} generator={generator} strategy={player} games={} rounds_mean={:.3} rounds_median={} rounds_median_ci={},{} rounds_rmean={rmean} rounds_rmean_ci={rmean_ci} rounds_q1={:.1} rounds_q3={:.1} censored={} score_mean={:.1} unfair={} stuck={} dead={} unfair_share={unfair_share} unfair_share_ci={unfair_share_ci} stuck_share={stuck_share} stuck_share_ci={stuck_share_ci} unsolvable_dealt={} repairs={} chi2={:.3} kl={:.6} run={run} rounds_per_s={:.0}",
        s.games,
        s.rounds_mean + 0.0,
        opt(s.km.median),
        opt(lo),
        opt(hi),
        s.rounds_q1 + 0.0,
        s.rounds_q3 + 0.0,
        s.censored,
        s.score_mean + 0.0,
        s.unfair,
        s.stuck,
        s.dead,
        s.unsolvable_dealt,
        s.repairs,
        s.chi2 + 0.0,
        s.kl + 0.0,
        rounds_per_s
    )
}

/// A result: who played, against which generator, and the games.
pub type Row = (String, String, Vec<Game>);

/// One CSV row per game (the strategy column names the player).
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from("generator,strategy,seed,rounds,score,end,unsolvable_dealt,repairs\n");
    for (player, generator, games) in rows {
        for g in games {
            out.push_str(&format!(
                "{generator},{player},{},{},{},{:?},{},{}\n",
                g.seed, g.rounds, g.score, g.end, g.unsolvable_dealt, g.repairs
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::BoardSize;

    fn plan(generators: &[&str]) -> Plan {
        Plan {
            shapes_size: BoardSize::new(8, 8).unwrap(),
            games: 60,
            max_rounds: 1_000,
            ..Plan::named(
                PieceSet::classic(),
                &["greedy"],
                generators,
                crate::play::coelho::CoelhoWeights::BEST,
            )
            .unwrap()
        }
    }

    #[test]
    fn every_statistic_is_defined_for_no_game_one_game_and_all_censored() {
        let set = PieceSet::classic();
        let none = summarize(&[], &set);
        assert_eq!(
            (none.games, none.rounds_ci95, none.km.median, none.unfair_share),
            (0, None, None, None)
        );
        for x in [
            none.rounds_mean,
            none.rounds_median,
            none.score_mean,
            none.chi2,
            none.kl,
        ] {
            assert!(x.is_finite(), "{none:?}");
        }
        let mut p = plan(&["random"]);
        p.games = 1;
        let one = run(&p, "greedy", "random", &Progress::default()).unwrap();
        let s = summarize(&one, &p.set);
        assert_eq!(s.rounds_ci95, None, "no interval from one game, not ±0.0");
        assert!(s.chi2.is_finite() && s.kl.is_finite());
        // A cap of 1 round censors every game: the median is unknown, not 1.
        p.games = 12;
        p.max_rounds = 1;
        let capped = run(&p, "greedy", "random", &Progress::default()).unwrap();
        let s = summarize(&capped, &p.set);
        assert_eq!(s.censored, 12);
        assert_eq!((s.km.median, s.km.rmean), (None, Some(1.0)));
        assert_eq!(
            (s.unfair_share, s.stuck_share),
            (None, None),
            "no losses: no shares"
        );
        let line = cli_line("greedy", "random", &s, "f", 1.0);
        assert!(!line.contains("NaN") && !line.contains("inf"), "{line}");
        assert!(!line.contains("=-0.0") && !line.contains(",-0.0"), "{line}");
        // Every game at the cap of 1: the restricted mean is 1, its interval
        // not zero-width (twelve games leave room for a loss at round 0 with
        // chance up to 22 %).
        assert!(
            line.contains(" rounds_rmean=1.0 rounds_rmean_ci=0.8,1.0 "),
            "{line}"
        );
        assert!(
            line.contains(" rounds_median=none rounds_median_ci=none,none "),
            "{line}"
        );
        assert!(s.rounds_ci95.is_some_and(f64::is_finite));
        // Two games: too few for a paired test, where the normal law used
        // to call the generators different.
        assert_eq!(paired(&one, &one, 1), None);
    }

    #[test]
    fn summaries_count_every_game_and_a_paired_test_tells_generators_apart() {
        let p = plan(&["random", "repair"]);
        let progress = Progress::default();
        let random = run(&p, "greedy", "random", &progress).unwrap();
        let repair = run(&p, "greedy", "repair", &progress).unwrap();
        let (a, b) = (summarize(&random, &p.set), summarize(&repair, &p.set));
        assert_eq!(a.unfair + a.stuck + a.dead + a.censored, 60);
        assert_eq!(b.unfair, 0, "repair never loses unfairly");
        assert!(a.unfair > 0);
        assert!(a.rounds_q1 <= a.rounds_median && a.rounds_median <= a.rounds_q3);
        let t = paired(&repair, &random, p.max_rounds).unwrap();
        assert!(t.test.mean_difference > 0.0, "{t:?}");
        assert_eq!(t.test.n, 60, "the test's own count");
        // The same games against themselves: no difference.
        let same = paired(&random, &random, p.max_rounds).unwrap().test;
        assert_eq!((same.mean_difference, same.p_value), (0.0, 1.0));
        // Cut at a cap of 12 rounds, the difference is of restricted means:
        // the mean of min(rounds, 12) of one minus the other's.
        let cut = paired(&repair, &random, 12).unwrap();
        let rmean = |g: &[Game]| g.iter().map(|g| f64::from(g.rounds.min(12))).sum::<f64>() / 60.0;
        assert!((cut.test.mean_difference - (rmean(&repair) - rmean(&random))).abs() < 1e-9);
        assert!(cut.test.mean_difference.abs() < t.test.mean_difference.abs());
        let line = cli_line("greedy", "random", &a, "f", 1.0);
        assert!(
            line.starts_with("player=greedy generator=random strategy=greedy games=60 rounds_mean="),
            "{line}"
        );
        let (p, lo, hi) = a.unfair_share.unwrap();
        assert_eq!(p, a.unfair as f64 / (a.unfair + a.stuck + a.dead) as f64);
        assert!(lo < p && p < hi, "{lo} {p} {hi}");
        assert!(
            line.contains(&format!(" unfair_share={p:.3} unfair_share_ci={lo:.3},{hi:.3} ")),
            "{line}"
        );
        assert_eq!(b.unfair_share.unwrap().0, 0.0);
        assert_eq!(
            csv(&[("greedy".to_owned(), "random".to_owned(), random)])
                .lines()
                .count(),
            61
        );
    }

    #[test]
    fn a_game_costs_more_the_better_its_player_and_never_nothing() {
        let mut p = plan(&["random"]);
        p.shapes_size = BoardSize::CLASSIC;
        p.max_rounds = 10_000;
        let cost = |who: &str| game_cost(&p, who);
        let ladder = ["novice", "casual", "skilled", "expert", "machine"].map(cost);
        assert!(ladder.windows(2).all(|w| w[0] < w[1]), "{ladder:?}");
        assert!(ladder[4] > 1_000 * ladder[0], "{ladder:?}");
        // The cap bounds a game; a cap of one round costs at least 1.
        p.max_rounds = 1;
        assert!(
            ["random", "greedy", "machine", "x.ron"]
                .iter()
                .all(|w| game_cost(&p, w) >= 1)
        );
    }

    #[test]
    fn the_random_generators_pieces_in_play_follow_the_weights() {
        // Pieces dealt by `random` in real games, counted by the lab: a
        // chi-square under 42.3 (the 99.9th percentile with 18 degrees of
        // freedom) at a fixed seed, while repair's skew is caught.
        let mut p = plan(&["random", "repair"]);
        p.shapes_size = crate::model::board::BoardSize::CLASSIC;
        p.games = 300;
        let random = summarize(
            &run(&p, "greedy", "random", &Progress::default()).unwrap(),
            &p.set,
        );
        assert!(random.chi2 < 42.3, "chi2 {}", random.chi2);
        assert!(random.kl < 0.002, "kl {}", random.kl);
        let repair = summarize(
            &run(&p, "greedy", "repair", &Progress::default()).unwrap(),
            &p.set,
        );
        assert!(repair.chi2 > random.chi2, "{} vs {}", repair.chi2, random.chi2);
    }
}
