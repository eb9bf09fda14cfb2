#!/usr/bin/env bash
# Regenerates the file-based seed corpora of tests/fuzz/corpus/{rdb,aof_load}
# from real servers: small RDBs written by redis-server 7.0 and by
# verso-server (plain and LZ4), and multi-part AOFs from redis-server's
# appendonly. Each seed starts with the target's mode byte (see the
# fuzz_*.c headers). Needs redis-server/redis-cli and a built verso-server:
#   VERSO=$PWD/build/src/verso-server tests/fuzz/gen_seeds.sh (an absolute path:
# each server starts in its own directory)
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
verso=${VERSO:?VERSO: path of a built verso-server}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 100); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
# prefix MODE-BYTE FILE OUT: writes the mode byte then FILE to OUT
prefix() { { printf "\\x$(printf %02x "$1")"; cat "$2"; } >"$3"; }

fill_colls() { # port: hashes, lists, sets, zsets in both encodings
    local p=$1
    redis-cli -p "$p" hset h:small a 1 b hello c -70000 >/dev/null
    redis-cli -p "$p" hset h:long f "$(printf 'v%.0s' $(seq 100))" >/dev/null
    redis-cli -p "$p" rpush l a 1 -2 hello 70000 5000000000 >/dev/null
    redis-cli -p "$p" rpush l:big "$(printf 'e%.0s' $(seq 9000))" x >/dev/null
    redis-cli -p "$p" sadd s:int 5 -3 100000 >/dev/null
    redis-cli -p "$p" sadd s:str a b 1 >/dev/null
    redis-cli -p "$p" zadd z:small 1 a 2.5 b -inf c >/dev/null
    redis-cli -p "$p" zadd z:long 1 "$(printf 'm%.0s' $(seq 100))" >/dev/null
    redis-cli -p "$p" config set list-max-listpack-size 2 >/dev/null
    redis-cli -p "$p" rpush l:nodes 1 2 3 4 5 >/dev/null
}

fill() { # port: a few string keys, ints, an expire, two databases
    local p=$1
    redis-cli -p "$p" set a 1 >/dev/null
    redis-cli -p "$p" set b hello >/dev/null
    redis-cli -p "$p" set n -123456789012 >/dev/null
    redis-cli -p "$p" set big "$(printf 'x%.0s' $(seq 200))" >/dev/null
    redis-cli -p "$p" set ttl v px 86400000 >/dev/null
    redis-cli -p "$p" -n 3 set other 42 >/dev/null
}

fill_streams() { # port: streams with groups, consumers, pending entries, deletions
    local p=$1
    redis-cli -p "$p" xadd st 1-1 f v >/dev/null
    redis-cli -p "$p" xadd st 1-2 f v g w >/dev/null
    redis-cli -p "$p" xadd st 2-0 other 1 >/dev/null
    redis-cli -p "$p" xdel st 1-2 >/dev/null
    redis-cli -p "$p" xgroup create st g1 0 >/dev/null
    redis-cli -p "$p" xgroup create st g2 '$' >/dev/null
    redis-cli -p "$p" xreadgroup group g1 alice count 1 streams st '>' >/dev/null
    redis-cli -p "$p" xreadgroup group g1 bob count 1 streams st '>' >/dev/null
    redis-cli -p "$p" xgroup createconsumer st g2 carol >/dev/null
    # several listpack nodes (stream-node-max-entries 100)
    for i in $(seq 250); do echo "xadd s:big $i-0 n $i v $((i * 7))"; done |
        redis-cli -p "$p" >/dev/null
    redis-cli -p "$p" xgroup create s:big g 100-0 >/dev/null
    redis-cli -p "$p" xreadgroup group g c count 30 streams s:big '>' >/dev/null
    redis-cli -p "$p" xack s:big g 101-0 105-0 >/dev/null
    # empty streams: a group made with MKSTREAM, one trimmed to nothing
    redis-cli -p "$p" xgroup create s:empty g '$' mkstream >/dev/null
    redis-cli -p "$p" xadd s:trim 5-5 a 1 >/dev/null
    redis-cli -p "$p" xtrim s:trim maxlen 0 >/dev/null
    redis-cli -p "$p" xsetid s:trim 9-9 entriesadded 12 maxdeletedid 7-7 >/dev/null
}

start() { # name binary args...: starts a server in $tmp/name, echoes its port
    local name=$1 bin=$2; shift 2
    local port; port=$(free_port)
    mkdir -p "$tmp/$name"
    (cd "$tmp/$name" && exec "$bin" --port "$port" --dir "$tmp/$name" "$@" >/dev/null 2>&1) &
    pids+=($!)
    wait_up "$port"
    echo "$port"
}

out="$src/corpus/rdb"
mkdir -p "$out"
# redis-server 7.0: plain RDB, LZF strings on (the 200-byte value compresses)
p=$(start redis /usr/bin/redis-server --save '' --appendonly no)
fill "$p"; redis-cli -p "$p" save >/dev/null
prefix 0 "$tmp/redis/dump.rdb" "$out/redis70-plain"
prefix 1 "$tmp/redis/dump.rdb" "$out/redis70-in-lz4"
prefix 2 "$tmp/redis/dump.rdb" "$out/redis70-restore"
redis-cli -p "$p" flushall >/dev/null; redis-cli -p "$p" save >/dev/null
prefix 0 "$tmp/redis/dump.rdb" "$out/redis70-empty"
fill_colls "$p"; redis-cli -p "$p" save >/dev/null
prefix 0 "$tmp/redis/dump.rdb" "$out/redis70-colls"
prefix 2 "$tmp/redis/dump.rdb" "$out/redis70-colls-restore"
redis-cli -p "$p" flushall >/dev/null
fill_streams "$p"; redis-cli -p "$p" save >/dev/null
prefix 0 "$tmp/redis/dump.rdb" "$out/redis70-streams"
prefix 1 "$tmp/redis/dump.rdb" "$out/redis70-streams-in-lz4"
prefix 2 "$tmp/redis/dump.rdb" "$out/redis70-streams-restore"
redis-cli -p "$p" flushall >/dev/null; redis-cli -p "$p" config set list-max-listpack-size -2 >/dev/null
# the encodings Redis 7.0 loads but no longer writes (zipmap, ziplists,
# quicklist v1, text-score zset), hand-built by test_coll_interop
VERSO_OLD_ENCODINGS_RDB="$tmp/old.rdb" CK_RUN_CASE=old_encodings \
    "$(dirname "$verso")/../tests/integration/test_coll_interop" >/dev/null
prefix 0 "$tmp/old.rdb" "$out/old-encodings"
prefix 2 "$tmp/old.rdb" "$out/old-encodings-restore"
# redis-server AOF (multi-part: RDB preamble base + RESP incr)
redis-cli -p "$p" config set appendonly yes >/dev/null; sleep 1
fill "$p"; redis-cli -p "$p" incrby a 5 >/dev/null; redis-cli -p "$p" del b >/dev/null
sleep 1.5
redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
ad="$tmp/redis/appendonlydir"
aout="$src/corpus/aof_load"
mkdir -p "$aout"
base=$(ls "$ad"/*.base.rdb); incr=$(ls "$ad"/*.incr.aof)
sep='=====FILE=====\n'
# mode: bit0 truncated_ok, bit1 base, bit2 .rdb name, bits3-4 incrs-1, bit5 real exec
{ printf '\x27'; cat "$base"; printf "$sep"; cat "$incr"; } >"$aout/redis70-base-incr"
{ printf '\x07'; cat "$base"; printf "$sep"; cat "$incr"; } >"$aout/redis70-base-incr-cb"
{ printf '\x21'; cat "$incr"; } >"$aout/redis70-incr-only"
{ printf '\x29'; cat "$incr"; printf "$sep"; head -c 40 "$incr"; } >"$aout/redis70-two-incr-cut"
# a Redis 6 single-file AOF as the upgrade makes it the base (.aof name):
# the last RDB saved (the streams) and commands after it, then an INCR
{ printf '\x23'; cat "$tmp/redis/dump.rdb" "$incr"; printf "$sep"; cat "$incr"; } \
    >"$aout/redis6-preamble-tail-base"

# verso-server: LZ4 snapshot (default) and plain
for comp in lz4 none; do
    p=$(start "verso-$comp" "$verso" --save '' --snapshot-compression "$comp")
    fill "$p"; redis-cli -p "$p" save >/dev/null
    prefix 0 "$tmp/verso-$comp/dump.rdb" "$out/verso-$comp"
    prefix 2 "$tmp/verso-$comp/dump.rdb" "$out/verso-$comp-restore"
    redis-cli -p "$p" flushall >/dev/null
    fill_colls "$p"; redis-cli -p "$p" save >/dev/null
    prefix 0 "$tmp/verso-$comp/dump.rdb" "$out/verso-$comp-colls"
    redis-cli -p "$p" flushall >/dev/null
    fill_streams "$p"; redis-cli -p "$p" save >/dev/null
    prefix 0 "$tmp/verso-$comp/dump.rdb" "$out/verso-$comp-streams"
    prefix 2 "$tmp/verso-$comp/dump.rdb" "$out/verso-$comp-streams-restore"
    redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
done
ls -la "$out" "$aout"
