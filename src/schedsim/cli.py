"""The ``schedsim`` command: generate, simulate, plot, policies, models.

Contract (docs/architecture.md): bad input ends with exit code 2 and one line naming
the file, line and field or the parameter and its allowed values; never a
traceback. Outputs are written to a temporary file and renamed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from schedsim import __version__
from schedsim.atomic import stage_text, write_text_atomic
from schedsim.engine import SimulationError, simulate
from schedsim.errors import InputError
from schedsim.machine import Machine
from schedsim.metrics import summarize, summarize_columns
from schedsim.params import split_assignments
from schedsim.policies.registry import all_policies, make_policy
from schedsim.schedule_file import allocation_notes, schedule_header, schedule_swf
from schedsim.workloads.base import all_models, get_model
from schedsim.workloads.columns import ColumnWorkload, load_columns, swf_lines
from schedsim.workloads.load import load_workload


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="schedsim", description="Parallel-job scheduling simulator.")
    parser.add_argument("--version", action="version", version=f"schedsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    gen = sub.add_parser("generate", help="generate a synthetic workload")
    gen.add_argument("model", help="workload model (see `schedsim models`)")
    gen.add_argument("--jobs", type=int, required=True, help="number of jobs")
    gen.add_argument("--seed", type=int, required=True, help="random seed")
    gen.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="model parameter (repeatable)")
    gen.add_argument("--out", required=True, help="output workload file")

    sim = sub.add_parser("simulate", help="simulate one policy on one workload")
    sim.add_argument("workload", help="workload file (.swf, .swf.gz, .cwf)")
    sim.add_argument("--policy", required=True, help="policy name (see `schedsim policies`)")
    sim.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="policy parameter (repeatable)")
    sim.add_argument("--procs", type=int, default=None,
                     help="machine size (default: the file's MaxProcs header)")
    sim.add_argument("--unit", type=int, default=1, help="allocation unit (default 1)")
    sim.add_argument("--estimates", choices=("requested", "exact"), default="requested",
                     help="scheduler's runtime estimates (default: requested)")
    sim.add_argument("--tau", type=float, default=10.0,
                     help="bounded-slowdown threshold in seconds (default 10)")
    sim.add_argument("--out", required=True, help="output schedule (SWF)")
    sim.add_argument("--metrics", default=None, help="write summary metrics as JSON")

    plot = sub.add_parser("plot", help="draw a schedule: Gantt chart, queue, utilization")
    plot.add_argument("schedule", help="a schedule written by `schedsim simulate --out`")
    plot.add_argument("--out", required=True, help="picture (.png, .pdf or .svg)")
    plot.add_argument("--start", help="window start: seconds, or e.g. 36h, 10d (default: "
                      "the first submission)")
    plot.add_argument("--end", help="window end, as --start (default: the last end)")
    plot.add_argument("--procs", type=int, default=None,
                      help="machine size (default: the file's MaxProcs header)")
    plot.add_argument("--title", default="", help="title (default: the file name)")

    sub.add_parser("policies", help="list policies and their parameters")
    sub.add_parser("models", help="list workload models and their parameters")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except InputError as err:
        print(f"schedsim {args.command}: error: {err}", file=sys.stderr)
        return 2
    except SimulationError as err:
        print(f"schedsim {args.command}: simulation error: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # a file system error the checks could not foresee
        print(f"schedsim {args.command}: error: {err.filename or ''}: {err.strerror or err}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("schedsim: interrupted", file=sys.stderr)
        return 130


def cmd_generate(args: argparse.Namespace) -> int:
    check_outputs([args.out], None)
    model = get_model(args.model)
    params = split_assignments(args.param, f"generate {args.model}")
    text = model.run(args.jobs, args.seed, params)
    write_text_atomic(args.out, text)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.procs is not None and args.procs <= 0:
        raise InputError(f"--procs={args.procs} must be a positive integer")
    if not (math.isfinite(args.tau) and args.tau > 0):
        raise InputError(f"--tau={args.tau} must be a positive number of seconds")
    outputs = [args.out, *([args.metrics] if args.metrics else [])]
    check_outputs(outputs, args.workload)
    columns = load_columns(args.workload, procs=args.procs, estimates=args.estimates)
    if columns is not None:
        return _simulate_columns(args, columns)
    workload = load_workload(args.workload, procs=args.procs, estimates=args.estimates)
    machine = workload.machine if args.unit == 1 else Machine(
        workload.machine.procs, args.unit, workload.machine.partitions, workload.machine.speeds)
    params = split_assignments(args.param, f"policy {args.policy}")
    policy = make_policy(args.policy, params, machine)
    with _progress(len(workload.jobs)) as tick:
        if tick is not None and getattr(policy, "simulate_whole", None) is None:
            policy = _ProgressPolicy(policy, tick)
        schedule = simulate(workload.jobs, machine, policy, workload.changes)
    texts = {args.out: schedule_swf(schedule, workload, args.policy)}
    if args.metrics:
        texts[args.metrics] = _metrics_text(summarize(schedule, tau=args.tau).as_dict(),
                                            args, machine, workload.report)
    write_all_or_none(texts)
    if workload.report is not None and workload.report.dropped:
        print(f"schedsim simulate: note: {args.workload}: {workload.report.summary()}",
              file=sys.stderr)
    return 0


def check_outputs(outputs: Sequence[str], source: str | None) -> None:
    """Refuse, before any work, output paths that cannot be written or clash."""
    resolved = [Path(p).resolve() for p in outputs]
    if source is not None and Path(source).resolve() in resolved:
        raise InputError(f"output {source} is the input workload; choose another path")
    if len(set(resolved)) < len(resolved):
        raise InputError(f"--out and --metrics are the same file ({outputs[0]})")
    for path, full in zip(outputs, resolved, strict=True):
        if full.is_dir():
            raise InputError(f"output {path} is a directory; give a file path")
        parent = full.parent
        if not parent.is_dir():
            raise InputError(f"output {path}: directory {parent} does not exist")
        if not os.access(parent, os.W_OK) or (full.exists() and not os.access(full, os.W_OK)):
            raise InputError(f"output {path}: not writable")


def write_all_or_none(texts: dict[str, str | Iterable[str]]) -> None:
    """Write every file atomically, all of them or (on an error) none of them (a text
    may come in pieces: ``stage_text``)."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in texts.items():
            staged.append((path, stage_text(path, text)))
        for path, temporary in staged:
            os.replace(temporary, path)
    except OSError as err:
        for _, temporary in staged:
            temporary.unlink(missing_ok=True)
        raise InputError(f"cannot write {err.filename or ''}: {err.strerror or err}") from None


def _simulate_columns(args: argparse.Namespace, workload: ColumnWorkload) -> int:
    """``cmd_simulate`` on a plain SWF file held in columns (``workloads.columns``): the
    same outputs; the jobs become ``Job`` objects only if the policy has no compiled run
    of columns."""
    base = workload.machine
    machine = base if args.unit == 1 else Machine(base.procs, args.unit, base.partitions,
                                                  base.speeds)
    params = split_assignments(args.param, f"policy {args.policy}")
    policy = make_policy(args.policy, params, machine)
    compiled = getattr(policy, "simulate_columns", None)
    result = compiled(workload.submit, workload.runtime, workload.estimate,
                      workload.procs) if compiled is not None else None
    if result is not None:
        start, end, procs = result
        summary = summarize_columns(workload.submit, start, end, procs, machine.procs,
                                    args.tau) if args.metrics else None
    else:
        jobs = workload.jobs()
        with _progress(len(jobs)) as tick:
            if tick is not None and getattr(policy, "simulate_whole", None) is None:
                policy = _ProgressPolicy(policy, tick)
            schedule = simulate(jobs, machine, policy)
        start, end = np.array(schedule.start), np.array(schedule.end)
        procs = np.array(schedule.procs, dtype=np.int64)
        summary = summarize(schedule, tau=args.tau) if args.metrics else None
    notes = allocation_notes(schedule) if result is None else []
    header = "".join(f";{h}\n" for h in (*schedule_header(args.policy, workload.path, machine),
                                          *notes))
    texts: dict[str, str | Iterable[str]] = {
        args.out: itertools.chain([header], swf_lines(workload.rows, start, end, procs))}
    if summary is not None:
        texts[args.metrics] = _metrics_text(summary.as_dict(), args, machine,
                                            workload.report)
    write_all_or_none(texts)
    if workload.report.dropped:
        print(f"schedsim simulate: note: {args.workload}: {workload.report.summary()}",
              file=sys.stderr)
    return 0


def _metrics_text(summary: dict[str, Any], args: argparse.Namespace, machine: Machine,
                  report: Any) -> str:
    summary.update({"policy": args.policy, "workload": str(args.workload),
                    "procs": machine.procs, "estimates": args.estimates,
                    "schedsim_version": __version__})
    if report is not None:
        summary["cleaning"] = report.as_dict()
    return json.dumps(summary, indent=2, sort_keys=True, allow_nan=False) + "\n"


def cmd_plot(args: argparse.Namespace) -> int:
    from schedsim.gantt import parse_time, plot_schedule

    if args.procs is not None and args.procs <= 0:
        raise InputError(f"--procs={args.procs} must be a positive integer")
    check_outputs([args.out], args.schedule)
    start = parse_time(args.start, "--start") if args.start is not None else None
    end = parse_time(args.end, "--end") if args.end is not None else None
    plot_schedule(args.schedule, args.out, start, end, args.procs, args.title)
    return 0


def cmd_policies(args: argparse.Namespace) -> int:
    for name, entry in all_policies().items():
        print(f"{name}  [{entry.family}]  {entry.description}")
        for spec in entry.specs():
            print(f"    {spec.name} = {spec.default!r}  ({spec.allowed()}): {spec.help}")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    for name, model in all_models().items():
        print(f"{name}  [{model.file_format}]  {model.description}")
        for spec in model.params:
            print(f"    {spec.name} = {spec.default!r}  ({spec.allowed()}): {spec.help}")
    return 0


_COMMANDS = {"generate": cmd_generate, "simulate": cmd_simulate, "plot": cmd_plot,
             "policies": cmd_policies, "models": cmd_models}


class _ProgressPolicy:
    """Forwards to a policy and ticks a progress bar on every completion."""

    def __init__(self, policy: Any, tick: Any) -> None:
        self._policy = policy
        self._tick = tick
        self.submit = policy.submit
        self.change = policy.change
        self.schedule = policy.schedule

    def finish(self, job: Any, view: Any) -> None:
        self._tick()
        self._policy.finish(job, view)


class _progress:
    """A tqdm bar on stderr, shown after 2 s, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar: Any = None

    def __enter__(self) -> Any:
        if not sys.stderr.isatty():
            return None
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, unit="job", delay=2.0, file=sys.stderr,
                        mininterval=0.5)
        count = [0]

        def tick() -> None:
            count[0] += 1
            if count[0] % 1000 == 0:
                self.bar.update(1000)

        return tick

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
