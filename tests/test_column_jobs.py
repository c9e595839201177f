"""Jobs held as columns (``jobs.ColumnJobs``): the objects they make equal the columns, a
run on the columns equals the run on the objects (schedule and batch rows), and a
compiled IHAP point's run reads the columns without making a ``Job`` object."""

from __future__ import annotations

from dataclasses import fields as dataclass_fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.experiments.families.ihap_measure import MEASURE as BATCHES
from schedsim.experiments.run import SeedWorkload, simulate_batches
from schedsim.jobs import BATCH, ColumnJobs, Job, JobFields, unmade_fields
from schedsim.loadmodel import make_load_model
from schedsim.machine import EQUAL_SPLIT, Machine
from schedsim.metrics import job_table
from schedsim.policies.registry import get_policy, job_kinds, make_policy, run_features
from schedsim.workloads.hyperexp import PARAMS, generate_hyperexp_jobs, ihap_machine

HYPEREXP = {p.name: p.default for p in PARAMS}


def as_objects(jobs: ColumnJobs) -> list[Job]:
    """The same jobs as a plain list of new objects (what the columns would make)."""
    return [Job(**{f.name: getattr(job, f.name) for f in dataclass_fields(Job)})
            for job in ColumnJobs(_fields_of(jobs))]


def _fields_of(jobs: ColumnJobs) -> JobFields:
    fields = jobs.unmade
    assert fields is not None
    return fields


def test_made_objects_are_the_columns_and_end_the_column_reads() -> None:
    fields = JobFields(np.array([7, 9]), np.array([0.0, 1.5]), np.array([2.0, 3.25]),
                       np.array([1, 4]), np.array([2.0, 3.25]), np.array([2.0, 13.0]))
    jobs = ColumnJobs(fields)
    assert len(jobs) == 2 and unmade_fields(jobs) is fields
    assert job_kinds(jobs) == {"divisible"}
    made = jobs.made()
    assert unmade_fields(jobs) is None and jobs[1] is made[1] and list(jobs) == made
    assert [(j.id, j.submit, j.runtime, j.procs, j.estimate, j.work, j.kind, j.index)
            for j in made] == [(7, 0.0, 2.0, 1, 2.0, 2.0, BATCH, 0),
                               (9, 1.5, 3.25, 4, 3.25, 13.0, BATCH, 1)]
    assert all(type(j.id) is int and type(j.procs) is int and type(j.submit) is float
               for j in made)
    assert job_kinds(jobs) == {"divisible"}
    rigid = ColumnJobs(JobFields(fields.id, fields.submit, fields.runtime, fields.procs,
                                 fields.estimate))
    assert job_kinds(rigid) == {"rigid"} and rigid[0].work is None
    assert job_kinds(ColumnJobs(JobFields(*(np.empty(0),) * 5))) == set()


def _run(jobs: object, policy: str, machine: Machine, seed: int) -> tuple:
    load = make_load_model("uniform", {"max_percent": 30}, machine, seed)
    schedule = simulate(jobs, machine, make_policy(policy, {}, machine),  # type: ignore[arg-type]
                        load_model=load)
    table = job_table(schedule)
    return tuple(table[name].tobytes() for name in sorted(table))


@settings(max_examples=15, deadline=None)
@given(count=st.integers(1, 300), seed=st.integers(1, 10_000),
       policy=st.sampled_from(["MAP", "HAP", "IHAP"]),
       utilization=st.sampled_from([0.3, 0.7, 0.9]))
def test_a_compiled_run_on_columns_equals_the_run_on_objects(count: int, seed: int,
                                                             policy: str,
                                                             utilization: float) -> None:
    machine = ihap_machine()
    machine = Machine(machine.procs, speeds=machine.speeds, execution=EQUAL_SPLIT)
    jobs = generate_hyperexp_jobs(count, seed, {**HYPEREXP, "utilization": utilization})
    objects = as_objects(jobs)
    assert _run(jobs, policy, machine, seed) == _run(objects, policy, machine, seed)
    assert jobs.unmade is not None  # the run read the columns only


@pytest.mark.parametrize("policy", ["MAP", "IHAP"])
def test_a_batch_means_point_reads_the_columns_only(policy: str) -> None:
    machine = ihap_machine()
    machine = Machine(machine.procs, speeds=machine.speeds, execution=EQUAL_SPLIT)
    jobs = generate_hyperexp_jobs(4 * 500, 11, {**HYPEREXP, "utilization": 0.8})

    def rows(given: object) -> list[dict[str, float]]:
        workload = SeedWorkload(given)  # type: ignore[arg-type]
        load = make_load_model("uniform", {"max_percent": 30}, machine, 3)
        return simulate_batches(workload, machine, policy, {}, load, (4, 500, 1), BATCHES)

    on_columns = rows(jobs)
    assert jobs.unmade is not None
    assert on_columns == rows(as_objects(jobs))
    get_policy(policy).check_run(run_features(jobs, machine, (), True))  # the fit check
    assert jobs.unmade is not None


RIGID_POLICIES = ["easy", "conservative", "slack-backfill", "scojo-slack",
                  "scojo-conservative"]


@pytest.fixture(scope="module")
def lublin_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    from schedsim.workloads.base import get_model

    path = tmp_path_factory.mktemp("swf") / "lublin.swf"
    path.write_text(get_model("lublin99").run(400, 5, {}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("policy", RIGID_POLICIES)
def test_a_rigid_swf_file_is_read_as_columns_and_run_as_the_objects(lublin_file: str,
                                                                    policy: str) -> None:
    from schedsim.experiments.families.slack_measure import MEASURE as SLACK
    from schedsim.workloads.load import load_workload

    loaded = load_workload(lublin_file)
    jobs = loaded.jobs
    assert isinstance(jobs, ColumnJobs) and job_kinds(jobs) == {"rigid"}
    objects = load_workload(lublin_file).jobs.made()  # the objects, as any reader makes them
    machine = loaded.machine

    def measured(given: object) -> dict[str, float]:
        schedule = simulate(given, machine, make_policy(policy, {}, machine))  # type: ignore[arg-type]
        return SLACK.metrics(schedule, SeedWorkload(given))  # type: ignore[arg-type]

    on_columns = measured(jobs)
    assert jobs.unmade is not None  # the run and the measures read the columns only
    on_objects = measured(objects)
    assert on_columns.keys() == on_objects.keys()
    assert all(on_columns[k] == on_objects[k] or (on_columns[k] != on_columns[k]
                                                  and on_objects[k] != on_objects[k])
               for k in on_columns), (on_columns, on_objects)
    assert [(j.id, j.user, j.queue, j.index) for j in jobs.made()[:3]] == [
        (j.id, j.user, j.queue, j.index) for j in objects[:3]]
