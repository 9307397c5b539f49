#!/usr/bin/env bash
# Integration test on a real Slurm (Debian's slurmctld and two slurmd "nodes" on this host, started by
# slurm-up.sh): `srun --ntasks-per-node=1 denpex scan --partial DIR/partial-%N.json` runs on both nodes, each
# reading its own "local disk", and `denpex diagnose` of the two partials gives the report of reading both nodes'
# logs on one machine. Skipped (exit 77, the reason on stdout) where Slurm cannot start: not root, packages not
# installed (.ci/setup installs them), or the daemons not coming up (ports taken by another Slurm).
set -u
DENPEX=${1:?usage: slurm_partial_test.sh path/to/denpex source-dir}
SRC=${2:?usage: slurm_partial_test.sh path/to/denpex source-dir}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "starting slurmctld, slurmd and munged needs root"
for b in slurmctld slurmd srun sinfo scontrol munged; do
    command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || skip "$b is not installed (apt-get install slurmd slurmctld slurm-client munge)"
done
getent hosts "$(hostname -s)" >/dev/null || skip "this host's name does not resolve (slurmctld needs it)"

T=$(mktemp -d /tmp/denpex-slurm.XXXXXX)
export SLURM_TOP=$T/slurm SLURM_CONF=$T/slurm.conf NODES=2 PATH=$PATH:/usr/sbin
cleanup() { bash "$SRC/tests/slurm/slurm-down.sh" >/dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
bash "$SRC/tests/slurm/slurm-up.sh" >"$T/up.log" 2>&1 || skip "Slurm did not start: $(tail -n 1 "$T/up.log")"

fails=0
check() { if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }

# Each node's "local disk": node1 holds the example's first node's log, node2 the second's.
EX="$SRC/tests/corpus/example-oom-watchdog"
mkdir -p "$T/local/node1" "$T/local/node2" "$T/partials"
cp "$EX/node0.log" "$T/local/node1/"
cp "$EX/node1.log" "$T/local/node2/"

# The README's recipe, through the scheduler: one task per node, %N = the node's Slurm name.
timeout 120 srun -N2 --ntasks-per-node=1 --label \
    sh -c 'exec "$0" scan --quiet --partial "$1/partial-%N.json" "$2/$SLURMD_NODENAME"' "$DENPEX" "$T/partials" "$T/local" \
    >"$T/srun.log" 2>&1
rc=$?
check "srun ran scan on both nodes (exit $rc)" "$rc"
[ "$rc" -eq 0 ] || cat "$T/srun.log"
check "one partial per node" $([ -s "$T/partials/partial-node1.json" ] && [ -s "$T/partials/partial-node2.json" ] && echo 0 || echo 1)

"$DENPEX" diagnose --json "$T/local" >"$T/single.json"
rc_single=$?
"$DENPEX" diagnose --json "$T/partials"/partial-*.json >"$T/merged.json"
rc_merged=$?
check "the merged partials decide as one machine does ($rc_merged vs $rc_single)" \
    $([ "$rc_single" -eq 0 ] && [ "$rc_merged" -eq "$rc_single" ] && echo 0 || echo 1)
python3 - "$T/single.json" "$T/merged.json" <<'PY'
import json, sys
one, many = (json.load(open(p)) for p in sys.argv[1:3])
assert one["diagnoses"] == many["diagnoses"], (one["diagnoses"][:1], many["diagnoses"][:1])
assert many["diagnoses"][0]["initiating"]["rank"] == 5, many["diagnoses"][0]["initiating"]
PY
check "the merged report names rank 5, as reading both nodes' logs here does" $?

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
