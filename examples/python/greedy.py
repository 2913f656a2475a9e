"""Plays 200 rounds with the repair generator (or the generator file named as
the first argument) and a greedy placement through the tenten library
(ctypes), printing one line per round; game g is dealt from seed 7 + g - 1 and
reports how it ended, for a generator's adaptive rules: the same program as
examples/c/greedy.c and examples/csharp/Greedy.cs.

Run from the repository's root: python3 examples/python/greedy.py [GENERATOR.ron]
The library is TENTEN_LIB, else target/release/libtenten_ffi.so.
"""

import ctypes as C
import os
import sys
from pathlib import Path

WIDTH, HEIGHT, HOLDER, ROUNDS, SEED = 10, 10, 3, 200, 7
CELLS = WIDTH * HEIGHT
MAX_HOLDER = 4
ABI_VERSION = 1


class Deal(C.Structure):
    _fields_ = [("index", C.c_uint64), ("count", C.c_uint32), ("pieces", C.c_uint8 * MAX_HOLDER),
                ("drawn_unsolvable", C.c_uint8), ("dead", C.c_uint8), ("repairs", C.c_uint32)]


class Step(C.Structure):
    _fields_ = [("slot", C.c_uint8), ("piece", C.c_uint8), ("x", C.c_uint8), ("y", C.c_uint8),
                ("lines", C.c_uint32)]


class Validation(C.Structure):
    _fields_ = [("placements", C.c_uint64), ("solvable", C.c_uint8), ("order", C.c_uint8),
                ("step_count", C.c_uint8), ("steps", Step * MAX_HOLDER)]


class Danger(C.Structure):
    _fields_ = [("probability", C.c_double), ("multisets", C.c_uint64), ("killers", C.c_uint64)]


class Play(C.Structure):
    _fields_ = [("points", C.c_uint64), ("rows", C.c_uint32), ("columns", C.c_uint32)]


Board = C.c_uint8 * CELLS
HANDLE = C.c_void_p


def load_library():
    path = os.environ.get("TENTEN_LIB") or str(Path(__file__).resolve().parents[2] / "target/release/libtenten_ffi.so")
    lib = C.CDLL(path)
    sigs = {
        "tenten_last_error": ([], C.c_char_p),
        "tenten_abi_version": ([], C.c_uint32),
        "tenten_generator_load": ([C.c_char_p, HANDLE, C.POINTER(HANDLE)], C.c_int),
        "tenten_generator_free": ([HANDLE], None),
        "tenten_rules_new": ([HANDLE, C.c_uint8, C.c_uint8, C.c_uint8, C.POINTER(HANDLE)], C.c_int),
        "tenten_rules_free": ([HANDLE], None),
        "tenten_rules_piece_id": ([HANDLE, C.c_uint8, C.POINTER(C.c_char_p)], C.c_int),
        "tenten_dealer_new": ([HANDLE, C.c_uint64, C.POINTER(HANDLE)], C.c_int),
        "tenten_dealer_next": ([HANDLE, C.POINTER(C.c_uint8), C.c_size_t, C.POINTER(Deal)], C.c_int),
        "tenten_dealer_game_ended": ([HANDLE, C.c_uint32, C.c_uint8], C.c_int),
        "tenten_dealer_new_game": ([HANDLE, C.c_uint64], C.c_int),
        "tenten_dealer_free": ([HANDLE], None),
        "tenten_validate": ([HANDLE, C.POINTER(C.c_uint8), C.c_size_t, C.POINTER(C.c_uint8), C.c_size_t,
                             C.POINTER(Validation)], C.c_int),
        "tenten_danger": ([HANDLE, C.POINTER(C.c_uint8), C.c_size_t, C.POINTER(Danger)], C.c_int),
        "tenten_fits": ([HANDLE, C.POINTER(C.c_uint8), C.c_size_t, C.c_uint8, C.c_uint8, C.c_uint8,
                         C.POINTER(C.c_uint8)], C.c_int),
        "tenten_play": ([HANDLE, C.POINTER(C.c_uint8), C.c_size_t, C.c_uint8, C.c_uint8, C.c_uint8,
                         C.POINTER(Play)], C.c_int),
    }
    for name, (args, res) in sigs.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
    return lib


LIB = load_library()


def check(status, what):
    """Stops with the library's own message on any failure."""
    if status != 0:
        sys.exit(f"{what} failed (status {status}): {LIB.tenten_last_error().decode()}")


def filled(cells):
    return sum(1 for c in cells if c)


def id_of(rules, piece):
    ident = C.c_char_p()
    check(LIB.tenten_rules_piece_id(rules, piece, C.byref(ident)), "tenten_rules_piece_id")
    return ident.value.decode()


def place_greedy(rules, cells, piece):
    """The spot that leaves the most empty cells after the lines it clears,
    ties to more lines, then the first spot row by row; None when none."""
    best = None
    fits = C.c_uint8()
    play = Play()
    for y in range(HEIGHT):
        for x in range(WIDTH):
            check(LIB.tenten_fits(rules, cells, CELLS, piece, x, y, C.byref(fits)), "tenten_fits")
            if not fits.value:
                continue
            trial = Board.from_buffer_copy(cells)
            check(LIB.tenten_play(rules, trial, CELLS, piece, x, y, C.byref(play)), "tenten_play")
            key = (CELLS - filled(trial), play.rows + play.columns)
            if best is None or key > best[0]:
                best = (key, x, y)
    if best is None:
        return None
    _, x, y = best
    check(LIB.tenten_play(rules, cells, CELLS, piece, x, y, C.byref(play)), "tenten_play")
    return x, y, play.points


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "presets/generators/repair.ron"
    if LIB.tenten_abi_version() != ABI_VERSION:
        sys.exit(f"the library speaks ABI {LIB.tenten_abi_version()}, this program {ABI_VERSION}")
    generator, rules, dealer = HANDLE(), HANDLE(), HANDLE()
    check(LIB.tenten_generator_load(path.encode(), None, C.byref(generator)), "tenten_generator_load")
    check(LIB.tenten_rules_new(generator, WIDTH, HEIGHT, HOLDER, C.byref(rules)), "tenten_rules_new")
    check(LIB.tenten_dealer_new(rules, SEED, C.byref(dealer)), "tenten_dealer_new")
    try:
        cells = Board()
        score, game, game_rounds = 0, 1, 0
        out = []
        for round_ in range(1, ROUNDS + 1):
            deal = Deal()
            check(LIB.tenten_dealer_next(dealer, cells, CELLS, C.byref(deal)), "tenten_dealer_next")
            holder = list(deal.pieces[:deal.count])
            dealt_on = Board(*cells)
            verdict = Validation()
            check(LIB.tenten_validate(rules, cells, CELLS, (C.c_uint8 * len(holder))(*holder), len(holder),
                                      C.byref(verdict)), "tenten_validate")
            ids = [id_of(rules, p) for p in holder]
            moves, points, over = [], 0, False
            for piece, ident in zip(holder, ids):
                placed = place_greedy(rules, cells, piece)
                if placed is None:
                    over = True
                    break
                x, y, gained = placed
                moves.append(f"{ident}@{x},{y}")
                points += gained
            score += points
            if not over:
                game_rounds += 1  # a round counts once its holder is placed
            out.append(f"round {round_} game {game} holder={','.join(ids)} solvable={verdict.solvable} "
                       f"placements={verdict.placements} moves={';'.join(moves) or '-'} points={points} "
                       f"score={score} filled={filled(cells)}{' over' if over else ''}")
            if over:
                danger = Danger()
                check(LIB.tenten_danger(rules, cells, CELLS, C.byref(danger)), "tenten_danger")
                # Unfair: the holder could not be placed, yet some holder could (the board was not dead).
                unfair = 0
                if not verdict.solvable and not deal.dead:
                    before = Danger()
                    check(LIB.tenten_danger(rules, dealt_on, CELLS, C.byref(before)), "tenten_danger")
                    unfair = int(before.killers < before.multisets)
                out.append(f"game {game} over: score={score} danger={danger.probability:.6f} "
                           f"killers={danger.killers} of {danger.multisets} rounds={game_rounds} unfair={unfair}")
                # The events an adaptive generator reads; the next game starts on its own seed.
                check(LIB.tenten_dealer_game_ended(dealer, game_rounds, unfair), "tenten_dealer_game_ended")
                check(LIB.tenten_dealer_new_game(dealer, SEED + game), "tenten_dealer_new_game")
                C.memset(cells, 0, CELLS)
                score, game, game_rounds = 0, game + 1, 0
        out.append(f"games={game} score={score} filled={filled(cells)}")
        print("\n".join(out))
    finally:
        LIB.tenten_dealer_free(dealer)
        LIB.tenten_rules_free(rules)
        LIB.tenten_generator_free(generator)


if __name__ == "__main__":
    main()
