// SPDX-License-Identifier: MIT
/*
 * Bad input to the ioctl interface, each case on its own (ioc_check.h;
 * fdma_ioc_fuzz.c has the random one).
 *
 * ioc_invalid: each ioctl with bad handles, ranges beyond the buffer or
 *   card memory, misalignment, zero lengths, huge counts, bad channels,
 *   flags and reserved fields, bad pointers; unknown ioctl numbers; bad
 *   mmap offsets, sizes and flags; a batch with one bad request in the
 *   middle (nothing of it is posted); a full ring and a full completion
 *   queue (EAGAIN); freeing a buffer in flight (EBUSY). Each is refused with
 *   the errno include/fdma_ioctl.h's users rely on, and the device works
 *   afterwards.
 */
#define IOC_T "ioc_invalid"
#include "ioc_check.h"

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

int main(void)
{
	if (ioc_setup())
		return 1;
	invalid();
	vi_close(&d);
	return vt_failed;
}
