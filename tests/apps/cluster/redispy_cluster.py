"""redispy_cluster.py PORT PART: one part of tests/integration/test_cluster_tools,
redis-py's RedisCluster (Debian's python3-redis) against the cluster whose
node 127.0.0.1:PORT is a seed. Prints "cluster: ok PART", or
"cluster: FAIL PART: what" and exits 1.

Parts:
  types     every type written across many slots and read back through the
            cluster client (strings, hashes, lists, sets, sorted sets,
            streams, HyperLogLog, geo, bitmaps), multi-key commands with a
            hash tag, a cluster pipeline, keys counted per node.
  workload  writes (SET, INCR, RPUSH, HSET, SADD, ZADD, XADD over 2100 keys)
            until the file given as the third argument exists, then checks
            that every acknowledged write is there; prints the counts of
            writes and of retried errors.
  verify    reads back what `types` wrote (after a reshard or failover)."""
import logging
import os
import sys
import time

from redis.cluster import RedisCluster, ClusterNode
from redis.exceptions import ClusterDownError, ConnectionError, TryAgainError, TimeoutError

PORT = int(sys.argv[1])
PART = sys.argv[2]
SCALE = int(os.environ.get('VERSO_TIME_SCALE') or 1)
# redis-py logs every MOVED/ASK it follows with a traceback: not failures
logging.disable(logging.CRITICAL)


def fail(msg):
    print('cluster: FAIL %s: %s' % (PART, msg))
    sys.exit(1)


def eq(got, want, what):
    if got != want:
        fail('%s: got %r, want %r' % (what, got, want))


def client():
    return RedisCluster(startup_nodes=[ClusterNode('127.0.0.1', PORT)],
                        decode_responses=True, socket_timeout=10 * SCALE,
                        cluster_error_retry_attempts=10)


N = 200


def write_types(rc):
    for i in range(N):
        rc.set('s:%d' % i, 'v%d' % i)
        rc.hset('h:%d' % i, mapping={'a': i, 'b': 'x%d' % i})
        rc.rpush('l:%d' % i, *[str(j) for j in range(i % 7 + 1)])
        rc.sadd('set:%d' % i, *['m%d' % j for j in range(i % 5 + 1)])
        rc.zadd('z:%d' % i, {'m%d' % j: j * 1.5 for j in range(i % 6 + 1)})
        rc.xadd('x:%d' % i, {'f': i}, id='%d-1' % (i + 1))
        rc.pfadd('hll:%d' % i, *['e%d' % j for j in range(10)])
        rc.setbit('bit:%d' % i, i, 1)
    rc.geoadd('geo', [13.361389, 38.115556, 'Palermo', 15.087269, 37.502669, 'Catania'])


def check_types(rc):
    for i in range(N):
        eq(rc.get('s:%d' % i), 'v%d' % i, 'GET s:%d' % i)
        eq(rc.hgetall('h:%d' % i), {'a': str(i), 'b': 'x%d' % i}, 'HGETALL h:%d' % i)
        eq(rc.lrange('l:%d' % i, 0, -1), [str(j) for j in range(i % 7 + 1)], 'LRANGE l:%d' % i)
        eq(rc.smembers('set:%d' % i), {'m%d' % j for j in range(i % 5 + 1)}, 'SMEMBERS set:%d' % i)
        eq(rc.zrange('z:%d' % i, 0, -1, withscores=True),
           [('m%d' % j, j * 1.5) for j in range(i % 6 + 1)], 'ZRANGE z:%d' % i)
        eq(rc.xrange('x:%d' % i), [('%d-1' % (i + 1), {'f': str(i)})], 'XRANGE x:%d' % i)
        eq(rc.pfcount('hll:%d' % i), 10, 'PFCOUNT hll:%d' % i)
        eq(rc.getbit('bit:%d' % i, i), 1, 'GETBIT bit:%d' % i)
    eq(round(rc.geodist('geo', 'Palermo', 'Catania', unit='km'), 1), 166.3, 'GEODIST')


def part_types():
    rc = client()
    rc.flushall(target_nodes=RedisCluster.PRIMARIES)
    write_types(rc)
    check_types(rc)
    # multi-key commands on one slot (hash tag), and a cross-slot refusal
    rc.mset({'{u}a': '1', '{u}b': '2'})
    eq(rc.mget('{u}a', '{u}b'), ['1', '2'], 'MGET {u}')
    eq(rc.sinterstore('{u}dst', ['{u}s1', '{u}s2']), 0, 'SINTERSTORE {u}')
    # a pipeline over many slots
    p = rc.pipeline()
    for i in range(100):
        p.incr('c:%d' % i)
    eq(p.execute(), [1] * 100, 'pipeline INCR')
    # every primary holds part of the keys, and the counts add up
    per_node = rc.dbsize(target_nodes=RedisCluster.PRIMARIES)
    total = sum(per_node.values()) if isinstance(per_node, dict) else per_node
    eq(total, 8 * N + 1 + 2 + 100, 'keys over the primaries')
    # pub/sub through the cluster: a message published on any node reaches
    # a subscriber connected to another one
    nodes = rc.get_primaries()
    sub_node = rc.get_redis_connection(nodes[0])
    pub_node = rc.get_redis_connection(nodes[-1])
    ps = sub_node.pubsub()
    ps.subscribe('news')
    deadline = time.time() + 5 * SCALE
    while time.time() < deadline:
        m = ps.get_message(timeout=0.1)
        if m and m['type'] == 'subscribe':
            break
    pub_node.publish('news', 'hello')
    got = None
    deadline = time.time() + 5 * SCALE
    while time.time() < deadline and got is None:
        m = ps.get_message(timeout=0.1)
        if m and m['type'] == 'message':
            got = m['data']
    eq(got, 'hello', 'PUBLISH on another node')


def part_verify():
    check_types(client())


def part_workload():
    """Writes of seven types to 2100 keys until the stop file exists; every
    acknowledged write is checked at the end. A write that failed with an
    error a client retries (CLUSTERDOWN, TRYAGAIN, a dropped connection)
    has an unknown outcome: the key is reread into the model."""
    stop = sys.argv[3]
    rc = client()
    run = 'w%d' % (time.time_ns() % 10**9)   # keys of this run only
    kinds = ['s', 'c', 'l', 'h', 'set', 'z', 'x']
    model = {}          # key -> the value it must hold
    writes = retried = 0
    i = 0

    def key_of(k):
        return '%s:%s:%d' % (run, kinds[k % len(kinds)], k)

    def reread(kind, key):
        if kind == 's':
            return rc.get(key)
        if kind == 'c':
            return int(rc.get(key) or 0)
        if kind == 'l':
            return rc.lrange(key, 0, -1)
        if kind == 'h':
            return rc.hget(key, 'f')
        if kind == 'set':
            return rc.smembers(key)
        if kind == 'z':
            return rc.zrange(key, 0, -1, withscores=True)
        return [e[0] for e in rc.xrange(key)]

    while not os.path.exists(stop):
        k = i % 2100
        kind = kinds[k % len(kinds)]
        key = key_of(k)
        try:
            if kind == 's':
                rc.set(key, 'v%d' % i)
                model[key] = 'v%d' % i
            elif kind == 'c':
                model[key] = rc.incr(key)
            elif kind == 'l':
                n = rc.rpush(key, str(i))
                model.setdefault(key, []).append(str(i))
                eq(n, len(model[key]), 'RPUSH length')
            elif kind == 'h':
                rc.hset(key, 'f', str(i))
                model[key] = str(i)
            elif kind == 'set':
                rc.sadd(key, 'm%d' % (i % 50))
                model.setdefault(key, set()).add('m%d' % (i % 50))
            elif kind == 'z':
                rc.zadd(key, {'m%d' % (i % 20): float(i)})
                z = dict(model.get(key, []))
                z['m%d' % (i % 20)] = float(i)
                model[key] = sorted(z.items(), key=lambda kv: (kv[1], kv[0]))
            else:
                eid = rc.xadd(key, {'f': i}, id='%d-1' % (i + 1))
                model.setdefault(key, []).append(eid)
            writes += 1
        except (ClusterDownError, TryAgainError, ConnectionError, TimeoutError):
            retried += 1
            time.sleep(0.05)
            model[key] = reread(kind, key)
        i += 1
    for key, want in model.items():
        kind = key.split(':')[1]
        eq(reread(kind, key), want, 'acknowledged writes of %s' % key)
    if writes < 100:
        fail('only %d writes' % writes)
    print('cluster: writes=%d retried=%d' % (writes, retried))


{'types': part_types, 'verify': part_verify, 'workload': part_workload}[PART]()
print('cluster: ok %s' % PART)
