"""A fuzzer of the workflow config: valid configs, mutated, through the checks and the plan.

Each example starts from the .test configuration (one family or all of them), applies
one to three mutations (a key renamed or dropped, a value of another type or out of
range, an unknown name, an unknown key added) and goes where the workflow goes
(workflow/rules/common.smk): the config checks (``configcheck.config_problem``), the
schema's defaults (Snakemake's ``validate``), the plan with its workload batches and JSON
specs. Every example ends in a plan or in one clear error: an ``InputError`` or
``ValueError`` of one line that names where the problem is (a key, the target or the
family of a mutation, or the value put there) and is not a message of Python's own
(``could not convert``, ``object has no attribute``, ...); never another exception.

CI runs a short fuzz; ``SCHEDSIM_CONFIG_FUZZ_EXAMPLES=20000 python -m pytest -n 0
tests/test_config_fuzz.py`` is the long run recorded in docs/reliability.md.
"""

from __future__ import annotations

import copy
import math
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from schedsim.errors import InputError
from schedsim.experiments import plan as plan_module
from schedsim.experiments.configcheck import SCHEMA_PATH, config_problem, load_schema
from schedsim.experiments.spec import to_json

EXAMPLES = int(os.environ.get("SCHEDSIM_CONFIG_FUZZ_EXAMPLES", "100"))
ROOT = Path(__file__).resolve().parents[1]
BASE = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
FAMILIES = ("hrf", "los", "goal", "ihap", "slack")
SCHEMA = load_schema()

VALUES = st.one_of(
    st.sampled_from([0, -1, -5, 1, 2, 7, 2**32, 2**32 - 1, 2**63, 10**12, 0.5, 1.5, -0.5,
                     math.nan, math.inf, -math.inf, True, False, None, "", "x", "1_000",
                     "EASY", "los", "LOS", "easy", "HRFBf", "alhpa", "ps", "load", "G1",
                     "2004-13", "2004-01", "HPC2N", "KTH-SP2", "nope", "HRF-F5", "LOS-F5",
                     "sweep", "derived", [], {}, [1, 1], [0.5, 0.5], [-1], ["easy"],
                     ["Nope"], [None], {"a": 1}, {"name": "x"}, [[1]]]),
    st.integers(-10**6, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.lists(st.one_of(st.integers(-3, 5), st.text(max_size=3)), max_size=3),
).map(copy.deepcopy)  # a later mutation may change a drawn list or mapping in place
def _names() -> list[str]:
    """Names a config uses: policies (and their case variants), parameters, targets, logs,
    models, axes."""
    from schedsim.policies.registry import all_policies
    from schedsim.workloads.base import all_models

    policies = all_policies()
    names = {*policies, *(n.lower() for n in policies), *(n.upper() for n in policies)}
    names |= {spec.name for entry in policies.values() for spec in entry.specs()}
    names |= {spec.name for model in all_models().values() for spec in model.params}
    names |= set(all_models()) | set(BASE["traces"]["logs"])
    names |= {t for family in FAMILIES for t in (BASE[family].get("targets") or {})}
    return sorted(names | {"ps", "pd", "load", "aarr", "cva", "utilization", "G1", "G2",
                           "light", "heavy", "grid", "sweep", "table", "AWT", "MRT"})


NAMES = _names()


@st.composite
def replacements(draw: st.DrawFn, old: Any) -> Any:
    """A new value for ``old``: mostly of its type (another name, number or list), else
    anything."""
    if draw(st.integers(0, 9)) < 3 or isinstance(old, dict):
        return draw(VALUES)
    if isinstance(old, bool):
        return not old
    if isinstance(old, int | float):
        return draw(st.one_of(st.sampled_from([0, -1, old * 10, old / 3, -old, 2**40]),
                              st.integers(-100, 100)))
    if isinstance(old, str):
        return draw(st.one_of(st.sampled_from(NAMES), st.integers(0, 99).map(
            lambda how: typo(old, how))))
    if isinstance(old, list) and old:
        new = list(old)
        new[draw(st.integers(0, len(old) - 1))] = draw(replacements(old[0]))
        return new
    return draw(VALUES)


# Messages of Python's own: a mistake that reached code that did not check it.
PYTHON_PHRASES = ("could not convert", "invalid literal", "object has no attribute",
                  "unhashable", "not subscriptable", "is not iterable", "nonetype",
                  "unsupported operand", "argument of type", "takes no", "required positional",
                  "not supported between", "expected str", "index out of range",
                  "object is not", "must be real number", "got an unexpected",
                  "cannot convert", "division by zero", "math domain")


def typo(name: str, how: int) -> str:
    """A misspelling of ``name``: two letters swapped, one dropped, doubled, upper case."""
    if len(name) < 2:
        return name + "x"
    i = how % (len(name) - 1)
    return [name[:i] + name[i + 1] + name[i] + name[i + 2:], name[:i] + name[i + 1:],
            name[:i] + name[i] + name[i:], name.upper(), name + "s"][how % 5]


@st.composite
def paths(draw: st.DrawFn, config: Any) -> list[Any]:
    """A path to a node of ``config``: each step goes one level down, or stops; half of
    the paths start at a target of an enabled family, where the planner's checks are."""
    path: list[Any] = []
    node = config
    targets = [(family, target) for family in FAMILIES
               if isinstance(config.get(family), dict)
               and isinstance(config[family].get("targets"), dict)
               for target in config[family]["targets"]]
    if targets and draw(st.booleans()):
        family, target = draw(st.sampled_from(targets))
        path = [family, "targets", target]
        node = config[family]["targets"][target]
    while isinstance(node, dict | list) and node and (not path or draw(st.integers(0, 4))):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = draw(st.sampled_from(keys))
        path.append(key)
        node = node[key]
    return path


def parent_of(config: Any, path: list[Any]) -> Any:
    node = config
    for key in path[:-1]:
        node = node[key]
    return node


@st.composite
def mutated_configs(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    """(a mutated config, the names a message about it may give: the keys on the
    mutated paths and the values put there)."""
    config = copy.deepcopy(BASE)
    kept = draw(st.sampled_from(["all", *FAMILIES]))
    for family in FAMILIES:
        if kept not in ("all", family):
            config[family] = {"enabled": False}
    names: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        path = draw(paths(config))
        if not path:
            continue
        parent, key = parent_of(config, path), path[-1]
        names += [str(k) for k in path]
        action = draw(st.sampled_from(["value"] * 6 + ["rename", "rename", "drop", "add"]))
        if action == "value" or isinstance(parent, list):
            value = draw(replacements(parent[key]))
            parent[key] = value
            names.append(str(value))
        elif action == "rename":
            new = typo(str(key), draw(st.integers(0, 99)))
            parent[new] = parent.pop(key)
            names.append(new)
        elif action == "drop":
            del parent[key]
        else:
            new = draw(st.sampled_from(["extra", "polices", "sweeps", "seed", "enable"]))
            parent[new] = draw(VALUES)
            names.append(new)
    return config, names


def plan_like_the_workflow(config: dict[str, Any]) -> None:
    """What workflow/rules/common.smk does with a config, short of running jobs."""
    from snakemake.utils import validate

    problem = config_problem(config, SCHEMA)
    if problem is not None:
        raise InputError(str(problem))
    validate(config, str(SCHEMA_PATH))
    plan = plan_module.build_plan(config, base=ROOT)
    for spec in [*plan.points.values(), *plan.targets.values(), *plan.batches.values()]:
        to_json(spec)


def _kind_of(message: str) -> str:
    """What an error is about, for the statistics (``--hypothesis-show-statistics``)."""
    for words in ("unknown section", "unknown key", "YAML", "is not", "out of range",
                  "unknown policy", "unknown parameter", "is invalid", "variant axis",
                  "missing key", "policy", "parameter", "seed", "repeats", "give exactly"):
        if words in message:
            return words
    return "other"


@pytest.fixture(autouse=True)
def logs_found_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every log is found (a path; the plan does not read it) and nothing is fetched."""
    monkeypatch.setattr(plan_module, "find",
                        lambda log, settings, base: Path("/logs") / log.file)
    monkeypatch.setattr(plan_module, "reachable", lambda url, timeout: "offline")


def test_the_base_config_plans() -> None:
    plan_like_the_workflow(copy.deepcopy(BASE))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 1000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(mutated=mutated_configs())
def test_a_mutated_config_plans_or_gets_one_clear_error(
        mutated: tuple[dict[str, Any], list[str]]) -> None:
    config, names = mutated
    try:
        plan_like_the_workflow(config)
        event("a plan")
    except (InputError, ValueError) as err:
        message = str(err)
        event(f"an error: {_kind_of(message)}")
        assert "\n" not in message.strip(), (message, names)
        lowered = message.lower()
        assert not any(phrase in lowered for phrase in PYTHON_PHRASES), (message, names)
        whole = message.startswith("no target is enabled")  # e.g. the one family dropped
        assert whole or any(name and name in message for name in names), (message, names)
    except Exception as err:  # any other exception is the finding
        raise AssertionError(f"{type(err).__name__}: {err} (mutated: {names})") from None
