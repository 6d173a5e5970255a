// SPDX-License-Identifier: MIT
/*
 * Interrupt coalescing through sysfs (chN/coal_count, chN/coal_usecs):
 * valid values are read back, invalid ones refused with EINVAL or ERANGE
 * and the old value kept; transfers complete under each setting (every
 * coalescing rule ends in an interrupt), and the interrupts per completion
 * are reported from the driver's counters.
 */
#include "vmtest.h"

static const char *T = "coalescing";
static char dev[64];

static void set_ok(const char *attr, const char *val)
{
	char back[32];
	int ret = vt_attr_write(dev, attr, val);

	if (ret) {
		vt_fail(T, "%s = %s refused: %s", attr, val, strerror(-ret));
		return;
	}
	vt_attr_str(dev, attr, back, sizeof(back));
	if (strtoull(back, NULL, 0) != strtoull(val, NULL, 0))
		vt_fail(T, "%s = %s reads back %s", attr, val, back);
}

static void set_bad(const char *attr, const char *val)
{
	char before[32], after[32];
	int ret;

	vt_attr_str(dev, attr, before, sizeof(before));
	ret = vt_attr_write(dev, attr, val);
	vt_attr_str(dev, attr, after, sizeof(after));
	if (ret != -EINVAL && ret != -ERANGE)
		vt_fail(T, "%s = '%s': %s, expected EINVAL or ERANGE", attr, val,
			ret ? strerror(-ret) : "accepted");
	else if (strcmp(before, after))
		vt_fail(T, "%s = '%s' was refused but changed the value from %s to %s",
			attr, val, before, after);
}

/* n transfers each way of len bytes; interrupts per completion. */
static int run(int fd, int n, size_t len, const char *label)
{
	uint8_t *a = malloc(len), *b = malloc(len);
	long long i0 = vt_attr_ll(dev, "ch0/interrupts") + vt_attr_ll(dev, "ch1/interrupts");
	long long c0 = vt_attr_ll(dev, "ch0/completions") + vt_attr_ll(dev, "ch1/completions");
	double t0 = vt_now();
	long long di, dc;

	for (int k = 0; k < n; k++) {
		vt_fill(a, len, 5000 + k);
		if (pwrite(fd, a, len, (uint64_t)k * len) != (ssize_t)len ||
		    pread(fd, b, len, (uint64_t)k * len) != (ssize_t)len ||
		    memcmp(a, b, len)) {
			vt_fail(T, "%s: transfer %d failed: %s", label, k, strerror(errno));
			free(a);
			free(b);
			return -1;
		}
	}
	di = vt_attr_ll(dev, "ch0/interrupts") + vt_attr_ll(dev, "ch1/interrupts") - i0;
	dc = vt_attr_ll(dev, "ch0/completions") + vt_attr_ll(dev, "ch1/completions") - c0;
	vt_info("%s: %lld completions, %lld interrupts (%.2f per completion), %.2f s",
		label, dc, di, dc ? (double)di / dc : 0.0, vt_now() - t0);
	free(a);
	free(b);
	return 0;
}

int main(void)
{
	char ring[32], v[32];
	int fd;

	fd = vt_open_fdma(T, dev, sizeof(dev));
	if (fd < 0)
		return 1;
	/* Counts run to 65536 (above the ring size, the timer or the drain fires). */
	vt_attr_str(dev, "ring_size", ring, sizeof(ring));
	snprintf(v, sizeof(v), "%d", 65537);

	for (int ch = 0; ch < 2; ch++) {
		char cnt[32], us[32];

		snprintf(cnt, sizeof(cnt), "ch%d/coal_count", ch);
		snprintf(us, sizeof(us), "ch%d/coal_usecs", ch);
		set_ok(cnt, "8");
		set_ok(cnt, "1");
		set_ok(cnt, ring);
		set_ok(cnt, "65536");
		set_ok(cnt, "0x10");
		set_bad(cnt, v);
		set_bad(cnt, "abc");
		set_bad(cnt, "-1");
		set_bad(cnt, "\n");
		set_bad(cnt, "4294967296");
		set_bad(cnt, "12abc");
		set_ok(us, "100");
		set_ok(us, "1000000");
		set_bad(us, "1000001");
		set_bad(us, "99999999999");
		set_bad(us, "x");
		set_ok(us, "0");
		set_ok(cnt, "0");
	}

	run(fd, 16, 64 << 10, "coal_count 0, coal_usecs 0");
	set_ok("ch0/coal_count", "8");
	set_ok("ch1/coal_count", "8");
	run(fd, 16, 64 << 10, "coal_count 8, coal_usecs 0");
	set_ok("ch0/coal_usecs", "500");
	set_ok("ch1/coal_usecs", "500");
	run(fd, 16, 64 << 10, "coal_count 8, coal_usecs 500");
	set_ok("ch0/coal_count", "0");
	set_ok("ch1/coal_count", "0");
	set_ok("ch0/coal_usecs", "0");
	set_ok("ch1/coal_usecs", "0");
	close(fd);
	if (!vt_failed)
		vt_pass(T);
	return vt_failed;
}
