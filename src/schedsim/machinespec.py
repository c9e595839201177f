"""A machine as a config or a ``--machine`` file describes it, checked in one place.

:class:`MachineSpec` is what the plan passes to the runner (size, allocation unit,
partitions, speeds, background-load model, execution model); :func:`parse_machine`
checks a description completely, so a config's ``machine:`` section and ``schedsim
simulate --machine FILE`` fail with the same messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from schedsim.errors import InputError
from schedsim.loadmodel import make_load_model
from schedsim.machine import EQUAL_SPLIT, Machine


@dataclass(frozen=True)
class LoadModelSpec:
    """A background-load model of the machine: its registered name and parameters."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MachineSpec:
    """A family's machine description: size, allocation unit, partitions, speeds, load,
    execution model.

    ``partitions`` and ``speeds`` empty mean one partition and speed 1 everywhere
    (:class:`schedsim.machine.Machine`); ``load`` None means dedicated processors;
    ``execution`` empty means not stated (the machine's default, equal split), and is
    then left out of a spec's JSON.
    """

    procs: int
    unit: int = 1
    partitions: tuple[int, ...] = ()
    speeds: tuple[float, ...] = ()
    load: LoadModelSpec | None = None
    execution: str = ""

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> MachineSpec:
        load = data.get("load")
        return cls(int(data["procs"]), int(data.get("unit", 1)),
                   tuple(int(p) for p in data.get("partitions") or ()),
                   tuple(float(s) for s in data.get("speeds") or ()),
                   LoadModelSpec(str(load["name"]), dict(load.get("params", {})))
                   if load else None, str(data.get("execution") or ""))

    def machine(self) -> Machine:
        """The :class:`Machine` it describes (an execution model not stated: the
        machine's default, equal split)."""
        return Machine(self.procs, self.unit, self.partitions, self.speeds,
                       self.execution or EQUAL_SPLIT)

    def check_execution(self, where: str) -> None:
        """A stated execution model needs processors whose rates can differ: different
        speeds or a background load (on identical dedicated processors both models are
        one)."""
        if self.execution and len(set(self.speeds)) < 2 and self.load is None:
            raise InputError(f"{where}: execution={self.execution} says how a job "
                             "progresses on processors of different rates; this machine has "
                             "neither different speeds nor a background load (remove the "
                             "key)")


MACHINE_KEYS = ("procs", "unit", "partitions", "speeds", "load", "execution")


def parse_machine(data: Any, where: str) -> MachineSpec:
    """A machine description (a config's ``machine:``, a ``--machine`` file) checked
    completely: its keys, the types and ranges of its values, their agreement
    (:class:`schedsim.machine.Machine`) and the background-load model's name and
    parameters. Every error is an InputError that starts with ``where``."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: a machine is a mapping with keys {', '.join(MACHINE_KEYS)} "
                         f"(procs required), not {type(data).__name__}")
    unknown = [str(k) for k in data if k not in MACHINE_KEYS]
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r}; allowed: "
                         f"{', '.join(MACHINE_KEYS)}")
    if "procs" not in data:
        raise InputError(f"{where}: procs is required (the number of processors)")
    procs = _whole(data["procs"], where, "procs")
    unit = _whole(data.get("unit", 1), where, "unit")
    partitions = tuple(_whole(p, where, f"partitions[{i}]")
                       for i, p in enumerate(_listed(data.get("partitions"), where, "partitions")))
    speeds = tuple(_positive(s, where, f"speeds[{i}]")
                   for i, s in enumerate(_listed(data.get("speeds"), where, "speeds")))
    load = _load_spec(data.get("load"), where)
    spec = MachineSpec(procs, unit, partitions, speeds, load, str(data.get("execution") or ""))
    try:
        machine = spec.machine()
        if load is not None:
            make_load_model(load.name, load.params, machine, 0)
    except InputError as err:
        raise InputError(f"{where}: {str(err).removeprefix('machine: ')}") from None
    return spec


def _whole(value: Any, where: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{where}: {key}={value!r} must be a positive integer")
    return value


def _positive(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float(
            "inf"):
        raise InputError(f"{where}: {key}={value!r} must be a positive number")
    return float(value)


def _listed(value: Any, where: str, key: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InputError(f"{where}: {key} must be a list, not {value!r}")
    return list(value)


def _load_spec(value: Any, where: str) -> LoadModelSpec | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        raise InputError(f"{where}: load must be a mapping with a name (a registered load "
                         f"model) and params, or null for dedicated processors; got {value!r}")
    extra = [str(k) for k in value if k not in ("name", "params")]
    if extra:
        raise InputError(f"{where}: unknown key {extra[0]!r} in load; allowed: name, params")
    params = value.get("params") or {}
    if not isinstance(params, Mapping):
        raise InputError(f"{where}: load.params must be a mapping, not {params!r}")
    return LoadModelSpec(value["name"], dict(params))
