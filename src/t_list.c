/* src/t_list.c: PLACEHOLDER for issue 9 work (replaced by its owner). */
