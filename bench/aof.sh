#!/usr/bin/env bash
# aof.sh: the AOF comparison runs (`make bench-aof`), verso vs redis-server.
#
# Two parts, each RUNS times, interleaved (every server x config once per
# round, so drift hits all alike), each run in a fresh data directory that is
# deleted afterwards; servers on core 0 (`taskset -c 0`), load on core 1:
#
#   kvs   the group-commit "KVS setup": bench/kvs.c (4 threads x 50
#         connections, closed loop, SET:GET 1:10, 32-byte values, 100,001 keys
#         filled first, DURATION s) for configs
#           off     --appendonly no
#           always  --appendonly yes --appendfsync always, the real disk
#           shim    the same with the fsync-delay shim (LD_PRELOAD
#                   fsyncdelay.so, FSYNC_DELAY_US=3750 before each fsync)
#   wall  the "AOF wall": redis-benchmark -d 180000 -c 20 -r 1000 -t set
#         -n WALL_N_OFF (AOF off) / -n WALL_N_ON (--appendfsync everysec)
#
# It prints median [min-max] tables, per-run ratios (verso/redis, on/off), the
# targets of doc/benchmarks.md with MET/MISSED and the conditions, and writes
#   $OUT/aof-summary.txt   what is printed
#   $OUT/aof-kvs-runs.tsv, $OUT/aof-wall-runs.tsv   one line per run
#   $OUT/aof-raw.txt       raw generator output and INFO deltas per run
# and, for a full run (RUNS >= 3, DURATION >= 20, both parts), a dated section
# in doc/benchmarks.md (DOC=yes forces it, DOC=no prevents it).
#
# Variables: RUNS=3 DURATION=20 PARTS="kvs wall" SERVERS="verso redis"
#   CONFIGS="off always shim" FSYNC_DELAY_US=3750 WALL_N_OFF=300000
#   WALL_N_ON=50000 VERSO=path REDIS=path SHIM=path (fsyncdelay.so) OUT=dir
#   KVS=path (a built kvs; default: compiled from kvs.c)
#   AOF_TMP=dir (data dirs; a real disk, not tmpfs) WAIT_IDLE=0 DOC=auto
#   (DURATION in whole seconds)
# Quick check: RUNS=1 DURATION=3 WALL_N_OFF=20000 WALL_N_ON=10000 bench/aof.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
TOP=$(cd "$HERE/.." && pwd)
RUNS=${RUNS:-3}
DURATION=${DURATION:-20}
PARTS=${PARTS:-"kvs wall"}
SERVERS=${SERVERS:-"verso redis"}
CONFIGS=${CONFIGS:-"off always shim"}
FSYNC_DELAY_US=${FSYNC_DELAY_US:-3750}
WALL_N_OFF=${WALL_N_OFF:-300000}
WALL_N_ON=${WALL_N_ON:-50000}
WALL_VALUE=180000 WALL_CLIENTS=20 WALL_KEYS=1000
KVS_ARGS="-t 4 -c 50 -g 10 -v 32 -k 100001"
OUT=${OUT:-$HERE/out}
AOF_TMP=${AOF_TMP:-$OUT/tmp}
DOC=${DOC:-auto}
REDIS=${REDIS:-$(command -v redis-server || true)}
first_exec() { local f; for f in "$@"; do [ -x "$f" ] && { echo "$f"; return; }; done; }
VERSO=${VERSO:-$(first_exec "$TOP/build/src/verso-server" "$TOP/src/verso-server")}
SHIM=${SHIM:-$(first_exec "$TOP/build/bench/fsyncdelay.so" "$TOP/bench/fsyncdelay.so")}

die() { echo "aof.sh: $*" >&2; exit 1; }
warn() { echo "aof.sh: warning: $*" >&2; echo "warning: $*" >>"$WORK/warnings.txt"; }

check_tools() {
    [ -n "$VERSO" ] && [ -x "$VERSO" ] || die "no verso-server (build it, or set VERSO=path)"
    [ -n "$REDIS" ] && [ -x "$REDIS" ] || die "no redis-server (set REDIS=path)"
    [ -n "$SHIM" ] && [ -f "$SHIM" ] || die "no fsyncdelay.so (make, or set SHIM=path)"
    for t in taskset redis-cli redis-benchmark pkg-config ss; do
        command -v $t >/dev/null || die "$t not found"
    done
    [ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (server on core 0, load on core 1)"
    case $(stat -f -c %T "$AOF_TMP") in tmpfs|ramfs) warn "AOF_TMP=$AOF_TMP is $(stat -f -c %T "$AOF_TMP"), not a disk";; esac
}

# $KVS: the one `make` built (the make target passes it); else built here.
build_kvs() {
    if [ -n "${KVS:-}" ]; then
        cp "$KVS" "$WORK/kvs" || die "cannot copy KVS=$KVS"
        return
    fi
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra "$HERE/kvs.c" \
        $(pkg-config --cflags --libs hiredis) -lpthread -o "$WORK/kvs" ||
        die "cannot build kvs.c"
}

# free_port: a port no socket uses, below the ephemeral range (so that no
# client connection can take it between this check and the server's bind).
free_port() {
    local p lo
    lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "$lo" -gt 21000 ] || lo=61000
    while :; do
        p=$((20000 + RANDOM % (lo - 20000)))
        [ -z "$(ss -tanH "( sport = :$p )" 2>/dev/null)" ] && { echo $p; return; }
    done
}

# ---- servers ----

# start_server SERVER CONFIG DIR: starts it on a free port; sets PORT and
# SERVER_PID. Tries another port if the server exits at once (another
# process may have bound the port between free_port and the server's bind).
start_server() {
    local try
    for try in 1 2 3; do
        PORT=$(free_port)
        start_on_port "$@" "$PORT" && return 0
    done
    tail -5 "$3/server.log" >&2
    die "$1 ($2) did not start"
}

# start_on_port SERVER CONFIG DIR PORT: 0 once it answers PING.
start_on_port() {
    local s=$1 c=$2 d=$3 p=$4 bin aof pre=()
    case $s in verso) bin=$VERSO;; redis) bin=$REDIS;; *) die "unknown server $s";; esac
    case $c in
    off) aof=(--appendonly no);;
    always) aof=(--appendonly yes --appendfsync always);;
    shim) aof=(--appendonly yes --appendfsync always)
          pre=(env LD_PRELOAD="$SHIM" FSYNC_DELAY_US="$FSYNC_DELAY_US");;
    everysec) aof=(--appendonly yes --appendfsync everysec);;
    *) die "unknown config $c";;
    esac
    local extra=()
    [ "$s" = redis ] && extra=(--daemonize no --bind 127.0.0.1)
    "${pre[@]}" taskset -c 0 "$bin" --port "$p" --dir "$d" --save "" "${aof[@]}" \
        "${extra[@]}" >"$d/server.log" 2>&1 &
    SERVER_PID=$!
    local rc=0
    wait_ready "$p" || rc=$?
    [ $rc -eq 0 ] && return 0
    [ $rc -eq 1 ] && { wait "$SERVER_PID" 2>/dev/null; return 1; }
    die "$s ($c) did not answer PING on port $p in 10 s"
}

# aof_info PORT: "aof_fsyncs aof_parked_total aof_delayed_fsync aof_rewrites"
# ("-" where the server has no such field; redis has no fsync counter).
aof_info() {
    redis-cli -p "$1" info persistence 2>/dev/null | tr -d '\r' | awk -F: '
        { v[$1] = $2 }
        END { n = split("aof_fsyncs aof_parked_total aof_delayed_fsync aof_rewrites", k, " ")
              for (i = 1; i <= n; i++) printf "%s%s", (k[i] in v ? v[k[i]] : "-"), (i < n ? " " : "\n") }'
}

# delta BEFORE AFTER: field-wise after - before ("-" stays "-").
delta() {
    awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
        for (i = 1; i <= n; i++) printf "%s%s", (x[i] == "-" ? "-" : y[i] - x[i]), (i < n ? " " : "\n") }'
}

# ---- machine ----

# machine_busy SECONDS: % of all CPUs busy over that time.
machine_busy() {
    local a b
    a=($(head -1 /proc/stat)); sleep "$1"; b=($(head -1 /proc/stat))
    local ta=0 tb=0 i
    for i in 1 2 3 4 5 6 7 8; do ta=$((ta + a[i])); tb=$((tb + b[i])); done
    local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) tot=$((tb - ta))
    awk -v i=$idle -v t=$tot 'BEGIN { printf "%.0f", t ? 100 * (t - i) / t : 0 }'
}

# settle_machine: wait up to WAIT_IDLE s for < 10 % busy; sets BUSY.
settle_machine() {
    local t=$SECONDS
    BUSY=$(machine_busy 0.5)
    while [ "$BUSY" -ge 10 ] && [ $((SECONDS - t)) -lt "${WAIT_IDLE:-0}" ]; do
        BUSY=$(machine_busy 2)
    done
    echo "$BUSY" >>"$WORK/busy.txt"
    [ "$BUSY" -lt 10 ] || echo "aof.sh: warning: machine ${BUSY}% busy before this run" >&2
}

free_mb() { df -Pm "$AOF_TMP" | awk 'NR == 2 { print $4 }'; }

# ---- one KVS run ----

kvs_run() {
    local s=$1 c=$2 r=$3 d p before after res t0=$SECONDS
    d=$(mktemp -d "$AOF_TMP/kvs-$s-$c-$r.XXXX"); RUN_DIR=$d
    start_server "$s" "$c" "$d"
    p=$PORT
    settle_machine
    taskset -c 1 "$WORK/kvs" -p "$p" $KVS_ARGS -f >/dev/null ||
        { stop_server 30; die "kvs fill failed ($s $c run $r)"; }
    before=$(aof_info "$p")
    if ! res=$(taskset -c 1 "$WORK/kvs" -p "$p" $KVS_ARGS -n -d "$DURATION"); then
        echo "$res" >&2; tail -5 "$d/server.log" >&2; stop_server 30
        die "kvs load failed ($s $c run $r)"
    fi
    after=$(aof_info "$p")
    stop_server 30
    rm -rf "$d"
    local dl; dl=$(delta "$before" "$after")
    { echo "== kvs $s $c run $r (busy before ${BUSY}%)"; echo "$res"
      echo "INFO delta (fsyncs parked_total delayed_fsync rewrites): $dl"; } >>"$OUT/aof-raw.txt"
    echo "$res" | awk -v s=$s -v c=$c -v r=$r -v b=$BUSY -v dl="$dl" -v d="$DURATION" '
        /^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            split(dl, x, " ")
            fps = x[1] == "-" ? "-" : sprintf("%.0f", x[1] / d)
            printf "%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%s\n", s, c, r,
                v["ops_s"], v["set_p50_us"] / 1e3, v["set_p99_us"] / 1e3, v["get_p50_us"] / 1e3,
                v["get_p99_us"] / 1e3, v["set_max_us"] / 1e3, v["errors"], fps, x[2], x[3], b }
    ' >>"$OUT/aof-kvs-runs.tsv"
    printf "  kvs  %-5s %-6s run %d: %s (%ds)\n" "$s" "$c" "$r" \
        "$(tail -1 "$OUT/aof-kvs-runs.tsv" | awk -F'\t' '{ printf "%s ops/s, SET p50 %s ms, GET p50 %s ms", $4, $5, $7 }')" \
        $((SECONDS - t0))
}

# ---- one AOF-wall run ----

wall_run() {
    local s=$1 c=$2 r=$3 n d p before after res peak=0 sz t0=$SECONDS
    n=$([ "$c" = off ] && echo "$WALL_N_OFF" || echo "$WALL_N_ON")
    local need=$((n * WALL_VALUE / 1000000 * 11 / 10 + 2000))   # MB, no rewrite at all
    [ "$c" = off ] && need=2000
    [ "$(free_mb)" -ge "$need" ] || die "only $(free_mb) MB free in $AOF_TMP, want $need MB"
    d=$(mktemp -d "$AOF_TMP/wall-$s-$c-$r.XXXX"); RUN_DIR=$d
    start_server "$s" "$c" "$d"
    p=$PORT
    settle_machine
    before=$(aof_info "$p")
    taskset -c 1 redis-benchmark -p "$p" -d $WALL_VALUE -c $WALL_CLIENTS -r $WALL_KEYS \
        -t set -n "$n" --csv >"$WORK/wall.csv" 2>&1 &
    local bpid=$!
    while kill -0 $bpid 2>/dev/null; do     # peak size of the data dir
        sz=$(du -sm "$d" 2>/dev/null | awk '{ print $1 }'); [ "${sz:-0}" -gt "$peak" ] && peak=$sz
        sleep 1
    done
    wait $bpid || { cat "$WORK/wall.csv" >&2; stop_server 30; die "redis-benchmark failed ($s $c run $r)"; }
    after=$(aof_info "$p")
    stop_server 30
    rm -rf "$d"
    local dl; dl=$(delta "$before" "$after")
    { echo "== wall $s $c run $r -n $n (busy before ${BUSY}%, peak dir ${peak} MB)"
      cat "$WORK/wall.csv"
      echo "INFO delta (fsyncs parked_total delayed_fsync rewrites): $dl"; } >>"$OUT/aof-raw.txt"
    awk -F'","' -v s=$s -v c=$c -v r=$r -v n=$n -v b=$BUSY -v dl="$dl" -v pk=$peak '
        $1 == "\"SET" { gsub(/"/, "", $8); split(dl, x, " ")
            printf "%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\n", s, c, r, $2, $5,
                $7, $8, n, n / $2, x[3], x[4], pk, b, x[2], x[1] }' "$WORK/wall.csv" >>"$OUT/aof-wall-runs.tsv"
    tail -1 "$OUT/aof-wall-runs.tsv" | grep -q "^$s	$c	$r	" ||
        { cat "$WORK/wall.csv" >&2; die "no SET line from redis-benchmark ($s $c run $r)"; }
    printf "  wall %-5s %-8s run %d: %s (%ds)\n" "$s" "$c" "$r" \
        "$(tail -1 "$OUT/aof-wall-runs.tsv" | awk -F'\t' '{ printf "%s SET/s, p50 %s ms, p99 %s ms", $4, $5, $6 }')" \
        $((SECONDS - t0))
}

# ---- summary ----

# mstat FILE SERVER CONFIG COL [FMT]: "median [min–max]" of that column.
mstat() {
    awk -F'\t' -v s=$2 -v c=$3 -v k=$4 '$1 == s && $2 == c && $k != "-" { print $k }' "$1" | sort -g |
        awk -v f="${5:-%.2f}" '{ v[NR] = $1 } END {
            if (NR == 0) { print "-"; exit }
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            if (NR == 1) printf f "\n", m
            else printf f " [" f "–" f "]\n", m, v[1], v[NR] }'
}

# ratio FILE S1 C1 S2 C2 COL [COL2]: per-run ratio (S1,C1 run r)/(S2,C2 run r),
# or, with COL2, (S1,C1 COL)/(S1,C1 COL2): "median [min–max]" (the median is
# the first word).
ratio() {
    awk -F'\t' -v s1=$2 -v c1=$3 -v s2=$4 -v c2=$5 -v k=$6 -v k2="${7:-}" '
        k2 != "" && $1 == s1 && $2 == c1 && $k2 > 0 { print $k / $k2; next }
        k2 == "" && $1 == s1 && $2 == c1 { a[$3] = $k }
        k2 == "" && $1 == s2 && $2 == c2 { b[$3] = $k }
        END { for (r in a) if ((r in b) && b[r] > 0) print a[r] / b[r] }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            if (NR == 1) printf "%.2f\n", m
            else printf "%.2f [%.2f–%.2f]\n", m, v[1], v[NR] }'
}

# verdict VALUE OP LIMIT: MET / MISSED.
verdict() {
    [ "$1" = - ] && { echo "n/a"; return; }
    awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
        ok = (op == "<=") ? (v + 0 <= l + 0) : (v + 0 >= l + 0); print ok ? "MET" : "MISSED" }'
}

median_of() { mstat "$@" | awk '{ print $1 }'; }

kvs_summary() {
    local f=$OUT/aof-kvs-runs.tsv c s
    echo "### KVS setup: 4 threads x 50 conns, SET:GET 1:10, 32 B values, 100,001 keys, ${DURATION} s"
    echo
    echo "| config | server | ops/s | SET p50 ms | SET p99 ms | GET p50 ms | GET p99 ms | fsyncs/s | parked | bad replies |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for c in $CONFIGS; do for s in $SERVERS; do
        echo "| $(cfg_name $c) | $s | $(mstat $f $s $c 4 %.0f) | $(mstat $f $s $c 5) | $(mstat $f $s $c 6) |" \
             "$(mstat $f $s $c 7) | $(mstat $f $s $c 8) | $(mstat $f $s $c 11 %s) | $(mstat $f $s $c 12 %s) |" \
             "$(mstat $f $s $c 10 %s) |"
    done; done
    echo
    echo "(fsyncs/s and parked: verso's aof_fsyncs / duration and aof_parked_total during the load;"
    echo "redis has no such counters. p99 is not a usable figure: the generator's core saturates.)"
    echo
    echo "Per-run ratios, median [min–max]:"
    echo
    for c in $CONFIGS; do
        echo "- $(cfg_name $c): ops/s verso/redis $(ratio $f verso $c redis $c 4);" \
             "SET p50 verso/redis $(ratio $f verso $c redis $c 5); GET p50 verso/redis $(ratio $f verso $c redis $c 7)"
    done
    for c in $CONFIGS; do
        [ "$c" = off ] && continue
        for s in $SERVERS; do
            echo "- $s $(cfg_name $c) / AOF off: ops/s $(ratio $f $s $c $s off 4);" \
                 "GET p50 $(ratio $f $s $c $s off 7); GET p99 $(ratio $f $s $c $s off 8)"
        done
    done
    echo
    if [[ " $CONFIGS " == *" shim "* && " $SERVERS " == *" verso "* ]]; then
        local x
        echo "Targets (doc/benchmarks.md, \`always\` + ${FSYNC_DELAY_US} µs fsync shim):"
        echo
        x=$(ratio $f verso shim redis shim 4)
        echo "- ops/s verso ≥ 3x redis: $x → $(verdict "${x%% *}" '>=' 3)"
        x=$(median_of $f verso shim 5)
        echo "- verso SET p50 ≤ 6 ms: $x ms → $(verdict "$x" '<=' 6)  (issue: ≤ 10 ms → $(verdict "$x" '<=' 10));" \
             "in shim fsyncs (probe median $FSYNC_SHIM_MS ms): $(awk -v a="${x%% *}" -v b="$FSYNC_SHIM_MS" 'BEGIN { if (b > 0 && a != "-") printf "%.2f", a / b; else print "-" }') (≤ 1.5)"
        x=$(ratio $f verso shim verso off 7)
        echo "- verso GET p50 ≤ 1.5x verso AOF off: $x → $(verdict "${x%% *}" '<=' 1.5)"
        x=$(ratio $f verso shim verso off 8)
        echo "- (issue, superseded: GET p99 ≤ 1.5x AOF off: $x → $(verdict "${x%% *}" '<=' 1.5))"
        echo
    fi
}

wall_summary() {
    local f=$OUT/aof-wall-runs.tsv c s
    echo "### AOF wall: redis-benchmark -d $WALL_VALUE -c $WALL_CLIENTS -r $WALL_KEYS -t set" \
         "(-n $WALL_N_OFF off, $WALL_N_ON everysec)"
    echo
    echo "| config | server | SET/s | p50 ms | p99 ms | max ms | p99/p50 | secs | fsyncs | delayed fsyncs | parked | AOF rewrites | peak dir MB |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for c in off everysec; do for s in $SERVERS; do
        echo "| $(cfg_name $c) | $s | $(mstat $f $s $c 4 %.0f) | $(mstat $f $s $c 5) | $(mstat $f $s $c 6) |" \
             "$(mstat $f $s $c 7) | $(ratio $f $s $c x x 6 5) | $(mstat $f $s $c 9 %.1f) |" \
             "$(mstat $f $s $c 15 %s) | $(mstat $f $s $c 10 %s) | $(mstat $f $s $c 14 %s) |" \
             "$(mstat $f $s $c 11 %s) | $(mstat $f $s $c 12 %s) |"
    done; done
    echo
    echo "(fsyncs, delayed fsyncs, parked, rewrites: INFO persistence deltas over the run;"
    echo "fsyncs and parked are verso's only. peak dir: largest du of the data dir, 1 s samples.)"
    echo
    echo "Per-run ratios, median [min–max]:"
    echo
    for c in off everysec; do
        echo "- $(cfg_name $c): SET/s verso/redis $(ratio $f verso $c redis $c 4);" \
             "p99 verso/redis $(ratio $f verso $c redis $c 6)"
    done
    for s in $SERVERS; do
        echo "- $s everysec / off: SET/s $(ratio $f $s everysec $s off 4); p99 $(ratio $f $s everysec $s off 6)"
    done
    echo
    if [[ " $SERVERS " == *" verso "* && " $SERVERS " == *" redis "* ]]; then
        local x
        echo "Targets (doc/benchmarks.md, everysec):"
        echo
        x=$(ratio $f verso everysec redis everysec 4)
        echo "- verso SET/s ≥ redis SET/s: $x → $(verdict "${x%% *}" '>=' 1)"
        x=$(ratio $f verso everysec redis everysec 6)
        echo "- verso p99 ≤ 0.25x redis p99: $x → $(verdict "${x%% *}" '<=' 0.25)"
        x=$(ratio $f verso everysec x x 6 5)
        echo "- verso no stall, p99/p50 ≤ 3: $x → $(verdict "${x%% *}" '<=' 3)"
        x=$(ratio $f verso everysec verso off 6)
        echo "- (issue, not meetable at saturating load: p99 on/off ≤ 1.5x: verso $x → $(verdict "${x%% *}" '<=' 1.5))"
        echo
    fi
}

cfg_name() {
    case $1 in
    off) echo "AOF off";; always) echo "always, real disk";;
    shim) echo "always, ${FSYNC_DELAY_US} µs shim";; everysec) echo "everysec";; *) echo "$1";;
    esac
}

conditions() {
    echo "### Conditions"
    echo
    echo "- date $(date -u '+%Y-%m-%d %H:%M UTC'), verso commit $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$TOP" diff --quiet HEAD 2>/dev/null || echo ' (+ local changes)')"
    echo "- machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(free -g | awk '/Mem:/ { print $2 }') GB RAM, kernel $(uname -r)"
    echo "- disk: $(df -Ph "$AOF_TMP" | awk 'NR == 2 { print $1 ", " $4 " free of " $2 }') ($(stat -f -c %T "$AOF_TMP")), data dirs in $AOF_TMP"
    echo "- fsync probe (4 KiB append + fdatasync, 50x): real $FSYNC_REAL; with the shim $FSYNC_SHIM"
    echo "- servers: $("$VERSO" --version | head -1); $("$REDIS" --version | head -1)"
    echo "- redis-benchmark $(redis-benchmark --version | awk '{ print $2 }'), hiredis $(pkg-config --modversion hiredis)"
    echo "- pinning: server taskset -c 0 (its threads too), load generator taskset -c 1"
    echo "- runs: $RUNS per server x config, interleaved; KVS load $DURATION s after the fill; --save \"\""
    echo "- machine busy before runs (% of all CPUs over 0.5 s; the figures assume an idle machine):" \
         "$(sort -n "$WORK/busy.txt" 2>/dev/null | awk '{ v[NR] = $1; if ($1 >= 10) b++ }
            END { if (NR) printf "median %s%%, max %s%%, %d of %d runs started ≥ 10%% busy", v[int((NR + 1) / 2)], v[NR], b, NR; else print "-" }')"
    echo "- total time $(( (SECONDS - START) / 60 )) min $(( (SECONDS - START) % 60 )) s"
    [ -s "$WORK/warnings.txt" ] && { echo "- warnings:"; sort "$WORK/warnings.txt" | uniq -c | sed 's/^ */  - /'; }
    return 0
}

fsync_probe() {
    local v
    v=$("$WORK/kvs" -F "$AOF_TMP/fsync-probe.tmp") || die "fsync probe failed"
    FSYNC_REAL=$(echo "$v" | awk '{ split($2, a, "="); split($3, b, "=");
        printf "median %.2f ms, mean %.2f ms", a[2] / 1e3, b[2] / 1e3 }')
    v=$(LD_PRELOAD="$SHIM" FSYNC_DELAY_US="$FSYNC_DELAY_US" "$WORK/kvs" -F "$AOF_TMP/fsync-probe.tmp") ||
        die "fsync probe with the shim failed"
    FSYNC_SHIM=$(echo "$v" | awk '{ split($2, a, "="); split($3, b, "=");
        printf "median %.2f ms, mean %.2f ms", a[2] / 1e3, b[2] / 1e3 }')
    FSYNC_SHIM_MS=$(echo "$v" | awk '{ split($2, a, "="); printf "%.3f", a[2] / 1e3 }')
}

# write_doc SUMMARY: inserts a dated section before the marker in
# doc/benchmarks.md (or appends it, with a heading, when there is no marker).
write_doc() {
    local doc=$TOP/doc/benchmarks.md marker='<!-- bench-aof: new results go above this line -->'
    local sec="$WORK/doc-section.md"
    { echo "### Results $(date -u '+%Y-%m-%d') ($(hostname), \`make bench-aof\`)"; echo
      sed -e '1{/^## /d}' -e 's/^### /#### /' "$1" | sed '1{/^$/d}'; echo; } >"$sec"
    if [ -f "$doc" ] && grep -qF "$marker" "$doc"; then
        awk -v m="$marker" -v f="$sec" '$0 == m { while ((getline l < f) > 0) print l } { print }' \
            "$doc" >"$doc.tmp.$$" && mv "$doc.tmp.$$" "$doc"
    else
        { [ -f "$doc" ] || echo "# verso benchmarks"; echo; echo "## AOF (\`make bench-aof\`)"; echo
          cat "$sec"; echo "$marker"; } >>"$doc"
    fi
    echo "aof.sh: results added to $doc"
}

# On any exit: stop a server still running, delete its data dir and WORK.
cleanup() {
    [ -n "${SERVER_PID:-}" ] && kill -0 "$SERVER_PID" 2>/dev/null && stop_server 30
    [ -n "${RUN_DIR:-}" ] && rm -rf "$RUN_DIR"
    rm -rf "$WORK"
}

main() {
    START=$SECONDS
    mkdir -p "$OUT" "$AOF_TMP"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-aof.XXXXXX")
    trap cleanup EXIT
    check_tools
    build_kvs
    fsync_probe
    : >"$OUT/aof-raw.txt"
    local r c s
    if [[ " $PARTS " == *" kvs "* ]]; then
        : >"$OUT/aof-kvs-runs.tsv"
        echo "KVS setup, $RUNS x {$CONFIGS} x {$SERVERS}, $DURATION s each:"
        for r in $(seq "$RUNS"); do for c in $CONFIGS; do for s in $SERVERS; do
            kvs_run "$s" "$c" "$r"
        done; done; done
    fi
    if [[ " $PARTS " == *" wall "* ]]; then
        : >"$OUT/aof-wall-runs.tsv"
        echo "AOF wall, $RUNS x {off everysec} x {$SERVERS}:"
        for r in $(seq "$RUNS"); do for c in off everysec; do for s in $SERVERS; do
            wall_run "$s" "$c" "$r"
        done; done; done
    fi
    local sum="$OUT/aof-summary.txt"
    { echo "## AOF benchmarks: verso vs redis-server"; echo
      [[ " $PARTS " == *" kvs "* ]] && kvs_summary
      [[ " $PARTS " == *" wall "* ]] && wall_summary
      conditions; } >"$sum"
    echo; cat "$sum"
    local full=no
    [ "$RUNS" -ge 3 ] && [ "$DURATION" -ge 20 ] && [[ " $PARTS " == *" kvs "* && " $PARTS " == *" wall "* ]] && full=yes
    if [ "$DOC" = yes ] || { [ "$DOC" = auto ] && [ $full = yes ]; }; then
        write_doc "$sum"
    else
        echo "aof.sh: not a full run (or DOC=no): doc/benchmarks.md left alone"
    fi
}

main "$@"
