//! The bag: each game deals from a shuffled bag holding each piece as many
//! times as its weight, refilled when empty, so every complete bag's worth
//! of pieces (aligned from the game's first piece) holds exactly the same
//! counts. The fit finds the bag size T whose complete bags all agree, and
//! the exact chance of every game's sequence: a complete bag
//! prod(W_i!) / T!, the last part-bag prod(W_i! / (W_i - c_i)!) / (T! / (T - m)!).

use crate::fits::generator::deals::Seen;

/// The largest bag tried.
pub const MAX_BAG: usize = 10_000;

/// A bag fitted, or why none fits.
#[derive(Clone, Debug, PartialEq)]
pub enum BagFit {
    /// The counts of one bag, the log-likelihood and the deals it covers.
    Fits {
        counts: Vec<u32>,
        loglik: f64,
        deals: usize,
        bags: usize,
    },
    /// Every bag size tried is broken by the deals (the first size's
    /// first disagreeing bag, for the message).
    Broken { deals: usize },
    /// No game is long enough to hold two whole bags of any size that fits.
    Untestable { why: String },
}

fn ln_factorial(n: u64) -> f64 {
    statrs::function::factorial::ln_factorial(n)
}

/// The bag fit of `deals` (their games' piece sequences from each game's
/// first deal up to any gap).
pub fn fit(deals: &[Seen], n: usize) -> BagFit {
    // Each game's pieces, in the order dealt, while its place is known.
    let mut games: Vec<Vec<usize>> = Vec::new();
    let mut game_of = usize::MAX;
    let mut open = false;
    let mut covered = 0;
    for d in deals {
        if d.game != game_of {
            game_of = d.game;
            open = d.dealt_before == Some(0);
            if open {
                games.push(Vec::new());
            }
        }
        if open && d.dealt_before.is_some() {
            if let Some(g) = games.last_mut() {
                g.extend(d.holder.iter().map(|&p| usize::from(p)));
                covered += 1;
            }
        } else {
            open = false;
        }
    }
    let longest = games.iter().map(Vec::len).max().unwrap_or(0);
    if longest < 2 {
        return BagFit::Untestable {
            why: "no game is logged from its first deal without a gap".to_owned(),
        };
    }
    // Prefix counts per game: counts of the first t pieces.
    let prefix: Vec<Vec<Vec<u32>>> = games
        .iter()
        .map(|g| {
            let mut acc = vec![0u32; n];
            let mut out = vec![acc.clone()];
            for &p in g {
                acc[p] += 1;
                out.push(acc.clone());
            }
            out
        })
        .collect();
    let window = |g: usize, from: usize, to: usize| -> Vec<u32> {
        prefix[g][to]
            .iter()
            .zip(&prefix[g][from])
            .map(|(a, b)| a - b)
            .collect()
    };
    let mut best: Option<BagFit> = None;
    let mut testable = false;
    for t in 1..=(longest / 2).min(MAX_BAG) {
        let whole: usize = games.iter().map(|g| g.len() / t).sum();
        if whole < 2 {
            continue;
        }
        testable = true;
        // The first whole bag sets the counts; every other must match.
        let Some(first) = games.iter().position(|g| g.len() >= t) else {
            continue;
        };
        let counts = window(first, 0, t);
        let agrees = games.iter().enumerate().all(|(g, seq)| {
            let bags = seq.len() / t;
            (0..bags).all(|b| window(g, b * t, (b + 1) * t) == counts)
                && window(g, bags * t, seq.len())
                    .iter()
                    .zip(&counts)
                    .all(|(c, w)| c <= w)
        });
        if !agrees {
            continue;
        }
        let tt = t as u64;
        let whole_ll: f64 =
            counts.iter().map(|&w| ln_factorial(u64::from(w))).sum::<f64>() - ln_factorial(tt);
        let mut ll = 0.0;
        for (g, seq) in games.iter().enumerate() {
            let bags = seq.len() / t;
            ll += bags as f64 * whole_ll;
            let part = window(g, bags * t, seq.len());
            let m = (seq.len() - bags * t) as u64;
            ll += part
                .iter()
                .zip(&counts)
                .map(|(&c, &w)| ln_factorial(u64::from(w)) - ln_factorial(u64::from(w - c)))
                .sum::<f64>()
                - (ln_factorial(tt) - ln_factorial(tt - m));
        }
        let better = match &best {
            Some(BagFit::Fits { loglik, .. }) => ll > *loglik,
            _ => true,
        };
        if better {
            best = Some(BagFit::Fits {
                counts,
                loglik: ll,
                deals: covered,
                bags: whole,
            });
        }
    }
    match best {
        Some(b) => b,
        None if testable => BagFit::Broken { deals: covered },
        None => BagFit::Untestable {
            why: format!(
                "the longest game logged from its start holds {longest} pieces: too few for two whole bags"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(game: usize, before: u64, holder: [u8; 3]) -> Seen {
        Seen {
            board: 0,
            holder: holder.to_vec(),
            game,
            previous: None,
            dry_rounds: Some(0),
            dealt_before: Some(before),
            fill: 0.0,
            at: String::new(),
        }
    }

    #[test]
    fn a_bag_of_six_is_found_and_a_break_is_noticed() {
        // Bags of {0, 0, 1, 1, 2, 2}, shuffled.
        let deals = vec![
            seen(0, 0, [0, 1, 2]),
            seen(0, 3, [2, 0, 1]),
            seen(0, 6, [1, 1, 0]),
            seen(0, 9, [2, 2, 0]),
            seen(0, 12, [0, 2, 1]),
        ];
        match fit(&deals, 3) {
            BagFit::Fits { counts, loglik, .. } => {
                assert_eq!(counts, vec![2, 2, 2]);
                // Two whole bags (6!/8 = 90 orders each) and a part of 3.
                let whole = -(90f64).ln();
                let part = (2.0f64 * 2.0 * 2.0).ln() - (6.0f64 * 5.0 * 4.0).ln();
                assert!((loglik - (2.0 * whole + part)).abs() < 1e-9, "{loglik}");
            }
            other => panic!("{other:?}"),
        }
        let mut broken = deals.clone();
        broken[2].holder = vec![1, 1, 1];
        broken[3].holder = vec![1, 1, 1];
        broken[4].holder = vec![1, 1, 1];
        assert!(matches!(
            fit(&broken, 3),
            BagFit::Broken { .. } | BagFit::Fits { .. }
        ));
        if let BagFit::Fits { counts, .. } = fit(&broken, 3) {
            assert_ne!(counts, vec![2, 2, 2]);
        }
        assert!(matches!(fit(&deals[..0], 3), BagFit::Untestable { .. }));
        // One deal of three pieces: only a bag of 1 can be tested, and it breaks.
        assert!(matches!(fit(&deals[..1], 3), BagFit::Broken { .. }));
    }
}
