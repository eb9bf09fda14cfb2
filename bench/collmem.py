#!/usr/bin/python3
"""collmem.py: the memory, LINDEX and restore parts of `make bench-collections`
(bench/collections.sh runs it after the big-values run and the throughput run).

For verso and redis-server, side by side in one run, each server pinned to
core 0 with --save "" in a fresh directory, the client on core 1:

  memory    per type (hash, list, set, zset) and size (SMALL_KEYS keys x
            SMALL_ELEMS elements, and one key of LARGE elements): INFO
            used_memory and the server's RSS before and after the fill,
            divided by the elements. Hash fields f:%014d (16 B) with 32 B
            values, list elements 32 B, set and zset members m:%014d (16 B).
  lindex    LINDEX of the middle of a list of LARGE elements:
            redis-benchmark -c 1 -n N requests/s (Redis walks the list: O(n)).
  restore   redis-server fills COLL_KEYS hashes, lists and zsets of
            COLL_ELEMS elements (spike --fill-only, the big-values data set)
            and SAVEs; then RUNS times, alternating, verso and redis-server
            start on that dump.rdb: time from exec to the first PONG.

Prints one table per part with verso/redis ratios.
"""
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import redis

VERSO = os.environ["VERSO"]
REDIS = os.environ.get("REDIS") or shutil.which("redis-server")
SPIKE = os.environ["SPIKE"]
RUNS = int(os.environ.get("RUNS") or 3)
SMALL_KEYS = int(os.environ.get("SMALL_KEYS") or 1000)
SMALL_ELEMS = int(os.environ.get("SMALL_ELEMS") or 100)
LARGE = int(os.environ.get("LARGE") or 1000000)
COLL_KEYS = int(os.environ.get("COLL_KEYS") or 20)
COLL_ELEMS = int(os.environ.get("COLL_ELEMS") or 500000)
LINDEX_N = int(os.environ.get("LINDEX_N") or 2000)
WORK = tempfile.mkdtemp(prefix="verso-collmem.", dir=os.environ.get("SPIKE_TMP"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, who, d=None):
        self.who = who
        self.dir = d or tempfile.mkdtemp(dir=WORK)
        self.port = free_port()
        binary = VERSO if who == "verso" else REDIS
        args = ["taskset", "-c", "0", binary, "--port", str(self.port), "--dir", self.dir,
                "--save", "", "--appendonly", "no"]
        self.t0 = time.monotonic()
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.p = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        self.r = redis.Redis(port=self.port, socket_timeout=600)
        self.ready = self.wait()

    def wait(self):
        """Seconds from exec to the first PONG (LOADING and refused
        connections are retried every 5 ms)."""
        while True:
            if self.p.poll() is not None:
                raise RuntimeError(f"{self.who} exited; see {self.dir}/server.log")
            try:
                if self.r.ping():
                    return time.monotonic() - self.t0
            except (redis.ConnectionError, redis.BusyLoadingError, redis.ResponseError):
                pass
            time.sleep(0.005)

    def rss(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def used(self):
        return int(self.r.info("memory")["used_memory"])

    def stop(self):
        self.p.terminate()
        self.p.wait(60)
        self.log.close()


def fill(r, typ, key, n, start=0):
    """n elements into key, 1000 per command, pipelined."""
    val = b"v" * 32
    pipe = r.pipeline(transaction=False)
    for base in range(start, start + n, 1000):
        m = min(1000, start + n - base)
        if typ == "hash":
            args = []
            for i in range(base, base + m):
                args += [b"f:%014d" % i, val]
            pipe.execute_command("HSET", key, *args)
        elif typ == "list":
            pipe.execute_command("RPUSH", key, *([val] * m))
        elif typ == "set":
            pipe.execute_command("SADD", key, *[b"m:%014d" % i for i in range(base, base + m)])
        else:
            args = []
            for i in range(base, base + m):
                args += [i * 7 % 1000003, b"m:%014d" % i]
            pipe.execute_command("ZADD", key, *args)
        if len(pipe) >= 50:
            pipe.execute()
    pipe.execute()


def memory():
    rows = []
    for typ in ("hash", "list", "set", "zset"):
        for size in ("small", "large"):
            keys, elems = (SMALL_KEYS, SMALL_ELEMS) if size == "small" else (1, LARGE)
            per = {}
            for who in ("verso", "redis"):
                s = Server(who)
                try:
                    u0, r0 = s.used(), s.rss()
                    for k in range(keys):
                        fill(s.r, typ, f"{typ}:{k}", elems)
                    enc = s.r.object("encoding", f"{typ}:0").decode()
                    # the fill's connection goes (its buffers are freed), a
                    # new one reads the figures
                    s.r.connection_pool.disconnect()
                    time.sleep(0.2)
                    u1, r1 = s.used(), s.rss()
                finally:
                    s.stop()
                n = keys * elems
                per[who] = ((u1 - u0) / n, (r1 - r0) / n, enc)
            rows.append((typ, size, keys, elems, per))
    print(f"== memory per element (used_memory and RSS growth / elements) ==")
    print(f"{'type':5} {'size':5} {'keys x elems':>16}  {'verso used':>10} {'redis used':>10} "
          f"{'ratio':>6}  {'verso RSS':>9} {'redis RSS':>9} {'ratio':>6}  encodings (verso/redis)")
    for typ, size, keys, elems, per in rows:
        v, r = per["verso"], per["redis"]
        print(f"{typ:5} {size:5} {keys:>7} x {elems:<7}  {v[0]:10.1f} {r[0]:10.1f} "
              f"{v[0] / r[0]:6.2f}  {v[1]:9.1f} {r[1]:9.1f} {v[1] / r[1] if r[1] else 0:6.2f}"
              f"  {v[2]}/{r[2]}")
    print("  (bytes per element; ratio verso/redis: <= 1.00 is the target)")


def bench_rps(port, *cmd):
    out = subprocess.run(["taskset", "-c", "1", "redis-benchmark", "-p", str(port), "-c", "1",
                          "-n", str(LINDEX_N), "--csv", *cmd], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines()[1:]:
        return float(line.split('","')[1].strip('"'))
    raise RuntimeError("no redis-benchmark output: " + out)


def lindex():
    res = {}
    for who in ("verso", "redis"):
        s = Server(who)
        try:
            fill(s.r, "list", "biglist", LARGE)
            res[who] = [bench_rps(s.port, "LINDEX", "biglist", str(LARGE // 2)) for _ in range(RUNS)]
        finally:
            s.stop()
    print(f"== LINDEX biglist {LARGE // 2} (list of {LARGE}), redis-benchmark -c 1 -n {LINDEX_N},"
          f" {RUNS} runs each ==")
    for who in ("verso", "redis"):
        print(f"  {who:5} requests/s: " + " ".join(f"{x:.0f}" for x in res[who]))
    print(f"  verso/redis (medians): {statistics.median(res['verso']) / statistics.median(res['redis']):.1f}")


def restore():
    src = Server("redis")
    try:
        subprocess.run([SPIKE, "--port", str(src.port), "--method", "fill", "--csv", "/dev/null",
                        "--tsv", "/dev/null", "--workload", "coll", "--coll-keys", str(COLL_KEYS),
                        "--coll-elems", str(COLL_ELEMS), "--fill-only", "1"], check=True)
        src.r.save()
        dbsize = src.r.dbsize()
    finally:
        src.stop()
    dump = os.path.join(src.dir, "dump.rdb")
    size = os.path.getsize(dump)
    times = {"verso": [], "redis": []}
    for _ in range(RUNS):
        for who in ("verso", "redis"):
            d = tempfile.mkdtemp(dir=WORK)
            shutil.copy(dump, os.path.join(d, "dump.rdb"))
            subprocess.run(["sync"])
            s = Server(who, d)
            try:
                n = s.r.dbsize()
                if n != dbsize:
                    raise RuntimeError(f"{who} loaded {n} keys of {dbsize}")
                times[who].append(s.ready)
            finally:
                s.stop()
            shutil.rmtree(d)
    print(f"== restore: dump.rdb written by redis-server ({size} bytes, {dbsize} keys:"
          f" {COLL_KEYS} hashes, lists and zsets x {COLL_ELEMS} elements), time to first PONG ==")
    for who in ("verso", "redis"):
        t = times[who]
        print(f"  {who:5} {statistics.median(t):.2f} s [{min(t):.2f}-{max(t):.2f}]")
    print(f"  verso/redis (medians): {statistics.median(times['verso']) / statistics.median(times['redis']):.2f}"
          "  (<= 1.00 is the target)")


def main():
    parts = sys.argv[1:] or ["memory", "lindex", "restore"]
    try:
        for p in parts:
            {"memory": memory, "lindex": lindex, "restore": restore}[p]()
            print()
            sys.stdout.flush()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
