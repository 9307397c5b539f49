#!/bin/bash
# From ../shared/research/recipes.md §6.2 (tested there), unchanged but for step 1.
# Start a real Slurm 22.05 (Debian 12 packages) on this one machine. Run as root.
#   NODES=0 (default): one slurmd whose NodeName is `hostname -s`
#   NODES=k          : k slurmd on this host, NodeName node1..nodek, ports 17001..1700k
#   SLURM_TOP        : state/spool/log/pid directory (default /tmp/slurm); wiped on every start
#   SLURM_CONF       : config file to write (default /etc/slurm/slurm.conf; clients read $SLURM_CONF too)
set -euo pipefail
[ $# -eq 0 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${s#Z}" = "$s" ]; }   # PID 1 here reaps late: skip zombies
NODES=${NODES:-0}; T=${SLURM_TOP:-/tmp/slurm}; CONF=${SLURM_CONF:-/etc/slurm/slurm.conf}
H=$(hostname -s); NCPU=$(nproc)

if [ -s "$T/run/slurmctld.pid" ] && alive "$(cat "$T/run/slurmctld.pid")"; then
  echo "slurm-up: slurmctld already running (pid $(cat "$T/run/slurmctld.pid")); run slurm-down.sh first" >&2; exit 1
fi

# 1. packages: installed by .ci/setup, never from a test
if ! dpkg -s slurmd slurmctld slurm-client munge >/dev/null 2>&1; then
  echo "slurm-up: packages missing (apt-get install slurmd slurmctld slurm-client munge)" >&2; exit 1
fi

# 2. munge: key (the package's postinst normally creates it), socket dir, daemon as user munge
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create --keyfile=/etc/munge/munge.key && chown munge:munge /etc/munge/munge.key && chmod 0600 /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
fi
munge -n | unmunge >/dev/null

# 3. slurm.conf
rm -rf "$T"; mkdir -p "$T/state" "$T/run" "$T/log" "$(dirname "$CONF")"
if [ "$NODES" -eq 0 ]; then
  NODELIST=$H
  NODELINE="NodeName=$H CPUs=$NCPU RealMemory=1024 State=UNKNOWN"
else
  NODELIST=$(seq -f 'node%g' 1 "$NODES" | tr '\n' ' ')
  NODELINE="NodeName=node[1-$NODES] NodeHostname=$H NodeAddr=127.0.0.1 Port=[17001-$((17000+NODES))] CPUs=$NCPU RealMemory=1024 State=UNKNOWN"
fi
for n in $NODELIST; do mkdir -p "$T/spool/$n"; done        # slurmd does not create a %n spool dir itself
cat > "$CONF" <<CONF
ClusterName=local
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
KillWait=5
SlurmdTimeout=10
MinJobAge=300
InactiveLimit=0
$NODELINE
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP PriorityTier=1
PartitionName=urgent Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=2
CONF

# 4. daemons (each forks into the background and writes its pid file under $T/run)
slurmctld -f "$CONF"
for n in $NODELIST; do
  if [ "$NODES" -eq 0 ]; then slurmd -f "$CONF"; else slurmd -f "$CONF" -N "$n"; fi
done

# 5. wait until every node is idle
want=$(echo $NODELIST | wc -w)
for i in $(seq 1 300); do
  [ "$(SLURM_CONF=$CONF sinfo -h -t idle -o '%D' 2>/dev/null | awk '{s+=$1} END {print s+0}')" = "$want" ] && exit 0
  sleep 0.1
done
echo "slurm-up: nodes not idle after 30 s" >&2; SLURM_CONF=$CONF sinfo -N >&2 || true; exit 1
