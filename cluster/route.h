/* route: which node serves a command in cluster mode (Redis 7.0's
 * getNodeByQuery and clusterRedirectClient), and the commands that change
 * how a client is routed (ASKING, READONLY, READWRITE).
 *
 * route_decide is a pure function of a query (the commands' keys and shard
 * channels, the client's flags, whether a key exists here) and of the
 * cluster's state as cluster.h gives it; route_init registers the commands
 * and the client gate that answers -MOVED, -ASK, -TRYAGAIN, -CROSSSLOT and
 * -CLUSTERDOWN when cluster_enabled(). Main thread only. */
#ifndef VERSO_CLUSTER_ROUTE_H
#define VERSO_CLUSTER_ROUTE_H

#include <stddef.h>

#include "cluster.h"
#include "server.h"

typedef enum {
    ROUTE_OK,            /* this node serves it */
    ROUTE_MOVED,         /* -MOVED slot endpoint */
    ROUTE_ASK,           /* -ASK slot endpoint */
    ROUTE_TRYAGAIN,      /* importing, several keys, some missing */
    ROUTE_CROSSSLOT,     /* keys of different slots */
    ROUTE_DOWN_STATE,    /* cluster down */
    ROUTE_DOWN_RO_STATE, /* cluster down, reads allowed, a write */
    ROUTE_DOWN_UNBOUND,  /* the slot has no owner */
} route_verdict;

/* One command line of a query: the command, or each of EXEC's queue. */
typedef struct route_cmd {
    const cmd_def *d;
    int argc;
    const arg *argv;
} route_cmd;

typedef struct route_query {
    const route_cmd *cmds;
    size_t n;
    int write;         /* writes (EXEC: its queue writes) */
    int asking;        /* CLIENT_ASKING, or the command is flagged asking */
    int readonly;      /* the client sent READONLY */
    int migrate;       /* the command is MIGRATE */
    /* 1 when key exists in db 0 here (only asked for a slot in transition) */
    int (*key_exists)(void *priv, const char *key, size_t len);
    void *priv;
} route_query;

/* The verdict for q; *slot is the slot of its keys (when it has any) and
 * *node the node a -MOVED / -ASK names (else NULL). */
route_verdict route_decide(const route_query *q, unsigned *slot, const cluster_node **node);

/* The error text for a verdict other than ROUTE_OK, without the leading
 * '-' ("MOVED 3999 127.0.0.1:6381"); tls: the endpoint's TLS port. */
void route_error_text(route_verdict v, unsigned slot, const cluster_node *n, int tls, char *buf,
                      size_t cap);

/* Registers ASKING, READONLY, READWRITE and the routing gate; app/main.c
 * calls it before server_setup_done, in every mode (the commands answer
 * "ERR This instance has cluster support disabled" outside cluster mode). */
void route_init(void);

#endif
