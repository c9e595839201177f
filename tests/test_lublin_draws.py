"""The compiled Lublin draws: the same doubles as their source run by CPython, the same
values as before they were compiled (known answers), and the rejection guards.

The compiled functions of ``workloads/drand48.py`` and ``workloads/lublin_draws.py`` are
the only implementation. :func:`interpreted` runs their very source in CPython (every
compiled function replaced by its Python function, calls between them included), so a
difference in integer wrap-around, in the order of a sum or in the C library's ``log``,
``exp`` and ``pow`` between compiled code and CPython shows here as unequal doubles.
"""

from __future__ import annotations

import hashlib
import math
from types import FunctionType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba.core.registry import CPUDispatcher

from schedsim.errors import InputError
from schedsim.params import parse_params
from schedsim.workloads import drand48, lublin_draws
from schedsim.workloads.base import get_model
from schedsim.workloads.drand48 import Drand48, seed_state
from schedsim.workloads.lublin import ArrivalClock, RuntimeParams, daily_weights, lublin_runtime
from schedsim.workloads.lublin_los import PARAMS, LosConfig, draw_arrivals, stream

SEEDS = st.integers(0, 2**32 - 1)
# Shapes and scales of the models' gamma variates: the arrivals' aarr * arar (6-14) with
# barr (0.2-1.0 in the load calibration), the runtimes' a1, b1 and a2 up to 639, b2.
SHAPES = st.floats(0.05, 700.0)
SCALES = st.floats(0.01, 2.0)
FRACTIONS = st.floats(0.01, 0.99)
# Means (shape x scale) of the capped variates, well below their caps (12 and 13) as in
# the models (runtimes: 2.5-10; arrivals: 3-7, and up to 13.5 at the calibration's end).
MEANS = st.floats(2.0, 10.0)


def interpreted(*modules: Any) -> dict[str, Any]:
    """The modules' names, with every compiled function replaced by its source run by
    CPython in one namespace (so that they call each other interpreted too)."""
    namespace: dict[str, Any] = {}
    for module in modules:
        namespace.update(vars(module))
    for name, value in list(namespace.items()):
        if isinstance(value, CPUDispatcher):
            source = value.py_func
            namespace[name] = FunctionType(source.__code__, namespace, name,
                                           source.__defaults__, source.__closure__)
    return namespace


PYTHON = interpreted(drand48, lublin_draws)


def bits(values: Any) -> list[str]:
    """Doubles (or ints) as exact text: equal only when bit-identical."""
    return [v.hex() if isinstance(v, float) else repr(v) for v in np.ravel(values).tolist()]


def test_interpreted_functions_are_python_functions() -> None:
    for name in ("lcg_next", "lcg_sum_log", "gamma_variate", "arrival_times"):
        assert isinstance(PYTHON[name], FunctionType)
        assert PYTHON[name].__globals__ is PYTHON


# ------------------------------------------------------------ compiled == interpreted


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, count=st.integers(0, 1000))
def test_sum_log_is_the_left_to_right_loop(seed: int, count: int) -> None:
    rng, reference = Drand48(seed), Drand48(seed)
    expected = 0.0
    for _ in range(count):
        expected += math.log(reference.random())
    assert bits(rng.sum_log(count)) == bits(expected)
    assert rng.state == reference.state
    assert PYTHON["lcg_sum_log"](seed_state(seed), count) == (expected, reference.state)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, shape=SHAPES, scale=SCALES)
def test_gamma_variates_compiled_equal_interpreted(seed: int, shape: float,
                                                   scale: float) -> None:
    compiled, python = [], []
    state_c = state_p = seed_state(seed)
    for _ in range(4):
        value, state_c = lublin_draws.gamma_variate(state_c, shape, scale)
        compiled.append(value)
        value, state_p = PYTHON["gamma_variate"](state_p, shape, scale)
        python.append(value)
        assert state_c == state_p
    assert bits(compiled) == bits(python)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, alpha=FRACTIONS, beta=FRACTIONS)
def test_beta_compiled_equals_interpreted(seed: int, alpha: float, beta: float) -> None:
    state = seed_state(seed)
    compiled = lublin_draws.beta_below_one(state, alpha, beta)
    assert bits(compiled) == bits(PYTHON["beta_below_one"](state, alpha, beta))
    assert 0.0 <= compiled[0] <= 1.0


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, nodes=st.lists(st.integers(1, 320), min_size=1, max_size=40),
       pa=st.floats(-0.02, 0.0), pb=st.floats(0.0, 1.2), a1=st.floats(3.0, 7.0),
       mean1=MEANS, a2=st.floats(7.0, 640.0), mean2=MEANS)
def test_runtimes_compiled_equal_interpreted(seed: int, nodes: list[int], pa: float,
                                             pb: float, a1: float, mean1: float, a2: float,
                                             mean2: float) -> None:
    args = (seed_state(seed), np.array(nodes, dtype=np.float64), pa, pb, a1, mean1 / a1, a2,
            mean2 / a2, 12.0)
    runtimes, state = lublin_draws.hyper_gamma_runtimes(*args)
    expected, expected_state = PYTHON["hyper_gamma_runtimes"](*args)
    assert bits(runtimes) == bits(expected)
    assert state == expected_state
    assert (runtimes >= 1).all()


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, shape=st.floats(1.0, 20.0), mean=MEANS,
       anum=st.floats(6.0, 16.0), bnum=st.floats(0.9, 5.5), day_start=st.integers(1, 48),
       bucket=st.integers(0, 47), count=st.integers(1, 60))
def test_arrivals_compiled_equal_interpreted(seed: int, shape: float, mean: float,
                                             anum: float, bnum: float, day_start: int,
                                             bucket: int, count: int) -> None:
    weights = np.array(daily_weights(anum, bnum, day_start))
    args = (seed_state(seed), count, weights, shape, mean / shape, 13.0, bucket, 0.0, 0.0, 0)
    compiled = lublin_draws.arrival_times(*args)
    python = PYTHON["arrival_times"](*args)
    assert bits(compiled[0]) == bits(python[0])
    assert bits(list(compiled[1:])) == bits(list(python[1:]))
    assert len(compiled[0]) == count and (np.diff(compiled[0]) >= 0).all()


# ------------------------------------------------------- known answers (pre-compiled)

# Values of the Python implementation this compiled one replaced (same seeds, same
# parameters): three variates from Drand48(seed) and the state after them.
GAMMA_KNOWN = {
    (1, 13.5285, 0.5101): ("9.567790860565855", "7.5746357690897606", "5.597591827691951",
                           276500396950056),
    (7, 312.0, 0.03): ("10.541052212605866", "10.653280305789437", "10.228502261730426",
                       135431061809846),
    (42, 0.7, 2.0): ("4.2140113527551", "0.30969529969492776", "0.6004822492784382",
                     194446416672361),
    (3, 4.2, 0.94): ("2.8942227327817935", "4.191272559682611", "5.957968009798083",
                     263968278210587),
}


@pytest.mark.parametrize(("seed", "shape", "scale"), sorted(GAMMA_KNOWN))
def test_gamma_variates_known(seed: int, shape: float, scale: float) -> None:
    state = seed_state(seed)
    values = []
    for _ in range(3):
        value, state = lublin_draws.gamma_variate(state, shape, scale)
        values.append(value)
    *expected, expected_state = GAMMA_KNOWN[(seed, shape, scale)]
    assert bits(values) == bits([float(v) for v in expected])
    assert state == expected_state


def test_los_arrivals_known() -> None:
    config = LosConfig.from_values(parse_params(PARAMS, {}, "test"))
    times = draw_arrivals(stream(5, 0), 1000, config)
    assert times[:5] == [18039, 18065, 18727, 18845, 19852]
    assert (times[-1], sum(times)) == (6686811, 3616493137)


# The whole file text's SHA-256 as the Python implementation wrote it.
FILES_KNOWN = [
    ("lublin-los", 200, 3, {"load": 0.9, "ps": 0.5, "pd": 0.5},  # barr calibrated
     "26960a91b7c981f66087c776f8157521a58dbec8d6f4f9c96c6dfc1063b58864"),
    ("lublin-los", 300, 11, {"barr": 0.45, "pe": 0.3},
     "f246ab4206fae90ffb874374b28c331f4922ecc0e8ed258e40fd83c6efab3881"),
    ("lublin99", 2000, 9, {"typed": False},
     "985d43d14eee6e923cc588f96dffc395c0a0a3794d85f9cd55fab85c2a217ebd"),
]


@pytest.mark.parametrize(("model", "jobs", "seed", "params", "digest"), FILES_KNOWN)
def test_whole_files_known(model: str, jobs: int, seed: int, params: dict,
                           digest: str) -> None:
    text = get_model(model).run(jobs, seed, params)
    assert hashlib.sha256(text.encode()).hexdigest() == digest


# ------------------------------------------------------------------- rejection guards


def test_an_arrival_cap_that_rejects_everything_is_an_input_error() -> None:
    clock = ArrivalClock([1.0] * lublin_draws.BUCKETS, shape=13.5, scale=0.5, cap=1.0,
                         start_hour=0)
    with pytest.raises(InputError, match=r"too_much_arrive_time=1\.0 rejects almost every"):
        clock.arrivals(Drand48(1), 3)


def test_a_runtime_cap_that_rejects_everything_is_an_input_error() -> None:
    runtime = RuntimeParams(4.2, 0.94, 312.0, 0.03, 0.0, -1.0)
    with pytest.raises(InputError, match=r"too_much_time=1\.0 rejects almost every"):
        lublin_runtime(Drand48(1), runtime, 32, 1.0)  # p = 0: always gamma(312, 0.03)
