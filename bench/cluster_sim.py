"""bench/cluster_sim.py: `make bench-cluster-sim`: a cluster of NODES nodes
(half primaries, half replicas) on this machine, all verso or all
redis-server, one kind after the other, RUNS times interleaved. Per run:

  convergence  the primaries get their slots (ADDSLOTSRANGE, SET-CONFIG-EPOCH
               as redis-cli --cluster create does), then every node is told
               CLUSTER MEET node 1 at t = 0: the time until every node knows
               every other one (cluster_known_nodes = NODES, no handshake
               left) and says cluster_state:ok;
  replicas     CLUSTER REPLICATE for the second half: until every node sees
               every replica attached;
  bus traffic  messages sent and received per node per second over WINDOW s
               of steady state (CLUSTER INFO's counters), and the bytes they
               make (a PING/PONG is 2256 B + 104 B per gossip entry);
  detection    primary 1 is killed with -9 at t = 0: until the first and
               the last other node flags it `fail` (PFAIL agreed into FAIL);
  failover     until its replica is a primary owning its slots on every
               node and every node says cluster_state:ok.

Nodes: 127.0.0.1, free ports, maxmemory 32mb, no persistence, on all cores
(30 processes cannot be given a core each here). Prints one line per run
and the medians, verso/redis."""
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import redis

VERSO = os.environ['VERSO']
REDIS = os.environ.get('REDIS', '/usr/bin/redis-server')
NODES = int(os.environ.get('NODES') or 30)
RUNS = int(os.environ.get('RUNS') or 3)
NODE_TIMEOUT = int(os.environ.get('NODE_TIMEOUT') or 5000)
WINDOW = float(os.environ.get('WINDOW') or 10)
POLL = 0.02


def free_port_pair():
    # client and bus ports below the ephemeral range (32768-), so that no
    # outgoing connection holds the port a node is about to listen on
    while True:
        p = random.randrange(20000, 22700)
        s = socket.socket()
        try:
            s.bind(('127.0.0.1', p))
        except OSError:
            continue
        finally:
            s.close()
        if True:
            try:
                b = socket.socket()
                b.bind(('127.0.0.1', p + 10000))
                b.close()
                return p
            except OSError:
                pass


def start_nodes(binary, work):
    nodes = []
    for i in range(NODES):
        port = free_port_pair()
        d = os.path.join(work, str(port))
        os.makedirs(d)
        log = open(os.path.join(d, 'log'), 'w')
        proc = subprocess.Popen(
            [binary, '--port', str(port), '--bind', '127.0.0.1', '--dir', d,
             '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
             '--cluster-node-timeout', str(NODE_TIMEOUT), '--save', '', '--appendonly', 'no',
             '--maxmemory', '32mb'], stdout=log, stderr=subprocess.STDOUT, cwd=d)
        nodes.append({'port': port, 'proc': proc})
    for n in nodes:
        c = redis.Redis(port=n['port'], decode_responses=True, socket_timeout=5)
        for _ in range(500):
            try:
                c.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.01)
        # the raw replies (redis-py parses CLUSTER INFO and NODES its own way)
        for k in [k for k in c.response_callbacks if k.startswith('CLUSTER')]:
            del c.response_callbacks[k]
        n['c'] = c
        n['id'] = c.execute_command('CLUSTER MYID')
    return nodes


def info(c):
    return dict(line.split(':', 1) for line in
                c.execute_command('CLUSTER INFO').splitlines() if ':' in line)


def wait_until(pred, limit=120):
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > limit:
            raise RuntimeError('timed out')
        time.sleep(POLL)
    return time.monotonic() - t0


def node_lines(c):
    return [l.split() for l in c.execute_command('CLUSTER NODES').splitlines() if l]


def converged(nodes):
    for n in nodes:
        i = info(n['c'])
        if i.get('cluster_state') != 'ok' or int(i.get('cluster_known_nodes', 0)) != len(nodes):
            return False
        if any('handshake' in l[2] for l in node_lines(n['c'])):
            return False
    return True


def one_run(kind, binary):
    work = tempfile.mkdtemp(prefix='cluster-sim-')
    nodes = start_nodes(binary, work)
    try:
        half = NODES // 2
        per = 16384 // half
        for i, n in enumerate(nodes[:half]):
            lo = i * per
            hi = 16383 if i == half - 1 else lo + per - 1
            n['c'].execute_command('CLUSTER ADDSLOTSRANGE', lo, hi)
            n['c'].execute_command('CLUSTER SET-CONFIG-EPOCH', i + 1)
        t0 = time.monotonic()
        for n in nodes[1:]:
            n['c'].execute_command('CLUSTER MEET', '127.0.0.1', nodes[0]['port'])
        wait_until(lambda: converged(nodes))
        conv = time.monotonic() - t0

        t0 = time.monotonic()
        for i, n in enumerate(nodes[half:]):
            n['c'].execute_command('CLUSTER REPLICATE', nodes[i]['id'])

        def replicas_seen():
            for n in nodes:
                lines = node_lines(n['c'])
                if sum(1 for l in lines if 'slave' in l[2] and l[3] != '-') != NODES - half:
                    return False
            return True
        wait_until(replicas_seen)
        repl = time.monotonic() - t0

        before = [info(n['c']) for n in nodes]
        time.sleep(WINDOW)
        after = [info(n['c']) for n in nodes]
        sent = [int(a['cluster_stats_messages_sent']) - int(b['cluster_stats_messages_sent'])
                for a, b in zip(after, before)]
        msgs = statistics.mean(sent) / WINDOW
        gossip = max(3, NODES // 10)
        kb_s = msgs * (2256 + 104 * gossip) / 1024

        victim, heir = nodes[0], nodes[half]
        others = [n for n in nodes if n is not victim]
        victim['proc'].send_signal(signal.SIGKILL)
        victim['proc'].wait()
        t0 = time.monotonic()
        first = last = None
        flagged = set()
        while len(flagged) < len(others):
            for n in others:
                if n['port'] in flagged:
                    continue
                for l in node_lines(n['c']):
                    if l[0] == victim['id'] and 'fail' in l[2].split(','):
                        flagged.add(n['port'])
                        if first is None:
                            first = time.monotonic() - t0
                        break
            if time.monotonic() - t0 > 120:
                raise RuntimeError('FAIL never agreed')
            time.sleep(POLL)
        last = time.monotonic() - t0

        def failed_over():
            for n in others:
                mine = [l for l in node_lines(n['c']) if l[0] == heir['id']]
                if not mine or 'master' not in mine[0][2] or len(mine[0]) < 9:
                    return False
                if info(n['c']).get('cluster_state') != 'ok':
                    return False
            return True
        wait_until(failed_over)
        fo = time.monotonic() - t0
        return {'converge_s': conv, 'replicas_s': repl, 'msgs_s_node': msgs, 'kb_s_node': kb_s,
                'fail_first_s': first, 'fail_all_s': last, 'failover_s': fo}
    finally:
        for n in nodes:
            if n['proc'].poll() is None:
                n['proc'].kill()
                n['proc'].wait()
        shutil.rmtree(work, ignore_errors=True)


def main():
    rev = subprocess.run(['git', '-C', os.path.dirname(os.path.abspath(__file__)), 'rev-parse',
                          '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
    print('== bench-cluster-sim: %s %s; NODES=%d (half replicas) RUNS=%d '
          'cluster-node-timeout=%d ms, window %.0f s' %
          (time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()), rev, NODES, RUNS, NODE_TIMEOUT,
           WINDOW))
    res = {'verso': [], 'redis': []}
    for run in range(RUNS):
        for kind, binary in (('verso', VERSO), ('redis', REDIS)):
            r = one_run(kind, binary)
            res[kind].append(r)
            print('%s run %d: %s' % (kind, run + 1,
                                     ' '.join('%s=%.2f' % kv for kv in r.items())), flush=True)
    print('\nmedian of %d runs      verso      redis  verso/redis' % RUNS)
    for k in res['verso'][0]:
        v = statistics.median(r[k] for r in res['verso'])
        r = statistics.median(r[k] for r in res['redis'])
        print('%-16s %10.2f %10.2f %12.2f' % (k, v, r, v / r if r else float('nan')))


main()
