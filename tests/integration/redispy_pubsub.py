#!/usr/bin/python3
"""redis-py (Debian python3-redis) pubsub() against a running server:
subscribe, psubscribe, get_message, a listening thread, unsubscribe.
Usage: redispy_pubsub.py PORT. Prints "redispy_pubsub: ok" and exits 0 on
success; run by tests/integration/test_pubsub.c (redis_py_pubsub)."""
import sys
import time

import redis


def wait_message(p, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        m = p.get_message(timeout=0.1)
        if m is not None:
            return m
    raise AssertionError("no message within %.1f s" % timeout)


def main():
    port = int(sys.argv[1])
    r = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
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
    assert r.pubsub_numsub("news") == [("news", 1)]
    assert r.pubsub_numpat() == 1
    assert r.pubsub_channels() == ["news"]

    # a handler and a worker thread, as applications use it
    seen = []
    p2 = r.pubsub(ignore_subscribe_messages=True)
    p2.subscribe(**{"events": lambda m: seen.append(m["data"])})
    t = p2.run_in_thread(sleep_time=0.01)
    try:
        end = time.time() + 5
        while r.pubsub_numsub("events")[0][1] != 1 and time.time() < end:
            time.sleep(0.01)
        for i in range(10):
            r.publish("events", str(i))
        while len(seen) < 10 and time.time() < end:
            time.sleep(0.01)
        assert seen == [str(i) for i in range(10)], seen
    finally:
        t.stop()
        t.join(5)

    p.unsubscribe("news")
    assert wait_message(p)["type"] == "unsubscribe"
    p.punsubscribe()
    assert wait_message(p) == {"type": "punsubscribe", "pattern": None,
                               "channel": "n*", "data": 0}
    p.close()
    p2.close()
    print("redispy_pubsub: ok")


if __name__ == "__main__":
    main()
