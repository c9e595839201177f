"""The point runner builds the machine from the family's description."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedsim.errors import InputError
from schedsim.experiments.run import build_machine, load_model, run_point
from schedsim.experiments.spec import LoadModelSpec, MachineSpec, PointSpec
from schedsim.workloads.base import get_model


def test_machine_description_gives_partitions_speeds_and_a_seeded_load_model() -> None:
    spec = MachineSpec(4, 1, (2, 2), (1.0, 1.0, 2.0, 2.0), LoadModelSpec("uniform",
                                                                         {"max_percent": 30}))
    machine = build_machine(spec)
    assert machine.partitions == (2, 2) and machine.speeds == (1.0, 1.0, 2.0, 2.0)
    first, again, other = (load_model(spec, seed) for seed in (1, 1, 2))
    loads = first.redraw(0.0)
    assert len(loads) == 4 and all(0.0 <= u <= 0.3 for u in loads)
    assert again.redraw(0.0) == loads and other.redraw(0.0) != loads
    assert load_model(MachineSpec(4), 1) is None
    with pytest.raises(InputError, match="unknown load model"):
        load_model(MachineSpec(4, load=LoadModelSpec("nope")), 1)


def point(path: Path, machine: MachineSpec, model: str) -> PointSpec:
    return PointSpec(family="toy", target="TOY-X", policy="easy", point="p", variant="v",
                     variant_column="workload", labels={}, machine=machine, model=model,
                     seeds=(1,), workloads={"1": str(path)})


def test_a_point_runs_on_a_loaded_heterogeneous_machine(tmp_path: Path) -> None:
    path = tmp_path / "w.swf"
    params = {"typed": False, "nodes": 4, "uhi": 2.0, "umed": 1.5}
    path.write_text(get_model("lublin99").run(40, 1, params))
    plain = run_point(point(path, MachineSpec(4), "lublin99"))
    loaded = run_point(point(path, MachineSpec(4, speeds=(1.0, 1.0, 2.0, 2.0),
                                               load=LoadModelSpec("uniform")), "lublin99"))
    assert plain[0]["jobs"] == loaded[0]["jobs"] == 40
    assert loaded[0]["ART"] != plain[0]["ART"]  # loads and speeds change the run times
    assert run_point(point(path, MachineSpec(4, speeds=(1.0, 1.0, 2.0, 2.0),
                                             load=LoadModelSpec("uniform")), "lublin99")) \
        == loaded


def test_a_workload_whose_unit_differs_from_the_machine_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.cwf"
    path.write_text(get_model("lublin-los").run(30, 1, {"ps": "0.5", "load": "0.7"}))
    with pytest.raises(InputError, match="AllocationUnit 32 differs"):
        run_point(point(path, MachineSpec(320, 64), "lublin-los"))


def _run_python(code: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def test_a_simulation_job_loads_neither_pandas_nor_other_families_kernels(
        tmp_path: Path) -> None:
    """Start-up paid by every simulation job: the policy lookup imports only the modules
    up to the policy's own, and writing the rows does not import pandas."""
    out = tmp_path / "rows.parquet"
    loaded = _run_python(
        "import sys\n"
        "from schedsim.policies.registry import get_policy\n"
        "from schedsim.experiments.run import write_rows_parquet\n"
        "get_policy('HRFBf')\n"
        f"write_rows_parquet([{{'a': 1.0, 'b': 'x'}}], {str(out)!r}, {{'k': 'v'}})\n"
        "print(sorted(m for m in ('pandas', 'numba', 'schedsim.kernel.loop')"
        " if m in sys.modules))")
    assert loaded == "[]"


def test_rows_are_written_the_same_with_and_without_pandas_loaded(tmp_path: Path) -> None:
    rows = "[{'target': 'T', 'seed': 1, 'value': 0.1, 'n': float('nan')}]"
    for name, first in (("plain", ""), ("pandas", "import pandas\n")):
        _run_python(first + "from schedsim.experiments.run import write_rows_parquet\n"
                    f"write_rows_parquet({rows}, {str(tmp_path / name)!r}, {{'k': 'v'}})")
    assert (tmp_path / "plain").read_bytes() == (tmp_path / "pandas").read_bytes()


def test_benchmark_files_are_summed_by_family_and_reading(tmp_path: Path) -> None:
    from schedsim.experiments.cli import main
    from schedsim.experiments.commands.benchmarks import benchmark_family

    assert benchmark_family("simulate/HRF-F7@literal-budget") == ("hrf", "literal-budget")
    assert benchmark_family("aggregate/LOS-CS20") == ("los", "default")
    assert benchmark_family("generate_workload/los@lead-one-day") == ("los", "lead-one-day")
    assert benchmark_family("claims/claims") == ("all", "default")
    assert benchmark_family("generate_workloads/hrf") == ("hrf", "default")
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for rel, wall in (("simulate/HRF-F7/HRFBf/a.tsv", 2.0), ("simulate/HRF-F7/HRFBf/b.tsv", 3.0),
                      ("simulate/HRF-F7@x/HRFBf/a.tsv", 5.0), ("claims/claims.tsv", 1.0)):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + f"{wall}\t0:00:0{wall:.0f}\t1\t1\t1\t1\t0\t0\t0\t{wall / 2}\n")
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["benchmarks", str(tmp_path), "--by-family"]) == 0
    rows = out.getvalue().splitlines()
    assert "| hrf | default | 2 | 5.0 | 2.5 |" in rows
    assert "| hrf | x | 1 | 5.0 | 2.5 |" in rows
    assert rows[-1] == "| all | all | 4 | 11.0 | 5.5 |"


@pytest.mark.parametrize("command, extra", [
    ("run-point", ["--out", "run.parquet"]), ("generate", []),
    ("aggregate", ["--out", "table.csv"]),
    ("figure", ["--table", "t.csv", "--png", "f.png", "--pdf", "f.pdf"])])
def test_a_spec_that_is_not_json_is_one_line_naming_the_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
        extra: list[str]) -> None:
    """A ``--spec`` that does not parse names ``--spec``, exits 2 and writes nothing."""
    from schedsim.experiments.cli import main

    args = [str(tmp_path / a) if "." in a else a for a in extra]
    assert main([command, "--spec", "{bad", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"schedsim experiments {command}: error: --spec: not JSON")
    assert "\n" not in err
    assert list(tmp_path.iterdir()) == []
