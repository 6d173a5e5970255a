/* SPDX-License-Identifier: MIT */
/*
 * Force-included (-include) into the shared library's objects, which are
 * compiled with -fvisibility=hidden: the API's declarations, read first and
 * under default visibility, give the definitions of the fdma_* calls of
 * fdma.h default visibility; everything else the library defines stays
 * hidden. Calls between the library's files then go straight to the
 * function, not through the PLT, and nothing but the API can be exported
 * even without the version script (which the link still applies). The
 * header's include guard makes the sources' own #include <fdma.h> a no-op.
 * Done here so that fdma.h itself needs no visibility annotations.
 */
#pragma GCC visibility push(default)
#include "fdma.h"
#pragma GCC visibility pop
