#!/usr/bin/env python3
"""bench/restoreprobe.py SERVER PORT DIR LOG [ARGS...]: one restore at startup.

Starts SERVER (pinned to core 0 with taskset) on PORT with --dir DIR
--save '' ARGS, its output to LOG, connects as soon as the port accepts and
sends PING every millisecond until +PONG (a -LOADING reply means not yet).
Then reads the server's CPU time (/proc/PID/stat: utime, stime), sends
SHUTDOWN NOSAVE and prints one line:
  <seconds exec to first PONG> <user s> <system s> <"DB loaded" s of the log>
"""
import os
import re
import socket
import subprocess
import sys
import time

server, port, d, log = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
tck = os.sysconf("SC_CLK_TCK")
t0 = time.monotonic()
p = subprocess.Popen(["taskset", "-c", "0", server, "--port", str(port), "--dir", d,
                      "--save", ""] + sys.argv[5:],
                     stdout=open(log, "w"), stderr=subprocess.STDOUT)
deadline = t0 + 300
while True:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        break
    except OSError:
        if time.monotonic() > deadline or p.poll() is not None:
            sys.exit("no connection")
        time.sleep(0.001)
while True:
    s.sendall(b"PING\r\n")
    r = s.recv(256)
    if r.startswith(b"+PONG"):
        break
    if not r or time.monotonic() > deadline:
        sys.exit("no PONG")
    time.sleep(0.001)
t1 = time.monotonic()
with open("/proc/%d/stat" % p.pid) as f:   # taskset execs the server: same pid
    fields = f.read().rsplit(")", 1)[1].split()
user, system = int(fields[11]) / tck, int(fields[12]) / tck
s.sendall(b"SHUTDOWN NOSAVE\r\n")
try:
    p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
s.close()
m = re.search(r"DB loaded from disk: ([0-9.]+)", open(log).read())
print("%.3f %.2f %.2f %s" % (t1 - t0, user, system, m.group(1) if m else "nan"))
