"""Background load on the processors: the protocol the engine reads, and a scripted model.

The effective rate of processor k is ``speed_k * (1 - load_k)`` (speeds from
:attr:`Machine.speeds`, 1 when absent), the execution model of the IHAP paper
(heterogeneous processors with background load; the loads are redrawn at every
arrival and departure instant and constant in between).

A load model is any object with ``redraw(now)``. The engine calls it at every
instant at which a job arrived or completed, and at every time the model asked
for with the optional ``next_change(now)``; a ``None`` answer leaves the loads
unchanged.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from schedsim.errors import InputError
from schedsim.machine import Machine
from schedsim.params import ParamSpec, parse_params


class LoadModel(Protocol):
    """Per-processor background loads, each in ``[0, 1)``."""

    def redraw(self, now: float) -> Sequence[float] | None:
        """The loads from ``now`` on (one per processor), or None: unchanged."""


class TimedLoadModel(LoadModel, Protocol):
    """A load model that also changes the loads at times of its own."""

    def next_change(self, now: float) -> float | None:
        """The first time after ``now`` at which the loads change by themselves, or None.

        The engine asks once with ``now = -inf`` before the first event, then after
        every change it was asked for.
        """


class ScriptedLoads:
    """Loads given per time (for tests and hand-made scenarios).

    ``script`` maps a time to the loads from that time on; before the first
    scripted time every load is 0. ``redraw(now)`` returns the loads of the latest
    scripted time <= ``now`` when they differ from the last ones returned, else
    None; ``next_change(now)`` is the first scripted time after ``now``.
    """

    def __init__(self, script: Mapping[float, Sequence[float]]) -> None:
        self.times = sorted(script)
        self.loads = [tuple(float(u) for u in script[t]) for t in self.times]
        for time, loads in zip(self.times, self.loads, strict=True):
            if any(not 0.0 <= u < 1.0 for u in loads):
                raise ValueError(f"loads at t={time} must be in [0, 1): {loads}")
        self.current: tuple[float, ...] | None = None

    def redraw(self, now: float) -> Sequence[float] | None:
        position = bisect.bisect_right(self.times, now) - 1
        if position < 0:
            return None
        loads = self.loads[position]
        if loads == self.current:
            return None
        self.current = loads
        return loads

    def next_change(self, now: float) -> float | None:
        position = bisect.bisect_right(self.times, now)
        return self.times[position] if position < len(self.times) else None


# Stream number mixed into a run's seed for its load draws, so that the loads never
# share a generator with the workload (docs/deviations.md, experiment platform).
LOAD_STREAM = 7_000_001


class UniformLoads:
    """I.i.d. per-processor loads on {0, step, ..., max} percent, redrawn at every
    arrival and departure (IHAP paper, sec. 4.3: local load U[0%, 30%])."""

    def __init__(self, procs: int, seed: int, max_percent: int = 30,
                 step_percent: int = 1) -> None:
        from numpy.random import PCG64, Generator, SeedSequence

        from schedsim.workloads.hyperexp import BackgroundLoad

        rng = Generator(PCG64(SeedSequence([int(seed), LOAD_STREAM])))
        self.background = BackgroundLoad(procs, rng, max_percent, step_percent)

    def redraw(self, now: float) -> Sequence[float]:
        return self.background.redraw()


LoadFactory = Callable[[Mapping[str, Any], Machine, int], LoadModel]


@dataclass(frozen=True)
class LoadModelEntry:
    """A registered background-load model: its parameters and its factory, which
    receives the checked parameters (defaults filled in), the machine and the run's seed."""

    name: str
    description: str
    params: tuple[ParamSpec, ...]
    factory: LoadFactory


LOAD_MODELS: dict[str, LoadModelEntry] = {
    "uniform": LoadModelEntry(
        "uniform", "i.i.d. per-processor loads on {0, step, ..., max} percent, redrawn at "
        "every arrival and departure (IHAP paper, sec. 4.3)",
        (ParamSpec("max_percent", int, 30, "largest load in percent (the paper: 30)", 1, 99),
         ParamSpec("step_percent", int, 1, "grid step in percent; divides max_percent", 1, 99)),
        lambda params, machine, seed: UniformLoads(
            machine.procs, seed, params["max_percent"], params["step_percent"])),
}


def make_load_model(name: str, params: Mapping[str, Any], machine: Machine,
                    seed: int) -> LoadModel:
    """The registered load model ``name`` for one run (its draws seeded from ``seed``);
    unknown names, parameters and values are InputErrors naming them."""
    if name not in LOAD_MODELS:
        raise InputError(f"unknown load model {name!r}; known: {', '.join(sorted(LOAD_MODELS))}")
    entry = LOAD_MODELS[name]
    return entry.factory(parse_params(entry.params, params, f"load model {name}"), machine,
                         seed)
