"""rq_jobs: the job functions of rq_test.py (tests/integration/test_rq),
in a module of their own so that an rq worker (a forked work horse, or the
`rq worker` command with --path here) imports them by name."""
from rq import get_current_job


def add(a, b):
    return a + b


def describe(name, **kw):
    return {'name': name, 'kw': kw}


def boom(msg):
    raise ValueError(msg)


def flaky(key, fail_times):
    """Fails its first fail_times runs (counted in the key `key`), then
    returns the number of runs."""
    n = get_current_job().connection.incr(key)
    if n <= fail_times:
        raise RuntimeError('flaky run %d' % n)
    return n


def record(key, tag):
    """Appends tag to the list `key` (the order in which jobs ran)."""
    get_current_job().connection.rpush(key, tag)
    return tag


def parent_result(job_id):
    """The return value of the job job_id (a dependency of this one)."""
    from rq.job import Job
    return Job.fetch(job_id, connection=get_current_job().connection).return_value()
