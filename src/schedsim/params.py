"""Typed, range-checked parameters shared by policies and workload models.

A policy or a workload model declares its parameters as a tuple of
:class:`ParamSpec`; :func:`parse_params` turns ``KEY=VALUE`` strings (command
line) or a mapping (workflow config) into checked values with defaults filled in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from schedsim.errors import InputError
from schedsim.numbers import to_float, to_int

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class ParamSpec:
    """One named parameter: type, default, allowed range or choices, help text."""

    name: str
    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None

    def allowed(self) -> str:
        """The allowed values in words: ``one of a, b``, ``true or false``, ``int in [1,
        64]``, ``float >= 0``, ``any text``."""
        if self.choices is not None:
            return "one of " + ", ".join(str(c) if c != "" else "'' (empty)"
                                         for c in self.choices)
        if self.type is bool:
            return "true or false"
        if self.type not in (int, float):
            return "any text"
        kind = self.type.__name__
        if self.low is not None and self.high is not None:
            return f"{kind} in [{_fmt(self.low)}, {_fmt(self.high)}]"
        if self.low is not None:
            return f"{kind} >= {_fmt(self.low)}"
        if self.high is not None:
            return f"{kind} <= {_fmt(self.high)}"
        return f"any {kind}"

    def convert(self, raw: Any, owner: str) -> Any:
        """Convert and check one raw value; raise InputError naming the parameter."""
        value = self._coerce(raw, owner)
        if self.choices is not None and value not in self.choices:
            raise InputError(self._bad(raw, owner))
        if self.low is not None and value < self.low:
            raise InputError(self._bad(raw, owner))
        if self.high is not None and value > self.high:
            raise InputError(self._bad(raw, owner))
        return value

    def _coerce(self, raw: Any, owner: str) -> Any:
        if self.type is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise InputError(self._bad(raw, owner))
        try:
            if self.type in (int, float) and isinstance(raw, bool):
                raise ValueError  # true and false are not numbers
            if self.type is int:
                if isinstance(raw, float) and not raw.is_integer():
                    raise ValueError
                return to_int(raw.strip()) if isinstance(raw, str) else int(raw)
            if self.type is float:
                value = to_float(raw.strip()) if isinstance(raw, str) else float(raw)
                if value != value:  # NaN
                    raise ValueError
                return value
            if not isinstance(raw, str | int | float):
                raise ValueError  # a list or a mapping is not a name
            return self.type(raw)
        except (TypeError, ValueError, OverflowError):
            raise InputError(self._bad(raw, owner)) from None

    def _bad(self, raw: Any, owner: str) -> str:
        return f"{owner}: parameter {self.name}={raw!r} is invalid; allowed: {self.allowed()}"


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def split_assignments(items: Iterable[str], owner: str) -> dict[str, str]:
    """Parse ``["a=1", "b=x"]`` into a dict; reject items without '=' and a parameter
    given twice (the last value would win without a word)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"{owner}: parameter {item!r} is not of the form KEY=VALUE")
        if key in out:
            raise InputError(f"{owner}: parameter {key} is given twice ({key}={out[key]} and "
                             f"{key}={value.strip()}); give it once")
        out[key] = value.strip()
    return out


def parse_params(
    specs: Iterable[ParamSpec], given: Mapping[str, Any], owner: str
) -> dict[str, Any]:
    """Check ``given`` against ``specs``: unknown names and bad values raise InputError."""
    by_name = {s.name: s for s in specs}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        known = ", ".join(sorted(by_name)) or "(none)"
        raise InputError(f"{owner}: unknown parameter {unknown[0]!r}; known parameters: {known}")
    values = {name: spec.default for name, spec in by_name.items()}
    for name, raw in given.items():
        values[name] = by_name[name].convert(raw, owner)
    return values
