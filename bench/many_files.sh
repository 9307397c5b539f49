#!/usr/bin/env bash
# How denpex scales with the number of input files: N and 4N small rank logs (a 1,024-GPU job's per-rank files),
# timed in the same run against `cat` over the same files. Linear scaling gives a time ratio near 4; the ProcessTable
# once walked every process per file group, which made it quadratic (100,000 files: 103 s).
#
#   bench/many_files.sh [BUILD_DIR] [N]        (defaults: build, 5000)
#
# Output: a Markdown table on stdout. Exit status: 0; 1 when the 4N/N time ratio exceeds BENCH_MAX_RATIO (default 8).
set -euo pipefail
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${1:-$REPO_DIR/build}
N=${2:-5000}
MAX_RATIO=${BENCH_MAX_RATIO:-8}
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "many_files: N must be a positive integer" >&2; exit 2; }
DENPEX="$BUILD_DIR/denpex"
[[ -x "$DENPEX" ]] || { echo "many_files: $DENPEX not built" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/denpex-many.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

make_files() {   # DIR COUNT
    python3 - "$1" "$2" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
for i in range(n):
    with open(os.path.join(d, f"rank_{i}.log"), "w") as f:
        f.write(f"[rank{i}]: 2025-01-01 10:00:00,000 INFO train: step 1 loss 2.0\n"
                f"[rank{i}]: [E ProcessGroupNCCL.cpp:737] [Rank {i}] Watchdog caught collective operation timeout: "
                f"WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600100 milliseconds before timing out.\n")
PY
}

seconds() { python3 -c 'import sys,time,subprocess; t=time.perf_counter(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(f"{time.perf_counter()-t:.2f}")' "$@"; }

make_files "$WORK/n" "$N"
make_files "$WORK/4n" $((4 * N))
t1=$(seconds "$DENPEX" diagnose "$WORK/n")
t4=$(seconds "$DENPEX" diagnose "$WORK/4n")
c1=$(seconds sh -c "cat $WORK/n/* > /dev/null")
c4=$(seconds sh -c "find $WORK/4n -type f -exec cat {} + > /dev/null")
ratio=$(python3 -c "print(f'{$t4/max($t1,0.01):.1f}')")
echo "| files | denpex (s) | cat (s) |"
echo "|---|---|---|"
echo "| $N | $t1 | $c1 |"
echo "| $((4 * N)) | $t4 | $c4 |"
echo
echo "denpex time ratio 4N/N: $ratio (linear: 4)"
python3 -c "import sys; sys.exit(0 if $ratio <= $MAX_RATIO else 1)"
