#!/usr/bin/env bash
# bench/cluster.sh: `make bench-cluster`: resharding a third of the slots of
# a 3-primary cluster while 8 writer connections go through a cluster
# client (bench/clusterload), three ways in one run, interleaved:
#   verso-asm  verso's atomic slot migration without fork (CLUSTER
#              MIGRATESLOTS, polled with CLUSTER GETSLOTMIGRATIONS)
#   verso      verso, legacy: `redis-cli --cluster reshard`
#   redis      redis-server 7.0, legacy: `redis-cli --cluster reshard`
#
#   leg "keys":   KEYS keys of VALUE bytes; the reshard moves 5461 slots
#                 (all of node 1's) to node 2;
#   leg "bigkey": the same, plus one sorted set of ZMEMBERS members in slot
#                 1584 ({3}z), which the reshard moves: how long do the
#                 source's other clients stall (PING every 2 ms to node 1);
#   leg "oneslot": the same data as "keys", one slot (0) moves: the cost of
#                 a small move on a big node (the snapshot of one slot
#                 walks only the segments that hold it).
#
# Figures per run: reshard time, client errors (MOVED/ASK are redirects a
# client follows; errors are replies it could not), write p50/p99/max, the
# worst PING to the source, RSS growth of source and target. Servers on
# core 0, the client and redis-cli on core 1.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
VERSO=${VERSO:?path of verso-server}
REDIS=${REDIS:-/usr/bin/redis-server}
LOAD=${CLUSTERLOAD:?path of bench/clusterload}
KEYS=${KEYS:-1000000}
VALUE=${VALUE:-300}
ZMEMBERS=${ZMEMBERS:-2000000}
RUNS=${RUNS:-3}
LEGS=${LEGS:-"keys bigkey"}
KINDS=${KINDS:-"verso-asm verso redis"}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
TSV="$OUT/cluster.tsv"
WORK=$(mktemp -d /tmp/bench-cluster.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    [ -n "${KEEP:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

echo "== bench-cluster: $(date -u +%FT%TZ) $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "   KEYS=$KEYS VALUE=$VALUE ZMEMBERS=$ZMEMBERS RUNS=$RUNS LEGS='$LEGS'; servers on core 0, client on core 1"
echo "   busy before: $(top -bn2 -d0.5 | awk '/^%Cpu/ {b = 100 - $8} END {print b "%"}')"

# start_cluster KIND: three primaries (0-5460, 5461-10922, 10923-16383) on
# fresh ports and directories; sets P1 P2 P3 and PIDS.
start_cluster() {
    local bin=$VERSO
    [ "$1" = redis ] && bin=$REDIS
    local ports=() p
    PIDS=()
    for i in 1 2 3; do
        # client and bus ports below the ephemeral range (32768-), so that no
        # outgoing connection holds the port a node is about to listen on
        while :; do
            p=$((20000 + RANDOM % 2700))
            ! ss -ltn | grep -qE ":($p|$((p + 10000))) " && break
        done
        ports+=("$p")
        mkdir -p "$WORK/$p"
        (cd "$WORK/$p" && exec taskset -c 0 "$bin" --port "$p" --cluster-enabled yes \
            --cluster-config-file nodes.conf --cluster-node-timeout 5000 --save "" \
            --appendonly no --dir "$WORK/$p" >"$WORK/$p/log" 2>&1) &
        PIDS+=($!)
    done
    P1=${ports[0]} P2=${ports[1]} P3=${ports[2]}
    for p in "${ports[@]}"; do
        for _ in $(seq 100); do redis-cli -p "$p" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
    done
    taskset -c 1 redis-cli --cluster create "127.0.0.1:$P1" "127.0.0.1:$P2" "127.0.0.1:$P3" \
        --cluster-yes >"$WORK/create.log" 2>&1 || { echo "cluster create failed:"; tail -5 "$WORK/create.log"; return 1; }
    for _ in $(seq 100); do
        local ok=1
        for p in "${ports[@]}"; do
            redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' || ok=0
        done
        [ $ok = 1 ] && return 0
        sleep 0.1
    done
    echo "cluster of $1 did not come up" >&2
    return 1
}

stop_cluster() {
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    PIDS=()
    rm -rf "${WORK:?}"/[0-9]*
}

# job_field NAME: the newest slot migration's field on node 1.
job_field() {
    redis-cli -p "$P1" cluster getslotmigrations | awk -v f="$1" 'p {print; exit} $0 == f {p = 1}'
}

# migrate_slots TARGET-ID LAST: node 1's slots 0-LAST to the target with
# CLUSTER MIGRATESLOTS, waiting for the job to end; 0 on success.
migrate_slots() {
    redis-cli -p "$P1" cluster migrateslots slotsrange 0 "$2" node "$1" >"$WORK/reshard.log" 2>&1
    grep -q '^OK' "$WORK/reshard.log" || return 1
    local st
    while :; do
        st=$(job_field state)
        case "$st" in
        success) return 0 ;;
        failed | cancelled) echo "$st: $(job_field message)" >>"$WORK/reshard.log"; return 1 ;;
        esac
        sleep 0.01
    done
}

run_leg() { # KIND LEG RUN
    local kind=$1 leg=$2 run=$3
    start_cluster "${kind%-asm}"
    taskset -c 1 "$LOAD" --port "$P1" --mode fill --keys "$KEYS" --value "$VALUE" >/dev/null
    if [ "$leg" = bigkey ]; then
        taskset -c 1 "$LOAD" --port "$P1" --mode zset --key '{3}z' --members "$ZMEMBERS" >/dev/null
    fi
    local id1 id2 rss1 rss2
    id1=$(redis-cli -p "$P1" cluster myid)
    id2=$(redis-cli -p "$P2" cluster myid)
    rm -f "$WORK/stop"
    taskset -c 1 "$LOAD" --port "$P1" --mode load --keys "$KEYS" --value "$VALUE" --conns 8 \
        --stop "$WORK/stop" --ping-port "$P1" --pids "${PIDS[0]},${PIDS[1]}" >"$WORK/load.out" 2>"$WORK/load.err" &
    local lpid=$!
    sleep 2
    local t0 t1 extra="" nslots=5461
    [ "$leg" = oneslot ] && nslots=1
    t0=$(date +%s.%N)
    if [ "$kind" = verso-asm ]; then
        migrate_slots "$id2" $((nslots - 1)) || echo "migration failed ($kind $leg): $(cat "$WORK/reshard.log")"
        extra=$'\t'"pause_us=$(job_field write_pause_us)"
    else
        taskset -c 1 redis-cli --cluster reshard "127.0.0.1:$P1" --cluster-from "$id1" --cluster-to "$id2" \
            --cluster-slots "$nslots" --cluster-yes --cluster-pipeline 100 --cluster-timeout 60000 \
            >"$WORK/reshard.log" 2>&1 || { echo "reshard failed ($kind $leg):"; tail -5 "$WORK/reshard.log"; }
    fi
    t1=$(date +%s.%N)
    sleep 1
    touch "$WORK/stop"
    wait "$lpid" || true
    local moved_keys
    moved_keys=$(redis-cli -p "$P2" dbsize)
    printf '%s\t%s\t%s\treshard_s=%.2f\t%s\ttarget_keys=%s%s\n' "$kind" "$leg" "$run" \
        "$(echo "$t1 - $t0" | bc)" "$(tr ' ' '\t' <"$WORK/load.out")" "$moved_keys" "$extra" | tee -a "$TSV"
    [ -s "$WORK/load.err" ] && sed 's/^/   /' "$WORK/load.err"
    stop_cluster
}

: >"$TSV"
for leg in $LEGS; do
    for run in $(seq "$RUNS"); do
        for kind in $KINDS; do run_leg "$kind" "$leg" "$run"; done
    done
done

# Summary: median per kind and leg, and verso/redis.
python3 - "$TSV" <<'EOF'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    rows.setdefault((f[1], f[0]), []).append(kv)
def med(leg, kind, k):
    v = [float(r[k]) for r in rows.get((leg, kind), []) if k in r]
    return st.median(v) if v else float("nan")
figs = ["reshard_s", "ops_s", "errors", "moved", "ask", "tryagain", "p99_ms", "max_ms",
        "ping_max_ms", "ping_over5ms", "rss_growth_mb_0", "rss_growth_mb_1", "pause_us"]
kinds = [k for k in ("verso-asm", "verso", "redis") if any(kk == k for _, kk in rows)]
for leg in sorted({l for l, _ in rows}):
    print(f"\n== {leg}: median of {len(rows.get((leg, kinds[0]), []))} runs; ratios to redis")
    print(f"{'figure':18}" + "".join(f"{k:>11}" for k in kinds) +
          "".join(f"{k + '/redis':>17}" for k in kinds if k != "redis"))
    for k in figs:
        v = {kind: med(leg, kind, k) for kind in kinds}
        r = v.get("redis", float("nan"))
        ratios = "".join(f"{(v[kind] / r if r else float('nan')):17.2f}" for kind in kinds if kind != "redis")
        print(f"{k:18}" + "".join(f"{v[kind]:11.3f}" for kind in kinds) + ratios)
EOF
