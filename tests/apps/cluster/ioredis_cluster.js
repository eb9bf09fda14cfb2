// ioredis_cluster.js PORT: part of tests/integration/test_cluster_tools:
// ioredis's Cluster client (the copy BullMQ's packages installed in
// tests/apps/bullmq/node_modules) against the cluster whose node
// 127.0.0.1:PORT is a seed: writes and reads over many slots, a pipeline
// per slot, a hash-tagged MGET, a MULTI on one slot, keys scanned on every
// primary. Prints "cluster: ok ioredis" or "cluster: FAIL ioredis: what".
const path = require('path');
const Redis = require(path.join(__dirname, '..', 'bullmq', 'node_modules', 'ioredis'));

const port = Number(process.argv[2]);

function fail(msg) {
  console.log('cluster: FAIL ioredis: ' + msg);
  process.exit(1);
}

function eq(got, want, what) {
  if (JSON.stringify(got) !== JSON.stringify(want))
    fail(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

async function main() {
  const c = new Redis.Cluster([{ host: '127.0.0.1', port }], { maxRedirections: 32 });
  for (let i = 0; i < 300; i++) await c.set(`io:${i}`, `v${i}`);
  for (let i = 0; i < 300; i++) eq(await c.get(`io:${i}`), `v${i}`, `GET io:${i}`);
  await c.mset('{io}a', '1', '{io}b', '2');
  eq(await c.mget('{io}a', '{io}b'), ['1', '2'], 'MGET {io}');
  const m = await c.multi().incr('{io}n').incr('{io}n').exec();
  eq(m.map((r) => r[1]), [1, 2], 'MULTI on one slot');
  const p = c.pipeline();
  for (let i = 0; i < 50; i++) p.hset('{io}h', `f${i}`, i);
  await p.exec();
  eq(await c.hlen('{io}h'), 50, 'HLEN after a pipeline');
  let scanned = 0;
  for (const node of c.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', 'io:*', 'COUNT', 1000);
      scanned += keys.length;
      cursor = next;
    } while (cursor !== '0');
  }
  eq(scanned, 300, 'keys io:* over the primaries');
  try {
    await c.mget('io:1', 'io:2');
    fail('MGET across slots answered');
  } catch (e) {
    if (!/CROSSSLOT/.test(String(e.message)) && !/All keys in the pipeline/.test(String(e.message)))
      fail('MGET across slots: ' + e.message);
  }
  c.disconnect();
  console.log('cluster: ok ioredis');
}

main().catch((e) => fail(String(e && e.stack ? e.stack : e)));
