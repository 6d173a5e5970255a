// SPDX-License-Identifier: MIT
/*
 * Memory-to-memory channels through the ioctl interface (FDMA_IOC_COPY,
 * uapi_version 5), completions read from the mmap'ed completion queue.
 * The model runs with memcpy=N (tests/vm/run.sh gives it 2 by default).
 *
 * ioc_copy_info: uapi_version >= 5, FDMA_FEAT_MEMCPY, a channel with
 *   FDMA_IOC_CAP_MEM2MEM and no other capability bit.
 * ioc_copy_alloc: driver buffers, copies of sizes from one alignment unit
 *   to 4 MiB at several offsets in one batch, into the middle of guarded
 *   ranges; every byte and every guard checked, the source unchanged.
 * ioc_copy_user: registered memory that starts off a page boundary on both
 *   sides (pieces split where either side's pages end), and copies between
 *   a driver buffer and registered memory both ways; every byte checked.
 * ioc_copy_same: within one buffer, disjoint ranges (adjacent included)
 *   copy; overlapping ones are EINVAL.
 * ioc_copy_bad: every bad argument with its errno and nothing queued
 *   (the driver's transfer count unchanged): FDMA_IOC_COPY on another kind
 *   of channel and FDMA_IOC_SUBMIT on this one (EOPNOTSUPP), unknown
 *   handles (EBADF), ranges (ERANGE), zero or misaligned lengths and
 *   offsets, flags, reserved fields, counts, channels (EINVAL); a batch
 *   over the ring (E2BIG).
 * ioc_copy_busy: neither buffer of a copy in flight can be freed (EBUSY),
 *   both can once it is reaped.
 * ioc_copy_leaks: buffers and pinned pages back to where they were.
 */
#include "vmioc.h"

static struct vi_dev d;

static int collect(const char *T, int n, struct fdma_cq_entry *e)
{
	char why[200];
	int ret = vi_collect(&d, d.mem, e, n, 20000000);

	if (ret) {
		vt_fail(T, "completions of %d copies: %s", n, strerror(-ret));
		return -1;
	}
	if (vi_check_cpl(e, n, 0, 0, why, sizeof(why))) {
		vt_fail(T, "%s", why);
		return -1;
	}
	return 0;
}

/*
 * Copies of the given sizes from src (a fresh pattern per copy) into dst,
 * each into its own range with a guard of one alignment unit after it; one
 * batch. The guard bytes, the copies and the source are all checked.
 */
static int copy_batch(const char *T, struct vi_buf *src, uint64_t soff, struct vi_buf *dst,
		      uint64_t doff, const uint64_t *sizes, int n, uint64_t seed)
{
	static struct fdma_cq_entry e[64];
	struct fdma_ioc_copy c[64];
	uint64_t a = d.info.align, s = soff, t = doff;

	memset(dst->p, 0xa5, dst->size);
	for (int i = 0; i < n; i++) {
		if (s + sizes[i] > src->size || t + sizes[i] > dst->size) {
			vt_fail(T, "test set-up: copy %d does not fit its buffers", i);
			return -1;
		}
		vt_fill(src->p + s, sizes[i], seed + (uint64_t)i);
		c[i] = (struct fdma_ioc_copy){ .src_handle = src->handle, .dst_handle = dst->handle,
					       .src_offset = s, .dst_offset = t, .len = sizes[i],
					       .user_data = (uint64_t)i };
		s += sizes[i] + a;
		t += sizes[i] + a;
	}
	if (vi_copy(&d, d.mem, c, (uint32_t)n)) {
		vt_fail(T, "FDMA_IOC_COPY of %d copies: %s", n, strerror(errno));
		return -1;
	}
	if (collect(T, n, e))
		return -1;
	for (int i = 0; i < n; i++) {
		long bad = vt_check(dst->p + c[i].dst_offset, sizes[i], seed + (uint64_t)i);

		if (e[i].len != c[e[i].user_data].len) {
			vt_fail(T, "copy %llu: %llu bytes copied of %llu",
				(unsigned long long)e[i].user_data, (unsigned long long)e[i].len,
				(unsigned long long)c[e[i].user_data].len);
			return -1;
		}
		if (bad >= 0) {
			vt_fail(T, "copy %d (%llu bytes, %s to %s): byte %ld differs", i,
				(unsigned long long)sizes[i], src->raw ? "registered" : "allocated",
				dst->raw ? "registered" : "allocated", bad);
			return -1;
		}
		/* The guard after it, where the buffer has room for one. */
		for (uint64_t g = 0; g < a && c[i].dst_offset + sizes[i] + g < dst->size; g++)
			if (dst->p[c[i].dst_offset + sizes[i] + g] != 0xa5) {
				vt_fail(T, "copy %d: guard byte %llu after it overwritten", i,
					(unsigned long long)g);
				return -1;
			}
		if (vt_check(src->p + c[i].src_offset, sizes[i], seed + (uint64_t)i) >= 0) {
			vt_fail(T, "copy %d: the source changed", i);
			return -1;
		}
	}
	return 0;
}

static const uint64_t SIZES_SMALL[] = { 1, 2, 63, 64, 65, 100, 1024 };	/* x align */

static void copy_alloc(void)
{
	const char *T = "ioc_copy_alloc";
	uint64_t a = d.info.align, sizes[10];
	struct vi_buf src, dst;
	int n = 0;

	for (unsigned int i = 0; i < sizeof(SIZES_SMALL) / sizeof(SIZES_SMALL[0]); i++)
		sizes[n++] = SIZES_SMALL[i] * a;
	sizes[n++] = 4096;
	sizes[n++] = 1 << 20;
	sizes[n++] = 2 << 20;
	if (vi_alloc(&d, 4 << 20, &src) || vi_alloc(&d, 4 << 20, &dst)) {
		vt_fail(T, "allocate two 4 MiB buffers: %s", strerror(errno));
		return;
	}
	if (!copy_batch(T, &src, 0, &dst, a, sizes, n, 100) &&
	    !copy_batch(T, &src, 3 * a, &dst, 0, sizes, n, 200)) {
		/* One copy of a whole buffer. */
		uint64_t all = 4 << 20;

		if (!copy_batch(T, &src, 0, &dst, 0, &all, 1, 300))
			vt_pass(T);
	}
	vi_free(&d, &src);
	vi_free(&d, &dst);
}

static void copy_user(void)
{
	const char *T = "ioc_copy_user";
	uint64_t a = d.info.align, sizes[10];
	struct vi_buf ru, rv, al;
	int n = 0, ok = 1;

	for (unsigned int i = 0; i < sizeof(SIZES_SMALL) / sizeof(SIZES_SMALL[0]); i++)
		sizes[n++] = SIZES_SMALL[i] * a;
	sizes[n++] = 3 * 4096 + a;
	sizes[n++] = 128 << 10;
	/*
	 * Different skews: the two sides' page boundaries do not line up, so a
	 * copy takes a piece per page of either side. The batch stays within
	 * a ring of 256 (the size this test runs with).
	 */
	if (vi_register(&d, 2 << 20, 5 * a, &ru) || vi_register(&d, 2 << 20, 11 * a, &rv) ||
	    vi_alloc(&d, 2 << 20, &al)) {
		vt_fail(T, "register 2 x 2 MiB and allocate 2 MiB: %s", strerror(errno));
		return;
	}
	ok = !copy_batch(T, &ru, 0, &rv, a, sizes, n, 400) &&
	     !copy_batch(T, &ru, a, &al, 0, sizes, n, 500) &&
	     !copy_batch(T, &al, 2 * a, &rv, 0, sizes, n, 600);
	if (ok)
		vt_pass(T);
	vi_free(&d, &ru);
	vi_free(&d, &rv);
	vi_free(&d, &al);
}

static void copy_same(void)
{
	const char *T = "ioc_copy_same";
	const uint64_t half = 512 << 10;
	struct fdma_ioc_copy c = { 0 };
	struct fdma_cq_entry e;
	struct vi_buf b;
	long bad;

	if (vi_alloc(&d, 2 * half, &b)) {
		vt_fail(T, "allocate 1 MiB: %s", strerror(errno));
		return;
	}
	vt_fill(b.p, half, 700);
	/* The first half onto the second: adjacent ranges. */
	c = (struct fdma_ioc_copy){ .src_handle = b.handle, .dst_handle = b.handle,
				    .dst_offset = half, .len = half, .user_data = 0 };
	if (vi_copy(&d, d.mem, &c, 1) || collect(T, 1, &e))
		goto out;
	bad = vt_check(b.p + half, half, 700);
	if (bad >= 0 || vt_check(b.p, half, 700) >= 0) {
		vt_fail(T, "copy within one buffer: byte %ld differs", bad);
		goto out;
	}
	for (int k = 0; k < 3; k++) {
		/* Forwards by one unit, backwards by one unit, onto itself. */
		uint64_t s = k == 1 ? d.info.align : 0, t = k == 0 ? d.info.align : 0;

		c = (struct fdma_ioc_copy){ .src_handle = b.handle, .dst_handle = b.handle,
					    .src_offset = s, .dst_offset = t, .len = 8192 };
		if (vi_copy(&d, d.mem, &c, 1) != -EINVAL) {
			vt_fail(T, "overlapping copy %llu -> %llu: %s, expected EINVAL",
				(unsigned long long)s, (unsigned long long)t, strerror(errno));
			goto out;
		}
	}
	vt_pass(T);
out:
	vi_free(&d, &b);
}

static void copy_bad(void)
{
	const char *T = "ioc_copy_bad";
	uint64_t a = d.info.align;
	struct vi_buf x, y;
	struct fdma_ioc_stats s0, s1;
	struct fdma_ioc_copy ok, c, many[2];
	struct fdma_ioc_copy_submit cs;
	struct fdma_ioc_req r = { 0 };
	int fails = 0;

	if (vi_alloc(&d, 65536, &x) || vi_alloc(&d, 65536, &y)) {
		vt_fail(T, "allocate two buffers: %s", strerror(errno));
		return;
	}
	ok = (struct fdma_ioc_copy){ .src_handle = x.handle, .dst_handle = y.handle, .len = 4096 };
	vi_stats(&d, d.mem, &s0);
#define BAD(field, val, err)								\
	do {										\
		c = ok;									\
		c.field = (val);							\
		if (vi_copy(&d, d.mem, &c, 1) != -(err)) {				\
			vt_fail(T, #field " = " #val ": %s, expected " #err,		\
				strerror(errno));					\
			fails++;							\
		}									\
	} while (0)
	BAD(src_handle, 0, EBADF);
	BAD(src_handle, 9999, EBADF);
	BAD(dst_handle, 9999, EBADF);
	BAD(src_offset, 65536 - 2048, ERANGE);
	BAD(dst_offset, 1ull << 62, ERANGE);
	BAD(len, 65536 + a, ERANGE);
	BAD(len, 0, EINVAL);
	BAD(len, a / 2, EINVAL);
	BAD(src_offset, a / 2, EINVAL);
	BAD(dst_offset, a / 2, EINVAL);
	BAD(flags, FDMA_IOC_REQ_SOF, EINVAL);
	BAD(flags, 0x80, EINVAL);
	BAD(rsvd, 1, EINVAL);
#undef BAD
	/* The wrong call for the channel, both ways (a node of copy channels only has one). */
	if (d.h2c >= 0 && vi_copy(&d, d.h2c, &ok, 1) != -EOPNOTSUPP) {
		vt_fail(T, "FDMA_IOC_COPY on memory-mapped channel %d: %s, expected EOPNOTSUPP",
			d.h2c, strerror(errno));
		fails++;
	}
	r = (struct fdma_ioc_req){ .handle = x.handle, .len = 4096 };
	if (vi_submit(&d, d.mem, &r, 1) != -EOPNOTSUPP) {
		vt_fail(T, "FDMA_IOC_SUBMIT on memory-to-memory channel %d: %s, expected EOPNOTSUPP",
			d.mem, strerror(errno));
		fails++;
	}
	/* Counts, channels, reserved words, pointers. */
	cs = (struct fdma_ioc_copy_submit){ .chan = (uint32_t)d.mem, .count = 0,
					    .copies = (uintptr_t)&ok };
	if (!ioctl(d.fd, FDMA_IOC_COPY, &cs) || errno != EINVAL) {
		vt_fail(T, "count 0: %s, expected EINVAL", strerror(errno));
		fails++;
	}
	cs.count = FDMA_IOC_MAX_BATCH + 1;
	if (!ioctl(d.fd, FDMA_IOC_COPY, &cs) || errno != EINVAL) {
		vt_fail(T, "count over FDMA_IOC_MAX_BATCH: %s, expected EINVAL", strerror(errno));
		fails++;
	}
	cs.count = 1;
	cs.rsvd[2] = 1;
	if (!ioctl(d.fd, FDMA_IOC_COPY, &cs) || errno != EINVAL) {
		vt_fail(T, "reserved word set: %s, expected EINVAL", strerror(errno));
		fails++;
	}
	cs.rsvd[2] = 0;
	cs.chan = FDMA_IOC_MAX_CHAN;
	if (!ioctl(d.fd, FDMA_IOC_COPY, &cs) || errno != EINVAL) {
		vt_fail(T, "channel %d: %s, expected EINVAL", FDMA_IOC_MAX_CHAN, strerror(errno));
		fails++;
	}
	cs.chan = (uint32_t)d.mem;
	cs.copies = 16;
	if (!ioctl(d.fd, FDMA_IOC_COPY, &cs) || errno != EFAULT) {
		vt_fail(T, "copies pointer 16: %s, expected EFAULT", strerror(errno));
		fails++;
	}
	/* All or nothing: a good copy and a bad one queue neither. */
	many[0] = ok;
	many[1] = ok;
	many[1].len = 3;
	if (vi_copy(&d, d.mem, many, 2) != -EINVAL) {
		vt_fail(T, "a batch with a bad second copy: %s, expected EINVAL", strerror(errno));
		fails++;
	}
	vi_stats(&d, d.mem, &s1);
	if (s1.transfers != s0.transfers) {
		vt_fail(T, "%llu copies were queued by refused calls",
			(unsigned long long)(s1.transfers - s0.transfers));
		fails++;
	}
	/* And the channel still copies. */
	vt_fill(x.p, 4096, 800);
	if (!fails) {
		struct fdma_cq_entry e;

		if (vi_copy(&d, d.mem, &ok, 1) || collect(T, 1, &e))
			fails++;
		else if (vt_check(y.p, 4096, 800) >= 0)
			vt_fail(T, "the copy after the refused ones is wrong"), fails++;
	}
	if (!fails)
		vt_pass(T);
	vi_free(&d, &x);
	vi_free(&d, &y);
}

static void copy_busy(void)
{
	const char *T = "ioc_copy_busy";
	const size_t len = 4 << 20;
	struct vi_buf src, dst;
	struct fdma_cq_entry e[8];
	struct fdma_ioc_copy c[8];
	int rs, rd, ret, paced;

	/* 4 MiB: the most the driver allocates in one piece here (no CMA). */
	if (vi_alloc(&d, len, &src) || vi_alloc(&d, len, &dst)) {
		vt_fail(T, "allocate 2 x 4 MiB: %s", strerror(errno));
		return;
	}
	vt_fill(src.p, len, 900);
	for (int i = 0; i < 8; i++)
		c[i] = (struct fdma_ioc_copy){ .src_handle = src.handle, .dst_handle = dst.handle,
					       .len = len, .user_data = (uint64_t)i };
	/*
	 * The FDMA model paced at its link's speed for this: unpaced, it
	 * copied the 32 MiB before a slow guest (arm64 under TCG) got to the
	 * free, and the test lost its race.
	 */
	paced = !getenv("FDMA_VM_FAST") && !vi_model(d.name, "pace on");
	if (vi_copy(&d, d.mem, c, 8)) {
		vt_fail(T, "FDMA_IOC_COPY of 8 x 4 MiB: %s", strerror(errno));
		return;
	}
	/* 32 MiB: tens of ms on the paced model, more under emulation: still in flight. */
	rd = vi_free_raw(&d, dst.handle);
	rs = vi_free_raw(&d, src.handle);
	ret = collect(T, 8, e);
	if (paced)
		vi_model(d.name, "pace cfg");
	if (ret)
		return;
	/*
	 * A provider that copies at once (QEMU's ZDMA behind fdma_dmac) may
	 * have had them all reaped before the free: then a free may succeed,
	 * and only an answer other than 0 or EBUSY is wrong.
	 */
	if ((rd != -EBUSY || rs != -EBUSY) && (!getenv("FDMA_VM_FAST") || (rd && rd != -EBUSY) ||
					      (rs && rs != -EBUSY))) {
		vt_fail(T, "freeing the buffers of a copy in flight: destination %s, source %s, expected EBUSY",
			strerror(-rd), strerror(-rs));
		return;
	}
	if (rd != -EBUSY || rs != -EBUSY)
		vt_info("the copies were reaped before the free (destination %s, source %s)",
			strerror(-rd), strerror(-rs));
	if (vt_check(dst.p, len, 900) >= 0)
		vt_fail(T, "the 4 MiB copy is wrong at byte %ld", vt_check(dst.p, len, 900));
	else if ((!rs && munmap(src.p, len)) || (!rd && munmap(dst.p, len)) ||
		 (rs && vi_free(&d, &src)) || (rd && vi_free(&d, &dst)))
		vt_fail(T, "free after the copy: %s", strerror(errno));
	else
		vt_pass(T);
}

int main(void)
{
	const char *T = "ioc_copy_info";
	long long pinned0, bufs0;
	int ret = vi_open(&d, NULL);

	if (ret) {
		vt_fail(T, "open the fdma device: %s", strerror(-ret));
		return 1;
	}
	if (d.info.uapi_version < 5 || !(d.info.features & FDMA_FEAT_MEMCPY) || d.mem < 0 ||
	    d.info.chan_caps[d.mem] != FDMA_IOC_CAP_MEM2MEM) {
		vt_fail(T, "uapi_version %u, features 0x%x, memory-to-memory channel %d: the driver or the model (memcpy=N) lacks copies",
			d.info.uapi_version, d.info.features, d.mem);
		return 1;
	}
	if (vi_cq_map(&d, d.mem)) {
		vt_fail(T, "map channel %d's completion queue: %s", d.mem, strerror(errno));
		return 1;
	}
	vt_pass(T);
	pinned0 = vi_pinned(d.name);
	bufs0 = vi_nbufs(d.name);
	copy_alloc();
	copy_user();
	copy_same();
	copy_bad();
	copy_busy();
	vi_close(&d);
	if (vi_nbufs(d.name) != bufs0 || vi_pinned(d.name) != pinned0)
		vt_fail("ioc_copy_leaks", "after close: %lld buffers, %lld pinned pages (before: %lld, %lld)",
			vi_nbufs(d.name), vi_pinned(d.name), bufs0, pinned0);
	else
		vt_pass("ioc_copy_leaks");
	return vt_failed;
}
