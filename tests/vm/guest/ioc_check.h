/* SPDX-License-Identifier: MIT */
/*
 * What the two programs of bad input to the ioctl interface share
 * (fdma_ioc_invalid.c, fdma_ioc_fuzz.c): the device, opened with its
 * completion queues mapped; the pinned pages, buffers and coherent bytes
 * before (nothing may be left after); a check of one refusal; and a round
 * trip that shows the device still works. The includer defines IOC_T, its
 * test's name, first.
 */
#ifndef IOC_CHECK_H
#define IOC_CHECK_H

#include <sys/eventfd.h>
#include <sys/time.h>

#include "vmioc.h"

static const char *T = IOC_T;
static struct vi_dev d;
static char dev[64];
static long long pinned0, bufs0, coh0;
static int ncases;

static inline void expect(const char *what, int ret, int want)
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

static inline void expect_map(const char *what, size_t len, int flags, uint64_t off, int want)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, d.fd, (off_t)off);

	if (p != MAP_FAILED) {
		munmap(p, len);
		expect(what, 0, want);
	} else {
		expect(what, -1, want);
	}
}

static inline int sub1(int ch, struct fdma_ioc_req r)
{
	struct fdma_ioc_submit s = { .chan = (uint32_t)ch, .count = 1, .reqs = (uintptr_t)&r };

	return ioctl(d.fd, FDMA_IOC_SUBMIT, &s);
}

static inline int roundtrip_ok(const char *TT)
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

/* The device opened and its queues mapped; 0, or 1 having failed T. */
static inline int ioc_setup(void)
{
	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(T, "no fdma device in " FDMA_CLASS);
		return 1;
	}
	pinned0 = vi_pinned(dev);
	bufs0 = vi_nbufs(dev);
	coh0 = vt_attr_ll(dev, "allocated_bytes");
	if (vi_open(&d, dev) || d.h2c < 0 || d.c2h < 0 || vi_cq_map(&d, d.h2c) ||
	    vi_cq_map(&d, d.c2h)) {
		vt_fail(T, "open and map: %s", strerror(errno));
		return 1;
	}
	return 0;
}

#endif /* IOC_CHECK_H */
