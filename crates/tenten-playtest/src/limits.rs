//! Rate limits: a token bucket per tester, and one for testers arriving,
//! so one client sending thousands of requests a second is answered 429
//! while the others play on.

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
}

impl Buckets {
    pub fn new(rate: f64, burst: f64) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            rate,
            burst,
        }
    }

    /// Whether `key` may make a request now (taking a token if so).
    pub fn allow(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
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
        let now = Instant::now();
        let (rate, burst) = (self.rate, self.burst);
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < burst);
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
}
