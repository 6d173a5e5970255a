// SPDX-License-Identifier: MIT
/*
 * fdma_recover KIND N: the model was started with fault=KIND@N (its Nth
 * descriptor fetched, counted over all channels, fails): desc or data halt
 * the channel with an error, stuck stops it completing, irq loses one
 * interrupt. One transfer per descriptor is made, alternately H2C and C2H;
 * the faulty one must fail with the right errno (EIO for desc and data,
 * ETIMEDOUT for stuck; irq: no error, only a delay), the driver must
 * recover the channel with a channel reset (sysfs chN/resets), and every
 * transfer after it must succeed with the right data, without reloading
 * the module.
 */
#include "vmtest.h"

static const char *T = "recover";

int main(int argc, char **argv)
{
	const char *kind = argc > 2 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	int want = !strcmp(kind, "stuck") ? ETIMEDOUT : !strcmp(kind, "irq") ? 0 : EIO;
	long long r0, r1, e0, e1, l0, l1;
	int fd, failed = 0, first_err = 0;
	long fail_at = -1;
	uint8_t a[4096], b[4096];
	char dev[64], name[64];

	if (n < 1 || (strcmp(kind, "stuck") && strcmp(kind, "desc") &&
		      strcmp(kind, "data") && strcmp(kind, "irq"))) {
		fprintf(stderr, "usage: fdma_recover desc|data|stuck|irq N\n");
		return 2;
	}
	snprintf(name, sizeof(name), "recover_%s", kind);
	T = name;
	fd = vt_open_fdma(T, dev, sizeof(dev));
	if (fd < 0)
		return 1;
	r0 = vt_attr_ll(dev, "ch0/resets") + vt_attr_ll(dev, "ch1/resets");
	e0 = vt_attr_ll(dev, "ch0/errors") + vt_attr_ll(dev, "ch1/errors");
	l0 = vt_attr_ll(dev, "ch0/lost_irqs") + vt_attr_ll(dev, "ch1/lost_irqs");
	/* Descriptor d (1-based): odd ones are writes, even ones reads. */
	for (long d = 1; d <= n + 32; d++) {
		uint64_t off = (uint64_t)((d - 1) / 2) * 4096;
		double t0 = vt_now();
		ssize_t r;

		if (d & 1) {
			vt_fill(a, sizeof(a), (uint64_t)d);
			r = pwrite(fd, a, sizeof(a), off);
		} else {
			memset(b, 0, sizeof(b));
			r = pread(fd, b, sizeof(b), off);
		}
		if (r != (ssize_t)sizeof(a)) {
			vt_info("descriptor %ld (%s): %s after %.2f s", d, d & 1 ? "write" : "read",
				strerror(errno), vt_now() - t0);
			if (failed++ == 0) {
				first_err = errno;
				fail_at = d;
			}
			/* The next write of the pair must be redone: its data is unknown. */
			if (d & 1)
				d++;
			continue;
		}
		if (!(d & 1) && fail_at != d - 1 && vt_check(b, sizeof(b), (uint64_t)(d - 1)) >= 0)
			vt_fail(T, "descriptor %ld: read back wrong data", d);
		if (vt_now() - t0 > 0.5)
			vt_info("descriptor %ld: %.2f s", d, vt_now() - t0);
	}
	r1 = vt_attr_ll(dev, "ch0/resets") + vt_attr_ll(dev, "ch1/resets") - r0;
	e1 = vt_attr_ll(dev, "ch0/errors") + vt_attr_ll(dev, "ch1/errors") - e0;
	l1 = vt_attr_ll(dev, "ch0/lost_irqs") + vt_attr_ll(dev, "ch1/lost_irqs") - l0;
	vt_info("fault %s@%ld: %d failed transfer(s), first at descriptor %ld (%s); %lld resets, %lld errors, %lld lost interrupts counted",
		kind, n, failed, fail_at, first_err ? strerror(first_err) : "-", r1, e1, l1);
	if (want && !failed)
		vt_fail(T, "no transfer failed: the model's fault (its descriptor %ld) was not among the driver's; did something fetch descriptors before this test (the smoke tests)?",
			n);
	else if (want && failed != 1)
		vt_fail(T, "%d transfers failed, expected exactly 1", failed);
	else if (want && first_err != want)
		vt_fail(T, "the faulty transfer failed with %s, expected %s",
			strerror(first_err), strerror(want));
	else if (want && r1 < 1)
		vt_fail(T, "no channel reset counted");
	else if (!want && failed)
		vt_fail(T, "a lost interrupt made a transfer fail (%s)", strerror(first_err));
	else if (!want && l1 != 1)
		vt_fail(T, "%lld lost interrupts counted (sysfs chN/lost_irqs), expected 1%s", l1,
			l1 ? "" : " (did something else fetch the model's descriptors first?)");
	close(fd);
	if (!vt_failed)
		vt_pass(T);
	return vt_failed;
}
