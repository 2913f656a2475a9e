//! The search's weighted criteria, tabled. The surface and the alignment are
//! small integers (at most 180 and 2,000 on 10x10), so each weighted term is
//! computed once per weight and board size, with the very expression the
//! analysis's value uses (`Evaluator::value`), and looked up at every end
//! board: the same bits as dividing there, without the two divisions.

#[derive(Clone, Debug)]
pub(crate) struct Terms {
    pub weights: [f64; 5],
    /// The most the four criteria other than free cells can add.
    pub rest_max: f64,
    /// `w4 * (1 - s / max_surface)` for every surface `s`.
    surface: Vec<f64>,
    /// `w3 * a / max_alignment` for every alignment `a`.
    alignment: Vec<f64>,
}

impl Terms {
    /// For the weights `w` on a board whose surface and alignment reach
    /// `max_s` and `max_a` (each at least 1).
    pub fn new(w: [f64; 5], max_s: u32, max_a: u32) -> Self {
        Self {
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

    #[inline]
    pub fn surface(&self, s: u32) -> f64 {
        self.surface[(s as usize).min(self.surface.len() - 1)]
    }

    #[inline]
    pub fn alignment(&self, a: u32) -> f64 {
        self.alignment[(a as usize).min(self.alignment.len() - 1)]
    }

    /// At least the value of any board with these free cells, a surface of
    /// at least `surface` and an alignment of at most `alignment` (the
    /// terms are monotone, and summed in the search's order).
    #[inline]
    pub fn most(&self, free: u32, surface: u32, alignment: u32) -> f64 {
        let w = &self.weights;
        w[0] * f64::from(free) + self.surface(surface) + self.alignment(alignment) + (w[1] + w[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::BoardSize;
    use crate::play::coelho::{CoelhoWeights, Evaluator};

    /// The tables give the bits the analysis's value gives, for every
    /// surface and alignment a board of each size can have.
    #[test]
    fn tabled_terms_are_the_values_own_terms() {
        for (w, h) in [(10, 10), (8, 8), (16, 8), (5, 5)] {
            let eval = Evaluator::new(BoardSize::new(w, h).unwrap());
            for weights in ["10025", "13579", "00001", "90000"] {
                let weights = CoelhoWeights::parse(weights).unwrap();
                let t = Terms::new(
                    weights.0.map(f64::from),
                    eval.max_surface.max(1),
                    eval.max_alignment.max(1),
                );
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
