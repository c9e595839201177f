"""Small builders for hand-computed schedule tests."""

from __future__ import annotations

from collections.abc import Sequence

from schedsim.engine import Schedule, simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy

JobSpec = tuple[float, float, int] | tuple[float, float, int, float]


def make_jobs(specs: Sequence[JobSpec]) -> list[Job]:
    """Jobs from (submit, runtime, procs[, estimate]) tuples; ids 1, 2, ..."""
    jobs = []
    for number, spec in enumerate(specs, start=1):
        submit, runtime, procs = spec[0], spec[1], spec[2]
        estimate = spec[3] if len(spec) > 3 else runtime
        jobs.append(Job(number, submit, runtime, procs, estimate))
    return jobs


def run(policy: str, procs: int, specs: Sequence[tuple], **params: object) -> Schedule:
    machine = Machine(procs)
    return simulate(make_jobs(specs), machine, make_policy(policy, params, machine), check=True)


def starts(policy: str, procs: int, specs: Sequence[tuple]) -> list[float]:
    return list(run(policy, procs, specs).start)


def cli_run(argv: list[str]) -> tuple[int, str]:
    """``schedsim`` in this process: its exit code and what it wrote to stderr."""
    import contextlib
    import io

    from schedsim.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()
