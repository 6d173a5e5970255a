/* SPDX-License-Identifier: MIT */
/*
 * Engine core: the one place that knows how each engine is programmed.
 * The rest of the stack drives an engine through struct fdma_eng_ops and
 * the fdma_eng_*() / fdma_ering_*() calls below; what differs between
 * engines reaches it as capabilities (struct fdma_eng_caps), never as a
 * test of which engine it is. Two engines: FDMA, fdma's own
 * (docs/engine.md, fdma_eng_fdma.c), and Xilinx XDMA (PG195,
 * fdma_eng_xdma.c, docs/xdma.md).
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
 *        Offsets from FDMA_PLAT_BAR1 up reach the device's second BAR
 *        (XDMA's user BAR), where it has one; elsewhere they read 0
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

#define FDMA_PLAT_BAR1		0x10000u

struct fdma_ering;
struct fdma_eng_ops;

/*
 * What probe read from the engine, in terms every engine shares: the rest
 * of the stack (libfdma, fdma.ko, the tools) decides by these, never by
 * which engine it is.
 */
/*
 * In: zero it, then set the host's limits where it has them (XDMA, which
 * has no register for them, uses max_desc_len, card_size and poll_wb as
 * given: 0 / false for its own defaults); probe fills in the rest.
 */
struct fdma_eng_caps {
	const struct fdma_eng_ops *eng;	/* set by fdma_eng_probe() */
	u32 version;		/* major << 16 | minor, as the engine numbers it */
	u32 nchan;
	u32 align;		/* data alignment, bytes */
	u32 max_desc_len;	/* bytes, a multiple of align */
	u32 ring_max;		/* entries */
	u64 card_size;		/* bytes */
	bool coalesce;		/* interrupts by count (and by time if coal_timer) */
	bool coal_timer;	/* ... and by time: in hardware */
	bool coal_emulated;	/* count coalescing done by descriptor flags, not by the engine */
	bool testgen;
	bool mem2mem;		/* 1.2: a MEM2MEM channel exists */
	bool stream_bytes;	/* H2C stream descriptors of any address and length (FDMA 1.3; XDMA) */
	u32 c2h_stream_len;	/* ... C2H stream buffers' lengths: multiples of this (XDMA: 64; 0: any) */
	u32 c2h_stream_addr;	/* ... and their addresses (0: any) */
	bool stream_drop;	/* stream C2H: CH_CTRL.DROP drops a frame with no buffer */
	bool poll_wb;		/* XDMA: completions from the poll-mode write-back */
	bool overrun_flag;	/* stream C2H: the engine flags the first frame after drops */
	u32 user_irqs;		/* the FPGA's own interrupt lines the engine forwards */
	u32 chan_caps[FDMA_MAX_CHANNELS];	/* FDMA_CH_CAP_* */
	u32 hw_chan[FDMA_MAX_CHANNELS];		/* the engine's own number for the channel */
};

/* Per-descriptor host-side bookkeeping, one per ring entry (caller-allocated). */
struct fdma_eslot {
	u32 last;		/* 1 if this descriptor ends a request */
	u32 len;		/* XDMA: the piece's length */
	u64 cookie;		/* XDMA: the request's cookie (FDMA keeps it in the descriptor) */
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

/*
 * Host view of one channel's ring. Memory is caller-allocated: descriptors,
 * per-descriptor records (FDMA: completion records; XDMA: stream result
 * records) and a 64-byte write-back block, sized by fdma_ering_bytes().
 */
struct fdma_ering {
	const struct fdma_eng_ops *eng;
	struct fdma_plat *plat;
	u32 ch;
	u32 reg;		/* the channel's register block */
	u32 caps;		/* FDMA_CH_CAP_* */
	u32 align;		/* of this channel's addresses and lengths: 1 on a byte stream */
	u32 addr_align;		/* of its addresses alone (<= align) */
	u32 max_desc_len;
	u64 card_size;

	void *desc;		/* size entries */
	void *rec;		/* size entries */
	void *wbp;		/* the write-back block */
	struct fdma_eslot *slot;	/* size entries */
	u64 desc_bus, rec_bus, wb_bus;
	u32 size;		/* power of 2 */

	u32 pidx;		/* descriptors written, free-running */
	u32 pidx_pub;		/* descriptors handed to the device */
	u32 cidx;		/* descriptors reaped, free-running */
	u32 ctrl;		/* shadow of the channel's control register */
	u32 done_at_reset;	/* device's completion count when reset was asked */
	u32 doorbells;		/* doorbell (or chain start) writes, for statistics */

	/* FDMA engine */
	struct fdma_desc *fd;	/* = desc */
	struct fdma_cpl_rec *cpl;	/* = rec */
	struct fdma_wb *wb;	/* = wbp */
	u32 reset_seq;		/* last CH_RESET_REQ value */
	u32 irq_en;		/* CH_CTRL.IRQ_EN as last set: kept out of ctrl (fd_ctrl_wr()) */

	/* XDMA engine (see fdma_eng_xdma.c) */
	struct {
		u32 sg;		/* SGDMA block */
		u32 irq_bit;	/* the channel's bit in the IRQ block */
		u32 run_start;	/* first descriptor of the chain the engine runs */
		u32 run_end;	/* one past its last */
		u32 coal;	/* COMPLETED on every coal-th descriptor (0, 1: on every one) */
		u32 since_irq;	/* descriptors posted since the last COMPLETED */
		u32 err;	/* status at reset: the error of the descriptor at done_at_reset */
		u32 err_st;	/* error bits the host read away from the clear-on-read status */
		bool sof;	/* stream C2H: the next buffer starts a packet */
		bool irq_on;
		bool parked;	/* a chain waits for the engine to go idle (see launch()) */
	} x;
};

/*
 * One engine, as the rest of the stack drives it. Everything between
 * probe and the ring calls goes through these; fdma_eng_fdma
 * (fdma_eng_fdma.c) and fdma_eng_xdma (fdma_eng_xdma.c) implement them.
 * Callers use the fdma_eng_*() and fdma_ering_*() wrappers below.
 */
struct fdma_eng_ops {
	const char *name;	/* "fdma", "xdma" */
	u32 rec_bytes;		/* per-descriptor record bytes */
	int (*probe)(struct fdma_plat *p, struct fdma_eng_caps *caps);
	int (*reset)(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 timeout_us);
	void (*enable)(struct fdma_plat *p, const struct fdma_eng_caps *caps, bool on);
	int (*quiesce)(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 timeout_us);
	int (*ring_init)(struct fdma_ering *r, const struct fdma_eng_caps *caps);
	void (*start)(struct fdma_ering *r, u32 ctrl_flags, u32 irq_vec);
	void (*stop)(struct fdma_ering *r);
	void (*set_coalesce)(struct fdma_ering *r, u32 count, u32 usecs);
	void (*set_ctrl)(struct fdma_ering *r, u32 mask, u32 val);
	void (*set_irq)(struct fdma_ering *r, bool on);
	u32 (*irq_ack)(struct fdma_ering *r);
	void (*set_testgen)(struct fdma_ering *r, u32 frame_len, u32 period_ns, bool enable);
	void (*testgen_counts)(const struct fdma_ering *r, u32 *frames, u32 *errors);
	u32 (*overruns)(const struct fdma_ering *r);
	int (*post)(struct fdma_ering *r, const struct fdma_ereq *q);
	void (*doorbell)(struct fdma_ering *r);
	u32 (*done)(const struct fdma_ering *r);
	u32 (*reap)(struct fdma_ering *r, struct fdma_ecpl *out, u32 max);
	u32 (*status)(const struct fdma_ering *r);
	int (*ring_reset)(struct fdma_ering *r, u32 timeout_us);
	u32 (*cancel)(struct fdma_ering *r, struct fdma_ecpl *out, u32 max);
	/* Route channel i to vector i % nvec (NULL: the channel's start does). */
	void (*route_irqs)(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 nvec);
	/* Let user interrupts (bits of mask) through, or not; NULL: the engine has none. */
	void (*user_irq_enable)(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 mask,
				bool on);
	/* Does reading register off change the engine (clear-on-read)? NULL: none does. */
	bool (*rd_clears)(u32 off);
	/* Channels (bit i: channel i) whose interrupt is asserted; NULL: cannot tell (no INTx). */
	u32 (*irq_pending)(struct fdma_plat *p, const struct fdma_eng_caps *caps);
	/*
	 * Nothing completed unreaped, but a reap would start what was handed
	 * over (fdma_ering_ready()). NULL: the doorbell always hands it over.
	 */
	bool (*start_due)(const struct fdma_ering *r);
};

extern const struct fdma_eng_ops fdma_eng_fdma;
extern const struct fdma_eng_ops fdma_eng_xdma;

/* An engine by name ("fdma", "xdma"), or NULL. */
const struct fdma_eng_ops *fdma_eng_by_name(const char *name);

/*
 * Identify the engine; -ENODEV if it is not there (wrong magic or
 * identifiers), -EPROTO if it is of a version or shape not known here.
 */
static inline int fdma_eng_probe(const struct fdma_eng_ops *eng, struct fdma_plat *p,
				 struct fdma_eng_caps *caps)
{
	caps->eng = eng;
	return eng->probe(p, caps);
}

/*
 * For a shared INTx line: the channels whose interrupt is asserted, or
 * ~0 when the engine cannot tell (it then never runs on INTx).
 */
static inline u32 fdma_eng_irq_pending(struct fdma_plat *p, const struct fdma_eng_caps *caps)
{
	return caps->eng->irq_pending ? caps->eng->irq_pending(p, caps) : ~0u;
}

/*
 * The host got nvec interrupt vectors: channel i interrupts on i % nvec,
 * user interrupt k on nchan + k where that is below nvec. An engine whose
 * channels take their vector at start (FDMA's IRQ_VEC) needs nothing.
 */
static inline void fdma_eng_route_irqs(struct fdma_plat *p, const struct fdma_eng_caps *caps,
				       u32 nvec)
{
	if (caps->eng->route_irqs)
		caps->eng->route_irqs(p, caps, nvec);
}

/*
 * The FPGA's own interrupts the engine forwards (caps.user_irqs of them,
 * user interrupt k on vector nchan + k): let those of mask through, or not.
 */
static inline void fdma_eng_user_irq_enable(struct fdma_plat *p, const struct fdma_eng_caps *caps,
					    u32 mask, bool on)
{
	if (caps->eng->user_irq_enable)
		caps->eng->user_irq_enable(p, caps, mask, on);
}

/* For register tools: a read of the engine's register off that changes it. */
static inline bool fdma_eng_rd_clears(const struct fdma_eng_ops *eng, u32 off)
{
	return eng->rd_clears && eng->rd_clears(off);
}

/* Reset the whole engine (all channels stopped); -ETIMEDOUT after timeout_us. */
static inline int fdma_eng_reset(struct fdma_plat *p, const struct fdma_eng_caps *caps,
				 u32 timeout_us)
{
	return caps->eng->reset(p, caps, timeout_us);
}

/* Let the engine master the bus. */
static inline void fdma_eng_enable(struct fdma_plat *p, const struct fdma_eng_caps *caps, bool on)
{
	caps->eng->enable(p, caps, on);
}

/*
 * Stop the engine mastering the bus and wait until it has. 0 once memory
 * the engine could reach may be freed; -ETIMEDOUT or -ENODEV if that is
 * not known (keep such memory).
 */
static inline int fdma_eng_quiesce(struct fdma_plat *p, const struct fdma_eng_caps *caps,
				   u32 timeout_us)
{
	return caps->eng->quiesce(p, caps, timeout_us);
}

/*
 * Bytes of ring memory a channel needs: descriptors (32-byte aligned),
 * records (their own size aligned), and the write-back block (64 bytes,
 * 64-byte aligned). FDMA_RING_REC_MAX bounds the record size of any engine.
 */
#define FDMA_RING_DESC_BYTES(n)	((u64)(n) * 32u)
#define FDMA_RING_REC_BYTES(caps, n)	((u64)(n) * (caps)->eng->rec_bytes)
#define FDMA_RING_WB_BYTES	64u

/*
 * Set up ring r for channel ch (nothing is written to the device yet).
 * size: entries, a power of two within caps->ring_max. -EINVAL otherwise,
 * or if an area is not aligned.
 */
int fdma_ering_init(struct fdma_ering *r, struct fdma_plat *p,
		    const struct fdma_eng_caps *caps, u32 ch, u32 size,
		    void *desc, u64 desc_bus, void *rec, u64 rec_bus,
		    void *wb, u64 wb_bus, struct fdma_eslot *slot);

/*
 * Program the ring into the device and let it run. ctrl_flags:
 * FDMA_CH_CTRL_IRQ_EN | DROP (an engine without DROP ignores it). irq_vec:
 * the channel's interrupt vector (XDMA: fixed by the engine reset, see
 * fdma_eng_xdma.c).
 */
static inline void fdma_ering_start(struct fdma_ering *r, u32 ctrl_flags, u32 irq_vec)
{
	r->eng->start(r, ctrl_flags, irq_vec);
}

/* Stop the channel (the device finishes the descriptor in progress). */
static inline void fdma_ering_stop(struct fdma_ering *r)
{
	r->eng->stop(r);
}

/*
 * Interrupt after count completions or usecs after the oldest unsignalled
 * one. An engine without a timer (caps.coal_timer false) ignores usecs and
 * signals what is left when a batch completes.
 */
static inline void fdma_ering_set_coalesce(struct fdma_ering *r, u32 count, u32 usecs)
{
	r->eng->set_coalesce(r, count, usecs);
}

/*
 * Interrupts on or off. Turning them on also acknowledges what the device
 * signalled before (XDMA: clears the channel's status), then a full
 * barrier: check for work after this and no wake-up is lost.
 */
static inline void fdma_ering_set_irq(struct fdma_ering *r, bool on)
{
	r->eng->set_irq(r, on);
}

/*
 * In the interrupt path: acknowledge the channel's interrupt so that the
 * next one can come (XDMA: a read of the clear-on-read status; FDMA:
 * nothing). Returns engine status bits, for tracing only.
 */
static inline u32 fdma_ering_irq_ack(struct fdma_ering *r)
{
	return r->eng->irq_ack(r);
}

static inline void fdma_ering_set_ctrl(struct fdma_ering *r, u32 mask, u32 val)
{
	r->eng->set_ctrl(r, mask, val);
}

/* Smallest test frame: the header and one payload word. */
#define FDMA_TG_FRAME_MIN	((u32)sizeof(struct fdma_frame_hdr) + 8)

/*
 * The stream test generator (C2H) or checker (H2C) of a channel with
 * CH_CAPS.TESTGEN: frames of frame_len bytes every period_ns (0: as fast
 * as possible). The counts are the device's: frames generated or checked,
 * and frames that failed the checker; a channel reset zeroes them.
 */
static inline void fdma_ering_set_testgen(struct fdma_ering *r, u32 frame_len, u32 period_ns,
					  bool enable)
{
	r->eng->set_testgen(r, frame_len, period_ns, enable);
}

static inline void fdma_ering_testgen_counts(const struct fdma_ering *r, u32 *frames, u32 *errors)
{
	r->eng->testgen_counts(r, frames, errors);
}

/* Stream C2H frames the device dropped for want of a buffer (free-running). */
static inline u32 fdma_ering_overruns(const struct fdma_ering *r)
{
	return r->eng->overruns(r);
}

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
 * Check a request against the engine's rules (from the ring's rule
 * fields: caps, align, max_desc_len, card_size, size; r->eng is not
 * used). Returns 0 or a negative errno; *why (if not NULL) names the rule.
 */
int fdma_ering_check(const struct fdma_ering *r, const struct fdma_ereq *q,
		     const char **why);

/*
 * Write the descriptors of one request (split at max_desc_len). Does not
 * ring the doorbell. -EAGAIN if the ring lacks room for all pieces (nothing
 * is written), or fdma_ering_check()'s error.
 */
static inline int fdma_ering_post(struct fdma_ering *r, const struct fdma_ereq *q)
{
	return r->eng->post(r, q);
}

/*
 * Hand everything posted since the last doorbell to the device: one
 * register write (FDMA), or one chain start when the channel is idle
 * (XDMA; else a reap starts it once the running chain has ended and the
 * engine is idle: an interrupt, or fdma_ering_ready(), says when).
 */
static inline void fdma_ering_doorbell(struct fdma_ering *r)
{
	r->eng->doorbell(r);
}

/*
 * The device's completion count (free-running, like pidx): descriptors it
 * has completed, reaped or not, clamped to what was handed to it. It
 * equals pidx_pub when the device has nothing left to do.
 */
static inline u32 fdma_ering_done(const struct fdma_ering *r)
{
	return r->eng->done(r);
}

/*
 * Work for a reap: the descriptors the device has completed and the host
 * has not reaped; where there are none, 1 if a reap would start what was
 * handed over (XDMA: a chain that waited for the engine to go idle). So a
 * caller that checks this after turning interrupts on, and sleeps only
 * when it is 0, misses neither completions nor a start: the engine
 * interrupts for both.
 */
static inline u32 fdma_ering_ready(const struct fdma_ering *r)
{
	u32 n = fdma_ering_done(r) - r->cidx;

	if (!n && r->eng->start_due && r->eng->start_due(r))
		return 1;
	return n;
}

/*
 * Reap up to max finished requests into out[]. A request is returned only
 * once all its pieces are complete. Returns the number written. On XDMA
 * this also starts the next chain once the running one has ended and the
 * engine is idle.
 */
static inline u32 fdma_ering_reap(struct fdma_ering *r, struct fdma_ecpl *out, u32 max)
{
	return r->eng->reap(r, out, max);
}

/* Channel status as FDMA_CH_ST_* bits, whatever the engine (HALTED: reset to recover). */
static inline u32 fdma_ering_status(const struct fdma_ering *r)
{
	return r->eng->status(r);
}

/*
 * Reset the channel: the device drops everything posted and clears its
 * status. Waits for the device up to timeout_us (-ETIMEDOUT). Afterwards
 * call fdma_ering_cancel() to hand back what was posted and never
 * completed, then fdma_ering_start() to run again.
 */
static inline int fdma_ering_reset(struct fdma_ering *r, u32 timeout_us)
{
	return r->eng->ring_reset(r, timeout_us);
}

/*
 * After a reset: return up to max unfinished requests (one per request)
 * with the status of their first piece that did not complete: the error
 * that halted the channel, or FDMA_CPL_CANCELED; once none remain, zero
 * the indices.
 */
#define FDMA_CPL_CANCELED	0xffff
static inline u32 fdma_ering_cancel(struct fdma_ering *r, struct fdma_ecpl *out, u32 max)
{
	return r->eng->cancel(r, out, max);
}

/* Map a completion status to a negative errno (0 for FDMA_CPL_OK). */
int fdma_cpl_errno(u16 status);
const char *fdma_cpl_str(u16 status);

/* ---- for the engine implementations ------------------------------------ */

/* Fold one piece (len, status, flags) into a request's completion. */
void fdma_ecpl_fold(struct fdma_ecpl *acc, u64 cookie, u32 len, u16 status, u16 flags,
		    bool first);

#endif /* FDMA_ENGINE_H */
