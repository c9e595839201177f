"""Workload model cirne01 (Cirne-Berman 2001 + Downey moldability; HRF paper sec. 6.1)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from schedsim.errors import InputError
from schedsim.params import parse_params
from schedsim.speedup import DowneySpeedup
from schedsim.workloads import cirne
from schedsim.workloads.base import get_model

HRF_TARGETS = (2000.0, 1000.0, 600.0)  # HRF paper sec. 6.1.2
PATTERNS = ("anl", "ctc", "kth", "sdsc")


def _params(**given: object) -> dict:
    return parse_params(cirne.PARAMS, given, "test")


def test_model_is_registered() -> None:
    model = get_model("cirne01")
    assert model.name == "cirne01"
    assert {p.name for p in model.params} == {"pattern", "procs", "mean_interarrival", "k_sigma"}


def test_same_seed_same_text_and_different_seeds_differ() -> None:
    model = get_model("cirne01")
    first = model.run(200, 11, {"mean_interarrival": 1000})
    assert first == model.run(200, 11, {"mean_interarrival": 1000})
    assert first != model.run(200, 12, {"mean_interarrival": 1000})


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("target", HRF_TARGETS)
def test_measured_mean_interarrival_matches_target(pattern: str, target: float) -> None:
    for seed in (1, 2, 3):
        jobs = cirne.generate_cirne_jobs(200, seed, _params(pattern=pattern,
                                                            mean_interarrival=target))
        measured = cirne.measured_mean_interarrival(jobs)
        # Submit times are whole seconds: the last one can be off by 0.5 s at most.
        assert abs(measured - target) <= 0.5 / 199 + 1e-9, (seed, measured)
        assert jobs[0].submit == 0
        assert all(b.submit >= a.submit for a, b in itertools.pairwise(jobs))


def test_rate_calibration_keeps_the_daily_cycle_nearly_intact() -> None:
    # The residual stretch after rate scaling is small for the HRF setting.
    for target in HRF_TARGETS:
        workload = cirne.build_cirne_workload(200, 5, _params(mean_interarrival=target))
        assert abs(workload.calibration.stretch - 1.0) < 0.02


def test_arrival_seconds_constant_rate_known_answer() -> None:
    # Rate 1/128 per second (exact in binary), threshold 2: job j arrives in
    # second 256 j - 1, across day boundaries too.
    rate = np.full(cirne.SECONDS_PER_DAY, 1 / 128)
    times = cirne.arrival_seconds(rate, 12345, 1000, 1.0)
    assert list(times[:3]) == [255, 511, 767]
    assert times[-1] == 256 * 1000 - 1


def test_arrival_seconds_uses_running_maximum() -> None:
    # Negative rate: the accumulator falls and must climb back before the next arrival.
    rate = np.zeros(cirne.SECONDS_PER_DAY)
    rate[0], rate[1], rate[2], rate[3] = 2.0, -1.0, 0.5, 2.5
    times = cirne.arrival_seconds(rate, 0, 3, 1.0)
    assert list(times) == [0, 3, cirne.SECONDS_PER_DAY]


def test_moldable_round_trip_through_swf(tmp_path: Path) -> None:
    params = _params(mean_interarrival=600)
    workload = cirne.build_cirne_workload(200, 7, params)
    path = tmp_path / "cirne.swf"
    path.write_text(cirne.format_moldable_swf(workload, 7, params), encoding="ascii")
    back = cirne.read_moldable_swf(path)
    assert len(back) == len(workload.jobs)
    for made, read in zip(workload.jobs, back, strict=True):
        assert (read.id, read.submit, read.procs) == (made.id, made.submit, made.procs)
        assert read.speedup == made.speedup
        assert read.runtime == made.runtime and read.estimate == made.runtime
        for procs in (1, 3, 32, 128):
            assert read.runtime_on(procs) == made.runtime_on(procs)


def test_jobs_are_consistent_moldable_jobs() -> None:
    for job in cirne.generate_cirne_jobs(300, 3, _params()):
        model = job.speedup
        assert isinstance(model, DowneySpeedup)
        assert model.work_L >= 1 and model.work_L == int(model.work_L)
        assert model.avg_parallelism_A >= 1 and model.sigma >= 0
        assert job.procs == min(128, model.max_useful_procs)
        assert job.runtime == model.runtime(job.procs) == job.estimate
        assert job.runtime_on(1) == model.work_L


def test_swf_job_lines_have_18_fields_and_ceil_runtime() -> None:
    text = get_model("cirne01").run(50, 1, {})
    jobs = cirne.parse_moldable_swf(text)
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith(";")]
    for line, job in zip(lines, jobs, strict=True):
        fields = line.split()
        assert len(fields) == 18
        assert int(fields[3]) == max(1, math.ceil(job.runtime)) == int(fields[8])
        assert int(fields[4]) == job.procs == int(fields[7])


def test_rigid_sizes_serial_fraction() -> None:
    # P(size = 1) = P(U <= 0.20) = 0.20 exactly (Cirne & Berman 2001;
    # docs/workloads-cirne-hyperexp.md);
    # 5 binomial standard errors with 100k draws.
    draws = 100_000
    sizes = cirne.rigid_sizes(cirne.make_streams(1)["nodes"], draws, 128)
    tolerance = 5 * math.sqrt(0.2 * 0.8 / draws)
    assert abs(np.mean(sizes == 1) - 0.2) < tolerance
    assert sizes.min() >= 1 and sizes.max() <= 128


def test_sigma_zero_fraction() -> None:
    # P(sigma = 0) = Phi(-1.209 / 1.132) = 0.1428; 5 binomial standard errors.
    draws = 100_000
    _, sigma = cirne.downey_parameters(cirne.make_streams(2), draws, 1.0)
    expected = 0.5 * math.erfc(1.209 / 1.132 / math.sqrt(2))
    assert abs(np.mean(sigma == 0) - expected) < 5 * math.sqrt(expected * (1 - expected) / draws)


@pytest.mark.parametrize(("name", "value", "allowed"), [
    ("mean_interarrival", "5", "float in [10, 10000000]"),
    ("procs", "0", "int in [1, 1000000]"),
    ("pattern", "llnl", "one of anl, ctc, kth, sdsc"),
    ("k_sigma", "-1", "float in [0, 10]"),
])
def test_out_of_range_parameter_is_input_error(name: str, value: str, allowed: str) -> None:
    with pytest.raises(InputError) as caught:
        get_model("cirne01").run(10, 1, {name: value})
    message = str(caught.value)
    assert name in message and allowed in message and "\n" not in message


def test_reader_rejects_job_without_downey_line() -> None:
    text = get_model("cirne01").run(3, 1, {})
    broken = "\n".join(ln for ln in text.splitlines() if not ln.startswith("; Downey: 2 "))
    with pytest.raises(InputError, match="job 2 has no '; Downey:' line"):
        cirne.parse_moldable_swf(broken, "x.swf")


def test_reader_rejects_short_job_line() -> None:
    text = get_model("cirne01").run(2, 1, {}) + "3 5 -1 7\n"
    with pytest.raises(InputError, match=r"x\.swf:\d+: expected 18 fields, found 4"):
        cirne.parse_moldable_swf(text, "x.swf")


def test_reader_rejects_bad_downey_values() -> None:
    text = get_model("cirne01").run(1, 1, {}).replace("; Downey: 1 ", "; Downey: 1 -4 ")
    with pytest.raises(InputError):
        cirne.parse_moldable_swf(text, "x.swf")
