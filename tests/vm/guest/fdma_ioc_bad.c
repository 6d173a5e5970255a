// SPDX-License-Identifier: MIT
/*
 * Bad input to the ioctl interface.
 *
 * ioc_invalid: each ioctl with bad handles, ranges beyond the buffer or
 *   card memory, misalignment, zero lengths, huge counts, bad channels,
 *   flags and reserved fields, bad pointers; unknown ioctl numbers; bad
 *   mmap offsets, sizes and flags; a batch with one bad request in the
 *   middle (nothing of it is posted); a full ring and a full completion
 *   queue (EAGAIN); freeing a buffer in flight (EBUSY). Each is refused with
 *   the errno include/fdma_ioctl.h's users rely on, and the device works
 *   afterwards.
 * ioc_fuzz: at least 10,000 ioctls with random numbers among the real
 *   ioctl codes (and some near misses), random bytes in the structures,
 *   and, half of the time, plausible values with valid handles, channels
 *   and ranges; random mmaps. Then the device still works, and no pinned
 *   page, buffer or coherent byte is left. The memory it registers comes
 *   from slots of one pool, a slot per live buffer: no two of its buffers
 *   map the same memory (memory registered twice is ioc_batch_twice's, in
 *   fdma_ioc_xfer.c). On a device without an IOMMU both mappings of such
 *   memory have the same bus addresses, and the DMA API's debug cannot
 *   tell them apart: where both begin in one of its 8 KiB hash buckets, it
 *   reports a sync of either as memory the driver never mapped.
 */
#include <sys/eventfd.h>
#include <sys/time.h>

#include "vmioc.h"

static const char *T = "ioc_invalid";
static struct vi_dev d;
static char dev[64];
static long long pinned0, bufs0, coh0;
static int ncases;

static void expect(const char *what, int ret, int want)
{
	int e = errno;

	ncases++;
	if (!want) {
		if (ret)
			vt_fail(T, "%s: %s, expected success", what, strerror(e));
		return;
	}
	if (ret != -1 || e != want)
		vt_fail(T, "%s: returned %d (%s), expected %s", what, ret,
			ret ? strerror(e) : "success", strerror(want));
}

static void expect_map(const char *what, size_t len, int flags, uint64_t off, int want)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, d.fd, (off_t)off);

	if (p != MAP_FAILED) {
		munmap(p, len);
		expect(what, 0, want);
	} else {
		expect(what, -1, want);
	}
}

static int sub1(int ch, struct fdma_ioc_req r)
{
	struct fdma_ioc_submit s = { .chan = (uint32_t)ch, .count = 1, .reqs = (uintptr_t)&r };

	return ioctl(d.fd, FDMA_IOC_SUBMIT, &s);
}

static int roundtrip_ok(const char *TT)
{
	struct vi_buf a;
	struct fdma_ioc_req r;
	struct fdma_cq_entry e[2] = { { 0 } };
	uint8_t pat[4096], back[4096];
	/* The upper half of card memory, whatever its size (the RTL has 64 MiB). */
	uint64_t at = d.info.card_size / 2;

	if (vi_alloc(&d, 8192, &a)) {
		vt_fail(TT, "allocate: %s", strerror(errno));
		return 0;
	}
	vt_fill(a.p, 4096, 31337);
	memset(a.p + 4096, 0, 4096);
	r = (struct fdma_ioc_req){ .handle = a.handle, .len = 4096, .card_addr = at,
				   .user_data = 1 };
	if (vi_submit(&d, d.h2c, &r, 1) || vi_collect(&d, d.h2c, e, 1, 5000000) || e[0].res) {
		vt_fail(TT, "H2C after the bad input: %s / res %d", strerror(errno), e[0].res);
		vi_free(&d, &a);
		return 0;
	}
	r.offset = 4096;
	if (vi_submit(&d, d.c2h, &r, 1) || vi_collect(&d, d.c2h, e + 1, 1, 5000000) ||
	    e[1].res || vt_check(a.p + 4096, 4096, 31337) >= 0) {
		vt_fail(TT, "C2H after the bad input: %s / res %d / data", strerror(errno), e[1].res);
		vi_free(&d, &a);
		return 0;
	}
	vi_free(&d, &a);
	/* The simple path too. */
	vt_fill(pat, sizeof(pat), 4711);
	if (pwrite(d.fd, pat, sizeof(pat), at + (1 << 20)) != sizeof(pat) ||
	    pread(d.fd, back, sizeof(back), at + (1 << 20)) != sizeof(back) ||
	    memcmp(pat, back, sizeof(pat))) {
		vt_fail(TT, "pwrite/pread after the bad input: %s", strerror(errno));
		return 0;
	}
	return 1;
}

static void invalid(void)
{
	struct fdma_ioc_buf_alloc ba;
	struct fdma_ioc_buf_reg br;
	struct fdma_ioc_submit sb;
	struct fdma_ioc_wait w;
	struct fdma_ioc_coalesce co;
	struct fdma_ioc_testgen tg;
	struct fdma_ioc_drop dr;
	struct fdma_ioc_stats st;
	struct fdma_ioc_req r, rb[3];
	struct vi_buf b, u, s;
	uint64_t A = d.info.align, card = d.info.card_size;
	/* Host offsets and lengths: the DMA alignment; a C2H stream buffer: 64-byte multiples. */
	uint64_t HA = d.info.dma_align > A ? d.info.dma_align : A, SA = A > 64 ? A : 64;
	uint32_t h, nch = d.info.nchan, ready;
	uint8_t *ro, *gone;
	static struct fdma_ioc_req many[FDMA_IOC_MAX_BATCH + 1];
	size_t cqb = vi_cq_bytes(&d);
	int ret;

	if (vi_alloc(&d, 65536, &b) || vi_register(&d, 1 << 20, 4 * A, &u) ||
	    vi_alloc(&d, 8192, &s)) {
		vt_fail(T, "buffers: %s", strerror(errno));
		return;
	}

	/* Unknown ioctl numbers, and known numbers with the wrong size or direction. */
	expect("ioctl _IO('F', 0x0c)", ioctl(d.fd, _IO(FDMA_IOC_MAGIC, 0x0c)), ENOTTY);
	expect("ioctl 0", ioctl(d.fd, 0, 0), ENOTTY);
	expect("ioctl 0xdeadbeef", ioctl(d.fd, 0xdeadbeef, 0), ENOTTY);
	expect("INFO as _IOWR", ioctl(d.fd, _IOWR(FDMA_IOC_MAGIC, 0x00, struct fdma_ioc_info), &d.info), ENOTTY);
	expect("INFO with a wrong size", ioctl(d.fd, _IOR(FDMA_IOC_MAGIC, 0x00, uint64_t), &h), ENOTTY);
	expect("SUBMIT with a wrong size", ioctl(d.fd, _IOW(FDMA_IOC_MAGIC, 0x04, uint64_t), &h), ENOTTY);
	expect("another magic", ioctl(d.fd, _IOR('G', 0x00, struct fdma_ioc_info), &d.info), ENOTTY);
	expect("INFO to NULL", ioctl(d.fd, FDMA_IOC_INFO, NULL), EFAULT);
	expect("INFO to address 1", ioctl(d.fd, FDMA_IOC_INFO, (void *)1), EFAULT);

	/* BUF_ALLOC */
	memset(&ba, 0, sizeof(ba));
	expect("ALLOC size 0", ioctl(d.fd, FDMA_IOC_BUF_ALLOC, &ba), EINVAL);
	ba = (struct fdma_ioc_buf_alloc){ .size = 4096, .flags = 1 };
	expect("ALLOC flags 1", ioctl(d.fd, FDMA_IOC_BUF_ALLOC, &ba), EINVAL);
	ba = (struct fdma_ioc_buf_alloc){ .size = 4096, .rsvd = { 0, 1ull << 63 } };
	expect("ALLOC reserved field", ioctl(d.fd, FDMA_IOC_BUF_ALLOC, &ba), EINVAL);
	ba = (struct fdma_ioc_buf_alloc){ .size = 1ull << 40 };
	expect("ALLOC 1 TiB", ioctl(d.fd, FDMA_IOC_BUF_ALLOC, &ba), EINVAL);
	ba = (struct fdma_ioc_buf_alloc){ .size = UINT64_MAX };
	expect("ALLOC UINT64_MAX", ioctl(d.fd, FDMA_IOC_BUF_ALLOC, &ba), EINVAL);
	ba = (struct fdma_ioc_buf_alloc){ .size = 1ull << 31 };
	expect("ALLOC 2 GiB (more than there is)", ioctl(d.fd, FDMA_IOC_BUF_ALLOC, &ba), ENOMEM);
	expect("ALLOC from NULL", ioctl(d.fd, FDMA_IOC_BUF_ALLOC, NULL), EFAULT);

	/* BUF_REGISTER */
	ro = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gone = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 65536);
#define REG(what, a, sz, fl, want)                                                              \
	do {                                                                                    \
		br = (struct fdma_ioc_buf_reg){ .addr = (uint64_t)(a), .size = (sz), .flags = (fl) }; \
		expect("REGISTER " what, ioctl(d.fd, FDMA_IOC_BUF_REGISTER, &br), want);        \
	} while (0)
	/* A device that takes any byte (XDMA's memory-mapped channels on x86) has nothing to misalign. */
	if (HA > 1) {
		REG("unaligned address", (uintptr_t)u.p + 1, 4096, 0, EINVAL);
		REG("unaligned size", (uintptr_t)u.p, 100, 0, EINVAL);
	}
	REG("size 0", (uintptr_t)u.p, 0, 0, EINVAL);
	REG("flags 1", (uintptr_t)u.p, 4096, 1, EINVAL);
	REG("NULL", 0, 4096, 0, EFAULT);
	REG("unmapped memory", (uintptr_t)gone, 65536, 0, EFAULT);
	REG("a kernel address", 0xffff888000000000ull, 4096, 0, EFAULT);
	REG("wrapping around", 0xffffffffffffffc0ull, 128, 0, EINVAL);
	REG("64 GiB", (uintptr_t)u.p, 64ull << 30, 0, EINVAL);
	REG("read-only memory", (uintptr_t)ro, 65536, 0, EFAULT);
	/*
	 * A device mapping (VM_IO | VM_PFNMAP): the vDSO's data page. The
	 * driver's own buffers are ordinary pages and may be registered.
	 */
	{
		char line[256];
		unsigned long lo = 0;
		FILE *mf = fopen("/proc/self/maps", "r");

		while (mf && fgets(line, sizeof(line), mf))
			if (strstr(line, "[vvar]") && sscanf(line, "%lx-", &lo) == 1)
				break;
		if (mf)
			fclose(mf);
		if (lo)
			REG("a device mapping ([vvar])", lo, 4096, 0, EFAULT);
		else
			vt_info("no [vvar] mapping: the device-mapping case is not checked");
	}
	br = (struct fdma_ioc_buf_reg){ .addr = (uintptr_t)u.p, .size = 4096, .rsvd = { 1 } };
	expect("REGISTER reserved field", ioctl(d.fd, FDMA_IOC_BUF_REGISTER, &br), EINVAL);
	expect("REGISTER from NULL", ioctl(d.fd, FDMA_IOC_BUF_REGISTER, NULL), EFAULT);
	munmap(ro, 65536);

	/* BUF_FREE */
	h = 0;
	expect("FREE handle 0", ioctl(d.fd, FDMA_IOC_BUF_FREE, &h), EBADF);
	h = 65535;
	expect("FREE handle 65535", ioctl(d.fd, FDMA_IOC_BUF_FREE, &h), EBADF);
	h = UINT32_MAX;
	expect("FREE handle 0xffffffff", ioctl(d.fd, FDMA_IOC_BUF_FREE, &h), EBADF);
	expect("FREE from NULL", ioctl(d.fd, FDMA_IOC_BUF_FREE, NULL), EFAULT);

	/* SUBMIT: the batch structure */
	r = (struct fdma_ioc_req){ .handle = b.handle, .len = 4096 };
	sb = (struct fdma_ioc_submit){ .chan = nch, .count = 1, .reqs = (uintptr_t)&r };
	expect("SUBMIT channel nchan", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EINVAL);
	sb.chan = UINT32_MAX;
	expect("SUBMIT channel 0xffffffff", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EINVAL);
	sb = (struct fdma_ioc_submit){ .chan = (uint32_t)d.h2c, .count = 0, .reqs = (uintptr_t)&r };
	expect("SUBMIT count 0", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EINVAL);
	sb.count = FDMA_IOC_MAX_BATCH + 1;
	expect("SUBMIT count 1025", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EINVAL);
	sb.count = UINT32_MAX;
	expect("SUBMIT count 0xffffffff", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EINVAL);
	sb.count = 1;
	sb.rsvd[3] = 1;
	expect("SUBMIT reserved field", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EINVAL);
	sb.rsvd[3] = 0;
	sb.reqs = 0;
	expect("SUBMIT reqs NULL", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EFAULT);
	sb.reqs = 0xffff888000000000ull;
	expect("SUBMIT reqs in the kernel", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EFAULT);
	sb.reqs = (uintptr_t)vt_guarded(sizeof(r)) + sizeof(r) / 2;
	expect("SUBMIT reqs running into a guard page", ioctl(d.fd, FDMA_IOC_SUBMIT, &sb), EFAULT);
	expect("SUBMIT from NULL", ioctl(d.fd, FDMA_IOC_SUBMIT, NULL), EFAULT);

	/* SUBMIT: one request */
#define SUB(what, ch, want, ...)                                                                \
	do {                                                                                    \
		r = (struct fdma_ioc_req){ .handle = b.handle, .len = 4096, __VA_ARGS__ };      \
		expect("SUBMIT " what, sub1(ch, r), want);                                      \
	} while (0)
	SUB("handle 0", d.h2c, EBADF, .handle = 0);
	SUB("unknown handle", d.h2c, EBADF, .handle = 65000);
	SUB("handle 0xffffffff", d.h2c, EBADF, .handle = UINT32_MAX);
	SUB("length 0", d.h2c, EINVAL, .len = 0);
	if (HA > 1) {
		SUB("length 1", d.h2c, EINVAL, .len = 1);
		SUB("length align + 1", d.h2c, EINVAL, .len = HA + 1);
		SUB("offset 1", d.h2c, EINVAL, .offset = 1);
	}
	SUB("offset at the end", d.h2c, ERANGE, .offset = b.size, .len = A);
	SUB("longer than the buffer", d.h2c, ERANGE, .len = b.size + A);
	SUB("running past the end", d.h2c, ERANGE, .offset = b.size - A, .len = 2 * A);
	SUB("offset + length wrapping", d.h2c, ERANGE, .offset = 0 - A, .len = 2 * A);
	SUB("length 2^64 - align", d.h2c, ERANGE, .len = 0 - A);
	if (A > 1)
		SUB("card address 1", d.h2c, EINVAL, .card_addr = 1);
	SUB("card address at the end", d.h2c, ERANGE, .card_addr = card);
	SUB("card range past the end", d.c2h, ERANGE, .card_addr = card - A, .len = 2 * A);
	SUB("card address wrapping", d.c2h, ERANGE, .card_addr = 0 - A, .len = 2 * A);
	SUB("flags 0x8", d.h2c, EINVAL, .flags = 0x8);
	SUB("flags 0x80000000", d.h2c, EINVAL, .flags = 0x80000000u);
	SUB("registered memory past its end", d.h2c, ERANGE, .handle = u.handle,
	    .offset = u.size - A, .len = 2 * A);

	/* A batch with one bad request in the middle: nothing is posted. */
	{
		struct fdma_ioc_stats s0, s1;

		vi_stats(&d, d.h2c, &s0);
		for (int i = 0; i < 3; i++)
			rb[i] = (struct fdma_ioc_req){ .handle = b.handle, .len = 4096,
						       .offset = (uint64_t)i * 4096 };
		rb[1].handle = 64999;
		expect("SUBMIT batch with a bad request in the middle",
		       vi_submit(&d, d.h2c, rb, 3) ? -1 : 0, EBADF);
		vi_stats(&d, d.h2c, &s1);
		usleep(100000);
		if (s1.transfers != s0.transfers || vi_cq_ready(&d, d.h2c))
			vt_fail(T, "a refused batch posted %llu requests, %u completions",
				(unsigned long long)(s1.transfers - s0.transfers),
				vi_cq_ready(&d, d.h2c));
	}
	/* More descriptors than the ring holds. */
	for (unsigned int i = 0; i <= d.info.ring_size && i < FDMA_IOC_MAX_BATCH; i++)
		many[i] = (struct fdma_ioc_req){ .handle = u.handle, .offset = (uint64_t)i * A,
						 .len = A, .card_addr = (uint64_t)i * A };
	ret = vi_submit(&d, d.h2c, many, d.info.ring_size + 1);
	errno = -ret;
	expect("SUBMIT of ring_size + 1 requests", ret ? -1 : 0, E2BIG);

	/* A full ring, then a full completion queue (stream buffers wait for frames). */
	if (d.c2h_stream >= 0) {
		int ch = d.c2h_stream, rounds = 0;

		for (unsigned int i = 0; i < d.info.ring_size; i++)
			many[i] = (struct fdma_ioc_req){ .handle = s.handle, .len = SA,
							 .offset = (i % 64) * SA };
		vi_cq_map(&d, ch);
		ret = vi_submit(&d, ch, many, d.info.ring_size);
		if (ret) {
			vt_fail(T, "fill the stream ring: %s", strerror(-ret));
		} else {
			r = (struct fdma_ioc_req){ .handle = s.handle, .len = SA };
			expect("SUBMIT to a full ring", sub1(ch, r), EAGAIN);
			h = s.handle;
			expect("FREE a buffer in flight", ioctl(d.fd, FDMA_IOC_BUF_FREE, &h), EBUSY);
			w = (struct fdma_ioc_wait){ .chan = (uint32_t)ch, .min_entries = 1 };
			expect("WAIT with timeout 0 on pending requests",
			       ioctl(d.fd, FDMA_IOC_WAIT, &w), ETIMEDOUT);
			w.timeout_us = 20000;
			expect("WAIT 20 ms on pending requests", ioctl(d.fd, FDMA_IOC_WAIT, &w),
			       ETIMEDOUT);
			/* Reset: every request comes back canceled; keep them queued. */
			for (;;) {
				ret = vi_reset(&d, ch);
				if (ret) {
					vt_fail(T, "reset: %s", strerror(-ret));
					break;
				}
				rounds++;
				if (vi_cq_ready(&d, ch) + d.info.ring_size > d.info.cq_entries)
					break;
				if (vi_submit(&d, ch, many, d.info.ring_size)) {
					vt_fail(T, "refill round %d: %s", rounds, strerror(errno));
					break;
				}
			}
			ready = vi_cq_ready(&d, ch);
			/* Room left in the queue: fewer than a ring's worth. */
			ret = vi_submit(&d, ch, many, d.info.cq_entries - ready + 1);
			errno = -ret;
			if (d.info.cq_entries - ready + 1 <= d.info.ring_size)
				expect("SUBMIT into a full completion queue", ret ? -1 : 0, EAGAIN);
			for (uint32_t i = 0, n = vi_cq_ready(&d, ch); i < n; i++) {
				struct fdma_cq_entry e = { 0 };

				vi_cq_take(&d, ch, &e, 1);
				if (e.res != -ECANCELED) {
					vt_fail(T, "reset: entry res %d, expected ECANCELED", e.res);
					break;
				}
			}
			vt_info("stream channel: %d resets handed back %u canceled requests", rounds,
				ready);
		}
	}

	/* WAIT */
	w = (struct fdma_ioc_wait){ .chan = nch, .min_entries = 1 };
	expect("WAIT channel nchan", ioctl(d.fd, FDMA_IOC_WAIT, &w), EINVAL);
	w = (struct fdma_ioc_wait){ .chan = (uint32_t)d.h2c, .rsvd = { 0, 0, 1 } };
	expect("WAIT reserved field", ioctl(d.fd, FDMA_IOC_WAIT, &w), EINVAL);
	w = (struct fdma_ioc_wait){ .chan = (uint32_t)d.h2c, .min_entries = d.info.cq_entries + 1 };
	expect("WAIT for more than the queue holds", ioctl(d.fd, FDMA_IOC_WAIT, &w), EINVAL);
	w = (struct fdma_ioc_wait){ .chan = (uint32_t)d.h2c, .min_entries = 1, .timeout_us = -1 };
	expect("WAIT with nothing in flight", ioctl(d.fd, FDMA_IOC_WAIT, &w), EAGAIN);
	w = (struct fdma_ioc_wait){ .chan = (uint32_t)d.h2c, .min_entries = 0, .ready = 77 };
	expect("WAIT for 0", ioctl(d.fd, FDMA_IOC_WAIT, &w), 0);
	if (w.ready)
		vt_fail(T, "WAIT for 0 on an empty queue: ready %u", w.ready);
	expect("WAIT from NULL", ioctl(d.fd, FDMA_IOC_WAIT, NULL), EFAULT);

	/* COALESCE, CHAN_RESET, TESTGEN, DROP, STATS */
	co = (struct fdma_ioc_coalesce){ .chan = (uint32_t)d.h2c, .count = 65537 };
	expect("COALESCE count 65537", ioctl(d.fd, FDMA_IOC_COALESCE, &co), EINVAL);
	co = (struct fdma_ioc_coalesce){ .chan = (uint32_t)d.h2c, .usecs = 1000001 };
	expect("COALESCE 1000001 us", ioctl(d.fd, FDMA_IOC_COALESCE, &co), EINVAL);
	co = (struct fdma_ioc_coalesce){ .chan = (uint32_t)d.h2c, .rsvd = 1 };
	expect("COALESCE reserved field", ioctl(d.fd, FDMA_IOC_COALESCE, &co), EINVAL);
	co = (struct fdma_ioc_coalesce){ .chan = nch };
	expect("COALESCE channel nchan", ioctl(d.fd, FDMA_IOC_COALESCE, &co), EINVAL);
	expect("COALESCE from NULL", ioctl(d.fd, FDMA_IOC_COALESCE, NULL), EFAULT);
	h = nch;
	expect("CHAN_RESET channel nchan", ioctl(d.fd, FDMA_IOC_CHAN_RESET, &h), EINVAL);
	expect("CHAN_RESET from NULL", ioctl(d.fd, FDMA_IOC_CHAN_RESET, NULL), EFAULT);
	tg = (struct fdma_ioc_testgen){ .chan = (uint32_t)d.h2c, .frame_len = 4096, .enable = 1 };
	expect("TESTGEN on a memory-mapped channel", ioctl(d.fd, FDMA_IOC_TESTGEN, &tg),
	       EOPNOTSUPP);
	tg = (struct fdma_ioc_testgen){ .chan = nch };
	expect("TESTGEN channel nchan", ioctl(d.fd, FDMA_IOC_TESTGEN, &tg), EINVAL);
	if (d.c2h_stream >= 0) {
		tg = (struct fdma_ioc_testgen){ .chan = (uint32_t)d.c2h_stream, .frame_len = 4096,
						.enable = 3 };
		expect("TESTGEN enable 3", ioctl(d.fd, FDMA_IOC_TESTGEN, &tg), EINVAL);
		tg = (struct fdma_ioc_testgen){ .chan = (uint32_t)d.c2h_stream, .frame_len = 4096,
						.enable = FDMA_IOC_TESTGEN_QUERY };
		expect("TESTGEN query with a frame length", ioctl(d.fd, FDMA_IOC_TESTGEN, &tg),
		       EINVAL);
		tg = (struct fdma_ioc_testgen){ .chan = (uint32_t)d.c2h_stream,
						.enable = FDMA_IOC_TESTGEN_QUERY };
		expect("TESTGEN query", ioctl(d.fd, FDMA_IOC_TESTGEN, &tg), 0);
		tg = (struct fdma_ioc_testgen){ .chan = (uint32_t)d.c2h_stream, .frame_len = 8,
						.enable = 1 };
		expect("TESTGEN frame of 8 bytes", ioctl(d.fd, FDMA_IOC_TESTGEN, &tg), EINVAL);
		dr = (struct fdma_ioc_drop){ .chan = (uint32_t)d.c2h_stream, .drop = 2 };
		expect("DROP 2", ioctl(d.fd, FDMA_IOC_DROP, &dr), EINVAL);
	}
	dr = (struct fdma_ioc_drop){ .chan = (uint32_t)d.h2c, .drop = 1 };
	expect("DROP on a memory-mapped channel", ioctl(d.fd, FDMA_IOC_DROP, &dr), EOPNOTSUPP);
	dr = (struct fdma_ioc_drop){ .chan = nch };
	expect("DROP channel nchan", ioctl(d.fd, FDMA_IOC_DROP, &dr), EINVAL);
	st = (struct fdma_ioc_stats){ .chan = (uint32_t)d.h2c, .rsvd = 1 };
	expect("STATS reserved field", ioctl(d.fd, FDMA_IOC_STATS, &st), EINVAL);
	st = (struct fdma_ioc_stats){ .chan = nch };
	expect("STATS channel nchan", ioctl(d.fd, FDMA_IOC_STATS, &st), EINVAL);
	expect("STATS from NULL", ioctl(d.fd, FDMA_IOC_STATS, NULL), EFAULT);
	{
		struct fdma_ioc_cq_eventfd ce = { .chan = nch, .fd = -1 };
		int efd = eventfd(0, EFD_CLOEXEC), closed = eventfd(0, 0);

		close(closed);
		expect("CQ_EVENTFD channel nchan", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce), EINVAL);
		ce = (struct fdma_ioc_cq_eventfd){ .chan = (uint32_t)d.h2c, .fd = -2 };
		expect("CQ_EVENTFD fd -2", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce), EINVAL);
		ce = (struct fdma_ioc_cq_eventfd){ .chan = (uint32_t)d.h2c, .fd = efd, .rsvd[1] = 1 };
		expect("CQ_EVENTFD reserved field", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce), EINVAL);
		ce = (struct fdma_ioc_cq_eventfd){ .chan = (uint32_t)d.h2c, .fd = d.fd };
		expect("CQ_EVENTFD of a file that is no eventfd", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce),
		       EINVAL);
		ce = (struct fdma_ioc_cq_eventfd){ .chan = (uint32_t)d.h2c, .fd = closed };
		expect("CQ_EVENTFD of a closed fd", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce), EBADF);
		expect("CQ_EVENTFD from NULL", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, NULL), EFAULT);
		/* Attach and detach work, and the channel works after (checked below). */
		ce = (struct fdma_ioc_cq_eventfd){ .chan = (uint32_t)d.h2c, .fd = efd };
		expect("CQ_EVENTFD attach", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce), 0);
		ce.fd = -1;
		expect("CQ_EVENTFD detach", ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce), 0);
		close(efd);
	}

	/* mmap */
	expect_map("mmap a queue at +4096", 4096, MAP_SHARED, FDMA_CQ_MMAP_OFFSET(0) + 4096, EINVAL);
	expect_map("mmap the queue of channel nchan", 4096, MAP_SHARED, FDMA_CQ_MMAP_OFFSET(nch),
		   EINVAL);
	expect_map("mmap the queue of channel 16", 4096, MAP_SHARED, FDMA_CQ_MMAP_OFFSET(16),
		   EINVAL);
	expect_map("mmap a queue, too long", cqb + 8192, MAP_SHARED, FDMA_CQ_MMAP_OFFSET(0),
		   EINVAL);
	expect_map("mmap a queue privately", 4096, MAP_PRIVATE, FDMA_CQ_MMAP_OFFSET(0), EINVAL);
	expect_map("mmap an unknown handle", 4096, MAP_SHARED, 60000ull << 32, EINVAL);
	expect_map("mmap a buffer, too long", b.size + 4096, MAP_SHARED, b.mmap_offset, EINVAL);
	expect_map("mmap a buffer at +4096", 4096, MAP_SHARED, b.mmap_offset + 4096, EINVAL);
	expect_map("mmap a buffer privately", 4096, MAP_PRIVATE, b.mmap_offset, EINVAL);
	expect_map("mmap a registered buffer", 4096, MAP_SHARED, (uint64_t)u.handle << 32, EINVAL);
	expect_map("mmap at 2^31", 4096, MAP_SHARED, 1ull << 31, EINVAL);
	expect_map("mmap a buffer, shorter", 4096, MAP_SHARED, b.mmap_offset, 0);

	/* A freed buffer's handle is gone; a second free too. */
	h = b.handle;
	if (vi_free(&d, &b))
		vt_fail(T, "free: %s", strerror(errno));
	expect("FREE twice", ioctl(d.fd, FDMA_IOC_BUF_FREE, &h), EBADF);
	r = (struct fdma_ioc_req){ .handle = h, .len = 4096 };
	expect("SUBMIT with a freed handle", sub1(d.h2c, r), EBADF);
	vi_free(&d, &u);
	vi_free(&d, &s);

	/* A read-only open may look, not move data or change the device. */
	{
		char path[80];
		struct fdma_ioc_info info;
		struct fdma_ioc_buf_alloc ba1 = { .size = 4096 };
		int ro;

		snprintf(path, sizeof(path), "/dev/%s", d.name);
		ro = open(path, O_RDONLY);
		if (ro < 0) {
			vt_fail(T, "open %s read-only: %s", path, strerror(errno));
		} else {
			r = (struct fdma_ioc_req){ .handle = 0, .len = 4096 };
			sb = (struct fdma_ioc_submit){ .chan = (uint32_t)d.h2c, .count = 1,
						      .reqs = (uintptr_t)&r };
			expect("INFO on a read-only open", ioctl(ro, FDMA_IOC_INFO, &info), 0);
			expect("SUBMIT on a read-only open", ioctl(ro, FDMA_IOC_SUBMIT, &sb), EBADF);
			expect("BUF_ALLOC on a read-only open", ioctl(ro, FDMA_IOC_BUF_ALLOC, &ba1), EBADF);
			h = 0;
			expect("CHAN_RESET on a read-only open", ioctl(ro, FDMA_IOC_CHAN_RESET, &h), EBADF);
			close(ro);
		}
	}
	vt_info("%d bad inputs refused as expected", ncases);
	if (roundtrip_ok(T) && !vt_failed)
		vt_pass(T);
}

/* ---- fuzz ------------------------------------------------------------------ */

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint64_t rndn(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void noop(int sig)
{
	(void)sig;
}

#define MAXLIVE 24

static struct {
	uint32_t handle;
	uint64_t size;
	int user;
	int slot;	/* the pool's slot it registered, or -1 */
} live[MAXLIVE];
static int nlive;

/*
 * A slot of the registration pool that no live buffer holds (see the top),
 * at random; any if all are held (the buffer is then not kept, but freed
 * at once).
 */
static int free_slot(void)
{
	int held[MAXLIVE] = { 0 }, n = 0, k;

	for (int i = 0; i < nlive; i++)
		if (live[i].slot >= 0)
			held[live[i].slot] = 1;
	for (int s = 0; s < MAXLIVE; s++)
		n += !held[s];
	if (!n)
		return (int)rndn(MAXLIVE);
	k = (int)rndn((uint64_t)n);
	for (int s = 0; s < MAXLIVE; s++)
		if (!held[s] && !k--)
			return s;
	return 0;
}

static uint32_t some_handle(void)
{
	if (nlive && rndn(8))
		return live[rndn(nlive)].handle;
	return rndn(4) ? (uint32_t)rndn(70000) : (uint32_t)rnd();
}

static uint32_t some_chan(void)
{
	return rndn(10) ? (uint32_t)rndn(d.info.nchan) : (uint32_t)rnd();
}

static void forget(uint32_t h)
{
	for (int i = 0; i < nlive; i++)
		if (live[i].handle == h) {
			live[i] = live[--nlive];
			return;
		}
}

static void fuzz(void)
{
	static const unsigned long codes[] = {
		FDMA_IOC_INFO, FDMA_IOC_BUF_ALLOC, FDMA_IOC_BUF_REGISTER, FDMA_IOC_BUF_FREE,
		FDMA_IOC_SUBMIT, FDMA_IOC_WAIT, FDMA_IOC_COALESCE, FDMA_IOC_CHAN_RESET,
		FDMA_IOC_TESTGEN, FDMA_IOC_STATS, FDMA_IOC_DROP, FDMA_IOC_CQ_EVENTFD,
	};
	const char *F = "ioc_fuzz";
	static union {
		uint8_t raw[512];
		struct fdma_ioc_info info;
		struct fdma_ioc_buf_alloc ba;
		struct fdma_ioc_buf_reg br;
		uint32_t u32;
		struct fdma_ioc_submit sb;
		struct fdma_ioc_wait w;
		struct fdma_ioc_coalesce co;
		struct fdma_ioc_testgen tg;
		struct fdma_ioc_stats st;
		struct fdma_ioc_drop dr;
		struct fdma_ioc_cq_eventfd ce;
	} a;
	static struct fdma_ioc_req reqs[64];
	struct itimerval it = { { 0, 200000 }, { 0, 200000 } };
	struct sigaction sa = { .sa_handler = noop };
	size_t pool_size = 8 << 20, slot_size = pool_size / MAXLIVE / 64 * 64;
	uint8_t *pool_raw = malloc(pool_size + 4096), *pool;
	long calls = 0, ok = 0, maps = 0, errs[160] = { 0 }, okc[12] = { 0 }, msgsize_other = 0;
	double t0 = vt_now();
	int iters = 12000, efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), slot = -1;

	pool = (uint8_t *)(((uintptr_t)pool_raw + 4095) & ~(uintptr_t)4095);
	memset(pool, 0x5a, pool_size);
	for (unsigned int ch = 0; ch < d.info.nchan; ch++)
		vi_cq_map(&d, (int)ch);
	/* A blocking call must not hang the test: SIGALRM interrupts it. */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);

	for (int it_n = 0; it_n < iters; it_n++) {
		int plausible = rndn(2), k = (int)rndn(sizeof(codes) / sizeof(codes[0]));
		unsigned long cmd = codes[k];
		void *arg = &a;
		int ret, e;

		slot = -1;
		for (size_t i = 0; i < sizeof(a.raw); i += 8) {
			uint64_t v = rnd();

			memcpy(a.raw + i, &v, 8);
		}
		switch (rndn(40)) {
		case 0:
			cmd = rnd();	/* anything */
			break;
		case 1:
			cmd ^= 1u << rndn(32);	/* a near miss: size, direction, number */
			break;
		}
		if (plausible) {
			switch (k) {
			case 1:
				memset(&a.ba, 0, sizeof(a.ba));
				a.ba.size = rndn(3) ? 1 + rndn(1 << 20) : rnd();
				if (!rndn(10))
					a.ba.flags = (uint32_t)rnd();
				break;
			case 2: {
				/* Up to 256 KiB in a slot no live buffer holds. */
				uint64_t size = (1 + rndn(4096)) * 64;

				slot = free_slot();
				memset(&a.br, 0, sizeof(a.br));
				a.br.addr = (uintptr_t)pool + (uint64_t)slot * slot_size +
					    rndn((slot_size - size) / 64 + 1) * 64;
				a.br.size = size;
				if (!rndn(10))
					a.br.addr += rndn(64);
				if (!rndn(10))
					a.br.size = rnd();
				break;
			}
			case 3:
				a.u32 = some_handle();
				break;
			case 4: {
				/* A valid batch, with one field spoiled a third of the time. */
				uint32_t n = 1 + (uint32_t)rndn(rndn(4) ? 8 : 64);
				int spoil = rndn(3) ? -1 : (int)rndn(6);

				for (uint32_t i = 0; i < n; i++) {
					struct fdma_ioc_req *q = &reqs[i];
					uint64_t sz = 64, units;

					q->handle = nlive ? live[rndn(nlive)].handle : some_handle();
					for (int j = 0; j < nlive; j++)
						if (live[j].handle == q->handle)
							sz = live[j].size & ~63ull;
					units = sz / 64 ? sz / 64 : 1;
					q->offset = rndn(units) * 64;
					q->len = (1 + rndn(units - q->offset / 64 < 256 ?
							   units - q->offset / 64 : 256)) * 64;
					q->card_addr = rndn(d.info.card_size / 64 - 4096) * 64;
					q->flags = (uint32_t)rndn(8);
					q->user_data = rnd();
					if (i != rndn(n))
						continue;
					switch (spoil) {
					case 0:
						q->handle = some_handle();
						break;
					case 1:
						q->len = rndn(2) ? rnd() : rndn(4096);
						break;
					case 2:
						q->offset = rndn(2) ? rnd() : q->offset + rndn(64);
						break;
					case 3:
						q->card_addr = rnd();
						break;
					case 4:
						q->flags = (uint32_t)rnd();
						break;
					}
				}
				memset(&a.sb, 0, sizeof(a.sb));
				a.sb.chan = some_chan();
				a.sb.count = spoil == 5 ? (uint32_t)rnd() : n;
				a.sb.reqs = rndn(30) ? (uintptr_t)reqs : rnd();
				if (!rndn(30))
					a.sb.rsvd[rndn(4)] = 1;
				break;
			}
			case 5:
				memset(&a.w, 0, sizeof(a.w));
				a.w.chan = some_chan();
				a.w.min_entries = (uint32_t)rndn(5);
				a.w.timeout_us = (int64_t)rndn(2000);
				break;
			case 6:
				memset(&a.co, 0, sizeof(a.co));
				a.co.chan = some_chan();
				a.co.count = (uint32_t)rndn(300);
				a.co.usecs = (uint32_t)rndn(2000);
				break;
			case 7:
				a.u32 = some_chan();
				break;
			case 8:
				a.tg.chan = some_chan();
				a.tg.frame_len = (uint32_t)rndn(9000);
				a.tg.period_ns = (uint32_t)rndn(200000);
				a.tg.enable = (uint32_t)rndn(4);
				break;
			case 9:
				memset(&a.st, 0, sizeof(a.st));
				a.st.chan = some_chan();
				break;
			case 10:
				a.dr.chan = some_chan();
				a.dr.drop = (uint32_t)rndn(3);
				break;
			case 11: {
				/* An eventfd, none, garbage, the device itself, a closed fd. */
				const int fds[] = { efd, -1, -2, d.fd, 1000 };

				memset(&a.ce, 0, sizeof(a.ce));
				a.ce.chan = some_chan();
				a.ce.fd = fds[rndn(5)];
				break;
			}
			}
		}
		/* Never wait long, whatever the bytes say. */
		if (cmd == FDMA_IOC_WAIT && (a.w.timeout_us < 0 || a.w.timeout_us > 5000))
			a.w.timeout_us = (int64_t)rndn(5000);
		switch (rndn(50)) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)(uintptr_t)rnd();
			break;
		case 2:
			arg = (void *)0xffff888000001000ull;
			break;
		}
		ret = ioctl(d.fd, cmd, arg);
		e = errno;
		calls++;
		if (!ret) {
			ok++;
			if (cmd == codes[k])
				okc[k]++;
			if (cmd == FDMA_IOC_BUF_ALLOC || cmd == FDMA_IOC_BUF_REGISTER) {
				uint32_t h = cmd == FDMA_IOC_BUF_ALLOC ? a.ba.handle : a.br.handle;
				int kept = nlive < MAXLIVE;

				if (kept) {
					live[nlive].handle = h;
					live[nlive].size = cmd == FDMA_IOC_BUF_ALLOC ? a.ba.size : a.br.size;
					live[nlive].user = cmd == FDMA_IOC_BUF_REGISTER;
					live[nlive].slot = cmd == FDMA_IOC_BUF_REGISTER ? slot : -1;
					nlive++;
				}
				if (cmd == FDMA_IOC_BUF_ALLOC && rndn(2)) {
					void *p = mmap(NULL, a.ba.size, PROT_READ | PROT_WRITE,
						       MAP_SHARED, d.fd, (off_t)a.ba.mmap_offset);

					if (p != MAP_FAILED) {
						memset(p, 0x3c, a.ba.size);
						munmap(p, a.ba.size);
						maps++;
					}
				}
				if (!kept)	/* no room to remember it: free it */
					ioctl(d.fd, FDMA_IOC_BUF_FREE, &h);
			} else if (cmd == FDMA_IOC_BUF_FREE && arg == &a) {
				forget(a.u32);
			}
		} else {
			errs[e < 160 ? e : 0]++;
			/* EMSGSIZE is SUBMIT's alone: a C2H stream range not in one piece. */
			if (e == EMSGSIZE && _IOC_NR(cmd) != _IOC_NR(FDMA_IOC_SUBMIT))
				msgsize_other++;
		}
		/* Random mmaps. */
		if (!rndn(50)) {
			uint64_t off = rndn(2) ? FDMA_CQ_MMAP_OFFSET(rndn(20)) + rndn(2) * 4096
					       : ((uint64_t)some_handle() << 32) + rndn(3) * 4096;
			size_t len = (1 + rndn(64)) * 4096;
			void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       rndn(5) ? MAP_SHARED : MAP_PRIVATE, d.fd, (off_t)off);

			if (p != MAP_FAILED) {
				munmap(p, len);
				maps++;
			}
		}
		/* Consume whatever completed; sometimes free a buffer. */
		for (unsigned int ch = 0; ch < d.info.nchan; ch++)
			if (d.cq[ch].hdr)
				vi_cq_take(&d, (int)ch, NULL, 1 << 20);
		if (nlive > MAXLIVE / 2 && !rndn(4)) {
			int i = (int)rndn(nlive);

			if (!ioctl(d.fd, FDMA_IOC_BUF_FREE, &live[i].handle))
				live[i] = live[--nlive];
		}
	}
	it.it_value.tv_sec = it.it_value.tv_usec = 0;
	it.it_interval = it.it_value;
	setitimer(ITIMER_REAL, &it, NULL);

	/* Back to a known state: generators off, no coalescing, nothing in flight. */
	for (unsigned int ch = 0; ch < d.info.nchan; ch++) {
		struct fdma_ioc_testgen tg = { .chan = ch };
		struct fdma_ioc_drop dr = { .chan = ch };

		ioctl(d.fd, FDMA_IOC_TESTGEN, &tg);
		ioctl(d.fd, FDMA_IOC_DROP, &dr);
		vi_coalesce(&d, (int)ch, 0, 0);
		if (vi_reset(&d, (int)ch))
			vt_fail(F, "reset channel %u: %s", ch, strerror(errno));
		vi_cq_take(&d, (int)ch, NULL, 1 << 20);
	}
	for (int i = 0; i < nlive; i++)
		if (ioctl(d.fd, FDMA_IOC_BUF_FREE, &live[i].handle))
			vt_fail(F, "free buffer %u after the resets: %s", live[i].handle,
				strerror(errno));
	nlive = 0;
	vt_info("%ld ioctls in %.1f s: %ld succeeded, %ld mmaps; refused with EINVAL %ld, EBADF %ld, ERANGE %ld, EFAULT %ld, ENOTTY %ld, EAGAIN %ld, E2BIG %ld, EBUSY %ld, ENOMEM %ld, ETIMEDOUT %ld, EOPNOTSUPP %ld, ENOSPC %ld, EINTR %ld, EMSGSIZE %ld",
		calls, vt_now() - t0, ok, maps, errs[EINVAL], errs[EBADF], errs[ERANGE],
		errs[EFAULT], errs[ENOTTY], errs[EAGAIN], errs[E2BIG], errs[EBUSY], errs[ENOMEM],
		errs[ETIMEDOUT], errs[EOPNOTSUPP], errs[ENOSPC], errs[EINTR], errs[EMSGSIZE]);
	for (int e = 1; e < 160; e++)
		if (errs[e] && e != EINVAL && e != EBADF && e != ERANGE && e != EFAULT &&
		    e != ENOTTY && e != EAGAIN && e != E2BIG && e != EBUSY && e != ENOMEM &&
		    e != ETIMEDOUT && e != EOPNOTSUPP && e != ENOSPC && e != EINTR &&
		    e != EMSGSIZE)
			vt_fail(F, "%ld calls failed with an unexpected %s", errs[e], strerror(e));
	if (msgsize_other)
		vt_fail(F, "%ld calls but FDMA_IOC_SUBMIT failed with EMSGSIZE", msgsize_other);
	vt_info("succeeded: INFO %ld, BUF_ALLOC %ld, BUF_REGISTER %ld, BUF_FREE %ld, SUBMIT %ld, WAIT %ld, COALESCE %ld, CHAN_RESET %ld, TESTGEN %ld, STATS %ld, DROP %ld, CQ_EVENTFD %ld",
		okc[0], okc[1], okc[2], okc[3], okc[4], okc[5], okc[6], okc[7], okc[8], okc[9],
		okc[10], okc[11]);
	if (calls < 10000)
		vt_fail(F, "only %ld calls", calls);
	vi_close(&d);
	close(efd);
	free(pool_raw);
	if (vi_pinned(dev) != pinned0 || vi_nbufs(dev) != bufs0 ||
	    vt_attr_ll(dev, "allocated_bytes") != coh0)
		vt_fail(F, "after close: %lld pinned pages, %lld buffers, %lld allocated bytes (before: %lld, %lld, %lld)",
			vi_pinned(dev), vi_nbufs(dev), vt_attr_ll(dev, "allocated_bytes"), pinned0,
			bufs0, coh0);
	if (vi_open(&d, dev) || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h)) {
		vt_fail(F, "open again: %s", strerror(errno));
		return;
	}
	if (roundtrip_ok(F) && !vt_failed)
		vt_pass(F);
}

int main(void)
{
	int ret;

	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(T, "no fdma device in " FDMA_CLASS);
		return 1;
	}
	pinned0 = vi_pinned(dev);
	bufs0 = vi_nbufs(dev);
	coh0 = vt_attr_ll(dev, "allocated_bytes");
	ret = vi_open(&d, dev);
	if (ret || d.h2c < 0 || d.c2h < 0 || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h)) {
		vt_fail(T, "open and map: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	invalid();
	fuzz();
	vi_close(&d);
	return vt_failed;
}
