#!/usr/bin/env bash
# tls.sh: TLS against redis-server in one run (`make bench-tls`).
#
# 1. Throughput: redis-benchmark --tls -t set,get -n N -r 100000 -c 50 at
#    -P 1 and -P 16, ROUNDS times alternating verso and redis-server (A B A
#    B ...), servers on core 0 with --save "" --appendonly no,
#    redis-benchmark on core 1; the same on the plain port in the same round,
#    so the price of TLS shows for each server. Prints requests/s per round
#    and the medians of the per-round ratios verso/redis (TLS and plain).
# 2. A full sync over TLS under writes: bench/replication.sh with TLS=1
#    (METHODS="forkless redis", KEYS, VALUE, RUNS), then the same without
#    TLS, for the growth and worst PING side by side.
# 3. Handshakes (PARTS=handshake): a storm of new TLS connections
#    (redis-benchmark --tls -k 0 -t ping: a handshake per request, -c 20)
#    against a server with an RSA-4096 key (a 4 ms signature per handshake)
#    while a probe PINGs every 1 ms on the plain port: the probe's p50, p99
#    and worst reply time and the handshakes/s, verso vs redis-server.
# Certificates (ECDSA P-256, a CA and a server certificate, which also serves
# as the client certificate; an RSA-4096 one for part 3) are made in a
# scratch directory first.
# Variables: N=1000000 ROUNDS=3 KEYS=1000000 VALUE=300 RUNS=3
#   PARTS="throughput sync" VERSO=path REDIS=path OUT=dir SPIKE=path
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
TOP=$(cd "$HERE/.." && pwd)
N=${N:-1000000}
ROUNDS=${ROUNDS:-3}
PARTS=${PARTS:-"throughput sync"}
VERSO=${VERSO:-$TOP/build/src/verso-server}
REDIS=${REDIS:-$(command -v redis-server)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-tls.XXXXXX")
SERVER_PID=
trap 'stop_server; rm -rf "$WORK"' EXIT

# ---- certificates ----
C=$WORK/certs
mkdir -p "$C"
(
    cd "$C"
    ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    openssl req -x509 $ec -keyout ca.key -out ca.crt -days 2 -subj "/CN=bench CA" 2>/dev/null
    openssl req $ec -keyout server.key -out server.csr -subj "/CN=localhost" 2>/dev/null
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
        -out server.crt -days 2 2>/dev/null
    if [[ " $PARTS " == *" handshake "* ]]; then
        openssl req -newkey rsa:4096 -nodes -keyout rsa.key -out rsa.csr -subj "/CN=localhost" \
            2>/dev/null
        openssl x509 -req -in rsa.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
            -out rsa.crt -days 2 2>/dev/null
    fi
)
TLS_ARGS=(--tls-cert-file "$C/server.crt" --tls-key-file "$C/server.key"
          --tls-ca-cert-file "$C/ca.crt")
CLI_TLS=(--tls --cacert "$C/ca.crt" --cert "$C/server.crt" --key "$C/server.key")

median() { sort -g | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

throughput() {
    local port tport
    port=$(free_port)
    tport=$(free_port)
    start() { # binary
        rm -rf "$WORK/d" && mkdir -p "$WORK/d"
        taskset -c 0 "$1" --port "$port" --tls-port "$tport" "${TLS_ARGS[@]}" \
            --dir "$WORK/d" --save "" --appendonly no >"$WORK/server.log" 2>&1 &
        SERVER_PID=$!
        wait_ready "$port" && return
        echo "server $1 did not start:" >&2; tail -5 "$WORK/server.log" >&2; exit 1
    }
    run() { # tls|plain pipeline: "test rps" lines
        local extra=() p=$port
        [ "$1" = tls ] && extra=("${CLI_TLS[@]}") && p=$tport
        taskset -c 1 redis-benchmark "${extra[@]}" -p "$p" -t set,get -n "$N" -r 100000 \
            -c 50 -P "$2" --csv 2>/dev/null |
            awk -F'","' 'NR > 1 { t = tolower($1); gsub(/"/, "", t); r = $2; gsub(/"/, "", r); print t, r }'
    }
    declare -A R
    for r in $(seq "$ROUNDS"); do
        for who in verso redis; do
            bin=$VERSO; [ "$who" = redis ] && bin=$REDIS
            start "$bin"
            for mode in tls plain; do for p in 1 16; do
                while read -r op rps; do R[$who,$mode,$p,$op,$r]=$rps; done < <(run "$mode" "$p")
            done; done
            stop_server
        done
    done
    echo "== redis-benchmark [--tls] -t set,get -n $N -r 100000 -c 50, verso vs redis-server, $ROUNDS rounds =="
    printf '%-6s %-5s %-5s %-5s %s\n' mode -P test who "requests/s per round"
    for mode in tls plain; do for p in 1 16; do for op in set get; do for who in verso redis; do
        line=""; for r in $(seq "$ROUNDS"); do line="$line ${R[$who,$mode,$p,$op,$r]:-?}"; done
        printf '%-6s %-5s %-5s %-5s%s\n' "$mode" "$p" "$op" "$who" "$line"
    done; done; done; done
    echo
    echo "median of per-round ratios:"
    printf '  %-12s %-5s %-12s %-12s %-16s %s\n' "" "" "verso/redis" "verso/redis" "verso tls/plain" "redis tls/plain"
    printf '  %-12s %-5s %-12s %-12s\n' "" "" "(tls)" "(plain)"
    for p in 1 16; do for op in set get; do
        ratio() { # a-key b-key
            for r in $(seq "$ROUNDS"); do
                awk -v a="${R[$1,$r]:-0}" -v b="${R[$2,$r]:-0}" 'BEGIN{ if (b > 0) printf "%.3f\n", a/b }'
            done | median
        }
        printf '  -P %-9s %-5s %-12s %-12s %-16s %s\n' "$p" "$op" \
            "$(ratio "verso,tls,$p,$op" "redis,tls,$p,$op")" \
            "$(ratio "verso,plain,$p,$op" "redis,plain,$p,$op")" \
            "$(ratio "verso,tls,$p,$op" "verso,plain,$p,$op")" \
            "$(ratio "redis,tls,$p,$op" "redis,plain,$p,$op")"
    done; done
    echo "target: verso/redis >= 1.0 under TLS at -P 1 and -P 16"
    echo
    echo "conditions: $(nproc) vCPU, $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo)," \
         "kernel $(uname -r), $(openssl version);" \
         "servers on core 0 with --save \"\" --appendonly no, redis-benchmark on core 1;" \
         "ECDSA P-256 certificates, TLS 1.3 (OpenSSL's default suite);" \
         "verso $("$VERSO" --version | head -1), $("$REDIS" --version)"
}

sync_legs() {
    local out=${OUT:-$HERE/out}
    mkdir -p "$out"
    for tls in 1 0; do
        echo
        echo "== full sync $([ $tls = 1 ] && echo over TLS || echo without TLS), bench/replication.sh =="
        TLS=$tls TLS_DIR=$C METHODS=${METHODS:-"forkless redis"} OUT="$out/tls$tls" \
            VERSO="$VERSO" REDIS="$REDIS" KEYS="${KEYS:-}" VALUE="${VALUE:-}" RUNS="${RUNS:-}" \
            SPIKE="${SPIKE:-}" bash "$HERE/replication.sh" || echo "(replication.sh exited $?)"
    done
}

# The probe: PING every 1 ms on PORT for SECONDS; prints "p50 p99 max" in ms.
PROBE='
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
end = time.time() + float(sys.argv[2]); lat = []
while time.time() < end:
    a = time.perf_counter(); s.sendall(b"PING\r\n"); b = b""
    while not b.endswith(b"\r\n"): b += s.recv(64)
    lat.append((time.perf_counter() - a) * 1000); time.sleep(0.001)
lat.sort()
print("%.2f %.2f %.2f" % (lat[len(lat) // 2], lat[int(len(lat) * 0.99)], lat[-1]))
'

handshake() {
    local port tport secs=${STORM_S:-10}
    port=$(free_port); tport=$(free_port)
    declare -A H
    for r in $(seq "$ROUNDS"); do for who in verso redis; do
        bin=$VERSO; [ "$who" = redis ] && bin=$REDIS
        rm -rf "$WORK/d" && mkdir -p "$WORK/d"
        taskset -c 0 "$bin" --port "$port" --tls-port "$tport" --tls-cert-file "$C/rsa.crt" \
            --tls-key-file "$C/rsa.key" --tls-ca-cert-file "$C/ca.crt" --tls-auth-clients no \
            --dir "$WORK/d" --save "" --appendonly no >"$WORK/server.log" 2>&1 &
        SERVER_PID=$!
        wait_ready "$port" || { echo "server $bin did not start" >&2; exit 1; }
        taskset -c 1 timeout $((secs + 5)) redis-benchmark --tls --cacert "$C/ca.crt" -p "$tport" \
            -k 0 -c 20 -n 1000000 -t ping_inline >"$WORK/storm.out" 2>&1 &
        local storm=$!
        sleep 1
        H[$who,$r]=$(taskset -c 1 /usr/bin/python3 -c "$PROBE" "$port" "$secs")
        local done_before
        done_before=$(redis-cli -p "$port" info stats | tr -d '\r' |
            awk -F: '/^total_connections_received/ { print $2 }')
        kill "$storm" 2>/dev/null; wait "$storm" 2>/dev/null || true
        H[$who,$r,conn]=$done_before
        stop_server
    done; done
    echo
    echo "== handshake storm: redis-benchmark --tls -k 0 -c 20 -t ping_inline (RSA-4096 key)," \
         "a PING every 1 ms on the plain port for ${secs} s, $ROUNDS rounds =="
    printf '  %-6s %-5s %-22s %s\n' who round "probe p50/p99/max ms" "connections accepted"
    for who in verso redis; do for r in $(seq "$ROUNDS"); do
        printf '  %-6s %-5s %-22s %s\n' "$who" "$r" "${H[$who,$r]}" "${H[$who,$r,conn]}"
    done; done
    echo "  median worst PING: verso $(for r in $(seq "$ROUNDS"); do echo "${H[verso,$r]}" | awk '{print $3}'; done | median) ms," \
         "redis $(for r in $(seq "$ROUNDS"); do echo "${H[redis,$r]}" | awk '{print $3}'; done | median) ms"
    echo "  conditions: servers on core 0 (verso's handshake steps on its libuv thread pool, same core)," \
         "storm and probe on core 1"
}

for part in $PARTS; do
    case $part in
    throughput) throughput;;
    sync) sync_legs;;
    handshake) handshake;;
    *) echo "unknown part $part" >&2; exit 1;;
    esac
done
