/* src/t_set.c: PLACEHOLDER for issue 9 work (replaced by its owner). */
