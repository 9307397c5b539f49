#!/bin/bash
# From ../shared/research/recipes.md §6.2 (tested there), unchanged.
# Stop what slurm-up.sh started: jobs, slurmctld, every slurmd, munged. Run as root.
alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${s#Z}" = "$s" ]; }   # PID 1 here reaps late: skip zombies
T=${SLURM_TOP:-/tmp/slurm}; export SLURM_CONF=${SLURM_CONF:-/etc/slurm/slurm.conf}
if [ -s "$T/run/slurmctld.pid" ] && alive "$(cat "$T/run/slurmctld.pid")"; then
  jobs=$(squeue -h -o %A 2>/dev/null || true)
  if [ -n "$jobs" ]; then
    scancel $jobs
    for i in $(seq 1 100); do [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  scontrol shutdown                      # stops slurmctld and all registered slurmd
fi
# anything still alive from the pid files (e.g. a slurmd that never registered)
for f in "$T"/run/*.pid; do
  [ -s "$f" ] || continue; p=$(cat "$f")
  for i in $(seq 1 50); do alive "$p" || break; sleep 0.1; done
  alive "$p" && kill -TERM "$p"
done
[ -s /run/munge/munged.pid ] && kill -TERM "$(cat /run/munge/munged.pid)" 2>/dev/null
for i in $(seq 1 50); do [ -e /run/munge/munged.pid ] || break; sleep 0.1; done
exit 0
