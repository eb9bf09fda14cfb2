/* conf_compat: the values of the Redis 7.0 parameters that verso first
 * accepted for compatibility without acting on them (threads, syslog,
 * active defrag, jemalloc, OOM score, process title, ...). Some act now
 * (cluster: cluster/, TLS: src/tls and src/net.c, ACL: src/acl); their
 * rows in conf_compat_params.h have no PF_NOEFFECT.
 *
 * Redis tools, client test suites and config files set them; verso takes
 * each with Redis's type, range and error texts (conf_compat.c and the rows
 * in conf_compat_params.h), shows it in CONFIG GET, writes it in CONFIG
 * REWRITE, and logs once that it has no effect (conf.c). They live here,
 * as `server.cfg.compat`, so that the day verso honours one, its code reads
 * the field and its row loses PF_NOEFFECT. Main thread only, like the rest
 * of struct conf. */
#ifndef VERSO_CONF_COMPAT_H
#define VERSO_CONF_COMPAT_H

/* shutdown-on-sigint / shutdown-on-sigterm flags (0: default) */
enum { SHUTDOWN_FLAG_SAVE = 1, SHUTDOWN_FLAG_NOSAVE = 2, SHUTDOWN_FLAG_NOW = 4,
       SHUTDOWN_FLAG_FORCE = 8 };

typedef struct conf_compat {
    /* process and startup (immutable in Redis) */
    int daemonize;                      /* no; verso refuses yes */
    int supervised;                     /* no */
    int always_show_logo;               /* no */
    int set_proc_title;                 /* yes */
    char *proc_title_template;          /* "{title} {listen-addr} {server-mode}" */
    int disable_thp;                    /* yes */
    int syslog_enabled;                 /* no */
    char *syslog_ident;                 /* redis */
    int syslog_facility;                /* local0 */
    int crash_log_enabled;              /* yes */
    int crash_memcheck_enabled;         /* yes */
    char *server_cpulist, *bio_cpulist, *aof_rewrite_cpulist, *bgsave_cpulist; /* "" */
    int oom_score_adj;                  /* no (honoured: src/oom_score.c) */
    char *oom_score_adj_values;         /* "0 200 800" (master replica child) */
    char *ignore_warnings;              /* "" */
    int shutdown_on_sigint, shutdown_on_sigterm; /* default: SHUTDOWN_FLAG_* */
    int shutdown_timeout;               /* 10 s (honoured: src/shutdown.c) */
    int enable_module_command;          /* no */
    /* networking */
    char *unixsocket;                   /* "" */
    long long unixsocketperm;           /* 0 (octal) */
    long long socket_mark_id;           /* 0 */
    char *bind_source_addr;             /* "" */
    int io_threads;                     /* 1 */
    int io_threads_do_reads;            /* no */
    /* ACL */
    char *aclfile;                      /* "" */
    long long acllog_max_len;           /* 128 */
    int acl_pubsub_default;             /* resetchannels */
    /* memory and allocator */
    int activedefrag;                   /* no; yes refused as Redis built
                                           without its own jemalloc */
    long long active_defrag_ignore_bytes;   /* 100mb */
    int active_defrag_threshold_lower;  /* 10 */
    int active_defrag_threshold_upper;  /* 100 */
    int active_defrag_cycle_min;        /* 1 */
    int active_defrag_cycle_max;        /* 25 */
    long long active_defrag_max_scan_fields; /* 1000 */
    int jemalloc_bg_thread;             /* yes */
    long long maxmemory_clients;        /* 0; a negative value is a percent */
    int activerehashing;                /* yes */
    int dynamic_hz;                     /* yes */
    int active_expire_effort;           /* 1 */
    /* encodings of types verso lacks */
    long long hll_sparse_max_bytes;     /* 3000 */
    long long stream_node_max_bytes;    /* 4096 */
    long long stream_node_max_entries;  /* 100 */
    /* persistence */
    int rdb_del_sync_files;             /* no */
    int rdb_save_incremental_fsync;     /* yes */
    int aof_rewrite_incremental_fsync;  /* yes */
    int no_appendfsync_on_rewrite;      /* no */
    int aof_timestamp_enabled;          /* no */
    int aof_disable_auto_gc;            /* no */
    int sanitize_dump_payload;          /* no */
    /* replication */
    int replica_ignore_disk_write_errors; /* no */
    int propagation_error_behavior;     /* ignore */
    /* cluster */
    int cluster_enabled;                /* no */
    char *cluster_config_file;          /* nodes.conf */
    long long cluster_node_timeout;     /* 15000 ms */
    int cluster_port;                   /* 0 */
    char *cluster_announce_ip;          /* "" */
    char *cluster_announce_hostname;    /* "" */
    int cluster_announce_port;          /* 0 */
    int cluster_announce_bus_port;      /* 0 */
    int cluster_announce_tls_port;      /* 0 */
    int cluster_preferred_endpoint_type;/* ip */
    int cluster_replica_validity_factor;/* 10 */
    int cluster_migration_barrier;      /* 1 */
    int cluster_require_full_coverage;  /* yes */
    int cluster_replica_no_failover;    /* no */
    int cluster_allow_reads_when_down;  /* no */
    int cluster_allow_pubsubshard_when_down; /* yes */
    int cluster_allow_replica_migration;/* yes */
    long long cluster_link_sendbuf_limit; /* 0 */
    /* TLS (honoured: src/tls, src/net.c, repl/, cluster/) */
    int tls_port;                       /* 0 */
    char *tls_cert_file, *tls_key_file, *tls_key_file_pass, *tls_client_cert_file,
        *tls_client_key_file, *tls_client_key_file_pass, *tls_dh_params_file,
        *tls_ca_cert_file, *tls_ca_cert_dir, *tls_protocols, *tls_ciphers,
        *tls_ciphersuites;              /* all "" */
    int tls_auth_clients;               /* yes */
    int tls_replication;                /* no */
    int tls_cluster;                    /* no */
    int tls_prefer_server_ciphers;      /* no */
    int tls_session_caching;            /* yes */
    int tls_session_cache_size;         /* 20480 */
    int tls_session_cache_timeout;      /* 300 s */
} conf_compat;

#endif
