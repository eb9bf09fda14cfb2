# bench/lib.sh: what the benchmark drivers share: a free port, waiting for a
# server to answer and stopping it. Sourced by aof.sh, spike.sh and throughput.sh; the
# server's pid is in SERVER_PID.

# wait_ready PORT: 0 once the server answers PING, 1 if it exited first,
# 2 when it did not answer in 10 s.
wait_ready() {
    for _ in $(seq 100); do
        redis-cli -p "$1" ping 2>/dev/null | grep -q PONG && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 2
}

# stop_server [SECONDS]: SIGTERM, up to SECONDS (10) for it to exit, then
# SIGKILL; reaps it and clears SERVER_PID.
stop_server() {
    [ -n "${SERVER_PID:-}" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq $(( ${1:-10} * 10 ))); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

# free_port: a random TCP port in 20000-59999 nobody listens on.
free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 40000))
        ss -ltn 2>/dev/null | grep -q ":$p " || { echo $p; return; }
    done
}
