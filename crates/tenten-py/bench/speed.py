"""The Python package's three speed figures, measured side by side on one
core (the process pins itself to CPU 0; the Rust loop it starts inherits
that):

1. ``validate_many`` on 100,000 deals from NumPy against the same loop in
   Rust (``crates/tenten-engine/examples/validate_loop.rs``) on the same
   boards and holders, best of 5 each;
2. ``TenTenVecEnv`` with 64 boards and random masked actions: steps a
   second (every game's step counts);
3. ``TenTenEnv.step`` from Python with random masked actions: steps a
   second, resets included.

The boards are the fresh deals of random masked play under ``random``
(seeded), so they are boards a game meets. Run from the workspace root,
after ``cargo build --release -p tenten-engine --example validate_loop``:

    python crates/tenten-py/bench/speed.py [--deals 100000]
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

import tenten
from tenten.env import TenTenEnv, TenTenVecEnv

ROOT = pathlib.Path(__file__).resolve().parents[3]


def random_actions(rng, masks):
    """One legal action a row, uniformly among the legal ones."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def deals_of_play(n, seed):
    """n (board, holder) pairs: the fresh deals of random masked play."""
    env = TenTenVecEnv(64, generator="random", max_rounds=1000)
    boards, holders, masks = env.reset(seed)
    rng = np.random.default_rng(seed)
    empty = len(tenten.piece_ids())
    got_b, got_h, count = [], [], 0
    while count < n:
        fresh = np.all(holders != empty, axis=1)
        got_b.append(boards[fresh].copy())
        got_h.append(holders[fresh].copy())
        count += int(fresh.sum())
        boards, holders, masks = env.step(random_actions(rng, masks))[:3]
    return np.concatenate(got_b)[:n], np.concatenate(got_h)[:n].astype(np.int64)


def best_of(repeats, work):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def validate_many_against_rust(n, seed, rust):
    boards, holders = deals_of_play(n, seed)
    py_s, result = best_of(5, lambda: tenten.validate_many(boards, holders))
    if not rust.is_file():
        sys.exit(f"{rust} is missing: cargo build --release -p tenten-engine --example validate_loop")
    with tempfile.TemporaryDirectory() as tmp:
        b, h = pathlib.Path(tmp, "boards.u8"), pathlib.Path(tmp, "holders.u8")
        b.write_bytes(np.ascontiguousarray(boards, np.uint8).tobytes())
        h.write_bytes(np.ascontiguousarray(holders, np.uint8).tobytes())
        n_, hh, ww = boards.shape
        out = subprocess.run([str(rust), str(b), str(h), str(n_), str(hh), str(ww), str(holders.shape[1]), "5"],
                             capture_output=True, text=True, check=True).stdout
    fields = dict(f.split("=") for f in out.split())
    solvable = int(result["solvable"].sum())
    assert solvable == int(fields["solvable"]), "the same verdicts"
    assert int(result["nodes"].sum()) == int(fields["nodes"]), "the same searches"
    rust_s = float(fields["best_seconds"])
    print(f"validate_many deals={n} solvable={solvable} python_s={py_s:.4f} rust_loop_s={rust_s:.4f} "
          f"ratio={py_s / rust_s:.2f} (target at most 1.5)")


def vec_env_steps(seconds, seed):
    env = TenTenVecEnv(64, generator="random", max_rounds=1000)
    masks = env.reset(seed)[2]
    rng = np.random.default_rng(seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            masks = env.step(random_actions(rng, masks))[2]
        steps += 100 * 64
    rate = steps / (time.perf_counter() - start)
    print(f"TenTenVecEnv boards=64 steps={steps} steps_per_s={rate:,.0f} (target at least 200,000)")


def env_steps(seconds, seed):
    env = TenTenEnv(generator="random", max_rounds=1000)
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, episodes, start = 0, 0, time.perf_counter()
    mask = info["action_mask"]
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            legal = np.flatnonzero(mask)
            _, _, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
            mask = info["action_mask"]
            if terminated or truncated:
                episodes += 1
                _, info = env.reset(seed=seed + episodes)
                mask = info["action_mask"]
        steps += 1000
    rate = steps / (time.perf_counter() - start)
    print(f"TenTenEnv.step steps={steps} episodes={episodes} steps_per_s={rate:,.0f} (target at least 100,000)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=5.0, help="how long each env runs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rust", type=pathlib.Path, help="the Rust loop (default: the release build's)",
                        default=ROOT / "target" / "release" / "examples" / "validate_loop")
    a = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    print(f"tenten {tenten.__version__}, Python {sys.version.split()[0]}, NumPy {np.__version__}, "
          f"one core, seed {a.seed}")
    validate_many_against_rust(a.deals, a.seed, a.rust)
    vec_env_steps(a.seconds, a.seed)
    env_steps(a.seconds, a.seed)


if __name__ == "__main__":
    main()
