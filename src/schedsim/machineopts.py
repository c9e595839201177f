"""The machine of a ``schedsim simulate`` run: ``--machine FILE`` or short options.

``--machine FILE`` is a YAML mapping with the keys of a config's ``machine:`` section
(``procs``, ``unit``, ``partitions``, ``speeds``, ``load``) and is checked by the same
function (:func:`schedsim.machinespec.parse_machine`), so it fails with the same
messages. The short options cover the common cases:

* ``--procs N`` (default: the workload file's ``MaxProcs``), ``--unit U``;
* ``--partitions 64,64``: partition sizes, summing to the processors;
* ``--speeds 32x1,32x2``: per-processor speeds in order, ``COUNTxSPEED`` or ``SPEED`` items;
* ``--load uniform --load-param max_percent=30``: a background-load model, its draws
  seeded by ``--seed`` (default 1).

The two ways do not mix: a file describes the whole machine.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.machinespec import MachineSpec, parse_machine
from schedsim.params import split_assignments

SHORT_OPTIONS = ("procs", "unit", "partitions", "speeds", "load", "load_param")
DEFAULT_LOAD_SEED = 1


def add_machine_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("machine (a file, or the short options)")
    group.add_argument("--machine", metavar="FILE",
                       help="machine description, YAML: procs, unit, partitions, speeds, load, "
                            "execution (the keys of a config's machine section)")
    group.add_argument("--procs", type=int, default=None,
                       help="machine size (default: the file's MaxProcs header)")
    group.add_argument("--unit", type=int, default=None,
                       help="allocation unit (default: the file's AllocationUnit, else 1)")
    group.add_argument("--partitions", metavar="N,N,...", default=None,
                       help="partition sizes, summing to the machine size")
    group.add_argument("--speeds", metavar="COUNTxSPEED,...", default=None,
                       help="per-processor speeds in processor order, e.g. 32x1,32x2")
    group.add_argument("--load", metavar="MODEL", default=None,
                       help="background-load model (uniform)")
    group.add_argument("--load-param", action="append", default=[], metavar="KEY=VALUE",
                       help="load-model parameter (repeatable), e.g. max_percent=30")
    group.add_argument("--seed", type=int, default=None,
                       help=f"seed of the background-load draws (default {DEFAULT_LOAD_SEED})")


@dataclass(frozen=True)
class MachineChoice:
    """What the options ask for before the workload is read."""

    spec: MachineSpec | None  # from --machine FILE
    args: argparse.Namespace

    @property
    def procs(self) -> int | None:
        """The machine size to read the workload with (None: the file's)."""
        return self.spec.procs if self.spec is not None else self.args.procs

    @property
    def plain(self) -> bool:
        """No partitions, speeds or load model asked for."""
        if self.spec is not None:
            return len(self.spec.partitions) <= 1 and not self.spec.speeds \
                and self.spec.load is None
        return not (self.args.partitions or self.args.speeds or self.args.load)

    def resolve(self, workload_machine: Machine, source: str) -> tuple[MachineSpec, Machine]:
        """The machine description and machine, given the workload's own (its size, a CWF
        file's ``AllocationUnit``)."""
        if self.spec is not None:
            spec = self.spec
            if workload_machine.unit not in (1, spec.unit):
                raise InputError(f"{source}: AllocationUnit {workload_machine.unit} differs "
                                 f"from the machine's unit {spec.unit} ({self.args.machine})")
        else:
            spec = parse_machine(self._described(workload_machine), "machine options")
        spec.check_execution(self.args.machine or "machine options")
        return spec, spec.machine()

    def _described(self, workload_machine: Machine) -> dict[str, Any]:
        args = self.args
        data: dict[str, Any] = {"procs": workload_machine.procs,
                                "unit": args.unit if args.unit is not None
                                else workload_machine.unit}
        if args.partitions:
            data["partitions"] = [_integer(p, "--partitions")
                                  for p in args.partitions.split(",")]
        if args.speeds:
            data["speeds"] = expand_speeds(args.speeds)
        if args.load:
            data["load"] = {"name": args.load,
                            "params": split_assignments(args.load_param, f"load model "
                                                        f"{args.load}")}
        return data

    def load_model(self, spec: MachineSpec, machine: Machine) -> Any:
        """The background-load model of the run, or None."""
        if spec.load is None:
            return None
        from schedsim.loadmodel import make_load_model

        seed = DEFAULT_LOAD_SEED if self.args.seed is None else self.args.seed
        return make_load_model(spec.load.name, spec.load.params, machine, seed)


def check_job_sizes(jobs: Iterable[Job], machine: Machine, source: str) -> None:
    """A rigid job wider than every partition can never run: an InputError naming it."""
    if len(machine.partitions) < 2:
        return
    largest = max(machine.partitions)
    for job in jobs:
        if job.speedup is None and job.work is None and machine.round_up(job.procs) > largest:
            raise InputError(f"{source}: job {job.id} needs {job.procs} processors, more than "
                             f"the largest partition ({largest} of {machine.partitions}); cap "
                             "the workload's job sizes or give larger partitions")


def machine_choice(args: argparse.Namespace) -> MachineChoice:
    """Check the machine options against each other; read ``--machine FILE``."""
    if args.procs is not None and args.procs <= 0:
        raise InputError(f"--procs={args.procs} must be a positive integer")
    if args.load_param and not args.load:
        raise InputError("--load-param sets a load model's parameter; give --load MODEL too")
    if args.machine is None:
        if args.seed is not None and not args.load:
            raise InputError("--seed seeds the background-load draws; give --load MODEL too")
        return MachineChoice(None, args)
    given = [f"--{name.replace('_', '-')}" for name in SHORT_OPTIONS
             if getattr(args, name) not in (None, [])]
    if given:
        raise InputError(f"--machine {args.machine} describes the whole machine; drop "
                         f"{', '.join(given)} (or put them in the file)")
    spec = read_machine_file(args.machine)
    if args.seed is not None and spec.load is None:
        raise InputError(f"--seed seeds the background-load draws; {args.machine} has no load")
    return MachineChoice(spec, args)


def read_machine_file(path: str) -> MachineSpec:
    """A machine description file (YAML), checked like a config's ``machine:``."""
    import yaml

    file = Path(path)
    if not file.is_file():
        raise InputError(f"--machine {path}: no such file")
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or "not valid YAML"
        raise InputError(f"{path}{where}: {problem}") from None
    return parse_machine(data, path)


def expand_speeds(text: str) -> list[float]:
    """``32x1,32x2`` -> 32 ones then 32 twos; a bare ``SPEED`` is one processor."""
    speeds: list[float] = []
    for item in text.split(","):
        count, sep, speed = item.strip().rpartition("x")
        try:
            value = float(speed)
            times = int(count) if sep else 1
        except ValueError:
            raise InputError(f"--speeds: {item!r} is not SPEED or COUNTxSPEED "
                             "(e.g. 32x1,32x2)") from None
        if times < 1 or not 0 < value < float("inf"):
            raise InputError(f"--speeds: {item!r} needs a positive count and speed")
        speeds.extend([value] * times)
    return speeds


def _integer(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{option}: {text!r} is not an integer (e.g. 64,64)") from None
