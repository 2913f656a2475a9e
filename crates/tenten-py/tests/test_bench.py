"""The speed script the README quotes runs, and its two validators agree
(it asserts the same verdicts and node counts as the Rust loop)."""

import subprocess
import sys

from conftest import ROOT


def test_the_speed_script_measures_all_three_figures():
    rust = next(
        (p for p in (ROOT / "target" / d / "examples" / "validate_loop" for d in ("debug", "release")) if p.is_file()),
        None,
    )
    assert rust is not None, "cargo test builds the engine's examples (validate_loop)"
    out = subprocess.run(
        [sys.executable, str(ROOT / "crates/tenten-py/bench/speed.py"), "--deals", "3000", "--seconds", "0.2",
         "--rust", str(rust)],
        capture_output=True, text=True, check=True,
    ).stdout
    lines = out.splitlines()
    assert len(lines) == 4, out
    fields = [dict(w.split("=", 1) for w in line.split() if "=" in w) for line in lines[1:]]
    assert int(fields[0]["deals"]) == 3000 and 0 < int(fields[0]["solvable"]) <= 3000
    assert float(fields[0]["ratio"]) > 0
    assert int(fields[1]["steps"]) >= 6400 and float(fields[1]["steps_per_s"].replace(",", "")) > 0
    assert int(fields[2]["steps"]) >= 1000 and int(fields[2]["episodes"]) >= 1
