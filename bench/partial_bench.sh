#!/usr/bin/env bash
# Partial models (denpex scan --partial): their size against the logs they stand for, and the time diagnose takes
# to merge many of them. Not a test: nothing here is asserted by ctest (the verdicts are compared, and a
# difference ends the script with an error).
#
#   bench/partial_bench.sh [BUILD_DIR] [SIZE_MB] [PARTIALS]      defaults: build 1024 1000
#
# 1. size: gen_logs writes SIZE_MB of 16 rank logs (2 nodes of 8); one scan of each node's 8 files and one of all
#    16; partial bytes against log bytes, and scan's wall time and peak RSS.
# 2. merge: gen_logs writes PARTIALS rank logs (100 MB together); one scan per rank file (each a "node", 2 at a
#    time); then diagnose --json of all the partials against diagnose --json of the logs (the same verdict
#    expected), and of a single partial (the fixed cost: knowledge, RE2 compilation, start-up).
# Inputs and partials are kept under ${TMPDIR:-/tmp}/denpex-partial-bench/ and reused. BENCH_SECTIONS="size merge"
# (the default) runs both parts; name one to run only that.
set -euo pipefail
BUILD=${1:-build}
SIZE=${2:-1024}
N=${3:-1000}
DENPEX=$(realpath "$BUILD/denpex")
GEN=$(realpath "$BUILD/bench/gen_logs")
WORK=${TMPDIR:-/tmp}/denpex-partial-bench
mkdir -p "$WORK"

timed() {   # timed LABEL CMD... : "LABEL seconds peak_RSS_MiB", the command's stdout to /dev/null
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null || true   # diagnose exits 1 or 3 on some inputs
    read -r secs kib < <(tail -n 1 "$WORK/time")   # ("Command exited with non-zero status N" comes first)
    printf '| %s | %s | %.1f |\n' "$label" "$secs" "$(echo "$kib / 1024" | bc -l)"
}

SECTIONS=${BENCH_SECTIONS:-size merge}

# --- 1. size --------------------------------------------------------------------------------------------------
if [[ " $SECTIONS " == *" size "* ]]; then
logs=$WORK/logs-${SIZE}mb-16r
[ -d "$logs" ] || "$GEN" "$logs" "$SIZE" 16 >/dev/null
mkdir -p "$logs-node0" "$logs-node1"
for r in $(seq 0 15); do
    node=$((r / 8))
    ln -sf "$logs/rank_$r.log" "$logs-node$node/rank_$r.log"
done
echo "## partial size (${SIZE} MiB of logs, 16 ranks)"
echo
echo "| input | log bytes | partial bytes | partial ÷ logs |"
echo "|---|---:|---:|---:|"
for what in node0 node1 all; do
    if [ "$what" = all ]; then dir=$logs; else dir=$logs-$what; fi
    "$DENPEX" scan --quiet --partial "$WORK/size-$what.json" "$dir"
    raw=$(cat "$dir"/*.log | wc -c)
    part=$(stat -c %s "$WORK/size-$what.json")
    printf '| %s | %d | %d | 1 : %d |\n' "$what" "$raw" "$part" $((raw / part))
done
echo
echo "| command | seconds | peak RSS (MiB) |"
echo "|---|---:|---:|"
timed "scan --partial (all 16 ranks, ${SIZE} MiB)" "$DENPEX" scan --quiet --partial "$WORK/size-all.json" "$logs"
timed "diagnose --json of the 2 node partials" "$DENPEX" diagnose --json "$WORK/size-node0.json" "$WORK/size-node1.json"
echo

fi

# --- 2. merge -------------------------------------------------------------------------------------------------
[[ " $SECTIONS " == *" merge "* ]] || exit 0
many=$WORK/logs-100mb-${N}r
parts=$WORK/partials-$N
[ -d "$many" ] || "$GEN" "$many" 100 "$N" >/dev/null
if [ ! -f "$parts/.done" ]; then
    mkdir -p "$parts"
    export DENPEX parts
    find "$many" -name 'rank_*.log' -print0 |
        xargs -0 -P 2 -I{} sh -c 'f={}; b=${f##*/}; nice "$DENPEX" scan --quiet --partial "$parts/${b%.log}.json" "$f"'
    touch "$parts/.done"
fi
count=$(find "$parts" -name '*.json' | wc -l)
bytes=$(cat "$parts"/*.json | wc -c)
echo "## merging $count partials ($bytes bytes together, $((bytes / count)) per partial; logs: 100 MiB in $N rank files)"
echo
echo "| command | seconds | peak RSS (MiB) |"
echo "|---|---:|---:|"
one=$(find "$parts" -name '*.json' | sort | head -1)
timed "diagnose --json of 1 partial (fixed cost)" "$DENPEX" diagnose --json "$one"
timed "diagnose --json of $count partials" "$DENPEX" diagnose --json "$parts"/*.json
timed "diagnose --json of the $N logs (one machine)" "$DENPEX" diagnose --json "$many"
"$DENPEX" diagnose --json "$parts"/*.json >"$WORK/merged.json" || true
"$DENPEX" diagnose --json "$many" >"$WORK/single.json" || true
python3 - "$WORK/single.json" "$WORK/merged.json" <<'PY'
import json, sys
one, many = (json.load(open(p)) for p in sys.argv[1:3])
def verdict(r):
    d = r["diagnoses"][0] if r["diagnoses"] else None
    return d and (d["failure"] and d["failure"]["id"], d["initiating"]["rank"], d["confidence"], d["undetermined"])
print("\nsingle-machine verdict:", verdict(one), "\nmerged verdict:        ", verdict(many))
sys.exit(0 if verdict(one) == verdict(many) and one["diagnoses"] == many["diagnoses"] else 1)
PY
