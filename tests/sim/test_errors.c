// SPDX-License-Identifier: MIT
/*
 * Bad input: every call fails with a negative errno and a message naming
 * the problem (checked by a key word), queues nothing, and leaves the
 * device working (a checked round trip follows). Bad URIs, misaligned,
 * empty and oversized requests, unknown and busy buffer handles, double
 * frees, bad channels, a full ring (all or nothing), calls on a closed
 * device and NULL arguments.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_util.h"

#define MEM (64ull << 20)

static void check_open_fails(const char *uri, int want, const char *word)
{
	struct fdma_dev *dev = (struct fdma_dev *)&want;	/* must be reset to NULL */
	char err[256];
	int ret;

	memset(err, 'x', sizeof(err));
	err[sizeof(err) - 1] = 0;
	ret = fdma_open(&dev, uri, err, sizeof(err));
	if (ret != want || dev != NULL || !strstr(err, word) || strlen(err) >= sizeof(err) - 1)
		fail_msg("fdma_open(\"%s\") = %d (expected %d), dev %p, message \"%s\" (expected to mention \"%s\")",
			 uri, ret, want, (void *)dev, err, word);
}

static void test_bad_uris(void **state)
{
	static const struct { const char *uri, *word; } bad[] = {
		{ "pcie:x", "unknown device URI" },
		{ "", "unknown device URI" },
		{ "simulator", "unknown device URI" },
		{ "sim:foo=1", "unknown option 'foo'" },
		{ "sim:gen", "'gen' has no value" },
		{ "sim:gen=", "option 'gen'" },
		{ "sim:gen=9", "option 'gen'" },
		{ "sim:gen=0", "option 'gen'" },
		{ "sim:gen=two", "option 'gen'" },
		{ "sim:lanes=3", "lanes" },
		{ "sim:lanes=32", "lanes" },
		{ "sim:mps=100", "option 'mps'" },
		{ "sim:mps=384", "mps" },
		{ "sim:ring=3", "option 'ring'" },
		{ "sim:ring=1", "option 'ring'" },
		{ "sim:ring=8192", "option 'ring'" },
		{ "sim:fault=bogus", "option 'fault'" },
		{ "sim:fault=desc@0", "option 'fault'" },
		{ "sim:fault=desc@x", "option 'fault'" },
		{ "sim:paced=2", "option 'paced'" },
		{ "sim:channels=8", "option 'channels'" },
		{ "sim:channels=0", "option 'channels'" },
		{ "sim:mem=-1", "option 'mem'" },
		{ "sim:mem=12Q", "option 'mem'" },
		{ "sim:maxdesc=100", "maxdesc" },
		{ "sim:maxdesc=32", "maxdesc" },
		{ "sim:coal=70000", "option 'coal'" },
		{ "sim:coal_us=2000000", "option 'coal_us'" },
		{ "sim:paced=0,gen=2,bogus=3", "unknown option 'bogus'" },
		{ "kdev:", "needs the device node's path" },
		{ "kdev", "unknown device URI" },
		/* Typos are errors naming the part, not silently skipped or merged. */
		{ "sim:gen=2,,lanes=1", "empty option 2" },
		{ "sim:,", "empty option 1" },
		{ "sim:gen=2,", "empty option 2" },
		{ "sim:,gen=2", "empty option 1" },
		{ "sim:gen=2,gen=3", "option 'gen' is given twice" },
		{ "sim:paced=0,ring=8,paced=1", "option 'paced' is given twice" },
		{ "sim:fault=desc@0", "counts descriptors from 1" },
		{ "sim:mem=2T", "expected 0..1T" },
		{ "sim:maxdesc=4G", "expected 64..2G" },
		{ "sim:cpus=1-0", "option 'cpus'" },
		{ "sim:cpus=x", "option 'cpus'" },
		{ "sim:cpus=", "option 'cpus'" },
		{ "sim:cpus=-1", "option 'cpus'" },
		{ "sim:cpus=1023", "option 'cpus'" },	/* more than this machine has */
		{ "sim:cpus=0-", "option 'cpus'" },
		{ "sim:cpus=0x1", "option 'cpus'" },	/* decimal, as taskset -c */
		{ "sim:cpus=0K", "option 'cpus'" },
		{ "sim:cpus=+1", "option 'cpus'" },
		{ "sim:poll_us=2000000", "option 'poll_us'" },
		{ "sim:rtl=1,cpus=0", "the RTL has none" },
	};
	struct fdma_dev *dev = NULL;
	char small[12];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_open_fails(bad[i].uri, -EINVAL, bad[i].word);
	/* No error buffer, or a tiny one: still a clean failure, still terminated. */
	assert_int_equal(fdma_open(&dev, "pcie:x", NULL, 0), -EINVAL);
	assert_null(dev);
	memset(small, 'x', sizeof(small));
	assert_int_equal(fdma_open(&dev, "sim:foo=1", small, sizeof(small)), -EINVAL);
	assert_null(dev);
	assert_true(memchr(small, 0, sizeof(small)) != NULL);
	assert_true(strlen(small) > 0);
	/* NULL arguments to open. */
	{
		char err[128] = "";

		assert_int_equal(fdma_open(NULL, "sim", err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "devp"));
		assert_int_equal(fdma_open(&dev, NULL, err, sizeof(err)), -EINVAL);
		assert_null(dev);
		assert_non_null(strstr(err, "URI"));
	}
	/* Good URIs still open, and the device works. */
	dev = sim_open("sim");
	fdma_close(dev);
	dev = sim_open("sim:paced=0,gen=3,lanes=8,mps=512,ring=64,mem=64M,fault=none");
	sim_roundtrip(dev, 0, 1 << 20, 1);
	fdma_close(dev);
}

/* A request fails with want and word, queues nothing and rings no doorbell. */
#define bad_req(dev, ch, req, want, word) bad_req_at((dev), (ch), (req), (want), (word), __LINE__)
static void bad_req_at(struct fdma_dev *dev, int ch, struct fdma_req req, int want,
		       const char *word, int line)
{
	struct fdma_chan_stats a, b;
	int ret;

	sim_stats(dev, ch, &a);
	ret = fdma_submit(dev, ch, &req, 1);
	sim_assert_err(dev, ret, want, word, "fdma_submit(bad request)", __FILE__, line);
	sim_stats(dev, ch, &b);
	if (fdma_inflight(dev, ch) != 0 || b.transfers != a.transfers ||
	    b.doorbells != a.doorbells || b.descriptors != a.descriptors)
		fail_msg("line %d: the rejected request was (partly) queued: inflight %d, transfers %llu -> %llu",
			 line, fdma_inflight(dev, ch), (unsigned long long)a.transfers,
			 (unsigned long long)b.transfers);
}

/* kdev: without a driver: each way of not finding one says which. */
static void test_kdev_open_errors(void **state)
{
	(void)state;
	check_open_fails("kdev:/nonexistent/fdma9", -ENOENT, "no such device node");
	/* A character device that is no fdma.ko device: its ioctls are ENOTTY. */
	check_open_fails("kdev:/dev/null", -ENODEV, "not an fdma.ko device");
	check_open_fails("kdev:/", -EISDIR, "/");
}

static void test_bad_requests(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,mem=64M");
	int buf = sim_buf(dev, 65536, 0);
	const struct fdma_req ok = { .buf = buf, .offset = 0, .card_addr = 0x1000, .len = 4096 };
	const uint64_t mem = sim_card_size(dev);
	struct fdma_info info;
	struct fdma_req r;
	uint64_t a;

	(void)state;
	/* 64 on sim:; another device (FDMA_TEST_DEVICE) may want more. */
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	a = info.align;
	for (int ch = 0; ch < 2; ch++) {
		/*
		 * Misaligned host offset, card address, length; a device that
		 * takes any byte (XDMA's memory-mapped channels; test_xdma
		 * checks a design's align=64) has none.
		 */
		if (a > 1) {
			r = ok; r.offset = 1;
			bad_req(dev, ch, r, -EINVAL, "alignment");
			r = ok; r.offset = 32;
			bad_req(dev, ch, r, -EINVAL, "alignment");
			r = ok; r.card_addr = 0x1020;
			bad_req(dev, ch, r, -EINVAL, "card address");
			r = ok; r.len = 100;
			bad_req(dev, ch, r, -EINVAL, "alignment");
			r = ok; r.len = 4096 + 8;
			bad_req(dev, ch, r, -EINVAL, "alignment");
		}
		/* Zero length. */
		r = ok; r.len = 0;
		bad_req(dev, ch, r, -EINVAL, "zero");
		/* Beyond the buffer. */
		r = ok; r.len = 65536 + a;
		bad_req(dev, ch, r, -ERANGE, "beyond buffer");
		r = ok; r.offset = 65536 - 4096 + a;
		bad_req(dev, ch, r, -ERANGE, "beyond buffer");
		r = ok; r.offset = 65536 + 4096;
		bad_req(dev, ch, r, -ERANGE, "beyond buffer");
		r = ok; r.offset = UINT64_MAX - (a - 1);	/* offset + len wraps */
		bad_req(dev, ch, r, -ERANGE, "beyond buffer");
		r = ok; r.len = UINT64_MAX - (a - 1);
		bad_req(dev, ch, r, -ERANGE, "beyond buffer");
		/* Beyond card memory. */
		r = ok; r.card_addr = mem - 2048; r.len = 4096;
		bad_req(dev, ch, r, -ERANGE, "card memory");
		r = ok; r.card_addr = mem;
		bad_req(dev, ch, r, -ERANGE, "card memory");
		r = ok; r.card_addr = UINT64_MAX & ~(a - 1);	/* card + len wraps */
		bad_req(dev, ch, r, -ERANGE, "card memory");
		/* Unknown flags. */
		r = ok; r.flags = 0x100;
		bad_req(dev, ch, r, -EINVAL, "flags");
		/* Unknown buffer handles. */
		r = ok; r.buf = -1;
		bad_req(dev, ch, r, -EBADF, "unknown buffer");
		r = ok; r.buf = 4096;
		bad_req(dev, ch, r, -EBADF, "unknown buffer");
		r = ok; r.buf = INT_MAX;
		bad_req(dev, ch, r, -EBADF, "unknown buffer");
		r = ok; r.buf = buf + 1;	/* never allocated */
		bad_req(dev, ch, r, -EBADF, "unknown buffer");
	}
	/* The exact end of card memory and of the buffer are fine. */
	{
		int dst = sim_buf(dev, 65536, 0);

		pattern_fill(fdma_buf_addr(dev, buf), 65536, 3);
		memset(fdma_buf_addr(dev, dst), 0, 65536);
		assert_fdma_ok(dev, fdma_write_card(dev, buf, 65536 - 4096, mem - 4096, 4096));
		assert_fdma_ok(dev, fdma_read_card(dev, dst, 65536 - 4096, mem - 4096, 4096));
		assert_bytes(fdma_buf_addr(dev, dst), 65536 - 4096, 0);
		assert_pattern_at((uint8_t *)fdma_buf_addr(dev, dst) + 65536 - 4096, 4096, 3, 65536 - 4096);
		assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	}
	/* Still usable. */
	sim_roundtrip(dev, 0x1000, 65536, 4);
	assert_fdma_ok(dev, fdma_buf_free(dev, buf));
	/* A freed handle is unknown too. */
	r = ok;
	bad_req(dev, 0, r, -EBADF, "unknown buffer");
	assert_null(fdma_buf_addr(dev, buf));
	assert_int_equal(fdma_buf_size(dev, buf), 0);
	assert_null(fdma_buf_addr(dev, -1));
	assert_null(fdma_buf_addr(dev, 1 << 20));
	sim_roundtrip(dev, 0, 4096, 5);
	fdma_close(dev);
}

/* A request that could never fit the ring is an error, not "try again". */
static void test_request_larger_than_ring(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,ring=8,maxdesc=4096");
	int buf = sim_buf(dev, 65536, 0);
	struct fdma_req r = { .buf = buf, .len = 65536 };

	(void)state;
	bad_req(dev, 0, r, -EINVAL, "ring");
	/* 8 descriptors exactly do fit. */
	pattern_fill(fdma_buf_addr(dev, buf), 65536, 6);
	assert_fdma_ok(dev, fdma_write_card(dev, buf, 0, 0, 32768));
	memset(fdma_buf_addr(dev, buf), 0, 65536);
	assert_fdma_ok(dev, fdma_read_card(dev, buf, 32768, 0, 32768));
	assert_pattern((uint8_t *)fdma_buf_addr(dev, buf) + 32768, 32768, 6);
	assert_fdma_ok(dev, fdma_buf_free(dev, buf));
	fdma_close(dev);
}

/*
 * A batch larger than the channel can ever take is -E2BIG, on any device:
 * more descriptors than the ring (sim:) or more requests than the driver
 * takes per call (kdev:). A retry loop on -EAGAIN would spin for ever.
 */
static void test_batch_never_fits(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	struct fdma_info in;
	struct fdma_req *r;
	unsigned int n;
	int buf;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	n = in.chan[0].ring_size > 1024 ? in.chan[0].ring_size + 1 : 1025;
	buf = sim_buf(dev, (size_t)n * in.align, 0);
	r = calloc(n, sizeof(*r));
	assert_non_null(r);
	for (unsigned int i = 0; i < n; i++)
		r[i] = (struct fdma_req){ .buf = buf, .offset = (uint64_t)i * in.align,
					  .card_addr = (uint64_t)i * in.align, .len = in.align };
	assert_fdma_err(dev, fdma_submit(dev, 0, r, n), -E2BIG, "split it");
	assert_int_equal(fdma_inflight(dev, 0), 0);
	/* The same requests in batches that fit go through: the data checked. */
	pattern_fill(fdma_buf_addr(dev, buf), (size_t)n * in.align, 17);
	for (unsigned int done = 0; done < n;) {
		unsigned int most = in.chan[0].ring_size < 128 ? in.chan[0].ring_size : 128;
		unsigned int k = n - done < most ? n - done : most;
		struct fdma_cpl c[128];

		assert_fdma_err(dev, fdma_submit(dev, 0, r + done, k), (int)k, NULL);
		sim_reap_n(dev, 0, c, k);
		done += k;
	}
	memset(fdma_buf_addr(dev, buf), 0, (size_t)n * in.align);
	assert_fdma_ok(dev, fdma_read_card(dev, buf, 0, 0, (uint64_t)n * in.align));
	assert_pattern(fdma_buf_addr(dev, buf), (size_t)n * in.align, 17);
	free(r);
	assert_fdma_ok(dev, fdma_buf_free(dev, buf));
	fdma_close(dev);
}

/*
 * kdev: a C2H stream request is one descriptor (a frame starts in it), so
 * its range must be one piece of device-contiguous memory. A memfd's page
 * mapped twice, side by side, never is: registered, it is the same page
 * twice. Refused with -EMSGSIZE and a message that says what to change,
 * not the -EINVAL of a bad field; nothing is queued.
 */
static void test_stream_buf_not_one_piece(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	struct fdma_req r = { .len = 8192 };
	struct fdma_info in;
	char *p;
	int fd;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	if (ch < 0 || strcmp(in.backend, "kdev")) {
		fdma_close(dev);
		print_message("a kdev: device with a C2H stream channel only: physical memory is the driver's\n");
		t_skip();
	}
	fd = memfd_create("fdma-twice", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	p = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	for (int i = 0; i < 2; i++)
		assert_true(mmap(p + i * 4096, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
				 fd, 0) == p + i * 4096);
	/* The same page: what is written through one view shows through the other. */
	p[0] = 0x5a;
	assert_int_equal(p[4096], 0x5a);
	r.buf = fdma_buf_register(dev, p, 8192);
	assert_fdma_ok(dev, r.buf);
	assert_fdma_err(dev, fdma_submit(dev, ch, &r, 1), -EMSGSIZE, "one piece");
	assert_int_equal(fdma_inflight(dev, ch), 0);
	assert_fdma_ok(dev, fdma_buf_free(dev, r.buf));
	munmap(p, 8192);
	close(fd);
	fdma_close(dev);
}

static void test_buffer_errors(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	void *mem = aligned_alloc(4096, 8192);
	struct fdma_info in;
	int h;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	assert_fdma_err(dev, fdma_buf_alloc(dev, 0, 0), -EINVAL, "zero");
	assert_fdma_err(dev, fdma_buf_alloc(dev, 4096, 0x80), -EINVAL, "flags");
#if SIZE_MAX > 0xffffffffu	/* a 32-bit size_t cannot pass the 64 GiB limit */
	assert_fdma_err(dev, fdma_buf_alloc(dev, (size_t)1 << 37, 0), -EINVAL, "limit");
#endif
	/* Where the device takes any byte (XDMA's memory-mapped channels) nothing is misaligned. */
	if (in.align > 1) {
		assert_fdma_err(dev, fdma_buf_register(dev, (char *)mem + 32, 4096), -EINVAL,
				"multiples");
		assert_fdma_err(dev, fdma_buf_register(dev, mem, 4000), -EINVAL, "multiples");
	}
	assert_fdma_err(dev, fdma_buf_register(dev, mem, 0), -EINVAL, "zero");
	assert_fdma_err(dev, fdma_buf_register(dev, NULL, 4096), -EINVAL, "NULL");
	/* Unknown handles and double frees. */
	assert_fdma_err(dev, fdma_buf_free(dev, -1), -EBADF, "unknown buffer handle");
	assert_fdma_err(dev, fdma_buf_free(dev, 4096), -EBADF, "unknown buffer handle");
	assert_fdma_err(dev, fdma_buf_free(dev, 17), -EBADF, "unknown buffer handle");
	h = sim_buf(dev, 4096, 0);
	assert_fdma_ok(dev, fdma_buf_free(dev, h));
	assert_fdma_err(dev, fdma_buf_free(dev, h), -EBADF, "unknown buffer handle");
	h = fdma_buf_register(dev, mem, 8192);
	assert_fdma_ok(dev, h);
	assert_fdma_ok(dev, fdma_buf_free(dev, h));
	assert_fdma_err(dev, fdma_buf_free(dev, h), -EBADF, "unknown buffer handle");
	sim_roundtrip(dev, 0, 8192, 7);
	fdma_close(dev);
	free(mem);
}

/*
 * Out of bus windows (addr=32: 63 of 64 MiB below 4 GiB, the rings' among
 * them) is not out of handles: the backend's own -ENOSPC keeps its message.
 */
static void test_no_bus_window(void **state)
{
	struct fdma_dev *dev;
	int h[64], n = 0, ret;

	(void)state;
	sim_require_model("the simulated device's bus address map (addr=32)");
	dev = sim_open("sim:paced=0,addr=32");
	while (n < 64 && (ret = fdma_buf_alloc(dev, 4096, 0)) >= 0)
		h[n++] = ret;
	assert_true(n > 0 && n < 64);
	assert_fdma_err(dev, ret, -ENOSPC, "bus window");
	assert_null(strstr(fdma_errmsg(dev), "buffer handle"));
	/* One freed, one had again; the device still moves data. */
	assert_fdma_ok(dev, fdma_buf_free(dev, h[--n]));
	assert_fdma_ok(dev, fdma_buf_free(dev, h[--n]));
	sim_roundtrip(dev, 0, 4096, 15);
	while (n > 0)
		assert_fdma_ok(dev, fdma_buf_free(dev, h[--n]));
	fdma_close(dev);
}

/* A buffer with transfers in flight cannot be freed; once they are reaped it can. */
static void test_free_busy(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int src = sim_buf(dev, 1 << 20, 0), dst = sim_buf(dev, 1 << 20, 0);
	struct fdma_req r[4];
	struct fdma_cpl c[4];

	(void)state;
	pattern_fill(fdma_buf_addr(dev, src), 1 << 20, 8);
	memset(fdma_buf_addr(dev, dst), 0, 1 << 20);
	for (int i = 0; i < 4; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i << 18,
					  .card_addr = (uint64_t)i << 18, .len = 1 << 18,
					  .user_data = (uint64_t)i };
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 4), 4, NULL);
	assert_fdma_err(dev, fdma_buf_free(dev, src), -EBUSY, "in flight");
	/* Still there, still the same. */
	assert_non_null(fdma_buf_addr(dev, src));
	sim_reap_n(dev, 0, c, 2);
	/* Half reaped is still busy. */
	assert_fdma_err(dev, fdma_buf_free(dev, src), -EBUSY, "in flight");
	sim_reap_n(dev, 0, c + 2, 2);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_err(dev, fdma_buf_free(dev, src), -EBADF, "unknown buffer handle");

	/* The same for a buffer the device writes. */
	for (int i = 0; i < 4; i++)
		r[i].buf = dst;
	assert_fdma_err(dev, fdma_submit(dev, 1, r, 4), 4, NULL);
	assert_fdma_err(dev, fdma_buf_free(dev, dst), -EBUSY, "in flight");
	sim_reap_n(dev, 1, c, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(c[i].res, 0);
	assert_pattern(fdma_buf_addr(dev, dst), 1 << 20, 8);
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	sim_roundtrip(dev, 0, 1 << 20, 9);
	fdma_close(dev);
}

static void test_bad_channels(void **state)
{
	int bad[] = { -1, 4, 15, 16, 1000, INT_MIN, INT_MAX };
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int c2h_st;
	int buf = sim_buf(dev, 4096, 0);
	struct fdma_req r = { .buf = buf, .len = 4096 };
	struct fdma_cpl c;
	struct fdma_chan_stats st;
	struct fdma_stream *s = (struct fdma_stream *)&r;
	struct fdma_info in;
	uint64_t fr, er;

	(void)state;
	c2h_st = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	assert_fdma_ok(dev, c2h_st);
	/* The first channel past the device's (4 on sim:, more on other devices). */
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	bad[1] = (int)in.nchan;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ch = bad[i];

		assert_fdma_err(dev, fdma_submit(dev, ch, &r, 1), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_reap(dev, ch, &c, 1, 1, 1000), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_inflight(dev, ch), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_fd(dev, ch), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_set_wait(dev, ch, FDMA_WAIT_SLEEP, 0), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_set_coalesce(dev, ch, 1, 0), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_set_drop(dev, ch, 1), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_reset(dev, ch), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_set_testgen(dev, ch, 4096, 0, 1), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_testgen_counts(dev, ch, &fr, &er), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_chan_stats(dev, ch, &st), -EINVAL, "no channel");
		assert_fdma_err(dev, fdma_stream_open(dev, ch, 4, 4096, &s), -EINVAL, "no channel");
		assert_null(s);
		s = (struct fdma_stream *)&r;
	}
	/* Channels of the wrong kind. */
	assert_fdma_err(dev, fdma_chan_set_drop(dev, 0, 1), -EINVAL, "not a C2H stream");
	assert_fdma_err(dev, fdma_chan_set_testgen(dev, 1, 4096, 0, 1), -ENOTSUP, "no test generator");
	assert_fdma_err(dev, fdma_chan_testgen_counts(dev, 0, &fr, &er), -ENOTSUP, "no test generator");
	assert_fdma_err(dev, fdma_stream_open(dev, 1, 4, 4096, &s), -EINVAL, "not a C2H stream");
	assert_fdma_err(dev, fdma_stream_open(dev, fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_STREAM),
					      4, 4096, &s), -EINVAL, "not a C2H stream");
	/* Bad settings on good channels. */
	assert_fdma_err(dev, fdma_chan_set_wait(dev, 0, (enum fdma_wait_mode)7, 0), -EINVAL, "wait mode");
	assert_fdma_err(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_ADAPTIVE, 2000000), -EINVAL, "spin_us");
	assert_fdma_err(dev, fdma_chan_set_coalesce(dev, 0, 70000, 0), -EINVAL, "out of range");
	assert_fdma_err(dev, fdma_chan_set_coalesce(dev, 0, 0, 2000000), -EINVAL, "out of range");
	assert_fdma_err(dev, fdma_chan_set_testgen(dev, c2h_st, 16, 0, 1), -EINVAL, "minimum");
	assert_fdma_err(dev, fdma_stream_open(dev, c2h_st, 1, 4096, &s), -EINVAL, "buffers");
	assert_fdma_err(dev, fdma_stream_open(dev, c2h_st, 4, 0, &s), -EINVAL, "buffer size");
	/* One alignment unit over the engine's longest descriptor. */
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	assert_fdma_err(dev, fdma_stream_open(dev, c2h_st, 4, (size_t)in.max_desc_len + in.align, &s),
			-EINVAL, "buffer size");
	assert_fdma_err(dev, fdma_stream_open(dev, c2h_st, 100000, 4096, &s), -EINVAL, "buffers");
	fdma_close(dev);
	/* No stream channels at all. */
	dev = sim_open("sim:paced=0,streams=0");
	assert_fdma_err(dev, fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM), -ENOENT, "no C2H stream");
	assert_fdma_err(dev, fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_STREAM), -ENOENT, "no H2C stream");
	assert_fdma_err(dev, fdma_submit(dev, 2, &r, 1), -EINVAL, "no channel 2");
	sim_roundtrip(dev, 0, 4096, 10);
	fdma_close(dev);
}

/* A full ring: -EAGAIN, all or nothing. */
static void test_ring_full(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,ring=8,maxdesc=4096");
	int src = sim_buf(dev, 16 * 4096, 0), dst = sim_buf(dev, 16 * 4096, 0);
	struct fdma_req r[10];
	struct fdma_cpl c[10];
	struct fdma_chan_stats a, b;

	(void)state;
	pattern_fill(fdma_buf_addr(dev, src), 16 * 4096, 11);
	for (int i = 0; i < 10; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * 4096,
					  .card_addr = (uint64_t)i * 4096, .len = 4096,
					  .user_data = (uint64_t)i };
	/* Nine on a ring of eight can never fit: -E2BIG (not "retry"), nothing queued. */
	sim_stats(dev, 0, &a);
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 9), -E2BIG, "the ring holds 8");
	sim_stats(dev, 0, &b);
	assert_int_equal(fdma_inflight(dev, 0), 0);
	assert_int_equal(b.transfers, a.transfers);
	assert_int_equal(b.doorbells, a.doorbells);
	assert_int_equal(b.descriptors, a.descriptors);
	/* Eight fit; then the ring is full for even one more, until reaped. */
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 8), 8, NULL);
	assert_fdma_err(dev, fdma_submit(dev, 0, r + 8, 1), -EAGAIN, "free");
	sim_reap_n(dev, 0, c, 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(c[i].user_data, (uint64_t)i);
		assert_int_equal(c[i].res, 0);
	}
	/* Six single requests and one of 3 descriptors need 9: -E2BIG, nothing queued. */
	r[6].len = 3 * 4096;
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 7), -E2BIG, "needs 9 descriptors");
	assert_int_equal(fdma_inflight(dev, 0), 0);
	/* Eight descriptors with two in flight: -EAGAIN, and it fits once reaped. */
	assert_fdma_err(dev, fdma_submit(dev, 0, r + 8, 2), 2, NULL);
	r[6].len = 2 * 4096;
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 7), -EAGAIN, "reap and retry");
	assert_int_equal(fdma_inflight(dev, 0), 2);
	sim_reap_n(dev, 0, c, 2);
	assert_int_equal(c[0].user_data, 8);
	assert_int_equal(c[1].user_data, 9);
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 7), 7, NULL);
	sim_reap_n(dev, 0, c, 7);
	/* A bad request in the middle of a batch: the first error, nothing queued. */
	r[6].len = 4096;
	r[3].flags = 0x100;
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 6), -EINVAL, "request 3");
	assert_int_equal(fdma_inflight(dev, 0), 0);
	r[3].flags = 0;
	r[5].buf = 999;
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 6), -EBADF, "request 5");
	assert_int_equal(fdma_inflight(dev, 0), 0);
	r[5].buf = src;
	/* Nothing of the rejected batches turns up: the next batch's completions are its own. */
	for (int i = 0; i < 8; i++)
		r[i].user_data = 100 + (uint64_t)i;
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 8), 8, NULL);
	sim_reap_n(dev, 0, c, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(c[i].user_data, 100 + (uint64_t)i);
	assert_int_equal(fdma_reap(dev, 0, c, 10, 0, 0), 0);
	sim_stats(dev, 0, &b);
	assert_int_equal(b.transfers, 25);
	assert_int_equal(b.completions, 25);
	/* Data check of what went through. */
	memset(fdma_buf_addr(dev, dst), 0, 16 * 4096);
	for (int i = 0; i < 8; i++)
		r[i].buf = dst;
	assert_fdma_err(dev, fdma_submit(dev, 1, r, 8), 8, NULL);
	sim_reap_n(dev, 1, c, 8);
	assert_pattern(fdma_buf_addr(dev, dst), 8 * 4096, 11);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/* Calls on a closed device fail with -EBADF (the handle is only compared, never followed). */
static void test_use_after_close(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int c2h_st;
	struct fdma_dev *stale;
	int buf = sim_buf(dev, 4096, 0);
	struct fdma_req r = { .buf = buf, .len = 4096 };
	struct fdma_cpl c;
	struct fdma_chan_stats st;
	struct fdma_info info;
	struct fdma_stream *s = NULL, *s2 = (struct fdma_stream *)&r;
	struct fdma_frame f;
	double mbps;

	(void)state;
	c2h_st = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	assert_fdma_ok(dev, c2h_st);
	assert_fdma_ok(dev, fdma_stream_open(dev, c2h_st, 4, 4096, &s));
	fdma_close(dev);
	stale = dev;
	assert_non_null(strstr(fdma_errmsg(stale), "invalid or closed"));
	assert_int_equal(fdma_submit(stale, 0, &r, 1), -EBADF);
	assert_int_equal(fdma_reap(stale, 0, &c, 1, 1, 1000), -EBADF);
	assert_int_equal(fdma_inflight(stale, 0), -EBADF);
	assert_int_equal(fdma_buf_alloc(stale, 4096, 0), -EBADF);
	assert_int_equal(fdma_buf_free(stale, buf), -EBADF);
	assert_null(fdma_buf_addr(stale, buf));
	assert_int_equal(fdma_buf_size(stale, buf), 0);
	assert_int_equal(fdma_get_info(stale, &info), -EBADF);
	assert_int_equal(fdma_find_chan(stale, FDMA_H2C, FDMA_KIND_MM), -EBADF);
	assert_int_equal(fdma_chan_stats(stale, 0, &st), -EBADF);
	assert_int_equal(fdma_chan_set_wait(stale, 0, FDMA_WAIT_SPIN, 0), -EBADF);
	assert_int_equal(fdma_chan_reset(stale, 0), -EBADF);
	assert_int_equal(fdma_write_card(stale, buf, 0, 0, 4096), -EBADF);
	assert_int_equal(fdma_read_card(stale, buf, 0, 0, 4096), -EBADF);
	assert_int_equal(fdma_ceiling(stale, FDMA_C2H, 4096, &mbps), -EBADF);
	assert_int_equal(fdma_stream_open(stale, c2h_st, 4, 4096, &s2), -EBADF);
	/* A stream outliving its device fails cleanly and can still be closed. */
	assert_int_equal(fdma_stream_get(s, &f, 1000), -EBADF);
	/* Bad arguments too: no message written into the freed device (ASan sees a read there). */
	assert_int_equal(fdma_stream_get(s, NULL, 0), -EBADF);
	f = (struct fdma_frame){ .index = 0 };
	assert_int_equal(fdma_stream_release(s, &f), -EBADF);
	assert_int_equal(fdma_stream_release(s, NULL), -EBADF);
	assert_int_equal(fdma_stream_drops(s), 0);
	fdma_stream_close(s);
	assert_non_null(strstr(fdma_errmsg(stale), "invalid or closed"));
	/* Closing twice is harmless. */
	fdma_close(stale);
	/* A new device works (whatever address it gets). */
	dev = sim_open("sim:paced=0");
	sim_roundtrip(dev, 0, 4096, 12);
	fdma_close(dev);
}

static void test_null_args(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int c2h_st;
	struct fdma_info info;
	struct fdma_frame f = { 0 };
	double mbps;
	uint64_t fr = 1, er = 1;

	(void)state;
	c2h_st = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	assert_fdma_ok(dev, c2h_st);
	assert_non_null(strstr(fdma_errmsg(NULL), "invalid or closed"));
	assert_int_equal(fdma_get_info(NULL, &info), -EBADF);
	assert_int_equal(fdma_submit(NULL, 0, NULL, 0), -EBADF);
	assert_int_equal(fdma_buf_alloc(NULL, 4096, 0), -EBADF);
	assert_null(fdma_buf_addr(NULL, 0));
	fdma_close(NULL);
	assert_fdma_err(dev, fdma_get_info(dev, NULL), -EINVAL, "NULL");
	assert_fdma_err(dev, fdma_submit(dev, 0, NULL, 1), -EINVAL, "NULL");
	assert_fdma_err(dev, fdma_reap(dev, 0, NULL, 1, 0, 0), -EINVAL, "NULL");
	assert_fdma_err(dev, fdma_chan_stats(dev, 0, NULL), -EINVAL, "NULL");
	assert_fdma_err(dev, fdma_stream_open(dev, c2h_st, 4, 4096, NULL), -EINVAL, "NULL");
	assert_fdma_err(dev, fdma_ceiling(dev, FDMA_C2H, 4096, NULL), -EINVAL, "NULL");
	assert_fdma_err(dev, fdma_ceiling(dev, FDMA_C2H, 0, &mbps), -EINVAL, "zero");
	/* Counters are optional outputs. */
	assert_fdma_ok(dev, fdma_chan_testgen_counts(dev, c2h_st, NULL, NULL));
	assert_fdma_ok(dev, fdma_chan_testgen_counts(dev, c2h_st, &fr, &er));
	assert_int_equal(fr, 0);
	assert_int_equal(er, 0);
	/* Streams: NULL handles. */
	assert_int_equal(fdma_stream_get(NULL, &f, 0), -EINVAL);
	assert_int_equal(fdma_stream_release(NULL, &f), -EINVAL);
	assert_int_equal(fdma_stream_drops(NULL), 0);
	fdma_stream_close(NULL);
	sim_roundtrip(dev, 0, 65536, 13);
	fdma_close(dev);
}

/*
 * With a good stream handle, a NULL frame is reported like every other bad
 * argument: -EINVAL and a message (not the previous call's).
 */
static void test_null_frame_message(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int c2h_st;
	struct fdma_stream *s = NULL;
	char get_msg[256], rel_msg[256];
	int get_ret, rel_ret;

	(void)state;
	c2h_st = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	assert_fdma_ok(dev, c2h_st);
	assert_fdma_ok(dev, fdma_stream_open(dev, c2h_st, 4, 4096, &s));
	/* Leave a different message behind first. */
	assert_fdma_err(dev, fdma_buf_free(dev, 3000), -EBADF, "unknown buffer handle");
	get_ret = fdma_stream_get(s, NULL, 0);
	snprintf(get_msg, sizeof(get_msg), "%s", fdma_errmsg(dev));
	assert_fdma_err(dev, fdma_buf_free(dev, 3000), -EBADF, "unknown buffer handle");
	rel_ret = fdma_stream_release(s, NULL);
	snprintf(rel_msg, sizeof(rel_msg), "%s", fdma_errmsg(dev));
	/* Clean up before judging, so that a failure leaks nothing. */
	fdma_stream_close(s);
	sim_roundtrip(dev, 0, 4096, 14);
	fdma_close(dev);
	if (get_ret != -EINVAL || !strstr(get_msg, "NULL"))
		fail_msg("fdma_stream_get(s, NULL) = %d, message \"%s\" (expected -EINVAL and a message naming the NULL frame)",
			 get_ret, get_msg);
	if (rel_ret != -EINVAL || !strstr(rel_msg, "NULL"))
		fail_msg("fdma_stream_release(s, NULL) = %d, message \"%s\" (expected -EINVAL and a message naming the NULL frame)",
			 rel_ret, rel_msg);
}

/*
 * "Nothing aborts the process": fdma_model_cpu() with a NULL result must
 * fail with -EINVAL rather than crash. Run in a child process so that a
 * crash fails this test only.
 */
static void test_null_model_cpu(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	double s = -1;
	pid_t pid;
	int status = 0;

	(void)state;
	if (sim_target()) {
		/* Another device has no model threads to measure. */
		assert_fdma_err(dev, fdma_model_cpu(dev, &s), -ENOTSUP, "no simulated device");
	} else {
		assert_fdma_ok(dev, fdma_model_cpu(dev, &s));
		assert_true(s >= 0);
	}
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ret;

		/* Die by the signal: not into cmocka's handler and back into its runner. */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		ret = fdma_model_cpu(dev, NULL);

		_exit(ret == -EINVAL ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("fdma_model_cpu(dev, NULL) killed the process with signal %d", WTERMSIG(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("fdma_model_cpu(dev, NULL) did not return -EINVAL (child status 0x%x)", status);
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_uris),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_request_larger_than_ring),
		cmocka_unit_test(test_buffer_errors),
		cmocka_unit_test(test_stream_buf_not_one_piece),
		cmocka_unit_test(test_kdev_open_errors),
		cmocka_unit_test(test_free_busy),
		cmocka_unit_test(test_no_bus_window),
		cmocka_unit_test(test_bad_channels),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_batch_never_fits),
		cmocka_unit_test(test_use_after_close),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_null_frame_message),
		cmocka_unit_test(test_null_model_cpu),
	};

	return T_RUN(tests);
}
