/* proxy: see proxy.h. Placeholder. */
#include "proxy.h"
