// SPDX-License-Identifier: GPL-2.0 OR MIT
/* fdma_dmac.ko's coverage hook (FDMA_COV=y): fdma.ko's, recording into map 1. */
#define FDMA_COV_ID	1
#include "../fdma_cov.c"
