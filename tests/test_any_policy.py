"""Every policy `schedsim policies` lists runs from the command line on a workload that
meets its needs, and refuses one that does not with one line and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedsim.cli import main
from schedsim.policies.registry import (
    DEDICATED,
    DIVISIBLE,
    ELASTIC,
    LOAD,
    MOLDABLE,
    PARTITIONS,
    SPEEDS,
    PolicyEntry,
    all_policies,
)
from schedsim.workloads.swf import read_swf

from helpers import cli_run as run

POLICIES = all_policies()
JOBS = 40
# (model, generation parameters, file suffix) of each kind of workload
WORKLOADS = {
    "rigid": ("lublin99", ["--param", "typed=false", "--param", "nodes=64", "--param", "uhi=5"],
              ".swf"),
    "moldable": ("cirne01", [], ".swf"),
    "divisible": ("hyperexp", [], ".swf"),
    "batch-cwf": ("lublin-los", ["--param", "pd=0", "--param", "pe=0", "--param", "pr=0"],
                  ".cwf"),
    "dedicated": ("lublin-los", ["--param", "pd=0.5", "--param", "pe=0", "--param", "pr=0"],
                  ".cwf"),
    "elastic": ("lublin-los", ["--param", "pd=0", "--param", "pe=0.3", "--param", "pr=0.2"],
                ".cwf"),
    "dedicated-elastic": ("lublin-los", ["--param", "pd=0.5", "--param", "pe=0.3",
                                         "--param", "pr=0.2"], ".cwf"),
}



@pytest.fixture(scope="module")
def workloads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("workloads")
    out = {}
    for kind, (model, params, suffix) in WORKLOADS.items():
        path = directory / f"{kind}{suffix}"
        assert main(["generate", model, "--jobs", str(JOBS), "--seed", "3", *params,
                     "--out", str(path)]) == 0
        out[kind] = path
    return out


def all_needs(entry: PolicyEntry) -> set[str]:
    return {part for need in entry.needs for part in need.split("|")}


def fitting_run(entry: PolicyEntry) -> tuple[str, list[str]]:
    """A workload kind and machine options that meet the policy's needs."""
    needs = all_needs(entry)
    machine = ["--procs", "64", "--speeds", "32x1,32x2"] if SPEEDS in needs else []
    if LOAD in needs and SPEEDS not in needs:
        machine = ["--load", "uniform"]
    if PARTITIONS in needs:
        machine += ["--partitions", "32,32"]
    if MOLDABLE in needs:
        return "moldable", machine
    if DIVISIBLE in needs:
        return "divisible", machine
    if DEDICATED in needs:
        return ("dedicated-elastic" if ELASTIC in needs else "dedicated"), machine
    return ("elastic" if ELASTIC in needs else "rigid"), machine


def unfitting_run(entry: PolicyEntry) -> tuple[str, list[str], str]:
    """A workload and machine that miss one need, and the words the refusal must hold."""
    needs = all_needs(entry)
    if MOLDABLE in needs:
        return "rigid", [], "needs moldable jobs"
    if DIVISIBLE in needs:  # the right jobs on a machine that tracks no processors
        return "divisible", [], "needs per-processor speeds or a background-load model"
    if DEDICATED in needs:
        return "batch-cwf", [], "needs dedicated jobs"
    if ELASTIC in needs:
        return "batch-cwf", [], "needs elastic control commands"
    return "moldable", [], "needs rigid jobs; this run has moldable jobs"


@pytest.mark.parametrize("name", list(POLICIES))
def test_every_policy_runs_on_a_workload_that_meets_its_needs(
        tmp_path: Path, workloads: dict[str, Path], name: str) -> None:
    kind, machine = fitting_run(POLICIES[name])
    out = tmp_path / "schedule.swf"
    code, err = run(["simulate", str(workloads[kind]), "--policy", name, *machine,
                     "--out", str(out), "--metrics", str(tmp_path / "m.json")])
    assert code == 0, err
    records = read_swf(out).records
    assert records and all(r.wait >= 0 and r.alloc_procs > 0 for r in records)


@pytest.mark.parametrize("name", list(POLICIES))
def test_every_policy_refuses_a_run_that_misses_a_need(
        tmp_path: Path, workloads: dict[str, Path], name: str) -> None:
    kind, machine, words = unfitting_run(POLICIES[name])
    out = tmp_path / "schedule.swf"
    code, err = run(["simulate", str(workloads[kind]), "--policy", name, *machine,
                     "--out", str(out)])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"policy {name} {words}" in lines[0], err
    assert "give " in lines[0]  # how to meet the need
    assert not out.exists()


@pytest.mark.parametrize(("name", "kind", "machine", "words"), [
    ("easy", "dedicated", [], "does not take dedicated jobs"),
    ("easy", "divisible", [], "needs rigid jobs; this run has jobs given as work"),
    ("easy", "rigid", ["--partitions", "32,32"], "does not take several partitions"),
    ("HRFFcfs", "moldable", ["--partitions", "64,64"], "does not take several partitions"),
    ("IHAP", "rigid", ["--load", "uniform"], "needs jobs given as work in BPU-seconds"),
    ("scojo-slack", "elastic", [], "does not take elastic control commands"),
])
def test_features_a_policy_does_not_take_are_refused(
        tmp_path: Path, workloads: dict[str, Path], name: str, kind: str,
        machine: list[str], words: str) -> None:
    code, err = run(["simulate", str(workloads[kind]), "--policy", name, *machine,
                     "--out", str(tmp_path / "o.swf")])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"policy {name} {words}" in err, err


def test_the_policy_list_shows_each_policys_needs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policies"]) == 0
    text = capsys.readouterr().out
    assert "\nmoldable:\n" in text and "\n  HRFBf: " in text
    assert "(needs moldable jobs (a speed-up model each); also takes" in text
    assert "(needs jobs given as work in BPU-seconds, sized by the policy, per-processor " \
           "speeds or a background-load model;" in text


# ----------------------------------------------------------------------------- the machine

BAD_MACHINES = [
    ({"procs": 64, "partitions": [32, 30]}, "partitions (32, 30) must be positive and sum to 64"),
    ({"procs": 64, "speeds": [1, 2]}, "speeds must give one positive speed per processor (64)"),
    ({"procs": 64, "load": {"name": "uniform", "params": {"max_percent": 130}}},
     "load model uniform: parameter max_percent=130 is invalid; allowed: int in [1, 99]"),
    ({"procs": 64, "load": {"name": "gaussian"}}, "unknown load model 'gaussian'; known: uniform"),
    ({"procs": 64, "cores": 2}, "unknown key 'cores'; allowed: procs, unit, partitions"),
    ({"procs": 0}, "procs=0 must be a positive integer"),
    ({"procs": 64, "speeds": [1, 2] * 32, "execution": "fastest"},
     "execution='fastest' is not an execution model; allowed: equal_split, pooled"),
    ({"procs": 64, "execution": "pooled"}, "execution=pooled says how a job progresses "
     "on processors of different rates; this machine has neither different speeds nor a "
     "background load (remove the key)"),
]


@pytest.mark.parametrize(("machine", "message"), BAD_MACHINES)
def test_a_machine_file_fails_as_the_config_machine_does(
        tmp_path: Path, workloads: dict[str, Path], machine: dict[str, object],
        message: str) -> None:
    import yaml

    from schedsim.errors import InputError
    from schedsim.experiments.plan import build_plan

    path = tmp_path / "machine.yaml"
    path.write_text(yaml.safe_dump(machine))
    code, err = run(["simulate", str(workloads["rigid"]), "--policy", "easy", "--machine",
                     str(path), "--out", str(tmp_path / "o.swf")])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{path}: {message}" in err, err
    config = {"slack": {"enabled": True, "machine": machine, "jobs": 10,
                        "workload": {"model": "lublin99"},
                        "targets": {"SLACK-X": {"policies": ["easy"]}}}}
    with pytest.raises(InputError) as raised:
        build_plan(config)
    # the same words after the place: the config's section instead of the file
    assert str(raised.value) == f"slack.machine: {err.strip().split(f'{path}: ', 1)[1]}"


def test_a_machine_file_runs_what_the_short_options_run(
        tmp_path: Path, workloads: dict[str, Path]) -> None:
    import yaml

    path = tmp_path / "machine.yaml"
    path.write_text(yaml.safe_dump({"procs": 64, "speeds": [1.0] * 32 + [2.0] * 32,
                                    "load": {"name": "uniform", "params": {"max_percent": 20}}}))
    outputs = []
    for name, machine in (("file", ["--machine", str(path)]),
                          ("short", ["--procs", "64", "--speeds", "32x1,32x2", "--load",
                                     "uniform", "--load-param", "max_percent=20"])):
        out = tmp_path / f"{name}.swf"
        code, err = run(["simulate", str(workloads["divisible"]), "--policy", "IHAP",
                         *machine, "--seed", "3", "--out", str(out)])
        assert code == 0, err
        outputs.append([(r.job, r.wait, r.run, r.alloc_procs) for r in read_swf(out).records])
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(("args", "fragment"), [
    (["--machine", "MACHINE", "--procs", "64"], "describes the whole machine; drop --procs"),
    (["--seed", "2"], "--seed seeds the background-load draws; give --load MODEL too"),
    (["--load-param", "max_percent=3"], "give --load MODEL too"),
    (["--speeds", "32y1"], "--speeds: '32y1' is not SPEED or COUNTxSPEED"),
    (["--partitions", "a,b"], "--partitions: 'a' is not an integer"),
    (["--machine", "nowhere.yaml"], "--machine nowhere.yaml: no such file"),
])
def test_machine_options_are_checked(tmp_path: Path, workloads: dict[str, Path],
                                     args: list[str], fragment: str) -> None:
    machine = tmp_path / "m.yaml"
    machine.write_text("procs: 64\n")
    args = [str(machine) if a == "MACHINE" else a for a in args]
    code, err = run(["simulate", str(workloads["rigid"]), "--policy", "easy", *args,
                     "--out", str(tmp_path / "o.swf")])
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err


def test_a_machine_file_with_bad_yaml_names_its_line(tmp_path: Path,
                                                     workloads: dict[str, Path]) -> None:
    machine = tmp_path / "m.yaml"
    machine.write_text("procs: 64\npartitions: [32, 32\n")
    code, err = run(["simulate", str(workloads["rigid"]), "--policy", "easy", "--machine",
                     str(machine), "--out", str(tmp_path / "o.swf")])
    assert code == 2 and f"{machine}:3:" in err, err


def test_a_pipeline_point_refuses_a_workload_its_policy_does_not_take(
        workloads: dict[str, Path]) -> None:
    """The runner checks each seed's workload against the policy's needs, as the
    command line does (the plan checks the machine before any workload exists)."""
    from schedsim.errors import InputError
    from schedsim.experiments.run import run_point
    from schedsim.experiments.spec import MachineSpec, PointSpec

    spec = PointSpec(family="toy", target="TOY-X", policy="HRFFcfs", point="p", variant="v",
                     variant_column="workload", labels={}, machine=MachineSpec(64),
                     model="lublin99", seeds=(1,), workloads={"1": str(workloads["rigid"])})
    with pytest.raises(InputError, match="policy HRFFcfs needs moldable jobs"):
        run_point(spec)
