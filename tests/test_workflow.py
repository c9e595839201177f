"""End to end: the Snakemake workflow on the tiny .test configuration.

Runs in a temporary copy of the workflow (Snakefile, workflow/, profiles/,
config/, .test/config/, src/) so that results and Snakemake's metadata stay out
of the tree and the code version the workflow hashes is the code the jobs run
(PYTHONPATH points at the copy). The real log of LOS-F1 is named by its absolute
path (when ../shared/traces has it; else the .test config leaves LOS-F1 out).
About a minute and a half on 2 cores.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ".test/config/config.yaml"
HRF_TARGETS = ("HRF-T1", "HRF-F5", "HRF-F6", "HRF-F7")
LOS_TARGETS = ("LOS-F5", "LOS-F6", "LOS-CS20", "LOS-F7", "LOS-F8", "LOS-F9", "LOS-F10",
               "LOS-F11", "LOS-N10K", "LOS-T4", "LOS-T5", "LOS-T6", "LOS-T7")
KTH = ROOT.parent / "shared" / "traces" / "KTH-SP2-1996-2.swf.gz"
TRACE_TARGETS = ("LOS-F1",) if KTH.is_file() else ()
HPC2N = ROOT.parent / "shared" / "traces" / "HPC2N-2002-2.1-cln.swf.gz"
GOAL_LOG_TARGETS = ("GOAL-F3", "GOAL-F4", "GOAL-T2", "GOAL-F8", "GOAL-T1")
GOAL_TARGETS = GOAL_LOG_TARGETS if HPC2N.is_file() else ()
# Claims of targets the .test config leaves off are rows too (not checkable).
GOAL_OFF = ("GOAL-F6", "GOAL-F3L", "GOAL-F4L", "GOAL-F6L")
IHAP_TARGETS = ("IHAP-F1", "IHAP-F2", "IHAP-F3")
SLACK_TARGETS = ("SLACK-F6", "SLACK-F9", "SLACK-F11", "SLACK-F15", "SLACK-DOWN",
                 "SLACK-MINIMAL", "SLACK-K1", "SLACK-K2", "SLACK-T4", "SLACK-F17", "SLACK-F23")
TARGETS = (*HRF_TARGETS, *TRACE_TARGETS, *LOS_TARGETS, *GOAL_TARGETS, *IHAP_TARGETS,
           *SLACK_TARGETS)
# Targets with registered claims (LOS-CS20 only feeds the C_s of LOS-F7 and LOS-F9).
CLAIM_TARGETS = ({*HRF_TARGETS, "LOS-F1", *LOS_TARGETS, *GOAL_LOG_TARGETS, *GOAL_TARGETS,
                  *GOAL_OFF, *IHAP_TARGETS, *SLACK_TARGETS} - {"LOS-CS20"})
LOGS = ("SDSC-SP2", "KTH-SP2", "HPC2N", "SDSC-BLUE", "LLNL-Thunder", "LLNL-Atlas")
COPIED = ("Snakefile", "workflow", "profiles/default", "config", ".test/config", "src")

if shutil.which("snakemake", path=str(Path(sys.executable).parent)) is None:
    pytest.skip("snakemake is not installed beside this Python", allow_module_level=True)


def snakemake(workdir: Path, *args: str, config: tuple[str, ...] = (),
              timeout: float = 300.0, configfile: str = CONFIG) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(workdir / "src")
    # The real logs from ../shared/traces when it is there; never the network.
    logs = ", ".join(f"{name}: {{url: 'http://127.0.0.1:9/{name}'}}" for name in LOGS)
    items = (f"traces={{search: [{KTH.parent}], logs: {{{logs}}}}}", *config)
    extra = ("--config", *items)
    return subprocess.run(["snakemake", "--cores", "2", "--configfile", configfile, *extra,
                           *args],
                          cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def output(result: subprocess.CompletedProcess) -> str:
    return result.stdout + result.stderr


def copy_workflow(copy: Path) -> Path:
    """The workflow's files (COPIED) copied into ``copy``."""
    # numba's on-disk caches (*.nbi, *.nbc in __pycache__) come along: they are valid for
    # the copied sources (same contents and times), so the kernels compile once per run
    ignore = shutil.ignore_patterns("*.egg-info", "*.pyc")
    for name in COPIED:
        source, target = ROOT / name, copy / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=ignore)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return copy


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the workflow after one complete run of the .test configuration."""
    copy = copy_workflow(tmp_path_factory.mktemp("workflow"))
    result = snakemake(copy, timeout=900.0)  # a guard against a hang, not a speed check
    assert result.returncode == 0, output(result)[-5000:]
    yield copy


def test_every_target_has_a_table_and_figures(workdir: Path) -> None:
    results = workdir / "results"
    for target in TARGETS:
        table = pd.read_csv(results / "tables" / f"{target}.csv")
        assert len(table) > 0, target
        for ext in ("png", "pdf"):
            assert (results / "figures" / f"{target}.{ext}").stat().st_size > 1000
    f5 = pd.read_csv(results / "tables" / "HRF-F5.csv")
    assert {"ATT_mean", "ATT_ci_low", "ATT_ci_high", "AWT_mean", "ART_mean"} <= set(f5.columns)
    assert set(f5["n_seeds"]) == {2}
    f7 = pd.read_csv(results / "tables" / "HRF-F7.csv")
    assert len(f7) == 8 * 3 and set(f7["n_points"]) == {4}


def test_sensitivity_tables_judge_claims_under_each_reading(workdir: Path) -> None:
    results = workdir / "results"
    hrf = pd.read_csv(results / "tables" / "HRF-sensitivity.csv", keep_default_na=False)
    assert {"default", "sqrt-share", "literal-budget"} == set(hrf["reading"])
    picks = hrf[hrf["claim_id"] == "T1-hrf-picks-A"].set_index("reading")["verdict"]
    assert picks.to_dict() == {"default": "informational", "literal-budget": "informational"}
    assert set(hrf[hrf["reading"] == "sqrt-share"]["target"]) == {"HRF-F7"}
    los = pd.read_csv(results / "tables" / "LOS-sensitivity.csv", keep_default_na=False)
    assert {"window50", "lead-one-day"} <= set(los["reading"])
    policies = {p.name for p in (results / "runs" / "HRF-F7@sqrt-share").iterdir()}
    assert policies == {"SbmFairFcfs", "SbmFairBf", "SchFairFcfs", "SchFairBf"}
    assert (results / "workloads" / "los@lead-one-day").is_dir()
    assert not (results / "figures" / "HRF-F7@sqrt-share.png").exists()
    page = (results / "summary.html").read_text()
    assert "id='sensitivity-hrf'" in page
    assert "reproduced, or explained by a named reading: " in page


def test_los_tables_carry_the_load_knob_and_the_chosen_cs(workdir: Path) -> None:
    tables = workdir / "results" / "tables"
    f7 = pd.read_csv(tables / "LOS-F7.csv")
    assert len(f7) == 3 * 2 and set(f7["n_seeds"]) == {2}
    for column in ("utilization_mean", "AWT_ci_half", "slowdown_mean", "BSLD_mean",
                   "max_wait_mean", "barr_mean", "offered_load_mean"):
        assert f7[column].notna().all(), column
    dlos = f7[f7["policy"] == "Delayed-LOS"]
    cs20 = pd.read_csv(tables / "LOS-CS20.csv")
    cs20 = cs20[cs20["policy"] == "Delayed-LOS"].sort_values(["AWT_mean", "c_s"])
    assert set(dlos["c_s"]) == {cs20["c_s"].iloc[0]}
    assert f7[f7["policy"] != "Delayed-LOS"]["c_s"].isna().all()
    t4 = pd.read_csv(tables / "LOS-T4.csv")
    assert list(t4["metric"]) == ["Utilization", "Job waiting time", "Slowdown"]
    assert {"LOS_ours", "LOS_paper", "easy_ours", "easy_paper"} <= set(t4.columns)
    if TRACE_TARGETS:
        f1 = pd.read_csv(tables / "LOS-F1.csv")
        assert set(f1["n_seeds"]) == {2}
        assert (abs(f1["offered_load_mean"] - f1["load"]) < 1e-9).all()


def test_goal_tables(workdir: Path) -> None:
    if not HPC2N.is_file():
        pytest.skip("the HPC2N log is not on this machine")
    tables = workdir / "results" / "tables"
    f4 = pd.read_csv(tables / "GOAL-F4.seeds.csv")
    assert set(f4["month"]) == {200401} and set(f4["jobs"]) == {5534} and len(f4) == 3
    for column in ("max_wait", "AWT", "BSLD", "long_waits", "p1_jobs", "p2_node_hours",
                   "month_jobs", "demand"):
        assert f4[column].notna().all(), column
    assert (f4["p1_jobs"] + f4["p2_jobs"] == f4["jobs"]).all()
    goal = f4[f4["policy"] == "goal-oriented"]
    assert (goal["search_searches"] > 0).all() and (goal["search_mean_nodes"] <= 200).all()
    t2 = pd.read_csv(tables / "GOAL-T2.csv")
    assert set(t2["month"]) == {"2004-01"} and len(t2) == 3
    t1 = pd.read_csv(tables / "GOAL-T1.csv")
    assert list(t1["paper_jobs"]) == [3156]
    f8 = pd.read_csv(tables / "GOAL-F8.csv")
    assert sorted(f8["node_limit"].dropna()) == [100, 400]
    month = workdir / "results" / "workloads" / "goal" / "HPC2N_2004-01" / "seed1.swf"
    assert "; Month: 2004-01" in month.read_text().splitlines()[:10]


def test_claims_table(workdir: Path) -> None:
    result = pd.read_csv(workdir / "results" / "claims.csv", keep_default_na=False)
    assert list(result.columns) == ["target", "claim_id", "statement", "paper_value",
                                    "our_value", "verdict", "rule", "note"]
    assert set(result["target"]) == CLAIM_TARGETS
    assert set(result["verdict"]) <= {"reproduced", "contradicted", "inconclusive",
                                      "informational", "not checkable"}
    judged = result[~result["verdict"].isin(["informational", "not checkable"])]
    assert (judged["rule"] != "").all()
    t1 = result[result["claim_id"] == "T1-att"].iloc[0]
    assert t1["verdict"] == "reproduced"
    assert (workdir / "results" / "summary.html").stat().st_size > 10000
    for target in TARGETS:
        assert (workdir / "results" / "claims" / f"{target}.rst").read_text().strip()
    los = result[result["target"].str.startswith("LOS")]
    assert (los[los["claim_id"].str.endswith("-magnitude")]["paper_value"] != "").all()
    ihap = result[result["target"].str.startswith("IHAP")]
    assert len(ihap) == 15 and (ihap["verdict"] != "not checkable").all()
    slack = result[result["target"].str.startswith("SLACK")]
    assert len(slack) == 24
    assert list(slack[slack["verdict"] == "not checkable"]["claim_id"]) == ["F9-run-time-cost"]


def test_slack_rows_carry_class_metrics_and_fairness(workdir: Path) -> None:
    """Every SLACK-F9 run has relative response per class; the slack policies' rows also
    count unfair and preferential jobs, the conservative ones leave them empty."""
    seeds = pd.read_csv(workdir / "results" / "tables" / "SLACK-F9.seeds.csv")
    assert set(seeds["policy"]) == {"scojo-conservative", "scojo-slack", "conservative",
                                    "slack-backfill"}
    assert seeds[["RR_long", "RR_medium", "RR_all", "RR60_all"]].notna().all().all()
    slack = seeds["policy"].isin(["scojo-slack", "slack-backfill"])
    assert seeds.loc[slack, "preferential"].notna().all()
    assert seeds.loc[~slack, "preferential"].isna().all()
    assert set(seeds.loc[slack, "goal"]) == {"G1", "G2"}


def test_ihap_tables_flag_imprecise_points(workdir: Path) -> None:
    """Batch means: 5 kept batches per point (the .test config), 90% intervals, and the
    relative half-width of MRT with its 5% flag in every row."""
    table = pd.read_csv(workdir / "results" / "tables" / "IHAP-F1.csv")
    assert set(table["n_seeds"]) == {5}
    relative = table["MRT_ci_half"] / table["MRT_mean"]
    assert np.allclose(table["MRT_rel_half"], relative)
    assert (table["MRT_precise"] == (relative <= 0.05)).all()
    seeds = pd.read_csv(workdir / "results" / "tables" / "IHAP-F1.seeds.csv")
    assert sorted(set(seeds["seed"])) == [2, 3, 4, 5, 6]


def test_run_files_carry_provenance_and_are_reproducible(workdir: Path) -> None:
    run = workdir / "results" / "runs" / "HRF-F5" / "HRFBf" / "heavy_threshold0.9.parquet"
    meta = pq.read_schema(run).metadata
    for key in ("spec", "version", "code_version", "git_commit", "seeds"):
        assert f"schedsim.{key}".encode() in meta
    again = workdir / "again.parquet"
    code = meta[b"schedsim.code_version"].decode()
    env = dict(os.environ, PYTHONPATH=str(workdir / "src"))
    subprocess.run([sys.executable, "-m", "schedsim.experiments", "run-point", "--config", CONFIG,
                    "--target", "HRF-F5", "--policy", "HRFBf", "--point",
                    "heavy_threshold0.9", "--code-version", code, "--out", str(again)],
                   cwd=workdir, env=env, check=True, capture_output=True)
    assert again.read_bytes() == run.read_bytes()


def test_los_workload_and_run_files_are_reproducible(workdir: Path) -> None:
    """A calibrated CWF workload and a load-sweep point with its chosen C_s, redone by hand."""
    env = dict(os.environ, PYTHONPATH=str(workdir / "src"))
    workload = workdir / "results" / "workloads" / "los" / "ps0.2_pd0_load0.9" / "seed2.cwf"
    again = workdir / "again.cwf"
    subprocess.run([sys.executable, "-m", "schedsim.cli", "generate", "lublin-los", "--jobs",
                    "120", "--seed", "2", "--param", "load=0.9", "--param",
                    "load_tolerance=0.001", "--param", "pd=0.0", "--param", "pe=0.0",
                    "--param", "pr=0.0", "--param", "ps=0.2", "--out", str(again)],
                   cwd=workdir, env=env, check=True, capture_output=True)
    assert again.read_bytes() == workload.read_bytes()
    run = workdir / "results" / "runs" / "LOS-F7" / "Delayed-LOS" / "ps0.2_pd0_load0.9.parquet"
    code = pq.read_schema(run).metadata[b"schedsim.code_version"].decode()
    rerun = workdir / "again.parquet"
    subprocess.run([sys.executable, "-m", "schedsim.experiments", "run-point", "--config", CONFIG,
                    "--target", "LOS-F7", "--policy", "Delayed-LOS", "--point",
                    "ps0.2_pd0_load0.9", "--code-version", code, "--out", str(rerun)],
                   cwd=workdir, env=env, check=True, capture_output=True)
    assert rerun.read_bytes() == run.read_bytes()


def test_second_run_does_nothing(workdir: Path) -> None:
    result = snakemake(workdir)
    assert result.returncode == 0, output(result)
    assert "Nothing to be done" in output(result)


def test_one_policy_parameter_change_reruns_only_that_policy(workdir: Path) -> None:
    change = "hrf={policy_params: {HRFBf: {min_revenue: 1.0}}}"
    result = snakemake(workdir, "-n", config=(change,))
    assert result.returncode == 0, output(result)
    text = output(result)
    # HRFBf points of the .test config: F5, F6 and F7 one per load (their sweeps run
    # inside the job).
    assert job_count(text, "simulate") == 9
    assert workload_jobs(text) == 0
    runs = [line for line in text.splitlines() if "output: results/runs" in line]
    assert len(runs) == 9 and all("/HRFBf/" in line for line in runs)


def dry_run_after_edit(workdir: Path, module: str, edit: Callable[[str], str]) -> str:
    """``snakemake -n`` output with ``module``'s text edited (restored after)."""
    path = workdir / "src" / "schedsim" / module
    original = path.read_text()
    try:
        path.write_text(edit(original))
        result = snakemake(workdir, "-n")
    finally:
        path.write_text(original)
    assert result.returncode == 0, output(result)
    return output(result)


@pytest.mark.parametrize("module", ["engine.py", "workloads/cirne.py", "experiments/run.py"])
def test_comments_and_docstrings_rerun_nothing(workdir: Path, module: str) -> None:
    text = dry_run_after_edit(workdir, module, lambda t: t + "\n# only a comment\n")
    assert "Nothing to be done" in text
    text = dry_run_after_edit(workdir, module, lambda t: t.replace('"""', '"""Edited. ', 1))
    assert "Nothing to be done" in text


def test_a_policy_change_reruns_only_the_simulations_that_use_it(workdir: Path) -> None:
    text = dry_run_after_edit(workdir, "policies/moldable.py", lambda t: t + "\n_CHANGED = 1\n")
    # The 36 HRF simulations (every HRF policy is in moldable.py: F5 2 x 3, F6 2 x 3,
    # F7 8 x 3) and the 12 of the sqrt-share reading (4 fair-share policies x 3 loads),
    # none of LOS.
    assert job_count(text, "simulate") == 36 + 12
    runs = [line for line in text.splitlines() if "output: results/runs" in line]
    assert runs and not any("/LOS-" in line for line in runs)
    assert workload_jobs(text) == 0


@pytest.mark.parametrize(("module", "families"), [
    ("policies/scojo.py", ("SLACK",)),  # Scojo-PECT
    ("policies/compiled/adaptive.py", ("IHAP",)),  # the compiled MAP/HAP/IHAP decisions
    # the goal-oriented search, and the GOAL paper's policies on the real logs
    ("policies/compiled/goal.py", ("GOAL", "CROSS")),
    ("experiments/families/los_measure.py", ("LOS",)),  # what a LOS row holds
])
def test_an_edit_reruns_only_the_simulations_that_run_it(workdir: Path, module: str,
                                                         families: tuple[str, ...]) -> None:
    """A simulation's code version covers the modules it runs and no others: an edit of
    Scojo-PECT reruns SLACK simulations only, of the IHAP decisions IHAP only, of the goal
    search GOAL's and the cross-log targets' runs of the GOAL policies only, of LOS's
    measure LOS only."""
    if "CROSS" in families and not HPC2N.is_file():
        pytest.skip("the goal-oriented runs read the HPC2N log, which is not on this machine")
    text = dry_run_after_edit(workdir, module, lambda t: t + "\n_CHANGED = 1\n")
    runs = [line for line in text.splitlines() if "output: results/runs" in line]
    assert runs and all(any(f"/{family}-" in line for family in families)
                        for line in runs), runs[:5]
    if "CROSS" in families:
        assert all("/goal-oriented/" in line or "-backfill/" in line
                   for line in runs if "/CROSS-" in line), runs
    assert workload_jobs(text) == 0


@pytest.mark.parametrize(("module", "rules"), [
    ("plots.py", {"figure", "schedule"}),  # (a schedule's picture is drawn with it)
    ("claims.py", {"claims"}),
    ("experiments/families/hrf_figures.py", {"figure"}),
])
def test_an_edit_reruns_only_the_stages_that_run_it(workdir: Path, module: str,
                                                    rules: set[str]) -> None:
    """A table's, figure's or the claims' code version covers its own command and the part
    of its family it runs (tests/test_stage_code.py compares it with what a job imports):
    an edit of the plotting code reruns the figures and schedule pictures, of the claims'
    judging the claims, of HRF's figures HRF's figures; and the summary page after them."""
    text = dry_run_after_edit(workdir, module, lambda t: t + "\n_CHANGED = 1\n")
    assert set(job_stats(text)) - {"all"} == {*rules, "report"}, job_stats(text)
    if module.endswith("hrf_figures.py"):
        drawn = [line for line in text.splitlines() if "output: results/figures/" in line]
        assert drawn and all("/HRF-" in line for line in drawn), drawn


def test_a_model_change_reruns_its_workloads_not_the_others(workdir: Path) -> None:
    text = dry_run_after_edit(workdir, "workloads/cirne.py", lambda t: t + "\n_CHANGED = 1\n")
    made = [line for line in text.splitlines() if "output: results/workloads" in line]
    assert made and all("/hrf/" in line for line in made)
    runs = [line for line in text.splitlines() if "output: results/runs" in line]
    assert runs and not any("/LOS-" in line for line in runs)


@pytest.mark.parametrize(("change", "message"), [
    ("hrf={targets: {HRF-F5: {policies: [Nope]}}}", "unknown policy 'Nope'"),
    ("hrf={sensitivity: {typo: {targets: [HRF-F99]}}}", "unknown target(s) HRF-F99"),
    ("hrf={sensitivity: {typo: {targets: [HRF-F7], policy_params: {HRFBf: {nope: 1}}}}}",
     "nope"),
    ("hrf={policy_params: {HRFBf: {nope: 1}}}", "unknown parameter 'nope'"),
    ("los={policy_params: {LOS: {lookahead: -1}}}", "invalid; allowed: int >= 0"),
])
def test_dry_run_rejects_bad_policies_in_one_line(workdir: Path, change: str,
                                                  message: str) -> None:
    result = snakemake(workdir, "-n", config=(change,))
    assert result.returncode != 0
    lines = [line for line in output(result).splitlines() if message in line]
    assert lines, output(result)[-2000:]


def test_lint_is_clean(workdir: Path) -> None:
    result = snakemake(workdir, "--lint")
    assert result.returncode == 0, output(result)
    assert "Congratulations" in output(result)


def test_report(workdir: Path) -> None:
    result = snakemake(workdir, "--report", "results/report.html")
    assert result.returncode == 0, output(result)
    page = (workdir / "results" / "report.html").read_text()
    for target in TARGETS:
        assert f"{target}.png" in page
    assert "F5-awt-rises" in page  # the claims reach the figure captions
    assert "Schedules" in page and "representative run" in page  # the schedule pictures
    assert "F7-dlos-best-wait" in page and "results/chosen/LOS-CS20.json" in page
    assert "System Message" not in page  # captions render without reST errors


def job_stats(text: str) -> dict[str, int]:
    """Snakemake's (first) "Job stats" table: rule -> count, empty when there is none."""
    lines = text.splitlines()
    if "Job stats:" not in lines:
        return {}
    stats: dict[str, int] = {}
    for line in lines[lines.index("Job stats:") + 3:]:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit() or parts[0] == "total":
            break
        stats[parts[0]] = int(parts[1])
    return stats


def job_count(text: str, rule: str) -> int:
    """The count of ``rule`` in Snakemake's "Job stats" table (0 when absent)."""
    return job_stats(text).get(rule, 0)


def workload_jobs(text: str) -> int:
    """Jobs of the workload rules (one per seed set: generate_workloads_<seeds>)."""
    return sum(n for rule, n in job_stats(text).items()
               if rule.startswith("generate_workloads_"))


def offline_full_config(search: tuple[str, ...] = ()) -> dict:
    """config/config.yaml with only the ``search`` directories and unreachable log URLs."""
    import yaml

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config["traces"]["search"] = list(search)
    for log in config["traces"]["logs"].values():
        log["url"] = "http://127.0.0.1:9/" + log["file"]
    return config


def test_full_config_makes_one_workload_job_per_variant(workdir: Path) -> None:
    """The full config's dry run: one job per (family, variant), every seed file inside
    (with the logs of ../shared/traces: 116 jobs for 1,303 files, one job per file before)."""
    import yaml

    from schedsim.experiments.plan import build_plan

    config = offline_full_config(search=(str(KTH.parent),))
    # in config order: a target choosing a parameter is planned before the ones taking it
    (workdir / "full.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    result = snakemake(workdir, "-n", "--forceall", configfile="full.yaml", timeout=600)
    assert result.returncode == 0, output(result)[-3000:]
    plan = build_plan(config, base=ROOT)
    jobs = workload_jobs(output(result))
    assert jobs == len(plan.batches) and jobs * 10 < len(plan.workloads)
    made = [line.split(":", 1)[1].split(", ") for line in output(result).splitlines()
            if line.strip().startswith("output: results/workloads/")]
    assert sorted(p.strip() for paths in made for p in paths) == sorted(plan.workloads)


def test_full_config_plan_matches_the_documented_granularity() -> None:
    from schedsim.experiments.plan import build_plan

    plan = build_plan(offline_full_config(), base=ROOT)
    # HRF; LOS (tests/test_experiments_los.py: 7 cases x 6 loads and LOS-N10K's 10,000-job
    # variant), again under Lublin's daily cycle; LOS-F9 and F10 again with a one-day lead
    # time; GOAL's synthetic months (one per seed; its HPC2N months read the log); IHAP's
    # 19 points (9 utilizations, 5 more CVa, 5 more CVs), again under eq. 9 in BPUs;
    # SLACK's 5 workloads x 11 seeds, again with arar 1.0225
    assert len(plan.workloads) == (3 * 20 + 2 * (7 * 6 + 1) * 20 + 2 * 6 * 20 + 5 + 2 * 19
                                   + 2 * 5 * 11)
    # one workload job per variant, every seed inside
    assert len(plan.batches) == 3 + 2 * (7 * 6 + 1) + 2 * 6 + 1 + 2 * 19 + 2 * 5
    assert sum(len(batch.seeds) for batch in plan.batches.values()) == len(plan.workloads)
    assert {t: len(r) for t, r in plan.inputs_of.items()
            if t.startswith("HRF") and "@" not in t} == {
        "HRF-T1": 0, "HRF-F5": 2 * 3 * 8, "HRF-F6": 2 * 3 * 10, "HRF-F7": 8 * 3 * 8}
    # A reading reruns only the policies whose parameters it changes.
    sqrt = plan.inputs_of["HRF-F7@sqrt-share"]
    assert len(sqrt) == 8 * 3 * 8
    assert len([p for p in sqrt if p.startswith("results/runs/HRF-F7@")]) == 4 * 3 * 8
    assert plan.targets["HRF-F7@sqrt-share"].reading == "sqrt-share"
    # LOS-F1 has no log here (no search directory, no reachable URL): neither does its reading.
    assert plan.readings["los"]["window50"].targets == {"LOS-F7": "LOS-F7@window50",
                                                        "LOS-T4": "LOS-T4@window50"}
    assert "LOS-F1" in plan.not_run and "LOS-F1@window50" not in plan.targets
    assert plan.targets["LOS-T4@window50"].sources == ("LOS-F7@window50",)
    lead = [p for p in plan.inputs_of["LOS-F9@lead-one-day"]]
    assert all(plan.points[p].workloads["1"].startswith("results/workloads/los@lead-one-day/")
               for p in lead)
    spec = plan.points["results/runs/HRF-F7/HRFBf/middle_alpha0.7.parquet"]
    assert spec.inner == {"threshold": (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)}
    assert spec.params == {"alpha": 0.7} and len(spec.seeds) == 20


def test_run_point_rejects_an_unknown_point_in_one_line() -> None:
    result = subprocess.run([sys.executable, "-m", "schedsim.experiments", "run-point",
                             "--config", str(ROOT / CONFIG), "--target", "HRF-F5", "--policy",
                             "HRFBf", "--point", "nowhere", "--out", "/dev/null"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "nowhere" in result.stderr


@pytest.mark.parametrize(("change", "message"), [
    ("los={targets: {LOS-F5: {polices: [easy]}}}",
     "unknown key 'polices' in los.targets.LOS-F5; allowed: enabled, kind, policies"),
    ("sedes=3", "unknown section 'sedes'; allowed: seeds, traces, plugins, cross, goal, hrf"),
    ("seeds={start: 1, cont: 3}", "unknown key 'cont' in seeds; allowed: start, count, values"),
])
def test_an_unknown_config_key_gets_a_short_message(workdir: Path, change: str,
                                                    message: str) -> None:
    result = snakemake(workdir, "-n", config=(change,))
    assert result.returncode != 0
    assert message in output(result)
    assert len(output(result).splitlines()) < 15  # not the whole schema


def test_a_target_whose_log_is_unavailable_is_reported_not_run(workdir: Path) -> None:
    """Offline, without the logs: the other targets run, the run exits 0 and ends with the
    targets not run and how to fetch their log; their claims say why."""
    import yaml

    config = yaml.safe_load((workdir / CONFIG).read_text())
    for section in (config["hrf"], config["los"]):
        for target, spec in section["targets"].items():
            spec["enabled"] = target in ("HRF-T1", "LOS-F1")
    config["traces"]["search"] = []
    for log in config["traces"]["logs"].values():
        log["url"] = "http://127.0.0.1:9/" + log["file"]
    (workdir / "offline.yaml").write_text(yaml.safe_dump(config))
    env = dict(os.environ, PYTHONPATH=str(workdir / "src"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(["snakemake", "--cores", "2", "--configfile", "offline.yaml",
                             "--directory", "offline"], cwd=workdir, env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    text = output(result)
    assert result.returncode == 0, text[-3000:]
    last = [line for line in text.strip().splitlines() if line.strip()][-1]
    assert last.startswith("not run: LOS-F1: log SDSC-SP2") and "schedsim.traces fetch" in last
    claims_table = pd.read_csv(workdir / "offline" / "results" / "claims.csv",
                               keep_default_na=False)
    f1 = claims_table[claims_table["target"] == "LOS-F1"].iloc[0]
    assert f1["verdict"] == "not checkable" and f1["note"].startswith("LOS-F1 not run: log")
    assert "Not run" in (workdir / "offline" / "results" / "summary.html").read_text()


def test_a_log_an_earlier_run_fetched_is_used_without_fetching_again(tmp_path: Path) -> None:
    """A log in the download directory (fetched by an earlier run, or put there by hand)
    is planned from there; the next run neither fails nor fetches it again."""
    import gzip

    import yaml

    workdir = copy_workflow(tmp_path)
    config = yaml.safe_load((workdir / CONFIG).read_text())
    config["traces"]["search"] = []
    for log in config["traces"]["logs"].values():
        log["url"] = "http://127.0.0.1:9/" + log["file"]
        log["sha256"] = None
    (workdir / "fetched.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    downloads = workdir / "fetched" / "resources" / "traces"
    downloads.mkdir(parents=True)
    sdsc = config["traces"]["logs"]["SDSC-SP2"]["file"]
    with gzip.open(downloads / sdsc, "wt") as handle:
        handle.write("; MaxProcs: 128\n1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n")
    env = dict(os.environ, PYTHONPATH=str(workdir / "src"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(["snakemake", "--cores", "2", "--configfile", "fetched.yaml",
                             "--directory", "fetched", "-n", "results/tables/LOS-F1.csv"],
                            cwd=workdir, env=env, capture_output=True, text=True, timeout=300,
                            check=False)
    text = output(result)
    assert result.returncode == 0, text[-3000:]
    jobs = text.split("Job stats:")[1].split("total")[0]
    assert "simulate" in jobs and "fetch_trace" not in jobs


# ----------------------------------------------------------------------------- pictures

DIFF_CLAIM = re.compile(r"(?P<label>[^;:]+): (?:rho \S+, last - first|diff) "
                        r"(?P<mean>\S+) \[(?P<low>\S+), (?P<high>\S+)\]")


def planned(workdir: Path) -> Any:
    """The plan of the .test run (the workflow's own config and log directory)."""
    import yaml

    from schedsim.experiments.plan import build_plan

    config = yaml.safe_load((workdir / CONFIG).read_text())
    config["traces"]["search"] = [str(KTH.parent)]
    return build_plan(config, base=workdir)


def drawn_figure(workdir: Path, plan: Any, target: str) -> Any:
    from schedsim.experiments.family import get_family
    from schedsim.plots import draw

    spec = plan.targets[target]
    get_family(spec.family, spec.module or None)
    tables = workdir / "results" / "tables"
    table = pd.read_csv(tables / f"{target}.csv")
    table.attrs["seeds"] = pd.read_csv(tables / f"{target}.seeds.csv")
    return draw(table, spec)


def claimed(workdir: Path, claim_id: str) -> list[tuple[str, str, str, str]]:
    """(label, mean, low, high) of every paired difference a claim's numbers state."""
    claims = pd.read_csv(workdir / "results" / "claims.csv", keep_default_na=False)
    text = claims.loc[claims["claim_id"] == claim_id, "our_value"].iloc[0]
    return [(m["label"].strip(), m["mean"], m["low"], m["high"]) for m in
            DIFF_CLAIM.finditer(text)]


def shown(point: tuple[str, float, float, float, float]) -> tuple[str, str, str]:
    """A drawn point's mean and bounds as the claims table writes numbers."""
    from schedsim.verdicts import _num

    return _num(point[2]), _num(point[3]), _num(point[4])


def significant(low: str, high: str) -> bool:
    values = [float(v.replace(",", "")) for v in (low, high)]
    return values[0] > 0 or values[1] < 0


def assert_same(stated: list[tuple[str, str, str, str]],
                drawn: list[tuple[str, str, str, str]]) -> None:
    """The drawn intervals are the claims' (same numbers), so each excludes 0 exactly where
    the claims table says significant."""
    assert sorted(stated) == sorted(drawn)
    assert [significant(s[2], s[3]) for s in sorted(stated)] == \
        [significant(d[2], d[3]) for d in sorted(drawn)]


def test_los_f5_difference_panel_is_the_claims(workdir: Path) -> None:
    from helpers import drawn_differences

    drawn = drawn_differences(drawn_figure(workdir, planned(workdir), "LOS-F5"))
    for claim, metric in (("F5-dlos-beats-wait", "AWT"), ("F5-dlos-beats-util", "utilization")):
        stated = [(re.sub(r" C_s \S+$", "", label).replace(" vs ", " \u2212 "), *numbers)
                  for label, *numbers in claimed(workdir, claim)]
        points = [(p[0], *shown(p)) for series in drawn[f"paired-difference:{metric}"]
                  for p in series]
        assert len(stated) == 2 * 4  # Delayed-LOS vs EASY and vs LOS at C_s 1, 4, 8, 12
        assert_same(stated, points)


def test_hrf_f6_difference_panel_is_the_claims(workdir: Path) -> None:
    """The trends' last - first change is the drawn difference at the last threshold."""
    from helpers import drawn_differences

    drawn = drawn_differences(drawn_figure(workdir, planned(workdir), "HRF-F6"))
    for claim, metric in (("F6-awt-rises", "AWT"), ("F6-art-falls", "ART")):
        stated = [(label.split("/")[0], *numbers) for label, *numbers in
                  claimed(workdir, claim)]
        last = [max(series, key=lambda p: p[1]) for series in
                drawn[f"paired-difference:{metric}"]]
        assert len(stated) == 2 * 3  # two policies, three loads
        assert_same(stated, [(p[0], *shown(p)) for p in last])


def test_slack_f9_difference_panel_is_the_claims(workdir: Path) -> None:
    """Each class's sign check (Scojo-PECT + slack vs the original, per goal)."""
    from helpers import drawn_differences

    drawn = drawn_differences(drawn_figure(workdir, planned(workdir), "SLACK-F9"))
    for goal in ("G1", "G2"):
        for label, *numbers in claimed(workdir, f"F9-{goal.lower()}-improvement"):
            klass = label.split()[0]
            points = [p for series in drawn[f"paired-difference:RR_{klass}"] for p in series
                      if p[0].startswith("Scojo-PECT + slack") and f"goal {goal}" in p[0]]
            assert len(points) == 1
            assert_same([("x", *numbers)], [("x", *shown(points[0]))])


def test_figures_and_schedules_are_byte_identical(workdir: Path, tmp_path: Path) -> None:
    """Drawn again in another process, a figure and a representative schedule are the
    same bytes as the workflow's."""
    from schedsim.experiments.schedules import plan_schedules, write_schedule
    from schedsim.plots import save_one

    plan = planned(workdir)
    results = workdir / "results"
    for target in ("LOS-F5", "HRF-F7", "SLACK-F9", "IHAP-F1"):
        save_one(drawn_figure(workdir, plan, target), tmp_path / f"{target}.png")
        assert (tmp_path / f"{target}.png").read_bytes() == \
            (results / "figures" / f"{target}.png").read_bytes(), target
    import yaml

    config = yaml.safe_load((workdir / CONFIG).read_text())
    spec = plan_schedules(config, plan)["SLACK-F9"]
    cwd = Path.cwd()
    os.chdir(workdir)
    try:
        write_schedule(spec, str(tmp_path / "s.swf"), str(tmp_path / "s.png"))
    finally:
        os.chdir(cwd)
    assert (tmp_path / "s.swf").read_bytes() == (results / "schedules" / "SLACK-F9.swf"
                                                 ).read_bytes()
    assert (tmp_path / "s.png").read_bytes() == (results / "schedules" / "SLACK-F9.png"
                                                 ).read_bytes()


def test_every_representative_schedule_is_drawn(workdir: Path) -> None:
    schedules = workdir / "results" / "schedules"
    for target in ("HRF-F5", "LOS-F5", "SLACK-F9", "IHAP-F1", *GOAL_TARGETS[:1]):
        text = (schedules / f"{target}.swf").read_text()
        assert text.startswith(f"; Representative: {target}:")
        assert (schedules / f"{target}.png").stat().st_size > 20_000
    if GOAL_TARGETS:
        assert "; Partitions: 64 64" in (schedules / "GOAL-F3.swf").read_text()
    assert "; Run: " in (schedules / "SLACK-F9.swf").read_text()  # Scojo-PECT's segments


def test_the_summary_page_leads(workdir: Path) -> None:
    page = (workdir / "results" / "summary.html").read_text()
    assert page.index("id='overview'") < page.index("id='contents'") < page.index("<img")
    for family in ("hrf", "los", "ihap", "slack"):
        assert f"<a href='#family-{family}'>{family.upper()}</a>" in page
    for target in TARGETS:
        assert f"id='{target}'" in page and f"href='#{target}'" in page
    assert "id='schedule-SLACK-F9'" in page and "href='#sens-hrf-T1-hrf-picks-A'" in page
    if GOAL_TARGETS:  # a table target is a table, not a picture of one
        assert "<div id='fig-GOAL-T2'><table" in page
    assert (workdir / "results" / "summary.html").stat().st_size < 10_000_000


def chromium() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("SCHEDSIM_REQUIRE_BROWSER") == "1":
        pytest.fail("chromium is not installed (.ci/run installs Debian's chromium)")
    return found


def headless(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    """Debian's Chromium, headless, with nothing that reaches the network."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             "--disable-quic", f"--user-data-dir={profile}"]
    return subprocess.run([browser, *flags, *args], capture_output=True, text=True,
                          timeout=180, check=False)


IMAGE_CHECK = """<script>
window.addEventListener('load', () => {
  const images = Array.from(document.images);
  const broken = images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt);
  const sizes = images.map(i => i.alt + '=' + i.naturalWidth + 'x' + i.naturalHeight);
  document.body.setAttribute('data-images', images.length + ' ' + broken.length);
  document.body.setAttribute('data-broken', broken.join('|'));
  document.body.setAttribute('data-sizes', sizes.join('|'));
});
</script>"""


def test_the_summary_page_renders_in_a_browser(workdir: Path, tmp_path: Path) -> None:
    """Headless Chromium renders the page: every image loads, the overview is there, a
    screenshot is taken; one Gantt picture has its size and its colours."""
    from PIL import Image

    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed")
    page = workdir / "results" / "summary.html"
    shot = tmp_path / "top.png"
    result = headless(browser, tmp_path / "profile-shot", f"--screenshot={shot}",
                      "--window-size=1400,1800", page.as_uri())
    assert shot.is_file() and shot.stat().st_size > 50_000, result.stderr[-2000:]
    assert len(Image.open(shot).getcolors(2**20) or []) > 50  # a page, not a blank
    checked = tmp_path / "checked.html"  # the page with a check appended, in a copy
    checked.write_text(page.read_text().replace("</body>", IMAGE_CHECK + "</body>"))
    result = headless(browser, tmp_path / "profile-dom", "--dump-dom",
                      "--virtual-time-budget=20000", checked.as_uri())
    dom = result.stdout
    found = re.search(r'data-images="(\d+) (\d+)"', dom)
    assert found is not None, result.stderr[-2000:]
    images, broken = int(found.group(1)), int(found.group(2))
    expected = len(re.findall(r"<img ", page.read_text()))
    assert images == expected > len(TARGETS) and broken == 0, dom[:500]
    assert 'id="overview-table"' in dom and ">SLACK</a>" in dom
    sizes = dict(item.split("=") for item in re.search(r'data-sizes="([^"]*)"', dom).group(1)
                 .split("|"))
    width, height = (int(v) for v in sizes["SLACK-F9 schedule"].split("x"))
    gantt = Image.open(workdir / "results" / "schedules" / "SLACK-F9.png").convert("RGB")
    assert (width, height) == gantt.size and width > 1200 and height > 800
    colors = {color for _, color in gantt.getcolors(2**20)}
    assert len(colors) > 20
    from schedsim.gantt import JOB_COLORS

    drawn = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in JOB_COLORS} & colors
    assert len(drawn) >= 8  # jobs in many of the palette's colours
