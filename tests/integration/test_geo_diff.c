#include "harness.h"
int main(void) { Suite *s = suite_create("x"); return h_main(s); }
