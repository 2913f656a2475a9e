//! Validation through the C ABI against the Rust call, on the same corpus:
//! `cargo run --release -p tenten-ffi --example bench_validate [DEALS] [SEED]`.
//!
//! The corpus is `tenten bench`'s: holders of 3 classic pieces met in
//! self-play on a 10x10 board. The ABI call is `tenten_validate` as a game
//! makes it: a board of 100 cells and a holder of indices in, a struct
//! out (the dynamic call adds one indirect jump, about a nanosecond, left
//! out here). Every deal is timed as `tenten bench` times it: calls batched
//! until the clock resolves them, the best of three batches kept; the Rust
//! call and the ABI call one after the other, deal by deal.

// Calls the C functions as C would: raw pointers.
#![allow(unsafe_code)]

use std::hint::black_box;

use tenten_engine::model::board::BoardSize;
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::perf::bench::time_per_call;
use tenten_engine::play::random_fill::played_deals;
use tenten_engine::search::validator::{validate, verdict};
use tenten_ffi::{
    TentenStatus, TentenValidation, tenten_generator_free, tenten_generator_preset, tenten_rules_free,
    tenten_rules_new, tenten_validate,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let deals: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let set = PieceSet::classic();
    let size = BoardSize::CLASSIC;
    let shapes = Shapes::new(&set, size);
    let corpus = played_deals(&shapes, &set, 3, deals, &mut Generator::new(seed));
    // The boards as a game holds them, one after another in one buffer.
    let n = size.cells();
    let cells: Vec<u8> = corpus
        .iter()
        .flat_map(|d| (0..n).map(move |i| u8::from(d.board >> i & 1 == 1)))
        .collect();

    let (mut generator, mut rules) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: valid strings and output pointers; the handles are freed at the end.
    unsafe {
        assert_eq!(
            tenten_generator_preset(c"random".as_ptr(), std::ptr::null(), &mut generator),
            TentenStatus::Ok
        );
        assert_eq!(
            tenten_rules_new(generator, 10, 10, 3, &mut rules),
            TentenStatus::Ok
        );
    }

    // Each deal timed as `tenten bench` times it (perf::bench::time_per_call:
    // batched calls, best of three), the two sides one after the other.
    let (mut rust_us, mut verdict_us, mut abi_us) = (0.0, 0.0, 0.0);
    let mut unsolvable = 0;
    for (d, c) in corpus.iter().zip(cells.chunks_exact(n)) {
        rust_us += time_per_call(|| {
            black_box(validate(&shapes, black_box(d.board), black_box(&d.holder)));
        });
        verdict_us += time_per_call(|| {
            black_box(verdict(&shapes, black_box(d.board), black_box(&d.holder)));
        });
        let mut v = TentenValidation::default();
        abi_us += time_per_call(|| {
            // SAFETY: live rules, arrays of the stated lengths, writable output.
            let status = unsafe {
                tenten_validate(
                    rules,
                    black_box(c.as_ptr()),
                    c.len(),
                    d.holder.as_ptr(),
                    d.holder.len(),
                    &mut v,
                )
            };
            black_box((status, &v));
        });
        unsolvable += usize::from(v.solvable == 0);
    }
    // SAFETY: made above, freed once.
    unsafe {
        tenten_rules_free(rules);
        tenten_generator_free(generator);
    }

    let per = |us: f64| us / deals as f64;
    println!(
        "corpus: {deals} deals of 3 classic pieces met in self-play on 10x10 (seed {seed}), {unsolvable} unsolvable"
    );
    println!("validate (Rust call)   {:9.3} us/deal", per(rust_us));
    println!(
        "verdict (Rust call)    {:9.3} us/deal  (the search the ABI wraps)",
        per(verdict_us)
    );
    println!("validate (C ABI)       {:9.3} us/deal", per(abi_us));
    println!(
        "C ABI / Rust           {:9.3}  ({:+.1} %; the issue allows +10 %)",
        abi_us / rust_us,
        (abi_us / rust_us - 1.0) * 100.0
    );
    println!(
        "C ABI / verdict        {:9.3}  (the boundary's own cost: pointers, board, holder, result)",
        abi_us / verdict_us
    );
}
