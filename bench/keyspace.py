#!/usr/bin/env python3
"""keyspace.py: `make bench-keyspace`: memory that comes back after mass
deletes, and keys with a TTL that go, verso side by side with redis-server
7.0 (and optionally a previous verso build) in one run.

For each server, RUNS times, the servers interleaved, each started fresh
(--save "" --appendonly no, enable-debug-command, pinned to core 0 with
taskset, the driver elsewhere):

  shrink: DEBUG POPULATE KEYS (key:N -> value:N); DEL 90 % of them (every
          key whose number is not a multiple of 10, by EVAL in chunks of
          100,000); 2 s later used_memory - used_memory_startup per key left
          ("after"). Then FLUSHALL and SET the same keys left into the empty
          server ("fresh"). Figure: after / fresh per key (target <= 1.2).
  expire: FLUSHALL; DEBUG POPULATE KEYS; PEXPIREAT on 1 % of them (every
          100th) all at one instant 3 s ahead; from that instant, the time
          until INFO stats expired_keys reaches 99 % of them, polled every
          20 ms (cap CAP seconds). Figure: seconds, and verso / redis.

Prints the conditions, median [min-max] per server and figure, and the
ratios. Environment: KEYS=10000000 RUNS=3 CAP=120 VERSO=path REDIS=path
VERSO_PREV=path (optional: a second verso build, "verso-prev").
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import redis

KEYS = int(os.environ.get("KEYS") or 10_000_000)
RUNS = int(os.environ.get("RUNS") or 3)
CAP = float(os.environ.get("CAP") or 120)
SERVERS = [("verso", os.environ.get("VERSO", "src/verso-server"))]
if os.environ.get("VERSO_PREV"):
    SERVERS.append(("verso-prev", os.environ["VERSO_PREV"]))
SERVERS.append(("redis", os.environ.get("REDIS") or "/usr/bin/redis-server"))

DEL_SCRIPT = """
for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do
  if i % 10 ~= 0 then redis.call('del', 'key:' .. i) end
end"""
SET_SCRIPT = """
for i = tonumber(ARGV[1]), tonumber(ARGV[2]), 10 do
  redis.call('set', 'key:' .. i, 'value:' .. i)
end"""
TTL_SCRIPT = """
for i = tonumber(ARGV[1]), tonumber(ARGV[2]), 100 do
  redis.call('pexpireat', 'key:' .. i, ARGV[3])
end"""
CHUNK = 100_000


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start(path):
    d = tempfile.mkdtemp(prefix="bench-keyspace-")
    port = free_port()
    args = ["taskset", "-c", "0", path, "--port", str(port), "--dir", d, "--save", "",
            "--appendonly", "no", "--enable-debug-command", "yes", "--logfile", d + "/log"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c = redis.Redis(port=port, socket_timeout=600)
    for _ in range(100):
        try:
            c.ping()
            return proc, c, d
        except redis.ConnectionError:
            time.sleep(0.1)
    raise RuntimeError(path + " did not start")


def stop(proc, c, d):
    try:
        c.shutdown(nosave=True)
    except redis.ConnectionError:
        pass
    proc.wait(timeout=30)
    shutil.rmtree(d, ignore_errors=True)


def used(c):
    m = c.info("memory")
    return m["used_memory"] - m["used_memory_startup"]


def run_script(c, script, *extra):
    sha = c.script_load(script)
    for a in range(0, KEYS, CHUNK):
        c.evalsha(sha, 0, a, min(a + CHUNK, KEYS) - 1, *extra)


def shrink(c):
    c.execute_command("DEBUG", "POPULATE", KEYS)
    run_script(c, DEL_SCRIPT)
    time.sleep(2)
    left = c.dbsize()
    after = used(c) / left
    rss_after = c.info("memory")["used_memory_rss"]
    c.flushall()
    time.sleep(1)
    run_script(c, SET_SCRIPT)
    assert c.dbsize() == left
    fresh = used(c) / left
    return after, fresh, rss_after


def expire(c):
    c.flushall()
    c.execute_command("DEBUG", "POPULATE", KEYS)
    base = c.info("stats")["expired_keys"]
    at = int(time.time() * 1000) + 3000
    run_script(c, TTL_SCRIPT, at)
    n = (KEYS + 99) // 100
    while time.time() * 1000 < at:
        time.sleep(0.005)
    t0 = time.time()
    while time.time() - t0 < CAP:
        if c.info("stats")["expired_keys"] - base >= n * 99 // 100:
            break
        time.sleep(0.02)
    return time.time() - t0


def med(xs):
    return "%.3g [%.3g-%.3g]" % (statistics.median(xs), min(xs), max(xs))


def main():
    print("bench-keyspace: KEYS=%d RUNS=%d, servers pinned to core 0 (taskset), "
          "nproc=%d, %s" % (KEYS, RUNS, os.cpu_count(), time.strftime("%Y-%m-%d %H:%M")))
    for name, path in SERVERS:
        print("  %-10s %s" % (name, path))
    res = {name: {"after": [], "fresh": [], "ratio": [], "rss": [], "expire": []}
           for name, _ in SERVERS}
    for r in range(RUNS):
        for name, path in SERVERS:
            proc, c, d = start(path)
            try:
                after, fresh, rss = shrink(c)
                secs = expire(c)
            finally:
                stop(proc, c, d)
            x = res[name]
            x["after"].append(after)
            x["fresh"].append(fresh)
            x["ratio"].append(after / fresh)
            x["rss"].append(rss / (KEYS // 10) if KEYS >= 10 else 0)
            x["expire"].append(secs)
            print("run %d %-10s after %.1f B/key, fresh %.1f B/key (x%.2f), rss %.1f B/key; "
                  "99%% of TTL keys expired in %.2f s" %
                  (r + 1, name, after, fresh, after / fresh, rss / (KEYS // 10), secs),
                  flush=True)
    print()
    print("%-10s %-26s %-26s %-22s %-26s" % ("server", "after deletes B/key", "fresh B/key",
                                              "after/fresh", "reclaim 99% TTL (s)"))
    for name, _ in SERVERS:
        x = res[name]
        print("%-10s %-26s %-26s %-22s %-26s" % (name, med(x["after"]), med(x["fresh"]),
                                                 med(x["ratio"]), med(x["expire"])))
    v = res["verso"]
    rd = res["redis"]
    ratio = statistics.median(v["ratio"])
    print("verso after/fresh %.2f (target <= 1.2): %s" % (ratio, "MET" if ratio <= 1.2 else "MISSED"))
    e = statistics.median(v["expire"]) / statistics.median(rd["expire"])
    print("verso/redis reclaim time %.2fx (target <= 1.0): %s" % (e, "MET" if e <= 1.0 else "MISSED"))
    if "verso-prev" in res:
        p = res["verso-prev"]
        print("verso/verso-prev: after/fresh %.2f vs %.2f, reclaim time %.2fx" %
              (ratio, statistics.median(p["ratio"]),
               statistics.median(v["expire"]) / statistics.median(p["expire"])))


if __name__ == "__main__":
    sys.exit(main())
