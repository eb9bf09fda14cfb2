/* rdb_coll: PLACEHOLDER */
#ifndef VERSO_RDB_COLL_H
#define VERSO_RDB_COLL_H
#endif
