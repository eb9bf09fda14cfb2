#!/usr/bin/env bash
# Runs the libFuzzer targets of a fuzz build (./configure --enable-fuzzing),
# each for FUZZ_SECONDS (default 60) on a temp copy of its seed corpus
# tests/fuzz/corpus/<target>/ with its dictionary tests/fuzz/<target>.dict,
# so nothing is written back into the source tree, FUZZ_JOBS (default: the
# cores) at a time. Prints executions, exec/s and coverage per target; exits
# non-zero when one crashed, leaked or timed out, keeping the input in
# $FUZZ_ARTIFACTS (default ./fuzz-artifacts).
#   FUZZ_BIN=build-fuzz/tests/fuzz FUZZ_SECONDS=20 FUZZ_TARGETS="resp rdb" tests/fuzz/run.sh
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
bin=${FUZZ_BIN:?FUZZ_BIN: the directory of the built fuzz_* programs}
secs=${FUZZ_SECONDS:-}
[ -n "$secs" ] || secs=60
targets=${FUZZ_TARGETS:-}
[ -n "$targets" ] || targets="resp rdb aof_load manifest conf cmds acl cluster_msg nodes_conf"
artifacts=${FUZZ_ARTIFACTS:-}
[ -n "$artifacts" ] || artifacts=$PWD/fuzz-artifacts
mkdir -p "$artifacts"
work=$(mktemp -d "${TMPDIR:-/tmp}/verso-fuzz-run.XXXXXX")
# the targets' scratch files (tmpfs when there is one), gone even after a crash
shm=/dev/shm; [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
scratch=$(mktemp -d "$shm/verso-fuzz-run.XXXXXX")
trap 'rm -rf "$work" "$scratch"' EXIT
export VERSO_FUZZ_TMP=$scratch
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target's run: its result line (or the failure and its log's tail) in
# $work/<target>.result; non-zero on a crash, leak or timeout.
run_one() {
    local t=$1 prog="$bin/fuzz_$1" out="$work/$1.result"
    mkdir -p "$work/$t"
    cp "$src/corpus/$t"/* "$work/$t/" 2>/dev/null || true
    local flags=()
    [ -f "$src/$t.dict" ] && flags=(-dict="$src/$t.dict")
    # Targets that keep the keyspace between inputs allocate more than they
    # free in one input: libFuzzer's per-input leak check would rescan the
    # heap each time. Their leaks are found by LeakSanitizer at exit.
    case $t in cmds|rdb|aof_load) flags+=(-detect_leaks=0) ;; esac
    local log="$work/$t.log"
    if ! "$prog" "${flags[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$work/$t" >"$log" 2>&1; then
        { echo "fuzz: $t FAILED (input kept in $artifacts/$t-*)"; tail -60 "$log"; } >"$out"
        return 1
    fi
    local execs rate last cov ft corp
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
    echo "fuzz: $t ok: ${execs:-?} execs (${rate:-?}/s) in ${secs}s, cov ${cov:-?} ft ${ft:-?}, corpus ${corp:-?}" >"$out"
}

for t in $targets; do
    [ -x "$bin/fuzz_$t" ] || { echo "fuzz: $bin/fuzz_$t not built (configure --enable-fuzzing)"; exit 1; }
done
# FUZZ_JOBS targets at a time (default: one per core; each is one process),
# their results printed in order once all have run.
njobs=${FUZZ_JOBS:-$(nproc)}
for t in $targets; do
    while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do wait -n || true; done
    run_one "$t" &
done
wait
status=0
for t in $targets; do
    cat "$work/$t.result"
    grep -q '^fuzz: .* FAILED' "$work/$t.result" && status=1
done
exit $status
