#!/usr/bin/env bash
# rdbformat.sh: save time and file size of each snapshot format
# (`make bench-rdbformat`).
#
# For each data set (random: the spike data set, KEYS keys `key:%012d` of
# VALUE seeded random bytes; json: KEYS keys of VALUE-byte JSON-like text,
# see bench/rdbfill.c), in a fresh directory with --save "":
#   verso (pinned to core 0) is filled once by rdbfill (core 1), then RUNS
#   times, interleaved, for each of its modes: CONFIG SET the mode, SAVE;
#     plain  snapshot-compression none, rdbcompression no (strings verbatim)
#     lzf    snapshot-compression none, rdbcompression yes (the default)
#     lz4    snapshot-compression lz4 (whole stream; no per-string LZF)
#   then redis-server (pinned to core 0, defaults: rdbcompression yes) is
#   filled the same way and SAVEd RUNS times.
# SAVE is synchronous and nothing else talks to the server meanwhile. Per
# SAVE: wall time of the SAVE round trip (includes the fsync), CPU time the
# server spent (utime + stime from /proc/PID/stat), dump size. Prints per
# data set and mode median [min-max] of RUNS and the ratios against the
# default (lzf), then the conditions; writes
#   $OUT/rdbformat-runs.tsv      one line per SAVE
#   $OUT/rdbformat-summary.txt   what is printed
#
# Variables (environment): KEYS=1000000 VALUE=300 RUNS=3 SEED=1
#   DATASETS="random json" VERSO=path REDIS=path OUT=dir
#   RDB_TMP=dir (where the dumps go; must be a real disk, not tmpfs).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
KEYS=${KEYS:-1000000}
VALUE=${VALUE:-300}
RUNS=${RUNS:-3}
SEED=${SEED:-1}
DATASETS=${DATASETS:-"random json"}
OUT=${OUT:-$HERE/out}
REDIS=${REDIS:-$(command -v redis-server || true)}
if [ -z "${VERSO:-}" ]; then
    for v in "$HERE/../build/src/verso-server" "$HERE/../src/verso-server"; do
        [ -x "$v" ] && VERSO=$(cd "$(dirname "$v")" && pwd)/verso-server && break
    done
fi
VERSO_MODES="plain lzf lz4"

die() { echo "rdbformat.sh: $*" >&2; exit 1; }

SERVER_PID=
cleanup() {   # on any exit: our server (by its pid) and the scratch dir
    [ -n "$SERVER_PID" ] && stop_server 60
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
}

check_tools() {
    [ -x "${VERSO:-}" ] || die "no verso-server (build it, or set VERSO=path)"
    [ -x "$REDIS" ] || die "no redis-server (set REDIS=path)"
    for t in taskset redis-cli pkg-config; do
        command -v $t >/dev/null || die "$t not found"
    done
    [ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (server on core 0, filler on core 1)"
}

# start SERVER DIR PORT: on core 0, no save points, no AOF; sets SERVER_PID.
start() {
    local bin=$1 d=$2 p=$3
    mkdir -p "$d"
    taskset -c 0 "$bin" --port "$p" --dir "$d" --save "" --appendonly no \
        --dbfilename dump.rdb >"$d/server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready "$p" || die "$bin did not start (see $d/server.log)"
}

# CPU seconds (user + system, all threads) of SERVER_PID so far.
cpu_s() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) / hz }' \
        "/proc/$SERVER_PID/stat"
}

# % of all CPUs busy between two /proc/stat "cpu" lines.
busy_between() {
    local -a a=($1) b=($2)
    local ta=0 tb=0 i
    for i in 1 2 3 4 5 6 7 8; do ta=$((ta + a[i])); tb=$((tb + b[i])); done
    local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) tot=$((tb - ta))
    awk -v i=$idle -v t=$tot 'BEGIN { printf "%.0f", t ? 100 * (t - i) / t : 0 }'
}

# one_save DATASET MODE RUN PORT DIR: SAVE, one line to the runs file.
one_save() {
    local ds=$1 m=$2 r=$3 p=$4 d=$5 c0 c1 t0 t1 s0 s1 reply
    rm -f "$d/dump.rdb"
    s0=$(head -1 /proc/stat); c0=$(cpu_s); t0=$(date +%s%N)
    reply=$(redis-cli -p "$p" SAVE)
    t1=$(date +%s%N); c1=$(cpu_s); s1=$(head -1 /proc/stat)
    [ "$reply" = OK ] || die "$m SAVE: $reply"
    printf '%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\n' "$ds" "$m" "$r" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" \
        "$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')" \
        "$(stat -c %s "$d/dump.rdb")" "$(busy_between "$s0" "$s1")" >>"$RUNSF"
}

fill() {
    taskset -c 1 "$WORK/rdbfill" --port "$1" --keys "$KEYS" --value "$VALUE" \
        --seed "$SEED" --kind "$2" || die "fill failed"
}

one_dataset() {
    local ds=$1 p d r m t
    p=$(free_port); d=$WORK/verso-$ds
    start "$WORK/verso-server" "$d" "$p"
    t=$SECONDS; fill "$p" "$ds"
    echo "rdbformat.sh: $ds: verso filled in $((SECONDS - t)) s" >&2
    for r in $(seq "$RUNS"); do
        for m in $VERSO_MODES; do
            case $m in
            plain) redis-cli -p "$p" CONFIG SET snapshot-compression none rdbcompression no ;;
            lzf)   redis-cli -p "$p" CONFIG SET snapshot-compression none rdbcompression yes ;;
            lz4)   redis-cli -p "$p" CONFIG SET snapshot-compression lz4 rdbcompression yes ;;
            esac >/dev/null
            one_save "$ds" "$m" "$r" "$p" "$d"
        done
    done
    stop_server 60; rm -rf "$d"
    p=$(free_port); d=$WORK/redis-$ds
    start "$REDIS" "$d" "$p"
    t=$SECONDS; fill "$p" "$ds"
    echo "rdbformat.sh: $ds: redis-server filled in $((SECONDS - t)) s" >&2
    for r in $(seq "$RUNS"); do one_save "$ds" redis "$r" "$p" "$d"; done
    stop_server 60; rm -rf "$d"
}

# stat DATASET MODE COLUMN: "median min max" of a column of the runs file.
stat3() {
    awk -F'\t' -v ds="$1" -v m="$2" -v c="$3" '$1 == ds && $2 == m { print $c }' "$RUNSF" |
        sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}

summary() {
    local ds m
    echo "== snapshot formats: SAVE of $KEYS keys x $VALUE B, median [min-max] of $RUNS =="
    printf '%-7s %-6s %23s %23s %10s %9s %9s %9s\n' data mode "save s" "server CPU s" "size MB" \
        "size/lzf" "time/lzf" "CPU/lzf"
    for ds in $DATASETS; do
        local base_t base_c base_s
        read -r base_t _ _ < <(stat3 "$ds" lzf 4)
        read -r base_c _ _ < <(stat3 "$ds" lzf 5)
        read -r base_s _ _ < <(stat3 "$ds" lzf 6)
        for m in $VERSO_MODES redis; do
            local t tl th c cl ch s
            read -r t tl th < <(stat3 "$ds" "$m" 4)
            read -r c cl ch < <(stat3 "$ds" "$m" 5)
            read -r s _ _ < <(stat3 "$ds" "$m" 6)
            awk -v ds="$ds" -v m="$m" -v t="$t" -v tl="$tl" -v th="$th" -v c="$c" -v cl="$cl" \
                -v ch="$ch" -v s="$s" -v bt="$base_t" -v bc="$base_c" -v bs="$base_s" 'BEGIN {
                printf "%-7s %-6s %6.2f [%5.2f-%5.2f]   %6.2f [%5.2f-%5.2f]   %8.1f %9.2f %9.2f %9.2f\n",
                    ds, m, t, tl, th, c, cl, ch, s / 1e6, s / bs, t / bt, c / bc }'
        done
    done
    cat <<EOF
modes: plain = snapshot-compression none + rdbcompression no; lzf = none + rdbcompression
yes (the default); lz4 = snapshot-compression lz4 (whole stream, no per-string LZF);
redis = redis-server SAVE with its defaults (rdbcompression yes). "save s" is the SAVE
round trip (encode + write + fsync); "server CPU s" the server's user+system time in it.
EOF
}

conditions() {
    local cpu mem fs
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    fs=$(stat -f -c %T "$WORK")
    cat <<EOF
== conditions ==
data            random: $KEYS x $VALUE B splitmix64 bytes, seed $SEED (the spike data set);
                json: $KEYS x $VALUE B JSON-like records (bench/rdbfill.c), seed $SEED
method          fill once per server, then SAVE (synchronous, no client load) $RUNS times
                per mode, verso's modes interleaved; the dump is deleted before each SAVE
pinning         server taskset -c 0, filler taskset -c 1
servers         verso: $("$VERSO" --version); redis: $("$REDIS" --version | sed 's/Redis server //')
machine         $(nproc) CPU x $cpu, $mem RAM, kernel $(uname -r), dump dir $WORK ($fs)
other load      machine busy during the SAVEs (% of all CPUs, the server's own core included,
                so ~$((100 / $(nproc)))% is the server alone): median $(awk -F'\t' 'NR > 1 { print $7 }' "$RUNSF" |
                    sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')%, max $(awk -F'\t' 'NR > 1 { print $7 }' "$RUNSF" | sort -g | tail -1)%;
                load average before the run: $LOAD0
date            $(date -u +%Y-%m-%dT%H:%MZ), total time $1 s
EOF
}

main() {
    check_tools
    mkdir -p "$OUT"
    WORK=$(mktemp -d "${RDB_TMP:-${TMPDIR:-/tmp}}/verso-rdbformat.XXXXXX")
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    [ "$(stat -f -c %T "$WORK")" = tmpfs ] &&
        echo "rdbformat.sh: warning: $WORK is tmpfs; dumps go to RAM (set RDB_TMP)" >&2
    ${CC:-cc} -std=c11 -O2 -Wall -Wextra "$HERE/rdbfill.c" \
        $(pkg-config --cflags --libs hiredis) -o "$WORK/rdbfill" || die "cannot build rdbfill.c"
    # The build tree may be rebuilt while we run: use one copy throughout.
    cp "$VERSO" "$WORK/verso-server"
    RUNSF=$OUT/rdbformat-runs.tsv
    printf 'data\tmode\trun\tsave_s\tcpu_s\tbytes\tbusy_pct\n' >"$RUNSF"
    LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
    local t0=$SECONDS ds
    for ds in $DATASETS; do one_dataset "$ds"; done
    { summary; echo; conditions $((SECONDS - t0)); } | tee "$OUT/rdbformat-summary.txt"
    echo "rdbformat.sh: wrote $RUNSF and $OUT/rdbformat-summary.txt" >&2
}

main "$@"
