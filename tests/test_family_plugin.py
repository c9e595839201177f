"""A new family costs one module: a toy family, written here, plugs into every stage.

The module (written to a temporary directory, outside the package) defines the
family's variants and machine, a worked example, a derived table, a figure of its
own and a claim; its config section goes through the unchanged schema, planner,
runner, aggregation, chosen-parameter files, generic figures and claims
(docs/architecture.md, "Adding a family").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from schedsim import claims
from schedsim.aggregate import write_csv
from schedsim.experiments.commands.aggregate import target_table
from schedsim.experiments.commands.choose import choose
from schedsim.experiments.kinds import table_path
from schedsim.experiments.plan import build_plan
from schedsim.experiments.run import run_point, write_rows_parquet
from schedsim.plots import target_figure
from schedsim.workloads.base import get_model

ROOT = Path(__file__).resolve().parents[1]

TOY_MODULE = '''
"""A toy family: lublin99 workloads on a small machine, two sizes of machine load."""

from schedsim.claims import claim
from schedsim.tables import per_seed
from schedsim.verdicts import Pair, at_or_below
from schedsim.experiments.family import Family, Variant, axis_product
from schedsim.experiments.family import derived_function, example_function
from schedsim.plots import panels, register_figure


class ToyFamily(Family):
    name = "toy"
    variant_column = "workload"

    def variants(self, section, values, panel):
        nodes = int(section["machine"]["procs"])
        return [Variant(f"hour{case['hour']}", {"nodes": nodes, "start_hour": case["hour"]},
                        {"hour": case["hour"]})
                for case in axis_product({"hour": values.get("hour", [0, 12])})]


FAMILY = ToyFamily()


@example_function("toy-example")
def example(spec):
    import pandas as pd

    return pd.DataFrame({"target": [spec.target], "answer": [42]})


@derived_function("toy-best")
def best(spec, tables):
    import pandas as pd

    table = tables[spec.sources[0]]
    row = table.sort_values("AWT_mean").iloc[0]
    return pd.DataFrame({"target": [spec.target], "best": [row["policy"]]})


@register_figure("toy-bars")
def bars(table, spec):
    fig, (ax,) = panels(1)
    ax.bar(range(len(table)), table["AWT_mean"])
    return fig


@claim("toy", "TOY-F1", "F1-easy-not-worse", "EASY waits no longer than FCFS", "EASY <= FCFS")
def easy_not_worse(tables, settings):
    seeds = tables["TOY-F1.seeds"]
    def awt(policy, workload):
        return per_seed(seeds, "AWT", {"policy": policy, "workload": workload})

    return at_or_below([Pair(w, awt("easy", w), awt("fcfs", w))
                        for w in sorted(set(seeds["workload"]))], 0.1)
'''

TOY_SECTION: dict[str, Any] = {
    "enabled": True,
    "module": "toy_family",
    "seeds": {"start": 1, "count": 2},
    "machine": {"procs": 32},
    "jobs": 60,
    "workload": {"model": "lublin99", "params": {"typed": False, "uhi": 5.0}},
    "targets": {
        "TOY-F1": {"policies": ["fcfs", "easy", "conservative"], "variants": {"hour": [0, 12]},
                   "figure": {"name": "toy-bars"}},
        "TOY-F2": {"panels": [{"name": "all", "policies": ["easy", "LOS", "Delayed-LOS"]}],
                   "variants": {"hour": 0}, "sweep": {"c_s": [1, 3]}, "inner": ["c_s"],
                   "choose": {"param": "c_s", "metric": "AWT"},
                   "figure": {"name": "grid", "metrics": ["AWT"]}},
        "TOY-F3": {"panels": [{"name": "chosen", "policies": ["Delayed-LOS"],
                               "chosen": {"c_s": "TOY-F2"}}], "x": "hour",
                   "figure": {"name": "grid", "metrics": ["AWT"]}},
        "TOY-T1": {"kind": "derived", "function": "toy-best", "sources": ["TOY-F1"]},
        "TOY-T2": {"kind": "example", "function": "toy-example"},
    },
}


@pytest.fixture()
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "toy_family.py").write_text(textwrap.dedent(TOY_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_toy_family_runs_through_every_stage(toy: Path) -> None:
    plan = build_plan({"toy": TOY_SECTION})
    assert set(plan.targets) == {"TOY-F1", "TOY-F2", "TOY-F3", "TOY-T1", "TOY-T2"}
    assert len(plan.workloads) == 2 * 2
    for path, workload in plan.workloads.items():
        text = get_model(workload["model"]).run(workload["jobs"], workload["seed"],
                                                workload["params"])
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    for target in ("TOY-F1", "TOY-F2", "TOY-T1", "TOY-T2", "TOY-F3"):
        spec = plan.targets[target]
        for point in plan.points.values():
            if point.target == target:
                write_rows_parquet(run_point(point), point.run_path, {})
        table, seeds = target_table(spec, plan.inputs_of[target])
        write_csv(table, table_path(target))
        write_csv(seeds, table_path(target, seeds=True))
        if spec.choose is not None:
            chosen = choose(spec, table_path(target))
            Path(plan.choosing[target]).parent.mkdir(parents=True, exist_ok=True)
            Path(plan.choosing[target]).write_text(json.dumps(chosen))
        if Path(table_path(target, seeds=True)).exists():
            table.attrs["seeds"] = pd.read_csv(table_path(target, seeds=True))
        target_figure(table, spec, toy / f"{target}.png", toy / f"{target}.pdf")
        assert (toy / f"{target}.png").stat().st_size > 1000
    f3 = pd.read_csv(table_path("TOY-F3"))
    assert set(f3["c_s"]) == {json.loads(Path(plan.choosing["TOY-F2"]).read_text())["c_s"]}
    assert pd.read_csv(table_path("TOY-T2"))["answer"].iloc[0] == 42
    tables = {t: pd.read_csv(table_path(t)) for t in plan.targets}
    tables.update({f"{t}.seeds": pd.read_csv(table_path(t, seeds=True)) for t in plan.targets
                   if Path(table_path(t, seeds=True)).exists()})
    result = claims.evaluate(["toy"], tables, {})
    assert list(result["claim_id"]) == ["F1-easy-not-worse"]
    assert result["verdict"].iloc[0] in {"reproduced", "contradicted", "inconclusive"}


def test_the_toy_section_passes_the_unchanged_schema() -> None:
    from snakemake.utils import validate

    config = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    config["toy"] = json.loads(json.dumps(TOY_SECTION))
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))


@pytest.mark.workflow
def test_the_workflow_runs_the_toy_family(toy: Path) -> None:
    """``snakemake`` with only the toy family: the unchanged rules make every output."""
    if shutil.which("snakemake", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("snakemake is not installed beside this Python")
    config = {"seeds": {"start": 1, "count": 2}, "hrf": {"enabled": False},
              "los": {"enabled": False}, "traces": {}, "toy": TOY_SECTION}
    (toy / "config.yaml").write_text(yaml.safe_dump(config))
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}{toy}")
    result = subprocess.run(["snakemake", "--cores", "2", "--snakefile", str(ROOT / "Snakefile"),
                             "--configfile", str(toy / "config.yaml"), "--directory", str(toy)],
                            cwd=ROOT, env=env, capture_output=True, text=True, check=False,
                            timeout=600)
    text = result.stdout + result.stderr
    assert result.returncode == 0, text[-3000:]
    results = toy / "results"
    assert json.loads((results / "chosen" / "TOY-F2.json").read_text())["c_s"] in (1, 3)
    for target in TOY_SECTION["targets"]:
        assert (results / "figures" / f"{target}.png").stat().st_size > 1000
    claims_table = pd.read_csv(results / "claims.csv")
    assert list(claims_table["claim_id"]) == ["F1-easy-not-worse"]
