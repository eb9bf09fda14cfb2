/* fuzz_nodes_conf: the nodes.conf parser (cluster/nodes_conf.c's
 * cl_conf_parse).
 *
 * The input is the file's text. A refusal must be Redis's "corrupted
 * cluster config file" message. An accepted text must leave a consistent
 * table (every slot's owner has its bit, replicas point back at their
 * primary, myself known), and what the generator writes of it must be
 * accepted again and, from the second round on, generate the same lines
 * (in any order: the table's order follows the order nodes are first
 * named in). Seeds (corpus/nodes_conf/) are files as Redis 7.0 and verso
 * write them. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_int.h"
#include "fuzz_common.h"
#include "vbuf.h"

static void check_table(void) {
    assert(cl.myself && cl_node_lookup(cl.myself->name, CL_NAMELEN) == cl.myself);
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++)
        if (cl.slots[s]) assert(cl_node_has_slot(cl.slots[s], s));
    for (int i = 0; i < cl.numnodes; i++) {
        cluster_node *n = cl.nodes[i];
        int count = 0;
        for (unsigned s = 0; s < KEYSLOT_COUNT; s++) count += cl.slots[s] == n;
        assert(count == n->numslots);
        if (n->primary) {
            int found = 0;
            for (int j = 0; j < n->primary->numreplicas; j++) found |= n->primary->replicas[j] == n;
            assert(found && n->primary != n);
        }
    }
}

static int cmp_line(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The text's lines, sorted, joined again: the table's content without
 * its order. */
static char *sorted_lines(const char *text, size_t len) {
    char *copy = malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    size_t n = 0, cap = 16;
    char **lines = malloc(cap * sizeof *lines);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_line);
    char *out = malloc(len + 2), *p = out;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(lines[i]);
        memcpy(p, lines[i], l);
        p += l;
        *p++ = '\n';
    }
    *p = '\0';
    free(lines);
    free(copy);
    return out;
}

/* The generated text, with the ping and pong times (the parser sets a
 * non-zero one to now) written as 1: stable across rounds. */
static char *generate(size_t *len) {
    for (int i = 0; i < cl.numnodes; i++) {
        if (cl.nodes[i]->ping_sent) cl.nodes[i]->ping_sent = 1;
        if (cl.nodes[i]->pong_received) cl.nodes[i]->pong_received = 1;
    }
    vbuf b;
    vbuf_init(&b);
    cl_conf_text(&b);
    *len = b.len;
    return b.data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init;
    if (!init) {
        fz_quiet_log();
        init = 1;
    }
    char err[256];
    cl_state_clear();
    if (cl_conf_parse((const char *)data, size, err, sizeof err) != 0) {
        assert(!strcmp(err, "Unrecoverable error: corrupted cluster config file."));
        cl_state_clear();
        return 0;
    }
    check_table();
    size_t len1, len2;
    char *first = generate(&len1);
    cl_state_clear();
    int rc = cl_conf_parse(first, len1, err, sizeof err);
    assert(rc == 0);
    check_table();
    char *second = generate(&len2);
    /* the first text may name a node twice, or one without a line of its
     * own, or a handshake node that is not written back: the second round
     * is the generator's own and must not change */
    cl_state_clear();
    rc = cl_conf_parse(second, len2, err, sizeof err);
    assert(rc == 0);
    size_t len3;
    char *third = generate(&len3);
    char *a = sorted_lines(second, len2), *b = sorted_lines(third, len3);
    assert(len3 == len2 && strcmp(a, b) == 0);
    free(a);
    free(b);
    free(first);
    free(second);
    free(third);
    cl_state_clear();
    return 0;
}
