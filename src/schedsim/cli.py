"""The ``schedsim`` command: generate, simulate, convert, plot, policies, models.

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
from schedsim.atomic import (
    check_output,
    run_stopping_on_signals,
    target,
    write_all_or_none,
    write_text_atomic,
)
from schedsim.engine import Schedule, SimulationError, simulate
from schedsim.errors import InputError
from schedsim.inputs import check_input
from schedsim.kernel import ahead
from schedsim.machine import Machine
from schedsim.machineopts import (
    add_machine_options,
    check_job_sizes,
    machine_choice,
)
from schedsim.metrics import summarize, summarize_columns
from schedsim.numbers import to_float, to_int
from schedsim.params import split_assignments
from schedsim.policies.registry import (
    RIGID,
    all_policies,
    get_policy,
    machine_features,
    run_features,
)
from schedsim.progress import Progress, compile_notice
from schedsim.schedule_file import allocation_notes, job_rows, schedule_header
from schedsim.workloads.base import MAX_JOBS, SEED_RANGE, all_models, get_model
from schedsim.workloads.batsim import convert_text, jobs_csv_text, schedule_runs
from schedsim.workloads.columns import swf_lines
from schedsim.workloads.load import CWF_NAMES, Workload, load_workload


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def integer(text: str) -> int:
    """An option's integer, spelled as ``schedsim.numbers`` reads numbers (not ``1_000``)."""
    try:
        return to_int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def number(text: str) -> float:
    """An option's number (``schedsim.numbers``)."""
    try:
        return to_float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="schedsim", description="Parallel-job scheduling simulator.")
    parser.add_argument("--version", action="version", version=f"schedsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    gen = sub.add_parser("generate", help="generate a synthetic workload")
    gen.add_argument("model", help="workload model (see `schedsim models`)")
    gen.add_argument("--jobs", type=integer, required=True,
                     help=f"number of jobs (1 to {MAX_JOBS:,})")
    gen.add_argument("--seed", type=integer, required=True,
                     help=f"random seed ({SEED_RANGE[0]} to {SEED_RANGE[1]})")
    gen.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="model parameter (repeatable)")
    gen.add_argument("--out", required=True, help="output workload file")

    sim = sub.add_parser("simulate", help="simulate one policy on one workload")
    sim.add_argument("workload", help="workload file (.swf, .swf.gz, .cwf)")
    sim.add_argument("--policy", required=True, help="policy name (see `schedsim policies`)")
    sim.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="policy parameter (repeatable)")
    sim.add_argument("--estimates", choices=("requested", "exact"), default="requested",
                     help="scheduler's runtime estimates (default: requested)")
    sim.add_argument("--tau", type=number, default=10.0,
                     help="bounded-slowdown threshold in seconds (default 10)")
    sim.add_argument("--out", required=True, help="output schedule (SWF)")
    sim.add_argument("--metrics", default=None, help="write summary metrics as JSON")
    sim.add_argument("--jobs-csv", default=None, metavar="FILE",
                     help="also write the schedule as Batsim's jobs.csv (evalys reads it)")
    add_machine_options(sim)

    conv = sub.add_parser("convert", help="convert a workload between SWF and Batsim JSON")
    conv.add_argument("source", help="SWF (.swf, .swf.gz) or Batsim workload (.json)")
    conv.add_argument("out", help="output: .json for an SWF source, .swf for a Batsim one")
    conv.add_argument("--procs", type=int, default=None,
                      help="nb_res of the Batsim workload (default: the SWF's MaxProcs)")

    plot = sub.add_parser("plot", help="draw a schedule: Gantt chart, queue, utilization")
    plot.add_argument("schedule", help="a schedule written by `schedsim simulate --out`")
    plot.add_argument("--out", required=True, help="picture (.png, .pdf or .svg)")
    plot.add_argument("--start", help="window start: seconds, or e.g. 36h, 10d (default: "
                      "the first submission)")
    plot.add_argument("--end", help="window end, as --start (default: the last end)")
    plot.add_argument("--procs", type=int, default=None,
                      help="machine size (default: the file's MaxProcs header)")
    plot.add_argument("--title", default="", help="title (default: the file name)")

    sub.add_parser("compile", help="build the ahead-of-time library that `simulate` runs "
                   "FCFS, EASY and conservative on SWF files with (without loading numba)")
    sub.add_parser("policies", help="list policies and their parameters")
    sub.add_parser("models", help="list workload models and their parameters")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run_stopping_on_signals(f"schedsim {args.command}",
                                       lambda: _COMMANDS[args.command](args))
    except InputError as err:
        print(f"schedsim {args.command}: error: {err}", file=sys.stderr)
        return 2
    except SimulationError as err:
        print(f"schedsim {args.command}: simulation error: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into e.g. `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:  # a file system error the checks could not foresee
        print(f"schedsim {args.command}: error: {err.filename or ''}: {err.strerror or err}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("schedsim: interrupted", file=sys.stderr)
        return 130


def cmd_generate(args: argparse.Namespace) -> int:
    model = get_model(args.model)
    model.check_output_name(args.out)
    check_outputs([args.out], None)
    params = split_assignments(args.param, f"generate {args.model}")
    write_text_atomic(args.out, model.pieces(args.jobs, args.seed, params))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    if ahead.available():
        ahead.use()
        if _whole_run_ahead(args):  # numba is never loaded: nothing to compile
            return _simulate(args)
    with compile_notice("schedsim simulate"):
        return _simulate(args)


def _whole_run_ahead(args: argparse.Namespace) -> bool:
    """Whether the ahead-of-time library holds every compiled function of the run: FCFS,
    EASY or conservative with their default settings on an SWF file, on one partition
    of equal processors without a load model, no Batsim jobs.csv asked for."""
    return (args.policy in ahead.POLICIES and not args.param and not args.jobs_csv
            and not args.workload.endswith((*CWF_NAMES, ".json"))
            and machine_choice(args).plain)


def cmd_compile(args: argparse.Namespace) -> int:
    if ahead.available():
        print(f"schedsim compile: {ahead.library_path()} is this version's library; "
              "nothing to do")
        return 0
    print("schedsim compile: compiling the ahead-of-time library (once after installing or "
          "changing schedsim; about half a minute)", file=sys.stderr, flush=True)
    print(f"schedsim compile: wrote {ahead.build()}")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    if not (math.isfinite(args.tau) and args.tau > 0):
        raise InputError(f"--tau={args.tau} must be a positive number of seconds")
    outputs = [args.out, *(path for path in (args.metrics, args.jobs_csv) if path)]
    check_outputs(outputs, args.workload)
    choice = machine_choice(args)
    entry = get_policy(args.policy)
    params = split_assignments(args.param, f"policy {args.policy}")
    workload = load_workload(args.workload, procs=choice.procs, estimates=args.estimates)
    spec, machine = choice.resolve(workload.machine, args.workload)
    load = choice.load_model(spec, machine)
    in_columns = choice.plain and not args.jobs_csv and workload.columns is not None \
        and not workload.changes
    if in_columns:
        entry.check_run(frozenset({RIGID}) | machine_features(machine.partitions,
                                                              machine.speeds, False))
    else:
        entry.check_run(run_features(workload.jobs, machine, workload.changes,
                                     load is not None))
        check_job_sizes(workload.jobs, machine, args.workload)
    policy = entry.make(params, machine)
    start, end, procs, summary, schedule = _run(args, workload, machine, policy, load,
                                                in_columns)
    rows = workload.rows if workload.rows is not None else job_rows(schedule.jobs)
    notes = allocation_notes(schedule) if schedule is not None else []
    header = "".join(f";{h}\n" for h in (*schedule_header(args.policy, workload.path, machine),
                                          *notes))
    texts: dict[str, str | Iterable[str | bytes]] = {
        args.out: itertools.chain([header], swf_lines(rows, start, end, procs))}
    if args.metrics:
        texts[args.metrics] = _metrics_text(summary, args, machine, workload.report)
    if args.jobs_csv:
        texts[args.jobs_csv] = jobs_csv_text(schedule_runs(schedule), machine.partitions,
                                             Path(args.workload).name)
    write_all_or_none(texts)
    if workload.report is not None and workload.report.dropped:
        print(f"schedsim simulate: note: {args.workload}: {workload.report.summary()}",
              file=sys.stderr)
    return 0


def _run(args: argparse.Namespace, workload: Workload, machine: Machine, policy: Any,
         load: Any, in_columns: bool
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any], Schedule | None]:
    """Start, end and processors of every job, the summary metrics and the engine's
    schedule (None after a compiled run of columns): a compiled run on the columns of a
    plain SWF file where the policy has one, else the engine (elastic commands change run
    times and estimates, so the jobs are the schedule's)."""
    compiled = _columns_run(workload, machine, policy, args.tau) if in_columns else None
    if compiled is not None:
        return compiled
    jobs = workload.jobs
    with Progress(len(jobs), "schedsim simulate") as tick:
        if getattr(policy, "simulate_compiled", None) is None:
            policy = _ProgressPolicy(policy, tick)
        schedule = simulate(jobs, machine, policy, workload.changes, load_model=load)
    return (np.array(schedule.start), np.array(schedule.end),
            np.array(schedule.procs, dtype=np.int64), summarize(schedule, tau=args.tau).as_dict(),
            schedule)


def _columns_run(workload: Workload, machine: Machine, policy: Any, tau: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any], None] | None:
    """:func:`_run` through the policy's compiled run of columns, or None where it has
    none (or declines the run)."""
    compiled = getattr(policy, "simulate_columns", None)
    columns = workload.columns
    if compiled is None or columns is None:
        return None
    result = compiled(columns.submit, columns.runtime, columns.estimate, columns.procs)
    if result is None:
        return None
    start, end, procs = result
    summary = summarize_columns(columns.submit, start, end, procs, machine.procs, tau)
    return start, end, procs, summary.as_dict(), None


def check_outputs(outputs: Sequence[str], source: str | None) -> None:
    """Refuse, before any work, output paths that cannot be written or clash."""
    written = [check_output(p) for p in outputs]
    if source is not None and target(source) in written:
        raise InputError(f"output {source} is the input workload; choose another path")
    if len(set(written)) < len(written):
        raise InputError(f"two outputs are the same file ({', '.join(outputs)})")


def _metrics_text(summary: dict[str, Any], args: argparse.Namespace, machine: Machine,
                  report: Any) -> str:
    summary = dict(summary)
    summary.update({"policy": args.policy, "workload": str(args.workload),
                    "procs": machine.procs, "estimates": args.estimates,
                    "schedsim_version": __version__})
    if report is not None:
        summary["cleaning"] = report.as_dict()
    return json.dumps(summary, indent=2, sort_keys=True, allow_nan=False) + "\n"


def cmd_convert(args: argparse.Namespace) -> int:
    if args.procs is not None and args.procs <= 0:
        raise InputError(f"--procs={args.procs} must be a positive integer")
    check_outputs([args.out], args.source)
    check_input(args.source)
    text, note = convert_text(args.source, args.out, args.procs)
    write_text_atomic(args.out, text)
    if note:
        print(f"schedsim convert: note: {args.source}: {note}", file=sys.stderr)
    return 0


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
    """Policies by family; a policy with the same parameters as the one before it in its
    family says so instead of listing them again."""
    by_family: dict[str, list[Any]] = {}
    for entry in all_policies().values():
        by_family.setdefault(entry.family, []).append(entry)
    for family, entries in by_family.items():
        print(f"{family}:")
        shown: dict[tuple[Any, ...], str] = {}
        last_needs = ""
        for entry in entries:
            print(f"  {entry.name}: {entry.description}")
            needs = entry.needs_text() + (f"; from {entry.source}" if entry.source else "")
            if needs != last_needs:  # said once for a run of policies with the same needs
                print(f"      ({needs})")
            last_needs = needs
            specs = entry.specs()
            if specs and specs in shown:
                print(f"      parameters as {shown[specs]}")
                continue
            shown.setdefault(specs, entry.name)
            _print_params(specs)
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    for name, model in all_models().items():
        print(f"{name} (writes {model.file_format.upper()}): {model.description}")
        _print_params(model.params)
    return 0


def _print_params(specs: Sequence[Any]) -> None:
    for spec in specs:
        default = {"": "''", True: "true", False: "false"}.get(spec.default, spec.default) \
            if isinstance(spec.default, str | bool) else spec.default
        print(f"      {spec.name} = {default}  ({spec.allowed()}): {spec.help}")


_COMMANDS = {"generate": cmd_generate, "simulate": cmd_simulate, "convert": cmd_convert,
             "plot": cmd_plot, "compile": cmd_compile,
             "policies": cmd_policies, "models": cmd_models}


class _ProgressPolicy:
    """Forwards everything to a policy, and counts each completion as a job done."""

    def __init__(self, policy: Any, tick: Any) -> None:
        self._policy = policy
        self._tick = tick

    def __getattr__(self, name: str) -> Any:
        return getattr(self._policy, name)

    def finish(self, job: Any, view: Any) -> None:
        self._tick()
        self._policy.finish(job, view)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
