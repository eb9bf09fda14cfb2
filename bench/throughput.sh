#!/usr/bin/env bash
# throughput.sh: redis-benchmark against verso and redis-server in one run
# (`make bench-throughput`; bench/collections.sh runs it with the
# collection tests).
#
#   redis-benchmark -t $TESTS -n N -r 100000 -c 50 -P {1,16}
#
# ROUNDS times (default 3), alternating verso and redis (A B A B ...) so that
# drift hits both alike; servers on core 0 (taskset -c 0) with --save "",
# redis-benchmark on core 1. Prints requests/s per round and the median of
# the per-round ratios verso/redis, with the conditions.
# Variables: N=1000000 ROUNDS=3 TESTS=set,get VERSO=path REDIS=path
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
TOP=$(cd "$HERE/.." && pwd)
N=${N:-1000000}
ROUNDS=${ROUNDS:-3}
TESTS=${TESTS:-set,get}
VERSO=${VERSO:-$TOP/build/src/verso-server}
REDIS=${REDIS:-$(command -v redis-server)}
PORT=${PORT:-27111}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-tput.XXXXXX")
SERVER_PID=
trap 'stop_server; rm -rf "$WORK"' EXIT

start() { # binary
    rm -rf "$WORK/d" && mkdir -p "$WORK/d"
    taskset -c 0 "$1" --port "$PORT" --dir "$WORK/d" --save "" --appendonly no \
        >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready "$PORT" && return
    echo "server $1 did not start" >&2; exit 1
}

# "test rps" lines for one pipeline depth (test names as redis-benchmark
# prints them, lower case, spaces as _: lrange_100_(first_100_elements)).
run() { # pipeline
    taskset -c 1 redis-benchmark -p "$PORT" -t "$TESTS" -n "$N" -r 100000 -c 50 -P "$1" --csv 2>/dev/null |
        awk -F'","' 'NR > 1 { t = tolower($1); gsub(/"/, "", t); gsub(/ /, "_", t); r = $2; gsub(/"/, "", r); print t, r }'
}

median() { sort -g | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

declare -A R
OPS=()
for r in $(seq "$ROUNDS"); do
    for who in verso redis; do
        bin=$VERSO; [ "$who" = redis ] && bin=$REDIS
        start "$bin"
        for p in 1 16; do
            while read -r op rps; do
                R[$who,$p,$op,$r]=$rps
                [ "$r$who$p" = 1verso1 ] && OPS+=("$op")
            done < <(run "$p")
        done
        stop_server
    done
done

echo "== redis-benchmark -t $TESTS -n $N -r 100000 -c 50, verso vs redis-server, $ROUNDS rounds =="
printf '%-6s %-34s %-5s %s\n' "-P" "test" "who" "requests/s per round"
for p in 1 16; do for op in "${OPS[@]}"; do for who in verso redis; do
    line=""; for r in $(seq "$ROUNDS"); do line="$line ${R[$who,$p,$op,$r]:-?}"; done
    printf '%-6s %-34s %-5s%s\n' "$p" "$op" "$who" "$line"
done; done; done
echo
echo "median of per-round ratios verso/redis:"
for p in 1 16; do for op in "${OPS[@]}"; do
    m=$(for r in $(seq "$ROUNDS"); do
        awk -v a="${R[verso,$p,$op,$r]:-0}" -v b="${R[redis,$p,$op,$r]:-0}" 'BEGIN{ if (b > 0) printf "%.3f\n", a/b }'
    done | median)
    printf '  -P %-2s %-34s %s\n' "$p" "$op" "$m"
done; done
echo
echo "conditions: $(nproc) vCPU, $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r);" \
     "servers on core 0 with --save \"\" --appendonly no, redis-benchmark on core 1;" \
     "verso $("$VERSO" --version | head -1), $("$REDIS" --version)"
