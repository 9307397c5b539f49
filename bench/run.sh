#!/usr/bin/env bash
# denpex throughput / memory benchmark, reported as ratios against ripgrep measured in the same run.
#
#   bench/run.sh [BUILD_DIR] [SIZES_MB...]        (defaults: build, 100 1024)
#
# Environment:
#   TMPDIR                      where the generated logs live (${TMPDIR:-/tmp}/denpex-bench, reused between runs)
#   BENCH_REPEAT                runs per tool and size; the fastest is reported, RSS is the maximum (default 3)
#   BENCH_RSS_LIMIT_MIB         denpex peak-RSS budget (default 64); exceeding it makes the script fail
#   BENCH_RANKS                 number of rank logs per size (default 16)
#
# Output: a Markdown table on stdout, also written to bench/results.md. Progress goes to stderr.
# Exit status: 0 on success; 1 if denpex failed or exceeded the RSS budget; 2 on usage/setup errors.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
RESULTS="$SCRIPT_DIR/results.md"

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

[[ -d "$BUILD_DIR" ]] || die "build directory '$BUILD_DIR' does not exist (configure first: cmake -S . -B build)"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
DENPEX="$BUILD_DIR/denpex"
if [[ ! -x "$DENPEX" ]]; then
  die "denpex binary not found at $DENPEX — build it first: cmake --build $BUILD_DIR --target denpex"
fi
command -v rg >/dev/null 2>&1 || die "ripgrep (rg) is not installed (run .ci/setup)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is not installed (apt-get install time, or run .ci/setup)"

WORK="${TMPDIR:-/tmp}/denpex-bench"
mkdir -p "$WORK"

# ---- the log generator: the CMake-built one, else compile it here -------------------------------------
GEN_SRC="$SCRIPT_DIR/gen_logs.cpp"
GEN="$BUILD_DIR/bench/gen_logs"
if [[ ! -x "$GEN" || "$GEN" -ot "$GEN_SRC" ]]; then
  GEN="$WORK/gen_logs"
  if [[ ! -x "$GEN" || "$GEN" -ot "$GEN_SRC" ]]; then
    log "compiling gen_logs (not found in $BUILD_DIR/bench)"
    "${CXX:-c++}" -std=c++20 -O2 -o "$GEN.tmp" "$GEN_SRC" || die "cannot compile $GEN_SRC"
    mv -f "$GEN.tmp" "$GEN"
  fi
fi
GEN_ID=$(sha256sum "$GEN_SRC" | cut -c1-16)

# ---- patterns for ripgrep: the same knowledge base denpex uses ------------------------------------------
PATTERNS="$WORK/patterns.txt"
if ! "$DENPEX" kb patterns --no-captures >"$PATTERNS" 2>"$WORK/patterns.err"; then
  cat "$WORK/patterns.err" >&2
  die "'$DENPEX kb patterns' failed"
fi
NPAT=$(grep -c . "$PATTERNS" || true)
[[ "$NPAT" -gt 0 ]] || die "'denpex kb patterns' printed no patterns"
if ! rg_err=$(rg --no-config -c -f "$PATTERNS" /dev/null 2>&1 >/dev/null) && [[ -n "$rg_err" ]]; then
  printf '%s\n' "$rg_err" >&2
  die "ripgrep rejects the patterns from 'denpex kb patterns' (see above)"
fi
log "$NPAT patterns from 'denpex kb patterns'"

free_mb() { df -Pm "$1" | awk 'NR == 2 { print $4 }'; }

# Ensure logs of SIZE MB exist and set LOG_DIR to them. Returns 1 if skipped for lack of disk space.
ensure_logs() {
  local size=$1
  local dir="$WORK/logs-${size}mb-${RANKS}r"
  local stamp="$dir.ok"   # outside the directory, so no tool ever reads it
  LOG_DIR=$dir
  if [[ -d "$dir" && -f "$stamp" && "$(cat "$stamp")" == "$GEN_ID" ]]; then
    log "reusing $dir"
    return 0
  fi
  rm -rf "$dir" "$stamp"
  local free need=$((size * 3))
  free=$(free_mb "$WORK")
  if [[ $size -ge 1024 && $need -lt $MIN_FREE_MB_FOR_1G ]]; then need=$MIN_FREE_MB_FOR_1G; fi
  if [[ $free -lt $need ]]; then
    log "SKIPPING ${size} MB: only ${free} MB free under $WORK, need ${need} MB"
    return 1
  fi
  log "generating ${size} MB in $RANKS rank logs under $dir"
  "$GEN" "$dir" "$size" "$RANKS" >&2 || die "gen_logs failed for ${size} MB"
  printf '%s\n' "$GEN_ID" >"$stamp"
}

# measure NAME OK_MAX_RC CMD... : runs CMD BENCH_REPEAT times (stdout to /dev/null, stderr to $WORK/NAME.stderr);
# sets M_SECS (best wall time, microsecond clock), M_RSS_KB (max peak RSS, /usr/bin/time %M) and M_RC (exit
# status of the last run). Stops early when the exit status exceeds OK_MAX_RC.
measure() {
  local name=$1 ok_max_rc=$2
  shift 2
  local tf="$WORK/time.out" errf="$WORK/$name.stderr"
  local i t0 t1 secs rss
  M_SECS="" M_RSS_KB=0 M_RC=0
  for ((i = 0; i < REPEAT; i++)); do
    t0=$EPOCHREALTIME
    set +e
    /usr/bin/time -f '%e %M' -o "$tf" "$@" >/dev/null 2>"$errf"
    M_RC=$?
    set -e
    t1=$EPOCHREALTIME
    # /usr/bin/time prepends "Command exited with non-zero status N" on failure: the numbers are the last line.
    read -r _ rss < <(tail -n 1 "$tf")
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if [[ -z "$M_SECS" ]] || awk -v a="$secs" -v b="$M_SECS" 'BEGIN { exit !(a < b) }'; then M_SECS=$secs; fi
    if [[ "$rss" -gt "$M_RSS_KB" ]]; then M_RSS_KB=$rss; fi
    if [[ $M_RC -gt $ok_max_rc ]]; then break; fi
  done
}

fmt() { awk -v v="$1" -v d="$2" 'BEGIN { printf "%.*f", d, v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.2f", a / b }'; }
mbps() { awk -v bytes="$1" -v s="$2" 'BEGIN { if (s < 0.001) s = 0.001; printf "%.0f", bytes / 1048576 / s }'; }

ROWS=()
FAIL=0
FAIL_MSGS=()

for size in "${SIZES[@]}"; do
  if ! ensure_logs "$size"; then
    ROWS+=("| $size | *skipped: less than $((size >= 1024 ? MIN_FREE_MB_FOR_1G : size * 3)) MB free disk* | | | | | |")
    continue
  fi
  dir=$LOG_DIR
  bytes=$(wc -c "$dir"/* | awk 'END { print $1 }')
  mib=$(fmt "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" 0)

  log "warming the page cache for ${size} MB"
  cat "$dir"/* >/dev/null
  cat "$dir"/* >/dev/null

  log "[$size MB] cat (I/O floor)"
  # shellcheck disable=SC2016  # $1 is expanded by the inner bash
  measure cat 0 bash -c 'cat "$1"/* >/dev/null' _ "$dir"
  cat_s=$M_SECS cat_rss=$M_RSS_KB

  log "[$size MB] rg --no-config -c -f patterns"
  measure rg 1 rg --no-config -c -f "$PATTERNS" "$dir"
  rg_s=$M_SECS rg_rss=$M_RSS_KB
  if [[ $M_RC -gt 1 ]]; then
    cat "$WORK/rg.stderr" >&2
    die "ripgrep failed with exit status $M_RC on $dir"
  fi

  log "[$size MB] denpex diagnose --json"
  measure denpex 0 "$DENPEX" diagnose --json "$dir"
  dx_s=$M_SECS dx_rss=$M_RSS_KB dx_rc=$M_RC

  dx_rss_mib=$(fmt "$(awk -v k="$dx_rss" 'BEGIN { print k / 1024 }')" 1)
  dx_note=""
  if [[ $dx_rc -ne 0 ]]; then
    FAIL=1
    dx_note=" (exit $dx_rc)"
    FAIL_MSGS+=("denpex diagnose exited with status $dx_rc on ${size} MB (expected 0); stderr: $(head -c 2000 "$WORK/denpex.stderr" | tr "\n" " ")")
  fi
  if awk -v r="$dx_rss" -v l="$RSS_LIMIT_MIB" 'BEGIN { exit !(r > l * 1024) }'; then
    FAIL=1
    dx_note+=" **over ${RSS_LIMIT_MIB} MiB**"
    FAIL_MSGS+=("denpex peak RSS ${dx_rss_mib} MiB on ${size} MB exceeds the ${RSS_LIMIT_MIB} MiB budget: memory must stay bounded (streaming), independent of input size")
  fi

  for tool in denpex rg cat; do
    case $tool in
      denpex) s=$dx_s rss=$dx_rss label="denpex diagnose --json$dx_note" ;;
      rg) s=$rg_s rss=$rg_rss label="rg -c -f patterns ($NPAT)" ;;
      cat) s=$cat_s rss=$cat_rss label="cat (I/O floor)" ;;
    esac
    ROWS+=("| $mib | $label | $(fmt "$s" 3) | $(mbps "$bytes" "$s") | $(fmt "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" 1) | $(ratio "$s" "$rg_s") | $(ratio "$rss" "$rg_rss") |")
  done
done

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
rev=$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo "no commit")
if [[ -n "$(git -C "$REPO_DIR" status --porcelain 2>/dev/null | head -n 1)" ]]; then rev+=" (dirty)"; fi

{
  echo "# denpex benchmark results"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC') · denpex ${rev} · $(rg --version 2>/dev/null | awk 'NR == 1') · ${cpu:-unknown CPU}, $(nproc) CPUs · ${RANKS} rank logs per size · best of ${REPEAT} runs, warm page cache"
  echo
  echo "| size (MiB) | tool | seconds | MiB/s | peak RSS (MiB) | time ÷ rg | RSS ÷ rg |"
  echo "|---:|---|---:|---:|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Ratios are against ripgrep on the same files in the same run (lower is better); see bench/README.md."
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
