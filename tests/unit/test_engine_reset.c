// SPDX-License-Identifier: MIT
/*
 * The engine core (engine/fdma_engine.c) against a fake device
 * (engine_fake.h): resets, quiescing and cancelling.
 */
#include "engine_fake.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_reset_handshake),
		T(test_reset_timeout),
		T(test_eng_reset_enable),
		T(test_eng_reset_real_time),
		T(test_quiesce),
		T(test_cancel_after_reset),
		T(test_cancel_partial),
		T(test_confused_device_clamped),
	};

	return T_RUN_NAME("engine reset", tests);
}
