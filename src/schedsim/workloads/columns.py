"""A plain SWF workload held in columns, for ``schedsim simulate``'s whole process.

``load_workload`` makes one ``SwfRecord`` and one ``Job`` per line; on a log of 200,000
jobs that is most of a run's time and memory. ``load_columns`` reads the same file into
arrays (``swf.read_swf_table``), applies the same cleaning rules (``swf.to_jobs``, counted
the same way), and keeps the kept lines' 18 fields for writing the schedule back
(``swf_lines``: the same text as ``cli.schedule_swf``). Files it does not cover (CWF, the
moldable and hyperexp files of our generators) and every error case return None: the
line-by-line path then reads them, with its messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.workloads.swf import N_FIELDS, CleaningReport, SwfTable, format_number, read_swf_table

_SUBMIT, _WAIT, _RUN, _ALLOC, _REQ_PROCS, _REQ_TIME = 1, 2, 3, 4, 7, 8
_ID, _USER, _GROUP, _APP, _QUEUE, _PARTITION = 0, 11, 12, 13, 14, 15


@dataclass
class ColumnWorkload:
    """The kept jobs of an SWF file as columns (file order), with the rows they came from."""

    path: str
    table: SwfTable
    rows: np.ndarray  # the kept job lines' 18 fields
    procs: np.ndarray  # processors requested (field 8, else field 5)
    estimate: np.ndarray
    machine: Machine
    report: CleaningReport

    @property
    def submit(self) -> np.ndarray:
        return self.rows[:, _SUBMIT]

    @property
    def runtime(self) -> np.ndarray:
        return self.rows[:, _RUN]

    def jobs(self) -> list[Job]:
        """The jobs ``swf.to_jobs`` makes of the same lines."""
        rows = self.rows
        ints = [rows[:, i].astype(np.int64).tolist()
                for i in (_ID, _USER, _GROUP, _APP, _QUEUE, _PARTITION)]
        ids, users, groups, apps, queues, partitions = ints
        return [Job(id=i, submit=s, runtime=r, procs=p, estimate=e, user=u, group=g, app=a,
                    queue=q, partition=pa)
                for i, s, r, p, e, u, g, a, q, pa in zip(
                    ids, rows[:, _SUBMIT].tolist(), rows[:, _RUN].tolist(),
                    self.procs.tolist(), self.estimate.tolist(), users, groups, apps, queues,
                    partitions, strict=True)]


def load_columns(path: str | Path, procs: int | None = None,
                 estimates: str = "requested") -> ColumnWorkload | None:
    """The plain SWF file ``path`` in columns, or None where ``load_workload`` must read it
    (module docstring). ``procs`` and ``estimates`` as in ``load_workload``."""
    from schedsim.workloads.load import _special_reader

    path = Path(path)
    if path.name.endswith((".cwf", ".cwf.gz", ".json")) or not path.exists() or estimates not in (
            "requested", "exact"):
        return None
    table = read_swf_table(path)
    values = table.values
    if values.shape[0] == 0 or _special_reader(table.log()) is not None:
        return None
    if np.unique(values[:, _ID]).shape[0] != values.shape[0]:
        return None  # duplicate ids: the line reader names both lines
    size = procs or table.log().max_procs() or int(
        max(values[:, _REQ_PROCS].max(), values[:, _ALLOC].max()))
    if size <= 0:
        return None
    kept, wanted, estimate, report = _clean(values, size, estimates)
    if not kept.any():
        return None
    if kept.all():  # no copies of the columns
        return ColumnWorkload(str(path), table, values, wanted, estimate, Machine(size),
                              report)
    return ColumnWorkload(str(path), table, values[kept], wanted[kept], estimate[kept],
                          Machine(size), report)


def _clean(values: np.ndarray, machine_procs: int, estimates: str
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, CleaningReport]:
    """``swf.to_jobs``'s rules on columns: (kept lines, processors, estimates, counts)."""
    run = values[:, _RUN]
    wanted = np.where(values[:, _REQ_PROCS] > 0, values[:, _REQ_PROCS],
                      values[:, _ALLOC]).astype(np.int64)
    no_run = run <= 0
    no_procs = ~no_run & (wanted <= 0)
    too_wide = ~no_run & ~no_procs & (wanted > machine_procs)
    kept = ~(no_run | no_procs | too_wide)
    report = CleaningReport(records=values.shape[0], kept=int(kept.sum()),
                            dropped_runtime=int(no_run.sum()),
                            dropped_procs_nonpositive=int(no_procs.sum()),
                            dropped_procs_too_large=int(too_wide.sum()))
    if estimates == "exact":
        estimate = run.copy()
        report.estimate_exact = report.kept
    else:
        requested = values[:, _REQ_TIME]
        raised = kept & (requested < run)
        estimate = np.where(raised, run, requested)
        report.estimate_raised = int(raised.sum())
    return kept, wanted, estimate, report


def swf_lines(rows: np.ndarray, start: np.ndarray, end: np.ndarray, procs: np.ndarray,
              chunk: int = 8_192) -> Iterator[str]:
    """The job lines of a schedule, ``chunk`` lines to a string (each ending with a
    newline), made as they are consumed: each kept line's 18 fields with field 3 the
    wait, 4 the run time and 5 the processors (``cli.schedule_swf``, number for number).
    Only one chunk's per-field strings are alive at a time."""
    for first in range(0, rows.shape[0], chunk):
        part = rows[first:first + chunk].copy()
        part[:, _WAIT] = start[first:first + chunk] - part[:, _SUBMIT]
        part[:, _RUN] = end[first:first + chunk] - start[first:first + chunk]
        part[:, _ALLOC] = procs[first:first + chunk]
        columns = [_formatted(part[:, i]) for i in range(N_FIELDS)]
        yield "\n".join(map(" ".join, zip(*columns, strict=True))) + "\n"


def _formatted(column: np.ndarray) -> list[str]:
    """``swf.format_number`` of every value: integers through int64, the rest one by one."""
    integral = column == np.floor(column)
    if integral.all():
        return list(map(str, column.astype(np.int64).tolist()))
    out = list(map(str, np.where(integral, column, 0).astype(np.int64).tolist()))
    for i in np.flatnonzero(~integral).tolist():
        out[i] = format_number(float(column[i]))
    return out
