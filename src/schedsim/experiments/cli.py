"""``python -m schedsim.experiments``: the commands the workflow rules call.

Subcommands:

* ``plan``       list the workloads, points and targets a config defines (and check them);
* ``generate``   every seed file of one workload variant (a batch), in one process;
* ``run-point``  run one point (all seeds inside) -> parquet, one row per simulation
  (``--rows-from``: relabel the simulations earlier points' run files hold instead);
* ``aggregate``  a target's inputs -> ``results/tables/<target>.csv`` (+ per-seed table);
* ``choose``     a target's table -> ``results/chosen/<target>.json`` (its chosen parameter);
* ``figure``     a target's table -> PNG and PDF;
* ``claims``     tables -> ``results/claims.csv`` and one caption snippet per target;
* ``schedule``   a target's representative schedule -> its SWF file and its picture;
* ``summary``    claims and figures -> one self-contained HTML page;
* ``benchmarks`` per-rule totals of the ``benchmark:`` files (docs/performance-pipeline.md).

A workload batch, point or target is given either as ``--spec JSON`` (what the
rules pass) or by ``--config FILE`` plus its names (for running by hand). Errors
in the input end with exit code 2 and one line.

Each command is one module of :mod:`schedsim.experiments.commands` (its options and
what it runs), imported by name for the command given only: a job's code version
covers this module and its command's, not the other commands'.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from schedsim.atomic import run_stopping_on_signals
from schedsim.errors import InputError
from schedsim.gcpause import freeze_what_is_built

# command -> its one-line help, in the order --help lists them
COMMANDS = {
    "plan": "list workloads, points and targets of a config",
    "generate": "every seed file of one workload variant",
    "run-point": "simulate one point, all seeds",
    "aggregate": "a target's table (mean and 95%% CI per point)",
    "choose": "the parameter a target chooses for others",
    "figure": "draw a target's figure",
    "claims": "check every claim of the given families",
    "benchmarks": "per-rule totals of Snakemake benchmark files",
    "schedule": "a target's representative schedule and picture",
    "summary": "claims and figures as one HTML page",
}
PACKAGE = "schedsim.experiments.commands"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def module_name(command: str) -> str:
    """The module of ``command`` (``run-point``: ``...commands.run_point``)."""
    return f"{PACKAGE}.{command.replace('-', '_')}"


def command_module(command: str) -> ModuleType:
    return importlib.import_module(module_name(command))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command by name; the options of ``command`` only (its module's)."""
    parser = _Parser(prog="python -m schedsim.experiments",
                     description="Experiment steps of the reproduction workflow.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, text in COMMANDS.items():
        found = sub.add_parser(name, help=text)
        if name == command:
            command_module(name).add_arguments(found)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # the first word that is not an option names the command (the parser has no options
    # of its own that take a value)
    command = next((word for word in argv if not word.startswith("-")), None)
    args = build_parser(command if command in COMMANDS else None).parse_args(argv)
    freeze_what_is_built()  # one command, then the process ends
    try:
        run = command_module(args.command).run
        return run_stopping_on_signals(f"schedsim experiments {args.command}",
                                       lambda: run(args))
    except (InputError, KeyError, ValueError, FileNotFoundError) as err:
        print(f"schedsim experiments {args.command}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`
        return 0
