"""The API: NumPy shapes and dtypes, every error class, and the same lines
as the CLI on the same inputs and seeds."""

import inspect
import re
import numpy as np
import pytest

import tenten
from conftest import batch_ron


def random_boards(n, seed, fill=0.45, shape=(10, 10)):
    rng = np.random.default_rng(seed)
    return (rng.random((n, *shape)) < fill).astype(np.uint8)


def random_holders(n, seed, k=3):
    ids = tenten.piece_ids()
    rng = np.random.default_rng(seed)
    return [[ids[i] for i in rng.integers(0, len(ids), k)] for _ in range(n)]


def test_validate_on_an_empty_board():
    v = tenten.validate(np.zeros((10, 10), np.uint8), ["sq3", "h5", "l3_tl"])
    assert v == {"solvable": True, "nodes": 3}
    # Indices name the same pieces as ids.
    ids = tenten.piece_ids()
    by_index = [ids.index(p) for p in ["sq3", "h5", "l3_tl"]]
    assert tenten.validate(np.zeros((10, 10), np.uint8), by_index) == v


def test_a_full_board_cannot_take_a_piece_but_its_lines_clear_first():
    board = np.ones((10, 10), np.uint8)
    # Every line full: cleared first, as in a game, so the holder fits.
    assert tenten.validate(board, ["dot"])["solvable"]
    board[0, 0] = 0
    board[0, 1:] = 1
    board[1:, 0] = 1
    board[5, 5] = 0  # row 5 and column 5 no longer full
    board[0, 0] = 1
    assert isinstance(tenten.validate(board, ["sq3"])["solvable"], bool)


def test_the_cli_and_the_api_give_the_same_lines(cli, tmp_path):
    boards = random_boards(60, 1)
    holders = random_holders(60, 2)
    batch = tmp_path / "batch.ron"
    batch.write_text(batch_ron(boards, holders))

    mine = []
    for i, (b, h) in enumerate(zip(boards, holders)):
        v = tenten.validate(b, h)
        mine.append(f"{i} {'solvable' if v['solvable'] else 'unsolvable'} nodes={v['nodes']}")
    assert cli("validate", str(batch)).splitlines() == mine
    assert any("unsolvable" in line for line in mine) and any(" solvable" in line for line in mine)

    mine = []
    for i, (b, h) in enumerate(zip(boards, holders)):
        r = tenten.repair(b, h, seed=7 + i)
        if r["outcome"] == "unchanged":
            mine.append(f"{i} unchanged final={','.join(r['holder'])}")
        elif r["outcome"] == "repaired":
            mine.append(f"{i} repaired attempts={r['attempts']} final={','.join(r['holder'])}")
        else:
            mine.append(f"{i} dead")
    assert cli("repair", str(batch), "--seed", "7").splitlines() == mine

    mine = []
    for i, b in enumerate(boards[:12]):
        d = tenten.danger(b)
        mine.append(f"{i} danger={d['danger']:.9f} killers={d['killers']}")
    few = tmp_path / "few.ron"
    few.write_text(batch_ron(boards[:12], holders[:12]))
    assert cli("danger", str(few)).splitlines() == mine


def test_deals_are_the_deal_commands(cli):
    for seed in range(25):
        assert cli("deal", "--seed", str(seed)).splitlines()[0] == "holder=" + ",".join(tenten.deal(seed))


def test_validate_many_matches_validate_and_has_numpy_columns():
    boards = random_boards(300, 3)
    ids = tenten.piece_ids()
    holders = np.random.default_rng(4).integers(0, len(ids), (300, 3))
    out = tenten.validate_many(boards, holders)
    assert out["solvable"].dtype == np.bool_ and out["solvable"].shape == (300,)
    assert out["nodes"].dtype == np.uint64 and out["nodes"].shape == (300,)
    for i in range(300):
        one = tenten.validate(boards[i], list(holders[i]))
        assert (bool(out["solvable"][i]), int(out["nodes"][i])) == (one["solvable"], one["nodes"])
    # Other board sizes too.
    small = random_boards(20, 5, shape=(8, 8))
    assert tenten.validate_many(small, holders[:20])["solvable"].shape == (20,)


def test_validate_many_reads_its_arrays_before_releasing_the_gil():
    # Another thread writes the arrays while the call runs without the GIL.
    # The answer must be that of the arrays as they were read, all of them
    # at once: never a mixture of deals judged before and after the write.
    import threading
    import time

    n = 200_000
    boards = random_boards(n, 7)
    holders = np.random.default_rng(8).integers(0, len(tenten.piece_ids()), (n, 3))
    before = tenten.validate_many(boards.copy(), holders)["solvable"]
    after = tenten.validate_many(np.ones_like(boards), holders)["solvable"]
    assert (before != after).sum() > n // 10

    def write():
        time.sleep(0.01)
        boards.fill(1)

    writer = threading.Thread(target=write)
    writer.start()
    got = tenten.validate_many(boards, holders)["solvable"]
    writer.join()
    assert np.array_equal(got, before) or np.array_equal(got, after), (
        f"{(got != before).sum()} deals judged on the written boards, {(got != after).sum()} on the old"
    )


def test_simulate_bounds_players_times_generators_times_games():
    # Each number in its range, their product past memory: refused at once.
    with pytest.raises(tenten.InputError) as e:
        tenten.simulate(
            players=["random", "greedy", "novice", "casual"],
            generators=["random", "repair", "reject", "bag"],
            games=1_000_000,
        )
    assert "4 players x 4 generators x 1,000,000 games = 16,000,000 games; a run plays at most 10,000,000" in str(e.value)


@pytest.mark.parametrize(
    "call, where",
    [
        (lambda: tenten.validate(np.zeros((10, 10)), ["dot"]), "board"),
        (lambda: tenten.validate(np.zeros((10, 10, 1), np.uint8), ["dot"]), "board"),
        (lambda: tenten.validate(np.zeros((3, 10), np.uint8), ["dot"]), "board"),
        (lambda: tenten.validate(np.zeros((10, 10), np.uint8), ["nope"]), "holder"),
        (lambda: tenten.validate(np.zeros((10, 10), np.uint8), [999]), "holder"),
        (lambda: tenten.validate(np.zeros((10, 10), np.uint8), []), "holder"),
        (lambda: tenten.validate(np.zeros((10, 10), np.uint8), ["dot"] * 5), "holder"),
        (lambda: tenten.validate(np.zeros((10, 10), np.uint8), 3), "holder"),
        (lambda: tenten.validate_many(np.zeros((2, 10, 10), np.uint8), np.zeros((3, 3), np.int64)), "holders"),
        (lambda: tenten.validate_many(np.zeros((2, 10, 10), np.uint8), np.full((2, 3), 99)), "holders"),
        (lambda: tenten.danger(np.zeros((10, 10), np.uint8), k=9), "k"),
        (lambda: tenten.deal(1, k=0), "k"),
    ],
)
def test_bad_arguments_are_input_errors_naming_the_argument(call, where):
    with pytest.raises(tenten.InputError) as e:
        call()
    assert str(e.value).startswith(where + ":")
    assert isinstance(e.value, tenten.Error)


def test_bad_files_are_format_errors_with_their_place(tmp_path):
    missing = tmp_path / "missing.ron"
    with pytest.raises(tenten.FormatError) as e:
        tenten.validate(np.zeros((10, 10), np.uint8), ["dot"], pieces=str(missing))
    assert str(missing) in str(e.value)
    bad = tmp_path / "bad.ron"
    bad.write_text("(name: \"x\",\n pieces: [ oops ])\n")
    with pytest.raises(tenten.FormatError) as e:
        tenten.piece_ids(pieces=str(bad))
    assert str(e.value).startswith(f"{bad}:2:")
    assert isinstance(e.value, tenten.Error)


def test_the_stubs_ship_and_name_every_export():
    import ast
    import pathlib

    stub = pathlib.Path(tenten.__file__).with_suffix(".pyi")
    assert stub.is_file(), "the wheel ships __init__.pyi"
    assert (stub.parent / "py.typed").is_file()
    tree = ast.parse(stub.read_text())
    named = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    named |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    assert set(tenten.__all__) <= named, set(tenten.__all__) - named


def test_help_names_every_argument_and_its_real_default():
    # help(tenten.x) reads like `tenten x --help`: each argument explained,
    # the signature showing the defaults (not "Ellipsis").
    for name in tenten.__all__:
        f = getattr(tenten, name)
        if not callable(f) or isinstance(f, type):
            continue
        sig = inspect.signature(f)
        assert "Ellipsis" not in str(sig), f"{name}{sig}"
        for p in sig.parameters:
            assert re.search(rf"^{p}: ", f.__doc__, re.M), f"help({name}) does not explain {p}"
    assert "players=['casual']" in str(inspect.signature(tenten.tune))


def test_generators_and_piece_sets_may_be_ron_text():
    from conftest import ROOT
    from tenten.env import TenTenEnv

    text = (ROOT / "presets/generators/block-blast-like.ron").read_text()
    by_text = tenten.simulate(players=["greedy"], generators=[text], games=6, seed=2)
    by_name = tenten.simulate(players=["greedy"], generators=["block-blast-like"], games=6, seed=2)
    assert by_text["rounds"].tolist() == by_name["rounds"].tolist()
    a, b = TenTenEnv(generator=text), TenTenEnv(generator="block-blast-like")
    assert np.array_equal(a.reset(seed=3)[0]["holder"], b.reset(seed=3)[0]["holder"])
    pieces = (ROOT / "presets/pieces/classic-1010.ron").read_text()
    assert tenten.piece_ids(pieces) == tenten.piece_ids()
    with pytest.raises(tenten.FormatError, match="generator text:1:"):
        tenten.simulate(generators=["(name: 3"], games=1)
    with pytest.raises(tenten.FormatError, match="pieces text:"):
        tenten.piece_ids("(nope")
