/* src/t_hash.c: PLACEHOLDER for issue 9 work (replaced by its owner). */
