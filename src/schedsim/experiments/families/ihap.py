"""The IHAP family: MAP, HAP and IHAP on a non-dedicated heterogeneous cluster.

A. Chhabra, G. Singh, "A Modified Adaptive Space-Sharing Policy for Non-dedicated
Heterogeneous Cluster Systems" (IHAP paper). 64 processors, the first 32 of 1 BPU and the
next 32 of 2 BPU (sec. 4.1), each with a background load drawn from U{0..30}% at every
arrival and departure (sec. 4.3); the workload ``hyperexp`` (sec. 4.2, Table 1). Batch
means: 31 batches of 7000 jobs, the first discarded, 90% intervals (sec. 5); the config's
``batches``, ``level`` and ``precision`` carry them.

Variant axes: ``utilization`` (eq. 9), ``cva`` (inter-arrival CV) and ``cvs`` (service
demand CV); one workload per combination. Targets IHAP-F1 (MRT vs utilization), IHAP-F2
(vs CVa at 80%) and IHAP-F3 (vs CVs at 80%). Claims
(:mod:`~schedsim.experiments.families.ihap_claims`) and the family rules R1-R2 are in
docs/deviations-ihap.md; the figure: :mod:`~schedsim.experiments.families.ihap_figures`;
results in docs/results-ihap.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from schedsim.experiments.family import (
    POSITIVE,
    Family,
    Variant,
    axis_product,
    axis_schemas,
    options_schema,
)
from schedsim.experiments.spec import MachineSpec, fmt_value

if TYPE_CHECKING:
    pass


FAMILY_NAME = "ihap"
F1, F2, F3 = "IHAP-F1", "IHAP-F2", "IHAP-F3"
MAP, HAP, IHAP, IHAP_FCFS = "MAP", "HAP", "IHAP", "IHAP-FCFS"
METRICS = ("MRT", "AWT", "max_wait", "power", "procs_per_job", "util_procs", "util_power")
AXES = {"utilization": "utilization", "cva": "cv_arrival", "cvs": "cv_demand"}


class IhapFamily(Family):
    """Config section ``ihap``: variant axes ``utilization``, ``cva``, ``cvs`` (defaults in
    ``options``), one ``hyperexp`` workload each; the machine is ``machine.procs``
    processors of which the last ``options.fast_procs`` run at ``options.fast_speed`` BPU
    (the others 1 BPU), under the machine's load model."""

    name = FAMILY_NAME
    variant_column = "workload"
    metrics = METRICS
    measure = "schedsim.experiments.families.ihap_measure"
    claims_module = "schedsim.experiments.families.ihap_claims"
    figures_module = "schedsim.experiments.families.ihap_figures"
    axes = axis_schemas(utilization=POSITIVE, cva={"type": "number", "minimum": 1},
                        cvs={"type": "number", "minimum": 1})
    options = options_schema(fast_procs={"type": "integer", "minimum": 0},
                             fast_speed=POSITIVE, **axes)
    policy_families = ("ihap",)

    def machine(self, section: Mapping[str, Any]) -> MachineSpec:
        given = super().machine(section)
        options = section.get("options") or {}
        fast = int(options.get("fast_procs", given.procs // 2))
        speed = float(options.get("fast_speed", 2.0))
        if not 0 <= fast <= given.procs:
            raise ValueError(f"ihap: options.fast_procs={fast} must be in 0..{given.procs}")
        return replace(given, speeds=(1.0,) * (given.procs - fast) + (speed,) * fast)

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        options = section.get("options") or {}
        axes = {axis: values.get(axis, options.get(axis, default))
                for axis, default in (("utilization", 0.8), ("cva", 1.0), ("cvs", 4.0))}
        return [self.variant(case, panel) for case in axis_product(axes)]

    @staticmethod
    def variant(case: Mapping[str, Any], panel: str) -> Variant:
        values = {axis: float(case[axis]) for axis in AXES}
        name = "_".join(f"{axis}{fmt_value(value)}" for axis, value in values.items())
        params = {AXES[axis]: value for axis, value in values.items()}
        return Variant(name, params, {"panel": panel, **values})


FAMILY = IhapFamily()
