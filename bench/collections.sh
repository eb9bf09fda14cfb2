#!/usr/bin/env bash
# collections.sh: `make bench-collections`, the collections issue's
# comparison of verso forkless, verso fork and redis-server 7.0, side by side
# in one run (servers on core 0, load on core 1):
#   1. big values under a save: bench/spike.sh with WORKLOAD=coll (COLL_KEYS
#      hashes, lists and sorted sets of COLL_ELEMS elements, 8 writers doing
#      HSET / RPUSH+LPOP / ZADD on random big keys, PING every 2 ms, BGSAVE at
#      t = 2 s): write p50/p99/max and worst PING during the save, memory
#      growth, save time; RUNS runs per method;
#   2. throughput per type: bench/throughput.sh with the collection tests of
#      redis-benchmark, -P 1 and -P 16, ROUNDS rounds;
#   3. memory per element, LINDEX in the middle of a big list, restore of the
#      big-values data set: bench/collmem.py.
# Everything printed is also in $OUT/collections-summary.txt.
# Variables: RUNS=3 ROUNDS=3 COLL_KEYS=20 COLL_ELEMS=500000 N=200000 (requests
#   per redis-benchmark test) SMALL_KEYS=1000 SMALL_ELEMS=100 LARGE=1000000
#   PARTS="spike throughput memory lindex restore" VERSO=path REDIS=path
#   SPIKE=path OUT=dir SPIKE_TMP=dir (dumps: a real disk, not tmpfs).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
export VERSO=${VERSO:-$TOP/build/src/verso-server}
export REDIS=${REDIS:-$(command -v redis-server)}
export SPIKE=${SPIKE:-$TOP/build/bench/spike}
export OUT=${OUT:-$HERE/out}
export RUNS=${RUNS:-3} COLL_KEYS=${COLL_KEYS:-20} COLL_ELEMS=${COLL_ELEMS:-500000}
PARTS=${PARTS:-"spike throughput memory lindex restore"}
mkdir -p "$OUT"
SUM=$OUT/collections-summary.txt
: >"$SUM"
t0=$SECONDS
for part in $PARTS; do
    echo "collections.sh: $part ($((SECONDS - t0)) s so far)" >&2
    case $part in
    spike)
        WORKLOAD=coll bash "$HERE/spike.sh" >/dev/null
        cat "$OUT/coll-summary.txt" >>"$SUM";;
    throughput)
        TESTS=lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100,lrange_600 \
            N=${N:-200000} ROUNDS=${ROUNDS:-3} bash "$HERE/throughput.sh" >>"$SUM";;
    memory|lindex|restore)
        /usr/bin/python3 "$HERE/collmem.py" "$part" >>"$SUM";;  # Debian python3-redis
    *) echo "collections.sh: unknown part $part" >&2; exit 2;;
    esac
    echo >>"$SUM"
done
echo "total time $((SECONDS - t0)) s, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) vCPU, verso $("$VERSO" --version | head -1), $("$REDIS" --version)" >>"$SUM"
cat "$SUM"
