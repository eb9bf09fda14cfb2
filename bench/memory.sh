#!/usr/bin/env bash
# memory.sh: `make bench-memory`, memory per key of verso and redis-server
# 7.0 side by side in one run, for several value sizes.
#
# For each value size in VALUES (bytes), RUNS times, the servers interleaved
# (verso redis verso redis ...), each in a fresh directory with --save ""
# and --appendonly no, pinned to core 0 (the filler on core 1):
#   1. start the server; read its Pss (/proc/PID/smaps_rollup) and INFO
#      used_memory: the empty server;
#   2. fill KEYS keys `key:%012d` (BIG_KEYS for values of 4 KB and more)
#      with random bytes (bench/spike --fill-only 1, the spike data set);
#   3. 1 s later: Pss, used_memory and MEMORY STATS (the table's
#      overhead.hashtable.main, allocator.allocated / .active / .resident);
#   4. BGSAVE (verso: its default, forkless; redis: fork) and wait for it to
#      end: Pss again (what the save left behind: buffers, fragmentation);
#   5. DEL the first half of the keys (filled first, so mostly whole pages),
#      MEMORY PURGE, 1 s later: Pss and used_memory (how much of the freed
#      half each allocator gives back to the kernel).
# Per key (growth from the empty server / keys):
#   Pss/key     Pss growth: what the machine spends
#   used/key    used_memory growth (allocator's bytes in use, + verso's slabs)
#   table       MEMORY STATS db.0 overhead.hashtable.main: verso's table
#               (segments, entries); redis's dict (buckets, dictEntry and
#               the value's robj, by sizeof)
#   data        used/key - table: the key and value allocations (key + value
#               payload is 16 + VALUE bytes) and the rest
#   frag        allocator.active - allocator.allocated: bytes in the
#               allocator's pages that no allocation holds (glibc: 0, not
#               told without a heap walk)
#   rss+        Pss/key - used/key: resident beyond what is allocated
# Prints median [min-max] of RUNS per figure and verso/redis ratios, then
# "target memory per key <= 0.9x redis (300 B): MET/MISSED" (Pss of the
# process holding KEYS x 300 B, verso / redis). Everything printed is also in
# $OUT/memory-summary.txt, the raw figures in $OUT/memory-runs.tsv.
#
# Variables (environment): KEYS=1000000 BIG_KEYS=250000 VALUES="16 300 4096"
#   RUNS=3 SEED=1 VERSO=path REDIS=path SPIKE=path OUT=dir
#   VERSO_ALT=path (optional: a second verso build, e.g. configured
#   --with-jemalloc, measured as a third server "verso-alt").
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
KEYS=${KEYS:-1000000}
BIG_KEYS=${BIG_KEYS:-250000}
VALUES=${VALUES:-"16 300 4096"}
RUNS=${RUNS:-3}
SEED=${SEED:-1}
OUT=${OUT:-$HERE/out}
REDIS=${REDIS:-$(command -v redis-server || true)}
VERSO=${VERSO:-$HERE/../build/src/verso-server}
SPIKE=${SPIKE:-$HERE/../build/bench/spike}
VERSO_ALT=${VERSO_ALT:-}
SERVERS="verso redis"
[ -n "$VERSO_ALT" ] && SERVERS="verso verso-alt redis"

die() { echo "memory.sh: $*" >&2; exit 1; }

SERVER_PID=
cleanup() {   # on any exit: our server (by its pid) and the scratch dir
    [ -n "$SERVER_PID" ] && stop_server 60
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
}

check_tools() {
    [ -x "$VERSO" ] || die "no verso-server at $VERSO (build it, or set VERSO=path)"
    [ -x "$REDIS" ] || die "no redis-server (set REDIS=path)"
    [ -x "$SPIKE" ] || die "no spike at $SPIKE (make -C build, or set SPIKE=path)"
    [ -z "$VERSO_ALT" ] || [ -x "$VERSO_ALT" ] || die "VERSO_ALT=$VERSO_ALT: not executable"
    for t in taskset redis-cli; do command -v $t >/dev/null || die "$t not found"; done
    [ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (server on core 0, filler on core 1)"
}

binary() {
    case $1 in verso) echo "$VERSO" ;; verso-alt) echo "$VERSO_ALT" ;; *) echo "$REDIS" ;; esac
}

pss() { awk '/^Pss:/ { print $2 * 1024 }' "/proc/$SERVER_PID/smaps_rollup"; }

# info_field PORT SECTION NAME
info_field() { redis-cli -p "$1" INFO "$2" | tr -d '\r' | awk -F: -v k="$3" '$1 == k { print $2 }'; }

# stats_field FILE NAME: the value after NAME in redis-cli's MEMORY STATS lines.
stats_field() { awk -v k="$2" 'f { print; exit } $0 == k { f = 1 }' "$1"; }

# del_half N: the RESP of DEL of the first N/2 keys, for --pipe.
del_half() {
    [ -f "$WORK/del-$1" ] || awk -v n="$1" 'BEGIN {
        for (i = 0; i < n / 2; i++) printf "*2\r\n$3\r\nDEL\r\n$16\r\nkey:%012d\r\n", i }' \
        >"$WORK/del-$1"
    echo "$WORK/del-$1"
}

# one WHO VALUE RUN: one server through steps 1-5; one line to the runs file.
one() {
    local who=$1 v=$2 r=$3 n=$KEYS p d st
    [ "$v" -ge 4096 ] && n=$BIG_KEYS
    p=$(free_port); d=$WORK/$who-$v-$r
    mkdir -p "$d"
    taskset -c 0 "$(binary "$who")" --port "$p" --dir "$d" --save "" --appendonly no \
        --dbfilename dump.rdb >"$d/server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready "$p" || die "$who did not start (see $d/server.log)"
    local pss0 used0 pss1 used1 pss_save pss_del used_del
    pss0=$(pss); used0=$(info_field "$p" memory used_memory)
    taskset -c 1 "$SPIKE" --port "$p" --pid "$SERVER_PID" --method "$who" --run "$r" \
        --csv "$d/spike.csv" --tsv "$d/spike.tsv" --keys "$n" --value "$v" --seed "$SEED" \
        --fill-only 1 2>/dev/null || die "$who: fill failed"
    sleep 1
    pss1=$(pss); used1=$(info_field "$p" memory used_memory)
    st=$d/stats; redis-cli -p "$p" MEMORY STATS >"$st"
    [ "$(stats_field "$st" keys.count)" = "$n" ] || die "$who: keys.count is not $n"
    redis-cli -p "$p" BGSAVE >/dev/null
    until [ "$(info_field "$p" persistence rdb_bgsave_in_progress)" = 0 ]; do sleep 0.05; done
    [ "$(info_field "$p" persistence rdb_last_bgsave_status)" = ok ] || die "$who: BGSAVE failed"
    sleep 0.5
    pss_save=$(pss)
    rm -f "$d/dump.rdb"
    taskset -c 1 redis-cli -p "$p" --pipe <"$(del_half "$n")" >/dev/null
    redis-cli -p "$p" MEMORY PURGE >/dev/null
    sleep 1
    pss_del=$(pss); used_del=$(info_field "$p" memory used_memory)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$who" "$r" "$n" \
        "$pss0" "$used0" "$pss1" "$used1" "$(stats_field "$st" overhead.hashtable.main)" \
        "$(stats_field "$st" allocator.allocated)" "$(stats_field "$st" allocator.active)" \
        "$(stats_field "$st" allocator.resident)" "$pss_save" "$pss_del" "$used_del" >>"$RUNSF"
    stop_server 60; rm -rf "$d"
}

# stat3 VALUE WHO AWK-EXPR: "median min max" of an expression over the runs'
# columns ($4 keys, $5 pss0, $6 used0, $7 pss1, $8 used1, $9 table, $10
# allocated, $11 active, $12 resident, $13 pss after save, $14 pss after
# deletes, $15 used after deletes).
stat3() {
    awk -F'\t' -v val="$1" -v who="$2" "\$1 == val && \$2 == who { print $3 }" "$RUNSF" |
        sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}

summary() {
    local v who
    echo "== memory per key: KEYS keys key:%012d x VALUE random bytes, median [min-max] of $RUNS =="
    echo "(per key = growth from the empty server / keys; see bench/memory.sh for each column)"
    for v in $VALUES; do
        local n=$KEYS
        [ "$v" -ge 4096 ] && n=$BIG_KEYS
        echo
        echo "-- $n keys x $v B (payload $((16 + v)) B per key) --"
        printf '%-11s %22s %22s %22s %8s %8s %8s %8s %10s %12s\n' server "Pss MB" "Pss/key B" \
            "used/key B" table data frag rss+ "save Pss" "del+purge"
        for who in $SERVERS; do
            local m lo hi pk pkl pkh uk ukl ukh
            read -r m lo hi < <(stat3 "$v" "$who" '$7 / 1048576')
            read -r pk pkl pkh < <(stat3 "$v" "$who" '($7 - $5) / $4')
            read -r uk ukl ukh < <(stat3 "$v" "$who" '($8 - $6) / $4')
            local tb da fr rp sv dl
            read -r tb _ _ < <(stat3 "$v" "$who" '$9 / $4')
            read -r da _ _ < <(stat3 "$v" "$who" '($8 - $6) / $4 - $9 / $4')
            read -r fr _ _ < <(stat3 "$v" "$who" '($11 - $10) / $4')
            read -r rp _ _ < <(stat3 "$v" "$who" '(($7 - $5) - ($8 - $6)) / $4')
            read -r sv _ _ < <(stat3 "$v" "$who" '$13 / $7')
            read -r dl _ _ < <(stat3 "$v" "$who" '($14 - $5) / ($7 - $5)')
            awk -v w="$who" -v m="$m" -v lo="$lo" -v hi="$hi" -v pk="$pk" -v pkl="$pkl" \
                -v pkh="$pkh" -v uk="$uk" -v ukl="$ukl" -v ukh="$ukh" -v tb="$tb" -v da="$da" \
                -v fr="$fr" -v rp="$rp" -v sv="$sv" -v dl="$dl" 'BEGIN {
                printf "%-11s %6.0f [%6.0f-%6.0f] %6.0f [%6.0f-%6.0f] %6.0f [%6.0f-%6.0f] %8.1f %8.1f %8.1f %8.1f %9.3fx %11.2fx\n",
                    w, m, lo, hi, pk, pkl, pkh, uk, ukl, ukh, tb, da, fr, rp, sv, dl }'
        done
        for who in $SERVERS; do
            [ "$who" = redis ] && continue
            local a b c d2
            read -r a _ _ < <(stat3 "$v" "$who" '$7'); read -r b _ _ < <(stat3 "$v" redis '$7')
            read -r c _ _ < <(stat3 "$v" "$who" '($8 - $6) / $4')
            read -r d2 _ _ < <(stat3 "$v" redis '($8 - $6) / $4')
            awk -v w="$who" -v a="$a" -v b="$b" -v c="$c" -v d="$d2" 'BEGIN {
                printf "%s / redis: Pss %.2fx, used/key %.2fx\n", w, a / b, c / d }'
        done
    done
    echo
    cat <<'EOF'
columns: Pss MB = the process's Pss holding the keys; table = MEMORY STATS overhead.hashtable.main
/ keys; data = used/key - table (key and value allocations); frag = allocator.active -
allocator.allocated per key; rss+ = Pss/key - used/key; save Pss = Pss after a BGSAVE / before it;
del+purge = Pss growth left after DEL of the first half of the keys + MEMORY PURGE / Pss growth before
(0.50x would give back all of the freed half).
EOF
    local a b
    if [[ " $VALUES " == *" 300 "* ]]; then
        read -r a _ _ < <(stat3 300 verso '$7'); read -r b _ _ < <(stat3 300 redis '$7')
        awk -v a="$a" -v b="$b" 'BEGIN { r = a / b
            printf "target memory per key <= 0.9x redis (300 B): %s (verso Pss %.0f MB / redis %.0f MB = %.2fx)\n",
                r <= 0.9 ? "MET" : "MISSED", a / 1048576, b / 1048576, r }'
    else
        echo "target memory per key <= 0.9x redis (300 B): not measured (300 not in VALUES)"
    fi
}

malloc_of() { ldd "$1" | grep -q jemalloc && echo jemalloc || echo glibc malloc; }

conditions() {
    local cpu mem alt_line=""
    [ -z "$VERSO_ALT" ] ||
        alt_line=$'\n'"                verso-alt: $VERSO_ALT ($(malloc_of "$VERSO_ALT"))"
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    cat <<EOF
== conditions ==
data            $KEYS keys (values >= 4096 B: $BIG_KEYS) key:%012d x VALUES ($VALUES) B of
                splitmix64 bytes, seed $SEED (bench/spike --fill-only 1, pipelined 1000 deep)
method          per value size and run, servers interleaved ($SERVERS), each fresh:
                fill, 1 s, measure; BGSAVE, measure; DEL the first half, MEMORY PURGE,
                1 s, measure. Pss from /proc/PID/smaps_rollup (not affected by other load)
pinning         server taskset -c 0, filler taskset -c 1
servers         verso: $("$VERSO" --version | head -1) ($(malloc_of "$VERSO"))$alt_line
                redis: $("$REDIS" --version | sed 's/Redis server //')
machine         $(nproc) CPU x $cpu, $mem RAM, kernel $(uname -r),
                THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '?')
date            $(date -u +%Y-%m-%dT%H:%MZ), total time $1 s, load average before: $LOAD0
EOF
}

main() {
    check_tools
    mkdir -p "$OUT"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/verso-memory.XXXXXX")
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    RUNSF=$OUT/memory-runs.tsv
    printf 'value\tserver\trun\tkeys\tpss0\tused0\tpss1\tused1\ttable\tallocated\tactive\tresident\tpss_save\tpss_del\tused_del\n' >"$RUNSF"
    LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
    local t0=$SECONDS v r who
    for v in $VALUES; do
        for r in $(seq "$RUNS"); do
            for who in $SERVERS; do
                echo "memory.sh: $v B, run $r, $who ($((SECONDS - t0)) s so far)" >&2
                one "$who" "$v" "$r"
            done
        done
    done
    { summary; echo; conditions $((SECONDS - t0)); } | tee "$OUT/memory-summary.txt"
}

main "$@"
