"""Inputs that cannot hurt (issue list of docs/reliability.md, "Inputs that cannot hurt"):
outputs only over regular files or new paths, with the umask's mode, removed on a
signal; inputs checked before they are read; seeds, job counts, numbers and parameters
checked where they enter; files without a machine size or with an unknown submit time;
text that is not SWF named for what it is."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest

from schedsim.cli import main
from schedsim.inputs import check_input
from schedsim.workloads import swf_scan
from schedsim.workloads.base import MAX_JOBS, get_model
from schedsim.workloads.load import load_workload
from schedsim.workloads.swf import read_swf

DATA = Path(__file__).parent / "data"
LINE = "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"
SWF = f"; MaxProcs: 8\n{LINE}\n"


def run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors
            code = int(exit_.code or 0)
    return code, err.getvalue()


def one_line_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err


def simulate_to(tmp_path: Path, out: Path) -> tuple[int, str]:
    workload = tmp_path / "w.swf"
    workload.write_text(SWF)
    return run("simulate", str(workload), "--policy", "easy", "--out", str(out))


# ----------------------------------------------------------------------------- outputs


def test_a_fifo_output_is_refused_and_kept(tmp_path: Path) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    one_line_error(*simulate_to(tmp_path, fifo), "is a FIFO (named pipe), not a regular file")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(not Path("/dev/null").is_char_device(), reason="no /dev/null")
def test_dev_null_as_output_is_refused_and_never_replaced(tmp_path: Path) -> None:
    one_line_error(*simulate_to(tmp_path, Path("/dev/null")), "is a character device")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_symlink_output_writes_its_target_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.swf"
    real.write_text("old\n")
    link = tmp_path / "link.swf"
    link.symlink_to(real)
    code, err = simulate_to(tmp_path, link)
    assert code == 0, err
    assert link.is_symlink() and real.read_text().startswith("; Schedule:")


def test_a_symlink_to_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.swf"
    link.symlink_to(fifo)
    one_line_error(*simulate_to(tmp_path, link), "is a FIFO")
    assert link.is_symlink() and stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_a_new_output_gets_the_umask_s_mode(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        code, err = simulate_to(tmp_path, tmp_path / "s.swf")
        generated = tmp_path / "g.swf"
        assert run("generate", "lublin99", "--jobs", "5", "--seed", "1", "--out",
                   str(generated))[0] == 0
    finally:
        os.umask(previous)
    assert code == 0, err
    for path in (tmp_path / "s.swf", generated):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_a_replaced_output_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "s.swf"
    out.write_text("old\n")
    out.chmod(0o640)
    assert simulate_to(tmp_path, out)[0] == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


SLOW_WRITE = """
import sys, time
import schedsim.cli as cli
from schedsim.workloads import columns

original = columns.swf_lines
def slow(*args, **kwargs):
    for piece in original(*args, **kwargs):
        yield piece
        print("writing", flush=True)
        time.sleep(60)
cli.swf_lines = slow
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_writing_leaves_no_temporary_file(tmp_path: Path, signum: int) -> None:
    workload = tmp_path / "w.swf"
    workload.write_text(SWF)
    out = tmp_path / "out" / "s.swf"
    out.parent.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITE, "simulate", str(workload), "--policy", "easy",
         "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline() == "writing\n"  # inside the staged file's writing
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err
    assert f"{signal.Signals(signum).name}: stopped; no output written" in err
    assert list(out.parent.iterdir()) == []


# ----------------------------------------------------------------------------- inputs


def test_a_fifo_input_is_refused_without_reading_it(tmp_path: Path) -> None:
    fifo = tmp_path / "w.swf"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "schedsim.cli", "simulate", str(fifo),
                             "--policy", "easy", "--out", str(tmp_path / "s.swf")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and time.monotonic() - started < 60
    assert f"{fifo}: is a FIFO (named pipe), not a regular file" in result.stderr


def test_a_directory_or_an_unreadable_input_is_named(tmp_path: Path) -> None:
    one_line_error(*run("simulate", str(tmp_path), "--policy", "easy", "--out",
                        str(tmp_path / "s.swf")), "is a directory")
    with pytest.raises(Exception, match="no such file"):
        check_input(tmp_path / "absent.swf")


@pytest.mark.parametrize(("data", "fragment"), [
    (b"\xef\xbb\xbf" + SWF.encode(), "starts with a UTF-8 byte-order mark"),
    (SWF.encode("utf-16"), "is UTF-16 or UTF-32 text"),
    (SWF.encode("utf-16-le"), "is UTF-16 or UTF-32 text"),
    (SWF.encode().replace(b" 100 ", b" 1\x0000 "), ":2: a NUL byte"),
])
def test_text_that_is_not_swf_is_named_for_what_it_is(tmp_path: Path, data: bytes,
                                                      fragment: str) -> None:
    for name in ("w.swf", "w.cwf"):
        path = tmp_path / name
        path.write_bytes(data)
        code, err = run("simulate", str(path), "--policy", "easy", "--out",
                        str(tmp_path / "s.swf"))
        one_line_error(code, err, f"{path}", fragment)


def test_gzip_data_is_read_whatever_its_name(tmp_path: Path) -> None:
    path = tmp_path / "w.swf"
    path.write_bytes(gzip.compress(SWF.encode()))
    assert [r.job for r in read_swf(path).records] == [1]
    fake = tmp_path / "w.swf.gz"
    fake.write_text(SWF)
    one_line_error(*run("simulate", str(fake), "--policy", "easy", "--out",
                        str(tmp_path / "s.swf")), "ends in .gz but the file is not gzip")


@pytest.mark.parametrize("name", ["w.swf", "w.swf.gz", "w.cwf"])
@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_a_damaged_gzip_file_is_named_whichever_reader_reads_it(tmp_path: Path, name: str,
                                                                damage: str) -> None:
    """Read whole (CWF) or a piece at a time (SWF, pieces of 64 bytes: the damage is met
    after the scan has taken lines), a damaged gzip file is one line naming it."""
    data = gzip.compress((SWF + f"{LINE}\n" * 200).encode())
    # half of it, or a wrong checksum and length
    data = data[:len(data) // 2] if damage == "truncated" else data[:-8] + bytes(8)
    path = tmp_path / name
    path.write_bytes(data)
    with mock.patch.object(swf_scan, "PIECE_BYTES", 64):
        code, err = run("simulate", str(path), "--policy", "easy", "--out",
                        str(tmp_path / "s.swf"))
    one_line_error(code, err, f"{path}: truncated or corrupt gzip file")
    assert not (tmp_path / "s.swf").exists()


def test_a_file_without_a_machine_size_needs_procs(tmp_path: Path) -> None:
    path = tmp_path / "w.swf"
    path.write_text(f"{LINE}\n")
    one_line_error(*run("simulate", str(path), "--policy", "easy", "--out",
                        str(tmp_path / "s.swf")),
                   "the machine size is unknown: the file has no MaxProcs (or MaxNodes) "
                   "header; give it with --procs")
    assert run("simulate", str(path), "--policy", "easy", "--procs", "8", "--out",
               str(tmp_path / "s.swf"))[0] == 0


def test_an_unknown_submit_time_drops_the_job_and_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "w.swf"
    path.write_text(f"; MaxProcs: 8\n{LINE}\n{LINE.replace('1 0 ', '2 -1 ', 1)}\n")
    loaded = load_workload(path)
    assert [job.id for job in loaded.jobs] == [1]
    assert loaded.report is not None and loaded.report.dropped_submit_unknown == 1
    code, err = run("simulate", str(path), "--policy", "easy", "--out", str(tmp_path / "s"))
    assert code == 0 and "1 with an unknown submit time (-1)" in err


# ----------------------------------------------------------------------------- generate


@pytest.mark.parametrize(("model", "seed"), [("lublin99", "4294967296"), ("lublin-los",
                                             "4294967297"), ("lublin99", "-1"),
                                             ("cirne01", "-1"), ("hyperexp", "-1")])
def test_seeds_outside_0_to_2_32_are_refused(tmp_path: Path, model: str, seed: str) -> None:
    ext = "cwf" if model == "lublin-los" else "swf"
    out = tmp_path / f"w.{ext}"
    one_line_error(*run("generate", model, "--jobs", "5", "--seed", seed, "--out", str(out)),
                   f"seed {seed} is out of range; allowed: an integer in [0, 4294967295]")
    assert not out.exists()


def test_the_largest_seed_is_its_own(tmp_path: Path) -> None:
    texts = []
    for seed in ("0", "4294967295"):
        out = tmp_path / f"s{seed}.swf"
        assert run("generate", "lublin99", "--jobs", "5", "--seed", seed, "--out",
                   str(out))[0] == 0
        texts.append([line for line in out.read_text().splitlines() if line[0] != ";"])
    assert texts[0] != texts[1]


def test_the_output_name_follows_the_model_s_format(tmp_path: Path) -> None:
    one_line_error(*run("generate", "lublin-los", "--jobs", "5", "--seed", "1", "--out",
                        str(tmp_path / "x.swf")),
                   "generate lublin-los writes CWF: the output", "must end in .cwf")
    assert not (tmp_path / "x.swf").exists()
    one_line_error(*run("generate", "lublin99", "--jobs", "5", "--seed", "1", "--out",
                        str(tmp_path / "x.cwf")), "must end in .swf")


def test_the_job_count_is_bounded(tmp_path: Path) -> None:
    out = tmp_path / "w.swf"
    started = time.monotonic()
    one_line_error(*run("generate", "lublin99", "--jobs", "100000000000", "--seed", "1",
                        "--out", str(out)), f"allowed: an integer in [1, {MAX_JOBS}]")
    assert time.monotonic() - started < 10 and not out.exists()


def test_a_large_workload_is_made_in_pieces() -> None:
    model = get_model("lublin99")
    pieces = model.pieces(20_000, 3, {})
    first = next(pieces)
    assert first.startswith("; Version: 2") and first.count("\n") < 20  # the header alone
    rest = list(pieces)
    assert len(rest) >= 3 and max(len(p) for p in rest) < len(first + "".join(rest)) / 2
    assert first + "".join(rest) == model.run(20_000, 3, {})


@pytest.mark.parametrize("argv", [
    ["generate", "lublin99", "--jobs", "1_000", "--seed", "1"],
    ["generate", "lublin99", "--jobs", "10", "--seed", "1_0"],
    ["generate", "hyperexp", "--jobs", "10", "--seed", "1", "--param", "pmax=1_6"],
])
def test_underscores_are_not_numbers(tmp_path: Path, argv: list[str]) -> None:
    one_line_error(*run(*argv, "--out", str(tmp_path / "w.swf")), "1_")


def test_a_parameter_given_twice_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "w.swf"
    path.write_text(SWF)
    one_line_error(*run("simulate", str(path), "--policy", "LOS", "--param", "lookahead=5",
                        "--param", "lookahead=7", "--out", str(tmp_path / "s.swf")),
                   "parameter lookahead is given twice (lookahead=5 and lookahead=7)")
    one_line_error(*run("generate", "lublin99", "--jobs", "5", "--seed", "1", "--param",
                        "uhi=5", "--param", "uhi=6", "--out", str(tmp_path / "g.swf")),
                   "parameter uhi is given twice")


# ----------------------------------------------------------------------------- listings


def test_policies_and_models_read_well() -> None:
    texts = []
    for command in ("policies", "models"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main([command]) == 0
        texts.append(out.getvalue())
    policies, models = texts
    for text in texts:
        assert "[-inf, inf]" not in text and "one of ," not in text and "str in" not in text
    assert "alias" not in policies and "\n  los:" not in policies
    assert "parameters as HAP" in policies and "one of '' (empty), fcfs, fpfs" in policies
    # was 220 with every alias repeating its parameters; 172 with each run of policies of
    # the same needs saying them once
    assert len(policies.splitlines()) < 180
    assert "lublin-los (writes CWF)" in models and "(any text)" in models


@pytest.mark.parametrize(("given", "meant"), [("EASY", "easy"), ("los", "LOS"),
                                              ("delayed-los", "Delayed-LOS")])
def test_policy_names_have_one_spelling(tmp_path: Path, given: str, meant: str) -> None:
    path = tmp_path / "w.swf"
    path.write_text(SWF)
    one_line_error(*run("simulate", str(path), "--policy", given, "--out",
                        str(tmp_path / "s.swf")),
                   f"unknown policy {given!r} (names are case-sensitive: did you mean "
                   f"{meant!r}?)")
    assert run("simulate", str(path), "--policy", meant, "--out", str(tmp_path / "s.swf"))[0] \
        == 0
