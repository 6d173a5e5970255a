// SPDX-License-Identifier: MIT
/*
 * The engine core (engine/fdma_engine.c) against a fake device
 * (engine_fake.h): descriptors: encoding, splitting and folding, reaping, request checks, memory-to-memory channels, and the regression tests of those paths.
 */
#include "engine_fake.h"

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
		T(test_huge_request_not_lost),
		T(test_desc_err_keeps_cookie),
		T(test_clamp_to_published),
	};

	return T_RUN_NAME("engine descriptors", tests);
}
