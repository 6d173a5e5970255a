// SPDX-License-Identifier: MIT
/*
 * fdma_xfault KIND [CH]: a fault armed at run time through the model's
 * test block (debugfs fdma/fdmaN/model: "fault KIND CH 1", the next
 * descriptor channel CH fetches; CH 0, the H2C memory-mapped channel, or
 * 1, C2H) on a device model that has one (the XDMA model behind the proxy,
 * the FDMA model behind ivshmem). One transfer through read()/write()
 * meets it: desc, magic and data must fail it with EIO, stuck with
 * ETIMEDOUT (the driver's timeout_ms), irq must only delay it; the driver
 * must count a channel reset (sysfs chN/resets) for the first three, and
 * the next 16 transfers on both channels must succeed with the right data,
 * without reloading the module.
 */
#include <stdbool.h>

#include "vmtest.h"

static char T[64];

/* One 4 KiB transfer at card offset off: write (c2h 0) or read back and check. */
static ssize_t xfer(int fd, bool c2h, uint64_t off, uint64_t seed)
{
	uint8_t buf[4096];
	ssize_t r;

	if (!c2h) {
		vt_fill(buf, sizeof(buf), seed);
		return pwrite(fd, buf, sizeof(buf), (off_t)off);
	}
	memset(buf, 0, sizeof(buf));
	r = pread(fd, buf, sizeof(buf), (off_t)off);
	if (r == (ssize_t)sizeof(buf) && vt_check(buf, sizeof(buf), seed) >= 0) {
		vt_fail(T, "read back wrong data at 0x%llx", (unsigned long long)off);
		return -2;
	}
	return r;
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	int ch = argc > 2 ? atoi(argv[2]) : 0;
	int want = !strcmp(kind, "stuck") ? ETIMEDOUT : !strcmp(kind, "irq") ? 0 : EIO;
	char dev[64], path[128], cmd[64], attr[32];
	long long r0, r1;
	double t0;
	ssize_t r;
	int fd;

	if ((strcmp(kind, "desc") && strcmp(kind, "magic") && strcmp(kind, "data") &&
	     strcmp(kind, "stuck") && strcmp(kind, "irq")) || (ch != 0 && ch != 1)) {
		fprintf(stderr, "usage: fdma_xfault desc|magic|data|stuck|irq [0|1]\n");
		return 2;
	}
	snprintf(T, sizeof(T), "xfault_%s_ch%d", kind, ch);
	fd = vt_open_fdma(T, dev, sizeof(dev));
	if (fd < 0)
		return 1;
	/* Something there to read back first (channel 1 reads what channel 0 wrote). */
	if (xfer(fd, false, 0, 1) != 4096) {
		vt_fail(T, "the first write failed: %s", strerror(errno));
		return 1;
	}
	snprintf(attr, sizeof(attr), "ch%d/resets", ch);
	r0 = vt_attr_ll(dev, attr);
	snprintf(path, sizeof(path), "/sys/kernel/debug/fdma/%s/model", dev);
	snprintf(cmd, sizeof(cmd), "fault %s %d 1", kind, ch);
	if (vt_write_str(path, cmd)) {
		vt_fail(T, "cannot arm the fault (%s: %s)", path, strerror(errno));
		return 1;
	}
	t0 = vt_now();
	r = xfer(fd, ch == 1, 0, 1);
	if (r == -2)
		return 1;
	if (want && r >= 0) {
		vt_fail(T, "the faulty transfer succeeded");
	} else if (want && errno != want) {
		vt_fail(T, "the faulty transfer failed with %s, expected %s", strerror(errno),
			strerror(want));
	} else if (!want && r != 4096) {
		vt_fail(T, "a lost interrupt failed the transfer: %s", strerror(errno));
	}
	vt_info("%s: %s after %.2f s", cmd, r < 0 ? strerror(errno) : "done", vt_now() - t0);
	r1 = vt_attr_ll(dev, attr) - r0;
	if (want && r1 < 1)
		vt_fail(T, "no channel reset counted in %s", attr);
	/* Both channels work on: write then read back, 8 pairs, each checked. */
	for (uint64_t i = 0; i < 8 && !vt_failed; i++) {
		if (xfer(fd, false, (i + 1) * 4096, 100 + i) != 4096)
			vt_fail(T, "write %llu after the fault: %s", (unsigned long long)i, strerror(errno));
		else if ((r = xfer(fd, true, (i + 1) * 4096, 100 + i)) != 4096 && r != -2)
			vt_fail(T, "read %llu after the fault: %s", (unsigned long long)i, strerror(errno));
	}
	close(fd);
	if (!vt_failed)
		vt_pass(T);
	return vt_failed;
}
