#!/usr/bin/env python3
"""bench/pongprobe.py PORT PIDFILE OUT -- COMMAND...: time a server's startup.

Starts COMMAND (a server that loads a snapshot at startup), writes its pid to
PIDFILE, then connects as soon as the port accepts and sends PING every
millisecond until the reply is +PONG (a loading server answers -LOADING).
Writes to OUT: the seconds from the exec to the first +PONG and the server's
CPU seconds (user + system) at that moment. Stops after 120 s."""
import os
import socket
import subprocess
import sys
import time

port, pidfile, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
t0 = time.monotonic()
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
with open(pidfile, "w") as f:
    f.write(str(proc.pid))
deadline = t0 + 120
s = None
while time.monotonic() < deadline:
    if proc.poll() is not None:
        sys.exit("server exited with %d" % proc.returncode)
    try:
        if s is None:
            s = socket.create_connection(("127.0.0.1", port), timeout=60)
            f = s.makefile("rb")
        s.sendall(b"PING\r\n")
        if f.readline().startswith(b"+PONG"):
            break
    except OSError:
        s = None
    time.sleep(0.001)
else:
    sys.exit("no PONG in 120 s")
elapsed = time.monotonic() - t0
with open("/proc/%d/stat" % proc.pid) as st:
    fields = st.read().rsplit(")", 1)[1].split()
cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
with open(out, "w") as o:
    o.write("%.4f %.2f\n" % (elapsed, cpu))
