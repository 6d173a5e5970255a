// SPDX-License-Identifier: MIT
/*
 * What the application writes into a registered buffer after its last
 * transfer survives the buffer's release (FDMA_IOC_BUF_FREE, or close).
 *
 * The driver maps registered memory once and syncs only each request's
 * range. Unmapping it with a CPU sync of the whole buffer (the driver
 * before this test) invalidates the caches over it on a non-coherent
 * device, and under swiotlb copies the whole bounce buffer back over the
 * user's pages: everything the application wrote since is lost.
 *
 * ioc_free_keeps_data: register 1 MiB, H2C of [0, 64 KiB), memset the
 *   whole buffer, BUF_FREE: every byte still holds the memset.
 * ioc_free_keeps_c2h: register 1 MiB, C2H into [0, 64 KiB), memset the
 *   rest, BUF_FREE: the C2H bytes and the memset, every one.
 * ioc_close_keeps_data: the same as the first, released by close().
 *
 * Under swiotlb=force (the harness's swiotlb run) the driver before the fix
 * fails all three: "1048341 of 1048576 bytes written after the transfer were
 * lost by FDMA_IOC_BUF_FREE", the C2H case all 983040 bytes of the rest, and
 * close() the same as BUF_FREE (the memset is replaced by the bytes the
 * bounce buffer held). On a coherent machine without bounce buffering there
 * is nothing to lose and the tests pass either way; under TCG a
 * non-coherent arm64 guest runs the cache maintenance, but QEMU models no
 * cache, so nothing is lost there either.
 */
#include "vmioc.h"

#define SZ	(1 << 20)
#define HEAD	(64 << 10)
#define CARD	(48ull << 20)

/* Bytes of p[0, n) that are not v: the count, and the first in *first. */
static long count_not(const uint8_t *p, size_t n, uint8_t v, long *first)
{
	long bad = 0;

	*first = -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != v) {
			if (*first < 0)
				*first = (long)i;
			bad++;
		}
	}
	return bad;
}

/* One request on ch of [0, len) of b at card address CARD; 0 or -errno. */
static int move(struct vi_dev *d, int ch, struct vi_buf *b, size_t len, const char *T)
{
	struct fdma_ioc_req r = { .handle = b->handle, .card_addr = CARD, .len = len,
				  .user_data = 1 };
	struct fdma_cq_entry e = { 0 };
	int ret = vi_submit(d, ch, &r, 1);

	if (!ret)
		ret = vi_collect(d, ch, &e, 1, 5000000);
	if (!ret && e.res)
		ret = e.res;
	if (ret)
		vt_fail(T, "transfer on channel %d: %s", ch, strerror(-ret));
	return ret;
}

static void report(const char *T, const uint8_t *p, size_t n, uint8_t v, const char *when)
{
	long first, bad = count_not(p, n, v, &first);

	if (bad)
		vt_fail(T, "%ld of %zu bytes written after the transfer were lost %s (first at offset %ld: 0x%02x, expected 0x%02x)",
			bad, n, when, first, p[first], v);
}

int main(void)
{
	const char *T = "ioc_free_keeps_data";
	struct vi_dev d, d2;
	struct vi_buf b;
	uint8_t *mem;
	long first;
	int ret, failed = 0;

	ret = vi_open(&d, NULL);
	if (ret || d.h2c < 0 || d.c2h < 0 || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h)) {
		vt_fail(T, "open: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	{
		char cmd[512] = "";

		vt_read_str("/proc/cmdline", cmd, sizeof(cmd));
		vt_info("bounce buffering %s", strstr(cmd, "swiotlb=force") ?
			"forced (swiotlb=force): a whole-buffer sync at unmap would lose the bytes" :
			"not forced: nothing to lose here unless the device is non-coherent");
	}

	/* H2C, then the application writes everything, then BUF_FREE. */
	ret = vi_register(&d, SZ, 0, &b);
	if (ret) {
		vt_fail(T, "register: %s", strerror(-ret));
		return 1;
	}
	mem = b.p;
	vt_fill(mem, SZ, 1);
	if (move(&d, d.h2c, &b, HEAD, T))
		return 1;
	memset(mem, 0x5c, SZ);
	ret = vi_free_raw(&d, b.handle);
	if (ret)
		vt_fail(T, "BUF_FREE: %s", strerror(-ret));
	report(T, mem, SZ, 0x5c, "by FDMA_IOC_BUF_FREE");
	if (!vt_failed)
		vt_pass(T);

	/* C2H into the head: its bytes and the memset of the rest both survive. */
	T = "ioc_free_keeps_c2h";
	failed |= vt_failed;
	vt_failed = 0;
	{
		struct fdma_ioc_buf_reg r = { .addr = (uintptr_t)mem, .size = SZ };

		memset(mem, 0x11, SZ);
		if (ioctl(d.fd, FDMA_IOC_BUF_REGISTER, &r)) {
			vt_fail(T, "register again: %s", strerror(errno));
			return 1;
		}
		b.handle = r.handle;
		if (move(&d, d.c2h, &b, HEAD, T))
			return 1;
		memset(mem + HEAD, 0x7e, SZ - HEAD);
		ret = vi_free_raw(&d, b.handle);
		if (ret)
			vt_fail(T, "BUF_FREE: %s", strerror(-ret));
		first = vt_check(mem, HEAD, 1);
		if (first >= 0)
			vt_fail(T, "the C2H bytes are wrong after BUF_FREE (first at offset %ld)", first);
		report(T, mem + HEAD, SZ - HEAD, 0x7e, "by FDMA_IOC_BUF_FREE (after the C2H head)");
		if (!vt_failed)
			vt_pass(T);
	}
	free(b.raw);
	failed |= vt_failed;

	/* The same, released by close(). */
	T = "ioc_close_keeps_data";
	ret = vi_open(&d2, d.name);
	if (ret || vi_cq_map(&d2, d2.h2c) || vi_register(&d2, SZ, 0, &b)) {
		vt_fail(T, "open and register: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	mem = b.p;
	vt_fill(mem, SZ, 2);
	if (move(&d2, d2.h2c, &b, HEAD, T))
		return 1;
	memset(mem, 0x3d, SZ);
	vi_close(&d2);
	{
		long bad = count_not(mem, SZ, 0x3d, &first);

		if (bad)
			vt_fail(T, "%ld of %d bytes written after the transfer were lost by close() (first at offset %ld)",
				bad, SZ, first);
		else
			vt_pass(T);
	}
	free(b.raw);
	vi_close(&d);
	return failed | vt_failed;
}
