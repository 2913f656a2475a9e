//! The exact chance of each dealt holder under a generator's rules, and
//! the expected complete-data counts behind it (every piece drawn,
//! rejected holders' and the changer's redraws included, and how many
//! pieces were copies of the previous one) that EM and the score need.
//!
//! - `none`: the first draw q(a | previous), each slot a copy of the piece
//!   before it with chance r or a fresh draw from w.
//! - `reject`: q(a) plus the chance the first draw was unsolvable times
//!   w(a) / (1 - danger_w(board)): redraws are plain draws until solvable.
//! - `repair`: the changer as a chain over the unsolvable ordered holders
//!   (F picks a slot, a fresh draw from w replaces it), absorbed at the
//!   first solvable holder, stepped exactly up to the check's redraws; the
//!   mass still unsolvable then goes to the exhaustive fallback's holder.
//! - a dead board (no holder can be placed) deals the first draw as drawn.

use crate::fits::generator::boards::{BoardInfo, code, decode};
use crate::model::board::Bits;
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::search::changer::{ChangeOptions, repair};
use crate::search::heuristic::Policy;

/// A chance below this is taken as none (a holder the rules cannot deal).
pub const IMPOSSIBLE: f64 = 1e-300;

/// Stop stepping the changer's chain once this little mass is left in it.
const CHAIN_EPS: f64 = 1e-15;

/// What checks every holder, as the fit models it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    None,
    Reject,
    Repair { policy: Policy, redraws: usize },
}

/// Expected complete-data counts of one deal (or a sum of deals).
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Pieces drawn fresh from the weights, by piece.
    pub draws: Vec<f64>,
    /// Slots that copied the piece before them, and slots that could have
    /// (a piece before them known) but drew fresh.
    pub copies: f64,
    pub fresh: f64,
}

impl Stats {
    pub fn new(n: usize) -> Self {
        Stats {
            draws: vec![0.0; n],
            copies: 0.0,
            fresh: 0.0,
        }
    }

    pub fn add(&mut self, other: &Stats) {
        for (a, b) in self.draws.iter_mut().zip(&other.draws) {
            *a += b;
        }
        self.copies += other.copies;
        self.fresh += other.fresh;
    }
}

/// One deal to judge.
pub struct Deal<'a> {
    pub info: &'a BoardInfo,
    pub board: Bits,
    pub holder: &'a [PieceIdx],
    pub previous: Option<PieceIdx>,
}

/// The weights in force for a deal and the repeat chance (`None`: the
/// model has no repeat rule).
pub struct Law<'a> {
    pub w: &'a [f64],
    pub repeat: Option<f64>,
}

impl Law<'_> {
    /// The chance of slot i's piece given the piece before it.
    fn slot(&self, piece: PieceIdx, before: Option<PieceIdx>) -> f64 {
        let w = self.w[usize::from(piece)];
        match (self.repeat, before) {
            (Some(r), Some(b)) => r * f64::from(u8::from(b == piece)) + (1.0 - r) * w,
            _ => w,
        }
    }

    /// q(h | previous): the first draw's chance.
    pub fn first(&self, h: &[PieceIdx], previous: Option<PieceIdx>) -> f64 {
        let mut q = 1.0;
        let mut before = previous;
        for &p in h {
            q *= self.slot(p, before);
            before = Some(p);
        }
        q
    }

    /// w(h): a plain draw's chance (redraws never copy).
    pub fn plain(&self, h: &[PieceIdx]) -> f64 {
        h.iter().map(|&p| self.w[usize::from(p)]).product()
    }

    /// Adds the first draw h's counts, weighted by `weight`.
    fn add_first(&self, h: &[PieceIdx], previous: Option<PieceIdx>, weight: f64, s: &mut Stats) {
        if weight <= 0.0 {
            return;
        }
        let mut before = previous;
        for &p in h {
            match (self.repeat, before) {
                (Some(r), Some(b)) => {
                    let m = self.slot(p, before);
                    let copy = if b == p && m > 0.0 { r / m } else { 0.0 };
                    s.copies += weight * copy;
                    s.fresh += weight * (1.0 - copy);
                    s.draws[usize::from(p)] += weight * (1.0 - copy);
                }
                _ => s.draws[usize::from(p)] += weight,
            }
            before = Some(p);
        }
    }

    fn add_plain(&self, h: &[PieceIdx], weight: f64, s: &mut Stats) {
        for &p in h {
            s.draws[usize::from(p)] += weight;
        }
    }
}

/// The fallback's holder for a holder the changer could not fix in its
/// redraws: the changer's exhaustive search from it, trying the heaviest
/// pieces first as the weights `w` order them.
pub struct Fallback<'a> {
    pub shapes: &'a Shapes,
    pub set: &'a PieceSet,
}

impl Fallback<'_> {
    fn holder(&self, board: Bits, from: &[PieceIdx], w: &[f64]) -> Vec<PieceIdx> {
        let mut weighted = self.set.clone();
        for (p, &x) in weighted.pieces.iter_mut().zip(w) {
            p.weight = (x * 1e6).round() as u32;
        }
        let options = ChangeOptions {
            max_redraws: 0,
            ..ChangeOptions::default()
        };
        repair(
            self.shapes,
            &weighted,
            board,
            from,
            &mut Generator::new(0),
            options,
        )
        .holder
    }
}

/// log P(holder | board, previous) under `check` and `law`, adding the
/// deal's expected counts to `s` when given. `-inf` when the rules cannot
/// deal it (an unsolvable holder dealt where a check would have fixed it).
pub fn deal(
    d: &Deal,
    check: Check,
    policy_index: usize,
    law: &Law,
    fallback: &Fallback,
    s: Option<&mut Stats>,
) -> f64 {
    let n = law.w.len();
    let a = d.holder;
    let q_a = law.first(a, d.previous);
    let a_code = code(a, n);
    let a_killer = d.info.find(a_code).is_some();
    if check == Check::None || d.info.dead || d.info.killers.is_empty() {
        if let Some(s) = s {
            law.add_first(a, d.previous, 1.0, s);
        }
        return q_a.max(0.0).ln();
    }
    if a_killer {
        return f64::NEG_INFINITY;
    }
    let p = match check {
        Check::Reject => reject(d, law, q_a, s),
        Check::Repair { redraws, .. } => chain(d, law, q_a, redraws, policy_index, fallback, s),
        Check::None => q_a,
    };
    p.ln()
}

fn reject(d: &Deal, law: &Law, q_a: f64, s: Option<&mut Stats>) -> f64 {
    let n = law.w.len();
    let k = d.holder.len();
    let (mut dq, mut dw) = (0.0, 0.0);
    let mut h = vec![0; k];
    for &c in &d.info.killers {
        decode_into(c, n, &mut h);
        dq += law.first(&h, d.previous);
        dw += law.plain(&h);
    }
    if dw >= 1.0 - 1e-12 {
        // Every holder these weights deal is unsolvable: dealt as drawn.
        if let Some(s) = s {
            law.add_first(d.holder, d.previous, 1.0, s);
        }
        return q_a;
    }
    let w_a = law.plain(d.holder);
    let redrawn = dq * w_a / (1.0 - dw);
    let p = q_a + redrawn;
    if let Some(s) = s
        && p > IMPOSSIBLE
    {
        law.add_first(d.holder, d.previous, q_a / p, s);
        let b = redrawn / p;
        if b > 0.0 {
            // The accepted redraw, the first draws that failed, and the
            // holders rejected in between (geometric, D / (1 - D) of them).
            law.add_plain(d.holder, b, s);
            for &c in &d.info.killers {
                decode_into(c, n, &mut h);
                law.add_first(&h, d.previous, b * law.first(&h, d.previous) / dq, s);
                law.add_plain(&h, b * law.plain(&h) / (1.0 - dw), s);
            }
        }
    }
    p
}

fn decode_into(mut c: u32, n: usize, h: &mut [PieceIdx]) {
    for slot in h.iter_mut().rev() {
        *slot = (c % n as u32) as PieceIdx;
        c /= n as u32;
    }
}

/// The changer's chain: P(a) and, with `s`, its expected draws.
fn chain(
    d: &Deal,
    law: &Law,
    q_a: f64,
    redraws: usize,
    policy_index: usize,
    fallback: &Fallback,
    s: Option<&mut Stats>,
) -> f64 {
    let n = law.w.len();
    let k = d.holder.len();
    let info = d.info;
    let m = info.killers.len();
    let slots = &info.slots[policy_index];
    let a_code = code(d.holder, n);
    let mut pow = vec![1u32; k];
    for i in (0..k.saturating_sub(1)).rev() {
        pow[i] = pow[i + 1] * n as u32;
    }
    // next[u * n + j]: the state after slot F(u) of killer u becomes piece
    // j: a killer's index, or NONE_A (solvable, not a), or A (a itself).
    const SOLVED: u32 = u32::MAX;
    const AT_A: u32 = u32::MAX - 1;
    let mut h = vec![0; k];
    let mut next = vec![SOLVED; m * n];
    for (u, &c) in info.killers.iter().enumerate() {
        decode_into(c, n, &mut h);
        let s_u = usize::from(slots[u]);
        let base = c - u32::from(h[s_u]) * pow[s_u];
        for j in 0..n {
            let x = base + j as u32 * pow[s_u];
            next[u * n + j] = match info.find(x) {
                Some(i) => i as u32,
                None if x == a_code => AT_A,
                None => SOLVED,
            };
        }
    }
    // Forward: the chain's mass over killers after t redraws (v_0 = q).
    let q: Vec<f64> = info
        .killers
        .iter()
        .map(|&c| {
            decode_into(c, n, &mut h);
            law.first(&h, d.previous)
        })
        .collect();
    let mut forward = vec![q.clone()];
    let mut absorbed = 0.0;
    while forward.len() <= redraws {
        let v = forward.last().map_or(&q, |v| v);
        // Whatever is left could all reach a: stop once that is a small
        // part of what already has.
        if v.iter().sum::<f64>() < CHAIN_EPS.max(1e-9 * (q_a + absorbed)) {
            break;
        }
        let mut nv = vec![0.0; m];
        for u in 0..m {
            if v[u] == 0.0 {
                continue;
            }
            for j in 0..n {
                let t = next[u * n + j];
                if t == AT_A {
                    absorbed += v[u] * law.w[j];
                } else if t != SOLVED {
                    nv[t as usize] += v[u] * law.w[j];
                }
            }
        }
        forward.push(nv);
    }
    let steps = forward.len() - 1;
    // Mass the redraws left: the exhaustive fallback from each holder.
    let left = &forward[steps];
    let mut to_a_by_fallback = vec![0.0; m];
    let mut fallback_mass = 0.0;
    if steps == redraws {
        for u in 0..m {
            if left[u] > CHAIN_EPS * 1e-3 {
                let from = decode(info.killers[u], n, k);
                if fallback.holder(d.board, &from, law.w) == d.holder {
                    to_a_by_fallback[u] = 1.0;
                    fallback_mass += left[u];
                }
            }
        }
    }
    let p = q_a + absorbed + fallback_mass;
    let Some(s) = s else {
        return p;
    };
    if p <= IMPOSSIBLE {
        return p;
    }
    // Backward: y_t(u) = P(reach a | at u with t redraws left).
    let mut backward = vec![to_a_by_fallback];
    for _ in 0..steps {
        let y = backward.last().map_or(&q, |y| y);
        let ny: Vec<f64> = (0..m)
            .map(|u| {
                (0..n)
                    .map(|j| {
                        let t = next[u * n + j];
                        law.w[j]
                            * if t == AT_A {
                                1.0
                            } else if t == SOLVED {
                                0.0
                            } else {
                                y[t as usize]
                            }
                    })
                    .sum()
            })
            .collect();
        backward.push(ny);
    }
    // The first draw: a itself, or a killer that led to a.
    law.add_first(d.holder, d.previous, q_a / p, s);
    let y_all = &backward[steps];
    for u in 0..m {
        if q[u] * y_all[u] > 0.0 {
            decode_into(info.killers[u], n, &mut h);
            law.add_first(&h, d.previous, q[u] * y_all[u] / p, s);
        }
    }
    // Each redraw t (1..=steps): from v_{t-1}, piece j, then steps - t left.
    for t in 1..=steps {
        let v = &forward[t - 1];
        let y = &backward[steps - t];
        for u in 0..m {
            if v[u] == 0.0 {
                continue;
            }
            for j in 0..n {
                let to = next[u * n + j];
                let reach = if to == AT_A {
                    1.0
                } else if to == SOLVED {
                    0.0
                } else {
                    y[to as usize]
                };
                s.draws[j] += v[u] * law.w[j] * reach / p;
            }
        }
    }
    p
}

#[cfg(test)]
#[path = "likelihood_tests.rs"]
mod tests;
