// SPDX-License-Identifier: MIT
/*
 * The XDMA engine core (engine/fdma_eng_xdma.c) on the XDMA model, driven
 * through fdma_ering_*() alone, as fdma.ko's network interface drives its
 * rings: a transmit path that posts and rings the doorbell and never looks
 * back, and a NAPI-like poll that reaps, turns interrupts back on, looks
 * at fdma_ering_ready() once more and otherwise sleeps until the next
 * interrupt. No channel layer retries anything behind their backs.
 *
 * The model holds BUSY for a while after each chain's end (busy_us): its
 * count is written back and its interrupt sent while the engine still
 * reads busy, and a RUN edge then goes unseen. A chain handed over in that
 * window cannot start at once; the engine must still get it started with
 * nothing more from the caller than its ordinary reap loop.
 *
 * Also the model's rules as the IP has them: any alignment on memory-
 * mapped channels (a design's larger one refused with the right status
 * bit), and the legacy INTx level in place of messages.
 *
 * Bus addresses are offsets into one arena (its base is no host pointer),
 * so that a stray address the engine writes is refused, not followed.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_exit.h"

#include "fdma_engine.h"
#include "xdma_model.h"
#include "xdma_regs.h"

#define ARENA_BYTES	(8u << 20)
#define ARENA_BUS	0x0000004000000000ull
#define CARD_BYTES	(1u << 20)
#define RING		64u
/* Long enough that the host surely acts while the engine still reads busy. */
#define HOLD_US		5000u
/* A bug fails the test instead of hanging it; no test waits this long when it passes. */
#define GUARD_NS	(5ull * 1000 * 1000 * 1000)

/* fdma's channel numbers on the model: memory-mapped pair, then the stream pair. */
#define CH_H2C		0u
#define CH_C2H		1u
#define CH_H2C_ST	2u
#define CH_C2H_ST	3u

struct host {
	u8 *arena;
	u64 used;
	struct xdma_model *m;
	struct fdma_plat plat;
	struct fdma_eng_caps caps;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int irqs[32];	/* messages per vector */
	bool intx;		/* the INTx level the model reported last */
	unsigned int intx_rises, intx_falls;
};

struct ring {
	struct fdma_ering r;
	struct fdma_eslot slot[RING];
	struct host *h;
};

/* ---- the host ----------------------------------------------------------- */

static void *h_dma(void *ctx, uint64_t bus, uint64_t len)
{
	struct host *h = ctx;

	if (bus < ARENA_BUS || bus - ARENA_BUS > ARENA_BYTES || len > ARENA_BYTES - (bus - ARENA_BUS))
		return NULL;
	return h->arena + (bus - ARENA_BUS);
}

static void h_irq(void *ctx, unsigned int vec)
{
	struct host *h = ctx;

	pthread_mutex_lock(&h->lock);
	if (vec < 32)
		h->irqs[vec]++;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

static void h_intx(void *ctx, bool level)
{
	struct host *h = ctx;

	pthread_mutex_lock(&h->lock);
	if (level && !h->intx)
		h->intx_rises++;
	if (!level && h->intx)
		h->intx_falls++;
	h->intx = level;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

static u32 h_rd(void *ctx, u32 off)
{
	return off >= FDMA_PLAT_BAR1 ? xdma_model_read(ctx, 1, off - FDMA_PLAT_BAR1)
				     : xdma_model_read(ctx, 0, off);
}

static void h_wr(void *ctx, u32 off, u32 val)
{
	if (off >= FDMA_PLAT_BAR1)
		xdma_model_write(ctx, 1, off - FDMA_PLAT_BAR1, val);
	else
		xdma_model_write(ctx, 0, off, val);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

/* The model with busy_us, loop for the stream pair; the engine probed and reset. */
/* align_log2: the memory-mapped channels' alignment (0: the IP's, any byte). */
static struct host *host_open(unsigned int busy_us, bool poll_wb, unsigned int align_log2)
{
	struct host *h = calloc(1, sizeof(*h));
	struct fdma_model_host mh;
	struct fdma_model_cfg cfg;
	pthread_condattr_t ca;

	assert_non_null(h);
	h->arena = aligned_alloc(4096, ARENA_BYTES);
	assert_non_null(h->arena);
	memset(h->arena, 0, ARENA_BYTES);
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);

	fdma_model_cfg_defaults(&cfg);
	cfg.paced = false;
	cfg.mm_pairs = 1;
	cfg.streams = 1;
	cfg.loop = true;
	cfg.card_size = CARD_BYTES;
	cfg.busy_us = busy_us;
	cfg.align_log2 = align_log2;
	mh = (struct fdma_model_host){ .dma = h_dma, .irq = h_irq, .intx = h_intx, .ctx = h };
	assert_int_equal(xdma_model_create(&cfg, &mh, &h->m), 0);
	h->plat = (struct fdma_plat){ .rd = h_rd, .wr = h_wr, .trap_ctx = h->m };

	h->caps.card_size = CARD_BYTES;
	h->caps.poll_wb = poll_wb;
	assert_int_equal(fdma_eng_probe(&fdma_eng_xdma, &h->plat, &h->caps), 0);
	assert_int_equal(h->caps.nchan, 4);
	assert_int_equal(fdma_eng_reset(&h->plat, &h->caps, 200000), 0);
	return h;
}

static void host_close(struct host *h)
{
	xdma_model_destroy(h->m);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h->arena);
	free(h);
}

static void *arena_get(struct host *h, u64 bytes, u64 align, u64 *bus)
{
	u64 at = (h->used + align - 1) & ~(align - 1);

	assert_true(at + bytes <= ARENA_BYTES);
	h->used = at + bytes;
	*bus = ARENA_BUS + at;
	return h->arena + at;
}

static u64 bus_of(struct host *h, const void *p)
{
	return ARENA_BUS + (u64)((const u8 *)p - h->arena);
}

/* A ring on channel ch, started with interrupts on (vector ch, as the engine reset routes). */
static struct ring *ring_open(struct host *h, u32 ch)
{
	struct ring *rg = calloc(1, sizeof(*rg));
	u64 desc_bus, rec_bus, wb_bus;
	void *desc, *rec, *wb;

	assert_non_null(rg);
	rg->h = h;
	desc = arena_get(h, FDMA_RING_DESC_BYTES(RING), 4096, &desc_bus);
	rec = arena_get(h, FDMA_RING_REC_BYTES(&h->caps, RING), 64, &rec_bus);
	wb = arena_get(h, FDMA_RING_WB_BYTES, 64, &wb_bus);
	assert_int_equal(fdma_ering_init(&rg->r, &h->plat, &h->caps, ch, RING, desc, desc_bus, rec,
					 rec_bus, wb, wb_bus, rg->slot), 0);
	fdma_ering_start(&rg->r, FDMA_CH_CTRL_IRQ_EN, ch);
	return rg;
}

static unsigned int irqs_of(struct host *h, u32 vec)
{
	unsigned int n;

	pthread_mutex_lock(&h->lock);
	n = h->irqs[vec];
	pthread_mutex_unlock(&h->lock);
	return n;
}

/* Sleep until vector vec has had a message after the seen-th; false after GUARD_NS. */
static bool wait_irq(struct host *h, u32 vec, unsigned int seen)
{
	u64 end = now_ns() + GUARD_NS;
	struct timespec ts = { .tv_sec = (time_t)(end / 1000000000ull),
			       .tv_nsec = (long)(end % 1000000000ull) };
	bool got;

	pthread_mutex_lock(&h->lock);
	while (h->irqs[vec] == seen && pthread_cond_timedwait(&h->cond, &h->lock, &ts) == 0)
		;
	got = h->irqs[vec] != seen;
	pthread_mutex_unlock(&h->lock);
	return got;
}

/* The channel's status register (the one that does not clear on read). */
static u32 chan_status(struct ring *rg)
{
	return fdma_plat_rd32(&rg->h->plat, rg->r.reg + XDMA_CH_STATUS);
}

static void fail_stuck(struct ring *rg, const char *where)
{
	fail_msg("%s: channel %u: no interrupt within %llu s and fdma_ering_ready() is %u, "
		 "with %u descriptors handed over and %u done, status 0x%x, %u chain starts: "
		 "a chain handed over while the engine read BUSY never started",
		 where, rg->r.ch, (unsigned long long)(GUARD_NS / 1000000000ull),
		 fdma_ering_ready(&rg->r), rg->r.pidx_pub - rg->r.cidx,
		 fdma_ering_done(&rg->r) - rg->r.cidx, chan_status(rg), rg->r.doorbells);
}

/*
 * NAPI on one ring until want requests are reaped into out[]: reap; with
 * nothing more, interrupts on and fdma_ering_ready() once more; else sleep
 * until the next interrupt, mask the channel (as fdma_net_irq() does) and
 * go again. Interrupts are left on.
 */
static void napi(struct ring *rg, struct fdma_ecpl *out, u32 want)
{
	struct fdma_ering *r = &rg->r;
	u32 got = 0;

	for (;;) {
		unsigned int seen;

		got += fdma_ering_reap(r, out + got, want - got);
		if (got == want)
			break;
		seen = irqs_of(rg->h, r->ch);
		fdma_ering_set_irq(r, true);
		if (fdma_ering_ready(r))
			continue;
		if (!wait_irq(rg->h, r->ch, seen))
			fail_stuck(rg, "napi");
		fdma_ering_set_irq(r, false);
	}
	fdma_ering_set_irq(r, true);
}

static void fill(u8 *p, u32 len, u32 seed)
{
	for (u32 i = 0; i < len; i++)
		p[i] = (u8)(seed * 131u + i * 7u + (i >> 8));
}

static void check(const u8 *p, u32 len, u32 seed)
{
	for (u32 i = 0; i < len; i++)
		if (p[i] != (u8)(seed * 131u + i * 7u + (i >> 8)))
			fail_msg("byte %u of %u (seed %u): 0x%02x, expected 0x%02x", i, len, seed, p[i],
				 (u8)(seed * 131u + i * 7u + (i >> 8)));
}

/* One request of len bytes between host bus address host and card address card. */
static void post(struct ring *rg, u64 host, u64 card, u32 len, u64 cookie)
{
	struct fdma_ereq q = { .host = host, .card = card, .len = len, .cookie = cookie };

	assert_int_equal(fdma_ering_post(&rg->r, &q), 0);
}

static void expect_cpl(const struct fdma_ecpl *e, u64 cookie, u32 len)
{
	assert_int_equal(e->cookie, cookie);
	assert_int_equal(e->status, FDMA_CPL_OK);
	assert_int_equal(e->len, len);
}

/* ---- the tests ------------------------------------------------------------ */

#define BLK	8192u
#define ROUNDS	12u

/*
 * Post, doorbell, wait for the interrupt: the transmit path. Right after a
 * request completes the engine still reads busy, so the next doorbell
 * cannot start its chain; nobody reaps before the next interrupt (the
 * transmit path does not, and NAPI has gone to sleep): the engine must
 * interrupt once it can start it, or nothing ever moves again. Both
 * directions: blocks written to the card, read back, every byte checked.
 * Returns the doorbells that found the engine busy.
 */
static unsigned int one_way(struct ring *rg, u8 *buf, u32 blocks, u32 seed, bool c2h)
{
	struct fdma_ecpl e;
	unsigned int refused = 0;

	for (u32 k = 0; k < blocks; k++) {
		u32 doorbells = rg->r.doorbells;
		unsigned int seen = irqs_of(rg->h, rg->r.ch);

		if (!c2h)
			fill(buf + k * BLK, BLK, seed + k);
		else
			memset(buf + k * BLK, 0, BLK);
		post(rg, bus_of(rg->h, buf + k * BLK), (u64)k * BLK, BLK, k);
		fdma_ering_doorbell(&rg->r);
		if (rg->r.doorbells == doorbells) {
			refused++;
			/* No reap first: the transmit path hands over and leaves. */
			if (!wait_irq(rg->h, rg->r.ch, seen))
				fail_stuck(rg, c2h ? "read after a read" : "write after a write");
		}
		napi(rg, &e, 1);
		expect_cpl(&e, k, BLK);
		if (c2h)
			check(buf + k * BLK, BLK, seed + k);
	}
	return refused;
}

static void doorbell_while_busy(bool poll_wb)
{
	struct host *h = host_open(HOLD_US, poll_wb, 0);
	struct ring *tx = ring_open(h, CH_H2C), *rx = ring_open(h, CH_C2H);
	u64 bus;
	u8 *src = arena_get(h, ROUNDS * BLK, 4096, &bus), *dst = arena_get(h, ROUNDS * BLK, 4096, &bus);
	unsigned int refused;

	refused = one_way(tx, src, ROUNDS, 1, false);
	refused += one_way(rx, dst, ROUNDS, 1, true);
	/*
	 * Each pass's first request has no chain before it; the others came
	 * while the last chain's BUSY was held, unless this thread was held up
	 * for longer than HOLD_US. One is enough for the test to have tested.
	 */
	print_message("%u of %u doorbells found the engine busy\n", refused, 2 * ROUNDS);
	assert_true(refused > 0);
	free(tx);
	free(rx);
	host_close(h);
}

static void test_doorbell_while_busy(void **state)
{
	(void)state;
	doorbell_while_busy(true);
}

static void test_doorbell_while_busy_registers(void **state)
{
	(void)state;
	doorbell_while_busy(false);
}

/*
 * NAPI's side of it: the interrupt masks the channel and NAPI reaps;
 * meanwhile the transmit path hands a request over, which the engine,
 * still busy, cannot start. While it is busy there is nothing to do
 * (fdma_ering_ready() is 0: no poll spins on a busy engine). NAPI goes
 * to sleep only after interrupts are back on and fdma_ering_ready()
 * says nothing is there: once the engine is idle that must say so, since
 * turning interrupts on acknowledged (and lost) what the engine said
 * while they were off.
 */
static void rearm_after_refused_start(bool poll_wb)
{
	struct host *h = host_open(HOLD_US, poll_wb, 0);
	struct ring *rg = ring_open(h, CH_H2C);
	struct fdma_ering *r = &rg->r;
	struct ring *rd = ring_open(h, CH_C2H);
	u64 bus;
	u8 *src = arena_get(h, 2 * BLK, 4096, &bus), *back = arena_get(h, 2 * BLK, 4096, &bus);
	struct fdma_ecpl e;
	unsigned int tries = 0, seen;
	bool refused = false;

	for (u32 k = 0; !refused; k += 2) {
		u32 doorbells;
		u64 end;

		assert_true(++tries <= 20);
		assert_true(k + 2 <= CARD_BYTES / BLK);
		fill(src, 2 * BLK, k);
		post(rg, bus_of(h, src), (u64)k * BLK, BLK, k);
		fdma_ering_doorbell(r);
		napi(rg, &e, 1);
		expect_cpl(&e, k, BLK);
		/* NAPI still runs, the channel masked by the interrupt that scheduled it. */
		fdma_ering_set_irq(r, false);
		/* The transmit path, meanwhile. */
		doorbells = r->doorbells;
		post(rg, bus_of(h, src + BLK), (u64)(k + 1) * BLK, BLK, k + 1);
		fdma_ering_doorbell(r);
		refused = r->doorbells == doorbells;
		if (refused) {
			u32 ready = fdma_ering_ready(r);

			/* BUSY still reads set: it was set when ready() looked. */
			if (chan_status(rg) & XDMA_ST_BUSY)
				assert_int_equal(ready, 0);
			/* The engine goes idle with the channel's interrupt masked. */
			end = now_ns() + GUARD_NS;
			while (chan_status(rg) & XDMA_ST_BUSY)
				assert_true(now_ns() < end);
		}
		/* NAPI is done: interrupts on, one more look, else sleep until the next one. */
		seen = irqs_of(h, r->ch);
		fdma_ering_set_irq(r, true);
		if (!fdma_ering_ready(r) && !wait_irq(h, r->ch, seen))
			fail_stuck(rg, "NAPI's last look");
		fdma_ering_set_irq(r, false);
		napi(rg, &e, 1);
		expect_cpl(&e, k + 1, BLK);
		/* Both blocks on the card, byte for byte. */
		memset(back, 0, 2 * BLK);
		post(rd, bus_of(h, back), (u64)k * BLK, 2 * BLK, k);
		fdma_ering_doorbell(&rd->r);
		napi(rd, &e, 1);
		expect_cpl(&e, k, 2 * BLK);
		check(back, 2 * BLK, k);
	}
	free(rg);
	free(rd);
	host_close(h);
}

static void test_rearm_after_refused_start(void **state)
{
	(void)state;
	rearm_after_refused_start(true);
}

static void test_rearm_after_refused_start_registers(void **state)
{
	(void)state;
	rearm_after_refused_start(false);
}

/*
 * The network interface itself, in miniature: frames of 60 to 1514 bytes
 * go out on the H2C stream, one doorbell each, and come back on the C2H
 * stream through the model's wire, into buffers refilled a batch at a
 * time with a doorbell each batch; one thread polls both rings as NAPI
 * does, and sleeps for either interrupt. With BUSY held after every
 * chain the rings stall unless the engine starts what waits. Every frame
 * arrives whole, in order, byte for byte.
 */
#define FRAMES		600u
#define RXBUF		2048u
#define INFLIGHT	16u

static u32 frame_len(u32 n)
{
	return 60u + (n * 389u) % 1455u;
}

static void test_net_loop(void **state)
{
	struct host *h = host_open(50, true, 0);
	struct ring *tx = ring_open(h, CH_H2C_ST), *rx = ring_open(h, CH_C2H_ST);
	u64 bus;
	u8 *txb = arena_get(h, (u64)RING * RXBUF, 4096, &bus);
	u8 *rxb = arena_get(h, (u64)RING * RXBUF, 4096, &bus);
	u32 sent = 0, done_tx = 0, got = 0, rx_pidx = 0;
	struct fdma_ecpl e[RING];

	(void)state;
	/* The receive ring full of buffers, as at open. */
	for (; rx_pidx < RING; rx_pidx++)
		post(rx, bus_of(h, rxb + (rx_pidx % RING) * RXBUF), 0, RXBUF, rx_pidx);
	fdma_ering_doorbell(&rx->r);
	while (got < FRAMES) {
		unsigned int seen_tx, seen_rx;
		u32 n;
		bool more;

		/* Transmit: a frame at a time, a doorbell each, up to INFLIGHT unreaped. */
		while (sent < FRAMES && sent - done_tx < INFLIGHT) {
			u32 slot = sent % RING, len = frame_len(sent);
			struct fdma_ereq q = { .host = bus_of(h, txb + slot * RXBUF), .len = len,
					       .flags = FDMA_DESC_SOF | FDMA_DESC_EOF, .cookie = sent };

			fill(txb + slot * RXBUF, len, sent);
			assert_int_equal(fdma_ering_post(&tx->r, &q), 0);
			fdma_ering_doorbell(&tx->r);
			sent++;
		}
		/* NAPI: transmit completions, then receive, then the refill. */
		do {
			n = fdma_ering_reap(&tx->r, e, RING);
			for (u32 i = 0; i < n; i++)
				expect_cpl(&e[i], done_tx + i, frame_len(done_tx + i));
			done_tx += n;
			more = n;
			n = fdma_ering_reap(&rx->r, e, RING);
			for (u32 i = 0; i < n; i++) {
				u32 slot = (u32)e[i].cookie % RING;

				assert_int_equal(e[i].status, FDMA_CPL_OK);
				assert_int_equal(e[i].flags & (FDMA_CPL_F_SOF | FDMA_CPL_F_EOF),
						 FDMA_CPL_F_SOF | FDMA_CPL_F_EOF);
				assert_int_equal(e[i].len, frame_len(got));
				check(rxb + slot * RXBUF, e[i].len, got);
				got++;
			}
			more |= n;
			if (n) {
				for (u32 i = 0; i < n; i++, rx_pidx++)
					post(rx, bus_of(h, rxb + (rx_pidx % RING) * RXBUF), 0, RXBUF,
					     rx_pidx);
				fdma_ering_doorbell(&rx->r);
			}
		} while (more);
		if (got == FRAMES)
			break;
		/* Room to send more: no sleep. */
		if (sent < FRAMES && sent - done_tx < INFLIGHT)
			continue;
		seen_tx = irqs_of(h, tx->r.ch);
		seen_rx = irqs_of(h, rx->r.ch);
		fdma_ering_set_irq(&rx->r, true);
		fdma_ering_set_irq(&tx->r, true);
		if (fdma_ering_ready(&rx->r) || fdma_ering_ready(&tx->r))
			continue;
		{
			u64 end = now_ns() + GUARD_NS;
			struct timespec ts = { .tv_sec = (time_t)(end / 1000000000ull),
					       .tv_nsec = (long)(end % 1000000000ull) };
			bool woke;

			pthread_mutex_lock(&h->lock);
			while (h->irqs[tx->r.ch] == seen_tx && h->irqs[rx->r.ch] == seen_rx &&
			       pthread_cond_timedwait(&h->cond, &h->lock, &ts) == 0)
				;
			woke = h->irqs[tx->r.ch] != seen_tx || h->irqs[rx->r.ch] != seen_rx;
			pthread_mutex_unlock(&h->lock);
			if (!woke) {
				print_message("%u frames sent, %u sent back, %u received\n", sent,
					      done_tx, got);
				fail_stuck(sent != done_tx ? tx : rx, "network loop");
			}
		}
		fdma_ering_set_irq(&rx->r, false);
		fdma_ering_set_irq(&tx->r, false);
	}
	assert_int_equal(got, FRAMES);
	free(tx);
	free(rx);
	host_close(h);
}

/*
 * A request the engine must refuse, from a host that ignores the alignment
 * register: the channel stops with exactly the status bit want (and no
 * other error), the ring says halted, and after a reset the request comes
 * back with the completion status cpl.
 */
static void refused(struct ring *rg, u64 host, u64 card, u32 len, u32 want, u16 cpl)
{
	struct fdma_ering *r = &rg->r;
	unsigned int seen = irqs_of(rg->h, r->ch);
	struct fdma_ecpl e;

	post(rg, host, card, len, 99);
	fdma_ering_doorbell(r);
	if (!wait_irq(rg->h, r->ch, seen))
		fail_stuck(rg, "a refused descriptor");
	assert_int_equal(chan_status(rg) & XDMA_ST_ERRORS, want);
	assert_true(fdma_ering_status(r) & FDMA_CH_ST_HALTED);
	assert_int_equal(fdma_ering_reset(r, 200000), 0);
	assert_int_equal(fdma_ering_cancel(r, &e, 1), 1);
	assert_int_equal(e.cookie, 99);
	assert_int_equal(e.status, cpl);
	assert_int_equal(fdma_ering_cancel(r, &e, 1), 0);
	fdma_ering_start(r, FDMA_CH_CTRL_IRQ_EN, r->ch);
}

/*
 * Alignment as PG195 gives AXI4-MM channels: none. Both memory-mapped
 * channels' alignment registers read 0x00010140 (1-byte addresses and
 * lengths, 64 address bits, as a card does), and 4100 bytes go from host
 * offset 3 to card 0x1003 and back to host offset 5, the bytes around
 * them untouched. A design built with a larger alignment reports it
 * (0x00404040 for 64), and a host that ignores it gets a length error
 * for a length and an alignment mismatch for an address, each alone.
 */
static void test_mm_alignment(void **state)
{
	struct host *h = host_open(0, true, 0);
	struct ring *tx = ring_open(h, CH_H2C), *rx = ring_open(h, CH_C2H);
	u64 bus, sbus;
	u8 *src = arena_get(h, 3 * 4096, 4096, &sbus), *dst = arena_get(h, 3 * 4096, 4096, &bus);
	struct fdma_ecpl e;

	(void)state;
	assert_int_equal(fdma_plat_rd32(&h->plat, XDMA_CH(0, 0) + XDMA_CH_ALIGN), 0x00010140);
	assert_int_equal(fdma_plat_rd32(&h->plat, XDMA_CH(1, 0) + XDMA_CH_ALIGN), 0x00010140);
	assert_int_equal(h->caps.align, 1);
	fill(src + 3, 4100, 9);
	post(tx, sbus + 3, 0x1003, 4100, 1);
	fdma_ering_doorbell(&tx->r);
	napi(tx, &e, 1);
	expect_cpl(&e, 1, 4100);
	memset(dst, 0xee, 3 * 4096);
	post(rx, bus + 5, 0x1003, 4100, 2);
	fdma_ering_doorbell(&rx->r);
	napi(rx, &e, 1);
	expect_cpl(&e, 2, 4100);
	for (u32 i = 0; i < 5; i++)
		assert_int_equal(dst[i], 0xee);
	check(dst + 5, 4100, 9);
	for (u32 i = 5 + 4100; i < 3 * 4096; i++)
		assert_int_equal(dst[i], 0xee);
	free(tx);
	free(rx);
	host_close(h);

	h = host_open(0, true, 6);
	tx = ring_open(h, CH_H2C);
	src = arena_get(h, 4096, 4096, &sbus);
	assert_int_equal(fdma_plat_rd32(&h->plat, XDMA_CH(0, 0) + XDMA_CH_ALIGN), 0x00404040);
	assert_int_equal(h->caps.align, 64);
	tx->r.align = 1;
	tx->r.addr_align = 1;
	refused(tx, sbus, 0, 100, XDMA_ST_LEN, FDMA_CPL_LEN_ERR);
	refused(tx, sbus + 3, 0, 128, XDMA_ST_ALIGN, FDMA_CPL_ALIGN_ERR);
	refused(tx, sbus, 3, 128, XDMA_ST_ALIGN, FDMA_CPL_ALIGN_ERR);
	/* The channel runs on: an aligned request goes. */
	fill(src, 128, 4);
	post(tx, sbus, 0, 128, 5);
	fdma_ering_doorbell(&tx->r);
	napi(tx, &e, 1);
	expect_cpl(&e, 5, 128);
	free(tx);
	host_close(h);
}

/* Wait until the INTx level is level; false after GUARD_NS. */
static bool wait_intx(struct host *h, bool level)
{
	u64 end = now_ns() + GUARD_NS;
	struct timespec ts = { .tv_sec = (time_t)(end / 1000000000ull),
			       .tv_nsec = (long)(end % 1000000000ull) };
	bool got;

	pthread_mutex_lock(&h->lock);
	while (h->intx != level && pthread_cond_timedwait(&h->cond, &h->lock, &ts) == 0)
		;
	got = h->intx == level;
	pthread_mutex_unlock(&h->lock);
	return got;
}

/*
 * Legacy interrupts, as the IP signals with neither MSI-X nor MSI on: no
 * message, a level that rises with the channel's request (the IRQ
 * block's pending register shows it) and falls once the host reads the
 * clear-on-read status, or while the IRQ block masks the channel. Back
 * in message mode, the channel's vector gets its message again.
 */
static void test_intx_level(void **state)
{
	struct host *h = host_open(0, true, 0);
	struct ring *tx = ring_open(h, CH_H2C);
	struct fdma_ering *r = &tx->r;
	u64 sbus;
	u8 *src = arena_get(h, 4096, 4096, &sbus);
	unsigned int msgs = irqs_of(h, r->ch);
	const u32 bit = 1u;	/* H2C 0: the IRQ block's first bit (H2C channels first) */
	struct fdma_ecpl e;

	(void)state;
	xdma_model_set_intx(h->m, true);
	fill(src, 4096, 3);
	post(tx, sbus, 0, 4096, 1);
	fdma_ering_doorbell(r);
	if (!wait_intx(h, true))
		fail_stuck(tx, "INTx");
	assert_int_equal(fdma_plat_rd32(&h->plat, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_PEND) & bit, bit);
	assert_int_equal(irqs_of(h, r->ch), msgs);
	fdma_ering_irq_ack(r);
	assert_true(wait_intx(h, false));
	assert_int_equal(fdma_plat_rd32(&h->plat, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_PEND) & bit, 0);
	assert_int_equal(fdma_ering_reap(r, &e, 1), 1);
	expect_cpl(&e, 1, 4096);

	/* Masked in the IRQ block: the request is there, the level is not. */
	fdma_plat_wr32(&h->plat, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_EN_W1C, bit);
	post(tx, sbus, 0, 4096, 2);
	fdma_ering_doorbell(r);
	{
		u64 end = now_ns() + GUARD_NS;

		while (!(fdma_plat_rd32(&h->plat, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_REQ) & bit))
			assert_true(now_ns() < end);
	}
	pthread_mutex_lock(&h->lock);
	assert_false(h->intx);
	pthread_mutex_unlock(&h->lock);
	fdma_plat_wr32(&h->plat, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_EN_W1S, bit);
	assert_true(wait_intx(h, true));
	fdma_ering_irq_ack(r);
	assert_true(wait_intx(h, false));
	assert_int_equal(fdma_ering_reap(r, &e, 1), 1);
	expect_cpl(&e, 2, 4096);
	pthread_mutex_lock(&h->lock);
	assert_int_equal(h->intx_rises, 2);
	assert_int_equal(h->intx_falls, 2);
	pthread_mutex_unlock(&h->lock);
	assert_int_equal(irqs_of(h, r->ch), msgs);

	/* Messages again (MSI-X enabled): the vector, and no level. */
	xdma_model_set_intx(h->m, false);
	post(tx, sbus, 0, 4096, 3);
	fdma_ering_doorbell(r);
	napi(tx, &e, 1);
	expect_cpl(&e, 3, 4096);
	assert_true(irqs_of(h, r->ch) > msgs);
	pthread_mutex_lock(&h->lock);
	assert_int_equal(h->intx_rises, 2);
	pthread_mutex_unlock(&h->lock);
	free(tx);
	host_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doorbell_while_busy),
		cmocka_unit_test(test_doorbell_while_busy_registers),
		cmocka_unit_test(test_rearm_after_refused_start),
		cmocka_unit_test(test_rearm_after_refused_start_registers),
		cmocka_unit_test(test_net_loop),
		cmocka_unit_test(test_mm_alignment),
		cmocka_unit_test(test_intx_level),
	};

	return T_RUN(tests);
}
