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
    backfill = text.split("\n\n")[0].split("goal:")[0]
    assert backfill.startswith("backfill:\n")
    for name in ("fcfs", "easy", "conservative"):
        assert f"\n  {name}: " in backfill


MODELS = {"lublin99": [], "lublin-los": ["--param", "pd=0.2"], "cirne01": [], "hyperexp": []}
# A policy whose needs each model's jobs meet (and the machine it needs).
FITTING = {"lublin99": ["easy"], "lublin-los": ["EASY-D"], "cirne01": ["HRFBf"],
           "hyperexp": ["IHAP", "--procs", "64", "--speeds", "32x1,32x2"]}


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
    policy, *machine = FITTING[model]
    assert main(["simulate", str(tmp_path / f"a{suffix}"), "--policy", policy, *machine,
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
        assert text.count(f"\n{model} (writes ") + text.startswith(f"{model} (writes ") == 1


# ----------------------------------------------------------------------------- bad inputs


def one_line_exit_2(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert fragment in lines[0], lines[0]


def test_duplicate_job_ids_are_refused_with_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "dup.swf"
    path.write_text(f"; MaxProcs: 8\n{GOOD}\n{GOOD.replace('1 0 ', '1 5 ', 1)}\n")
    out = tmp_path / "s.swf"
    result = run_cli("simulate", str(path), "--policy", "easy", "--out", str(out))
    one_line_exit_2(result, f"{path}:3: field 1 (job number): job 1 appears again (first at "
                            "line 2)")
    assert not out.exists()


def test_dropped_jobs_are_counted_on_stderr_and_in_the_metrics(tmp_path: Path) -> None:
    metrics = tmp_path / "m.json"
    result = run_cli("simulate", str(DATA / "small.swf"), "--policy", "easy", "--procs", "4",
                     "--out", str(tmp_path / "s.swf"), "--metrics", str(metrics))
    assert result.returncode == 0
    note = result.stderr.strip().splitlines()
    assert len(note) == 1 and "jobs kept; dropped:" in note[0]
    assert "with more processors than the machine" in note[0]
    cleaning = json.loads(metrics.read_text())["cleaning"]
    assert cleaning["records"] == 6 and cleaning["kept"] == json.loads(
        metrics.read_text())["jobs"]
    assert cleaning["dropped_procs_above_machine"] >= 1


@pytest.mark.parametrize(("out", "metrics", "fragment"), [
    ("{dir}", None, "is a directory"),
    ("{dir}/s.swf", "{dir}", "is a directory"),
    ("{dir}/file.txt/s.swf", None, "file.txt is not a directory"),
    ("{dir}/s.swf", "{dir}/no/m.json", "does not exist"),
    ("{input}", None, "is the input workload"),
    ("{dir}/same", "{dir}/same", "are the same file"),
])
def test_bad_output_paths_write_nothing(tmp_path: Path, out: str, metrics: str | None,
                                        fragment: str) -> None:
    (tmp_path / "file.txt").write_text("x")
    workload = tmp_path / "w.swf"
    workload.write_text((DATA / "small.swf").read_text())
    before = sorted(p.name for p in tmp_path.rglob("*"))
    args = ["simulate", str(workload), "--policy", "easy",
            "--out", out.format(dir=tmp_path, input=workload)]
    if metrics:
        args += ["--metrics", metrics.format(dir=tmp_path, input=workload)]
    one_line_exit_2(run_cli(*args), fragment)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert workload.read_text() == (DATA / "small.swf").read_text()


def test_outputs_are_written_both_or_neither(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from schedsim import cli

    out, metrics = tmp_path / "s.swf", tmp_path / "m.json"
    real = cli.os.replace
    calls = []

    def failing_second(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise PermissionError(13, "Permission denied", str(dst))
        real(src, dst)

    monkeypatch.setattr(cli.os, "replace", failing_second)
    code = main(["simulate", str(DATA / "small.swf"), "--policy", "easy", "--out", str(out),
                 "--metrics", str(metrics)])
    assert code == 2 and "Permission denied" in capsys.readouterr().err
    assert not metrics.exists() and not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(("header", "fragment"), [
    ("; MaxProcs: abc", ":1: header MaxProcs: 'abc' is not a positive integer"),
    ("; MaxProcs: 0", ":1: header MaxProcs: '0' is not a positive integer"),
])
def test_a_bad_machine_size_header_is_named(tmp_path: Path, header: str, fragment: str) -> None:
    path = tmp_path / "h.swf"
    path.write_text(f"{header}\n{GOOD}\n")
    one_line_exit_2(run_cli("simulate", str(path), "--policy", "easy", "--out",
                            str(tmp_path / "s.swf")), fragment)
    # With --procs the header is not used.
    assert run_cli("simulate", str(path), "--policy", "easy", "--procs", "8", "--out",
                   str(tmp_path / "s.swf")).returncode == 0


@pytest.mark.parametrize("field", [2, 4])
def test_numbers_beyond_the_maximum_are_refused(tmp_path: Path, field: int) -> None:
    parts = GOOD.split()
    parts[field - 1] = "1e300"
    path = tmp_path / "big.swf"
    path.write_text("; MaxProcs: 8\n" + " ".join(parts) + "\n")
    one_line_exit_2(run_cli("simulate", str(path), "--policy", "easy", "--out",
                            str(tmp_path / "s.swf")), f":2: field {field} (")
    path.write_text("; MaxProcs: 8\n" + " ".join(parts) + " -1 S -1\n")  # CWF too
    cwf = path.rename(tmp_path / "big.cwf")
    one_line_exit_2(run_cli("simulate", str(cwf), "--policy", "easy", "--out",
                            str(tmp_path / "s.swf")), "exceeds the maximum")


@pytest.mark.parametrize("tau", ["nan", "-5", "0", "inf"])
def test_tau_must_be_a_positive_number(tmp_path: Path, tau: str) -> None:
    one_line_exit_2(run_cli("simulate", str(DATA / "small.swf"), "--policy", "easy", "--out",
                            str(tmp_path / "s.swf"), f"--tau={tau}"), "--tau=")


@pytest.mark.parametrize("content", ["", "; MaxProcs: 8\n; only a header\n"])
def test_a_file_without_jobs_says_so(tmp_path: Path, content: str) -> None:
    for suffix in (".swf", ".cwf"):
        path = tmp_path / f"empty{suffix}"
        path.write_text(content)
        one_line_exit_2(run_cli("simulate", str(path), "--policy", "easy", "--out",
                                str(tmp_path / "s.swf")), "no jobs")


def test_cwf_jobs_larger_than_the_machine_are_dropped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "w.cwf"
    path.write_text(f"{GOOD.replace(' 4 200 ', ' 5 200 ')} -1 S -1\n"
                    f"{GOOD.replace('1 0 ', '2 0 ', 1)} -1 S -1\n")
    result = run_cli("simulate", str(path), "--policy", "conservative", "--procs", "4", "--out",
                     str(tmp_path / "s.swf"))
    assert result.returncode == 0, result.stderr
    assert "1 with more processors than the machine" in result.stderr
    assert [r.job for r in read_swf(tmp_path / "s.swf").records] == [2]


def test_cwf_estimates_below_the_run_time_are_raised_as_for_swf(tmp_path: Path) -> None:
    path = tmp_path / "w.cwf"
    path.write_text(f"{GOOD.replace(' 100 4 ', ' 201 4 ', 1)} -1 S -1\n"
                    f"{GOOD.replace('1 0 ', '2 0 ', 1)} -1 S -1\n")
    result = run_cli("simulate", str(path), "--policy", "conservative", "--procs", "4",
                     "--out", str(tmp_path / "s.swf"))
    assert result.returncode == 0, result.stderr
    assert [r.wait for r in read_swf(tmp_path / "s.swf").records] == [0, 201]
