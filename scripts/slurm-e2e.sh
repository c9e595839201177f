#!/usr/bin/env bash
# CI step: run a Snakemake workflow through a real (single-node, throw-away)
# SLURM cluster with profiles/slurm, and check that
#   1. snakemake exits 0 under a hard time limit,
#   2. its cluster jobs really went through sbatch and sacct reports every one
#      of them COMPLETED,
#   3. the outputs are byte-identical (sha256, file by file) to a local run of
#      the same workflow and config.
# SLURM is brought up by scripts/slurm-up.sh and always torn down again
# (trap -> scripts/slurm-down.sh), also on failure or timeout.
#
# Environment (all optional):
#   VENV            venv with snakemake 9 (default: .venv, else the one on PATH);
#                   snakemake-executor-plugin-slurm is pip-installed into it if missing
#   WORKFLOW_DIR    directory to run snakemake in (default: a fresh copy of the
#                   toy workflow tests/slurm_wf/ok, so that the step works before
#                   the real pipeline exists)
#   CONFIGFILE      passed as --configfile (relative to WORKFLOW_DIR or absolute)
#   COMPARE_GLOB    space-separated bash globs (globstar on), relative to
#                   WORKFLOW_DIR, of the outputs to compare (default: 'results/**')
#   LOCAL_RESULTS   directory holding reference outputs at the same relative
#                   paths, e.g. the work dir itself right after a local CI run
#                   (LOCAL_RESULTS=. WORKFLOW_DIR=.: the matching files are copied
#                   to $OUT_DIR/local before the SLURM run overwrites them); if
#                   unset, this script first runs the workflow locally
#   OUT_DIR         where logs, sacct table and checksums go (default: slurm-e2e-out)
#   SNAKEMAKE_ARGS  extra arguments for both runs (word-split)
#   RUN_TIMEOUT     seconds allowed for each snakemake run (default: 420)
#   SLURM_ACCT      dbd (default) or none, see scripts/slurm-up.sh
#
# Both runs use --forceall, so that every job is really recomputed: do not
# point WORKFLOW_DIR at a work dir whose results you want to keep.
set -euo pipefail
shopt -s globstar nullglob dotglob

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/e2e-lib.sh
. "$REPO/scripts/e2e-lib.sh"
e2e_start slurm-e2e
export SLURM_ACCT="${SLURM_ACCT:-dbd}"
OUT_DIR="${OUT_DIR:-slurm-e2e-out}"
COMPARE_GLOB="${COMPARE_GLOB:-results/**}"
RUN_TIMEOUT="${RUN_TIMEOUT:-420}"
read -r -a EXTRA <<<"${SNAKEMAKE_ARGS:-}"

mkdir -p "$OUT_DIR"; OUT_DIR=$(cd "$OUT_DIR" && pwd)
# relative paths are taken from where the script is started, like WORKFLOW_DIR
[ -n "${LOCAL_RESULTS:-}" ] && LOCAL_RESULTS=$(cd "$LOCAL_RESULTS" && pwd)
WF=""
cleanup() {
  local rc=$?
  set +e
  if [ "$rc" != 0 ]; then
    say "FAILED (rc=$rc); collecting logs into $OUT_DIR"
    [ -n "$WF" ] && [ -d "$WF/.snakemake/slurm_logs" ] && cp -r "$WF/.snakemake/slurm_logs" "$OUT_DIR/"
    [ -d /var/log/schedsim-slurm ] && cp -r /var/log/schedsim-slurm "$OUT_DIR/daemon-logs"
  fi
  timed "slurm-down" bash "$REPO/scripts/slurm-down.sh"
  say "timings: $(e2e_timings)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ----------------------------------------------------------------- venv --
VENV="${VENV:-.venv}"
if [ -x "$VENV/bin/snakemake" ]; then PY="$(cd "$VENV" && pwd)/bin/python"
else PY=$(command -v python3); say "no $VENV/bin/snakemake; using $PY"; fi
SNAKEMAKE=("$PY" -m snakemake)
PATH="$(dirname "$PY"):$PATH"; export PATH   # the cluster jobs inherit this (sbatch --export=ALL)
if ! "$PY" -c 'import snakemake_executor_plugin_slurm' 2>/dev/null; then
  say "installing snakemake-executor-plugin-slurm into $(dirname "$(dirname "$PY")")"
  timed "pip install plugin" "$PY" -m pip install -q 'snakemake-executor-plugin-slurm>=2.8'
fi
say "$("$PY" -m pip list 2>/dev/null | awk '$1 ~ /^snakemake(-executor-plugin-slurm)?$/ {printf "%s %s  ", $1, $2}')"

# ---------------------------------------------------------------- SLURM --
timed "slurm-up" bash "$REPO/scripts/slurm-up.sh"

# ------------------------------------------------------------- workflow --
if [ -n "${WORKFLOW_DIR:-}" ]; then
  WF=$(cd "$WORKFLOW_DIR" && pwd)
else
  WF="$OUT_DIR/toy-workflow"; rm -rf "$WF"
  cp -r "$REPO/tests/slurm_wf/ok" "$WF"
  rm -rf "$WF/results" "$WF/logs" "$WF/.snakemake"
fi
cd "$WF"
CFG=(); [ -n "${CONFIGFILE:-}" ] && CFG=(--configfile "$CONFIGFILE")
say "workflow: $WF ${CONFIGFILE:+(config $CONFIGFILE)}; comparing: $COMPARE_GLOB"

REF="$OUT_DIR/local"
if [ -n "${LOCAL_RESULTS:-}" ]; then
  say "reference outputs: $LOCAL_RESULTS"
  snapshot "$LOCAL_RESULTS" "$REF" "$COMPARE_GLOB"
else
  say "local reference run"
  rc=0
  timed "local run" timeout -k 30 "$RUN_TIMEOUT" "${SNAKEMAKE[@]}" --cores "$(nproc)" --forceall \
    "${CFG[@]}" "${EXTRA[@]}" >"$OUT_DIR/local-run.log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || { tail -n 40 "$OUT_DIR/local-run.log"; say "local run failed (rc=$rc)"; exit 1; }
  snapshot "$WF" "$REF" "$COMPARE_GLOB"
fi
[ -n "$(ls -A "$REF")" ] || { say "no reference file matches '$COMPARE_GLOB'"; exit 1; }

# The production profile, unchanged; on top of it only a 5 s (instead of
# 40 s) wait before the first status query. Without slurmdbd sacct cannot
# work, and the plugin would wait forever: use squeue then.
PROFILE_ARGS=(--workflow-profile "$REPO/profiles/slurm" --slurm-init-seconds-before-status-checks 5)
[ "$SLURM_ACCT" = none ] && PROFILE_ARGS+=(--slurm-status-command squeue)

say "SLURM run: snakemake ${PROFILE_ARGS[*]} --forceall ${CFG[*]} ${EXTRA[*]}"
# timeout -k: if status polling ever breaks, the plugin keeps waiting and
# snakemake ignores SIGTERM ("waiting for running jobs"); SIGKILL 30 s later.
t=$EPOCHREALTIME
set +e
timeout -k 30 "$RUN_TIMEOUT" "${SNAKEMAKE[@]}" "${PROFILE_ARGS[@]}" --forceall \
  "${CFG[@]}" "${EXTRA[@]}" </dev/null 2>&1 | tee "$OUT_DIR/slurm-run.log"
rc=${PIPESTATUS[0]}
set -e
TIMES+=("SLURM run: $(since "$t") s")
case "$rc" in
  0) ;;
  124|137) say "snakemake through SLURM timed out after ${RUN_TIMEOUT}s (rc=$rc)"; exit 1 ;;
  *) say "snakemake through SLURM failed (rc=$rc)"; exit 1 ;;
esac

# ---------------------------------------------------- ran as SLURM jobs? --
mapfile -t IDS < <(sed -n 's/.*has been submitted with SLURM jobid \([0-9_]*\).*/\1/p' "$OUT_DIR/slurm-run.log" | sort -un)
[ "${#IDS[@]}" -gt 0 ] || { say "no job was submitted through sbatch"; exit 1; }
say "${#IDS[@]} SLURM job(s) submitted: ${IDS[*]}"
idlist=$(IFS=,; echo "${IDS[*]}")
if [ "$SLURM_ACCT" = dbd ]; then
  for _ in $(seq 30); do        # job records reach slurmdbd asynchronously
    sacct -X -n -P -j "$idlist" -o JobID,JobName,Partition,AllocCPUS,State,ExitCode,Elapsed >"$OUT_DIR/sacct.txt"
    [ "$(awk -F'|' '$5 == "COMPLETED"' "$OUT_DIR/sacct.txt" | wc -l)" -ge "${#IDS[@]}" ] && break
    sleep 1
  done
  column -t -s'|' -N JobID,JobName,Partition,CPUs,State,ExitCode,Elapsed "$OUT_DIR/sacct.txt" 2>/dev/null \
    || cat "$OUT_DIR/sacct.txt"
  for id in "${IDS[@]}"; do
    st=$(awk -F'|' -v id="$id" '$1 == id {print $5}' "$OUT_DIR/sacct.txt")
    [ "$st" = COMPLETED ] || { say "sacct: SLURM job $id is '${st:-missing}', not COMPLETED"; exit 1; }
  done
  say "sacct: all ${#IDS[@]} SLURM jobs COMPLETED"
else
  say "SLURM_ACCT=none: no sacct; squeue -t all instead"
  squeue -t all -h -o '%i|%j|%P|%C|%T' -j "$idlist" | tee "$OUT_DIR/squeue.txt"
  for id in "${IDS[@]}"; do
    grep -q "^$id|.*|COMPLETED\$" "$OUT_DIR/squeue.txt" || { say "SLURM job $id not COMPLETED"; exit 1; }
  done
fi

# ------------------------------------------------------- same outputs? --
snapshot "$WF" "$OUT_DIR/slurm" "$COMPARE_GLOB"
if ! same_files "$REF" "$OUT_DIR/slurm" "$OUT_DIR" slurm; then
  say "outputs differ between the local and the SLURM run (see above: - local, + SLURM)"
  exit 1
fi
n=$(wc -l <"$OUT_DIR/sha256-reference.txt")
say "outputs identical: $n file(s) (sha256 in $OUT_DIR/sha256-slurm.txt)"
say "OK"
