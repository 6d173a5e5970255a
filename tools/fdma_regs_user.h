/* SPDX-License-Identifier: MIT */
/* The engine's formats (test frame header) for tools: the header needs u32/u64. */
#ifndef FDMA_REGS_USER_H
#define FDMA_REGS_USER_H
#include "fdma_plat.h"
#include "fdma_regs.h"
#endif
