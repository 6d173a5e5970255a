/* SPDX-License-Identifier: MIT */
/*
 * The FDMA engine model's insides, shared by its two files:
 *
 *   fdma_model.c         the engine: registers, the bus-master gate,
 *                        status, write-back, interrupts and coalescing,
 *                        pacing, resets, descriptors, the channel threads
 *   fdma_model_stream.c  what stream channels carry: the test generator
 *                        (C2H), the checker (H2C), and the loop=1 wire
 *                        between two stream pairs
 *
 * Only fdma_model.h is the model's interface; nothing else includes this.
 */
#ifndef FDMA_MODEL_PRIV_H
#define FDMA_MODEL_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "fdma_plat.h"
#include "fdma_regs.h"
#include "fdma_model.h"
#include "fdma_mcommon.h"
#include "fdma_wire.h"

/* An idle channel polls its doorbell this long (us) unless cfg.poll_us says. */
#define POLL_US		20u
/* Descriptors handled between looks at the control registers. */
#define BUDGET		64u
/* A channel with a NOACK fault writes its rings this often. */
#define ROGUE_PERIOD_NS	100000ull

/*
 * One per channel, each thread writing only its own: cache-line aligned so
 * that two channels' threads do not bounce a shared line (the model would
 * otherwise make channels slow each other down where an FPGA does not).
 */
struct mchan {
	_Alignas(64) struct fdma_model *m;
	unsigned int ch;
	u32 caps;
	u32 base;			/* register block offset */
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_int kicked;
	atomic_int sleeping;
	clockid_t cpuclock;
	atomic_uint greset_seen;
	/* this channel's threads inside the bus-master gate (dma_begin()) */
	atomic_uint dma_users;

	/* ring, latched when RUN is seen */
	bool running;
	struct fdma_desc *ring;
	struct fdma_cpl_rec *cpl;
	struct fdma_wb *wb;
	u32 size;
	u32 cidx;
	u32 last_pidx;
	u32 status;
	bool halted, stuck, stopped, lose_irq;
	bool rogue;			/* NOACK fault fired: see fdma_model.h */
	u32 reset_seen;

	/* a fault armed through the test block (FDMA_MDBG_*) */
	atomic_uint arm_kind;		/* enum fdma_fault, 0 when none */
	atomic_uint_fast64_t arm_left;	/* descriptors until it fires */

	/* coalescing */
	u32 unsig;
	u64 first_unsig_ns;

	/* pacing: when the next descriptor became available */
	u64 avail_ns;
	bool was_empty;

	/*
	 * Turning the generator or checker on (TG_CTRL bit 0 from 0 to 1)
	 * starts its numbering from 0. The register is memory here, so both
	 * this thread and the host's kicks look at it (tg_on: the last value
	 * seen; tg_starts: the rises seen), and an off and on between two
	 * looks is missed only where the host did not kick. A look reads and
	 * records under tg_lock: a value read before the host's write must
	 * not overwrite one read after it (that counted a second rise).
	 */
	pthread_mutex_t tg_lock;
	bool tg_on;
	atomic_uint tg_starts;
	unsigned int tg_starts_seen;	/* this thread's: the rises it has applied */

	/* C2H stream generator */
	struct fdma_tgen gen;
	bool pending_overrun;
	u64 next_frame_ns;

	/* H2C stream checker */
	struct fdma_tchk chk;

	/* loop: the wire this channel feeds (H2C) or drains (C2H), and the channel at its other end */
	struct fdma_wire *wire;
	unsigned int peer;
	bool w_in_frame;		/* C2H: a frame from the wire is being delivered */
	u32 w_len, w_off;

	u32 tg_frames, tg_errors, overruns, irqs;
};

struct fdma_model {
	struct fdma_model_cfg cfg;
	u64 poll_ns;		/* cfg.poll_us, or POLL_US by default */
	struct fdma_model_host host;
	volatile u32 *regs;
	u8 *card;
	unsigned int nchan;
	atomic_bool quit;
	atomic_uint_fast64_t desc_count;	/* counted only while a fault=KIND@N waits */
	atomic_uint_fast64_t refused, rogue_writes, faults;
	/* the test block: the last request taken */
	pthread_mutex_t mdbg_lock;
	atomic_uint mdbg_seen;
	struct fdma_link_clock clk[2];	/* [0] H2C (downstream), [1] C2H (upstream) */
	struct fdma_wire wires[FDMA_MAX_CHANNELS / 2];
	struct mchan chan[FDMA_MAX_CHANNELS];
};

#define now_ns fdma_mnow_ns
#define sleep_until fdma_msleep_until

static inline u32 grd(struct fdma_model *m, u32 off)
{
	return __atomic_load_n(&m->regs[off / 4], __ATOMIC_ACQUIRE);
}

static inline void gwr(struct fdma_model *m, u32 off, u32 val)
{
	__atomic_store_n(&m->regs[off / 4], val, __ATOMIC_RELEASE);
}

static inline u32 rd(struct mchan *c, u32 off)
{
	return grd(c->m, c->base + off);
}

static inline void wr(struct mchan *c, u32 off, u32 val)
{
	gwr(c->m, c->base + off, val);
}

static inline bool is_c2h(const struct mchan *c)
{
	return c->caps & FDMA_CH_CAP_C2H;
}

static inline bool is_stream(const struct mchan *c)
{
	return c->caps & FDMA_CH_CAP_STREAM;
}

static inline bool is_m2m(const struct mchan *c)
{
	return c->caps & FDMA_CH_CAP_MEM2MEM;
}

/* fdma_model.c: the engine, for the stream side */
bool fm_engine_enabled(struct fdma_model *m);
void fm_publish_status(struct mchan *c);
void fm_write_cpl(struct mchan *c, const struct fdma_desc *d, u32 len, u16 status, u16 flags);
void fm_coalesce(struct mchan *c, bool force);
void fm_halt(struct mchan *c, const struct fdma_desc *d, u16 status);
/* Hold a transfer of len bytes for the link's time; returns when it ends (ns). */
u64 fm_pace(struct mchan *c, u32 len);
/*
 * Fetch and check descriptor cidx, applying the fault due on it. Returns
 * false if the channel stopped (stuck, or halted on an error).
 */
bool fm_fetch_desc(struct mchan *c, struct fdma_desc *d, void **host, void **dst,
		   enum fdma_fault *f);

/* fdma_model_stream.c: what the stream channels carry, for the engine */
/* An H2C stream's bytes into the checker, when it is on. */
bool fm_tg_on(struct mchan *c);
void fm_checker_feed(struct mchan *c, const u8 *data, u32 len, u32 ctrl);
/* H2C into the wire, at_ns when the bytes crossed the link. */
void fm_wire_send(struct mchan *c, const u8 *data, u32 len, u32 ctrl, u64 at_ns);
/* H2C into the wire: whether the next descriptor waits for room. */
bool fm_wire_blocked(struct mchan *c);
/* A C2H stream channel fed by its test generator, or by the wire: descriptors used. */
u32 fm_run_generator(struct mchan *c, u32 pidx, u64 *deadline);
u32 fm_run_wire_rx(struct mchan *c, u32 pidx, u64 *deadline);

#endif /* FDMA_MODEL_PRIV_H */
