"""LOS, Delayed-LOS, Hybrid-LOS and their -D / -E comparators.

Sources: the LOS paper (Kumar, Shae & Jamjoom, "Scheduling batch and
heterogeneous jobs with runtime elasticity in a parallel processing
environment", IPDPSW 2012), sec. III-V and Algorithms 1-3, which builds on
Shmueli & Feitelson's Lookahead Optimizing Scheduler (JSSPP 2003, JPDC 2005);
docs/deviations-los.md Every decision on an open point is in
docs/deviations-los.md.

Shared rules of the family:

* Batch jobs wait in arrival order. Sizes are counted in units of the
  machine's allocation unit (``Machine.unit``: 32 on the paper's 320-processor
  machine, 1 on traces), so the packing DPs work on at most 10 units there.
* Decisions use estimates: a running job is expected to end at ``est_end``.
* One scheduling call of the engine is one scheduling cycle of the paper. A
  cycle first starts every queue head that must start (LOS: any head that fits;
  Delayed-LOS: a head that fits and has been skipped ``c_s`` times), then runs
  at most one packing DP over the first ``lookahead`` jobs of the queue.
* A job still running at a freeze end time (shadow time) holds its size there
  when ``now + estimate >= freeze time`` (LOS paper, Algorithm 1, line 16).
* These policies use partition 0 of the machine.

The "-E" names (EASY-E, LOS-E, Delayed-LOS-E, EASY-DE, LOS-DE, Hybrid-LOS-E)
are the same schedulers: in the paper an "-E" algorithm is its base algorithm
with the ECC processor appended (sec. III-C, Fig. 3, Table III), and in this
simulator the engine is that processor. It applies every elastic control
command (:class:`schedsim.jobs.RuntimeChange`) to the waiting or running job
(new run time, estimate and, for a running job, estimated end) and then calls
``change`` and ``schedule`` at that instant; every policy here recomputes its
reservations from the live estimates at each call, so it re-plans at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedsim.engine import Decision, EngineView, RunningJob, Start
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.backfill import EASY, Reservation, shadow_and_extra
from schedsim.policies.base import QueuePolicy
from schedsim.policies.los_dedicated import DedicatedJobs
from schedsim.policies.los_dp import packing_dp
from schedsim.policies.registry import NoSettings, register_policy, setting

WHOLE_QUEUE = 0  # lookahead 0: the DP examines the whole waiting queue
DEFAULT_MAX_SKIP = 7
PAPER_HEADS, NOTE_HEADS, LITERAL_HEADS = "paper", "note", "literal"


@dataclass(frozen=True)
class LookaheadSettings:
    """The window every LOS-family DP examines."""

    lookahead: int = setting(WHOLE_QUEUE, "lookahead window L: the DP considers the first L "
                             "waiting jobs, head included; 0: the whole queue (LOS paper, "
                             "sec. III-A; Shmueli & Feitelson limit it to 50 for speed)",
                             low=0)


@dataclass(frozen=True)
class LOSSettings(LookaheadSettings):
    """Settings of LOS and LOS-D."""

    head_rule: str = setting(PAPER_HEADS, "paper: every fitting head starts, then "
                             "Reservation_DP around the first head that does not fit (sec. "
                             "III-A); note: one fitting head starts, then Basic_DP without a "
                             "reservation; literal: Algorithm 1 with C_s = 0, one fitting head "
                             "starts and nothing else until the next event "
                             "(docs/deviations-los.md D1)",
                             choices=(PAPER_HEADS, NOTE_HEADS, LITERAL_HEADS))


@dataclass(frozen=True)
class DelayedLOSSettings(LookaheadSettings):
    """Settings of Delayed-LOS and Hybrid-LOS: the window, and the maximum skip count."""

    c_s: int = setting(DEFAULT_MAX_SKIP, "maximum skip count C_s: a fitting queue head "
                       "skipped this many times starts at once (LOS paper, Algorithm 1)",
                       low=0)
    head_rule: str = setting(PAPER_HEADS, "paper: a head that must start starts, and the "
                             "cycle goes on (docs/deviations-los.md D2); literal: Algorithm 1, "
                             "lines 3-5 word for word, that head alone starts and nothing else "
                             "until the next event", choices=(PAPER_HEADS, LITERAL_HEADS))


@dataclass(frozen=True, slots=True)
class Freeze:
    """A reservation: ``capacity`` units may stay busy past ``time`` (fret, frec).

    LOS paper, Notations: freeze end time and freeze end capacity (Shmueli &
    Feitelson's shadow time and extra processors).
    """

    time: float
    capacity: int

    def frozen_size(self, end: float, units: int) -> int:
        """Units a job ending (by estimate) at ``end`` holds at the freeze end time.

        LOS paper, Algorithm 1, line 16: ``t + dur < fret ? 0 : num``.
        """
        return 0 if end < self.time else units


class Cycle:
    """One scheduling call: free units now, running jobs, and the starts decided."""

    __slots__ = ("decisions", "free", "now", "started", "unit", "view")

    def __init__(self, view: EngineView, unit: int) -> None:
        self.view = view
        self.now = view.now
        self.unit = unit
        self.free = view.free[0] // unit
        self.decisions: list[Decision] = []
        self.started: list[RunningJob] = []

    def start(self, job: Job, units: int) -> None:
        procs = units * self.unit
        self.decisions.append(Start(job, procs))
        self.started.append(RunningJob(job, self.now, procs, 0, (), self.now + job.estimate))
        self.free -= units

    def running(self) -> list[RunningJob]:
        """Running jobs, those started in this cycle included."""
        return [*self.view.running.values(), *self.started]

    def reservation(self, units: int) -> Freeze:
        """Shadow time and extra units of a head job needing ``units`` (Algorithm 1, 13-15)."""
        unit = self.unit
        shadow, extra = shadow_and_extra(self.now, self.free * unit, self.running(), units * unit)
        return Freeze(shadow, extra // unit)


class LOS(QueuePolicy[LOSSettings]):
    """LOS: start the head if it fits, else pack the window around its reservation.

    LOS paper, sec. III-A (Shmueli & Feitelson's Reservation_DP): a queue head
    that fits starts right away (and the next job becomes the head); a head that
    does not fit gets a reservation at its shadow time, and Reservation_DP picks
    from the rest of the window the set of jobs that keeps the most units busy
    now without delaying it (Algorithm 1, lines 12-20). Estimates are read live
    at every call, so a completion or an estimate change needs no bookkeeping.
    """

    def __init__(self, settings: LOSSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.unit = machine.unit
        self.head_rule = settings.head_rule
        self.window = settings.lookahead or None

    def size(self, job: Job) -> int:
        """The job's size in allocation units."""
        return -(-job.procs // self.unit)

    # -- engine protocol --------------------------------------------------
    def schedule(self, view: EngineView) -> list[Decision]:
        cycle = Cycle(view, self.unit)
        started = self.start_heads(cycle)
        if started and self.head_rule == LITERAL_HEADS:
            return cycle.decisions
        if self.queue and cycle.free > 0:
            self.fill(cycle)
        return cycle.decisions

    # -- the steps variants override ----------------------------------------
    def start_heads(self, cycle: Cycle) -> int:
        """Start queue heads while they fit and must start (one only under the note's
        and the literal reading); return how many started."""
        queue = self.queue
        most = 1 if self.head_rule != PAPER_HEADS else len(queue) + 1
        count = 0
        while count < most:
            self.promote_due_jobs(cycle)
            if not queue:
                break
            head = queue[0]
            units = self.size(head)
            if units > cycle.free or not self.head_must_start(head):
                break
            del queue[0]
            self.started(head)
            cycle.start(head, units)
            count += 1
        return count

    def promote_due_jobs(self, cycle: Cycle) -> None:
        """Hook: bring jobs that are due to the head of the queue (dedicated jobs)."""

    def head_must_start(self, head: Job) -> bool:
        """LOS starts a fitting head right away (LOS paper, sec. III-A)."""
        return True

    def started(self, job: Job) -> None:
        """Hook: ``job`` leaves the queue to start now."""

    def fill(self, cycle: Cycle) -> None:
        """The head does not fit: Reservation_DP around its reservation (Algorithm 1, 12-20).

        Under the note's reading a head that fits here (one head has started) is
        packed with the rest by Basic_DP, with no reservation.
        """
        if self.head_rule == NOTE_HEADS and self.size(self.queue[0]) <= cycle.free:
            self.start_best(cycle, 0, self.extra_freezes(cycle))
            return
        head_freeze = cycle.reservation(self.size(self.queue[0]))
        self.start_best(cycle, 1, [head_freeze, *self.extra_freezes(cycle)])

    def extra_freezes(self, cycle: Cycle) -> list[Freeze]:
        """Hook: further reservations every DP must respect (dedicated jobs)."""
        return []

    # -- the packing step -------------------------------------------------
    def start_best(self, cycle: Cycle, first: int, freezes: list[Freeze]) -> list[Job]:
        """Start the best packing of ``queue[first:lookahead]`` under ``freezes``.

        Basic_DP without freezes, Reservation_DP with one (los_dp). Returns the
        started jobs in queue order.
        """
        positions, sizes, frozen = self.candidates(cycle, first, freezes)
        if not positions:
            return []
        constraints = [(column, freeze.capacity)
                       for freeze, column in zip(freezes, frozen, strict=True)]
        chosen = [positions[i] for i in packing_dp(sizes, cycle.free, constraints)]
        queue = self.queue
        jobs = [queue[position] for position in chosen]
        for position in reversed(chosen):
            del queue[position]
        for job in jobs:
            self.started(job)
            cycle.start(job, self.size(job))
        return jobs

    def candidates(
        self, cycle: Cycle, first: int, freezes: list[Freeze]
    ) -> tuple[list[int], list[int], list[list[int]]]:
        """Queue positions, sizes and frozen sizes (one column per freeze) of the window."""
        queue, size = self.queue, self.size
        now, free = cycle.now, cycle.free
        positions: list[int] = []
        sizes: list[int] = []
        ends: list[float] = []
        last = len(queue) if self.window is None else min(len(queue), self.window)
        for position in range(first, last):
            job = queue[position]
            units = size(job)
            if units > free:
                continue  # LOS paper, Algorithm 1, line 16: only jobs with num <= m
            positions.append(position)
            sizes.append(units)
            ends.append(now + job.estimate)
        frozen = [[freeze.frozen_size(end, units) for end, units in zip(ends, sizes, strict=True)]
                  for freeze in freezes]
        return positions, sizes, frozen


class DelayedLOS(LOS):
    """Delayed-LOS (LOS paper, Algorithm 1): a fitting head may be skipped ``c_s`` times.

    While the head's skip count is below ``c_s``, Basic_DP packs the whole window,
    head included, and the head's skip count grows by one in every cycle that
    leaves it out (lines 6-11). A fitting head whose skip count has reached
    ``c_s`` starts at once (lines 3-5). A head that does not fit is handled as
    in LOS (lines 12-20). Skip counts belong to the job.
    """

    settings: DelayedLOSSettings

    def __init__(self, settings: DelayedLOSSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.skip_counts: dict[int, int] = {}

    def skip_count(self, job: Job) -> int:
        return self.skip_counts.get(job.index, 0)

    def head_must_start(self, head: Job) -> bool:
        return self.skip_count(head) >= self.settings.c_s  # Algorithm 1, line 3

    def started(self, job: Job) -> None:
        self.skip_counts.pop(job.index, None)

    def fill(self, cycle: Cycle) -> None:
        if self.size(self.queue[0]) <= cycle.free:
            self.fill_with_head(cycle)
        else:
            super().fill(cycle)

    def fill_with_head(self, cycle: Cycle) -> None:
        """Pack the window with the head as a candidate; count a skip if it is left out.

        Algorithm 1, lines 6-11 (Basic_DP); Algorithm 2, lines 16-30 when a
        dedicated freeze applies (Reservation_DP).
        """
        head = self.queue[0]
        jobs = self.start_best(cycle, 0, self.extra_freezes(cycle))
        if not jobs or jobs[0] is not head:
            self.skip_counts[head.index] = self.skip_count(head) + 1


class HybridLOS(DedicatedJobs, DelayedLOS):
    """Hybrid-LOS (LOS paper, Algorithms 2-3): Delayed-LOS around dedicated jobs.

    With no dedicated job waiting, a cycle is Delayed-LOS (line 4). Otherwise a
    due dedicated job moves to the head of the batch queue with skip count
    ``c_s`` (lines 6-7, 40-41; Algorithm 3), unless the batch head has used up
    its skips and fits: that head starts first (lines 35-37). With the head's
    skip count below ``c_s``, Reservation_DP packs the window, head included,
    around the freeze of the first dedicated start group, and the head's skip
    count grows if it is left out (lines 8-33). A head that has used up its
    skips but does not fit (a case the paper leaves open) keeps its own
    reservation as in Delayed-LOS, and the dedicated freeze applies as well.
    """

    def promote_due_jobs(self, cycle: Cycle) -> None:
        queue = self.queue
        if queue and self.head_must_start(queue[0]) and self.size(queue[0]) <= cycle.free:
            return  # Algorithm 2, lines 35-37 come before moving a dedicated job
        self.promote_due(cycle.now)

    def promoted(self, job: Job) -> None:
        self.skip_counts[job.index] = self.settings.c_s  # Algorithm 3: scount <- C_s

    def extra_freezes(self, cycle: Cycle) -> list[Freeze]:
        return dedicated_freezes(self, cycle)

    def fill(self, cycle: Cycle) -> None:
        if self.dedicated and self.skip_count(self.queue[0]) < self.settings.c_s:
            self.fill_with_head(cycle)  # Algorithm 2, lines 8-33
        else:
            super().fill(cycle)


class LOSD(DedicatedJobs, LOS):
    """LOS-D (LOS paper, sec. V): LOS with the dedicated-job queue.

    Due dedicated jobs move to the head of the batch queue (Algorithm 3) and
    start as soon as they fit, like any LOS head. Every Reservation_DP respects
    both the head's reservation and the freeze of the first dedicated start
    group (computed as in Algorithm 2, lines 9-31). As in Hybrid-LOS a head that
    must start (for LOS: any fitting head) does not look at the dedicated freeze.
    """

    def promote_due_jobs(self, cycle: Cycle) -> None:
        self.promote_due(cycle.now)

    def extra_freezes(self, cycle: Cycle) -> list[Freeze]:
        return dedicated_freezes(self, cycle)


def dedicated_freezes(policy: HybridLOS | LOSD, cycle: Cycle) -> list[Freeze]:
    """The freeze of the first dedicated start group, in units, if any job waits."""
    if not policy.dedicated:
        return []
    unit = cycle.unit
    time, capacity = policy.dedicated.freeze(cycle.now, cycle.free * unit, cycle.running())
    return [Freeze(time, capacity // unit)]


class EASYD(DedicatedJobs, EASY):
    """EASY-D (LOS paper, sec. V): EASY with the dedicated-job queue.

    Due dedicated jobs move to the head of the FCFS queue (Algorithm 3) and start
    as soon as they fit. A backfilled job must respect both the head's
    reservation (EASY) and the freeze of the first dedicated start group
    (Algorithm 2, lines 9-31), using up the extra processors of each reservation
    it runs past. Queue heads that fit start without looking at the freeze, as
    in LOS-D.
    """

    def schedule(self, view: EngineView) -> list[Decision]:
        self.promote_due(view.now)
        return super().schedule(view)

    def reservations(self, now: float, free: int, running: list[RunningJob]) -> list[Reservation]:
        """The head's reservation, and the freeze of the first dedicated start group."""
        held = super().reservations(now, free, running)
        if self.dedicated:
            freeze_time, freeze_free = self.dedicated.freeze(now, free, running)
            held.append(Reservation(freeze_time, freeze_free, ends_before_ok=False))
        return held


_REGISTRATIONS: tuple[tuple[str, type, type, str], ...] = (
    ("LOS", LOS, LOSSettings,
     "Lookahead Optimizing Scheduler (Shmueli & Feitelson): fitting head starts at once, "
     "else Reservation_DP over the window"),
    ("Delayed-LOS", DelayedLOS, DelayedLOSSettings,
     "Delayed-LOS (LOS paper, Algorithm 1): Basic_DP may skip a fitting head up to c_s times"),
    ("Hybrid-LOS", HybridLOS, DelayedLOSSettings,
     "Hybrid-LOS (LOS paper, Algorithms 2-3): Delayed-LOS around dedicated jobs"),
    ("EASY-D", EASYD, NoSettings,
     "EASY with the dedicated-job queue (LOS paper, sec. V)"),
    ("LOS-D", LOSD, LOSSettings,
     "LOS with the dedicated-job queue (LOS paper, sec. V)"),
    ("EASY-E", EASY, NoSettings,
     "EASY with elastic control commands (the engine applies them; LOS paper, Table III)"),
    ("LOS-E", LOS, LOSSettings,
     "LOS with elastic control commands (the engine applies them; LOS paper, Table III)"),
    ("Delayed-LOS-E", DelayedLOS, DelayedLOSSettings,
     "Delayed-LOS with elastic control commands (the engine applies them)"),
    ("EASY-DE", EASYD, NoSettings,
     "EASY-D with elastic control commands (the engine applies them)"),
    ("LOS-DE", LOSD, LOSSettings,
     "LOS-D with elastic control commands (the engine applies them)"),
    ("Hybrid-LOS-E", HybridLOS, DelayedLOSSettings,
     "Hybrid-LOS with elastic control commands (the engine applies them)"),
)

for _name, _cls, _settings, _description in _REGISTRATIONS:
    register_policy(_name, "los", _description, _settings)(_cls)
