//! The seeded block generator: a weighted draw per holder slot.
//!
//! The RNG is PCG64 (rand_pcg's `Lcg128Xsl64`), whose output is specified and
//! portable, so a seed and a piece set deal the same pieces on every run and
//! platform. (`StdRng` makes no such promise across rand versions.)

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

use crate::model::pieces::{PieceIdx, PieceSet};

#[derive(Clone, Debug)]
pub struct Generator {
    rng: Pcg64,
}

impl Generator {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: Pcg64::seed_from_u64(seed),
        }
    }

    /// One piece, drawn with probability weight / total weight.
    pub fn draw(&mut self, set: &PieceSet) -> PieceIdx {
        let total = set.total_weight();
        debug_assert!(total > 0, "a piece set always has a positive weight");
        let mut r = self.rng.random_range(0..total.max(1));
        for (i, p) in set.pieces.iter().enumerate() {
            let w = u64::from(p.weight);
            if r < w {
                return i as PieceIdx;
            }
            r -= w;
        }
        // Only reached if every weight is 0, which `PieceSet::new` refuses.
        0
    }

    /// A holder of `k` pieces.
    pub fn deal(&mut self, set: &PieceSet, k: usize) -> Vec<PieceIdx> {
        (0..k).map(|_| self.draw(set)).collect()
    }

    /// A uniform number in [0, 1) (a player's slips and choices).
    pub fn unit(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// A standard normal draw (Box-Muller): a population's players.
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// A uniform index below `n` (for random spots in self-play).
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_deals_the_same_pieces() {
        let set = PieceSet::classic();
        let a = Generator::new(42).deal(&set, 30);
        let b = Generator::new(42).deal(&set, 30);
        let c = Generator::new(43).deal(&set, 30);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn the_first_deal_of_seed_42_is_pinned() {
        // Pinned so a change of RNG or draw method cannot pass unnoticed:
        // saved seeds in designers' files must keep dealing the same pieces.
        let set = PieceSet::classic();
        let holder = Generator::new(42).deal(&set, 3);
        assert_eq!(set.ids(&holder), PINNED_SEED_42);
    }

    const PINNED_SEED_42: &str = "sq3,h2,l3_tl";

    #[test]
    fn draws_follow_the_weights() {
        let set = PieceSet::classic();
        let mut g = Generator::new(7);
        let n = 42_000;
        let mut counts = vec![0u32; set.pieces.len()];
        for _ in 0..n {
            counts[usize::from(g.draw(&set))] += 1;
        }
        for (i, p) in set.pieces.iter().enumerate() {
            let expected = f64::from(p.weight) * 1000.0;
            let got = f64::from(counts[i]);
            // Five standard deviations of a binomial count.
            let sd = (expected * (1.0 - f64::from(p.weight) / 42.0)).sqrt();
            assert!((got - expected).abs() < 5.0 * sd, "{}: {got} vs {expected}", p.id);
        }
    }

    #[test]
    fn zero_weight_pieces_are_never_dealt() {
        let mut set = PieceSet::classic();
        for p in &mut set.pieces {
            if p.id != "dot" && p.id != "sq3" {
                p.weight = 0;
            }
        }
        let dealt = Generator::new(1).deal(&set, 500);
        assert!(
            dealt
                .iter()
                .all(|&i| ["dot", "sq3"].contains(&set.piece(i).id.as_str()))
        );
    }
}
