"""The one way in for a workload file: :func:`load_workload`.

A file is read (``inputs``: a regular readable file, gunzipped when it is gzip data) by
the one reader of its format: CWF (``cwf.parse_cwf``, the whole bytes) for ``.cwf``
names, SWF (``swf.read_swf_file``: the compiled scan, a piece of the file at a time; the
line reader, on the whole bytes, where the scan does not decide) for every other. An SWF
file of one of our generators whose jobs are not rigid names its model in its header,
and that model turns the table into its jobs (:func:`_interpretation`); the jobs of any
other SWF file are its cleaned rows (``columns.clean``), held as columns until a run
asks for ``Job`` objects.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from schedsim.errors import InputError
from schedsim.gcpause import gc_paused
from schedsim.inputs import read_input
from schedsim.jobs import Job, RuntimeChange
from schedsim.machine import Machine
from schedsim.workloads.columns import ESTIMATES, JobColumns, check_unique_ids, clean
from schedsim.workloads.swf import (
    CleaningReport,
    Header,
    SwfColumns,
    SwfLog,
    SwfTable,
    read_swf_file,
    records_table,
)

CWF_NAMES = (".cwf", ".cwf.gz")


@dataclass
class Workload:
    """The jobs (and elastic commands) of a file, with the machine they run on.

    ``rows`` are the 18 SWF fields of each job's line in job order (None for CWF), for
    writing a schedule back (``swf.SwfColumns``); ``columns`` the jobs of a plain SWF file
    as arrays (the compiled column runs); ``jobs`` is made from them on first use.
    """

    path: str
    machine: Machine
    header: Header
    changes: list[RuntimeChange] = field(default_factory=list)
    rows: SwfColumns | None = None
    report: CleaningReport | None = None
    columns: JobColumns | None = None
    given_jobs: Sequence[Job] | None = None

    @property
    def jobs(self) -> Sequence[Job]:
        if self.given_jobs is None:
            assert self.columns is not None
            with gc_paused():
                self.given_jobs = self.columns.jobs()
        return self.given_jobs

    def header_value(self, key: str) -> str | None:
        """A header field of the file (``; Key: value``), or None."""
        return self.header.header_value(key)


def load_workload(path: str | Path, procs: int | None = None,
                  estimates: str = "requested") -> Workload:
    """Read an SWF (rigid jobs, optionally gzipped), CWF or Batsim JSON (.json) file.

    The machine size is ``procs`` when given, else the file's ``MaxProcs`` (or
    ``MaxNodes``) header; a file with neither is an error (a machine as large as the
    largest job would run a different experiment: docs/formats.md). ``estimates``:
    ``requested`` (field 9, raised to the run time where below it) or ``exact``.
    """
    if estimates not in ESTIMATES:
        raise InputError(f"estimates={estimates!r}; allowed: {', '.join(ESTIMATES)}")
    with gc_paused():
        if str(path).endswith(CWF_NAMES):
            return _load_cwf(read_input(path), str(path), procs, estimates)
        if str(path).endswith(".json"):
            table = records_table(_read_batsim(str(path), read_input(path)))
        else:
            table = read_swf_file(path)
        return _load_swf(table, procs, estimates)


def _load_swf(table: SwfTable, procs: int | None, estimates: str) -> Workload:
    path = table.path
    if len(table.columns) == 0:
        raise InputError(f"{path}: no jobs: the file has no job line")
    check_unique_ids(table)
    machine = Machine(machine_size(table.header, procs))
    interpret = _interpretation(table.header)
    if interpret is not None:
        return Workload(path, machine, table.header, rows=table.columns,
                        given_jobs=interpret(table))
    columns, report = clean(table, machine.procs, estimates)
    if report.kept == 0:
        raise InputError(f"{path}: no valid job left after cleaning ({report.summary()})")
    return Workload(path, machine, table.header, rows=columns.rows, report=report,
                    columns=columns)


def _read_batsim(path: str, raw: bytes) -> SwfLog:
    """A Batsim JSON workload as SWF records (``workloads.batsim``)."""
    return importlib.import_module("schedsim.workloads.batsim").read_batsim(path, raw)


def machine_size(header: Header, procs: int | None) -> int:
    """``procs`` when given, else the header's ``MaxProcs`` (or ``MaxNodes``)."""
    size = procs or header.max_procs()
    if size is None:
        raise InputError(f"{header.path}: the machine size is unknown: the file has no "
                         "MaxProcs (or MaxNodes) header; give it with --procs")
    return size


def _interpretation(header: Header) -> Callable[[SwfTable], Sequence[Job]] | None:
    """The model that turns an SWF file of our generators with jobs that are not rigid
    into its jobs: moldable Cirne01 files carry a ``DowneyColumns`` header, hyperexp files
    name their model in the ``Conversion`` header (docs/formats-cirne.md)."""
    # Imported by name: a change of one generator's module does not count as a change
    # of every reader's code (experiments.provenance).
    if header.header_value("DowneyColumns") is not None:
        return importlib.import_module("schedsim.workloads.cirne").moldable_jobs
    if " generate hyperexp " in f" {header.header_value('Conversion') or ''} ":
        return importlib.import_module("schedsim.workloads.hyperexp").hyperexp_jobs
    return None


def _load_cwf(raw: bytes, path: str, procs: int | None, estimates: str) -> Workload:
    from schedsim.workloads.cwf import parse_cwf

    jobs, changes, header = parse_cwf(raw, path)
    if not jobs:
        raise InputError(f"{path}: no jobs: the file has no job line")
    size = machine_size(header, procs)
    raised = 0
    for job in jobs:
        if estimates == "exact":
            job.estimate = job.runtime
        elif job.estimate < job.runtime:  # as for SWF (columns.clean): raised and counted
            job.estimate = job.runtime
            raised += 1
    unit = header.allocation_unit() or 1
    if size % unit:
        raise InputError(f"{path}: machine size {size} is not a multiple of the file's "
                         f"AllocationUnit {unit}")
    machine = Machine(size, unit=unit)
    # As for SWF (columns.clean): a job larger than the machine is dropped and counted.
    kept = [job for job in jobs if machine.round_up(job.procs) <= size]
    report = CleaningReport(records=len(jobs), kept=len(kept),
                            dropped_procs_too_large=len(jobs) - len(kept),
                            estimate_raised=raised)
    if estimates == "exact":
        report.estimate_exact = len(kept)
    if not kept:
        raise InputError(f"{path}: no job fits the machine of {size} processors")
    return Workload(path, machine, header, changes, report=report, given_jobs=kept)
