#!/usr/bin/env bash
# replication.sh: the full-sync comparison run (`make bench-replication`).
#
# One leg = one primary (verso --bgsave-method forkless, verso --bgsave-method
# fork, or redis-server) pinned to core 0 and one empty redis-server replica
# pinned to core 1 (with the load generator), each in a fresh directory with
# --save "" and repl-diskless-sync yes, delay 0. bench/spike.c (--replica-port)
# fills the primary, runs 8 writing connections and a PING every 2 ms, sends
# REPLICAOF to the replica at t = 2 s, samples the primary's Pss / RSS /
# replication buffers every SAMPLE_MS until the replica's
# master_link_status:up, keeps the load 1 s more, then checks that the replica
# caught up and holds the primary's data. Legs are interleaved (forkless fork
# redis forkless ...), RUNS times. A leg that fails (the primary does not serve
# the replica, no transfer within HANDSHAKE_S, no link within SYNC_TIMEOUT, or
# data that differs) is reported with the tail of both logs, its method's
# later runs are skipped, the others go on, and the script exits 1 at the end.
# Prints per method median [min-max], ratios to redis-server per run, targets,
# conditions, and writes:
#   $OUT/repl-samples.csv   every sample of every run (spike.c's CSV)
#   $OUT/repl-runs.tsv      one line of figures per run
#   $OUT/repl-summary.txt   what is printed
#   $OUT/repl-memory.png, $OUT/repl-ping.png   (median run of each method)
# (WORKLOAD=coll: $OUT/repl-coll-*.)
#
# Variables (environment): KEYS=1000000 VALUE=300 RUNS=3 CONNS=8 SEED=1
#   SAMPLE_MS=100 METHODS="forkless fork redis" WORKLOAD=set (coll: the
#   collections data set of bench/collections.sh: COLL_KEYS=20 hashes, lists
#   and sorted sets x COLL_ELEMS=500000 elements) SYNC_TIMEOUT=120 (600 with
#   coll; s from REPLICAOF to link up) HANDSHAKE_S=15 (s for the replica to
#   read the first payload byte)
#   OBUF_LIMIT= (e.g. "replica 0 0 0"; empty: each server's default, Redis's
#   256mb 64mb 60) REPLICA_LOAD=disabled (the replica's repl-diskless-load)
#   VERSO=path REDIS=path SPIKE=path OUT=dir REPL_TMP=dir (the servers' dirs;
#   the replica writes the received RDB there: a real disk, not tmpfs)
#   WAIT_IDLE=0 (s to wait before each leg for the machine to be < 10% busy).
#   TLS=0 (1: the replica syncs over TLS, tls-replication yes, from the
#   primary's tls-port with the certificates in TLS_DIR, made by bench/tls.sh;
#   the load stays on the plain port)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
KEYS=${KEYS:-1000000}
VALUE=${VALUE:-300}
RUNS=${RUNS:-3}
CONNS=${CONNS:-8}
SEED=${SEED:-1}
SAMPLE_MS=${SAMPLE_MS:-100}
# The primary's INFO memory (replication buffers) every OBUF_MS; 0: never.
# verso's INFO memory walks the allocator's free lists (mallinfo2): on the
# collections data set's fragmented heap that takes ~200 ms of the main
# thread, so WORKLOAD=coll polls it only at 0 unless asked.
if [ "${WORKLOAD:-set}" = coll ]; then OBUF_MS=${OBUF_MS:-0}; else OBUF_MS=${OBUF_MS:-$SAMPLE_MS}; fi
METHODS=${METHODS:-"forkless fork redis"}
WORKLOAD=${WORKLOAD:-set}
COLL_KEYS=${COLL_KEYS:-20}
COLL_ELEMS=${COLL_ELEMS:-500000}
SYNC_TIMEOUT=${SYNC_TIMEOUT:-$([ "${WORKLOAD:-set}" = coll ] && echo 600 || echo 120)}
HANDSHAKE_S=${HANDSHAKE_S:-15}
OBUF_LIMIT=${OBUF_LIMIT:-}
REPLICA_LOAD=${REPLICA_LOAD:-disabled}
P=$([ "$WORKLOAD" = coll ] && echo repl-coll || echo repl)   # output file prefix
OUT=${OUT:-$HERE/out}
REDIS=${REDIS:-$(command -v redis-server || true)}
if [ -z "${VERSO:-}" ]; then
    for v in "$HERE/../build/src/verso-server" "$HERE/../src/verso-server"; do
        [ -x "$v" ] && VERSO=$(cd "$(dirname "$v")" && pwd)/verso-server && break
    done
fi
TSV=$OUT/$P-runs.tsv

die() { echo "replication.sh: $*" >&2; exit 1; }
say() { echo "replication.sh: $*" >&2; }

PRIMARY_PID= REPLICA_PID=
stop_both() {
    [ -n "$PRIMARY_PID" ] && SERVER_PID=$PRIMARY_PID stop_server
    [ -n "$REPLICA_PID" ] && SERVER_PID=$REPLICA_PID stop_server
    PRIMARY_PID= REPLICA_PID=
}
cleanup() {   # on any exit: our servers (by pid) and the scratch dir
    stop_both
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
}

check_tools() {
    [ -x "$REDIS" ] || die "no redis-server (the replica of every leg; set REDIS=path)"
    case " $METHODS " in *" forkless "*|*" fork "*)
        [ -x "${VERSO:-}" ] || die "no verso-server (build it, or set VERSO=path)";; esac
    for t in taskset timeout redis-cli pkg-config ss; do
        command -v $t >/dev/null || die "$t not found"
    done
    [ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (primary on core 0, load and replica on core 1)"
}

build_spike() {   # $SPIKE: the one `make` built; else built here
    if [ -n "${SPIKE:-}" ]; then
        cp "$SPIKE" "$WORK/spike" || die "cannot copy SPIKE=$SPIKE"
        return
    fi
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra "$HERE/spike.c" \
        $(pkg-config --cflags --libs hiredis) -lpthread -o "$WORK/spike" ||
        die "cannot build spike.c"
}

# free_port [NOT]: a port other than NOT that no socket uses, below the
# ephemeral range (a connection's local port there makes bind fail).
free_port() {
    local p lo
    lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "$lo" -gt 11000 ] || lo=32768
    while :; do
        p=$((10000 + RANDOM % (lo - 10000)))
        [ "$p" != "${1:-}" ] || continue
        ss -tan 2>/dev/null | grep -q ":$p " || { echo $p; return; }
    done
}

# start_primary METHOD DIR PORT; start_replica DIR PORT: set *_PID, 0 if it
# answers PING.
TLS=${TLS:-0}
# tls_args PORT: a TLS server's arguments (none unless TLS=1).
tls_args() {
    [ "$TLS" = 1 ] || return 0
    echo --tls-port "$1" --tls-replication yes --tls-cert-file "$TLS_DIR/server.crt" \
        --tls-key-file "$TLS_DIR/server.key" --tls-ca-cert-file "$TLS_DIR/ca.crt"
}
start_primary() {
    local m=$1 d=$2 p=$3 repl=(--repl-diskless-sync yes --repl-diskless-sync-delay 0)
    [ "$TLS" = 1 ] && repl+=($(tls_args "$((p + 1))"))
    [ -n "$OBUF_LIMIT" ] && repl+=(--client-output-buffer-limit $OBUF_LIMIT)
    case $m in
    forkless|fork)
        taskset -c 0 "$VERSO" --port "$p" --dir "$d" --save "" --appendonly no \
            --bgsave-method "$m" "${repl[@]}" >"$d/server.log" 2>&1 &;;
    redis)
        taskset -c 0 "$REDIS" --port "$p" --dir "$d" --save "" --appendonly no \
            --daemonize no --bind 127.0.0.1 "${repl[@]}" >"$d/server.log" 2>&1 &;;
    *) die "unknown method $m";;
    esac
    PRIMARY_PID=$!
    SERVER_PID=$PRIMARY_PID wait_ready "$p"
}
start_replica() {
    taskset -c 1 "$REDIS" --port "$2" --dir "$1" --save "" --appendonly no \
        --daemonize no --bind 127.0.0.1 --repl-diskless-load "$REPLICA_LOAD" \
        $(tls_args "$(( $2 + 1 ))") \
        >"$1/server.log" 2>&1 &
    REPLICA_PID=$!
    SERVER_PID=$REPLICA_PID wait_ready "$2"
}

# leg_failed METHOD RUN DIR REASON: note it, show the logs' tails.
leg_failed() {
    printf '%s\t%s\t%s\n' "$1" "$2" "$4" >>"$WORK/failed.tsv"
    say "FAILED: $1 run $2: $4"
    local f
    for f in primary replica; do
        [ -f "$3/$f/server.log" ] || continue
        echo "---- $1 $f log (last 8 lines) ----" >&2
        tail -8 "$3/$f/server.log" >&2
    done
}

# one_leg METHOD RUN: 0 if it produced a line of figures with status ok.
one_leg() {
    local m=$1 r=$2 d="$WORK/$1-$2" pp rp rc=0
    mkdir -p "$d/primary" "$d/replica"
    local try ok=0   # other programs take ports too: 3 tries each
    for try in 1 2 3; do
        pp=$(free_port)
        start_primary "$m" "$d/primary" "$pp" && ok=1 && break
        SERVER_PID=$PRIMARY_PID stop_server; PRIMARY_PID=
    done
    [ $ok = 1 ] || { leg_failed "$m" "$r" "$d" "primary did not start (port $pp)"; stop_both; return 1; }
    ok=0
    for try in 1 2 3; do
        rp=$(free_port "$pp")
        start_replica "$d/replica" "$rp" && ok=1 && break
        SERVER_PID=$REPLICA_PID stop_server; REPLICA_PID=
    done
    [ $ok = 1 ] || { leg_failed "$m" "$r" "$d" "replica did not start (port $rp)"; stop_both; return 1; }
    local before=0
    [ -f "$TSV" ] && before=$(wc -l <"$TSV")
    # The per-leg bound: fill (~1 min per 1M keys here, generous) + sync + 60 s.
    local mil=$(( KEYS / 1000000 + 1 )) bound
    [ "$WORKLOAD" = coll ] && mil=$(( COLL_KEYS * COLL_ELEMS * 3 / 1000000 + 1 ))
    bound=$(( SYNC_TIMEOUT + 60 + 120 * mil ))
    timeout -k 5 "$bound" taskset -c 1 "$WORK/spike" --port "$pp" --pid "$PRIMARY_PID" \
        --replica-port "$rp" --log "$d/primary/server.log" \
        $([ "$TLS" = 1 ] && echo --master-port $((pp + 1))) \
        --max-save-s "$SYNC_TIMEOUT" --handshake-s "$HANDSHAKE_S" \
        --method "$m" --run "$r" --keys "$KEYS" --value "$VALUE" --conns "$CONNS" \
        --seed "$SEED" --sample-ms "$SAMPLE_MS" --obuf-ms "$OBUF_MS" --workload "$WORKLOAD" \
        --coll-keys "$COLL_KEYS" --coll-elems "$COLL_ELEMS" \
        --csv "$OUT/$P-samples.csv" --tsv "$TSV" 2>"$d/spike.err" || rc=$?
    cat "$d/spike.err" >&2
    if [ $rc -ne 0 ]; then
        local why
        why=$(grep -v '^spike: .* run .*: fill' "$d/spike.err" | head -1)
        [ $rc -eq 124 ] && why="no result in $bound s (killed)"
        leg_failed "$m" "$r" "$d" "${why:-spike exited $rc}"; stop_both; return 1
    fi
    local status
    status=$(awk -F'\t' -v n="$before" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i }
        NR > n && NR > 1 { s = $c } END { print s }' "$TSV")
    stop_both
    if [ "$status" != ok ]; then
        leg_failed "$m" "$r" "$d" "replica check after the sync: $status"; return 1
    fi
    rm -rf "$d"
}

# machine_busy SECONDS: % of all CPUs busy over that time.
machine_busy() {
    local a b
    a=($(head -1 /proc/stat)); sleep "$1"; b=($(head -1 /proc/stat))
    local ta=0 tb=0 i
    for i in 1 2 3 4 5 6 7 8; do ta=$((ta + a[i])); tb=$((tb + b[i])); done
    local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) tot=$((tb - ta))
    awk -v i=$idle -v t=$tot 'BEGIN { printf "%.0f", t ? 100 * (t - i) / t : 0 }'
}

settle_machine() {
    local b t=$SECONDS
    b=$(machine_busy 0.5)
    while [ "$b" -ge 10 ] && [ $((SECONDS - t)) -lt "${WAIT_IDLE:-0}" ]; do
        b=$(machine_busy 2)
    done
    echo "$b" >>"$WORK/busy.txt"
    [ "$b" -lt 10 ] || say "warning: machine ${b}% busy before this leg"
}

median_of() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

col() {   # col COLUMN METHOD: that column's values for the method's runs
    [ -f "$TSV" ] || return 0
    awk -F'\t' -v col="$1" -v m="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == m && c && $c != "-" { print $c }' "$TSV"
}

med() {   # med COLUMN METHOD: "median [min-max]"
    col "$1" "$2" | sort -g | awk '
        { v[NR] = $1 } END {
            if (NR == 0) { print "-"; exit }
            md = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%s [%s-%s]", fmt(md), fmt(v[1]), fmt(v[NR]) }
        function fmt(x) { return x >= 1000 || x <= -1000 ? sprintf("%.0f", x) : sprintf("%.3g", x) }'
}

ratio() {   # ratio COLUMN A B: per run A/B, "median [min-max]"
    [ -f "$TSV" ] || { echo -; return; }
    awk -F'\t' -v col="$1" -v a="$2" -v b="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == a && $c != "-" { va[$2] = $c } $1 == b && $c != "-" { vb[$2] = $c }
        END { for (r in va) if (r in vb && vb[r] > 0) print va[r] / vb[r] }' "$TSV" |
        sort -g | awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "-"; exit }
            md = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.3f [%.3f-%.3f]", md, v[1], v[NR] }'
}

verdict() {   # verdict NAME VALUE OP LIMIT
    awk -v n="$1" -v v="$2" -v op="$3" -v l="$4" 'BEGIN {
        if (v == "-" || v == "") { printf "  %-46s %s\n", n, "n/a"; exit }
        ok = op == "<=" ? v + 0 <= l + 0 : v + 0 >= l + 0
        printf "  %-46s %-8.3g %s %-5s %s\n", n, v, op, l, ok ? "MET" : "MISSED" }'
}

FIGURES="link_up_s:time REPLICAOF reply to link up (s)
growth_mb:Pss growth during sync (MB, server + children)
growth_net_mb:  same minus replication buffers (MB)
obuf_peak_mb:replication buffers, peak (MB)
rss_growth_mb:RSS growth of the server process (MB)
baseline_mb:Pss before the sync (MB)
cow_mb:rdb_last_cow_size (MB)
ping_worst_sync_ms:worst PING during sync (ms)
ping_p50_sync_ms:PING p50 during sync (ms)
ping_p99_sync_ms:PING p99 during sync (ms)
ping_p999_sync_ms:PING p99.9 during sync (ms)
pings_sync_over_1ms:PINGs over 1 ms during sync (count)
pings_sync:PINGs during sync (count)
ping_p99_before_ms:PING p99 before, t=0.5-2 s (ms)
ping_worst_before_ms:worst PING before (ms)
fork_usec:latest_fork_usec
stall_usec:rdb_last_bgsave_start_stall_usec
log_took_us:log \"start/fork took N us\"
replicaof_reply_ms:REPLICAOF round trip (ms)
sets_before:writes/s in the 2 s before REPLICAOF
sets_during:writes/s during the sync
set_ratio:writes/s during / before
write_p99_before_ms:write p99 before (ms)
write_p99_sync_ms:write p99 during sync (ms)
write_max_sync_ms:write max during sync (ms)
core0_during:core 0 (primary) busy % during sync
core1_during:core 1 (load + replica) busy % during sync
other_cpu_pct:other processes' CPU in the run (% of 2 cores)
catchup_s:replica caught up after the load (s)
fill_s:fill time (s, not a target)"

label() {
    case $1 in
    forkless) echo "verso --bgsave-method forkless";;
    fork) echo "verso --bgsave-method fork";;
    redis) echo "redis-server $("$REDIS" --version | sed 's/.*v=\([^ ]*\).*/\1/') (fork)";;
    esac
}

summary() {
    local m line c name
    echo "== full sync to a redis-server replica under load ($WORKLOAD data set): median [min-max] of $RUNS runs =="
    for m in $METHODS; do
        echo
        echo "-- $m: $(label "$m"), $(col link_up_s "$m" | wc -l) of $RUNS runs"
        [ -f "$WORK/failed.tsv" ] && awk -F'\t' -v m="$m" '$1 == m { print "  FAILED run " $2 ": " $3 }' "$WORK/failed.tsv"
        [ -n "$(col link_up_s "$m")" ] || continue
        while IFS= read -r line; do
            c=${line%%:*}; name=${line#*:}
            printf "  %-46s %s\n" "$name" "$(med "$c" "$m")"
        done <<<"$FIGURES"
    done
    echo
    echo "== ratios to redis-server (per run, then median [min-max]) =="
    for m in forkless fork; do
        case " $METHODS " in *" $m "*) ;; *) continue;; esac
        printf "  %-46s %s\n" "$m: time to link up / redis" "$(ratio link_up_s "$m" redis)"
        printf "  %-46s %s\n" "$m: Pss growth / redis" "$(ratio growth_mb "$m" redis)"
        printf "  %-46s %s\n" "$m: worst PING during sync / redis" "$(ratio ping_worst_sync_ms "$m" redis)"
        printf "  %-46s %s\n" "$m: PING p99 during sync / redis" "$(ratio ping_p99_sync_ms "$m" redis)"
        printf "  %-46s %s\n" "$m: writes/s during sync / redis" "$(ratio sets_during "$m" redis)"
    done
    echo
    echo "== targets (verso forkless, medians) =="
    verdict "Pss growth minus replication buffers (MB)" "$(col growth_net_mb forkless | median_of)" "<=" 4
    verdict "worst PING during sync (ms)" "$(col ping_worst_sync_ms forkless | median_of)" "<=" 1
    verdict "time to link up / redis-server" "$(ratio link_up_s forkless redis | awk '{ print $1 }')" "<=" 1.0
    [ -n "$(col ping_worst_sync_ms forkless)" ] &&
        echo "  (worst single run: PING $(col ping_worst_sync_ms forkless | sort -g | tail -1) ms," \
             "growth $(col growth_mb forkless | sort -g | tail -1) MB)"
    return 0
}

conditions() {
    local cpu mem thp fs
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '?')
    fs=$(stat -f -c %T "$WORK")
    cat <<EOF
== conditions ==
$(if [ "$WORKLOAD" = coll ]; then cat <<EOC
data            $COLL_KEYS hashes x $COLL_ELEMS fields (f:%014d, 32 B values) + $COLL_KEYS lists x $COLL_ELEMS (32 B)
                + $COLL_KEYS sorted sets x $COLL_ELEMS members (m:%014d, random scores)
load            $CONNS connections, one command in flight each, closed loop: HSET / RPUSH+LPOP / ZADD on random big keys
EOC
else cat <<EOC
data            $KEYS keys x $VALUE B random values (key:%012d, splitmix64 seed $SEED)
load            $CONNS connections of random SETs on existing keys, one in flight each, closed loop
EOC
fi)
                + 1 connection PING every 2 ms (SCHED_FIFO thread where permitted)
sync            at t=2 s REPLICAOF 127.0.0.1 <primary> to an empty redis-server replica$([ "$TLS" = 1 ] && echo ", over TLS (tls-replication yes, the primary's tls-port, ECDSA P-256 certificates)"); replica's INFO
                replication polled every 20 ms until master_link_status:up (= end of the sync window);
                primary's INFO memory every $SAMPLE_MS ms (mem_total_replication_buffers / mem_clients_slaves)
primary         repl-diskless-sync yes, repl-diskless-sync-delay 0, client-output-buffer-limit ${OBUF_LIMIT:-"(default)"}, --save ""
replica         redis-server, repl-diskless-load $REPLICA_LOAD, --save "", taskset -c 1
sampling        every $SAMPLE_MS ms: Pss of primary + children, RSS of the primary, replication buffers, writes, worst PING
timeline        fill (pipelined), 1 s settle, load from t=0, REPLICAOF at t=2 s, load until link up + 1 s,
                then: replica's offset = primary's, DBSIZE and sampled values equal
pinning         primary (and its fork child / serializer thread) taskset -c 0; load generator and replica taskset -c 1
runs            $RUNS per method, interleaved ($METHODS, repeated); figures are median [min-max] of runs
servers         verso: $([ -x "${VERSO:-}" ] && "$VERSO" --version | head -1 || echo none)${VERSO_SRC:+, copied from $VERSO_SRC}; redis: $("$REDIS" --version | sed 's/Redis server //')
machine         $(nproc) CPU x $cpu, $mem RAM, kernel $(uname -r), THP $thp
server dirs     $WORK ($fs)
other load      machine busy before each leg (0.5 s, % of all CPUs): median $(median_of <"$WORK/busy.txt")%, max $(sort -g "$WORK/busy.txt" | tail -1)%
date            $(date -u +%Y-%m-%dT%H:%MZ), total time $1 s
EOF
}

# plots: Pss and PING/writes over time, the median run (by Pss growth) of
# each method that has one (plot-spike.gp; skipped without gnuplot).
plots() {
    command -v gnuplot >/dev/null || { say "no gnuplot: no plots"; return 0; }
    local m r sel_m="" sel_r=""
    for m in $METHODS; do
        r=$(awk -F'\t' -v m="$m" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "growth_mb") c = i; next }
            $1 == m { print $c, $2 }' "$TSV" | sort -g | awk '{ r[NR] = $2 } END { if (NR) print r[int((NR + 1) / 2)] }')
        [ -n "$r" ] && sel_m="$sel_m $m" && sel_r="$sel_r $r"
    done
    [ -n "$sel_m" ] || return 0
    local cond="$KEYS keys x $VALUE B, $CONNS writers, primary on core 0, replica + load on core 1, $(nproc) vCPU"
    [ "$WORKLOAD" = coll ] &&
        cond="$COLL_KEYS hashes+lists+zsets x $COLL_ELEMS elements, $CONNS writers, primary on core 0, $(nproc) vCPU"
    gnuplot -e "csv='$OUT/$P-samples.csv'; outdir='$OUT'; prefix='$P'; methods='$sel_m'; runs='$sel_r'; \
        cond='$cond'; event='REPLICAOF'; target=1" "$HERE/plot-spike.gp" ||
        say "gnuplot failed (the figures above are still valid)"
}

main() {
    check_tools
    mkdir -p "$OUT"
    WORK=$(mktemp -d "${REPL_TMP:-${TMPDIR:-/tmp}}/verso-repl.XXXXXX")
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    [ "$(stat -f -c %T "$WORK")" = tmpfs ] &&
        say "warning: $WORK is tmpfs; the replica's RDB goes to RAM (set REPL_TMP)"
    build_spike
    if [ -x "${VERSO:-}" ]; then   # one copy for all runs: the tree may be rebuilt meanwhile
        cp "$VERSO" "$WORK/verso-server" && VERSO_SRC=$VERSO && VERSO=$WORK/verso-server
    fi
    rm -f "$OUT/$P-samples.csv" "$TSV"
    : >"$WORK/busy.txt"
    local t0=$SECONDS r m failed=" "
    for r in $(seq "$RUNS"); do
        for m in $METHODS; do
            case $failed in *" $m "*) say "skip $m run $r (failed before)"; continue;; esac
            say "run $r/$RUNS $m ($((SECONDS - t0)) s so far)"
            settle_machine
            one_leg "$m" "$r" || failed="$failed$m "
        done
    done
    { summary; echo; conditions $((SECONDS - t0)); } | tee "$OUT/$P-summary.txt"
    [ -f "$TSV" ] && plots
    say "wrote $OUT/$P-{samples.csv,runs.tsv,summary.txt,memory.png,ping.png}"
    [ "$failed" = " " ] || die "failed legs:$failed(see FAILED above)"
}

main "$@"
