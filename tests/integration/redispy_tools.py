#!/usr/bin/python3
"""What applications do with redis-py (Debian python3-redis 4.3.4) against a
running server: lock() (acquire / extend / release, which run Lua scripts
through EVALSHA), pubsub() (subscribe, psubscribe, get_message,
run_in_thread, keyspace notifications), monitor(), pipeline() (transactional
with WATCH, and not), register_script objects (reloaded after SCRIPT FLUSH,
in a pipeline) and memory_usage().

Usage: redispy_tools.py PORT PART... with PART one of lock pubsub monitor
pipeline script memory. Prints "redispy_tools: ok PART" for each part that
passed and exits 0 when all did; run by tests/integration/test_tools.c,
one Check test per part."""
import sys
import threading
import time

import redis
from redis.exceptions import LockError, LockNotOwnedError, ResponseError, WatchError


def wait_message(p, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        m = p.get_message(timeout=0.1)
        if m is not None:
            return m
    raise AssertionError("no message within %.1f s" % timeout)


def part_lock(r):
    lock = r.lock("resource", timeout=5, blocking_timeout=1)
    assert lock.acquire()
    assert lock.owned()
    assert r.get("resource") == lock.local.token.decode()
    # extend adds to the TTL (LUA_EXTEND_SCRIPT), reacquire resets it
    assert lock.extend(10)
    assert r.pttl("resource") > 10000, r.pttl("resource")
    assert lock.reacquire()
    assert r.pttl("resource") <= 5000
    other = r.lock("resource", timeout=5, blocking_timeout=0.1)
    assert not other.acquire()
    try:
        other.release()
        raise AssertionError("released a lock not acquired")
    except LockError:
        pass
    lock.release()  # LUA_RELEASE_SCRIPT
    assert r.get("resource") is None
    assert other.acquire()
    # the token no longer matches: release refuses (the script says 0)
    r.set("resource", "stolen")
    try:
        other.release()
        raise AssertionError("released a lock owned by another token")
    except LockNotOwnedError:
        pass
    with r.lock("ctx", timeout=2):
        assert r.exists("ctx") == 1
    assert r.exists("ctx") == 0
    # a blocking acquire that waits for an expiring lock
    short = r.lock("short", timeout=0.2)
    assert short.acquire()
    waiter = r.lock("short", timeout=1, blocking_timeout=5, sleep=0.05)
    assert waiter.acquire()
    waiter.release()


def part_pubsub(r):
    p = r.pubsub()
    p.subscribe("news")
    assert wait_message(p) == {"type": "subscribe", "pattern": None,
                               "channel": "news", "data": 1}
    p.psubscribe("n*")
    assert wait_message(p)["type"] == "psubscribe"
    assert r.publish("news", "hello") == 2
    got = [wait_message(p), wait_message(p)]
    assert {"type": "message", "pattern": None, "channel": "news", "data": "hello"} in got
    assert {"type": "pmessage", "pattern": "n*", "channel": "news", "data": "hello"} in got
    p.unsubscribe("news")
    p.punsubscribe("n*")
    assert wait_message(p)["type"] == "unsubscribe"
    assert wait_message(p)["type"] == "punsubscribe"

    # keyspace notifications, as an application listens to them
    r.config_set("notify-keyspace-events", "KEA")
    p.psubscribe("__keyspace@0__:watched*")
    assert wait_message(p)["type"] == "psubscribe"
    r.set("watched", "1")
    r.expire("watched", 100)
    r.delete("watched")
    events = [wait_message(p)["data"] for _ in range(3)]
    assert events == ["set", "expire", "del"], events
    p.close()
    r.config_set("notify-keyspace-events", "")

    # a handler and a worker thread
    seen = []
    p2 = r.pubsub(ignore_subscribe_messages=True)
    p2.subscribe(**{"events": lambda m: seen.append(m["data"])})
    t = p2.run_in_thread(sleep_time=0.01)
    try:
        end = time.time() + 10
        while r.pubsub_numsub("events")[0][1] != 1 and time.time() < end:
            time.sleep(0.01)
        for i in range(10):
            r.publish("events", str(i))
        while len(seen) < 10 and time.time() < end:
            time.sleep(0.01)
    finally:
        t.stop()
        t.join(5)
    assert seen == [str(i) for i in range(10)], seen


def part_monitor(r, port):
    other = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
    with r.monitor() as m:
        other.set("monkey", "banana")
        other.get("monkey")
        cmds = []
        for _ in range(10):
            c = m.next_command()
            cmds.append(c["command"])
            if c["command"] == "GET monkey":
                break
        assert "SET monkey banana" in cmds, cmds
        assert cmds[-1] == "GET monkey", cmds
        assert isinstance(c["time"], float) and c["db"] == 0, c
        assert c["client_type"] == "tcp", c


def part_pipeline(r):
    # transactional (MULTI/EXEC)
    p = r.pipeline()
    p.set("pa", 1).incr("pa").get("pa")
    assert p.execute() == [True, 2, "2"]
    # not transactional, with an error in the middle
    p = r.pipeline(transaction=False)
    p.set("ps", "x").incr("ps").get("ps")
    res = p.execute(raise_on_error=False)
    assert res[0] is True and isinstance(res[1], ResponseError) and res[2] == "x", res
    # WATCH: the optimistic retry loop, then a conflict
    r.set("w", 1)
    with r.pipeline() as p:
        p.watch("w")
        v = int(p.get("w"))
        p.multi()
        p.set("w", v + 1)
        assert p.execute() == [True]
    assert r.get("w") == "2"
    with r.pipeline() as p:
        p.watch("w")
        r.set("w", 10)  # another client changes it
        p.multi()
        p.set("w", 3)
        try:
            p.execute()
            raise AssertionError("EXEC ran despite a changed watched key")
        except WatchError:
            pass
    assert r.get("w") == "10"
    # transaction() helper
    def incr_twice(pipe):
        cur = int(pipe.get("w"))
        pipe.multi()
        pipe.set("w", cur + 2)
    assert r.transaction(incr_twice, "w") == [True]
    assert r.get("w") == "12"
    # many commands in one round trip
    p = r.pipeline(transaction=False)
    for i in range(1000):
        p.rpush("plist", i)
    res = p.execute()
    assert res[-1] == 1000 and r.llen("plist") == 1000


def part_script(r):
    s = r.register_script("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}")
    assert s(keys=["ctr"], args=["x"]) == ["ctr", "x", 1]
    assert r.script_exists(s.sha) == [True]
    r.script_flush()
    assert r.script_exists(s.sha) == [False]
    # NOSCRIPT: the object loads it again
    assert s(keys=["ctr"], args=["y"]) == ["ctr", "y", 2]
    # in a pipeline: loaded before the pipeline runs
    r.script_flush()
    p = r.pipeline()
    s(keys=["ctr"], args=["z"], client=p)
    s(keys=["ctr"], args=["w"], client=p)
    assert p.execute() == [["ctr", "z", 3], ["ctr", "w", 4]]
    err = r.register_script("return redis.error_reply('my error')")
    try:
        err()
        raise AssertionError("no error")
    except ResponseError as e:
        assert "my error" in str(e), str(e)
    # a script's writes are seen by the next command
    setter = r.register_script("redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])")
    assert setter(keys=["sk"], args=["val"]) == "val" and r.get("sk") == "val"


def part_memory(r):
    r.set("small", "x")
    n = r.memory_usage("small")
    assert isinstance(n, int) and 0 < n < 1000, n
    r.set("big", "x" * 100000)
    m = r.memory_usage("big")
    assert 100000 <= m < 200000, m
    r.rpush("lst", *range(1000))
    assert r.memory_usage("lst", samples=0) > n
    assert r.memory_usage("nosuch") is None


def main():
    port = int(sys.argv[1])
    parts = sys.argv[2:]
    r = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
    for part in parts:
        if part == "lock":
            part_lock(r)
        elif part == "pubsub":
            part_pubsub(r)
        elif part == "monitor":
            part_monitor(r, port)
        elif part == "pipeline":
            part_pipeline(r)
        elif part == "script":
            part_script(r)
        elif part == "memory":
            part_memory(r)
        else:
            raise SystemExit("unknown part " + part)
        print("redispy_tools: ok " + part, flush=True)


if __name__ == "__main__":
    main()
