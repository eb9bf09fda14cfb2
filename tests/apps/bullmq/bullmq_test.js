// bullmq_test.js PORT PART: one part of tests/integration/test_bullmq, BullMQ
// (the Node.js job queue, pinned in package.json) against the server on
// 127.0.0.1:PORT. Each part builds its own queue, checks what BullMQ reports
// (job states, return values, counts, events, order of processing), closes
// every connection and prints "bullmq: ok PART"; any failed check prints
// "bullmq: FAIL PART: what" and exits 1. Parts: queue, delayed, priority,
// retry, flow, events.
'use strict';
const { Queue, Worker, QueueEvents, FlowProducer } = require('bullmq');

const port = Number(process.argv[2]);
const part = process.argv[3];
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
const qname = `verso-${part}`;
// The harness's time scale (5 under a sanitizer): every wait is scaled.
const scale = Number(process.env.VERSO_TIME_SCALE) || 1;
let step = 'start';
const closers = [];

function fail(msg) {
  console.log(`bullmq: FAIL ${part}: ${msg}`);
  process.exit(1);
}
function check(cond, msg) {
  if (!cond) fail(msg);
}
function eq(got, want, what) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  check(g === w, `${what}: got ${g}, want ${w}`);
}
// Resolves when pred() is true, polling every 20 ms; fails after ms (scaled).
async function waitFor(pred, what, ms = 10000) {
  const end = Date.now() + ms * scale;
  while (!(await pred())) {
    if (Date.now() > end) fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
function track(x) {
  closers.push(x);
  return x;
}
function queue() {
  return track(new Queue(qname, { connection }));
}
// A worker of queue name (concurrency 1) whose errors fail the part.
function worker(fn, name = qname) {
  const w = new Worker(name, fn, { connection, concurrency: 1 });
  w.on('error', (e) => fail(`worker error at ${step}: ${e && e.stack}`));
  return track(w);
}
const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed',
  'waiting-children'];
// The job counts of STATES (getJobCounts adds others, e.g. 'paused').
async function counts(q) {
  const all = await q.getJobCounts(...STATES);
  return Object.fromEntries(STATES.map((st) => [st, all[st]]));
}

// Five jobs through a worker: return values, states, getCompleted, counts.
async function partQueue() {
  const q = queue();
  step = 'add';
  const jobs = [];
  for (let n = 1; n <= 5; n++) jobs.push(await q.add('square', { n }));
  eq(jobs.map((j) => j.name), ['square', 'square', 'square', 'square', 'square'], 'job names');
  eq((await counts(q)).waiting, 5, 'waiting before the worker');
  eq(await jobs[0].getState(), 'waiting', 'state of a job before the worker');
  step = 'process';
  const seen = [];
  const w = worker(async (job) => {
    seen.push(job.data.n);
    return { sq: job.data.n * job.data.n };
  });
  await waitFor(async () => (await counts(q)).completed === 5, '5 completed jobs');
  eq(seen, [1, 2, 3, 4, 5], 'jobs processed in FIFO order');
  step = 'results';
  for (const j of jobs) {
    const got = await q.getJob(j.id);
    check(got, `getJob(${j.id}) found nothing`);
    eq(got.returnvalue, { sq: j.data.n * j.data.n }, `return value of job ${j.id}`);
    eq(await got.getState(), 'completed', `state of job ${j.id}`);
    check(got.finishedOn >= got.processedOn && got.processedOn >= got.timestamp,
      `job ${j.id} times: timestamp ${got.timestamp} processedOn ${got.processedOn} finishedOn ${got.finishedOn}`);
  }
  const done = await q.getCompleted();
  eq(done.map((j) => j.returnvalue.sq).sort((a, b) => a - b), [1, 4, 9, 16, 25],
    'getCompleted return values');
  eq(await counts(q), { waiting: 0, active: 0, delayed: 0, prioritized: 0, completed: 5, failed: 0,
    'waiting-children': 0 }, 'getJobCounts after the run');
  step = 'remove';
  await done[0].remove();
  eq((await q.getJobCounts('completed')).completed, 4, 'completed count after a remove');
  check((await q.getJob(done[0].id)) === undefined, 'a removed job is still found');
  await w.close();
}

// A delayed job waits in the delayed set, runs after its delay, and after
// a job added later without delay.
async function partDelayed() {
  const q = queue();
  const w = worker(async (job) => ({ at: Date.now(), name: job.name }));
  await w.waitUntilReady();
  step = 'add';
  const delay = 800 * scale;
  const t0 = Date.now();
  const late = await q.add('late', {}, { delay });
  const now = await q.add('now', {});
  eq(await late.getState(), 'delayed', 'state of the delayed job');
  eq((await q.getDelayed()).map((j) => j.id), [late.id], 'getDelayed');
  await waitFor(async () => (await q.getJobCounts('completed')).completed === 1, 'the undelayed job');
  eq(await now.getState(), 'completed', 'the undelayed job ran first');
  eq(await late.getState(), 'delayed', 'the delayed job still waits');
  step = 'delayed run';
  await waitFor(async () => (await late.getState()) === 'completed', 'the delayed job', 5000);
  const got = await q.getJob(late.id);
  check(got.returnvalue.at - t0 >= delay,
    `delayed job ran ${got.returnvalue.at - t0} ms after it was added (delay ${delay})`);
  check(got.processedOn - got.timestamp >= delay,
    `processedOn - timestamp = ${got.processedOn - got.timestamp} (delay ${delay})`);
  eq(await counts(q), { waiting: 0, active: 0, delayed: 0, prioritized: 0, completed: 2, failed: 0,
    'waiting-children': 0 }, 'getJobCounts after the run');
  await w.close();
}

// Jobs added before any worker run by priority (1 highest), a job without
// priority before all of them; equal priorities in the order added.
async function partPriority() {
  const q = queue();
  step = 'add';
  for (const [name, priority] of [['p5', 5], ['p1', 1], ['p3a', 3], ['p2', 2], ['p3b', 3], ['p4', 4]])
    await q.add(name, {}, { priority });
  await q.add('none', {});
  const c = await counts(q);
  eq([c.prioritized, c.waiting], [6, 1], '[prioritized, waiting] before the worker');
  const job = (await q.getPrioritized()).find((j) => j.name === 'p4');
  check(job && job.opts.priority === 4, 'getPrioritized lost p4 or its priority');
  step = 'process';
  const order = [];
  worker(async (j) => { order.push(j.name); });
  await waitFor(async () => order.length === 7, '7 processed jobs');
  eq(order, ['none', 'p1', 'p2', 'p3a', 'p3b', 'p4', 'p5'], 'order of processing');
  await waitFor(async () => (await q.getJobCounts('completed')).completed === 7, '7 completed');
}

// A job that fails twice then succeeds (attempts 3, fixed backoff 300 ms),
// and one that fails on each of its 2 attempts (exponential backoff).
async function partRetry() {
  const q = queue();
  const calls = {};
  worker(async (job) => {
    (calls[job.name] = calls[job.name] || []).push(Date.now());
    if (job.name === 'flaky' && calls.flaky.length <= 2) throw new Error(`flaky try ${calls.flaky.length}`);
    if (job.name === 'broken') throw new Error('always broken');
    return `ok after ${calls[job.name].length}`;
  });
  step = 'flaky';
  const flaky = await q.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 300 } });
  await waitFor(async () => (await flaky.getState()) === 'completed', 'the flaky job to complete');
  const f = await q.getJob(flaky.id);
  eq(f.returnvalue, 'ok after 3', 'flaky return value');
  eq(calls.flaky.length, 3, 'calls of the flaky job');
  eq(f.attemptsMade, 3, 'attemptsMade of the flaky job');
  eq(f.attemptsStarted, 3, 'attemptsStarted of the flaky job');
  eq(f.stacktrace.length, 2, 'stack traces kept of the flaky job');
  for (let i = 1; i < 3; i++)
    check(calls.flaky[i] - calls.flaky[i - 1] >= 300,
      `retry ${i} came ${calls.flaky[i] - calls.flaky[i - 1]} ms after the failure (backoff 300)`);
  step = 'broken';
  const broken = await q.add('broken', {}, { attempts: 2, backoff: { type: 'exponential', delay: 200 } });
  await waitFor(async () => (await broken.getState()) === 'failed', 'the broken job to fail');
  const b = await q.getJob(broken.id);
  eq(b.failedReason, 'always broken', 'failedReason');
  eq(b.attemptsMade, 2, 'attemptsMade of the broken job');
  eq(calls.broken.length, 2, 'calls of the broken job');
  check(b.stacktrace.length === 2 && b.stacktrace[0].includes('always broken'),
    `stacktrace of the broken job: ${JSON.stringify(b.stacktrace)}`);
  check(calls.broken[1] - calls.broken[0] >= 200,
    `the broken job's retry came ${calls.broken[1] - calls.broken[0]} ms after (backoff 200)`);
  eq((await q.getFailed()).map((j) => j.id), [broken.id], 'getFailed');
  const c = await counts(q);
  eq([c.completed, c.failed, c.delayed, c.waiting], [1, 1, 0, 0], '[completed, failed, delayed, waiting]');
  step = 'manual retry';
  calls.broken = [];
  await b.retry();
  await waitFor(async () => calls.broken.length === 1 && (await b.getState()) === 'failed',
    'the retried job to fail again');
}

// A parent with two children (one in another queue) waits for them, then
// runs and reads their results.
async function partFlow() {
  const q = queue();
  const other = `${qname}-other`;
  const q2 = track(new Queue(other, { connection }));
  const flows = track(new FlowProducer({ connection }));
  step = 'add flow';
  const tree = await flows.add({
    name: 'parent', queueName: qname, data: {},
    children: [
      { name: 'child1', queueName: qname, data: { v: 10 } },
      { name: 'child2', queueName: other, data: { v: 32 } },
    ],
  });
  eq(tree.children.length, 2, 'children of the flow');
  eq(await tree.job.getState(), 'waiting-children', 'state of the parent before its children');
  const deps = await tree.job.getDependenciesCount();
  eq([deps.processed, deps.unprocessed], [0, 2], '[processed, unprocessed] children before the run');
  step = 'run';
  const order = [];
  let childValues;
  const proc = async (job) => {
    order.push(job.name);
    if (job.name === 'parent') {
      childValues = await job.getChildrenValues();
      return Object.values(childValues).reduce((a, b) => a + b, 0);
    }
    return job.data.v;
  };
  worker(proc);
  worker(proc, other);
  await waitFor(async () => (await tree.job.getState()) === 'completed', 'the parent to complete');
  check(order.indexOf('parent') === 2 && order.includes('child1') && order.includes('child2'),
    `order of processing ${JSON.stringify(order)} (parent last)`);
  eq(Object.values(childValues).sort((a, b) => a - b), [10, 32], 'getChildrenValues in the parent');
  eq((await q.getJob(tree.job.id)).returnvalue, 42, 'return value of the parent');
  const after = await tree.job.getDependenciesCount();
  eq([after.processed, after.unprocessed], [2, 0], '[processed, unprocessed] children after the run');
  eq((await q2.getJobCounts('completed')).completed, 1, 'completed in the other queue');
}

// QueueEvents (a stream read with XREAD BLOCK) hears 'added', 'completed'
// and 'failed'; waitUntilFinished resolves or rejects on them; a listener
// from '0-0' replays the stream, one from '$' (the default) hears only new
// events.
async function partEvents() {
  const q = queue();
  // From the start of the (still missing) stream, so that no event is
  // missed while the first XREAD BLOCK is on its way.
  const ev = track(new QueueEvents(qname, { connection, lastEventId: '0-0' }));
  await ev.waitUntilReady();
  const heard = { added: [], completed: [], failed: [] };
  ev.on('added', (e) => heard.added.push(e.jobId));
  ev.on('completed', (e) => heard.completed.push([e.jobId, e.returnvalue]));
  ev.on('failed', (e) => heard.failed.push([e.jobId, e.failedReason]));
  step = 'add';
  const good = await q.add('good', { x: 7 });
  const bad = await q.add('bad', {});
  await waitFor(async () => heard.added.length === 2, "2 'added' events");
  eq(heard.added, [good.id, bad.id], "'added' events");
  step = 'process';
  worker(async (job) => {
    if (job.name === 'bad') throw new Error('bad job');
    return job.data.x * 6;
  });
  eq(await good.waitUntilFinished(ev, 10000 * scale), 42, 'waitUntilFinished of the good job');
  let err = null;
  try {
    await bad.waitUntilFinished(ev, 10000 * scale);
  } catch (e) {
    err = e;
  }
  check(err && err.message === 'bad job', `waitUntilFinished of the bad job threw ${err}`);
  await waitFor(async () => heard.completed.length === 1 && heard.failed.length === 1,
    "the 'completed' and 'failed' events");
  // returnvalue arrives as the JSON the worker stored
  eq(heard.completed.map(([id, v]) => [id, String(v)]), [[good.id, '42']], "'completed' events");
  eq(heard.failed, [[bad.id, 'bad job']], "'failed' events");
  step = 'replay';
  // A second listener from the start of the stream sees the same history.
  const ev2 = track(new QueueEvents(qname, { connection, lastEventId: '0-0' }));
  const replay = [];
  ev2.on('completed', (e) => replay.push(e.jobId));
  await waitFor(async () => replay.length === 1, "the replayed 'completed' event");
  eq(replay, [good.id], "replayed 'completed' events");
  step = 'new events only';
  // The default listener ('$') hears only what is added after its first
  // XREAD: jobs are added until it hears one, none of the earlier ones.
  const ev3 = track(new QueueEvents(qname, { connection }));
  await ev3.waitUntilReady();
  const fresh = [], late = [];
  ev3.on('added', (e) => fresh.push(e.jobId));
  await waitFor(async () => {
    if (fresh.length === 0) late.push((await q.add('late', {})).id);
    return fresh.length > 0;
  }, "an 'added' event on the '$' listener", 5000);
  check(fresh.every((id) => late.includes(id)),
    `the '$' listener heard ${JSON.stringify(fresh)}, not only the later jobs ${JSON.stringify(late)}`);
}

const parts = { queue: partQueue, delayed: partDelayed, priority: partPriority, retry: partRetry,
  flow: partFlow, events: partEvents };

async function main() {
  check(port > 0 && parts[part], `usage: bullmq_test.js PORT ${Object.keys(parts).join('|')}`);
  setTimeout(() => fail(`timed out (${30 * scale} s) at ${step}`), 30000 * scale).unref();
  await parts[part]();
  step = 'close';
  for (const c of closers.reverse()) await c.close();
  console.log(`bullmq: ok ${part}`);
  process.exit(0);
}
process.on('unhandledRejection', (e) => fail(`unhandled rejection at ${step}: ${e && e.stack}`));
main().catch((e) => fail(`at ${step}: ${e && e.stack}`));
