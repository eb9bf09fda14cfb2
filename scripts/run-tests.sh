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
asan_flags="--enable-sanitizers=address --enable-werror"
tsan_flags="--enable-sanitizers=thread --enable-werror"
echo "== build and test (normal)"
CONFIGURE_FLAGS=--enable-werror "$top/scripts/setup.sh"

# The tests mostly wait (servers, replicas, timeouts), a third of 2 cores busy
# in the normal build: the other builds (server and test programs; an empty
# TESTS runs none) are made meanwhile, at the lowest priority so the tests'
# timing is left alone, and waited for before their tests. The first setup
# above has already done the shared steps (packages, Lua, npm, autoreconf).
bg_log="$top/build-bg.log"
(
    set -e
    renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true # before any child
    BUILD_DIR=build-asan CONFIGURE_FLAGS="$asan_flags" "$top/scripts/setup.sh"
    make -C build-asan -j"$jobs" check TESTS=
    BUILD_DIR=build-tsan CONFIGURE_FLAGS="$tsan_flags" "$top/scripts/setup.sh"
    make -C build-tsan -j"$jobs" check TESTS=
    BUILD_DIR=build-fuzz CONFIGURE_FLAGS=--enable-fuzzing "$top/scripts/setup.sh"
) >"$bg_log" 2>&1 </dev/null &
bg_pid=$!

run_check build

echo "== build and test (AddressSanitizer + UBSan)"
if ! wait "$bg_pid"; then
    echo "== the ASan, TSan and fuzz builds failed:"; tail -50 "$bg_log"; exit 1
fi
# again, quickly (nothing left to make): prints what it built
BUILD_DIR=build-asan CONFIGURE_FLAGS="$asan_flags" "$top/scripts/setup.sh"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 run_check build-asan

echo "== build and test threaded parts (ThreadSanitizer)"
BUILD_DIR=build-tsan CONFIGURE_FLAGS="$tsan_flags" "$top/scripts/setup.sh"
TSAN_OPTIONS=halt_on_error=1 run_check build-tsan TESTS="$(cat tests/tsan-tests)"

echo "== fuzz (libFuzzer, ASan+UBSan)"
BUILD_DIR=build-fuzz CONFIGURE_FLAGS=--enable-fuzzing "$top/scripts/setup.sh"
FUZZ_SECONDS=${FUZZ_SECONDS:-20} FUZZ_ARTIFACTS="$top/build-fuzz/fuzz-artifacts" make -C build-fuzz fuzz

echo "== all test runs passed"
