#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined) in their own build directory and runs
# each for a while, from the checked-in seeds (tests/fuzz/corpus/TARGET) plus what earlier runs found.
#
#   tests/fuzz/run_fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default: 20 s, every target)
#
# Environment: FUZZ_BUILD (build dir, default build-fuzz), FUZZ_WORK (found inputs, crashes and logs, default
# $FUZZ_BUILD/work), CXX (default: the newest of clang++-16, -15, -14 whose libFuzzer links), FUZZ_JOBS (build
# parallelism, default 1), FUZZ_RSS_MB (2048).
# Each target is built on its own; a target that does not build is a failure (its log is printed): a fuzz target
# that silently stops building tests nothing (the engine must stay buildable by clang 14 too).
# Exit status: 0 when every target built and none crashed, 1 otherwise (crashing inputs: $FUZZ_WORK/TARGET/crashes).
# Exit 77 when no clang with libFuzzer is available.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET=${1:-20}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(frame_parser dispatcher engine knowledge partial)
BUILD=${FUZZ_BUILD:-build-fuzz}
WORK=${FUZZ_WORK:-$BUILD/work}
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' >"$probe/p.cpp"
links() { command -v "$1" >/dev/null 2>&1 && "$1" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1; }
if [ -z "${CXX:-}" ]; then
    for c in clang++-16 clang++-15 clang++-14 clang++; do
        if links "$c"; then CXX=$c; break; fi
    done
fi
if [ -z "${CXX:-}" ] || ! links "$CXX"; then
    echo "run_fuzz: no clang with libFuzzer (clang-14 + libclang-rt-14-dev, or clang-16 + libclang-rt-16-dev): skipped"
    exit 77
fi
echo "run_fuzz: $CXX"

mkdir -p "$BUILD"
cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDENPEX_FUZZ=ON \
      -DBUILD_TESTING=OFF >"$BUILD/configure.log" 2>&1 || { cat "$BUILD/configure.log"; exit 1; }
built=()
build_failed=0
for t in "${TARGETS[@]}"; do
    if nice -n 10 cmake --build "$BUILD" -j"${FUZZ_JOBS:-1}" --target "fuzz_$t" >"$BUILD/build-$t.log" 2>&1; then
        built+=("$t")
    else
        echo "fuzz_$t: does not build with $CXX:"
        tail -n 30 "$BUILD/build-$t.log"
        build_failed=1
    fi
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
for t in "${built[@]}"; do
    mkdir -p "$WORK/$t/corpus" "$WORK/$t/crashes"
    dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    echo "== fuzz_$t for ${SECONDS_PER_TARGET}s"
    if nice -n 10 "$BUILD/tests/fuzz/fuzz_$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=25 \
           -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -max_len=65536 -print_final_stats=1 \
           -artifact_prefix="$WORK/$t/crashes/" "${dict[@]}" \
           "$WORK/$t/corpus" "tests/fuzz/corpus/$t" >"$WORK/$t/log" 2>&1; then
        grep -E '^stat::(number_of_executed_units|peak_rss_mb|slowest_unit_time_sec)' "$WORK/$t/log" || true
    else
        failed=1
        echo "fuzz_$t FAILED: see $WORK/$t/log"; tail -40 "$WORK/$t/log"
    fi
done
[ "$build_failed" -eq 0 ] || failed=1
exit $failed
