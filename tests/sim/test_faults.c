// SPDX-License-Identifier: MIT
/*
 * Injected device faults (sim:fault=KIND@N fires at the Nth descriptor the
 * device fetches, counted over all channels): a failing descriptor fetch
 * and poisoned data complete the transfer with -EIO and halt the channel,
 * which the library resets by itself (later requests come back canceled);
 * a stuck channel times the reaper out until fdma_chan_reset(); a lost
 * interrupt costs a sleeping reaper at most its 100 ms re-check. After
 * each, the device moves data correctly again. A channel that never
 * acknowledges its reset (noack) is broken for good, the others work on,
 * and closing the device is clean although that channel is still writing.
 */
#include <string.h>

#include "sim_util.h"
#include "fdma_plat.h"
#include "fdma_regs.h"

#define FDMA_CPL_CANCELED_STATUS 0xffff	/* engine/fdma_engine.h: FDMA_CPL_CANCELED */

enum { N = 5, SZ = 4096 };

/* Submit N requests of SZ in one batch on channel 0 (H2C), user_data 10 + i. */
static int submit_batch(struct fdma_dev *dev, uint64_t seed)
{
	int src = sim_buf(dev, N * SZ, 0);
	struct fdma_req r[N];

	pattern_fill(fdma_buf_addr(dev, src), N * SZ, seed);
	for (int i = 0; i < N; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * SZ,
					  .card_addr = (uint64_t)i * SZ, .len = SZ,
					  .user_data = 10 + (uint64_t)i };
	assert_fdma_err(dev, fdma_submit(dev, 0, r, N), N, NULL);
	return src;
}

/* Card bytes [card, card + SZ) hold the pattern seed from position pos. */
static void check_card(struct fdma_dev *dev, uint64_t card, uint64_t seed, uint64_t pos)
{
	int b = sim_buf(dev, SZ, 0);

	memset(fdma_buf_addr(dev, b), 0, SZ);
	assert_fdma_ok(dev, fdma_read_card(dev, b, 0, card, SZ));
	assert_pattern_at(fdma_buf_addr(dev, b), SZ, seed, pos);
	assert_fdma_ok(dev, fdma_buf_free(dev, b));
}

/* Card bytes [i * SZ, (i + 1) * SZ) hold request i's data (of submit_batch). */
static void check_landed(struct fdma_dev *dev, int i, uint64_t seed)
{
	check_card(dev, (uint64_t)i * SZ, seed, (uint64_t)i * SZ);
}

/* The third transfer fails with status, the first two succeed, the rest are canceled or done. */
static void fault_in_batch(const char *uri, uint16_t status)
{
	struct fdma_dev *dev = sim_open(uri);
	struct fdma_cpl c[N];
	struct fdma_chan_stats st;
	int src, canceled = 0;

	src = submit_batch(dev, 1);
	sim_reap_n(dev, 0, c, N);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].status, FDMA_CPL_OK);
		assert_int_equal(c[i].len, SZ);
	}
	assert_int_equal(c[2].res, -EIO);
	assert_int_equal(c[2].status, status);
	for (int i = 3; i < N; i++) {
		if (c[i].res == -ECANCELED) {
			assert_int_equal(c[i].status, FDMA_CPL_CANCELED_STATUS);
			canceled++;
		} else {
			assert_int_equal(c[i].res, 0);
			assert_int_equal(c[i].len, SZ);
		}
	}
	/* Canceled requests are never followed by completed ones: the channel halted. */
	for (int i = 3; i + 1 < N; i++)
		if (c[i].res == -ECANCELED)
			assert_int_equal(c[i + 1].res, -ECANCELED);
	assert_int_equal(fdma_inflight(dev, 0), 0);
	sim_stats(dev, 0, &st);
	assert_true(st.resets >= 1);
	assert_int_equal(st.errors, 1 + (uint64_t)canceled);
	assert_int_equal(st.completions, N);
	/* Every buffer is free again: nothing is left counted in flight. */
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	/* What completed did land; and the device works again, on every channel. */
	check_landed(dev, 0, 1);
	check_landed(dev, 1, 1);
	sim_roundtrip(dev, 0x100000, 1 << 20, 2);
	src = submit_batch(dev, 3);
	sim_reap_n(dev, 0, c, N);
	for (int i = 0; i < N; i++) {
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].user_data, 10 + (uint64_t)i);
		check_landed(dev, i, 3);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	fdma_close(dev);
}

static void test_fault_desc(void **state)
{
	(void)state;
	fault_in_batch("sim:paced=0,fault=desc@3", FDMA_CPL_DESC_ERR);
}

static void test_fault_data(void **state)
{
	(void)state;
	fault_in_batch("sim:paced=0,fault=data@3", FDMA_CPL_DATA_ERR);
}

/*
 * One request at a time: the failure is the third transfer's, and the
 * fourth, submitted after the error was reaped, runs normally ("the
 * library resets a channel halted on an error by itself"). The reaper
 * gives the device time to finish (and halt) before it looks, so the
 * result does not depend on which of the two it sees first.
 */
static void test_fault_one_at_a_time(void **state)
{
	static const char *const uris[] = { "sim:paced=0,fault=desc@3", "sim:paced=0,fault=data@3" };

	(void)state;
	for (int u = 0; u < 2; u++) {
		struct fdma_dev *dev = sim_open(uris[u]);
		int b = sim_buf(dev, SZ, 0);
		struct fdma_chan_stats st;

		pattern_fill(fdma_buf_addr(dev, b), SZ, 4);
		for (int i = 0; i < 5; i++) {
			struct fdma_req r = { .buf = b, .card_addr = (uint64_t)i * SZ, .len = SZ,
					      .user_data = 100 + (uint64_t)i };
			struct fdma_cpl c;

			assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
			sim_sleep_us(20000);
			sim_reap_n(dev, 0, &c, 1);
			if (c.res != (i == 2 ? -EIO : 0))
				fail_msg("%s: transfer %d of 5 (one at a time): res %d (%s), expected %d",
					 uris[u], i + 1, c.res, c.res ? strerror(-c.res) : "ok",
					 i == 2 ? -EIO : 0);
			assert_int_equal(c.user_data, 100 + (uint64_t)i);
			assert_int_equal(c.status, i == 2 ? (u == 0 ? FDMA_CPL_DESC_ERR : FDMA_CPL_DATA_ERR)
							  : FDMA_CPL_OK);
			if (i != 2)
				assert_int_equal(c.len, SZ);
		}
		sim_stats(dev, 0, &st);
		assert_int_equal(st.resets, 1);
		assert_int_equal(st.errors, 1);
		for (int i = 0; i < 5; i++)
			if (i != 2)
				check_card(dev, (uint64_t)i * SZ, 4, 0);
		assert_fdma_ok(dev, fdma_buf_free(dev, b));
		sim_roundtrip(dev, 0, 65536, 5);
		fdma_close(dev);
	}
}

/* A fault in the middle of a split request fails that request as a whole. */
static void test_fault_desc_split(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,maxdesc=4096,fault=desc@3");
	int b = sim_buf(dev, 2 * 65536, 0);
	struct fdma_req r[2] = {
		{ .buf = b, .offset = 0, .card_addr = 0, .len = 65536, .user_data = 1 },
		{ .buf = b, .offset = 65536, .card_addr = 65536, .len = 65536, .user_data = 2 },
	};
	struct fdma_cpl c[2];

	(void)state;
	pattern_fill(fdma_buf_addr(dev, b), 2 * 65536, 6);
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 2), 2, NULL);
	sim_reap_n(dev, 0, c, 2);
	assert_int_equal(c[0].user_data, 1);
	assert_int_equal(c[0].res, -EIO);
	assert_int_equal(c[0].status, FDMA_CPL_DESC_ERR);
	/* Only the two pieces before the failing one moved. */
	assert_true(c[0].len < 65536);
	assert_int_equal(c[1].user_data, 2);
	assert_int_equal(c[1].res, -ECANCELED);
	assert_fdma_ok(dev, fdma_buf_free(dev, b));
	sim_roundtrip(dev, 0, 2 * 65536, 7);
	fdma_close(dev);
}

/*
 * The failed completion carries the failing request's own user_data (the
 * interface promises user_data back in every completion).
 */
static void test_fault_user_data(void **state)
{
	static const char *const uris[] = { "sim:paced=0,fault=data@3", "sim:paced=0,fault=desc@3" };

	(void)state;
	for (int u = 0; u < 2; u++) {
		struct fdma_dev *dev = sim_open(uris[u]);
		struct fdma_cpl c[N];
		int src = submit_batch(dev, 8);

		sim_reap_n(dev, 0, c, N);
		for (int i = 0; i < N; i++) {
			if (c[i].user_data != 10 + (uint64_t)i)
				fail_msg("%s: completion %d (res %d, status %u) has user_data %llu, expected %d",
					 uris[u], i, c[i].res, c[i].status,
					 (unsigned long long)c[i].user_data, 10 + i);
		}
		/* The buffer's in-flight count came back to zero. */
		assert_fdma_ok(dev, fdma_buf_free(dev, src));
		fdma_close(dev);
	}
}

/* A stuck channel: the reaper times out, fdma_chan_reset() hands the rest back canceled. */
static void test_fault_stuck(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,fault=stuck@3");
	struct fdma_cpl c[N];
	struct fdma_chan_stats st;
	int src, n;

	(void)state;
	src = submit_batch(dev, 9);
	/* The two before the fault complete. */
	n = fdma_reap(dev, 0, c, N, 2, SIM_TIMEOUT_US);
	assert_fdma_err(dev, n, 2, NULL);
	assert_int_equal(c[0].res, 0);
	assert_int_equal(c[1].res, 0);
	assert_int_equal(c[1].user_data, 11);
	/* Then nothing: a timeout with a message pointing at the cure. */
	assert_fdma_err(dev, fdma_reap(dev, 0, c, N, 1, 100000), -ETIMEDOUT, "fdma_chan_reset");
	/* A reap asking for more than is there returns what came, or times out the same. */
	assert_fdma_err(dev, fdma_reap(dev, 0, c, N, N, 50000), -ETIMEDOUT, "within");
	assert_int_equal(fdma_inflight(dev, 0), 3);
	/* The buffer is still the device's. */
	assert_fdma_err(dev, fdma_buf_free(dev, src), -EBUSY, "in flight");

	assert_fdma_ok(dev, fdma_chan_reset(dev, 0));
	sim_reap_n(dev, 0, c, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(c[i].res, -ECANCELED);
		assert_int_equal(c[i].status, FDMA_CPL_CANCELED_STATUS);
		assert_int_equal(c[i].user_data, 12 + (uint64_t)i);
	}
	assert_int_equal(fdma_inflight(dev, 0), 0);
	sim_stats(dev, 0, &st);
	assert_int_equal(st.resets, 1);
	assert_int_equal(st.errors, 3);
	assert_int_equal(st.completions, N);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	/* Running again: a batch, and a round trip on both channels. */
	src = submit_batch(dev, 10);
	sim_reap_n(dev, 0, c, N);
	for (int i = 0; i < N; i++) {
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].user_data, 10 + (uint64_t)i);
		check_landed(dev, i, 10);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	sim_roundtrip(dev, 0x200000, 1 << 20, 11);
	fdma_close(dev);
}

/*
 * A channel that ignores its reset and keeps writing its rings: the reset
 * fails naming the cause, the channel refuses work from then on, the other
 * channels are not disturbed, and fdma_close() frees the rings only after
 * the engine stopped mastering the bus (ASan would see a write into freed
 * memory).
 */
static void test_fault_noack(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,fault=noack@3");
	struct fdma_cpl c[N];
	struct fdma_req r;
	int src, n;

	(void)state;
	src = submit_batch(dev, 12);
	n = fdma_reap(dev, 0, c, N, 2, SIM_TIMEOUT_US);
	assert_fdma_err(dev, n, 2, NULL);
	assert_fdma_err(dev, fdma_reap(dev, 0, c, N, 1, 50000), -ETIMEDOUT, NULL);
	assert_fdma_err(dev, fdma_chan_reset(dev, 0), -ETIMEDOUT, "not acknowledged");
	r = (struct fdma_req){ .buf = src, .len = SZ };
	assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), -EIO, "did not come back");
	/* A reap says so too, even one that would not wait (min_wait 0). */
	assert_fdma_err(dev, fdma_reap(dev, 0, c, N, 0, 0), -EIO, "broken");
	assert_fdma_err(dev, fdma_reap(dev, 0, c, N, 1, 50000), -EIO, "broken");
	/* What landed before the fault is on the card, read through the other channel. */
	check_landed(dev, 0, 12);
	check_landed(dev, 1, 12);
	fdma_close(dev);
}

/*
 * Resetting a healthy idle channel is harmless: with nothing to hand back,
 * the channel takes new work at once (fdma_submit's -EAGAIN means a full
 * ring, and the ring is empty).
 */
static void test_reset_idle(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	struct fdma_chan_stats st;

	(void)state;
	sim_roundtrip(dev, 0, 8192, 1);
	assert_fdma_ok(dev, fdma_chan_reset(dev, 0));
	assert_fdma_ok(dev, fdma_chan_reset(dev, 1));
	/* Straight to work, without a reap in between. */
	sim_roundtrip(dev, 8192, 8192, 2);
	sim_stats(dev, 0, &st);
	assert_int_equal(st.resets, 1);
	assert_int_equal(st.errors, 0);
	fdma_close(dev);
}

/*
 * A lost interrupt in sleep mode: the transfer still completes (the
 * library re-checks after at most 100 ms) and the sleep that ended without
 * an interrupt is counted. The link is paced so that the 4 MiB transfer
 * surely outlasts the reaper's way into its sleep.
 */
static void test_fault_irq(void **state)
{
	const uint64_t sz = 4 << 20;
	struct fdma_dev *dev = sim_open("sim:gen=1,lanes=1,mps=128,fault=irq@1");
	int src = sim_buf(dev, sz, 0), dst = sim_buf(dev, sz, 0);
	struct fdma_req r = { .buf = src, .card_addr = 0, .len = sz, .user_data = 1 };
	struct fdma_cpl c;
	struct fdma_chan_stats st;

	(void)state;
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_SLEEP, 0));
	pattern_fill(fdma_buf_addr(dev, src), sz, 12);
	memset(fdma_buf_addr(dev, dst), 0, sz);
	assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
	assert_int_equal(fdma_reap(dev, 0, &c, 1, 1, SIM_TIMEOUT_US), 1);
	assert_int_equal(c.res, 0);
	assert_int_equal(c.len, sz);
	sim_stats(dev, 0, &st);
	assert_true(st.irq_timeouts >= 1);
	assert_true(st.wakeups >= 1);
	/* The lost interrupt was never counted as raised. */
	assert_int_equal(st.interrupts, 0);
	/* The data is all there, and the next transfers interrupt normally. */
	assert_fdma_ok(dev, fdma_read_card(dev, dst, 0, 0, sz));
	assert_pattern(fdma_buf_addr(dev, dst), sz, 12);
	r.card_addr = sz;
	r.len = 65536;
	assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
	assert_int_equal(fdma_reap(dev, 0, &c, 1, 1, SIM_TIMEOUT_US), 1);
	assert_int_equal(c.res, 0);
	assert_int_equal(sim_wait_interrupts(dev, 0, 1, SIM_TIMEOUT_US), 1);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_desc),
		cmocka_unit_test(test_fault_data),
		cmocka_unit_test(test_fault_one_at_a_time),
		cmocka_unit_test(test_fault_desc_split),
		cmocka_unit_test(test_fault_user_data),
		cmocka_unit_test(test_fault_stuck),
		cmocka_unit_test(test_fault_noack),
		cmocka_unit_test(test_reset_idle),
		cmocka_unit_test(test_fault_irq),
	};

	return T_RUN(tests);
}
