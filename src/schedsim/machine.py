"""The machine a workload runs on."""

from __future__ import annotations

from dataclasses import dataclass, field

from schedsim.errors import InputError

# The largest machine accepted (2^31 - 1 processors).
MAX_PROCS = 2**31 - 1


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
    """

    procs: int
    unit: int = 1
    partitions: tuple[int, ...] = ()
    speeds: tuple[float, ...] = field(default=())

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

