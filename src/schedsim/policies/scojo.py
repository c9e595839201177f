"""Scojo-PECT coarse-grain time slicing (Jin 2009, sec. 4.4 and 5.1), conservative inside.

* Jobs fall into classes by estimate: short (< 600 s), medium (< 10,800 s), long.
* Time runs in intervals of 3,600 s from t = 0. An interval at whose start a short job
  waits or is suspended begins with a short slice of ``short_slice`` seconds; the rest is
  shared by medium (30%) and long (70%) slices, in that order (without a short slice:
  1,080 s and 2,520 s).
* Each class is a virtual machine of all processors with its own conservative profile in
  the class's own time, which advances only during the class's slices. A job that started
  stays bound to its class.
* At a slice end every running job is suspended ("preempted"); at a slice begin the
  class's suspended jobs resume, its waiting jobs start at their conservative slots, and
  then non-type backfilling (``nontype``) starts or resumes, first fit in arrival order:
  waiting short jobs that end inside the slice; suspended jobs of other classes; waiting
  medium and long jobs of other classes whose slot in their own class is now. Each must
  fit in the free processors until the earlier of its end and the slice's end without
  moving a reservation of the slice's class.

Open points (docs/deviations-slack.md): the short slice's length, slice order, processors
counted rather than identified ("restarted on the same resources"), ``nontype``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from schedsim.engine import Decision, EngineView, Resume, Start, Suspend, WakeUp
from schedsim.jobs import Job
from schedsim.kernel.whole import (
    Columns,
    Outcome,
    in_workload_order,
    job_columns,
    models_rigid,
    schedule_of,
)
from schedsim.machine import Machine
from schedsim.policies.base import QueuePolicy
from schedsim.policies.profile import Profile
from schedsim.policies.registry import register_policy, setting
from schedsim.policies.slack import (
    SlackSelector,
    SlackSettings,
    compress,
    fairness_statistics,
    past_bound,
    selector_statistics,
)
from schedsim.schedule import Schedule

SHORT, MEDIUM, LONG = 0, 1, 2
CLASS_NAMES = ("short", "medium", "long")
NONTYPE_ALL, NONTYPE_SHORT, NONTYPE_NONE = "all", "short", "none"
FIRST_FIT, SLACK = "first_fit", "slack"  # how non-type backfilling chooses


@dataclass(frozen=True)
class ScojoSettings:
    """Scojo-PECT's calendar (thesis sec. 4.4, 5.1) and its open points."""

    short_limit: float = setting(600.0, "estimates below this are short (s; 'ten minutes')",
                                 low=0.0)
    medium_limit: float = setting(10_800.0, "estimates below this are medium (s; 'three "
                                  "hours')", low=0.0)
    interval: float = setting(3_600.0, "length of the calendar's interval (s; 'one hour')",
                              low=1e-9)
    short_slice: float = setting(600.0, "the short slice, when a short job waits at an "
                                 "interval's start (s; open)", low=0.0)
    medium_share: float = setting(0.3, "medium's share of the rest of the interval (long: "
                                  "the remainder)", low=0.0, high=1.0)
    nontype: str = setting(NONTYPE_ALL, "non-type backfilling: all (short jobs, suspended "
                           "and due jobs of other classes), short (waiting short jobs "
                           "only), none", choices=(NONTYPE_ALL, NONTYPE_SHORT, NONTYPE_NONE))
    compiled: bool = setting(True, "run the compiled path where it models the run (rigid "
                             "batch jobs on one partition of processors of speed 1); false: "
                             "the Python policy in the engine, the same schedule, slower")


@dataclass(frozen=True)
class ScojoSlackSettings(SlackSettings, ScojoSettings):
    """Scojo-PECT with slack-based fair backfilling in every class (thesis sec. 4.3-4.4)."""

    nontype_selection: str = setting(
        SLACK, "how non-type backfilling chooses among its candidates: slack = the branch "
        "and bound with the slack check of the slice's class (sec. 4.4: the slack method "
        "'is applied to all three kinds of backfilling'), first fit when no set passes; "
        "first_fit = first fit in arrival order, moving no reservation",
        choices=(SLACK, FIRST_FIT))


@dataclass(frozen=True)
class Slice:
    """One slice of the calendar: its class and its real-time span."""

    klass: int
    begin: float
    end: float


class ScojoPECT(QueuePolicy[ScojoSettings]):
    """Scojo-PECT with conservative backfilling inside every class (module docstring)."""

    def __init__(self, settings: ScojoSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.capacity = machine.partitions[0]
        self.queues: list[list[Job]] = [[], [], []]  # the waiting jobs of each class
        self.queue_sizes: list[list[int]] = [[], [], []]  # and their sizes
        self.class_of: dict[int, int] = {}
        # conservative selection: each waiting job's reservation in its class's time (NaN:
        # none yet), in queue order
        self.queue_slots: list[list[float]] = [[], [], []]
        self.started: dict[int, float] = {}  # job index -> its start, in its class's time
        self.has_short: dict[int, bool] = {}
        self._slices: dict[int, list[Slice]] = {}
        self.clock = [0.0, 0.0, 0.0]  # each class's own time at ``self.clock_at``
        self.clock_at = 0.0
        self.wake_at = -math.inf
        self.exact = True  # every job's estimate is its run time (the bound is promised)
        # slack selection: one selector per class, in the class's own time
        self.selectors = ([SlackSelector(settings, self.size, self.capacity)
                           for _ in CLASS_NAMES]
                          if isinstance(settings, SlackSettings) else None)

    def size(self, job: Job) -> int:
        return self.machine.round_up(job.procs)

    def simulate_compiled(self, jobs: Sequence[Job], load_model: object = None
                          ) -> Schedule | None:
        """The whole run on the compiled engine (``policies.compiled.scojo``: this policy's
        schedule and statistics under the engine, ``tests/test_compiled_conformance.py``),
        or None where it does not model the run: anything but rigid batch jobs on one
        partition of processors of speed 1."""
        if (self.queue or load_model is not None or len(self.machine.partitions) > 1
                or not models_rigid(jobs, self.machine)):
            return None
        from schedsim.policies.compiled import scojo, slack

        cols = job_columns(jobs, self.machine.unit)
        settings = self.settings
        slack_selection = isinstance(settings, SlackSettings)
        klass = self._classes(jobs, cols)
        constants = (slack.slack_constants(settings) if slack_selection
                     else slack.SlackConstants(1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1, False, False, 1))
        found, fair, started, submitted, full_slack, calls, nodes, hits = scojo.scojo_run(
            cols.submit, cols.runtime, cols.estimate, cols.size, klass, self.capacity,
            scojo.calendar(settings, slack_selection), constants)
        statistics = ({**fairness_statistics(fair, started, int(calls.sum()), int(nodes.sum()),
                                             int(hits.sum())),
                       **class_unfairness(fair, started, klass)} if slack_selection else {})
        if slack_selection and np.array_equal(cols.estimate, cols.runtime):
            statistics |= past_bound(*(in_workload_order(values, cols) for values in
                                       (fair, started, submitted, full_slack)))
        return schedule_of(Outcome.of(found), cols, self.machine, jobs, statistics)

    def statistics(self) -> dict[str, float]:
        """With slack selection: fairness counts in class time and search effort, and with
        exact estimates the jobs past the start bound (``past_bound``)."""
        if self.selectors is None:
            return {}
        return {**selector_statistics(self.selectors, self.started, self.exact),
                **{f"unfair_{name}": selector_statistics([selector], self.started,
                                                         False)["unfair"]
                   for name, selector in zip(CLASS_NAMES, self.selectors, strict=True)}}

    def _classes(self, jobs: Sequence[Job], cols: Columns) -> np.ndarray:
        """:meth:`klass` of every job, in arrival order (a new run: by estimate)."""
        if self.class_of:
            return np.array([self.klass(jobs[i]) for i in cols.order.tolist()], np.int64)
        return np.asarray(self.class_by_estimate(cols.estimate), np.int64)

    def klass(self, job: Job) -> int:
        known = self.class_of.get(job.index)
        if known is not None:
            return known
        return int(self.class_by_estimate(job.estimate))

    def class_by_estimate(self, estimate: float | np.ndarray) -> int | np.ndarray:
        """Short below ``short_limit``, medium below ``medium_limit``, else long (one
        estimate or an array of them)."""
        return np.where(estimate < self.settings.short_limit, SHORT,
                        np.where(estimate < self.settings.medium_limit, MEDIUM, LONG))

    def submit(self, job: Job, view: EngineView) -> None:
        self.exact = self.exact and job.estimate == job.runtime
        self.class_of[job.index] = self.klass(job)
        if self.selectors is not None:  # the fair start time, in the job's class time
            self._advance_clocks(view.now)
            c = self.klass(job)
            ends = self._own_jobs_ends(view, c)
            number = math.floor(view.now / self.settings.interval)
            if number in self.has_short:  # inside c's slice, other classes' jobs run too
                piece = self.slice_at(view.now)
                if piece.klass == c and view.now > piece.begin:
                    for record in view.running.values():
                        if self.klass(record.job) != c:
                            span = min(max(record.est_end - view.now, 0.0), piece.end - view.now)
                            ends.append((self.clock[c] + span, record.procs))
            base = Profile.holding(self.clock[c], self.capacity, ends)
            slot = self.selectors[c].admit(job, base, self.queues[c], self.queue_slots[c],
                                           self.clock[c])
        else:  # conservative selection: a slot at the class's next compression
            slot = math.nan
        self.queues[self.klass(job)].append(job)
        self.queue_sizes[self.klass(job)].append(self.size(job))
        self.queue_slots[self.klass(job)].append(slot)
        super().submit(job, view)

    # -- the calendar -------------------------------------------------------------------
    def slices(self, number: int) -> list[Slice]:
        """The slices of interval ``number`` (its short slice only if decided so)."""
        known = self._slices.get(number)
        if known is not None:
            return known
        out = self._make_slices(number)
        if number in self.has_short:  # decided: the slices stay as they are
            self._slices[number] = out
        return out

    def _make_slices(self, number: int) -> list[Slice]:
        s = self.settings
        begin = number * s.interval
        first = begin
        out = []
        if self.has_short.get(number, False):
            first = begin + min(s.short_slice, s.interval)
            out.append(Slice(SHORT, begin, first))
        middle = first + s.medium_share * (begin + s.interval - first)
        out += [Slice(MEDIUM, first, middle), Slice(LONG, middle, begin + s.interval)]
        return [piece for piece in out if piece.end > piece.begin]

    def slice_at(self, now: float) -> Slice:
        number = math.floor(now / self.settings.interval)
        return next(p for p in self.slices(number) if p.begin <= now < p.end)

    def _advance_clocks(self, now: float) -> None:
        """Add the time since the last call to the classes whose slices it spanned."""
        t = self.clock_at
        while t < now:
            piece = self.slice_at(t)
            step = min(piece.end, now) - t
            self.clock[piece.klass] += step
            t += step
        self.clock_at = now

    # -- one call -------------------------------------------------------------------------
    def schedule(self, view: EngineView) -> list[Decision]:
        now = view.now
        number = math.floor(now / self.settings.interval)
        if number not in self.has_short:
            at_start = now == number * self.settings.interval
            self.has_short[number] = at_start and self._short_pending(view)
        self._advance_clocks(now)
        piece = self.slice_at(now)
        decisions: list[Decision] = []
        free = view.free[0]
        bound_here: list[tuple[Job, float]] = []  # (job, remaining estimate) running now
        suspended = {i: p for i, p in view.suspended.items()}
        if now == piece.begin:  # a slice boundary: preempt everything that runs
            for record in view.running.values():
                decisions.append(Suspend(record.job))
                free += record.procs
                suspended[record.job.index] = _Paused(record.job, record.procs,
                                                      max(record.est_end - now, 0.0))
            for index in sorted(suspended, key=lambda i: _arrival(suspended[i].job)):
                paused = suspended[index]
                if self.klass(paused.job) == piece.klass and paused.procs <= free:
                    decisions.append(Resume(paused.job))
                    free -= paused.procs
                    bound_here.append((paused.job, paused.est_left))
                    del suspended[index]
        else:
            bound_here = [(r.job, max(r.est_end - now, 0.0)) for r in view.running.values()]
        free = self._select(view, piece, free, bound_here, suspended, decisions)
        busy = any(isinstance(d, Start | Resume) for d in decisions)
        pending = self.queue or suspended or view.running or busy
        if pending and (self.wake_at <= now or piece.end < self.wake_at):
            self.wake_at = piece.end
            decisions.append(WakeUp(piece.end))
        return decisions

    def _select(self, view: EngineView, piece: Slice, free: int,
                bound_here: list[tuple[Job, float]], suspended: dict,
                decisions: list[Decision]) -> int:
        """The class's own starts, then non-type backfilling; returns free."""
        now, c = view.now, piece.klass
        left_in_slice = piece.end - now
        clock, class_of = self.clock[c], self.class_of
        ends = [(clock + (remaining if class_of[job.index] == c
                          else min(remaining, left_in_slice)), self.size(job))
                for job, remaining in bound_here]
        # the class's own suspended jobs hold their place
        ends += [(clock + paused.est_left, paused.procs) for paused in suspended.values()
                 if class_of[paused.job.index] == c]
        profile = Profile.holding(clock, self.capacity, ends)
        started: set[int] = set()
        mine = self.queues[c]
        starts, placed = self._place_class(c, profile, free, mine)
        for job, start, size in zip(mine, starts, self.queue_sizes[c], strict=True):
            if start <= clock and size <= free:
                decisions.append(Start(job, size))
                self.started[job.index] = clock
                started.add(job.index)
                free -= size
        with_own_starts = _holding_starts(profile, clock, mine, self.queue_sizes[c], started)
        free = self._nontype(view, piece, free, placed, with_own_starts, suspended, started,
                             decisions)
        if started:
            self.queue = [job for job in self.queue if job.index not in started]
            for c, queue in enumerate(self.queues):
                kept = [k for k, job in enumerate(queue) if job.index not in started]
                if len(kept) < len(queue):
                    self.queues[c] = [queue[k] for k in kept]
                    self.queue_sizes[c] = [self.queue_sizes[c][k] for k in kept]
                    self.queue_slots[c] = [self.queue_slots[c][k] for k in kept]
        return free

    def _place_class(self, c: int, profile: Profile, free: int,
                     mine: list[Job]) -> tuple[list[float], Callable[[], Profile]]:
        """Class ``c``'s waiting jobs placed by its selection (conservative or slack), the
        plan the class keeps: their starts in class time, and a function that gives the
        profile holding them all (built only when non-type backfilling needs it)."""
        clock = self.clock[c]
        if not mine:
            return [], lambda: profile
        if self.selectors is None:
            return self._place_class_conservatively(profile, c, clock)
        placement = self.selectors[c].select(clock, profile, free, mine,
                                             self.queue_slots[c])
        starts = [placement[job.index] for job in mine]
        self.queue_slots[c] = starts

        def placed() -> Profile:
            out = profile.copy()
            for job, start in zip(mine, starts, strict=True):
                out.reserve(start, start + job.estimate, self.size(job))
            return out

        return starts, placed

    def _nontype(self, view: EngineView, piece: Slice, free: int,
                 placed: Callable[[], Profile], with_own_starts: Callable[[], Profile],
                 suspended: dict, started: set[int], decisions: list[Decision]) -> int:
        """Non-type backfilling in the slice of class ``piece.klass`` (module docstring):
        its candidates, chosen by slack (``nontype_selection``) or first fit; returns
        free. ``placed``: the class's profile holding its plan; ``with_own_starts``:
        holding only the jobs it started now."""
        mode = self.settings.nontype
        if mode == NONTYPE_NONE or free <= 0:  # nothing fits (a job needs a processor)
            return free
        c = piece.klass
        left = piece.end - view.now
        candidates = self._nontype_candidates(view, c, left, free, suspended)
        if not candidates:
            return free
        chosen = None
        if (isinstance(self.settings, ScojoSlackSettings)
                and self.settings.nontype_selection == SLACK):
            chosen = self._nontype_by_slack(c, left, free, candidates, with_own_starts(),
                                            started)
        if chosen is None:
            chosen = self._first_fit(c, left, free, candidates, placed())
        for job, _, paused in chosen:
            decisions.append(Resume(job) if paused else Start(job, self.size(job)))
            if not paused:
                started.add(job.index)
                self.started[job.index] = self.clock[self.klass(job)]
            else:
                del suspended[job.index]
            free -= self.size(job)
        return free

    def _nontype_candidates(self, view: EngineView, c: int, left: float, free: int,
                            suspended: dict) -> list[tuple[Job, float, bool]]:
        """(job, remaining estimate, suspended) in arrival order: waiting short jobs that
        end inside the slice; with ``nontype: all`` also the due jobs of the other classes
        (``_due_elsewhere``; suspended at the slice's end) and their suspended jobs."""
        mode = self.settings.nontype
        due = self._due_elsewhere(view, c, free) if mode == NONTYPE_ALL else set()
        candidates: list[tuple[Job, float, bool]] = []
        if c != SHORT:
            candidates += [(job, job.estimate, False) for job in self.queues[SHORT]
                           if job.estimate <= left]
        for d in (MEDIUM, LONG):
            if d != c and due:
                candidates += [(job, job.estimate, False) for job in self.queues[d]
                               if job.index in due]
        if mode == NONTYPE_ALL:
            candidates += [(p.job, p.est_left, True) for p in suspended.values()
                           if self.klass(p.job) != c]
        candidates.sort(key=lambda item: _arrival(item[0]))
        return candidates

    def _first_fit(self, c: int, left: float, free: int,
                   candidates: list[tuple[Job, float, bool]],
                   profile: Profile) -> list[tuple[Job, float, bool]]:
        """The candidates that fit, in arrival order, each in the free processors until
        the earlier of its end and the slice's end without moving a reservation of class
        ``c`` (``profile`` holds its plan)."""
        clock = self.clock[c]
        chosen = []
        for candidate in candidates:
            job, remaining, _ = candidate
            size = self.size(job)
            span = min(remaining, left)
            if size > free or profile.earliest(size, span, clock) != clock:
                continue
            profile.reserve(clock, clock + span, size)
            chosen.append(candidate)
            free -= size
        return chosen

    def _nontype_by_slack(self, c: int, left: float, free: int,
                          candidates: list[tuple[Job, float, bool]], profile: Profile,
                          started: set[int]) -> list[tuple[Job, float, bool]] | None:
        """Slack-based non-type backfilling (``SlackSelector.search_backfill``): the best
        set of candidates by the goal whose start delays no waiting job of class ``c``
        past its bound (``profile`` holds the jobs class ``c`` started now); class ``c``
        keeps the placement the check computed. None if no set passes."""
        assert self.selectors is not None
        clock = self.clock[c]
        waiting = [job for job in self.queues[c] if job.index not in started]
        best = self.selectors[c].search_backfill(
            clock, profile, free,
            [(self.size(job), min(remaining, left)) for job, remaining, _ in candidates],
            waiting)
        if best is None:
            return None
        self.queue_slots[c] = [best.placement.get(job.index, slot) for job, slot
                               in zip(self.queues[c], self.queue_slots[c], strict=True)]
        return [candidates[position] for position in best.chosen]

    def _due_elsewhere(self, view: EngineView, current: int, free: int) -> set[int]:
        """Waiting medium and long jobs of other classes whose slot in the plan their own
        class keeps (``_kept_plan``) is now (only classes with a job of at most ``free``
        processors)."""
        due: set[int] = set()
        for d in (MEDIUM, LONG):
            if d == current or not self.queues[d] or min(self.queue_sizes[d]) > free:
                continue
            clock = self.clock[d]
            due.update(job.index for job, start in zip(self.queues[d], self._kept_plan(view, d),
                                                       strict=True)
                       if start <= clock)
        return due

    def _kept_plan(self, view: EngineView, d: int) -> list[float]:
        """The plan class ``d`` keeps between its slices, in its own time (per waiting
        job, in queue order): under conservative selection its reservations, compressed
        (``compress``; a job that arrived since gets its slot here); under slack selection
        the slots as committed, held as they are (a past slot counts as now): each
        selection of the class commits its placement (``SlackSelector.select``), a
        slack-based non-type backfilling in the class's slice the placement its check
        computed, and an admission the new job's earliest slot around the plan."""
        starts, _ = compress(self._own_jobs_profile(view, d), self.queues[d],
                              self.queue_sizes[d], self.queue_slots[d], self.clock[d],
                              keep=self.selectors is not None)
        self.queue_slots[d] = starts
        return starts

    def _place_class_conservatively(self, profile: Profile, c: int, clock: float
                                    ) -> tuple[list[float], Callable[[], Profile]]:
        """Class ``c``'s waiting jobs by conservative backfilling in class time, keeping
        their reservations (a slot never moves later; a job that left the queue out of
        turn, by non-type backfilling, frees its slot): their starts, and a function that
        gives the profile holding them all."""
        starts, placed = compress(profile, self.queues[c], self.queue_sizes[c],
                                  self.queue_slots[c], clock)
        self.queue_slots[c] = starts
        return starts, lambda: placed

    def _own_jobs_profile(self, view: EngineView, c: int) -> Profile:
        """Class ``c``'s profile in its own time, holding its started jobs (running or
        suspended) for their remaining estimates."""
        return Profile.holding(self.clock[c], self.capacity, self._own_jobs_ends(view, c))

    def _own_jobs_ends(self, view: EngineView, c: int) -> list[tuple[float, int]]:
        clock, class_of, now = self.clock[c], self.class_of, view.now
        ends = [(clock + max(record.est_end - now, 0.0), record.procs)
                for record in view.running.values() if class_of[record.job.index] == c]
        ends += [(clock + paused.est_left, paused.procs) for paused in view.suspended.values()
                 if class_of[paused.job.index] == c]
        return ends

    def _short_pending(self, view: EngineView) -> bool:
        return (any(self.klass(job) == SHORT for job in self.queue)
                or any(self.klass(p.job) == SHORT for p in view.suspended.values()))


def _holding_starts(profile: Profile, clock: float, jobs: list[Job], sizes: list[int],
                    started: set[int]) -> Callable[[], Profile]:
    """A function that gives a copy of ``profile`` holding the ``started`` of ``jobs``
    from ``clock`` for their estimates (``started`` read now: it grows later)."""
    held = [(job.estimate, size) for job, size in zip(jobs, sizes, strict=True)
            if job.index in started]

    def holding() -> Profile:
        out = profile.copy()
        for estimate, size in held:
            out.reserve(clock, clock + estimate, size)
        return out

    return holding


@dataclass(frozen=True)
class _Paused:
    """A job this call suspends, as the rest of the call sees it."""

    job: Job
    procs: int
    est_left: float


def _arrival(job: Job) -> tuple[float, int]:
    return (job.submit, job.index)


register_policy("scojo-conservative", "slack", "Scojo-PECT time slicing (short, medium, long "
                "virtual machines in an hourly calendar) with conservative backfilling in "
                "each class (Jin 2009, sec. 4.4)", ScojoSettings)(ScojoPECT)
register_policy("scojo-slack", "slack", "Scojo-PECT time slicing with slack-based fair "
                "backfilling (branch and bound, goals G1/G2) in each class (Jin 2009, sec. "
                "4.3-4.4)", ScojoSlackSettings)(ScojoPECT)


def class_unfairness(fair: np.ndarray, started: np.ndarray, klass: np.ndarray
                     ) -> dict[str, float]:
    """The unfair jobs of each class (sec. 5.4: "about 500 of the 800 are medium"), from
    per-job FSTs and ASTs in class time and the jobs' classes."""
    return {f"unfair_{name}": fairness_statistics(fair[klass == c], started[klass == c],
                                                  0, 0, 0)["unfair"]
            for c, name in enumerate(CLASS_NAMES)}
