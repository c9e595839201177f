"""The ``schedsim`` command: outputs, and one clear line with exit code 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schedsim.cli import main
from schedsim.workloads.swf import read_swf

DATA = Path(__file__).parent / "data"
GOOD = "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "schedsim.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_simulate_writes_schedule_and_metrics(tmp_path: Path) -> None:
    out, metrics = tmp_path / "s.swf", tmp_path / "m.json"
    code = main(["simulate", str(DATA / "small.swf"), "--policy", "easy", "--out", str(out),
                 "--metrics", str(metrics)])
    assert code == 0
    log = read_swf(out)
    assert [r.job for r in log.records] == [1, 2, 4]
    by_id = {r.job: r for r in log.records}
    assert (by_id[1].wait, by_id[1].run, by_id[1].alloc_procs) == (0, 100, 4)
    assert by_id[2].wait == 95 and by_id[2].alloc_procs == 8
    summary = json.loads(metrics.read_text())
    for key in ("jobs", "mean_wait", "mean_response", "mean_bounded_slowdown", "max_wait",
                "utilization", "makespan"):
        assert key in summary
    assert summary["jobs"] == 3


def test_simulate_is_deterministic(tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.swf"
        assert main(["simulate", str(DATA / "small.swf"), "--policy", "conservative",
                     "--out", str(out)]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(("content", "fragment"), [
    (f"{GOOD}\n{GOOD.replace(' 100 ', ' x1 ', 1)}\n", ":2: field 4 (run time): 'x1'"),
    (f"{GOOD}\n1 2 3\n", ":2: expected 18 fields, found 3"),
    (f"{GOOD}\n{GOOD.replace(' 4 200 ', ' -7 200 ', 1)}\n", ":2: field 8 (requested processors)"),
])
def test_corrupt_swf_one_line_exit_2(tmp_path: Path, content: str, fragment: str) -> None:
    bad = tmp_path / "bad.swf"
    bad.write_text(content)
    out = tmp_path / "out.swf"
    result = run_cli("simulate", str(bad), "--policy", "easy", "--procs", "8", "--out", str(out))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0] and str(bad) in lines[0]
    assert "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(("args", "fragment"), [
    (["--policy", "nope"], "unknown policy 'nope'; known policies:"),
    (["--policy", "easy", "--param", "depth=3"], "unknown parameter 'depth'"),
    (["--policy", "easy", "--param", "depth"], "not of the form KEY=VALUE"),
    (["--policy", "easy", "--procs", "0"], "--procs=0 must be a positive integer"),
    (["--policy", "easy", "--estimates", "guess"], "invalid choice: 'guess'"),
])
def test_bad_arguments_one_line_exit_2(tmp_path: Path, args: list[str], fragment: str) -> None:
    result = run_cli("simulate", str(DATA / "small.swf"), *args, "--out",
                     str(tmp_path / "o.swf"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert fragment in result.stderr


def test_missing_workload_file(tmp_path: Path) -> None:
    result = run_cli("simulate", str(tmp_path / "none.swf"), "--policy", "easy",
                     "--out", str(tmp_path / "o.swf"))
    assert result.returncode == 2
    assert "no such file" in result.stderr


def test_generate_unknown_model_and_bad_jobs(tmp_path: Path) -> None:
    result = run_cli("generate", "nosuchmodel", "--jobs", "5", "--seed", "1",
                     "--out", str(tmp_path / "w.swf"))
    assert result.returncode == 2
    assert "unknown workload model 'nosuchmodel'" in result.stderr


def test_policies_lists_the_backfilling_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policies"]) == 0
    text = capsys.readouterr().out
    for name in ("fcfs", "easy", "conservative"):
        assert f"{name}  [backfill]" in text


MODELS = {"lublin99": [], "lublin-los": ["--param", "pd=0.2"], "cirne01": [], "hyperexp": []}


@pytest.mark.parametrize("model", list(MODELS))
def test_generate_then_simulate_every_model(tmp_path: Path, model: str) -> None:
    suffix = ".cwf" if model == "lublin-los" else ".swf"
    texts = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}{suffix}"
        assert main(["generate", model, "--jobs", "60", "--seed", "7", *MODELS[model],
                     "--out", str(out)]) == 0
        texts.append(out.read_bytes())
    assert texts[0] == texts[1]
    other = tmp_path / f"c{suffix}"
    assert main(["generate", model, "--jobs", "60", "--seed", "8", *MODELS[model],
                 "--out", str(other)]) == 0
    assert other.read_bytes() != texts[0]
    schedule = tmp_path / "s.swf"
    assert main(["simulate", str(tmp_path / f"a{suffix}"), "--policy", "easy",
                 "--out", str(schedule)]) == 0
    assert len(read_swf(schedule).records) == 60


def test_generate_out_of_range_parameter_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "w.swf"
    result = run_cli("generate", "lublin99", "--jobs", "10", "--seed", "1",
                     "--param", "serial_prob=1.5", "--out", str(out))
    assert result.returncode == 2
    assert "serial_prob" in result.stderr and "[0, 1]" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_models_lists_every_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models"]) == 0
    text = capsys.readouterr().out
    for model in MODELS:
        assert text.count(f"{model}  [") == 1
