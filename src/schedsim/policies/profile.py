"""A processor-availability profile: free processors as a step function of time."""

from __future__ import annotations

from bisect import bisect_right


class Profile:
    """Free processors over ``[times[0], inf)``.

    ``free[i]`` processors are free during ``[times[i], times[i+1])``; the last
    step extends to infinity. Used by conservative backfilling and any policy that
    keeps reservations for several jobs.
    """

    __slots__ = ("free", "times")

    def __init__(self, now: float, capacity: int) -> None:
        self.times: list[float] = [now]
        self.free: list[int] = [capacity]

    @classmethod
    def holding(cls, now: float, capacity: int, ends: list[tuple[float, int]]) -> Profile:
        """The profile of ``capacity`` processors from ``now`` with ``procs`` taken until
        ``end`` for each ``(end, procs)``: the same steps as ``reserve(now, end, procs)``
        for each, built at once."""
        taken: dict[float, int] = {}
        for end, procs in ends:
            if end > now:
                taken[end] = taken.get(end, 0) + procs
        profile = cls.__new__(cls)
        profile.times = [now]
        profile.free = [capacity - sum(taken.values())]
        for end in sorted(taken):
            profile.times.append(end)
            profile.free.append(profile.free[-1] + taken[end])
        return profile

    def copy(self) -> Profile:
        """An independent copy (a what-if placement leaves the original as it was)."""
        other = Profile.__new__(Profile)
        other.times = list(self.times)
        other.free = list(self.free)
        return other

    def advance(self, now: float) -> None:
        """Drop the steps that ended before ``now``."""
        times = self.times
        if now <= times[0]:
            return
        i = bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del self.free[:i]
        times[0] = now

    def earliest(self, procs: int, duration: float, not_before: float) -> float:
        """Earliest ``t >= not_before`` with ``procs`` free throughout ``[t, t + duration)``."""
        times, free = self.times, self.free
        n = len(times)
        i = max(0, bisect_right(times, not_before) - 1)
        while True:
            while free[i] < procs:
                i += 1  # the last step is the whole machine minus reservations ending
            start = max(times[i], not_before)
            end = start + duration
            k = i + 1
            while k < n and times[k] < end and free[k] >= procs:
                k += 1
            if k == n or times[k] >= end:
                return start
            i = k

    def reserve(self, start: float, end: float, procs: int) -> None:
        """Take ``procs`` processors during ``[start, end)`` (negative: give back)."""
        if end <= start:
            return
        i = self._split(start)
        k = self._split(end)
        free = self.free
        for j in range(i, k):
            free[j] -= procs

    def release(self, start: float, end: float, procs: int) -> None:
        """Give back ``procs`` processors during ``[start, end)`` (undo a ``reserve``) and
        drop the step boundaries at ``start`` and ``end`` that no longer change the
        free count, so that a search placing and undoing jobs keeps the profile short."""
        if end <= start:
            return
        self.reserve(start, end, -procs)
        times, free = self.times, self.free
        for t in (end, start):
            i = bisect_right(times, t) - 1
            if i > 0 and times[i] == t and free[i] == free[i - 1]:
                del times[i]
                del free[i]

    def _split(self, t: float) -> int:
        """Ensure a step begins at ``t``; return its index."""
        times = self.times
        i = bisect_right(times, t) - 1
        if times[i] == t:
            return i
        times.insert(i + 1, t)
        self.free.insert(i + 1, self.free[i])
        return i + 1
