/* SPDX-License-Identifier: MIT */
/*
 * FDMA engine core: the one place that knows how the engine is programmed.
 *
 * Compiled unchanged into libfdma and into the kernel module. It uses no
 * libc and no kernel headers; each side supplies "fdma_plat.h", which must
 * provide:
 *
 *   types      u8 u16 u32 u64 s32, bool, NULL, and the E* errno constants
 *   struct fdma_plat                       (opaque to the engine)
 *   u32  fdma_plat_rd32(struct fdma_plat *p, u32 off);
 *   void fdma_plat_wr32(struct fdma_plat *p, u32 off, u32 val);
 *   void fdma_plat_kick(struct fdma_plat *p, unsigned int ch);
 *        tell the device that channel ch has new host-written state (a
 *        doorbell, reset request or strobe): nothing on an FPGA, where the
 *        register write is the kick; the ivshmem doorbell in a VM; a wake-up
 *        of the model's thread in-process
 *   int  fdma_plat_poll32(struct fdma_plat *p, u32 off, u32 mask, u32 want,
 *                         u32 timeout_us);
 *        slow path only: wait, sleeping, until (register & mask) == want;
 *        0, -ETIMEDOUT once timeout_us of real time passed, or -ENODEV
 *        if the device is gone (a surprise removal reads all ones)
 *   fdma_wmb() fdma_rmb() fdma_mb()        memory barriers against the device
 *   u32  fdma_load_acquire32(const u32 *p);   read of device-written memory
 *
 * Host buffers are passed in as bus addresses; the engine never translates
 * addresses itself. Everything here is non-blocking except fdma_eng_reset()
 * and fdma_ering_reset(), which wait for the device with a bound.
 *
 * Concurrency: a struct fdma_ering is driven by one thread at a time; the
 * caller serialises.
 */
#ifndef FDMA_ENGINE_H
#define FDMA_ENGINE_H

#include "fdma_plat.h"
#include "fdma_regs.h"

/* What fdma_eng_probe() read from the identification registers. */
struct fdma_eng_caps {
	u32 version;		/* major << 16 | minor */
	u32 nchan;
	u32 align;		/* data alignment, bytes */
	u32 max_desc_len;	/* bytes, a multiple of align */
	u32 ring_max;		/* entries */
	u64 card_size;		/* bytes */
	bool coalesce;
	bool testgen;
	bool mem2mem;		/* 1.2: a MEM2MEM channel exists */
	u32 chan_caps[FDMA_MAX_CHANNELS];	/* FDMA_CH_CAP_* */
};

/* Per-descriptor host-side bookkeeping, one per ring entry (caller-allocated). */
struct fdma_eslot {
	u32 last;		/* 1 if this descriptor ends a request */
};

/*
 * A request as the engine sees it: a bus address, a card address (or, on a
 * MEM2MEM channel, the destination's bus address), a length.
 */
struct fdma_ereq {
	u64 host;		/* host bus address (0 for no host side); MEM2MEM: the source */
	union {
		u64 card;	/* card address (memory-mapped channels) */
		u64 dst;	/* MEM2MEM: destination host bus address */
	};
	u32 len;		/* may exceed max_desc_len: it is split */
	u32 flags;		/* FDMA_DESC_IRQ | SOF | EOF */
	u64 cookie;
};

/* A finished request: the split pieces of one fdma_ereq folded together. */
struct fdma_ecpl {
	u64 cookie;
	u32 len;		/* bytes moved, all pieces */
	u16 status;		/* FDMA_CPL_*: the first piece's error, or OK */
	u16 flags;		/* FDMA_CPL_F_*, OR of the pieces */
};

/* Host view of one channel's ring. Memory is caller-allocated. */
struct fdma_ering {
	struct fdma_plat *plat;
	u32 ch;
	u32 reg;		/* FDMA_CH_BASE(ch) */
	u32 caps;		/* FDMA_CH_CAP_* */
	u32 align;
	u32 max_desc_len;
	u64 card_size;

	struct fdma_desc *desc;	/* size entries */
	struct fdma_cpl_rec *cpl;	/* size entries */
	struct fdma_wb *wb;
	struct fdma_eslot *slot;	/* size entries */
	u64 desc_bus, cpl_bus, wb_bus;
	u32 size;		/* power of 2 */

	u32 pidx;		/* descriptors written, free-running */
	u32 pidx_pub;		/* last value written to the doorbell */
	u32 cidx;		/* descriptors reaped, free-running */
	u32 ctrl;		/* shadow of CH_CTRL (host-owned register) */
	u32 reset_seq;		/* last CH_RESET_REQ value */
	u32 done_at_reset;	/* device's completion count when reset was asked */
	u32 doorbells;		/* doorbell writes, for statistics */
};

/* Identify the engine; -ENODEV if the magic is wrong, -EPROTO if the version is unknown. */
int fdma_eng_probe(struct fdma_plat *p, struct fdma_eng_caps *caps);
/* Reset the whole engine (all channels stopped); -ETIMEDOUT after timeout_us. */
int fdma_eng_reset(struct fdma_plat *p, u32 timeout_us);
/* Let the engine master the bus (CTRL.ENABLE). */
void fdma_eng_enable(struct fdma_plat *p, bool on);
/*
 * Stop the engine mastering the bus: clear CTRL.ENABLE and wait until it
 * has stopped (STATUS.BUSY = 0, engine 1.1) or, for a 1.0 engine, read a
 * register back so that the posted write has arrived. 0 once memory the
 * engine could reach may be freed; -ETIMEDOUT or -ENODEV if that is not
 * known (keep such memory).
 */
int fdma_eng_quiesce(struct fdma_plat *p, const struct fdma_eng_caps *caps,
		     u32 timeout_us);

/* Bytes of ring memory a channel needs, each area naturally aligned. */
#define FDMA_RING_DESC_BYTES(n)	((u64)(n) * sizeof(struct fdma_desc))
#define FDMA_RING_CPL_BYTES(n)	((u64)(n) * sizeof(struct fdma_cpl_rec))
#define FDMA_RING_WB_BYTES	((u64)sizeof(struct fdma_wb))

/*
 * Set up ring r for channel ch (nothing is written to the device yet).
 * size: entries, a power of two within caps->ring_max. -EINVAL otherwise.
 */
int fdma_ering_init(struct fdma_ering *r, struct fdma_plat *p,
		    const struct fdma_eng_caps *caps, u32 ch, u32 size,
		    struct fdma_desc *desc, u64 desc_bus,
		    struct fdma_cpl_rec *cpl, u64 cpl_bus,
		    struct fdma_wb *wb, u64 wb_bus, struct fdma_eslot *slot);

/* Program the ring into the device and set RUN. ctrl_flags: FDMA_CH_CTRL_IRQ_EN | DROP. */
void fdma_ering_start(struct fdma_ering *r, u32 ctrl_flags, u32 irq_vec);
/* Clear RUN (the device finishes the descriptor in progress). */
void fdma_ering_stop(struct fdma_ering *r);

/* Interrupt after count completions or usecs after the oldest unsignalled one. */
void fdma_ering_set_coalesce(struct fdma_ering *r, u32 count, u32 usecs);
void fdma_ering_set_irq(struct fdma_ering *r, bool on);
void fdma_ering_set_ctrl(struct fdma_ering *r, u32 mask, u32 val);

/* Smallest test frame: the header and one payload word. */
#define FDMA_TG_FRAME_MIN	((u32)sizeof(struct fdma_frame_hdr) + 8)

/*
 * The stream test generator (C2H) or checker (H2C) of a channel with
 * CH_CAPS.TESTGEN: frames of frame_len bytes every period_ns (0: as fast
 * as possible). The counts are the device's: frames generated or checked,
 * and frames that failed the checker; a channel reset zeroes them.
 */
void fdma_ering_set_testgen(struct fdma_ering *r, u32 frame_len, u32 period_ns, bool enable);
void fdma_ering_testgen_counts(const struct fdma_ering *r, u32 *frames, u32 *errors);

/* Free descriptor entries, and entries still owned by the device. */
static inline u32 fdma_ering_space(const struct fdma_ering *r)
{
	/* Free-running u32 counters: the difference is right across wrap-around. */
	return r->size - (r->pidx - r->cidx);
}

static inline u32 fdma_ering_inflight(const struct fdma_ering *r)
{
	return r->pidx - r->cidx;
}

/* Descriptors a request of len bytes takes. */
static inline u32 fdma_ering_ndesc(const struct fdma_ering *r, u32 len)
{
	/* Written to not overflow for len near 4 GiB. */
	return len == 0 ? 1 : len / r->max_desc_len + (len % r->max_desc_len != 0);
}

/*
 * Check a request against the engine's rules. Returns 0 or a negative
 * errno; *why (if not NULL) names the rule that failed.
 */
int fdma_ering_check(const struct fdma_ering *r, const struct fdma_ereq *q,
		     const char **why);

/*
 * Write the descriptors of one request (split at max_desc_len). Does not
 * ring the doorbell. -EAGAIN if the ring lacks room for all pieces (nothing
 * is written), or fdma_ering_check()'s error.
 */
int fdma_ering_post(struct fdma_ering *r, const struct fdma_ereq *q);

/* Publish everything posted since the last doorbell: one register write. */
void fdma_ering_doorbell(struct fdma_ering *r);

/* Descriptors the device has completed and the host has not reaped. */
u32 fdma_ering_ready(const struct fdma_ering *r);

/*
 * The device's completion count (free-running, like pidx): descriptors it
 * has completed, reaped or not, clamped to what the doorbell published. It
 * equals pidx_pub when the device has nothing left to do.
 */
u32 fdma_ering_done(const struct fdma_ering *r);

/*
 * Reap up to max finished requests into out[]. A request is returned only
 * once all its pieces are complete. Returns the number written.
 */
u32 fdma_ering_reap(struct fdma_ering *r, struct fdma_ecpl *out, u32 max);

/* Device-written channel status (from the write-back block, no register read). */
u32 fdma_ering_status(const struct fdma_ering *r);

/*
 * Reset the channel: the device drops everything posted, clears its status
 * and indices. Waits for the device's acknowledgement up to timeout_us
 * (-ETIMEDOUT). Afterwards call fdma_ering_cancel() to hand back what was
 * posted and never completed, then fdma_ering_start() to run again.
 */
int fdma_ering_reset(struct fdma_ering *r, u32 timeout_us);

/*
 * After a reset: return up to max unfinished requests with status
 * FDMA_CPL_CANCELED (one per request); once none remain, zero the indices.
 */
#define FDMA_CPL_CANCELED	0xffff
u32 fdma_ering_cancel(struct fdma_ering *r, struct fdma_ecpl *out, u32 max);

/* Map a completion status to a negative errno (0 for FDMA_CPL_OK). */
int fdma_cpl_errno(u16 status);
const char *fdma_cpl_str(u16 status);

#endif /* FDMA_ENGINE_H */
