// SPDX-License-Identifier: MIT
/*
 * The engine core (engine/fdma_engine.c) against a fake device
 * (engine_fake.h): ring set-up and counting (space, requests in flight, a full ring).
 */
#include "engine_fake.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ring_init_sizes),
		T(test_ring_init_alignment),
		T(test_start_stop_registers),
		T(test_ndesc),
		T(test_space_inflight_wrap),
		T(test_full_ring_eagain),
	};

	return T_RUN_NAME("engine ring", tests);
}
