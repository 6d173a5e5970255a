/* SPDX-License-Identifier: MIT */
/*
 * bench_run.h - the measuring loop fdma bench and fdma soak share: two
 * batches of transfers kept in flight between host buffer slots and card
 * regions, every byte checked, latency per transfer, and the figures
 * (throughput, CPU, interrupts, wake-ups) of one run.
 *
 * A run is opened once per transfer size (its buffers), pointed at a
 * window of card memory (the regions its transfers cycle over, and their
 * patterns), its slots set, then measured as often as the caller likes:
 *
 *   bench_run_open()     buffers, the link ceiling
 *   bench_run_window()   regions in [base, base + len), patterns on the card
 *   bench_run_slots()    the host slots' first contents
 *   bench_run_measure()  the timed loop, into a struct bench_res
 *   bench_run_recover()  after a failed measure: channels reset and drained
 *   bench_run_close()    everything given back
 *
 * Every call prints its reason ("fdma CMD: ...") when it returns -1.
 */
#ifndef FDMA_TOOL_BENCH_RUN_H
#define FDMA_TOOL_BENCH_RUN_H

#include <stdint.h>

#include "fdma.h"
#include "util.h"

#define MAX_SIZES 32

struct bench_opts {
	const char *cmd;	/* "bench", "soak": the messages' prefix */
	const char *uri;
	enum fdma_dir dir;	/* FDMA_C2H in copy mode: the device writes host slots */
	int copy;		/* memory-to-memory: a source buffer stands in for card memory */
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	unsigned int batch;
	enum fdma_wait_mode wait;
	double seconds;
	int coal_count, coal_us;	/* -1: leave the device's setting */
	int hugepages;
	int per_call;		/* one transfer at a time, its buffer registered for it */
	int dmabuf;		/* the slots are an imported dma-buf, checked through the card */
	int register_mem;	/* the slots are the process's own memory, registered (pinned) */
	int json, wide, progress;
	const char *plot;	/* --plot FILE.svg */
};

struct bench_res {
	uint64_t size, bytes, transfers, bytes_checked, errors;
	uint64_t canceled;		/* transfers a reset after an error canceled */
	double secs, mbps, ceiling, memcpy_mbps;
	double cpu_pct, verify_cpu_pct, model_cpu_pct, process_cpu_pct;
	double wakeups_per_s, irqs_per_s, transfers_per_s, p50, p99;
	double syscalls_per_xfer, irqs_per_cpl;
	double pins_per_xfer;		/* pages pinned per transfer (per-call mode) */
	double cpu_s_per_gb;		/* host CPU (cpu_pct's) per GB moved */
	double idle_p50, idle_p99;	/* one transfer alone: no queueing */
	double others_cpu_pct;		/* other processes' CPU meanwhile; -1 unknown */
	uint64_t idle_n;
	uint64_t interrupts, wakeups;	/* the channel's, over the run */
	int huge_used;			/* the buffers really got huge pages */
	const char *exporter;		/* --mem dmabuf: where the dma-buf came from */
	int interrupted;		/* Ctrl-C cut this size's run short */
};

/* What a transfer's host side needs to be checked: see bench_run.c. */
struct bench_copy_src {
	int buf;
	struct fdma_copy *cps;
};

struct bench_readback {
	int ch, buf;
	const uint8_t *base;
	struct fdma_req *req;
	struct fdma_cpl *cpl;
	unsigned int pending;		/* reads submitted, not yet checked */
};

struct bench_cardchk {
	int h2c, buf;			/* H2C channel; the host buffer reads land in */
	const uint8_t *base;
	uint64_t scratch;		/* card address of scratch region 0 */
	unsigned int nscr, next, inflight;
	uint64_t *scr_t;		/* the transfer scratch region i holds */
	struct fdma_req *req;		/* a batch */
	struct fdma_cpl *cpl;
};

struct bench_run {
	struct fdma_dev *dev;
	const struct bench_opts *o;
	int ch;
	uint64_t size;
	struct fdma_info info;
	unsigned int depth;		/* host slots: two batches */
	unsigned int regions;		/* card regions the transfers cycle over */
	uint64_t card_base;		/* where region 0 starts */
	uint64_t view_addr;		/* a card region of the window's own for set-up copies */
	struct fdma_req *reqs;		/* a batch */
	struct fdma_cpl *cpls;
	double *sub_time;		/* per slot: when its transfer was submitted */
	struct bench_readback rb;	/* H2C's check */
	struct bench_copy_src src;	/* copy mode's source */
	const struct bench_copy_src *cs;	/* &src in copy mode, else NULL */
	int card_chk;			/* C2H into a dma-buf: checked through the card */
	struct bench_cardchk cc;
	int buf, stage;			/* the slots; a dma-buf's staging buffer, or -1 */
	uint8_t *base, *stage_base;	/* their mappings (base NULL for a dma-buf) */
	void *user_mem;			/* register_mem: the slots' memory, the process's own */
	size_t user_len;
	uint64_t slot_gen;		/* bench_run_slots() calls: H2C's slot patterns' generation */
	struct tool_lat lat;		/* the last measure's latencies, us (without lat_cb) */
	/* Where each latency goes instead, if set (a histogram of the caller's). */
	void (*lat_cb)(void *arg, double us);
	void *lat_arg;
	double verify;			/* thread CPU seconds spent checking */
};

/*
 * The tables and buffers for transfers of size bytes on channel ch (and
 * the ceiling, huge_used and exporter in res). 0, or -1 said why; either
 * way bench_run_close() gives back what there is.
 */
int bench_run_open(struct bench_run *r, struct fdma_dev *dev, const struct bench_opts *o,
		   int ch, uint64_t size, struct bench_res *res);
/*
 * The card memory the transfers use: as many regions of [base, base + len)
 * as they want or fit (and the scratch a card check needs), C2H's holding
 * their patterns. 0, or -1 said why (the window too small).
 */
int bench_run_window(struct bench_run *r, uint64_t base, uint64_t len);
/* The smallest window bench_run_window() takes for these transfers, bytes. */
uint64_t bench_run_min_window(unsigned int batch, int dmabuf, enum fdma_dir dir, uint64_t size);
/* The slots' first contents: zeros for C2H, their patterns for H2C. 0 or -1 said why. */
int bench_run_slots(struct bench_run *r);
/*
 * The timed loop for o->seconds (or until a stop request), counted into
 * res (bytes, transfers, errors, canceled, secs and the figures); r->lat
 * holds its latencies after. A transfer that fails ends the loop: what
 * was queued behind it is drained, counted as canceled, and the call
 * returns 0 with the error counted. -1 (said why) when the channel could
 * not be driven at all: call bench_run_recover() before measuring again.
 * prog may be NULL: no progress line.
 */
int bench_run_measure(struct bench_run *r, struct bench_res *res, struct tool_progress *prog);
/* One transfer at a time, no queueing (res's idle_*). */
void bench_run_idle_latency(struct bench_run *r, struct bench_res *res);
/* Channels with transfers in flight reset and drained: 0, or -1 said why. */
int bench_run_recover(struct bench_run *r);
void bench_run_close(struct bench_run *r, int failed);
/*
 * The figures derived alike from a run's counts (res->secs, bytes,
 * transfers, cpu_pct), its channel's statistics before and after, and its
 * latencies.
 */
void bench_res_rates(struct bench_res *res, const struct fdma_chan_stats *st0,
		     const struct fdma_chan_stats *st1, struct tool_lat *lat);

#endif
