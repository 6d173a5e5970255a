/* SPDX-License-Identifier: MIT */
/*
 * The engine core's unit tests' fake device (tests/unit/test_engine_*.c):
 * the register file is a plain array of 32-bit words, the kick callback
 * counts calls (and optionally acknowledges reset requests), and the test
 * itself plays the device by writing completion records and the
 * write-back block's cidx. A test using it is T(test_fn): the fake made
 * before and freed after it.
 */
#ifndef ENGINE_FAKE_H
#define ENGINE_FAKE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_exit.h"

#include "fdma_engine.h"

/* ---- the fake device --------------------------------------------------- */

#define NREGS		(4096 / 4)
#define RING_MAX	256u
#define MAXD		4096u			/* MAX_DESC_LEN */
#define ALIGN		64u
#define CARD_SIZE	0x100000ull		/* 1 MiB */
#define NCHAN		4u

/* Channels of the fake engine. */
#define CH_H2C_MM	0u
#define CH_C2H_MM	1u
#define CH_C2H_ST	2u
#define CH_H2C_ST	3u

/* Bus addresses the fake hands the engine (never dereferenced). */
#define DESC_BUS	0x0000001234500000ull
#define CPL_BUS		0x0000001234600000ull
#define WB_BUS		0x0000001234700000ull
#define HOST		0x00007f0000000000ull	/* a host buffer's bus address */

#define RESET_SEQ0	41u			/* CH_RESET_REQ/ACK before init */

struct dev {
	_Alignas(64) struct fdma_wb wb;
	_Alignas(32) struct fdma_desc desc[RING_MAX];
	_Alignas(16) struct fdma_cpl_rec cpl[RING_MAX];
	struct fdma_eslot slot[RING_MAX];
	u32 regs[NREGS];

	struct fdma_plat plat;
	struct fdma_eng_caps caps;
	struct fdma_ering r;

	/* kick bookkeeping */
	unsigned int kicks;
	unsigned int last_kick_ch;
	u32 ctrl_at_kick;		/* CH_CTRL of the kicked channel */
	u32 pidx_at_kick;		/* CH_PIDX of the kicked channel */

	/* device behaviour */
	bool ack_resets;		/* kick acknowledges reset requests */
	bool drop_busy;			/* kick clears STATUS.BUSY once ENABLE is 0 */
	unsigned int ch_resets;		/* channel resets performed */
	unsigned int eng_resets;	/* engine resets performed */
	u32 ctrl_at_reset;		/* CH_CTRL when the device saw RESET_REQ */
	u32 dev_cidx;			/* the device's completion count */
};

static inline u32 *reg(struct dev *d, u32 off)
{
	return &d->regs[off / 4];
}

static inline u32 *creg(struct dev *d, u32 ch, u32 off)
{
	return reg(d, FDMA_CH_BASE(ch) + off);
}

static inline void fake_kick(void *ctx, unsigned int ch)
{
	struct dev *d = ctx;
	u32 c;

	d->kicks++;
	d->last_kick_ch = ch;
	if (ch < FDMA_MAX_CHANNELS) {
		d->ctrl_at_kick = *creg(d, ch, FDMA_CH_CTRL);
		d->pidx_at_kick = *creg(d, ch, FDMA_CH_PIDX);
	}
	if (d->drop_busy && !(*reg(d, FDMA_REG_CTRL) & FDMA_CTRL_ENABLE))
		*reg(d, FDMA_REG_STATUS) &= ~FDMA_STATUS_BUSY;
	if (!d->ack_resets)
		return;
	if (*reg(d, FDMA_REG_RESET_ACK) != *reg(d, FDMA_REG_RESET_REQ)) {
		d->eng_resets++;
		*reg(d, FDMA_REG_RESET_ACK) = *reg(d, FDMA_REG_RESET_REQ);
	}
	for (c = 0; c < NCHAN; c++) {
		if (*creg(d, c, FDMA_CH_RESET_ACK) == *creg(d, c, FDMA_CH_RESET_REQ))
			continue;
		/* Channel reset: drop everything, zero the counts and status. */
		d->ch_resets++;
		d->ctrl_at_reset = *creg(d, c, FDMA_CH_CTRL);
		*creg(d, c, FDMA_CH_CIDX) = 0;
		*creg(d, c, FDMA_CH_STATUS) = 0;
		*creg(d, c, FDMA_CH_ERR_IDX) = 0;
		if (c == d->r.ch) {
			__atomic_store_n(&d->wb.cidx, 0, __ATOMIC_RELEASE);
			d->wb.status = 0;
			d->dev_cidx = 0;
		}
		*creg(d, c, FDMA_CH_RESET_ACK) = *creg(d, c, FDMA_CH_RESET_REQ);
	}
}

static inline void set_id_regs(struct dev *d)
{
	u32 c;

	memset(d->regs, 0, sizeof(d->regs));
	*reg(d, FDMA_REG_ID) = FDMA_ID_MAGIC;
	*reg(d, FDMA_REG_VERSION) = FDMA_VERSION_MAJOR << 16 | FDMA_VERSION_MINOR;
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(NCHAN, 6) | FDMA_CAPS_COALESCE |
				 FDMA_CAPS_TESTGEN;
	*reg(d, FDMA_REG_MAX_DESC_LEN) = MAXD;
	*reg(d, FDMA_REG_CARD_SIZE_LO) = (u32)CARD_SIZE;
	*reg(d, FDMA_REG_CARD_SIZE_HI) = (u32)(CARD_SIZE >> 32);
	*reg(d, FDMA_REG_RING_MAX) = RING_MAX;
	*creg(d, CH_H2C_MM, FDMA_CH_CAPS) = 0;
	*creg(d, CH_C2H_MM, FDMA_CH_CAPS) = FDMA_CH_CAP_C2H;
	*creg(d, CH_C2H_ST, FDMA_CH_CAPS) = FDMA_CH_CAP_C2H | FDMA_CH_CAP_STREAM |
					    FDMA_CH_CAP_TESTGEN;
	*creg(d, CH_H2C_ST, FDMA_CH_CAPS) = FDMA_CH_CAP_STREAM | FDMA_CH_CAP_TESTGEN;
	/* Garbage in the first channel the engine does not have. */
	*creg(d, NCHAN, FDMA_CH_CAPS) = 0xdeadbeef;
	for (c = 0; c < NCHAN; c++) {
		*creg(d, c, FDMA_CH_RESET_REQ) = RESET_SEQ0;
		*creg(d, c, FDMA_CH_RESET_ACK) = RESET_SEQ0;
	}
}

static inline int dev_setup(void **state)
{
	size_t sz = (sizeof(struct dev) + 63) & ~(size_t)63;
	struct dev *d = aligned_alloc(64, sz);

	if (!d)
		return -1;
	memset(d, 0, sizeof(*d));
	set_id_regs(d);
	d->plat.regs = d->regs;
	d->plat.kick = fake_kick;
	d->plat.kick_ctx = d;
	/* Engine-wide calls made before a probe still need to know the engine. */
	d->caps.eng = &fdma_eng_fdma;
	*state = d;
	return 0;
}

static inline int dev_teardown(void **state)
{
	free(*state);
	return 0;
}

/* Probe and set up ring r on channel ch with size entries. */
static inline void ring_on(struct dev *d, u32 ch, u32 size)
{
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &d->caps), 0);
	assert_int_equal(fdma_ering_init(&d->r, &d->plat, &d->caps, ch, size,
					 d->desc, DESC_BUS, d->cpl, CPL_BUS,
					 &d->wb, WB_BUS, d->slot), 0);
	d->dev_cidx = 0;
}

/* Start all counters (host and device) at v, as if the ring had run a long time. */
static inline void counters_at(struct dev *d, u32 v)
{
	d->r.pidx = d->r.cidx = d->r.pidx_pub = v;
	d->dev_cidx = v;
	d->wb.cidx = v;
}

/* The device completes its next descriptor. */
static inline void dev_complete(struct dev *d, u16 status, u16 flags, u32 len)
{
	u32 idx = d->dev_cidx & (d->r.size - 1);
	struct fdma_cpl_rec *c = &d->cpl[idx];

	c->cookie = d->desc[idx].cookie;
	c->len = len;
	c->status = status;
	c->flags = flags;
	d->dev_cidx++;
	__atomic_store_n(&d->wb.cidx, d->dev_cidx, __ATOMIC_RELEASE);
}

/* The device completes its next n descriptors successfully, each moving its full length. */
static inline void dev_complete_ok(struct dev *d, u32 n)
{
	while (n--)
		dev_complete(d, FDMA_CPL_OK, 0,
			     d->desc[d->dev_cidx & (d->r.size - 1)].len);
}

static inline struct fdma_ereq req(u64 host, u64 card, u32 len, u32 flags, u64 cookie)
{
	struct fdma_ereq q = {
		.host = host, .card = card, .len = len, .flags = flags,
		.cookie = cookie,
	};
	return q;
}

static inline void post_ok(struct dev *d, u64 host, u64 card, u32 len, u32 flags, u64 cookie)
{
	struct fdma_ereq q = req(host, card, len, flags, cookie);

	assert_int_equal(fdma_ering_post(&d->r, &q), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, dev_setup, dev_teardown)

#endif /* ENGINE_FAKE_H */
