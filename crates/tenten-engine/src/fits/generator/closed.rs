//! The killers a repair chain can never leave: from them no sequence of
//! F's redraws reaches a solvable holder, whatever the weights, so a chain
//! that enters one stays among the killers to the fallback. Fixed by the
//! board and the policy (F's slots), computed once per board.
//!
//! A redraw of slot s moves a holder along its line at s (the n holders
//! that differ from it only there). A killer escapes if the line at its F
//! slot holds a solvable holder or an escaping killer; the rest are
//! closed. Every piece counts as drawable here, so the closed set is a
//! subset of the true one under any weights (a piece of weight 0 only
//! makes more killers closed): the chain treats a closed killer as one it
//! can never leave, and the rest exactly as before.

use crate::model::pieces::MAX_HOLDER;

/// Line keys of a code: the holder's other slots as a number, plus s times
/// n^(k-1) so every slot has a table of its own.
pub struct LineKeys {
    n: u32,
    line: u32,
    place: [u32; MAX_HOLDER],
}

impl LineKeys {
    pub fn new(n: usize, k: usize) -> Self {
        let n = n as u32;
        let mut place = [1u32; MAX_HOLDER];
        for s in (0..k.saturating_sub(1)).rev() {
            place[s] = place[s + 1] * n;
        }
        LineKeys {
            n,
            line: n.pow(k as u32 - 1),
            place,
        }
    }

    /// The key of the line through holder `c` at slot `s`.
    pub fn key(&self, c: u32, s: usize) -> u32 {
        let p = self.place[s];
        s as u32 * self.line + c / (p * self.n) * p + c % p
    }

    /// The number of keys over every slot.
    pub fn size(&self, k: usize) -> usize {
        k * self.line as usize
    }
}

/// Which killers (codes `killers`, F's slots `slots`) are closed: no chain
/// of redraws from them reaches a solvable holder.
pub fn closed(killers: &[u32], slots: &[u8], n: usize, k: usize) -> Vec<bool> {
    let m = killers.len();
    if m == 0 || k == 0 {
        return Vec::new();
    }
    let keys = LineKeys::new(n, k);
    let size = keys.size(k);
    // Killers on each line, and the killers whose F slot moves them along
    // it (as lists by line: `start[key]..start[key + 1]` into `movers`).
    let mut on_line = vec![0u32; size];
    let mut start = vec![0u32; size + 1];
    for (u, &c) in killers.iter().enumerate() {
        for s in 0..k {
            on_line[keys.key(c, s) as usize] += 1;
        }
        start[keys.key(c, usize::from(slots[u])) as usize + 1] += 1;
    }
    for i in 0..size {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut movers = vec![0u32; m];
    for (u, &c) in killers.iter().enumerate() {
        let key = keys.key(c, usize::from(slots[u])) as usize;
        movers[fill[key] as usize] = u as u32;
        fill[key] += 1;
    }
    // Lines with a way out: a solvable holder on them at first, then every
    // line through an escaping killer.
    let mut out: Vec<bool> = on_line.iter().map(|&c| (c as usize) < n).collect();
    let mut escapes = vec![false; m];
    let mut queue: Vec<usize> = (0..size).filter(|&l| out[l]).collect();
    while let Some(line) = queue.pop() {
        for &u in &movers[start[line] as usize..start[line + 1] as usize] {
            let u = u as usize;
            if escapes[u] {
                continue;
            }
            escapes[u] = true;
            for s in 0..k {
                let l = keys.key(killers[u], s) as usize;
                if !out[l] {
                    out[l] = true;
                    queue.push(l);
                }
            }
        }
    }
    escapes.iter().map(|&e| !e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fits::generator::boards::{code, decode};
    use std::collections::HashSet;

    /// Plain brute force: explore every holder reachable from u by F's
    /// redraws with every piece; closed if none is solvable.
    fn brute(killers: &[u32], slots: &[u8], n: usize, k: usize) -> Vec<bool> {
        let index = |c: u32| killers.binary_search(&c).ok();
        (0..killers.len())
            .map(|u| {
                let mut seen = HashSet::from([u]);
                let mut todo = vec![u];
                while let Some(x) = todo.pop() {
                    let h = decode(killers[x], n, k);
                    let s = usize::from(slots[x]);
                    for j in 0..n {
                        let mut g = h.clone();
                        g[s] = j as u8;
                        match index(code(&g, n)) {
                            None => return false,
                            Some(y) => {
                                if seen.insert(y) {
                                    todo.push(y);
                                }
                            }
                        }
                    }
                }
                true
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// On random killer sets and slots over small piece sets, the
        /// closed killers are exactly those the brute force finds closed.
        #[test]
        fn closed_equals_brute_force(n in 2usize..6, k in 1usize..4, seed: u64, density in 0.3f64..1.0) {
            use rand::{RngExt, SeedableRng};
            let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
            let all = (n as u32).pow(k as u32);
            let killers: Vec<u32> = (0..all).filter(|_| rng.random_bool(density)).collect();
            let slots: Vec<u8> = killers.iter().map(|_| rng.random_range(0..k) as u8).collect();
            proptest::prop_assert_eq!(closed(&killers, &slots, n, k), brute(&killers, &slots, n, k));
        }
    }

    #[test]
    fn every_holder_a_killer_is_all_closed_and_a_lone_killer_escapes() {
        let killers: Vec<u32> = (0..27).collect();
        assert_eq!(closed(&killers, &[1; 27], 3, 3), vec![true; 27]);
        assert_eq!(closed(&[5], &[2], 3, 3), vec![false]);
    }
}
