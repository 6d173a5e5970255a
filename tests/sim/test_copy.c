// SPDX-License-Identifier: MIT
/*
 * Memory-to-memory channels (engine 1.2, fdma_submit_copy()): copies of
 * every size class between buffers and within one, batches with one
 * doorbell, splitting at the maximum descriptor length, every wait mode,
 * errors that name what is wrong, buffers held while a copy is in flight,
 * an injected data error and recovery, and the link pacing both ways. Every
 * byte copied is checked, and so are the bytes around it.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_util.h"

#define GUARD 4096

static int mem_chan(struct fdma_dev *dev)
{
	int ch = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MEM);

	assert_fdma_ok(dev, ch);
	return ch;
}

/* Submit one copy and reap its completion; check the completion. */
static void copy1(struct fdma_dev *dev, int ch, int src, uint64_t soff, int dst, uint64_t doff,
		  uint64_t len, uint64_t ud)
{
	struct fdma_copy cp = { .src_buf = src, .dst_buf = dst, .src_offset = soff,
				.dst_offset = doff, .len = len, .user_data = ud };
	struct fdma_cpl c;

	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), 1, NULL);
	sim_reap_n(dev, ch, &c, 1);
	assert_int_equal(c.res, 0);
	assert_int_equal(c.status, FDMA_ST_OK);
	assert_int_equal(c.len, len);
	assert_int_equal(c.user_data, ud);
	assert_int_equal(fdma_inflight(dev, ch), 0);
}

/*
 * len bytes from a fresh pattern at src offset soff into the middle of a
 * guarded destination at doff: the copy is exact, the guards are intact,
 * the source is unchanged.
 */
static void copy_checked(struct fdma_dev *dev, int ch, uint64_t soff, uint64_t doff,
			 uint64_t len, uint64_t seed)
{
	int src = sim_buf(dev, soff + len, 0);
	int dst = sim_buf(dev, doff + len + GUARD, 0);
	uint8_t *s = fdma_buf_addr(dev, src), *d = fdma_buf_addr(dev, dst);

	pattern_fill(s + soff, len, seed);
	memset(d, 0xee, doff + len + GUARD);
	copy1(dev, ch, src, soff, dst, doff, len, seed);
	assert_bytes(d, doff, 0xee);
	assert_pattern(d + doff, len, seed);
	assert_bytes(d + doff + len, GUARD, 0xee);
	assert_pattern(s + soff, len, seed);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
}

static void test_info_and_find(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=2");
	struct fdma_info in;
	int ch, n = 0;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	for (unsigned int i = 0; i < in.nchan; i++)
		n += in.chan[i].kind == FDMA_KIND_MEM;
	assert_true(n >= 2);
	ch = mem_chan(dev);
	assert_int_equal(in.chan[ch].kind, FDMA_KIND_MEM);
	/* The direction does not matter for this kind. */
	assert_int_equal(fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MEM), ch);
	if (!sim_target())
		assert_true(in.version >= (1u << 16 | 2));
	fdma_close(dev);

	/* A device without one says so. */
	if (!sim_target()) {
		dev = sim_open("sim:paced=0");
		assert_fdma_err(dev, fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MEM), -ENOENT,
				"memory-to-memory");
		fdma_close(dev);
	}
}

/*
 * Sizes and offsets in units of the device's alignment (64 bytes on sim:,
 * a DMA cache line where that is longer), the largest under 2 MiB + one
 * unit so that registered pages on both sides still fit a ring of 2048.
 */
static void test_sizes_and_offsets(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1");
	struct fdma_info in;
	uint64_t a, sizes[8], offs[4];
	int ch = mem_chan(dev);
	uint64_t seed = 1;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	a = in.align;
	sizes[0] = a;
	sizes[1] = 2 * a;
	sizes[2] = 4096 - a;
	sizes[3] = 4096;
	sizes[4] = 4096 + a;
	sizes[5] = 65536;
	sizes[6] = 1 << 20;
	sizes[7] = (2 << 20) + a;
	offs[0] = 0;
	offs[1] = a;
	offs[2] = 4096 - a;
	offs[3] = 12288;
	for (size_t i = 0; i < 8; i++)
		for (size_t j = 0; j < 4; j++)
			copy_checked(dev, ch, offs[j], offs[(j + 1) % 4], sizes[i], seed++);
	fdma_close(dev);
}

/* Longer than a descriptor: split into pieces, one completion. */
static void test_split(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1,maxdesc=4096");
	int ch = mem_chan(dev);
	struct fdma_chan_stats st0, st1;

	(void)state;
	sim_stats(dev, ch, &st0);
	copy_checked(dev, ch, 64, 4096, (1 << 20) + 64, 77);
	sim_stats(dev, ch, &st1);
	assert_int_equal(st1.descriptors - st0.descriptors, 257);
	assert_int_equal(st1.completions - st0.completions, 1);
	fdma_close(dev);
}

/* Within one buffer: disjoint ranges are fine, overlapping ones refused. */
static void test_same_buffer(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1");
	int ch = mem_chan(dev), b = sim_buf(dev, 1 << 20, 0);
	uint8_t *p = fdma_buf_addr(dev, b);
	struct fdma_copy cp = { .src_buf = b, .dst_buf = b, .src_offset = 0,
				.dst_offset = 4096, .len = 8192 };

	(void)state;
	pattern_fill(p, 1 << 20, 5);
	copy1(dev, ch, b, 0, b, 512 << 10, 256 << 10, 1);
	assert_pattern(p, 512 << 10, 5);
	assert_pattern(p + (512 << 10), 256 << 10, 5);
	assert_pattern_at(p + (768 << 10), 256 << 10, 5, 768 << 10);
	/* Backwards, adjacent: the last byte of the destination touches the source. */
	copy1(dev, ch, b, 512 << 10, b, 256 << 10, 256 << 10, 2);
	assert_pattern(p + (256 << 10), 256 << 10, 5);

	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), -EINVAL, "overlap");
	cp.src_offset = 4096;
	cp.dst_offset = 0;
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), -EINVAL, "overlap");
	cp.src_offset = cp.dst_offset = 4096;
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), -EINVAL, "overlap");
	assert_int_equal(fdma_inflight(dev, ch), 0);
	fdma_close(dev);
}

/* A batch of copies: one doorbell, every completion, every byte. */
static void test_batch(void **state)
{
	enum { N = 48, LEN = 16384 };
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1");
	int ch = mem_chan(dev);
	int src = sim_buf(dev, N * LEN, 0), dst = sim_buf(dev, N * LEN, 0);
	uint8_t *d = fdma_buf_addr(dev, dst);
	struct fdma_copy cp[N];
	struct fdma_cpl c[N];
	struct fdma_chan_stats st0, st1;
	int seen[N] = { 0 };

	(void)state;
	pattern_fill(fdma_buf_addr(dev, src), N * LEN, 9);
	memset(d, 0, N * LEN);
	/* Reversed placement: copy i lands where copy N-1-i came from. */
	for (int i = 0; i < N; i++)
		cp[i] = (struct fdma_copy){ .src_buf = src, .dst_buf = dst,
					    .src_offset = (uint64_t)i * LEN,
					    .dst_offset = (uint64_t)(N - 1 - i) * LEN,
					    .len = LEN, .user_data = 1000 + i };
	sim_stats(dev, ch, &st0);
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, cp, N), N, NULL);
	sim_reap_n(dev, ch, c, N);
	sim_stats(dev, ch, &st1);
	assert_int_equal(st1.doorbells - st0.doorbells, 1);
	assert_int_equal(st1.transfers - st0.transfers, N);
	assert_int_equal(st1.bytes - st0.bytes, (uint64_t)N * LEN);
	for (int i = 0; i < N; i++) {
		int k = (int)(c[i].user_data - 1000);

		assert_true(k >= 0 && k < N);
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].len, LEN);
		seen[k]++;
	}
	for (int i = 0; i < N; i++) {
		assert_int_equal(seen[i], 1);
		assert_pattern_at(d + (size_t)(N - 1 - i) * LEN, LEN, 9, (uint64_t)i * LEN);
	}
	fdma_close(dev);
}

static void test_wait_modes(void **state)
{
	enum { N = 8, LEN = 65536 };
	struct fdma_dev *dev = sim_open("sim:memcpy=1");
	static const enum fdma_wait_mode modes[] = { FDMA_WAIT_SPIN, FDMA_WAIT_SLEEP,
						     FDMA_WAIT_ADAPTIVE };
	int ch = mem_chan(dev);
	int src = sim_buf(dev, N * LEN, 0), dst = sim_buf(dev, N * LEN, 0);
	struct fdma_copy cp[N];
	struct fdma_cpl c[N];

	(void)state;
	for (int m = 0; m < 4; m++) {
		uint64_t seed = 40 + (uint64_t)m;
		int got = 0;

		pattern_fill(fdma_buf_addr(dev, src), N * LEN, seed);
		memset(fdma_buf_addr(dev, dst), 0, N * LEN);
		for (int i = 0; i < N; i++)
			cp[i] = (struct fdma_copy){ .src_buf = src, .dst_buf = dst,
						    .src_offset = (uint64_t)i * LEN,
						    .dst_offset = (uint64_t)i * LEN, .len = LEN,
						    .user_data = (uint64_t)i };
		if (m < 3)
			assert_fdma_ok(dev, fdma_chan_set_wait(dev, ch, modes[m], 20));
		assert_fdma_err(dev, fdma_submit_copy(dev, ch, cp, N), N, NULL);
		if (m < 3) {
			sim_reap_n(dev, ch, c, N);
		} else {
			/* The pollable fd: wake on it, reap without waiting. */
			struct pollfd pfd = { .fd = fdma_chan_fd(dev, ch), .events = POLLIN };

			assert_true(pfd.fd >= 0);
			while (got < N) {
				int r;

				assert_true(poll(&pfd, 1, 5000) > 0);
				r = fdma_reap(dev, ch, c + got, N - got, 0, 0);
				assert_true(r >= 0);
				got += r;
			}
		}
		for (int i = 0; i < N; i++)
			assert_int_equal(c[i].res, 0);
		assert_pattern(fdma_buf_addr(dev, dst), N * LEN, seed);
	}
	fdma_close(dev);
}

/* Every bad argument is refused with a message naming it, and nothing is queued. */
static void test_errors(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1");
	int ch = mem_chan(dev), a = sim_buf(dev, 65536, 0), b = sim_buf(dev, 65536, 0);
	int mm;
	struct fdma_copy ok = { .src_buf = a, .dst_buf = b, .len = 4096 }, cp;
	struct fdma_copy many[4];
	struct fdma_req r = { .buf = a, .len = 4096 };

	(void)state;
#define BAD(field, val, err, word)						\
	do {									\
		cp = ok;							\
		cp.field = (val);						\
		assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), err, word); \
	} while (0)
	BAD(src_buf, 999, -EBADF, "source buffer");
	BAD(dst_buf, -1, -EBADF, "destination buffer");
	BAD(src_offset, 65536 - 2048, -ERANGE, "source offset");
	BAD(dst_offset, 1ull << 60, -ERANGE, "destination offset");
	BAD(len, 65536 + 64, -ERANGE, "beyond");
	BAD(len, 0, -EINVAL, "zero");
	BAD(len, 100, -EINVAL, "align");
	BAD(src_offset, 32, -EINVAL, "align");
	BAD(dst_offset, 32, -EINVAL, "destination address");
	BAD(flags, FDMA_REQ_SOF, -EINVAL, "flags");
	BAD(rsvd, 1, -EINVAL, "rsvd");
#undef BAD
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, NULL, 1), -EINVAL, "NULL");
	assert_fdma_err(dev, fdma_submit_copy(dev, 99, &ok, 1), -EINVAL, "no channel");
	/* The wrong call for the channel, both ways. */
	assert_fdma_err(dev, fdma_submit(dev, ch, &r, 1), -EINVAL, "fdma_submit_copy");
	/* A device with copy channels only (FDMA_TEST_DEVICE: dmaengine) has none. */
	mm = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	if (mm >= 0)
		assert_fdma_err(dev, fdma_submit_copy(dev, mm, &ok, 1), -EINVAL,
				"not memory-to-memory");
	/* All or nothing: a bad last request queues none. */
	for (int i = 0; i < 4; i++)
		many[i] = ok;
	many[3].len = 1;
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, many, 4), -EINVAL, "request 3");
	assert_int_equal(fdma_inflight(dev, ch), 0);
	/* Zero copies: nothing happens. */
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &ok, 0), 0, NULL);
	/* The channel still works. */
	pattern_fill(fdma_buf_addr(dev, a), 4096, 3);
	copy1(dev, ch, a, 0, b, 0, 4096, 3);
	assert_pattern(fdma_buf_addr(dev, b), 4096, 3);
	fdma_close(dev);
}

/* More copies than the ring holds: E2BIG, never EAGAIN; then they fit when split. */
static void test_e2big(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1,ring=16");
	int ch = mem_chan(dev), a = sim_buf(dev, 17 * 4096, 0), b = sim_buf(dev, 17 * 4096, 0);
	struct fdma_copy many[17];
	struct fdma_cpl c[17];

	(void)state;
	pattern_fill(fdma_buf_addr(dev, a), 17 * 4096, 61);
	for (int i = 0; i < 17; i++)
		many[i] = (struct fdma_copy){ .src_buf = a, .dst_buf = b,
					      .src_offset = (uint64_t)i * 4096,
					      .dst_offset = (uint64_t)i * 4096, .len = 4096 };
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, many, 17), -E2BIG, "split it");
	assert_int_equal(fdma_inflight(dev, ch), 0);
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, many, 16), 16, NULL);
	sim_reap_n(dev, ch, c, 16);
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, many + 16, 1), 1, NULL);
	sim_reap_n(dev, ch, c, 1);
	assert_pattern(fdma_buf_addr(dev, b), 17 * 4096, 61);
	fdma_close(dev);
}

/* Neither buffer can be freed while a copy between them is in flight. */
static void test_buffers_held(void **state)
{
	const uint64_t len = 32ull << 20;
	struct fdma_dev *dev = sim_open("sim:gen=1,lanes=1,memcpy=1");
	int ch = mem_chan(dev), a = sim_buf(dev, len, 0), b = sim_buf(dev, len, 0);
	struct fdma_copy cp = { .src_buf = a, .dst_buf = b, .len = len, .user_data = 1 };
	struct fdma_cpl c;

	(void)state;
	pattern_fill(fdma_buf_addr(dev, a), len, 11);
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), 1, NULL);
	/* ~150 ms on a gen1 x1 link: the frees come long before the end. */
	assert_fdma_err(dev, fdma_buf_free(dev, b), -EBUSY, "in flight");
	assert_fdma_err(dev, fdma_buf_free(dev, a), -EBUSY, "in flight");
	sim_reap_n(dev, ch, &c, 1);
	assert_int_equal(c.res, 0);
	assert_pattern(fdma_buf_addr(dev, b), len, 11);
	assert_fdma_ok(dev, fdma_buf_free(dev, a));
	assert_fdma_ok(dev, fdma_buf_free(dev, b));
	fdma_close(dev);
}

/* Poisoned data on a copy: that copy fails with -EIO, the channel recovers. */
static void test_data_error(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1,fault=data@2");
	int ch = mem_chan(dev), a = sim_buf(dev, 3 * 8192, 0), b = sim_buf(dev, 3 * 8192, 0);
	uint8_t *d = fdma_buf_addr(dev, b);
	struct fdma_copy cp[2];
	struct fdma_cpl c[2];

	(void)state;
	pattern_fill(fdma_buf_addr(dev, a), 3 * 8192, 21);
	memset(d, 0, 3 * 8192);
	for (int i = 0; i < 2; i++)
		cp[i] = (struct fdma_copy){ .src_buf = a, .dst_buf = b,
					    .src_offset = (uint64_t)i * 8192,
					    .dst_offset = (uint64_t)i * 8192, .len = 8192,
					    .user_data = (uint64_t)i };
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, cp, 2), 2, NULL);
	sim_reap_n(dev, ch, c, 2);
	assert_int_equal(c[0].user_data, 0);
	assert_int_equal(c[0].res, 0);
	assert_pattern(d, 8192, 21);
	assert_int_equal(c[1].user_data, 1);
	assert_int_equal(c[1].res, -EIO);
	assert_int_equal(c[1].status, FDMA_ST_DATA_ERR);
	copy1(dev, ch, a, 2 * 8192, b, 2 * 8192, 8192, 2);
	assert_pattern_at(d + 2 * 8192, 8192, 21, 2 * 8192);
	fdma_close(dev);
}

/*
 * A memory-to-memory channel run without CH_CTRL.M2M (as a 1.1 host, which
 * takes it for H2C memory-mapped, would run it) writes nothing: its first
 * descriptor halts it with DESC_ERR. The library's reset starts it again
 * with the bit, and copies work.
 */
static void test_m2m_guard(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,memcpy=1");
	int ch = mem_chan(dev), a = sim_buf(dev, 8192, 0), b = sim_buf(dev, 8192, 0);
	uint64_t ctrl_off = 0x100 + (uint64_t)ch * 0x80 + 0x04;	/* CH_CTRL */
	struct fdma_copy cp = { .src_buf = a, .dst_buf = b, .len = 8192, .user_data = 7 };
	struct fdma_cpl c;
	uint32_t ctrl;

	(void)state;
	sim_require_model("a register write that breaks the driver's channel set-up");
	pattern_fill(fdma_buf_addr(dev, a), 8192, 51);
	memset(fdma_buf_addr(dev, b), 0x5a, 8192);
	/*
	 * Spin: the library then never writes CH_CTRL itself (sleeping sets
	 * IRQ_EN, rewriting the register from its shadow, M2M included).
	 */
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, ch, FDMA_WAIT_SPIN, 0));
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, ctrl_off, &ctrl));
	assert_int_equal(ctrl & 0x9, 0x9);	/* RUN and M2M */
	assert_fdma_ok(dev, fdma_reg_write(dev, 0, ctrl_off, ctrl & ~0x8u, FDMA_REG_FORCE));
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), 1, NULL);
	sim_reap_n(dev, ch, &c, 1);
	assert_int_equal(c.res, -EIO);
	assert_int_equal(c.status, FDMA_ST_DESC_ERR);
	assert_bytes(fdma_buf_addr(dev, b), 8192, 0x5a);
	copy1(dev, ch, a, 0, b, 0, 8192, 8);
	assert_pattern(fdma_buf_addr(dev, b), 8192, 51);
	fdma_close(dev);
}

/*
 * A copy crosses the link twice: alone it takes at least its length over
 * the slower direction's ceiling, and beside a C2H transfer it shares the
 * upstream direction, so the two together take at least their summed
 * length over the write ceiling. Lower bounds only: a busy machine can only
 * make the model later.
 */
static void test_paced_both_ways(void **state)
{
	const uint64_t len = 4ull << 20;
	struct fdma_dev *dev = sim_open("sim:gen=1,lanes=1,memcpy=1,channels=1,mem=16M");
	int ch = mem_chan(dev), c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	int a = sim_buf(dev, len, 0), b = sim_buf(dev, len, 0), h = sim_buf(dev, len, 0);
	struct fdma_copy cp = { .src_buf = a, .dst_buf = b, .len = len };
	struct fdma_req r = { .buf = h, .card_addr = 0, .len = len };
	struct fdma_cpl c;
	double rd, wr, alone_us, both_us;
	int64_t t0;

	(void)state;
	sim_require_model("the link model's pacing of a copy");
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_H2C, len, &rd));
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_C2H, len, &wr));
	pattern_fill(fdma_buf_addr(dev, a), len, 31);

	t0 = sim_now_us();
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), 1, NULL);
	sim_reap_n(dev, ch, &c, 1);
	alone_us = (double)(sim_now_us() - t0);
	assert_pattern(fdma_buf_addr(dev, b), len, 31);
	/* MB/s is bytes per microsecond. */
	assert_true(alone_us >= 0.95 * (double)len / (rd < wr ? rd : wr));

	memset(fdma_buf_addr(dev, b), 0, len);
	t0 = sim_now_us();
	assert_fdma_err(dev, fdma_submit_copy(dev, ch, &cp, 1), 1, NULL);
	assert_fdma_err(dev, fdma_submit(dev, c2h, &r, 1), 1, NULL);
	sim_reap_n(dev, ch, &c, 1);
	sim_reap_n(dev, c2h, &c, 1);
	both_us = (double)(sim_now_us() - t0);
	assert_pattern(fdma_buf_addr(dev, b), len, 31);
	print_message("copy of %llu B alone %.0f us, beside a C2H transfer %.0f us (ceilings: read %.1f, write %.1f MB/s)\n",
		      (unsigned long long)len, alone_us, both_us, rd, wr);
	assert_true(both_us >= 0.95 * (double)(2 * len) / wr);
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info_and_find),
		cmocka_unit_test(test_sizes_and_offsets),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_same_buffer),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_wait_modes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_e2big),
		cmocka_unit_test(test_buffers_held),
		cmocka_unit_test(test_data_error),
		cmocka_unit_test(test_m2m_guard),
		cmocka_unit_test(test_paced_both_ways),
	};

	return T_RUN(tests);
}
