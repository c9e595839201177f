"""Compiled code saved by several processes at once is never mixed up: every save into
the code version's cache directory waits for the directory's lock and writes its data
file before the index names it (``schedsim.kernel.cache``), and kernels compiled by two
processes at once load in a third with the reference's results."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from numba.core.caching import IndexDataCacheFile

import schedsim
from schedsim.kernel import cache
from schedsim.kernel.version import LOCK_FILE, code_version
from schedsim.policies.profile import Profile

SOURCE = Path(schedsim.__file__).resolve().parents[1]  # the package under test, for children
STAMP = "probe stamp"


def child_env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SOURCE), "SCHEDSIM_CACHE_DIR": str(root)}


SAVER = textwrap.dedent(f"""
    import sys
    from numba.core.caching import IndexDataCacheFile
    from schedsim.kernel.cache import cache_dir
    IndexDataCacheFile(sys.argv[1], "probe", {STAMP!r}).save("outside", b"outside code")
    print("saved outside", flush=True)
    ours = IndexDataCacheFile(str(cache_dir()), "probe", {STAMP!r})
    print("saving", flush=True)
    ours.save("child", b"child code")
    print("saved", flush=True)
""")


def test_a_save_waits_for_the_directory_lock_and_gets_a_data_file_of_its_own(
        tmp_path: Path) -> None:
    """While the test holds the lock of the code version's directory, a child's save
    into another directory goes through, and its save into ours waits (no index after a
    second); the test saves an entry of its own under the lock, as numba's own save
    would, and lets go: the child's save then ends, and each entry names its own data
    file holding its own contents. A slow machine only makes the second shorter."""
    root, outside = tmp_path / "cache", tmp_path / "outside"
    directory = root / code_version()
    directory.mkdir(parents=True)
    outside.mkdir()
    index = directory / "probe.nbi"
    with open(directory / LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        child = subprocess.Popen([sys.executable, "-c", SAVER, str(outside)],
                                 env=child_env(root), stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == "saved outside\n"
            assert child.stdout.readline() == "saving\n"
            time.sleep(1.0)
            assert child.poll() is None
            assert not index.exists()
            ours = IndexDataCacheFile(str(directory), "probe", STAMP)
            type(ours).save.__wrapped__(ours, "parent", b"parent code")  # lock held here
        except BaseException:
            child.kill()
            child.wait()
            raise
        fcntl.flock(lock, fcntl.LOCK_UN)
    rest, _ = child.communicate(timeout=120)
    assert (child.returncode, rest) == (0, "saved\n")
    saved = IndexDataCacheFile(str(directory), "probe", STAMP)
    names = saved._load_index()
    assert sorted(names) == ["child", "parent"]
    assert names["child"] != names["parent"]
    assert saved.load("parent") == b"parent code"
    assert saved.load("child") == b"child code"
    outside_file = IndexDataCacheFile(str(outside), "probe", STAMP)
    assert outside_file.load("outside") == b"outside code"


def test_the_data_file_is_written_before_the_index_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every index written into a locked directory names only data files that already
    hold their contents (numba's own save writes the index first)."""
    monkeypatch.setattr(cache, "_LOCKED_DIRECTORIES", {str(tmp_path)})
    written = IndexDataCacheFile._save_index
    indexes: list[dict[str, bool]] = []

    def save_index(self: IndexDataCacheFile, overloads: dict) -> None:
        indexes.append({key: (tmp_path / name).exists() for key, name in overloads.items()})
        written(self, overloads)

    monkeypatch.setattr(IndexDataCacheFile, "_save_index", save_index)
    entries = IndexDataCacheFile(str(tmp_path), "probe", STAMP)
    for key in ("first", "second", "first"):
        entries.save(key, f"{key} code".encode())
    assert indexes == [{"first": True}, {"first": True, "second": True}]
    assert entries.load("first") == b"first code"
    assert entries.load("second") == b"second code"


COMPILER = textwrap.dedent("""
    import json, sys
    import numpy as np
    from schedsim.kernel.profile import holding
    ends = np.array([130.0, -1.0, 105.0, -1.0, 250.0, -1.0, 130.0, -1.0, 90.0, -1.0])
    procs = np.array([2, 0, 1, 0, 3, 0, 1, 0, 4, 0], np.int64)
    arrays = {"C": (ends[::2].copy(), procs[::2].copy()), "A": (ends[::2], procs[::2])}
    out = {}
    for layout in sys.argv[1:]:
        times, free, n = holding(100.0, 10, *arrays[layout], 5, 0)
        out[layout] = [times[:n].tolist(), free[:n].tolist()]
    out["compiled"] = sum(holding.stats.cache_misses.values())
    out["loaded"] = sum(holding.stats.cache_hits.values())
    print(json.dumps(out))
""")


def run_compilers(root: Path, *orders: list[str]) -> list[dict]:
    """Processes started at once, each calling the profile's ``holding`` for contiguous
    (C) and strided (A) arrays in the order given (same machine-level arguments)."""
    children = [subprocess.Popen([sys.executable, "-c", COMPILER, *order],
                                 env=child_env(root), stdout=subprocess.PIPE, text=True)
                for order in orders]
    results = []
    for child in children:
        out, _ = child.communicate(timeout=600)
        assert child.returncode == 0
        results.append(json.loads(out))
    return results


def test_kernels_compiled_by_two_processes_at_once_load_with_the_references_results(
        tmp_path: Path) -> None:
    """Two processes compile one kernel's two layouts into a fresh cache at once, in
    opposite orders; a third loads both from the cache, compiling nothing, and gets the
    Python profile's steps for each."""
    root = tmp_path / "cache"
    expected = Profile.holding(100.0, 10, [(130.0, 2), (105.0, 1), (250.0, 3),
                                           (130.0, 1), (90.0, 4)])
    steps = [expected.times, expected.free]
    for result in run_compilers(root, ["C", "A"], ["A", "C"]):
        assert result["C"] == result["A"] == steps
    (loaded,) = run_compilers(root, ["A", "C"])
    assert (loaded["compiled"], loaded["loaded"]) == (0, 2)
    assert loaded["C"] == loaded["A"] == steps
