#!/usr/bin/env bash
# The container image end to end: build it from the Containerfile, run the tiny
# configuration (.test/config/config.yaml) inside it with its results on a volume, and
# compare those results byte for byte (sha256, file by file) with a run on the host.
#
#   1. The base image docker.io/library/debian:bookworm-slim: podman's own copy if it
#      has one, else made here from Debian's packages under that name
#      (debootstrap --variant=minbase bookworm, podman import), so that the build never
#      pulls (--pull=never) and works on a machine that reaches no image registry.
#   2. The image, built from a clean copy of the commit checked out (HEAD), with the
#      repository at the same path as here, so that the paths the outputs record (a log
#      found in a search directory) are the same. pip installs from PyPI, at the host
#      venv's versions (pip freeze as constraints): a difference is then the
#      container's, not a release made between the two installs.
#   3. The README's tiny command inside the image, as the host runs it:
#      snakemake --configfile .test/config/config.yaml --directory .test
#      with .test/results on a volume and the host's log directories read-only.
#   4. The outputs compared with the host's: every file under results/ but the
#      benchmark timings (results/benchmarks/) and Snakemake's report.
#
# Where podman cannot run, the script says why and exits 0 (CONTAINER_TEST_REQUIRED=1:
# exits 1). Run it as root (debootstrap and podman import need it) on a Debian machine
# with the packages podman, runc and debootstrap.
#
# Environment (all optional):
#   VENV             host venv with snakemake (default .venv): the host run and the
#                    versions pinned in the image
#   HOST_RESULTS     an existing host run of the tiny configuration to compare with
#                    (e.g. .test/results right after .ci/run-test-pipeline); unset: the
#                    script runs the host side itself, in OUT_DIR/host
#   OUT_DIR          logs, build context, both runs' results, checksums
#                    (default container-test-out)
#   IMAGE            tag of the image built (default localhost/schedsim:container-test;
#                    removed at the end unless KEEP_IMAGE=1)
#   CA_BUNDLE        a CA bundle for pip inside the build (default: $PIP_CERT, else
#                    $SSL_CERT_FILE, if set): for networks that re-sign TLS
#   RUN_TIMEOUT      seconds allowed for each snakemake run (default 1800)
#   CONTAINER_PHASE  all (default), build (the base image and the image, then stop) or run
#                    (the runs and the comparison, with the image the build phase made):
#                    CI builds while the tests run, and runs after the host pipeline
#   PODMAN_RUNTIME   OCI runtime (default /usr/sbin/runc when present: crun fails on
#                    hosts with hybrid cgroups, "cgroups in hybrid mode not supported")
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/e2e-lib.sh
. "$REPO/scripts/e2e-lib.sh"
e2e_start container-test

BASE=docker.io/library/debian:bookworm-slim
IMAGE=${IMAGE:-localhost/schedsim:container-test}
OUT_DIR=${OUT_DIR:-container-test-out}
VENV=${VENV:-.venv}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
PHASE=${CONTAINER_PHASE:-all}  # build: base image and image only; run: the rest, reusing them
case "$PHASE" in all|build|run) ;; *) echo "CONTAINER_PHASE=$PHASE: one of all, build, run" >&2; exit 2;; esac
CA_BUNDLE=${CA_BUNDLE:-${PIP_CERT:-${SSL_CERT_FILE:-}}}
TINY=(snakemake --configfile .test/config/config.yaml --directory .test)
COMPARED='workloads/** runs/** chosen/** tables/** figures/** claims/** claims.csv summary.html'

skip() {
  say "SKIPPED: $*"
  [ "${CONTAINER_TEST_REQUIRED:-0}" = 1 ] && exit 1
  exit 0
}

mkdir -p "$OUT_DIR"; OUT_DIR=$(cd "$OUT_DIR" && pwd)
[ -n "${HOST_RESULTS:-}" ] && HOST_RESULTS=$(cd "$HOST_RESULTS" && pwd)

# ---------------------------------------------------------------- podman --
command -v podman >/dev/null || skip "podman is not installed (Debian: apt-get install podman runc debootstrap)"
if [ -z "${CONTAINERS_CONF:-}" ]; then
  # No ulimits passed to the runtime: runc refuses podman's default ones on some kernels.
  export CONTAINERS_CONF="$OUT_DIR/containers.conf"
  printf '[containers]\ndefault_ulimits = []\n' >"$CONTAINERS_CONF"
fi
if [ -z "${PODMAN_RUNTIME:-}" ] && [ -x /usr/sbin/runc ]; then PODMAN_RUNTIME=/usr/sbin/runc; fi
PODMAN=(podman --cgroup-manager=cgroupfs ${PODMAN_RUNTIME:+--runtime "$PODMAN_RUNTIME"})
"${PODMAN[@]}" info >"$OUT_DIR/podman-info.txt" 2>&1 || skip "podman cannot run here: $(tail -n 1 "$OUT_DIR/podman-info.txt")"
say "$(podman --version), runtime ${PODMAN_RUNTIME:-default}"

# ------------------------------------------------------------ base image --
make_base() {
  local root="$OUT_DIR/rootfs"
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian \
    >"$OUT_DIR/debootstrap.log" 2>&1 || { tail -n 20 "$OUT_DIR/debootstrap.log"; return 1; }
  # the package lists and downloaded packages: the image's own apt-get update fetches them
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | "${PODMAN[@]}" import - "$BASE" >"$OUT_DIR/import.log" 2>&1 \
    || { cat "$OUT_DIR/import.log"; return 1; }
  rm -rf "$root"
}
if "${PODMAN[@]}" image exists "$BASE"; then
  say "base image $BASE: podman has it"
elif ! command -v debootstrap >/dev/null || [ "$(id -u)" != 0 ]; then
  skip "podman has no $BASE, and making it needs debootstrap and root (or: podman pull $BASE)"
else
  say "base image $BASE: making it from Debian's packages (debootstrap --variant=minbase bookworm)"
  timed "base image" make_base
fi

# ----------------------------------------------------------------- build --
CONTEXT="$OUT_DIR/context"
commit=$(git -C "$REPO" rev-parse HEAD)
rm -rf "$CONTEXT"; git init -q "$CONTEXT"
git -C "$CONTEXT" fetch -q --depth 1 "file://$REPO" "$commit"
git -C "$CONTEXT" checkout -q --detach FETCH_HEAD
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ]; then
  say "WARNING: uncommitted changes are not in the image (it is built from $commit)"
fi
[ -x "$VENV/bin/snakemake" ] || { say "no snakemake in $VENV (pip install -e '.[workflow]')"; exit 1; }
VENV=$(cd "$VENV" && pwd)
"$VENV/bin/python" -m pip freeze --exclude-editable >"$OUT_DIR/host-versions.txt"
BUILD=(--pull=never --layers=false --network host -t "$IMAGE" --build-arg "SCHEDSIM_DIR=$REPO"
       -v "$OUT_DIR/host-versions.txt:/tmp/host-versions.txt:ro"
       --build-arg PIP_CONSTRAINT=/tmp/host-versions.txt)
if [ -n "$CA_BUNDLE" ] && [ -f "$CA_BUNDLE" ]; then
  BUILD+=(-v "$CA_BUNDLE:/tmp/host-ca.crt:ro" --build-arg PIP_CERT=/tmp/host-ca.crt)
fi
if [ "$PHASE" = run ] && "${PODMAN[@]}" image exists "$IMAGE"; then
  say "image $IMAGE: built by the build phase"
else
  say "building $IMAGE from $commit (log: $OUT_DIR/build.log)"
  timed "build" "${PODMAN[@]}" build "${BUILD[@]}" -f "$CONTEXT/Containerfile" "$CONTEXT" \
    >"$OUT_DIR/build.log" 2>&1 || { tail -n 30 "$OUT_DIR/build.log"; say "build failed"; exit 1; }
  say "image: $("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE" \
    | awk '{printf "%.0f MB", $1 / 1e6}')"
fi
if [ "$PHASE" = build ]; then
  say "OK (build phase); timings: $(e2e_timings)"
  exit 0
fi

# ------------------------------------------------------------- host run --
if [ -n "${HOST_RESULTS:-}" ]; then
  say "host run: $HOST_RESULTS"
else
  HOST_RESULTS="$OUT_DIR/host/.test/results"
  rm -rf "$OUT_DIR/host"; mkdir -p "$OUT_DIR/host/.test"
  # the logs the repository's .test has fetched, at the same relative path
  [ -d "$REPO/.test/resources" ] && ln -s "$REPO/.test/resources" "$OUT_DIR/host/.test/resources"
  say "host run: ${TINY[*]} (working directory $OUT_DIR/host/.test)"
  timed "host run" env -C "$REPO" PATH="$VENV/bin:$PATH" timeout -k 30 "$RUN_TIMEOUT" \
    snakemake --configfile .test/config/config.yaml --directory "$OUT_DIR/host/.test" \
    >"$OUT_DIR/host-run.log" 2>&1 || { tail -n 30 "$OUT_DIR/host-run.log"; say "host run failed"; exit 1; }
fi

# -------------------------------------------------------- container run --
RESULTS="$OUT_DIR/container/results"
rm -rf "$OUT_DIR/container"; mkdir -p "$RESULTS"
MOUNTS=(-v "$RESULTS:$REPO/.test/results")
[ -d "$REPO/.test/resources" ] && MOUNTS+=(-v "$REPO/.test/resources:$REPO/.test/resources:ro")
while read -r dir; do
  MOUNTS+=(-v "$dir:$dir:ro")
done < <(cd "$REPO" && "$VENV/bin/python" -c '
import os, yaml
search = (yaml.safe_load(open(".test/config/config.yaml")).get("traces") or {}).get("search") or []
for entry in search:
    path = os.path.realpath(entry)
    if os.path.isdir(path):
        print(path)')
say "container run: ${TINY[*]} (results on a volume: $RESULTS)"
t=$EPOCHREALTIME
set +e
timeout -k 30 "$RUN_TIMEOUT" "${PODMAN[@]}" run --rm --network host --pull=never "${MOUNTS[@]}" \
  "$IMAGE" "${TINY[@]}" >"$OUT_DIR/container-run.log" 2>&1
rc=$?
set -e
TIMES+=("container run: $(since "$t") s")
[ "$rc" = 0 ] || { tail -n 30 "$OUT_DIR/container-run.log"; say "container run failed (rc=$rc)"; exit 1; }
tail -n 3 "$OUT_DIR/container-run.log"

# --------------------------------------------------------- same outputs? --
snapshot "$HOST_RESULTS" "$OUT_DIR/compare/host" "$COMPARED"
snapshot "$RESULTS" "$OUT_DIR/compare/container" "$COMPARED"
[ -n "$(ls -A "$OUT_DIR/compare/host")" ] || { say "no host output in $HOST_RESULTS"; exit 1; }
if ! same_files "$OUT_DIR/compare/host" "$OUT_DIR/compare/container" "$OUT_DIR" container; then
  say "outputs differ between the host and the container (see above: - host, + container)"
  exit 1
fi
say "outputs identical: $(wc -l <"$OUT_DIR/sha256-reference.txt") files (sha256 in $OUT_DIR/sha256-container.txt)"
[ "${KEEP_IMAGE:-0}" = 1 ] || "${PODMAN[@]}" rmi -f "$IMAGE" >/dev/null
say "OK; timings: $(e2e_timings)"
