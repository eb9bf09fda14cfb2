/* proxy: a TCP relay for the replication tests, so that a test can cut a
 * link and restore it. Placeholder: the tests' owner fills it. */
#ifndef VERSO_TEST_PROXY_H
#define VERSO_TEST_PROXY_H

typedef struct proxy proxy;

#endif
