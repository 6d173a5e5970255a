/* SPDX-License-Identifier: MIT */
/*
 * fdma_tools.h - what the fdma command (tools/) and the RTL's figures
 * (rtl/sim/rtl_figures.c) use beyond libfdma's public API (fdma.h). Their
 * include path is include/ and this folder only, so nothing else of the
 * library's, the engine core's or the models' insides is within their
 * reach (Makefile, "include sets"):
 *
 *   - the engine's formats: the stream test frame's header (struct
 *     fdma_frame_hdr, docs/engine.md), and the register map fdma reg names
 *   - the PCIe link model: fdma model's tables, fdma doctor's ceilings
 *   - the RTL harness's counts behind an rtl: device
 */
#ifndef FDMA_TOOLS_H
#define FDMA_TOOLS_H

#include "fdma.h"
#include "../../engine/user/fdma_plat.h"	/* u32, u64: the formats' types */
#include "../../engine/fdma_regs.h"
#include "../../model/fdma_link.h"

/*
 * The RTL harness's counts (rtl/sim/fdma_rtl.h: clocks, TLPs, MSI-X
 * messages) of an rtl: device: 0, or -ENODEV where dev is no RTL device.
 */
struct fdma_rtl_counts;
int fdma_rtl_counts_get(struct fdma_dev *dev, struct fdma_rtl_counts *out);

#endif /* FDMA_TOOLS_H */
