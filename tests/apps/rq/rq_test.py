"""rq_test.py PORT PART: one part of tests/integration/test_rq, rq (the
Python job queue, Debian's python3-rq) against the server on
127.0.0.1:PORT. Each part enqueues jobs of rq_jobs.py, runs a worker in
burst mode (the `rq worker --burst` command, or Worker.work(burst=True)),
checks what rq reports (statuses, results from the results stream, the
registries, exception info), and prints "rq: ok PART"; a failed check
prints "rq: FAIL PART: what" and exits 1. Parts: results, failed, retry,
depends, scheduled."""
import os
import subprocess
import sys
import time
import warnings
from datetime import timedelta

from redis import Redis
from rq import Queue, Retry, Worker
from rq.job import Job, JobStatus
from rq.registry import (DeferredJobRegistry, FailedJobRegistry,
                         FinishedJobRegistry, ScheduledJobRegistry,
                         StartedJobRegistry)
from rq.results import Result

import rq_jobs

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = int(sys.argv[1])
PART = sys.argv[2]
# The harness's time scale (5 under a sanitizer): every wait is scaled.
SCALE = int(os.environ.get('VERSO_TIME_SCALE') or 1)
warnings.simplefilter('ignore', DeprecationWarning)   # job.result, job.exc_info


def fail(msg):
    print('rq: FAIL %s: %s' % (PART, msg))
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def eq(got, want, what):
    check(got == want, '%s: got %r, want %r' % (what, got, want))


def burst(r, q, scheduler=False):
    """Runs a worker on q until the queue is empty; True if it did work."""
    w = Worker([q], connection=r, name='verso-%s-%d' % (PART, time.monotonic_ns()))
    return w.work(burst=True, with_scheduler=scheduler, logging_level='WARNING')


def part_results(r):
    """Jobs run by the `rq worker --burst` command: return values (job.
    return_value, job.result, the Result stream), statuses, registries."""
    q = Queue('verso', connection=r)
    j1 = q.enqueue(rq_jobs.add, 2, 40)
    j2 = q.enqueue(rq_jobs.describe, 'x', k=[1, 2], result_ttl=600)
    j3 = q.enqueue('rq_jobs.add', 'ab', 'cd', job_id='by-name')
    eq(q.count, 3, 'queue length before the worker')
    eq(q.job_ids, [j1.id, j2.id, 'by-name'], 'queued job ids')
    eq(j1.get_status(), JobStatus.QUEUED, 'status before the worker')
    check(j1.return_value() is None, 'a return value before the job ran')
    out = subprocess.run(['/usr/bin/rq', 'worker', '--burst', '--url',
                          'redis://127.0.0.1:%d' % PORT, '--path', HERE, 'verso'],
                         capture_output=True, text=True, timeout=30 * SCALE)
    check(out.returncode == 0, 'rq worker --burst exited %d:\n%s%s'
          % (out.returncode, out.stdout, out.stderr))
    eq(q.count, 0, 'queue length after the worker')
    for job, want in ((j1, 42), (j2, {'name': 'x', 'kw': {'k': [1, 2]}}), (j3, 'abcd')):
        job = Job.fetch(job.id, connection=r)
        eq(job.get_status(), JobStatus.FINISHED, 'status of %s' % job.id)
        eq(job.return_value(), want, 'return_value of %s' % job.id)
        eq(job.result, want, 'result of %s' % job.id)
        res = job.results()
        eq([x.type for x in res], [Result.Type.SUCCESSFUL], 'results of %s' % job.id)
        eq(res[0].return_value, want, 'Result.return_value of %s' % job.id)
        check(job.ended_at >= job.started_at >= job.enqueued_at,
              '%s times: enqueued %s started %s ended %s'
              % (job.id, job.enqueued_at, job.started_at, job.ended_at))
    eq(sorted(FinishedJobRegistry(queue=q).get_job_ids()), sorted([j1.id, j2.id, 'by-name']),
       'FinishedJobRegistry')
    eq(StartedJobRegistry(queue=q).count, 0, 'StartedJobRegistry after the worker')
    ttl = r.ttl(Result.get_key(j2.id))
    check(500 < ttl <= 600, 'TTL of the results stream with result_ttl=600: %d' % ttl)
    eq(len(Worker.all(connection=r)), 0, 'workers left registered')


def part_failed(r):
    """A job that raises lands in the FailedJobRegistry with its traceback."""
    q = Queue('verso', connection=r)
    bad = q.enqueue(rq_jobs.boom, 'no way')
    good = q.enqueue(rq_jobs.add, 1, 1)
    check(burst(r, q), 'the worker did no work')
    bad = Job.fetch(bad.id, connection=r)
    eq(bad.get_status(), JobStatus.FAILED, 'status of the failing job')
    reg = FailedJobRegistry(queue=q)
    eq(reg.get_job_ids(), [bad.id], 'FailedJobRegistry')
    exc = bad.exc_info
    check(exc and 'ValueError: no way' in exc and 'Traceback' in exc,
          'exc_info of the failed job: %r' % exc)
    latest = bad.latest_result()
    check(latest and latest.type == Result.Type.FAILED and 'ValueError: no way' in latest.exc_string,
          'latest_result of the failed job: %r' % (latest and latest.exc_string))
    check(bad.return_value() is None, 'a return value for a failed job')
    eq(Job.fetch(good.id, connection=r).return_value(), 2, 'the job after the failing one')
    # requeue from the registry: it runs (and fails) again
    reg.requeue(bad.id)
    eq(q.job_ids, [bad.id], 'queue after requeue')
    burst(r, q)
    bad = Job.fetch(bad.id, connection=r)
    eq([x.type for x in bad.results()], [Result.Type.FAILED, Result.Type.FAILED],
       'results after the requeued run (latest first)')
    eq(reg.get_job_ids(), [bad.id], 'FailedJobRegistry after the second failure')


def part_retry(r):
    """Retry(max=2): a job that fails twice then succeeds, one that fails
    every time and ends in the FailedJobRegistry."""
    q = Queue('verso', connection=r)
    ok = q.enqueue(rq_jobs.flaky, 'runs:ok', 2, retry=Retry(max=2))
    never = q.enqueue(rq_jobs.flaky, 'runs:never', 99, retry=Retry(max=2))
    burst(r, q)
    ok = Job.fetch(ok.id, connection=r)
    eq(ok.get_status(), JobStatus.FINISHED, 'status of the job that succeeds on its 3rd run')
    eq(ok.return_value(), 3, 'return value (runs) of that job')
    eq(int(r.get('runs:ok')), 3, 'runs of that job')
    eq(ok.retries_left, 0, 'retries_left of that job')
    # a run that fails and is retried leaves no Result
    eq([x.type for x in ok.results()], [Result.Type.SUCCESSFUL], 'results of that job')
    never = Job.fetch(never.id, connection=r)
    eq(never.get_status(), JobStatus.FAILED, 'status of the job that always fails')
    eq(int(r.get('runs:never')), 3, 'runs of that job (1 + 2 retries)')
    eq(FailedJobRegistry(queue=q).get_job_ids(), [never.id], 'FailedJobRegistry')
    check('flaky run 3' in never.exc_info, 'exc_info of that job: %r' % never.exc_info)


def part_depends(r):
    """depends_on: a job waits deferred until its dependencies finished,
    then runs after them; a job depending on a failed one stays deferred."""
    q = Queue('verso', connection=r)
    a = q.enqueue(rq_jobs.record, 'order', 'a')
    b = q.enqueue(rq_jobs.record, 'order', 'b', depends_on=a)
    c = q.enqueue(rq_jobs.parent_result, b.id, depends_on=[a, b])
    bad = q.enqueue(rq_jobs.boom, 'dep fails')
    orphan = q.enqueue(rq_jobs.record, 'order', 'orphan', depends_on=bad)
    eq(b.get_status(), JobStatus.DEFERRED, 'status of a dependent job before the worker')
    eq(sorted(DeferredJobRegistry(queue=q).get_job_ids()), sorted([b.id, c.id, orphan.id]),
       'DeferredJobRegistry before the worker')
    eq(q.job_ids, [a.id, bad.id], 'queued jobs (dependents are not)')
    burst(r, q)
    eq([x.decode() for x in r.lrange('order', 0, -1)], ['a', 'b'], 'order of the runs')
    eq(Job.fetch(c.id, connection=r).return_value(), 'b', 'result of the job depending on a and b')
    eq(Job.fetch(orphan.id, connection=r).get_status(), JobStatus.DEFERRED,
       'status of the job whose dependency failed')
    eq(DeferredJobRegistry(queue=q).get_job_ids(), [orphan.id], 'DeferredJobRegistry after')


def part_scheduled(r):
    """enqueue_in: the job waits in the ScheduledJobRegistry until due; a
    burst worker with the scheduler enqueues and runs it then."""
    q = Queue('verso', connection=r)
    t0 = time.time()
    job = q.enqueue_in(timedelta(seconds=2 * SCALE), rq_jobs.add, 20, 22)
    eq(job.get_status(), JobStatus.SCHEDULED, 'status of the scheduled job')
    eq(ScheduledJobRegistry(queue=q).get_job_ids(), [job.id], 'ScheduledJobRegistry')
    eq(q.count, 0, 'queue length while the job is scheduled')
    burst(r, q, scheduler=True)
    check(time.time() - t0 < 1.5 * SCALE, 'the first worker took %.1f s' % (time.time() - t0))
    eq(job.get_status(), JobStatus.SCHEDULED, 'status before it is due')
    time.sleep(max(0.0, t0 + 2 * SCALE + 0.1 - time.time()))
    burst(r, q, scheduler=True)
    job = Job.fetch(job.id, connection=r)
    eq(job.get_status(), JobStatus.FINISHED, 'status after it was due')
    eq(job.return_value(), 42, 'return value of the scheduled job')
    eq(ScheduledJobRegistry(queue=q).count, 0, 'ScheduledJobRegistry after')


PARTS = {'results': part_results, 'failed': part_failed, 'retry': part_retry,
         'depends': part_depends, 'scheduled': part_scheduled}

if __name__ == '__main__':
    if PART not in PARTS:
        fail('usage: rq_test.py PORT %s' % '|'.join(PARTS))
    conn = Redis(host='127.0.0.1', port=PORT, socket_timeout=30 * SCALE)
    PARTS[PART](conn)
    print('rq: ok %s' % PART)
