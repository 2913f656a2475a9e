"""Type stubs for tenten: Tenten Workbench's engine for Python."""

from collections.abc import Sequence
from os import PathLike
from typing import Any, Union

import numpy as np
import numpy.typing as npt

__version__: str

class Error(Exception):
    """Everything the engine refuses."""

class InputError(Error):
    """A bad argument: its name and what was wrong."""

class FormatError(Error):
    """A file or RON text the engine cannot read: file:line:col: what was wrong."""

Piece = Union[str, int]
Board = npt.NDArray[np.uint8]

def validate(board: Board, holder: Sequence[Piece], pieces: str | None = None) -> dict[str, Any]:
    """{"solvable": bool, "nodes": int}: whether every piece can be placed, in some order."""

def validate_many(
    boards: npt.NDArray[np.uint8], holders: npt.NDArray[np.int64], pieces: str | None = None
) -> dict[str, np.ndarray]:
    """{"solvable": bool (n,), "nodes": uint64 (n,)} over a stack (n, height, width)."""

def repair(board: Board, holder: Sequence[Piece], pieces: str | None = None, seed: int = 0) -> dict[str, Any]:
    """{"outcome": "unchanged" | "repaired" | "dead", "holder": [ids], "attempts": int}."""

def danger(board: Board, pieces: str | None = None, k: int = 3) -> dict[str, Any]:
    """{"danger": float, "killers": int}: the exact chance a fresh deal cannot be placed."""

def deal(seed: int, k: int = 3, pieces: str | None = None) -> list[str]:
    """The holder `tenten deal --seed` deals."""

def piece_ids(pieces: str | None = None) -> list[str]:
    """The set's piece ids in index order."""

def simulate(
    players: Sequence[str] = ...,
    generators: Sequence[str] = ...,
    games: int = 100,
    seed: int = 0,
    board: tuple[int, int] = (10, 10),
    holder: int = 3,
    max_rounds: int = 10_000,
    weights: str = "10025",
    pieces: str | None = None,
) -> dict[str, Any]:
    """One row a game, as `tenten simulate --csv` writes it."""

class Population:
    """A population: a model of an audience, not measured people."""

    @staticmethod
    def load(name: str) -> Population: ...
    @property
    def name(self) -> str: ...
    @property
    def line(self) -> str | None: ...
    def to_ron(self) -> str: ...
    def save(self, path: str, overwrite: bool = False) -> None: ...

def fit_population(
    logs: Sequence[str | PathLike[str]],
    model: str = "rank",
    lookahead: str = "piece",
    evaluation: str = "10025",
    name: str = "fitted",
    pieces: str | None = None,
) -> Population:
    """Fits a population to testers' JSON Lines logs, as `tenten fit-population` does."""

def forecast(
    population: str | Population,
    generators: Sequence[str] = ...,
    players: int = 10_000,
    seed: int = 1,
    by_skill: bool = False,
    board: tuple[int, int] = (10, 10),
    holder: int = 3,
    max_rounds: int = 1000,
    pieces: str | None = None,
) -> dict[str, np.ndarray | list[str]]:
    """One row a generator (and a skill decile), each figure with _lo and _hi (95 %).

    ``interval`` says what a row's interval holds: ``fit+simulation`` (a fitted population's
    uncertainty and the simulation's noise) or ``simulation`` (an unfitted population, a skill decile).
    """

class PlayerFit:
    """A player fitted to a log: a model of the logged play, not a measurement of a person."""

    @property
    def name(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def line(self) -> str: ...
    @property
    def estimates(self) -> dict[str, np.ndarray | list[str]]: ...
    @property
    def comparison(self) -> dict[str, np.ndarray | list[str]] | None: ...
    def to_ron(self) -> str: ...
    def save(self, path: str, overwrite: bool = False) -> None: ...

def fit_player(
    log: str | PathLike[str],
    model: str = "rank",
    lookahead: str = "piece",
    evaluation: str = "10025",
    criteria: Sequence[int] = (1, 2, 3, 4, 5),
    compare: bool = False,
    folds: int = 5,
    generator: str | None = None,
    games: int = 200,
    seed: int = 1,
    name: str | None = None,
    pieces: str | None = None,
) -> PlayerFit:
    """Fits a player to a playtest log, as `tenten fit-player` does."""

def fit_generator(
    logs: str | PathLike[str] | Sequence[str | PathLike[str]],
    pieces: str | None = None,
    board: tuple[int, int] | None = None,
    seed: int = 1,
    replications: int = 40,
    held_out: bool = True,
    name: str | None = None,
) -> dict[str, Any]:
    """Learns a generator from the deals it dealt, as `tenten fit-generator` does."""

class Tuned:
    """A tuned generator, with the hold-out's verdicts."""

    @property
    def all_met(self) -> bool: ...
    @property
    def verdict(self) -> str: ...
    @property
    def line(self) -> str: ...
    @property
    def verdicts(self) -> dict[str, np.ndarray | list[str]]: ...
    @property
    def weights(self) -> dict[str, np.ndarray | list[str]]: ...
    @property
    def evaluations(self) -> int: ...
    def to_ron(self) -> str: ...
    def save(self, path: str, overwrite: bool = False) -> None: ...

def tune(
    generator: str,
    targets: Sequence[str],
    players: Sequence[str] = ...,
    population: str | Population | None = None,
    keep_mix: float = 0.0,
    free: Sequence[str] | None = None,
    bounds: tuple[float, float] = (1.0, 200.0),
    games: int = 200,
    holdout: int = 400,
    holdout_max: int | None = None,
    budget: float = 120.0,
    max_evaluations: int | None = None,
    seed: int = 1,
    max_rounds: int = 10_000,
) -> Tuned:
    """Tunes a generator's weights toward targets, as `tenten tune` does; each target gets a verdict."""
