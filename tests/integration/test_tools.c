/* placeholder, filled below */
#include "harness.h"
int main(void) { Suite *s = suite_create("tools"); return h_main(s); }
