//! A CPU-throttle factor, applied for real as a duty cycle on the measuring
//! thread: after each timed slice of real work of duration d, the thread
//! busy-waits (f - 1) * d on a monotonic clock, and the reported time is the
//! wall time of work plus stall, f * d.
//!
//! What the model is: CPU time scaled by f, as browser developer tools
//! throttle a page. What it is not: a phone. It does not shrink caches,
//! slow memory more than the core, add a managed runtime's garbage
//! collector, or model thermal throttling; read its figures as "this
//! machine, f times slower", a floor for a real device of that class.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// The factors the sweep allows.
pub const MIN_FACTOR: f64 = 1.0;
pub const MAX_FACTOR: f64 = 20.0;

/// The presets designers know from browser developer tools.
pub const PRESETS: [(f64, &str); 4] = [
    (1.0, "no throttling"),
    (4.0, "mid-tier mobile"),
    (6.0, "low-tier mobile"),
    (20.0, "very slow"),
];

/// The sweep the Timing tab runs by default.
pub const DEFAULT_SWEEP: [f64; 6] = [1.0, 2.0, 4.0, 6.0, 10.0, 20.0];

/// "6x low-tier mobile", or "3x" for a custom factor.
pub fn describe(factor: f64) -> String {
    let name = PRESETS
        .iter()
        .find(|(f, _)| (f - factor).abs() < 1e-9)
        .map(|(_, n)| *n);
    match name {
        Some(n) => format!("{}x {n}", short(factor)),
        None => format!("{}x", short(factor)),
    }
}

/// "6" or "2.5".
pub fn short(factor: f64) -> String {
    if factor.fract().abs() < 1e-9 {
        format!("{factor:.0}")
    } else {
        format!("{factor}")
    }
}

/// A factor from text: a number from 1 to 20, with or without a trailing x.
pub fn parse_factor(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches(['x', 'X']);
    let f: f64 = t
        .parse()
        .map_err(|_| format!("throttle factor {s:?} is not a number"))?;
    if !(MIN_FACTOR..=MAX_FACTOR).contains(&f) {
        return Err(format!(
            "throttle factor {s} is out of range; it must be {MIN_FACTOR} to {MAX_FACTOR}"
        ));
    }
    Ok(f)
}

/// A list of factors, "1,4,6": each checked, sorted, without repeats.
pub fn parse_factors(s: &str) -> Result<Vec<f64>, String> {
    let mut out = s
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(parse_factor)
        .collect::<Result<Vec<_>, _>>()?;
    if out.is_empty() {
        return Err("no throttle factor given".to_owned());
    }
    out.sort_by(f64::total_cmp);
    out.dedup();
    Ok(out)
}

/// The clock the duty cycle runs on: real time in the product, a fake one
/// in tests, so the accounting can be checked exactly.
pub trait Clock {
    /// Time since an arbitrary origin; never goes back.
    fn now(&self) -> Duration;
    /// Returns once `now() >= t`, busy (a sleep would give the core away
    /// and the scheduler would decide how long the stall really is).
    fn spin_until(&self, t: Duration);
}

/// The monotonic clock of the operating system.
pub struct MonotonicClock {
    origin: Instant,
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn spin_until(&self, t: Duration) {
        while self.now() < t {
            std::hint::spin_loop();
        }
    }
}

/// A clock that moves only when told: the work advances it, the stall jumps.
#[derive(Default)]
pub struct FakeClock {
    now: Cell<Duration>,
}

impl FakeClock {
    pub fn advance(&self, d: Duration) {
        self.now.set(self.now.get() + d);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        self.now.get()
    }

    fn spin_until(&self, t: Duration) {
        if t > self.now.get() {
            self.now.set(t);
        }
    }
}

/// A throttle factor on a clock.
pub struct Throttle<C: Clock> {
    pub factor: f64,
    pub clock: C,
}

impl Throttle<MonotonicClock> {
    pub fn new(factor: f64) -> Self {
        Self {
            factor: factor.clamp(MIN_FACTOR, MAX_FACTOR),
            clock: MonotonicClock::default(),
        }
    }
}

impl<C: Clock> Throttle<C> {
    /// One timed slice: runs `work` (taking d), stalls (f - 1) * d, and
    /// returns the result with the wall time of work plus stall.
    pub fn slice<T>(&self, work: impl FnOnce() -> T) -> (T, Duration) {
        let start = self.clock.now();
        let out = work();
        let worked = self.clock.now() - start;
        self.clock
            .spin_until(start + worked + worked.mul_f64(self.factor - 1.0));
        (out, self.clock.now() - start)
    }

    /// Microseconds per call of `f` at this throttle. Calls are batched
    /// until the batch's real work passes 20 us (so the clock resolves
    /// sub-microsecond calls); each batch is one slice; the best of three
    /// batches is kept (of two when a batch takes over a millisecond), so a
    /// scheduler hiccup, which the stall would multiply, does not pass for
    /// the deal's own cost.
    pub fn time_per_call(&self, mut f: impl FnMut()) -> f64 {
        let mut reps = 1u32;
        loop {
            let ((), total) = self.slice(|| {
                for _ in 0..reps {
                    f();
                }
            });
            let worked = total.as_secs_f64() / self.factor;
            if worked > 20e-6 || reps >= 1 << 16 {
                let mut best = total;
                let retries = if worked > 1e-3 { 1 } else { 2 };
                for _ in 0..retries {
                    let ((), t) = self.slice(|| {
                        for _ in 0..reps {
                            f();
                        }
                    });
                    best = best.min(t);
                }
                return best.as_secs_f64() * 1e6 / f64::from(reps);
            }
            reps *= 4;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_of_d_at_factor_f_stalls_exactly_f_minus_1_times_d() {
        for factor in [1.0, 2.0, 4.0, 6.0, 20.0, 2.5] {
            let throttle = Throttle {
                factor,
                clock: FakeClock::default(),
            };
            let d = Duration::from_micros(37);
            let before = throttle.clock.now();
            let (value, total) = throttle.slice(|| {
                throttle.clock.advance(d);
                7
            });
            assert_eq!(value, 7);
            assert_eq!(total, d.mul_f64(factor), "factor {factor}");
            let stall = throttle.clock.now() - before - d;
            assert_eq!(stall, d.mul_f64(factor - 1.0));
        }
    }

    #[test]
    fn time_per_call_reports_work_plus_stall_per_call() {
        let throttle = Throttle {
            factor: 6.0,
            clock: FakeClock::default(),
        };
        // Each call takes 3 us of "work": batches grow until 20 us of it.
        let us = throttle.time_per_call(|| throttle.clock.advance(Duration::from_micros(3)));
        assert!((us - 18.0).abs() < 1e-9, "{us}");
    }

    #[test]
    fn factors_are_parsed_checked_and_named() {
        assert_eq!(parse_factors("6, 1,4x,4").unwrap(), vec![1.0, 4.0, 6.0]);
        assert!(parse_factor("0.5").unwrap_err().contains("1 to 20"));
        assert!(parse_factor("21").is_err());
        assert!(parse_factor("fast").unwrap_err().contains("not a number"));
        assert!(parse_factors(",").is_err());
        assert_eq!(describe(6.0), "6x low-tier mobile");
        assert_eq!(describe(1.0), "1x no throttling");
        assert_eq!(describe(2.5), "2.5x");
    }

    #[test]
    fn the_real_clock_stalls_at_least_the_stall() {
        // No upper bound: a test never asserts how fast the machine is.
        let throttle = Throttle::new(3.0);
        let (_, total) = throttle.slice(|| std::thread::sleep(Duration::from_millis(2)));
        assert!(total >= Duration::from_millis(6), "{total:?}");
    }
}
