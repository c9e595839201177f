"""The step worker (schedsim.experiments.worker): a step handed to it writes the same bytes,
log, messages and exit code as in a process of its own; signals reach it; nothing
outlives the worker or the command; kernels an earlier step compiled are loaded, not
compiled again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from schedsim.experiments import client, worker
from schedsim.experiments.spec import MachineSpec, PointSpec, to_json
from schedsim.experiments.usage import USAGE_LINE, USAGE_PATTERN
from schedsim.workloads.base import get_model

pytestmark = pytest.mark.skipif(not worker.AVAILABLE, reason="the worker needs Linux")


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[worker.Started]:
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    running = worker.start(sys.executable, log)
    yield running
    running.stop()
    assert not running.directory.exists()


def _step(args: list[str], log: Path, socket: str | None, **popen: object) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if key != client.SOCKET_VARIABLE}
    if socket is not None:
        env[client.SOCKET_VARIABLE] = socket
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "schedsim.experiments", *args],
                                stdout=out, stderr=subprocess.STDOUT, env=env, **popen)


def _run(args: list[str], log: Path, socket: str | None) -> int:
    return _step(args, log, socket).wait(timeout=120)


def _point_args(tmp_path: Path, out: Path) -> list[str]:
    workload = tmp_path / "w.swf"
    if not workload.exists():
        params = {"typed": False, "nodes": 8, "uhi": 3.0, "umed": 2.0}
        workload.write_text(get_model("lublin99").run(60, 3, params))
    spec = PointSpec(family="toy", target="TOY-X", policy="easy", point="p", variant="v",
                     variant_column="workload", labels={}, machine=MachineSpec(8),
                     model="lublin99", seeds=(3,), workloads={"3": str(workload)})
    return ["run-point", "--spec", to_json(spec), "--code-version", "c", "--out", str(out)]


def _without_usage(log: Path) -> str:
    lines = log.read_text().splitlines()
    assert USAGE_PATTERN.match(lines[-1]), lines[-1]
    return "\n".join(lines[:-1])


def test_a_step_writes_the_same_bytes_and_log_in_the_worker(tmp_path: Path,
                                                           started: worker.Started) -> None:
    alone, forked = tmp_path / "alone.parquet", tmp_path / "forked.parquet"
    for _ in range(2):  # the first may compile the kernels, and says so
        assert _run(_point_args(tmp_path, alone), tmp_path / "alone.log", None) == 0
    assert _run(_point_args(tmp_path, forked), tmp_path / "forked.log", started.socket) == 0
    assert alone.read_bytes() == forked.read_bytes()
    assert _without_usage(tmp_path / "forked.log") == \
        (tmp_path / "alone.log").read_text().rstrip("\n")


def test_an_error_has_the_same_message_and_exit_code_in_the_worker(
        tmp_path: Path, started: worker.Started) -> None:
    args = ["run-point", "--spec", "{not json", "--out", str(tmp_path / "x.parquet")]
    assert _run(args, tmp_path / "alone.log", None) == 2
    assert _run(args, tmp_path / "forked.log", started.socket) == 2
    assert _without_usage(tmp_path / "forked.log") == \
        (tmp_path / "alone.log").read_text().rstrip("\n")
    assert not (tmp_path / "x.parquet").exists()


def test_a_step_without_its_worker_fails_and_says_what_to_do(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-socket")
    assert _run(["plan", "--config", "x"], tmp_path / "log", missing) == 2
    message = (tmp_path / "log").read_text()
    assert f"{client.SOCKET_VARIABLE}={missing}: no worker answers" in message
    assert f"unset {client.SOCKET_VARIABLE}" in message


def _children(pid: int) -> list[int]:
    return [int(child) for child in
            Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _wait_for(condition: Callable[[], object], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _sleeping_step(tmp_path: Path, started: worker.Started, log: Path) -> subprocess.Popen:
    """A step whose plugin file sleeps while it is loaded; its child is running on return."""
    plugin, sleeping = tmp_path / "slow.py", tmp_path / "sleeping"
    plugin.write_text(f"import pathlib, time\npathlib.Path({str(sleeping)!r}).touch()\n"
                      "time.sleep(60)\n")
    step = _step(["run-point", "--plugin", f"{plugin}:Policy", *_point_args(tmp_path, tmp_path /
                  "o.parquet")[1:]], log, started.socket)
    _wait_for(sleeping.exists)
    return step


def test_a_signal_to_a_step_ends_its_child_as_it_would_end_the_step(
        tmp_path: Path, started: worker.Started) -> None:
    step = _sleeping_step(tmp_path, started, tmp_path / "log")
    step.send_signal(signal.SIGTERM)
    assert step.wait(timeout=30) == 128 + signal.SIGTERM
    assert "SIGTERM: stopped; no output written" in (tmp_path / "log").read_text()
    assert not (tmp_path / "o.parquet").exists()


def test_a_killed_step_leaves_no_child_running(tmp_path: Path,
                                               started: worker.Started) -> None:
    before = set(_children(started.process.pid))
    step = _sleeping_step(tmp_path, started, tmp_path / "log")
    step.kill()
    step.wait(timeout=30)
    _wait_for(lambda: set(_children(started.process.pid)) <= before)


def test_the_worker_and_its_steps_end_with_the_process_that_started_it(
        tmp_path: Path) -> None:
    starter = subprocess.run(
        [sys.executable, "-c",
         "import sys\nfrom pathlib import Path\nfrom schedsim.experiments import client, worker\n"
         f"started = worker.start(sys.executable, Path({str(tmp_path / 'w.log')!r}))\n"
         "assert client.delegate(['--help'], started.socket) == 0  # serving\n"
         "print(started.process.pid)"],
        capture_output=True, text=True, check=True, timeout=120)
    pid = int(starter.stdout.split()[-1])
    _wait_for(lambda: not Path(f"/proc/{pid}").exists()
              or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2])


def test_a_kernel_an_earlier_process_compiled_is_loaded_without_compiling(
        tmp_path: Path) -> None:
    env = {**os.environ, "SCHEDSIM_CACHE_DIR": str(tmp_path)}
    call = ("import numpy as np\nfrom schedsim.kernel import events\n"
            "keys = np.zeros(2, np.int64)\n"
            "events.push(np.zeros(2), keys, keys.copy(), 0, 1.0, 1, 1)\n")
    subprocess.run([sys.executable, "-c", call], env=env, check=True, timeout=300)
    loaded = subprocess.run(
        [sys.executable, "-c",
         "from schedsim.kernel import cache, events\n"
         "count = cache.load_cached_kernels()\n"
         "stats = events.push.stats\n"
         "print(count, len(events.push.overloads), sum(stats.cache_hits.values()),"
         " sum(stats.cache_misses.values()))"],
        env=env, capture_output=True, text=True, check=True, timeout=300)
    count, overloads, hits, misses = map(int, loaded.stdout.split())
    assert count >= 1 and overloads == 1 and hits == 1 and misses == 0


def test_the_benchmark_summary_takes_cpu_and_memory_from_a_worker_steps_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from schedsim.experiments.cli import main

    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for name in ("forked", "alone"):
        bench = tmp_path / "bench" / "simulate" / f"{name}.tsv"
        bench.parent.mkdir(parents=True, exist_ok=True)
        bench.write_text(header + "2.0\t0:00:02\t30\t1\t1\t1\t0\t0\t0\t0.05\n")
    log = tmp_path / "logs" / "simulate" / "forked.log"
    log.parent.mkdir(parents=True)
    log.write_text("X 1 simulations\n" + USAGE_LINE.format(user=1.5, system=0.25, rss=250.0)
                   + "\n")
    assert main(["benchmarks", str(tmp_path / "bench"), "--logs", str(tmp_path / "logs")]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "| simulate | 2 | 4.0 | 2.00 | 2.00 | 1.8 | 250 |" in rows


def test_a_command_handed_to_the_worker_imports_only_what_handing_over_needs() -> None:
    """``python -m schedsim.experiments`` under the worker runs once per workflow step:
    it imports the client alone, not the worker's nor the package's libraries."""
    script = ("import sys, runpy, os\n"
              "os.environ['SCHEDSIM_WORKER'] = '/nonexistent/socket'\n"
              "try:\n"
              "    runpy.run_module('schedsim.experiments', run_name='__main__')\n"
              "except SystemExit:\n"
              "    pass\n"
              "print(' '.join(sorted(sys.modules)))")
    loaded = set(subprocess.run([sys.executable, "-c", script], capture_output=True,
                                text=True, check=True, timeout=60).stdout.split())
    assert "schedsim.experiments.client" in loaded
    heavy = {"argparse", "numpy", "numba", "pandas", "schedsim.experiments.worker",
             "schedsim.experiments.cli", "subprocess", "dataclasses"}
    assert not loaded & heavy, loaded & heavy
