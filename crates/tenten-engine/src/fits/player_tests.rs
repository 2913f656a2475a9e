use super::*;
use crate::fixtures::classic;

fn player(lookahead: Lookahead, temperature: f64, slip: f64) -> Player {
    Player {
        name: "known".to_owned(),
        choice: Choice::Rank,
        beta: [0.0; 5],
        evaluation: CoelhoWeights::BEST,
        lookahead,
        temperature,
        slip,
    }
}

fn moves(log: &[Logged]) -> usize {
    log.iter().map(|d| d.moves.len()).sum()
}

/// The test: 2,000 moves of a known player (temperature 0.5, slip
/// 0.1) fit back with both true values inside their intervals.
#[test]
fn a_known_player_is_recovered_within_its_intervals() {
    let (set, shapes) = classic();
    let known = player(Lookahead::Piece, 0.5, 0.1);
    let log = record(&shapes, &set, 3, &known, 11, 700);
    assert!(moves(&log) >= 2_000, "{} moves", moves(&log));
    let decisions = piece_decisions(&shapes, CoelhoWeights::BEST, &log, &[], &Progress::default()).unwrap();
    assert_eq!(decisions.list.len(), moves(&log));
    assert!(
        decisions
            .list
            .iter()
            .all(|d| d.options.iter().map(|o| o.chosen).sum::<f64>() == 1.0),
        "a piece player's moves are each one of its candidates"
    );
    let f = fit(&decisions);
    let (t, s) = (f.temperature_ci, f.slip_ci);
    assert!(t.0 <= 0.5 && 0.5 <= t.1, "temperature {} in {t:?}", f.temperature);
    assert!(s.0 <= 0.1 && 0.1 <= s.1, "slip {} in {s:?}", f.slip);
    // Informative, not the whole range.
    assert!(t.1 - t.0 < 0.6 && s.1 - s.0 < 0.12, "{t:?} {s:?}");
    assert_eq!(f.unexplained, 0);
    // The maximum is the maximum: no grid neighbour does better.
    for (dt, ds) in [(0.05, 0.0), (-0.05, 0.0), (0.0, 0.01), (0.0, -0.01)] {
        let ll = log_likelihood(&decisions.list, f.temperature + dt, (f.slip + ds).clamp(0.0, 1.0));
        assert!(ll <= f.loglik + 1e-6, "{dt} {ds}: {ll} > {}", f.loglik);
    }
}

#[test]
fn a_random_player_fits_slip_near_one() {
    let (set, shapes) = classic();
    let random = player(Lookahead::Piece, 0.0, 1.0);
    let log = record(&shapes, &set, 3, &random, 5, 800);
    let f = fit(&piece_decisions(&shapes, CoelhoWeights::BEST, &log, &[], &Progress::default()).unwrap());
    assert!(f.slip >= 0.9, "{}", f.line());
    assert!(f.slip_ci.1 >= 0.99, "{}", f.line());
}

#[test]
fn a_holder_player_fits_its_slip_with_temperature_zero() {
    let (set, shapes) = classic();
    let known = player(Lookahead::Holder, 0.0, 0.2);
    let log = record(&shapes, &set, 3, &known, 3, 60);
    let decisions = holder_decisions(&shapes, CoelhoWeights::BEST, &log, &[], &Progress::default()).unwrap();
    let f = fit(&decisions);
    assert_eq!(f.temperature_ci.0, 0.0, "{}", f.line());
    assert!(f.slip_ci.0 <= 0.2 && 0.2 <= f.slip_ci.1, "{}", f.line());
    assert_eq!(
        f.unexplained, 0,
        "every move is a plan's first or a slip of its piece"
    );
}

/// Rank choice's chance of each move, summed over a decision's moves,
/// is one at every temperature and slip.
#[test]
fn the_choice_law_sums_to_one_over_the_candidates() {
    let opt = |rank: u32, all: f64| Opt {
        features: [0.0; 5],
        rank,
        all,
        chosen: 0.0,
        piece: 0.0,
    };
    let base = Decision {
        game: 0,
        at: (0, 0),
        slip: SlipLaw::AnyMove(0.1),
        options: vec![opt(0, 2.0), opt(1, 3.0), opt(2, 1.0), opt(3, 4.0)],
    };
    for t in [0.0, 0.1, 1.0, 20.0] {
        for slip in [0.0, 0.3, 1.0] {
            // One move of each group made in turn, weighted by its group size.
            let total: f64 = (0..4)
                .map(|g| {
                    let mut d = base.clone();
                    d.options[g].chosen = 1.0;
                    d.options[g].all * d.rank_chance(t, slip)
                })
                .sum();
            assert!((total - 1.0).abs() < 1e-12, "{t} {slip}: {total}");
        }
    }
}

#[test]
fn a_profile_interval_is_read_where_the_curve_crosses_the_cut() {
    // A parabola with its top at 5 and curvature 2: the 95 % interval of a
    // normal log-likelihood, 5 ± 1.96 / sqrt(2).
    let profile: Vec<(f64, f64)> = (0..=100)
        .map(|i| {
            let x = f64::from(i) / 10.0;
            (x, -(x - 5.0).powi(2))
        })
        .collect();
    let (lo, hi) = profile_interval(&profile, 0.0);
    let half = (CHI2_95 / 2.0).sqrt();
    assert!(
        (lo - (5.0 - half)).abs() < 0.01 && (hi - (5.0 + half)).abs() < 0.01,
        "{lo} {hi}"
    );
}

/// A player so hot its moves are nearly uniform: the likelihood stays high
/// to the end of the search grid, so the interval is open there (it used
/// to print the grid's end, 47.881, as if the data bounded it), and the
/// saved file says so and counts the moves it could not explain.
#[test]
fn an_interval_that_reaches_the_grid_end_is_open() {
    let (set, shapes) = classic();
    let hot = player(Lookahead::Piece, 500.0, 0.02);
    let log = record(&shapes, &set, 3, &hot, 5, 60);
    let decisions = piece_decisions(&shapes, CoelhoWeights::BEST, &log, &[], &Progress::default()).unwrap();
    let f = fit(&decisions);
    assert_eq!(f.temperature_ci.1, f64::INFINITY, "{:?}", f.temperature_ci);
    let line = f.line();
    assert!(line.contains(&format!(",>{:.3} ", f.temperature_end())), "{line}");
    let file = f.player_file("log.ron", "hot", CoelhoWeights::BEST, Lookahead::Piece);
    assert!(file.contains("0 moves the model cannot make"), "{file}");
    assert!(
        file.contains(&format!("to >{:.3}", f.temperature_end())),
        "{file}"
    );
    // The file reads back as the player it names.
    assert_eq!(
        Player::parse(&file, "hot.ron").unwrap(),
        f.player("hot", CoelhoWeights::BEST, Lookahead::Piece)
    );
}
