"""The machine a workload runs on."""

from __future__ import annotations

from dataclasses import dataclass, field

from schedsim.errors import InputError

# The largest machine accepted (2^31 - 1 processors).
MAX_PROCS = 2**31 - 1

# How a parallel job's work is carried by its processors (``Machine.execution``).
EQUAL_SPLIT, POOLED = "equal_split", "pooled"
EXECUTION_MODELS = (EQUAL_SPLIT, POOLED)


@dataclass(frozen=True)
class Machine:
    """Processors, allocation unit, partitions and per-processor speeds.

    Attributes:
        procs: total processor count.
        unit: allocations are multiples of this (e.g. 32 in the LOS paper, sec. IV).
        partitions: sizes of the partitions, summing to ``procs``; a job runs
            inside one partition. Default: one partition of the whole machine.
        speeds: relative speed of every processor in basic processor units (BPU);
            empty means all processors have speed 1. When given, policies may
            name the processors they allocate.
        execution: how a job progresses on processors whose rates differ (speeds or
            background load; the IHAP paper, sec. 4.2). ``equal_split``: each of a
            job's p processors runs one task carrying 1/p of its work at that
            processor's rate, and the job ends with its slowest task (its processors
            stay allocated until then); ``pooled``: the job progresses at the sum of its
            processors' rates. On identical unloaded processors the two coincide.
    """

    procs: int
    unit: int = 1
    partitions: tuple[int, ...] = ()
    speeds: tuple[float, ...] = field(default=())
    execution: str = EQUAL_SPLIT

    def __post_init__(self) -> None:
        if not 0 < self.procs <= MAX_PROCS:
            raise InputError(f"machine: procs={self.procs} must be a positive integer of at "
                             f"most {MAX_PROCS}")
        if self.unit <= 0 or self.procs % self.unit:
            raise InputError(
                f"machine: unit={self.unit} must be a positive divisor of procs={self.procs}"
            )
        if not self.partitions:
            object.__setattr__(self, "partitions", (self.procs,))
        if sum(self.partitions) != self.procs or min(self.partitions) <= 0:
            raise InputError(
                f"machine: partitions {self.partitions} must be positive and sum to {self.procs}"
            )
        if self.speeds and (len(self.speeds) != self.procs or min(self.speeds) <= 0):
            raise InputError(f"machine: speeds must give one positive speed per processor "
                             f"({self.procs}), got {len(self.speeds)}")
        if self.execution not in EXECUTION_MODELS:
            raise InputError(f"machine: execution={self.execution!r} is not an execution "
                             f"model; allowed: {', '.join(EXECUTION_MODELS)}")

    @property
    def heterogeneous(self) -> bool:
        return bool(self.speeds)

    def partition_of_processor(self, processor: int) -> int:
        """Index of the partition holding processor number ``processor``."""
        edge = 0
        for index, size in enumerate(self.partitions):
            edge += size
            if processor < edge:
                return index
        raise IndexError(processor)

    def round_up(self, procs: int) -> int:
        """``procs`` rounded up to the allocation unit."""
        return -(-procs // self.unit) * self.unit

