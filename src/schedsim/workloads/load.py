"""Load any workload file the simulator understands into jobs, commands and a machine."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.gcpause import gc_paused
from schedsim.jobs import Job, RuntimeChange
from schedsim.machine import Machine
from schedsim.workloads.swf import (
    CleaningReport,
    SwfLog,
    SwfRecord,
    read_swf,
    read_swf_header,
    to_jobs,
)


@dataclass
class Workload:
    """Jobs (and elastic commands) ready for the engine, with the machine they run on."""

    path: str
    jobs: list[Job]
    machine: Machine
    changes: list[RuntimeChange] = field(default_factory=list)
    records: dict[int, SwfRecord] = field(default_factory=dict)
    report: CleaningReport | None = None
    header: Any = None

    def header_value(self, key: str) -> str | None:
        """A header field of the file (``; Key: value``), or None."""
        return self.header.header_value(key) if self.header is not None else None


def load_workload(path: str | Path, procs: int | None = None,
                  estimates: str = "requested", records: bool = True) -> Workload:
    """Read an SWF (rigid jobs, optionally gzipped), CWF or Batsim JSON (.json) file.

    The machine size is ``procs`` when given, else the file's ``MaxProcs``
    (or ``MaxNodes``) header, else the largest job. ``records=False``: a file of one
    of our generators with jobs that are not rigid is read by its own reader only,
    without the SWF records (which only writing a schedule back needs).
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    with gc_paused():
        return _load(path, procs, estimates, records)


def _load(path: Path, procs: int | None, estimates: str, records: bool) -> Workload:
    if path.name.endswith((".cwf", ".cwf.gz")):
        return _load_cwf(path, procs, estimates)
    if not records:
        head = read_swf_header(path)
        reader = _special_reader(head)
        if reader is not None:
            jobs = reader(path)
            if not jobs:
                raise InputError(f"{path}: no jobs: the file has no job line")
            size = procs or head.max_procs() or max(job.procs for job in jobs)
            return Workload(str(path), jobs, Machine(size), [], {}, None, head)
    log = _read_batsim(path) if path.name.endswith(".json") else read_swf(path)
    if not log.records:
        raise InputError(f"{path}: no jobs: the file has no job line")
    _check_unique_ids(log)
    size = procs or log.max_procs() or max(
        (max(r.req_procs, r.alloc_procs) for r in log.records), default=0)
    if size <= 0:
        raise InputError(f"{path}: machine size unknown; give --procs")
    reader = _special_reader(log)
    if reader is not None:
        jobs, report = reader(path), None
    else:
        jobs, report = to_jobs(log, size, estimates)
    if not jobs:
        raise InputError(f"{path}: no valid job left after cleaning")
    return Workload(str(path), jobs, Machine(size), [], {r.job: r for r in log.records}, report,
                    log)


def _read_batsim(path: Path) -> SwfLog:
    """A Batsim JSON workload as SWF records (``workloads.batsim``)."""
    return importlib.import_module("schedsim.workloads.batsim").read_batsim(path)


def _check_unique_ids(log: SwfLog) -> None:
    """Job ids must be unique: the schedule is written back by id."""
    first_line: dict[int, int] = {}
    for record, number in zip(log.records, log.line_numbers, strict=True):
        seen = first_line.setdefault(record.job, number)
        if seen != number:
            raise InputError(f"{log.path}:{number}: field 1 (job number): job {record.job} "
                             f"appears again (first at line {seen}); job ids must be unique")


def _special_reader(log: SwfLog) -> Callable[[Path], list[Job]] | None:
    """The reader for SWF files of our generators whose jobs are not rigid.

    Moldable Cirne01 files carry a ``DowneyColumns`` header; hyperexp files name
    their model in the ``Conversion`` header (docs/formats-cirne.md).
    """
    # Imported by name: a change of one generator's module does not count as a change
    # of every reader's code (experiments.provenance).
    if log.header_value("DowneyColumns") is not None:
        return importlib.import_module("schedsim.workloads.cirne").read_moldable_swf
    if " generate hyperexp " in f" {log.header_value('Conversion') or ''} ":
        return importlib.import_module("schedsim.workloads.hyperexp").read_hyperexp_swf
    return None


def _load_cwf(path: Path, procs: int | None, estimates: str) -> Workload:
    from schedsim.workloads.cwf import read_cwf

    jobs, changes, header = read_cwf(path)
    if not jobs:
        raise InputError(f"{path}: no jobs: the file has no job line")
    size = procs or header.max_procs() or max((j.procs for j in jobs), default=0)
    raised = 0
    for job in jobs:
        if estimates == "exact":
            job.estimate = job.runtime
        elif job.estimate < job.runtime:  # as for SWF (to_jobs): raised and counted
            job.estimate = job.runtime
            raised += 1
    unit = header.allocation_unit() or 1
    if size % unit:
        raise InputError(f"{path}: machine size {size} is not a multiple of the file's "
                         f"AllocationUnit {unit}")
    machine = Machine(size, unit=unit)
    # As for SWF (to_jobs): a job larger than the machine is dropped and counted.
    kept = [job for job in jobs if machine.round_up(job.procs) <= size]
    report = CleaningReport(records=len(jobs), kept=len(kept),
                            dropped_procs_too_large=len(jobs) - len(kept),
                            estimate_raised=raised)
    if estimates == "exact":
        report.estimate_exact = len(kept)
    if not kept:
        raise InputError(f"{path}: no job fits the machine of {size} processors")
    return Workload(str(path), kept, machine, changes, {}, report, header)
