# A private single-node Slurm cluster for a test (sourced; bash). Everything lives in one
# mktemp dir under /tmp: MUNGE key and socket, slurm.conf, state, spool, logs. Nothing in /etc is
# read or written and no system service is touched. Measured setup: ../shared/notes/slurm.md.
#
#   slurm_cluster_start [cpus]   starts munged, slurmctld and slurmd (the node has <cpus> CPUs,
#                                default 4, so that many one-CPU tasks run at once), exports
#                                SLURM_CONF (every client command needs it) and waits until the
#                                node is idle; on failure prints the logs, tears down, returns 1
#   slurm_cluster_stop           cancels every job, waits for the queue to drain, shuts the daemons
#                                down, stops munged and removes the dir. Kills only the PIDs it
#                                started (and slurmstepd processes holding files in its dir).
#                                Idempotent: call it from an EXIT trap.
#
# Needs root (the daemons run as root) and the Debian packages of `scripts/setup.sh --slurm`.
# Ports: a free SlurmctldPort/SlurmdPort pair from a high range, so the cluster can coexist with
# another one (or a real Slurm) on the machine.

SLURM_CLUSTER_DIR=""
SLURM_CLUSTER_CTLD_PID=""
SLURM_CLUSTER_SLURMD_PID=""

# _slurm_port_free <port>: true when no TCP socket (any state, IPv4 or IPv6) has it at either end
# (what `ss -tan` shows, read from /proc so that iproute2 is not needed).
_slurm_port_free() { ! grep -qi ":$(printf %04X "$1") " /proc/net/tcp /proc/net/tcp6 2>/dev/null; }

# _slurm_wait_gone <pid> <tenths of a second>: true once the process is gone.
_slurm_wait_gone() {
  local i
  for ((i = 0; i < $2; i++)); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  ! kill -0 "$1" 2>/dev/null
}

# _slurm_kill_tree <pid>: SIGKILL to the process and all its descendants (stopped first, so that
# none forks or reparents on the way).
_slurm_kill_tree() {
  local child
  kill -STOP "$1" 2>/dev/null
  for child in $(pgrep -P "$1"); do _slurm_kill_tree "$child"; done
  kill -KILL "$1" 2>/dev/null
}

_slurm_dump_logs() {
  local f
  for f in "$SLURM_CLUSTER_DIR"/log/* "$SLURM_CLUSTER_DIR"/munge/munged.log; do
    [ -s "$f" ] || continue
    echo "----- $f (last 20 lines)" >&2
    tail -n 20 "$f" >&2
  done
}

slurm_cluster_start() {
  local cpus=${1:-4} T host memory port i state=""
  T=$(mktemp -d /tmp/slurm.XXXXXX) || return 1
  SLURM_CLUSTER_DIR=$T
  chmod 755 "$T"  # munged needs o+x on every dir above its socket
  mkdir -p "$T/munge" "$T/ctld" "$T/d" "$T/log"
  mungekey --create --keyfile="$T/munge/munge.key" || { slurm_cluster_stop; return 1; }
  # munged forks and returns once its socket exists; its PID is in the pid file.
  munged --socket="$T/munge/munge.socket" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
    --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" || {
    echo "slurm_cluster: munged did not start" >&2; _slurm_dump_logs; slurm_cluster_stop; return 1; }

  host=$(hostname -s)
  memory=$(slurmd -C | head -n1 | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  # A free pair of adjacent ports in 20000-59999.
  for ((i = 0; i < 50; i++)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    _slurm_port_free "$port" && _slurm_port_free $((port + 1)) && break
  done

  # The node claims <cpus> CPUs (config_overrides: slurmd takes the configured topology as is).
  cat >"$T/slurm.conf" <<EOF
ClusterName=test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket,cred_expire=10
StateSaveLocation=$T/ctld
SlurmdSpoolDir=$T/d
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.txt
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
DependencyParameters=kill_invalid_depend
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$host CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=${memory:-1024} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$T/slurm.conf"
  # -D: in the foreground, so $! is the daemon itself.
  slurmctld -D -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 </dev/null &
  SLURM_CLUSTER_CTLD_PID=$!
  slurmd -D -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1 </dev/null &
  SLURM_CLUSTER_SLURMD_PID=$!
  for ((i = 0; i < 300; i++)); do
    state=$(sinfo -h -N -o %T 2>/dev/null)
    [ "$state" = idle ] && return 0
    if ! kill -0 "$SLURM_CLUSTER_CTLD_PID" 2>/dev/null || ! kill -0 "$SLURM_CLUSTER_SLURMD_PID" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "slurm_cluster: the node did not become idle (state '${state}', ports $port/$((port + 1)))" >&2
  _slurm_dump_logs
  slurm_cluster_stop
  return 1
}

slurm_cluster_stop() {
  local T=$SLURM_CLUSTER_DIR p i pid link
  [ -n "$T" ] || return 0
  if [ -n "$SLURM_CLUSTER_CTLD_PID" ] && kill -0 "$SLURM_CLUSTER_CTLD_PID" 2>/dev/null; then
    # Running jobs survive `scontrol shutdown`: cancel them and wait for the queue to drain first.
    scancel --user="$(id -un)" 2>/dev/null
    for ((i = 0; i < 300; i++)); do
      squeue -h -t all -o %T 2>/dev/null |
        grep -qvE 'COMPLETED|CANCELLED|FAILED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE' || break
      sleep 0.1
    done
    scontrol shutdown >/dev/null 2>&1  # slurmctld saves its state and tells slurmd to exit
  fi
  for p in $SLURM_CLUSTER_CTLD_PID $SLURM_CLUSTER_SLURMD_PID; do
    _slurm_wait_gone "$p" 100 && continue
    kill -TERM "$p" 2>/dev/null
    _slurm_wait_gone "$p" 10 || kill -KILL "$p" 2>/dev/null
  done
  for p in $SLURM_CLUSTER_CTLD_PID $SLURM_CLUSTER_SLURMD_PID; do wait "$p" 2>/dev/null; done
  # A slurmstepd left behind (when the daemons died: it reparents to PID 1) holds files in our
  # spool dir: only those, with the job processes under them.
  for pid in $(pgrep -x slurmstepd); do
    for link in "/proc/$pid/cwd" "/proc/$pid"/fd/*; do
      case "$(readlink "$link" 2>/dev/null)" in "$T"/*) _slurm_kill_tree "$pid"; break ;; esac
    done
  done
  if [ -s "$T/munge/munged.pid" ]; then
    pid=$(cat "$T/munge/munged.pid")
    kill -TERM "$pid" 2>/dev/null && { _slurm_wait_gone "$pid" 50 || kill -KILL "$pid" 2>/dev/null; }
  fi
  rm -rf "$T"
  SLURM_CLUSTER_DIR=""
  SLURM_CLUSTER_CTLD_PID=""
  SLURM_CLUSTER_SLURMD_PID=""
}
