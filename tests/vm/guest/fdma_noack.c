// SPDX-License-Identifier: MIT
/*
 * fdma_noack PARAMS: a channel whose engine never acknowledges its reset
 * and keeps writing its rings, then rmmod. The module must not be loaded
 * when it starts; it loads /fdma.ko with PARAMS and leaves it unloaded.
 *
 * noack_broken: the device model is told (debugfs) to make the H2C
 *   channel go wrong at its next descriptor: it completes nothing more,
 *   ignores reset requests, and writes its completion ring and write-back
 *   block every 100 us. FDMA_IOC_CHAN_RESET then fails with ETIMEDOUT,
 *   the request comes back canceled, the channel is marked broken and
 *   refuses work (EIO), and the C2H channel still moves data.
 * noack_rmmod: the file is closed (its buffer, in flight on the broken
 *   channel, is kept) and the module removed while the channel still
 *   writes. remove() stops the engine (ENABLE cleared, STATUS.BUSY waited
 *   for, bus mastering off) before anything the engine could reach is
 *   freed: then memory is churned so that a write into a freed page would
 *   be found by page poisoning (the harness boots with page_poison=1 and
 *   fails on "memory corruption" in the kernel log). Loaded again (the
 *   engine reset clears the fault), the model's own log shows that the
 *   channel's writes after the disable were refused, not made, and the
 *   device works.
 * noack_bounce: the C2H channel goes wrong under an unaligned pwrite(),
 *   whose partial blocks are read through C2H into the H2C channel's
 *   bounce buffer. The watchdog finds no progress (timeout_ms lowered to
 *   500) and resets C2H, which does not acknowledge: the pwrite fails with
 *   ETIMEDOUT, and since the broken channel may still write that bounce
 *   buffer, the next (aligned) pwrite through it fails with EIO instead of
 *   sending bytes a broken engine can overwrite. rmmod then stops the
 *   engine and gives the bounce buffer back.
 */
#include "vmioc.h"

/* Touch n MiB of fresh memory, twice: freed pages come back and are checked. */
static void churn(int n)
{
	for (int k = 0; k < 2; k++) {
		size_t len = (size_t)n << 20;
		uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (p == MAP_FAILED)
			return;
		memset(p, k, len);
		munmap(p, len);
	}
}

static int bounce(const char *params)
{
	const char *T = "noack_bounce";
	uint8_t x[4096];
	char dev[64];
	double t0;
	int fd, failed = 0, ret;
	ssize_t n;

	if (vt_find_dev("fdma", dev, sizeof(dev)) ||
	    vt_write_str("/sys/module/fdma/parameters/timeout_ms", "500")) {
		vt_fail(T, "setup: %s", strerror(errno));
		vt_rmmod(0);
		return 1;
	}
	fd = vt_open_dev(dev, O_RDWR, 2000);
	ret = fd < 0 ? -errno : vi_fault(dev, "noack", 1, 1);
	if (ret) {
		vt_fail(T, "open and arm the fault on C2H: %s", strerror(-ret));
		vt_rmmod(0);
		return 1;
	}
	vt_fill(x, sizeof(x), 6);
	t0 = vi_ms();
	n = pwrite(fd, x, 100, 4097);
	if (n != -1 || errno != ETIMEDOUT) {
		vt_fail(T, "unaligned pwrite with C2H gone wrong: %zd (%s), expected ETIMEDOUT", n,
			n < 0 ? strerror(errno) : "bytes");
		failed = 1;
	}
	vt_info("the partial-block read gave up after %.0f ms", vi_ms() - t0);
	n = pwrite(fd, x, sizeof(x), 8192);
	if (n != -1 || errno != EIO) {
		vt_fail(T, "aligned pwrite through the bounce buffer a broken channel may write: %zd (%s), expected EIO",
			n, n < 0 ? strerror(errno) : "bytes");
		failed = 1;
	}
	close(fd);
	ret = vt_rmmod(0);
	if (ret) {
		vt_fail(T, "rmmod: %s", strerror(-ret));
		return 1;
	}
	/* The engine stopped: nothing was kept, and the next load works. */
	ret = vt_insmod(params);
	if (ret || vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(T, "load again: %s", strerror(-ret));
		return 1;
	}
	fd = vt_open_dev(dev, O_RDWR, 2000);
	if (fd < 0 || pwrite(fd, x, sizeof(x), 8192) != sizeof(x)) {
		vt_fail(T, "pwrite after reloading: %s", strerror(errno));
		failed = 1;
	}
	if (fd >= 0)
		close(fd);
	ret = vt_rmmod(0);
	if (ret) {
		vt_fail(T, "rmmod at the end: %s", strerror(-ret));
		failed = 1;
	}
	if (!failed)
		vt_pass(T);
	return failed;
}

int main(int argc, char **argv)
{
	const char *params = argc > 1 ? argv[1] : "ivshmem=1";
	const char *T = "noack_broken";
	struct fdma_cq_entry e = { 0 };
	struct fdma_ioc_req r;
	struct vi_buf b, c;
	struct vi_dev d;
	char st[128];
	long long w0, w1, refused, r0, r1;
	double t0;
	int ret;

	memset(&d, 0, sizeof(d));
	d.fd = -1;
	if (vt_module_loaded()) {
		vt_fail(T, "fdma is already loaded");
		return 1;
	}
	ret = vt_insmod(params);
	if (ret || vi_open(&d, NULL) || d.h2c < 0 || d.c2h < 0 || vi_cq_map(&d, d.h2c) ||
	    vi_cq_map(&d, d.c2h) || vi_alloc(&d, 65536, &b) || vi_alloc(&d, 65536, &c)) {
		vt_fail(T, "load and open: %s", strerror(ret ? -ret : errno));
		vi_close(&d);
		vt_rmmod(0);
		return 1;
	}
	ret = vi_fault(d.name, "noack", d.h2c, 1);
	if (ret) {
		vt_fail(T, "arming the fault: %s", strerror(-ret));
		munmap(b.p, b.size);
		munmap(c.p, c.size);
		vi_close(&d);
		vt_rmmod(0);
		return 1;
	}
	r = (struct fdma_ioc_req){ .handle = b.handle, .len = 4096, .card_addr = 0, .user_data = 1 };
	ret = vi_submit(&d, d.h2c, &r, 1);
	if (!ret && vi_wait(&d, d.h2c, 1, 300000, NULL) != -ETIMEDOUT)
		vt_fail(T, "the faulty channel completed its request");
	w0 = vi_model_ctr(d.name, "rogue_writes");
	usleep(50000);
	w1 = vi_model_ctr(d.name, "rogue_writes");
	if (w1 <= w0 || w0 < 0)
		vt_fail(T, "the channel is not writing (model: %lld, then %lld writes)", w0, w1);
	t0 = vi_ms();
	ret = vi_reset(&d, d.h2c);
	if (ret != -ETIMEDOUT)
		vt_fail(T, "FDMA_IOC_CHAN_RESET: %s, expected ETIMEDOUT", strerror(-ret));
	if (vi_cq_take(&d, d.h2c, &e, 1) != 1 || e.res != -ECANCELED)
		vt_fail(T, "the request did not come back canceled");
	snprintf(st, sizeof(st), "ch%d/status", d.h2c);
	if (vt_attr_str(d.name, st, st, sizeof(st)) || !strstr(st, "broken"))
		vt_fail(T, "sysfs status '%s' does not say broken", st);
	ret = vi_submit(&d, d.h2c, &r, 1);
	if (ret != -EIO)
		vt_fail(T, "submit on the broken channel: %s, expected EIO", strerror(-ret));
	/* The other channel is not disturbed. */
	r = (struct fdma_ioc_req){ .handle = c.handle, .len = 4096, .card_addr = 0, .user_data = 2 };
	ret = vi_submit(&d, d.c2h, &r, 1);
	if (!ret)
		ret = vi_collect(&d, d.c2h, &e, 1, 5000000);
	if (ret || e.res)
		vt_fail(T, "the C2H channel beside it: %s, res %d", strerror(-ret), e.res);
	vt_info("reset not acknowledged after %.0f ms; the channel writes on (%lld writes so far)",
		vi_ms() - t0, vi_model_ctr(d.name, "rogue_writes"));
	if (!vt_failed)
		vt_pass(T);

	T = "noack_rmmod";
	r0 = vi_model_ctr(d.name, "refused");
	/* The mappings hold the file, and the file the module: let go of all. */
	munmap(b.p, b.size);
	munmap(c.p, c.size);
	vi_close(&d);
	t0 = vi_ms();
	ret = vt_rmmod(0);
	if (ret) {
		vt_fail(T, "rmmod: %s", strerror(-ret));
		usleep(500000);
		vt_rmmod(0);
		return 1;
	}
	vt_info("rmmod took %.0f ms with the channel still writing", vi_ms() - t0);
	/* Freed pages come back to be used: page poisoning checks each. */
	churn(64);
	usleep(200000);
	churn(64);
	ret = vt_insmod(params);
	if (ret || vi_open(&d, NULL)) {
		vt_fail(T, "load again: %s", strerror(ret ? -ret : errno));
		vt_rmmod(0);
		return 1;
	}
	refused = vi_model_ctr(d.name, "refused");
	w0 = vi_model_ctr(d.name, "rogue_writes");
	usleep(50000);
	w1 = vi_model_ctr(d.name, "rogue_writes");
	r1 = vi_model_ctr(d.name, "refused");
	if (refused <= r0)
		vt_fail(T, "the model refused no write after the engine was disabled (%lld, %lld before)",
			refused, r0);
	if (w1 != w0 || r1 != refused)
		vt_fail(T, "the channel still writes after an engine reset (%lld -> %lld writes, %lld -> %lld refused)",
			w0, w1, refused, r1);
	vi_close(&d);
	if (vt_find_dev("fdma", st, sizeof(st)) == 0) {
		int fd = vt_open_dev(st, O_RDWR, 2000);
		uint8_t x[4096], y[4096];

		vt_fill(x, sizeof(x), 5);
		if (fd < 0 || pwrite(fd, x, sizeof(x), 8192) != sizeof(x) ||
		    pread(fd, y, sizeof(y), 8192) != sizeof(y) || memcmp(x, y, sizeof(x)))
			vt_fail(T, "the device does not work after reloading");
		if (fd >= 0)
			close(fd);
	}
	vt_info("the model refused %lld of the channel's writes after the disable",
		refused - r0);
	if (!vt_failed)
		vt_pass(T);
	return bounce(params) | vt_failed;
}
