// SPDX-License-Identifier: MIT
/*
 * Memory-mapped transfers: H2C then C2H round trips of every size class at
 * several card offsets (the last bytes of card memory included), batches
 * with user_data, requests split at the maximum descriptor length,
 * registered caller memory, huge-page buffers, buffer handle reuse, the
 * handle count (fdma_buf_count(), also racing another thread's
 * allocations), two threads driving two channel pairs at once, and odd
 * lengths at odd host and card offsets where a device takes them. Every
 * byte moved is checked.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim_util.h"

#define MEM	(64ull << 20)

/* Submit one request and reap its completion; check it. */
static void xfer1(struct fdma_dev *dev, int ch, int buf, uint64_t off, uint64_t card,
		  uint64_t len, uint64_t ud)
{
	struct fdma_req r = { .buf = buf, .offset = off, .card_addr = card, .len = len,
			      .user_data = ud };
	struct fdma_cpl c;

	assert_fdma_err(dev, fdma_submit(dev, ch, &r, 1), 1, NULL);
	sim_reap_n(dev, ch, &c, 1);
	assert_int_equal(c.res, 0);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.len, len);
	assert_int_equal(c.user_data, ud);
	assert_int_equal(fdma_inflight(dev, ch), 0);
}

/*
 * Round trip of len bytes at card offset off, with the card bytes around it
 * (up to 4 KiB either side) holding a background pattern that must survive,
 * and the host bytes around the read-back target holding a guard value.
 */
static void roundtrip_at(struct fdma_dev *dev, int h2c, int c2h, uint64_t off, uint64_t len,
			 uint64_t seed)
{
	const uint64_t margin = 4096, guard = 4096, mem = sim_card_size(dev);
	uint64_t lo = off >= margin ? off - margin : 0;
	uint64_t hi = off + len + margin <= mem ? off + len + margin : mem;
	int bg = sim_buf(dev, hi - lo, 0);
	int src = sim_buf(dev, len, 0);
	int dst = sim_buf(dev, len + 2 * guard, 0);
	int all = sim_buf(dev, hi - lo, 0);
	uint8_t *d = fdma_buf_addr(dev, dst), *a = fdma_buf_addr(dev, all);

	pattern_fill_at(fdma_buf_addr(dev, bg), hi - lo, seed ^ 0xb6, lo);
	pattern_fill(fdma_buf_addr(dev, src), len, seed);
	memset(d, 0xee, len + 2 * guard);
	memset(a, 0x11, hi - lo);

	xfer1(dev, h2c, bg, 0, lo, hi - lo, 1);
	xfer1(dev, h2c, src, 0, off, len, 2);
	/* Exactly the range, into the middle of a guarded buffer. */
	xfer1(dev, c2h, dst, guard, off, len, 3);
	assert_bytes(d, guard, 0xee);
	assert_pattern(d + guard, len, seed);
	assert_bytes(d + guard + len, guard, 0xee);
	/* The whole neighbourhood: the background is intact around the write. */
	xfer1(dev, c2h, all, 0, lo, hi - lo, 4);
	assert_pattern_at(a, off - lo, seed ^ 0xb6, lo);
	assert_pattern(a + (off - lo), len, seed);
	assert_pattern_at(a + (off - lo) + len, hi - off - len, seed ^ 0xb6, off + len);
	/* The source is read, never written. */
	assert_pattern(fdma_buf_addr(dev, src), len, seed);

	assert_fdma_ok(dev, fdma_buf_free(dev, bg));
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	assert_fdma_ok(dev, fdma_buf_free(dev, all));
}

static void test_sizes_and_offsets(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,mem=64M");
	struct fdma_info info;
	uint64_t sizes[9];
	struct fdma_chan_stats st0, st1;
	int h2c, c2h;
	unsigned int n = 0;
	uint64_t mem = sim_card_size(dev);

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	if (!sim_target())
		assert_int_equal(info.card_size, MEM);
	/*
	 * The default FDMA moves 64-byte units; XDMA's memory-mapped channels
	 * any byte (FDMA_TEST_SIM=engine=xdma); another device
	 * (FDMA_TEST_DEVICE) may want a DMA cache line.
	 */
	if (!sim_target() && !sim_extra())
		assert_int_equal(info.align, 64);
	assert_true(info.align >= 1 && !(info.align & (info.align - 1)));
	/* 64, 128, 192, 4096, 4160, ... where the alignment is 64; 1, 2, 3, 4097 where 1. */
	{
		const uint64_t a = info.align, s[] = {
			a, 2 * a, 3 * a, 4096, 4096 + a, 65536, 65536 + a, 1ull << 20, 4ull << 20,
		};

		memcpy(sizes, s, sizeof(sizes));
	}
	h2c = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	assert_int_equal(h2c, 0);
	assert_int_equal(c2h, 1);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t len = sizes[i];
		const uint64_t offs[] = {
			0,			/* start of card memory */
			0x123400 + (uint64_t)info.align * i,	/* unaligned to pages */
			mem - len,		/* the last bytes of card memory */
		};

		for (size_t j = 0; j < 3; j++) {
			roundtrip_at(dev, h2c, c2h, offs[j], len, 1000 * i + j + 1);
			n++;
		}
	}
	/* Four transfers per round trip: two each way. */
	sim_stats(dev, h2c, &st0);
	sim_stats(dev, c2h, &st1);
	assert_int_equal(st0.transfers, 2 * n);
	assert_int_equal(st0.completions, 2 * n);
	assert_int_equal(st1.transfers, 2 * n);
	assert_int_equal(st1.completions, 2 * n);
	assert_int_equal(st0.errors, 0);
	assert_int_equal(st1.errors, 0);
	fdma_close(dev);
}

/* Batches of 32 submitted with one call; completions in order with their user_data. */
static void test_batches_user_data(void **state)
{
	enum { N = 32, SZ = 4096, BATCHES = 6 };
	struct fdma_dev *dev = sim_open("sim:paced=0,mem=64M");
	int src = sim_buf(dev, N * SZ, 0), dst = sim_buf(dev, N * SZ, 0);
	uint8_t *s = fdma_buf_addr(dev, src), *d = fdma_buf_addr(dev, dst);
	struct fdma_chan_stats a, b;

	(void)state;
	for (int bt = 0; bt < BATCHES; bt++) {
		struct fdma_req r[N];
		struct fdma_cpl c[N];
		uint64_t seed = 77 + (uint64_t)bt;

		sim_stats(dev, 0, &a);
		pattern_fill(s, N * SZ, seed);
		memset(d, 0, N * SZ);
		/* Scatter: request i goes to a card slot in reverse order. */
		for (int i = 0; i < N; i++)
			r[i] = (struct fdma_req){
				.buf = src, .offset = (uint64_t)i * SZ,
				.card_addr = (uint64_t)(N - 1 - i) * SZ * 3 + (uint64_t)bt * (1 << 20),
				.len = SZ,
				.user_data = (1ull << 63) | (uint64_t)bt << 32 | (uint64_t)i * 7919,
			};
		assert_fdma_err(dev, fdma_submit(dev, 0, r, N), N, NULL);
		assert_int_equal(fdma_inflight(dev, 0), N);
		/* Reap in uneven pieces: the order must hold across calls. */
		for (int got = 0; got < N;) {
			int want = N - got < 5 ? N - got : 5;

			sim_reap_n(dev, 0, c + got, (unsigned int)want);
			got += want;
		}
		for (int i = 0; i < N; i++) {
			assert_int_equal(c[i].user_data, r[i].user_data);
			assert_int_equal(c[i].res, 0);
			assert_int_equal(c[i].len, SZ);
		}
		sim_stats(dev, 0, &b);
		assert_int_equal(b.transfers - a.transfers, N);
		assert_int_equal(b.completions - a.completions, N);
		assert_int_equal(b.descriptors - a.descriptors, N);
		assert_int_equal(b.doorbells - a.doorbells, 1);
		assert_int_equal(b.bytes - a.bytes, N * SZ);

		/* Gather back in a different order into the destination. */
		for (int i = 0; i < N; i++) {
			int k = (i * 5 + 3) % N;	/* a permutation of 0..31 */

			r[i] = (struct fdma_req){
				.buf = dst, .offset = (uint64_t)k * SZ,
				.card_addr = (uint64_t)(N - 1 - k) * SZ * 3 + (uint64_t)bt * (1 << 20),
				.len = SZ, .user_data = (uint64_t)bt * 1000 + (uint64_t)i,
			};
		}
		assert_fdma_err(dev, fdma_submit(dev, 1, r, N), N, NULL);
		sim_reap_n(dev, 1, c, N);
		for (int i = 0; i < N; i++) {
			assert_int_equal(c[i].user_data, (uint64_t)bt * 1000 + (uint64_t)i);
			assert_int_equal(c[i].res, 0);
			assert_int_equal(c[i].len, SZ);
		}
		assert_pattern(d, N * SZ, seed);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/* A request longer than the maximum descriptor is split, and folded into one completion. */
static void test_split_at_maxdesc(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,maxdesc=4096,mem=64M");
	struct fdma_info info;
	struct fdma_chan_stats a, b;
	const uint64_t lens[] = { 65536, 65536 + 192, 4096, 4096 + 64 };
	uint64_t total = 0;
	int src, dst;
	struct fdma_req r[4];
	struct fdma_cpl c[4];

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	assert_int_equal(info.max_desc_len, 4096);
	for (int i = 0; i < 4; i++)
		total += lens[i];
	src = sim_buf(dev, total, 0);
	dst = sim_buf(dev, total, 0);
	pattern_fill(fdma_buf_addr(dev, src), total, 4242);
	memset(fdma_buf_addr(dev, dst), 0x33, total);

	/* One 64 KiB request alone: 16 descriptors, one completion of 64 KiB. */
	sim_stats(dev, 0, &a);
	xfer1(dev, 0, src, 0, 0x10000, 65536, 0xfeed);
	sim_stats(dev, 0, &b);
	assert_int_equal(b.descriptors - a.descriptors, 16);
	assert_int_equal(b.transfers - a.transfers, 1);
	assert_int_equal(b.completions - a.completions, 1);
	assert_int_equal(b.bytes - a.bytes, 65536);
	sim_stats(dev, 1, &a);
	xfer1(dev, 1, dst, 0, 0x10000, 65536, 0xbeef);
	sim_stats(dev, 1, &b);
	assert_int_equal(b.descriptors - a.descriptors, 16);
	assert_int_equal(b.completions - a.completions, 1);
	assert_pattern(fdma_buf_addr(dev, dst), 65536, 4242);

	/* A batch mixing split and whole requests: one completion each, in order. */
	memset(fdma_buf_addr(dev, dst), 0x33, total);
	for (int dir = 0; dir < 2; dir++) {
		uint64_t off = 0;

		sim_stats(dev, dir, &a);
		for (int i = 0; i < 4; i++) {
			r[i] = (struct fdma_req){ .buf = dir ? dst : src, .offset = off,
						  .card_addr = 0x100000 + off, .len = lens[i],
						  .user_data = 100 + (uint64_t)i };
			off += lens[i];
		}
		assert_fdma_err(dev, fdma_submit(dev, dir, r, 4), 4, NULL);
		sim_reap_n(dev, dir, c, 4);
		for (int i = 0; i < 4; i++) {
			assert_int_equal(c[i].user_data, 100 + (uint64_t)i);
			assert_int_equal(c[i].res, 0);
			assert_int_equal(c[i].len, lens[i]);
		}
		sim_stats(dev, dir, &b);
		/* 16 + 17 + 1 + 2 descriptors */
		assert_int_equal(b.descriptors - a.descriptors, 36);
		assert_int_equal(b.transfers - a.transfers, 4);
		assert_int_equal(b.completions - a.completions, 4);
		assert_int_equal(b.bytes - a.bytes, total);
	}
	assert_pattern(fdma_buf_addr(dev, dst), total, 4242);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/*
 * fdma_inflight() is documented as "transfers queued and not yet reaped":
 * a request split into several descriptors is still one transfer.
 */
static void test_inflight_counts_transfers(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,maxdesc=4096");
	int buf = sim_buf(dev, 65536 * 2, 0);
	struct fdma_req r[2] = {
		{ .buf = buf, .offset = 0, .card_addr = 0, .len = 65536, .user_data = 1 },
		{ .buf = buf, .offset = 65536, .card_addr = 65536, .len = 65536, .user_data = 2 },
	};
	struct fdma_cpl c[2];
	int n;

	(void)state;
	pattern_fill(fdma_buf_addr(dev, buf), 2 * 65536, 3);
	assert_fdma_err(dev, fdma_submit(dev, 0, r, 2), 2, NULL);
	n = fdma_inflight(dev, 0);
	sim_reap_n(dev, 0, c, 2);
	assert_int_equal(fdma_inflight(dev, 0), 0);
	/* Two requests of 16 descriptors each are two transfers in flight, not 32. */
	assert_int_equal(n, 2);
	fdma_close(dev);
}

/* Caller memory registered with fdma_buf_register() is used for DMA in place. */
static void test_register_caller_memory(void **state)
{
	const size_t sz = 1 << 20;
	struct fdma_dev *dev = sim_open("sim:paced=0");
	uint8_t *s = aligned_alloc(4096, sz), *d = aligned_alloc(4096, sz + 8192);
	int hs, hd;

	(void)state;
	assert_non_null(s);
	assert_non_null(d);
	hs = fdma_buf_register(dev, s, sz);
	assert_fdma_ok(dev, hs);
	/* Registered with a 4 KiB guard either side. */
	hd = fdma_buf_register(dev, d + 4096, sz);
	assert_fdma_ok(dev, hd);
	assert_ptr_equal(fdma_buf_addr(dev, hs), s);
	assert_ptr_equal(fdma_buf_addr(dev, hd), d + 4096);
	assert_int_equal(fdma_buf_size(dev, hs), sz);
	pattern_fill(s, sz, 31337);
	memset(d, 0x77, sz + 8192);
	xfer1(dev, 0, hs, 0, 0x200000, sz, 1);
	xfer1(dev, 1, hd, 0, 0x200000, sz, 2);
	assert_bytes(d, 4096, 0x77);
	assert_pattern(d + 4096, sz, 31337);
	assert_bytes(d + 4096 + sz, 4096, 0x77);
	/* Partial, at an offset inside the registered region. */
	memset(d + 4096, 0x77, sz);
	xfer1(dev, 1, hd, 65536, 0x200000 + 4096, 8192, 3);
	assert_bytes(d, 4096 + 65536, 0x77);
	assert_pattern_at(d + 4096 + 65536, 8192, 31337, 4096);
	assert_bytes(d + 4096 + 65536 + 8192, sz - 65536 - 8192 + 4096, 0x77);

	/* Unregistering gives the memory back to the caller, untouched. */
	assert_fdma_ok(dev, fdma_buf_free(dev, hs));
	assert_fdma_ok(dev, fdma_buf_free(dev, hd));
	assert_null(fdma_buf_addr(dev, hs));
	assert_int_equal(fdma_buf_size(dev, hd), 0);
	assert_pattern(s, sz, 31337);
	fdma_close(dev);
	/* Still the caller's after close: writable, and freed by the caller. */
	memset(s, 0, sz);
	free(s);
	free(d);
}

/* FDMA_BUF_HUGEPAGE is accepted (with or without huge pages on the machine). */
static void test_hugepage_flag(void **state)
{
	const size_t sz = 4u << 20;
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int hs = sim_buf(dev, sz, FDMA_BUF_HUGEPAGE);
	int hd = sim_buf(dev, sz + 4096, FDMA_BUF_HUGEPAGE);
	uint8_t *d = fdma_buf_addr(dev, hd);

	(void)state;
	assert_int_equal((uintptr_t)fdma_buf_addr(dev, hs) % 4096, 0);
	pattern_fill(fdma_buf_addr(dev, hs), sz, 99);
	memset(d, 0x42, sz + 4096);
	xfer1(dev, 0, hs, 0, 0, sz, 1);
	xfer1(dev, 1, hd, 4096, 0, sz, 2);
	assert_bytes(d, 4096, 0x42);
	assert_pattern(d + 4096, sz, 99);
	assert_fdma_ok(dev, fdma_buf_free(dev, hs));
	assert_fdma_ok(dev, fdma_buf_free(dev, hd));
	assert_null(fdma_buf_addr(dev, hs));
	fdma_close(dev);
}

/* Freed handles are reused: more allocations than the handle table holds all succeed. */
static void test_buffers_freed(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int first = -1;

	(void)state;
	for (int i = 0; i < 5000; i++) {
		int h = fdma_buf_alloc(dev, 4096, 0);

		assert_fdma_ok(dev, h);
		if (first < 0)
			first = h;
		assert_fdma_ok(dev, fdma_buf_free(dev, h));
	}
	/* A handle freed is usable again, with its new contents moved correctly. */
	{
		int h = sim_buf(dev, 8192, 0);
		struct fdma_chan_stats st;

		assert_int_equal(h, first);
		pattern_fill(fdma_buf_addr(dev, h), 8192, 5);
		xfer1(dev, 0, h, 0, 0x4000, 8192, 9);
		memset(fdma_buf_addr(dev, h), 0, 8192);
		xfer1(dev, 1, h, 0, 0x4000, 8192, 10);
		assert_pattern(fdma_buf_addr(dev, h), 8192, 5);
		assert_fdma_ok(dev, fdma_buf_free(dev, h));
		sim_stats(dev, 0, &st);
		assert_int_equal(st.transfers, 1);
	}
	fdma_close(dev);
}

/* Fail the test unless dev holds n buffer handles spanning bytes bytes. */
#define assert_bufs(dev, n, bytes) assert_bufs_at((dev), (n), (bytes), __FILE__, __LINE__)
static void assert_bufs_at(struct fdma_dev *dev, int n, uint64_t bytes, const char *file, int line)
{
	uint64_t got = ~0ull;
	int ret = fdma_buf_count(dev, &got), ret_null = fdma_buf_count(dev, NULL);

	if (ret != n || got != bytes || ret_null != n) {
		print_error("fdma_buf_count() = %d (%d without bytes), %" PRIu64
			    " bytes; expected %d handles, %" PRIu64 " bytes\n",
			    ret, ret_null, got, n, bytes);
		_fail(file, line);
	}
}

/*
 * fdma_buf_count(): every kind of handle counts, with the size it was
 * given (not the pages behind it), until it is freed; a free that fails
 * (unknown handle, transfers in flight) changes nothing, and a device
 * with every buffer freed holds none.
 */
static void test_buf_count(void **state)
{
	const size_t odd = 5000, reg = 8192, imp = 8192, sbuf = 16384;
	struct fdma_dev *dev = sim_open("sim:paced=0");
	uint8_t *mem = aligned_alloc(4096, reg);
	uint64_t bytes = 7, want;
	struct fdma_stream *s;
	struct fdma_req r;
	struct fdma_cpl c;
	int a, b, hr, hi = -1, ch, n;

	(void)state;
	assert_non_null(mem);
	assert_bufs(dev, 0, 0);
	assert_int_equal(fdma_buf_count(NULL, &bytes), -EBADF);
	assert_int_equal(bytes, 7);

	a = sim_buf(dev, 65536, 0);
	assert_bufs(dev, 1, 65536);
	b = sim_buf(dev, odd, 0);
	assert_bufs(dev, 2, 65536 + odd);
	hr = fdma_buf_register(dev, mem, reg);
	assert_fdma_ok(dev, hr);
	want = 65536 + odd + reg;
	assert_bufs(dev, 3, want);
	/* A memfd stands in for a dma-buf on the simulated device; a driver takes only dma-bufs. */
	if (!sim_target()) {
		int m = memfd_create("fdma-test", MFD_CLOEXEC);

		assert_true(m >= 0);
		assert_int_equal(ftruncate(m, 4 * 4096), 0);
		hi = fdma_buf_import_dmabuf(dev, m, 4096, imp);
		assert_fdma_ok(dev, hi);
		/* The handle holds the memory, not the fd. */
		close(m);
		want += imp;
		assert_bufs(dev, 4, want);
	}
	n = hi >= 0 ? 4 : 3;

	/* A stream's own buffers are handles too, until it closes. */
	ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	if (ch >= 0) {
		assert_fdma_ok(dev, fdma_stream_open(dev, ch, 4, sbuf, &s));
		assert_bufs(dev, n + 4, want + 4 * sbuf);
		fdma_stream_close(s);
		assert_bufs(dev, n, want);
	}

	/* Failed frees: unknown handles (the table's last of 4096, unused; none), busy. */
	assert_fdma_err(dev, fdma_buf_free(dev, 4095), -EBADF, "unknown buffer handle");
	assert_fdma_err(dev, fdma_buf_free(dev, -1), -EBADF, "unknown buffer handle");
	assert_bufs(dev, n, want);
	r = (struct fdma_req){ .buf = a, .len = 65536, .user_data = 1 };
	assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
	assert_fdma_err(dev, fdma_buf_free(dev, a), -EBUSY, "in flight");
	assert_bufs(dev, n, want);
	sim_reap_n(dev, 0, &c, 1);
	assert_int_equal(c.res, 0);

	/* Each free takes its handle and its bytes off, whatever its kind. */
	assert_fdma_ok(dev, fdma_buf_free(dev, a));
	want -= 65536;
	assert_bufs(dev, --n, want);
	assert_fdma_ok(dev, fdma_buf_free(dev, hr));
	want -= reg;
	assert_bufs(dev, --n, want);
	if (hi >= 0) {
		assert_fdma_ok(dev, fdma_buf_free(dev, hi));
		want -= imp;
		assert_bufs(dev, --n, want);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, b));
	assert_bufs(dev, 0, 0);
	/* Freeing again fails and leaves none. */
	assert_fdma_err(dev, fdma_buf_free(dev, b), -EBADF, "unknown buffer handle");
	assert_bufs(dev, 0, 0);
	/*
	 * As many buffers as the device takes, each counted: on the simulated
	 * device until the 4096 bus windows it shares with the channel rings
	 * run out; a driver may refuse sooner (RLIMIT_MEMLOCK).
	 */
	{
		static int h[4096];
		int got = 0, ret = 0;

		while (got < 4096 && (ret = fdma_buf_alloc(dev, 4096, 0)) >= 0)
			h[got++] = ret;
		assert_true(got > 0);
		if (!sim_target())
			assert_fdma_err(dev, ret, -ENOSPC, "no free");
		assert_bufs(dev, got, (uint64_t)got * 4096);
		while (got > 0) {
			assert_fdma_ok(dev, fdma_buf_free(dev, h[--got]));
			assert_bufs(dev, got, (uint64_t)got * 4096);
		}
	}
	fdma_close(dev);
	/* A closed device: the common error, *bytes untouched. */
	bytes = 7;
	assert_int_equal(fdma_buf_count(dev, &bytes), -EBADF);
	assert_int_equal(bytes, 7);
	free(mem);
}

/* Allocate and free buffers of 4 to 28 KiB, one at a time; done set at the end. */
struct churn {
	struct fdma_dev *dev;
	int iters;
	_Atomic int done;
	char err[256];		/* empty: passed */
};

static void *churn_bufs(void *arg)
{
	struct churn *w = arg;

	for (int i = 0; i < w->iters; i++) {
		int h = fdma_buf_alloc(w->dev, 4096 * (size_t)(1 + i % 7), 0);

		if (h < 0 || fdma_buf_free(w->dev, h)) {
			snprintf(w->err, sizeof(w->err), "iteration %d: %s", i, fdma_errmsg(w->dev));
			break;
		}
	}
	atomic_store(&w->done, 1);
	return NULL;
}

/*
 * fdma_buf_count() from one thread while another allocates and frees: each
 * count is the one buffer kept, or that and the other thread's buffer of
 * the moment, with its bytes (and, under TSan, without a data race on a
 * slot freed and taken again as it is read).
 */
static void test_buf_count_racing(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	struct churn w = { .dev = dev, .iters = 5000 };
	int keep = sim_buf(dev, 65536, 0), n;
	long counts = 0, twos = 0;
	pthread_t t;
	uint64_t bytes;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, churn_bufs, &w), 0);
	while (!atomic_load(&w.done)) {
		n = fdma_buf_count(dev, &bytes);
		counts++;
		if (n == 1 && bytes == 65536)
			continue;
		if (n == 2 && bytes > 65536 && bytes <= 65536 + 7 * 4096 && bytes % 4096 == 0) {
			twos++;
			continue;
		}
		print_error("fdma_buf_count() = %d, %" PRIu64 " bytes, racing one alloc/free at a time\n",
			    n, bytes);
		atomic_store(&w.done, 1);
		pthread_join(t, NULL);
		fail();
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	if (w.err[0])
		fail_msg("the allocating thread: %s", w.err);
	print_message("%ld counts, %ld with the other thread's buffer\n", counts, twos);
	assert_true(counts > 0);
	assert_bufs(dev, 1, 65536);
	assert_fdma_ok(dev, fdma_buf_free(dev, keep));
	assert_bufs(dev, 0, 0);
	fdma_close(dev);
}

/* ---- two threads, one channel pair each ------------------------------------- */

struct worker {
	struct fdma_dev *dev;
	int h2c, c2h;
	uint64_t card_base;
	int iters;
	char err[512];		/* empty: passed */
	uint64_t moved;
};

#define WFAIL(w, ...) do { snprintf((w)->err, sizeof((w)->err), __VA_ARGS__); goto out; } while (0)

static int worker_reap(struct worker *w, int ch, struct fdma_cpl *c, unsigned int n)
{
	unsigned int got = 0;
	int64_t end = sim_now_us() + SIM_TIMEOUT_US;

	while (got < n) {
		int64_t left = end - sim_now_us();
		int r;

		/* A negative timeout would mean "no limit": never pass one. */
		if (left <= 0)
			return -ETIMEDOUT;
		r = fdma_reap(w->dev, ch, c + got, n - got, n - got, left);
		if (r < 0)
			return r;
		got += (unsigned int)r;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	enum { N = 16, SZ = 65536 };
	struct worker *w = arg;
	int src = fdma_buf_alloc(w->dev, N * SZ, 0), dst = fdma_buf_alloc(w->dev, N * SZ, 0);
	uint8_t *s, *d;

	if (src < 0 || dst < 0)
		WFAIL(w, "fdma_buf_alloc: %d %d", src, dst);
	s = fdma_buf_addr(w->dev, src);
	d = fdma_buf_addr(w->dev, dst);
	for (int it = 0; it < w->iters; it++) {
		struct fdma_req r[N];
		struct fdma_cpl c[N];
		uint64_t seed = w->card_base * 31 + (uint64_t)it;
		long long bad;
		int ret;

		pattern_fill(s, N * SZ, seed);
		memset(d, 0xcc, N * SZ);
		for (int i = 0; i < N; i++)
			r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * SZ,
						  .card_addr = w->card_base + (uint64_t)i * SZ,
						  .len = SZ, .user_data = seed + (uint64_t)i };
		ret = fdma_submit(w->dev, w->h2c, r, N);
		if (ret != N)
			WFAIL(w, "iter %d: H2C submit = %d", it, ret);
		ret = worker_reap(w, w->h2c, c, N);
		if (ret)
			WFAIL(w, "iter %d: H2C reap = %d", it, ret);
		for (int i = 0; i < N; i++)
			if (c[i].res || c[i].len != SZ || c[i].user_data != seed + (uint64_t)i)
				WFAIL(w, "iter %d: H2C completion %d: res %d len %llu ud %llu", it, i,
				      c[i].res, (unsigned long long)c[i].len,
				      (unsigned long long)c[i].user_data);
		for (int i = 0; i < N; i++) {
			r[i].buf = dst;
			r[i].user_data = ~r[i].user_data;
		}
		ret = fdma_submit(w->dev, w->c2h, r, N);
		if (ret != N)
			WFAIL(w, "iter %d: C2H submit = %d", it, ret);
		ret = worker_reap(w, w->c2h, c, N);
		if (ret)
			WFAIL(w, "iter %d: C2H reap = %d", it, ret);
		for (int i = 0; i < N; i++)
			if (c[i].res || c[i].len != SZ || c[i].user_data != ~(seed + (uint64_t)i))
				WFAIL(w, "iter %d: C2H completion %d: res %d len %llu", it, i,
				      c[i].res, (unsigned long long)c[i].len);
		bad = pattern_find_bad(d, N * SZ, seed, 0);
		if (bad >= 0)
			WFAIL(w, "iter %d: read-back byte %lld differs", it, bad);
		w->moved += 2ull * N * SZ;
	}
	if (fdma_buf_free(w->dev, src) || fdma_buf_free(w->dev, dst))
		WFAIL(w, "fdma_buf_free failed");
out:
	return NULL;
}

static void test_two_threads_two_channels(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,channels=2,mem=64M");
	struct fdma_info info;
	struct worker w[2];
	pthread_t t[2];

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	assert_int_equal(info.nchan, 6);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(info.chan[i].kind, FDMA_KIND_MM);
		assert_int_equal(info.chan[i].dir, i & 1 ? FDMA_C2H : FDMA_H2C);
	}
	for (int i = 0; i < 2; i++) {
		w[i] = (struct worker){ .dev = dev, .h2c = 2 * i, .c2h = 2 * i + 1,
					.card_base = (uint64_t)i * (32ull << 20), .iters = 12 };
		assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < 2; i++) {
		struct fdma_chan_stats st;

		if (w[i].err[0])
			fail_msg("thread %d: %s", i, w[i].err);
		assert_int_equal(w[i].moved, 2ull * 12 * 16 * 65536);
		sim_stats(dev, 2 * i, &st);
		assert_int_equal(st.transfers, 12 * 16);
		assert_int_equal(st.completions, 12 * 16);
		assert_int_equal(st.bytes, 12ull * 16 * 65536);
		assert_int_equal(st.errors, 0);
		sim_stats(dev, 2 * i + 1, &st);
		assert_int_equal(st.completions, 12 * 16);
	}
	/* Each thread's card region holds its last pattern: no cross-talk. */
	for (int i = 0; i < 2; i++) {
		int h = sim_buf(dev, 16 * 65536, 0);

		xfer1(dev, 1, h, 0, (uint64_t)i * (32ull << 20), 16 * 65536, 7);
		assert_pattern(fdma_buf_addr(dev, h), 16 * 65536, (uint64_t)i * (32ull << 20) * 31 + 11);
		assert_fdma_ok(dev, fdma_buf_free(dev, h));
	}
	fdma_close(dev);
}

/*
 * Odd lengths at odd host and card offsets, where the memory-mapped
 * channels take any byte (XDMA: PG195 puts no alignment on AXI-MM): 4100
 * bytes at card 0x1003 from buffer offset 3, then 100 bytes and 1 byte,
 * each read back to another odd buffer offset. The bytes around every
 * range, on the card and in the host buffers, must not change.
 */
static void test_odd_offsets(void **state)
{
	static const struct {
		uint64_t card, len, off, back;
	} xs[] = {
		{ 0x1003, 4100, 3, 5 },
		{ 0x2001, 100, 4095, 1 },
		{ 0x3fff, 1, 7, 4097 },
	};
	const uint64_t around = 16384, bufsz = 3 * 4096;
	struct fdma_dev *dev = sim_open("sim:paced=0,mem=64M");
	int h2c = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	int c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	int bg, src, dst, all;
	uint8_t *s, *d, *a;

	(void)state;
	assert_true(h2c >= 0 && c2h >= 0);
	if (fdma_chan_align(dev, h2c) > 1 || fdma_chan_align(dev, c2h) > 1) {
		int al = fdma_chan_align(dev, h2c);

		fdma_close(dev);
		print_message("needs memory-mapped channels that take any byte; this device's align %d: skipped\n",
			      al);
		t_skip();
	}
	bg = sim_buf(dev, around, 0);
	src = sim_buf(dev, bufsz, 0);
	dst = sim_buf(dev, bufsz, 0);
	all = sim_buf(dev, around, 0);
	s = fdma_buf_addr(dev, src);
	d = fdma_buf_addr(dev, dst);
	a = fdma_buf_addr(dev, all);
	/* Card [0, 16 KiB): a background every write must leave alone around its range. */
	pattern_fill_at(fdma_buf_addr(dev, bg), around, 0x5a, 0);
	xfer1(dev, h2c, bg, 0, 0, around, 1);
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		uint64_t seed = 77 + i, card = xs[i].card, len = xs[i].len;

		memset(s, 0xcc, bufsz);
		pattern_fill(s + xs[i].off, len, seed);
		xfer1(dev, h2c, src, xs[i].off, card, len, 10 + i);
		/* The source is read only where asked. */
		assert_bytes(s, xs[i].off, 0xcc);
		assert_pattern(s + xs[i].off, len, seed);
		assert_bytes(s + xs[i].off + len, bufsz - xs[i].off - len, 0xcc);
		/* Back into another odd offset: exactly len bytes land. */
		memset(d, 0xee, bufsz);
		xfer1(dev, c2h, dst, xs[i].back, card, len, 20 + i);
		assert_bytes(d, xs[i].back, 0xee);
		assert_pattern(d + xs[i].back, len, seed);
		assert_bytes(d + xs[i].back + len, bufsz - xs[i].back - len, 0xee);
		/* On the card, the background around the range is intact. */
		xfer1(dev, c2h, all, 0, 0, around, 30 + i);
		assert_pattern_at(a, card, 0x5a, 0);
		assert_pattern(a + card, len, seed);
		assert_pattern_at(a + card + len, around - card - len, 0x5a, card + len);
		/* The background back for the next range. */
		xfer1(dev, h2c, bg, 0, 0, around, 40 + i);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, bg));
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	assert_fdma_ok(dev, fdma_buf_free(dev, all));
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_and_offsets),
		cmocka_unit_test(test_odd_offsets),
		cmocka_unit_test(test_batches_user_data),
		cmocka_unit_test(test_split_at_maxdesc),
		cmocka_unit_test(test_inflight_counts_transfers),
		cmocka_unit_test(test_register_caller_memory),
		cmocka_unit_test(test_hugepage_flag),
		cmocka_unit_test(test_buffers_freed),
		cmocka_unit_test(test_buf_count),
		cmocka_unit_test(test_buf_count_racing),
		cmocka_unit_test(test_two_threads_two_channels),
	};

	return T_RUN(tests);
}
