"""lublin99: bit-exact known answers from m_lublin99.c, statistics, parameters, SWF text."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from itertools import pairwise

import pytest

from schedsim.errors import InputError
from schedsim.workloads.base import get_model
from schedsim.workloads.lublin import (
    LublinJob,
    daily_weights,
    format_lublin_swf,
    generate_lublin,
    records_to_jobs,
)

# C reference check values, seed 1 (workload notes, sec. 1.6): job, submit, runtime, nodes, type.
TYPELESS_FIRST_10 = [
    (1, 5362, 6, 4, 0), (2, 6406, 18, 8, 0), (3, 6556, 10804, 32, 0), (4, 6826, 30605, 32, 0),
    (5, 26725, 1087, 2, 0), (6, 26853, 8946, 16, 0), (7, 28236, 7496, 64, 0),
    (8, 32011, 9672, 64, 0), (9, 32080, 6563, 44, 0), (10, 32120, 13461, 32, 0),
]
TYPED_FIRST_10 = [
    (1, 273, 8, 8, 0), (2, 1579, 5, 8, 0), (3, 1601, 7, 4, 0), (4, 1729, 2, 6, 0),
    (5, 1785, 61, 8, 0), (6, 1809, 13, 4, 0), (7, 1840, 12, 4, 0), (8, 1967, 82, 4, 0),
    (9, 1999, 34, 4, 0), (10, 2034, 59, 1, 0),
]
# 10,000 jobs: sum of runtimes, sum of nodes, last submit.
CHECKSUMS = {False: (43_305_949, 122_474, 8_862_906), True: (13_855_579, 91_060, 5_246_501)}

# Typeless half-hour weights, buckets 0..47, to 3 decimals (notes, sec. 1.3).
TYPELESS_WEIGHTS = (
    "0.508 0.456 0.409 0.365 0.325 0.289 0.256 0.226 0.200 0.176 0.165 0.239 0.329 0.435 "
    "0.554 0.684 0.821 0.961 1.100 1.235 1.362 1.477 1.579 1.664 1.733 1.784 1.817 1.833 "
    "1.832 1.815 1.785 1.741 1.687 1.624 1.554 1.478 1.398 1.315 1.231 1.147 1.064 0.983 "
    "0.904 0.828 0.756 0.688 0.624 0.564"
)


@pytest.fixture(scope="module")
def seed1_runs() -> dict[bool, list[LublinJob]]:
    return {typed: generate_lublin(10_000, 1, typed=typed) for typed in (False, True)}


# --------------------------------------------------------------------------------------
# Known answers (bit-exact with the C reference)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "expected"), [(False, TYPELESS_FIRST_10),
                                                 (True, TYPED_FIRST_10)])
def test_first_ten_jobs_seed_1(seed1_runs, typed: bool, expected: list[tuple]) -> None:
    assert [tuple(job) for job in seed1_runs[typed][:10]] == expected


@pytest.mark.parametrize("typed", [False, True])
def test_checksums_seed_1(seed1_runs, typed: bool) -> None:
    jobs = seed1_runs[typed]
    got = (sum(j.runtime for j in jobs), sum(j.nodes for j in jobs), jobs[-1].submit)
    assert got == CHECKSUMS[typed]


def test_swf_lines_as_the_reference_prints_them(seed1_runs) -> None:
    text = format_lublin_swf(seed1_runs[False][:3])
    lines = text.splitlines()
    assert lines[:7] == [
        "; Version: 2",
        "; Acknowledge: Uri Lublin, Hebrew University",
        "; Information: http://www.cs.huji.ac.il/labs/parallel/workload",
        "; MaxJobs: 3",
        "; MaxRecords: 3",
        "; MaxNodes: 128",
        "; MaxRuntime: 162754",
    ]
    assert lines[7] == "    1    5362 -1       6   4 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1"
    assert lines[9] == "    3    6556 -1   10804  32 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1"


# C reference statistics for seeds 2 and 3 (notes, sec. 1.6), at their printed precision.
C_SEED_STATS = {
    (False, 2): {"rt_mean": 4348.5, "sz_mean": 12.26, "serial": 24.34, "pow2par": 82.18,
                 "ia_mean": 885.0, "batch": 0.0},
    (False, 3): {"rt_mean": 4348.0, "sz_mean": 11.78, "serial": 24.77, "pow2par": 83.17,
                 "ia_mean": 912.0, "batch": 0.0},
    (True, 2): {"rt_mean": 1884.1, "sz_mean": 9.25, "serial": 17.88, "pow2par": 83.65,
                "ia_mean": 503.2, "batch": 17.6, "load": 0.577},
    (True, 3): {"rt_mean": 1775.1, "sz_mean": 9.01, "serial": 17.56, "pow2par": 83.21,
                "ia_mean": 527.3, "batch": 16.5, "load": 0.427},
}


@pytest.mark.parametrize(("typed", "seed"), sorted(C_SEED_STATS))
def test_statistics_of_c_seeds_2_and_3(typed: bool, seed: int) -> None:
    got = summary(generate_lublin(10_000, seed, typed=typed))
    for name, value in C_SEED_STATS[(typed, seed)].items():
        decimals = len(str(value).partition(".")[2])
        assert round(got[name], decimals) == pytest.approx(value), name


def test_daily_weights_match_reference() -> None:
    weights = daily_weights(8.1737, 3.9631, 11)
    assert " ".join(f"{w:.3f}" for w in weights) == TYPELESS_WEIGHTS
    assert sum(weights) / len(weights) == pytest.approx(1.0)


# --------------------------------------------------------------------------------------
# Statistics against the reference (sampling error)
# --------------------------------------------------------------------------------------


def summary(jobs: Sequence[LublinJob]) -> dict[str, float]:
    """The statistics of notes sec. 1.6 (percentages in %)."""
    runtimes = [j.runtime for j in jobs]
    sizes = [j.nodes for j in jobs]
    parallel = [s for s in sizes if s > 1]
    gaps = [b.submit - a.submit for a, b in pairwise(jobs)]
    work = sum(r * s for r, s in zip(runtimes, sizes, strict=True))
    return {
        "rt_mean": statistics.fmean(runtimes),
        "rt_median": statistics.median(runtimes),
        "sz_mean": statistics.fmean(sizes),
        "serial": 100 * sizes.count(1) / len(sizes),
        "pow2par": 100 * sum(1 for s in parallel if s & (s - 1) == 0) / len(parallel),
        "ia_mean": statistics.fmean(gaps),
        "ia_median": statistics.median(gaps),
        "batch": 100 * sum(j.queue for j in jobs) / len(jobs),
        "load": work / (128 * (jobs[-1].submit - jobs[0].submit)),
    }


# Reference value = mean of the C runs for seeds 1-3 (notes, sec. 1.6). SD = the standard
# deviation of the statistic between 10,000-job runs, measured over 60 seeds (100..159)
# of this generator (bit-exact with C, so it is the C's sampling spread), rounded up.
# A run passes if |value - reference| <= 4 * SD * sqrt(1 + 1/3): 4 standard deviations of
# the difference between one run and a 3-run mean (false alarm about 6e-5 per statistic).
REFERENCE = {
    False: {"rt_mean": (4342.4, 75), "rt_median": (106.7, 4.2), "sz_mean": (12.10, 0.22),
            "serial": (24.38, 0.47), "pow2par": (82.83, 0.41), "ia_mean": (894.3, 64),
            "ia_median": (116.0, 3.0), "load": (0.711, 0.058)},
    True: {"rt_mean": (1681.6, 235), "rt_median": (18.0, 1.2), "sz_mean": (9.12, 0.18),
           "serial": (17.54, 0.42), "pow2par": (83.54, 0.47), "ia_mean": (518.4, 48),
           "batch": (15.67, 2.41), "load": (0.455, 0.058)},
}
SIGMAS = 4 * (1 + 1 / 3) ** 0.5


def deviations(stats: dict[str, float], typed: bool) -> dict[str, float]:
    """|value - reference| in units of the allowed tolerance (> 1 means out of range)."""
    return {name: abs(stats[name] - ref) / (SIGMAS * sd)
            for name, (ref, sd) in REFERENCE[typed].items()}


@pytest.mark.parametrize(("typed", "seed"), [(False, 2024), (True, 2024)])
def test_statistics_agree_with_reference(typed: bool, seed: int) -> None:
    stats = summary(generate_lublin(10_000, seed, typed=typed))
    assert {n: round(d, 2) for n, d in deviations(stats, typed).items() if d > 1} == {}


def test_statistics_detect_a_wrong_model() -> None:
    """Power check: a serial fraction 4.6 points off, or a 7% larger arrival scale, is caught."""
    wrong_size = summary(generate_lublin(10_000, 2024, typed=False, serial_prob=0.29))
    assert deviations(wrong_size, False)["serial"] > 1
    wrong_arrivals = summary(generate_lublin(10_000, 2024, typed=False, barr=0.52))
    assert deviations(wrong_arrivals, False)["ia_mean"] > 1


# --------------------------------------------------------------------------------------
# Determinism, parameters, registry
# --------------------------------------------------------------------------------------


def test_same_seed_same_text_different_seed_different_text() -> None:
    model = get_model("lublin99")
    first = model.run(300, 5, {"typed": "false"})
    assert model.run(300, 5, {"typed": "false"}) == first
    assert model.run(300, 6, {"typed": "false"}) != first


def test_header_notes_record_seed_and_changed_parameters() -> None:
    text = get_model("lublin99").run(5, 9, {"typed": "false", "barr": "0.5"})
    assert "; Note: schedsim lublin99, srand48 seed 9, typeless" in text
    assert "; Note: parameters: typed=false barr=0.5" in text


@pytest.mark.parametrize(("name", "value", "allowed"), [
    ("serial_prob", "1.5", "float in [0, 1]"),
    ("uprob_batch", "-0.1", "float in [0, 1]"),
    ("a1_active", "0", "float in [1e-06, 10000]"),
    ("start_hour", "24", "int in [0, 23]"),
    ("typed", "maybe", "true or false"),
])
def test_out_of_range_parameter_names_allowed_range(name: str, value: str, allowed: str) -> None:
    with pytest.raises(InputError) as err:
        get_model("lublin99").run(10, 1, {name: value})
    message = str(err.value)
    assert f"parameter {name}=" in message and allowed in message and "\n" not in message


def test_cross_parameter_errors() -> None:
    with pytest.raises(InputError, match=r"uhi=8.0 allows jobs of 256 nodes > nodes=128"):
        generate_lublin(10, 1, typed=False, uhi=8)
    with pytest.raises(InputError, match="ulow <= umed <= uhi"):
        generate_lublin(10, 1, typed=True, umed_batch=0.5)
    with pytest.raises(InputError, match="unknown parameter 'bogus'"):
        generate_lublin(10, 1, bogus=1)
    with pytest.raises(InputError, match="jobs=0"):
        generate_lublin(0, 1)


def test_per_type_names_apply_only_to_their_mode() -> None:
    base_typed = generate_lublin(200, 3, typed=True)
    assert generate_lublin(200, 3, typed=True, a1_active=5.0) != base_typed
    assert generate_lublin(200, 3, typed=True, a1=5.0) == base_typed  # typeless set unused
    base_typeless = generate_lublin(200, 3, typed=False)
    assert generate_lublin(200, 3, typed=False, a1_batch=9.0) == base_typeless


def test_start_hour_and_larger_machine() -> None:
    later = generate_lublin(50, 1, typed=False, start_hour=8)
    assert later != generate_lublin(50, 1, typed=False)
    big = generate_lublin(2000, 1, typed=False, nodes=1024, uhi=10, umed=7.5)
    assert max(j.nodes for j in big) > 128 and max(j.nodes for j in big) <= 1024


def test_records_to_jobs() -> None:
    records = generate_lublin(20, 1, typed=True)
    jobs = records_to_jobs(records)
    assert [j.id for j in jobs] == list(range(1, 21))
    assert all(j.estimate == j.runtime == r.runtime and j.procs == r.nodes
               for j, r in zip(jobs, records, strict=True))
