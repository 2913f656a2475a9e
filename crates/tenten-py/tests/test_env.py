"""The Gymnasium environment: check_env, masks, determinism, the vector
env's agreement with the single one, and a random masked agent against
`tenten simulate --player random` on the same seeds."""

import csv
import io
import math

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tenten
from tenten.env import ILLEGAL_PENALTY, TenTenEnv, TenTenVecEnv


def test_check_env_passes():
    check_env(TenTenEnv(), skip_render_check=True)
    check_env(TenTenEnv(generator="block-blast-like", board=(8, 8), reward="rounds"), skip_render_check=True)


def test_masks_are_int8_everywhere_and_an_illegal_action_changes_nothing():
    env = TenTenEnv()
    obs, info = env.reset(seed=3)
    mask = info["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (3 * 10 * 10,)
    assert np.array_equal(env.action_masks(), mask.astype(bool))
    assert obs["board"].shape == (10, 10) and obs["holder"].shape == (3,)
    assert info["shapes"].shape[1:] == (5, 5)
    illegal = int(np.flatnonzero(mask == 0)[0])
    after, reward, terminated, truncated, info2 = env.step(illegal)
    assert reward == ILLEGAL_PENALTY and not terminated and not truncated
    assert not info2["legal"]
    assert np.array_equal(after["board"], obs["board"]) and np.array_equal(after["holder"], obs["holder"])
    legal = int(np.flatnonzero(mask)[0])
    _, reward, *_ = env.step(legal)
    assert reward > 0


def test_the_first_deal_is_the_deal_commands_and_seeds_replay():
    env = TenTenEnv()
    ids = tenten.piece_ids()
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        assert [ids[i] for i in obs["holder"]] == tenten.deal(seed)
        assert info["solvable"] in (True, False)

    def play(seed):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = []
        while True:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, r, term, trunc, info = env.step(a)
            trace.append((a, r, obs["board"].tobytes()))
            if term or trunc:
                return trace, info["end"]

    assert play(11) == play(11)
    assert play(11)[1] in ("unfair", "stuck", "dead")


def test_the_cap_truncates():
    env = TenTenEnv(max_rounds=2)
    obs, info = env.reset(seed=1)
    while True:
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term or trunc:
            break
    if env.rounds == 2:
        assert trunc and not term and info["end"] == "capped"
    else:
        assert term and info["end"] in ("unfair", "stuck", "dead")


def test_danger_is_given_at_a_new_deal_when_asked():
    env = TenTenEnv(danger=True)
    _, info = env.reset(seed=2)
    assert info["danger"] == 0.0


def test_the_vector_env_plays_as_the_single_one():
    n = 4
    vec = TenTenVecEnv(n)
    boards, holders, masks = vec.reset(seed=20)
    assert boards.shape == (n, 10, 10) and boards.dtype == np.uint8
    assert holders.shape == (n, 3) and masks.shape == (n, 300) and masks.dtype == np.int8
    singles = [TenTenEnv() for _ in range(n)]
    infos = [s.reset(seed=20 + i)[1] for i, s in enumerate(singles)]
    rng = np.random.default_rng(1)
    for _ in range(15):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        boards, holders, masks, rewards, term, trunc, ends, rounds = vec.step(actions)
        for i, s in enumerate(singles):
            obs, r, t, tr, info = s.step(int(actions[i]))
            assert r == rewards[i] and t == term[i] and tr == trunc[i]
            if not (t or tr):
                assert np.array_equal(obs["board"], boards[i])
                # A placed slot is the set's size in both, as the space says.
                assert np.array_equal(obs["holder"], holders[i]), (obs["holder"], holders[i])
                assert s.observation_space["holder"].contains(holders[i])
                assert np.array_equal(info["action_mask"], masks[i])
            else:
                assert ends[i] in (1, 2, 3, 4) and rounds[i] == s.rounds
                # The vector env reset it on the next seed; follow it.
                assert s.rounds >= 0


def test_a_random_masked_agent_lasts_as_simulates_random_player(cli, tmp_path):
    games = 1000
    table = tmp_path / "games.csv"
    cli("simulate", "--player", "random", "--generator", "random", "--games", str(games),
        "--seed", "0", "--csv", str(table))
    theirs = {int(r["seed"]): int(r["rounds"]) for r in csv.DictReader(io.StringIO(table.read_text()))}
    env = TenTenEnv()
    rng = np.random.default_rng(12345)
    diffs = []
    for seed in range(games):
        obs, info = env.reset(seed=seed)
        while True:
            mask = info["action_mask"].reshape(3, -1).copy()
            holder = obs["holder"]
            # Uniform over distinct placements, as the random player draws:
            # a piece held twice counts once.
            for slot in range(3):
                if any(holder[s] == holder[slot] and mask[s].any() for s in range(slot)):
                    mask[slot] = 0
            a = int(rng.choice(np.flatnonzero(mask.ravel())))
            obs, r, term, trunc, info = env.step(a)
            if term or trunc:
                break
        diffs.append(env.rounds - theirs[seed])
    d = np.array(diffs, float)
    mine = np.mean([theirs[s] for s in range(games)]) + d.mean()
    # Paired on the same deals: the mean difference is within its noise.
    z = d.mean() / (d.std(ddof=1) / math.sqrt(games))
    print(f"masked agent {mine:.3f} rounds, simulate {np.mean(list(theirs.values())):.3f}, z={z:.2f}")
    assert abs(z) < 3.5


ADAPTIVE = (
    '(name: "adaptive", check: none, adaptive: Some((rules: ['
    "(when: [first_game], tilt: 3.0), (when: [session_games(1)], tilt: -3.0)])))"
)


def _play_out(env: TenTenEnv) -> None:
    obs, info = env.reset(seed=11)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, done, truncated, info = env.step(action)
        done = done or truncated


def test_an_adaptive_generator_reads_the_players_games():
    env = TenTenEnv(generator=ADAPTIVE, board=(8, 8))
    fresh = TenTenEnv(generator=ADAPTIVE, board=(8, 8))
    assert env.session_games == 0
    _play_out(env)
    assert env.session_games == 1

    def cells(e: TenTenEnv, seed: int) -> int:
        obs, info = e.reset(seed=seed)
        return sum(int(info["shapes"][p].sum()) for p in obs["holder"] if p >= 0)

    # Games left unfinished do not count: every deal below is the second
    # game's for env (toward small pieces) and the first's for fresh.
    small = sum(cells(env, s) for s in range(12, 24))
    large = sum(cells(fresh, s) for s in range(12, 24))
    assert env.session_games == 1 and fresh.session_games == 0
    assert small < large, (small, large)
    env.new_session()
    assert env.session_games == 0
    again, _ = env.reset(seed=12)
    first, _ = fresh.reset(seed=12)
    assert np.array_equal(again["holder"], first["holder"]), "a new session's first game deals as the first"
