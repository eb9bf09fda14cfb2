/* listen: the listening sockets, the TCP ones on `port` and the TLS ones
 * on `tls-port`, each on every `bind` address.
 *
 * They open at startup and move when CONFIG SET changes port, tls-port or
 * bind, as Redis 7.0's changeListenPort and changeBindAddr, with one
 * difference: Redis's changeBindAddr closes the old listeners first and
 * opens them again when the new ones fail; here a listener already on an address the
 * change keeps stays as it is, the new ones open before the old ones
 * close, and a change that fails (an address in use, not on this host,
 * invalid) leaves every listener as it was. Only where Linux refuses the
 * new beside the old (0.0.0.0 after 127.0.0.1 on one port) do the old
 * ones that go close first, as in Redis, and open again on failure.
 * Connected clients are never touched. A connection accepted on
 * any of them goes to net.c (net_on_connection), which asks listen_is_tls
 * whether to start TLS on it. The handles are server.listeners and
 * server.tls_listeners. Main thread only. */
#ifndef VERSO_LISTEN_H
#define VERSO_LISTEN_H

#include <stddef.h>

#include "server.h"

/* At startup: listens on every bind address at cfg.port (none when it is
 * 0) and, when tls-port is set, at it for TLS. 0, or -1 with err. */
int listen_open(char *err, size_t errlen);
/* CONFIG SET port: the TCP listeners move to port (0: they close). On
 * failure they stay, the reason is logged and err is Redis's "Unable to
 * listen on this port. Check server logs.". */
int listen_set_port(int port, char *err, size_t errlen);
/* CONFIG SET tls-port: as listen_set_port, for the TLS listeners. */
int listen_set_tls_port(int port, char *err, size_t errlen);
/* CONFIG SET bind (cfg.bind holds the new addresses): the TCP and the TLS
 * listeners move to them together. On failure both stay, the reason is
 * logged and err is Redis's "Failed to bind to specified addresses.". */
int listen_set_bind(char *err, size_t errlen);
/* Whether l is one of the TLS listeners. */
int listen_is_tls(const uv_tcp_t *l);

#endif
