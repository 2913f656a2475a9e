//! Rate limits: a token bucket per tester, and one for testers arriving,
//! so one client sending thousands of requests a second is answered 429
//! while the others play on. The buckets are bounded in number: a client
//! making up keys cannot grow the server without end.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

struct Bucket {
    tokens: f64,
    at: Instant,
}

pub struct Buckets {
    map: Mutex<HashMap<String, Bucket>>,
    rate: f64,
    burst: f64,
    /// The most buckets kept (a few MB at most).
    max: usize,
}

/// Buckets kept at most: ten times the default open sessions, so only a
/// flood of keys, never a full playtest, reaches it.
pub const MAX_BUCKETS: usize = 100_000;

impl Buckets {
    pub fn new(rate: f64, burst: f64) -> Self {
        Self::bounded(rate, burst, MAX_BUCKETS)
    }

    pub fn bounded(rate: f64, burst: f64, max: usize) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            rate,
            burst,
            max,
        }
    }

    /// Whether `key` may make a request now (taking a token if so). A new
    /// key when `max` are kept is refused unless pruning makes room.
    pub fn allow(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if !map.contains_key(key) && map.len() >= self.max {
            self.retain_active(&mut map, now);
            if map.len() >= self.max {
                return false;
            }
        }
        let b = map.entry(key.to_owned()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * self.rate).min(self.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Forgets buckets full again (their clients quiet), so the map holds
    /// only the active.
    pub fn prune(&self) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        self.retain_active(&mut map, Instant::now());
    }

    fn retain_active(&self, map: &mut HashMap<String, Bucket>, now: Instant) {
        let (rate, burst) = (self.rate, self.burst);
        map.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < burst);
        // Shrinks the table too, after a flood (a map keeps its capacity).
        if map.capacity() > 4 * map.len().max(1024) {
            map.shrink_to_fit();
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_allowed_then_refused_and_others_are_untouched() {
        let b = Buckets::new(1.0, 5.0);
        let allowed = (0..100).filter(|_| b.allow("a")).count();
        assert_eq!(allowed, 5);
        assert!(b.allow("b"));
        std::thread::sleep(std::time::Duration::from_millis(1100));
        assert!(b.allow("a"), "a token comes back after a second");
        // b has refilled (forgotten); a spent its token again (kept).
        b.prune();
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn no_more_than_max_buckets_are_kept() {
        // A slow refill: every key stays active (not pruned) for minutes.
        let b = Buckets::bounded(0.01, 5.0, 100);
        let allowed = (0..1000).filter(|i| b.allow(&format!("k{i}"))).count();
        assert_eq!(allowed, 100, "new keys beyond the bound are refused");
        assert_eq!(b.len(), 100);
        assert!(b.allow("k7"), "a key kept is still served");
        // A fast refill: full (quiet) buckets make room for new keys.
        let b = Buckets::bounded(1000.0, 5.0, 100);
        for i in 0..100 {
            assert!(b.allow(&format!("k{i}")));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(b.allow("new"), "the quiet are forgotten to make room");
        assert_eq!(b.len(), 1);
    }
}
