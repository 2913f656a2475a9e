use std::collections::BTreeMap;

use super::*;
use crate::fits::population::file::{Fitted, Tester, by_name};
use crate::fits::population::quit::{Quit, logistic};
use crate::fits::population::session::Played;
use crate::model::generator::Generator;
use crate::play::game::End;

/// The demo population as if fitted: each location's standard error
/// `se_loc`, each spread's `se_sd`, the quit's coefficients 0.1² each.
fn fitted(se_loc: f64, se_sd: f64, per_tester: Vec<Tester>) -> Population {
    let mut p = by_name("demo").unwrap();
    let se = BTreeMap::from([
        ("temperature_median".to_owned(), se_loc),
        ("temperature_log_sd".to_owned(), se_sd),
        ("slip_median".to_owned(), se_loc),
        ("slip_logit_sd".to_owned(), se_sd),
    ]);
    let mut quit_cov = [[0.0; 3]; 3];
    for (i, row) in quit_cov.iter_mut().enumerate() {
        row[i] = 0.01;
    }
    p.fitted = Some(Fitted {
        testers: 50,
        moves: 0,
        games: 0,
        sessions: 0,
        se,
        quit_cov,
        churn: None,
        per_tester,
    });
    p
}

fn empty() -> Session {
    Session {
        games: Vec::new(),
        quit: false,
    }
}

/// A score is the derivative of a log density: its mean is 0 over the
/// draws it is taken at.
#[test]
fn scores_have_mean_zero_over_the_predictive_population() {
    let p = fitted(0.1, 0.05, Vec::new());
    let u = Uncertainty::of(&p).unwrap();
    let pred = p.predictive();
    assert!((pred.temperature.unwrap().log_sd - 0.4f64.hypot(0.1)).abs() < 1e-12);
    let mut rng = Generator::new(3);
    let n = 20_000;
    let scores: Vec<Vec<f64>> = (0..n)
        .map(|i| u.score(&p, &pred, &pred.draw(&i.to_string(), &mut rng), &empty()))
        .collect();
    for (k, key) in u.keys.iter().enumerate() {
        let col: Vec<f64> = scores.iter().map(|s| s[k]).collect();
        let mean = col.iter().sum::<f64>() / n as f64;
        let sd = (col.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!(
            mean.abs() < 4.0 * sd / (n as f64).sqrt() + 1e-12,
            "{key}: mean {mean}, sd {sd}"
        );
    }
}

/// The session's quit decisions' log-likelihood under the seven quit
/// coefficients `c`, each chance read off the session so far.
fn session_loglik(c: &[f64], session: &Session) -> f64 {
    let q = Quit::from_coefficients([c[0], c[1], c[2]]).with_churn([c[3], c[4], c[5], c[6]]);
    let mut h = crate::play::adaptive::History::default();
    let last = session.games.len();
    session
        .games
        .iter()
        .enumerate()
        .map(|(j, g)| {
            h.ended(g.rounds, g.end == End::Unfair);
            let pr = q.chance_after(&h);
            if j + 1 == last { pr.ln() } else { (1.0 - pr).ln() }
        })
        .sum()
}

/// `quit_score` against a central difference of `session_loglik` in each
/// of the seven coefficients.
fn assert_score_is_gradient(p: &Population, session: &Session) {
    let s = quit_score(p, session);
    let c: Vec<f64> = p.quit.coefficients().into_iter().chain(p.quit.churn()).collect();
    for k in 0..7 {
        let h = 1e-6;
        let (mut up, mut down) = (c.clone(), c.clone());
        up[k] += h;
        down[k] -= h;
        let numeric = (session_loglik(&up, session) - session_loglik(&down, session)) / (2.0 * h);
        assert!(
            (numeric - s[k]).abs() < 1e-5,
            "coefficient {k}: {numeric} vs {}",
            s[k]
        );
    }
}

/// The quit's score is the gradient of the session's log-likelihood in
/// (a, b, c) (and the churn terms, 0 here), against a central difference.
#[test]
fn the_quit_score_is_the_log_likelihoods_gradient() {
    let p = by_name("demo").unwrap();
    let session = Session {
        games: vec![
            Played {
                rounds: 12,
                end: End::Stuck,
            },
            Played {
                rounds: 40,
                end: End::Unfair,
            },
            Played {
                rounds: 3,
                end: End::Stuck,
            },
        ],
        quit: true,
    };
    assert_score_is_gradient(&p, &session);
}

/// End to end on a figure whose gradient is known: the share of players
/// whose slip is above the median, f(m) = Φ((m − ln… ) / s'), so
/// ∂f/∂m = φ(0)/s' and the fit's variance is (φ(0)/s')² se².
#[test]
fn the_fit_variance_matches_a_known_gradient() {
    let se = 0.05;
    let p = fitted(se, 0.0, Vec::new());
    let u = Uncertainty::of(&p).unwrap();
    let pred = p.predictive();
    let s = pred.slip.logit_sd;
    let mut rng = Generator::new(11);
    let n = 40_000;
    let drawn: Vec<Drawn> = (0..n).map(|i| pred.draw(&i.to_string(), &mut rng)).collect();
    let parts: Vec<(f64, f64)> = drawn
        .iter()
        .map(|d| (f64::from(u8::from(d.player.slip > p.slip.median)), 1.0))
        .collect();
    let scores: Vec<Vec<f64>> = drawn.iter().map(|d| u.score(&p, &pred, d, &empty())).collect();
    let refs: Vec<&[f64]> = scores.iter().map(Vec::as_slice).collect();
    let v = u.variance(&parts, &refs);
    let phi0 = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    let want = (phi0 / s * se).powi(2);
    assert!((v / want - 1.0).abs() < 0.15, "variance {v}, want {want}");
}

/// A figure that no parameter moves has no fit variance beyond noise: the
/// trace's correction keeps it near 0, not at the noise's size.
#[test]
fn a_figure_no_parameter_moves_gets_almost_no_fit_variance() {
    let p = fitted(0.1, 0.05, Vec::new());
    let u = Uncertainty::of(&p).unwrap();
    let pred = p.predictive();
    let mut rng = Generator::new(5);
    let mut coin = Generator::new(6);
    let n = 4_000;
    let drawn: Vec<Drawn> = (0..n).map(|i| pred.draw(&i.to_string(), &mut rng)).collect();
    let parts: Vec<(f64, f64)> = (0..n)
        .map(|_| (f64::from(u8::from(coin.unit() < 0.5)), 1.0))
        .collect();
    let scores: Vec<Vec<f64>> = drawn.iter().map(|d| u.score(&p, &pred, d, &empty())).collect();
    let refs: Vec<&[f64]> = scores.iter().map(Vec::as_slice).collect();
    let v = u.variance(&parts, &refs);
    // Uncorrected, ĝ'Σĝ is about k·se²·Var(Y)/n = 4·0.01·0.25/4000.
    let uncorrected = 4.0 * 0.01 * 0.25 / n as f64;
    assert!(v < uncorrected, "variance {v} against {uncorrected}");
    assert_eq!(u.variance(&parts[..1], &refs[..1]), 0.0);
    assert_eq!(u.variance(&[], &[]), 0.0);
}

/// Testers whose temperature and slip estimates rise together make the two
/// medians' errors correlate; an unfitted population has no uncertainty.
#[test]
fn the_locations_correlate_as_their_testers_do() {
    let testers: Vec<Tester> = (0..10)
        .map(|i| {
            let x = f64::from(i) / 10.0 - 0.5;
            Tester {
                id: format!("t{i}"),
                moves: 100,
                estimate: vec![(0.8f64).ln().exp() * x.exp(), logistic(-3.0 + x)],
                shrunk: Vec::new(),
            }
        })
        .collect();
    let p = fitted(0.1, 0.05, testers);
    let u = Uncertainty::of(&p).unwrap();
    let t = u.keys.iter().position(|k| k == "temperature_median").unwrap();
    let s = u.keys.iter().position(|k| k == "slip_median").unwrap();
    assert!((u.cov[t][s] - 0.01).abs() < 1e-9, "{:?}", u.cov);
    assert_eq!(u.cov[t][s], u.cov[s][t]);
    assert!(u.keys.iter().any(|k| k == "quit_b"));
    assert!(Uncertainty::of(&by_name("demo").unwrap()).is_none());
}

/// With churn terms the quit's score is the gradient in all seven
/// coefficients, each churn term read off the session so far; a fit that
/// chose them carries their covariance into the forecast's uncertainty.
#[test]
fn the_churn_terms_score_and_carry_their_uncertainty() {
    let mut p = by_name("demo-churn").unwrap();
    let games = [
        (12, End::Unfair),
        (40, End::Unfair),
        (3, End::Stuck),
        (9, End::Stuck),
    ];
    let session = Session {
        games: games
            .iter()
            .map(|&(rounds, end)| Played { rounds, end })
            .collect(),
        quit: true,
    };
    assert_score_is_gradient(&p, &session);
    let s = quit_score(&p, &session);
    let c: Vec<f64> = p.quit.coefficients().into_iter().chain(p.quit.churn()).collect();
    // The churn terms' own covariates are not all 0 in this session.
    assert!(s[3..].iter().all(|x| *x != 0.0), "{s:?}");

    let mut cov = vec![vec![0.0; 7]; 7];
    for (i, row) in cov.iter_mut().enumerate() {
        row[i] = 0.01;
    }
    let mut f = fitted(0.1, 0.05, Vec::new());
    let mut churn = crate::fits::population::churn::ChurnFit {
        coefficients: c.clone(),
        cov,
        folds: 5,
        heldout_basic: -100.0,
        heldout_churn: -80.0,
        heldout_se: 3.0,
        chosen: true,
    };
    let mut fitted_churn = f.fitted.take().unwrap();
    fitted_churn.churn = Some(churn.clone());
    p.fitted = Some(fitted_churn.clone());
    assert!(p.check().is_ok());
    let u = Uncertainty::of(&p).unwrap();
    assert!(u.keys.iter().any(|k| k == "quit_per_log_longer"), "{:?}", u.keys);
    assert_eq!(u.keys.iter().filter(|k| k.starts_with("quit_")).count(), 7);
    // Not chosen: the population may not hold the terms, and the forecast
    // carries the three.
    churn.chosen = false;
    fitted_churn.churn = Some(churn);
    p.fitted = Some(fitted_churn);
    assert!(p.check().is_err());
    p.quit = p.quit.with_churn([0.0; 4]);
    assert!(p.check().is_ok());
    let u = Uncertainty::of(&p).unwrap();
    assert_eq!(u.keys.iter().filter(|k| k.starts_with("quit_")).count(), 3);
}
