// SPDX-License-Identifier: MIT
/*
 * Buffer handles are a pool of the device (FDMA_HANDLE_MAX of them shared
 * by every opener); one open file may hold at most max_bufs_per_file
 * buffers (module parameter, default 1024), so that one opener cannot take
 * them all.
 *
 * ioc_bufcap: one file allocates until refused: exactly max_bufs_per_file
 *   buffers, then ENOSPC for allocating and for registering; a second
 *   opener can still allocate and register meanwhile; freeing one lets
 *   the first allocate one more; all freed, the device's buffer count is
 *   back where it was.
 * ioc_buf_efault: FDMA_IOC_BUF_ALLOC and FDMA_IOC_BUF_REGISTER into a
 *   structure that can be read but not written: EFAULT, and nothing is
 *   left behind (the buffer is freed, with its handle, and it does not
 *   count against the file's cap).
 */
#include "vmioc.h"

static char dev[64];

static void bufcap(void)
{
	const char *T = "ioc_bufcap";
	long long bufs0 = vi_nbufs(dev), cap;
	struct vi_dev a, b;
	struct vi_buf rb, rb2;
	uint32_t *h = NULL;
	long n = 0, x = 0;
	int ret;

	cap = vt_read_ll("/sys/module/fdma/parameters/max_bufs_per_file");
	if (cap < 1 || cap > 65535) {
		vt_fail(T, "/sys/module/fdma/parameters/max_bufs_per_file: %lld", cap);
		return;
	}
	h = calloc((size_t)cap + 1, sizeof(*h));
	if (!h || vi_open(&a, dev) || vi_open(&b, dev)) {
		vt_fail(T, "open: %s", strerror(errno));
		free(h);
		return;
	}
	for (;;) {
		x = vi_alloc_raw(&a, 4096);
		if (x < 0 || n > cap)
			break;
		h[n++] = (uint32_t)x;
	}
	vt_info("max_bufs_per_file %lld: one file got %ld buffers, then %s", cap, n,
		x < 0 ? strerror((int)-x) : "no refusal");
	if (n != cap || x != -ENOSPC) {
		vt_fail(T, "allocated %ld buffers, then %s; expected %lld, then ENOSPC", n,
			x < 0 ? strerror((int)-x) : "success", cap);
		goto out;
	}
	ret = vi_register(&a, 4096, 0, &rb);
	if (ret != -ENOSPC) {
		vt_fail(T, "registering beyond the cap: %s, expected ENOSPC",
			ret ? strerror(-ret) : "success");
		if (!ret)
			vi_free(&a, &rb);
		goto out;
	}
	/* Another opener is not affected. */
	ret = vi_alloc(&b, 65536, &rb);
	if (!ret)
		ret = vi_register(&b, 65536, 0, &rb2);
	if (ret) {
		vt_fail(T, "a second opener could not allocate or register: %s", strerror(-ret));
		goto out;
	}
	for (long i = 0; i < n; i++)
		if (h[i] == rb.handle || h[i] == rb2.handle) {
			vt_fail(T, "handle %u given to two files", h[i]);
			goto out;
		}
	vi_free(&b, &rb);
	vi_free(&b, &rb2);
	/* One freed: one more fits, and no more. */
	if (vi_free_raw(&a, h[n / 2])) {
		vt_fail(T, "free: %s", strerror(errno));
		goto out;
	}
	x = vi_alloc_raw(&a, 4096);
	if (x < 0) {
		vt_fail(T, "allocating after one free: %s", strerror((int)-x));
		h[n / 2] = 0;
		goto out;
	}
	h[n / 2] = (uint32_t)x;
	x = vi_alloc_raw(&a, 4096);
	if (x != -ENOSPC) {
		vt_fail(T, "allocating beyond the cap again: %s, expected ENOSPC",
			x < 0 ? strerror((int)-x) : "success");
		if (x > 0)
			h[n++] = (uint32_t)x;
		goto out;
	}
	if (vi_nbufs(dev) != bufs0 + n) {
		vt_fail(T, "sysfs buffers %lld, expected %lld", vi_nbufs(dev), bufs0 + n);
		goto out;
	}
out:
	for (long i = 0; i < n; i++)
		if (h[i] && vi_free_raw(&a, h[i]))
			vt_fail(T, "free handle %u: %s", h[i], strerror(errno));
	vi_close(&a);
	vi_close(&b);
	free(h);
	if (vi_nbufs(dev) != bufs0)
		vt_fail(T, "%lld buffers left, expected %lld", vi_nbufs(dev), bufs0);
	if (!vt_failed)
		vt_pass(T);
}

static void buf_efault(void)
{
	const char *T = "ioc_buf_efault";
	long long bufs0 = vi_nbufs(dev), coh0 = vt_attr_ll(dev, "allocated_bytes");
	long long pin0 = vi_pinned(dev);
	long long cap = vt_read_ll("/sys/module/fdma/parameters/max_bufs_per_file");
	size_t pg = 4096;
	struct vi_buf b;
	uint8_t *ro, *mem;
	struct vi_dev d;
	int bad = 0, ret;

	ro = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mem = aligned_alloc(pg, 4 * pg);
	if (ro == MAP_FAILED || !mem || vi_open(&d, dev)) {
		vt_fail(T, "setup: %s", strerror(errno));
		return;
	}
	memset(mem, 0, 4 * pg);
	/* More than the cap: the refused ones must not count against it. */
	for (long k = 0; k < cap + 10; k++) {
		struct fdma_ioc_buf_alloc a = { .size = 65536 };
		struct fdma_ioc_buf_reg r = { .addr = (uintptr_t)mem, .size = 4 * pg };

		mprotect(ro, pg, PROT_READ | PROT_WRITE);
		memcpy(ro, &a, sizeof(a));
		memcpy(ro + 512, &r, sizeof(r));
		mprotect(ro, pg, PROT_READ);
		errno = 0;
		ret = ioctl(d.fd, FDMA_IOC_BUF_ALLOC, ro);
		if (ret != -1 || errno != EFAULT) {
			vt_fail(T, "BUF_ALLOC into read-only memory: %d (%s), expected EFAULT", ret,
				strerror(errno));
			bad = 1;
			break;
		}
		if (k >= 50)
			continue;
		errno = 0;
		ret = ioctl(d.fd, FDMA_IOC_BUF_REGISTER, ro + 512);
		if (ret != -1 || errno != EFAULT) {
			vt_fail(T, "BUF_REGISTER into read-only memory: %d (%s), expected EFAULT",
				ret, strerror(errno));
			bad = 1;
			break;
		}
	}
	if (!bad && (vi_nbufs(dev) != bufs0 || vt_attr_ll(dev, "allocated_bytes") != coh0 ||
		     vi_pinned(dev) != pin0)) {
		vt_fail(T, "after the EFAULTs: %lld buffers, %lld allocated bytes, %lld pinned pages; expected %lld, %lld, %lld",
			vi_nbufs(dev), vt_attr_ll(dev, "allocated_bytes"), vi_pinned(dev), bufs0,
			coh0, pin0);
		bad = 1;
	}
	if (!bad) {
		ret = vi_alloc(&d, 4096, &b);
		if (ret) {
			vt_fail(T, "allocating after %lld EFAULTs: %s", cap + 10, strerror(-ret));
			bad = 1;
		} else {
			vi_free(&d, &b);
		}
	}
	vi_close(&d);
	munmap(ro, pg);
	free(mem);
	if (!bad)
		vt_pass(T);
}

int main(void)
{
	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail("ioc_bufcap", "no fdma device in " FDMA_CLASS);
		return 1;
	}
	bufcap();
	buf_efault();
	return vt_failed;
}
