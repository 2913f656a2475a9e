"""Shared by the Python tests: the CLI they are checked against."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def cli_path() -> str:
    """The `tenten` binary: TENTEN_BIN (the Rust test sets it), else the
    workspace's build, else PATH."""
    for candidate in (
        os.environ.get("TENTEN_BIN"),
        ROOT / "target" / "release" / "tenten",
        ROOT / "target" / "debug" / "tenten",
        shutil.which("tenten"),
    ):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    raise RuntimeError("no tenten binary: set TENTEN_BIN or run `cargo build` first")


@pytest.fixture(scope="session")
def cli():
    path = cli_path()

    def run(*args: str) -> str:
        done = subprocess.run([path, *args], capture_output=True, text=True, check=True)
        return done.stdout

    return run


def batch_ron(boards, holders) -> str:
    """A batch of deals as `tenten validate` reads it."""
    deals = []
    for board, holder in zip(boards, holders):
        rows = ", ".join('"' + "".join("#" if c else "." for c in row) + '"' for row in board)
        ids = ", ".join(f'"{p}"' for p in holder)
        deals.append(f"(board: [{rows}], holder: [{ids}])")
    return "[\n" + ",\n".join(deals) + "\n]\n"
