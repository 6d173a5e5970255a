// SPDX-License-Identifier: MIT
/*
 * Unit tests of the engine core (engine/fdma_engine.c) against a fake
 * device: the register file is a plain array of 32-bit words, the kick
 * callback counts calls (and optionally acknowledges reset requests), and
 * the test itself plays the device by writing completion records and the
 * write-back block's cidx.
 */
#include <setjmp.h>
#include <stdarg.h>
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

static u32 *reg(struct dev *d, u32 off)
{
	return &d->regs[off / 4];
}

static u32 *creg(struct dev *d, u32 ch, u32 off)
{
	return reg(d, FDMA_CH_BASE(ch) + off);
}

static void fake_kick(void *ctx, unsigned int ch)
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

static void set_id_regs(struct dev *d)
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

static int dev_setup(void **state)
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

static int dev_teardown(void **state)
{
	free(*state);
	return 0;
}

/* Probe and set up ring r on channel ch with size entries. */
static void ring_on(struct dev *d, u32 ch, u32 size)
{
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &d->caps), 0);
	assert_int_equal(fdma_ering_init(&d->r, &d->plat, &d->caps, ch, size,
					 d->desc, DESC_BUS, d->cpl, CPL_BUS,
					 &d->wb, WB_BUS, d->slot), 0);
	d->dev_cidx = 0;
}

/* Start all counters (host and device) at v, as if the ring had run a long time. */
static void counters_at(struct dev *d, u32 v)
{
	d->r.pidx = d->r.cidx = d->r.pidx_pub = v;
	d->dev_cidx = v;
	d->wb.cidx = v;
}

/* The device completes its next descriptor. */
static void dev_complete(struct dev *d, u16 status, u16 flags, u32 len)
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
static void dev_complete_ok(struct dev *d, u32 n)
{
	while (n--)
		dev_complete(d, FDMA_CPL_OK, 0,
			     d->desc[d->dev_cidx & (d->r.size - 1)].len);
}

static struct fdma_ereq req(u64 host, u64 card, u32 len, u32 flags, u64 cookie)
{
	struct fdma_ereq q = {
		.host = host, .card = card, .len = len, .flags = flags,
		.cookie = cookie,
	};
	return q;
}

static void post_ok(struct dev *d, u64 host, u64 card, u32 len, u32 flags, u64 cookie)
{
	struct fdma_ereq q = req(host, card, len, flags, cookie);

	assert_int_equal(fdma_ering_post(&d->r, &q), 0);
}

/* ---- memory formats ---------------------------------------------------- */

static void test_layouts(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct fdma_desc), 32);
	assert_int_equal(offsetof(struct fdma_desc, src), 0);
	assert_int_equal(offsetof(struct fdma_desc, dst), 8);
	assert_int_equal(offsetof(struct fdma_desc, len), 16);
	assert_int_equal(offsetof(struct fdma_desc, ctrl), 20);
	assert_int_equal(offsetof(struct fdma_desc, cookie), 24);

	assert_int_equal(sizeof(struct fdma_cpl_rec), 16);
	assert_int_equal(offsetof(struct fdma_cpl_rec, cookie), 0);
	assert_int_equal(offsetof(struct fdma_cpl_rec, len), 8);
	assert_int_equal(offsetof(struct fdma_cpl_rec, status), 12);
	assert_int_equal(offsetof(struct fdma_cpl_rec, flags), 14);

	assert_int_equal(sizeof(struct fdma_wb), 64);
	assert_int_equal(offsetof(struct fdma_wb, cidx), 0);
	assert_int_equal(offsetof(struct fdma_wb, status), 4);
	assert_int_equal(offsetof(struct fdma_wb, overruns), 8);
	assert_int_equal(offsetof(struct fdma_wb, irqs), 12);

	assert_int_equal(sizeof(struct fdma_frame_hdr), 32);
	assert_int_equal(offsetof(struct fdma_frame_hdr, magic), 0);
	assert_int_equal(offsetof(struct fdma_frame_hdr, seq), 4);
	assert_int_equal(offsetof(struct fdma_frame_hdr, len), 8);
	assert_int_equal(offsetof(struct fdma_frame_hdr, crc), 12);
	assert_int_equal(offsetof(struct fdma_frame_hdr, tstamp_ns), 16);
	assert_int_equal(offsetof(struct fdma_frame_hdr, rsvd), 24);

	/* The channel blocks fit the 4 KiB register file and do not overlap. */
	assert_true(FDMA_CH_BASE(FDMA_MAX_CHANNELS - 1) + 0x80 <= 4096);
	assert_true(FDMA_CH_IRQS < 0x80);
	assert_true(FDMA_REG_RESET_ACK < FDMA_CH_BASE(0));
	assert_int_equal(FDMA_CH_ST_ERR_MASK,
			 FDMA_CH_ST_DESC_ERR | FDMA_CH_ST_ADDR_ERR |
			 FDMA_CH_ST_DATA_ERR | FDMA_CH_ST_ALIGN_ERR |
			 FDMA_CH_ST_RANGE_ERR | FDMA_CH_ST_LEN_ERR |
			 FDMA_CH_ST_OVERRUN);
}

/* ---- probe --------------------------------------------------------------- */

static void test_probe_ok(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;
	u32 c;

	*reg(d, FDMA_REG_CARD_SIZE_HI) = 2;	/* 8 GiB + 1 MiB: both halves read */
	memset(&caps, 0xa5, sizeof(caps));
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_int_equal(caps.version, FDMA_VERSION_MAJOR << 16 | FDMA_VERSION_MINOR);
	assert_int_equal(caps.nchan, NCHAN);
	assert_int_equal(caps.align, 64);
	assert_int_equal(caps.max_desc_len, MAXD);
	assert_int_equal(caps.ring_max, RING_MAX);
	assert_int_equal(caps.card_size, (2ull << 32) | CARD_SIZE);
	assert_true(caps.coalesce);
	assert_true(caps.testgen);
	assert_int_equal(caps.chan_caps[CH_H2C_MM], 0);
	assert_int_equal(caps.chan_caps[CH_C2H_MM], FDMA_CH_CAP_C2H);
	assert_int_equal(caps.chan_caps[CH_C2H_ST],
			 FDMA_CH_CAP_C2H | FDMA_CH_CAP_STREAM | FDMA_CH_CAP_TESTGEN);
	assert_int_equal(caps.chan_caps[CH_H2C_ST],
			 FDMA_CH_CAP_STREAM | FDMA_CH_CAP_TESTGEN);
	for (c = NCHAN; c < FDMA_MAX_CHANNELS; c++)
		assert_int_equal(caps.chan_caps[c], 0);

	/* Without the optional features the flags read false; a newer minor is fine. */
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(1, 12);
	*reg(d, FDMA_REG_VERSION) = 1u << 16 | 7;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_false(caps.coalesce);
	assert_false(caps.testgen);
	assert_int_equal(caps.nchan, 1);
	assert_int_equal(caps.align, 4096);
	assert_int_equal(caps.version, 0x00010007);
	assert_int_equal(caps.chan_caps[1], 0);
}

static void test_probe_bad_magic(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_ID) = 0x414d4446;	/* byte-swapped magic */
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -ENODEV);
	*reg(d, FDMA_REG_ID) = 0xffffffff;	/* a surprise-removed device */
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -ENODEV);
	*reg(d, FDMA_REG_ID) = 0;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -ENODEV);
}

static void test_probe_bad_version(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_VERSION) = 2u << 16;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_VERSION) = 0u << 16 | 9;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_VERSION) = 0xffffffff;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_VERSION) = 1u << 16;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
}

static void test_probe_bad_caps(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(FDMA_MAX_CHANNELS + 1, 6);
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(FDMA_MAX_CHANNELS, 6);
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(NCHAN, 13);
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(NCHAN, 6);

	/* MAX_DESC_LEN smaller than the alignment rounds down to nothing. */
	*reg(d, FDMA_REG_MAX_DESC_LEN) = ALIGN - 1;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_MAX_DESC_LEN) = 0;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_MAX_DESC_LEN) = MAXD;

	*reg(d, FDMA_REG_RING_MAX) = 96;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_RING_MAX) = 1;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_RING_MAX) = 0;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_RING_MAX) = 2;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
}

static void test_probe_rounds_max_desc_len(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_MAX_DESC_LEN) = MAXD + ALIGN - 1;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_int_equal(caps.max_desc_len, MAXD);
	*reg(d, FDMA_REG_MAX_DESC_LEN) = 0xffffffff;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_int_equal(caps.max_desc_len, 0xffffffc0);
}

/* ---- ring set-up --------------------------------------------------------- */

static int init_size(struct dev *d, u32 ch, u32 size)
{
	return fdma_ering_init(&d->r, &d->plat, &d->caps, ch, size, d->desc,
			       DESC_BUS, d->cpl, CPL_BUS, &d->wb, WB_BUS, d->slot);
}

static void test_ring_init_sizes(void **state)
{
	struct dev *d = *state;
	static const u32 bad[] = { 0, 1, 3, 6, 12, 100, 255, RING_MAX + 1,
				   RING_MAX * 2, 0x80000000u, 0xffffffffu };
	static const u32 good[] = { 2, 4, 16, 128, RING_MAX };
	size_t i;

	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &d->caps), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(init_size(d, CH_H2C_MM, bad[i]), -EINVAL);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(init_size(d, CH_H2C_MM, good[i]), 0);
		assert_int_equal(d->r.size, good[i]);
		assert_int_equal(fdma_ering_space(&d->r), good[i]);
		assert_int_equal(fdma_ering_inflight(&d->r), 0);
	}
	/* Channels the engine does not have. */
	assert_int_equal(init_size(d, NCHAN, 16), -EINVAL);
	assert_int_equal(init_size(d, FDMA_MAX_CHANNELS, 16), -EINVAL);
	assert_int_equal(init_size(d, CH_H2C_ST, 16), 0);
	assert_int_equal(d->r.reg, FDMA_CH_BASE(CH_H2C_ST));
	assert_int_equal(d->r.caps, FDMA_CH_CAP_STREAM | FDMA_CH_CAP_TESTGEN);
}

static void test_ring_init_alignment(void **state)
{
	struct dev *d = *state;
	struct fdma_ering *r = &d->r;
	struct fdma_eng_caps *c = &d->caps;

	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, c), 0);
	/* Descriptors need 32 B, completion records 16 B, the write-back block 64 B. */
	assert_int_equal(fdma_ering_init(r, &d->plat, c, 0, 16, d->desc, DESC_BUS + 16,
					 d->cpl, CPL_BUS, &d->wb, WB_BUS, d->slot), -EINVAL);
	assert_int_equal(fdma_ering_init(r, &d->plat, c, 0, 16, d->desc, DESC_BUS + 4,
					 d->cpl, CPL_BUS, &d->wb, WB_BUS, d->slot), -EINVAL);
	assert_int_equal(fdma_ering_init(r, &d->plat, c, 0, 16, d->desc, DESC_BUS,
					 d->cpl, CPL_BUS + 8, &d->wb, WB_BUS, d->slot), -EINVAL);
	assert_int_equal(fdma_ering_init(r, &d->plat, c, 0, 16, d->desc, DESC_BUS,
					 d->cpl, CPL_BUS, &d->wb, WB_BUS + 32, d->slot), -EINVAL);
	assert_int_equal(fdma_ering_init(r, &d->plat, c, 0, 16, d->desc, DESC_BUS,
					 d->cpl, CPL_BUS, &d->wb, WB_BUS + 4, d->slot), -EINVAL);
	/* Exactly natural alignment is enough. */
	assert_int_equal(fdma_ering_init(r, &d->plat, c, 0, 16, d->desc, DESC_BUS + 32,
					 d->cpl, CPL_BUS + 16, &d->wb, WB_BUS + 64, d->slot), 0);
	assert_int_equal(r->desc_bus, DESC_BUS + 32);
	assert_int_equal(r->rec_bus, CPL_BUS + 16);
	assert_int_equal(r->wb_bus, WB_BUS + 64);
}

static void test_start_stop_registers(void **state)
{
	struct dev *d = *state;
	u32 ch = CH_C2H_MM;

	ring_on(d, ch, 64);
	assert_int_equal(d->kicks, 0);	/* init touches nothing */
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL), 0);

	fdma_ering_start(&d->r, FDMA_CH_CTRL_IRQ_EN, 5);
	assert_int_equal(*creg(d, ch, FDMA_CH_RING_LO), (u32)DESC_BUS);
	assert_int_equal(*creg(d, ch, FDMA_CH_RING_HI), (u32)(DESC_BUS >> 32));
	assert_int_equal(*creg(d, ch, FDMA_CH_RING_SIZE), 64);
	assert_int_equal(*creg(d, ch, FDMA_CH_CPL_LO), (u32)CPL_BUS);
	assert_int_equal(*creg(d, ch, FDMA_CH_CPL_HI), (u32)(CPL_BUS >> 32));
	assert_int_equal(*creg(d, ch, FDMA_CH_WB_LO), (u32)WB_BUS);
	assert_int_equal(*creg(d, ch, FDMA_CH_WB_HI), (u32)(WB_BUS >> 32));
	assert_int_equal(*creg(d, ch, FDMA_CH_IRQ_VEC), 5);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 0);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL),
			 FDMA_CH_CTRL_RUN | FDMA_CH_CTRL_IRQ_EN);
	assert_int_equal(d->kicks, 1);
	assert_int_equal(d->last_kick_ch, ch);
	assert_int_equal(d->ctrl_at_kick, FDMA_CH_CTRL_RUN | FDMA_CH_CTRL_IRQ_EN);
	/* Other channels untouched. */
	assert_int_equal(*creg(d, CH_H2C_MM, FDMA_CH_CTRL), 0);
	assert_int_equal(*creg(d, CH_C2H_ST, FDMA_CH_RING_LO), 0);

	fdma_ering_set_coalesce(&d->r, 16, 50);
	assert_int_equal(*creg(d, ch, FDMA_CH_COAL_COUNT), 16);
	assert_int_equal(*creg(d, ch, FDMA_CH_COAL_USECS), 50);
	assert_int_equal(d->kicks, 2);

	fdma_ering_set_irq(&d->r, false);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL), FDMA_CH_CTRL_RUN);
	fdma_ering_set_irq(&d->r, true);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL),
			 FDMA_CH_CTRL_RUN | FDMA_CH_CTRL_IRQ_EN);
	fdma_ering_set_ctrl(&d->r, FDMA_CH_CTRL_DROP, ~0u);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL),
			 FDMA_CH_CTRL_RUN | FDMA_CH_CTRL_IRQ_EN | FDMA_CH_CTRL_DROP);

	fdma_ering_stop(&d->r);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL),
			 FDMA_CH_CTRL_IRQ_EN | FDMA_CH_CTRL_DROP);
	assert_int_equal(d->ctrl_at_kick, FDMA_CH_CTRL_IRQ_EN | FDMA_CH_CTRL_DROP);
	/* start, DROP (the device must see it now) and stop kick; IRQ_EN does not. */
	assert_int_equal(d->kicks, 4);
}

/* ---- counting ------------------------------------------------------------ */

static void test_ndesc(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_H2C_MM, 16);
	assert_int_equal(fdma_ering_ndesc(&d->r, 0), 1);
	assert_int_equal(fdma_ering_ndesc(&d->r, ALIGN), 1);
	assert_int_equal(fdma_ering_ndesc(&d->r, MAXD), 1);
	assert_int_equal(fdma_ering_ndesc(&d->r, MAXD + ALIGN), 2);
	assert_int_equal(fdma_ering_ndesc(&d->r, 2 * MAXD), 2);
	assert_int_equal(fdma_ering_ndesc(&d->r, 5 * MAXD / 2), 3);
	assert_int_equal(fdma_ering_ndesc(&d->r, 16 * MAXD), 16);
}

static void test_space_inflight_wrap(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[16];
	u32 i;

	ring_on(d, CH_H2C_MM, 16);
	counters_at(d, 0xfffffff0);
	assert_int_equal(fdma_ering_space(&d->r), 16);
	assert_int_equal(fdma_ering_inflight(&d->r), 0);
	assert_int_equal(fdma_ering_ready(&d->r), 0);

	/* 20 posts with 4 reaped in between: pidx wraps through 0. */
	for (i = 0; i < 12; i++)
		post_ok(d, HOST + i * ALIGN, 0, ALIGN, 0, i);
	assert_int_equal(fdma_ering_inflight(&d->r), 12);
	assert_int_equal(fdma_ering_space(&d->r), 4);
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 4);
	assert_int_equal(fdma_ering_ready(&d->r), 4);
	assert_int_equal(fdma_ering_reap(&d->r, out, 16), 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(out[i].cookie, i);
	assert_int_equal(fdma_ering_space(&d->r), 8);
	for (i = 12; i < 20; i++)
		post_ok(d, HOST + i * ALIGN, 0, ALIGN, 0, i);
	assert_int_equal(d->r.pidx, 4);			/* wrapped */
	assert_int_equal(d->r.cidx, 0xfffffff4);
	assert_int_equal(fdma_ering_inflight(&d->r), 16);
	assert_int_equal(fdma_ering_space(&d->r), 0);

	/* Descriptor number n lives in entry n % size. */
	for (i = 0; i < 20; i++) {
		u32 n = 0xfffffff0u + i;

		if (i < 4)
			continue;	/* reaped and overwritten */
		assert_int_equal(d->desc[n % 16].cookie, i);
		assert_int_equal(d->desc[n % 16].src, HOST + i * ALIGN);
	}

	fdma_ering_doorbell(&d->r);
	assert_int_equal(*creg(d, CH_H2C_MM, FDMA_CH_PIDX), 4);
	dev_complete_ok(d, 16);
	assert_int_equal(d->wb.cidx, 4);
	assert_int_equal(fdma_ering_ready(&d->r), 16);
	assert_int_equal(fdma_ering_reap(&d->r, out, 16), 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(out[i].cookie, i + 4);
	assert_int_equal(fdma_ering_inflight(&d->r), 0);
	assert_int_equal(fdma_ering_space(&d->r), 16);
	assert_int_equal(fdma_ering_ready(&d->r), 0);
}

static void test_full_ring_eagain(void **state)
{
	struct dev *d = *state;
	struct fdma_desc desc_before[8];
	struct fdma_eslot slot_before[8];
	struct fdma_ereq q;
	struct fdma_ecpl out[8];
	u32 i;

	ring_on(d, CH_H2C_MM, 8);
	counters_at(d, 0xfffffffa);
	for (i = 0; i < 8; i++)
		post_ok(d, HOST, 0, ALIGN, 0, i);
	assert_int_equal(fdma_ering_space(&d->r), 0);

	memcpy(desc_before, d->desc, sizeof(desc_before));
	memcpy(slot_before, d->slot, sizeof(slot_before));
	q = req(HOST, 0, ALIGN, 0, 99);
	assert_int_equal(fdma_ering_post(&d->r, &q), -EAGAIN);
	assert_int_equal(d->r.pidx, 0xfffffffau + 8);
	assert_memory_equal(desc_before, d->desc, sizeof(desc_before));
	assert_memory_equal(slot_before, d->slot, sizeof(slot_before));

	/* Two entries free, a request that needs three: nothing written either. */
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 2);
	assert_int_equal(fdma_ering_reap(&d->r, out, 8), 2);
	assert_int_equal(fdma_ering_space(&d->r), 2);
	memcpy(desc_before, d->desc, sizeof(desc_before));
	memcpy(slot_before, d->slot, sizeof(slot_before));
	q = req(HOST, 0, 2 * MAXD + ALIGN, 0, 100);
	assert_int_equal(fdma_ering_post(&d->r, &q), -EAGAIN);
	assert_int_equal(d->r.pidx, 0xfffffffau + 8);
	assert_memory_equal(desc_before, d->desc, sizeof(desc_before));
	assert_memory_equal(slot_before, d->slot, sizeof(slot_before));
	/* ... and one that needs exactly two fits. */
	q.len = 2 * MAXD;
	assert_int_equal(fdma_ering_post(&d->r, &q), 0);
	assert_int_equal(fdma_ering_space(&d->r), 0);
}

/* ---- descriptor encoding ------------------------------------------------- */

#define CARD_ADDR	0x4000ull

static void check_desc(const struct fdma_desc *x, u64 src, u64 dst, u32 len,
		       u32 ctrl, u64 cookie)
{
	assert_int_equal(x->src, src);
	assert_int_equal(x->dst, dst);
	assert_int_equal(x->len, len);
	assert_int_equal(x->ctrl, ctrl);
	assert_int_equal(x->cookie, cookie);
}

static void test_desc_h2c_mm(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_H2C_MM, 16);
	post_ok(d, HOST, CARD_ADDR, 3 * ALIGN, FDMA_DESC_IRQ, 0x1111222233334444ull);
	check_desc(&d->desc[0], HOST, CARD_ADDR, 3 * ALIGN, FDMA_DESC_IRQ,
		   0x1111222233334444ull);
	assert_int_equal(d->slot[0].last, 1);
}

static void test_desc_c2h_mm(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_C2H_MM, 16);
	post_ok(d, HOST, CARD_ADDR, 3 * ALIGN, 0, 7);
	check_desc(&d->desc[0], CARD_ADDR, HOST, 3 * ALIGN, 0, 7);
	assert_int_equal(d->slot[0].last, 1);
}

static void test_desc_c2h_stream(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_C2H_ST, 16);
	/* A card address on a stream channel is ignored: src must be 0. */
	post_ok(d, HOST, CARD_ADDR, MAXD, 0, 8);
	check_desc(&d->desc[0], 0, HOST, MAXD, 0, 8);
}

static void test_desc_h2c_stream(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_H2C_ST, 16);
	post_ok(d, HOST, CARD_ADDR, 2 * ALIGN, FDMA_DESC_SOF | FDMA_DESC_EOF, 9);
	check_desc(&d->desc[0], HOST, 0, 2 * ALIGN, FDMA_DESC_SOF | FDMA_DESC_EOF, 9);

	/* Longer than one descriptor: split, dst stays 0, SOF first, EOF last. */
	post_ok(d, HOST + MAXD, CARD_ADDR, 2 * MAXD, FDMA_DESC_SOF | FDMA_DESC_EOF, 10);
	check_desc(&d->desc[1], HOST + MAXD, 0, MAXD, FDMA_DESC_SOF, 10);
	check_desc(&d->desc[2], HOST + 2 * MAXD, 0, MAXD, FDMA_DESC_EOF, 10);
}

static void test_flags(void **state)
{
	struct dev *d = *state;
	const u32 all = FDMA_DESC_IRQ | FDMA_DESC_SOF | FDMA_DESC_EOF | FDMA_DESC_STOP;

	ring_on(d, CH_H2C_MM, 16);
	/* One piece: every flag on it; undefined bits never reach the device. */
	post_ok(d, HOST, 0, ALIGN, all | (1u << 7) | (1u << 31), 1);
	assert_int_equal(d->desc[0].ctrl, all);

	/* Three pieces: SOF only on the first, IRQ/EOF/STOP only on the last. */
	post_ok(d, HOST, 0, 5 * MAXD / 2, all, 2);
	assert_int_equal(d->desc[1].ctrl, FDMA_DESC_SOF);
	assert_int_equal(d->desc[2].ctrl, 0);
	assert_int_equal(d->desc[3].ctrl, FDMA_DESC_IRQ | FDMA_DESC_EOF | FDMA_DESC_STOP);

	/* No flags asked, none set. */
	post_ok(d, HOST, 0, 2 * MAXD, 0, 3);
	assert_int_equal(d->desc[4].ctrl, 0);
	assert_int_equal(d->desc[5].ctrl, 0);

	/* Each flag alone lands where it belongs. */
	post_ok(d, HOST, 0, 2 * MAXD, FDMA_DESC_IRQ, 4);
	assert_int_equal(d->desc[6].ctrl, 0);
	assert_int_equal(d->desc[7].ctrl, FDMA_DESC_IRQ);
	post_ok(d, HOST, 0, 2 * MAXD, FDMA_DESC_STOP, 5);
	assert_int_equal(d->desc[8].ctrl, 0);
	assert_int_equal(d->desc[9].ctrl, FDMA_DESC_STOP);
}

/* ---- splitting, folding, reaping --------------------------------------- */

static void test_split_and_fold(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[4];
	const u32 len = 5 * MAXD / 2;
	const u64 card = 0x10000;

	ring_on(d, CH_C2H_MM, 16);
	fdma_ering_start(&d->r, 0, 0);
	post_ok(d, HOST, card, len, FDMA_DESC_IRQ, 0xc0ffee);
	assert_int_equal(d->r.pidx, 3);
	check_desc(&d->desc[0], card, HOST, MAXD, 0, 0xc0ffee);
	check_desc(&d->desc[1], card + MAXD, HOST + MAXD, MAXD, 0, 0xc0ffee);
	check_desc(&d->desc[2], card + 2 * MAXD, HOST + 2 * MAXD, MAXD / 2,
		   FDMA_DESC_IRQ, 0xc0ffee);
	assert_int_equal(d->slot[0].last, 0);
	assert_int_equal(d->slot[1].last, 0);
	assert_int_equal(d->slot[2].last, 1);
	fdma_ering_doorbell(&d->r);

	/* Nothing comes back until the last piece is complete. */
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 0);
	dev_complete(d, FDMA_CPL_OK, 0, MAXD);
	assert_int_equal(fdma_ering_ready(&d->r), 1);
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 0);
	assert_int_equal(d->r.cidx, 0);
	dev_complete(d, FDMA_CPL_OK, 0, MAXD);
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 0);
	assert_int_equal(d->r.cidx, 0);
	assert_int_equal(fdma_ering_inflight(&d->r), 3);
	dev_complete(d, FDMA_CPL_OK, 0, MAXD / 2);

	memset(out, 0x5a, sizeof(out));
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 1);
	assert_int_equal(out[0].cookie, 0xc0ffee);
	assert_int_equal(out[0].len, len);
	assert_int_equal(out[0].status, FDMA_CPL_OK);
	assert_int_equal(out[0].flags, 0);
	assert_int_equal(d->r.cidx, 3);
	assert_int_equal(fdma_ering_inflight(&d->r), 0);
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 0);
}

static void test_split_across_wrap(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[4];

	ring_on(d, CH_C2H_ST, 16);
	counters_at(d, 0xfffffffe);
	/* Stream C2H: buffers are at most one descriptor; post three, entries 14, 15, 0. */
	post_ok(d, HOST, 0, MAXD, 0, 1);
	post_ok(d, HOST + MAXD, 0, MAXD, 0, 2);
	post_ok(d, HOST + 2 * MAXD, 0, MAXD, 0, 3);
	assert_int_equal(d->desc[14].cookie, 1);
	assert_int_equal(d->desc[15].cookie, 2);
	assert_int_equal(d->desc[0].cookie, 3);
	fdma_ering_doorbell(&d->r);
	assert_int_equal(*creg(d, CH_C2H_ST, FDMA_CH_PIDX), 1);
	/* One frame across the three buffers. */
	dev_complete(d, FDMA_CPL_OK, FDMA_CPL_F_SOF, MAXD);
	dev_complete(d, FDMA_CPL_OK, 0, MAXD);
	dev_complete(d, FDMA_CPL_OK, FDMA_CPL_F_EOF | FDMA_CPL_F_OVERRUN, 192);
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 3);
	assert_int_equal(out[0].flags, FDMA_CPL_F_SOF);
	assert_int_equal(out[1].flags, 0);
	assert_int_equal(out[2].flags, FDMA_CPL_F_EOF | FDMA_CPL_F_OVERRUN);
	assert_int_equal(out[2].len, 192);
	assert_int_equal(out[2].cookie, 3);

	/* An H2C split request across the wrap folds into one. */
	ring_on(d, CH_H2C_MM, 16);
	counters_at(d, 0xfffffffe);
	post_ok(d, HOST, 0, 5 * MAXD / 2, 0, 42);
	assert_int_equal(d->r.pidx, 1);
	assert_int_equal(d->slot[14].last, 0);
	assert_int_equal(d->slot[15].last, 0);
	assert_int_equal(d->slot[0].last, 1);
	assert_int_equal(d->desc[0].src, HOST + 2 * MAXD);
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 2);
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 0);
	dev_complete_ok(d, 1);
	assert_int_equal(fdma_ering_reap(&d->r, out, 4), 1);
	assert_int_equal(out[0].cookie, 42);
	assert_int_equal(out[0].len, 5 * MAXD / 2);
	assert_int_equal(d->r.cidx, 1);
}

static void test_reap_max(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[8];
	u32 i;

	ring_on(d, CH_H2C_MM, 16);
	for (i = 0; i < 5; i++)
		post_ok(d, HOST, 0, ALIGN * (i + 1), 0, 100 + i);
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 5);

	assert_int_equal(fdma_ering_reap(&d->r, out, 0), 0);
	assert_int_equal(fdma_ering_ready(&d->r), 5);
	memset(out, 0, sizeof(out));
	assert_int_equal(fdma_ering_reap(&d->r, out, 2), 2);
	assert_int_equal(out[0].cookie, 100);
	assert_int_equal(out[1].cookie, 101);
	assert_int_equal(out[1].len, 2 * ALIGN);
	assert_int_equal(out[2].cookie, 0);	/* nothing past max */
	assert_int_equal(fdma_ering_ready(&d->r), 3);
	assert_int_equal(fdma_ering_reap(&d->r, out, 2), 2);
	assert_int_equal(out[0].cookie, 102);
	assert_int_equal(out[1].cookie, 103);
	assert_int_equal(fdma_ering_reap(&d->r, out, 2), 1);
	assert_int_equal(out[0].cookie, 104);
	assert_int_equal(out[0].len, 5 * ALIGN);
	assert_int_equal(fdma_ering_reap(&d->r, out, 2), 0);

	/* max counts requests, not descriptors. */
	post_ok(d, HOST, 0, 3 * MAXD, 0, 200);	/* 3 pieces */
	post_ok(d, HOST, 0, ALIGN, 0, 201);
	post_ok(d, HOST, 0, 2 * MAXD, 0, 202);	/* 2 pieces */
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 6);
	assert_int_equal(fdma_ering_reap(&d->r, out, 1), 1);
	assert_int_equal(out[0].cookie, 200);
	assert_int_equal(out[0].len, 3 * MAXD);
	assert_int_equal(fdma_ering_ready(&d->r), 3);
	assert_int_equal(fdma_ering_reap(&d->r, out, 8), 2);
	assert_int_equal(out[0].cookie, 201);
	assert_int_equal(out[1].cookie, 202);
	assert_int_equal(out[1].len, 2 * MAXD);
}

static void test_doorbell_batching(void **state)
{
	struct dev *d = *state;
	u32 ch = CH_H2C_MM;

	ring_on(d, ch, 16);
	fdma_ering_start(&d->r, 0, 0);
	d->kicks = 0;

	/* Nothing posted: no write, no kick. */
	*creg(d, ch, FDMA_CH_PIDX) = 0xdead;
	fdma_ering_doorbell(&d->r);
	assert_int_equal(d->kicks, 0);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 0xdead);
	assert_int_equal(d->r.doorbells, 0);
	*creg(d, ch, FDMA_CH_PIDX) = 0;

	/* Posting does not ring. */
	post_ok(d, HOST, 0, ALIGN, 0, 1);
	post_ok(d, HOST, 0, 2 * MAXD, 0, 2);
	post_ok(d, HOST, 0, ALIGN, 0, 3);
	assert_int_equal(d->kicks, 0);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 0);

	/* One doorbell publishes the whole batch. */
	fdma_ering_doorbell(&d->r);
	assert_int_equal(d->kicks, 1);
	assert_int_equal(d->last_kick_ch, ch);
	assert_int_equal(d->pidx_at_kick, 4);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 4);
	assert_int_equal(d->r.pidx_pub, 4);
	assert_int_equal(d->r.doorbells, 1);

	/* Ringing again with nothing new does nothing. */
	*creg(d, ch, FDMA_CH_PIDX) = 0xdead;
	fdma_ering_doorbell(&d->r);
	fdma_ering_doorbell(&d->r);
	assert_int_equal(d->kicks, 1);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 0xdead);
	assert_int_equal(d->r.doorbells, 1);

	/* A failed post publishes nothing new either. */
	{
		struct fdma_ereq q = req(HOST + 1, 0, ALIGN, 0, 9);

		assert_int_equal(fdma_ering_post(&d->r, &q), -EINVAL);
		fdma_ering_doorbell(&d->r);
		assert_int_equal(d->kicks, 1);
	}

	post_ok(d, HOST, 0, ALIGN, 0, 4);
	fdma_ering_doorbell(&d->r);
	assert_int_equal(d->kicks, 2);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 5);
	assert_int_equal(d->r.doorbells, 2);
}

static void test_middle_piece_error(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[2];

	ring_on(d, CH_H2C_ST, 16);
	post_ok(d, HOST, 0, 5 * MAXD / 2, FDMA_DESC_SOF | FDMA_DESC_EOF, 77);
	fdma_ering_doorbell(&d->r);
	dev_complete(d, FDMA_CPL_OK, FDMA_CPL_F_SOF, MAXD);
	dev_complete(d, FDMA_CPL_DATA_ERR, 0, 256);
	dev_complete(d, FDMA_CPL_RANGE_ERR, FDMA_CPL_F_EOF, 0);
	assert_int_equal(fdma_ering_reap(&d->r, out, 2), 1);
	assert_int_equal(out[0].cookie, 77);
	/* The first error wins; lengths add up; flags are ORed. */
	assert_int_equal(out[0].status, FDMA_CPL_DATA_ERR);
	assert_int_equal(out[0].len, MAXD + 256);
	assert_int_equal(out[0].flags, FDMA_CPL_F_SOF | FDMA_CPL_F_EOF);

	/* The next request starts clean. */
	post_ok(d, HOST, 0, ALIGN, 0, 78);
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 1);
	assert_int_equal(fdma_ering_reap(&d->r, out, 2), 1);
	assert_int_equal(out[0].cookie, 78);
	assert_int_equal(out[0].status, FDMA_CPL_OK);
	assert_int_equal(out[0].len, ALIGN);
	assert_int_equal(out[0].flags, 0);
}

/* ---- request checks ------------------------------------------------------ */

static void check_req(struct dev *d, u64 host, u64 card, u32 len, int err,
			 const char *word)
{
	struct fdma_ereq q = req(host, card, len, 0, 0);
	const char *why = NULL;
	u32 pidx = d->r.pidx;

	assert_int_equal(fdma_ering_check(&d->r, &q, &why), err);
	if (err) {
		assert_non_null(why);
		assert_non_null(strstr(why, word));
		/* NULL why is allowed, and post refuses the same request. */
		assert_int_equal(fdma_ering_check(&d->r, &q, NULL), err);
		assert_int_equal(fdma_ering_post(&d->r, &q), err);
		assert_int_equal(d->r.pidx, pidx);
	}
}

static void test_check_errors(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_H2C_MM, 16);
	check_req(d, HOST, 0, ALIGN, 0, NULL);
	check_req(d, HOST, 0, 0, -EINVAL, "zero");
	check_req(d, HOST + 32, 0, ALIGN, -EINVAL, "align");
	check_req(d, HOST + 1, 0, ALIGN, -EINVAL, "align");
	check_req(d, HOST, 0, ALIGN + 4, -EINVAL, "align");
	check_req(d, HOST, 0, 100, -EINVAL, "align");
	check_req(d, HOST, 8, ALIGN, -EINVAL, "card");
	check_req(d, HOST, CARD_SIZE - 32, ALIGN, -EINVAL, "card");
	/* Memory-mapped requests longer than a descriptor are fine (split). */
	check_req(d, HOST, 0, 16 * MAXD, 0, NULL);

	/* C2H memory-mapped: same rules. */
	ring_on(d, CH_C2H_MM, 16);
	check_req(d, HOST, 0, 3 * MAXD, 0, NULL);
	check_req(d, HOST, 0x20, ALIGN, -EINVAL, "card");
	check_req(d, HOST + 0x20, 0, ALIGN, -EINVAL, "align");

	/* C2H stream: a buffer is one descriptor; the card address is ignored. */
	ring_on(d, CH_C2H_ST, 16);
	check_req(d, HOST, 0, MAXD, 0, NULL);
	check_req(d, HOST, 0, MAXD + ALIGN, -EINVAL, "maximum");
	check_req(d, HOST, 3, MAXD, 0, NULL);
	check_req(d, HOST, ~0ull, MAXD, 0, NULL);
	check_req(d, HOST + 16, 0, MAXD, -EINVAL, "align");
	check_req(d, HOST, 0, 0, -EINVAL, "zero");

	/* H2C stream: frames may span descriptors. */
	ring_on(d, CH_H2C_ST, 16);
	check_req(d, HOST, 0, 4 * MAXD, 0, NULL);
	check_req(d, HOST, 7, ALIGN, 0, NULL);
	check_req(d, HOST, 0, ALIGN / 2, -EINVAL, "align");
}

static void test_check_card_range(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_H2C_MM, RING_MAX);
	check_req(d, HOST, CARD_SIZE - ALIGN, ALIGN, 0, NULL);	/* last block */
	check_req(d, HOST, 0, (u32)CARD_SIZE, 0, NULL);		/* all of it */
	/* More pieces than a ring holds could never be posted: refused outright. */
	ring_on(d, CH_H2C_MM, 16);
	check_req(d, HOST, 0, 17 * MAXD, -EINVAL, "ring");
	check_req(d, HOST, 0, (u32)CARD_SIZE + ALIGN, -ERANGE, "card");
	check_req(d, HOST, CARD_SIZE - ALIGN, 2 * ALIGN, -ERANGE, "card");
	check_req(d, HOST, CARD_SIZE, ALIGN, -ERANGE, "card");
	check_req(d, HOST, 1ull << 32, ALIGN, -ERANGE, "card");
	check_req(d, HOST, UINT64_MAX & ~(u64)(ALIGN - 1), ALIGN, -ERANGE, "card");
	check_req(d, HOST, UINT64_MAX - MAXD + 1, MAXD, -ERANGE, "card");

	/* A card as large as the address space: card + len must not wrap. */
	*reg(d, FDMA_REG_CARD_SIZE_LO) = 0xffffffc0;
	*reg(d, FDMA_REG_CARD_SIZE_HI) = 0xffffffff;
	ring_on(d, CH_C2H_MM, 16);
	assert_int_equal(d->r.card_size, 0xffffffffffffffc0ull);
	check_req(d, HOST, 0xffffffffffffff80ull, ALIGN, 0, NULL);
	check_req(d, HOST, 0xffffffffffffff80ull, 2 * ALIGN, -ERANGE, "card");
	check_req(d, HOST, 0xffffffffffffff80ull, 15 * MAXD, -ERANGE, "card");
	check_req(d, HOST, 0xffffffffffffffc0ull, ALIGN, -ERANGE, "card");
}

/* ---- memory-to-memory channels (1.2) --------------------------------------- */

#define HOST2	0x00007f0100000000ull	/* a second host buffer's bus address */

static void test_mem2mem(void **state)
{
	struct dev *d = *state;
	const u32 ch = CH_H2C_MM;

	*reg(d, FDMA_REG_CAPS) |= FDMA_CAPS_MEM2MEM;
	*creg(d, ch, FDMA_CH_CAPS) = FDMA_CH_CAP_MEM2MEM;
	ring_on(d, ch, 16);
	assert_true(d->caps.mem2mem);

	/* Started with CH_CTRL.M2M: the host says it knows the kind. */
	fdma_ering_start(&d->r, FDMA_CH_CTRL_IRQ_EN, ch);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL),
			 FDMA_CH_CTRL_RUN | FDMA_CH_CTRL_IRQ_EN | FDMA_CH_CTRL_M2M);
	fdma_ering_set_irq(&d->r, false);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL), FDMA_CH_CTRL_RUN | FDMA_CH_CTRL_M2M);
	fdma_ering_stop(&d->r);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL), FDMA_CH_CTRL_M2M);

	/* src and dst are both host addresses; pieces advance both; no card range. */
	post_ok(d, HOST, HOST2, 3 * ALIGN, FDMA_DESC_IRQ, 5);
	check_desc(&d->desc[0], HOST, HOST2, 3 * ALIGN, FDMA_DESC_IRQ, 5);
	post_ok(d, HOST, HOST2 + CARD_SIZE, 2 * MAXD + ALIGN, FDMA_DESC_IRQ, 6);
	check_desc(&d->desc[1], HOST, HOST2 + CARD_SIZE, MAXD, 0, 6);
	check_desc(&d->desc[2], HOST + MAXD, HOST2 + CARD_SIZE + MAXD, MAXD, 0, 6);
	check_desc(&d->desc[3], HOST + 2 * MAXD, HOST2 + CARD_SIZE + 2 * MAXD, ALIGN,
		   FDMA_DESC_IRQ, 6);

	check_req(d, HOST, HOST2 + 32, ALIGN, -EINVAL, "destination");
	check_req(d, HOST + 32, HOST2, ALIGN, -EINVAL, "align");
	check_req(d, HOST, HOST2, 0, -EINVAL, "zero");
	/* Overlap either way, by one block; adjacent ranges are fine. */
	check_req(d, HOST, HOST + ALIGN, 2 * ALIGN, -EINVAL, "overlap");
	check_req(d, HOST + ALIGN, HOST, 2 * ALIGN, -EINVAL, "overlap");
	check_req(d, HOST, HOST, ALIGN, -EINVAL, "overlap");
	check_req(d, HOST, HOST + 2 * ALIGN, 2 * ALIGN, 0, NULL);
	check_req(d, HOST + 2 * ALIGN, HOST, 2 * ALIGN, 0, NULL);
	check_req(d, HOST, HOST2, 17 * MAXD, -EINVAL, "ring");
}

/* A channel kind from a later minor version is never driven. */
static void test_unknown_chan_kind(void **state)
{
	struct dev *d = *state;

	*creg(d, CH_H2C_MM, FDMA_CH_CAPS) = 1u << 4;
	ring_on(d, CH_H2C_MM, 16);
	check_req(d, HOST, 0, ALIGN, -EOPNOTSUPP, "kind");
	*creg(d, CH_C2H_ST, FDMA_CH_CAPS) |= 1u << 31;
	ring_on(d, CH_C2H_ST, 16);
	check_req(d, HOST, 0, ALIGN, -EOPNOTSUPP, "kind");
}

/* ---- reset and cancel ---------------------------------------------------- */

static u64 now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000u + (u64)ts.tv_nsec / 1000u;
}

static void test_reset_handshake(void **state)
{
	struct dev *d = *state;
	u32 ch = CH_H2C_MM;

	ring_on(d, ch, 16);
	fdma_ering_start(&d->r, FDMA_CH_CTRL_IRQ_EN, 0);
	post_ok(d, HOST, 0, 2 * MAXD, 0, 1);
	fdma_ering_doorbell(&d->r);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 2);
	d->ack_resets = true;
	d->kicks = 0;

	assert_int_equal(fdma_ering_reset(&d->r, 1000), 0);
	/* The device saw RUN clear when it got the request, and one kick. */
	assert_int_equal(d->ch_resets, 1);
	assert_int_equal(d->kicks, 1);
	assert_int_equal(d->ctrl_at_reset & FDMA_CH_CTRL_RUN, 0);
	assert_int_equal(d->ctrl_at_reset & FDMA_CH_CTRL_IRQ_EN, FDMA_CH_CTRL_IRQ_EN);
	/* Sequence numbers continue from what the register held at init. */
	assert_int_equal(*creg(d, ch, FDMA_CH_RESET_REQ), RESET_SEQ0 + 1);
	assert_int_equal(*creg(d, ch, FDMA_CH_RESET_ACK), RESET_SEQ0 + 1);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 0);
	assert_int_equal(*creg(d, CH_C2H_MM, FDMA_CH_RESET_REQ), RESET_SEQ0);

	assert_int_equal(fdma_ering_reset(&d->r, 1000), 0);
	assert_int_equal(*creg(d, ch, FDMA_CH_RESET_REQ), RESET_SEQ0 + 2);
	assert_int_equal(d->ch_resets, 2);

	/* Hand back what was posted, then restart: RUN again, from index 0. */
	{
		struct fdma_ecpl out[2];

		assert_int_equal(fdma_ering_cancel(&d->r, out, 2), 1);
		assert_int_equal(out[0].cookie, 1);
		assert_int_equal(out[0].status, FDMA_CPL_CANCELED);
	}
	fdma_ering_start(&d->r, 0, 0);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL), FDMA_CH_CTRL_RUN);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 0);
}

static void test_reset_timeout(void **state)
{
	struct dev *d = *state;
	u32 ch = CH_C2H_MM;
	u64 t0, t1;

	ring_on(d, ch, 16);
	fdma_ering_start(&d->r, 0, 0);
	post_ok(d, HOST, 0, ALIGN, 0, 1);
	fdma_ering_doorbell(&d->r);
	d->ack_resets = false;
	t0 = now_us();
	assert_int_equal(fdma_ering_reset(&d->r, 200), -ETIMEDOUT);
	t1 = now_us();
	/* It waited at least the timeout, and not orders of magnitude longer. */
	assert_true(t1 - t0 >= 200);
	assert_true(t1 - t0 < 100000);
	assert_int_equal(*creg(d, ch, FDMA_CH_RESET_REQ), RESET_SEQ0 + 1);
	assert_int_equal(*creg(d, ch, FDMA_CH_CTRL) & FDMA_CH_CTRL_RUN, 0);
	/* The doorbell was not rewritten: the reset did not happen. */
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 1);

	/* A device that acknowledges later is found by the next attempt. */
	d->ack_resets = true;
	assert_int_equal(fdma_ering_reset(&d->r, 50), 0);
	assert_int_equal(*creg(d, ch, FDMA_CH_RESET_ACK), RESET_SEQ0 + 2);
}

static void test_eng_reset_enable(void **state)
{
	struct dev *d = *state;

	*reg(d, FDMA_REG_RESET_REQ) = 5;
	*reg(d, FDMA_REG_RESET_ACK) = 5;
	d->ack_resets = true;
	assert_int_equal(fdma_eng_reset(&d->plat, &d->caps, 1000), 0);
	assert_int_equal(*reg(d, FDMA_REG_RESET_REQ), 6);
	assert_int_equal(*reg(d, FDMA_REG_RESET_ACK), 6);
	assert_int_equal(d->eng_resets, 1);
	assert_int_equal(d->kicks, 1);

	d->ack_resets = false;
	assert_int_equal(fdma_eng_reset(&d->plat, &d->caps, 30), -ETIMEDOUT);
	assert_int_equal(*reg(d, FDMA_REG_RESET_REQ), 7);
	assert_int_equal(d->eng_resets, 1);

	fdma_eng_enable(&d->plat, &d->caps, true);
	assert_int_equal(*reg(d, FDMA_REG_CTRL), FDMA_CTRL_ENABLE);
	fdma_eng_enable(&d->plat, &d->caps, false);
	assert_int_equal(*reg(d, FDMA_REG_CTRL), 0);
	assert_int_equal(d->kicks, 4);
}

/* The long bound is real time: sleeps are not counted as their nominal length. */
static void test_eng_reset_real_time(void **state)
{
	struct dev *d = *state;
	u64 t0, t1;

	d->ack_resets = false;
	t0 = now_us();
	assert_int_equal(fdma_eng_reset(&d->plat, &d->caps, 50000), -ETIMEDOUT);
	t1 = now_us();
	assert_true(t1 - t0 >= 50000);
	/* Counting 10 us per sleep that lasts 50-60 us would take 250+ ms. */
	assert_true(t1 - t0 < 200000);
}

static void test_quiesce(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;
	u64 t0, t1;

	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	fdma_eng_enable(&d->plat, &caps, true);
	*reg(d, FDMA_REG_STATUS) = FDMA_STATUS_READY | FDMA_STATUS_BUSY;

	/* 1.1: ENABLE cleared, then BUSY waited for. */
	d->drop_busy = true;
	assert_int_equal(fdma_eng_quiesce(&d->plat, &caps, 1000), 0);
	assert_int_equal(*reg(d, FDMA_REG_CTRL), 0);
	assert_int_equal(*reg(d, FDMA_REG_STATUS), FDMA_STATUS_READY);

	/* An engine that never stops: -ETIMEDOUT after the bound, ENABLE still cleared. */
	fdma_eng_enable(&d->plat, &caps, true);
	*reg(d, FDMA_REG_STATUS) = FDMA_STATUS_READY | FDMA_STATUS_BUSY;
	d->drop_busy = false;
	t0 = now_us();
	assert_int_equal(fdma_eng_quiesce(&d->plat, &caps, 2000), -ETIMEDOUT);
	t1 = now_us();
	assert_true(t1 - t0 >= 2000);
	assert_int_equal(*reg(d, FDMA_REG_CTRL), 0);

	/* A 1.0 engine has no BUSY: the read-back is all there is. */
	caps.version = FDMA_VERSION_MAJOR << 16;
	fdma_eng_enable(&d->plat, &caps, true);
	assert_int_equal(fdma_eng_quiesce(&d->plat, &caps, 1000), 0);
	assert_int_equal(*reg(d, FDMA_REG_CTRL), 0);
}

static void test_cancel_after_reset(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[8];
	u32 ch = CH_H2C_MM;

	ring_on(d, ch, 16);
	counters_at(d, 0xfffffffd);		/* and across the wrap */
	fdma_ering_start(&d->r, 0, 0);
	post_ok(d, HOST, 0, ALIGN, 0, 0xa);		/* 1 piece, completes OK */
	post_ok(d, HOST, 0, 5 * MAXD / 2, 0, 0xb);	/* 3 pieces, first fails */
	post_ok(d, HOST, 0, 2 * MAXD, 0, 0xc);		/* never runs */
	post_ok(d, HOST, 0, ALIGN, 0, 0xd);		/* never runs */
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 1);
	dev_complete(d, FDMA_CPL_ADDR_ERR, 0, 0);
	*creg(d, ch, FDMA_CH_STATUS) = FDMA_CH_ST_HALTED | FDMA_CH_ST_ADDR_ERR;
	d->wb.status = FDMA_CH_ST_HALTED | FDMA_CH_ST_ADDR_ERR;
	assert_int_equal(fdma_ering_status(&d->r),
			 FDMA_CH_ST_HALTED | FDMA_CH_ST_ADDR_ERR);

	assert_int_equal(fdma_ering_reap(&d->r, out, 8), 1);
	assert_int_equal(out[0].cookie, 0xa);

	d->ack_resets = true;
	assert_int_equal(fdma_ering_reset(&d->r, 1000), 0);
	assert_int_equal(d->wb.cidx, 0);
	assert_int_equal(fdma_ering_status(&d->r), 0);

	memset(out, 0, sizeof(out));
	assert_int_equal(fdma_ering_cancel(&d->r, out, 8), 3);
	assert_int_equal(out[0].cookie, 0xb);
	assert_int_equal(out[0].status, FDMA_CPL_ADDR_ERR);
	assert_int_equal(out[0].len, 0);
	assert_int_equal(out[1].cookie, 0xc);
	assert_int_equal(out[1].status, FDMA_CPL_CANCELED);
	assert_int_equal(out[1].len, 0);
	assert_int_equal(out[2].cookie, 0xd);
	assert_int_equal(out[2].status, FDMA_CPL_CANCELED);
	assert_int_equal(out[2].len, 0);
	assert_int_equal(fdma_cpl_errno(out[1].status), -ECANCELED);

	assert_int_equal(d->r.pidx, 0);
	assert_int_equal(d->r.cidx, 0);
	assert_int_equal(d->r.pidx_pub, 0);
	assert_int_equal(fdma_ering_space(&d->r), 16);
	assert_int_equal(fdma_ering_cancel(&d->r, out, 8), 0);

	/* Running again starts at descriptor 0, entry 0. */
	fdma_ering_start(&d->r, 0, 0);
	post_ok(d, HOST, 0, ALIGN, 0, 0xe);
	assert_int_equal(d->desc[0].cookie, 0xe);
	fdma_ering_doorbell(&d->r);
	assert_int_equal(*creg(d, ch, FDMA_CH_PIDX), 1);
	dev_complete_ok(d, 1);
	assert_int_equal(fdma_ering_reap(&d->r, out, 8), 1);
	assert_int_equal(out[0].cookie, 0xe);
	assert_int_equal(out[0].status, FDMA_CPL_OK);
}

static void test_cancel_partial(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[4];

	ring_on(d, CH_C2H_MM, 16);
	fdma_ering_start(&d->r, 0, 0);
	post_ok(d, HOST, 0, 3 * MAXD, 0, 1);	/* first piece completes OK */
	post_ok(d, HOST, 0, ALIGN, 0, 2);
	post_ok(d, HOST, 0, ALIGN, 0, 3);
	fdma_ering_doorbell(&d->r);
	dev_complete(d, FDMA_CPL_OK, 0, MAXD);

	d->ack_resets = true;
	assert_int_equal(fdma_ering_reset(&d->r, 1000), 0);

	/* One at a time: indices are zeroed only once nothing remains. */
	assert_int_equal(fdma_ering_cancel(&d->r, out, 1), 1);
	assert_int_equal(out[0].cookie, 1);
	assert_int_equal(out[0].status, FDMA_CPL_CANCELED);	/* not all of it ran */
	assert_int_equal(out[0].len, MAXD);			/* what did move */
	assert_int_equal(d->r.cidx, 3);
	assert_int_equal(d->r.pidx, 5);
	assert_int_equal(fdma_ering_cancel(&d->r, out, 0), 0);
	assert_int_equal(d->r.pidx, 5);
	assert_int_equal(fdma_ering_cancel(&d->r, out, 1), 1);
	assert_int_equal(out[0].cookie, 2);
	assert_int_equal(out[0].status, FDMA_CPL_CANCELED);
	assert_int_equal(d->r.pidx, 5);
	assert_int_equal(fdma_ering_cancel(&d->r, out, 1), 1);
	assert_int_equal(out[0].cookie, 3);
	assert_int_equal(d->r.pidx, 0);
	assert_int_equal(d->r.cidx, 0);
	assert_int_equal(d->r.pidx_pub, 0);
}

static void test_confused_device_clamped(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[8];

	ring_on(d, CH_H2C_MM, 16);
	counters_at(d, 0xfffffff0);
	post_ok(d, HOST, 0, ALIGN, 0, 1);
	post_ok(d, HOST, 0, 2 * MAXD, 0, 2);
	fdma_ering_doorbell(&d->r);
	dev_complete_ok(d, 3);
	/* Then claims far more than was ever posted: nothing is trusted. */
	__atomic_store_n(&d->wb.cidx, d->r.pidx + 100, __ATOMIC_RELEASE);
	assert_int_equal(fdma_ering_ready(&d->r), 0);
	assert_int_equal(fdma_ering_reap(&d->r, out, 8), 0);
	/* Once it reports a sane count again, the three are reaped. */
	__atomic_store_n(&d->wb.cidx, d->r.pidx, __ATOMIC_RELEASE);
	assert_int_equal(fdma_ering_ready(&d->r), 3);
	assert_int_equal(fdma_ering_reap(&d->r, out, 8), 2);
	assert_int_equal(out[0].cookie, 1);
	assert_int_equal(out[1].cookie, 2);
	assert_int_equal(out[1].len, 2 * MAXD);
	assert_int_equal(d->r.cidx, 0xfffffff3);
	assert_int_equal(fdma_ering_ready(&d->r), 0);
	assert_int_equal(fdma_ering_reap(&d->r, out, 8), 0);
	assert_int_equal(fdma_ering_space(&d->r), 16);
	assert_int_equal(fdma_ering_inflight(&d->r), 0);
}

/* ---- status codes -------------------------------------------------------- */

static void test_cpl_errno(void **state)
{
	(void)state;
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_OK), 0);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_DESC_ERR), -EIO);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_ADDR_ERR), -EFAULT);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_DATA_ERR), -EIO);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_ALIGN_ERR), -EINVAL);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_RANGE_ERR), -ERANGE);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_LEN_ERR), -EINVAL);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_TRUNC), -EMSGSIZE);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_CANCELED), -ECANCELED);
	assert_int_equal(fdma_cpl_errno(8), -EIO);
	assert_int_equal(fdma_cpl_errno(0x1234), -EIO);
}

static void test_cpl_str(void **state)
{
	static const u16 known[] = {
		FDMA_CPL_OK, FDMA_CPL_DESC_ERR, FDMA_CPL_ADDR_ERR,
		FDMA_CPL_DATA_ERR, FDMA_CPL_ALIGN_ERR, FDMA_CPL_RANGE_ERR,
		FDMA_CPL_LEN_ERR, FDMA_CPL_TRUNC, FDMA_CPL_CANCELED,
	};
	const size_t n = sizeof(known) / sizeof(known[0]);
	const char *unknown = fdma_cpl_str(8);
	size_t i, j;

	(void)state;
	assert_non_null(unknown);
	assert_string_equal(unknown, fdma_cpl_str(0x1234));
	assert_string_equal(fdma_cpl_str(FDMA_CPL_OK), "ok");
	for (i = 0; i < n; i++) {
		const char *s = fdma_cpl_str(known[i]);

		assert_non_null(s);
		assert_true(strlen(s) > 0);
		assert_string_not_equal(s, unknown);
		for (j = 0; j < i; j++)
			assert_string_not_equal(s, fdma_cpl_str(known[j]));
	}
	assert_non_null(strstr(fdma_cpl_str(FDMA_CPL_RANGE_ERR), "range"));
	assert_non_null(strstr(fdma_cpl_str(FDMA_CPL_CANCELED), "cancel"));
	assert_non_null(strstr(fdma_cpl_str(FDMA_CPL_ALIGN_ERR), "align"));
}

/* Regression tests: each failed before its engine fix. */
static void test_huge_request_not_lost(void **state)
{
	struct dev *d = *state;
	struct fdma_ereq q = req(HOST, 0, 0xffffffc0, 0, 1);

	/* (len + max_desc_len - 1) must not wrap to give 0 descriptors. */
	ring_on(d, CH_H2C_ST, 16);
	assert_int_equal(fdma_ering_ndesc(&d->r, 0xffffffc0), 0x100000);
	assert_int_not_equal(fdma_ering_post(&d->r, &q), 0);
}

static void test_desc_err_keeps_cookie(void **state)
{
	struct dev *d = *state;
	struct fdma_ecpl out[2];

	/* A failed descriptor fetch cannot echo the cookie (the model writes 0). */
	ring_on(d, CH_H2C_MM, 16);
	post_ok(d, HOST, 0, ALIGN, 0, 0x1234);
	fdma_ering_doorbell(&d->r);
	dev_complete(d, FDMA_CPL_DESC_ERR, 0, 0);
	d->cpl[0].cookie = 0;
	assert_int_equal(fdma_ering_reap(&d->r, out, 2), 1);
	assert_int_equal(out[0].status, FDMA_CPL_DESC_ERR);
	assert_int_equal(out[0].cookie, 0x1234);
}

static void test_clamp_to_published(void **state)
{
	struct dev *d = *state;

	ring_on(d, CH_H2C_MM, 16);
	post_ok(d, HOST, 0, ALIGN, 0, 1);
	/* Not published yet: the device cannot have completed it. */
	__atomic_store_n(&d->wb.cidx, 1, __ATOMIC_RELEASE);
	assert_int_equal(fdma_ering_ready(&d->r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
#define T(f) cmocka_unit_test_setup_teardown(f, dev_setup, dev_teardown)
		T(test_probe_ok),
		T(test_probe_bad_magic),
		T(test_probe_bad_version),
		T(test_probe_bad_caps),
		T(test_probe_rounds_max_desc_len),
		T(test_ring_init_sizes),
		T(test_ring_init_alignment),
		T(test_start_stop_registers),
		T(test_ndesc),
		T(test_space_inflight_wrap),
		T(test_full_ring_eagain),
		T(test_desc_h2c_mm),
		T(test_desc_c2h_mm),
		T(test_desc_c2h_stream),
		T(test_desc_h2c_stream),
		T(test_flags),
		T(test_split_and_fold),
		T(test_split_across_wrap),
		T(test_reap_max),
		T(test_doorbell_batching),
		T(test_middle_piece_error),
		T(test_check_errors),
		T(test_check_card_range),
		T(test_mem2mem),
		T(test_unknown_chan_kind),
		T(test_reset_handshake),
		T(test_reset_timeout),
		T(test_eng_reset_enable),
		T(test_eng_reset_real_time),
		T(test_quiesce),
		T(test_cancel_after_reset),
		T(test_cancel_partial),
		T(test_confused_device_clamped),
		cmocka_unit_test(test_cpl_errno),
		cmocka_unit_test(test_cpl_str),
		T(test_huge_request_not_lost),
		T(test_desc_err_keeps_cookie),
		T(test_clamp_to_published),
#undef T
	};

	return T_RUN_NAME("engine", tests);
}
