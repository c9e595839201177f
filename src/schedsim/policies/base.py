"""The common ground of the policies: settings, machine and an arrival-ordered queue."""

from __future__ import annotations

from typing import Generic, TypeVar

from schedsim.engine import Decision, EngineView
from schedsim.jobs import Job
from schedsim.machine import Machine

SettingsT = TypeVar("SettingsT")


class QueuePolicy(Generic[SettingsT]):
    """A policy that keeps the waiting jobs in arrival order (submit time, then file order).

    ``submit`` appends to ``queue``; ``finish`` and ``change`` do nothing, for a
    policy that reads the running jobs and the live estimates from the engine's
    view at every ``schedule`` call. Subclasses implement ``schedule`` and
    override the hooks they need.
    """

    def __init__(self, settings: SettingsT, machine: Machine) -> None:
        self.settings = settings
        self.machine = machine
        self.queue: list[Job] = []

    def submit(self, job: Job, view: EngineView) -> None:
        self.queue.append(job)

    def finish(self, job: Job, view: EngineView) -> None:
        """A completion: nothing to update."""

    def change(self, job: Job, view: EngineView) -> None:
        """An estimate changed: nothing to update (estimates are read live)."""

    def schedule(self, view: EngineView) -> list[Decision]:
        raise NotImplementedError
