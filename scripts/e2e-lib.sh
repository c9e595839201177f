# shellcheck shell=bash
# Helpers shared by the end-to-end checks that run the pipeline somewhere else and
# compare its outputs with a reference run byte for byte (scripts/slurm-e2e.sh,
# scripts/container-test.sh). Source it; it defines functions only.
#
#   e2e_start NAME                   start the clock; say() prefixes "[NAME <s>s]"
#   timed LABEL CMD...               run CMD, remember "LABEL: <s> s" in TIMES
#   e2e_timings                      "label: s; label: s; total s"
#   snapshot SRC DEST GLOBS          copy SRC's regular files matching the
#                                    space-separated bash GLOBS (relative to SRC,
#                                    globstar on), keeping relative paths
#   same_files REF OTHER OUT NAME    sha256 of every file of both trees into
#                                    OUT/sha256-{reference,NAME}.txt; 0 if equal,
#                                    else the diff (- reference, + NAME) and 1

E2E_NAME=e2e
E2E_T0=$EPOCHREALTIME
TIMES=()

e2e_start() { E2E_NAME=$1; E2E_T0=$EPOCHREALTIME; TIMES=(); }
since() { awk -v a="$EPOCHREALTIME" -v b="$1" 'BEGIN {printf "%.1f", a - b}'; }
say() { echo "[$E2E_NAME $(since "$E2E_T0")s] $*"; }

timed() {
  local label=$1 t=$EPOCHREALTIME rc=0; shift
  "$@" || rc=$?
  TIMES+=("$label: $(since "$t") s"); return "$rc"
}

e2e_timings() { echo "$(IFS=';'; echo "${TIMES[*]}"); total $(since "$E2E_T0") s"; }

matching_files() {  # matching_files DIR GLOBS: regular files under DIR matching GLOBS
  (shopt -s globstar nullglob dotglob
   cd "$1" && for g in $2; do for f in $g; do [ -f "$f" ] && echo "$f"; done; done) \
    | grep -v -e '^\.snakemake/' | sort -u
}

snapshot() {
  rm -rf "$2"; mkdir -p "$2"
  matching_files "$1" "$3" | (cd "$1" && xargs -r -d '\n' cp --parents -t "$2")
}

checksums() { (cd "$1" && find . -type f -printf '%P\n' | sort | xargs -r -d '\n' sha256sum); }

same_files() {
  local ref=$1 other=$2 out=$3 name=$4
  checksums "$ref" >"$out/sha256-reference.txt"
  checksums "$other" >"$out/sha256-$name.txt"
  if ! diff -u "$out/sha256-reference.txt" "$out/sha256-$name.txt" >"$out/sha256.diff"; then
    cat "$out/sha256.diff"
    return 1
  fi
}
