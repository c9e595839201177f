"""The ahead-of-time library (``schedsim.kernel.ahead``): `schedsim simulate` on it writes
the same bytes as on the JIT kernels, never loads numba, refuses an argument of another
type instead of reading it as the declared one, and lives in the code version's
directory, so that it is never stale."""

from __future__ import annotations

import gzip
import importlib
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import numpy as np
import pytest

import schedsim
from schedsim.cli import main
from schedsim.errors import InputError
from schedsim.kernel import ahead
from schedsim.kernel.version import cache_dir, compiled_code_files

SOURCE = Path(schedsim.__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"

RUN = textwrap.dedent("""
    import sys
    from schedsim.cli import main
    code = main(sys.argv[1:])
    print(code, "numba" in sys.modules, "llvmlite" in sys.modules)
""")


def c_compiler() -> str | None:
    """The C compiler numba.pycc builds the library's wrapper with (``CC``, else Python's)."""
    name = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(name)


@pytest.fixture(scope="module")
def library_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A compiled-code cache holding this code version's library (`schedsim compile`);
    the tests that need it skip without a C compiler, except in CI
    (``SCHEDSIM_REQUIRE_COMPILER=1``, set by .ci/run), where they fail."""
    if c_compiler() is None:
        if os.environ.get("SCHEDSIM_REQUIRE_COMPILER") == "1":
            pytest.fail("no C compiler: `schedsim compile` needs one (.ci/run installs gcc)")
        pytest.skip("no C compiler: `schedsim compile` needs one (e.g. Debian's gcc)")
    root = tmp_path_factory.mktemp("cache")
    done = subprocess.run([sys.executable, "-m", "schedsim.cli", "compile"],
                          env=child_env(root), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout
    return root


def child_env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SOURCE), "SCHEDSIM_CACHE_DIR": str(root)}


@pytest.fixture(scope="module")
def workloads(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A lublin99 file; the same gzipped with its lines out of submit order; a hand-made
    file with lines the reader drops."""
    folder = tmp_path_factory.mktemp("workloads")
    generated = folder / "lublin.swf"
    assert main(["generate", "lublin99", "--jobs", "3000", "--seed", "7",
                 "--out", str(generated)]) == 0
    lines = generated.read_text().splitlines(keepends=True)
    header = [line for line in lines if line.startswith(";")]
    jobs = [line for line in lines if not line.startswith(";")]
    shuffled = folder / "shuffled.swf.gz"
    order = np.random.default_rng(3).permutation(len(jobs))
    with gzip.open(shuffled, "wt") as out:
        out.writelines(header + [jobs[i] for i in order])
    return [generated, shuffled, DATA / "small.swf"]


@pytest.mark.parametrize("policy", sorted(ahead.POLICIES))
def test_simulate_on_the_library_writes_what_the_jit_kernels_write(
        policy: str, library_cache: Path, workloads: list[Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each workload, each policy: the schedule, the metrics and the message on stderr of
    a run on the library (its own process) are those of a run on the JIT kernels, and the
    run on the library loaded neither numba nor LLVM."""
    monkeypatch.setattr(ahead, "available", lambda: False)  # this process: the JIT kernels
    for number, workload in enumerate(workloads):
        outputs = {}
        for name in ("ahead", "jit"):
            out, metrics = tmp_path / f"{name}{number}.swf", tmp_path / f"{name}{number}.json"
            args = ["simulate", str(workload), "--policy", policy, "--out", str(out),
                    "--metrics", str(metrics)]
            if name == "ahead":
                done = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True,
                                      text=True, env=child_env(library_cache), timeout=300)
                assert done.stdout.split() == ["0", "False", "False"], done.stderr
                said = done.stderr
            else:
                assert main(args) == 0
                said = ""
            outputs[name] = (out.read_bytes(), metrics.read_bytes(), said)
        assert outputs["ahead"][:2] == outputs["jit"][:2], (policy, workload.name)
        if workload.name == "small.swf":
            assert "note:" in outputs["ahead"][2]  # the dropped lines, as a JIT run says


def test_a_policy_the_library_does_not_hold_runs_as_without_it(
        library_cache: Path, workloads: list[Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Best-fit FCFS-backfill is not in the library: its run reads the file on the library
    and writes the schedule a run without the library writes."""
    monkeypatch.setattr(ahead, "available", lambda: False)
    written = []
    for name in ("ahead", "jit"):
        out = tmp_path / f"{name}.swf"
        args = ["simulate", str(workloads[1]), "--policy", "bf-fcfs-backfill", "--out", str(out)]
        if name == "ahead":
            done = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True,
                                  text=True, env=child_env(library_cache), timeout=300)
            assert done.stdout.split()[0] == "0", done.stderr
        else:
            assert main(args) == 0
        written.append(out.read_bytes())
    assert written[0] == written[1]


@pytest.fixture
def in_use(library_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process on the library, until the test ends."""
    monkeypatch.setattr(ahead, "_in_use", None)
    version_dir = next(path for path in library_cache.iterdir() if path.is_dir()
                       and any(path.glob(f"{ahead.LIBRARY}*")))
    monkeypatch.setattr(ahead, "library_path",
                        lambda: next(version_dir.glob(f"{ahead.LIBRARY}*")))
    ahead.use()


def test_an_argument_of_another_type_is_refused(in_use: None) -> None:
    """The library's functions would read an int64 array as float64 or crash on a 2-d one;
    through ``functions`` each is a TypeError that names the function and the argument, and
    a right call gives what the JIT kernel gives."""
    kernels = ahead.functions("schedsim.workloads.swf_kernels")
    assert isinstance(kernels.value_ranges, ahead._Checked)
    block = np.arange(12.0).reshape(3, 4)
    given = np.array([1], np.int64)
    text = np.frombuffer(b"x", np.uint8)
    ends = np.array([1], np.int64)
    jit = importlib.import_module("schedsim.workloads.swf_kernels")
    assert kernels.format_rows(block, given, text, ends).tobytes() == \
        jit.format_rows(block, given, text, ends).tobytes()
    wrong = [(block.astype(np.int64), given, text, ends),  # another dtype
             (block, given.reshape(1, 1), text, ends),  # another number of dimensions
             (np.asfortranarray(block[:, :2]), given, text, ends),  # not C-contiguous
             (block, given, text, 1.0)]  # a scalar for an array
    for arguments in wrong:
        with pytest.raises(TypeError, match="format_rows: argument"):
            kernels.format_rows(*arguments)
    with pytest.raises(TypeError, match="1 arguments"):
        kernels.format_rows(block)
    read_only = block.copy()
    read_only.flags.writeable = False
    low = np.empty(3)
    with pytest.raises(TypeError, match="value_ranges: argument 3"):
        kernels.value_ranges(block, 4, 3, read_only[0], low, np.empty(3, np.bool_),
                             np.empty(3, np.bool_))
    backfill = ahead.functions("schedsim.policies.compiled.backfill")
    with pytest.raises(TypeError, match="fcfs_easy_run: argument 4"):
        backfill.fcfs_easy_run(block[0], block[0], block[0], given, 8.0, True)
    assert not isinstance(backfill.new, ahead._Checked)  # not an entry point: the module's


def test_the_library_is_in_the_code_versions_directory_and_counts_in_it() -> None:
    """A change of a compiled module, of the entry points' table or of a module the JIT
    kernels import gives a new code version, a new directory, and no library there until
    `schedsim compile` builds it."""
    files = set(compiled_code_files())
    for module in (ahead, *(importlib.import_module(name) for name in
                            ("schedsim.workloads.swf_kernels",
                             "schedsim.policies.compiled.backfill"))):
        assert Path(module.__file__).resolve() in files, module.__name__
    assert ahead.library_path().parent == cache_dir()


def test_a_failed_build_says_why_and_leaves_no_library(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiler's last lines in one InputError (exit code 2 from the command), and no
    file where the library goes."""
    target = tmp_path / "version" / "schedsim_ahead.so"
    target.parent.mkdir()
    monkeypatch.setattr(ahead, "library_path", lambda: target)
    monkeypatch.setattr(ahead, "_compiler_command", lambda work: [
        sys.executable, "-c", "import sys; sys.exit('error: command cc failed')"])
    with pytest.raises(InputError, match=r"command cc failed.*C compiler"):
        ahead.build()
    assert not target.exists()
    assert [path.name for path in target.parent.iterdir()] == ["saving.lock"]
