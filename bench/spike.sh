#!/usr/bin/env bash
# spike.sh: the memory-spike comparison run (`make bench-spike`).
#
# Builds bench/spike.c, then RUNS times, interleaved (forkless fork redis
# forkless fork redis ...), starts a server pinned to core 0 with --save ""
# in a fresh directory, lets spike (pinned to core 1) fill it, load it, BGSAVE
# at t=2 s and sample it, then stops the server and deletes the directory.
# At the end it prints, per method, median [min-max] of each figure, the
# per-run ratios between methods, the targets and the conditions, and writes:
#   $OUT/spike-samples.csv   every 100 ms sample of every run
#   $OUT/spike-runs.tsv      one line of figures per run
#   $OUT/spike-summary.txt   what is printed
#   $OUT/spike-memory.png, $OUT/spike-ping.png   (median run of each method)
#
# Variables (environment): KEYS=1000000 VALUE=300 RUNS=7 CONNS=8 PIPELINE=1
#   RATE=0 (total SET/s to pace the load at; 0 = closed loop) SEED=1
#   SAMPLE_MS=100 METHODS="forkless fork redis" COMPRESSION=lz4 (verso's
#   --snapshot-compression) VERSO=path REDIS=path OUT=dir SPIKE_TMP=dir
#   (where the servers write their dumps; must be a real disk, not tmpfs)
#   WAIT_IDLE=0 (seconds to wait before each run for other work to stop).
#   WORKLOAD=coll (bench/collections.sh): big hashes, lists and sorted sets
#   instead of string keys: COLL_KEYS=20 of each type x COLL_ELEMS=500000
#   elements, writers HSET / RPUSH+LPOP / ZADD; files are $OUT/coll-*.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
KEYS=${KEYS:-1000000}
VALUE=${VALUE:-300}
RUNS=${RUNS:-7}
CONNS=${CONNS:-8}
PIPELINE=${PIPELINE:-1}
RATE=${RATE:-0}
SEED=${SEED:-1}
SAMPLE_MS=${SAMPLE_MS:-100}
METHODS=${METHODS:-"forkless fork redis"}
COMPRESSION=${COMPRESSION:-lz4}
WORKLOAD=${WORKLOAD:-set}
COLL_KEYS=${COLL_KEYS:-20}
COLL_ELEMS=${COLL_ELEMS:-500000}
P=$([ "$WORKLOAD" = coll ] && echo coll || echo spike)   # output file prefix
OUT=${OUT:-$HERE/out}
REDIS=${REDIS:-$(command -v redis-server || true)}
if [ -z "${VERSO:-}" ]; then
    for v in "$HERE/../build/src/verso-server" "$HERE/../src/verso-server"; do
        [ -x "$v" ] && VERSO=$(cd "$(dirname "$v")" && pwd)/verso-server && break
    done
fi

die() { echo "spike.sh: $*" >&2; exit 1; }

SERVER_PID=
cleanup() {   # on any exit: our server (by its pid) and the scratch dir
    [ -n "$SERVER_PID" ] && stop_server
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
}

check_tools() {
    [ -x "${VERSO:-}" ] || die "no verso-server (build it, or set VERSO=path)"
    case " $METHODS " in *" redis "*) [ -x "$REDIS" ] || die "no redis-server (set REDIS=path)";; esac
    for t in taskset redis-cli gnuplot pkg-config; do
        command -v $t >/dev/null || die "$t not found"
    done
    [ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (server on core 0, load on core 1)"
}

# $SPIKE: the one `make` built (the make target passes it); else built here.
build_spike() {
    if [ -n "${SPIKE:-}" ]; then
        cp "$SPIKE" "$WORK/spike" || die "cannot copy SPIKE=$SPIKE"
        return
    fi
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra "$HERE/spike.c" \
        $(pkg-config --cflags --libs hiredis) -lpthread -o "$WORK/spike" ||
        die "cannot build spike.c"
}

# start_server METHOD DIR PORT: starts it on core 0, sets SERVER_PID.
start_server() {
    local m=$1 d=$2 p=$3
    case $m in
    forkless|fork)
        taskset -c 0 "$VERSO" --port "$p" --dir "$d" --save "" \
            --bgsave-method "$m" --snapshot-compression "$COMPRESSION" \
            >"$d/server.log" 2>&1 &;;
    redis)
        taskset -c 0 "$REDIS" --port "$p" --dir "$d" --save "" --appendonly no \
            --daemonize no --bind 127.0.0.1 >"$d/server.log" 2>&1 &;;
    *) die "unknown method $m";;
    esac
    SERVER_PID=$!
    wait_ready "$p" && return 0
    tail -5 "$d/server.log" >&2
    stop_server
    die "$m server did not start on port $p"
}

# one_run METHOD RUN
one_run() {
    local m=$1 r=$2 d="$WORK/$1-$2" p
    mkdir -p "$d"
    p=$(free_port)
    start_server "$m" "$d" "$p"
    if ! taskset -c 1 "$WORK/spike" --port "$p" --pid "$SERVER_PID" \
        --method "$m" --run "$r" --keys "$KEYS" --value "$VALUE" \
        --conns "$CONNS" --pipeline "$PIPELINE" --rate "$RATE" --seed "$SEED" \
        --dir "$d" --sample-ms "$SAMPLE_MS" \
        --workload "$WORKLOAD" --coll-keys "$COLL_KEYS" --coll-elems "$COLL_ELEMS" \
        --csv "$OUT/$P-samples.csv" --tsv "$OUT/$P-runs.tsv"; then
        tail -5 "$d/server.log" >&2
        stop_server
        die "run $r of $m failed"
    fi
    stop_server
    tail -1 "$OUT/$P-runs.tsv" | grep -q "	ok	" ||
        { tail -5 "$d/server.log" >&2; die "run $r of $m: BGSAVE status not ok"; }
    rm -rf "$d"
    sync
}

# machine_busy SECONDS: % of all CPUs busy over that time (other work skews
# the figures: the server's core must be ours alone).
machine_busy() {
    local a b
    a=($(head -1 /proc/stat)); sleep "$1"; b=($(head -1 /proc/stat))
    local ta=0 tb=0 i
    for i in 1 2 3 4 5 6 7 8; do ta=$((ta + a[i])); tb=$((tb + b[i])); done
    local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) tot=$((tb - ta))
    awk -v i=$idle -v t=$tot 'BEGIN { printf "%.0f", t ? 100 * (t - i) / t : 0 }'
}

# Before each run: wait up to WAIT_IDLE s for the machine to be < 10% busy,
# and note how busy it was.
settle_machine() {
    local b t=$SECONDS
    b=$(machine_busy 0.5)
    while [ "$b" -ge 10 ] && [ $((SECONDS - t)) -lt "${WAIT_IDLE:-0}" ]; do
        b=$(machine_busy 2)
    done
    echo "$b" >>"$WORK/busy.txt"
    [ "$b" -lt 10 ] || echo "spike.sh: warning: machine ${b}% busy before this run" >&2
}

ping_fifo() {
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ping_fifo") c = i; next }
        { n++; y += $c } END { print y == n ? "yes" : y ? "in " y " of " n " runs" : "no (not permitted)" }' \
        "$OUT/$P-runs.tsv"
}

conditions() {
    local cpu mem thp rv fs
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '?')
    rv=$([ -x "$REDIS" ] && "$REDIS" --version | sed 's/Redis server //' || echo none)
    fs=$(stat -f -c %T "$WORK")
    cat <<EOF
== conditions ==
$(if [ "$WORKLOAD" = coll ]; then cat <<EOC
data            $COLL_KEYS hashes x $COLL_ELEMS fields (f:%014d 16 B, 32 B values) + $COLL_KEYS lists x $COLL_ELEMS elements (32 B)
                + $COLL_KEYS sorted sets x $COLL_ELEMS members (m:%014d 16 B, random scores): same data for every method
load            $CONNS connections, one command in flight each, closed loop: at random HSET of an existing field,
                RPUSH then LPOP, or ZADD of an existing member with a new score, to a random big key
EOC
else cat <<EOC
keys            $KEYS x $VALUE B random values (key:%012d, splitmix64 seed $SEED, same data for every method)
load            $CONNS connections of random SETs on existing keys, pipeline depth $PIPELINE, $( [ "$RATE" -gt 0 ] && echo "paced at $RATE SET/s in all (a connection catches up after a stall)" || echo "closed loop (as fast as the server answers)")
EOC
fi)
                + 1 connection PING every 2 ms (thread SCHED_FIFO on core 1: $(ping_fifo))
                + 1 connection BGSAVE at t=2 s then INFO persistence every 20 ms
sampling        every $SAMPLE_MS ms: Pss of server + children (/proc/PID/smaps_rollup), SETs done, worst PING
timeline        fill (pipelined), 1 s settle, load from t=0, BGSAVE at t=2 s, load until save done + 1 s
pinning         server (and its fork child / serializer thread) taskset -c 0, load generator taskset -c 1
runs            $RUNS per method, interleaved ($METHODS, repeated); figures are median [min-max] of runs
servers         verso: $($VERSO --version) (--snapshot-compression $COMPRESSION), copied from $VERSO_SRC; redis: $rv (defaults: rdbcompression yes)
machine         $(nproc) CPU x $cpu, $mem RAM, kernel $(uname -r), THP $thp
dump dir        $WORK ($fs)
other load      machine busy before each run (0.5 s, % of all CPUs): median $(median_of <"$WORK/busy.txt")%, max $(sort -g "$WORK/busy.txt" | tail -1)%;
                other processes' CPU during the load: see the per-method figure (should be ~0;
                WAIT_IDLE=s waits before each run for the machine to be < 10% busy)
date            $(date -u +%Y-%m-%dT%H:%MZ), total time $1 s
EOF
}

# med COLUMN METHOD: "median [min-max]" of a column of spike-runs.tsv.
med() {
    awk -F'\t' -v col="$1" -v m="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == m && $c != "-" { print $c }' "$OUT/$P-runs.tsv" | sort -g | awk '
        { v[NR] = $1 } END {
            if (NR == 0) { print "-"; exit }
            md = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%s [%s-%s]", fmt(md), fmt(v[1]), fmt(v[NR]) }
        function fmt(x) { return x >= 1000 || x <= -1000 ? sprintf("%.0f", x) : sprintf("%.3g", x) }'
}

# ratio COLUMN METHOD_A METHOD_B: per-run A/B, "median [min-max]".
ratio() {
    awk -F'\t' -v col="$1" -v a="$2" -v b="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == a { va[$2] = $c } $1 == b { vb[$2] = $c }
        END { for (r in va) if (r in vb && vb[r] > 0) print va[r] / vb[r] }' \
        "$OUT/$P-runs.tsv" | sort -g | awk '
        { v[NR] = $1 } END {
            if (NR == 0) { print "-"; exit }
            md = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.3f [%.3f-%.3f]", md, v[1], v[NR] }'
}

median_of() { awk '{ print $1 }' | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

col_median() {   # col_median COLUMN METHOD -> bare median
    awk -F'\t' -v col="$1" -v m="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == m && $c != "-" { print $c }' "$OUT/$P-runs.tsv" | median_of
}

col_max() {   # col_max COLUMN METHOD -> largest value
    awk -F'\t' -v col="$1" -v m="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == m && $c != "-" { print $c }' "$OUT/$P-runs.tsv" | sort -g | tail -1
}

ratio_median() { ratio "$@" | awk '{ print $1 }'; }

# verdict NAME VALUE OP LIMIT
verdict() {
    awk -v n="$1" -v v="$2" -v op="$3" -v l="$4" 'BEGIN {
        if (v == "-" || v == "") { printf "  %-42s %s\n", n, "n/a"; exit }
        ok = op == "<=" ? v + 0 <= l + 0 : v + 0 >= l + 0
        printf "  %-42s %-8.3g %s %-5s %s\n", n, v, op, l, ok ? "MET" : "MISSED" }'
}

FIGURES="growth_mb:memory growth during save (MB)
baseline_mb:Pss before save (MB)
save_s:save time, BGSAVE reply to done (s)
info_save_s:rdb_last_bgsave_time_sec
sets_before:SET/s in the 2 s before BGSAVE
sets_during:SET/s during the save
set_ratio:SET/s during / before
ping_worst_save_ms:worst PING during save (ms)
pings_save_over_2ms:PINGs over 2 ms during save (count)
pings_save:PINGs during save (count)
ping_worst_before_ms:worst PING before save, t=0.5-2 s (ms)
ping_worst_all_ms:worst PING whole load (ms)
bgsave_reply_ms:BGSAVE round trip (ms)
stall_usec:rdb_last_bgsave_start_stall_usec
fork_usec:latest_fork_usec
cow_mb:rdb_last_cow_size (MB)
peak_retained_mb:forkless_peak_retained_bytes (MB)
dump_bytes:dump.rdb size (bytes)
core0_before:core 0 (server) busy % before save
core0_during:core 0 (server) busy % during save
core1_before:core 1 (load generator) busy % before save
core1_during:core 1 (load generator) busy % during save
other_cpu_pct:other processes' CPU in the run (% of 2 cores)
fill_s:fill time (s, not a target)
write_p50_before_ms:write p50 before save, t=0.5-2 s (ms)
write_p99_before_ms:write p99 before save (ms)
write_max_before_ms:write max before save (ms)
write_p50_save_ms:write p50 during save (ms)
write_p99_save_ms:write p99 during save (ms)
write_max_save_ms:write max during save (ms)
writes_save:writes during save (count)"

summary() {
    local m line col name
    echo "== verso memory-spike comparison ($WORKLOAD workload): median [min-max] of $RUNS runs =="
    for m in $METHODS; do
        echo
        echo "-- $m$( [ "$m" = redis ] && echo " (redis-server, fork)" || echo " (verso --bgsave-method $m)")"
        while IFS= read -r line; do
            col=${line%%:*}; name=${line#*:}
            printf "  %-42s %s\n" "$name" "$(med "$col" "$m")"
        done <<<"$FIGURES"
    done
    echo
    echo "== ratios (per run, then median [min-max]) =="
    printf "  %-42s %s\n" "save time forkless / verso fork" "$(ratio save_s forkless fork)"
    printf "  %-42s %s\n" "save time forkless / redis-server" "$(ratio save_s forkless redis)"
    printf "  %-42s %s\n" "save time verso fork / redis-server" "$(ratio save_s fork redis)"
    printf "  %-42s %s\n" "memory growth redis / forkless" "$(ratio growth_mb redis forkless)"
    printf "  %-42s %s\n" "SET/s before: forkless / redis" "$(ratio sets_before forkless redis)"
    printf "  %-42s %s\n" "write p99 during save: forkless / redis" "$(ratio write_p99_save_ms forkless redis)"
    echo
    echo "== targets (forkless, medians) =="
    if [ "$WORKLOAD" = coll ]; then
        verdict "write p99 during save (ms)" "$(col_median write_p99_save_ms forkless)" "<=" 1
        verdict "write max during save (ms)" "$(col_median write_max_save_ms forkless)" "<=" 5
        verdict "memory growth / data set (%)" "$(awk -v g="$(col_median growth_mb forkless)" \
            -v b="$(col_median baseline_mb forkless)" 'BEGIN { print (b > 0 ? 100 * g / b : "-") }')" "<=" 1
        verdict "worst PING during save (ms)" "$(col_median ping_worst_save_ms forkless)" "<=" 2
        echo "  (worst single run: write max $(col_max write_max_save_ms forkless) ms," \
             "PING $(col_max ping_worst_save_ms forkless) ms, growth $(col_max growth_mb forkless) MB)"
        return
    fi
    verdict "memory growth (MB)" "$(col_median growth_mb forkless)" "<=" 4
    verdict "save time / verso fork" "$(ratio_median save_s forkless fork)" "<=" 1.0
    verdict "save time / redis-server" "$(ratio_median save_s forkless redis)" "<=" 1.0
    verdict "SET/s during / before" "$(col_median set_ratio forkless)" ">=" 0.9
    verdict "worst PING during save (ms)" "$(col_median ping_worst_save_ms forkless)" "<=" 2
    verdict "start stall (ms)" "$(col_median stall_usec forkless | awk '{ print $1 / 1000 }')" "<=" 0.5
    echo "  (worst single run: PING $(col_max ping_worst_save_ms forkless) ms," \
         "growth $(col_max growth_mb forkless) MB," \
         "stall $(col_max stall_usec forkless) us)"
}

# median_run METHOD: the run whose memory growth is the median one.
median_run() {
    awk -F'\t' -v m="$1" 'NR > 1 && $1 == m { print $10, $2 }' "$OUT/$P-runs.tsv" |
        sort -g | awk '{ r[NR] = $2 } END { print r[int((NR + 1) / 2)] }'
}

plots() {
    local m sel_m="" sel_r=""
    for m in $METHODS; do sel_m="$sel_m $m"; sel_r="$sel_r $(median_run "$m")"; done
    local cond="$KEYS keys x $VALUE B, $CONNS SET conns (pipeline $PIPELINE), server on core 0, $(nproc) vCPU"
    [ "$WORKLOAD" = coll ] &&
        cond="$COLL_KEYS hashes+lists+zsets x $COLL_ELEMS elements, $CONNS writer conns, server on core 0, $(nproc) vCPU"
    gnuplot -e "csv='$OUT/$P-samples.csv'; outdir='$OUT'; prefix='$P'; methods='$sel_m'; runs='$sel_r'; \
        cond='$cond'" \
        "$HERE/plot-spike.gp" || echo "spike.sh: gnuplot failed (figures above are still valid)" >&2
}

main() {
    check_tools
    mkdir -p "$OUT"
    WORK=$(mktemp -d "${SPIKE_TMP:-${TMPDIR:-/tmp}}/verso-spike.XXXXXX")
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    [ "$(stat -f -c %T "$WORK")" = tmpfs ] &&
        echo "spike.sh: warning: $WORK is tmpfs; dumps go to RAM (set SPIKE_TMP)" >&2
    build_spike
    # The build tree may be rebuilt while we run: use one copy for all runs.
    cp "$VERSO" "$WORK/verso-server" && VERSO_SRC=$VERSO && VERSO=$WORK/verso-server
    rm -f "$OUT/$P-samples.csv" "$OUT/$P-runs.tsv"
    local t0=$SECONDS r m
    for r in $(seq "$RUNS"); do
        for m in $METHODS; do
            echo "spike.sh: run $r/$RUNS $m ($((SECONDS - t0)) s so far)" >&2
            settle_machine
            one_run "$m" "$r"
        done
    done
    { summary; echo; conditions $((SECONDS - t0)); } | tee "$OUT/$P-summary.txt"
    plots
    echo "spike.sh: wrote $OUT/$P-{samples.csv,runs.tsv,summary.txt,memory.png,ping.png}" >&2
}

main "$@"
