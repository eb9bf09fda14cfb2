#!/usr/bin/python3
"""redis-py (Debian python3-redis) against a running server: transaction
pipelines, the WATCH optimistic-locking retry loop and a plain pipeline.
Usage: redispy_tx.py PORT. Prints "redispy_tx: ok" and exits 0 on success;
run by tests/integration/test_multi.c (redis_py_pipelines)."""
import sys
import threading

import redis


def main():
    port = int(sys.argv[1])
    r = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
    r.flushall()

    # pipeline(transaction=True): MULTI ... EXEC, the replies as a list
    with r.pipeline(transaction=True) as p:
        p.set("a", 1).incr("a").incrby("a", 10).get("a")
        assert p.execute() == [True, 2, 12, "12"]

    # an error while running is that command's result; the others ran
    r.set("s", "text")
    with r.pipeline(transaction=True) as p:
        p.incr("s").set("t", "1")
        res = p.execute(raise_on_error=False)
        assert isinstance(res[0], redis.ResponseError), res
        assert res[1] is True, res
    assert r.get("t") == "1"

    # a queuing error aborts the whole transaction (EXECABORT)
    with r.pipeline(transaction=True) as p:
        p.set("u", "1")
        p.execute_command("NOSUCHCOMMAND")
        try:
            p.execute()
            raise AssertionError("EXECABORT expected")
        except redis.ResponseError as e:
            assert "unknown command" in str(e) or "EXECABORT" in str(e), e
    assert r.get("u") is None

    # WATCH: the optimistic-locking retry loop, with a concurrent writer
    # that changes the key once while the first attempt is in progress
    r.set("counter", 0)
    attempts = 0
    interfered = threading.Event()

    def interfere():
        redis.Redis(host="127.0.0.1", port=port).incr("counter", 100)
        interfered.set()

    with r.pipeline() as p:
        while True:
            attempts += 1
            try:
                p.watch("counter")
                cur = int(p.get("counter"))
                if attempts == 1:
                    t = threading.Thread(target=interfere)
                    t.start()
                    t.join()
                p.multi()
                p.set("counter", cur + 1)
                p.execute()
                break
            except redis.WatchError:
                continue
    assert interfered.is_set()
    assert attempts == 2, attempts
    assert r.get("counter") == "101", r.get("counter")

    # transaction() helper: the same loop, written by redis-py
    def incr_twice(pipe):
        v = int(pipe.get("counter"))
        pipe.multi()
        pipe.set("counter", v + 2)

    r.transaction(incr_twice, "counter")
    assert r.get("counter") == "103"

    # a non-transactional pipeline: the commands are sent together, no MULTI
    with r.pipeline(transaction=False) as p:
        for i in range(100):
            p.set("k%d" % i, i)
        p.get("k42")
        res = p.execute()
        assert res[-1] == "42" and all(x is True for x in res[:-1])
    assert r.dbsize() >= 100

    # DISCARD through reset() of a pipeline in MULTI
    with r.pipeline() as p:
        p.multi()
        p.set("never", 1)
        p.reset()
    assert r.get("never") is None
    print("redispy_tx: ok")


if __name__ == "__main__":
    main()
