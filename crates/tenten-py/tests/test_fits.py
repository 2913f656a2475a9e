"""fit_player and tune against the CLI on the same log and seeds, their
columns, and files saved only when asked."""

import math

import numpy as np
import pytest

import tenten
from conftest import ROOT


@pytest.fixture(scope="module")
def casual_log(cli, tmp_path_factory):
    log = tmp_path_factory.mktemp("log") / "casual.ron"
    log.write_text(cli("deal", "--seed", "4", "--log", "150", "--player", str(ROOT / "presets/players/casual.ron")))
    return log


def test_fit_player_prints_the_clis_lines_and_saves_its_file(cli, casual_log, tmp_path):
    theirs_file = tmp_path / "cli.ron"
    theirs = cli("fit-player", str(casual_log), "--out", str(theirs_file)).strip()
    fit = tenten.fit_player(casual_log)
    assert fit.line == theirs
    assert fit.model == "rank-piece-10025" and fit.name == "fitted to casual"
    e = fit.estimates
    assert list(e["parameter"]) == ["temperature", "slip"] and e["estimate"].dtype == np.float64
    assert np.all(e["lo"] <= e["estimate"]) and np.all(e["estimate"] <= e["hi"])
    # casual.ron: temperature 0.5, slip 0.02, each inside its interval.
    assert e["lo"][0] <= 0.5 <= e["hi"][0] and e["lo"][1] <= 0.02 <= e["hi"][1], e
    assert fit.comparison is None
    mine = tmp_path / "mine.ron"
    fit.save(str(mine))
    assert mine.read_text() == theirs_file.read_text()
    with pytest.raises(tenten.InputError, match="overwrite=True"):
        fit.save(str(mine))
    # A fitted player plays wherever a player is named.
    played = tenten.simulate(players=[str(mine)], games=5, seed=1)
    assert len(played["rounds"]) == 5


def test_the_value_model_and_compare_print_the_clis_lines(cli, casual_log):
    theirs = cli("fit-player", str(casual_log), "--model", "value", "--criteria", "1,4,5").strip()
    fit = tenten.fit_player(casual_log, model="value", criteria=[1, 4, 5])
    assert fit.line == theirs
    assert list(fit.estimates["parameter"]) == ["beta_free_cells", "beta_alignment", "beta_surface", "slip"]
    theirs = cli("fit-player", str(casual_log), "--compare", "--folds", "3", "--games", "40").strip()
    fit = tenten.fit_player(casual_log, compare=True, folds=3, games=40)
    assert fit.line == theirs
    c = fit.comparison
    assert len(c["model"]) == 4 and fit.model == c["model"][0]
    assert np.all(np.diff(c["heldout_loglik_per_move"]) <= 0), "ranked best first"


def test_fit_player_refuses_bad_arguments_by_name(casual_log, tmp_path):
    for kwargs, name in [
        ({"model": "logit"}, "model"),
        ({"lookahead": "board"}, "lookahead"),
        ({"criteria": [0, 6]}, "criteria"),
        ({"criteria": []}, "criteria"),
        ({"folds": 1}, "folds"),
        ({"games": 0}, "games"),
        ({"evaluation": "123"}, "weights"),
    ]:
        with pytest.raises(tenten.InputError, match=name):
            tenten.fit_player(casual_log, **kwargs)
    bad = tmp_path / "bad.ron"
    bad.write_text("(size: (10, 10), deals: [")
    with pytest.raises(tenten.FormatError, match="bad.ron"):
        tenten.fit_player(bad)
    with pytest.raises(tenten.FormatError):
        tenten.fit_player(tmp_path / "missing.ron")


TUNE = ["--generator", "random", "--player", "novice", "--target", "median_rounds=40", "--games", "30",
        "--holdout", "30", "--budget", "600", "--max-evaluations", "12", "--allow-miss"]


def without_timing(lines):
    """The lines with the wall-clock figures left out."""
    return [" ".join(w for w in line.split() if not w.startswith(("seconds=", "evaluations_per_s=")))
            for line in lines.splitlines()]


def test_tune_prints_the_clis_lines_and_saves_its_file(cli, tmp_path):
    theirs_file = tmp_path / "cli.ron"
    theirs = cli("tune", *TUNE, "--out", str(theirs_file))
    tuned = tenten.tune("random", ["median_rounds=40"], players=["novice"], games=30, holdout=30,
                        budget=600, max_evaluations=12)
    assert without_timing(tuned.line) == without_timing(theirs)
    assert tuned.evaluations == 12
    v = tuned.verdicts
    assert list(v["target"]) == ["median_rounds"] and list(v["player"]) == ["novice"]
    assert v["verdict"][0] == tuned.verdict and tuned.verdict in ("met", "missed", "undecided")
    assert tuned.all_met == (tuned.verdict == "met")
    assert 30 <= v["holdout_games"][0] <= 120 and 0.95 <= v["level"][0] < 1
    assert v["holdout_lo"][0] <= v["holdout"][0] <= v["holdout_hi"][0]
    assert v["goal"][0] == 40 and v["tolerance"][0] == 2
    w = tuned.weights
    assert w["piece"][:2] == ["dot", "sq2"] and w["before"][:2].tolist() == [20, 60]
    assert w["after"].dtype == np.uint32 and len(w["after"]) == len(w["piece"])
    mine = tmp_path / "mine.ron"
    tuned.save(str(mine))
    assert mine.read_text() == theirs_file.read_text()
    with pytest.raises(tenten.InputError, match="overwrite=True"):
        tuned.save(str(mine))
    played = tenten.simulate(players=["novice"], generators=[str(mine)], games=5, seed=1)
    assert len(played["rounds"]) == 5


def test_tune_for_an_audience_takes_a_population_object():
    pop = tenten.Population.load("demo")
    tuned = tenten.tune("random", ["reach=10:0.9", "unfair_share=0.5"], population=pop, games=40, holdout=40,
                        max_evaluations=3)
    v = tuned.verdicts
    assert list(v["target"]) == ["reach_10", "unfair_share"] and set(v["player"]) == {"audience"}
    assert all(not math.isnan(x) for x in v["holdout_lo"])


def test_tune_refuses_bad_arguments_by_name():
    for kwargs, match in [
        ({"targets": ["median_rounds=40"], "bounds": (5, 1)}, "bounds"),
        ({"targets": ["median_rounds=40"], "free": ["nope"]}, "nope"),
        ({"targets": ["reach=50:0.6"]}, "population"),
        ({"targets": ["speed=1"]}, "speed"),
        ({"targets": []}, "target"),
        ({"targets": ["median_rounds=40"], "games": 0}, "games"),
        ({"targets": ["median_rounds=40"], "max_evaluations": 0}, "max-evaluations"),
        ({"targets": ["median_rounds=40"], "budget": -1}, "budget"),
        ({"targets": ["median_rounds=40"], "players": ["nobody"]}, "nobody"),
    ]:
        with pytest.raises(tenten.Error, match=match):
            tenten.tune("random", **kwargs)
    with pytest.raises(tenten.Error, match="unknown generator"):
        tenten.tune("no-such", ["median_rounds=40"])


def test_fit_player_reads_a_folder_of_testers_logs_as_the_cli_does(cli):
    # A cohort's folder (a playtest's is read the same way): every tester's
    # moves fitted as one player.
    folder = ROOT / "docs/examples/playtest"
    theirs = cli("fit-player", str(folder)).strip()
    fit = tenten.fit_player(folder)
    assert fit.line == theirs
    assert "moves=" in theirs


def test_fit_generator_gives_the_clis_figures_and_file(cli, tmp_path):
    log = tmp_path / "bbl.jsonl"
    log.write_text(
        cli("deal", "--seed", "2", "--log", "400", "--player", "novice", "--generator", "block-blast-like", "--format", "jsonl")
    )
    out = tmp_path / "learned.ron"
    theirs = cli("fit-generator", str(log), "--out", str(out), "--no-held-out", "--replications", "10").strip()
    fit = tenten.fit_generator(log, held_out=False, replications=10, name="learned from bbl")
    assert fit["line"] == theirs
    assert fit["file"] == out.read_text()
    assert fit["deals"] == 400 and fit["check"] in ("none", "reject", "repair")
    shares = fit["weights"]
    assert math.isclose(sum(shares.values()), 1.0, rel_tol=1e-9)
    for piece, (lo, hi) in fit["intervals"].items():
        assert lo <= shares[piece] <= hi, piece
    models = fit["models"]
    assert models["model"][0] == "none" and len(models["loglik"]) == len(models["model"])
    observed, expected, lo, hi = fit["smoking_gun"]
    assert observed == 0 and lo <= expected <= hi
    # The learned file deals wherever a generator is named.
    played = tenten.simulate(generators=[str(out)], games=3, seed=1)
    assert len(played["rounds"]) == 3
    with pytest.raises(tenten.InputError, match="board"):
        tenten.fit_generator(log, board=(8, 8))
    with pytest.raises(tenten.FormatError):
        tenten.fit_generator(tmp_path / "missing.jsonl")
