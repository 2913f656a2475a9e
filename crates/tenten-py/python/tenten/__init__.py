"""Tenten Workbench's engine for Python.

Boards are 2-D ``uint8`` NumPy arrays of shape (height, width), nonzero
cells filled; holders are lists of piece ids (``"sq3"``) or indices into
the piece set (the classic set unless ``pieces=`` names a piece-set file).

>>> import numpy as np, tenten
>>> tenten.validate(np.zeros((10, 10), np.uint8), ["sq3", "h5", "l3_tl"])
{'solvable': True, 'nodes': 3}

The studies take the CLI's options as keyword arguments and return plain
dicts of NumPy columns (``pandas.DataFrame(result)`` works; pandas is not
needed): ``simulate``, ``fit_player`` (a ``PlayerFit``, its estimates as
columns), ``fit_generator`` (a generator learned from its deals: a dict
of its figures and the learned file's text), ``fit_population`` (a ``Population``), ``forecast`` and ``tune``
(a ``Tuned``, its verdicts as columns). Long calls release the GIL, and Ctrl+C stops them
(KeyboardInterrupt, once the engine's workers have stopped).

Every refusal is a ``tenten.Error``: ``InputError`` for a bad argument
(its name first), ``FormatError`` for a file or RON text
(``file:line:col: what``).
"""

from ._tenten import (
    Error,
    FormatError,
    InputError,
    PlayerFit,
    Population,
    Tuned,
    __version__,
    deal,
    danger,
    fit_generator,
    fit_player,
    fit_population,
    forecast,
    piece_ids,
    repair,
    simulate,
    tune,
    validate,
    validate_many,
)

__all__ = [
    "Error",
    "FormatError",
    "InputError",
    "PlayerFit",
    "Population",
    "Tuned",
    "__version__",
    "deal",
    "danger",
    "fit_generator",
    "fit_player",
    "fit_population",
    "forecast",
    "piece_ids",
    "repair",
    "simulate",
    "tune",
    "validate",
    "validate_many",
]
