/* snapshot/rdb_coll.c: PLACEHOLDER for issue 9 work (replaced by its owner). */
