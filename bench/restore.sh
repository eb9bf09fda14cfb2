#!/usr/bin/env bash
# bench/restore.sh: restore of a snapshot at startup, verso vs redis-server.
#
# One plain RDB (rdbcompression no) of KEYS keys `key:%012d` x VALUE random
# bytes (bench/spike --fill-only), the same file for both servers, loaded
# RUNS times by each, alternating (the order rotates). Per load
# (bench/restoreprobe.py): the server starts pinned to core 0, the probe
# (core 1) sends PING every ms from the moment the port accepts until
# +PONG. Printed per server: seconds from exec to the first PONG, the
# server's CPU (user + system) at that moment, "DB loaded" seconds of its
# log; medians [min-max]; then the ratios verso / redis. The CPU ratio is
# the one to read on a shared machine.
#
#   make bench-restore [KEYS=1000000] [VALUE=300] [RUNS=5]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

VERSO=${VERSO:?path to verso-server}
SPIKE=${SPIKE:?path to bench/spike}
REDIS=${REDIS:-/usr/bin/redis-server}
OUT=${OUT:-/tmp/verso-bench}
KEYS=${KEYS:-1000000}
VALUE=${VALUE:-300}
RUNS=${RUNS:-5}
PORT=${PORT:-7483}
dir=$OUT/restore
rm -rf "$dir"
mkdir -p "$dir"
trap stop_server EXIT

echo "== bench-restore: $KEYS keys x $VALUE B, $RUNS runs each, $(nproc) cores, $(date -u +%FT%TZ)"
echo "   verso: $VERSO; redis: $($REDIS --version | cut -d' ' -f3)"

"$VERSO" --port "$PORT" --dir "$dir" --save '' --rdbcompression no >"$dir/fill.log" 2>&1 &
SERVER_PID=$!
wait_ready "$PORT"
taskset -c 1 "$SPIKE" --port "$PORT" --method fill --run 0 --csv /dev/null --tsv /dev/null \
    --fill-only 1 --keys "$KEYS" --value "$VALUE" >/dev/null
redis-cli -p "$PORT" save >/dev/null
stop_server
echo "   dump.rdb: $(stat -c %s "$dir/dump.rdb") bytes"

load() {
    local bin=$VERSO
    [ "$1" = redis ] && bin=$REDIS
    taskset -c 1 python3 "$here/restoreprobe.py" "$bin" "$PORT" "$dir" "$dir/$1.log" \
        | awk '{printf "%s %.2f %s %s %s\n", $1, $2 + $3, $2, $3, $4}' >>"$dir/$1.runs"
    sleep 1 # the kernel reclaims what the server freed before the next one faults pages in
}
for i in $(seq "$RUNS"); do
    if [ $((i % 2)) = 1 ]; then load verso; load redis; else load redis; load verso; fi
done

median() { awk -v c="$1" '{print $c}' "$2" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { awk -v c="$1" '{print $c}' "$2" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%s-%s", lo, hi}'; }

printf "\n%-7s %-22s %-22s %-11s %-11s %-22s\n" server "to PONG s" "CPU s" user sys \
    "DB loaded s"
for n in verso redis; do
    f=$dir/$n.runs
    printf "%-7s %-22s %-22s %-11s %-11s %-22s\n" "$n" "$(median 1 "$f") [$(range 1 "$f")]" \
        "$(median 2 "$f") [$(range 2 "$f")]" "$(median 3 "$f")" "$(median 4 "$f")" \
        "$(median 5 "$f") [$(range 5 "$f")]"
done
echo
for c in 1:"to PONG" 2:"CPU" 5:"DB loaded"; do
    v=$(median "${c%%:*}" "$dir/verso.runs")
    r=$(median "${c%%:*}" "$dir/redis.runs")
    printf "verso / redis, %-10s %s\n" "${c#*:}:" "$(awk -v a="$v" -v b="$r" 'BEGIN{printf "%.3f", a/b}')"
done
