// SPDX-License-Identifier: MIT
/*
 * Byte streams and the loopback wire (engine 1.3 STREAM_BYTES; sim:
 * options loop=1 and streams=N). Frames of any length, sent from any
 * address in pieces of any length, leave an H2C stream channel and arrive
 * whole and in order, byte for byte, on the C2H stream channel at the
 * wire's other end: pair k's on pair k ^ 1's. A receiver without buffers
 * drops whole frames (DROP) or holds the sender back; a frame too large
 * for the wire halts its channel; a frame cut short by a reset is lost,
 * never delivered in part. An engine without STREAM_BYTES keeps the
 * alignment rule; one with H2C_BYTES alone keeps it for C2H buffers.
 *
 * On the XDMA model (FDMA_TEST_SIM=engine=xdma) the same, with what PG195
 * gives XDMA's AXI-ST: C2H buffers of 64-byte multiples (any address),
 * and no DROP: the engine holds the source back.
 */
#include <string.h>

#include "sim_util.h"

/* The library delivers a frame in one buffer: room for the longest here. */
#define BUFSZ (128u << 10)

/* Stream pair k's channels: the k-th C2H and the k-th H2C stream channel. */
static void find_pair(struct fdma_dev *dev, unsigned int k, int *rx, int *tx)
{
	struct fdma_info info;
	unsigned int nrx = 0, ntx = 0;

	*rx = *tx = -1;
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	for (unsigned int i = 0; i < info.nchan; i++) {
		if (info.chan[i].kind != FDMA_KIND_STREAM)
			continue;
		assert_int_equal(info.chan[i].testgen, 0);
		if (info.chan[i].dir == FDMA_C2H && nrx++ == k)
			*rx = (int)i;
		if (info.chan[i].dir == FDMA_H2C && ntx++ == k)
			*tx = (int)i;
	}
	assert_true(*rx >= 0 && *tx >= 0);
}

static bool on_xdma(struct fdma_dev *dev)
{
	struct fdma_info info;

	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	return !strcmp(info.engine, "xdma");
}

/* Queue one frame: len bytes at buffer offset off, in npieces about equal pieces. */
static void queue_frame(struct fdma_dev *dev, int tx, int buf, uint64_t off, uint32_t len,
			unsigned int npieces, uint64_t tag)
{
	struct fdma_req r[4];

	assert_true(npieces >= 1 && npieces <= 4 && len >= npieces);
	for (unsigned int i = 0; i < npieces; i++) {
		uint32_t a = (uint32_t)((uint64_t)len * i / npieces);
		uint32_t b = (uint32_t)((uint64_t)len * (i + 1) / npieces);

		r[i] = (struct fdma_req){ .buf = buf, .offset = off + a, .len = b - a,
			.user_data = tag << 8 | i,
			.flags = (i == 0 ? FDMA_REQ_SOF : 0) | (i == npieces - 1 ? FDMA_REQ_EOF : 0) };
	}
	assert_fdma_err(dev, fdma_submit(dev, tx, r, npieces), (int)npieces, NULL);
}

/* Send one frame and reap its pieces' completions: all good, all bytes. */
static void send_frame(struct fdma_dev *dev, int tx, int buf, uint64_t off, uint32_t len,
		       unsigned int npieces)
{
	struct fdma_cpl c[4];
	uint64_t sum = 0;

	queue_frame(dev, tx, buf, off, len, npieces, 0);
	sim_reap_n(dev, tx, c, npieces);
	for (unsigned int i = 0; i < npieces; i++) {
		assert_int_equal(c[i].res, 0);
		sum += c[i].len;
	}
	assert_int_equal(sum, len);
}

/*
 * Receive one frame of len bytes holding seed's pattern: SOF on its first
 * buffer, EOF on its last, every byte; returns the first buffer's flags.
 */
static uint32_t recv_frame(struct fdma_dev *dev, struct fdma_stream *s, uint32_t len,
			   uint64_t seed)
{
	uint32_t got = 0, first_flags = 0;

	while (got < len) {
		struct fdma_frame f;

		assert_fdma_ok(dev, fdma_stream_get(s, &f, SIM_TIMEOUT_US));
		if (!got)
			first_flags = f.flags;
		assert_int_equal(!!(f.flags & FDMA_CPL_SOF), got == 0);
		assert_true(f.len <= len - got);
		assert_pattern_at(f.data, f.len, seed, got);
		got += (uint32_t)f.len;
		assert_int_equal(!!(f.flags & FDMA_CPL_EOF), got == len);
		assert_fdma_ok(dev, fdma_stream_release(s, &f));
	}
	return first_flags;
}

/*
 * Frames of the given lengths looped back byte for byte, each from its own
 * odd offset in buf (never aligned twice the same way) in 1 to 3 pieces,
 * frame i holding pattern seed + i.
 */
static void loop_lengths(struct fdma_dev *dev, int tx, struct fdma_stream *s, int buf,
			 const uint32_t *lens, unsigned int n, uint64_t seed)
{
	for (unsigned int i = 0; i < n; i++) {
		uint64_t off = 1 + 13 * i;
		unsigned int npieces = lens[i] >= 3 ? 1 + i % 3 : 1;

		pattern_fill((uint8_t *)fdma_buf_addr(dev, buf) + off, lens[i], seed + i);
		send_frame(dev, tx, buf, off, lens[i], npieces);
		recv_frame(dev, s, lens[i], seed + i);
	}
}

/* Lengths around every boundary, from odd addresses, in 1 to 3 pieces. */
static void test_any_length(void **state)
{
	static const uint32_t lens[] = { 1, 2, 7, 63, 64, 65, 127, 1499, 1500, 1514, 9000,
					 65536, 65537, BUFSZ };
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1");
	struct fdma_stream *s = NULL;
	int rx, tx, buf;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	assert_int_equal(fdma_chan_align(dev, tx), 1);
	assert_int_equal(fdma_chan_align(dev, rx), on_xdma(dev) ? 64 : 1);
	buf = sim_buf(dev, BUFSZ + 256, 0);
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 8, BUFSZ, &s));
	loop_lengths(dev, tx, s, buf, lens, sizeof(lens) / sizeof(lens[0]), 100);
	fdma_stream_close(s);
	fdma_close(dev);
}

/*
 * A frame longer than a receive buffer fills several, in order (SOF on
 * the first, EOF on the last, the rest in the last); buffers of odd sizes
 * (XDMA: the next multiple of 64) at odd addresses, posted straight on
 * the channel.
 */
static void test_spanning(void **state)
{
	const uint32_t len = 4500;
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1");
	struct fdma_req r[5];
	struct fdma_cpl c[5];
	int rx, tx, txbuf, rxbuf;
	uint32_t piece;
	uint8_t *p;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	piece = on_xdma(dev) ? 1024 : 1001;
	assert_int_equal(piece % (uint32_t)fdma_chan_align(dev, rx), 0);
	txbuf = sim_buf(dev, 8192, 0);
	rxbuf = sim_buf(dev, 8192, 0);
	p = fdma_buf_addr(dev, rxbuf);
	if (on_xdma(dev)) {
		/* Any address, but not any length: PG195's C2H descriptors are 64-byte multiples. */
		r[0] = (struct fdma_req){ .buf = rxbuf, .offset = 3, .len = 1001 };
		assert_fdma_err(dev, fdma_submit(dev, rx, r, 1), -EINVAL, "alignment");
	}
	memset(p, 0xee, 8192);
	pattern_fill((uint8_t *)fdma_buf_addr(dev, txbuf) + 5, len, 21);
	for (int i = 0; i < 5; i++)
		r[i] = (struct fdma_req){ .buf = rxbuf, .offset = 3 + (uint64_t)i * (piece + 2),
					  .len = piece, .user_data = (uint64_t)i };
	assert_fdma_err(dev, fdma_submit(dev, rx, r, 5), 5, NULL);
	send_frame(dev, tx, txbuf, 5, len, 2);
	sim_reap_n(dev, rx, c, 5);
	for (uint32_t i = 0, got = 0; i < 5; i++) {
		uint32_t want = len - got < piece ? len - got : piece;

		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].user_data, i);
		assert_int_equal(c[i].len, want);
		assert_int_equal(!!(c[i].flags & FDMA_CPL_SOF), i == 0);
		assert_int_equal(!!(c[i].flags & FDMA_CPL_EOF), i == 4);
		assert_pattern_at(p + r[i].offset, want, 21, got);
		/* Nothing beyond the frame's bytes, nothing between the buffers. */
		assert_bytes(p + r[i].offset + want, piece + 2 - want, 0xee);
		got += want;
	}
	assert_bytes(p, 3, 0xee);
	fdma_close(dev);
}

/* Two pairs crossed: A's frames arrive at B and B's at A, none astray. */
static void test_crossed(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1,streams=2");
	struct fdma_stream *s[2] = { NULL, NULL };
	int rx[2], tx[2], buf;
	uint8_t *p;

	(void)state;
	find_pair(dev, 0, &rx[0], &tx[0]);
	find_pair(dev, 1, &rx[1], &tx[1]);
	buf = sim_buf(dev, 2 * 4096, 0);
	p = fdma_buf_addr(dev, buf);
	pattern_fill(p, 1000, 1);
	pattern_fill(p + 4096, 777, 2);
	for (int k = 0; k < 2; k++)
		assert_fdma_ok(dev, fdma_stream_open(dev, rx[k], 4, BUFSZ, &s[k]));
	for (int round = 0; round < 3; round++) {
		send_frame(dev, tx[0], buf, 0, 1000, 2);
		send_frame(dev, tx[1], buf, 4096, 777, 3);
		recv_frame(dev, s[1], 1000, 1);
		recv_frame(dev, s[0], 777, 2);
	}
	for (int k = 0; k < 2; k++)
		fdma_stream_close(s[k]);
	fdma_close(dev);
}

/*
 * No buffer armed when a frame arrives. DROP: the frame is lost whole,
 * counted, and the next delivered one carries the OVERRUN flag. Held: the
 * wire keeps what it can (4 MiB) and the sender waits for the rest.
 */
static void test_drop_and_hold(void **state)
{
	const uint32_t len = 65536;
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1");
	struct fdma_stream *s = NULL;
	struct fdma_frame held[2];
	struct fdma_cpl c[80];
	int rx, tx, buf, got;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	buf = sim_buf(dev, len, 0);
	pattern_fill(fdma_buf_addr(dev, buf), len, 7);

	/* XDMA drops nothing: said, and the hold half below is its behaviour. */
	if (on_xdma(dev)) {
		assert_fdma_err(dev, fdma_chan_set_drop(dev, rx, 1), -EOPNOTSUPP, "holds");
		goto hold;
	}
	/* Drop: two buffers of a frame each, both held; three frames lost. */
	assert_fdma_ok(dev, fdma_chan_set_drop(dev, rx, 1));
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 2, len, &s));
	for (int i = 0; i < 5; i++)
		send_frame(dev, tx, buf, 0, len, 1);
	for (int i = 0; i < 2; i++) {
		assert_fdma_ok(dev, fdma_stream_get(s, &held[i], SIM_TIMEOUT_US));
		assert_int_equal(held[i].len, len);
		assert_pattern(held[i].data, len, 7);
	}
	/* The model drops as the frames come: all five are sent, so all three are gone. */
	for (int i = 0; i < 100 && fdma_stream_drops(s) < 3; i++)
		sim_sleep_us(1000);
	assert_int_equal(fdma_stream_drops(s), 3);
	for (int i = 0; i < 2; i++)
		assert_fdma_ok(dev, fdma_stream_release(s, &held[i]));
	send_frame(dev, tx, buf, 0, len, 1);
	assert_true(recv_frame(dev, s, len, 7) & FDMA_CPL_OVERRUN);
	fdma_stream_close(s);

	/* Held: 80 frames of 64 KiB, more than the wire and the two buffers take. */
hold:
	assert_fdma_ok(dev, fdma_chan_set_drop(dev, rx, 0));
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 2, len, &s));
	for (int i = 0; i < 80; i++)
		queue_frame(dev, tx, buf, 0, len, 1, (uint64_t)i);
	got = fdma_reap(dev, tx, c, 80, 80, 300000);
	/* 64 frames fill the wire, 2 more the buffers: the rest must wait. */
	assert_true(got >= 0 && got <= 66);
	for (int i = 0; i < 80; i++)
		recv_frame(dev, s, len, 7);
	sim_reap_n(dev, tx, c + got, (unsigned int)(80 - got));
	for (int i = 0; i < 80; i++)
		assert_int_equal(c[i].res, 0);
	assert_int_equal(fdma_stream_drops(s), 0);
	fdma_stream_close(s);
	fdma_close(dev);
}

/* A frame larger than the whole wire could never go: the sender halts, LEN_ERR. */
static void test_frame_too_big(void **state)
{
	const uint32_t len = 5u << 20;
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1");
	struct fdma_cpl c;
	int rx, tx, buf;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	buf = sim_buf(dev, len, 0);
	queue_frame(dev, tx, buf, 0, len, 1, 0);
	sim_reap_n(dev, tx, &c, 1);
	assert_int_equal(c.status, FDMA_ST_LEN_ERR);
	assert_int_equal(c.res, -EINVAL);
	fdma_close(dev);
}

/* A frame cut short by the sender's reset never arrives; the next one does, whole. */
static void test_reset_midframe(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1");
	struct fdma_stream *s = NULL;
	struct fdma_req r = { .len = 500, .flags = FDMA_REQ_SOF };
	struct fdma_frame f;
	struct fdma_cpl c;
	int rx, tx, buf;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	buf = sim_buf(dev, 4096, 0);
	r.buf = buf;
	pattern_fill(fdma_buf_addr(dev, buf), 4096, 9);
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 4, BUFSZ, &s));
	assert_fdma_err(dev, fdma_submit(dev, tx, &r, 1), 1, NULL);
	sim_reap_n(dev, tx, &c, 1);
	assert_int_equal(c.res, 0);
	assert_fdma_ok(dev, fdma_chan_reset(dev, tx));
	assert_fdma_err(dev, fdma_stream_get(s, &f, 100000), -ETIMEDOUT, NULL);
	send_frame(dev, tx, buf, 0, 3000, 3);
	recv_frame(dev, s, 3000, 9);
	fdma_stream_close(s);
	fdma_close(dev);
}

/*
 * wire=100: a 100 Mbit/s wire carries 300 frames of 1000 bytes (1024 with
 * Ethernet's overhead) in no less than 24.6 ms, every byte intact. A
 * lower bound only: a slow machine may take longer.
 */
static void test_wire_rate(void **state)
{
	const uint32_t len = 1000, n = 300;
	struct fdma_dev *dev = sim_open("sim:loop=1,wire=100");
	struct fdma_stream *s = NULL;
	struct fdma_cpl c[16];
	int rx, tx, buf;
	int64_t t0, us;
	uint32_t sent = 0, got = 0, reaped = 0;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	buf = sim_buf(dev, len, 0);
	pattern_fill(fdma_buf_addr(dev, buf), len, 13);
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 64, 4096, &s));
	t0 = sim_now_us();
	while (got < n) {
		struct fdma_frame f;

		/* Keep 16 frames queued; take what arrived. */
		while (sent < n && sent - reaped < 16)
			queue_frame(dev, tx, buf, 0, len, 1, sent++);
		if (fdma_inflight(dev, tx) > 0) {
			int k = fdma_reap(dev, tx, c, 16, 0, 0);

			assert_true(k >= 0);
			for (int i = 0; i < k; i++)
				assert_int_equal(c[i].res, 0);
			reaped += (uint32_t)k;
		}
		if (fdma_stream_get(s, &f, 1000) == 0) {
			assert_int_equal(f.len, len);
			assert_pattern(f.data, len, 13);
			assert_fdma_ok(dev, fdma_stream_release(s, &f));
			got++;
		}
		assert_true(sim_now_us() - t0 < 30 * SIM_TIMEOUT_US);
	}
	us = sim_now_us() - t0;
	print_message("300 frames of 1000 bytes over a 100 Mbit/s wire: %.1f ms (%.1f Mbit/s of frames)\n",
		      us / 1e3, n * len * 8.0 / us);
	assert_true(us >= (int64_t)(n * (len + 24) * 8 / 100 * 95 / 100));
	fdma_stream_close(s);
	fdma_close(dev);
}

/*
 * Store and forward: a frame is on the wire once its last byte has crossed
 * the sending engine's link, and the receiving engine writes it from then
 * on, so a frame crosses the link twice, one after the other: 2 MiB at
 * gen1 x1 take about 20 ms. (The models' receiving end used to start when
 * its thread saw the frame, before the sender's link time was over: about
 * 13 ms.) A lower bound only, 10% under the link's time, which
 * fdma_ceiling() rounds a little differently from the model's pacing.
 */
static void test_store_and_forward(void **state)
{
	const uint32_t len = 2u << 20;
	struct fdma_dev *dev = sim_open("sim:loop=1,gen=1,lanes=1,mps=128");
	struct fdma_stream *s = NULL;
	struct fdma_cpl c;
	double h2c = 0, c2h = 0, min_us;
	int rx, tx, buf;
	int64_t t0, us;

	(void)state;
	sim_require_realtime(dev, "the link's pace");
	find_pair(dev, 0, &rx, &tx);
	buf = sim_buf(dev, len, 0);
	pattern_fill(fdma_buf_addr(dev, buf), len, 17);
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 2, len, &s));
	/* MB/s: bytes over MB/s are microseconds. */
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_H2C, len, &h2c));
	assert_fdma_ok(dev, fdma_ceiling(dev, FDMA_C2H, len, &c2h));
	assert_true(h2c > 0 && c2h > 0);
	min_us = (len / h2c + len / c2h) * 0.9;
	t0 = sim_now_us();
	queue_frame(dev, tx, buf, 0, len, 1, 0);
	recv_frame(dev, s, len, 17);
	us = sim_now_us() - t0;
	print_message("2 MiB frame out and back at gen1 x1: %.2f ms, the link's time twice %.2f ms\n",
		      us / 1e3, min_us / 0.9 / 1e3);
	if (us < min_us)
		fail_msg("took %lld us, crossing the link twice needs at least %.0f us",
			 (long long)us, min_us);
	sim_reap_n(dev, tx, &c, 1);
	assert_int_equal(c.res, 0);
	assert_int_equal(c.len, len);
	fdma_stream_close(s);
	fdma_close(dev);
}

/* bytes=0, an engine before 1.3: stream requests keep the alignment. */
static void test_aligned_engine(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1,bytes=0");
	struct fdma_stream *s = NULL;
	struct fdma_info info;
	struct fdma_req r = { .len = 65, .flags = FDMA_REQ_SOF | FDMA_REQ_EOF };
	int rx, tx, buf;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	assert_int_equal(fdma_chan_align(dev, tx), (int)info.align);
	if (info.align == 1) {
		/* XDMA's memory-mapped alignment, which bytes=0 streams keep: any byte. */
		fdma_close(dev);
		print_message("the device's alignment is 1: nothing for the streams to keep: skipped\n");
		t_skip();
	}
	buf = sim_buf(dev, 4096, 0);
	r.buf = buf;
	assert_fdma_err(dev, fdma_submit(dev, tx, &r, 1), -EINVAL, "alignment");
	r.offset = 1;
	r.len = 64;
	assert_fdma_err(dev, fdma_submit(dev, tx, &r, 1), -EINVAL, "alignment");
	pattern_fill(fdma_buf_addr(dev, buf), 4096, 11);
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 4, BUFSZ, &s));
	send_frame(dev, tx, buf, 0, 1024, 2);
	recv_frame(dev, s, 1024, 11);
	fdma_stream_close(s);
	fdma_close(dev);
}

/*
 * An engine with H2C byte streams alone (1.3 H2C_BYTES, as the RTL): frames
 * of any length leave from any address, and land in aligned C2H buffers,
 * whose offsets and lengths keep the alignment rule.
 */
static void test_h2c_bytes_engine(void **state)
{
	static const uint32_t lens[] = { 1, 65, 1001, 1500, 4097 };
	struct fdma_dev *dev = sim_open("sim:paced=0,loop=1,bytes=h2c");
	struct fdma_stream *s = NULL;
	struct fdma_info info;
	struct fdma_req r = { .offset = 64, .len = 65, .flags = FDMA_REQ_SOF | FDMA_REQ_EOF };
	int rx, tx, buf;

	(void)state;
	find_pair(dev, 0, &rx, &tx);
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	assert_int_equal(fdma_chan_align(dev, tx), 1);
	assert_int_equal(fdma_chan_align(dev, rx), (int)info.align);
	buf = sim_buf(dev, 16384, 0);
	r.buf = buf;
	assert_fdma_err(dev, fdma_submit(dev, rx, &r, 1), -EINVAL, "alignment");
	r.offset = 1;
	r.len = 1024;
	assert_fdma_err(dev, fdma_submit(dev, rx, &r, 1), -EINVAL, "alignment");
	assert_fdma_ok(dev, fdma_stream_open(dev, rx, 8, 8192, &s));
	loop_lengths(dev, tx, s, buf, lens, sizeof(lens) / sizeof(lens[0]), 300);
	fdma_stream_close(s);
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any_length),
		cmocka_unit_test(test_spanning),
		cmocka_unit_test(test_crossed),
		cmocka_unit_test(test_drop_and_hold),
		cmocka_unit_test(test_frame_too_big),
		cmocka_unit_test(test_reset_midframe),
		cmocka_unit_test(test_aligned_engine),
		cmocka_unit_test(test_h2c_bytes_engine),
		cmocka_unit_test(test_wire_rate),
		cmocka_unit_test(test_store_and_forward),
	};

	return T_RUN(tests);
}
