/* pubsub: see pubsub.h. Placeholder. */
#include "pubsub.h"

#include "cmd.h"

void pubsub_init(void) {}
void pubsub_client_closed(client *c) { (void)c; }
long long pubsub_publish(const char *channel, size_t clen, const char *msg, size_t mlen) {
    (void)channel; (void)clen; (void)msg; (void)mlen;
    return 0;
}
void cmd_publish(client *c) { reply_int(c, 0); }
void cmd_subscribe(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_psubscribe(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_unsubscribe(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_punsubscribe(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_pubsub(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_spublish(client *c) { reply_int(c, 0); }
void cmd_ssubscribe(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sunsubscribe(client *c) { reply_error(c, "ERR not implemented yet"); }
