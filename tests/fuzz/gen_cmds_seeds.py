#!/usr/bin/env python3
"""Writes the collection seeds of the cmds fuzz target (tests/fuzz/corpus/cmds/)
from the command scripts below, in fuzz_cmds.c's input format with named
commands (0xff, length, name), so they keep their meaning when the command
table grows. An argument is raw bytes (<= 63), or a special form:
  @rep N      ARG_REPEAT: the arguments after the key so far, N*8 more times,
              each with the repetition number appended
  @members N  ARG_MEMBERS: the same, N*64 times
  @long       ARG_LONG: a 300-byte value;  @huge  ARG_HUGE: 5000 bytes
Arguments are split on spaces; a command takes at most 7 arguments before
its expansion.  Usage: tests/fuzz/gen_cmds_seeds.py [OUTDIR]"""
import os
import sys

ARG_LONG, ARG_HUGE, ARG_MEMBERS, ARG_REPEAT = 0xBC, 0xBD, 0xBE, 0xBF
CMD_NAMED = 0xFF
MAX_ARGS = 8

SEEDS = {
    "coll-hash": """
HSET h0 f v f1 v1
HSETNX h0 f x
HMSET h0 f2 v2 n 10
HGET h0 f
HMGET h0 f nope f1
HSTRLEN h0 f1
HEXISTS h0 f2
HINCRBY h0 n 5
HINCRBYFLOAT h0 fl 1.5
HKEYS h0
HVALS h0
HGETALL h0
HRANDFIELD h0 -5 WITHVALUES
HRANDFIELD h0 3
HSCAN h0 0 MATCH f* COUNT 10
HDEL h0 f nope
HLEN h0
HSET h0 f v @rep 70
OBJECT ENCODING h0
BGSAVE
HSET h0 f x @rep 10
HDEL h0 f @rep 30
HSCAN h0 0 COUNT 100
HSET h0 big @long
HSET h0 huge @huge
COPY h0 h1
HSET h1 f1 changed
HDEL h0 f1
HGETALL h1
DEL h0
""",
    "coll-list": """
RPUSH l0 a b c
LPUSH l0 x y
LPUSHX l0 z
RPUSHX nope z
LPOP l0 2
RPOP l0
LINDEX l0 -1
LSET l0 0 first
LINSERT l0 BEFORE b new
LRANGE l0 0 -1
LREM l0 -1 a
LPOS l0 b RANK -1 MAXLEN 10
LPOS l0 b COUNT 0
LMOVE l0 k1 LEFT RIGHT
RPOPLPUSH l0 k1
LMPOP 2 l0 k1 LEFT COUNT 3
BLPOP k1 0
BRPOP nope 0.01
RPUSH l0 v @rep 250
BGSAVE
LSET l0 1000 mid
LINSERT l0 AFTER v500 after
LREM l0 0 v7
LTRIM l0 100 -100
RPUSH l0 @long
LPUSH l0 @huge
LINDEX l0 900
LRANGE l0 -5 -1
LLEN l0
""",
    "coll-set": """
SADD s0 1 2 3
SADD s0 1 @rep 70
OBJECT ENCODING s0
SADD s0 a
SREM s0 1 a nope
SCARD s0
SISMEMBER s0 2
SMISMEMBER s0 2 3 nope
SRANDMEMBER s0 -5
SPOP s0 3
SMOVE s0 k1 2
SADD k2 3 4 5
SINTER s0 k2
SINTERCARD 2 s0 k2 LIMIT 5
SUNION s0 k1 k2
SDIFF s0 k2
SINTERSTORE k3 s0 k2
SUNIONSTORE k3 s0 k2
SDIFFSTORE k3 s0 k2
SSCAN s0 0 MATCH 1* COUNT 20
BGSAVE
SREM s0 1 @rep 20
SMEMBERS k3
""",
    "coll-zset": """
ZADD z0 1 a 2 b 3 c
ZADD z0 NX CH 5 a 4 d
ZADD z0 INCR 2 a
ZINCRBY z0 -1 b
ZRANGE z0 0 -1 WITHSCORES
ZRANGE z0 (1 +inf BYSCORE LIMIT 0 2
ZRANGE z0 [a (c BYLEX
ZPOPMIN z0 2
ZPOPMAX z0
ZRANDMEMBER z0 -3 WITHSCORES
ZADD z0 1 m @rep 70
ZCARD z0
ZUNIONSTORE k3 2 z0 k1 WEIGHTS 1 2
ZSCAN z0 0
""",
    "coll-wrongtype": """
SET k0 v
HSET k0 f v
LPUSH k0 a
SADD k0 a
ZADD k0 1 a
HSET h0 f v
LPUSH h0 a
SADD l0 a
LPUSH l0 a
SMOVE l0 s0 a
LMOVE h0 l0 LEFT LEFT
RPOPLPUSH l0 h0
SUNIONSTORE l0 h0
TYPE h0
RENAME h0 k0
TYPE k0
EXPIRE k0 100
TTL k0
COPY k0 k1
HGETALL k1
MULTI
LPUSH l0 b
HSET l0 f v
LRANGE l0 0 -1
EXEC
FLUSHALL
""",
    "coll-big-shared": """
RPUSH l0 x @members 40
HSET h0 f v @members 20
SADD s0 m @members 20
BGSAVE
LSET l0 1 y
LINSERT l0 BEFORE x1000 z
LTRIM l0 5 -5
HSET h0 f7 new
HDEL h0 f8
SREM s0 m9
COPY l0 k1
RPOP k1 100
LPOP l0 100
RENAME h0 k2
HDEL k2 f @rep 100
EXPIRE s0 1000
DEL l0
RPUSH l0 again
BGSAVE
SPOP s0 50
FLUSHALL
""",
    "resp3": """
HELLO 3
HSET h0 f v f1 v1
HGETALL h0
HRANDFIELD h0 -3 WITHVALUES
SADD s0 a b 3
SMEMBERS s0
SPOP s0 2
ZADD z0 1 a 2.5 b
ZADD z0 INCR 1 a
ZRANGE z0 0 -1 WITHSCORES
ZPOPMIN z0 1
ZRANDMEMBER z0 2 WITHSCORES
ZSCORE z0 b
LPOP l0 2
BLPOP l0 0
CONFIG GET hash-max-listpack-entries
COMMAND INFO get
COMMAND DOCS set
INFO server
MEMORY STATS
DEBUG protocol map
DEBUG protocol attrib
DEBUG protocol push
SUBSCRIBE k0 k1
PSUBSCRIBE k*
PUBLISH k0 v
GET k0
UNSUBSCRIBE
PUNSUBSCRIBE
MULTI
GET k0
HGETALL h0
EXEC
HELLO 2
HGETALL h0
""",
    "coll-config": """
CONFIG SET hash-max-listpack-entries 2
HSET h0 a 1 b 2 c 3
OBJECT ENCODING h0
CONFIG SET hash-max-listpack-value 3
HSET h1 a long-value
OBJECT ENCODING h1
CONFIG SET set-max-intset-entries 2
SADD s0 1 2 3
OBJECT ENCODING s0
CONFIG SET list-max-listpack-size 2
RPUSH l0 a b c d e
OBJECT ENCODING l0
CONFIG SET hash-max-listpack-entries 512
CONFIG SET hash-max-listpack-value 64
CONFIG SET set-max-intset-entries 512
CONFIG SET list-max-listpack-size -2
""",
    # refused commands (wrong arity, unknown) right after writes that are
    # in flight under appendfsync always (a key-less GET used to abort)
    "refused-inflight": """
SET k0 v
GET
HSET h0 f v
HKEYS
RPUSH l0 a
LLEN
SADD s0 m
SCARD
MGET
NOSUCHCMD k0
SET k1
EVAL
EXEC
GET k0
""",
}


def encode(script):
    out = bytearray()
    for line in script.strip().splitlines():
        words = line.split()
        name, args = words[0].encode(), words[1:]
        enc = bytearray()
        n = 0
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("@rep", "@members"):
                enc += bytes([ARG_REPEAT if a == "@rep" else ARG_MEMBERS, int(args[i + 1])])
                i += 2
            elif a in ("@long", "@huge"):
                enc.append(ARG_LONG if a == "@long" else ARG_HUGE)
                i += 1
            else:
                b = a.encode()
                assert len(b) <= 63, a
                enc += bytes([0xC0 | len(b)]) + b
                i += 1
            n += 1
        assert n < MAX_ARGS, line
        out += bytes([CMD_NAMED, len(name)]) + name + bytes([n]) + enc
    return bytes(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus", "cmds")
    for name, script in SEEDS.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(encode(script))


if __name__ == "__main__":
    main()
