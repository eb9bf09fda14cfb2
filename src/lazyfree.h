/* lazyfree: PLACEHOLDER */
#ifndef VERSO_LAZYFREE_H
#define VERSO_LAZYFREE_H
#endif
