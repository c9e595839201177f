#!/usr/bin/env bash
# Start a throw-away, single-node SLURM cluster on this machine (CI / local testing).
#
# Target: Debian 12 (bookworm, SLURM 22.05), run as root, no systemd needed.
# Safe to run again: packages, config and daemons are only (re)done when
# something is missing or changed. Every daemon this script starts is written
# to $STATE/started, so that scripts/slurm-down.sh stops exactly those, by PID.
#
# Environment:
#   SLURM_ACCT=dbd   (default) slurmdbd + a local MariaDB, so that `sacct` works
#                    and the Snakemake SLURM plugin runs with its defaults.
#   SLURM_ACCT=none  no accounting (lighter, ~11 s faster); Snakemake must then
#                    be run with `--slurm-status-command squeue`, or it hangs.
#   SLURM_PARTITION  name of the (only) partition; default "standard", the
#                    value profiles/slurm/config.yaml uses.
#   SLURM_UP_FORCE=1 overwrite an /etc/slurm/slurm.conf not written by us.
set -euo pipefail

SLURM_ACCT="${SLURM_ACCT:-dbd}"
PARTITION="${SLURM_PARTITION:-standard}"
CLUSTER=schedsimci
NODE=localhost
STATE=/run/schedsim-slurm          # pid files + list of daemons we started
LOGS=/var/log/schedsim-slurm
SPOOL=/var/spool/schedsim-slurm
MARK="# written by schedsim scripts/slurm-up.sh"
export DEBIAN_FRONTEND=noninteractive

case "$SLURM_ACCT" in dbd|none) ;; *) echo "SLURM_ACCT must be dbd or none" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "[slurm-up] must run as root" >&2; exit 2; }

T0=$EPOCHREALTIME
say() { echo "[slurm-up $(awk -v a="$EPOCHREALTIME" -v b="$T0" 'BEGIN {printf "%5.1f", a - b}')s] $*"; }

# running PID: exists and is not a zombie waiting for PID 1 to reap it
running() { [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
# alive PIDFILE COMM: the pid in PIDFILE is a live process named COMM
alive() {
  local pid
  [ -s "$1" ] && pid=$(cat "$1") && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && running "$pid"
}
mark_started() { grep -qx "$1" "$STATE/started" 2>/dev/null || echo "$1" >>"$STATE/started"; }
# wait_pid PIDFILE COMM LOG: wait up to 30 s for a freshly started daemon
wait_pid() {
  for _ in $(seq 60); do alive "$1" "$2" && return 0; sleep 0.5; done
  echo "[slurm-up] $2 did not start; last lines of $3:" >&2
  tail -n 30 "$3" >&2 2>/dev/null || true
  exit 1
}

# ---------------------------------------------------------------- packages --
pkgs="munge slurm-client slurmctld slurmd"
[ "$SLURM_ACCT" = dbd ] && pkgs="$pkgs slurmdbd mariadb-server"
missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  # policy-rc.d (Docker/CI images) keeps the packages from starting services;
  # we start everything by hand below in any case.
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  say "packages installed"
fi

mkdir -p "$STATE" "$LOGS" "$SPOOL/ctld" "$SPOOL/d" /etc/slurm
touch "$STATE/started"

# ------------------------------------------------------------------ config --
# SLURM_CPUS > nproc advertises more CPUs than the machine has (config_overrides):
# useful where cluster jobs mostly wait (Snakemake start-up per grouped job).
CPUS=${SLURM_CPUS:-$(nproc)}
OVERRIDES=""
[ "$CPUS" -gt "$(nproc)" ] && OVERRIDES="SlurmdParameters=config_overrides"
MEM=$(awk '/^MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)   # below slurmd -C
if [ "$SLURM_ACCT" = dbd ]; then
  ACCT="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost"
else
  ACCT="AccountingStorageType=accounting_storage/none"
fi
new=$(mktemp)
cat >"$new" <<EOF
$MARK (SLURM_ACCT=$SLURM_ACCT)
ClusterName=$CLUSTER
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
StateSaveLocation=$SPOOL/ctld
SlurmdSpoolDir=$SPOOL/d
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
$ACCT
# The Snakemake plugin polls at most every 180 s; with squeue status it needs
# finished jobs to stay visible longer than that.
MinJobAge=300
DefMemPerCPU=1000
InactiveLimit=0
KillWait=30
Waittime=0
$OVERRIDES
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
if [ -e /etc/slurm/slurm.conf ] && ! head -n1 /etc/slurm/slurm.conf | grep -qF "$MARK" \
   && [ "${SLURM_UP_FORCE:-0}" != 1 ]; then
  echo "[slurm-up] /etc/slurm/slurm.conf exists and was not written by this script;" \
       "refusing to overwrite it (set SLURM_UP_FORCE=1 to do so)" >&2
  rm -f "$new"; exit 1
fi
conf_changed=0
if cmp -s "$new" /etc/slurm/slurm.conf; then rm -f "$new"
else mv "$new" /etc/slurm/slurm.conf; chmod 644 /etc/slurm/slurm.conf; conf_changed=1; say "wrote /etc/slurm/slurm.conf"; fi

# ------------------------------------------------------------------- munge --
[ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
chown munge:munge /etc/munge/munge.key && chmod 600 /etc/munge/munge.key
install -d -o munge -g munge -m 755 /run/munge          # tmpfs: gone after reboot
if ! alive /run/munge/munged.pid munged; then
  say "starting munged"
  runuser -u munge -- /usr/sbin/munged --force </dev/null >>"$LOGS/munged.out" 2>&1
  wait_pid /run/munge/munged.pid munged /var/log/munge/munged.log
  mark_started munged
fi
munge -n | unmunge >/dev/null

# ------------------------------------------------- accounting (optional) --
if [ "$SLURM_ACCT" = dbd ]; then
  if ! mariadb-admin --silent ping >/dev/null 2>&1; then
    say "starting mariadbd"
    # mariadbd drops to user mysql: its pid and log files must be writable by it
    install -d -o mysql -g mysql /run/mysqld
    install -o mysql -g mysql -m 644 /dev/null "$LOGS/mariadb.log"
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >"$LOGS/mariadb-install.log" 2>&1
    rm -f /run/mysqld/mariadbd.pid
    setsid -f /usr/sbin/mariadbd --user=mysql --datadir=/var/lib/mysql --skip-networking \
      --socket=/run/mysqld/mysqld.sock --pid-file=/run/mysqld/mariadbd.pid \
      --log-error="$LOGS/mariadb.log" </dev/null >/dev/null 2>&1
    wait_pid /run/mysqld/mariadbd.pid mariadbd "$LOGS/mariadb.log"
    mark_started mariadbd
    for _ in $(seq 60); do mariadb-admin --silent ping >/dev/null 2>&1 && break; sleep 0.5; done
  fi
  mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
              CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurm';
              GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
  new=$(mktemp)
  cat >"$new" <<EOF
$MARK
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
LogFile=$LOGS/slurmdbd.log
PidFile=$STATE/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=slurm
EOF
  dbd_changed=0
  if cmp -s "$new" /etc/slurm/slurmdbd.conf; then rm -f "$new"
  else mv "$new" /etc/slurm/slurmdbd.conf; dbd_changed=1; fi
  chmod 600 /etc/slurm/slurmdbd.conf                   # slurmdbd insists
  if [ "$dbd_changed" = 1 ] && alive "$STATE/slurmdbd.pid" slurmdbd; then
    pid=$(cat "$STATE/slurmdbd.pid"); kill "$pid"; while running "$pid"; do sleep 0.2; done
  fi
  if ! alive "$STATE/slurmdbd.pid" slurmdbd; then
    say "starting slurmdbd"
    slurmdbd </dev/null >/dev/null 2>&1
    wait_pid "$STATE/slurmdbd.pid" slurmdbd "$LOGS/slurmdbd.log"
    mark_started slurmdbd
  fi
  for _ in $(seq 60); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.5; done
  sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER" \
    || sacctmgr -i add cluster "$CLUSTER" >/dev/null
fi

# ------------------------------------------------------ slurmctld, slurmd --
if [ "$conf_changed" = 1 ]; then          # restart what runs with the old config
  for d in slurmd slurmctld; do
    if alive "$STATE/$d.pid" "$d"; then
      say "config changed: restarting $d"
      pid=$(cat "$STATE/$d.pid"); kill "$pid"; while running "$pid"; do sleep 0.2; done
    fi
  done
fi
if ! alive "$STATE/slurmctld.pid" slurmctld; then
  say "starting slurmctld"
  slurmctld </dev/null >/dev/null 2>&1
  wait_pid "$STATE/slurmctld.pid" slurmctld "$LOGS/slurmctld.log"
  mark_started slurmctld
fi
if ! alive "$STATE/slurmd.pid" slurmd; then
  say "starting slurmd"
  slurmd -N "$NODE" </dev/null >/dev/null 2>&1      # -N: NodeName is not the hostname
  wait_pid "$STATE/slurmd.pid" slurmd "$LOGS/slurmd.log"
  mark_started slurmd
fi

ok=0
for _ in $(seq 60); do
  st=$(sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
  case "$st" in idle*|mixed*|allocated*|completing*) ok=1; break ;;
                down*|drain*) scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true ;; esac
  sleep 0.5
done
[ "$ok" = 1 ] || { echo "[slurm-up] node $NODE not usable (state: ${st:-?})" >&2; tail -n 20 "$LOGS/slurmctld.log" "$LOGS/slurmd.log" >&2; exit 1; }

# -------------------------------------------------------------- smoke test --
out=$(mktemp -d)
jid=$(sbatch --parsable -p "$PARTITION" -t 1 -o "$out/%j.out" --wrap 'echo "$SLURM_JOB_ID on $(hostname)"')
# poll ourselves: `sbatch --wait` backs off and returns ~10 s late
for _ in $(seq 240); do
  st=$(squeue -h -t all -j "$jid" -o %T 2>/dev/null || true)
  case "$st" in COMPLETED) break ;; FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL)
    echo "[slurm-up] smoke job $jid: $st" >&2; cat "$out"/* >&2; exit 1 ;; esac
  sleep 0.5
done
[ "$st" = COMPLETED ] || { echo "[slurm-up] smoke job $jid did not complete within 120 s (state: ${st:-?})" >&2; exit 1; }
say "smoke job $jid: $(cat "$out"/*.out)"
rm -rf "$out"
if [ "$SLURM_ACCT" = dbd ]; then            # accounting reaches slurmdbd asynchronously
  for _ in $(seq 40); do
    st=$(sacct -n -X -P -j "$jid" -o State 2>/dev/null | head -n1)
    [ "$st" = COMPLETED ] && break; sleep 0.5
  done
  [ "$st" = COMPLETED ] || { echo "[slurm-up] sacct does not report smoke job $jid as COMPLETED (got '${st:-nothing}')" >&2; exit 1; }
  say "sacct: job $jid COMPLETED"
fi
sinfo
say "ready (SLURM_ACCT=$SLURM_ACCT, partition $PARTITION, daemons started by us: $(tr '\n' ' ' <"$STATE/started"))"
