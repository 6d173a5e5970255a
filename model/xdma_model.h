/* SPDX-License-Identifier: MIT */
/*
 * Register-level model of Xilinx XDMA (PG195, as recorded in docs/xdma.md):
 * the card an XDMA user has, in software. Unlike the FDMA model its
 * registers have side effects (W1S/W1C aliases, a clear-on-read status, a
 * run bit whose rising edge starts a chain), so the host reaches them only
 * through xdma_model_read()/xdma_model_write(): a function call in-process
 * (libfdma's sim:engine=xdma), a trapped MMIO access behind QEMU's proxy.
 *
 * BAR 0 is XDMA's DMA BAR (64 KiB). BAR 1 is the user BAR: the design
 * behind XDMA, here fdma's stream test block (xdma_regs.h, XDMA_TG_*) and
 * the model's test block at 0xf00 (fdma_mdbg.h's offsets).
 *
 * Configuration is struct fdma_model_cfg: mm_pairs memory-mapped H2C/C2H
 * channel pairs, plus streams AXI-Stream pairs as the next channels of
 * each direction; at most 4 per direction. A real XDMA IP is all
 * memory-mapped or all stream; the model may mix them to test both in one
 * device. align_log2 is what the memory-mapped channels' alignment
 * registers report; with stream_bytes the stream channels report what
 * PG195 gives AXI-ST (any address and length, C2H descriptors in
 * multiples of 64 bytes), else align_log2 too. loop joins the stream
 * pairs through the wire as on the FDMA model (fdma_model.h), without
 * the test block: the wire holds a frame until the receiver has a buffer.
 * max_desc_len is ignored (the engine's limit is the 28-bit length). Faults: desc (a
 * descriptor read fails), magic, data (a data read or write fails), stuck
 * (the channel stops completing until RUN is cleared), irq (the next
 * interrupt is lost), noack (stuck, and it ignores RUN being cleared).
 * busy_us: a channel reads BUSY that long after its chain ended (the
 * count written back, STOPPED and its interrupt out), and a RUN edge
 * meanwhile goes unseen; once idle it logs IDLE_STOPPED if RUN fell.
 */
#ifndef XDMA_MODEL_H
#define XDMA_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "fdma_model.h"

#define XDMA_MODEL_BAR0_BYTES	0x10000u
#define XDMA_MODEL_BAR1_BYTES	0x1000u

struct xdma_model;

int xdma_model_create(const struct fdma_model_cfg *cfg, const struct fdma_model_host *host,
		      struct xdma_model **mp);
void xdma_model_destroy(struct xdma_model *m);
/* A 32-bit access at off (4-byte aligned) of BAR bar; anything else reads 0. */
uint32_t xdma_model_read(struct xdma_model *m, unsigned int bar, uint32_t off);
void xdma_model_write(struct xdma_model *m, unsigned int bar, uint32_t off, uint32_t val);
/*
 * The function's interrupt mode, as its config space sets it: messages
 * (MSI-X or MSI enabled: host.irq, the default) or, with neither, the
 * legacy INTx level: asserted while any channel's interrupt is requested
 * and enabled in the IRQ block (its channel pending register non-zero),
 * reported through host.intx on every change. User interrupts are
 * messages only: the test block's strobe is a pulse, where the IP's INTx
 * needs a request the design holds until it is acknowledged.
 */
void xdma_model_set_intx(struct xdma_model *m, bool intx);
void xdma_model_counts(struct xdma_model *m, struct fdma_model_counts *out);
double xdma_model_cpu_seconds(struct xdma_model *m);

#endif
