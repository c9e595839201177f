"""Numbers as workload files, ``--param`` values and command-line options spell them.

Python's ``float`` and ``int`` read more than a number: ``1_000`` (1000), digits of
other scripts (``١٢``), surrounding blanks. A workload field or a parameter written so is
more likely a mistake than a number, so here a number is only ``[+-]`` digits with at
most one decimal point and an optional exponent (``12``, ``-1``, ``2.5``, ``.5``,
``1e3``), or ``inf``/``nan`` (accepted here so that the caller can say the value is not
finite).
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                     r"|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)


def is_number(text: str) -> bool:
    """Whether ``text`` is spelled as a number (module docstring)."""
    return _NUMBER.fullmatch(text) is not None


def to_float(text: str) -> float:
    """``float(text)`` for text spelled as a number; ValueError for anything else."""
    if _NUMBER.fullmatch(text) is None:
        raise ValueError(f"{text!r} is not a number")
    return float(text)


def to_int(text: str) -> int:
    """An integer written as digits (``12``) or as an integral number (``1e3``);
    ValueError for anything else, a fraction included."""
    value = to_float(text)
    if not value.is_integer():
        raise ValueError(f"{text!r} is not an integer")
    return int(value) if "e" in text.lower() or "." in text else int(text)
