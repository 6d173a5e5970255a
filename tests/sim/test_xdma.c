// SPDX-License-Identifier: MIT
/*
 * What only the XDMA engine and its model do (the rest of the sim suite
 * runs on the XDMA model too: make check-tests, FDMA_TEST_SIM=engine=xdma):
 * the identity registers and their side effects as fdma_reg sees them,
 * descriptor chains across 4 KiB pages and the ring's wrap (the model
 * stops a channel whose adjacency promise is broken), completions from
 * registers instead of the write-back, emulated coalescing, the
 * magic-stopped fault, and stream packets spread over several buffers.
 */
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <zlib.h>

#include "sim_util.h"
#include "fdma_plat.h"
#include "fdma_regs.h"
#include "xdma_regs.h"

#define TIMEOUT_US (5 * 1000 * 1000)

static struct fdma_dev *open_xdma(const char *opts)
{
	char uri[256];

	if (sim_target()) {
		print_message("needs the simulated XDMA: skipped on %s\n", sim_target());
		t_skip();
	}
	snprintf(uri, sizeof(uri), "sim:engine=xdma,paced=0%s%s", *opts ? "," : "", opts);
	/* Not sim_open(): FDMA_TEST_SIM must not add its options to these. */
	{
		struct fdma_dev *dev = NULL;
		char err[256] = "";

		if (fdma_open(&dev, uri, err, sizeof(err)) < 0)
			fail_msg("fdma_open(%s): %s", uri, err);
		return dev;
	}
}

static void test_identity(void **state)
{
	struct fdma_dev *dev = open_xdma("");
	struct fdma_info in;
	uint32_t v = 0;
	int h2c_st, c2h_st;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	assert_string_equal(in.engine, "xdma");
	assert_int_equal(in.coal, FDMA_COAL_COUNT | FDMA_COAL_EMULATED);
	assert_int_equal(in.nchan, 4);
	/* Pairs, as on FDMA: H2C 0, C2H 0 (memory-mapped), H2C 1, C2H 1 (streams). */
	assert_int_equal(fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM), 0);
	assert_int_equal(fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM), 1);
	h2c_st = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_STREAM);
	c2h_st = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	assert_int_equal(h2c_st, 2);
	assert_int_equal(c2h_st, 3);
	assert_false(in.chan[c2h_st].overrun_flag);
	assert_true(in.chan[c2h_st].testgen);

	/* The identifiers PG195 gives each block. */
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_BLK_CFG, &v));
	assert_int_equal(XDMA_ID_SUBSYS(v), XDMA_ID_SUBSYS_VAL);
	assert_int_equal(XDMA_ID_TARGET(v), XDMA_TARGET_CFG);
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(1, 0), &v));
	assert_int_equal(v >> 16, 0x1fc1);
	assert_false(v & XDMA_ID_STREAM);
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(1, 1), &v));
	assert_true(v & XDMA_ID_STREAM);
	assert_int_equal(XDMA_ID_CHAN(v), 1);
	/* No third channel: reads as nothing. */
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(0, 2), &v));
	assert_int_equal(v, 0);
	/* The library's settings, as the engine holds them: poll-mode write-back on. */
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(0, 0) + XDMA_CH_CTRL, &v));
	assert_true(v & XDMA_CTRL_POLL_WB);
	assert_true(v & XDMA_CTRL_IE_STOPPED);
	/* MPS and MRRS of the link the model paces: 256 and 512. */
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_BLK_CFG + XDMA_CFG_MPS, &v));
	assert_int_equal(v, 1);
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_BLK_CFG + XDMA_CFG_MRRS, &v));
	assert_int_equal(v, 2);
	/* The user BAR: fdma's test block. */
	assert_fdma_ok(dev, fdma_reg_read(dev, 1, XDMA_TG_MAGIC, &v));
	assert_int_equal(v, XDMA_TG_MAGIC_VAL);

	/* A read that clears the status is a write in disguise: it needs FORCE. */
	assert_fdma_err(dev, fdma_reg_read(dev, 0, XDMA_CH(1, 0) + XDMA_CH_STATUS_RC, &v), -EPERM,
			"clears");
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(1, 0) + XDMA_CH_STATUS, &v));
	assert_fdma_err(dev, fdma_reg_write(dev, 0, XDMA_CH(0, 0) + XDMA_CH_IE, 0, 0), -EPERM,
			"FDMA_REG_FORCE");
	assert_fdma_err(dev, fdma_reg_read(dev, 2, 0, &v), -ENXIO, "BAR1");
	assert_fdma_err(dev, fdma_reg_read(dev, 0, 0x10000, &v), -ERANGE, "beyond");
	sim_roundtrip(dev, 0, 65536, 9);
	fdma_close(dev);
}

/*
 * Batches of 1 to 100 requests on a 256-entry ring: chains start
 * anywhere, wrap at the ring's end and cross 4 KiB pages of descriptors
 * (128 per page). The model follows the adjacency counts the host wrote
 * and stops the channel on a block that crosses a page or is not linked
 * in memory order, so every transfer completing whole proves them right.
 * wb selects the write-back or the completed-count register.
 */
static void chains_on(struct fdma_dev *dev, unsigned int maxn)
{
	const size_t sz = 4096;
	int src = sim_buf(dev, 100 * sz, 0), dst = sim_buf(dev, 100 * sz, 0);
	struct fdma_req r[100];
	struct fdma_cpl c[100];
	struct fdma_chan_stats a, b;
	unsigned int batches = 0;
	uint64_t seed = 1;

	sim_stats(dev, 0, &a);
	for (unsigned int n = 1; n <= maxn; n += 7, batches++, seed++) {
		pattern_fill(fdma_buf_addr(dev, src), n * sz, seed);
		for (unsigned int i = 0; i < n; i++)
			r[i] = (struct fdma_req){ .buf = src, .offset = i * sz, .card_addr = i * sz,
						  .len = sz, .user_data = i };
		assert_fdma_err(dev, fdma_submit(dev, 0, r, n), n, NULL);
		sim_reap_n(dev, 0, c, n);
		for (unsigned int i = 0; i < n; i++) {
			assert_int_equal(c[i].res, 0);
			assert_int_equal(c[i].user_data, i);
		}
		memset(fdma_buf_addr(dev, dst), 0, n * sz);
		for (unsigned int i = 0; i < n; i++)
			r[i] = (struct fdma_req){ .buf = dst, .offset = i * sz, .card_addr = i * sz,
						  .len = sz, .user_data = 1000 + i };
		assert_fdma_err(dev, fdma_submit(dev, 1, r, n), n, NULL);
		sim_reap_n(dev, 1, c, n);
		for (unsigned int i = 0; i < n; i++)
			assert_int_equal(c[i].res, 0);
		assert_pattern(fdma_buf_addr(dev, dst), n * sz, seed);
	}
	sim_stats(dev, 0, &b);
	/* One chain start per batch at most (batches that queue join one chain). */
	assert_true(b.doorbells - a.doorbells <= batches);
	assert_int_equal(b.errors, a.errors);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
}

static void chains(const char *opts, unsigned int maxn)
{
	struct fdma_dev *dev = open_xdma(opts);

	chains_on(dev, maxn);
	fdma_close(dev);
}

static void test_chains_writeback(void **state)
{
	(void)state;
	chains("ring=256", 100);
}

/* 64 entries: the ring ends inside a page, so only the wrap bounds a block there. */
static void test_chains_small_ring(void **state)
{
	(void)state;
	chains("ring=64", 60);
}

static void test_chains_registers(void **state)
{
	(void)state;
	chains("ring=256,wb=0", 100);
}

/*
 * A batch while a chain runs waits for it and starts as the next chain:
 * submit batch after batch without reaping, then reap all, in order.
 */
static void test_queued_batches(void **state)
{
	struct fdma_dev *dev = open_xdma("ring=64");
	int src = sim_buf(dev, 48 * 4096, 0);
	struct fdma_req r[8];
	struct fdma_cpl c[48];

	(void)state;
	pattern_fill(fdma_buf_addr(dev, src), 48 * 4096, 5);
	for (unsigned int k = 0; k < 6; k++) {
		for (unsigned int i = 0; i < 8; i++)
			r[i] = (struct fdma_req){ .buf = src, .offset = (k * 8 + i) * 4096ull,
						  .card_addr = (k * 8 + i) * 4096ull, .len = 4096,
						  .user_data = k * 8 + i };
		assert_fdma_err(dev, fdma_submit(dev, 0, r, 8), 8, NULL);
	}
	sim_reap_n(dev, 0, c, 48);
	for (unsigned int i = 0; i < 48; i++) {
		assert_int_equal(c[i].user_data, i);
		assert_int_equal(c[i].res, 0);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	{
		int dst = sim_buf(dev, 48 * 4096, 0);

		assert_fdma_ok(dev, fdma_read_card(dev, dst, 0, 0, 48 * 4096));
		assert_pattern(fdma_buf_addr(dev, dst), 48 * 4096, 5);
		assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	}
	fdma_close(dev);
}

/*
 * An application's event loop on fdma_chan_fd(): poll the fd, reap what
 * is there without waiting (min_wait 0), submit the next request. With
 * busy_us the engine still reads BUSY after every chain's end, so a
 * request submitted right after the last completion cannot start at once,
 * and no reap of the library's looks again unasked: the engine must
 * interrupt once it can start it. Blocks written one request at a time,
 * read back the same way, every byte checked.
 */
static void fd_loop_one(struct fdma_dev *dev, int ch, int fd, const struct fdma_req *r)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct fdma_cpl c;
	int n;

	assert_fdma_err(dev, fdma_submit(dev, ch, r, 1), 1, NULL);
	for (;;) {
		n = fdma_reap(dev, ch, &c, 1, 0, 0);
		assert_fdma_ok(dev, n);
		if (n == 1)
			break;
		if (poll(&p, 1, (int)(TIMEOUT_US / 1000)) != 1)
			fail_msg("channel %d: request %llu: no event on fdma_chan_fd() in %d s", ch,
				 (unsigned long long)r->user_data, TIMEOUT_US / 1000000);
	}
	assert_int_equal(c.res, 0);
	assert_int_equal(c.len, r->len);
	assert_int_equal(c.user_data, r->user_data);
}

static void test_busy_after_chain(void **state)
{
	struct fdma_dev *dev = open_xdma("busy_us=2000");
	const unsigned int n = 12, sz = 8192;
	int src = sim_buf(dev, n * sz, 0), dst = sim_buf(dev, n * sz, 0);
	int fd[2];

	(void)state;
	for (int ch = 0; ch < 2; ch++) {
		fd[ch] = fdma_chan_fd(dev, ch);
		assert_fdma_ok(dev, fd[ch]);
	}
	pattern_fill(fdma_buf_addr(dev, src), n * sz, 11);
	memset(fdma_buf_addr(dev, dst), 0, n * sz);
	for (unsigned int i = 0; i < n; i++) {
		struct fdma_req r = { .buf = src, .offset = i * sz, .card_addr = i * sz, .len = sz,
				      .user_data = i };

		fd_loop_one(dev, 0, fd[0], &r);
	}
	for (unsigned int i = 0; i < n; i++) {
		struct fdma_req r = { .buf = dst, .offset = i * sz, .card_addr = i * sz, .len = sz,
				      .user_data = 100 + i };

		fd_loop_one(dev, 1, fd[1], &r);
	}
	assert_pattern(fdma_buf_addr(dev, dst), n * sz, 11);
	/* The same chains, batches and reaps that wait, as the library's own loop drives them. */
	chains_on(dev, 60);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/*
 * Coalescing by count, emulated: in sleep mode with coal=8, a batch of 64
 * interrupts at most once per 8 descriptors plus once at the chain's end
 * (fewer where the level is still high when the next one comes), and at
 * least once.
 */
static void test_coalesce_emulated(void **state)
{
	struct fdma_dev *dev = open_xdma("coal=8");
	int src = sim_buf(dev, 64 * 4096, 0);
	struct fdma_req r[64];
	struct fdma_cpl c[64];
	struct fdma_chan_stats a, b;

	(void)state;
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_SLEEP, 0));
	assert_fdma_err(dev, fdma_chan_set_coalesce(dev, 0, 8, 50), -EOPNOTSUPP, "no interrupt timer");
	pattern_fill(fdma_buf_addr(dev, src), 64 * 4096, 6);
	for (unsigned int i = 0; i < 64; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = i * 4096ull, .card_addr = i * 4096ull,
					  .len = 4096, .user_data = i };
	for (int round = 0; round < 4; round++) {
		sim_stats(dev, 0, &a);
		assert_fdma_err(dev, fdma_submit(dev, 0, r, 64), 64, NULL);
		sim_reap_n(dev, 0, c, 64);
		sim_stats(dev, 0, &b);
		assert_true(b.interrupts - a.interrupts >= 1);
		assert_true(b.interrupts - a.interrupts <= 64 / 8 + 1);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	fdma_close(dev);
}

/* A descriptor without its magic stops the channel; the request fails, the rest are canceled, and the channel works on. */
static void test_magic_fault(void **state)
{
	struct fdma_dev *dev = open_xdma("fault=magic@3");
	int src = sim_buf(dev, 5 * 4096, 0);
	struct fdma_req r[5];
	struct fdma_cpl c[5];
	struct fdma_chan_stats st;

	(void)state;
	pattern_fill(fdma_buf_addr(dev, src), 5 * 4096, 7);
	for (unsigned int i = 0; i < 5; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = i * 4096ull, .card_addr = i * 4096ull,
					  .len = 4096, .user_data = i };
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 5), 5, NULL);
	sim_reap_n(dev, 0, c, 5);
	assert_int_equal(c[0].res, 0);
	assert_int_equal(c[1].res, 0);
	assert_int_equal(c[2].status, FDMA_CPL_DESC_ERR);
	assert_int_equal(c[2].res, -EIO);
	assert_int_equal(c[3].res, -ECANCELED);
	assert_int_equal(c[4].res, -ECANCELED);
	sim_stats(dev, 0, &st);
	assert_int_equal(st.resets, 1);
	/* Recovered without reopening: the same requests go through now. */
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 5), 5, NULL);
	sim_reap_n(dev, 0, c, 5);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(c[i].res, 0);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	sim_roundtrip(dev, 0, 5 * 4096, 7);
	fdma_close(dev);
}

/*
 * A stream packet longer than one buffer spreads over several, as XDMA's
 * C2H streams do: the result records give each buffer's length and the
 * last one EOP, which the library turns into SOF and EOF.
 */
static void test_packet_over_buffers(void **state)
{
	struct fdma_dev *dev = open_xdma("");
	int ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	const uint32_t flen = 65536, blen = 16384;
	int buf = sim_buf(dev, 8 * blen, 0);
	struct fdma_req r[8];
	struct fdma_cpl c[8];
	uint8_t *p = fdma_buf_addr(dev, buf);
	const struct fdma_testgen_hdr *h;

	(void)state;
	memset(p, 0, 8 * blen);
	for (unsigned int i = 0; i < 8; i++)
		r[i] = (struct fdma_req){ .buf = buf, .offset = i * blen, .len = blen, .user_data = i };
	assert_fdma_err(dev, fdma_submit(dev, ch, r, 8), 8, NULL);
	assert_fdma_ok(dev, fdma_chan_set_testgen(dev, ch, flen, 0, 1));
	sim_reap_n(dev, ch, c, 8);
	assert_fdma_ok(dev, fdma_chan_set_testgen(dev, ch, flen, 0, 0));
	for (unsigned int i = 0; i < 8; i++) {
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].len, blen);
		assert_int_equal(!!(c[i].flags & FDMA_CPL_SOF), i % 4 == 0);
		assert_int_equal(!!(c[i].flags & FDMA_CPL_EOF), i % 4 == 3);
	}
	/* The two frames, each whole across its four buffers. */
	for (unsigned int k = 0; k < 2; k++) {
		const uint8_t *f = p + (size_t)k * flen;

		h = (const struct fdma_testgen_hdr *)f;
		assert_int_equal(h->magic, FDMA_TESTGEN_MAGIC);
		assert_int_equal(h->seq, k);
		assert_int_equal(h->len, flen);
		assert_int_equal(h->crc, (uint32_t)crc32(0, f + sizeof(*h), flen - sizeof(*h)));
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, buf));
	fdma_close(dev);
}

/*
 * The FPGA's own interrupts: an fd per user interrupt, readable when the
 * design raises it (the model's test block strobes it through the user
 * BAR), with the count since the last read; none before; out-of-range and
 * engine-less requests refused.
 */
static void test_user_irq(void **state)
{
	struct fdma_dev *dev = open_xdma("");
	struct fdma_info in;
	struct pollfd p;
	uint64_t n = 0;
	int fd;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	assert_int_equal(in.user_irqs, 16);
	fd = fdma_user_irq_fd(dev, 3);
	assert_fdma_ok(dev, fd);
	assert_int_equal(fdma_user_irq_fd(dev, 3), fd);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 50), 0);
	/* Interrupt 2 is nobody's here: nothing for 3. */
	assert_fdma_ok(dev, fdma_reg_write(dev, 1, XDMA_TG_USER_IRQ, 1u << 2, 0));
	assert_int_equal(poll(&p, 1, 50), 0);
	assert_fdma_ok(dev, fdma_reg_write(dev, 1, XDMA_TG_USER_IRQ, 1u << 3, 0));
	assert_fdma_ok(dev, fdma_reg_write(dev, 1, XDMA_TG_USER_IRQ, 1u << 3, 0));
	assert_int_equal(poll(&p, 1, 2000), 1);
	assert_int_equal(read(fd, &n, sizeof(n)), sizeof(n));
	assert_int_equal(n, 2);
	assert_int_equal(poll(&p, 1, 0), 0);
	assert_fdma_err(dev, fdma_user_irq_fd(dev, 16), -EINVAL, "no user interrupt 16");
	fdma_close(dev);
	/* The FDMA engine forwards none. */
	{
		struct fdma_dev *f = NULL;
		char err[256];

		assert_int_equal(fdma_open(&f, "sim:paced=0", err, sizeof(err)), 0);
		assert_fdma_err(f, fdma_user_irq_fd(f, 0), -EINVAL, "no user interrupts");
		fdma_close(f);
	}
}

/*
 * The memory-mapped channels take any address and length, as PG195 gives
 * AXI4-MM: their alignment registers read 0x00010140 (1-byte addresses,
 * 1-byte lengths, 64 address bits), as a card's do, and the device's
 * alignment is 1. A design built with a larger one (align=64) reports
 * it, 0x00404040, and the library keeps requests to it. (The transfers
 * themselves: test_transfer's test_odd_offsets on the XDMA pass.)
 */
static void test_mm_any_alignment(void **state)
{
	struct fdma_dev *dev = open_xdma("");
	struct fdma_info info;
	struct fdma_req r = { .offset = 3, .card_addr = 0x1003, .len = 4100 };
	uint32_t v = 0;
	int h2c, c2h;

	(void)state;
	h2c = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(0, 0) + XDMA_CH_ALIGN, &v));
	assert_int_equal(v, 0x00010140);
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(1, 0) + XDMA_CH_ALIGN, &v));
	assert_int_equal(v, 0x00010140);
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	assert_int_equal(info.align, 1);
	assert_int_equal(fdma_chan_align(dev, h2c), 1);
	assert_int_equal(fdma_chan_align(dev, c2h), 1);
	fdma_close(dev);

	dev = open_xdma("align=64");
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(0, 0) + XDMA_CH_ALIGN, &v));
	assert_int_equal(v, 0x00404040);
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	assert_int_equal(info.align, 64);
	r.buf = sim_buf(dev, 3 * 4096, 0);
	assert_fdma_err(dev, fdma_submit(dev, h2c, &r, 1), -EINVAL, "alignment");
	fdma_close(dev);
}

/* A performance monitor register of channel ch (fdma's numbering: H2C 0 is channel 0). */
static uint32_t pmon(struct fdma_dev *dev, uint32_t reg)
{
	uint32_t v = 0;

	assert_fdma_ok(dev, fdma_reg_read(dev, 0, XDMA_CH(0, 0) + reg, &v));
	return v;
}

/*
 * The performance monitor (PG195, 0xC0-0xD0 of each channel). Armed with
 * RUN and AUTO, it counts from the chain's RUN to its STOP descriptor and
 * then holds: clock cycles of the model's clock (62.5 MHz, a 64-bit
 * datapath at the gen2 x1 link) and data beats, the 64-bit words the
 * source spans (1 MiB from buffer offset 3: 131073). On the paced link a
 * 64-bit datapath moves at most a beat a cycle. CLEAR zeroes both and
 * reads back 0; disarmed, the counts hold.
 */
static void test_perf_monitor(void **state)
{
	struct fdma_dev *dev = NULL;
	char err[256] = "";
	struct fdma_req r = { .offset = 3, .card_addr = 0, .len = 1u << 20 };
	struct fdma_cpl c;
	uint64_t cyc, dat;

	(void)state;
	if (sim_target())
		t_skip();
	if (fdma_open(&dev, "sim:engine=xdma,paced=1", err, sizeof(err)) < 0)
		fail_msg("fdma_open: %s", err);
	/* Before anything is armed: nothing counted. */
	assert_int_equal(pmon(dev, XDMA_CH_PMON_CYC_LO), 0);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_DAT_LO), 0);
	assert_fdma_ok(dev, fdma_reg_write(dev, 0, XDMA_CH(0, 0) + XDMA_CH_PMON_CTRL,
					   XDMA_PMON_RUN | XDMA_PMON_AUTO, FDMA_REG_FORCE));
	assert_int_equal(pmon(dev, XDMA_CH_PMON_CTRL), XDMA_PMON_RUN | XDMA_PMON_AUTO);
	r.buf = sim_buf(dev, (1u << 20) + 4096, 0);
	pattern_fill((uint8_t *)fdma_buf_addr(dev, r.buf) + 3, r.len, 5);
	assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
	sim_reap_n(dev, 0, &c, 1);
	assert_int_equal(c.res, 0);
	dat = pmon(dev, XDMA_CH_PMON_DAT_LO) | (uint64_t)pmon(dev, XDMA_CH_PMON_DAT_HI) << 32;
	cyc = pmon(dev, XDMA_CH_PMON_CYC_LO) | (uint64_t)pmon(dev, XDMA_CH_PMON_CYC_HI) << 32;
	assert_int_equal(dat, ((1u << 20) + 3 + 7) / 8);
	assert_true(cyc >= dat);
	print_message("1 MiB H2C: %llu cycles, %llu data beats\n", (unsigned long long)cyc,
		      (unsigned long long)dat);
	/* AUTO: stopped at the STOP descriptor, the counts hold. */
	usleep(20000);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_CYC_LO), (uint32_t)cyc);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_DAT_LO), (uint32_t)dat);
	/* CLEAR is write-only: both counts 0, the control keeps RUN and AUTO. */
	assert_fdma_ok(dev, fdma_reg_write(dev, 0, XDMA_CH(0, 0) + XDMA_CH_PMON_CTRL,
					   XDMA_PMON_RUN | XDMA_PMON_AUTO | XDMA_PMON_CLEAR,
					   FDMA_REG_FORCE));
	assert_int_equal(pmon(dev, XDMA_CH_PMON_CTRL), XDMA_PMON_RUN | XDMA_PMON_AUTO);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_CYC_LO), 0);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_DAT_LO), 0);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_DAT_HI), 0);
	/* Disarmed: a transfer counts nothing. */
	assert_fdma_ok(dev, fdma_reg_write(dev, 0, XDMA_CH(0, 0) + XDMA_CH_PMON_CTRL, 0,
					   FDMA_REG_FORCE));
	assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
	sim_reap_n(dev, 0, &c, 1);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_DAT_LO), 0);
	assert_int_equal(pmon(dev, XDMA_CH_PMON_CYC_LO), 0);
	fdma_close(dev);
}

/*
 * Byte streams from the alignment registers (PG195: AXI-ST takes any
 * address and length; C2H descriptors in 64-byte multiples): the stream
 * channels' alignment is 1 for H2C and 64 for C2H, whose buffers may sit
 * at any offset. With bytes=0 the stream channels report the
 * memory-mapped alignment (here a design's 64) and keep it.
 */
static void test_byte_streams(void **state)
{
	struct fdma_dev *dev;
	struct fdma_info info;
	struct fdma_req r = { .len = 100, .flags = FDMA_REQ_SOF | FDMA_REQ_EOF };
	int h2c, c2h, mm, buf;

	(void)state;
	dev = open_xdma("streams=1");
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	h2c = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_STREAM);
	c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	mm = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	assert_true(h2c >= 0 && c2h >= 0 && mm >= 0);
	assert_int_equal(info.align, 1);
	assert_int_equal(fdma_chan_align(dev, mm), 1);
	assert_int_equal(fdma_chan_align(dev, h2c), 1);
	assert_int_equal(fdma_chan_align(dev, c2h), 64);
	buf = sim_buf(dev, 4096, 0);
	/* C2H: a 64-byte multiple at an odd offset goes; 100 bytes do not. */
	r.buf = buf;
	r.offset = 3;
	assert_fdma_err(dev, fdma_submit(dev, c2h, &r, 1), -EINVAL, "alignment");
	r.len = 128;
	r.flags = 0;
	assert_fdma_err(dev, fdma_submit(dev, c2h, &r, 1), 1, NULL);
	assert_fdma_ok(dev, fdma_chan_reset(dev, c2h));
	fdma_close(dev);

	dev = open_xdma("streams=1,bytes=0,align=64");
	h2c = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_STREAM);
	c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	assert_int_equal(fdma_chan_align(dev, h2c), 64);
	assert_int_equal(fdma_chan_align(dev, c2h), 64);
	buf = sim_buf(dev, 4096, 0);
	r = (struct fdma_req){ .buf = buf, .offset = 3, .len = 128 };
	assert_fdma_err(dev, fdma_submit(dev, c2h, &r, 1), -EINVAL, "alignment");
	fdma_close(dev);
}

/* An XDMA has at most 4 channels a direction and no memcpy channels: said at open. */
static void test_bad_config(void **state)
{
	struct fdma_dev *dev = NULL;
	char err[256] = "";

	(void)state;
	if (sim_target())
		t_skip();
	assert_int_equal(fdma_open(&dev, "sim:engine=xdma,channels=4", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at most 4 channels per direction"));
	assert_int_equal(fdma_open(&dev, "sim:engine=xdma,channels=2,streams=3", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "at most 4 channels per direction"));
	assert_int_equal(fdma_open(&dev, "sim:engine=xdma,memcpy=1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no memcpy"));
	assert_int_equal(fdma_open(&dev, "sim:engine=qdma", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "fdma or xdma"));
	/* BUSY after a chain's end is the XDMA model's, and stays below the reset timeouts. */
	assert_int_equal(fdma_open(&dev, "sim:busy_us=10", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs engine=xdma"));
	assert_int_equal(fdma_open(&dev, "sim:engine=xdma,busy_us=100001", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "option 'busy_us'"));
	/* A design's alignment: a power of 2, and the XDMA model's. */
	assert_int_equal(fdma_open(&dev, "sim:engine=xdma,align=48", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "option 'align'"));
	assert_int_equal(fdma_open(&dev, "sim:engine=xdma,align=8192", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "option 'align'"));
	assert_int_equal(fdma_open(&dev, "sim:align=64", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs engine=xdma"));
	assert_null(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_chains_writeback),
		cmocka_unit_test(test_chains_small_ring),
		cmocka_unit_test(test_chains_registers),
		cmocka_unit_test(test_queued_batches),
		cmocka_unit_test(test_busy_after_chain),
		cmocka_unit_test(test_coalesce_emulated),
		cmocka_unit_test(test_magic_fault),
		cmocka_unit_test(test_packet_over_buffers),
		cmocka_unit_test(test_user_irq),
		cmocka_unit_test(test_mm_any_alignment),
		cmocka_unit_test(test_perf_monitor),
		cmocka_unit_test(test_byte_streams),
		cmocka_unit_test(test_bad_config),
	};

	return T_RUN(tests);
}
