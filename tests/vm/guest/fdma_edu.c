// SPDX-License-Identifier: MIT
/*
 * fdma_edu MODE: QEMU's edu device through /dev/fdma-eduN, with the driver
 * loaded with edu=1 and (if MODE is not "auto") irq_mode=MODE. Checks sysfs
 * irq_mode (msi or intx), then pwrite()s patterns into edu's DMA window
 * (sysfs size: 4095 bytes, see kernel/harness/fdma_edu.c) and pread()s them back,
 * byte for byte, at several sizes and offsets (each DMA waits for edu's
 * interrupt), then bad ranges.
 */
#include "vmtest.h"

static char T[64];

static void expect(const char *what, ssize_t ret, ssize_t want, int err)
{
	int e = errno;

	if (want >= 0 ? ret != want : (ret != -1 || e != err))
		vt_fail(T, "%s: returned %zd (%s), expected %zd%s%s", what, ret,
			ret < 0 ? strerror(e) : "no error", want,
			want < 0 ? " with " : "", want < 0 ? strerror(err) : "");
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "auto";
	uint8_t a[8192], b[8192];
	char dev[64], mode[32];
	long long irq0, xfer0, lost;
	size_t win, sizes[7];
	int fd, n = 0;
	uint64_t seed = 1;

	snprintf(T, sizeof(T), "edu_%s", want);
	if (vt_find_dev("fdma-edu", dev, sizeof(dev))) {
		vt_fail(T, "no fdma-edu device in " FDMA_CLASS " (QEMU without -device edu?)");
		return 1;
	}
	vt_attr_str(dev, "irq_mode", mode, sizeof(mode));
	if (strcmp(want, "auto") ? strcmp(mode, want) != 0 : strcmp(mode, "msi") != 0) {
		vt_fail(T, "sysfs irq_mode is '%s', expected '%s'", mode,
			strcmp(want, "auto") ? want : "msi");
		return 1;
	}
	fd = vt_open_dev(dev, O_RDWR, 2000);
	if (fd < 0) {
		vt_fail(T, "open /dev/%s: %s", dev, strerror(errno));
		return 1;
	}
	win = (size_t)vt_attr_ll(dev, "size");
	if (win < 2048 || win > 4096) {
		vt_fail(T, "sysfs size %zu: expected 2048..4096", win);
		return 1;
	}
	sizes[0] = 1;
	sizes[1] = 7;
	sizes[2] = 64;
	sizes[3] = 100;
	sizes[4] = 1000;
	sizes[5] = win - 1;
	sizes[6] = win;
	irq0 = vt_attr_ll(dev, "interrupts");
	xfer0 = vt_attr_ll(dev, "transfers");

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t len = sizes[s];
		size_t offs[] = { 0, 1, win - len };

		for (size_t o = 0; o < 3; o++) {
			size_t off = offs[o];
			long at;

			if (off + len > win || (o == 2 && off <= 1))
				continue;
			vt_fill(a, len, seed);
			memset(b, 0xee, sizeof(b));
			if (pwrite(fd, a, len, off) != (ssize_t)len) {
				vt_fail(T, "pwrite %zu at %zu: %s", len, off, strerror(errno));
				continue;
			}
			if (pread(fd, b, len, off) != (ssize_t)len) {
				vt_fail(T, "pread %zu at %zu: %s", len, off, strerror(errno));
				continue;
			}
			at = vt_check(b, len, seed);
			if (at >= 0)
				vt_fail(T, "%zu bytes at %zu: byte %ld reads 0x%02x, wrote 0x%02x",
					len, off, at, b[at], vt_byte(seed, at));
			seed++;
			n++;
		}
	}
	/* The whole window, read in two halves. */
	vt_fill(a, win, 99);
	if (pwrite(fd, a, win, 0) != (ssize_t)win ||
	    pread(fd, b, 2048, 0) != 2048 ||
	    pread(fd, b + 2048, win - 2048, 2048) != (ssize_t)(win - 2048) ||
	    memcmp(a, b, win))
		vt_fail(T, "window written whole and read in halves differs");

	expect("pwrite of 5000 bytes at 0 (shortened to the window)", vt_pwrite(fd, a, 5000, 0),
	       win, 0);
	expect("pwrite at the end of the window", vt_pwrite(fd, a, 1, win), -1, ENOSPC);
	expect("pread at the end of the window (EOF)", vt_pread(fd, b, 1, win), 0, 0);
	expect("pread beyond the window", vt_pread(fd, b, 1, 8192), -1, EINVAL);
	expect("pwrite from NULL", vt_pwrite(fd, NULL, 16, 0), -1, EFAULT);
	expect("pread into NULL", vt_pread(fd, NULL, 16, 0), -1, EFAULT);
	if (pread(fd, b, win, 0) != (ssize_t)win || memcmp(a, b, win))
		vt_fail(T, "the window changed after refused writes, or edu stopped working");

	irq0 = vt_attr_ll(dev, "interrupts") - irq0;
	xfer0 = vt_attr_ll(dev, "transfers") - xfer0;
	lost = vt_attr_ll(dev, "lost_irqs");
	vt_info("%s: %d patterns checked byte for byte, %lld DMAs, %lld interrupts, %lld lost",
		mode, n, xfer0, irq0, lost);
	if (irq0 < xfer0)
		vt_fail(T, "%lld interrupts for %lld DMAs", irq0, xfer0);
	if (lost)
		vt_fail(T, "%lld DMAs finished without their interrupt", lost);
	close(fd);
	if (!vt_failed)
		vt_pass(T);
	return vt_failed;
}
