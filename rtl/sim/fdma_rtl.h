/* SPDX-License-Identifier: MIT */
/*
 * fdma_rtl.h - the RTL engine as a device for libfdma's rtl: backend.
 *
 * libfdma-rtl.so holds the Verilated engine (rtl/fdma_sim_top.v) and a
 * harness that plays the root complex around it in one thread: register
 * accesses become memory requests to BAR0, the engine's reads of host
 * memory are answered with completions (split, reordered, paced by the link
 * model, faulted on demand), its writes land in host memory and its MSI-X
 * writes (or MSI requests) become interrupts. The engine is driven through
 * its 7-series shim, in the pcie_7x core's AXI4-Stream format. libfdma loads it with dlopen() and finds one
 * symbol, fdma_rtl_plugin, so the library itself needs no C++ runtime.
 */
#ifndef FDMA_RTL_H
#define FDMA_RTL_H

#include <stdint.h>

#include "fdma_model.h"

#define FDMA_RTL_ABI 4

struct fdma_rtl;

struct fdma_rtl_counts {
	uint64_t cycles;	/* clocks simulated */
	uint64_t tlps_up;	/* TLPs the engine sent */
	uint64_t tlps_down;	/* TLPs the harness delivered */
	uint64_t reads;		/* memory read requests from the engine */
	uint64_t cpls;		/* completions the harness sent for them */
	uint64_t reordered;	/* completions delivered out of request order */
	uint64_t msix;		/* MSI-X messages */
	uint64_t msi;		/* MSI requests the core took (FDMA_RTL_IRQ=msi) */
	uint64_t faults;	/* faults injected */
	uint64_t bad_tlps;	/* TLPs that broke a rule the harness checks */
	uint64_t reg_reads;	/* register reads answered (the library's and
				 * FDMA_RTL_HOST_READS's) */
	uint64_t cplbuf_peak_h;	/* the most completion headers and data
				 * credits the core's buffer held at once */
	uint64_t cplbuf_peak_d;
	uint64_t stall_clocks;	/* clocks the core refused TX (FDMA_RTL_TX_STALL) */
	/* errors the engine reported to the core (cfg_err_*): UR (the core
	 * sent the completion), completion timeouts, unexpected
	 * completions, poisoned completions and poisoned writes */
	uint64_t err_ur;
	uint64_t err_timeout;
	uint64_t err_unexpect;
	uint64_t err_poisoned_cpl;
	uint64_t err_poisoned_wr;
};

struct fdma_rtl_plugin {
	unsigned int abi;	/* FDMA_RTL_ABI */
	/* cfg: link, paced, fault and fault_at are honoured; card_size 0
	 * means the engine's own; anything the RTL cannot be is -EINVAL with
	 * a message in why. */
	int (*create)(const struct fdma_model_cfg *cfg, const struct fdma_model_host *host,
		      struct fdma_rtl **out, char *why, size_t whylen);
	void (*destroy)(struct fdma_rtl *r);
	/* BAR0 accesses: a read waits for the engine's completion. */
	uint32_t (*read)(struct fdma_rtl *r, uint32_t off);
	void (*write)(struct fdma_rtl *r, uint32_t off, uint32_t val);
	double (*cpu_seconds)(struct fdma_rtl *r);
	void (*counts)(struct fdma_rtl *r, struct fdma_rtl_counts *out);
};

extern const struct fdma_rtl_plugin fdma_rtl_plugin;

#endif
