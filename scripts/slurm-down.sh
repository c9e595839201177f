#!/usr/bin/env bash
# Stop the daemons that scripts/slurm-up.sh started, and only those: each one
# is looked up in /run/schedsim-slurm/started and stopped by the PID in its
# pid file, after checking that this PID really is that daemon (no stale or
# reused PIDs, no killing by name). Idempotent; always exits 0 so that it can
# run from a trap. Packages and config files are left in place.
set -u
STATE=/run/schedsim-slurm
LIST="$STATE/started"
[ -s "$LIST" ] || { echo "[slurm-down] nothing to stop (no $LIST)"; exit 0; }

pidfile() {
  case "$1" in
    munged) echo /run/munge/munged.pid ;;
    mariadbd) echo /run/mysqld/mariadbd.pid ;;
    *) echo "$STATE/$1.pid" ;;
  esac
}
started() { grep -qx "$1" "$LIST"; }
forget() { sed -i "/^$1\$/d" "$LIST"; }

# running PID: exists and is not a zombie waiting for PID 1 to reap it
running() { [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

stop() {  # stop NAME: TERM, wait up to 30 s, then KILL
  local name=$1 pf pid
  started "$name" || return 0
  pf=$(pidfile "$name")
  if [ -s "$pf" ]; then
    pid=$(cat "$pf")
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ]; then
      echo "[slurm-down] stopping $name (pid $pid)"
      kill -TERM "$pid" 2>/dev/null
      for _ in $(seq 150); do running "$pid" || break; sleep 0.2; done
      if running "$pid"; then
        echo "[slurm-down] $name (pid $pid) ignored SIGTERM, sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null
      fi
    fi
  fi
  forget "$name"
}

# Cancel whatever is still queued or running (e.g. after a CI timeout), and
# give slurmd a moment to reap the job steps before it goes away.
if started slurmctld && command -v squeue >/dev/null; then
  mapfile -t ids < <(squeue -h -o %i 2>/dev/null)
  if [ "${#ids[@]}" -gt 0 ]; then
    echo "[slurm-down] cancelling remaining jobs: ${ids[*]}"
    scancel --full "${ids[@]}" 2>/dev/null
    for _ in $(seq 40); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
  fi
fi

for d in slurmd slurmctld slurmdbd mariadbd munged; do stop "$d"; done
# Anything left in the list is a name we do not know how to stop.
[ -s "$LIST" ] && echo "[slurm-down] WARNING: still listed: $(tr '\n' ' ' <"$LIST")"
echo "[slurm-down] done"
exit 0
