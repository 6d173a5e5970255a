// SPDX-License-Identifier: MIT
/*
 * FDMA engine model: what its stream channels carry (fdma_model_priv.h).
 * C2H: frames of the test generator (struct fdma_frame_hdr, docs/engine.md
 * section 13), or of the wire; H2C: into the checker, or onto the wire
 * (loop=1: stream pair k's H2C frames arrive on pair k ^ 1's C2H channel,
 * as two ports joined by a cable). A C2H frame is delivered a piece per
 * posted buffer (c2h_deliver()).
 */
#include <string.h>

#include "fdma_model_priv.h"

void fm_checker_feed(struct mchan *c, const u8 *data, u32 len, u32 ctrl)
{
	if (!fm_tg_on(c))
		return;
	fdma_tchk_feed(&c->chk, data, len, ctrl & FDMA_DESC_SOF, ctrl & FDMA_DESC_EOF);
	c->tg_frames = c->chk.frames;
	c->tg_errors = c->chk.errors;
	wr(c, FDMA_CH_TG_FRAMES, c->tg_frames);
	wr(c, FDMA_CH_TG_ERRORS, c->tg_errors);
}

/* H2C into the wire; its room was made sure of before the fetch (fm_wire_blocked()). */
/*
 * Whether the receiving end runs: its CH_CTRL.RUN, as the host wrote it
 * (not the other channel's thread's view, which lags the write: a frame
 * sent just after the host started both channels must arrive). A port
 * whose other end is down loses what it sends, as over a cable: held back
 * by a stopped receiver, the sender would stall for good.
 */
static bool wire_peer_up(const struct mchan *c)
{
	return rd(&c->m->chan[c->peer], FDMA_CH_CTRL) & FDMA_CH_CTRL_RUN;
}

void fm_wire_send(struct mchan *c, const u8 *data, u32 len, u32 ctrl, u64 at_ns)
{
	bool eof = ctrl & FDMA_DESC_EOF;

	if (!wire_peer_up(c)) {
		fdma_wire_abort(c->wire);
		return;
	}
	fdma_wire_put(c->wire, data, len, ctrl & FDMA_DESC_SOF, eof, at_ns);
	/* A whole frame is there for the other end: wake it. */
	if (eof)
		fdma_model_kick(c->m, c->peer);
}

/*
 * H2C into the wire: whether the next descriptor must wait for room (the
 * receiving end frees it and kicks us). A frame larger than the whole wire
 * could never go: the channel halts with LEN_ERR.
 */
bool fm_wire_blocked(struct mchan *c)
{
	const struct fdma_desc *d;
	u32 len, ctrl;
	int room;

	if (!c->ring || !wire_peer_up(c))
		return false;	/* run_desc() reports a bad ring; a down peer takes all */
	d = &c->ring[c->cidx & (c->size - 1)];
	len = __atomic_load_n(&d->len, __ATOMIC_RELAXED);
	ctrl = __atomic_load_n(&d->ctrl, __ATOMIC_RELAXED);
	if (len == 0)
		return false;
	room = fdma_wire_room(c->wire, len, ctrl & FDMA_DESC_SOF, ctrl & FDMA_DESC_EOF);
	if (room < 0) {
		fm_halt(c, d, FDMA_CPL_LEN_ERR);
		return true;
	}
	return !room;
}

/* Build the next test frame in the generator's own memory (the card side). */
static int build_frame(struct mchan *c, u32 len, u64 t_ready)
{
	return fdma_tgen_build(&c->gen, len, t_ready);
}

/* n C2H stream frames dropped for want of a buffer (DROP): counted, the next one flagged. */
static void count_overruns(struct mchan *c, u32 n)
{
	c->overruns += n;
	c->pending_overrun = true;
	c->status |= FDMA_CH_ST_OVERRUN;
	wr(c, FDMA_CH_OVERRUNS, c->overruns);
	__atomic_store_n(&c->wb->overruns, c->overruns, __ATOMIC_RELEASE);
	fm_publish_status(c);
}

/* Lose n frames of a paced source (DROP): counted, and their seq numbers used up. */
static void drop_frames(struct mchan *c, u64 n, u32 period)
{
	c->gen.seq += (u32)n;
	c->next_frame_ns += n * period;
	count_overruns(c, (u32)n);
}

/*
 * Where a C2H stream channel's frames come from: the test generator or
 * the wire. read copies bytes of the frame being delivered; end runs once
 * its last byte is written, before that buffer's completion.
 */
struct c2h_source {
	void (*read)(struct mchan *c, u32 off, void *dst, u32 len);
	void (*end)(struct mchan *c, void *ctx);
};

/*
 * Deliver the frame being sent (len bytes, *off of them done while
 * *in_frame) into the buffers posted up to pidx, a piece per buffer:
 * SOF (and OVERRUN after drops) on the first, EOF on the last. Returns
 * the descriptors used.
 */
static u32 c2h_deliver(struct mchan *c, u32 pidx, const struct c2h_source *src, void *ctx,
		       u32 len, u32 *off, bool *in_frame)
{
	u32 n = 0;

	while (*in_frame && c->cidx != pidx && n < BUDGET && fm_engine_enabled(c->m)) {
		enum fdma_fault f;
		struct fdma_desc d;
		void *host = NULL, *unused;
		u32 piece;
		u16 flags = 0;

		if (!fm_fetch_desc(c, &d, &host, &unused, &f))
			return n;
		piece = len - *off;
		if (piece > d.len)
			piece = d.len;
		src->read(c, *off, host, piece);
		fm_pace(c, piece);
		if (f == FDMA_FAULT_DATA) {
			fm_halt(c, &d, FDMA_CPL_DATA_ERR);
			return n;
		}
		if (*off == 0) {
			flags |= FDMA_CPL_F_SOF;
			if (c->pending_overrun)
				flags |= FDMA_CPL_F_OVERRUN;
			c->pending_overrun = false;
		}
		*off += piece;
		if (*off == len) {
			flags |= FDMA_CPL_F_EOF;
			*in_frame = false;
			src->end(c, ctx);
		}
		fm_write_cpl(c, &d, piece, FDMA_CPL_OK, flags);
		fm_coalesce(c, d.ctrl & FDMA_DESC_IRQ);
		n++;
	}
	return n;
}

static void gen_read(struct mchan *c, u32 off, void *dst, u32 len)
{
	memcpy(dst, c->gen.frame + off, len);
}

/* ctx: the generator's period (ns, 0 for as fast as buffers allow). */
static void gen_end(struct mchan *c, void *ctx)
{
	u32 period = *(const u32 *)ctx;

	c->gen.seq++;
	c->tg_frames++;
	wr(c, FDMA_CH_TG_FRAMES, c->tg_frames);
	c->next_frame_ns = period ? c->next_frame_ns + period : now_ns();
}

static const struct c2h_source gen_source = { .read = gen_read, .end = gen_end };

/* C2H stream channel with its test generator. Returns descriptors used. */
u32 fm_run_generator(struct mchan *c, u32 pidx, u64 *deadline)
{
	u32 ctrl = rd(c, FDMA_CH_CTRL);
	bool on = c->gen.in_frame || fm_tg_on(c);
	/*
	 * Read after TG_CTRL: the host writes the length and the period
	 * before it turns the generator on, so a generator seen on has them
	 * (read first, a stale length made one frame of the last setting).
	 */
	u32 len = rd(c, FDMA_CH_TG_FRAME_LEN);
	u32 period = rd(c, FDMA_CH_TG_PERIOD_NS);
	u64 now;

	/*
	 * A frame that has started goes out whole, even with the generator
	 * turned off since (docs/engine.md sections 13 and 14); the next one
	 * waits for it to be on.
	 */
	if (!c->gen.in_frame) {
		if (!on || len < sizeof(struct fdma_frame_hdr) || len > FDMA_TGEN_MODEL_MAX)
			return 0;
		now = now_ns();
		if (!c->next_frame_ns)
			c->next_frame_ns = now;
		if (now < c->next_frame_ns) {
			*deadline = c->next_frame_ns;
			return 0;
		}
		/*
		 * A paced source that fell a whole period or more behind (the
		 * link still busy with the last frame, or no buffer armed)
		 * never sends the frames it owes in a burst: with DROP it is
		 * a camera, whose frames of the ticks that passed are lost
		 * (counted, and their seq numbers used up); held back, its
		 * schedule restarts from now, so it falls behind its rate
		 * and nothing is lost (docs/engine.md, section 13).
		 * Unpaced, the link takes no time: lateness there is only
		 * this thread waiting for a CPU, which an FPGA's clock never
		 * does, so the schedule restarts and nothing is lost.
		 */
		if (period && now - c->next_frame_ns >= period) {
			u64 late = (now - c->next_frame_ns) / period;

			if ((ctrl & FDMA_CH_CTRL_DROP) && c->m->cfg.paced)
				drop_frames(c, late, period);
			else
				c->next_frame_ns = now;
		}
		if (pidx == c->cidx) {
			/* No buffer at a frame boundary: drop it or hold the source. */
			if (!(ctrl & FDMA_CH_CTRL_DROP) || !period)
				return 0;
			drop_frames(c, 1, period);
			*deadline = c->next_frame_ns;
			return 0;
		}
		/* Stamped with its tick: a frame held for a buffer shows it in its latency. */
		if (build_frame(c, len, period ? c->next_frame_ns : now)) {
			fm_halt(c, NULL, FDMA_CPL_DATA_ERR);
			return 0;
		}
		/* The link carries the frame from when it exists, not from when buffers were armed. */
		if (c->avail_ns < now)
			c->avail_ns = now;
	}
	return c2h_deliver(c, pidx, &gen_source, &period, c->gen.len, &c->gen.off,
			   &c->gen.in_frame);
}

static void wire_read(struct mchan *c, u32 off, void *dst, u32 len)
{
	fdma_wire_read(c->wire, off, dst, len);
}

/* The frame is out of the wire: its room goes back to the sender, who may wait for it. */
static void wire_end(struct mchan *c, void *ctx)
{
	(void)ctx;
	fdma_wire_pop(c->wire);
	fdma_model_kick(c->m, c->peer);
}

static const struct c2h_source wire_source = { .read = wire_read, .end = wire_end };

/*
 * C2H stream channel fed by the wire (loop). A frame with no buffer posted
 * at its start is dropped with DROP, as a NIC drops a packet it has no
 * buffer for (counted as an overrun, the next frame flagged), and waits
 * otherwise, which holds the sending end back. Returns descriptors used,
 * and frames dropped.
 */
u32 fm_run_wire_rx(struct mchan *c, u32 pidx, u64 *deadline)
{
	u32 n = 0;

	while (!c->w_in_frame) {
		u32 len = fdma_wire_peek(c->wire);
		u64 at;

		if (!len)
			return n;
		/* No buffer and no DROP: it waits on the wire, taking none of its time yet. */
		if (pidx == c->cidx && !(rd(c, FDMA_CH_CTRL) & FDMA_CH_CTRL_DROP))
			return n;
		/* A rated wire carries one frame after another, each for its time (paced or not). */
		if (!fdma_wire_due(c->wire, len, now_ns(), deadline, &at))
			return n;
		if (pidx == c->cidx) {
			fdma_wire_pop(c->wire);
			fdma_model_kick(c->m, c->peer);
			count_overruns(c, 1);
			n++;
			continue;
		}
		c->w_in_frame = true;
		c->w_len = len;
		c->w_off = 0;
		if (c->avail_ns < at)
			c->avail_ns = at;
	}
	return n + c2h_deliver(c, pidx, &wire_source, NULL, c->w_len, &c->w_off, &c->w_in_frame);
}
