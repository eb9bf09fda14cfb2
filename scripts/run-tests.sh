#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite: once on a
# normal build, once under AddressSanitizer + UndefinedBehaviorSanitizer, the
# threaded tests (table, snapshots) under ThreadSanitizer, then every libFuzzer
# target (tests/fuzz) for FUZZ_SECONDS (20) each under ASan + UBSan.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc)

run_check() { # build-dir [make args...]
    local dir=$1; shift
    if ! make -C "$dir" -j"$jobs" check "$@"; then
        for log in "$dir"/tests/*/*.log; do
            grep -q -E '^:test-result: (FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null && { echo "== $log"; tail -50 "$log"; }
        done
        exit 1
    fi
}

# Every build is made with --enable-werror: a warning fails the run.
echo "== build and test (normal)"
CONFIGURE_FLAGS=--enable-werror "$top/scripts/setup.sh"
run_check build

echo "== build and test (AddressSanitizer + UBSan)"
BUILD_DIR=build-asan CONFIGURE_FLAGS="--enable-sanitizers=address --enable-werror" "$top/scripts/setup.sh"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 run_check build-asan

echo "== build and test threaded parts (ThreadSanitizer)"
BUILD_DIR=build-tsan CONFIGURE_FLAGS="--enable-sanitizers=thread --enable-werror" "$top/scripts/setup.sh"
TSAN_OPTIONS=halt_on_error=1 run_check build-tsan TESTS="$(cat tests/tsan-tests)"

echo "== fuzz (libFuzzer, ASan+UBSan)"
BUILD_DIR=build-fuzz CONFIGURE_FLAGS=--enable-fuzzing "$top/scripts/setup.sh"
FUZZ_SECONDS=${FUZZ_SECONDS:-20} FUZZ_ARTIFACTS="$top/build-fuzz/fuzz-artifacts" make -C build-fuzz fuzz

echo "== all test runs passed"
