#!/usr/bin/env bash
# bench/restore.sh: restore of a snapshot at startup, verso against
# redis-server 7.0, side by side in one run.
#
# One dump.rdb of KEYS keys `key:%012d` x VALUE random bytes (the spike data
# set: bench/spike --fill-only, written by redis-server's SAVE, so both
# servers load the same file) is loaded RUNS times by each server, the order
# alternating from run to run. bench/pongprobe.py starts the server (pinned
# to core 0 with its threads, as the other benches do) and PINGs it every
# millisecond from core 1 until +PONG: the figure is the time from exec to
# the first PONG, with the server's CPU seconds at that moment and its log's
# "DB loaded from disk" time. Printed: median [min-max] per server, the
# verso/redis ratio of each run and their median, against the target
# (<= 0.5x redis-server's time).
#
#   make bench-restore [KEYS=1000000] [VALUE=300] [RUNS=5]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

VERSO=${VERSO:?path to verso-server}
REDIS=${REDIS:-/usr/bin/redis-server}
SPIKE=${SPIKE:?path to bench/spike}
OUT=${OUT:-/tmp/verso-bench}
KEYS=${KEYS:-1000000}
VALUE=${VALUE:-300}
RUNS=${RUNS:-5}
PORT=${PORT:-7491}
dir=$OUT/restore
rm -rf "$dir"
mkdir -p "$dir"
trap stop_server EXIT

echo "== bench-restore: $KEYS keys x $VALUE B, $RUNS runs each, $(nproc) cores, $(date -u +%FT%TZ)"
echo "   verso: $VERSO ($("$VERSO" --version | head -1))"
echo "   redis: $($REDIS --version)"
echo "   cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), kernel $(uname -r)," \
     "THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"

"$REDIS" --port "$PORT" --dir "$dir" --save '' --appendonly no >"$dir/fill.log" 2>&1 &
SERVER_PID=$!
wait_ready "$PORT"
taskset -c 1 "$SPIKE" --port "$PORT" --keys "$KEYS" --value "$VALUE" --fill-only 1 \
    --method fill --csv /dev/null --tsv /dev/null --dir "$dir" >/dev/null
redis-cli -p "$PORT" save >/dev/null
stop_server
echo "   dump.rdb: $(stat -c %s "$dir/dump.rdb") bytes (written by redis-server)"

# run NAME BIN ARGS...: one startup; appends "pong_s cpu_s loaded_s"
run() {
    local name=$1 bin=$2
    shift 2
    sync
    taskset -c 1 python3 "$here/pongprobe.py" "$PORT" "$dir/pid" "$dir/probe.out" -- \
        taskset -c 0 "$bin" --port "$PORT" --dir "$dir" --save '' --appendonly no \
        --logfile "$dir/$name.log" "$@"
    SERVER_PID=$(cat "$dir/pid")
    stop_server
    local loaded
    loaded=$(grep -o 'DB loaded from disk: [0-9.]*' "$dir/$name.log" | tail -1 | awk '{print $5}')
    echo "$(cat "$dir/probe.out") ${loaded:-?}" >>"$dir/$name.runs"
    : >"$dir/$name.log"
    sleep 1
}

for r in $(seq "$RUNS"); do
    if [ $((r % 2)) -eq 1 ]; then
        run verso "$VERSO"; run redis "$REDIS"
    else
        run redis "$REDIS"; run verso "$VERSO"
    fi
done

# med FILE COL: "median [min-max]" of column COL
med() {
    sort -g -k"$2","$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {
        m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
        printf "%.3f [%.3f-%.3f]", m, v[1], v[NR]}'
}
echo
printf "%-8s %-28s %-28s %s\n" server "exec to first PONG (s)" "CPU at PONG (s)" "log: DB loaded (s)"
for s in verso redis; do
    printf "%-8s %-28s %-28s %s\n" "$s" "$(med "$dir/$s.runs" 1)" "$(med "$dir/$s.runs" 2)" \
        "$(med "$dir/$s.runs" 3)"
done
paste "$dir/verso.runs" "$dir/redis.runs" | awk '{print $1 / $4}' >"$dir/ratio"
ratio=$(sort -g "$dir/ratio" | awk '{v[NR]=$1} END {
    m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
    printf "%.2f [%.2f-%.2f]", m, v[1], v[NR]}')
echo "verso / redis, per run: $ratio"
m=${ratio%% *}
if awk -v m="$m" 'BEGIN {exit !(m <= 0.5)}'; then v=MET; else v=MISSED; fi
echo "target restore time <= 0.5x redis-server: $m -> $v"
