"""A policy of one's own: the example policy through its entry point, by its file, in a
config's plugins list, with its code hashed; and the errors a bad plugin gets."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from schedsim.cli import main
from schedsim.errors import InputError
from schedsim.experiments import provenance
from schedsim.experiments.plan import build_plan
from schedsim.policies import plugins, registry
from schedsim.workloads.swf import read_swf

from helpers import cli_run as run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "my_policy"
REFERENCE = f"{EXAMPLE / 'my_policy.py'}:ShortestJobFirst"



@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("w") / "w.swf"
    assert main(["generate", "lublin99", "--jobs", "150", "--seed", "4", "--out",
                 str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example package installed (pip, no network) into a directory of its own."""
    target, source = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "my_policy.py"):  # the build writes beside its sources
        shutil.copy2(EXAMPLE / name, source / name)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return target


def cli(*args: str, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "schedsim.cli", *args], capture_output=True,
                          text=True, timeout=300, env=env, check=False)


def schedule(path: Path) -> list[tuple[int, float, float]]:
    return [(r.job, r.wait, r.run) for r in read_swf(path).records]


def test_the_example_runs_through_its_entry_point_and_by_its_file(
        tmp_path: Path, workload: Path, installed: Path) -> None:
    listed = cli("policies", site=installed)
    assert listed.returncode == 0, listed.stderr
    assert "\nplugin:\n  sjf-easy: EASY with shortest-job-first backfilling." in listed.stdout
    assert "from entry point sjf-easy = my_policy:ShortestJobFirst" in listed.stdout
    by_name, by_file = tmp_path / "name.swf", tmp_path / "file.swf"
    result = cli("simulate", str(workload), "--policy", "sjf-easy", "--out", str(by_name),
                 site=installed)
    assert result.returncode == 0, result.stderr
    assert run(["simulate", str(workload), "--policy", REFERENCE, "--out", str(by_file)])[0] == 0
    assert schedule(by_name) == schedule(by_file)
    # not simply EASY: the shortest waiting job backfills first
    easy = tmp_path / "easy.swf"
    assert run(["simulate", str(workload), "--policy", "easy", "--out", str(easy)])[0] == 0
    assert schedule(easy) != schedule(by_file)
    # its settings and its needs are those of any policy
    code, err = run(["simulate", str(workload), "--policy", REFERENCE, "--param", "key=size",
                     "--out", str(tmp_path / "x.swf")])
    assert code == 2 and "parameter key='size' is invalid; allowed: one of estimate, area" in err


def test_the_example_refuses_what_it_does_not_take(tmp_path: Path) -> None:
    moldable = tmp_path / "m.swf"
    assert main(["generate", "cirne01", "--jobs", "30", "--seed", "1", "--out",
                 str(moldable)]) == 0
    code, err = run(["simulate", str(moldable), "--policy", REFERENCE, "--out",
                     str(tmp_path / "o.swf")])
    assert code == 2 and "policy sjf-easy needs rigid jobs; this run has moldable jobs" in err


@pytest.mark.parametrize(("source", "fragment"), [
    ("", "defines no ShortestJobFirst; its classes: (none)"),
    ("class ShortestJobFirst:\n    pass\n", "is not a policy class: it lacks submit, finish"),
    ("from my_base import ShortestJobFirst\n", "cannot load"),
    ("x = (\n", "line 1: SyntaxError"),
    ("raise RuntimeError('broken')\n", "line 1: RuntimeError: broken"),
    ("from dataclasses import dataclass\nfrom schedsim.policies.base import QueuePolicy\n"
     "@dataclass\nclass S:\n    k: int = 1\n"
     "class ShortestJobFirst(QueuePolicy):\n    settings_class = S\n",
     "must be a frozen dataclass"),
    ("from schedsim.policies.backfill import EASY\nclass ShortestJobFirst(EASY):\n"
     "    name = 'easy'\n", "policy 'easy' is registered twice"),
    ("from schedsim.policies.backfill import EASY\nclass ShortestJobFirst(EASY):\n"
     "    name = 'a b'\n", "name 'a b' must start with a letter"),
    ("from schedsim.policies.backfill import EASY\nclass ShortestJobFirst(EASY):\n"
     "    needs = ('rigid', 'gpus')\n", "unknown feature 'gpus'"),
])
def test_a_bad_plugin_is_one_line_exit_2(tmp_path: Path, workload: Path, source: str,
                                         fragment: str) -> None:
    plugin = tmp_path / "bad_plugin.py"
    plugin.write_text(source)
    code, err = run(["simulate", str(workload), "--policy", f"{plugin}:ShortestJobFirst",
                     "--out", str(tmp_path / "o.swf")])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], err
    assert not (tmp_path / "o.swf").exists()


def test_a_missing_plugin_file_is_named() -> None:
    with pytest.raises(InputError, match=r"no such file .*nowhere\.py"):
        registry.load_reference("nowhere.py:Policy")


# ----------------------------------------------------------------------------- pipeline


def plugin_config(tmp_path: Path, machine: dict[str, object],
                  policies: tuple[str, ...] = ("easy", "sjf-easy")) -> dict[str, object]:
    """A config with one cross target running the example on a log-free trace path."""
    log = tmp_path / "log.swf"
    log.write_text("; MaxProcs: 64\n" + "".join(
        f"{i} {10 * i} -1 {50 + i} 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
        for i in range(1, 41)))
    return {"plugins": ["examples/my_policy/my_policy.py:ShortestJobFirst"],
            "traces": {"search": [str(tmp_path)], "logs": {"TOY": {
                "file": "log.swf", "url": "http://127.0.0.1:9/log.swf", "procs": 64}}},
            "cross": {"enabled": True, "targets": {"CROSS-TOY": {
                "policies": list(policies), "machine": machine,
                "trace": {"name": "TOY", "loads": [0.9], "segments": 2}}}}}


def test_a_config_plugin_is_planned_and_its_file_hashed(tmp_path: Path) -> None:
    plan = build_plan(plugin_config(tmp_path, {"procs": 64}), base=ROOT)
    assert plan.plugins == {"sjf-easy": str(EXAMPLE / "my_policy.py") + ":ShortestJobFirst"}
    assert "results/runs/CROSS-TOY/sjf-easy/TOY_load0.9.parquet" in plan.points
    module = provenance.policy_module("sjf-easy")
    assert plugins.plugin_file(module) == EXAMPLE / "my_policy.py"
    before = provenance.code_version([module, "schedsim.experiments.run"])
    copy = tmp_path / "my_policy.py"
    copy.write_text(plugins.plugin_file(module).read_text())
    assert provenance.code_version([module]) != provenance.code_version(["schedsim.jobs"])
    edited = provenance.hash_modules(provenance.PACKAGE_DIR, [], {module: copy})
    assert edited == provenance.hash_modules(provenance.PACKAGE_DIR, [],
                                             {module: EXAMPLE / "my_policy.py"})
    copy.write_text(copy.read_text() + "\n# a comment changes nothing\n")
    assert provenance.hash_modules(provenance.PACKAGE_DIR, [], {module: copy}) == edited
    copy.write_text(copy.read_text().replace('"estimate", "area"', '"area", "estimate"'))
    assert provenance.hash_modules(provenance.PACKAGE_DIR, [], {module: copy}) != edited
    assert before == provenance.code_version([module, "schedsim.experiments.run"])


def test_a_plugin_on_a_machine_it_does_not_take_stops_the_plan(tmp_path: Path) -> None:
    config = plugin_config(tmp_path, {"procs": 64, "partitions": [32, 32]}, ("sjf-easy",))
    with pytest.raises(InputError, match="CROSS-TOY: policy sjf-easy does not take several "
                                         "partitions"):
        build_plan(config, base=ROOT)


def test_the_overlay_adds_the_example_where_its_needs_are_met() -> None:
    overlay = yaml.safe_load((ROOT / "config" / "examples" / "my-policy.yaml").read_text())
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for log in config["traces"]["logs"].values():
        log["url"] = "http://127.0.0.1:9/" + log["file"]
    config["traces"]["search"] = []
    merged = merge(config, overlay)
    plan = build_plan(merged, base=ROOT)
    mine = {p.target for p in plan.points.values() if p.policy == "sjf-easy"}
    assert {"LOS-F5", "LOS-F7", "LOS-F8", "LOS-F11", "GOAL-F4L1", "SLACK-F9"} <= mine
    assert not {"HRF-F7", "IHAP-F1", "LOS-F9", "GOAL-F4"} & mine
    f11 = [p for p in plan.points.values() if p.target == "LOS-F11" and p.policy == "sjf-easy"]
    assert {p.labels["panel"] for p in f11} == {"elastic-batch"}
    # the logs are not here: the real-log targets, and the table built on them, are not run
    assert "CROSS-MINE" in plan.not_run and "LOS-F1" in plan.not_run


def merge(base: dict, overlay: dict) -> dict:
    """Snakemake's merge of a config file over another: mappings recursively, the rest
    replaced."""
    out = dict(base)
    for key, value in overlay.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(
            out.get(key), dict) else value
    return out


def test_the_example_module_is_short() -> None:
    """About 50 lines of code (docstrings and blank lines aside) make a new policy."""
    text = (EXAMPLE / "my_policy.py").read_text()
    code = [line for line in textwrap.dedent(text).splitlines()
            if line.strip() and not line.strip().startswith(("#", '"""'))]
    assert len(code) <= 60
