#!/usr/bin/env bash
# bench/loading.sh: loading a snapshot at startup while a client watches.
#
# One dump.rdb of KEYS keys (DEBUG POPULATE: "key:N" -> "value:N") is loaded
# RUNS times by each of, in turn:
#   verso        serving clients during the load (events every
#                loading-process-events-interval-bytes, 2 MB by default)
#   verso-quiet  the same binary with the interval at its maximum: clients
#                are served only while the table is pre-sized, none while
#                the keys load (close to verso before it served while loading)
#   redis        redis-server 7.0 (it serves while loading, every 2 MB)
# A probe (bench/loadprobe.py) connects at once and polls INFO persistence
# every 10 ms until loading:0. Printed per server: the load time from its
# log ("DB loaded from disk: X seconds"), the probe's replies during the
# load and its longest wait for one reply; medians [min-max], then the
# ratios verso/verso-quiet (the cost of serving while loading) and
# verso/redis. Servers on core 0, the probe on core 1.
#
#   make bench-loading [KEYS=3000000] [RUNS=5]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

VERSO=${VERSO:?path to verso-server}
REDIS=${REDIS:-/usr/bin/redis-server}
OUT=${OUT:-/tmp/verso-bench}
KEYS=${KEYS:-3000000}
RUNS=${RUNS:-5}
PORT=${PORT:-7481}
dir=$OUT/loading
rm -rf "$dir"
mkdir -p "$dir"
trap stop_server EXIT

echo "== bench-loading: $KEYS keys, $RUNS runs each, $(nproc) cores, $(date -u +%FT%TZ)"
echo "   verso: $VERSO; redis: $($REDIS --version | cut -d' ' -f3)"

"$VERSO" --port "$PORT" --dir "$dir" --save '' --enable-debug-command yes \
    >"$dir/populate.log" 2>&1 &
SERVER_PID=$!
wait_ready "$PORT"
redis-cli -p "$PORT" debug populate "$KEYS" key >/dev/null
redis-cli -p "$PORT" save >/dev/null
stop_server
echo "   dump.rdb: $(stat -c %s "$dir/dump.rdb") bytes"

# run NAME SERVER ARGS...: one load; appends "seconds replies longest_ms"
run() {
    local name=$1 bin=$2
    shift 2
    taskset -c 0 "$bin" --port "$PORT" --dir "$dir" --save '' "$@" >"$dir/$name.log" 2>&1 &
    SERVER_PID=$!
    taskset -c 1 python3 "$here/loadprobe.py" "$PORT" "$dir/probe.out"
    local secs
    secs=$(grep -o 'DB loaded from disk: [0-9.]*' "$dir/$name.log" | awk '{print $5}')
    stop_server
    echo "$secs $(cat "$dir/probe.out")" >>"$dir/$name.runs"
}

# one load of NAME: verso, verso-quiet or redis
load() {
    case $1 in
    verso) run verso "$VERSO" ;;
    verso-quiet) run verso-quiet "$VERSO" --loading-process-events-interval-bytes 2147483647 ;;
    redis) run redis "$REDIS" ;;
    esac
    sleep 1 # the kernel reclaims what the server freed before the next one faults pages in
}

# the order rotates: whichever runs right after another server exits pays
# for the memory that exit gave back (up to 2x on a first load)
for i in $(seq "$RUNS"); do
    case $((i % 3)) in
    1) load verso; load verso-quiet; load redis ;;
    2) load verso-quiet; load redis; load verso ;;
    0) load redis; load verso; load verso-quiet ;;
    esac
done

# median COLUMN FILE / range COLUMN FILE
median() { awk -v c="$1" '{print $c}' "$2" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { awk -v c="$1" '{print $c}' "$2" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%s-%s", lo, hi}'; }

printf "\n%-12s %-22s %-18s %-22s\n" server "load s, median [range]" "probe replies" "longest wait ms"
for n in verso verso-quiet redis; do
    f=$dir/$n.runs
    printf "%-12s %-22s %-18s %-22s\n" "$n" "$(median 1 "$f") [$(range 1 "$f")]" \
        "$(median 3 "$f")" "$(median 4 "$f") [$(range 4 "$f")]"
done
v=$(median 1 "$dir/verso.runs")
q=$(median 1 "$dir/verso-quiet.runs")
r=$(median 1 "$dir/redis.runs")
echo
echo "load time verso / verso-quiet: $(awk -v a="$v" -v b="$q" 'BEGIN{printf "%.3f", a/b}')"
echo "load time verso / redis:       $(awk -v a="$v" -v b="$r" 'BEGIN{printf "%.3f", a/b}')"
