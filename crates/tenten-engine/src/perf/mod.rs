//! Speed: the benchmarks, the mobile CPU throttle and the timing lab's sweeps.

pub mod bench;
pub mod bench_selfplay;
pub mod throttle;
pub mod timing;
