"""The studies against the CLI on the same seeds, their columns, and
Ctrl+C reaching the engine."""

import _thread
import csv
import io
import signal
import threading
import time

import numpy as np
import pytest

import tenten
from conftest import ROOT


def test_simulate_is_the_clis_csv_row_for_row(cli, tmp_path):
    table = tmp_path / "games.csv"
    cli("simulate", "--player", "random,greedy", "--generator", "random,repair", "--games", "40",
        "--seed", "3", "--csv", str(table))
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    got = tenten.simulate(players=["random", "greedy"], generators=["random", "repair"], games=40, seed=3)
    assert set(got) == {"generator", "player", "seed", "rounds", "score", "end", "unsolvable_dealt", "repairs"}
    assert got["rounds"].dtype == np.uint32 and got["seed"].dtype == np.uint64 and len(got["end"]) == 160
    mine = sorted(
        (got["generator"][i], got["player"][i], int(got["seed"][i]), int(got["rounds"][i]), int(got["score"][i]),
         got["end"][i], int(got["unsolvable_dealt"][i]), int(got["repairs"][i]))
        for i in range(160)
    )
    theirs = sorted(
        (r["generator"], r["strategy"], int(r["seed"]), int(r["rounds"]), int(r["score"]), r["end"],
         int(r["unsolvable_dealt"]), int(r["repairs"]))
        for r in rows
    )
    assert mine == theirs


def parse_line(line):
    fields = dict(f.split("=", 1) for f in line.split())
    return fields


def test_forecast_is_the_clis_lines(cli):
    lines = cli("forecast", "--population", "demo", "--generator", "random,block-blast-like",
                "--players", "400", "--seed", "5").splitlines()
    got = tenten.forecast("demo", generators=["random", "block-blast-like"], players=400, seed=5)
    assert list(got["generator"]) == ["random", "block-blast-like"]
    for i, line in enumerate(lines):
        f = parse_line(line)
        assert int(f["players"]) == got["players"][i] and int(f["games"]) == got["games"][i]
        for name in ["reach_10", "reach_50", "games_per_session", "unfair_share", "players_returning_after_3"]:
            lo, hi = (float(x) for x in f[name + "_ci"].split(","))
            # The CLI prints four decimals.
            assert abs(float(f[name]) - got[name][i]) <= 5.1e-5, name
            assert abs(lo - got[name + "_lo"][i]) <= 5.1e-5 and abs(hi - got[name + "_hi"][i]) <= 5.1e-5, name
    by_skill = tenten.forecast("demo", generators=["random"], players=400, seed=5, by_skill=True)
    assert list(by_skill["skill_decile"]) == list(range(11))
    assert set(by_skill["interval"]) == {"simulation"}, "demo was not fitted"


def test_a_fitted_population_prints_the_clis_line_and_saves_only_when_asked(cli, tmp_path):
    logs = str(ROOT / "presets/cohorts/demo/random")
    theirs = cli("fit-population", logs, "--out", str(tmp_path / "cli.ron")).strip().splitlines()
    fitted = tenten.fit_population([logs])
    # The fit's line, then the CLI's calibration line.
    assert fitted.line == theirs[0]
    assert theirs[1].startswith("calibration estimator=fit-population design=60x1 ")
    target = tmp_path / "mine.ron"
    fitted.save(str(target))
    with pytest.raises(tenten.InputError):
        fitted.save(str(target))
    fitted.save(str(target), overwrite=True)
    again = tenten.Population.load(str(target))
    assert again.to_ron() == fitted.to_ron()
    # A fitted population forecasts with the fit's uncertainty.
    f = tenten.forecast(fitted, generators=["block-blast-like"], players=200, seed=1, by_skill=True)
    assert f["reach_50_lo"][0] <= f["reach_50"][0] <= f["reach_50_hi"][0]
    # The whole audience's interval holds the fit; a decile's the noise alone.
    assert list(f["interval"]) == ["fit+simulation"] + ["simulation"] * 10


def test_ctrl_c_stops_a_long_forecast():
    # A process started in the background ignores SIGINT, and then Python
    # installs no handler: put the usual one in place, as a terminal has.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.5, _thread.interrupt_main).start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            tenten.forecast("demo", generators=["random"], players=300_000, seed=1)
        # 300,000 players take minutes; the cancel reached the players' loop.
        assert time.monotonic() - started < 10
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(
    "call, where",
    [
        (lambda: tenten.simulate(players=["nobody"]), tenten.FormatError),
        (lambda: tenten.simulate(weights="12"), tenten.InputError),
        (lambda: tenten.forecast("demo", players=0), tenten.InputError),
        (lambda: tenten.forecast(3), tenten.InputError),
        (lambda: tenten.forecast("demo", holder=9), tenten.InputError),
        (lambda: tenten.forecast("demo", board=(2, 2)), tenten.InputError),
        (lambda: tenten.fit_population(["/no/such/logs"]), tenten.FormatError),
        (lambda: tenten.fit_population([str(ROOT / "presets/cohorts/demo/random")], model="x"), tenten.InputError),
    ],
)
def test_bad_study_arguments_raise_tenten_errors(call, where):
    with pytest.raises(where):
        call()


def test_every_result_is_a_dataframe_and_the_package_needs_no_pandas(tmp_path, cli):
    import subprocess
    import sys

    import pandas as pd

    loaded = subprocess.run([sys.executable, "-c", "import sys, tenten, tenten.env; print('pandas' in sys.modules)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "False", "import tenten does not load pandas"
    assert len(pd.DataFrame(tenten.simulate(players=["greedy"], games=3))) == 3
    f = pd.DataFrame(tenten.forecast("demo", generators=["random"], players=50, by_skill=True))
    assert len(f) == 11 and f["reach_10_lo"].dtype == np.float64
    log = tmp_path / "casual.ron"
    log.write_text(cli("deal", "--seed", "4", "--log", "40", "--player", str(ROOT / "presets/players/casual.ron")))
    assert len(pd.DataFrame(tenten.fit_player(log).estimates)) == 2
    tuned = tenten.tune("random", ["median_rounds=20"], players=["novice"], games=10, holdout=20, max_evaluations=2)
    assert len(pd.DataFrame(tuned.verdicts)) == 1
    assert len(pd.DataFrame(tuned.weights)) == len(tenten.piece_ids())
