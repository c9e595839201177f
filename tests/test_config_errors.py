"""Every config mistake is one line naming the file, the key and what is allowed: from
``python -m schedsim.experiments`` (exit code 2) and from ``snakemake -n``; a target's
keys are checked at planning time against what its policies and family accept."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedsim.errors import InputError
from schedsim.experiments import plan as plan_module
from schedsim.experiments.plan import build_plan
from schedsim.experiments.spec import to_json

ROOT = Path(__file__).resolve().parents[1]
TEST = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
SNAKEMAKE = shutil.which("snakemake", path=str(Path(sys.executable).parent))


def experiments(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "schedsim.experiments", *argv],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def one_line(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_module, "find", lambda log, settings, base: Path("/l") / log.file)


def config_with(family: str, **targets: Any) -> dict[str, Any]:
    """The .test config with only ``family`` enabled and ``targets`` (id -> target) added."""
    config = copy.deepcopy(TEST)
    for name in ("hrf", "los", "goal", "ihap", "slack"):
        if name != family:
            config[name] = {"enabled": False}
    config[family]["targets"].update(targets)
    config[family]["sensitivity"] = {}
    return config


# ----------------------------------------------------------------------------- files


@pytest.mark.parametrize(("text", "fragment"), [
    (None, "no such file"),
    ("seeds: [1\n", ":2:1: YAML syntax error: expected ',' or ']'"),
    ("", "the file is empty"),
    ("- 1\n- 2\n", "the top level is a list, not a mapping of sections"),
    ("seeds: {start: -5}\n", "seeds.start: -5 is out of range; allowed: at least 0"),
    ("seeds: {start: x}\n", "seeds.start: 'x' is not an integer"),
    ("seeds: {values: [1, 1]}\n", "seeds.values: [1, 1] repeats 1; give each value once"),
    ("seeds: {values: [4294967296]}\n",
     "seeds.values[0]: 4294967296 is out of range; allowed: at most 4294967295"),
    ("seeds: {start: 4294967295, count: 2}\n",
     "seeds.count: the last seed, start + count - 1 = 4294967296, is above the largest "
     "seed 4294967295"),
    ("seedz: {start: 1}\n",
     "unknown section 'seedz'; allowed: seeds, traces, plugins, cross, goal, hrf"),
    ("hrf: {enabled: true, targets: {HRF-X: {kind: swep}}}\n",
     "hrf.targets.HRF-X.kind: 'swep' is not allowed; allowed: sweep, derived, example"),
])
def test_the_experiments_command_names_the_file_and_the_key(tmp_path: Path, text: str | None,
                                                           fragment: str) -> None:
    path = tmp_path / "c.yaml"
    if text is not None:
        path.write_text(text)
    one_line(experiments("plan", "--config", str(path)), f"config {path}", fragment)


def test_the_plugins_list_is_a_section_of_its_own() -> None:
    """A config's ``plugins:`` (policies of one's own, config/examples/my-policy.yaml) is
    no family and no unknown section."""
    from schedsim.experiments.configcheck import unknown_section

    assert unknown_section({"plugins": ["examples/my_policy/my_policy.py:ShortestJobFirst"],
                            "seeds": {"start": 1}}) is None


# ----------------------------------------------------------------------------- targets


@pytest.mark.parametrize(("family", "target", "fragment"), [
    ("hrf", {"policies": ["HRFBf"], "sweep": {"alhpa": [0.5, 1.0]}},
     "HRF-X: parameter 'alhpa' is taken by none of its policies (HRFBf) nor by any policy "
     "of the hrf family"),
    ("hrf", {"policies": ["HRFBf", "easy"], "sweep": {"alpha": [0.5]}},
     "HRF-X: policy easy is a backfill policy; the hrf family runs moldable policies"),
    ("los", {"policies": ["easy", "HAP"], "variants": {"ps": 0.5}},
     "policy HAP is a ihap policy; the los family runs los and backfill policies"),
    ("los", {"policies": ["easy"], "variants": {"pss": 0.5}},
     "LOS-X: unknown variant axis 'pss'; the los family's axes: ps, pd, elastic, load, jobs"),
    ("los", {"policies": ["easy"], "variants": {"pd": 0.5}},
     "every variant needs the axis ps"),
    ("los", {"policies": ["easy"], "variants": {"ps": 1.5}},
     "LOS-X.variants.ps: 1.5 is out of range; allowed: at most 1"),
    ("los", {"policies": ["LOS"], "variants": {"ps": 0.5}, "choose": {"param": "c_s"}},
     "choose c_s: no policy of the target takes c_s"),
    ("los", {"policies": ["easy"], "variants": {"ps": 0.5}, "x": "lod"},
     "LOS-X: x 'lod' is not one of"),
    ("los", {"policies": ["easy"], "variants": {"ps": 0.5},
             "figure": {"name": "grid", "metrics": ["AWTT"]}},
     "LOS-X: figure.metrics 'AWTT' is not one of utilization, AWT"),
    ("los", {"policies": ["easy"], "variants": {"ps": 0.5}, "figure": {"name": "gird"}},
     "LOS-X: figure 'gird' is not a figure; known:"),
    ("los", {"kind": "derived", "function": "los-max-improvement", "sources": ["LOS-F77"]},
     "los.targets.LOS-X: source 'LOS-F77' is not a target of the los family"),
    ("goal", {"policies": ["goal-oriented"], "variants": {"load": 0.5}},
     "GOAL-X: unknown variant axis 'load'; the goal family's axes: (none)"),
])
def test_a_target_key_its_policies_or_family_do_not_accept_is_an_error(
        family: str, target: dict[str, Any], fragment: str) -> None:
    name = f"{family.upper()}-X"
    with pytest.raises((InputError, ValueError)) as caught:
        build_plan(config_with(family, **{name: target}))
    assert fragment in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_parameter_only_other_policies_of_the_family_take_gives_an_empty_column() -> None:
    """SLACK-T4 sweeps goal, which its one policy does not take: it keeps SLACK-F17's layout
    and shares its runs."""
    plan = build_plan(config_with("slack"))
    assert plan.targets["SLACK-T4"].sweep == {"goal": ("G1", "G2")}


@pytest.mark.parametrize(("options", "fragment"), [
    ({"loads": [0.6, "x"], "elastic": {"pe": 0.2, "pr": 0.1}},
     "los.options.loads[1]: 'x' is not a number"),
    ({"elastic": {"pe": 0.2}}, "los.options: missing key 'loads'"),
    ({"loads": [0.6], "elastik": {}}, "unknown key 'elastik' in los.options; allowed: loads, "
     "elastic, load_tolerance"),
])
def test_a_family_s_options_are_checked(options: dict[str, Any], fragment: str) -> None:
    config = config_with("los")
    config["los"]["options"] = options
    with pytest.raises(InputError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        build_plan(config)


def test_targets_are_planned_after_the_targets_they_read() -> None:
    """A target that takes c_s from LOS-F5 may come before it in the config."""
    config = config_with("los")
    targets = config["los"]["targets"]
    config["los"]["targets"] = dict(reversed(list(targets.items())))
    reordered = build_plan(config)
    original = build_plan(config_with("los"))
    assert {k: to_json(v) for k, v in reordered.points.items()} == \
        {k: to_json(v) for k, v in original.points.items()}


def test_a_missing_family_key_is_named() -> None:
    config = config_with("los")
    del config["los"]["jobs"]
    with pytest.raises(InputError, match="los: missing key jobs"):
        build_plan(config)


def test_workload_parameters_are_checked_at_planning_time() -> None:
    config = config_with("ihap")
    config["ihap"]["workload"]["params"]["pmx"] = 3
    with pytest.raises(InputError, match="generate hyperexp: unknown parameter 'pmx'"):
        build_plan(config)


# ----------------------------------------------------------------------------- snakemake


def snakemake_dry_run(workdir: Path, configfile: Path) -> subprocess.CompletedProcess[str]:
    assert SNAKEMAKE is not None
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([SNAKEMAKE, "-n", "--configfile", str(configfile), "--directory",
                           str(workdir)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def _negative_start(config: dict[str, Any]) -> None:
    config["seeds"]["start"] = -5


def _misspelt_sweep(config: dict[str, Any]) -> None:
    config["hrf"]["targets"]["HRF-F5"]["sweep"]["alhpa"] = [0.5, 1.0]


@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake is not installed beside this Python")
@pytest.mark.parametrize(("change", "fragment"), [
    (_negative_start, "seeds.start: -5 is out of range; allowed: at least 0"),
    (_misspelt_sweep, "parameter 'alhpa' is taken by none of its policies"),
])
def test_snakemake_dry_run_names_the_file_in_one_line(tmp_path: Path, change: Any,
                                                      fragment: str) -> None:
    bad = copy.deepcopy(TEST)
    change(bad)
    config = tmp_path / "bad.yaml"
    config.write_text(yaml.safe_dump(bad, sort_keys=False))
    result = snakemake_dry_run(tmp_path / "run", config)
    assert result.returncode == 2, result.stderr[-2000:]
    ours = [line for line in result.stderr.splitlines() if line.startswith("config ")]
    assert len(ours) == 1 and f"config {config}: " in ours[0] and fragment in ours[0], ours
    assert "Traceback" not in result.stderr and "Failed validating" not in result.stderr


@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake is not installed beside this Python")
def test_an_offline_dry_run_says_which_targets_it_will_not_run(tmp_path: Path) -> None:
    config = copy.deepcopy(TEST)
    config["traces"]["search"] = []
    for log in config["traces"]["logs"].values():
        log["url"] = "http://127.0.0.1:9/" + log["file"]
    path = tmp_path / "offline.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    result = snakemake_dry_run(tmp_path / "run", path)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.startswith("not run: ")]
    assert {line.split(":")[1].strip() for line in lines} >= {"LOS-F1", "GOAL-F3", "GOAL-T1"}
    f1 = next(line for line in lines if line.startswith("not run: LOS-F1: "))
    assert f1.startswith("not run: LOS-F1: log SDSC-SP2 (or its fallback KTH-SP2) neither "
                         "found nor fetchable") and "schedsim.traces fetch" in f1
    assert f"--out {tmp_path / 'run'}/resources/traces/SDSC-SP2-1998-4.2-cln.swf.gz" in f1
    paths = len(str(path)) + len(str(tmp_path / "run"))
    assert max(len(line) - paths for line in lines) < 250  # about 600 characters before
