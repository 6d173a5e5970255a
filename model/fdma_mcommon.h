/* SPDX-License-Identifier: MIT */
/*
 * What the device models share (model/fdma_model.c, model/xdma_model.c):
 * real time and link pacing, and the stream test frames' generator and
 * checker (frame format: struct fdma_frame_hdr, docs/engine.md).
 */
#ifndef FDMA_MCOMMON_H
#define FDMA_MCOMMON_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fdma_plat.h"
#include "fdma_regs.h"
#include "fdma_model.h"

u64 fdma_mnow_ns(void);
/* Sleep most of a long wait, spin the rest: wake-up jitter would cost link time. */
void fdma_msleep_until(u64 t);

/*
 * Start a channel thread on the CPUs in cpus (any CPU where none is set);
 * -errno, -EINVAL where cpus holds no CPU this process may use.
 */
int fdma_mthread_start(pthread_t *t, const cpu_set_t *cpus, void *(*fn)(void *), void *arg);

/* cfg->poll_us in ns, or def_us, the model's own default, where the URI left it. */
u64 fdma_mpoll_ns(const struct fdma_model_cfg *cfg, unsigned int def_us);

/* One direction of the link: busy until free_ns. */
struct fdma_link_clock {
	pthread_mutex_t lock;
	u64 free_ns;
};

/* Reserve cost ns of the link from not_before on; returns when it ends. */
u64 fdma_link_clock_reserve(struct fdma_link_clock *lc, u64 not_before, u64 cost);

/* A C2H test frame source: builds frame seq in its own memory (the card side). */
struct fdma_tgen {
	u8 *frame;
	size_t cap;
	u32 len, off;		/* the frame being sent, and how far */
	u32 seq;
	bool in_frame;
};

/*
 * The longest test frame the models build. They build each frame in
 * memory before sending it (the header's CRC covers the payload), where an
 * FPGA's generator computes the CRC and streams: above this their
 * generator stays idle, as below the header's length (docs/engine.md
 * section 14), rather than spend seconds on one frame with the channel
 * deaf to its reset.
 */
#define FDMA_TGEN_MODEL_MAX	(64u << 20)

/* Build frame seq of len bytes stamped t_ready; -ENOMEM. */
/*
 * A generator frame of len (>= 32) bytes at p, at any address: the header,
 * payload word i = seq << 32 | i, a zero tail. The generators send it, and
 * tests and tools build what a checker counts good with it.
 */
void fdma_frame_fill(u8 *p, u32 seq, u32 len, u64 tstamp_ns);
int fdma_tgen_build(struct fdma_tgen *g, u32 len, u64 t_ready);
void fdma_tgen_free(struct fdma_tgen *g);

/* An H2C test frame checker: counts good frames and bad ones. */
struct fdma_tchk {
	struct fdma_frame_hdr hdr;
	unsigned long crc;
	u32 len, seq;
	bool in_frame;
	u32 frames, errors;
};

void fdma_tchk_feed(struct fdma_tchk *k, const u8 *data, u32 len, bool sof, bool eof);

#endif
