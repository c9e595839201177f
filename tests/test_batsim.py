"""Batsim's formats: SWF <-> Batsim JSON workloads, and schedules as Batsim's jobs.csv
(read by evalys, which draws its Gantt chart)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import matplotlib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedsim.cli import main
from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.workloads.batsim import (
    JOBS_CSV_COLUMNS,
    Run,
    assign_processors,
    interval_set,
    jobs_csv_text,
    read_batsim,
    schedule_runs,
)
from schedsim.workloads.swf import read_swf

from helpers import cli_run as run

matplotlib.use("Agg")
DATA = Path(__file__).parent / "data"



# ----------------------------------------------------------------------------- workloads

times = st.one_of(st.integers(0, 10**7).map(float),
                  st.integers(0, 10**9).map(lambda x: x / 1000))
records = st.lists(st.tuples(
    times,                                   # submit
    times,                                   # run time
    st.integers(1, 512),                     # processors
    st.booleans(),                           # requested (field 8) or only allocated (5)
    st.one_of(st.just(-1.0), times),         # requested time
), min_size=1, max_size=40)


def swf_file(path: Path, rows: list[tuple[float, float, int, bool, float]]) -> None:
    lines = ["; Version: 2.2", "; MaxProcs: 512"]
    for number, (submit, runtime, procs, requested, req_time) in enumerate(rows, start=7):
        fields = [number, submit, -1, runtime, -1 if requested else procs, -1, -1,
                  procs if requested else -1, req_time, -1, 1, 3, 4, -1, 1, -1, -1, -1]
        lines.append(" ".join(f"{v:g}" if isinstance(v, int) else repr(v) for v in fields))
    path.write_text("\n".join(lines) + "\n")


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=records)
def test_swf_to_batsim_to_swf_keeps_the_fields_both_carry(
        tmp_path: Path, rows: list[tuple[float, float, int, bool, float]]) -> None:
    source, batsim, back = tmp_path / "w.swf", tmp_path / "w.json", tmp_path / "back.swf"
    swf_file(source, rows)
    assert run(["convert", str(source), str(batsim)]) == (0, "")
    assert run(["convert", str(batsim), str(back)]) == (0, "")
    before, after = read_swf(source), read_swf(back)
    assert after.max_procs() == 512 == json.loads(batsim.read_text())["nb_res"]
    assert len(after.records) == len(before.records)
    for a, b in zip(before.records, after.records, strict=True):
        wanted = a.req_procs if a.req_procs > 0 else a.alloc_procs
        assert (b.job, b.submit, b.run, b.req_procs, b.req_time) == \
            (a.job, a.submit, a.run, wanted, a.req_time)


def test_the_batsim_workload_of_a_small_log(tmp_path: Path) -> None:
    batsim = tmp_path / "small.json"
    assert run(["convert", str(DATA / "small.swf"), str(batsim)])[0] == 0
    data = json.loads(batsim.read_text())
    assert set(data) == {"nb_res", "jobs", "profiles", "description"}
    first = data["jobs"][0]
    assert first == {"id": "1", "subtime": 0, "res": 4, "walltime": 200,
                     "profile": "delay100"}
    assert data["profiles"]["delay100"] == {"type": "delay", "delay": 100}
    # one delay profile per distinct run time, shared by the jobs that have it
    delays = {p["delay"] for p in data["profiles"].values()}
    assert len(delays) == len(data["profiles"])


def test_a_batsim_workload_simulates_as_its_swf_log(tmp_path: Path) -> None:
    batsim = tmp_path / "small.json"
    assert run(["convert", str(DATA / "small.swf"), str(batsim)])[0] == 0
    outputs = []
    for source in (DATA / "small.swf", batsim):
        out = tmp_path / f"{source.name}.out.swf"
        assert run(["simulate", str(source), "--policy", "easy", "--procs", "8",
                    "--out", str(out)])[0] == 0
        outputs.append([(r.job, r.submit, r.wait, r.run, r.alloc_procs)
                        for r in read_swf(out).records])
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(("text", "fragment"), [
    ("{", ":1: not valid JSON"),
    ('{"nb_res": 4, "jobs": [], "profiles": {}}', "no jobs"),
    ('{"nb_res": 0, "jobs": [], "profiles": {}}', "nb_res=0 must be a positive integer"),
    ('{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 2}], "profiles": {}}',
     "job 1: no profile"),
    ('{"nb_res": 4, "jobs": [{"id": "a", "subtime": 0, "res": 2, "profile": "p"}], '
     '"profiles": {"p": {"type": "delay", "delay": 3}}}', "job 'a': the id must be a number"),
    ('{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 2, "profile": "p"}], '
     '"profiles": {"p": {"type": "parallel", "cpu": [1]}}}', "of type 'parallel'"),
    ('{"nb_res": 4, "jobs": [{"id": "w!1", "subtime": -3, "res": 2, "profile": "p"}], '
     '"profiles": {"p": {"type": "delay", "delay": 3}}}', "subtime=-3 must be a number >= 0"),
])
def test_bad_batsim_workloads_are_one_line_exit_2(tmp_path: Path, text: str,
                                                  fragment: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    code, err = run(["simulate", str(bad), "--policy", "easy", "--out",
                     str(tmp_path / "o.swf")])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert fragment in err and str(bad) in err


def test_workload_ids_may_name_their_workload(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text('{"nb_res": 4, "jobs": [{"id": "w0!12", "subtime": 5, "res": 2, '
                    '"profile": "p", "walltime": 60}], "profiles": {"p": {"type": '
                    '"DelayProfile", "delay": 30}}}')
    (record,) = read_batsim(path).records
    assert (record.job, record.submit, record.run, record.req_procs, record.req_time) == \
        (12, 5.0, 30.0, 2, 60.0)


def test_convert_refuses_other_pairs(tmp_path: Path) -> None:
    code, err = run(["convert", str(DATA / "small.swf"), str(tmp_path / "x.swf")])
    assert code == 2 and "give an SWF source" in err
    assert not (tmp_path / "x.swf").exists()


# ----------------------------------------------------------------------------- jobs.csv


def test_interval_sets_are_batsims_canonical_text() -> None:
    assert interval_set([8, 0, 1, 2, 3]) == "0-3 8"
    assert interval_set([5]) == "5"
    assert interval_set([1, 3, 4, 6]) == "1 3-4 6"


def test_processors_are_the_lowest_free_ones_at_each_start() -> None:
    # A [0,100) 4, B [0,50) 4, C [0,200) 2 on 10 processors; E [50,300) 3 takes 4-6 when
    # B ends; D [100,150) 5 then finds 0-3 and 7 free.
    def job(name: str, start: float, end: float, procs: int) -> Run:
        return Run(name, 0.0, procs, end - start, start, end, procs, 0, end - start)

    runs = [job("A", 0, 100, 4), job("B", 0, 50, 4), job("C", 0, 200, 2),
            job("E", 50, 300, 3), job("D", 100, 150, 5)]
    assert [interval_set(p) for p in assign_processors(runs, [10])] == \
        ["0-3", "4-7", "8-9", "4-6", "0-3 7"]
    text = jobs_csv_text(runs, [10], "w")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == JOBS_CSV_COLUMNS
    assert rows[4]["allocated_resources"] == "0-3 7"
    assert (rows[4]["waiting_time"], rows[4]["execution_time"], rows[4]["stretch"]) == \
        ("100", "50", "3")


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 400), st.integers(1, 200),
                               st.integers(1, 12)), min_size=1, max_size=40),
       policy=st.sampled_from(["fcfs", "easy", "conservative", "scojo-conservative"]))
def test_no_processor_runs_two_jobs_at_once(rows: list[tuple[int, int, int]],
                                            policy: str) -> None:
    machine = Machine(12)
    jobs = [Job(i + 1, float(s), float(r), p, float(r) * 2)
            for i, (s, r, p) in enumerate(sorted(rows))]
    schedule = simulate(jobs, machine, make_policy(policy, {}, machine))
    runs = schedule_runs(schedule)
    allocated = assign_processors(runs, machine.partitions)
    for run_a, procs_a in zip(runs, allocated, strict=True):
        assert len(set(procs_a)) == run_a.procs and set(procs_a) <= set(range(12))
        for run_b, procs_b in zip(runs, allocated, strict=True):
            if run_a is not run_b and run_a.start < run_b.end and run_b.start < run_a.end:
                assert not set(procs_a) & set(procs_b)


def test_evalys_reads_our_jobs_csv_and_draws_its_gantt_chart(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt
    from evalys.jobset import JobSet
    from evalys.visu.gantt import plot_gantt

    workload, jobs_csv = tmp_path / "w.swf", tmp_path / "jobs.csv"
    assert main(["generate", "lublin99", "--jobs", "120", "--seed", "2", "--out",
                 str(workload)]) == 0
    assert run(["simulate", str(workload), "--policy", "conservative", "--out",
                str(tmp_path / "s.swf"), "--jobs-csv", str(jobs_csv)])[0] == 0
    jobset = JobSet.from_csv(str(jobs_csv))
    ours = list(csv.DictReader(jobs_csv.open()))
    assert len(jobset.df) == len(ours) == 120
    assert jobset.MaxProcs <= 128
    for row, (_, theirs) in zip(ours, jobset.df.iterrows(), strict=True):
        assert str(theirs["allocated_resources"]) == row["allocated_resources"]
        assert len(theirs["allocated_resources"]) == int(row["requested_number_of_resources"])
    plt.close("all")
    plot_gantt(jobset, title="conservative")
    axes = plt.gcf().axes[0]
    assert len(axes.patches) >= 120  # a rectangle (at least) per job
    plt.gcf().savefig(tmp_path / "gantt.png")
    assert (tmp_path / "gantt.png").stat().st_size > 0
    plt.close("all")
