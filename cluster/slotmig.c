/* slotmig: the log of atomic slot migrations, both directions (what
 * CLUSTER GETSLOTMIGRATIONS lists; slotmig.h), and the registration of
 * both sides. In memory only, as Valkey's: a restart forgets it. Main
 * thread only. */
#include "slotmig.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "db.h"
#include "db_slots.h"
#include "log.h"
#include "snap.h"
#include "util.h"

/* Ended jobs kept (Valkey's cluster-slot-migration-log-max-len default);
 * active ones are always kept. */
#define SM_LOG_MAX 1000

static sm_job *jobs; /* newest first */

static const char *const state_names[] = {
    [SM_CONNECTING] = "connecting",  [SM_WAITING_SAVE] = "waiting_to_snapshot",
    [SM_SNAPSHOT] = "snapshotting",  [SM_STREAMING] = "streaming",
    [SM_PAUSED] = "waiting_for_target", [SM_SUCCESS] = "success",
    [SM_FAILED] = "failed",          [SM_CANCELLED] = "cancelled",
};

const char *sm_state_name(int state) {
    assert(state >= 0 && state <= SM_CANCELLED);
    return state_names[state];
}

int sm_job_active(const sm_job *j) { return j->state < SM_SUCCESS; }

sm_job *sm_jobs(void) { return jobs; }

/* Frees the oldest ended jobs beyond SM_LOG_MAX. */
static void trim(void) {
    size_t ended = 0;
    for (sm_job **p = &jobs; *p;) {
        sm_job *j = *p;
        if (!sm_job_active(j) && ++ended > SM_LOG_MAX) {
            *p = j->next;
            free(j);
        } else {
            p = &j->next;
        }
    }
}

sm_job *sm_job_new(int op, const char *name, const uint8_t *slots) {
    sm_job *j = xcalloc(1, sizeof *j);
    j->op = op;
    if (name) memcpy(j->name, name, CL_NAMELEN);
    else cl_random_name(j->name);
    memcpy(j->slots, slots, sizeof j->slots);
    j->state = SM_CONNECTING;
    j->create_time = j->last_update_time = j->last_ack_time = time(NULL);
    j->next = jobs;
    jobs = j;
    trim();
    return j;
}

sm_job *sm_job_find(int op, const char *name) {
    for (sm_job *j = jobs; j; j = j->next)
        if (j->op == op && !memcmp(j->name, name, CL_NAMELEN)) return j;
    return NULL;
}

void sm_job_set_state(sm_job *j, int state, const char *msg) {
    j->state = state;
    if (msg) snprintf(j->message, sizeof j->message, "%s", msg);
    j->last_update_time = time(NULL);
}

void sm_slots_text(const uint8_t *set, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < KEYSLOT_COUNT;) {
        if (!sm_has_slot(set, i)) {
            i++;
            continue;
        }
        unsigned start = i;
        while (i < KEYSLOT_COUNT && sm_has_slot(set, i)) i++;
        int n = snprintf(buf + len, cap - len, "%s%u-%u", len ? " " : "", start, i - 1);
        if (n < 0 || (size_t)n >= cap - len) break; /* cut short: cap too small */
        len += (size_t)n;
    }
}

/* ---- dropping the keys of slots that went or failed to come ---- */

/* Keys deleted per loop iteration. */
#define SM_DROP_BATCH SM_KEYS_MAX

static struct {
    uint8_t set[KEYSLOT_COUNT / 8]; /* slots whose keys are being deleted */
    int on;
} D;

void sm_drop_keys(const uint8_t *slots) {
    for (size_t i = 0; i < sizeof D.set; i++) D.set[i] |= slots[i];
    D.on = 1;
}

int sm_dropping(unsigned slot) { return sm_has_slot(D.set, slot); }

/* The names go back to back into blocks of SM_KEYS_BLOCK bytes (a longer
 * name gets a block of its own), not one allocation each: besides 255
 * fewer mallocs per batch, a request this size makes glibc sort what the
 * batch's deletions freed at once, a batch's worth each time. With one
 * small allocation per name nothing did until the next big request (the
 * bus's PING, once a second), which then sorted ~300,000 chunks: a 35 ms
 * stall of the loop while the dropper ran (measured with perf). */
#define SM_KEYS_BLOCK 16384

struct sm_keys_block {
    struct sm_keys_block *next;
    char data[];
};

void sm_keys_add(void *priv, const char *key, size_t len) {
    sm_keys *kb = priv;
    assert(kb->n < SM_KEYS_MAX);
    if (!kb->blocks || len > kb->room) {
        size_t cap = len > SM_KEYS_BLOCK ? len : SM_KEYS_BLOCK;
        sm_keys_block *b = xmalloc(sizeof *b + cap);
        b->next = kb->blocks;
        kb->blocks = b;
        kb->at = b->data;
        kb->room = cap;
    }
    memcpy(kb->at, key, len);
    kb->keys[kb->n] = kb->at;
    kb->lens[kb->n++] = len;
    kb->at += len;
    kb->room -= len;
}

void sm_keys_free(sm_keys *kb) {
    while (kb->blocks) {
        sm_keys_block *next = kb->blocks->next;
        free(kb->blocks);
        kb->blocks = next;
    }
    kb->at = NULL;
    kb->room = 0;
    kb->n = 0;
}

int sm_parse_ranges(client *c, int first, uint8_t *slots) {
    memset(slots, 0, KEYSLOT_COUNT / 8);
    for (int i = first; i + 1 < c->argc; i += 2) {
        long long a, b;
        if (!arg_ll(c, &c->argv[i], &a) || !arg_ll(c, &c->argv[i + 1], &b)) return -1;
        if (a < 0 || b >= KEYSLOT_COUNT || a > b) {
            reply_error(c, "ERR Invalid or out of range slot");
            return -1;
        }
        for (long long s = a; s <= b; s++) sm_add_slot(slots, (unsigned)s);
    }
    return 0;
}

/* ---- staged slots: the keys an import loads, known to the replicas ---- */

/* Slots whose keys an import loads or loaded: on the import's primary
 * from ESTABLISH until FINISH or the drop after a failure; on its
 * replicas, and in its AOF, from the STAGE and UNSTAGE marks it
 * propagates. A primary that holds staged slots no active import brings
 * and that it does not own (a replica promoted while its primary
 * imported, a restart from the AOF) drops their keys. */
static uint8_t staged[KEYSLOT_COUNT / 8];

/* "CLUSTER SYNCSLOTS STAGE|UNSTAGE start end ..." for set, propagated. */
static void propagate_stage(const char *verb, const uint8_t *set) {
    size_t cap = 3, argc = 3;
    for (unsigned i = 0; i < KEYSLOT_COUNT; i++)
        if (sm_has_slot(set, i) && (i == 0 || !sm_has_slot(set, i - 1))) cap += 2;
    if (cap == 3) return;
    arg *argv = xmalloc(cap * sizeof *argv);
    char (*num)[8] = xmalloc(cap * sizeof *num);
    argv[0] = (arg){"CLUSTER", 7};
    argv[1] = (arg){"SYNCSLOTS", 9};
    argv[2] = (arg){verb, strlen(verb)};
    for (unsigned i = 0; i < KEYSLOT_COUNT; i++) {
        if (!sm_has_slot(set, i)) continue;
        unsigned start = i;
        while (i + 1 < KEYSLOT_COUNT && sm_has_slot(set, i + 1)) i++;
        for (int k = 0; k < 2; k++, argc++) {
            int n = snprintf(num[argc], sizeof num[argc], "%u", k ? i : start);
            argv[argc] = (arg){num[argc], (size_t)n};
        }
    }
    assert(argc == cap);
    cmd_propagate_raw(0, (int)argc, argv);
    free(num);
    free(argv);
}

void sm_stage(const uint8_t *slots, int on, int propagate) {
    int any = 0;
    for (size_t i = 0; i < sizeof staged; i++) {
        staged[i] = on ? staged[i] | slots[i] : staged[i] & (uint8_t)~slots[i];
        any |= staged[i] != 0;
    }
    db_hide_slots(any ? staged : NULL); /* no client sees the staging area */
    if (propagate) propagate_stage(on ? "STAGE" : "UNSTAGE", slots);
}

/* 1 while an active import brings slot's keys (they are not dropped). */
static int importing(unsigned slot) {
    for (sm_job *j = jobs; j; j = j->next)
        if (j->op == SM_IMPORT && sm_job_active(j) && sm_has_slot(j->slots, slot)) return 1;
    return 0;
}

void sm_staged_cron(void) {
    if (!cl_node_is_primary(cl.myself)) return;
    uint8_t dead[KEYSLOT_COUNT / 8], mine[KEYSLOT_COUNT / 8];
    memset(dead, 0, sizeof dead);
    memset(mine, 0, sizeof mine);
    int ndead = 0, nmine = 0;
    for (unsigned i = 0; i < KEYSLOT_COUNT; i++) {
        if (!sm_has_slot(staged, i) || importing(i)) continue;
        if (cl.slots[i] == cl.myself) {
            sm_add_slot(mine, i); /* the import finished: its keys are mine */
            nmine++;
        } else if (!sm_dropping(i)) {
            sm_add_slot(dead, i); /* UNSTAGE follows the drop (sm_drop_step) */
            ndead++;
        }
    }
    if (nmine) sm_stage(mine, 0, 1);
    if (ndead) {
        char text[128];
        sm_slots_text(dead, text, sizeof text);
        log_warning("Dropping the keys of slots %s an ended import loaded", text);
        sm_drop_keys(dead);
    }
}

/* Deletes up to SM_DROP_BATCH of the given-away slots' keys, each
 * propagated as a DEL (as legacy MIGRATE's deletes are), the values freed
 * by the lazyfree thread as UNLINK's; a staged slot found empty is
 * unstaged after them. */
void sm_drop_step(void) {
    if (!D.on) return;
    db *d = db_get(0);
    sm_keys kb = {.n = 0};
    uint8_t drained[KEYSLOT_COUNT / 8];
    memset(drained, 0, sizeof drained);
    int ndrained = 0;
    for (unsigned i = 0; i < KEYSLOT_COUNT && kb.n < SM_DROP_BATCH; i++) {
        if (!sm_has_slot(D.set, i)) continue;
        size_t want = SM_DROP_BATCH - kb.n, before = kb.n;
        if (cl.slots[i] != cl.myself && !importing(i)) db_slot_keys(d, i, want, sm_keys_add, &kb);
        if (kb.n - before < want) { /* all taken */
            D.set[i >> 3] &= (uint8_t)~(1u << (i & 7));
            if (sm_has_slot(staged, i)) {
                sm_add_slot(drained, i);
                ndrained++;
            }
        }
    }
    for (size_t j = 0; j < kb.n; j++) {
        /* a DEL to the AOF and the replicas, which must not keep them */
        if (db_delete_lazy(d, kb.keys[j], kb.lens[j], 1)) {
            arg argv[2] = {{"DEL", 3}, {kb.keys[j], kb.lens[j]}};
            cmd_propagate_raw(0, 2, argv);
        }
    }
    sm_keys_free(&kb);
    if (ndrained) sm_stage(drained, 0, 1);
    int any = 0;
    for (size_t i = 0; i < sizeof D.set && !any; i++) any = D.set[i] != 0;
    D.on = any;
}

/* The staged slots as a save records them (snap.h's verso-staged-slots):
 * "a-b,c-d", NULL when none. */
static char *staged_text(void) {
    int any = 0;
    for (size_t i = 0; i < sizeof staged && !any; i++) any = staged[i] != 0;
    if (!any) return NULL;
    size_t cap = KEYSLOT_COUNT / 2 * 12 + 1; /* every other slot, "16382-16382 " */
    char *t = xmalloc(cap);
    sm_slots_text(staged, t, cap);
    for (char *p = t; *p; p++)
        if (*p == ' ') *p = ',';
    return t;
}

/* A load replaced the dataset: its staged slots are the node's now (the
 * cron drops their keys on a primary no import brings them to). */
static void staged_loaded(const uint8_t *set) {
    uint8_t none[KEYSLOT_COUNT / 8];
    memset(none, 0, sizeof none);
    memset(staged, 0, sizeof staged);
    sm_stage(set ? set : none, 1, 0);
    if (set) {
        char text[128];
        sm_slots_text(set, text, sizeof text);
        log_notice("The data loaded holds slots %s an import was loading", text);
    }
}

void slotmig_init(void) {
    static const snap_staged_fns staged_fns = {staged_text, staged_loaded};
    snap_set_staged(&staged_fns);
    sm_src_init();
    sm_dst_init();
}
