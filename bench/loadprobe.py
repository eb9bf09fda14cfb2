#!/usr/bin/env python3
"""bench/loadprobe.py PORT OUT: a client watching a server load its data.

Connects as soon as the port accepts, then sends INFO persistence in a loop
(a monitor or an orchestrator probe does this) until loading:0. Writes to
OUT: the seconds from the first connection to loading:0, the number of
replies received while loading, and the longest wait for one reply (ms).
Stops after 120 s."""
import socket
import sys
import time

port, out = int(sys.argv[1]), sys.argv[2]
deadline = time.time() + 120
while True:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        break
    except OSError:
        if time.time() > deadline:
            sys.exit("no connection")
        time.sleep(0.002)
f = s.makefile("rb")
t0 = time.time()
replies, longest = 0, 0.0
req = b"*2\r\n$4\r\nINFO\r\n$11\r\npersistence\r\n"
while time.time() < deadline:
    a = time.time()
    s.sendall(req)
    head = f.readline()
    if head.startswith(b"$"):
        body = f.read(int(head[1:]) + 2)
    else:
        body = head
    longest = max(longest, time.time() - a)
    if b"\nloading:0" in body:  # not async_loading:0
        break
    replies += 1
    time.sleep(0.01)
with open(out, "w") as o:
    o.write("%.3f %d %.1f\n" % (time.time() - t0, replies, longest * 1000))
