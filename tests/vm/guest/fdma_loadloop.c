// SPDX-License-Identifier: MIT
/*
 * fdma_loadloop [N] [PARAMS] [NAME]: load /fdma.ko (default "ivshmem=1"),
 * move a pattern to card memory and back through the device, unload; N
 * times (default 20). The module must not be loaded when it starts. NAME
 * is the test's name (default load_unload).
 */
#include "vmtest.h"

static const char *T = "load_unload";

int main(int argc, char **argv)
{
	if (argc > 3)
		T = argv[3];
	int n = argc > 1 ? atoi(argv[1]) : 20;
	const char *params = argc > 2 ? argv[2] : "ivshmem=1";
	size_t len = 256 << 10;
	uint8_t *a = malloc(len), *b = malloc(len);
	double t0 = vt_now();
	char dev[64];
	int i, ret;

	if (!a || !b) {
		vt_fail(T, "out of memory");
		return 1;
	}
	if (vt_module_loaded()) {
		vt_fail(T, "fdma is already loaded");
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint64_t off = (uint64_t)i * 4096 * 17 + (i % 3) * 11;
		int fd;

		ret = vt_insmod(params);
		if (ret) {
			vt_fail(T, "load %d: insmod %s: %s", i + 1, params, strerror(-ret));
			return 1;
		}
		if (vt_find_dev("fdma", dev, sizeof(dev))) {
			vt_fail(T, "load %d: no fdma device bound", i + 1);
			vt_rmmod(0);
			return 1;
		}
		fd = vt_open_dev(dev, O_RDWR, 2000);
		if (fd < 0) {
			vt_fail(T, "load %d: open /dev/%s: %s", i + 1, dev, strerror(errno));
			vt_rmmod(0);
			return 1;
		}
		vt_fill(a, len, 300 + i);
		memset(b, 0, len);
		if (pwrite(fd, a, len, off) != (ssize_t)len ||
		    pread(fd, b, len, off) != (ssize_t)len || memcmp(a, b, len)) {
			vt_fail(T, "load %d: transfer of %zu bytes at %llu failed (%s)", i + 1,
				len, (unsigned long long)off, strerror(errno));
			close(fd);
			vt_rmmod(0);
			return 1;
		}
		/* The data written under the previous load is still in card memory. */
		if (i > 0) {
			uint64_t prev = (uint64_t)(i - 1) * 4096 * 17 + ((i - 1) % 3) * 11;

			if (pread(fd, b, 4096, prev) != 4096 || vt_check(b, 4096, 300 + i - 1) >= 0) {
				vt_fail(T, "load %d: card data of load %d is gone", i + 1, i);
				close(fd);
				vt_rmmod(0);
				return 1;
			}
		}
		close(fd);
		ret = vt_rmmod(0);
		if (ret) {
			vt_fail(T, "load %d: rmmod: %s", i + 1, strerror(-ret));
			return 1;
		}
		if (vt_module_loaded()) {
			vt_fail(T, "load %d: still loaded after rmmod", i + 1);
			return 1;
		}
	}
	vt_info("%d loads and unloads with a checked transfer each, %.1f s", n, vt_now() - t0);
	vt_pass(T);
	return 0;
}
