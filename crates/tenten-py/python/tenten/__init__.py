"""Tenten Workbench's engine for Python.

Boards are 2-D ``uint8`` NumPy arrays of shape (height, width), nonzero
cells filled; holders are lists of piece ids (``"sq3"``) or indices into
the piece set (the classic set unless ``pieces=`` names a piece-set file).

>>> import numpy as np, tenten
>>> tenten.validate(np.zeros((10, 10), np.uint8), ["sq3", "h5", "l3_tl"])
{'solvable': True, 'nodes': 3}

Every refusal is a ``tenten.Error``: ``InputError`` for a bad argument
(its name first), ``FormatError`` for a file or RON text
(``file:line:col: what``).
"""

from ._tenten import (
    Error,
    FormatError,
    InputError,
    __version__,
    deal,
    danger,
    piece_ids,
    repair,
    validate,
    validate_many,
)

__all__ = [
    "Error",
    "FormatError",
    "InputError",
    "__version__",
    "deal",
    "danger",
    "piece_ids",
    "repair",
    "validate",
    "validate_many",
]
