/* replica_load: a full sync's payload, received on the main thread and
 * loaded on a thread into fresh tables (see replica_int.h).
 *
 * Threads: the main thread owns everything here except what the loader
 * thread touches: rfd (it reads and closes it), tables (it creates and
 * fills them), rc, err and st (its result). The loader writes those before
 * uv_async_send; the main thread reads them only after pthread_join in the
 * async callback, so the join orders them. The bytes cross through a pipe
 * (the main thread writes it with libuv, never blocking: when the loader
 * lags, the caller stops reading the socket until resume). */
#include "replica_int.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "rdb_io.h"
#include "restore.h"
#include "snap.h"
#include "db.h"
#include "evict.h"
#include "function.h"
#include "hooks.h"
#include "lazyfree.h"
#include "log.h"
#include "util.h"
#include "repl_int.h"

#define MARK_LEN 40
#define PIPE_HIGH (16u << 20) /* bytes in flight to the pipe: stop reading */
#define PIPE_LOW (4u << 20)   /* ... and read again below this */

struct rl_payload {
    /* main thread */
    int eof;                  /* "$EOF:<mark>" (else "$<len>") */
    char mark[MARK_LEN];
    long long total;          /* $<len>, or -1 */
    long long received;       /* payload bytes seen (with the mark) */
    vbuf held;                /* EOF form: bytes kept back (maybe the mark) */
    uv_pipe_t pipe;           /* the pipe's write end */
    size_t inflight;          /* bytes written to the pipe, not yet taken */
    int was_full;
    int complete;             /* the last payload byte arrived */
    int pipe_closing, pipe_closed;
    int thread_done, async_started, async_closed;
    int cancelled, reported;
    rl_done_fn *done;
    rl_resume_fn *resume;
    uv_async_t async;
    pthread_t th;
    int ntables;
    uint32_t access;          /* evict_new_clock() for every key */
    int key_load_delay;       /* key-load-delay when the load started */
    /* the loader thread's until the join (see the top of the file) */
    int rfd;
    vt **tables;
    int rc;
    char err[RDB_ERRLEN];
    rdb_load_stats st;
};

typedef struct pipe_write {
    uv_write_t req;
    rl_payload *p;
    size_t len;
    char data[];
} pipe_write;

static void *loader_main(void *opaque) {
    rl_payload *p = opaque;
    for (int i = 0; i < p->ntables; i++) p->tables[i] = vt_create();
    source *src = source_fd_open(p->rfd, "MASTER payload");
    p->rc = restore_into_tables(src, p->tables, p->ntables, p->access, p->key_load_delay,
                                &p->st, p->err, sizeof p->err);
    source_free(src);
    close(p->rfd);
    uv_async_send(&p->async);
    return NULL;
}

static void free_tables(rl_payload *p) {
    for (int i = 0; i < p->ntables; i++)
        if (p->tables[i]) lazyfree_table(p->tables[i], 1);
    free(p->tables);
    p->tables = NULL;
}

/* Frees p once the pipe and the async handle are closed. */
static void maybe_free(rl_payload *p) {
    if (!p->pipe_closed || !p->async_closed || !p->reported) return;
    if (p->tables) free_tables(p);
    function_codes_free(p->st.functions, p->st.nfunctions);
    vbuf_free(&p->held);
    free(p);
}

static void on_pipe_closed(uv_handle_t *h) {
    rl_payload *p = h->data;
    p->pipe_closed = 1;
    maybe_free(p);
}

static void close_pipe(rl_payload *p) {
    if (p->pipe_closing) return;
    p->pipe_closing = 1;
    uv_close((uv_handle_t *)&p->pipe, on_pipe_closed); /* closes the fd: the loader sees EOF */
}

/* Both ended well (loader done, last byte seen and handed over). */
static void maybe_report(rl_payload *p) {
    if (p->reported || p->cancelled || !p->thread_done) return;
    if (p->rc != 0) {
        p->reported = 1;
        close_pipe(p);
        char why[RDB_ERRLEN + 64];
        snprintf(why, sizeof why, "%s", p->err);
        p->done(0, why);
        maybe_free(p);
        return;
    }
    if (!p->complete) return; /* the RDB ended; its EOF mark is still to come */
    p->reported = 1;
    close_pipe(p);
    log_notice("MASTER <-> REPLICA sync: Loaded %llu keys (%llu payload bytes)",
               (unsigned long long)p->st.keys_loaded, (unsigned long long)p->received);
    p->done(1, NULL);
}

static void on_async_closed(uv_handle_t *h) {
    rl_payload *p = h->data;
    p->async_closed = 1;
    maybe_free(p);
}

static void on_loader_done(uv_async_t *a) {
    rl_payload *p = a->data;
    pthread_join(p->th, NULL);
    server.async_loading = 0;
    p->thread_done = 1;
    uv_close((uv_handle_t *)&p->async, on_async_closed);
    if (p->cancelled) {
        p->reported = 1;
        close_pipe(p);
        maybe_free(p);
        return;
    }
    maybe_report(p);
}

static void on_pipe_write(uv_write_t *req, int status) {
    pipe_write *w = (pipe_write *)req;
    rl_payload *p = w->p;
    p->inflight -= w->len;
    free(w);
    /* A failed write means the loader stopped reading (it failed, its
     * error is what gets reported) or the pipe is being closed. */
    (void)status;
    if (p->complete && p->inflight == 0 && !p->cancelled) close_pipe(p);
    if (p->was_full && p->inflight < PIPE_LOW && !p->cancelled && !p->reported) {
        p->was_full = 0;
        p->resume();
    }
}

static void to_pipe(rl_payload *p, const char *data, size_t n) {
    if (n == 0 || p->pipe_closing) return;
    pipe_write *w = xmalloc(sizeof *w + n);
    memcpy(w->data, data, n);
    w->p = p;
    w->len = n;
    uv_buf_t b = uv_buf_init(w->data, (unsigned)n);
    int rc = uv_write(&w->req, (uv_stream_t *)&p->pipe, &b, 1, on_pipe_write);
    if (rc != 0) {
        free(w); /* the loader has stopped: its own error is reported */
        return;
    }
    p->inflight += n;
    if (p->inflight > PIPE_HIGH) p->was_full = 1;
}

rl_payload *payload_start(const char *mark, long long len, rl_done_fn *done,
                          rl_resume_fn *resume, char *err, size_t errlen) {
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return NULL;
    }
    rl_payload *p = xcalloc(1, sizeof *p);
    p->eof = mark != NULL;
    if (mark) memcpy(p->mark, mark, MARK_LEN);
    p->total = mark ? -1 : len;
    p->done = done;
    p->resume = resume;
    p->rfd = fds[0];
    p->ntables = server.cfg.databases;
    p->tables = xcalloc((size_t)p->ntables, sizeof(vt *));
    p->access = evict_new_clock();
    p->key_load_delay = server.cfg.key_load_delay; /* the loader thread's copy */
    uv_pipe_init(server.loop, &p->pipe, 0);
    p->pipe.data = p;
    int rc = uv_pipe_open(&p->pipe, fds[1]);
    if (rc == 0) {
        uv_async_init(server.loop, &p->async, on_loader_done);
        p->async.data = p;
        int e = pthread_create(&p->th, NULL, loader_main, p);
        if (e != 0) {
            rc = uv_translate_sys_error(e);
            uv_close((uv_handle_t *)&p->async, on_async_closed);
        } else {
            p->async_started = 1;
            server.async_loading = 1; /* INFO: the old data is served meanwhile */
        }
    } else {
        close(fds[1]);
        p->async_closed = 1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "starting the loader: %s", uv_strerror(rc));
        close(fds[0]);
        p->reported = 1;
        close_pipe(p); /* p is freed by the close callbacks */
        return NULL;
    }
    if (p->total == 0) p->complete = 1;
    return p;
}

size_t payload_feed(rl_payload *p, const char *buf, size_t n, int *complete) {
    *complete = 0;
    if (p->complete) {
        *complete = 1;
        return 0;
    }
    size_t used;
    if (!p->eof) {
        long long left = p->total - p->received;
        used = (long long)n < left ? n : (size_t)left;
        to_pipe(p, buf, used);
        p->received += (long long)used;
        if (p->received == p->total) p->complete = 1;
    } else {
        size_t before = p->held.len; /* < MARK_LEN: it cannot hold the mark */
        vbuf_append(&p->held, buf, n);
        const char *at = memmem(p->held.data, p->held.len, p->mark, MARK_LEN);
        if (at) {
            size_t pos = (size_t)(at - p->held.data);
            to_pipe(p, p->held.data, pos);
            used = pos + MARK_LEN - before;
            p->complete = 1;
            p->held.len = 0;
        } else {
            size_t keep = p->held.len < MARK_LEN - 1 ? p->held.len : MARK_LEN - 1;
            to_pipe(p, p->held.data, p->held.len - keep);
            vbuf_consume(&p->held, p->held.len - keep);
            used = n;
        }
        p->received += (long long)used;
    }
    if (p->complete) {
        *complete = 1;
        if (p->inflight == 0) close_pipe(p);
    }
    return used;
}

void payload_settle(rl_payload *p) { maybe_report(p); }

int payload_full(const rl_payload *p) { return p->was_full; }

int payload_swap(rl_payload *p) {
    assert(p->reported && p->thread_done && p->rc == 0);
    int stream_db = p->st.repl_stream_db;
    hooks_before_flush(); /* a running save of the old data is aborted */
    for (int i = 0; i < p->ntables; i++) {
        db_replace_table(db_get(i), p->tables[i], 1);
        p->tables[i] = NULL;
    }
    free(p->tables);
    p->tables = NULL;
    /* the master's function libraries replace ours, as its data does */
    char *ferr = NULL;
    if (function_replace_all(p->st.functions, p->st.nfunctions, &ferr) != 0) {
        log_warning("MASTER <-> REPLICA sync: Failed loading the master's functions: %s", ferr);
        free(ferr);
    }
    function_codes_free(p->st.functions, p->st.nfunctions);
    p->st.functions = NULL;
    p->st.nfunctions = 0;
    snap_loaded_staged(&p->st); /* the master's staged slots replace ours */
    maybe_free(p);
    return stream_db;
}

void payload_cancel(rl_payload *p) {
    assert(!p->reported);
    p->cancelled = 1;
    close_pipe(p); /* the loader reads EOF and stops; on_loader_done frees */
}

long long payload_total(const rl_payload *p) { return p->total; }
long long payload_received(const rl_payload *p) { return p->received; }
int payload_complete(const rl_payload *p) { return p->complete; }
