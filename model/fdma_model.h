/* SPDX-License-Identifier: MIT */
/*
 * Behavioural model of the FDMA engine (docs/engine.md): the FPGA, in
 * software. It sees the host only through three things, so the same model
 * serves the in-process simulator and, later, a QEMU guest through ivshmem:
 *   - a register file (32-bit words in memory that both sides map),
 *   - a DMA window: bus address -> host pointer, NULL when unmapped,
 *   - an interrupt callback per vector.
 * The host "kicks" a channel after writing its registers.
 *
 * One thread per channel fetches descriptors, moves bytes, writes
 * completions and raises interrupts by the coalescing rule; with pacing on
 * it holds each transfer for the time the PCIe link model says the link
 * needs, so software sees link-limited throughput.
 */
#ifndef FDMA_MODEL_H
#define FDMA_MODEL_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fdma_link.h"

enum fdma_fault {
	FDMA_FAULT_NONE = 0,
	FDMA_FAULT_DESC,	/* descriptor fetch fails: DESC_ERR, channel halts */
	FDMA_FAULT_DATA,	/* data poisoned: DATA_ERR, channel halts */
	FDMA_FAULT_STUCK,	/* channel stops completing until reset */
	FDMA_FAULT_IRQ,		/* the next interrupt is lost */
	FDMA_FAULT_NOACK,	/* the channel stops completing, never acknowledges
				 * a channel reset and keeps writing its
				 * completion ring and write-back block until the
				 * engine is disabled (CTRL.ENABLE = 0); an engine
				 * reset clears it */
	FDMA_FAULT_MAGIC,	/* a descriptor reads back without its magic
				 * (XDMA: the channel stops, MAGIC_STOPPED; the
				 * FDMA engine has no magic: as DESC) */
	FDMA_FAULT_KINDS
};

#include "fdma_mdbg.h"

/* What a stream descriptor may be (1.3, docs/engine.md section 8). */
enum {
	FDMA_BYTES_NONE = 0,	/* aligned, as in 1.0 to 1.2 */
	FDMA_BYTES_ALL = 1,	/* STREAM_BYTES: any address and length, both ways */
	FDMA_BYTES_H2C = 2,	/* H2C_BYTES: H2C alone; C2H buffers stay aligned */
};

struct fdma_model_cfg {
	struct fdma_link_cfg link;
	bool paced;		/* hold transfers for the link's time */
	unsigned int mm_pairs;	/* H2C + C2H memory-mapped channel pairs */
	unsigned int streams;	/* plus this many stream pairs: a C2H and an H2C channel each */
	/* 1.3: stream descriptors of any address and length: FDMA_BYTES_* */
	unsigned int stream_bytes;
	/*
	 * Stream pair k's H2C frames arrive on pair k ^ 1's C2H channel (pair
	 * k's own where k ^ 1 has none), as two ports joined by a cable; such
	 * channels have no test generator or checker.
	 */
	bool loop;
	/*
	 * loop: the wire's own rate, Mbit/s (0: none, only the PCIe link's).
	 * A frame of len bytes takes max(len, 60) + 24 bytes of it (FCS,
	 * preamble and gap), as on Ethernet, paced link or not.
	 */
	unsigned int wire_mbps;
	unsigned int memcpy_chans;	/* plus this many MEM2MEM channels (engine 1.2) */
	uint64_t card_size;	/* card memory, bytes (sparse) */
	uint32_t max_desc_len;
	unsigned int align_log2;
	uint32_t ring_max;
	enum fdma_fault fault;
	uint64_t fault_at;	/* fire at the Nth descriptor fetched (1-based, all channels) */
	/*
	 * The CPUs the channel threads run on; none set: wherever the
	 * scheduler puts them. The threads stand in for the card's engine:
	 * on CPUs of their own they take no time from the host's threads,
	 * and their interrupts reach a host thread from another CPU, as a
	 * card's MSI does (docs/studies/net.md).
	 */
	cpu_set_t cpus;
	/*
	 * An idle channel polls for work this long before it sleeps, us;
	 * FDMA_POLL_DEFAULT: the model's own default (fdma_model.c's and
	 * xdma_model.c's POLL_US). A sleeping channel costs a wake-up to
	 * start, one an engine does not have; a polling one costs CPU time
	 * the host may need where they share CPUs.
	 */
	unsigned int poll_us;
	/*
	 * XDMA model only: a channel still reads BUSY this long, us, after a
	 * chain's last write-back, STOPPED and interrupt; a RUN edge meanwhile
	 * goes unseen. What an engine may do (the count can be seen before
	 * BUSY falls); 0: BUSY falls with the write-back.
	 */
	unsigned int busy_us;
};

struct fdma_model_host {
	void *(*dma)(void *ctx, uint64_t bus, uint64_t len);
	void (*irq)(void *ctx, unsigned int vector);
	/* XDMA in INTx mode (xdma_model_set_intx()): the level changed; may be NULL. */
	void (*intx)(void *ctx, bool level);
	void *ctx;
};

struct fdma_model;

#define FDMA_MODEL_REGS_BYTES 4096u

#define FDMA_POLL_DEFAULT	(~0u)

void fdma_model_cfg_defaults(struct fdma_model_cfg *c);
/* regs: FDMA_MODEL_REGS_BYTES of zeroed memory, shared with the host. */
int fdma_model_create(const struct fdma_model_cfg *cfg, volatile uint32_t *regs,
		      const struct fdma_model_host *host, struct fdma_model **mp);
void fdma_model_kick(struct fdma_model *m, unsigned int ch);
void fdma_model_destroy(struct fdma_model *m);
/* The model's own counts (also in its test block). */
struct fdma_model_counts {
	uint64_t faults;	/* faults fired */
	uint64_t refused;	/* DMA accesses refused while CTRL.ENABLE was 0 */
	uint64_t rogue_writes;	/* writes made by channels with a NOACK fault */
};
void fdma_model_counts(struct fdma_model *m, struct fdma_model_counts *out);
/* CPU time used by the model's threads, seconds. */
double fdma_model_cpu_seconds(struct fdma_model *m);
unsigned int fdma_model_nchan(const struct fdma_model *m);

#endif
