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
//!   first solvable holder, stepped exactly up to the check's redraws; a
//!   chain still unsolvable then deals the exhaustive fallback's holder
//!   from the holder first dealt (`search::changer::fallback`, the
//!   check's policy, pieces by the weights), so the fallback's mass for a
//!   is the sum over first draws u whose fallback is a of q(u) times the
//!   chance u's chain stays unsolvable through every redraw.
//! - a dead board (no holder can be placed) deals the first draw as drawn.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::fits::generator::boards::{BoardInfo, code, decode};
use crate::model::board::Bits;
use crate::model::pieces::{MAX_HOLDER, PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::search::changer::fallback;
use crate::search::heuristic::Policy;

/// A chance below this is taken as none (a holder the rules cannot deal).
pub const IMPOSSIBLE: f64 = 1e-300;

/// Mass that could still reach the dealt holder is left out once it is
/// less than this share of what already has.
const NEGLIGIBLE: f64 = 1e-9;

/// Mass `left` that could still reach the holder is negligible beside the
/// mass `reached` that has (never when nothing has: then every path counts).
fn negligible(left: f64, reached: f64) -> bool {
    left <= 0.0 || left < NEGLIGIBLE * reached
}

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

/// The changer's exhaustive fallback, as the engine runs it when its
/// redraws all fail: from the dealt holder, starting at the slot equation
/// (5) chose in it, the pieces tried heaviest first as the law's weights
/// order them (ties by piece order). Its holders are kept per board, slot
/// and order of the pieces, shared by every clone.
#[derive(Clone)]
pub struct Fallback<'a> {
    pub shapes: &'a Shapes,
    pub set: &'a PieceSet,
    cache: Arc<Mutex<FallbackCache>>,
}

/// (board, the pieces of positive weight heaviest first) to (dealt
/// holder's code, slot) to the fallback's holder's code (`NO_HOLDER` when
/// none is solvable).
#[derive(Default)]
struct FallbackCache {
    holders: HashMap<(Bits, Vec<PieceIdx>), HoldersOf>,
    entries: usize,
}

/// One board and order's fallback holders: (dealt code, slot) to code.
type HoldersOf = HashMap<(u32, u8), u32>;

/// The fallback found no solvable holder (the board is dead for the
/// pieces of positive weight).
const NO_HOLDER: u32 = u32::MAX;

/// Past this many holders kept the cache starts again.
const CACHE_ENTRIES: usize = 1 << 22;

impl<'a> Fallback<'a> {
    pub fn new(shapes: &'a Shapes, set: &'a PieceSet) -> Self {
        Fallback {
            shapes,
            set,
            cache: Arc::default(),
        }
    }

    /// The engine's fallback holder for the unsolvable `dealt` (equation
    /// (5)'s slot in it `slot`) under the weights `w`; `None` when no
    /// holder of pieces of positive weight is solvable.
    pub fn holder(&self, board: Bits, dealt: &[PieceIdx], slot: usize, w: &[f64]) -> Option<Vec<PieceIdx>> {
        fallback(self.shapes, self.set, board, dealt, slot, w)
    }

    /// `holder` by codes, through the cache; `order` is `by_weight(w)`.
    fn cached(&self, board: Bits, dealt: u32, slot: u8, w: &[f64], order: &[PieceIdx], k: usize) -> u32 {
        let n = w.len();
        let key = (board, order.to_vec());
        if let Some(&c) = lock(&self.cache)
            .holders
            .get(&key)
            .and_then(|m| m.get(&(dealt, slot)))
        {
            return c;
        }
        let found = self
            .holder(board, &decode(dealt, n, k), usize::from(slot), w)
            .map_or(NO_HOLDER, |h| code(&h, n));
        let mut cache = lock(&self.cache);
        if cache.entries >= CACHE_ENTRIES {
            *cache = FallbackCache::default();
        }
        if cache
            .holders
            .entry(key)
            .or_default()
            .insert((dealt, slot), found)
            .is_none()
        {
            cache.entries += 1;
        }
        found
    }
}

fn lock(cache: &Mutex<FallbackCache>) -> std::sync::MutexGuard<'_, FallbackCache> {
    // The cache holds only finished entries: a panic elsewhere leaves it whole.
    cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The pieces of positive weight, heaviest first, ties by piece order: the
/// order the fallback tries them in.
fn by_weight(w: &[f64]) -> Vec<PieceIdx> {
    let mut order: Vec<PieceIdx> = (0..w.len() as PieceIdx)
        .filter(|&i| w[usize::from(i)] > 0.0)
        .collect();
    order.sort_by(|&a, &b| w[usize::from(b)].total_cmp(&w[usize::from(a)]));
    order
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

/// The key of holder h's line at slot s: the other slots as a number (those
/// before s shifted down one place, `place` being each slot's place value
/// in a code), plus s times `line` (n^(k-1)). Multiplications only: this
/// runs for every killer of every deal at every EM step.
fn line_key(h: &[PieceIdx], s: usize, place: &[u32; MAX_HOLDER], line: u32) -> u32 {
    let mut key = s as u32 * line;
    for (i, &p) in h.iter().enumerate() {
        if i < s {
            key += u32::from(p) * place[i + 1];
        } else if i > s {
            key += u32::from(p) * place[i];
        }
    }
    key
}

/// The killers of one deal's board laid out for the chain: each killer's
/// pieces, F's slot, and for every slot s its line key, the holder's other
/// slots as a number (plus s times n^(k-1), so every slot has a table of
/// its own). A redraw of slot s moves a holder along its line s: to every
/// holder with the same key at s. Sums over a line then stand for the n
/// transitions of every killer on it, so a redraw of the whole chain costs
/// k operations a killer instead of n.
struct Lines<'a> {
    k: usize,
    m: usize,
    /// `pieces[u * k + s]`: killer u's piece in slot s.
    pieces: Vec<PieceIdx>,
    /// `keys[u * k + s]`: killer u's line key at slot s.
    keys: Vec<u32>,
    /// `weights[u * k + s]`: the law's weight of killer u's piece in slot
    /// s (read in every pass, so looked up once).
    weights: Vec<f64>,
    /// F's slot of each killer.
    slot: &'a [u8],
    /// The size of the line tables.
    size: usize,
    /// The dealt holder's pieces and line keys.
    a: [PieceIdx; MAX_HOLDER],
    a_keys: [u32; MAX_HOLDER],
}

impl<'a> Lines<'a> {
    fn new(info: &BoardInfo, slots: &'a [u8], holder: &[PieceIdx], w: &[f64]) -> Self {
        let n = w.len();
        let k = holder.len();
        let m = info.killers.len();
        let line = (n as u32).pow(k as u32 - 1);
        let mut h = [0; MAX_HOLDER];
        let mut lines = Lines {
            k,
            m,
            pieces: Vec::with_capacity(m * k),
            keys: Vec::with_capacity(m * k),
            weights: Vec::with_capacity(m * k),
            slot: slots,
            size: k * line as usize,
            a: [0; MAX_HOLDER],
            a_keys: [0; MAX_HOLDER],
        };
        // Slot s's place value in a code; removing slot s keeps the slots
        // before it (shifted down one place) and the slots after it.
        let mut place = [1u32; MAX_HOLDER];
        for s in (0..k.saturating_sub(1)).rev() {
            place[s] = place[s + 1] * n as u32;
        }
        for &c in &info.killers {
            decode_into(c, n, &mut h[..k]);
            lines.pieces.extend_from_slice(&h[..k]);
            lines.weights.extend(h[..k].iter().map(|&p| w[usize::from(p)]));
            lines
                .keys
                .extend((0..k).map(|s| line_key(&h[..k], s, &place, line)));
        }
        debug_assert!(lines.keys.iter().all(|&key| (key as usize) < lines.size));
        lines.a[..k].copy_from_slice(holder);
        for s in 0..k {
            lines.a_keys[s] = line_key(holder, s, &place, line);
        }
        lines
    }

    /// Each line's mass: `tab[key] += v[u]` at every killer's own slot.
    fn gather_by_slot(&self, v: &[f64], tab: &mut [f64]) {
        for (u, &x) in v.iter().enumerate() {
            if x != 0.0 {
                tab[self.keys[u * self.k + usize::from(self.slot[u])] as usize] += x;
            }
        }
    }

    /// Each line's value of landing: `tab[key] += w(piece at s) * y(x)`
    /// over every killer x and every slot s, and the dealt holder worth
    /// `at_a`.
    fn gather_every_slot(&self, y: &[f64], at_a: f64, w: &[f64], tab: &mut [f64]) {
        let k = self.k;
        for (u, &x) in y.iter().enumerate() {
            if x != 0.0 {
                for s in 0..k {
                    let i = u * k + s;
                    tab[self.keys[i] as usize] += self.weights[i] * x;
                }
            }
        }
        if at_a != 0.0 {
            for s in 0..k {
                tab[self.a_keys[s] as usize] += w[usize::from(self.a[s])] * at_a;
            }
        }
    }

    /// Sets every entry a gather may have touched back to 0.
    fn clear(&self, tab: &mut [f64]) {
        // With keys at least a quarter of the table, one sequential fill
        // costs less than the scattered writes (every key is below `size`).
        if self.keys.len() * 4 >= self.size {
            tab[..self.size].fill(0.0);
            return;
        }
        for &key in &self.keys {
            tab[key as usize] = 0.0;
        }
        for &key in &self.a_keys[..self.k] {
            tab[key as usize] = 0.0;
        }
    }

    /// One redraw from a mass `v` over the killers (its line sums in
    /// `tab`, gathered by slot): the mass still among the killers, and the
    /// part that reached the dealt holder.
    fn spread(&self, tab: &[f64], w: &[f64]) -> (Vec<f64>, f64) {
        let k = self.k;
        let nv = (0..self.m)
            .map(|x| {
                (0..k)
                    .map(|s| {
                        let i = x * k + s;
                        tab[self.keys[i] as usize] * self.weights[i]
                    })
                    .sum()
            })
            .collect();
        let to_a = (0..k)
            .map(|s| tab[self.a_keys[s] as usize] * w[usize::from(self.a[s])])
            .sum();
        (nv, to_a)
    }

    /// What a killer is worth after t = 0..=steps redraws, from `start`
    /// (t = 0), the dealt holder worth `at_a` and any other solvable
    /// holder 0: each redraw pulls the line sums of the last values.
    fn worth(&self, start: Vec<f64>, at_a: f64, w: &[f64], steps: usize, tab: &mut [f64]) -> Vec<Vec<f64>> {
        let mut values = vec![start];
        for _ in 0..steps {
            self.gather_every_slot(&values[values.len() - 1], at_a, w, tab);
            let next = self.pull(tab);
            self.clear(tab);
            values.push(next);
        }
        values
    }

    /// What each killer's redraw is worth, given what each holder it can
    /// land on is worth (`tab` gathered over every slot): the line sum at
    /// its own slot.
    fn pull(&self, tab: &[f64]) -> Vec<f64> {
        (0..self.m)
            .map(|u| tab[self.keys[u * self.k + usize::from(self.slot[u])] as usize])
            .collect()
    }
}

thread_local! {
    /// The line tables, all 0 between uses (each use clears what it wrote).
    static TABLES: std::cell::RefCell<[Vec<f64>; 2]> = const { std::cell::RefCell::new([Vec::new(), Vec::new()]) };
}

/// The changer's chain: P(a) and, with `s`, its expected draws.
///
/// From a first draw u among the killers the chain steps up to `redraws`
/// times (F's slot, a fresh draw from w), absorbed at the first solvable
/// holder; a chain that stays among the killers through every redraw deals
/// fb(u), the fallback's holder from u. So P(a) = q(a) + the chains
/// absorbed at a + the sum over u with fb(u) = a of q(u) g_R(u), g_t(u) the
/// chance the chain from u stays among the killers for t redraws.
#[allow(clippy::too_many_arguments)]
fn chain(
    d: &Deal,
    law: &Law,
    q_a: f64,
    redraws: usize,
    policy_index: usize,
    fallback: &Fallback,
    s: Option<&mut Stats>,
) -> f64 {
    let lines = Lines::new(d.info, &d.info.slots[policy_index], d.holder, law.w);
    TABLES.with(|t| {
        let mut t = t.borrow_mut();
        let size = lines.size;
        for tab in t.iter_mut() {
            if tab.len() < size {
                tab.resize(size, 0.0);
            }
        }
        let [one, two] = &mut *t;
        chain_on(d, law, q_a, redraws, fallback, &lines, (one, two), s)
    })
}

#[allow(clippy::too_many_arguments)]
fn chain_on(
    d: &Deal,
    law: &Law,
    q_a: f64,
    redraws: usize,
    fallback: &Fallback,
    lines: &Lines,
    (tab, tab2): (&mut [f64], &mut [f64]),
    s: Option<&mut Stats>,
) -> f64 {
    let n = law.w.len();
    let k = d.holder.len();
    let info = d.info;
    let m = info.killers.len();
    let a_code = code(d.holder, n);
    let w = law.w;
    // One redraw from a mass over the killers.
    let step = |v: &[f64], tab: &mut [f64]| {
        lines.gather_by_slot(v, tab);
        let r = lines.spread(tab, w);
        lines.clear(tab);
        r
    };
    // Forward: the chain's mass over killers after t redraws (v_0 = q).
    let q: Vec<f64> = (0..m)
        .map(|u| law.first(&lines.pieces[u * k..(u + 1) * k], d.previous))
        .collect();
    let mut forward = vec![q.clone()];
    let mut absorbed = 0.0;
    while forward.len() <= redraws {
        let v = &forward[forward.len() - 1];
        // What is left bounds all that can still reach a, by a redraw or
        // by the fallback: stop once that is negligible.
        if negligible(v.iter().sum(), q_a + absorbed) {
            break;
        }
        let (nv, to_a) = step(v, tab);
        absorbed += to_a;
        forward.push(nv);
    }
    let steps = forward.len() - 1;
    // The fallback: every first draw u whose chain stayed among the killers
    // through all the redraws (g_R(u)) and whose fallback holder is a. The
    // first draws heaviest first, until what is left is negligible.
    let mut fb_a = vec![false; m];
    let mut fallback_mass = 0.0;
    let mut stay: Vec<Vec<f64>> = Vec::new();
    if steps == redraws && !negligible(forward[steps].iter().sum(), q_a + absorbed) {
        // g_t(u): the chance the chain from u stays among the killers
        // through t redraws (g_0 = 1; landing on a is leaving).
        stay = lines.worth(vec![1.0; m], 0.0, w, redraws, tab);
        let g = &stay[redraws];
        let mut order: Vec<(f64, usize)> = (0..m).map(|u| (q[u] * g[u], u)).filter(|x| x.0 > 0.0).collect();
        order.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        let mut left: f64 = order.iter().map(|x| x.0).sum();
        let pieces = by_weight(w);
        for (mass, u) in order {
            if negligible(left, q_a + absorbed + fallback_mass) {
                break;
            }
            left -= mass;
            if fallback.cached(d.board, info.killers[u], lines.slot[u], w, &pieces, k) == a_code {
                fb_a[u] = true;
                fallback_mass += mass;
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
    // Backward: y_t(u) = P(absorbed at a within t redraws | at u).
    let backward = lines.worth(vec![0.0; m], 1.0, w, steps, tab);
    // The first draw: a itself, or a killer whose chain led to a.
    law.add_first(d.holder, d.previous, q_a / p, s);
    let y_all = &backward[steps];
    for u in 0..m {
        let to_a = y_all[u] + if fb_a[u] { stay[steps][u] } else { 0.0 };
        if q[u] * to_a > 0.0 {
            law.add_first(&lines.pieces[u * k..(u + 1) * k], d.previous, q[u] * to_a / p, s);
        }
    }
    // Each redraw t (1..=steps): from v_{t-1}, piece j, then steps - t
    // left; and along the paths to the fallback, from the first draws
    // whose fallback is a (their mass v^a, staying among the killers).
    // Piece j drawn into slot s lands on the holder x of that line with j
    // at s, so its count is w(j) times the line's mass times what x is
    // worth, summed over the holders x (killers and a) and their slots.
    let mut via_fallback: Vec<f64> = if fallback_mass > 0.0 {
        (0..m).map(|u| if fb_a[u] { q[u] } else { 0.0 }).collect()
    } else {
        Vec::new()
    };
    // What reached each killer's slot (and the dealt holder's), summed over
    // the redraws; each piece's count is then its weight times that, over
    // p, added once.
    let mut reached = vec![0.0; m * k];
    let mut reached_a = [0.0; MAX_HOLDER];
    for t in 1..=steps {
        let y = &backward[steps - t];
        lines.gather_by_slot(&forward[t - 1], tab);
        if via_fallback.is_empty() {
            for ((r, keys), &yx) in reached.chunks_mut(k).zip(lines.keys.chunks(k)).zip(y) {
                if yx != 0.0 {
                    for (r, &key) in r.iter_mut().zip(keys) {
                        *r += tab[key as usize] * yx;
                    }
                }
            }
        } else {
            lines.gather_by_slot(&via_fallback, tab2);
            let g = &stay[steps - t];
            for (((r, keys), &yx), &gx) in reached.chunks_mut(k).zip(lines.keys.chunks(k)).zip(y).zip(g) {
                if yx != 0.0 || gx != 0.0 {
                    for (r, &key) in r.iter_mut().zip(keys) {
                        *r += tab[key as usize] * yx + tab2[key as usize] * gx;
                    }
                }
            }
        }
        for (r, &key) in reached_a[..k].iter_mut().zip(&lines.a_keys[..k]) {
            *r += tab[key as usize];
        }
        lines.clear(tab);
        if !via_fallback.is_empty() {
            lines.clear(tab2);
            via_fallback = step(&via_fallback, tab).0;
        }
    }
    for (i, &r) in reached.iter().enumerate() {
        if r != 0.0 {
            s.draws[usize::from(lines.pieces[i])] += lines.weights[i] * r / p;
        }
    }
    for (&r, &piece) in reached_a[..k].iter().zip(&lines.a[..k]) {
        if r != 0.0 {
            let j = usize::from(piece);
            s.draws[j] += w[j] * r / p;
        }
    }
    p
}

#[cfg(test)]
#[path = "likelihood_tests.rs"]
mod tests;
