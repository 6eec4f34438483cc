/* The counts of tests/tap.h, one pair for the whole test program. */
#include "tests/tap.h"

int tap_count;
int tap_failed;
