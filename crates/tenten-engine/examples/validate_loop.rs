//! The Rust side of the Python package's `validate_many` benchmark
//! (`crates/tenten-py/bench/speed.py`): the same boards and holders, read
//! from the raw files the script writes, validated in a plain loop on one
//! thread, as `validate_many` validates them.
//!
//! `validate_loop BOARDS.u8 HOLDERS.u8 N H W K [REPEATS]` prints
//! `boards=N solvable=S nodes=T best_seconds=X`.

use std::time::Instant;

use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::validator::verdict;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [boards, holders, n, h, w, k, rest @ ..] = args.as_slice() else {
        return Err("usage: validate_loop BOARDS.u8 HOLDERS.u8 N H W K [REPEATS]".into());
    };
    let num = |s: &String| s.parse::<usize>().map_err(|e| format!("{s:?}: {e}"));
    let (n, h, w, k) = (num(n)?, num(h)?, num(w)?, num(k)?);
    let repeats = rest.first().map(num).transpose()?.unwrap_or(5).max(1);
    let boards = std::fs::read(boards).map_err(|e| e.to_string())?;
    let holders = std::fs::read(holders).map_err(|e| e.to_string())?;
    if boards.len() != n * h * w || holders.len() != n * k {
        return Err(format!(
            "the files hold {} and {} bytes, not {} and {}",
            boards.len(),
            holders.len(),
            n * h * w,
            n * k
        ));
    }
    let size = BoardSize::new(w, h)?;
    let set = PieceSet::classic();
    let mut best = f64::INFINITY;
    let (mut solvable, mut nodes) = (0u64, 0u64);
    for _ in 0..repeats {
        let start = Instant::now();
        // What validate_many does: the shapes once, then each board's bits
        // and its verdict.
        let shapes = Shapes::new(&set, size);
        (solvable, nodes) = (0, 0);
        for i in 0..n {
            let cells = &boards[i * h * w..(i + 1) * h * w];
            let mut bits: Bits = 0;
            for (c, &v) in cells.iter().enumerate() {
                bits |= Bits::from(v != 0) << size.bit(c % w, c / w);
            }
            let v = verdict(&shapes, bits, &holders[i * k..(i + 1) * k]);
            solvable += u64::from(v.solvable);
            nodes += v.nodes;
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("boards={n} solvable={solvable} nodes={nodes} best_seconds={best:.4}");
    Ok(())
}
