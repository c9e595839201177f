"""The jobs of a rigid SWF file in columns, cleaned, and a schedule written back from them.

A log of 200,000 jobs as one ``SwfRecord`` and one ``Job`` per line costs most of a run's
time and memory; held as arrays it costs little, and FCFS, EASY and conservative
backfilling run on the arrays directly (``schedsim simulate``). :func:`clean` applies the
cleaning rules of docs/deviations.md (invalid SWF jobs) to the table of a file, every rule
counted in a :class:`CleaningReport`; :meth:`JobColumns.jobs` makes the ``Job`` objects
when a run needs them; :func:`swf_lines` writes the schedule back with each job's own
line (fields 3, 4 and 5 replaced).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from schedsim.errors import InputError
from schedsim.jobs import ColumnJobs, Job, JobFields
from schedsim.workloads.swf import CleaningReport, SwfColumns, SwfTable, format_number

_ID, _SUBMIT, _WAIT, _RUN, _ALLOC, _REQ_PROCS, _REQ_TIME = 0, 1, 2, 3, 4, 7, 8
_USER, _GROUP, _APP, _QUEUE, _PARTITION = 11, 12, 13, 14, 15
ESTIMATES = ("requested", "exact")


@dataclass
class JobColumns:
    """The kept jobs of an SWF file as columns (file order), with the lines they came from."""

    rows: SwfColumns  # the kept job lines' 18 fields
    submit: np.ndarray
    runtime: np.ndarray
    procs: np.ndarray  # processors requested (field 8, else field 5)
    estimate: np.ndarray

    def jobs(self) -> ColumnJobs:
        """The rows as rigid batch jobs held as columns (``jobs.ColumnJobs``), whose
        objects, when made, carry the SWF fields 12-16 too."""
        return ColumnJobs(JobFields(np.asarray(self.rows.fields[_ID], np.int64), self.submit,
                                    self.runtime, self.procs, self.estimate), self._objects)

    def _objects(self) -> list[Job]:
        """One ``Job`` per row, with Python ints and floats, ``index`` its position."""
        ints = [np.asarray(self.rows.fields[i], np.int64).tolist()
                for i in (_ID, _USER, _GROUP, _APP, _QUEUE, _PARTITION)]
        ids, users, groups, apps, queues, partitions = ints
        return [Job(id=i, submit=s, runtime=r, procs=p, estimate=e, user=u, group=g, app=a,
                    queue=q, partition=pa, index=k)
                for k, (i, s, r, p, e, u, g, a, q, pa) in enumerate(zip(
                    ids, self.submit.tolist(), self.runtime.tolist(), self.procs.tolist(),
                    self.estimate.tolist(), users, groups, apps, queues, partitions,
                    strict=True))]


def check_unique_ids(table: SwfTable) -> None:
    """Job ids must be unique (a schedule is written back by id): the first repeated id
    is an error naming both lines."""
    ids = table.columns.fields[_ID]
    if ids.shape[0] < 2 or (ids[1:] > ids[:-1]).all():  # increasing: the usual case
        return
    unique, first = np.unique(ids, return_index=True)
    if unique.shape[0] == ids.shape[0]:
        return
    repeated = np.ones(ids.shape[0], bool)
    repeated[first] = False
    again = int(np.flatnonzero(repeated)[0])
    job = ids[again]
    earlier = int(np.flatnonzero(ids == job)[0])
    line, seen = int(table.line_numbers[again]), int(table.line_numbers[earlier])
    raise InputError(f"{table.path}:{line}: field 1 (job number): job {int(job)} appears "
                     f"again (first at line {seen}); job ids must be unique")


def clean(table: SwfTable, machine_procs: int, estimates: str
          ) -> tuple[JobColumns, CleaningReport]:
    """The jobs the simulator can run, and what each rule dropped or changed:

    * processors = field 8 (requested) when > 0, else field 5 (allocated);
    * drop jobs with run time <= 0, processors <= 0, processors > machine, or an unknown
      submit time (-1: it cannot be placed in time);
    * ``estimates="requested"``: estimate = field 9, raised to the run time when missing
      or below it (counted); ``"exact"``: estimate = run time.
    """
    if estimates not in ESTIMATES:
        raise InputError(f"estimates={estimates!r}; allowed: {', '.join(ESTIMATES)}")
    rows = table.columns
    run, submit = rows.column(_RUN), rows.column(_SUBMIT)
    requested_procs = rows.fields[_REQ_PROCS]
    wanted = np.where(requested_procs > 0, requested_procs, rows.fields[_ALLOC]).astype(np.int64)
    no_run = run <= 0
    no_procs = ~no_run & (wanted <= 0)
    too_wide = ~no_run & ~no_procs & (wanted > machine_procs)
    no_submit = ~no_run & ~no_procs & ~too_wide & (submit < 0)
    kept = ~(no_run | no_procs | too_wide | no_submit)
    report = CleaningReport(records=len(rows), kept=int(kept.sum()),
                            dropped_runtime=int(no_run.sum()),
                            dropped_procs_nonpositive=int(no_procs.sum()),
                            dropped_procs_too_large=int(too_wide.sum()),
                            dropped_submit_unknown=int(no_submit.sum()))
    if estimates == "exact":
        estimate = run
        report.estimate_exact = report.kept
    else:
        requested = rows.column(_REQ_TIME)
        raised = kept & (requested < run)
        report.estimate_raised = int(raised.sum())
        # every estimate raised (a file without requested times): the run times themselves
        estimate = run if report.estimate_raised == len(run) else np.where(raised, run,
                                                                            requested)
    if kept.all():  # no copies of the columns
        return JobColumns(rows, submit, run, wanted, estimate), report
    return JobColumns(rows.take(kept), submit[kept], run[kept], wanted[kept],
                      estimate[kept]), report


def swf_lines(rows: SwfColumns, start: np.ndarray, end: np.ndarray, procs: np.ndarray,
              chunk: int = 8_192) -> Iterator[bytes]:
    """The job lines of a schedule as ASCII text, ``chunk`` lines to a piece (each ending
    with a newline), made as they are consumed: each job's line of 18 fields with field 3
    the wait, 4 the run time and 5 the processors. Only one chunk's text is alive at a
    time."""
    for first in range(0, len(rows), chunk):
        part = rows.rows(first, first + chunk)
        part[:, _WAIT] = start[first:first + chunk] - part[:, _SUBMIT]
        part[:, _RUN] = end[first:first + chunk] - start[first:first + chunk]
        part[:, _ALLOC] = procs[first:first + chunk]
        yield formatted_rows(part)


def formatted_rows(values: np.ndarray) -> bytes:
    """Lines of ``swf.format_number`` of every value (rows x fields, space-separated):
    integers below 2^63 in compiled code, the other values one by one."""
    from schedsim.kernel import ahead
    from schedsim.workloads.swf_scan import KERNELS

    values = np.ascontiguousarray(values, np.float64)
    integers = (values == np.floor(values)) & (np.abs(values) < _INT64_LIMIT)
    given = np.flatnonzero(~integers)
    texts = [format_number(value) for value in values.ravel()[given].tolist()]
    ends = np.cumsum([len(text) for text in texts], dtype=np.int64)
    text = np.frombuffer("".join(texts).encode("ascii"), np.uint8)
    return ahead.functions(KERNELS).format_rows(values, given, text, ends).tobytes()


_INT64_LIMIT = 2.0**63
