"""Gymnasium environments on a designer's generator.

``TenTenEnv`` plays one game a placement at a time; ``TenTenVecEnv`` steps
N games in one call in Rust. An action is ``slot * height * width + y *
width + x``: the holder slot to place and the cell of its box's top-left
corner. ``info["action_mask"]`` (int8) marks the legal actions on every
reset and step, as does ``action_masks()`` (what sb3-contrib's MaskablePPO
calls). An illegal action does not raise: nothing changes and the step's
reward is ``ILLEGAL_PENALTY`` (-1).

A new deal's ``info["solvable"]`` is the validator's verdict on it (with
``danger=True``, ``info["danger"]`` is the board's exact danger). A game's
end is ``info["end"]``: ``"unfair"`` (the generator dealt a holder no one
could place while another could be placed), ``"stuck"`` (the holder could
be placed; the agent did not), ``"dead"`` (no holder of this size fits)
or ``"capped"`` (``max_rounds``: truncated, not terminated).

``reset(seed=s)`` deals game ``s`` exactly as ``tenten simulate`` deals
its game ``s`` and ``tenten deal --seed s`` deals the first holder.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("tenten.env needs gymnasium: pip install gymnasium") from e

from ._tenten import EnvCore, VecEnvCore

ILLEGAL_PENALTY = -1.0


class TenTenEnv(gym.Env):
    """One 1010!-style game: ``TenTenEnv(generator="block-blast-like" | path,
    board=(10, 10), holder=3, reward="score" | "rounds" | "placed",
    max_rounds=1000, pieces=None, danger=False)``."""

    # render_fps: gymnasium's wrappers and checkers read it for every
    # render mode (gym.make warns without it); text frames need no speed.
    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        generator: str = "random",
        board: tuple[int, int] = (10, 10),
        holder: int = 3,
        reward: str = "score",
        max_rounds: int = 1000,
        pieces: str | None = None,
        danger: bool = False,
        render_mode: str | None = None,
    ):
        self._core = EnvCore(generator, tuple(board), holder, reward, max_rounds, pieces, danger)
        h, w, k, n = self._core.dims()
        self.height, self.width, self.holder_size = h, w, k
        self.piece_ids = self._core.piece_ids()
        self.shapes = self._core.shapes()
        self.render_mode = render_mode
        # Holder slots hold a piece index, or n once placed.
        self.observation_space = spaces.Dict(
            {
                "board": spaces.MultiBinary((h, w)),
                "holder": spaces.MultiDiscrete(np.full(k, n + 1, dtype=np.int64)),
            }
        )
        self.action_space = spaces.Discrete(k * h * w)
        self._empty_slot = n
        self._mask = np.zeros(k * h * w, np.int8)
        self._board = np.zeros((h, w), np.int8)

    def _obs(self, board: np.ndarray, holder: np.ndarray) -> dict[str, np.ndarray]:
        self._board = board.astype(np.int8)
        return {"board": self._board, "holder": holder}

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        self._mask = info["action_mask"]
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63))
        board, holder, info = self._core.reset(seed)
        # The pieces' shapes (pieces, 5, 5), a constant: given at reset.
        info["shapes"] = self.shapes.copy()
        return self._obs(board, holder), self._info(info)

    def step(self, action):
        board, holder, reward, terminated, truncated, info = self._core.step(int(action))
        return self._obs(board, holder), float(reward), terminated, truncated, self._info(info)

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as bools (MaskablePPO's call)."""
        return self._mask.astype(bool)

    def render(self):
        rows = ["".join("#" if c else "." for c in row) for row in self._board]
        return "\n".join(rows)

    @property
    def rounds(self) -> int:
        return self._core.rounds

    @property
    def score(self) -> int:
        return self._core.score

    @property
    def session_games(self) -> int:
        """Games ended this session: a generator's adaptive rules read the
        player's games (every game that ends joins them)."""
        return self._core.session_games

    def new_session(self) -> None:
        """The next game starts a new session (the player's typical game
        length is kept)."""
        self._core.new_session()


class TenTenVecEnv:
    """N games stepped in Rust in one call, with TenTenEnv's rules.

    ``reset(seed)`` starts game i on seed + i; a game that ends is reset in
    place on the next seed, and that step's ``ends`` (1 stuck, 2 unfair,
    3 dead, 4 capped) and ``rounds`` say how it went.
    """

    END_NAMES = {1: "stuck", 2: "unfair", 3: "dead", 4: "capped"}

    def __init__(self, n: int, generator: str = "random", board=(10, 10), holder: int = 3,
                 reward: str = "score", max_rounds: int = 1000, pieces: str | None = None):
        self.num_envs = n
        self._core = VecEnvCore(n, generator, tuple(board), holder, reward, max_rounds, pieces)

    def reset(self, seed: int = 0):
        """(boards (n, h, w), holders (n, k), masks (n, actions)); a holder slot
        holds a piece's index, or the set's size once placed, as in TenTenEnv."""
        return self._core.reset(seed)

    def step(self, actions: np.ndarray):
        """(boards, holders, masks, rewards, terminated, truncated, ends, rounds)"""
        return self._core.step(np.asarray(actions, dtype=np.int64))


gym.register(id="tenten/TenTen-v0", entry_point="tenten.env:TenTenEnv")
