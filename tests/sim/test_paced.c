// SPDX-License-Identifier: MIT
/*
 * A paced device is never faster than its link: moving B bytes in transfers
 * of S bytes takes at least B / fdma_ceiling(S) (with 10% slack for clock
 * granularity). Lower bounds only: a slow machine must not fail this.
 * gen1 x1 with MPS 128 is slow enough that 8 MiB takes tens of ms.
 */
#include <string.h>

#include "sim_util.h"

#define URI "sim:gen=1,lanes=1,mps=128"

/* Move n requests of sz bytes on ch (one batch), return the elapsed seconds. */
static double timed_batch(struct fdma_dev *dev, int ch, int buf, uint64_t card, unsigned int n,
			  uint64_t sz)
{
	struct fdma_req r[256];
	struct fdma_cpl c[256];
	int64_t t0, t1;

	assert_true(n <= 256);
	for (unsigned int i = 0; i < n; i++)
		r[i] = (struct fdma_req){ .buf = buf, .offset = i * sz, .card_addr = card + i * sz,
					  .len = sz, .user_data = i };
	t0 = sim_now_us();
	assert_fdma_err(dev, fdma_submit(dev, ch, r, n), (int)n, NULL);
	sim_reap_n(dev, ch, c, n);
	t1 = sim_now_us();
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].len, sz);
		assert_int_equal(c[i].user_data, i);
	}
	return (double)(t1 - t0) / 1e6;
}

static double min_seconds(struct fdma_dev *dev, enum fdma_dir dir, uint64_t total, uint64_t sz)
{
	double mbps = 0;

	assert_fdma_ok(dev, fdma_ceiling(dev, dir, sz, &mbps));
	assert_true(mbps > 0);
	return (double)total / (mbps * 1e6) * 0.9;
}

#define assert_not_faster(took, min) do {					\
	if ((took) < (min))							\
		fail_msg("took %.4f s, the link needs at least %.4f s", (took), (min)); \
} while (0)

/* 8 MiB in 1 MiB transfers, each direction, data checked. */
static void test_link_bound_1m(void **state)
{
	const uint64_t total = 8 << 20, sz = 1 << 20;
	struct fdma_dev *dev = sim_open(URI);
	struct fdma_info info;
	int src, dst;
	double took, h2c_mbps, c2h_mbps;

	(void)state;
	sim_require_realtime(dev, "the link's pace");
	src = sim_buf(dev, total, 0);
	dst = sim_buf(dev, total, 0);
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	assert_int_equal(info.link.paced, 1);
	assert_int_equal(info.link.gen, 1);
	assert_int_equal(info.link.mps, 128);
	/* The per-transfer ceiling is below the large-transfer one. */
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_H2C, sz, &h2c_mbps));
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_C2H, sz, &c2h_mbps));
	assert_true(h2c_mbps <= info.link.read_mbps * 1.0001);
	assert_true(c2h_mbps <= info.link.write_mbps * 1.0001);
	/* gen1 x1 carries at most 250 MB/s of anything. */
	assert_true(c2h_mbps < 250 && h2c_mbps < 250);

	pattern_fill(fdma_buf_addr(dev, src), total, 21);
	memset(fdma_buf_addr(dev, dst), 0, total);
	took = timed_batch(dev, 0, src, 0, 8, sz);
	assert_not_faster(took, min_seconds(dev, FDMA_H2C, total, sz));
	took = timed_batch(dev, 1, dst, 0, 8, sz);
	assert_not_faster(took, min_seconds(dev, FDMA_C2H, total, sz));
	assert_pattern(fdma_buf_addr(dev, dst), total, 21);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/* Small transfers pay the per-descriptor traffic: 1 MiB in 4 KiB pieces. */
static void test_link_bound_4k(void **state)
{
	const uint64_t total = 1 << 20, sz = 4096;
	struct fdma_dev *dev = sim_open(URI);
	int src, dst;
	double took, small, big;

	(void)state;
	sim_require_realtime(dev, "the link's pace");
	src = sim_buf(dev, total, 0);
	dst = sim_buf(dev, total, 0);
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_C2H, sz, &small));
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_C2H, 1 << 20, &big));
	assert_true(small < big);
	pattern_fill(fdma_buf_addr(dev, src), total, 22);
	memset(fdma_buf_addr(dev, dst), 0, total);
	took = timed_batch(dev, 0, src, 0x100000, 256, sz);
	assert_not_faster(took, min_seconds(dev, FDMA_H2C, total, sz));
	took = timed_batch(dev, 1, dst, 0x100000, 256, sz);
	assert_not_faster(took, min_seconds(dev, FDMA_C2H, total, sz));
	assert_pattern(fdma_buf_addr(dev, dst), total, 22);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/* Two channels of one direction share the link: together no faster than one. */
static void test_link_shared(void **state)
{
	const uint64_t half = 4 << 20, sz = 1 << 20;
	struct fdma_dev *dev = sim_open(URI ",channels=2");
	int src = sim_buf(dev, 2 * half, 0), dst = sim_buf(dev, 2 * half, 0);
	struct fdma_req r[8];
	struct fdma_cpl c[4];
	int64_t t0;
	double took;

	(void)state;
	pattern_fill(fdma_buf_addr(dev, src), 2 * half, 23);
	memset(fdma_buf_addr(dev, dst), 0, 2 * half);
	/* Load card memory through both H2C channels... */
	for (int i = 0; i < 8; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * sz,
					  .card_addr = (uint64_t)i * sz, .len = sz };
	t0 = sim_now_us();
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 4), 4, NULL);
	assert_fdma_err(dev, fdma_submit(dev, 2, r + 4, 4), 4, NULL);
	sim_reap_n(dev, 0, c, 4);
	sim_reap_n(dev, 2, c, 4);
	took = (double)(sim_now_us() - t0) / 1e6;
	assert_not_faster(took, min_seconds(dev, FDMA_H2C, 2 * half, sz));
	/* ...and read it back through both C2H channels. */
	for (int i = 0; i < 8; i++)
		r[i].buf = dst;
	t0 = sim_now_us();
	assert_fdma_err(dev, fdma_submit(dev, 1, r, 4), 4, NULL);
	assert_fdma_err(dev, fdma_submit(dev, 3, r + 4, 4), 4, NULL);
	sim_reap_n(dev, 1, c, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(c[i].res, 0);
	sim_reap_n(dev, 3, c, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(c[i].res, 0);
	took = (double)(sim_now_us() - t0) / 1e6;
	assert_not_faster(took, min_seconds(dev, FDMA_C2H, 2 * half, sz));
	assert_pattern(fdma_buf_addr(dev, dst), 2 * half, 23);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/*
 * A channel that ran dry fetches its descriptor before it can move data: a
 * read round trip after the doorbell. An H2C transfer from idle then waits
 * for its data's round trip too; a C2H one (posted writes) does not. With
 * a 5 ms round trip the bounds are far above any scheduling noise.
 */
static void test_cold_start(void **state)
{
	const double rtt = 5e-3;	/* seconds, as in the URI */
	struct fdma_dev *dev = sim_open("sim:rtt_ns=5000000");
	int src, dst;
	double took;

	(void)state;
	sim_require_realtime(dev, "the link's round trips");
	src = sim_buf(dev, 4096, 0);
	dst = sim_buf(dev, 4096, 0);
	pattern_fill(fdma_buf_addr(dev, src), 4096, 24);
	memset(fdma_buf_addr(dev, dst), 0, 4096);
	/* The descriptor's round trip, then the data's. */
	took = timed_batch(dev, 0, src, 0x2000, 1, 64);
	assert_not_faster(took, 2 * rtt * 0.9);
	/* The descriptor's round trip alone. */
	took = timed_batch(dev, 1, dst, 0x2000, 1, 64);
	assert_not_faster(took, rtt * 0.9);
	assert_pattern(fdma_buf_addr(dev, dst), 64, 24);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_bound_1m),
		cmocka_unit_test(test_link_bound_4k),
		cmocka_unit_test(test_link_shared),
		cmocka_unit_test(test_cold_start),
	};

	return T_RUN(tests);
}
