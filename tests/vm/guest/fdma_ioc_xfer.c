// SPDX-License-Identifier: MIT
/*
 * Batched transfers through the ioctl interface, completions read from the
 * mmap'ed completion queue.
 *
 * ioc_batch_alloc: driver buffers (FDMA_IOC_BUF_ALLOC + mmap): batches of
 *   H2C requests from one buffer to card memory, then C2H batches back into
 *   another, every byte compared; request sizes from one alignment unit to
 *   several MiB.
 * ioc_batch_user: registered user memory (malloc'ed, 64-byte aligned but
 *   not page aligned, so the pages split requests into several engine
 *   requests folded into one completion), both directions, every byte
 *   compared, also mixed with a driver buffer; the pinned-page count rises
 *   by the pages registered and falls back when they are freed.
 * ioc_batch_twice: the same memory registered under two handles, the
 *   second 3 alignment units into the first: the device writes through
 *   one and reads the same bytes through the other, both ways, every byte
 *   compared. Each handle is a mapping of its own, synced per request
 *   through its own bus addresses; under swiotlb=force each has bounce
 *   buffers of its own, so a sync skipped or made through the other
 *   mapping moves stale bytes. Skipped where the DMA API's debug is on and
 *   nothing bounces: both mappings then have the same bus addresses, which
 *   its lookup cannot tell apart (it reports a sync of either as memory
 *   never mapped, see fdma_ioc_fuzz.c).
 * ioc_rate: batches of 32 with interrupt coalescing at 32 on both
 *   channels; completions taken from the mapped queue without a system
 *   call; from the driver's counters (FDMA_IOC_STATS) prints
 *   "VMTEST INFO syscalls_per_transfer=X interrupts_per_completion=Y" and
 *   checks X <= 1/32.
 */
#include "vmioc.h"

static struct vi_dev d;
static long long pinned0, bufs0;

/* Submit n requests (at most 1024) and collect them; 0 or -1 after vt_fail. */
static int run_batch(const char *T, int ch, struct fdma_ioc_req *r, int n, uint64_t base)
{
	static struct fdma_cq_entry e[FDMA_IOC_MAX_BATCH];
	char why[200];
	int ret;

	for (int i = 0; i < n; i++)
		r[i].user_data = base + (uint64_t)i;
	ret = vi_submit(&d, ch, r, (uint32_t)n);
	if (ret) {
		vt_fail(T, "submit of %d requests on channel %d: %s", n, ch, strerror(-ret));
		return -1;
	}
	ret = vi_collect(&d, ch, e, n, 10000000);
	if (ret) {
		vt_fail(T, "completions of %d requests on channel %d: %s", n, ch, strerror(-ret));
		return -1;
	}
	if (vi_check_cpl(e, n, base, 0, why, sizeof(why))) {
		vt_fail(T, "channel %d: %s", ch, why);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		uint64_t k = e[i].user_data - base;

		if (e[i].len != r[k].len) {
			vt_fail(T, "channel %d: request %llu moved %llu bytes of %llu", ch,
				(unsigned long long)k, (unsigned long long)e[i].len,
				(unsigned long long)r[k].len);
			return -1;
		}
	}
	return 0;
}

/*
 * Descriptors a request may need at worst: registered memory may be split
 * at every page; a request needing more than the ring holds is E2BIG.
 */
static uint32_t worst_desc(const struct vi_buf *b, uint64_t len)
{
	if (b->raw)
		return (uint32_t)(len / 4096 + 2);
	return (uint32_t)(len / d.info.max_desc_len + 2);
}

/*
 * Move [src_off, +len) of buffer src to card memory at card in requests of
 * the given sizes (cycled), then back into dst at dst_off, and compare.
 * Batches hold up to 32 requests, fewer if they could need more
 * descriptors than the ring has.
 */
static int roundtrip(const char *T, struct vi_buf *src, uint64_t src_off, struct vi_buf *dst,
		     uint64_t dst_off, uint64_t card, uint64_t len, const uint64_t *sizes, int nsizes,
		     uint64_t seed)
{
	static struct fdma_ioc_req r[FDMA_IOC_MAX_BATCH];
	uint64_t done = 0;
	uint32_t need = 0;
	int n = 0, k = 0;
	long bad;

	vt_fill(src->p + src_off, len, seed);
	memset(dst->p + dst_off, 0xa5, len);
	/* H2C, in batches of at most 32 requests. */
	while (done < len) {
		uint64_t sz = sizes[k++ % nsizes];

		if (sz > len - done)
			sz = len - done;
		if (n && need + worst_desc(src, sz) > d.info.ring_size) {
			if (run_batch(T, d.h2c, r, n, 1000))
				return -1;
			n = 0;
			need = 0;
		}
		r[n] = (struct fdma_ioc_req){ .handle = src->handle, .offset = src_off + done,
					      .card_addr = card + done, .len = sz };
		need += worst_desc(src, sz);
		done += sz;
		if (++n == 32 || done == len) {
			if (run_batch(T, d.h2c, r, n, 1000))
				return -1;
			n = 0;
			need = 0;
		}
	}
	done = 0;
	k = 0;
	while (done < len) {
		uint64_t sz = sizes[(k++ + 3) % nsizes];

		if (sz > len - done)
			sz = len - done;
		if (n && need + worst_desc(dst, sz) > d.info.ring_size) {
			if (run_batch(T, d.c2h, r, n, 5000))
				return -1;
			n = 0;
			need = 0;
		}
		r[n] = (struct fdma_ioc_req){ .handle = dst->handle, .offset = dst_off + done,
					      .card_addr = card + done, .len = sz };
		need += worst_desc(dst, sz);
		done += sz;
		if (++n == 32 || done == len) {
			if (run_batch(T, d.c2h, r, n, 5000))
				return -1;
			n = 0;
			need = 0;
		}
	}
	bad = vt_check(dst->p + dst_off, len, seed);
	if (bad >= 0) {
		vt_fail(T, "byte %ld of %llu read back wrong (0x%02x, expected 0x%02x)", bad,
			(unsigned long long)len, dst->p[dst_off + bad], vt_byte(seed, bad));
		return -1;
	}
	return 0;
}

static void batch_alloc(void)
{
	const char *T = "ioc_batch_alloc";
	uint64_t a = d.info.align;
	uint64_t sizes[] = { a, 4096, 3 * a, 65536, 12345 / a * a, 1 << 20, 3 << 20, 2 * a };
	struct vi_buf b1, b2;
	int ret;

	/* 4 MiB: physically contiguous memory without CMA tops out there. */
	ret = vi_alloc(&d, 4 << 20, &b1);
	if (!ret)
		ret = vi_alloc(&d, (4 << 20) - 4096, &b2);
	if (ret) {
		vt_fail(T, "allocate and map two 4 MiB buffers: %s", strerror(-ret));
		return;
	}
	if (roundtrip(T, &b1, 0, &b2, 0, 0, (4 << 20) - 4096, sizes, 8, 11) ||
	    roundtrip(T, &b1, 4096 + a, &b2, 3 * a, (16 << 20) + 7 * a, (2 << 20) + 5 * a,
		      sizes, 4, 12) ||
	    roundtrip(T, &b2, 0, &b1, a, 32 << 20, (4 << 20) - 4096, sizes + 5, 2, 13))
		goto out;
	vt_info("driver buffers: 3 round trips, %u-byte alignment, max descriptor %u",
		d.info.align, d.info.max_desc_len);
	vt_pass(T);
out:
	vi_free(&d, &b1);
	vi_free(&d, &b2);
}

static void batch_user(void)
{
	const char *T = "ioc_batch_user";
	uint64_t a = d.info.align;
	uint64_t sizes[] = { 4096, a, 3 * 4096 + 2 * a, 65536 + a, 256 << 10, 7 * a, 512 << 10 };
	size_t size = (6 << 20) + 3 * a;
	struct vi_buf u1, u2, k;
	long long p1;
	int ret;

	ret = vi_register(&d, size, 3 * a, &u1);
	if (!ret)
		ret = vi_register(&d, size, 17 * a, &u2);
	if (ret) {
		vt_fail(T, "register 2 x %zu bytes of malloc'ed memory: %s", size, strerror(-ret));
		return;
	}
	p1 = vi_pinned(d.name) - pinned0;
	/* 3a + size crosses into one more page than size / 4096 rounded up. */
	if (p1 < 2 * (long long)((size + 4095) / 4096)) {
		vt_fail(T, "pinned_pages rose by %lld for two buffers of %zu bytes", p1, size);
		goto out;
	}
	if (roundtrip(T, &u1, 0, &u2, 0, 0, size, sizes, 7, 21) ||
	    roundtrip(T, &u1, 4096 - a, &u2, a, (40 << 20) + a, (3 << 20) + 9 * a, sizes + 1, 5,
		      22))
		goto out;
	/* Registered to card, card back into a driver buffer. */
	ret = vi_alloc(&d, 4 << 20, &k);
	if (ret) {
		vt_fail(T, "allocate 4 MiB: %s", strerror(-ret));
		goto out;
	}
	ret = roundtrip(T, &u2, 5 * a, &k, 64 * a, 48 << 20, (3 << 20) + a, sizes, 7, 23) ||
	      roundtrip(T, &k, 0, &u1, 2 * a, 50 << 20, 4 << 20, sizes + 2, 3, 24);
	vi_free(&d, &k);
	if (ret)
		goto out;
	vt_info("registered memory: %lld pages pinned for 2 x %zu bytes; 4 round trips", p1, size);
out:
	vi_free(&d, &u1);
	vi_free(&d, &u2);
	if (vi_pinned(d.name) != pinned0)
		vt_fail(T, "pinned_pages %lld after freeing, %lld before", vi_pinned(d.name),
			pinned0);
	if (!vt_failed)
		vt_pass(T);
}

/* Register [p, + size) as it is; the handle or -errno. */
static long register_at(uint8_t *p, size_t size)
{
	struct fdma_ioc_buf_reg r = { .addr = (uintptr_t)p, .size = size };

	return ioctl(d.fd, FDMA_IOC_BUF_REGISTER, &r) ? -errno : (long)r.handle;
}

/*
 * One batch moving [off, + len) of buffer h to (h2c) or from card memory
 * at card, in requests of 3 pages and 5 alignment units (the last one
 * shorter); len at most 64 of them.
 */
static int move(const char *T, int h2c, uint32_t h, uint64_t off, uint64_t card,
		uint64_t len)
{
	static struct fdma_ioc_req r[64];
	uint64_t step = 3 * 4096 + 5 * d.info.align, done = 0;
	int n = 0;

	for (; done < len && n < 64; n++) {
		uint64_t sz = len - done < step ? len - done : step;

		r[n] = (struct fdma_ioc_req){ .handle = h, .offset = off + done,
					      .card_addr = card + done, .len = sz };
		done += sz;
	}
	return run_batch(T, h2c ? d.h2c : d.c2h, r, n, h2c ? 1000 : 5000);
}

/* 0, or -1 after vt_fail naming the first byte of [p, + n) not equal to want's. */
static int same(const char *T, const char *what, const uint8_t *p, const uint8_t *want,
		size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != want[i]) {
			vt_fail(T, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, n,
				p[i], want[i]);
			return -1;
		}
	return 0;
}

static void batch_twice(void)
{
	const char *T = "ioc_batch_twice";
	const char *swiotlb = getenv("fdmavm_swiotlb");
	uint64_t a = d.info.align, len = 128 << 10, sh = 3 * a;
	long ha = -1, hb = -1, bad;
	struct vi_buf k = { 0 };
	uint8_t *raw, *p, *want = NULL;
	char dis[8];

	if (!vt_read_str("/sys/kernel/debug/dma-api/disabled", dis, sizeof(dis)) &&
	    dis[0] == 'N' && !(swiotlb && !strcmp(swiotlb, "1"))) {
		printf("VMTEST SKIP %s: the DMA API's debug is on and the device is mapped directly: it cannot tell two mappings of the same memory apart\n",
		       T);
		fflush(stdout);
		return;
	}
	raw = malloc(len + sh + a + 8192);
	if (!raw) {
		vt_fail(T, "malloc: %s", strerror(errno));
		return;
	}
	/* A is [p, + len + sh), B is [p + sh, + len): all of B is in A. */
	p = (uint8_t *)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095) + a;
	memset(p, 0x5a, len + sh);
	ha = register_at(p, len + sh);
	hb = ha < 0 ? ha : register_at(p + sh, len);
	if (ha < 0 || hb < 0) {
		vt_fail(T, "register the same memory twice: %s", strerror((int)-(ha < 0 ? ha : hb)));
		goto out;
	}
	if (vi_alloc(&d, len, &k) || !(want = malloc(len))) {
		vt_fail(T, "allocate a driver buffer of %llu bytes: %s", (unsigned long long)len,
			strerror(errno));
		goto out;
	}
	/* Out through A, in through B (one shift along), out again through A. */
	vt_fill(p, len, 51);
	if (move(T, 1, (uint32_t)ha, 0, 0, len) || move(T, 0, (uint32_t)hb, 0, 0, len))
		goto out;
	bad = vt_check(p + sh, len, 51);
	if (bad >= 0) {
		vt_fail(T, "written through the second handle: byte %ld of %llu is 0x%02x, expected 0x%02x",
			bad, (unsigned long long)len, p[sh + bad], vt_byte(51, bad));
		goto out;
	}
	memset(k.p, 0xa5, len);
	if (move(T, 1, (uint32_t)ha, sh, 1 << 20, len) || move(T, 0, k.handle, 0, 1 << 20, len))
		goto out;
	bad = vt_check(k.p, len, 51);
	if (bad >= 0) {
		vt_fail(T, "read through the first handle what the device wrote through the second: byte %ld of %llu is 0x%02x, expected 0x%02x",
			bad, (unsigned long long)len, k.p[bad], vt_byte(51, bad));
		goto out;
	}
	/* In through A, out through B. */
	vt_fill(k.p, len, 52);
	if (move(T, 1, k.handle, 0, 2 << 20, len) || move(T, 0, (uint32_t)ha, 0, 2 << 20, len))
		goto out;
	bad = vt_check(p, len, 52);
	if (bad >= 0) {
		vt_fail(T, "written through the first handle: byte %ld of %llu is 0x%02x, expected 0x%02x",
			bad, (unsigned long long)len, p[bad], vt_byte(52, bad));
		goto out;
	}
	memcpy(want, p + sh, len - sh);
	memset(k.p, 0xa5, len);
	if (move(T, 1, (uint32_t)hb, 0, 3 << 20, len - sh) ||
	    move(T, 0, k.handle, 0, 3 << 20, len - sh) ||
	    same(T, "read through the second handle what the device wrote through the first",
		 k.p, want, len - sh))
		goto out;
	vt_pass(T);
out:
	if (k.handle)
		vi_free(&d, &k);
	if (hb > 0)
		vi_free_raw(&d, (uint32_t)hb);
	if (ha > 0)
		vi_free_raw(&d, (uint32_t)ha);
	free(want);
	free(raw);
}

/*
 * nb batches of 32 requests of len bytes on channel ch, two batches in
 * flight, completions taken from the mapped queue by polling its tail.
 * Returns the number of FDMA_IOC_WAIT fallbacks, or -1.
 */
static int rate_run(const char *T, int ch, struct vi_buf *b, int nb, uint32_t len)
{
	struct fdma_ioc_req r[32];
	int submitted = 0, done = 0, waits = 0;

	while (done < nb * 32) {
		if (submitted < nb && submitted - done / 32 < 2) {
			for (int i = 0; i < 32; i++)
				r[i] = (struct fdma_ioc_req){
					.handle = b->handle, .offset = (uint64_t)i * len,
					.card_addr = (uint64_t)(submitted * 32 + i) * len,
					.len = len, .user_data = (uint64_t)(submitted * 32 + i) };
			if (vi_submit(&d, ch, r, 32)) {
				vt_fail(T, "submit batch %d: %s", submitted, strerror(errno));
				return -1;
			}
			submitted++;
			continue;
		}
		/* Completions arrive without a system call; poll the tail a while. */
		double end = vt_now() + 5;
		uint32_t got;

		while (!(got = vi_cq_ready(&d, ch)) && vt_now() < end)
			;
		if (!got) {
			waits++;
			if (vi_wait(&d, ch, 1, 5000000, NULL)) {
				vt_fail(T, "channel %d: no completion: %s", ch, strerror(errno));
				return -1;
			}
		}
		struct fdma_cq_entry e[64];
		int n = vi_cq_take(&d, ch, e, 64);

		for (int i = 0; i < n; i++)
			if (e[i].res) {
				vt_fail(T, "channel %d: transfer %llu: %s", ch,
					(unsigned long long)e[i].user_data, strerror(-e[i].res));
				return -1;
			}
		done += n;
	}
	return waits;
}

static void rate(void)
{
	const char *T = "ioc_rate";
	struct fdma_ioc_stats s0[2], s1[2];
	int ch[2] = { d.h2c, d.c2h }, nb = 64, waits = 0;
	uint64_t sys = 0, xfers = 0, irqs = 0, cpls = 0;
	struct vi_buf b;
	double x, y;

	if (vi_alloc(&d, 32 * 4096, &b)) {
		vt_fail(T, "allocate: %s", strerror(errno));
		return;
	}
	vt_fill(b.p, b.size, 77);
	for (int i = 0; i < 2; i++) {
		int ret = vi_coalesce(&d, ch[i], 32, 0);

		if (ret) {
			vt_fail(T, "coalescing 32 on channel %d: %s", ch[i], strerror(-ret));
			goto out;
		}
		vi_stats(&d, ch[i], &s0[i]);
	}
	for (int i = 0; i < 2; i++) {
		int w = rate_run(T, ch[i], &b, nb, 4096);

		if (w < 0)
			goto out;
		waits += w;
	}
	for (int i = 0; i < 2; i++) {
		vi_stats(&d, ch[i], &s1[i]);
		sys += s1[i].syscalls - s0[i].syscalls;
		xfers += s1[i].transfers - s0[i].transfers;
		irqs += s1[i].interrupts - s0[i].interrupts;
		cpls += s1[i].completions - s0[i].completions;
	}
	x = xfers ? (double)sys / xfers : 1;
	y = cpls ? (double)irqs / cpls : 1;
	printf("VMTEST INFO syscalls_per_transfer=%.4f interrupts_per_completion=%.4f\n", x, y);
	vt_info("batch 32, coalescing 32, 4 KiB transfers, both directions: %llu transfers, %llu syscalls (submit + wait; %d waits), %llu interrupts for %llu completions",
		(unsigned long long)xfers, (unsigned long long)sys, waits,
		(unsigned long long)irqs, (unsigned long long)cpls);
	if (xfers != (uint64_t)nb * 64 || cpls != xfers)
		vt_fail(T, "counted %llu transfers and %llu completions, expected %d",
			(unsigned long long)xfers, (unsigned long long)cpls, nb * 64);
	else if (sys * 32 > xfers)
		vt_fail(T, "%.4f system calls per transfer, more than 1/32", x);
	else if (y >= 0.5)
		vt_fail(T, "%.4f interrupts per completion with coalescing 32", y);
	else
		vt_pass(T);
out:
	for (int i = 0; i < 2; i++)
		vi_coalesce(&d, ch[i], 0, 0);
	vi_free(&d, &b);
}

int main(void)
{
	int ret = vi_open(&d, NULL);

	if (ret) {
		vt_fail("ioc_batch_alloc", "open the fdma device: %s", strerror(-ret));
		return 1;
	}
	if (d.h2c < 0 || d.c2h < 0 || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h)) {
		vt_fail("ioc_batch_alloc", "no memory-mapped channel pair, or its queues do not map: %s",
			strerror(errno));
		return 1;
	}
	pinned0 = vi_pinned(d.name);
	bufs0 = vi_nbufs(d.name);
	batch_alloc();
	batch_user();
	batch_twice();
	rate();
	vi_close(&d);
	if (vi_nbufs(d.name) != bufs0 || vi_pinned(d.name) != pinned0)
		vt_fail("ioc_leaks", "after close: %lld buffers, %lld pinned pages (before: %lld, %lld)",
			vi_nbufs(d.name), vi_pinned(d.name), bufs0, pinned0);
	else
		vt_pass("ioc_leaks");
	return vt_failed;
}
