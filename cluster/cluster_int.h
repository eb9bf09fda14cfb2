/* cluster_int: the cluster's state inside the wing (cluster/ only): the
 * node table, slots, epochs, and the calls the wing's modules make of each
 * other. Modeled on Redis 7.0's clusterState and clusterNode (cluster.h),
 * whose fields the bus, nodes.conf and CLUSTER NODES carry.
 *
 * Who owns what:
 *   state.c       the node table, slots, fail reports, cluster_state ok/fail,
 *                 the to-do flags run before the loop sleeps
 *   nodes_conf.c  nodes.conf: its text, loading at start, saving (a
 *                 writer thread writes and renames, fsyncing when asked;
 *                 the loop never waits on the disk)
 *   cmd_cluster.c the CLUSTER command (its long replies in
 *                 cmd_cluster_reply.c, its rows in cmd_cluster_table.c)
 *   bus.c         links: the listener on the bus port, connections to every
 *                 node, framing, send queues
 *   gossip.c      what a received message does (MEET, PING, PONG, FAIL,
 *                 UPDATE, PUBLISH)
 *   gossip_send.c what this node sends and when: headers, PING/PONG/MEET,
 *                 FAIL, UPDATE, PUBLISH, MEET and FORGET, the cron (pings,
 *                 PFAIL/FAIL)
 *   failover.c    replica elections, votes, manual failover (elect.c:
 *                 the election's rules, pure)
 *   replicas.c    myself as a replica: whom replication follows, CLUSTER
 *                 REPLICATE, replica migration
 *
 * Main thread only, unless a function says otherwise. */
#ifndef VERSO_CLUSTER_INT_H
#define VERSO_CLUSTER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bus_msg.h"
#include "cluster.h"
#include "keyslot.h"
#include "server.h"
#include "vbuf.h"

#define CL_NAMELEN BUS_NAMELEN

/* node flags: the bus's values (bus_msg.h), so they go on the wire as is */
#define CL_NODE_PRIMARY BUS_NODE_MASTER
#define CL_NODE_REPLICA BUS_NODE_SLAVE
#define CL_NODE_PFAIL BUS_NODE_PFAIL
#define CL_NODE_FAIL BUS_NODE_FAIL
#define CL_NODE_MYSELF BUS_NODE_MYSELF
#define CL_NODE_HANDSHAKE BUS_NODE_HANDSHAKE
#define CL_NODE_NOADDR BUS_NODE_NOADDR
#define CL_NODE_MEET BUS_NODE_MEET
#define CL_NODE_MIGRATE_TO BUS_NODE_MIGRATE_TO
#define CL_NODE_NOFAILOVER BUS_NODE_NOFAILOVER

typedef struct cl_link cl_link;         /* bus.c */

typedef struct cl_fail_report {
    cluster_node *node;                  /* the primary that reported it */
    long long time;                      /* ms, when last reported */
} cl_fail_report;

struct cluster_node {
    char name[CL_NAMELEN];               /* 40 hex characters, no NUL */
    int flags;                           /* CL_NODE_* */
    long long ctime;                     /* ms: created here */
    uint64_t config_epoch;
    uint8_t slots[KEYSLOT_COUNT / 8];    /* the slots it serves */
    int numslots;
    cluster_node **replicas;             /* its replicas (a primary) */
    int numreplicas;
    cluster_node *primary;               /* NULL for a primary, or unknown */
    long long ping_sent;                 /* ms; 0 once the PONG came */
    long long pong_received;             /* ms */
    long long data_received;             /* ms */
    long long fail_time;                 /* ms: when FAIL was set */
    long long voted_time;                /* ms: last vote for a replica of it */
    long long repl_offset_time;          /* ms: when repl_offset was received */
    long long orphaned_time;             /* ms: since a primary with no replica */
    long long repl_offset;               /* its replication offset, as it says */
    char ip[BUS_IPLEN];                  /* NUL-terminated; "" = not known */
    char *hostname;                      /* malloc'd; NULL = none */
    int port;                            /* client port */
    int pport;                           /* the other client port (TLS/plain) */
    int cport;                           /* bus port */
    cl_link *link;                       /* outbound link, NULL if none */
    cl_link *inbound_link;               /* link it connected to us by */
    cl_fail_report *fail_reports;
    int num_fail_reports;
};

/* to-do flags run before the loop sleeps (cl_todo) */
#define CL_TODO_HANDLE_FAILOVER (1 << 0)
#define CL_TODO_UPDATE_STATE (1 << 1)
#define CL_TODO_SAVE_CONFIG (1 << 2)
#define CL_TODO_FSYNC_CONFIG (1 << 3)
#define CL_TODO_HANDLE_MANUALFAILOVER (1 << 4)

typedef struct cl_state {
    cluster_node *myself;
    uint64_t current_epoch;
    uint64_t last_vote_epoch;
    int ok;                              /* cluster_state: 1 ok, 0 fail */
    int size;                            /* primaries serving >= 1 slot */
    cluster_node **nodes;                /* every node known, myself included */
    int numnodes;
    cluster_node *slots[KEYSLOT_COUNT];  /* owner of each slot, or NULL */
    cluster_node *migrating_to[KEYSLOT_COUNT];
    cluster_node *importing_from[KEYSLOT_COUNT];
    int todo;                            /* CL_TODO_* */
    long long stats_sent[BUS_TYPE_COUNT];
    long long stats_received[BUS_TYPE_COUNT];
    long long stats_pfail_nodes;
    long long stats_links_limit_exceeded; /* links freed over cluster-link-sendbuf-limit */
} cl_state;

extern cl_state cl;

/* ---- state.c ---- */
long long cl_now_ms(void);
/* A random 40-hex-character node id into name (no NUL). */
void cl_random_name(char name[CL_NAMELEN]);
/* A new node (not yet in the table): name NULL = a random one. */
cluster_node *cl_node_new(const char *name, int flags);
void cl_node_add(cluster_node *n);
/* Removes n from the table, its slots, its primary's replicas, every fail
 * report and the migrating/importing maps, closes its links (bus.c), frees
 * it. Not myself. */
void cl_node_delete(cluster_node *n);
/* The node named name (len bytes; 40 expected), NULL when none. */
cluster_node *cl_node_lookup(const char *name, size_t len);
/* A node created in handshake gets its real name from its first PONG. */
void cl_node_rename(cluster_node *n, const char *name);
void cl_node_set_hostname(cluster_node *n, const char *h, size_t len);

int cl_node_has_slot(const cluster_node *n, unsigned slot);
/* Assign slot to n (0), or -1 when it is already assigned. */
int cl_slot_add(cluster_node *n, unsigned slot);
/* Unassign slot (0), or -1 when it has no owner. */
int cl_slot_del(unsigned slot);
/* Unassigns every slot of n; returns how many. */
int cl_node_del_slots(cluster_node *n);

/* Replicas. */
int cl_node_add_replica(cluster_node *primary, cluster_node *replica);
int cl_node_remove_replica(cluster_node *primary, cluster_node *replica);
/* Makes n a replica of primary (NULL: n becomes a primary with no slots
 * changed). Keeps both sides' lists right. */
void cl_node_set_primary(cluster_node *n, cluster_node *primary);
int cl_node_is_primary(const cluster_node *n);
int cl_node_failed(const cluster_node *n);   /* FAIL */
int cl_node_timed_out(const cluster_node *n); /* PFAIL */
/* Replicas of n not in FAIL. */
int cl_node_ok_replicas(const cluster_node *n);

/* Fail reports about n from primary `sender`: 1 when new. */
int cl_fail_report_add(cluster_node *n, cluster_node *sender);
int cl_fail_report_del(cluster_node *n, cluster_node *sender);
/* Reports younger than node_timeout * 2 (older are dropped). */
int cl_fail_report_count(cluster_node *n);

/* The largest config epoch known (myself's current epoch at least). */
uint64_t cl_max_epoch(void);
/* Redis's clusterBumpConfigEpochWithoutConsensus: 1 when bumped. */
int cl_bump_epoch_no_consensus(void);

/* Ask for work before the loop sleeps: CL_TODO_* */
void cl_todo(int flags);
/* Recomputes cl.ok and cl.size (clusterUpdateState). */
void cl_update_state(void);

/* The node's flags as CLUSTER NODES writes them ("myself,master", "slave",
 * "master,fail?", "noflags"...). */
void cl_node_flags_text(const cluster_node *n, char *buf, size_t cap);

/* Redis's getPreferredEndpoint (cluster-preferred-endpoint-type): the ip,
 * the hostname ("?" when none) or "" (unknown-endpoint). */
const char *cl_preferred_endpoint(const cluster_node *n);
/* CLUSTER RESET (Redis's clusterReset): myself a primary, no slot, no
 * migration, no other node; hard: epochs 0 and a new id. Asks for a save. */
void cl_reset(int hard);
/* Forgets every node, myself included (the state as before a load), for
 * the parser's tests: links are not closed. */
void cl_state_clear(void);

/* ---- nodes_conf.c ---- */
/* Loads cluster-config-file: 0 loaded, 1 the file does not exist (a new
 * node: myself is created), -1 corrupt (err says why; the server exits). */
int cl_conf_load(const char *path, char *err, size_t errlen);
/* Queues a save of the current state (done may be NULL; it is called once
 * the text, or a newer one, is written). The writer thread writes a
 * temporary file and renames it; with fsync (Redis's
 * CLUSTER_TODO_FSYNC_CONFIG) it fsyncs the file before the rename and the
 * directory after, so that done() sees it durable. */
void cl_conf_save(int fsync, void (*done)(void *priv, int ok), void *priv);
/* Synchronous save, for CLUSTER SAVECONFIG at the loop's request and
 * shutdown: 0 or -1 with err. */
int cl_conf_save_now(char *err, size_t errlen);
/* n's line as CLUSTER NODES and nodes.conf write it, without the newline
 * (use_pport: the other client port, for a plain client of a TLS
 * cluster). */
void cl_conf_node_line(vbuf *b, const cluster_node *n, int use_pport);
/* Every node's line, each ending "\n", except the nodes with a flag in
 * filter (CLUSTER NODES: 0; nodes.conf: CL_NODE_HANDSHAKE). */
void cl_conf_nodes_text(vbuf *b, int filter, int use_pport);
/* The whole of nodes.conf: the lines and the vars line. */
void cl_conf_text(vbuf *b);
/* Parses a nodes.conf text into the empty state (no node known): 0, or -1
 * with Redis's "corrupted cluster config file" message in err (the reason
 * is logged). */
int cl_conf_parse(const char *text, size_t len, char *err, size_t errlen);
/* Myself's ports, announced ip and hostname from the config (port,
 * cluster-port, cluster-announce-*: CONFIG SET may change them). 1 when
 * something changed. */
int cl_conf_update_myself(void);
/* At shutdown: the synchronous save, then the writer thread stops. */
void cl_conf_shutdown(void);

/* ---- bus.c ---- */
/* Opens the bus listener (cluster-port, or port + 10000): 0 or -1 with err. */
int cl_bus_listen(char *err, size_t errlen);
/* Sends a message to n over its outbound link (dropped when none). */
void cl_bus_send(cluster_node *n, const bus_out *m);
/* Sends m to every node with an outbound link that is not in handshake. */
void cl_bus_broadcast(const bus_out *m);
/* Closes both of n's links. */
void cl_bus_free_links(cluster_node *n);
/* CLUSTER LINKS' reply (an array of maps, as Redis 7.0). */
void cl_bus_links_reply(client *c);
/* INFO: cluster_connections (as Redis 7.0: 2 per node but myself) and
 * mem_cluster_links (bytes of the open links). */
size_t cl_bus_links_count(void);
size_t cl_bus_links_mem(void);
/* An outbound link to n (n->link), connecting; gossip.c's
 * cl_gossip_link_connected runs once it is up. -1 when the connect could
 * not start (n->ping_sent is then set, so that failure detection runs). */
int cl_bus_connect(cluster_node *n);
/* Sends m on this link (an inbound one included: a PONG answers there). */
void cl_bus_send_link(cl_link *l, const bus_out *m);
/* Closes l (its node's link or inbound_link cleared at once). */
void cl_bus_free_link(cl_link *l);
/* An inbound link's sender, once known (setClusterNodeToInboundClusterLink). */
void cl_bus_set_inbound(cl_link *l, cluster_node *n);
cluster_node *cl_link_node(const cl_link *l);
int cl_link_inbound(const cl_link *l);
long long cl_link_ctime(const cl_link *l);   /* ms */
/* The link's peer / local address as text: 0, or -1. */
int cl_link_peer_ip(const cl_link *l, char ip[BUS_IPLEN]);
int cl_link_local_ip(const cl_link *l, char ip[BUS_IPLEN]);

/* ---- gossip.c ---- */
/* CLUSTER MEET: 0, or -1 (bad address) */
int cl_meet(const char *ip, int port, int cport);
/* Fills the header every message carries (myself's slots, epochs, flags). */
void cl_build_header(bus_out *m, int type);
/* cluster_init, in cluster mode: PUBLISH and SPUBLISH are sent over the bus
 * from now on (pubsub's cluster hook). */
void cl_gossip_init(void);
/* The cron: pings, handshake timeouts, PFAIL and FAIL (called at 10 Hz). */
void cl_gossip_cron(void);
/* CLUSTER FORGET: deletes n and keeps its name out for 60 s. */
void cl_forget(cluster_node *n);
/* 1 while name is kept out by a FORGET. */
int cl_forgotten(const char *name);
/* A message received on a link (bus.c calls it; the view is valid until
 * it returns). link_node: the node of an outbound link, NULL on an
 * inbound one. */
void cl_gossip_process(cl_link *link, cluster_node *link_node, const bus_view *v);
/* n's outbound link is connected: the first PING (or MEET) goes. */
void cl_gossip_link_connected(cluster_node *n);
/* gossip_send.c, for gossip.c: a PING/PONG/MEET on link (gossip section,
 * extensions; a PING sets its node's ping_sent), a FAIL about name to
 * every node, an UPDATE about n's slots on link. */
void cl_send_ping(cl_link *link, int type);
void cl_send_fail(const char *name);
void cl_send_update(cl_link *link, const cluster_node *n);
static inline long long cl_node_timeout(void) { return server.cfg.compat.cluster_node_timeout; }
static inline int cl_in_handshake(const cluster_node *n) {
    return (n->flags & CL_NODE_HANDSHAKE) != 0;
}

/* ---- replicas.c: myself as a replica ---- */
/* Makes myself a replica of primary n (CLUSTER REPLICATE, or a primary
 * whose slots went to n in an UPDATE/PING: Redis's clusterSetMaster): its
 * slots and open migrations dropped, the flags, a save and a state update
 * asked, a manual failover reset, and replication follows n->ip:n->port. */
void cl_set_my_primary(cluster_node *n);
/* CLUSTER REPLICATE n (n found): NULL, or the whole error to answer. */
const char *cl_cmd_replicate(cluster_node *n);
/* The cron's part (10 Hz): replication follows the primary myself names
 * (after a restart from nodes.conf, an address change), a primary follows
 * nobody, and replica migration (cluster-migration-barrier) to an orphaned
 * primary. */
void cl_replicas_cron(void);

/* ---- elect.c: the election's rules, pure (no I/O, no clock) ---- */
/* Redis's clusterGetSlaveRank: how many other replicas of me's primary
 * (failover allowed) have a larger offset than my_offset. */
int cl_elect_rank(const cluster_node *me, long long my_offset);
/* The wait before an election: 500 ms + rnd % 500 + rank * 1000 ms. */
long long cl_elect_delay(int rank, unsigned rnd);
/* An election's life (auth_timeout: node_timeout * 2, 2 s at least); a new
 * one may start after twice that. */
long long cl_elect_auth_timeout(long long node_timeout);
/* 1 when a replica whose data is age_ms old (repl_link_age_ms; -1 never
 * synced) may start an election (cluster-replica-validity-factor; 0 =
 * any age). */
int cl_elect_data_fresh(long long age_ms, long long node_timeout, int validity_factor,
                        int ping_period_s);
/* clusterSendFailoverAuthIfNeeded's rules, as myself (a primary) judges
 * replica req's request: 1 grant, 0 refuse with why (Redis's log text).
 * req_epoch/req_config_epoch/claimed/force_ack from the request's header. */
int cl_elect_may_vote(const cluster_node *req, uint64_t req_epoch, uint64_t req_config_epoch,
                      const uint8_t *claimed, int force_ack, long long now,
                      long long node_timeout, char *why, size_t cap);

/* ---- failover.c: elections, votes, manual failover ---- */
void cl_failover_cron(void);
void cl_failover_before_sleep(void);
/* CLUSTER FAILOVER [FORCE|TAKEOVER]: NULL, or the whole error to answer. */
const char *cl_cmd_failover(int force, int takeover);
/* Ends a manual failover (resetManualFailover): a primary's pause ends. */
void cl_failover_reset_manual(void);
/* Bus messages gossip.c hands over. */
void cl_failover_auth_request(cluster_node *sender, const bus_view *v);
void cl_failover_auth_ack(cluster_node *sender, const bus_view *v);
void cl_failover_mfstart(cluster_node *sender, const bus_view *v);
/* gossip.c, for every message from a known node (after its repl_offset is
 * taken from the header): a paused primary's offset for a manual failover
 * (the PAUSED flag). */
void cl_failover_header_seen(cluster_node *sender, const bus_view *v);
/* cl_build_header: the mflags[0] bits myself sets now (PAUSED while a
 * primary in a manual failover). */
int cl_failover_mflags(void);

#endif
