//! The search's weighted criteria, tabled. The surface and the alignment are
//! small integers (at most 180 and 2,000 on 10x10), so each weighted term is
//! computed once per weight and board size, with the very expression the
//! analysis's value uses (`Evaluator::value`), and looked up at every end
//! board: the same bits as dividing there, without the two divisions.

use crate::model::board::{Bits, BoardSize};

use super::coelho::{CoelhoWeights, Evaluator};

#[derive(Clone, Debug)]
pub(crate) struct Terms {
    made_for: (CoelhoWeights, BoardSize),
    pub weights: [f64; 5],
    /// The most the four criteria other than free cells can add.
    pub rest_max: f64,
    /// `w4 * (1 - s / max_surface)` for every surface `s`.
    surface: Vec<f64>,
    /// `w3 * a / max_alignment` for every alignment `a`.
    alignment: Vec<f64>,
}

impl Terms {
    pub fn new(eval: &Evaluator, weights: CoelhoWeights) -> Self {
        let w = weights.0.map(f64::from);
        let (max_s, max_a) = (eval.max_surface.max(1), eval.max_alignment.max(1));
        Self {
            made_for: (weights, eval.size()),
            weights: w,
            rest_max: w[1] + w[2] + w[3] + w[4],
            surface: (0..=max_s)
                .map(|s| w[4] * (1.0 - f64::from(s) / f64::from(max_s)))
                .collect(),
            alignment: (0..=max_a)
                .map(|a| w[3] * f64::from(a) / f64::from(max_a))
                .collect(),
        }
    }

    pub fn made_for(&self, weights: CoelhoWeights, size: BoardSize) -> bool {
        self.made_for == (weights, size)
    }

    /// The part of the value that is cheap with the free cells (and maybe
    /// the alignment) known, and the most the other criteria can add.
    #[inline]
    pub fn known(&self, eval: &Evaluator, board: Bits, free: u32, alignment: Option<u32>) -> (f64, f64) {
        let w = &self.weights;
        let mut v = w[0] * f64::from(free);
        if w[4] != 0.0 {
            v += self.surface[eval.surface(board) as usize];
        }
        let mut most = w[1] + w[2];
        match alignment {
            Some(a) if w[3] != 0.0 => v += self.alignment[a as usize],
            _ => most += w[3],
        }
        (v, most)
    }

    /// At least the value of any board with these free cells, a surface of
    /// at least `surface` and an alignment of at most `alignment` (the
    /// terms are monotone, and summed in `known`'s order).
    #[inline]
    pub fn most(&self, free: u32, surface: u32, alignment: u32) -> f64 {
        let w = &self.weights;
        let surface = surface.min(self.surface.len() as u32 - 1) as usize;
        let alignment = alignment.min(self.alignment.len() as u32 - 1) as usize;
        w[0] * f64::from(free) + self.surface[surface] + self.alignment[alignment] + (w[1] + w[2])
    }

    /// The rest of `known`'s value: the large-piece room and, when it was
    /// not carried down, the alignment.
    #[inline]
    pub fn rest(&self, eval: &Evaluator, board: Bits, alignment: Option<u32>) -> f64 {
        let w = &self.weights;
        let mut v = 0.0;
        if w[1] != 0.0 || w[2] != 0.0 {
            let (square5, large) = eval.large_fits(board);
            v += w[1] * f64::from(u8::from(square5)) + w[2] * f64::from(large) / 3.0;
        }
        if w[3] != 0.0 && alignment.is_none() {
            v += self.alignment[eval.alignment(board) as usize];
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables give the bits the analysis's value gives, for every
    /// surface and alignment a board of each size can have.
    #[test]
    fn tabled_terms_are_the_values_own_terms() {
        for (w, h) in [(10, 10), (8, 8), (16, 8), (5, 5)] {
            let eval = Evaluator::new(BoardSize::new(w, h).unwrap());
            for weights in ["10025", "13579", "00001", "90000"] {
                let weights = CoelhoWeights::parse(weights).unwrap();
                let t = Terms::new(&eval, weights);
                let wf = weights.0.map(f64::from);
                for s in 0..=eval.max_surface {
                    let direct = wf[4] * (1.0 - f64::from(s) / f64::from(eval.max_surface.max(1)));
                    assert_eq!(t.surface[s as usize].to_bits(), direct.to_bits());
                }
                for a in 0..=eval.max_alignment {
                    let direct = wf[3] * f64::from(a) / f64::from(eval.max_alignment.max(1));
                    assert_eq!(t.alignment[a as usize].to_bits(), direct.to_bits());
                }
            }
        }
    }
}
