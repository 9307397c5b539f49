#!/usr/bin/env bash
# denpex throughput / memory benchmark, reported as ratios against cat, ripgrep and grep measured in the same run.
#
#   bench/run.sh [BUILD_DIR] [SIZES_MB...]        (defaults: build, 100 1024)
#
# Two inputs per size: `gen_logs` (BENCH_RANKS rank logs of realistic torchrun/NCCL output) and `gen_interleaved`
# (one file where 64 ranks' NCCL INFO chatter and logging interleave: many pids and hosts). Per input: cat (the
# I/O floor), denpex diagnose --json, rg with the knowledge patterns in ASCII mode ((?-u)), LC_ALL=C grep -E with
# the same patterns translated to ERE (where grep accepts them; (?i) dropped). rg and grep are stopped after
# BENCH_TOOL_TIMEOUT seconds (default 300); their row then gives a lower bound.
#
# Environment:
#   TMPDIR                      where the generated logs live (${TMPDIR:-/tmp}/denpex-bench, reused between runs)
#   BENCH_REPEAT                runs per tool and size; the fastest is reported, RSS is the maximum (default 3)
#   BENCH_RSS_LIMIT_MIB         denpex peak-RSS budget (default 64); exceeding it makes the script fail
#   BENCH_RANKS                 number of rank logs per size (default 16)
#   BENCH_TOOL_TIMEOUT          seconds before rg / grep are stopped (default 300)
#   BENCH_RESULTS               where the table is written (default bench/results.md)
#
# Output: a Markdown table on stdout, also written to $BENCH_RESULTS. Progress goes to stderr.
# Exit status: 0 on success; 1 if denpex failed or exceeded the RSS budget; 2 on usage/setup errors.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
RESULTS=${BENCH_RESULTS:-$SCRIPT_DIR/results.md}
TOOL_TIMEOUT=${BENCH_TOOL_TIMEOUT:-300}

REPEAT=${BENCH_REPEAT:-3}
RSS_LIMIT_MIB=${BENCH_RSS_LIMIT_MIB:-64}
RANKS=${BENCH_RANKS:-16}
MIN_FREE_MB_FOR_1G=3072

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 2; }

# ---- arguments ------------------------------------------------------------------------------------------
BUILD_DIR=${1:-$REPO_DIR/build}
if [[ $# -gt 0 ]]; then shift; fi
SIZES=("$@")
if [[ ${#SIZES[@]} -eq 0 ]]; then SIZES=(100 1024); fi
for s in "${SIZES[@]}"; do
  [[ "$s" =~ ^[1-9][0-9]*$ ]] || die "size '$s' is not a positive integer number of MB (usage: bench/run.sh [BUILD_DIR] [SIZES_MB...])"
done
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEAT must be a positive integer"
[[ "$RSS_LIMIT_MIB" =~ ^[1-9][0-9]*$ ]] || die "BENCH_RSS_LIMIT_MIB must be a positive integer"
[[ "$RANKS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_RANKS must be a positive integer"
[[ "$TOOL_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "BENCH_TOOL_TIMEOUT must be a positive integer"

[[ -d "$BUILD_DIR" ]] || die "build directory '$BUILD_DIR' does not exist (configure first: cmake -S . -B build)"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
DENPEX="$BUILD_DIR/denpex"
if [[ ! -x "$DENPEX" ]]; then
  die "denpex binary not found at $DENPEX — build it first: cmake --build $BUILD_DIR --target denpex"
fi
[[ -x /usr/bin/time ]] || die "/usr/bin/time is not installed (apt-get install time, or run .ci/setup)"

WORK="${TMPDIR:-/tmp}/denpex-bench"
mkdir -p "$WORK"

# ---- the log generators: the CMake-built ones, else compile them here --------------------------------------
# generator NAME: sets GEN to an up-to-date binary of bench/NAME.cpp.
generator() {
  local name=$1 src="$SCRIPT_DIR/$1.cpp"
  GEN="$BUILD_DIR/bench/$name"
  if [[ -x "$GEN" && ! "$GEN" -ot "$src" && ! "$GEN" -ot "$SCRIPT_DIR/gen_common.hpp" ]]; then return; fi
  GEN="$WORK/$name"
  if [[ ! -x "$GEN" || "$GEN" -ot "$src" || "$GEN" -ot "$SCRIPT_DIR/gen_common.hpp" ]]; then
    log "compiling $name (not found in $BUILD_DIR/bench)"
    "${CXX:-c++}" -std=c++20 -O2 -o "$GEN.tmp" "$src" || die "cannot compile $src"
    mv -f "$GEN.tmp" "$GEN"
  fi
}
generator gen_logs
GEN_LOGS=$GEN
generator gen_interleaved
GEN_INTERLEAVED=$GEN
GEN_ID=$(cat "$SCRIPT_DIR/gen_logs.cpp" "$SCRIPT_DIR/gen_interleaved.cpp" "$SCRIPT_DIR/gen_common.hpp" | sha256sum | cut -c1-16)

# ---- patterns: the same knowledge base denpex uses, for rg (ASCII mode) and grep -E ------------------------
PATTERNS="$WORK/patterns.txt"
if ! "$DENPEX" kb patterns --no-captures >"$PATTERNS" 2>"$WORK/patterns.err"; then
  cat "$WORK/patterns.err" >&2
  die "'$DENPEX kb patterns' failed"
fi
NPAT=$(grep -c . "$PATTERNS" || true)
[[ "$NPAT" -gt 0 ]] || die "'denpex kb patterns' printed no patterns"
RG_PATTERNS="$WORK/patterns-rg.txt"
sed 's/^/(?-u)/' "$PATTERNS" >"$RG_PATTERNS"
# ERE: non-capturing groups become groups, inline (?i) is dropped (grep has no per-pattern flags), patterns with
# \n (never inside one line) are left out. GNU grep accepts \s \S \w \b.
ERE_PATTERNS="$WORK/patterns-ere.txt"
sed -e 's/(?:/(/g' -e 's/(?i)//g' "$PATTERNS" | grep -v '\\n' >"$ERE_PATTERNS" || true
NERE=$(grep -c . "$ERE_PATTERNS" || true)
HAVE_RG=0
if command -v rg >/dev/null 2>&1; then
  if rg --no-config -c -f "$RG_PATTERNS" /dev/null >/dev/null 2>"$WORK/rg.check"; [[ $? -le 1 ]]; then HAVE_RG=1
  else log "ripgrep rejects the patterns: $(head -c 300 "$WORK/rg.check")"; fi
else
  log "ripgrep (rg) is not installed: its rows are left out"
fi
HAVE_GREP=0
if LC_ALL=C grep -E -c -f "$ERE_PATTERNS" /dev/null >/dev/null 2>"$WORK/grep.check"; [[ $? -le 1 ]]; then HAVE_GREP=1
else log "grep -E rejects the translated patterns: $(head -c 300 "$WORK/grep.check")"; fi
log "$NPAT patterns from 'denpex kb patterns' ($NERE as ERE)"

free_mb() { df -Pm "$1" | awk 'NR == 2 { print $4 }'; }

# ensure_input KIND SIZE: generate the input once (reused while the generators are unchanged) and set INPUT to it
# (a directory for gen_logs, a file for gen_interleaved). Returns 1 if skipped for lack of disk space.
ensure_input() {
  local kind=$1 size=$2 path stamp
  if [[ $kind == ranks ]]; then path="$WORK/logs-${size}mb-${RANKS}r"; else path="$WORK/interleaved-${size}mb.log"; fi
  stamp="$path.ok"   # outside the directory, so no tool ever reads it
  INPUT=$path
  if [[ -e "$path" && -f "$stamp" && "$(cat "$stamp")" == "$GEN_ID" ]]; then return 0; fi
  rm -rf "$path" "$stamp"
  local free need=$((size * 3))
  free=$(free_mb "$WORK")
  if [[ $size -ge 1024 && $need -lt $MIN_FREE_MB_FOR_1G ]]; then need=$MIN_FREE_MB_FOR_1G; fi
  if [[ $free -lt $need ]]; then
    log "SKIPPING ${size} MB: only ${free} MB free under $WORK, need ${need} MB"
    return 1
  fi
  log "generating ${size} MB ($kind) at $path"
  if [[ $kind == ranks ]]; then "$GEN_LOGS" "$path" "$size" "$RANKS" >&2 || die "gen_logs failed"
  else "$GEN_INTERLEAVED" "$path" "$size" >&2 || die "gen_interleaved failed"; fi
  printf '%s\n' "$GEN_ID" >"$stamp"
}

# measure NAME OK_MAX_RC CMD... : runs CMD BENCH_REPEAT times under `/usr/bin/time -v` (stdout to /dev/null,
# stderr to $WORK/NAME.stderr); sets M_SECS (best wall time, microsecond clock), M_RSS_KB (largest "Maximum
# resident set size") and M_RC (exit status of the last run; 124 when stopped by `timeout`).
measure() {
  local name=$1 ok_max_rc=$2
  shift 2
  local tf="$WORK/time.out" errf="$WORK/$name.stderr"
  local i t0 t1 secs rss
  M_SECS="" M_RSS_KB=0 M_RC=0
  for ((i = 0; i < REPEAT; i++)); do
    t0=$EPOCHREALTIME
    set +e
    /usr/bin/time -v -o "$tf" "$@" >/dev/null 2>"$errf"
    M_RC=$?
    set -e
    t1=$EPOCHREALTIME
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tf")
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if [[ -z "$M_SECS" ]] || awk -v a="$secs" -v b="$M_SECS" 'BEGIN { exit !(a < b) }'; then M_SECS=$secs; fi
    if [[ "${rss:-0}" -gt "$M_RSS_KB" ]]; then M_RSS_KB=$rss; fi
    if [[ $M_RC -gt $ok_max_rc ]]; then break; fi
  done
}

fmt() { awk -v v="$1" -v d="$2" 'BEGIN { printf "%.*f", d, v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.2f", a / b }'; }
mbps() { awk -v bytes="$1" -v s="$2" 'BEGIN { if (s < 0.001) s = 0.001; printf "%.0f", bytes / 1048576 / s }'; }
mib() { fmt "$(awk -v k="$1" 'BEGIN { print k / 1024 }')" 1; }

ROWS=()
FAIL=0
FAIL_MSGS=()

# bench_input KIND SIZE: the four tools on one input; appends table rows.
bench_input() {
  local kind=$1 size=$2
  if ! ensure_input "$kind" "$size"; then
    ROWS+=("| $kind | $size | *skipped: not enough free disk* | | | | | |")
    return
  fi
  local in=$INPUT files bytes label
  if [[ -d "$in" ]]; then files=("$in"/*); else files=("$in"); fi
  bytes=$(cat "${files[@]}" | wc -c)
  label="$kind $(fmt "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" 0) MiB"
  log "[$label] warming the page cache"
  cat "${files[@]}" >/dev/null
  cat "${files[@]}" >/dev/null

  log "[$label] cat"
  measure cat 0 cat "${files[@]}"
  local cat_s=$M_SECS cat_rss=$M_RSS_KB
  log "[$label] denpex diagnose --json"
  measure denpex 0 "$DENPEX" diagnose --json "$in"
  local dx_s=$M_SECS dx_rss=$M_RSS_KB dx_rc=$M_RC note=""
  if [[ $dx_rc -ne 0 ]]; then
    FAIL=1
    note=" (exit $dx_rc)"
    FAIL_MSGS+=("denpex diagnose exited with status $dx_rc on $label (expected 0); stderr: $(head -c 2000 "$WORK/denpex.stderr" | tr "\n" " ")")
  fi
  if awk -v r="$dx_rss" -v l="$RSS_LIMIT_MIB" 'BEGIN { exit !(r > l * 1024) }'; then
    FAIL=1
    note+=" **over ${RSS_LIMIT_MIB} MiB**"
    FAIL_MSGS+=("denpex peak RSS $(mib "$dx_rss") MiB on $label exceeds the ${RSS_LIMIT_MIB} MiB budget")
  fi
  row() {   # TOOL-LABEL SECS RSS_KB
    ROWS+=("| $label | $1 | $(fmt "$2" 3) | $(mbps "$bytes" "$2") | $(mib "$3") | $(ratio "$2" "$cat_s") | $(ratio "$dx_s" "$2") |")
  }
  row "cat (I/O floor)" "$cat_s" "$cat_rss"
  row "denpex diagnose --json$note" "$dx_s" "$dx_rss"
  if [[ $HAVE_RG -eq 1 ]]; then
    log "[$label] rg (?-u) -c -f patterns"
    measure rg 1 timeout "$TOOL_TIMEOUT" rg --no-config -c -f "$RG_PATTERNS" "$in"
    if [[ $M_RC -eq 124 ]]; then row "rg -c -f patterns ($NPAT, (?-u)): **stopped after ${TOOL_TIMEOUT} s**" "$M_SECS" "$M_RSS_KB"
    else row "rg -c -f patterns ($NPAT, (?-u))" "$M_SECS" "$M_RSS_KB"; fi
  fi
  if [[ $HAVE_GREP -eq 1 ]]; then
    log "[$label] LC_ALL=C grep -E -c -f patterns"
    measure grep 1 timeout "$TOOL_TIMEOUT" env LC_ALL=C grep -E -r -c -f "$ERE_PATTERNS" "$in"
    if [[ $M_RC -eq 124 ]]; then row "LC_ALL=C grep -E -c ($NERE ERE): **stopped after ${TOOL_TIMEOUT} s**" "$M_SECS" "$M_RSS_KB"
    else row "LC_ALL=C grep -E -c ($NERE ERE)" "$M_SECS" "$M_RSS_KB"; fi
  fi
}

for size in "${SIZES[@]}"; do
  bench_input ranks "$size"
  bench_input interleaved "$size"
done

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
rev=$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo "no commit")
if [[ -n "$(git -C "$REPO_DIR" status --porcelain 2>/dev/null | head -n 1)" ]]; then rev+=" (dirty)"; fi

{
  echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $DENPEX (${rev}) · $(rg --version 2>/dev/null | awk 'NR == 1') · $(grep --version | awk 'NR == 1') · ${cpu:-unknown CPU}, $(nproc) CPUs · best of ${REPEAT} runs, warm page cache"
  echo
  echo "| input | tool | seconds | MiB/s | peak RSS (MiB) | time ÷ cat | denpex time ÷ this |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}"
  if [[ $FAIL -ne 0 ]]; then
    echo
    echo "**FAILED:**"
    printf -- '- %s\n' "${FAIL_MSGS[@]}"
  fi
} | tee "$RESULTS"

if [[ $FAIL -ne 0 ]]; then
  for m in "${FAIL_MSGS[@]}"; do log "FAIL: $m"; done
  exit 1
fi
